"""The interface every game implements, and the values it trades in.

A game is a :class:`Game` subclass registered under its name (see
:mod:`parlour.games.registry`). States are immutable: :meth:`Game.apply` returns a new
state or raises :class:`IllegalMove`; the old state stays valid. A state is a frozen
dataclass with at least the fields ``options`` (the resolved :data:`Options`) and
``ended`` (an :class:`Ending` once the game is over, else ``None``).

Conceding is the move ``concede``: legal in every unfinished game, never listed by
:meth:`Game.legal_moves` (so bots and random players do not stumble into it).
"""

from __future__ import annotations

import copyreg
import dataclasses
import enum
import hashlib
import inspect
import random
from abc import ABC, abstractmethod
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, ClassVar, Final, Generic, Literal, NamedTuple, Protocol, TypeVar

from parlour.games.cards import Card
from parlour.games.errors import BadMove, BadOptions, IllegalMove

Score = int | Fraction
OptionValue = str | bool
Options = Mapping[str, OptionValue]
Viewer = Literal["player", "public"]


class Ending(enum.StrEnum):
    """Why a game is over."""

    WON = "won"
    STUCK = "stuck"  # no move can change anything any more
    LOST = "lost"  # a rule ended the game as lost (e.g. Cheer's third parking space)
    CONCEDED = "conceded"
    OUT_OF_TIME = "out_of_time"


class Move(NamedTuple):
    """One move of one game.

    ``kind`` names what happens (``"turn"``, ``"move"``, ``"play"``, ...); ``src`` and
    ``dst`` name places of that game's board (``"p3"``, ``"w"``, ``"f"``); ``count`` is
    the number of cards moved where a move takes several, else 0.

    Wire form: the list ``[kind, src, dst, count]`` with trailing defaults dropped,
    e.g. ``["turn"]``, ``["play", "p3"]``, ``["move", "c2", "c5", 3]``.
    Text form: the same tokens joined by spaces, e.g. ``move c2 c5 3``.
    A move with a count has both places; names are 1 to 16 characters.
    """

    kind: str
    src: str = ""
    dst: str = ""
    count: int = 0  # type: ignore[assignment]  # the field hides tuple.count, which moves never use

    def wire(self) -> list[str | int]:
        """The compact wire form (a short list, ready for msgpack)."""
        if self.count:
            return [self.kind, self.src, self.dst, self.count]
        if self.dst:
            return [self.kind, self.src, self.dst]
        if self.src:
            return [self.kind, self.src]
        return [self.kind]

    def text(self) -> str:
        """The human text form; :func:`parse_move` reads it back."""
        return " ".join(str(part) for part in self.wire())

    @staticmethod
    def from_wire(data: object) -> Move:
        """Read a wire form; raises :class:`BadMove` if ``data`` has the wrong shape."""
        if type(data) is list or type(data) is tuple:
            try:
                return _READ[tuple(data)]
            except (KeyError, TypeError):  # not read before, or unhashable parts
                pass
        move = Move._read(data)
        # Only strings: a count would match True or 1.0 too, which _read refuses.
        if not move.count and len(_READ) < _READ_LIMIT:
            _READ[tuple(data)] = move  # type: ignore[arg-type]
        return move

    @staticmethod
    def _read(data: object) -> Move:
        if not isinstance(data, list | tuple) or not 1 <= len(data) <= 4:
            raise BadMove(f"a move is a list of 1 to 4 items [kind, src, dst, count], not {data!r}")
        kind, *rest = data
        names = rest[:2]
        if not all(isinstance(n, str) and 0 < len(n) <= MAX_NAME for n in [kind, *names]):
            raise BadMove(f"a move's kind, src and dst are strings of 1 to {MAX_NAME} characters: {data!r:.80}")
        count = rest[2] if len(rest) == 3 else 0
        if isinstance(count, bool) or not isinstance(count, int) or not 0 <= count <= 104:
            raise BadMove(f"a move's count is a whole number from 0 to 104: {data!r}")
        if len(rest) == 3 and count == 0:
            raise BadMove(f"a count of 0 is written by leaving it out: {data!r}")
        src = names[0] if names else ""
        dst = names[1] if len(names) > 1 else ""
        return Move(kind, src, dst, count)


