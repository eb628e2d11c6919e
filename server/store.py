"""Everything the server keeps in Redis, behind one small class.

Every key starts with a prefix (``--redis-prefix``, default ``parlour``), so several
Parlour instances can share one Redis. Below, ``P`` is the prefix.

A race's keys carry its id as a hash tag (``{<id>}``), so in a Redis Cluster they live in
one slot and every script on them runs on one shard:

- ``P:race:{<id>}``: the race record, a msgpack map (settings, seats, status, times,
  and while it runs the secret seed and salt, which only server nodes read).
- ``P:race:{<id>}:version``: how many times the record was saved. A node saves a change
  only over the version it read (compare and set), so race-wide changes made by several
  nodes at once never cross: the loser reads the record again and retries.
- ``P:race:{<id>}:log:<seat>``: the seat's log, a list of msgpack-encoded entries.
  Appending checks the expected length and pushes in one script, so an entry is never
  written twice or out of order, whichever node sends it: the only arbiter of a move.
- ``P:race:{<id>}:finished``: hash seat -> unix time its game ended, written with the
  log entry that ended it.
- ``P:race:{<id>}:closed``: the unix time the race ends as of, written once when it stops
  taking entries. From then on the append script refuses every entry to the race.
- ``P:race:{<id>}:replay``: the finished race's replay, kept the first time it is built.
- ``P:race:{<id>}:nodes``: the nodes that hold the race in memory. The scripts that store
  an entry or a record publish it (sharded pub/sub, channel ``P:race:{<id>}:events``)
  when another node holds the race, so a move crosses nodes only when it must.

The rest is small and touched only when a race is created, changes status or ends, never
by a move: ``P:player:<id>`` (hash ``name``, ``bot``, ``token`` = SHA-256 of the token,
``created``), ``P:token:<sha256>`` -> player id, ``P:player:<id>:races`` (the player's
unfinished races), ``P:online:<id>`` (hash node -> the player's connections there),
``P:code:<code>`` -> race id, ``P:races:active`` (unfinished races), ``P:races:listed``
(public unfinished races by creation time: the lobby), ``P:races:finished`` (by end time),
``P:races:broken`` (races that failed to recover, set aside). The leases live in one slot:
``P:{leases}`` (race -> when its lease runs out), ``P:{leases}:holders`` (race -> node) and
``P:{leases}:nodes`` (node -> its last heartbeat), written once a second by each node.

Bots: ``P:bots:<node>`` (hash player -> msgpack ``{name, games, max_races}``) lists the bots
with a connection on that node; the node writes it again at every heartbeat and it expires
soon after the node stops beating, and readers count only the nodes whose heartbeat is
recent, so a dead node's bots vanish with it. ``P:player:<id>:invited`` (sorted set race ->
when the invitation expires) counts the bot's pending invitations beside its seats.
``P:node:<node>:events`` is the node's own channel (sharded pub/sub): invitations for the
bots connected there.

Writes to races (entry appends, record saves, closes) and to the leases are batched (group
commit): one batch at a time is in Redis, and every write made meanwhile waits to go in the next
one. On one Redis a batch is a single script call; on a Cluster it is one call per race (and one
for the leases), sent together.
"""

from __future__ import annotations

import asyncio
import hashlib
import secrets
import time
from collections import defaultdict
from dataclasses import dataclass
from typing import Any

import msgpack
import redis.asyncio as aioredis
from redis.asyncio.cluster import RedisCluster
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import NoScriptError
from redis.exceptions import TimeoutError as RedisTimeoutError

from parlour.protocol.text import plural
from parlour.server.race import Invitation, Race, Seat, Settings, Status

