"""Small bots for the arena's and the fairness tests, loaded by spec (``tests.bots.tiny_bots:First``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from parlour.bots import Bot, Turn
from parlour.games import Move

PLAIN = (dict, list, str, int, float, bool, type(None))


def plain_data(value: object) -> bool:
    """Whether ``value`` is plain data (dicts, lists, strings, numbers, None) all the way down: what a
    racer's client receives over the wire."""
    if isinstance(value, dict):
        return all(isinstance(k, str) and plain_data(v) for k, v in value.items())
    if isinstance(value, list):
        return all(plain_data(v) for v in value)
    return type(value) in PLAIN


class First(Bot):
    """Always the first legal move."""

    name = "first"
    summary = "Plays the first legal move."

    def choose(self, turn: Turn) -> Move:
        return turn.moves[0]


class Spy(Bot):
    """Records what it is handed, and fails the game at once if it is anything but a Turn of plain data."""

    name = "spy"
    summary = "Records every turn; plays uniformly at random."

    def __init__(self, seed: int = 0) -> None:
        super().__init__(seed)
        self.turns: list[Turn] = []
        self.moves: list[Move] = []
        self.finished: Mapping[str, Any] | None = None

    def _check(self, turn: Turn) -> None:
        if type(turn) is not Turn or not plain_data(turn.view):
            raise AssertionError(f"the spy was handed more than a view: {turn!r:.200}")
        if turn.moves != tuple(Move.from_wire(m) for m in turn.view["moves"]):
            raise AssertionError("the turn's moves are not its view's")

    def start(self, turn: Turn) -> None:
        self._check(turn)

    def choose(self, turn: Turn) -> Move:
        self._check(turn)
        self.turns.append(turn)
        self.moves.append(self.rng.choice(turn.moves))
        return self.moves[-1]

    def finish(self, view: Mapping[str, Any], result: Mapping[str, Any] | None) -> None:
        if not plain_data(view):
            raise AssertionError("the spy's last view is not plain data")
        self.finished = view


class Illegal(Bot):
    """A buggy bot: a move that is never legal."""

    name = "illegal"
    summary = "Plays a move no game has."

    def choose(self, turn: Turn) -> Move:
        return Move("fly", "p1", "p2")


class GolfOnly(Bot):
    name = "golf-only"
    summary = "Plays only golf."
    games = frozenset({"golf"})

    def choose(self, turn: Turn) -> Move:
        return turn.moves[0]
