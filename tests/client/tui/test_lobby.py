"""The connect screen and the lobby: the pure parts, and the app through a whole race against a bot on a real
server (connect, lobby, create with a bot invited, the room, play to the end, results, back to the lobby)."""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio
from textual.widgets import DataTable, Input, Select, Static

from parlour.client.connection import Client
from parlour.client.identity import Identity
from parlour.client.line_race import Account
from parlour.client.tui.app import ChooseGameScreen, GameScreen
from parlour.client.tui.connect import ConnectScreen, LobbyApp
from parlour.client.tui.layouts import layout_for
from parlour.client.tui.lobby import AskScreen, LobbyScreen, lobby_notes, race_cells
from parlour.client.tui.racing import RaceResultScreen, RaceScreen
from parlour.client.tui.room import RoomScreen
from parlour.client.tui.settings import ANY_BOT, NO_BOT, CreateRaceScreen, RaceSettings, SettingsError, settings_from
from tests.bots.helpers import BotRun, bot_online
from tests.client.tui.test_app import keyed_move, press_at, until, until_shown
from tests.conftest import ServerProcess, free_port

SIZE = (80, 24)


@pytest_asyncio.fixture(autouse=True)
async def _no_process_left_behind() -> AsyncIterator[None]:
    yield
    await BotRun.cleanup()


def test_settings_are_checked_and_become_the_create_request() -> None:
    settings = settings_from("the-chance", {"sequence": "suit"}, "3", "300", private=True, undo=True, bot="random")
    assert settings == RaceSettings(
        "the-chance", {"sequence": "suit"}, 3, 300, public=False, undo=True, live_boards=False, bot="random"
    )
    assert settings.create_args() == {
        "options": {"sequence": "suit"},
        "seats": 3,
        "time_limit": 300,
        "public": False,
        "undo": True,
        "live_boards": False,
        "spectator_delay": 0,
    }
    defaults = settings_from("golf", {}, "2", "600")
    assert defaults.options == {} and defaults.create_args()["options"] is None and defaults.bot == NO_BOT
    late = settings_from("golf", {}, "2", "600", live_boards=True, spectator_delay=" 30 ")
    assert late.live_boards and late.spectator_delay == 30
    assert settings_from("golf", {}, "2", "600", spectator_delay="30").spectator_delay == 0  # no live boards

    for bad, why in [
        ({"seats": "0"}, "seats must be from 1 to 8"),
        ({"seats": "two"}, "seats must be a whole number"),
        ({"time_limit": "5"}, "the time limit (seconds) must be from 10 to 86400"),
        ({"seats": "1", "bot": ANY_BOT}, "a race with a bot needs at least two seats"),
        ({"spectator_delay": "4000", "live_boards": True}, "the spectator delay (seconds) must be from 0 to 3600"),
    ]:
        fields = {"seats": "2", "time_limit": "600"} | bad
        with pytest.raises(SettingsError, match=re.escape(why)):
            settings_from("golf", {}, **fields)  # type: ignore[arg-type]
    with pytest.raises(SettingsError, match="sequence"):
        settings_from("the-chance", {"sequence": "diagonal"}, "2", "600")


def test_a_lobby_row_and_the_notes() -> None:
    race = {
        "id": "r1",
        "game": "golf",
        "seats": 2,
        "status": "open",
        "time_limit": 300,
        "public": False,
        "players": [{"player": "p1", "name": "ann", "seat": 0, "ready": True}],
        "invited": [{"player": "p2", "name": "random", "expires_at": 0}],
    }
    who = "ann (ready), random (invited)"
    assert race_cells(race, "p1") == ("Golf", "open, yours, private", "1/2", "5:00", who, "r1")
    assert race_cells(race, "p9")[1] == "open, private"
    notes = lobby_notes(
        [{"id": "t1", "name": "Friday", "status": "open", "entrants": [{}, {}]}],
        [{"name": "random", "games": ["golf", "gaps"], "busy": 1, "max_races": 4}],
    )
    assert notes.splitlines() == [
        "Tournaments:",
        "  Friday  (open, 2 entrants)  id t1",
        "Bots online (invite one when you create a race):",
        "  random: plays golf, gaps (in 1 of 4)",
    ]
    assert lobby_notes([], []) == "No bot is online."


def test_the_servers_used_last_are_remembered_newest_first(tmp_path: Path) -> None:
    path = tmp_path / "identities.json"
    for server in ["ws://a:1", "ws://b:2", "ws://a:1", *(f"ws://h{n}:1" for n in range(12))]:
        Identity(server, path=path).save(used=True)
    Identity("ws://x:1", path=path).save(token="T")  # a token alone does not make it recent
    recent = Identity("ws://a:1", path=path).recent()
    assert recent[:2] == ["ws://h11:1", "ws://h10:1"] and len(recent) == 10 and "ws://x:1" not in recent
    assert json.loads(path.read_text())["ws://x:1"] == "T"


def lobby_app(server: str, tmp_path: Path, name: str = "ann") -> LobbyApp:
    return LobbyApp(Account(server, name, identity=tmp_path / "identities.json"))


