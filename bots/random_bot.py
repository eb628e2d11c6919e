"""``random``: a uniformly random legal move. The floor every other bot must beat."""

from __future__ import annotations

from parlour.bots.base import Bot, Turn
from parlour.games import Move


class RandomBot(Bot):
    name = "random"
    summary = "Plays a legal move chosen uniformly at random (the baseline)."

    def choose(self, turn: Turn) -> Move:
        return self.rng.choice(turn.moves)
