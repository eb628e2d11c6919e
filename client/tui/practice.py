"""A game played alone against the local engine: the practice table the app's game screen plays at.

:class:`Table` is what the game screen needs from where it plays: the current player's view, a way
to send a move and to take one back, and a hint. :class:`Practice` is the table of a game played
offline; :class:`~parlour.client.tui.race.RaceTable` is a race's, through the client library.
Playing and undoing are coroutines, since a race's wait for the server's answer. The screen only
ever gets views: the state stays in here.
"""

from __future__ import annotations

from typing import Any, Protocol

from parlour.bots.base import Turn
from parlour.bots.greedy import GreedyBot
from parlour.games import Game, IllegalMove, Move, get_game


class Table(Protocol):
    """Where a game is played, as the game screen sees it."""

    game: Game[Any]
    origin: str
    """Where the deal comes from, for people: ``"seed 42"``."""

    @property
    def view(self) -> dict[str, Any]:
        """The player's view now."""
        ...

    @property
    def moves_made(self) -> int:
        """How many moves stand (undone ones are not counted)."""
        ...

    async def play(self, move: Move) -> dict[str, Any]:
        """Make ``move`` and return the new view; raises :class:`~parlour.games.GameError` (saying why)
        if it is refused, and then nothing changes."""
        ...

    async def undo(self) -> dict[str, Any]:
        """Take the last move back and return the view; raises :class:`~parlour.games.GameError` if
        there is none (or undo is not allowed)."""
        ...

    def hint(self) -> Move | None:
        """A good legal move now (the greedy bot's), or ``None`` when there is none."""
        ...


class Practice:
    """A game of ``game`` on the deal of ``seed`` (or from ``state``), played against the local engine."""

    def __init__(self, game: str | Game[Any], seed: int, options: dict[str, Any] | None = None, state: Any = None):
        self.game = get_game(game) if isinstance(game, str) else game
        self.seed = seed
        self.origin = "a layout" if state is not None else f"seed {seed}"
        self._states = [self.game.deal(seed, options) if state is None else state]
        self._view = self.game.view(self._states[-1], "player")

    @property
    def view(self) -> dict[str, Any]:
        return self._view

    @property
    def moves_made(self) -> int:
        return len(self._states) - 1

    async def play(self, move: Move) -> dict[str, Any]:
        self._states.append(self.game.apply(self._states[-1], move))
        self._view = self.game.view(self._states[-1], "player")
        return self._view

    async def undo(self) -> dict[str, Any]:
        if len(self._states) == 1:
            raise IllegalMove("there is no move to undo")
        self._states.pop()
        self._view = self.game.view(self._states[-1], "player")
        return self._view

    def hint(self) -> Move | None:
        if not self._view["moves"]:
            return None
        return GreedyBot(self.seed).choose(Turn.of(self._view, self.moves_made))