DEFAULT_PREFIX = "parlour"
MIN_REDIS = 7  # the major version of Redis that has sharded pub/sub (Valkey reports 7.2 and later)
# The errors of a Redis that cannot be reached right now (down, restarting, loading its data):
# the request may be sent again once it is back.
UNAVAILABLE = (RedisConnectionError, RedisTimeoutError)
BATCH_TIMEOUT = 5.0  # seconds a write batch may take (redis-py's default socket timeout) before it fails as a timeout
# The writes of a batch, in order; each returns {result, published}. A write is one msgpack array
# (packing it in C costs far less than one Redis argument per value):
#   ["a", closed key, log key, expected length, entry, nodes key, channel, event
#    (, finished key, seat, time)]: append an entry. result: the new length, or -1 - the actual
#       length, or 0 if the race is closed (nothing is written). Once the entry is in: the time
#       its seat's game ended if given, and the event is published on the channel if another
#       node holds the race (published = 1).
#   ["x", commands]: run the commands (all on the race's keys). result: 1.
#   ["q", command, arguments...]: run one command. result: its reply.
#   ["c", closed key, end time, every seat's log key]: close the race (see close_race), keeping
#       the time of an earlier close. result: {the end time, the length of every log}.
#   ["s", record key, version key, expected version, record ("" deletes the race), channel,
#    event, commands, nodes key]: save a race record over the version it was read at, publish it
#       if another node holds the race, then run the commands (the indexes, on one Redis).
#       result: the new version, or -1 - the stored version if it was not the expected one
#       (nothing is written then).
#   ["t", leases key, holders key, node, lease in ms, how many at most, race ids...]: take the
#       leases of the races given, whoever holds them (a new race), or if none are given of up to
#       that many races whose lease ran out. result: {the races taken, for each the node that held
#       it ("" if none)}.
#   ["g", leases key, holders key, nodes key, node, "hand" or "drop", race ids...]: give up the
#       node's leases of the races: to whichever node takes them first ("hand", which also takes
#       the node out of the nodes), or for good ("drop": the races are over). result: 1.
_BATCH = """
local results = {}
for i, w in ipairs(cmsgpack.unpack(ARGV[1])) do
  local published = 0
  local result
  if w[1] == 'x' then
    for _, command in ipairs(w[2]) do
      redis.call(unpack(command))
    end
    result = 1
  elseif w[1] == 'q' then
    result = redis.call(unpack(w, 2))
  elseif w[1] == 'c' then
    redis.call('SET', w[2], w[3], 'NX')
    result = {redis.call('GET', w[2])}
    for j = 4, #w do
      result[j - 2] = redis.call('LLEN', w[j])
    end
  elseif w[1] == 's' then
    local stored = tonumber(redis.call('GET', w[3]) or '0')
    if stored ~= w[4] then
      result = -1 - stored
    else
      if w[5] == '' then
        redis.call('DEL', w[2])
      else
        redis.call('SET', w[2], w[5])
      end
      redis.call('SET', w[3], stored + 1)
      if redis.call('SCARD', w[9]) > 1 then
        redis.call('SPUBLISH', w[6], w[7])
        published = 1
      end
      for _, command in ipairs(w[8]) do
        redis.call(unpack(command))
      end
      result = stored + 1
    end
  elseif w[1] == 't' then
    local t = redis.call('TIME')
    local now = t[1] * 1000 + math.floor(t[2] / 1000)
    local ids = {}
    for j = 7, #w do
      ids[#ids + 1] = w[j]
    end
    if #ids == 0 then
      ids = redis.call('ZRANGEBYSCORE', w[2], '-inf', now, 'LIMIT', 0, w[6])
    end
    local before = {}
    for j, id in ipairs(ids) do
      before[j] = redis.call('HGET', w[3], id) or ''
      redis.call('ZADD', w[2], now + w[5], id)
      redis.call('HSET', w[3], id, w[4])
    end
    result = {ids, before}
  elseif w[1] == 'g' then
    for j = 7, #w do
      if redis.call('HGET', w[3], w[j]) == w[5] then
        if w[6] == 'hand' then
          redis.call('ZADD', w[2], 0, w[j])
        else
          redis.call('ZREM', w[2], w[j])
          redis.call('HDEL', w[3], w[j])
        end
      end
    end
    if w[6] == 'hand' then
      redis.call('ZREM', w[4], w[5])
    end
    result = 1
  elseif redis.call('EXISTS', w[2]) == 1 then
    result = 0
  else
    local length = redis.call('LLEN', w[3])
    if length == w[4] then
      result = redis.call('RPUSH', w[3], w[5])
      if w[9] then
        redis.call('HSET', w[9], w[10], w[11])
      end
      if redis.call('SCARD', w[6]) > 1 then
        redis.call('SPUBLISH', w[7], w[8])
        published = 1
      end
    else
      result = -1 - length
    end
  end
  results[i] = {result, published}
end
return results
"""
_BATCH_SHA = hashlib.sha1(_BATCH.encode()).hexdigest()
# A node's heartbeat: KEYS = leases, holders, nodes; ARGV = node, lease in ms, the races it
# thinks it holds. Renews the node and the leases it still holds; returns {lost races, live nodes}.
_BEAT = """
local t = redis.call('TIME')
local now = t[1] * 1000 + math.floor(t[2] / 1000)
redis.call('ZADD', KEYS[3], now, ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', now - 600000)
local lost = {}
for i = 3, #ARGV do
  if redis.call('HGET', KEYS[2], ARGV[i]) == ARGV[1] then
    redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[i])
  else
    lost[#lost + 1] = ARGV[i]
  end
end
return {lost, redis.call('ZRANGEBYSCORE', KEYS[3], now - tonumber(ARGV[2]), '+inf')}
"""
# Read a race record and its version at once: KEYS = record, version.
_READ = """
return {redis.call('GET', KEYS[1]), redis.call('GET', KEYS[2])}
"""
# Write a node's bots: KEYS = the node's bots hash; ARGV = its lifetime in ms, "all" (these are
# all of them: the others go) or "some", then player, entry, player, entry, ...
_BOTS = """
if ARGV[2] == 'all' then
  redis.call('DEL', KEYS[1])
end
for i = 3, #ARGV, 2 do
  redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1])
end
if #ARGV > 2 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
end
return 1
"""
# One connection fewer: KEYS = the player's presence hash; ARGV = node.
_AWAY = """
if redis.call('HINCRBY', KEYS[1], ARGV[1], -1) <= 0 then
  redis.call('HDEL', KEYS[1], ARGV[1])
end
return 1
"""


