"""The interface every bot implements: choose a move from what a racer sees, and nothing more.

A bot is a :class:`Bot` subclass. The same class plays through a server (``parlour bot run``) and
in-process (``parlour arena``): both hand it a :class:`Turn` built from the player's view, never a
game state, so a bot cannot see a hidden card. To reason about unseen cards a bot draws full states
consistent with its view (:meth:`parlour.games.Game.draw`) and searches those.

A new bot object plays one game at a time: the caller makes one per race (or per arena deal), calls
:meth:`Bot.start` once, :meth:`Bot.choose` for every move, and :meth:`Bot.finish` at the end. Between
calls the bot may keep whatever state it likes on ``self``.

Bots are deterministic: the same seed, game and views give the same moves. Use ``self.rng`` (a
:class:`random.Random` seeded from the seed) for every random choice, and budgets counted in work
(states searched, deals drawn), not in wall-clock time, except as a safety cap.
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from parlour.games import Game, Move, get_game
from parlour.games.base import OptionValue, ensure_moves


@dataclass(frozen=True, slots=True)
class Turn:
    """What a bot sees when it is its move: exactly what a racer's client receives.

    ``view`` is the player's view (``Game.view(state, "player")``, the ``view`` of the protocol's
    ``start`` and ``ack``); ``moves`` are its legal moves read into :class:`Move` values; ``seq``
    is the number of moves made so far. ``time_left`` is the seconds until the race's deadline
    (``None`` when nothing limits it) and ``budget`` the seconds this move should take at most:
    the runner's share of ``time_left``. A bot that runs over its budget is not stopped, but the
    race's clock keeps running.
    """

    game: Game[Any]
    options: Mapping[str, OptionValue]
    view: Mapping[str, Any]
    moves: tuple[Move, ...]
    seq: int
    time_left: float | None
    budget: float

    @staticmethod
    def of(view: Mapping[str, Any], seq: int, time_left: float | None = None, budget: float = 1.0) -> Turn:
        """The turn for a player's ``view`` (its ``game``, ``options`` and ``moves`` are read from it)."""
        game = get_game(view["game"])
        return Turn(game, view["options"], view, tuple(ensure_moves(view["moves"])), seq, time_left, budget)


class Bot(ABC):
    """A bot. Subclasses set ``name``, ``summary`` and ``games`` and implement :meth:`choose`.

    ``name`` is what people invite and what ``parlour bots`` lists (lower case, no spaces);
    ``games`` is the set of game names the bot plays, ``None`` for every game.
    """

    name: ClassVar[str]
    summary: ClassVar[str]
    games: ClassVar[frozenset[str] | None] = None

    def __init__(self, seed: int = 0) -> None:
        self.seed = seed
        self.rng = random.Random(seed)

    @classmethod
    def plays(cls, game: str) -> bool:
        """Whether this bot plays ``game``."""
        return cls.games is None or game in cls.games

    def start(self, turn: Turn) -> None:  # noqa: B027 - an optional hook
        """The game began; ``turn`` holds the first view. Called once, before the first :meth:`choose`."""

    @abstractmethod
    def choose(self, turn: Turn) -> Move:
        """The move to make now: one of ``turn.moves`` (or ``CONCEDE``). ``turn.moves`` is never empty."""

    def finish(self, view: Mapping[str, Any], result: Mapping[str, Any] | None) -> None:  # noqa: B027
        """The game is over: the last view, and the race's result for this seat if known."""
