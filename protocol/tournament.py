"""Tournaments, the part every party computes the same way: the schedule of races, each
deal's seed, matchpoints and standings. Pure: no I/O, no clock, no randomness.

The server's director follows :func:`schedule` and publishes :func:`standings`;
``parlour verify`` rebuilds both from an export and compares.

Formats:

- ``duplicate``: every entrant plays the same ``deals`` deals of one game. A deal is one
  race with every entrant seated, or, past ``table_size`` seats, several races (*tables*)
  on that deal at once.
- ``mixed``: the same over several games (``deals`` deals of each).
- ``head-to-head``: two-seat races; every pair of entrants plays the same ``deals`` deals
  (a *match*), pairs drawn round robin so that an entrant plays one race at a time.

Scoring. On each deal every entrant earns a matchpoint for each other entrant it beats on
that deal (across tables) and half a point for each it ties, with a forfeit (a seat that never
showed up) below every seat that played. A ``timed`` tournament ranks as races rank (score in
the game's direction, a game played out before a conceded one, earlier finish, fewer moves).
A tournament that is not ``timed`` measures play, not speed: it ranks by the score alone (in
the game's direction, a game played out before a conceded one), and equal ones tie, however
many moves each took; its standings then follow from the moves alone, so a reproducible
tournament of bots gives the same standings however fast the machine or the network.

Move cap. A game of a tournament still going after ``max_moves`` moves is conceded by its
entrant (bots are told the cap with each invitation; the runner keeps it): some games let a
player move cards back and forth for ever.
Standings (best first; equal rows share a place):

- ``duplicate``: matchpoint percentage, then total score in the game's direction;
- ``mixed``: the sum of each game's matchpoint percentage (so no game outweighs
  another), then total matchpoints;
- ``head-to-head``: match wins (a drawn match counts a half), then matchpoints.

Deals. A tournament's secret ``seed`` (0 <= seed < 2**256) gives every deal's seed
(:func:`deal_seed`); all tables and pairs on one deal share it. The tournament publishes
``commitment(seed, salt)`` (:func:`parlour.protocol.replay.commitment`) when it starts and
reveals ``seed`` and ``salt`` when it ends.
"""

from __future__ import annotations

import enum
import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from parlour.games import GameError, get_game

MAX_TABLE = 8  # seats a race holds at most
MAX_MOVES = 3000  # the move cap by default: the arena's (parlour.bots.arena.MAX_MOVES)
MAX_MOVES_LIMIT = 100_000  # the highest move cap a tournament may set


class Format(enum.StrEnum):
    DUPLICATE = "duplicate"
    MIXED = "mixed"
    HEAD_TO_HEAD = "head-to-head"


class TournamentError(ValueError):
    """A tournament that cannot be held as asked; the message says why."""


@dataclass(frozen=True)
class Entrant:
    """One who plays: a player id, the name shown, and whether it is a bot."""

    player: str
    name: str
    bot: bool = False


@dataclass(frozen=True)
class Event:
    """A game and its options (every option resolved)."""

    game: str
    options: Mapping[str, Any] = field(default_factory=dict)

    def to_map(self) -> dict[str, Any]:
        return {"game": self.game, "options": dict(self.options)}


@dataclass(frozen=True)
class Spec:
    """What a tournament is: fixed at its creation."""

    format: Format
    events: tuple[Event, ...]
    deals: int  # per event
    entrants: tuple[Entrant, ...]
    table_size: int = MAX_TABLE  # seats per race at most (head-to-head: always 2)
    timed: bool = True  # the race ranking (finish time, then moves, break score ties); else the score alone
    max_moves: int = MAX_MOVES  # a game still going after this many moves is conceded

    def to_map(self) -> dict[str, Any]:
        """Plain data; :meth:`from_map` reads it back."""
        return {
            "format": self.format.value,
            "events": [e.to_map() for e in self.events],
            "deals": self.deals,
            "entrants": [{"player": e.player, "name": e.name, "bot": e.bot} for e in self.entrants],
            "table_size": self.table_size,
            "timed": self.timed,
            "max_moves": self.max_moves,
        }

    @classmethod
    def from_map(cls, data: Mapping[str, Any]) -> Spec:
        return cls(
            format=Format(data["format"]),
            events=tuple(Event(e["game"], dict(e["options"])) for e in data["events"]),
            deals=int(data["deals"]),
            entrants=tuple(Entrant(e["player"], e["name"], bool(e["bot"])) for e in data["entrants"]),
            table_size=int(data["table_size"]),
            timed=bool(data["timed"]),
            max_moves=int(data.get("max_moves", MAX_MOVES)),  # absent from exports of older servers
        )


