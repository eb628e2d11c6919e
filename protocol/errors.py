"""Typed error codes: every refusal the server sends names one of these."""

from __future__ import annotations

import enum
import math


class ErrorCode(enum.StrEnum):
    """What went wrong, as a stable string a client can switch on."""

    # The frame or message itself.
    BAD_FRAME = "bad_frame"  # not a binary frame holding one msgpack value
    BAD_MESSAGE = "bad_message"  # msgpack, but not a message of the right shape
    UNKNOWN_TYPE = "unknown_type"  # a message type the server does not know
    UNSUPPORTED_VERSION = "unsupported_version"  # the hello's version is not spoken here
    RATE_LIMITED = "rate_limited"  # too many messages; ``retry_after`` says when to try again
    # Identity.
    NOT_IDENTIFIED = "not_identified"  # a request before the hello
    ALREADY_IDENTIFIED = "already_identified"  # a second hello on one connection
    BAD_TOKEN = "bad_token"  # the token names no identity
    BAD_PASSWORD = "bad_password"  # the server's password is missing or wrong
    BAD_NAME = "bad_name"  # a display name with control or format characters, or blank at either end
    # Lobby and races.
    UNKNOWN_GAME = "unknown_game"
    BAD_OPTIONS = "bad_options"
    UNKNOWN_RACE = "unknown_race"  # no such race, or a private race without its code
    RACE_FULL = "race_full"
    RACE_STARTED = "race_started"  # the race no longer takes joins, leaves or ready changes
    NOT_SEATED = "not_seated"  # the request needs a seat in that race
    TOO_MANY_RACES = "too_many_races"  # the player's limit of open and live races is reached
    FORBIDDEN = "forbidden"  # e.g. a racer watching their own live race
    # Bots.
    NO_SUCH_BOT = "no_such_bot"  # no online bot by that name (or id) plays the race's game
    BOT_BUSY = "bot_busy"  # every online bot that would do already plays (or is invited to) its most races
    # Tournaments.
    UNKNOWN_TOURNAMENT = "unknown_tournament"
    BAD_TOURNAMENT = "bad_tournament"  # a tournament that cannot be held as asked; the message says why
    TOURNAMENT_STARTED = "tournament_started"  # it no longer takes entrants
    # Moves.
    RACE_NOT_RUNNING = "race_not_running"
    BAD_MOVE = "bad_move"  # not a move of this game at all
    ILLEGAL_MOVE = "illegal_move"  # a move the rules refuse now; the message says why
    STALE_SEQ = "stale_seq"  # the move's sequence number is not the next one
    GAME_OVER = "game_over"  # this seat's game has ended
    UNDO_NOT_ALLOWED = "undo_not_allowed"
    NOT_FINISHED = "not_finished"  # e.g. a replay asked for before the race ends
    # The server.
    IDLE_TIMEOUT = "idle_timeout"
    SHUTTING_DOWN = "shutting_down"
    UNAVAILABLE = "unavailable"  # the server cannot reach its storage now; nothing was stored; see retry_after
    INTERNAL = "internal"


class ProtocolError(Exception):
    """A refusal with its code, a message for people and, for ``rate_limited`` and ``unavailable``, a retry delay.

    ``retry_after`` is rounded up to the millisecond, and is at least 0.001: waiting that
    long is always enough, and a client never sees a wait of 0.
    """

    def __init__(self, code: ErrorCode, message: str, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.retry_after = None if retry_after is None else max(0.001, math.ceil(retry_after * 1000 - 1e-9) / 1000)
