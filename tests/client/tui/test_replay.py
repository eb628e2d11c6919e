"""Replays in the app: a real race on a real server, saved with the client and stepped through on screen
(each board the engine's view at that point), played at a speed; the race result screen's save key; and
``parlour play --replay`` (a file offline, a race id from the server, a dishonest file refused)."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from textual.app import App
from textual.widgets import Static

from parlour.client import cli
from parlour.client.connection import Client, End, Start
from parlour.client.line_race import replay_file, save_replay_to
from parlour.client.tui import racing
from parlour.client.tui.layouts import layout_for
from parlour.client.tui.race import RaceTable
from parlour.client.tui.racing import RaceResultScreen
from parlour.client.tui.replay import ReplayApp, ReplayScreen, SeatPanel
from parlour.client.tui.replaying import positions_of
from parlour.client.tui.widgets import BoardView
from tests.client.tui.test_app import until, until_shown
from tests.client.tui.test_replaying import engine_view
from tests.conftest import ServerProcess

SIZE = (120, 40)


@dataclass
class Finished:
    """A finished two-seat Golf race (undo allowed): ada played 4 moves, took one back and conceded; bob
    played 3 and conceded."""

    ada: Client
    bob: Client
    race: str
    start: Start
    end: End


async def play(client: Client, race: str, start: Start, moves: int) -> None:
    """``moves`` moves, each the first legal one."""
    seq, view = start.seq, start.view
    for _ in range(moves):
        ack = await client.move(race, seq, view["moves"][0])
        seq, view = ack.seq, ack.view


async def finish_a_race(url: str) -> Finished:
    async with asyncio.timeout(20):
        ada = await Client.connect(url, "ada")
        bob = await Client.connect(url, "bob")
        race = str((await ada.create("golf", undo=True)).race["id"])
        await bob.join(race)
        await ada.ready(race)
        await bob.ready(race)
        start_a = await ada.next_event(Start, race=race)
        start_b = await bob.next_event(Start, race=race)
        await play(ada, race, start_a, 4)
        await ada.undo(race, 4)
        await ada.concede(race)
        await play(bob, race, start_b, 3)
        await bob.concede(race)
        end = await ada.next_event(End, race=race)
    return Finished(ada, bob, race, start_a, end)


@pytest_asyncio.fixture
async def finished(server: ServerProcess) -> AsyncIterator[Finished]:
    race = await finish_a_race(server.url)
    yield race
    await race.ada.close()
    await race.bob.close()


def boards_on_screen(screen: ReplayScreen) -> list[tuple[str, Any]]:
    """Each panel's seat name and the board its widgets draw."""
    return [(panel.seat.name, panel.query_one(BoardView).board) for panel in screen.query(SeatPanel)]


def expected(document: dict[str, Any], numbers: dict[str, int]) -> list[tuple[str, Any]]:
    """The boards of the engine's views after the first ``numbers[name]`` entries of each named seat's log."""
    seed, layout = int(document["seed"], 16), layout_for("golf")
    logs = {seat["name"]: seat["log"] for seat in document["seats"]}
    return [(name, layout.board(engine_view("golf", seed, logs[name][:n]))) for name, n in numbers.items()]


@pytest.mark.asyncio
async def test_a_saved_race_steps_back_and_forth_through_the_engines_views(finished: Finished, tmp_path: Path) -> None:
    path = tmp_path / replay_file(finished.race)
    document = await save_replay_to(finished.ada, finished.race, str(path))
    assert [len(seat["log"]) for seat in document["seats"]] == [6, 4]
    app = ReplayApp(str(path))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, ReplayScreen)
        assert boards_on_screen(screen) == expected(document, {"ada": 0})
        await pilot.press("right", "right", "full_stop")
        assert boards_on_screen(screen) == expected(document, {"ada": 3})
        await pilot.press("left")
        assert boards_on_screen(screen) == expected(document, {"ada": 2})
        assert "step 2/6" in str(screen.query_one("#where", Static).render())
        await pilot.press("end")
        await pilot.pause()
        assert boards_on_screen(screen) == expected(document, {"ada": 6})  # the undo, then the concession
        heading = str(screen.query_one(SeatPanel).query_one(".seat-head", Static).render())
        assert "concede" in heading and "place: score" in heading and "conceded" in heading
        await pilot.press("home", "tab")
        await pilot.pause()
        assert boards_on_screen(screen) == expected(document, {"bob": 0})
        await pilot.press("right", "a")  # bob's first entry, all seats: ada's first came before it
        await pilot.pause()
        assert boards_on_screen(screen) == expected(document, {"ada": 1, "bob": 1})
        await pilot.press("right", "right")
        assert boards_on_screen(screen) == expected(document, {"ada": 2, "bob": 2})
        await pilot.press("comma")
        assert boards_on_screen(screen) == expected(document, {"ada": 2, "bob": 1})
        await pilot.press("end")
        await pilot.pause()
        assert boards_on_screen(screen) == expected(document, {"ada": 6, "bob": 4})
        await pilot.press("a")
        await pilot.pause()
        assert [name for name, _ in boards_on_screen(screen)] == ["bob"]
        await pilot.press("escape")
    assert app.return_code == 0