CONCEDE: Final = Move("concede")
MAX_NAME: Final = 16
# Wire forms already read, and their moves: a game has few distinct moves, read again and again.
_READ: dict[tuple[Any, ...], Move] = {}
_READ_LIMIT: Final = 10_000


def parse_move(text: str) -> Move:
    """Read the text form of a move: ``kind [src [dst [count]]]``."""
    tokens = text.split()
    if not tokens:
        raise BadMove("an empty move")
    if len(tokens) == 4:
        if not tokens[3].isdigit():
            raise BadMove(f"the count in {text!r} is not a number")
        return Move.from_wire([*tokens[:3], int(tokens[3])])
    return Move.from_wire(tokens)


@dataclass(frozen=True)
class Option:
    """One option a game takes: its name, allowed values, default and meaning."""

    name: str
    values: tuple[OptionValue, ...]
    default: OptionValue
    help: str

    def read(self, raw: object) -> OptionValue:
        """The value ``raw`` stands for (``"true"`` counts as ``True`` for a bool option)."""
        if isinstance(raw, str) and all(isinstance(v, bool) for v in self.values):
            lowered = raw.strip().lower()
            raw = {"true": True, "yes": True, "1": True, "on": True}.get(
                lowered, {"false": False, "no": False, "0": False, "off": False}.get(lowered, raw)
            )
        for value in self.values:
            if type(raw) is type(value) and raw == value:
                return value
        allowed = ", ".join(_value_text(v) for v in self.values)
        raise BadOptions(f"option {self.name!r} cannot be {raw!r}; it takes one of: {allowed}")


def _value_text(value: OptionValue) -> str:
    return str(value).lower() if isinstance(value, bool) else value


C = TypeVar("C", bound=type)


def _by_fields(state: object) -> tuple[type, tuple[object, ...]]:
    """How pickle and copy rebuild a compiled state: its class called with its fields, in order."""
    return type(state), tuple(getattr(state, f.name) for f in dataclasses.fields(state))  # type: ignore[arg-type]


