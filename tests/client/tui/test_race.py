"""The race table: the pure parts, and a real race in the app against ``parlour bot run random`` on a real server."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from textual.app import App
from textual.widgets import Static
from websockets.datastructures import Headers
from websockets.exceptions import InvalidStatus
from websockets.http11 import Response

from parlour.bots.ceiling import ceiling
from parlour.client.connection import Client, ClientError, End, Progress, Start
from parlour.client.tui.app import GameScreen, HelpScreen
from parlour.client.tui.layouts import Layout, layout_for, legal_moves
from parlour.client.tui.picking import Play, Select, press
from parlour.client.tui.race import (
    Opponent,
    RaceTable,
    Refused,
    clock_text,
    opponents_from,
    par,
    progressed,
    refusal,
    results_text,
    seed_check,
)
from parlour.client.tui.racing import RaceApp, RaceResultScreen, RaceScreen
from parlour.games import IllegalMove, game_names, get_game
from parlour.protocol.replay import commitment
from parlour.protocol.text import plural
from tests.bots.helpers import BotRun, bot_online
from tests.client.tui.test_app import drawn, keyed_move, message, path_keys, press_at, until, until_shown
from tests.conftest import ServerProcess

SIZE = (80, 24)


@pytest_asyncio.fixture(autouse=True)
async def _no_process_left_behind() -> AsyncIterator[None]:
    yield
    await BotRun.cleanup()


def test_opponents_are_the_other_seats_and_progress_updates_them() -> None:
    race = {"players": [{"seat": 0, "name": "ann"}, {"seat": 1, "name": "random"}, {"seat": 2, "name": "bob"}]}
    opponents = opponents_from(race, seat=0)
    assert opponents == {1: Opponent(1, "random"), 2: Opponent(2, "bob")}
    assert opponents[1].line() == "random: score -, 0 moves, playing"

    after = progressed(opponents, Progress(race="r", seat=1, score=30, moves=4, finished=False), seat=0)
    assert after[1] == Opponent(1, "random", 30, 4, False, None) and after[2] == opponents[2]
    assert after[1].line() == "random: score 30, 4 moves, playing"
    done = progressed(after, Progress(race="r", seat=2, score=0, moves=1, finished=True, ended="conceded"), seat=0)
    assert done[2].line() == "bob: score 0, 1 move, conceded"
    assert progressed(done, Progress(race="r", seat=0, score=1, moves=9), seat=0) == done  # one's own seat
    unknown = progressed({}, Progress(race="r", seat=3, score=5, moves=2), seat=0)
    assert unknown[3].name == "seat 3"


def test_the_revealed_seed_is_checked_against_the_commitment_and_par_comes_from_a_solver() -> None:
    seed, salt = 12345, bytes(16)
    published = commitment(seed, salt)
    honest = End(race="r", seed=f"{seed:x}", salt=salt.hex())
    assert "it matches the commitment" in seed_check(honest, published)
    assert "does NOT match" in seed_check(End(race="r", seed=f"{seed + 1:x}", salt=salt.hex()), published)
    assert "does NOT match" in seed_check(End(race="r", seed="zz", salt="??"), published)
    golf = get_game("golf")
    best = par(golf, f"{seed:x}", {})
    assert best is not None and best <= 35 and best == ceiling(golf, golf.deal(seed))
    assert par(get_game("gate"), f"{seed:x}", {}) is None  # its ceiling is only a bound: no par


def test_clock_refusals_and_results() -> None:
    assert clock_text(245) == "Time 4:05" and clock_text(0.2) == "Time 0:01" and clock_text(-3) == "Time 0:00"
    illegal = refusal(ClientError("illegal_move", "pile 5 is empty"))
    assert isinstance(illegal, IllegalMove) and illegal.reason == "pile 5 is empty"
    stale = refusal(ClientError("stale_seq", "seq 3 expected"))
    assert isinstance(stale, Refused) and str(stale) == "stale_seq: seq 3 expected"
    end = End(race="r", results=[{"place": 1, "name": "ann", "score": 3, "ended": "won", "moves": 40, "time": 12.5}])
    assert results_text(end) == ["1. ann: score 3 (won, 40 moves, 12.5 s)"]


def sent_but_illegal(layout: Layout, view: dict[str, Any], cursor: str) -> list[str]:
    """A source and a destination whose move the layout sends though no legal move matches it (the
    server refuses it), the fewest arrow keys from ``cursor``."""
    board = layout.board(view)
    legal = legal_moves(view)
    names = [p.name for p in board.places() if p.pointable and p.name not in layout.actions]
    found = []
    for src in names:
        first = press(layout, view, board, None, src)
        if isinstance(first, Select):
            for dst in names:
                second = press(layout, view, board, first.selection, dst)
                if isinstance(second, Play) and second.move not in legal:
                    found.append([src, dst])
    assert found, "the layout refuses every illegal pair itself"
    return min(found, key=lambda pair: path_keys(board, cursor, pair))


def race_text(screen: RaceScreen) -> str:
    return str(screen.query_one("#race", Static).render())


def clock_seconds(line: str) -> int:
    """The seconds a clock line (``Time 9:58``) shows."""
    minutes, seconds = line.removeprefix("Time ").split(":")
    assert len(seconds) == 2, line
    return int(minutes) * 60 + int(seconds)


# A key whose action waits for the server's answer may still be on its way when Pilot's press returns
# (on a loaded machine): the tests wait for the answer on the message line before checking it.
def refused(screen: GameScreen) -> bool:
    return message(screen)[1]


def played(screen: GameScreen) -> bool:
    return message(screen)[0].startswith("Played ")


async def with_random_bot(
    server: ServerProcess, tmp_path: Path, bot: str = "random"
) -> Callable[[], Awaitable[Client]]:
    """Start ``parlour bot run BOT`` for one race; return how the app connects (as ann, once the bot is online)."""
    await BotRun.start(server.url, bot, "--races", "1", home=tmp_path)

    async def connect() -> Client:
        client = await Client.connect(server.url, "ann")
        await bot_online(client, bot)
        return client

    return connect


# The bot each game's race is played against: one that ends its game soon (random play cycles for ever in
# German Patience, Gate and The Chance, and greedy does in a few deals of The Chance).
OPPONENT = {"german-patience": "greedy", "gate": "greedy", "the-chance": "search"}


@pytest.mark.asyncio
@pytest.mark.parametrize("name", game_names())
async def test_a_race_against_a_bot_on_a_real_server(server: ServerProcess, tmp_path: Path, name: str) -> None:
    opponent = OPPONENT.get(name, "random")
    connect = await with_random_bot(server, tmp_path, opponent)
    layout = layout_for(name)
    app = RaceApp(connect, name, opponent)
    began = time.monotonic()  # before the race's start
    async with app.run_test(size=SIZE) as pilot:
        screen = await until_shown(pilot, RaceScreen, what="the race starts")
        await until(pilot, lambda: bool(screen.query("#race")) and bool(race_text(screen)), what="the race line")
        assert isinstance(screen, GameScreen)
        table = screen.race
        start = table.view
        clock = race_text(screen).splitlines()[0]  # ten minutes, less the time since the start
        assert 600 - (time.monotonic() - began) - 1 <= clock_seconds(clock) <= 600, clock
        board_area = screen.query_one("#table")
        assert board_area.max_scroll_x == 0 and board_area.max_scroll_y == 0  # the race fits 80x24 too
        assert not screen.check_action("undo", ())  # a race without undo

        # A move no legal move matches, sent to the server: its reason, the board as it was.
        for place in sent_but_illegal(layout, start, screen.cursor):
            await press_at(pilot, screen, place)
        await until(pilot, lambda: refused(screen), what="the server's refusal")
        text, was_refused = message(screen)
        assert was_refused and text.startswith("illegal_move: "), text
        assert server.metrics().get('parlour_errors_total{code="illegal_move"}') == 1.0
        assert table.view == start and table.moves_made == 0
        assert drawn(screen) == layout.board(start).places()

        # A legal move, by keys, chosen from the view's legal moves: the server's ack is the new view.
        move, places = keyed_move(layout, start, screen.cursor)
        for place in places:
            await press_at(pilot, screen, place)
        await until(pilot, lambda: played(screen), what="the move played")
        assert message(screen) == (f"Played {move.text()}.", False)
        assert table.moves_made == 1 and table.view != start
        assert drawn(screen) == layout.board(table.view).places()  # the board drawn from the ack's view

        # The bot's progress reaches the opponents panel (the random bot is quick: it may be done already).
        await until(pilot, lambda: table.opponents[1].moves > 0, what="the bot's progress")
        bot = table.opponents[1]
        await until(pilot, lambda: race_text(screen).splitlines()[1] == bot.line(), what="the panel redrawn")
        assert bot.line().startswith(f"{opponent}: score {bot.score}, {plural(bot.moves, 'move')}, ")

        # Concede (c asks, a second c concedes); once the bot is done too, the race's result.
        await pilot.press("c")
        assert message(screen)[0].startswith("Press c again to concede") and table.view["ended"] is None
        await pilot.press("c")
        await until(pilot, lambda: table.view["ended"] is not None, what="the server's answer")
        assert table.view["ended"] == "conceded"
        result = await until_shown(pilot, RaceResultScreen, timeout=60, what="the race's end")
        ranking = str(result.query_one("#ranking", Static).render())
        assert "ann" in ranking and opponent in ranking and len(ranking.splitlines()) == 2
        assert "Conceded." in str(result.query_one("#ending", Static).render())
        assert "it matches the commitment published at the start" in str(result.query_one("#seed", Static).render())
        par_line = result.query_one("#par", Static)
        if name in ("carpet", "cheer", "golf"):  # the games with an exact solver
            await until(pilot, lambda: str(par_line.render()).startswith("Par "), timeout=30, what="par")
        else:
            assert str(par_line.render()) == ""
        await pilot.press("q")


@pytest.mark.asyncio
async def test_undo_in_a_race_that_allows_it(server: ServerProcess, tmp_path: Path) -> None:
    connect = await with_random_bot(server, tmp_path)
    layout = layout_for("golf")
    app = RaceApp(connect, "golf", "random", undo=True)
    async with app.run_test(size=SIZE) as pilot:
        screen = await until_shown(pilot, RaceScreen, what="the race starts")
        table = screen.race
        start = table.view
        assert screen.check_action("undo", ())
        await pilot.press("u")
        await until(pilot, lambda: refused(screen), what="the refusal")
        assert message(screen) == ("illegal_move: there is no move to undo", True)

        _, places = keyed_move(layout, start, screen.cursor)
        for place in places:
            await press_at(pilot, screen, place)
        await until(pilot, lambda: played(screen), what="the move played")
        assert table.moves_made == 1
        await pilot.press("u")
        await until(pilot, lambda: not played(screen), what="the server's answer")
        assert message(screen) == ("Took the last move back.", False)
        assert table.view == start and table.moves_made == 0  # the server's view after the undo
        assert drawn(screen) == layout.board(start).places()

        await pilot.press("c", "c")
        await until_shown(pilot, RaceResultScreen, timeout=20, what="the race's end")
        await pilot.press("q")


@pytest.mark.asyncio
async def test_a_server_that_cannot_be_reached_is_said_in_the_app() -> None:
    async def connect() -> Client:
        raise ConnectionRefusedError("connection refused")

    app = RaceApp(connect, "golf", "random")
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: "Cannot race" in str(app.screen.query_one("#waiting", Static).render()))
        assert "connection refused" in str(app.screen.query_one("#waiting", Static).render())


@pytest.mark.asyncio
async def test_a_full_server_s_refusal_is_said_in_the_app() -> None:
    async def connect() -> Client:
        body = b"too many connections; try again later\n"
        raise InvalidStatus(Response(503, "Service Unavailable", Headers({"Retry-After": "5"}), body))

    app = RaceApp(connect, "golf", "random")
    async with app.run_test(size=SIZE) as pilot:
        waiting = app.screen.query_one("#waiting", Static)
        await until(pilot, lambda: "Cannot race" in str(waiting.render()))
        assert "HTTP 503: too many connections; try again later" in str(waiting.render())


def test_the_command_line_needs_a_bot_and_a_known_game() -> None:
    def parlour(*args: str) -> subprocess.CompletedProcess[str]:
        command = [sys.executable, "-m", "parlour.client.cli", "play", *args]
        return subprocess.run(command, capture_output=True, text=True, timeout=60)

    no_bot = parlour("--race", "golf")
    assert no_bot.returncode != 0 and "--bot NAME" in no_bot.stderr
    unknown = parlour("--race", "chess", "--bot", "random")
    assert unknown.returncode != 0 and "chess" in unknown.stderr
    both = parlour("--race", "golf", "--practice", "--bot", "random")
    assert both.returncode != 0 and "no --practice" in both.stderr
    seed_alone = parlour("--seed", "3")
    assert seed_alone.returncode != 0 and "are for practice" in seed_alone.stderr


@pytest.mark.asyncio
async def test_a_move_made_from_another_connection_is_caught_up_with(server: ServerProcess, tmp_path: Path) -> None:
    connect = await with_random_bot(server, tmp_path)
    layout = layout_for("golf")
    app = RaceApp(connect, "golf", "random")
    async with app.run_test(size=SIZE) as pilot:
        screen = await until_shown(pilot, RaceScreen, what="the race starts")
        table = screen.race
        start = table.view
        # Another connection of the same player turns the stock; this one, behind, sends a pile's card
        # (any other entry than the one standing at that seq: the same one would be a duplicate).
        async with await Client.connect(server.url, "ann", token=table.client.token) as other:
            state = await other.snapshot(table.race_id)
            ack = await other.move(table.race_id, state.seq, ["turn"])
        for place in sent_but_illegal(layout, start, screen.cursor):
            await press_at(pilot, screen, place)
        await until(pilot, lambda: refused(screen), what="the server's refusal")
        text, was_refused = message(screen)
        assert was_refused and text.startswith("stale_seq: "), text
        assert table.view == ack.view  # caught up: the board is the other connection's
        assert drawn(screen) == layout.board(ack.view).places()
        await pilot.press("c", "c")
        await until_shown(pilot, RaceResultScreen, timeout=20, what="the race's end")


class Silent:
    """A client whose events never come (for the screen alone, without a server)."""

    reconnecting = False

    async def events(self) -> AsyncIterator[object]:
        await asyncio.Event().wait()
        yield None


class OneRace(App[None]):
    def __init__(self, table: RaceTable) -> None:
        super().__init__()
        self.table = table

    def on_mount(self) -> None:
        self.push_screen(RaceScreen(self.table))


@pytest.mark.asyncio
@pytest.mark.parametrize("name", game_names())
async def test_every_game_s_race_screen_fits_80x24_with_the_clock_and_two_opponents(name: str) -> None:
    game = get_game(name)
    race = {"id": "r", "game": name, "players": [{"seat": s, "name": who} for s, who in enumerate(["ann", "bo", "cy"])]}
    began = time.monotonic()
    start = Start(race="r", seat=0, deadline=time.time() + 90, seq=0, view=game.view(game.deal(7), "player"))
    table = RaceTable(Silent(), race, start)  # type: ignore[arg-type]
    app = OneRace(table)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: isinstance(app.screen, RaceScreen) and bool(race_text(app.screen)))
        screen = app.screen
        assert isinstance(screen, RaceScreen)
        clock, *others = race_text(screen).splitlines()
        assert 90 - (time.monotonic() - began) - 1 <= clock_seconds(clock) <= 90, clock
        assert others == ["bo: score -, 0 moves, playing", "cy: score -, 0 moves, playing"]
        board_area = screen.query_one("#table")
        assert board_area.max_scroll_x == 0 and board_area.max_scroll_y == 0, (name, board_area.max_scroll_y)
        assert not screen.query_one("#race", Static).has_class("hurry")


@pytest.mark.asyncio
async def test_the_clock_is_marked_in_the_last_minute_and_the_help_tells_the_race_s_keys() -> None:
    game = get_game("golf")
    race = {"id": "r", "game": "golf", "players": [{"seat": 0, "name": "ann"}, {"seat": 1, "name": "bo"}]}
    start = Start(race="r", seat=0, deadline=time.time() + 30, seq=0, view=game.view(game.deal(7), "player"))
    app = OneRace(RaceTable(Silent(), race, start))  # type: ignore[arg-type]
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: isinstance(app.screen, RaceScreen) and bool(race_text(app.screen)))
        screen = app.screen
        assert isinstance(screen, RaceScreen)
        assert screen.query_one("#race", Static).has_class("hurry")
        assert not screen.check_action("new_deal", ()) and not screen.check_action("undo", ())
        await pilot.press("question_mark")
        await until(pilot, lambda: bool(app.screen.query("#keys")), what="the help")
        assert isinstance(app.screen, HelpScreen)
        keys = str(app.screen.query_one("#keys", Static).render())
        assert "concede (press it twice)" in keys and "new deal" not in keys and "created with undo" in keys


@pytest.mark.asyncio
async def test_a_lost_connection_shows_while_it_is_reopened_and_the_race_goes_on(server: ServerProcess) -> None:
    ann = await Client.connect(server.url, "ann")
    bob = await Client.connect(server.url, "bob")
    race_id = str((await ann.create("golf")).race["id"])
    await bob.join(race_id)
    for client in (ann, bob):
        await client.ready(race_id)
    start = await ann.next_event(Start, race=race_id, timeout=20)
    table = RaceTable(ann, (await ann.snapshot(race_id)).race, start)
    app = OneRace(table)
    async with bob, app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: isinstance(app.screen, RaceScreen) and bool(race_text(app.screen)))
        screen = app.screen
        assert isinstance(screen, RaceScreen)
        assert "reconnecting" not in race_text(screen)

        server.kill()
        await until(pilot, lambda: "Connection lost: reconnecting…" in race_text(screen), what="the drop shown")
        assert screen.query_one("#race", Static).has_class("hurry")
        await asyncio.to_thread(server.start)
        await until(pilot, lambda: message(screen) == ("Reconnected.", False), timeout=30, what="back")
        await until(pilot, lambda: "reconnecting" not in race_text(screen), what="the line cleared")

        layout = layout_for("golf")
        move, places = keyed_move(layout, table.view, screen.cursor)
        for place in places:
            await press_at(pilot, screen, place)
        await until(pilot, lambda: played(screen), what="the move played")
        assert message(screen) == (f"Played {move.text()}.", False) and table.moves_made == 1
    await ann.close()


@pytest.mark.asyncio
async def test_a_move_after_the_connection_is_gone_for_good_is_refused_not_a_crash(server: ServerProcess) -> None:
    ann = await Client.connect(server.url, "ann")
    race_id = str((await ann.create("golf", seats=1)).race["id"])
    await ann.ready(race_id)
    start = await ann.next_event(Start, race=race_id, timeout=20)
    table = RaceTable(ann, (await ann.snapshot(race_id)).race, start)
    await ann.close()
    with pytest.raises(Refused) as refused:
        await table.play(legal_moves(table.view)[0])
    assert refused.value.code == "disconnected" and table.moves_made == 0