@pytest.mark.asyncio
async def test_play_advances_at_the_chosen_speed_and_stops_at_the_end(finished: Finished) -> None:
    document = (await finished.ada.replay(finished.race)).replay
    app = ReplayApp(document)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, ReplayScreen)
        await pilot.press("a", "plus", "plus", "plus")
        assert screen.speed == 16.0
        await pilot.press("minus")
        assert screen.speed == 8.0
        await pilot.press("space")
        assert screen.playing and "playing, 8 entries a second" in str(screen.query_one("#where", Static).render())
        await until(pilot, lambda: screen.cursor.step >= 2, what="two entries played")
        await until(pilot, lambda: not screen.playing, what="the end")
        assert screen.cursor.step == positions_of(document).end == 10
        assert boards_on_screen(screen) == expected(document, {"ada": 6, "bob": 4})
        await pilot.press("minus", "minus", "minus", "minus")
        assert screen.speed == 0.5
        await pilot.press("space")  # at the end, it plays again from the start (an entry every 2 s)
        assert screen.playing and screen.cursor.step <= 1
        await pilot.press("space")
        assert not screen.playing


class ResultApp(App[None]):
    """The race result screen alone, over an empty screen."""

    def __init__(self, table: RaceTable, end: End) -> None:
        super().__init__()
        self.table = table
        self.end = end

    def on_mount(self) -> None:
        self.push_screen(RaceResultScreen(self.table, self.end))


@pytest.mark.asyncio
async def test_the_race_result_screens_s_saves_a_replay_parlour_verify_accepts_and_v_shows_it(
    finished: Finished, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    summary = (await finished.ada.snapshot(finished.race)).race
    app = ResultApp(RaceTable(finished.ada, summary, finished.start), finished.end)
    path = tmp_path / replay_file(finished.race)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("s")
        saved = app.screen.query_one("#saved", Static)
        await until(pilot, lambda: "Replay saved" in str(saved.render()), what="the replay saved")
        assert str(path) in str(saved.render()).replace("\n", "")
        await pilot.press("v")  # the replay on screen, over the result; Esc comes back
        await until_shown(pilot, ReplayScreen, what="the replay shown")
        assert [panel.seat.name for panel in app.screen.query(SeatPanel)] == ["ada"]
        await pilot.press("escape")
        assert isinstance(app.screen, RaceResultScreen)
    verified = subprocess.run(
        [sys.executable, "-m", "parlour.client.cli", "verify", str(path)], capture_output=True, text=True, timeout=60
    )
    assert verified.returncode == 0, verified.stdout + verified.stderr
    assert json.loads(path.read_text())["race"] == finished.race


def test_parlour_play_replay_opens_a_file_or_a_race_from_the_server(
    server: ServerProcess, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    opened: list[ReplayApp] = []
    monkeypatch.setattr(ReplayApp, "run", lambda self: opened.append(self))
    race = asyncio.run(close_after(finish_a_race(server.url)))
    identity = str(tmp_path / "identities.json")
    assert cli.main(["play", "--replay", race, "--server", server.url, "--identity", identity]) == 0
    assert opened[-1].replay.race == race and [s.name for s in opened[-1].replay.seats] == ["ada", "bob"]


async def close_after(finishing: Any) -> str:
    race: Finished = await finishing
    await race.ada.close()
    await race.bob.close()
    return race.race


def test_parlour_play_replay_refuses_a_dishonest_or_missing_file_in_one_line(tmp_path: Path) -> None:
    from tests.client.tui.replays import made_replay, played_log

    document = made_replay("golf", 7, [played_log("golf", 7, 3, 1)])
    document["results"][0]["score"] = 1
    path = tmp_path / "bad.replay.json"
    path.write_text(json.dumps(document))
    for target, said in ((path, "the result says score 1"), (tmp_path / "none.json", "no replay file")):
        result = subprocess.run(
            [sys.executable, "-m", "parlour.client.cli", "play", "--replay", str(target)],
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert result.returncode == 2 and said in result.stderr and "Traceback" not in result.stderr


@pytest.mark.asyncio
async def test_par_worked_out_after_the_result_screen_has_closed_is_dropped(
    finished: Finished, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The solver runs in a thread; the player may leave the screen (l, Esc) before it answers, and the
    answer must then be dropped, not fail the app (seen once in CI: NoMatches for ``#par``)."""
    monkeypatch.setattr(racing, "par", lambda *args: 0)
    summary = (await finished.ada.snapshot(finished.race)).race
    app = ResultApp(RaceTable(finished.ada, summary, finished.start), finished.end)
    async with app.run_test(size=(80, 24)) as pilot:
        result = app.screen
        assert isinstance(result, RaceResultScreen)
        par_line = result.query_one("#par", Static)
        await until(pilot, lambda: str(par_line.render()).startswith("Par 0"), what="par")
        await pilot.press("escape")
        await until(pilot, lambda: not result.is_attached, what="the result screen removed")
        await result.show_par()  # as when the solver answers after the player has left
