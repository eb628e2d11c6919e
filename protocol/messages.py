"""Every message of the protocol, as a frozen dataclass with its wire ``TYPE``.

Requests go from client to server and carry an ``id`` that the reply (or ``error``)
echoes. Replies answer one request. Events are sent by the server unasked and carry no
``id``. Field constraints live in each field's metadata and are checked by
:meth:`Message.from_wire`; unknown fields are ignored, so a newer peer may add fields.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from dataclasses import dataclass, field
from typing import Any, ClassVar

from parlour.protocol.errors import ErrorCode, ProtocolError

PROTOCOL_VERSION = 1
MAX_ID = 2**53 - 1
JsonMap = dict[str, Any]


def limits(lo: int, hi: int, default: Any = dataclasses.MISSING) -> Any:
    """A field whose value (int) or length (str, list, map) lies in ``[lo, hi]``."""
    if default is dataclasses.MISSING:
        return field(metadata={"limits": (lo, hi)})
    return field(default=default, metadata={"limits": (lo, hi)})


@dataclass(frozen=True, slots=True, kw_only=True)
class Message:
    """Base of all messages. Subclasses set ``TYPE``."""

    TYPE: ClassVar[str] = ""

    def to_wire(self) -> JsonMap:
        """The message as a map ready for msgpack; fields that are ``None`` are left out."""
        out: JsonMap = {"type": self.TYPE}
        for name in _field_names(type(self)):
            value = getattr(self, name)
            if value is not None:
                out[name] = value
        return out

    @classmethod
    def from_wire(cls, data: JsonMap) -> Message:
        """Build and check a message from a decoded map (its ``type`` already matched)."""
        values = {}
        for name, kinds, bounds, required, items in _specs(cls):
            value = data.get(name)
            if value is not None:
                values[name] = _check(cls.TYPE, name, value, kinds, bounds, items)
            elif required:
                raise ProtocolError(ErrorCode.BAD_MESSAGE, f"{cls.TYPE}: the field {name!r} is missing")
        return cls(**values)


@dataclass(frozen=True, slots=True, kw_only=True)
class Request(Message):
    id: int = limits(1, MAX_ID)


@dataclass(frozen=True, slots=True, kw_only=True)
class Reply(Message):
    id: int = limits(1, MAX_ID)


@dataclass(frozen=True, slots=True, kw_only=True)
class Event(Message):
    pass


# --- requests ------------------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class Hello(Request):
    """First message on every connection: who this is. No token: a new identity."""

    TYPE: ClassVar[str] = "hello"
    version: int = limits(1, 1000, PROTOCOL_VERSION)
    name: str = limits(1, 32)
    bot: bool = False
    token: str | None = limits(1, 128, None)
    password: str | None = limits(0, 128, None)
    client: str | None = limits(0, 64, None)
    # With ``bot``: the games this connection offers to play when invited, and how many races
    # at once (default 1). While it is open the bot is online, listed in ``races.bots``.
    games: list[str] | None = limits(1, 16, None)
    max_races: int | None = limits(1, 64, None)


@dataclass(frozen=True, slots=True, kw_only=True)
class Lobby(Request):
    """One page of the lobby: the player's own unfinished races, then the open and live public
    races, newest first. ``after`` is the ``next`` of the previous page."""

    TYPE: ClassVar[str] = "lobby"
    limit: int = limits(1, 100, 50)
    after: str | None = limits(1, 128, None)


@dataclass(frozen=True, slots=True, kw_only=True)
class Create(Request):
    """Create a race; the creator takes seat 0."""

    TYPE: ClassVar[str] = "create"
    game: str = limits(1, 32)
    options: JsonMap | None = limits(0, 16, None)
    seats: int = limits(1, 8, 2)
    time_limit: int = limits(10, 86_400, 600)
    public: bool = True
    undo: bool = False
    spectator_delay: int = limits(0, 3_600, 0)
    live_boards: bool = False


@dataclass(frozen=True, slots=True, kw_only=True)
class Join(Request):
    """Take a seat: a public race by ``race``, a private one by its ``code``."""

    TYPE: ClassVar[str] = "join"
    race: str | None = limits(1, 64, None)
    code: str | None = limits(1, 64, None)


@dataclass(frozen=True, slots=True, kw_only=True)
class Leave(Request):
    TYPE: ClassVar[str] = "leave"
    race: str = limits(1, 64)


@dataclass(frozen=True, slots=True, kw_only=True)
class Ready(Request):
    TYPE: ClassVar[str] = "ready"
    race: str = limits(1, 64)
    ready: bool = True


@dataclass(frozen=True, slots=True, kw_only=True)
class MakeMove(Request):
    """Make ``move`` (wire form) as move number ``seq`` (0-based) of the player's game."""

    TYPE: ClassVar[str] = "move"
    race: str = limits(1, 64)
    seq: int = limits(0, 1_000_000)
    move: list[Any] = limits(1, 4)


