"""The app driven by Pilot: practice in every game by keys and by mouse, refusals, undo, hint, results."""

from __future__ import annotations

import asyncio
import re
from typing import Any, TypeVar

import pytest
from textual.pilot import Pilot
from textual.screen import Screen
from textual.widgets import Static

from parlour.client.tui.app import GameScreen, HelpScreen, PlayApp, ResultScreen
from parlour.client.tui.board import Board, Direction, path
from parlour.client.tui.layouts import Layout, layout_for, legal_moves
from parlour.client.tui.picking import Play, Refuse, Select, press, presses
from parlour.client.tui.practice import Practice
from parlour.client.tui.widgets import BoardView, PlaceView
from parlour.games import Move, game_names, get_game

SEED = 7
SIZE = (80, 24)
S = TypeVar("S", bound=Screen[Any])
ARROWS: dict[Direction, str] = {"left": "left", "right": "right", "up": "up", "down": "down"}


def keys_to(board: Board, start: str, target: str) -> list[str]:
    """The arrow keys that take the cursor from ``start`` to ``target``, fewest first."""
    steps = path(board, start, target)
    assert steps is not None, f"the cursor cannot reach {target} from {start}"
    return [ARROWS[direction] for direction in steps]


async def until(pilot: object, condition: object, timeout: float = 15.0, what: str = "") -> None:
    """Let the app run until ``condition()`` holds."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not condition():  # type: ignore[operator]
        assert loop.time() < deadline, f"not within {timeout} s: {what}"
        await pilot.pause(0.05)  # type: ignore[attr-defined]


async def until_shown(pilot: Pilot[Any], kind: type[S], timeout: float = 15.0, what: str = "") -> S:
    """Let the app run until its screen is a ``kind``, composed and mounted, and return that screen.

    ``app.screen`` is the new screen as soon as it is pushed; its widgets exist only once it is mounted.
    """
    app = pilot.app
    await until(pilot, lambda: isinstance(app.screen, kind) and app.screen.is_mounted, timeout, what)
    screen = app.screen
    assert isinstance(screen, kind)
    return screen


async def press_at(pilot: Pilot[None], screen: GameScreen, name: str) -> None:
    """Move the cursor to place ``name`` by arrow keys, and press Enter."""
    await pilot.press(*keys_to(screen.board, screen.cursor, name), "enter")
    assert screen.cursor == name


def path_keys(board: Board, start: str, places: list[str]) -> int:
    """How many arrow keys visit ``places`` in turn from ``start``."""
    count = 0
    for place in places:
        count += len(keys_to(board, start, place))
        start = place
    return count


def keyed_move(layout: Layout, view: dict[str, Any], cursor: str) -> tuple[Move, list[str]]:
    """A legal move made by pressing places with keys (whole places, no depth), and those places:
    of those, the one the fewest arrow keys from ``cursor`` reach (Pilot waits after every key)."""
    found = presses(layout, view)
    assert found, "no legal move is made by whole-place presses"
    board = layout.board(view)
    return min(found, key=lambda pair: path_keys(board, cursor, pair[1]))


def refused_pair(layout: Layout, view: dict[str, Any], cursor: str) -> list[str]:
    """A source and a destination that no legal move joins (the engine or the layout refuses them),
    the fewest arrow keys from ``cursor``."""
    board = layout.board(view)
    legal = legal_moves(view)
    names = [p.name for p in board.places() if p.pointable and p.name not in layout.actions]
    found: list[list[str]] = []
    for src in names:
        first = press(layout, view, board, None, src)
        if not isinstance(first, Select):
            continue
        for dst in names:
            second = press(layout, view, board, first.selection, dst)
            if isinstance(second, Refuse) or (isinstance(second, Play) and second.move not in legal):
                found.append([src, dst])
    assert found, "every pair of places makes a legal move"
    return min(found, key=lambda pair: path_keys(board, cursor, pair))


def message(screen: GameScreen) -> tuple[str, bool]:
    widget = screen.query_one("#message", Static)
    return str(widget.render()), widget.has_class("refused")


def drawn(screen: GameScreen) -> list[Any]:
    """The places the board's widgets draw now."""
    return [widget.place for widget in screen.query(PlaceView)]


