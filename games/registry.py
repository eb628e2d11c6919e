"""Games by name. Each game module ends by calling :func:`register`."""

from __future__ import annotations

from typing import Any

from parlour.games.base import Game
from parlour.games.errors import UnknownGame

_GAMES: dict[str, Game[Any]] = {}


def register(game: Game[Any]) -> Game[Any]:
    """Add ``game`` under ``game.name``; a name may be registered once."""
    if game.name in _GAMES:
        raise ValueError(f"game {game.name!r} is registered twice")
    _GAMES[game.name] = game
    return game


def get_game(name: str) -> Game[Any]:
    """The game called ``name``; :class:`UnknownGame` lists the names that exist."""
    try:
        return _GAMES[name]
    except KeyError:
        raise UnknownGame(f"no game called {name!r}; games: {', '.join(sorted(_GAMES))}") from None


def game_names() -> list[str]:
    """Every registered game's name, sorted."""
    return sorted(_GAMES)