@dataclass(frozen=True, slots=True, kw_only=True)
class Undo(Request):
    """Take back the last move; ``seq`` is the number of log entries so far (moves and undos)."""

    TYPE: ClassVar[str] = "undo"
    race: str = limits(1, 64)
    seq: int = limits(0, 1_000_000)


@dataclass(frozen=True, slots=True, kw_only=True)
class Concede(Request):
    TYPE: ClassVar[str] = "concede"
    race: str = limits(1, 64)


@dataclass(frozen=True, slots=True, kw_only=True)
class Snapshot(Request):
    """The full state of a race as this connection may see it (for resuming)."""

    TYPE: ClassVar[str] = "snapshot"
    race: str = limits(1, 64)


@dataclass(frozen=True, slots=True, kw_only=True)
class Spectate(Request):
    TYPE: ClassVar[str] = "spectate"
    race: str = limits(1, 64)


@dataclass(frozen=True, slots=True, kw_only=True)
class Unspectate(Request):
    TYPE: ClassVar[str] = "unspectate"
    race: str = limits(1, 64)


@dataclass(frozen=True, slots=True, kw_only=True)
class Replay(Request):
    """The full replay of a finished race."""

    TYPE: ClassVar[str] = "replay"
    race: str = limits(1, 64)


@dataclass(frozen=True, slots=True, kw_only=True)
class Invite(Request):
    """Invite a bot to a free seat of a race the requester sits in: ``bot`` is a bot's name, its
    player id, or ``"*"`` for any online bot that plays the race's game."""

    TYPE: ClassVar[str] = "invite"
    race: str = limits(1, 64)
    bot: str = limits(1, 64)


@dataclass(frozen=True, slots=True, kw_only=True)
class Ping(Request):
    TYPE: ClassVar[str] = "ping"


@dataclass(frozen=True, slots=True, kw_only=True)
class TournamentCreate(Request):
    """Create a tournament (see the specification): ``games`` are ``{game, options}`` maps (one,
    or several for ``mixed``; ``mixed`` without games plays all eight), ``bots`` the online bots
    entered (by name or player id), ``people`` the seats for people, who enter with
    ``tournament_join``; it starts once they are all taken (at once without people). ``seed``
    (hex) makes it reproducible and is refused for a rated tournament. ``timed`` false ranks by
    the score alone; a game still going after ``max_moves`` moves is conceded."""

    TYPE: ClassVar[str] = "tournament_create"
    name: str | None = limits(1, 64, None)
    format: str = limits(1, 16, "duplicate")
    games: list[Any] | None = limits(0, 16, None)
    deals: int = limits(1, 1000, 10)
    bots: list[str] | None = limits(0, 64, None)
    people: int = limits(0, 64, 0)
    table_size: int = limits(2, 8, 8)
    time_limit: int = limits(10, 86_400, 600)
    forfeit_after: int = limits(5, 3_600, 60)
    rated: bool = False
    timed: bool = True
    public: bool = True
    seed: str | None = limits(1, 64, None)
    max_moves: int = limits(1, 100_000, 3000)  # protocol.tournament's MAX_MOVES_LIMIT and MAX_MOVES


@dataclass(frozen=True, slots=True, kw_only=True)
class TournamentJoin(Request):
    """Enter an open tournament as one of its people."""

    TYPE: ClassVar[str] = "tournament_join"
    tournament: str = limits(1, 64)