class TooOld(Exception):
    """The Redis lacks what the server needs."""


class RaceClosed(Exception):
    """The race no longer takes entries: it closed (its end is decided), and nothing was written."""


class LogConflict(Exception):
    """The log did not have the expected length: another writer got there first."""

    def __init__(self, length: int) -> None:
        super().__init__(f"the log holds {plural(length, 'entry', 'entries')}")
        self.length = length


class VersionConflict(Exception):
    """The race record was saved by someone else since it was read: read it again and retry."""

    def __init__(self, version: int) -> None:
        super().__init__(f"the record is at version {version}")
        self.version = version


@dataclass(frozen=True)
class Player:
    id: str
    name: str
    bot: bool


@dataclass(frozen=True)
class Appended:
    """A stored entry: the log's new length, and whether its event went to another node."""

    length: int
    crossed: bool


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


@dataclass(frozen=True)
class Keys:
    """The names of every key, under one prefix."""

    prefix: str = DEFAULT_PREFIX

    def race(self, race_id: str) -> str:
        return f"{self.prefix}:race:{{{race_id}}}"

    def version(self, race_id: str) -> str:
        return f"{self.race(race_id)}:version"

    def log(self, race_id: str, seat: int) -> str:
        return f"{self.race(race_id)}:log:{seat}"

    def finished(self, race_id: str) -> str:
        return f"{self.race(race_id)}:finished"

    def closed(self, race_id: str) -> str:
        return f"{self.race(race_id)}:closed"

    def replay(self, race_id: str) -> str:
        return f"{self.race(race_id)}:replay"

    def nodes(self, race_id: str) -> str:
        return f"{self.race(race_id)}:nodes"

    def channel(self, race_id: str) -> str:
        return f"{self.race(race_id)}:events"

    def player(self, player_id: str) -> str:
        return f"{self.prefix}:player:{player_id}"

    def player_races(self, player_id: str) -> str:
        return f"{self.prefix}:player:{player_id}:races"

    def online(self, player_id: str) -> str:
        return f"{self.prefix}:online:{player_id}"

    def invited(self, player_id: str) -> str:
        return f"{self.prefix}:player:{player_id}:invited"

    def bots(self, node: str) -> str:
        return f"{self.prefix}:bots:{node}"

    def node_channel(self, node: str) -> str:
        return f"{self.prefix}:node:{node}:events"

    def token(self, digest: str) -> str:
        return f"{self.prefix}:token:{digest}"

    def code(self, code: str) -> str:
        return f"{self.prefix}:code:{code}"

    @property
    def active(self) -> str:
        return f"{self.prefix}:races:active"

    @property
    def listed(self) -> str:
        return f"{self.prefix}:races:listed"

    @property
    def finished_races(self) -> str:
        return f"{self.prefix}:races:finished"

    @property
    def broken(self) -> str:
        return f"{self.prefix}:races:broken"

    @property
    def leases(self) -> list[str]:
        """The lease keys, in the order the lease scripts take them: leases, holders, nodes."""
        return [f"{self.prefix}:{{leases}}", f"{self.prefix}:{{leases}}:holders", f"{self.prefix}:{{leases}}:nodes"]

    def race_of_channel(self, channel: bytes) -> str:
        """The race id in an event channel's name."""
        text = channel.decode()
        return text[text.index("{") + 1 : text.index("}")]


