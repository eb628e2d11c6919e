"""The rules engine: cards, seeded deals and the eight games. Pure Python, no I/O.

Use :func:`get_game` to find a game by name; every game has the same interface
(:class:`Game`): ``deal``, ``legal_moves``, ``apply``, ``outcome``, ``score``, ``view``,
``to_text`` / ``from_text`` and ``state_hash``.
"""

# Each game module registers itself when imported.
from parlour.games import (  # noqa: F401
    carpet,
    cheer,
    chris_cross_pairs,
    gaps,
    gate,
    german_patience,
    golf,
    the_chance,
)
from parlour.games.base import CONCEDE, Ending, Game, Move, Option, Score, parse_move, score_wire
from parlour.games.errors import BadLayout, BadMove, BadOptions, GameError, IllegalMove, UnknownGame
from parlour.games.registry import game_names, get_game
from parlour.games.replay import replay


def engine_build() -> str:
    """How this engine was installed: ``"mypyc-compiled"`` (extension modules) or ``"pure Python"``."""
    return "mypyc-compiled" if hasattr(Game, "__mypyc_attrs__") else "pure Python"


__all__ = [
    "CONCEDE",
    "BadLayout",
    "BadMove",
    "BadOptions",
    "Ending",
    "Game",
    "GameError",
    "IllegalMove",
    "Move",
    "Option",
    "Score",
    "UnknownGame",
    "engine_build",
    "game_names",
    "get_game",
    "parse_move",
    "replay",
    "score_wire",
]