@dataclass(frozen=True, slots=True, kw_only=True)
class TournamentStart(Request):
    """Start an open tournament now, with the people who entered so far (its creator only)."""

    TYPE: ClassVar[str] = "tournament_start"
    tournament: str = limits(1, 64)


@dataclass(frozen=True, slots=True, kw_only=True)
class TournamentWatch(Request):
    """Follow a tournament: its summary now, then a ``tournament_update`` at each change."""

    TYPE: ClassVar[str] = "tournament_watch"
    tournament: str = limits(1, 64)


@dataclass(frozen=True, slots=True, kw_only=True)
class TournamentUnwatch(Request):
    TYPE: ClassVar[str] = "tournament_unwatch"
    tournament: str = limits(1, 64)


@dataclass(frozen=True, slots=True, kw_only=True)
class TournamentExport(Request):
    """A finished tournament's export: everything ``parlour verify`` needs to check it. A long one
    comes in parts: the reply holds the races from slot ``first`` on, as many as fit in one
    message, and its ``next`` says where the next part begins."""

    TYPE: ClassVar[str] = "tournament_export"
    tournament: str = limits(1, 64)
    first: int = limits(0, 1_000_000, 0)


@dataclass(frozen=True, slots=True, kw_only=True)
class TournamentList(Request):
    """The newest tournaments (open, running and finished)."""

    TYPE: ClassVar[str] = "tournaments"
    limit: int = limits(1, 100, 20)


@dataclass(frozen=True, slots=True, kw_only=True)
class Ratings(Request):
    """A game's leaderboard: ``bots`` true for bots only, false for people only, absent for all."""

    TYPE: ClassVar[str] = "ratings"
    game: str = limits(1, 32)
    bots: bool | None = None
    limit: int = limits(1, 1000, 100)


# --- replies -------------------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class Welcome(Reply):
    """The hello's answer. ``token`` only for a new identity: keep it, it is shown once."""

    TYPE: ClassVar[str] = "welcome"
    version: int = PROTOCOL_VERSION
    player: str = ""
    name: str = ""
    bot: bool = False
    server: str = ""
    token: str | None = None
    races: list[Any] = field(default_factory=list)  # ids of the unfinished races the player is seated in
    idle_timeout: float | None = None  # seconds of silence after which the server closes; None: never
    rate: float | None = None  # messages a second the connection may send on average (None from older servers)
    burst: int | None = None  # messages it may send at once


@dataclass(frozen=True, slots=True, kw_only=True)
class Races(Reply):
    """A page of the lobby; ``next`` (absent on the last page) asks for the following one.
    ``bots``: on the first page only, the bots online (on any node); ``tournaments``: on the
    first page only, the public tournaments open or running (their summaries, newest first)."""

    TYPE: ClassVar[str] = "races"
    races: list[Any] = field(default_factory=list)
    next: str | None = None
    bots: list[Any] | None = None
    tournaments: list[Any] | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class RaceInfo(Reply):
    """A race's summary (see the specification for its fields)."""

    TYPE: ClassVar[str] = "race"
    race: JsonMap = field(default_factory=dict)


@dataclass(frozen=True, slots=True, kw_only=True)
class Ack(Reply):
    """A move, undo or concede applied: the player's new view after ``seq`` moves."""

    TYPE: ClassVar[str] = "ack"
    race: str = ""
    seq: int = 0
    view: JsonMap = field(default_factory=dict)
    duplicate: bool = False


@dataclass(frozen=True, slots=True, kw_only=True)
class Ok(Reply):
    TYPE: ClassVar[str] = "ok"


@dataclass(frozen=True, slots=True, kw_only=True)
class SnapshotInfo(Reply):
    """The answer to ``snapshot``: the race, the player's seat, and its view after ``seq`` entries."""

    TYPE: ClassVar[str] = "race_state"
    race: JsonMap = field(default_factory=dict)
    seat: int | None = None
    seq: int = 0
    view: JsonMap | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Spectating(Reply):
    TYPE: ClassVar[str] = "spectating"
    race: JsonMap = field(default_factory=dict)
    boards: list[Any] = field(default_factory=list)


