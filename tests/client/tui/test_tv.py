"""Race TV: the pure parts (a watched race, the race to follow, the tiling), the screen on a canned race,
and races on a real server watched to the end: with live boards, without them, and in follow mode."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import pytest
import pytest_asyncio
from textual.app import App
from textual.widgets import Static

from parlour.client.connection import Client, End, Progress, RaceUpdate, Resumed, Start, Watch
from parlour.client.line_race import Account
from parlour.client.tui.layouts import layout_for
from parlour.client.tui.lobby import LobbyScreen
from parlour.client.tui.tv import SeatTile, TVScreen, board_size
from parlour.client.tui.watching import SeatState, Tiling, WatchedRace, race_to_follow, tiling, window
from parlour.client.tui.widgets import BoardView
from parlour.games import game_names
from parlour.protocol.messages import Spectating
from tests.client.tui.test_app import until, until_shown
from tests.client.tui.tv_canned import NOW, Canned, OneTV, canned_app, played, summary
from tests.conftest import ServerProcess

SMALL, LARGE = (80, 24), (120, 40)
RESULTS = [
    {"place": 1, "seat": 1, "player": "p1", "name": "bo", "score": 30, "ended": "won", "time": 20.0, "moves": 20},
    {"place": 2, "seat": 0, "player": "p0", "name": "ann", "score": 34, "ended": "conceded", "time": 9.5, "moves": 1},
]


# --- the pure parts ---------------------------------------------------------------------------------


def test_a_seat_s_line_and_its_boards_in_order() -> None:
    seat = SeatState(0, "ann")
    assert seat.line() == "ann: score -, 0 moves, playing"
    assert seat.saw(3, {"score": 30, "ended": None, "board": {}})
    assert seat.line() == "ann: score 30, step 3, playing"
    assert not seat.saw(2, {"score": 99, "ended": None, "board": {}})  # an older board than the one held
    assert seat.seq == 3 and seat.score == 30
    assert seat.saw(4, {"score": 28, "ended": "won", "board": {}})
    assert seat.line() == "ann: score 28, step 4, won"
    seat.moves = 4
    assert seat.line() == "ann: score 28, 4 moves, won"


def test_a_race_without_live_boards_shows_progress_then_the_final_boards() -> None:
    race = WatchedRace("tv1")
    race.spectating(Spectating(id=1, race=summary(live_boards=False, seats=2), boards=[]))
    assert [s.name for s in race.seats.values()] == ["ann", "bo"] and race.boards() == []
    assert race.note().startswith("No live boards in this race")
    assert race.headline(245) == "Golf  ·  race tv1  ·  running  ·  Time 4:05"
    assert race.heard(Progress(race="tv1", seat=1, score=31, moves=3, finished=False))
    assert not race.heard(Progress(race="other", seat=1, score=0, moves=9))
    assert race.seats[1].line() == "bo: score 31, 3 moves, playing"
    for seat in (0, 1):
        assert race.heard(Watch(race="tv1", seat=seat, seq=4, view=played("golf", 7, 4)))
    assert [s.seat for s in race.boards()] == [0, 1] and race.note() == ""
    assert race.heard(End(race="tv1", results=RESULTS))
    assert race.over and race.headline(None) == "Golf  ·  race tv1  ·  over"
    assert race.seats[0].line() == "ann: score 34, 1 move, conceded"
    assert race.seats[1].line() == "bo: score 30, 20 moves, won"


def test_a_live_race_a_delay_a_finished_race_and_a_tournament_s_race() -> None:
    live = WatchedRace("tv1")
    live.spectating(Spectating(id=1, race=summary(delay=30) | {"status": "open"}, boards=[]))
    assert live.note() == "The race has not started: the boards show from the start."
    assert live.headline(300) == "Golf  ·  race tv1  ·  open  ·  boards 30 s behind"
    live.heard(RaceUpdate(race=summary(delay=30)))
    assert live.status == "running" and live.delay == 30 and not live.over

    finished = WatchedRace("tv1")
    info = summary(live_boards=False, seats=2) | {"status": "finished", "results": RESULTS}
    finished.spectating(Spectating(id=1, race=info, boards=[{"seat": 0, "seq": 2, "view": played("golf", 7, 2)}]))
    assert finished.over and finished.end is not None and finished.end.results == RESULTS
    assert finished.delay == 0  # no delay without live boards, whatever the setting

    tournament = WatchedRace("tv1")
    tournament.spectating(Spectating(id=1, race=summary(live_boards=False) | {"tournament": "t1"}, boards=[]))
    assert tournament.note().startswith("A tournament's race")


def test_the_race_to_follow_is_the_most_active_live_race() -> None:
    def race(race_id: str, players: int, live: bool = False, started: float = 0.0, status: str = "running") -> dict:
        seated = [{"seat": s, "player": f"{race_id}-{s}", "name": "x"} for s in range(players)]
        return {"id": race_id, "status": status, "players": seated, "live_boards": live, "started_at": started}

    lobby = [race("a", 2), race("b", 3), race("c", 3, live=True), race("d", 3, live=True, started=5.0)]
    assert race_to_follow(lobby, "me") == "d"  # the most players, with live boards, started last
    assert race_to_follow(lobby, "me", skip={"d"}) == "c"
    assert race_to_follow(lobby, "c-0", skip={"d"}) == "b"  # not a race this player is seated in
    assert race_to_follow([race("e", 4, status="open"), race("f", 2, status="finished")], "me") is None
    assert race_to_follow([race("y", 2), race("x", 2)], "me") == "x"  # a tie: the smaller id
    assert race_to_follow([], "me") is None


def test_tiles_as_many_as_fit_and_a_window_that_wraps_round() -> None:
    golf_tile = (47, 12)
    assert tiling(3, golf_tile, (78, 19)) == Tiling(1, 1, 1)  # 80x24: one seat at a time
    assert tiling(3, golf_tile, (118, 35)) == Tiling(2, 2, 3)  # 120x40: all three, two side by side
    assert tiling(2, golf_tile, (118, 35)) == Tiling(2, 1, 2)
    assert tiling(8, golf_tile, (118, 35)) == Tiling(2, 2, 4)
    assert tiling(2, (200, 50), (78, 19)) == Tiling(1, 1, 1)  # too big: one, scrolled
    assert tiling(0, golf_tile, (78, 19)) == Tiling(1, 1, 0)
    assert window([0, 1, 2, 3], 0, 2) == [0, 1]
    assert window([0, 1, 2, 3], 3, 2) == [3, 0]
    assert window([0, 1, 2], 7, 2) == [0, 1]  # a seat not there: from the first
    assert window([0, 1], 1, 5) == [1, 0] and window([], 0, 1) == []


# --- the screen on a canned race ----------------------------------------------------------------------


def tv_of(app: OneTV) -> TVScreen:
    return app.tv


def text(screen: TVScreen, selector: str) -> str:
    return str(screen.query_one(selector, Static).render())


def tiles(screen: TVScreen) -> list[int]:
    return [tile.seat.seat for tile in screen.query(SeatTile)]


@pytest.mark.asyncio
@pytest.mark.parametrize("name", game_names())
async def test_every_game_s_tile_is_its_board_as_measured(name: str) -> None:
    app = canned_app(name, seats=2)
    async with app.run_test(size=LARGE) as pilot:
        screen = tv_of(app)
        await until(pilot, lambda: bool(tiles(screen)), what="the tiles")
        await pilot.pause()
        for tile in screen.query(SeatTile):
            assert tile.seat.view is not None
            board = layout_for(name).board(tile.seat.view)
            assert tile.board == board
            assert tuple(tile.query_one(BoardView).size) == board_size(board), name


@pytest.mark.asyncio
async def test_at_80x24_one_seat_at_a_time_tab_and_digits_switch_and_escape_unspectates() -> None:
    app = canned_app("golf", seats=3)
    async with app.run_test(size=SMALL) as pilot:
        screen = tv_of(app)
        await until(pilot, lambda: tiles(screen) == [0], what="ann's tile")
        assert (
            text(screen, "#title") == "Race TV  ·  Golf  ·  race tv1  ·  running  ·  Time 4:05  ·  boards 30 s behind"
        )
        message = text(screen, "#message").splitlines()
        assert message == [
            "bo: score 33, step 3, playing",
            "cy: score 33, step 5, playing",
            "(1 of 3 boards show: tab for the next, 1-9 a seat)",
        ]
        assert screen.check_action("next_seat", (1,))
        await pilot.press("tab")
        await until(pilot, lambda: tiles(screen) == [1], what="bo's tile")
        await pilot.press("shift+tab")
        await until(pilot, lambda: tiles(screen) == [0], what="ann's tile again")
        await pilot.press("3")
        await until(pilot, lambda: tiles(screen) == [2], what="cy's tile")
        await pilot.press("9")  # no ninth seat: nothing changes
        await pilot.pause()
        assert tiles(screen) == [2]
        client = screen.client
        assert isinstance(client, Canned)
        await pilot.press("escape")
        await until(pilot, lambda: app.screen is not screen, what="back")
        assert client.unspectated == ["tv1"]


@pytest.mark.asyncio
async def test_a_larger_terminal_tiles_every_seat_and_a_watch_redraws_its_tile() -> None:
    app = canned_app("golf", seats=3)
    async with app.run_test(size=LARGE) as pilot:
        screen = tv_of(app)
        await until(pilot, lambda: tiles(screen) == [0, 1, 2], what="three tiles")
        assert not screen.check_action("next_seat", (1,))  # every board shows: no seat to switch to
        first = screen.query(SeatTile)[1]
        assert first.region.y == screen.query(SeatTile)[0].region.y  # side by side
        client = screen.client
        assert isinstance(client, Canned)
        view = played("golf", 7, 9)
        client.queue.put_nowait(Watch(race="tv1", seat=1, seq=9, view=view))
        client.queue.put_nowait(Watch(race="other", seat=1, seq=20, view=played("golf", 7, 20)))
        await until(pilot, lambda: screen.query(SeatTile)[1].seat.seq == 9, what="bo's new board")
        assert screen.query(SeatTile)[1] is first  # drawn again in place
        assert first.board == layout_for("golf").board(view)
        assert str(first.query_one(".seat-line", Static).render()).startswith(f"bo: score {view['score']}, step 9")
        client.queue.put_nowait(End(race="tv1", results=RESULTS))
        await until(pilot, lambda: "The race is over" in text(screen, "#message"), what="the ranking")
        assert "1. bo: score 30 (won, 20 moves, 20.0 s)" in text(screen, "#message")
        assert text(screen, "#title").endswith("race tv1  ·  over  ·  boards 30 s behind")


@pytest.mark.asyncio
async def test_without_live_boards_progress_lines_then_the_final_boards() -> None:
    app = canned_app("golf", seats=2, live_boards=False)
    async with app.run_test(size=SMALL) as pilot:
        screen = tv_of(app)
        await until(pilot, lambda: "No live boards" in text(screen, "#message"), what="the note")
        assert text(screen, "#progress") == "ann: score -, 0 moves, playing\nbo: score -, 0 moves, playing"
        client = screen.client
        assert isinstance(client, Canned)
        client.queue.put_nowait(Progress(race="tv1", seat=0, score=33, moves=2, finished=False))
        await until(pilot, lambda: text(screen, "#progress").startswith("ann: score 33, 2 moves, playing"))
        assert not screen.query(BoardView) and not screen.query(SeatTile)
        for seat in (0, 1):
            client.queue.put_nowait(Watch(race="tv1", seat=seat, seq=2, view=played("golf", 7, 2)))
        client.queue.put_nowait(End(race="tv1", results=RESULTS))
        await until(pilot, lambda: "The race is over" in text(screen, "#message"), what="the end")
        assert tiles(screen) == [0] and not screen.query_one("#progress").display


@pytest.mark.asyncio
async def test_after_a_reconnection_the_boards_are_asked_for_again() -> None:
    app = canned_app("golf", seats=2)
    async with app.run_test(size=LARGE) as pilot:
        screen = tv_of(app)
        client = screen.client
        assert isinstance(client, Canned)
        await until(pilot, lambda: tiles(screen) == [0, 1], what="the tiles")
        client.boards = [{"seat": 0, "seq": 7, "view": played("golf", 7, 7)}]
        client.queue.put_nowait(Resumed(races=[], watching=["tv1"]))
        await until(pilot, lambda: "Reconnected." in text(screen, "#message"), what="reconnected")
        assert client.spectated == ["tv1", "tv1"] and screen.query(SeatTile)[0].seat.seq == 7
        client.queue.put_nowait(Resumed(races=[], watching=[]))
        await until(pilot, lambda: "can no longer be watched" in text(screen, "#message"))


@pytest.mark.asyncio
async def test_follow_mode_says_when_no_race_runs_and_takes_one_when_it_starts() -> None:
    client = Canned(summary(), [])
    app = OneTV(TVScreen(client, follow=True, now=lambda: NOW, look_every=0.1))  # type: ignore[arg-type]
    async with app.run_test(size=SMALL) as pilot:
        screen = tv_of(app)
        await until(pilot, lambda: "No race is running" in text(screen, "#message"), what="no race")
        assert text(screen, "#title") == "Race TV (follow)"
        client.lobby_races = [summary()]
        await until(pilot, lambda: screen.watched is not None, what="a race followed")
        assert client.spectated == ["tv1"]


# --- on a real server ---------------------------------------------------------------------------------


async def race_of_two(url: str, names: tuple[str, str], **settings: Any) -> tuple[str, list[Client], list[Start]]:
    """A race of Golf between two players, created, joined and started."""
    first, second = await Client.connect(url, names[0]), await Client.connect(url, names[1])
    race = str((await first.create("golf", seats=2, **settings)).race["id"])
    await second.join(race)
    for client in (first, second):
        await client.ready(race)
    starts = [await client.next_event(Start, race=race, timeout=20) for client in (first, second)]
    return race, [first, second], starts


async def moves(client: Client, race: str, start: Start, count: int) -> dict[str, Any]:
    """``count`` moves (each the first legal one) by ``client``; its last view."""
    seq, view = start.seq, start.view
    for _ in range(count):
        ack = await client.move(race, seq, view["moves"][0])
        seq, view = ack.seq, ack.view
    return dict(view)


def public(view: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in view.items() if key != "moves"}


@pytest_asyncio.fixture
async def clients() -> AsyncIterator[list[Client]]:
    made: list[Client] = []
    yield made
    for client in made:
        await client.close()


@pytest.mark.asyncio
async def test_a_live_boards_race_watched_to_the_end(server: ServerProcess, clients: list[Client]) -> None:
    ann, bo = await Client.connect(server.url, "ann"), await Client.connect(server.url, "bo")
    tv = await Client.connect(server.url, "tv")
    clients += [ann, bo, tv]
    race = str((await ann.create("golf", seats=2, live_boards=True)).race["id"])
    await bo.join(race)
    app = OneTV(TVScreen(tv, race))
    layout = layout_for("golf")
    async with app.run_test(size=LARGE) as pilot:
        screen = tv_of(app)
        await until(pilot, lambda: "has not started" in text(screen, "#message"), what="watching before the start")
        assert not screen.query(SeatTile)
        for client in (ann, bo):
            await client.ready(race)
        starts = [await client.next_event(Start, race=race, timeout=20) for client in (ann, bo)]
        await until(pilot, lambda: tiles(screen) == [0, 1], what="the opening boards")
        assert screen.query(SeatTile)[0].board == layout.board(public(starts[0].view))
        assert "running" in text(screen, "#title") and "Time " in text(screen, "#title")

        ann_view = await moves(ann, race, starts[0], 2)
        bo_view = await moves(bo, race, starts[1], 1)
        await until(pilot, lambda: [t.seat.seq for t in screen.query(SeatTile)] == [2, 1], what="the boards move")
        assert [t.board for t in screen.query(SeatTile)] == [
            layout.board(public(ann_view)),
            layout.board(public(bo_view)),
        ]
        assert str(screen.query(SeatTile)[0].query_one(".seat-line", Static).render()).startswith("ann: score")

        for client in (ann, bo):
            await client.concede(race)
        await until(pilot, lambda: "The race is over" in text(screen, "#message"), what="the end")
        assert all(t.seat.ended == "conceded" for t in screen.query(SeatTile))
        assert "ann: score" in text(screen, "#message") and "bo: score" in text(screen, "#message")
        await pilot.press("q")
        await until(pilot, lambda: app.screen is not screen, what="back")
    assert race not in tv.watching


@pytest.mark.asyncio
async def test_a_race_without_live_boards_shows_no_board_before_its_end(
    server: ServerProcess, clients: list[Client]
) -> None:
    race, players, starts = await race_of_two(server.url, ("ann", "bo"))
    tv = await Client.connect(server.url, "tv")
    clients += [*players, tv]
    app = OneTV(TVScreen(tv, race))
    async with app.run_test(size=SMALL) as pilot:
        screen = tv_of(app)
        await until(pilot, lambda: "No live boards" in text(screen, "#message"), what="the note")

        def no_board() -> bool:
            assert not screen.query(BoardView) and not screen.query(SeatTile)
            assert screen.watched is not None and not screen.watched.boards()
            return True

        await moves(players[0], race, starts[0], 2)
        await moves(players[1], race, starts[1], 1)
        await until(pilot, lambda: no_board() and "ann: score" in text(screen, "#progress"))
        await until(
            pilot,
            lambda: no_board() and ", 2 moves, playing" in text(screen, "#progress").splitlines()[0],
            what="ann's progress",
        )
        await until(pilot, lambda: ", 1 move, playing" in text(screen, "#progress").splitlines()[1], what="bo's")
        no_board()

        for client in players:
            await client.concede(race)
        await until(pilot, lambda: "The race is over" in text(screen, "#message"), what="the end")
        assert tiles(screen) == [0]  # the final boards, one at a time at 80x24
        assert screen.watched is not None and [s.seat for s in screen.watched.boards()] == [0, 1]
        assert "bo: score" in text(screen, "#message")  # the other seat's line
        await pilot.press("tab")
        await until(pilot, lambda: tiles(screen) == [1], what="bo's final board")


@pytest.mark.asyncio
async def test_follow_mode_moves_on_to_the_next_race_when_one_ends(
    server: ServerProcess, clients: list[Client]
) -> None:
    tv = await Client.connect(server.url, "tv")
    clients.append(tv)
    app = OneTV(TVScreen(tv, follow=True, linger=1.0, look_every=0.2))
    async with app.run_test(size=SMALL) as pilot:
        screen = tv_of(app)
        await until(pilot, lambda: "No race is running" in text(screen, "#message"), what="no race yet")

        first, first_players, _ = await race_of_two(server.url, ("ann", "bo"))
        clients += first_players
        await until(pilot, lambda: screen.watched is not None and screen.watched.race_id == first, what="the first")
        second, second_players, _ = await race_of_two(server.url, ("cy", "dee"), live_boards=True)
        clients += second_players
        await asyncio.sleep(0.5)
        assert screen.watched is not None and screen.watched.race_id == first  # it stays on the race it follows

        for client in first_players:
            await client.concede(first)
        await until(pilot, lambda: "The race is over" in text(screen, "#message"), what="the first race's end")
        await until(pilot, lambda: screen.watched is not None and screen.watched.race_id == second, what="the next")
        await until(pilot, lambda: screen.tiles_shape[0] == second and tiles(screen) == [0], what="its boards")
        assert f"race {second}" in text(screen, "#title") and first not in tv.watching

        for client in second_players:
            await client.concede(second)
        await until(pilot, lambda: "No race is running" in text(screen, "#message"), timeout=20, what="none left")


@pytest.mark.asyncio
async def test_the_lobby_s_w_watches_the_race_under_the_cursor_and_f_follows(
    server: ServerProcess, clients: list[Client]
) -> None:
    race, players, _ = await race_of_two(server.url, ("ann", "bo"))
    tv = await Client.connect(server.url, "tv")
    clients += [*players, tv]

    class Lobby(App[None]):
        def on_mount(self) -> None:
            self.push_screen(LobbyScreen(tv, Account(server.url, "tv")))

    app = Lobby()
    async with app.run_test(size=SMALL) as pilot:
        lobby = app.screen
        assert isinstance(lobby, LobbyScreen)
        await until(pilot, lambda: lobby.current_race() == race, what="the race listed")
        await pilot.press("w")
        await until(pilot, lambda: isinstance(app.screen, TVScreen) and bool(app.screen.query("#title")), what="the TV")
        screen = app.screen
        assert isinstance(screen, TVScreen) and not screen.follow
        await until(pilot, lambda: f"race {race}" in text(screen, "#title"), what="watching it")
        await pilot.press("escape")
        await until(pilot, lambda: app.screen is lobby, what="back in the lobby")
        assert race not in tv.watching
        await pilot.press("f")
        await until_shown(pilot, TVScreen, what="the TV, following")
        follow = app.screen
        assert isinstance(follow, TVScreen) and follow.follow
        await until(pilot, lambda: follow.watched is not None and follow.watched.race_id == race, what="following")