def make_spec(
    format: str,
    games: Sequence[tuple[str, Mapping[str, object] | None]],
    deals: int,
    entrants: Sequence[Entrant],
    table_size: int = MAX_TABLE,
    timed: bool = True,
    max_moves: int = MAX_MOVES,
) -> Spec:
    """A checked :class:`Spec`, every game's options resolved; :class:`TournamentError` says
    what is wrong (an unknown format or game, bad options, too few entrants, an entrant
    twice, a move cap out of range, ...)."""
    try:
        kind = Format(format)
    except ValueError:
        known = ", ".join(f.value for f in Format)
        raise TournamentError(f"no tournament format {format!r}; formats: {known}") from None
    if not games:
        raise TournamentError("a tournament needs a game")
    if kind is not Format.MIXED and len(games) != 1:
        raise TournamentError(f"a {kind.value} tournament plays one game; a mixed one plays several")
    events = []
    for name, options in games:
        try:
            game = get_game(name)
            events.append(Event(game.name, game.resolve_options(options)))
        except GameError as error:
            raise TournamentError(str(error)) from None
    if len(set(map(_event_key, events))) != len(events):
        raise TournamentError("a game with the same options is listed twice")
    if not 1 <= deals <= 1000:
        raise TournamentError("deals must be from 1 to 1000")
    if len(entrants) < 2:
        raise TournamentError("a tournament needs at least two entrants")
    if len({e.player for e in entrants}) != len(entrants):
        raise TournamentError("an entrant is listed twice")
    size = 2 if kind is Format.HEAD_TO_HEAD else table_size
    if not 2 <= size <= MAX_TABLE:
        raise TournamentError(f"table size must be from 2 to {MAX_TABLE}")
    if not 1 <= max_moves <= MAX_MOVES_LIMIT:
        raise TournamentError(f"the move cap must be from 1 to {MAX_MOVES_LIMIT}")
    return Spec(kind, tuple(events), deals, tuple(entrants), size, timed, max_moves)


def _event_key(event: Event) -> tuple[str, tuple[tuple[str, Any], ...]]:
    return event.game, tuple(sorted(event.options.items()))


@dataclass(frozen=True)
class Slot:
    """One race of the schedule: which deal, and who sits at it (entrant indices).

    Slots of one ``round`` are played at the same time; a round starts when the one
    before it has ended."""

    index: int
    round: int
    event: int  # index into Spec.events
    deal: int  # 0 to deals - 1, within the event
    table: int  # which of the races on this deal in this round
    entrants: tuple[int, ...]


