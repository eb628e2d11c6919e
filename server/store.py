"""Everything the server keeps in Redis, behind one small class.

Keys (``{race}`` is a hash tag, so one race's keys live together in a Redis Cluster):

- ``parlour:player:<id>``: hash ``name``, ``bot`` (0/1), ``token`` (SHA-256 of the token:
  the token itself is never stored), ``created``.
- ``parlour:token:<sha256>``: the player id a token belongs to.
- ``parlour:race:{<id>}``: the race record, a msgpack map (settings, seats, status, times,
  and while it runs the secret seed and salt, which only the server reads).
- ``parlour:race:{<id>}:log:<seat>``: the seat's log, a list of msgpack-encoded entries.
  Appending checks the expected length and pushes in one Lua script, so an entry is
  never written twice or out of order, whichever server node sends it.
- ``parlour:race:{<id>}:finished``: hash seat -> unix time its game ended, written with
  the log entry that ended it (so the entry and its time are durable together).
- ``parlour:race:{<id>}:closed``: the unix time the race ends as of, written once when it
  stops taking entries (its deadline, or its last game's end). From then on the append
  script refuses every entry to the race, whichever server node sends it: the logs are
  final, and the results are ranked from them.
- ``parlour:race:{<id>}:replay``: the finished race's replay, a msgpack map, written the
  first time someone asks for it: later requests read it back instead of rebuilding it.
- ``parlour:races:active``: the ids of races not finished; ``parlour:races:finished``: a
  sorted set of finished race ids by end time; ``parlour:races:broken``: the ids of races
  that failed to recover, set aside (their keys are kept) so that they are not tried again.

Writes are batched (group commit): one batch at a time is in Redis, and every log append
and race-record save made meanwhile waits to go as the next one, a single Lua script call
that applies them in order (and atomically together); each caller learns its own result.
A batch spans races and names its keys inside its one argument, so this needs one Redis
(or a primary), not a Redis Cluster.
"""

from __future__ import annotations

import asyncio
import hashlib
import secrets
import time
from dataclasses import dataclass
from typing import Any

import msgpack
import redis.asyncio as aioredis
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import NoScriptError
from redis.exceptions import TimeoutError as RedisTimeoutError

from parlour.server.race import Race, Seat, Settings, Status

PREFIX = "parlour"
ACTIVE_KEY = f"{PREFIX}:races:active"
FINISHED_KEY = f"{PREFIX}:races:finished"
BROKEN_KEY = f"{PREFIX}:races:broken"
# The errors of a Redis that cannot be reached right now (down, restarting, loading its data):
# the request may be sent again once it is back.
UNAVAILABLE = (RedisConnectionError, RedisTimeoutError)
# One script applies a whole batch of writes, in order; each returns one result. The batch
# is one msgpack array (packing it in C costs far less than one Redis argument per value):
#   ["a", closed key, log key, expected length, entry]  -> the new length, or -1 - the actual
#       length, or 0 if the race is closed (nothing is written)
#   ["a", closed key, log key, expected length, entry, finished key, seat, time]  -> the same,
#       and once the entry is in, the time its seat's game ended
#   ["s", record key, record, active set, finished set, race id, end time or ""]  -> 1
_BATCH = """
local results = {}
for i, w in ipairs(cmsgpack.unpack(ARGV[1])) do
  if w[1] == 'a' then
    if redis.call('EXISTS', w[2]) == 1 then
      results[i] = 0
    else
      local length = redis.call('LLEN', w[3])
      if length == w[4] then
        results[i] = redis.call('RPUSH', w[3], w[5])
        if w[6] then
          redis.call('HSET', w[6], w[7], w[8])
        end
      else
        results[i] = -1 - length
      end
    end
  else
    redis.call('SET', w[2], w[3])
    if w[7] == '' then
      redis.call('SADD', w[4], w[6])
    else
      redis.call('SREM', w[4], w[6])
      redis.call('ZADD', w[5], w[7], w[6])
    end
    results[i] = 1
  end
end
return results
"""
_BATCH_SHA = hashlib.sha1(_BATCH.encode()).hexdigest()
# Close a race: KEYS = closed key, then every seat's log; ARGV[1] = the end time. Keeps the time
# of an earlier close. Returns the end time, then the length of every log.
_CLOSE = """
redis.call('SET', KEYS[1], ARGV[1], 'NX')
local out = {redis.call('GET', KEYS[1])}
for i = 2, #KEYS do
  out[i] = redis.call('LLEN', KEYS[i])
end
return out
"""


class RaceClosed(Exception):
    """The race no longer takes entries: it closed (its end is decided), and nothing was written."""


class LogConflict(Exception):
    """The log did not have the expected length: another writer got there first."""

    def __init__(self, length: int) -> None:
        super().__init__(f"the log holds {length} entries")
        self.length = length


