"""``greedy``: one move ahead, judged by each game's own heuristic (``parlour.bots.builtin``)."""

from __future__ import annotations

from parlour.bots.base import Bot, Turn
from parlour.bots.builtin import module_for
from parlour.games import Move


class GreedyBot(Bot):
    name = "greedy"
    summary = "Looks one move ahead and takes the best by a per-game heuristic."

    def __init__(self, seed: int = 0) -> None:
        super().__init__(seed)
        self._inner: Bot | None = None

    def start(self, turn: Turn) -> None:
        self._inner = module_for(turn.game.name).Greedy(self.seed)
        self._inner.start(turn)

    def choose(self, turn: Turn) -> Move:
        if self._inner is None:
            self.start(turn)
        assert self._inner is not None
        return self._inner.choose(turn)
