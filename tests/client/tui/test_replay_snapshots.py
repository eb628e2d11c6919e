"""Snapshot tests (``pytest-textual-snapshot``) of the replay screen, at 80x24 and 120x40, from a fixed
replay made without a server (:mod:`tests.client.tui.replays`): Golf on the deal of seed 7, ada's six
moves then an undo and a concession, bob's four moves (his game ends by time).

The SVGs are in ``__snapshots__/test_replay_snapshots/``; rewrite them after a deliberate change with
``pytest -n 0 tests/client/tui/test_replay_snapshots.py --snapshot-update`` and look at them before committing.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from textual.pilot import Pilot

from parlour.client.tui.replay import ReplayApp, ReplayScreen
from tests.client.tui.replays import made_replay, played_log

SEED = 7
SIZES = {"80x24": (80, 24), "120x40": (120, 40)}

SnapCompare = Callable[..., bool]


def app() -> ReplayApp:
    logs = [[*played_log("golf", SEED, 6, 1), ["undo"], ["concede"]], played_log("golf", SEED, 4, 2)]
    return ReplayApp(made_replay("golf", SEED, logs))


def pressing(*keys: str) -> Callable[[Pilot[None]], object]:
    async def run_before(pilot: Pilot[None]) -> None:
        await pilot.pause()
        await pilot.press(*keys)
        await pilot.pause()
        await pilot.pause()
        assert isinstance(pilot.app.screen, ReplayScreen)

    return run_before


@pytest.mark.parametrize("size", SIZES)
def test_one_seat(snap_compare: SnapCompare, size: str) -> None:
    """Ada's board after her first entry (play p5), the places her move joined marked *."""
    assert snap_compare(app(), terminal_size=SIZES[size], run_before=pressing("right"))


@pytest.mark.parametrize("size", SIZES)
def test_all_seats_at_the_end(snap_compare: SnapCompare, size: str) -> None:
    """Both seats side by side at the end, each with its place, score and ending (too wide at 80x24: said)."""
    assert snap_compare(app(), terminal_size=SIZES[size], run_before=pressing("a", "end"))