@pytest.mark.asyncio
@pytest.mark.parametrize("name", game_names())
async def test_practice_by_keys_refusal_move_undo_and_hint(name: str) -> None:
    game = get_game(name)
    layout = layout_for(name)
    app = PlayApp(name, SEED)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        assert isinstance(screen, GameScreen)
        start = screen.table.view
        assert drawn(screen) == layout.board(start).places()
        table = screen.query_one("#table")
        assert table.max_scroll_x == 0 and table.max_scroll_y == 0  # the deal fits 80x24 with no scrolling

        refused_places = refused_pair(layout, start, screen.cursor)
        for place in refused_places:
            await press_at(pilot, screen, place)
        text, refused = message(screen)
        assert refused and text, refused_places
        assert screen.table.view == start and screen.table.moves_made == 0
        assert drawn(screen) == layout.board(start).places()

        move, places = keyed_move(layout, start, screen.cursor)
        for place in places:
            await press_at(pilot, screen, place)
        after = game.view(game.apply(game.deal(SEED), move), "player")
        assert screen.table.view == after
        assert drawn(screen) == layout.board(after).places()
        assert screen.selection is None and not screen.targets

        await pilot.press("u")
        assert screen.table.view == start
        assert drawn(screen) == layout.board(start).places()

        await pilot.press("h")
        hint = screen.table.hint()
        assert hint is not None and hint.wire() in start["moves"]
        assert message(screen)[0].startswith(f"Hint: {hint.text()}")
        assert {link.src for link in layout.link(hint, start)} <= screen.hinted


@pytest.mark.asyncio
async def test_the_destinations_of_a_selected_card_are_marked_and_esc_drops_it() -> None:
    app = PlayApp("the-chance", SEED)  # c1's 5C may go on c2's 6H
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        assert isinstance(screen, GameScreen)
        await press_at(pilot, screen, "c1")
        assert screen.targets == {"c2"}
        assert screen.query_one(BoardView).views["c2"].marks.target
        await pilot.press("escape")
        assert screen.selection is None and not screen.targets


@pytest.mark.asyncio
async def test_practice_by_mouse_click_a_card_then_its_destination() -> None:
    game = get_game("the-chance")
    app = PlayApp("the-chance", SEED)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        assert isinstance(screen, GameScreen)
        views = screen.query_one(BoardView).views
        await pilot.click(views["c1"], offset=(2, 1))  # c1's only card, 5C, under its label
        assert screen.selection is not None and screen.selection.place == "c1"
        await pilot.click(views["c2"], offset=(2, 0))
        move = Move("move", "c1", "c2", 1)
        assert screen.table.view == game.view(game.apply(game.deal(SEED), move), "player")


@pytest.mark.asyncio
async def test_digits_and_s_are_shortcuts_and_the_game_ends_on_a_result_screen() -> None:
    golf = get_game("golf")
    board = "Talon: KC\nFoundations: 5S\n3C 4H\n2D\n:\n:\n:\n:\n:\n"  # 4H, 3C, 2D clear it
    app = PlayApp("golf", SEED)
    async with app.run_test(size=SIZE) as pilot:
        await app.switch_screen(GameScreen(Practice("golf", 0, state=golf.from_text(board))))
        screen = app.screen
        assert isinstance(screen, GameScreen)
        await pilot.press("s")
        assert screen.table.moves_made == 1  # the stock's KC turned
        await pilot.press("u", "1", "1", "2")
        result = await until_shown(pilot, ResultScreen, what="the result")
        assert "Won!" in str(result.query_one("#ending", Static).render())
        assert "Score 0" in str(result.query_one("#score", Static).render())
        await pilot.press("u")  # back to the board, the last move taken back
        assert app.screen is screen and screen.table.view["ended"] is None


@pytest.mark.asyncio
async def test_no_game_given_opens_the_chooser_then_help_and_q_quits() -> None:
    app = PlayApp()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("enter")  # the first game listed
        game = await until_shown(pilot, GameScreen, what="the game chosen")
        assert game.table.game.name == game_names()[0]
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)
        await pilot.press("escape")
        assert isinstance(app.screen, GameScreen)
        await pilot.press("q")
    assert app.return_code == 0


def test_parlour_play_wants_practice_and_a_known_game(capsys: pytest.CaptureFixture[str]) -> None:
    from parlour.client.cli import main

    assert main(["play", "golf"]) == 2  # without --practice: the lobby, which takes no game
    assert "'parlour play --practice GAME'" in capsys.readouterr().err
    assert main(["play", "--practice", "nosuch"]) == 2
    assert "no game called 'nosuch'" in capsys.readouterr().err
    assert main(["play", "--practice", "golf", "-o", "x=1"]) == 2
    assert main(["play", "--practice", "--seed", "3"]) == 2  # a seed needs a game


