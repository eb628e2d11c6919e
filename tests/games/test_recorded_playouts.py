"""The engine plays exactly as the engine of commit 0d4d8b5 did, on thousands of random playouts per game.

``tests/games/data/recorded_playouts.json.gz`` holds what that engine did (see ``tests/games/recorded.py``):
legal moves in order, both views, the full layout, score and ending after every move, and states drawn
from the player's view. Any change to the engine (a faster one above all) must reproduce all of it.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import pytest

from parlour.games import game_names
from tests.games import recorded

CHUNKS = 8  # each game's playouts run as this many tests, so that workers share them


@cache
def fixture() -> dict[str, list[dict[str, Any]]]:
    return recorded.load()


def test_the_fixture_covers_every_game_and_option() -> None:
    data = fixture()
    assert sorted(data) == game_names()
    for name, playouts in data.items():
        assert len(playouts) == recorded.PLAYOUTS
        assert {str(p["options"]) for p in playouts} == {str(o) for o in recorded.option_sets(name)}
        assert any(p["ended"] is not None for p in playouts), f"no {name} playout ended by the rules"


@pytest.mark.heavy
@pytest.mark.parametrize("chunk", range(CHUNKS))
@pytest.mark.parametrize("name", game_names())
def test_random_playouts_match_the_recorded_engine(name: str, chunk: int) -> None:
    playouts = fixture()[name]
    for index in range(chunk, len(playouts), CHUNKS):
        want = playouts[index]
        got = recorded.play(name, index)
        if got != want:
            where = next(
                (
                    i * recorded.CHECKPOINT
                    for i, (a, b) in enumerate(zip(got["checkpoints"], want["checkpoints"], strict=False))
                    if a != b
                ),
                None,
            )
            pytest.fail(
                f"{name} seed {want['seed']} options {want['options']}: the playout differs"
                f" (first differing checkpoint: before move {where}; moves {got['moves']} vs {want['moves']},"
                f" ended {got['ended']} vs {want['ended']}, score {got['score']} vs {want['score']})"
            )
