"""Tournaments in Redis: their records, their results, and the log of rated races.

Keys (``P`` is the prefix; a tournament's keys carry its id as a hash tag):

- ``P:tournament:{<id>}``: the record, a msgpack map (:meth:`Tournament.to_record`), with the
  secret seed, which only server nodes read until the tournament ends.
- ``P:tournament:{<id>}:version``: how many times the record was saved; a save goes over the
  version read (compare and set), as a race's does.
- ``P:tournament:{<id>}:results``: hash slot -> msgpack list of the slot's results
  (:class:`parlour.protocol.tournament.Result` maps). Written once per slot (``HSETNX``):
  whichever node records a slot first decides it, and nothing ever writes it again.
- ``P:tournaments:active`` (set): tournaments open or running. ``P:tournaments:listed``
  (sorted set by creation time): the lobby's tournaments, finished ones included.
- ``P:rated:<game>`` (sorted set, member ``<tournament>/<slot>``, score the race's end):
  every finished rated race of the game, in the order ratings replay them. Added with
  ``ZADD NX`` after the slot's result, and again for every slot when the tournament
  finishes, so a crash in between loses nothing and adds nothing twice.
- ``P:ratings:<game>``: the ratings as of the first ``count`` rated races (msgpack:
  ``count``, ``last`` race, ``ratings`` player -> {mu, sigma, races}, ``who`` player ->
  [name, bot]). Derived data: brought up to date as races are added, and replayed from the
  start whenever it does not begin the log as it stands.

A tournament's races are ordinary races (see :mod:`parlour.server.store`) whose ids are
``<tournament id>-<slot>``: a race id is created at most once (its version key outlives it),
so no slot is ever played twice.
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

import msgpack

from parlour.protocol.replay import commitment
from parlour.protocol.tournament import MAX_MOVES, Entrant, Event, Format, Result, Spec, schedule, standings
from parlour.server.ratings import Rating
from parlour.server.store import Store, VersionConflict

SEED_BITS = 256

# Save a record over a version: KEYS = record, version; ARGV = expected version, record.
_SAVE = """
local stored = tonumber(redis.call('GET', KEYS[2]) or '0')
if stored ~= tonumber(ARGV[1]) then
  return -1 - stored
