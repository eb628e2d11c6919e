"""Snapshot tests (``pytest-textual-snapshot``): every game's practice board on a fixed deal at 80x24 and
120x40; at 80x24, the board with a card selected (its legal destinations marked) and with a hint, the help
screen and the chooser; a race in progress (its clock stopped).

The SVGs are in ``__snapshots__/test_snapshots/``. After a deliberate change to how the app looks, look at
the failure report (``snapshot_report.html``), then rewrite them with
``pytest -n 0 tests/client/tui/test_snapshots.py --snapshot-update`` (in one process, syrupy also deletes the
snapshots no test takes any more, and a run without ``--snapshot-update`` fails on them) and look at the new
ones before committing. Everything on screen is fixed: the deals come from fixed seeds, and nothing shows a clock.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import pytest
from textual.pilot import Pilot

from parlour.bots.base import Turn
from parlour.bots.greedy import GreedyBot
from parlour.client.connection import Progress, Start
from parlour.client.tui.app import GameScreen, PlayApp
from parlour.client.tui.layouts import layout_for
from parlour.client.tui.picking import Select, press
from parlour.client.tui.race import RaceTable, progressed
from parlour.games import game_names, get_game
from tests.client.tui.test_app import keys_to
from tests.client.tui.test_race import OneRace, Silent

SEED = 7
SIZES = {"80x24": (80, 24), "120x40": (120, 40)}

SnapCompare = Callable[..., bool]


def selecting(name: str) -> Callable[[Pilot[None]], Awaitable[None]]:
    """A ``run_before`` that selects, by arrow keys and Enter, the source of a legal move with at least
    one destination to mark (the one the fewest keys from the cursor reach), and checks it is selected."""

    async def run_before(pilot: Pilot[None]) -> None:
        await pilot.pause()
        screen = pilot.app.screen
        assert isinstance(screen, GameScreen)
        layout, view, board = layout_for(name), screen.table.view, screen.board
        outcomes = {link.src: press(layout, view, board, None, link.src) for link, _ in layout.links(view) if link.dst}
        sources = {src for src, outcome in outcomes.items() if isinstance(outcome, Select) and outcome.targets}
        assert sources, f"{name}: no card of the deal selects with a destination to mark"
        source = min(sorted(sources), key=lambda src: len(keys_to(board, screen.cursor, src)))
        await pilot.press(*keys_to(board, screen.cursor, source), "enter")
        assert screen.selection is not None and screen.selection.place == source
        assert screen.targets

    return run_before


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("name", game_names())
def test_board(snap_compare: SnapCompare, name: str, size: str) -> None:
    """The practice board of the deal of seed 7, as it opens."""
    assert snap_compare(PlayApp(name, SEED), terminal_size=SIZES[size])


# Golf's presses play at once (each card has one move): nothing is ever selected there; its hint shows its marks.
@pytest.mark.parametrize("name", [name for name in game_names() if not layout_for(name).one_click])
def test_board_with_a_card_selected(snap_compare: SnapCompare, name: str) -> None:
    """A card selected: the selection and its legal destinations marked, at 80x24."""
    assert snap_compare(PlayApp(name, SEED), terminal_size=SIZES["80x24"], run_before=selecting(name))


@pytest.mark.parametrize("name", game_names())
def test_board_with_a_hint(snap_compare: SnapCompare, name: str) -> None:
    """The hint (the greedy bot's move, seeded by the deal's seed) marked with * and told, at 80x24."""

    async def run_before(pilot: Pilot[None]) -> None:
        await pilot.pause()
        await pilot.press("h")
        screen = pilot.app.screen
        assert isinstance(screen, GameScreen) and screen.hinted

    assert snap_compare(PlayApp(name, SEED), terminal_size=SIZES["80x24"], run_before=run_before)


def test_help_screen(snap_compare: SnapCompare) -> None:
    """The help screen (keys, marks and the game's rules) over a board."""
    assert snap_compare(PlayApp("the-chance", SEED), press=["question_mark"], terminal_size=SIZES["80x24"])


def test_game_chooser(snap_compare: SnapCompare) -> None:
    """The practice chooser, listing the eight games."""
    assert snap_compare(PlayApp(), terminal_size=SIZES["80x24"])


class FrozenClock(RaceTable):
    """A race table whose clock stands still (4:05 left), for a snapshot."""

    def time_left(self) -> float:
        return 245.0


def test_a_race_in_progress(snap_compare: SnapCompare) -> None:
    """A race of The Chance 30 moves in, against two opponents (the README shows this one)."""
    game = get_game("the-chance")
    state = game.deal(SEED)
    for seq in range(30):
        state = game.apply(state, GreedyBot(0).choose(Turn.of(game.view(state, "player"), seq)))
    race = {"id": "5f0c2a9e41", "game": game.name, "players": [{"seat": s, "name": who} for s, who in
                                                                 enumerate(["ann", "bob", "greedy"])]}  # fmt: skip
    start = Start(race="5f0c2a9e41", seat=0, deadline=0.0, seq=30, view=game.view(state, "player"))
    table = FrozenClock(Silent(), race, start)  # type: ignore[arg-type]
    table._moves = 30
    table.opponents = progressed(table.opponents, Progress(race="r", seat=1, score=3, moves=14), seat=0)
    table.opponents = progressed(
        table.opponents, Progress(race="r", seat=2, score=6, moves=31, finished=True, ended="stuck"), seat=0
    )
    assert snap_compare(Shown(table), terminal_size=(80, 24))


class Shown(OneRace):
    TITLE = "Parlour"