@dataclass(frozen=True, slots=True, kw_only=True)
class ReplayData(Reply):
    TYPE: ClassVar[str] = "replay_data"
    replay: JsonMap = field(default_factory=dict)


@dataclass(frozen=True, slots=True, kw_only=True)
class Pong(Reply):
    TYPE: ClassVar[str] = "pong"
    time: float = 0.0


@dataclass(frozen=True, slots=True, kw_only=True)
class TournamentInfo(Reply):
    """A tournament's summary (see the specification for its fields)."""

    TYPE: ClassVar[str] = "tournament"
    tournament: JsonMap = field(default_factory=dict)


@dataclass(frozen=True, slots=True, kw_only=True)
class Tournaments(Reply):
    TYPE: ClassVar[str] = "tournament_list"
    tournaments: list[Any] = field(default_factory=list)


@dataclass(frozen=True, slots=True, kw_only=True)
class TournamentExportData(Reply):
    """An export, or one part of it: ``export["races"]`` from the slot asked for on; ``next``
    (absent on the last part) is the ``first`` of the next part."""

    TYPE: ClassVar[str] = "tournament_export_data"
    export: JsonMap = field(default_factory=dict)
    next: int | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Leaderboard(Reply):
    """A game's ratings, best first: ``{player, name, bot, mu, sigma, ordinal, races}`` each."""

    TYPE: ClassVar[str] = "leaderboard"
    game: str = ""
    ratings: list[Any] = field(default_factory=list)


@dataclass(frozen=True, slots=True, kw_only=True)
class Error(Message):
    """A refusal. ``id`` is the refused request's, or absent when no request caused it."""

    TYPE: ClassVar[str] = "error"
    code: str = ""
    message: str = ""
    id: int | None = None
    retry_after: float | None = None


# --- events --------------------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class RaceUpdate(Event):
    """A race the connection is in or watching changed (seats, readiness, status)."""

    TYPE: ClassVar[str] = "race_update"
    race: JsonMap = field(default_factory=dict)


@dataclass(frozen=True, slots=True, kw_only=True)
class Countdown(Event):
    TYPE: ClassVar[str] = "countdown"
    race: str = ""
    starts_in: float = 0.0


@dataclass(frozen=True, slots=True, kw_only=True)
class Start(Event):
    """The race began: this seat's first view and the commitment to the secret seed."""

    TYPE: ClassVar[str] = "start"
    race: str = ""
    seat: int = 0
    commitment: str = ""
    deadline: float = 0.0
    seq: int = 0
    view: JsonMap = field(default_factory=dict)


@dataclass(frozen=True, slots=True, kw_only=True)
class Progress(Event):
    """Another seat's progress: never its board while the race runs."""

    TYPE: ClassVar[str] = "progress"
    race: str = ""
    seat: int = 0
    score: int | float = 0
    moves: int = 0
    finished: bool = False
    ended: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class End(Event):
    """The race is over: the ranking, and the seed and salt behind the commitment."""

    TYPE: ClassVar[str] = "end"
    race: str = ""
    results: list[Any] = field(default_factory=list)
    seed: str = ""
    salt: str = ""
    commitment: str = ""


@dataclass(frozen=True, slots=True, kw_only=True)
class Watch(Event):
    """A spectated seat's public view after ``seq`` moves."""

    TYPE: ClassVar[str] = "watch"
    race: str = ""
    seat: int = 0
    seq: int = 0
    view: JsonMap = field(default_factory=dict)


@dataclass(frozen=True, slots=True, kw_only=True)
class Invitation(Event):
    """To a bot: a seat of ``race`` (its summary) is offered to it, by the player named ``by``.
    Take it with ``join`` before ``expires_at``; decline it with ``leave``."""

    TYPE: ClassVar[str] = "invitation"
    race: JsonMap = field(default_factory=dict)
    by: str = ""
    expires_at: float = 0.0
    # In a tournament race: the seed the bot should play with (the same in every run of a
    # reproducible tournament); without it a bot chooses its own.
    seed: int | None = limits(0, 2**64 - 1, None)
    tournament: str | None = limits(1, 64, None)  # the tournament the race belongs to
    # In a tournament race: concede the game if it is still going after this many moves.
    max_moves: int | None = limits(1, 100_000, None)


