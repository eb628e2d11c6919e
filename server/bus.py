"""The events that cross server nodes: sharded pub/sub on one channel per race.

The store's scripts publish a race's events (an entry stored, a record saved) on the race's
channel as they write them; a node subscribes to the channels of the races it holds in
memory. Events are msgpack arrays whose first two items are the kind and the sending node:

- ``["e", node, seat, seq, entry, finished_at]``: entry ``seq`` of the seat's log was stored;
- ``["r", node, version, record]``: the race record was saved as ``version`` (an empty
  record: the race was deleted);
- ``["a", node, player]``: ``player`` has no connection left on ``node``.

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
from redis.asyncio.cluster import RedisCluster

from parlour.server.store import UNAVAILABLE, Keys

log = logging.getLogger("parlour.server")
RECONNECT = 0.5  # seconds between attempts to subscribe again after the connection to Redis broke


class Bus:
    """One node's subscriptions. ``on_event(race_id, event)`` gets every event another node
    sent; ``on_gap()`` runs after events may have been lost. Call :meth:`run` as a task."""

    def __init__(
        self,
        client: aioredis.Redis | RedisCluster,
        keys: Keys,
        node: str,
        on_event: Callable[[str, list[Any]], None],
        on_gap: Callable[[], Awaitable[None]],
    ) -> None:
        self.client = client
        self.keys = keys
        self.node = node
        self.on_event = on_event
        self.on_gap = on_gap
        self.channels: set[str] = set()
        self.received = 0  # events from other nodes
        self._cluster = isinstance(client, RedisCluster)
        self._pubsub: Any = None
        self._ready = asyncio.Event()

    async def subscribe(self, race_id: str) -> None:
        channel = self.keys.channel(race_id)
        if channel in self.channels:
            return
        self.channels.add(channel)
        await self._ready.wait()
        await self._pubsub.ssubscribe(channel)

    async def unsubscribe(self, race_id: str) -> None:
        channel = self.keys.channel(race_id)
        if channel not in self.channels:
            return
        self.channels.discard(channel)
        if self._pubsub is not None:
            with contextlib.suppress(*UNAVAILABLE):  # the subscription ends with the connection anyway
                await self._pubsub.sunsubscribe(channel)

    async def run(self) -> None:
        """Read events until cancelled, subscribing again after the connection to Redis breaks."""
        first = True
        while True:
            try:
                self._pubsub = self.client.pubsub(ignore_subscribe_messages=True)
                # A channel of the node's own keeps the connection subscribed while it holds no race.
                await self._pubsub.ssubscribe(f"{self.keys.prefix}:node:{{{self.node}}}")
                if self.channels:
                    for channel in list(self.channels):
                        await self._pubsub.ssubscribe(channel)
                self._ready.set()
                if not first:
                    await self.on_gap()
                first = False
                await self._read()
            except asyncio.CancelledError:
                raise
            except Exception as error:
                log.warning("events from other nodes: the connection to Redis broke (%s); subscribing again", error)
            finally:
                self._ready.clear()
                pubsub, self._pubsub = self._pubsub, None
                if pubsub is not None:
                    with contextlib.suppress(Exception):
                        await pubsub.aclose()
            await asyncio.sleep(RECONNECT)

    async def _read(self) -> None:
        get = self._pubsub.get_sharded_message if self._cluster else self._pubsub.get_message
        while True:
            message = await get(ignore_subscribe_messages=True, timeout=1.0)
            if message is None or message.get("type") != "smessage":
                continue
            event = msgpack.unpackb(message["data"])
            if event[1] == self.node:
                continue  # its own: already applied
            self.received += 1
            try:
                self.on_event(self.keys.race_of_channel(message["channel"]), event)
            except Exception:
                log.exception("an event from node %s failed", event[1])

    async def close(self) -> None:
        if self._pubsub is not None:
            await self._pubsub.aclose()