class Store:
    """The server's persistence. Call its methods inside the event loop.

    ``node`` names this server node in the events it publishes and the leases it holds.
    """

    def __init__(
        self,
        client: aioredis.Redis | RedisCluster,
        prefix: str = DEFAULT_PREFIX,
        node: str = "",
        batches: aioredis.Redis | None = None,
    ) -> None:
        """``batches``: a client of the same Redis for the write batches, else ``client``; give one without a
        socket timeout (``socket_timeout=None``): every batch is bounded by ``BATCH_TIMEOUT`` here, and
        redis-py's own timeout costs a task per command on Python 3.11 (see :meth:`_send_batch`). The
        store holds one of its connections for good. Not on a Cluster, whose client sends the batches."""
        self.redis = client
        # None on a Cluster: its client routes each batch to its slot's shard.
        self._batch_pool = None if isinstance(client, RedisCluster) else (batches or client).connection_pool
        self._batch_connection: aioredis.Connection | None = None
        self.keys = Keys(prefix)
        self.node = node
        self.cluster = isinstance(client, RedisCluster)
        self._pending: list[tuple[str, list[Any], asyncio.Future[Any]]] = []  # race id, write, its result
        self._flusher: asyncio.Task[None] | None = None
        self._read = client.register_script(_READ)
        self._beat = client.register_script(_BEAT)
        self._away = client.register_script(_AWAY)
        self._bots = client.register_script(_BOTS)

    async def ping(self) -> bool:
        return bool(await self.redis.ping())

    async def check_version(self) -> None:
        """Raise :class:`TooOld` unless the Redis is 7 or later (sharded pub/sub carries the events)."""
        info = await self.redis.info("server")
        version = str(info.get("redis_version", "0"))
        if int(version.split(".")[0] or 0) < MIN_REDIS:
            raise TooOld(
                f"Parlour needs Redis {MIN_REDIS} or later (or Valkey), for sharded pub/sub; this is {version}"
            )

    async def close(self) -> None:
        await self.redis.aclose()

    # --- identities ------------------------------------------------------------------

    async def create_player(self, name: str, bot: bool) -> tuple[Player, str]:
        """A new identity and its secret token (returned once, stored only as a hash)."""
        player_id = "p" + secrets.token_hex(8)
        token = secrets.token_urlsafe(32)
        digest = token_hash(token)
        fields = {"name": name, "bot": int(bot), "token": digest, "created": time.time()}
        await self.redis.hset(self.keys.player(player_id), mapping=fields)  # type: ignore[misc]
        await self.redis.set(self.keys.token(digest), player_id)  # last: a token always names a player
        return Player(player_id, name, bot), token

    async def player_by_token(self, token: str) -> Player | None:
        player_id = await self.redis.get(self.keys.token(token_hash(token)))
        if player_id is None:
            return None
        pid = player_id.decode()
        fields = await self.redis.hgetall(self.keys.player(pid))  # type: ignore[misc]
        if not fields:
            return None
        return Player(pid, fields[b"name"].decode(), fields[b"bot"] == b"1")

    async def rename(self, player: str, name: str, bot: bool) -> None:
        await self.redis.hset(self.keys.player(player), mapping={"name": name, "bot": int(bot)})  # type: ignore[misc]

    # --- presence --------------------------------------------------------------------

    async def connected(self, player: str) -> None:
        """Count one more connection of ``player`` on this node."""
        await self.redis.hincrby(self.keys.online(player), self.node, 1)  # type: ignore[misc]

    async def disconnected(self, player: str) -> None:
        """Count one connection fewer of ``player`` on this node."""
        await self._away(keys=[self.keys.online(player)], args=[self.node])

    async def publish_away(self, race_id: str, player: str) -> None:
        """Tell the nodes holding the race that ``player`` has no connection left on this node."""
        event = msgpack.packb(["a", self.node, player])
        await self.redis.spublish(self.keys.channel(race_id), event)  # type: ignore[misc]

    async def online(self, player: str, live_nodes: set[str]) -> bool:
        """Whether ``player`` has a connection on any of ``live_nodes``."""
        counts = await self.redis.hgetall(self.keys.online(player))  # type: ignore[misc]
        return any(node.decode() in live_nodes and int(count) > 0 for node, count in counts.items())

    # --- bots ------------------------------------------------------------------------

    async def put_bots(self, entries: dict[str, dict[str, Any]], lifetime: float, every: bool) -> None:
        """List ``entries`` (player -> ``{name, games, max_races}``) as this node's bots for
        ``lifetime`` seconds; ``every``: these are all of them (the others are dropped)."""
        args: list[Any] = [int(lifetime * 1000), "all" if every else "some"]
        for player, entry in entries.items():
            args += [player, msgpack.packb(entry)]
        await self._bots(keys=[self.keys.bots(self.node)], args=args)

    async def drop_bot(self, player: str) -> None:
        """``player`` is no longer a bot online on this node."""
        await self.redis.hdel(self.keys.bots(self.node), player)  # type: ignore[misc]

    async def drop_bots(self) -> None:
        """This node has no bot any more (it stops)."""
        await self.redis.delete(self.keys.bots(self.node))

    async def online_bots(self, nodes: set[str]) -> list[tuple[str, str, dict[str, Any]]]:
        """The bots listed by ``nodes`` (the live ones): (node, player, entry) for each."""
        ordered = sorted(nodes)
        async with self.redis.pipeline(transaction=False) as pipe:
            for node in ordered:
                pipe.hgetall(self.keys.bots(node))
            tables = await pipe.execute()
        return [
            (node, player.decode(), msgpack.unpackb(entry))
            for node, table in zip(ordered, tables, strict=True)
            for player, entry in table.items()
        ]

    async def busy(self, players: list[str], now: float) -> list[int]:
        """For each of ``players``: its unfinished races plus its invitations pending at ``now``."""
        if not players:
            return []
        async with self.redis.pipeline(transaction=False) as pipe:
            for player in players:
                pipe.scard(self.keys.player_races(player))
                pipe.zcount(self.keys.invited(player), f"({now!r}", "+inf")
            counts = await pipe.execute()
        return [int(counts[i]) + int(counts[i + 1]) for i in range(0, len(counts), 2)]

    async def invitations(self, player: str, now: float) -> list[str]:
        """The races that invite ``player`` (a bot) at ``now``, the soonest to lapse first."""
        found = await self.redis.zrangebyscore(self.keys.invited(player), f"({now!r}", "+inf")  # type: ignore[misc]
        return [race.decode() for race in found]

    async def send_to_node(self, node: str, event: list[Any]) -> None:
        """Publish ``event`` on ``node``'s own channel (see :mod:`parlour.server.bus`)."""
        await self.redis.spublish(self.keys.node_channel(node), msgpack.packb(event))  # type: ignore[misc]

    # --- races -----------------------------------------------------------------------

    async def save_race(self, race: Race, gone: tuple[str, ...] = (), reindex: bool = True) -> int:
        """Write the race record over ``race.version`` (the version it was read at); return the new version.

        Raises :class:`VersionConflict` if another save came first (nothing is written).
        The saved record is published to the other nodes holding the race, and the indexes (the
        lobby, the player's races, the join code) are brought up to date with it, unless
        ``reindex`` is false (a change that leaves them as they are: a ready, a start). ``gone``:
        players the change unseated.
        """
        record = msgpack.packb(encode_race(race), use_bin_type=True)
        return await self._save_record(race, record, self._index(race, True, gone) if reindex else [])

    async def delete_race(self, race: Race, gone: tuple[str, ...] = ()) -> None:
        """Delete a race that will not be played, over ``race.version`` (raises :class:`VersionConflict`).

        ``gone``: players who left it but are no longer in its seats.
        """
        await self._save_record(race, b"", self._index(race, False, gone))

    async def _save_record(self, race: Race, record: bytes, index: list[list[str]]) -> int:
        """Save ``record`` over ``race.version`` (in the next batch), then run the ``index``
        commands: in the same script on one Redis, after it on a Cluster (whose index keys live
        in other slots)."""
        keys = self.keys
        event = msgpack.packb(["r", self.node, race.version + 1, record], use_bin_type=True)
        inside = [] if self.cluster else index
        write = [
            "s",
            keys.race(race.id),
            keys.version(race.id),
            race.version,
            record,
            keys.channel(race.id),
            event,
            inside,
            keys.nodes(race.id),
        ]
        result = int(await self._queue(keys.race(race.id), write))
        if result < 0:
            raise VersionConflict(-1 - result)
        if self.cluster and index:
            async with self.redis.pipeline(transaction=False) as pipe:
                for command in index:
                    pipe.execute_command(*command)
                await pipe.execute()
        return result

    def _index(self, race: Race, present: bool, gone: tuple[str, ...] = ()) -> list[list[str]]:
        """The commands that bring the lobby, the players' races and the join code up to date
        with ``race`` (arguments as strings: Lua would round numbers to 14 digits).

        Idempotent: if they are cut short (a Cluster runs them after the save), the next save, or
        :meth:`unfinished_races` (which drops what it finds stale), puts them right.
        """
        keys, players = self.keys, [seat.player for seat in race.seats]
        # A bot's pending invitations count as its races do (see busy): an invitation leaves the
        # count when it is taken (the bot is seated), declined or lapsed (``gone``), or expires.
        # Entries long expired are cleared as new ones come.
        uninvited = [["ZREM", keys.invited(player), race.id] for player in (*players, *gone)]
        if present and race.status is not Status.FINISHED:
            commands = [["SADD", keys.active, race.id], ["SET", keys.code(race.code), race.id]]
            if race.settings.public:
                commands.append(["ZADD", keys.listed, repr(race.created_at), race.id])
            commands += [["SADD", keys.player_races(player), race.id] for player in players]
            commands += [["SREM", keys.player_races(player), race.id] for player in gone]
            for invitation in race.invited:
                key = keys.invited(invitation.player)
                commands.append(["ZREMRANGEBYSCORE", key, "-inf", repr(invitation.expires_at - 3600)])
                commands.append(["ZADD", key, repr(invitation.expires_at), race.id])
            return commands + uninvited
        commands = [["SREM", keys.active, race.id], ["ZREM", keys.listed, race.id], ["DEL", keys.code(race.code)]]
        if present:
            commands.append(["ZADD", keys.finished_races, repr(race.ended_at or time.time()), race.id])
        commands += [["SREM", keys.player_races(player), race.id] for player in (*players, *gone)]
        commands += [["ZREM", keys.invited(invitation.player), race.id] for invitation in race.invited]
        return commands + uninvited

    def append(
        self, race_id: str, seat: int, expected: int, entry: list[Any], finished_at: float | None = None
    ) -> asyncio.Future[Appended]:
        """Append ``entry`` as entry number ``expected`` of the seat's log; await what was stored.

        Give ``finished_at`` when the entry ends the seat's game: the time is stored with
        the entry, in the same step. Once stored, the entry is published to the other nodes
        that hold the race. Awaiting raises :class:`LogConflict` if the log did not hold
        exactly ``expected`` entries, :class:`RaceClosed` if the race was closed (see
        :meth:`close_race`), and nothing is written then. (A plain function returning a
        future: the hot path of every move.)
        """
        keys = self.keys
        event = msgpack.packb(["e", self.node, seat, expected, entry, finished_at])
        write = [
            "a",
            keys.closed(race_id),
            keys.log(race_id, seat),
            expected,
            msgpack.packb(entry),
            keys.nodes(race_id),
            keys.channel(race_id),
            event,
        ]
        if finished_at is not None:
            write += [keys.finished(race_id), seat, repr(finished_at)]
        return self._queue(keys.race(race_id), write)

    def _queue(self, slot: str, write: list[Any]) -> asyncio.Future[Any]:
        """Queue one write for the next batch; the future holds its result. ``slot``: a key in the
        hash slot of every key the write touches (on a Cluster, the batch runs a script call per slot)."""
        loop = asyncio.get_running_loop()
        future: asyncio.Future[Any] = loop.create_future()
        self._pending.append((slot, write, future))
        if self._flusher is None:
            self._flusher = loop.create_task(self._flush_all())
        return future

    async def _flush_all(self) -> None:
        """Send batches one at a time while writes wait: those that come in while one batch
        is in Redis make up the next, so batches grow with the load."""
        try:
            while self._pending:
                batch, self._pending = self._pending, []
                if self.cluster:  # one script call per slot: each runs on the slot's shard
                    by_slot: dict[str, list[tuple[str, list[Any], asyncio.Future[Any]]]] = defaultdict(list)
                    for pending in batch:
                        by_slot[pending[0]].append(pending)
                    await asyncio.gather(*(self._flush(part) for part in by_slot.values()))
                else:
                    await self._flush(batch)
        finally:
            self._flusher = None

    async def _flush(self, batch: list[tuple[str, list[Any], asyncio.Future[Any]]]) -> None:
        # Lua's cmsgpack reads the old raw type, not bin: bytes go in as (binary-safe) raw strings.
        blob = msgpack.packb([write for _, write, _ in batch], use_bin_type=False)
        # On a Cluster the batch is one slot's: its first write's slot key names it.
        keys = [batch[0][0]] if self.cluster else []
        try:
            results = await self._send_batch(keys, blob)
        except Exception as error:  # the batch failed: every caller learns why
            for _, _, future in batch:
                if not future.done():
                    future.set_exception(error)
            return
        for (_, write, future), (result, published) in zip(batch, results, strict=True):
            if future.done():
                continue
            if write[0] != "a":  # its caller reads the result
                future.set_result(result)
            elif result < 0:  # an append to a log of another length
                future.set_exception(LogConflict(-1 - int(result)))
            elif result == 0:  # an append to a closed race
                future.set_exception(RaceClosed())
            else:
                future.set_result(Appended(int(result), bool(published)))

    async def _send_batch(self, keys: list[str], blob: bytes) -> list[Any]:
        """Run the batch script on ``blob``; raise redis-py's ``TimeoutError`` after ``BATCH_TIMEOUT`` seconds.

        Bounded here rather than by the client's socket timeout: on Python 3.11 redis-py sends every
        command of a client with a socket timeout through ``asyncio.wait_for``, a task each, and reads
        it under a timeout of its own, which cost about 5% of the server's CPU a move (bench/duel.py).
        On one Redis the batch goes over a connection held for good (batches run one at a time), past
        the client's pool, retries and observability, which cost 3 to 6% more; redis-py connects it
        again after a failure, at the next batch. A batch cut short leaves no reply behind: redis-py
        drops a connection whose command was cancelled.
        """
        try:
            async with asyncio.timeout(BATCH_TIMEOUT):
                if self._batch_pool is None:
                    try:
                        return await self.redis.evalsha(_BATCH_SHA, len(keys), *keys, blob)  # type: ignore[no-any-return,misc]
                    except NoScriptError:  # a fresh or restarted shard: this loads the script
                        return await self.redis.eval(_BATCH, len(keys), *keys, blob)  # type: ignore[no-any-return,misc]
                connection = self._batch_connection
                if connection is None:
                    connection = self._batch_connection = await self._batch_pool.get_connection()
                try:
                    await connection.send_command("EVALSHA", _BATCH_SHA, 0, blob)
                    return await connection.read_response()  # type: ignore[no-any-return]
                except NoScriptError:  # a fresh or restarted Redis: this loads the script
                    await connection.send_command("EVAL", _BATCH, 0, blob)
                    return await connection.read_response()  # type: ignore[no-any-return]
        except TimeoutError:
            raise RedisTimeoutError(f"a write batch took over {BATCH_TIMEOUT:g} s") from None

    async def close_race(self, race_id: str, seats: int, ended_at: float) -> tuple[float, list[int]]:
        """Stop the race taking entries, as of ``ended_at``; return the end time and every log's length.

        From then on every append to the race raises :class:`RaceClosed`, so the stored logs
        are final. A race closed before keeps its first end time, which is returned.
        """
        logs = [self.keys.log(race_id, seat) for seat in range(seats)]
        write = ["c", self.keys.closed(race_id), repr(ended_at), *logs]
        stored, *lengths = await self._queue(self.keys.race(race_id), write)
        return float(stored), [int(length) for length in lengths]

    async def load_log(self, race_id: str, seat: int) -> list[list[Any]]:
        raw = await self.redis.lrange(self.keys.log(race_id, seat), 0, -1)  # type: ignore[misc]
        return [msgpack.unpackb(entry) for entry in raw]

    async def load_finished(self, race_id: str) -> dict[int, float]:
        """When each seat's game ended, for the seats whose log ends it."""
        stored = await self.redis.hgetall(self.keys.finished(race_id))  # type: ignore[misc]
        return {int(seat): float(stamp) for seat, stamp in stored.items()}

    async def load_record(self, race_id: str) -> Race | None:
        """A race as its record has it (seats without games, ``version`` set), or ``None``."""
        # Read together, atomically: a record read apart from its version could be older than it.
        raw, version = await self._read(keys=[self.keys.race(race_id), self.keys.version(race_id)])
        if raw is None:
            return None
        race = decode_race(msgpack.unpackb(raw))
        race.version = int(version or 0)
        return race

    async def load_records(self, race_ids: list[str]) -> list[Race]:
        """The records of ``race_ids`` that exist (seats without games), in that order."""
        if not race_ids:
            return []
        async with self.redis.pipeline(transaction=False) as pipe:
            for race_id in race_ids:
                pipe.get(self.keys.race(race_id))
            raws = await pipe.execute()
        return [decode_race(msgpack.unpackb(raw)) for raw in raws if raw is not None]

    async def load_race(self, race_id: str) -> Race | None:
        """A race with every seat's game rebuilt from its log, or ``None``."""
        race = await self.load_record(race_id)
        if race is None:
            return None
        if race.seed is not None:
            await self.load_games(race)
        return race

    async def load_games(self, race: Race) -> None:
        """Rebuild every seat's game of a started race from the stored logs."""
        finished = await self.load_finished(race.id)
        closed = await self.redis.get(self.keys.closed(race.id))
        race.status, status = Status.RUNNING, race.status  # replay needs a running race
        race.start(race.started_at or 0.0, race.seed, race.salt)
        for index in range(len(race.seats)):
            race.replay_seat(index, await self.load_log(race.id, index), finished.get(index))
        race.status = status
        race.closed_at = None if closed is None else float(closed)

    async def race_version(self, race_id: str) -> int:
        """How many times the race's record was saved (0: the race never existed; a removed race's
        version stays)."""
        return int(await self.redis.get(self.keys.version(race_id)) or 0)

    async def live_nodes_of(self, player: str, live_nodes: set[str]) -> list[str]:
        """The nodes of ``live_nodes`` on which ``player`` has a connection."""
        counts = await self.redis.hgetall(self.keys.online(player))  # type: ignore[misc]
        return sorted(node.decode() for node, count in counts.items() if node.decode() in live_nodes and int(count) > 0)

    async def race_by_code(self, code: str) -> str | None:
        """The id of the unfinished race whose join code is ``code``."""
        race_id = await self.redis.get(self.keys.code(code))
        return None if race_id is None else race_id.decode()

    async def unfinished_races(self, player: str) -> list[str]:
        """The ids of the unfinished races ``player`` has a seat in (stale entries are dropped)."""
        ids = sorted(m.decode() for m in await self.redis.smembers(self.keys.player_races(player)))  # type: ignore[misc]
        records = {race.id: race for race in await self.load_records(ids)}
        stale = [
            i
            for i in ids
            if i not in records or records[i].status is Status.FINISHED or records[i].seat_of(player) is None
        ]
        if stale:
            await self.redis.srem(self.keys.player_races(player), *stale)  # type: ignore[misc]
        return [i for i in ids if i not in stale]

    async def count_races(self, player: str) -> int:
        """How many unfinished races ``player`` has a seat in (stale entries count until
        :meth:`unfinished_races` drops them)."""
        key = self.keys.player_races(player)
        return int(await self._queue(key, ["q", "SCARD", key]))

    async def listed(self, before: tuple[float, str] | None, count: int) -> list[tuple[float, str]]:
        """Up to ``count`` public unfinished races as (created_at, id), newest first (ties: the
        greatest id first), from just after ``before`` in that order."""
        top: float | str = "+inf" if before is None else before[0]
        out: list[tuple[float, str]] = []
        offset = 0
        while len(out) < count:
            want = count - len(out) + 8
            page = await self.redis.zrevrangebyscore(self.keys.listed, top, "-inf", offset, want, withscores=True)
            for member, score in page:
                key = (float(score), member.decode())
                if before is None or key < before:
                    out.append(key)
            if len(page) < want:
                break
            offset += want
        return out[:count]

    async def watch_race(self, race_id: str) -> None:
        """Note that this node holds the race in memory: its events come here from now on."""
        await self._queue(self.keys.race(race_id), ["x", [["SADD", self.keys.nodes(race_id), self.node]]])

    async def unwatch_race(self, race_id: str) -> None:
        await self._queue(self.keys.race(race_id), ["x", [["SREM", self.keys.nodes(race_id), self.node]]])

    async def save_replay(self, race_id: str, replay: dict[str, Any]) -> None:
        """Keep the built replay of a finished race (it never changes)."""
        await self.redis.set(self.keys.replay(race_id), msgpack.packb(replay, use_bin_type=True))

    async def load_replay(self, race_id: str) -> dict[str, Any] | None:
        """The replay :meth:`save_replay` kept, or ``None``."""
        raw = await self.redis.get(self.keys.replay(race_id))
        return None if raw is None else msgpack.unpackb(raw, raw=False)

    async def active_race_ids(self) -> list[str]:
        return sorted(m.decode() for m in await self.redis.smembers(self.keys.active))  # type: ignore[misc]

    async def set_aside(self, race_id: str) -> bool:
        """Move a race that cannot be recovered from the active races to the broken ones; return
        whether it was not set aside before."""
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.srem(self.keys.active, race_id)
            pipe.zrem(self.keys.listed, race_id)
            pipe.sadd(self.keys.broken, race_id)
            *_, added = await pipe.execute()
        await self.give_leases([race_id], hand=False)
        return bool(added)

    async def finished_race_ids(self, limit: int = 50) -> list[str]:
        return [m.decode() for m in await self.redis.zrevrange(self.keys.finished_races, 0, limit - 1)]

    # --- leases ----------------------------------------------------------------------

    async def heartbeat(self, held: list[str], lease: float) -> tuple[list[str], set[str]]:
        """Say this node lives and renew the leases of ``held`` for ``lease`` seconds.

        Returns the races of ``held`` whose lease another node took, and the live nodes.
        """
        lost, live = await self._beat(keys=self.keys.leases, args=[self.node, int(lease * 1000), *held])
        return [r.decode() for r in lost], {n.decode() for n in live}

    async def take_leases(self, lease: float, races: list[str] | None = None, limit: int = 50) -> dict[str, str]:
        """Take the lease of ``races`` (new races), or else of up to ``limit`` races whose lease ran out.

        Returns each race taken and the node that held it before ("" if none).
        """
        leases, holders, _ = self.keys.leases
        ids, before = await self._queue(
            leases, ["t", leases, holders, self.node, int(lease * 1000), limit, *(races or ())]
        )
        return {i.decode(): b.decode() for i, b in zip(ids, before, strict=True)}

    async def give_leases(self, races: list[str], hand: bool) -> None:
        """Give up this node's leases of ``races``: to whichever node takes them first (``hand``,
        which also says this node is leaving), or for good (the races are over)."""
        leases = self.keys.leases
        await self._queue(leases[0], ["g", *leases, self.node, "hand" if hand else "drop", *races])

    async def lease_orphans(self) -> int:
        """Give every active race without a lease one that has run out (races of older servers,
        or of a node that died between storing a race and leasing it); return how many."""
        active = await self.active_race_ids()
        if not active:
            return 0
        leases = self.keys.leases[0]
        scores = await self.redis.zmscore(leases, active)
        orphans = [race for race, score in zip(active, scores, strict=True) if score is None]
        if orphans:
            await self.redis.zadd(leases, dict.fromkeys(orphans, 0), nx=True)
        return len(orphans)


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
        "invited": [[x.player, x.name, x.expires_at, x.by, x.seed] for x in race.invited],
        "tournament": race.tournament,
        "deal": None if race.deal is None else f"{race.deal:x}",
        "max_moves": race.max_moves,
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
        invited=[Invitation(*x) for x in data.get("invited", ())],  # likewise; and without `by`
        tournament=data.get("tournament"),  # likewise
        deal=None if data.get("deal") is None else int(data["deal"], 16),
        max_moves=data.get("max_moves"),  # likewise
    )
