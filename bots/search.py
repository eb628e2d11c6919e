"""``search``: the strongest built-in bot: per-game search over states drawn from the view."""

from __future__ import annotations

from parlour.bots.base import Bot, Turn
from parlour.bots.builtin import module_for
from parlour.games import Move


class SearchBot(Bot):
    name = "search"
    summary = "Searches states drawn consistent with its view (exactly where nothing is hidden)."

    def __init__(self, seed: int = 0) -> None:
        super().__init__(seed)
        self._inner: Bot | None = None

    def start(self, turn: Turn) -> None:
        self._inner = module_for(turn.game.name).Search(self.seed)
        self._inner.start(turn)

    def choose(self, turn: Turn) -> Move:
        if self._inner is None:
            self.start(turn)
        assert self._inner is not None
        return self._inner.choose(turn)
