"""Snapshot tests (``pytest-textual-snapshot``) of Race TV on a canned race (tests/client/tui/tv_canned.py):
three seats' live boards 30 s behind at 80x24 (one seat at a time, the others' lines under it) and at
120x40 (tiled); a race without live boards (progress lines only); a race over, with its ranking.

The SVGs are in ``__snapshots__/test_tv_snapshots/``; see tests/client/tui/test_snapshots.py for how to
rewrite them. Everything on screen is fixed: the boards come from a fixed seed, the clock from a fixed time.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import pytest
from textual.pilot import Pilot

from parlour.client.connection import End, Progress, Watch
from parlour.client.tui.tv import SeatTile, TVScreen
from tests.client.tui.tv_canned import Canned, OneTV, canned_app, played

SIZES = {"80x24": (80, 24), "120x40": (120, 40)}
RESULTS = [
    {"place": 1, "seat": 1, "player": "p1", "name": "bo", "score": 31, "ended": "stuck", "time": 41.2, "moves": 12},
    {"place": 2, "seat": 0, "player": "p0", "name": "ann", "score": 33, "ended": "conceded", "time": 20.0, "moves": 3},
]

SnapCompare = Callable[..., bool]


def settled(*events: object, tiles: int = 0, note: str = "") -> Callable[[Pilot[None]], Awaitable[None]]:
    """A ``run_before`` that puts ``events`` in the canned client's queue and waits until ``tiles`` tiles
    show and the message holds ``note``."""

    async def run_before(pilot: Pilot[None]) -> None:
        app = pilot.app
        assert isinstance(app, OneTV)
        screen: TVScreen = app.tv
        await pilot.pause()
        client = screen.client
        assert isinstance(client, Canned)
        for event in events:
            client.queue.put_nowait(event)  # type: ignore[arg-type]
        for _ in range(200):
            await pilot.pause(0.02)
            message = str(screen.query_one("#message").render())
            if len(screen.query(SeatTile)) == tiles and note in message and client.queue.empty():
                break
        else:
            raise AssertionError(f"not settled: {len(screen.query(SeatTile))} tiles, message {message!r}")
        await pilot.pause()

    return run_before


@pytest.mark.parametrize("size", SIZES)
def test_live_boards(snap_compare: SnapCompare, size: str) -> None:
    """Three seats' boards, 30 s behind: one at a time at 80x24, tiled at 120x40."""
    tiles = 1 if size == "80x24" else 3
    assert snap_compare(canned_app("golf", 3), terminal_size=SIZES[size], run_before=settled(tiles=tiles))


def test_no_live_boards(snap_compare: SnapCompare) -> None:
    """A race without live boards: each seat's progress line and the note, no board."""
    events = [
        Progress(race="tv1", seat=0, score=33, moves=3, finished=True, ended="conceded"),
        Progress(race="tv1", seat=1, score=31, moves=9, finished=False),
    ]
    app = canned_app("golf", 2, live_boards=False)
    assert snap_compare(app, terminal_size=SIZES["80x24"], run_before=settled(*events, note="No live boards"))


def test_the_race_over(snap_compare: SnapCompare) -> None:
    """A race without live boards at its end: the final boards (tiled at 120x40) and the ranking."""
    events = [
        *(Watch(race="tv1", seat=seat, seq=seq, view=played("golf", 7, seq)) for seat, seq in ((0, 3), (1, 12))),
        End(race="tv1", results=RESULTS),
    ]
    app = canned_app("golf", 2, live_boards=False)
    assert snap_compare(app, terminal_size=SIZES["120x40"], run_before=settled(*events, tiles=2, note="over"))