@pytest.mark.asyncio
async def test_practice_against_a_bot_on_the_same_deal_ranks_both_games() -> None:
    from parlour.client.tui.practice_race import PracticeRaceResultScreen, PracticeRaceScreen

    app = PlayApp("golf", SEED, bot="greedy", pace=0.01)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        assert isinstance(screen, PracticeRaceScreen)
        rival = screen.rival
        assert rival.game.deal(SEED) == screen.practice._states[0]  # the same deal
        await until(pilot, lambda: rival.moves > 0, timeout=20, what="the bot's first move")
        race_line = str(screen.query_one("#race", Static).render())
        assert race_line.startswith("Racing greedy on the same deal. greedy: score ")

        layout = layout_for("golf")
        while screen.table.view["ended"] is None:
            _, places = keyed_move(layout, screen.table.view, screen.cursor)
            for place in places:
                await press_at(pilot, screen, place)
        result = await until_shown(pilot, PracticeRaceResultScreen, timeout=20, what="the results")
        ranking = str(result.query_one("#ranking", Static).render()).splitlines()
        assert sorted(line.split(":")[0][3:] for line in ranking) == ["greedy", "you"]
        assert rival.finished and rival.opponent().finished
        await pilot.press("n")  # a new deal against the same bot
        assert isinstance(app.screen, PracticeRaceScreen) and app.screen.rival is not rival
        await pilot.press("q")


def test_a_practice_race_needs_an_installed_bot_that_plays_the_game(capsys: pytest.CaptureFixture[str]) -> None:
    from parlour.client.cli import main

    assert main(["play", "--practice", "golf", "--bot", "nosuch"]) == 2
    assert "no bot called 'nosuch'" in capsys.readouterr().err


def test_a_rival_plays_its_own_game_to_its_end_and_a_failing_bot_concedes() -> None:
    from parlour.client.tui.rival import Rival, practice_ranking

    game = get_game("golf")
    rival = Rival("random", game, SEED)
    while not rival.finished:
        rival.step()
    assert rival.state.ended is not None and rival.moves > 0 and rival.finished_after is not None
    capped = Rival("random", game, SEED, max_moves=3)
    for _ in range(10):
        capped.step()
    assert capped.moves == 3 and capped.opponent().ended == "out_of_time"

    broken = Rival("greedy", game, SEED)

    def fail(turn: object) -> Move:
        raise RuntimeError("boom")

    broken.bot.choose = fail  # type: ignore[method-assign]
    broken.step()
    assert broken.opponent().ended == "conceded" and broken.problem == "greedy failed: RuntimeError: boom"
    lines = practice_ranking(game, [broken.result(), {**rival.result(), "name": "you"}])
    assert lines[1].startswith("2. greedy: score 35 (conceded, 0 moves")  # golf: fewer cards left ranks first


@pytest.mark.asyncio
async def test_ctrl_t_switches_light_and_dark_and_no_color_draws_no_red(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    app = PlayApp("golf", SEED)
    async with app.run_test(size=SIZE) as pilot:
        assert app.current_theme.dark
        await pilot.press("ctrl+t")
        await until(pilot, lambda: not app.current_theme.dark, what="the light theme")
        await pilot.press("ctrl+t")
        await until(pilot, lambda: app.current_theme.dark, what="the dark theme")
        assert any(reddish(rgb) for rgb in svg_colours(app.export_screenshot()))  # the red suits

    monkeypatch.setenv("NO_COLOR", "1")
    plain = PlayApp("golf", SEED)
    async with plain.run_test(size=SIZE):
        assert plain.no_color
        assert not any(reddish(rgb) for rgb in svg_colours(plain.export_screenshot()))  # suits by symbol only


def svg_colours(svg: str) -> list[tuple[int, int, int]]:
    """Every #rrggbb colour an exported screen uses (not the window's buttons drawn around it)."""
    svg = re.sub(r"<circle[^>]*>", "", svg)
    return [(int(m[0:2], 16), int(m[2:4], 16), int(m[4:6], 16)) for m in re.findall(r"#([0-9a-fA-F]{6})\b", svg)]


def reddish(rgb: tuple[int, int, int]) -> bool:
    red, green, blue = rgb
    return red > green + 60 and red > blue + 60