@dataclass(frozen=True, slots=True, kw_only=True)
class TournamentUpdate(Event):
    """A watched tournament changed (entrants, status, standings, races being played)."""

    TYPE: ClassVar[str] = "tournament_update"
    tournament: JsonMap = field(default_factory=dict)


_ALL: tuple[type[Message], ...] = (
        Hello, Lobby, Create, Join, Leave, Ready, MakeMove, Undo, Concede, Snapshot, Spectate, Unspectate, Replay,
        Invite, Ping, TournamentCreate, TournamentJoin, TournamentStart, TournamentWatch, TournamentUnwatch,
        TournamentExport, TournamentList, Ratings,
        Welcome, Races, RaceInfo, Ack, Ok, SnapshotInfo, Spectating, ReplayData, Pong, Error, TournamentInfo,
        Tournaments, TournamentExportData, Leaderboard,
        RaceUpdate, Countdown, Start, Progress, End, Watch, Invitation, TournamentUpdate,
)  # fmt: skip
MESSAGES: dict[str, type[Message]] = {cls.TYPE: cls for cls in _ALL}
assert len(MESSAGES) == len(_ALL), "two messages share a type name"
REQUESTS = {name: cls for name, cls in MESSAGES.items() if issubclass(cls, Request)}

__all__ = [cls.__name__ for cls in MESSAGES.values()]

# --- checking ------------------------------------------------------------------------

# Per message class: (field name, accepted Python types, bounds, required, the type of a list's
# items or None for any), worked out once.
_Spec = tuple[str, tuple[type, ...], tuple[int, int] | None, bool, type | None]
_SPECS: dict[type, list[_Spec]] = {}
_ITEM_TYPES = (str, int, bool)  # list items checked for their type; any other item (Any) is not
_NAMES: dict[type, tuple[str, ...]] = {}


def _field_names(cls: type) -> tuple[str, ...]:
    if cls not in _NAMES:
        _NAMES[cls] = tuple(f.name for f in dataclasses.fields(cls))
    return _NAMES[cls]


def _specs(cls: type) -> list[_Spec]:
    if cls not in _SPECS:
        hints = typing.get_type_hints(cls)
        specs = []
        for f in dataclasses.fields(cls):
            hint = hints[f.name]
            members = typing.get_args(hint) if isinstance(hint, types.UnionType) else (hint,)
            kinds = tuple(typing.get_origin(k) or k for k in members if k is not type(None))
            items = next((typing.get_args(k)[0] for k in members if typing.get_origin(k) is list), None)
            required = (
                f.default is dataclasses.MISSING
                and f.default_factory is dataclasses.MISSING
                and type(None) not in members
            )
            specs.append((f.name, kinds, f.metadata.get("limits"), required, items if items in _ITEM_TYPES else None))
        _SPECS[cls] = specs
    return _SPECS[cls]


def _check(
    mtype: str, name: str, value: Any, kinds: tuple[type, ...], bounds: tuple[int, int] | None, items: type | None
) -> Any:
    """``value`` if it is one of ``kinds`` within ``bounds`` (a list: each item an ``items``, if
    given), else a ``bad_message`` error naming the field."""
    kind = type(value)
    if kind not in kinds:
        if kind is int and float in kinds:
            value = float(value)
        else:
            expected = " or ".join(k.__name__ for k in kinds)
            raise ProtocolError(ErrorCode.BAD_MESSAGE, f"{mtype}: {name!r} must be {expected}, not {kind.__name__}")
    if bounds is not None:
        lo, hi = bounds
        size = value if kind is int else len(value) if kind in (str, list, dict) else None
        if size is not None and not lo <= size <= hi:
            what = "" if kind is int else "the length of "
            raise ProtocolError(ErrorCode.BAD_MESSAGE, f"{mtype}: {what}{name!r} must be from {lo} to {hi}")
    if items is not None and kind is list:
        for item in value:
            if type(item) is not items:
                message = f"{mtype}: each item of {name!r} must be {items.__name__}, not {type(item).__name__}"
                raise ProtocolError(ErrorCode.BAD_MESSAGE, message)
    return value