@dataclass(frozen=True)
class Player:
    id: str
    name: str
    bot: bool


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def race_key(race_id: str) -> str:
    return f"{PREFIX}:race:{{{race_id}}}"


def log_key(race_id: str, seat: int) -> str:
    return f"{race_key(race_id)}:log:{seat}"


def finished_key(race_id: str) -> str:
    return f"{race_key(race_id)}:finished"


def closed_key(race_id: str) -> str:
    return f"{race_key(race_id)}:closed"


def replay_key(race_id: str) -> str:
    return f"{race_key(race_id)}:replay"


class Store:
    """The server's persistence. Call :meth:`start` inside the event loop before use."""

    def __init__(self, client: aioredis.Redis) -> None:
        self.redis = client
        self._pending: list[tuple[list[Any], asyncio.Future[int]]] = []
        self._flusher: asyncio.Task[None] | None = None
        self._close = client.register_script(_CLOSE)

    async def ping(self) -> bool:
        return bool(await self.redis.ping())

    async def close(self) -> None:
        await self.redis.aclose()

    # --- identities ------------------------------------------------------------------

    async def create_player(self, name: str, bot: bool) -> tuple[Player, str]:
        """A new identity and its secret token (returned once, stored only as a hash)."""
        player_id = "p" + secrets.token_hex(8)
        token = secrets.token_urlsafe(32)
        digest = token_hash(token)
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.hset(
                f"{PREFIX}:player:{player_id}",
                mapping={"name": name, "bot": int(bot), "token": digest, "created": time.time()},
            )
            pipe.set(f"{PREFIX}:token:{digest}", player_id)
            await pipe.execute()
        return Player(player_id, name, bot), token

    async def player_by_token(self, token: str) -> Player | None:
        player_id = await self.redis.get(f"{PREFIX}:token:{token_hash(token)}")
        if player_id is None:
            return None
        pid = player_id.decode()
        fields = await self.redis.hgetall(f"{PREFIX}:player:{pid}")
        if not fields:
            return None
        return Player(pid, fields[b"name"].decode(), fields[b"bot"] == b"1")

    async def rename(self, player: str, name: str, bot: bool) -> None:
        await self.redis.hset(f"{PREFIX}:player:{player}", mapping={"name": name, "bot": int(bot)})

    # --- races -----------------------------------------------------------------------

    async def save_race(self, race: Race) -> None:
        """Write the race record (not the logs); track it as active or finished."""
        record = msgpack.packb(encode_race(race), use_bin_type=True)
        ended = str(race.ended_at or time.time()) if race.status is Status.FINISHED else ""
        await self._write(["s", race_key(race.id), record, ACTIVE_KEY, FINISHED_KEY, race.id, ended])

    async def delete_race(self, race_id: str) -> None:
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.delete(race_key(race_id))
            pipe.srem(ACTIVE_KEY, race_id)
            await pipe.execute()

    def append(
        self, race_id: str, seat: int, expected: int, entry: list[Any], finished_at: float | None = None
    ) -> asyncio.Future[int]:
        """Append ``entry`` as entry number ``expected`` of the seat's log; await the new length.

        Give ``finished_at`` when the entry ends the seat's game: the time is stored with
        the entry, in the same step. Awaiting raises :class:`LogConflict` if the log did
        not hold exactly ``expected`` entries, :class:`RaceClosed` if the race was closed
        (see :meth:`close_race`), and nothing is written then. (A plain function returning a
        future: the hot path of every move.)
        """
        write = ["a", closed_key(race_id), log_key(race_id, seat), expected, msgpack.packb(entry)]
        if finished_at is not None:
            write += [finished_key(race_id), seat, repr(finished_at)]
        return self._write(write)

    def _write(self, write: list[Any]) -> asyncio.Future[int]:
        """Queue one write for the next batch; the future holds its result."""
        loop = asyncio.get_running_loop()
        future: asyncio.Future[int] = loop.create_future()
        self._pending.append((write, future))
        if self._flusher is None:
            self._flusher = loop.create_task(self._flush_all())
        return future

    async def _flush_all(self) -> None:
        """Send batches one at a time while writes wait: those that come in while one batch
        is in Redis make up the next, so batches grow with the load."""
        try:
            while self._pending:
                batch, self._pending = self._pending, []
                await self._flush(batch)
        finally:
            self._flusher = None

    async def _flush(self, batch: list[tuple[list[Any], asyncio.Future[int]]]) -> None:
        # Lua's cmsgpack reads the old raw type, not bin: bytes go in as (binary-safe) raw strings.
        blob = msgpack.packb([write for write, _ in batch], use_bin_type=False)
        try:
            try:
                results = await self.redis.evalsha(_BATCH_SHA, 0, blob)
            except NoScriptError:  # a fresh or restarted Redis: load the script and run it again
                await self.redis.script_load(_BATCH)
                results = await self.redis.evalsha(_BATCH_SHA, 0, blob)
        except Exception as error:  # the batch failed: every caller learns why
            for _, future in batch:
                if not future.done():
                    future.set_exception(error)
            return
        for (_, future), result in zip(batch, results, strict=True):
            if future.done():
                continue
            if result < 0:  # an append to a log of another length
                future.set_exception(LogConflict(-1 - int(result)))
            elif result == 0:  # an append to a closed race (a save returns 1)
                future.set_exception(RaceClosed())
            else:
                future.set_result(int(result))

    async def close_race(self, race_id: str, seats: int, ended_at: float) -> tuple[float, list[int]]:
        """Stop the race taking entries, as of ``ended_at``; return the end time and every log's length.

        From then on every append to the race raises :class:`RaceClosed`, so the stored logs
        are final. A race closed before keeps its first end time, which is returned.
        """
        keys = [closed_key(race_id), *(log_key(race_id, seat) for seat in range(seats))]
        stored, *lengths = await self._close(keys=keys, args=[repr(ended_at)])
        return float(stored), [int(length) for length in lengths]

    async def load_log(self, race_id: str, seat: int) -> list[list[Any]]:
        return [msgpack.unpackb(raw) for raw in await self.redis.lrange(log_key(race_id, seat), 0, -1)]

    async def load_finished(self, race_id: str) -> dict[int, float]:
        """When each seat's game ended, for the seats whose log ends it."""
        stored = await self.redis.hgetall(finished_key(race_id))
        return {int(seat): float(stamp) for seat, stamp in stored.items()}

    async def load_race(self, race_id: str) -> Race | None:
        """A race with every seat's game rebuilt from its log, or ``None``."""
        raw = await self.redis.get(race_key(race_id))
        if raw is None:
            return None
        race = decode_race(msgpack.unpackb(raw))
        if race.seed is not None:
            finished = await self.load_finished(race_id)
            closed = await self.redis.get(closed_key(race_id))
            race.status, status = Status.RUNNING, race.status  # replay needs a running race
            race.start(race.started_at or 0.0, race.seed, race.salt)
            for index in range(len(race.seats)):
                race.replay_seat(index, await self.load_log(race_id, index), finished.get(index))
            race.status = status
            race.closed_at = None if closed is None else float(closed)
        return race

    async def save_replay(self, race_id: str, replay: dict[str, Any]) -> None:
        """Keep the built replay of a finished race (it never changes)."""
        await self.redis.set(replay_key(race_id), msgpack.packb(replay, use_bin_type=True))

    async def load_replay(self, race_id: str) -> dict[str, Any] | None:
        """The replay :meth:`save_replay` kept, or ``None``."""
        raw = await self.redis.get(replay_key(race_id))
        return None if raw is None else msgpack.unpackb(raw, raw=False)

    async def active_race_ids(self) -> list[str]:
        return sorted(m.decode() for m in await self.redis.smembers(ACTIVE_KEY))

    async def set_aside(self, race_id: str) -> None:
        """Move a race that cannot be recovered from the active races to the broken ones."""
        await self.redis.smove(ACTIVE_KEY, BROKEN_KEY, race_id)

    async def finished_race_ids(self, limit: int = 50) -> list[str]:
        return [m.decode() for m in await self.redis.zrevrange(FINISHED_KEY, 0, limit - 1)]


