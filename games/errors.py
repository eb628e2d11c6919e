"""The typed errors of the rules engine. All are ``ValueError`` subclasses."""

from __future__ import annotations


class GameError(ValueError):
    """Base class of every error the rules engine raises on bad input."""


class UnknownGame(GameError):
    """No game of that name is registered; the message lists the names that exist."""


class BadOptions(GameError):
    """An option is unknown or has a value it cannot take; the message lists what exists."""


class BadMove(GameError):
    """A move is malformed: not a move of this game at all (wrong shape, kind or place)."""


class IllegalMove(GameError):
    """A well-formed move that the rules do not allow in this state.

    ``reason`` says why in words a player understands, e.g. ``"7H is not one rank
    above or below the waste card 5S"``.
    """

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class BadLayout(GameError):
    """A text layout (or a card written in one) cannot be read."""
