"""Rebuilding a game from (game, options, seed, moves)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from parlour.games.base import Move, ensure_moves
from parlour.games.registry import get_game


def replay(
    game_name: str,
    options: Mapping[str, object] | None,
    seed: int,
    moves: Sequence[Move | Sequence[object]],
) -> Any:
    """The state reached by dealing ``seed`` and applying ``moves`` (Move or wire form).

    Raises the engine's errors (:class:`IllegalMove`, :class:`BadMove`, ...) at the first
    move that does not apply, so a tampered log is refused rather than bent.
    """
    game = get_game(game_name)
    state = game.deal(seed, options)
    for move in ensure_moves(moves):
        state = game.apply(state, move)
    return state