def encode_race(race: Race) -> dict[str, Any]:
    """The race record as plain data (logs are stored apart)."""
    return {
        "id": race.id,
        "settings": race.settings.to_map(),
        "created_by": race.created_by,
        "created_at": race.created_at,
        "code": race.code,
        "seats": [{"player": x.player, "name": x.name, "bot": x.bot, "ready": x.ready} for x in race.seats],
        "status": race.status.value,
        "starts_at": race.starts_at,
        "started_at": race.started_at,
        "deadline": race.deadline,
        "ended_at": race.ended_at,
        "seed": None if race.seed is None else f"{race.seed:x}",
        "salt": None if race.salt is None else race.salt.hex(),
        "results": race.results,
        "joined_at": race.joined_at,
    }


def decode_race(data: dict[str, Any]) -> Race:
    """A race (seats without games) from its record."""
    return Race(
        id=data["id"],
        settings=Settings(**data["settings"]),
        created_by=data["created_by"],
        created_at=data["created_at"],
        code=data["code"],
        seats=[Seat(x["player"], x["name"], x["bot"], x["ready"]) for x in data["seats"]],
        status=Status(data["status"]),
        starts_at=data["starts_at"],
        started_at=data["started_at"],
        deadline=data["deadline"],
        ended_at=data["ended_at"],
        seed=None if data["seed"] is None else int(data["seed"], 16),
        salt=None if data["salt"] is None else bytes.fromhex(data["salt"]),
        results=data["results"],
        joined_at=data.get("joined_at"),  # absent from records of older servers
    )
