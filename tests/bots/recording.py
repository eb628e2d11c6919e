"""A bot's moves on one deal, played in-process: what the built-in bots' determinism tests compare."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from parlour.bots.arena import MAX_MOVES, Played, play
from parlour.bots.base import Bot, Turn
from parlour.games import CONCEDE, Game, Move


class Recording(Bot):
    """Plays as ``inner`` (every hook passed on) and keeps the moves it made, each one of the listed legal
    moves (or a concession, where ``may_concede``)."""

    name = "recording"
    summary = "test"

    def __init__(self, inner: Bot, may_concede: bool = True) -> None:
        super().__init__(0)
        self.inner = inner
        self.may_concede = may_concede
        self.moves: list[Move] = []

    def start(self, turn: Turn) -> None:
        self.inner.start(turn)

    def choose(self, turn: Turn) -> Move:
        move = self.inner.choose(turn)
        assert move in turn.moves or (self.may_concede and move == CONCEDE), move
        self.moves.append(move)
        return move

    def finish(self, view: Mapping[str, Any], result: Mapping[str, Any] | None) -> None:
        self.inner.finish(view, result)


def recorded(
    bot: Bot,
    game: Game[Any] | str,
    seed: int,
    options: Mapping[str, object] | None = None,
    max_moves: int = MAX_MOVES,
    may_concede: bool = True,
) -> tuple[Played, list[Move]]:
    """``bot`` plays the deal of ``seed`` through the arena's :func:`play`: how it ended, and every move
    it made (each checked as :class:`Recording` does)."""
    recording = Recording(bot, may_concede)
    played = play(recording, game, seed, options, max_moves=max_moves)
    return played, recording.moves