end
redis.call('SET', KEYS[1], ARGV[2])
redis.call('SET', KEYS[2], stored + 1)
return stored + 1
"""
# Record a slot's results once: KEYS = results; ARGV = slot, results. Returns what is stored.
_RESULT = """
redis.call('HSETNX', KEYS[1], ARGV[1], ARGV[2])
return redis.call('HGET', KEYS[1], ARGV[1])
"""


class Status:
    OPEN = "open"  # taking people's entries
    RUNNING = "running"
    FINISHED = "finished"


@dataclass
class Tournament:
    """A tournament as stored. ``entrants`` grows while it is open (people join); the
    :class:`Spec` is fixed from the start on."""

    id: str
    name: str
    created_by: str
    created_at: float
    format: Format
    events: tuple[Event, ...]
    deals: int
    table_size: int
    entrants: list[Entrant]
    people: int  # seats for people, taken by joining while it is open (by anyone: a bot too)
    rated: bool
    timed: bool
    time_limit: int  # seconds per race
    forfeit_after: float  # seconds an entrant has to take their seat in a race
    public: bool = True
    named: int = 0  # entrants named at the creation (the bots): those after them took seats for people
    max_moves: int = MAX_MOVES  # a game still going after this many moves is conceded (entrants are told)
    seed: int = field(default_factory=lambda: secrets.randbits(SEED_BITS))
    salt: bytes = field(default_factory=lambda: secrets.token_bytes(16))
    status: str = Status.OPEN
    started_at: float | None = None
    ended_at: float | None = None
    version: int = 0

    @property
    def joined(self) -> int:
        """Seats for people taken so far (by ``tournament_join``)."""
        return len(self.entrants) - self.named

    @property
    def spec(self) -> Spec:
        return Spec(
            self.format, self.events, self.deals, tuple(self.entrants), self.table_size, self.timed, self.max_moves
        )

    @property
    def commitment(self) -> str:
        return commitment(self.seed, self.salt)

    def race_id(self, slot: int) -> str:
        return f"{self.id}-{slot}"

    def summary(self, results: Mapping[int, list[Result]] | None = None) -> dict[str, Any]:
        """The tournament as anyone may see it: the seed only once it is finished; with
        ``results``, the standings and how many races are done."""
        out: dict[str, Any] = {
            "id": self.id,
            "name": self.name,
            "format": self.format.value,
            "events": [e.to_map() for e in self.events],
            "deals": self.deals,
            "table_size": self.table_size,
            "entrants": [{"player": e.player, "name": e.name, "bot": e.bot} for e in self.entrants],
            "people": self.people,
            "rated": self.rated,
            "timed": self.timed,
            "time_limit": self.time_limit,
            "max_moves": self.max_moves,
            "forfeit_after": self.forfeit_after,
            "public": self.public,
            "status": self.status,
            "created_by": self.created_by,
            "created_at": self.created_at,
            "commitment": self.commitment,
            "races": len(schedule(self.spec)),
        }
        for key in ("started_at", "ended_at"):
            if getattr(self, key) is not None:
                out[key] = getattr(self, key)
        if self.status == Status.FINISHED:
            out["seed"] = f"{self.seed:x}"
            out["salt"] = self.salt.hex()
        if results is not None and self.status != Status.OPEN:
            out["done"] = len(results)
            out["standings"] = [row.to_map() for row in standings(self.spec, results)]
        return out

    def to_record(self) -> bytes:
        data = {
            "id": self.id,
            "name": self.name,
            "created_by": self.created_by,
            "created_at": self.created_at,
            "format": self.format.value,
            "events": [e.to_map() for e in self.events],
            "deals": self.deals,
            "table_size": self.table_size,
            "entrants": [[e.player, e.name, e.bot] for e in self.entrants],
            "people": self.people,
            "rated": self.rated,
            "timed": self.timed,
            "time_limit": self.time_limit,
            "forfeit_after": self.forfeit_after,
            "public": self.public,
            "max_moves": self.max_moves,
            "named": self.named,
            "seed": f"{self.seed:x}",
            "salt": self.salt.hex(),
            "status": self.status,
            "started_at": self.started_at,
            "ended_at": self.ended_at,
        }
        return msgpack.packb(data, use_bin_type=True)

    @classmethod
    def from_record(cls, record: bytes, version: int) -> Tournament:
        data = msgpack.unpackb(record, raw=False)
        return cls(
            id=data["id"],
            name=data["name"],
            created_by=data["created_by"],
            created_at=data["created_at"],
            format=Format(data["format"]),
            events=tuple(Event(e["game"], e["options"]) for e in data["events"]),
            deals=data["deals"],
            table_size=data["table_size"],
            entrants=[Entrant(*e) for e in data["entrants"]],
            people=data["people"],
            rated=data["rated"],
            timed=data["timed"],
            time_limit=data["time_limit"],
            forfeit_after=data["forfeit_after"],
            public=data["public"],
            max_moves=data.get("max_moves", MAX_MOVES),  # absent from records of older servers
            # Likewise; they entered every joiner as a person, so the bots are the entrants named.
            named=data.get("named", sum(bool(e[2]) for e in data["entrants"])),
            seed=int(data["seed"], 16),
            salt=bytes.fromhex(data["salt"]),
            status=data["status"],
            started_at=data["started_at"],
            ended_at=data["ended_at"],
            version=version,
        )


@dataclass(frozen=True)
class StoredRatings:
    """A game's ratings after its first ``count`` rated races, the last being ``last``."""

    count: int
    last: tuple[str, int]
    ratings: Mapping[str, Rating]
    who: Mapping[str, tuple[str, bool]]