@pytest.mark.asyncio
async def test_the_connect_screen_says_what_is_wrong_and_offers_practice(tmp_path: Path) -> None:
    app = lobby_app(f"ws://127.0.0.1:{free_port()}", tmp_path)  # nothing listens there
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        assert isinstance(screen, ConnectScreen)
        problem = screen.query_one("#problem", Static)
        await pilot.press("enter")  # connect, from the server field
        await until(pilot, lambda: "Cannot connect" in str(problem.render()), what="the refusal")

        screen.query_one("#server", Input).value = "http://example.org"
        await pilot.press("enter")
        await until(pilot, lambda: "ws:// or wss://" in str(problem.render()), what="the address refused")

        await pilot.press("ctrl+o")
        await until_shown(pilot, ChooseGameScreen, what="the chooser")
        await pilot.press("enter")
        await until_shown(pilot, GameScreen, what="the game chosen")


@pytest.mark.asyncio
async def test_a_whole_race_against_a_bot_from_the_lobby(server: ServerProcess, tmp_path: Path) -> None:
    await BotRun.start(server.url, "random", "--races", "1", home=tmp_path / "bot")
    look = await Client.connect(server.url, "look")
    await bot_online(look, "random")
    await look.create("gaps", seats=3)  # someone else's open race, listed in the lobby

    app = lobby_app(server.url, tmp_path)
    async with look, app.run_test(size=(100, 40)) as pilot:
        await pilot.press("enter")  # connect as ann
        lobby = await until_shown(pilot, LobbyScreen, what="the lobby")
        await until(pilot, lambda: bool(lobby.races) and bool(lobby.bots), what="the lobby's races and bots")
        assert [race["game"] for race in lobby.races.values()] == ["gaps"]
        assert lobby.query_one("#races", DataTable).row_count == 1
        assert "random: plays" in str(lobby.query_one("#bots", Static).render())
        assert Identity(server.url, path=tmp_path / "identities.json").recent() == [server.url]

        # Create a race of Golf with the random bot invited.
        await pilot.press("c")
        await until(pilot, lambda: bool(app.screen.query("#game")), what="the create screen")
        create = app.screen
        assert isinstance(create, CreateRaceScreen)
        create.query_one("#game", Select).value = "golf"
        await pilot.pause()
        create.query_one("#bot", Select).value = "random"
        create.query_one("#seats", Input).value = "1"  # refused: a bot needs a second seat
        create.query_one("#seats", Input).focus()
        await pilot.press("enter")
        problem = create.query_one("#problem", Static)
        await until(pilot, lambda: "needs at least two seats" in str(problem.render()), what="the seats refused")
        create.query_one("#seats", Input).value = "2"
        await pilot.press("enter")

        # The room, then the race: every move chosen from the view's legal moves, by keys.
        screen = await until_shown(pilot, RaceScreen, timeout=20, what="the race starts")
        table = screen.race
        layout = layout_for("golf")
        while table.view["ended"] is None and table.moves_made < 100:
            _, places = keyed_move(layout, table.view, screen.cursor)
            before = table.moves_made
            for place in places:
                await press_at(pilot, screen, place)
            await until(pilot, lambda before=before: table.moves_made != before, what="the server's ack")
            assert table.moves_made == before + 1
        assert table.view["ended"] in ("won", "stuck")

        result = await until_shown(pilot, RaceResultScreen, timeout=30, what="the results")
        ranking = str(result.query_one("#ranking", Static).render())
        assert "ann" in ranking and "random" in ranking
        await pilot.press("l")  # back to the lobby, where the race is no longer listed once it is finished
        await until(pilot, lambda: app.screen is lobby, what="the lobby")
        await pilot.press("r")
        await until(pilot, lambda: table.race_id not in lobby.races, what="the finished race leaves the lobby")


@pytest.mark.asyncio
async def test_join_by_code_and_leave_the_room(server: ServerProcess, tmp_path: Path) -> None:
    async with await Client.connect(server.url, "bob") as bob:
        secret = (await bob.create("cheer", seats=2, public=False)).race
        app = lobby_app(server.url, tmp_path)
        async with app.run_test(size=SIZE) as pilot:
            await pilot.press("enter")
            lobby = await until_shown(pilot, LobbyScreen, what="the lobby")
            await until(pilot, lambda: "No race is open" in str(lobby.query_one("#bots", Static).render()))

            await pilot.press("j")
            assert isinstance(app.screen, AskScreen)
            await pilot.press(*"nonsense", "enter")
            await until(pilot, lambda: "refused" in str(lobby.query_one("#message", Static).render()))

            await pilot.press("j")
            await pilot.press(*str(secret["code"]), "enter")
            room = await until_shown(pilot, RoomScreen, what="the room")
            seats = room.query_one("#seats", Static)
            await until(pilot, lambda: "ann (ready)" in str(seats.render()), what="ann ready")
            assert "bob" in str(seats.render())
            await pilot.press("r")  # not ready any more
            await until(pilot, lambda: "not ready" in str(seats.render()), what="the server's answer")
            assert "ann (ready)" not in str(seats.render())

            await pilot.press("l")  # leave: the seat is given up
            await until(pilot, lambda: app.screen is lobby, what="the server's answer")
            race = (await bob.snapshot(str(secret["id"]))).race
            assert [p["name"] for p in race["players"]] == ["bob"]