def schedule(spec: Spec) -> list[Slot]:
    """Every race of the tournament, in the order the director creates them (by round)."""
    slots: list[Slot] = []
    n = len(spec.entrants)
    if spec.format is Format.HEAD_TO_HEAD:
        for pairing, pairs in enumerate(_round_robin(n)):
            for deal in range(spec.deals):
                for table, pair in enumerate(pairs):
                    slots.append(Slot(len(slots), pairing * spec.deals + deal, 0, deal, table, pair))
        return slots
    tables = -(-n // spec.table_size)
    seats = [tuple(range(t * n // tables, (t + 1) * n // tables)) for t in range(tables)]
    for event in range(len(spec.events)):
        for deal in range(spec.deals):
            for table, sitting in enumerate(seats):
                slots.append(Slot(len(slots), event * spec.deals + deal, event, deal, table, sitting))
    return slots


def _round_robin(n: int) -> list[list[tuple[int, int]]]:
    """The circle method: rounds of disjoint pairs in which every pair of ``n`` meets once
    (with ``n`` odd, one sits out each round)."""
    ring: list[int | None] = [*range(n), *([None] if n % 2 else [])]
    rounds = []
    for _ in range(len(ring) - 1):
        half = len(ring) // 2
        pairs = [(ring[i], ring[-1 - i]) for i in range(half)]
        rounds.append([(min(a, b), max(a, b)) for a, b in pairs if a is not None and b is not None])
        ring = [ring[0], ring[-1], *ring[1:-1]]
    return rounds


def deal_seed(seed: int, event: int, game: str, deal: int) -> int:
    """The seed of deal ``deal`` of event ``event`` (game ``game``): SHA-256 of the
    tournament seed (32 bytes, big-endian) followed by ``"<event>:<game>:<deal>"``."""
    digest = hashlib.sha256(seed.to_bytes(32, "big") + f"{event}:{game}:{deal}".encode()).digest()
    return int.from_bytes(digest, "big")


@dataclass(frozen=True)
class Result:
    """How one entrant did at one slot, as the race published it (``time`` in seconds from
    the race's start). ``forfeit``: the seat never showed up; it ranks below every seat
    that played."""

    entrant: int
    score: int | float
    ended: str
    time: float
    moves: int
    forfeit: bool = False

    def to_map(self) -> dict[str, Any]:
        return {
            "entrant": self.entrant,
            "score": self.score,
            "ended": self.ended,
            "time": self.time,
            "moves": self.moves,
            "forfeit": self.forfeit,
        }

    @classmethod
    def from_map(cls, data: Mapping[str, Any]) -> Result:
        return cls(
            int(data["entrant"]),
            data["score"],
            str(data["ended"]),
            float(data["time"]),
            int(data["moves"]),
            bool(data["forfeit"]),
        )


@dataclass(frozen=True)
class Standing:
    """One entrant's row of the standings."""

    place: int  # equal rows share a place
    entrant: int
    player: str
    name: str
    bot: bool
    deals: int  # deals played so far (forfeits included)
    matchpoints: Fraction
    percentage: Fraction  # mixed: the sum of every game's percentage
    total_score: int | float  # duplicate only (0 elsewhere): the sum of the entrant's scores
    match_wins: Fraction  # head-to-head only (0 elsewhere)
    by_game: tuple[Fraction, ...]  # mixed: each event's percentage; else the one

    def to_map(self) -> dict[str, Any]:
        """Plain data for the wire: fractions as floats rounded to 4 places."""
        return {
            "place": self.place,
            "entrant": self.entrant,
            "player": self.player,
            "name": self.name,
            "bot": self.bot,
            "deals": self.deals,
            "matchpoints": _wire(self.matchpoints),
            "percentage": _wire(self.percentage),
            "total_score": self.total_score,
            "match_wins": _wire(self.match_wins),
            "by_game": [_wire(p) for p in self.by_game],
        }


def _wire(value: Fraction) -> float:
    return round(float(value), 4)


def matchpoints(results: Sequence[Result], higher_is_better: bool, timed: bool = True) -> dict[int, Fraction]:
    """Each entrant's matchpoints on one deal: 1 per other entrant beaten, 1/2 per tie. Entrants
    rank by forfeit (last), score, then a game played out before a conceded one; ``timed``, the
    earlier finish and then fewer moves break what is left of a tie, as in a race; untimed, it
    stays a tie."""
    sign = -1 if higher_is_better else 1

    def key(r: Result) -> tuple[bool, float, bool, float, int]:
        if not timed:
            return (r.forfeit, sign * r.score, r.ended == "conceded", 0.0, 0)
        return (r.forfeit, sign * r.score, r.ended == "conceded", r.time, r.moves)

    points: dict[int, Fraction] = {}
    for a in results:
        won = sum(2 if key(a) < key(b) else 1 if key(a) == key(b) else 0 for b in results if b is not a)
        points[a.entrant] = Fraction(won, 2)
    return points


def standings(spec: Spec, results: Mapping[int, Sequence[Result]]) -> list[Standing]:
    """The standings from the results of the slots played so far (slot index -> results)."""
    slots = schedule(spec)
    n = len(spec.entrants)
    events = len(spec.events)
    points = [[Fraction(0)] * events for _ in range(n)]
    possible = [[0] * events for _ in range(n)]
    played = [0] * n
    total: list[int | float] = [0] * n
    # Group the slots' results by deal: tables on one deal are compared with each other.
    deals: dict[tuple[int, ...], list[Result]] = {}
    for slot in slots:
        if slot.index not in results:
            continue
        # Head-to-head: each pair's race on a deal is a deal of its own match.
        pair = slot.entrants if spec.format is Format.HEAD_TO_HEAD else ()
        group = (slot.event, slot.deal, *pair)
        deals.setdefault(group, []).extend(results[slot.index])
    pair_points: dict[tuple[int, int], dict[int, Fraction]] = {}
    pair_deals: dict[tuple[int, int], int] = {}
    for (event, *_), rows in deals.items():
        earned = matchpoints(rows, get_game(spec.events[event].game).higher_is_better, spec.timed)
        for entrant, mp in earned.items():
            points[entrant][event] += mp
            possible[entrant][event] += len(rows) - 1
            played[entrant] += 1
        for row in rows:
            total[row.entrant] += row.score
        if spec.format is Format.HEAD_TO_HEAD:
            a, b = sorted(earned)
            tally = pair_points.setdefault((a, b), {a: Fraction(0), b: Fraction(0)})
            tally[a] += earned[a]
            tally[b] += earned[b]
            pair_deals[a, b] = pair_deals.get((a, b), 0) + 1
    wins = [Fraction(0)] * n
    for pair, tally in pair_points.items():
        if pair_deals[pair] < spec.deals:
            continue  # a match counts once all its deals are played
        a, b = pair
        wins[a] += 1 if tally[a] > tally[b] else Fraction(1, 2) if tally[a] == tally[b] else 0
        wins[b] += 1 if tally[b] > tally[a] else Fraction(1, 2) if tally[a] == tally[b] else 0
    by_game = [
        tuple(Fraction(100) * points[i][e] / possible[i][e] if possible[i][e] else Fraction(0) for e in range(events))
        for i in range(n)
    ]
    mp_total = [sum(points[i], Fraction(0)) for i in range(n)]
    if spec.format is Format.MIXED:
        percentage = [sum(by_game[i], Fraction(0)) for i in range(n)]
    else:
        percentage = [
            Fraction(100) * mp_total[i] / sum(possible[i]) if sum(possible[i]) else Fraction(0) for i in range(n)
        ]
    if spec.format is Format.DUPLICATE:
        sign = 1 if get_game(spec.events[0].game).higher_is_better else -1
        order_key = [(percentage[i], sign * total[i]) for i in range(n)]
    elif spec.format is Format.MIXED:
        order_key = [(percentage[i], mp_total[i]) for i in range(n)]
    else:
        order_key = [(wins[i], mp_total[i]) for i in range(n)]
    order = sorted(range(n), key=lambda i: order_key[i], reverse=True)
    rows: list[Standing] = []
    for position, i in enumerate(order):
        place = rows[-1].place if rows and order_key[i] == order_key[order[position - 1]] else position + 1
        entrant = spec.entrants[i]
        rows.append(
            Standing(
                place=place,
                entrant=i,
                player=entrant.player,
                name=entrant.name,
                bot=entrant.bot,
                deals=played[i],
                matchpoints=mp_total[i],
                percentage=percentage[i],
                total_score=total[i] if spec.format is Format.DUPLICATE else 0,
                match_wins=wins[i],
                by_game=by_game[i],
            )
        )
    return rows


__all__ = [
    "MAX_MOVES",
    "MAX_MOVES_LIMIT",
    "MAX_TABLE",
    "Entrant",
    "Event",
    "Format",
    "Result",
    "Slot",
    "Spec",
    "Standing",
    "TournamentError",
    "deal_seed",
    "make_spec",
    "matchpoints",
    "schedule",
    "standings",
]