def fast_init(cls: C) -> C:
    """Give a frozen, slotted dataclass an ``__init__`` that sets each slot through its descriptor.

    A frozen dataclass's own ``__init__`` sets every field by name through ``object.__setattr__``;
    setting the slots directly makes the same object in about 60% of the time, and game states are
    made on every move. Same parameters, same defaults (constants only), same object. Call it on the
    class after its ``class`` statement (``@dataclass(frozen=True, slots=True)``), not as a decorator:
    mypyc compiles a class with an unknown decorator as a plain Python class. A compiled class is
    registered with ``copyreg`` instead, so that pickle and copy rebuild its states through ``__init__``.

    For mypyc, a state class also writes its ``__init__`` out (``self.field = field`` for each field,
    in order): compiled, that makes a state about eight times as fast as the dataclass's own, and a
    compiled class is returned unchanged here. Plain Python would refuse those assignments (the class
    is frozen), so here that ``__init__`` is replaced; it must take exactly the fields, in order, with
    their defaults, or this raises ``TypeError`` (so a field added to the class but not to its
    ``__init__`` fails at import, not only in the compiled build).
    """
    if hasattr(cls, "__mypyc_attrs__"):
        copyreg.pickle(cls, _by_fields)
        return cls
    fields = dataclasses.fields(cls)
    wanted = [(f.name, f.default) for f in fields]
    given = list(inspect.signature(cls.__dict__["__init__"]).parameters.values())[1:]  # after self
    found = [(p.name, dataclasses.MISSING if p.default is p.empty else p.default) for p in given]
    if found != wanted:
        raise TypeError(f"{cls.__name__}.__init__ must take the fields, in order, with their defaults: {wanted}")
    if not getattr(cls, "__slots__", None) or hasattr(cls, "__post_init__"):
        raise TypeError(f"fast_init takes a slotted dataclass without __post_init__, not {cls.__name__}")
    namespace: dict[str, Any] = {}
    params = []
    for f in fields:
        if not f.init or f.default_factory is not dataclasses.MISSING:
            raise TypeError(f"fast_init cannot set {cls.__name__}.{f.name}: no init or a default factory")
        namespace[f"_set_{f.name}"] = getattr(cls, f.name).__set__
        if f.default is dataclasses.MISSING:
            params.append(f.name)
        else:
            namespace[f"_default_{f.name}"] = f.default
            params.append(f"{f.name}=_default_{f.name}")
    body = "".join(f"    _set_{f.name}(self, {f.name})\n" for f in fields)
    exec(f"def __init__(self, {', '.join(params)}):\n{body}", namespace)
    init = namespace["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    cls.__init__ = init  # type: ignore[misc]
    return cls


class _State(Protocol):
    @property
    def options(self) -> Options: ...
    @property
    def ended(self) -> Ending | None: ...


S = TypeVar("S", bound=_State)


class Game(ABC, Generic[S]):
    """One game's rules. Subclasses set the class attributes and implement the hooks.

    Callers use the public methods; subclasses implement the underscored hooks and
    the layout methods. Every public method is pure: no I/O, no hidden state.
    """

    name: ClassVar[str]
    title: ClassVar[str]
    summary: ClassVar[str]
    options_spec: ClassVar[tuple[Option, ...]] = ()
    higher_is_better: ClassVar[bool] = True
    score_range: ClassVar[tuple[Score, Score]]

    # --- options -------------------------------------------------------------------

    def resolve_options(self, raw: Mapping[str, object] | None = None) -> dict[str, OptionValue]:
        """Every option with its value: ``raw`` checked and completed by the defaults."""
        if not raw:  # the common case, on every deal: the defaults
            return {o.name: o.default for o in self.options_spec}
        raw = dict(raw)
        known = {o.name: o for o in self.options_spec}
        unknown = sorted(set(raw) - set(known))
        if unknown:
            listing = self.describe_options() or "none"
            raise BadOptions(f"{self.name} has no option {unknown[0]!r}; its options: {listing}")
        return {name: (o.read(raw[name]) if name in raw else o.default) for name, o in known.items()}

    def describe_options(self) -> str:
        """The options as one line, e.g. ``sequence=alternate|any|suit``."""
        return ", ".join(
            f"{o.name}={'|'.join(_value_text(v) for v in o.values)} (default {_value_text(o.default)})"
            for o in self.options_spec
        )

    # --- the game ------------------------------------------------------------------

    def deal(self, seed: int, options: Mapping[str, object] | None = None) -> S:
        """The starting state for ``seed`` (0 <= seed < 2**256) and ``options``."""
        return self._deal(seed, self.resolve_options(options))

    def legal_moves(self, state: S) -> list[Move]:
        """Every legal move except ``concede``; empty once the game is over."""
        if state.ended is not None:
            return []
        return self._legal_moves(state)

    def apply(self, state: S, move: Move) -> S:
        """The state after ``move``, with any automatic moves the rules force.

        Raises :class:`IllegalMove` (saying why) if the rules forbid ``move`` here,
        :class:`BadMove` if it is no move of this game at all.
        """
        if not isinstance(move, Move):
            raise BadMove(f"not a Move: {move!r}")
        if state.ended is not None:
            raise IllegalMove(f"the game is over ({state.ended.value})")
        if move == CONCEDE:
            return self.end(state, Ending.CONCEDED)
        return self._apply(state, move)

    def end(self, state: S, why: Literal[Ending.CONCEDED, Ending.OUT_OF_TIME]) -> S:
        """The state ended by conceding or running out of time, scored as it stands."""
        if state.ended is not None:
            return state
        return dataclasses.replace(state, ended=why)  # type: ignore[type-var]

    def outcome(self, state: S) -> Ending | None:
        """Why the game is over, or ``None`` while it runs."""
        return state.ended

    def score(self, state: S) -> Score:
        """The score by the game's own rule, as the state stands."""
        return self._score(state)

    def better(self, a: Score, b: Score) -> bool:
        """Whether score ``a`` beats score ``b`` in this game."""
        return a > b if self.higher_is_better else a < b

    def view(self, state: S, viewer: Viewer = "player") -> dict[str, Any]:
        """Plain data (dicts, lists, ints, strings) that ``viewer`` may see.

        Face-down cards and the order of face-down stocks appear only as counts. The
        player's view also lists the legal moves in wire form under ``"moves"``.
        This is the only function that removes hidden information.
        """
        out: dict[str, Any] = {
            "game": self.name,
            "options": dict(state.options),
            "board": self._view(state),
            "ended": None if state.ended is None else state.ended.value,
            "score": score_wire(self._score(state)),
        }
        if viewer == "player":
            out["moves"] = [m.wire() for m in self.legal_moves(state)]
        elif viewer != "public":
            raise ValueError(f"viewer is 'player' or 'public', not {viewer!r}")
        return out

    def draw(self, view: Mapping[str, Any], rng: random.Random) -> S:
        """A full state consistent with a player's ``view`` (what :meth:`view` returned for "player").

        Every card the view does not show is placed uniformly at random among the places the view
        hides (face-down cards, the order of a face-down stock); anything else the view hides (the
        seed behind a later redeal) is drawn too. ``self.view(drawn, "player") == view`` always
        holds. This is how bots reason about what they cannot see: they search drawn states, and
        never receive a real one. Raises :class:`BadLayout` if ``view`` is not a view of this game.
        """
        return self._draw(view, rng)

    def state_hash(self, state: S) -> str:
        """A stable hex SHA-256 of the state: equal states hash equal in any process."""
        options = ",".join(f"{k}={_value_text(v)}" for k, v in sorted(state.options.items()))
        ended = "" if state.ended is None else state.ended.value
        text = f"{self.name}\n{options}\n{ended}\n{self.to_text(state)}"
        return hashlib.sha256(text.encode()).hexdigest()

    def parse_move(self, text: str) -> Move:
        """Read a move typed by a person. Games may accept shorthands too."""
        return parse_move(text)

    # --- hooks for subclasses ---------------------------------------------------------

    @abstractmethod
    def _deal(self, seed: int, options: dict[str, OptionValue]) -> S: ...

    @abstractmethod
    def _legal_moves(self, state: S) -> list[Move]: ...

    @abstractmethod
    def _apply(self, state: S, move: Move) -> S:
        """Apply a non-concede move to an unfinished state; set ``ended`` if it ends."""

    @abstractmethod
    def _score(self, state: S) -> Score: ...

    @abstractmethod
    def _view(self, state: S) -> dict[str, Any]:
        """The board as plain data with hidden cards as counts (same for every viewer)."""

    def _draw(self, view: Mapping[str, Any], rng: random.Random) -> S:
        """A state consistent with ``view``, hidden cards drawn with ``rng``; see :meth:`draw`."""
        raise NotImplementedError(f"{self.name} cannot draw states from a view yet")

    @abstractmethod
    def render(self, view: Mapping[str, Any]) -> str:
        """A readable text board drawn from a view (what a line-mode client prints)."""

    @abstractmethod
    def to_text(self, state: S) -> str:
        """The full text layout of the state, hidden cards included; see ``from_text``."""

    @abstractmethod
    def from_text(self, text: str, options: Mapping[str, object] | None = None) -> S:
        """A state set up from a text layout; raises :class:`BadLayout` if unreadable."""

    @abstractmethod
    def cards(self, state: S) -> list[Card]:
        """Every card of the state, wherever it lies (for conservation checks)."""

    @abstractmethod
    def hidden_cards(self, state: S) -> list[Card]:
        """The cards no player may see now: face down, or in a face-down stock."""

    @abstractmethod
    def candidate_moves(self, state: S) -> Iterable[Move]:
        """A superset of the legal moves: every well-formed move of this board's places.

        Used by the conformance test to check that what is not listed is refused.
        """


def score_wire(score: Score) -> int | float:
    """A score as msgpack-ready data: an int, or a float for fractions (exact here)."""
    if isinstance(score, Fraction):
        return score.numerator if score.denominator == 1 else float(score)
    return score


def ensure_moves(moves: Sequence[Move | Sequence[object]]) -> list[Move]:
    """Moves given as :class:`Move` or as wire forms, as :class:`Move` values."""
    return [m if isinstance(m, Move) else Move.from_wire(m) for m in moves]