class TournamentStore:
    """Tournaments' keys, on the server's Redis (the same client and prefix as its :class:`Store`)."""

    def __init__(self, store: Store) -> None:
        self.redis = store.redis
        self.prefix = store.keys.prefix
        self._save = self.redis.register_script(_SAVE)
        self._result = self.redis.register_script(_RESULT)

    def _key(self, tournament: str) -> str:
        return f"{self.prefix}:tournament:{{{tournament}}}"

    @property
    def active_key(self) -> str:
        return f"{self.prefix}:tournaments:active"

    @property
    def listed_key(self) -> str:
        return f"{self.prefix}:tournaments:listed"

    def rated_key(self, game: str) -> str:
        return f"{self.prefix}:rated:{game}"

    async def save(self, tournament: Tournament) -> Tournament:
        """Save over ``tournament.version``; return the tournament at its new version.

        Raises :class:`VersionConflict` if another save came first (nothing is written)."""
        key = self._key(tournament.id)
        result = int(await self._save(keys=[key, f"{key}:version"], args=[tournament.version, tournament.to_record()]))
        if result < 0:
            raise VersionConflict(-1 - result)
        if tournament.status == Status.FINISHED:
            await self.redis.srem(self.active_key, tournament.id)  # type: ignore[misc]
        else:
            await self.redis.sadd(self.active_key, tournament.id)  # type: ignore[misc]
        if tournament.public:
            await self.redis.zadd(self.listed_key, {tournament.id: tournament.created_at})
        return replace(tournament, version=result)

    async def load(self, tournament: str) -> Tournament | None:
        key = self._key(tournament)
        record, version = await self.redis.mget([key, f"{key}:version"])
        if record is None:
            return None
        return Tournament.from_record(record, int(version))

    async def active(self) -> list[str]:
        return sorted(t.decode() for t in await self.redis.smembers(self.active_key))  # type: ignore[misc]

    async def listed(self, count: int) -> list[str]:
        """The newest ``count`` listed tournaments, newest first."""
        return [t.decode() for t in await self.redis.zrevrange(self.listed_key, 0, count - 1)]

    async def record_result(self, tournament: str, slot: int, results: list[Result]) -> list[Result]:
        """Store the slot's results unless some are stored already; return the stored ones."""
        packed = msgpack.packb([r.to_map() for r in results], use_bin_type=True)
        stored = await self._result(keys=[f"{self._key(tournament)}:results"], args=[slot, packed])
        return [Result.from_map(r) for r in msgpack.unpackb(stored, raw=False)]

    async def results(self, tournament: str) -> dict[int, list[Result]]:
        raw = await self.redis.hgetall(f"{self._key(tournament)}:results")  # type: ignore[misc]
        return {int(slot): [Result.from_map(r) for r in msgpack.unpackb(v, raw=False)] for slot, v in raw.items()}

    async def mark_rated(self, game: str, ended_at: float, tournament: str, slot: int) -> None:
        """Add a finished rated race to its game's log (once, however often this is called)."""
        await self.redis.zadd(self.rated_key(game), {f"{tournament}/{slot}": ended_at}, nx=True)

    async def load_ratings(self, game: str) -> StoredRatings | None:
        raw = await self.redis.get(f"{self.prefix}:ratings:{game}")
        if raw is None:
            return None
        data = msgpack.unpackb(raw, raw=False)
        return StoredRatings(
            data["count"],
            (data["last"][0], data["last"][1]),
            {p: Rating.from_map(r) for p, r in data["ratings"].items()},
            {p: (w[0], w[1]) for p, w in data["who"].items()},
        )

    async def save_ratings(self, game: str, stored: StoredRatings) -> None:
        data = {
            "count": stored.count,
            "last": list(stored.last),
            "ratings": {p: r.to_map() for p, r in stored.ratings.items()},
            "who": {p: list(w) for p, w in stored.who.items()},
        }
        await self.redis.set(f"{self.prefix}:ratings:{game}", msgpack.packb(data, use_bin_type=True))

    async def rated(self, game: str) -> list[tuple[str, int]]:
        """The game's rated races in the order ratings replay them: (tournament, slot)."""
        members = await self.redis.zrange(self.rated_key(game), 0, -1)
        out = []
        for member in members:
            tournament, _, slot = member.decode().rpartition("/")
            out.append((tournament, int(slot)))
        return out


__all__ = ["Status", "StoredRatings", "Tournament", "TournamentStore"]
