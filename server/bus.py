"""The events that cross server nodes: sharded pub/sub on one channel per race.

The store's scripts publish a race's events (an entry stored, a record saved) on the race's
channel as they write them; a node subscribes to the channels of the races it holds in
memory. Events are msgpack arrays whose first two items are the kind and the sending node:

- ``["e", node, seat, seq, entry, finished_at]``: entry ``seq`` of the seat's log was stored;
- ``["r", node, version, record]``: the race record was saved as ``version`` (an empty
  record: the race was deleted);
- ``["a", node, player]``: ``player`` has no connection left on ``node``.

Each node also subscribes to a channel of its own, for what is meant for its connections
rather than for a race's followers:

- ``["i", node, player, invitation]``: deliver ``invitation`` (the wire map of the
  ``invitation`` event) to ``player``'s bot connections on this node.

On a Redis Cluster a channel lives on the shard of its hash slot (the race's), so the bus
keeps one subscriber connection per shard it needs, each read by a task of its own.

Pub/sub loses what is sent while a subscriber is disconnected: after a reconnection the
bus says so (``on_gap``), and the node reads the races it holds again.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from typing import Any

import msgpack
import redis.asyncio as aioredis
from redis.asyncio.client import PubSub
from redis.asyncio.cluster import RedisCluster
from redis.exceptions import TimeoutError as RedisTimeoutError

from parlour.server.store import UNAVAILABLE, Keys

log = logging.getLogger("parlour.server")
RECONNECT = 0.5  # seconds between attempts to subscribe again after the connection to Redis broke
SUBSCRIBE_TIMEOUT = 5.0  # seconds to wait for Redis to confirm a subscription


class _Shard:
    """The subscriptions held on one Redis server (the only one, or one shard of a Cluster)."""

    def __init__(self, client: aioredis.Redis, name: str, bus: Bus) -> None:
        self.client = client
        self.name = name
        self.bus = bus
        self.channels: dict[str, asyncio.Event] = {}  # channel -> set once Redis confirmed the subscription
        self.pubsub: PubSub | None = None
        self.task: asyncio.Task[None] | None = None

    async def subscribe(self, channel: str) -> None:
        """Subscribe to ``channel``; return once Redis confirmed it (every event published after
        that reaches this node), or raise ``TimeoutError`` after ``SUBSCRIBE_TIMEOUT`` seconds."""
        confirmed = self.channels.setdefault(channel, asyncio.Event())
        if self.task is None:
            self.task = asyncio.get_running_loop().create_task(self._run())
        elif self.pubsub is not None:  # else the (re)connection subscribes it
            await self.pubsub.ssubscribe(channel)
        try:
            async with asyncio.timeout(SUBSCRIBE_TIMEOUT):
                await confirmed.wait()
        except TimeoutError:
            raise RedisTimeoutError(f"no confirmation of the subscription to {channel}") from None

    async def unsubscribe(self, channel: str) -> None:
        self.channels.pop(channel, None)
        if self.pubsub is not None:
            with contextlib.suppress(*UNAVAILABLE):  # the subscription ends with the connection anyway
                await self.pubsub.sunsubscribe(channel)

    async def _run(self) -> None:
        first = True
        while True:
            if not self.channels:  # nothing to follow: the next subscribe() starts a new reader
                self.task = None
                return
            pubsub = self.client.pubsub()
            try:
                for confirmed in self.channels.values():
                    confirmed.clear()
                first_ones = list(self.channels)
                await pubsub.ssubscribe(*first_ones)  # this connects: subscribe() must not send its own meanwhile
                self.pubsub = pubsub  # from now on, subscribe() sends its own
                later = [channel for channel in self.channels if channel not in first_ones]
                if later:
                    await pubsub.ssubscribe(*later)
                gap = not first  # read the races again once Redis confirmed every subscription, not before
                first = False
                while True:
                    if gap and all(event.is_set() for event in self.channels.values()):
                        gap = False
                        await self.bus.on_gap()
                    message = await pubsub.get_message(timeout=1.0)
                    if message is None:
                        continue
                    kind, channel = message.get("type"), message.get("channel")
                    if kind == "smessage":
                        self.bus.deliver(channel, message["data"])
                    elif kind == "ssubscribe" and isinstance(channel, bytes):
                        confirmed = self.channels.get(channel.decode())
                        if confirmed is not None:
                            confirmed.set()
            except asyncio.CancelledError:
                raise
            except Exception as error:
                log.warning("events from %s: the connection broke (%s); subscribing again", self.name, error)
            finally:
                self.pubsub = None
                with contextlib.suppress(Exception):
                    await pubsub.aclose()
            await asyncio.sleep(RECONNECT)


class Bus:
    """One node's subscriptions. ``on_event(race_id, event)`` gets every event another node
    sent about a race; ``on_direct(event)`` every event sent on this node's own channel (once
    :meth:`subscribe_node` ran); ``on_gap()`` runs after events may have been lost."""

    def __init__(
        self,
        client: aioredis.Redis | RedisCluster,
        keys: Keys,
        node: str,
        on_event: Callable[[str, list[Any]], None],
        on_gap: Callable[[], Awaitable[None]],
        on_direct: Callable[[list[Any]], None] = lambda _: None,
    ) -> None:
        self.client = client
        self.keys = keys
        self.node = node
        self.on_event = on_event
        self.on_gap = on_gap
        self.on_direct = on_direct
        self.shards: dict[str, _Shard] = {}
        self.subscribed: dict[str, _Shard] = {}  # channel -> the shard it is subscribed on
        self.own = keys.node_channel(node)
        self._own = self.own.encode()

    async def subscribe_node(self) -> None:
        """Follow this node's own channel (for as long as the bus runs)."""
        if self.own not in self.subscribed:
            shard = self._shard(self.own)
            self.subscribed[self.own] = shard
            await shard.subscribe(self.own)

    async def subscribe(self, race_id: str) -> None:
        channel = self.keys.channel(race_id)
        if channel not in self.subscribed:
            shard = self._shard(channel)
            self.subscribed[channel] = shard
            await shard.subscribe(channel)

    async def unsubscribe(self, race_id: str) -> None:
        shard = self.subscribed.pop(self.keys.channel(race_id), None)
        if shard is not None:
            await shard.unsubscribe(self.keys.channel(race_id))

    def _shard(self, channel: str) -> _Shard:
        if not isinstance(self.client, RedisCluster):
            name = ""
            if name not in self.shards:  # its own connections: a subscribed one takes no commands
                self.shards[name] = _Shard(aioredis.Redis(connection_pool=self.client.connection_pool), "redis", self)
            return self.shards[name]
        node = self.client.get_node_from_key(channel)
        if node.name not in self.shards:
            pool = aioredis.ConnectionPool(connection_class=node.connection_class, **node.connection_kwargs)
            self.shards[node.name] = _Shard(aioredis.Redis(connection_pool=pool), node.name, self)
        return self.shards[node.name]

    def deliver(self, channel: bytes, data: bytes) -> None:
        event = msgpack.unpackb(data)
        if event[1] == self.node:
            return  # its own: already applied
        try:
            if channel == self._own:
                self.on_direct(event)
            else:
                self.on_event(self.keys.race_of_channel(channel), event)
        except Exception:
            log.exception("an event from node %s failed", event[1])

    async def close(self) -> None:
        for shard in self.shards.values():
            task = shard.task
            if task is not None:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
            if isinstance(self.client, RedisCluster):
                await shard.client.aclose()
