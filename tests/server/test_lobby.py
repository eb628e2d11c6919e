"""The lobby on a real server process: seats, leaving, readiness, limits, and identities in Redis."""

from __future__ import annotations

import asyncio
import hashlib
import signal
from typing import Any

import pytest
import redis.asyncio as aioredis

from parlour.client.connection import Client, ClientError
from parlour.protocol.messages import Countdown, Start
from parlour.server.embedded_redis import EmbeddedRedis
from tests.conftest import REDIS_URL, ServerProcess

pytestmark = pytest.mark.asyncio


async def refused(call: Any) -> str:
    """The error code a request is refused with."""
    with pytest.raises(ClientError) as info:
        await call
    return str(info.value.code)


async def test_a_full_race_and_a_started_race_refuse_more_players(server: ServerProcess) -> None:
    ann, bob, cy = [await Client.connect(server.url, name) for name in ("ann", "bob", "cy")]
    race = (await ann.create("golf", seats=2)).race["id"]
    await bob.join(race)
    assert len((await bob.join(race)).race["players"]) == 2  # joining twice keeps the one seat
    assert await refused(cy.join(race)) == "race_full"
    await ann.ready(race)
    await bob.ready(race)
    await ann.next_event(Start, race)
    assert await refused(cy.join(race)) == "race_started"
    assert await refused(bob.leave(race)) == "race_started"  # too late: concede instead
    for client in (ann, bob, cy):
        await client.close()


async def test_leaving_frees_the_seat_and_the_last_one_out_removes_the_race(server: ServerProcess) -> None:
    ann, bob = [await Client.connect(server.url, name) for name in ("ann", "bob")]
    race = (await ann.create("carpet", seats=2)).race["id"]
    await bob.join(race)
    await bob.leave(race)
    (listed,) = (await ann.lobby()).races
    assert [p["name"] for p in listed["players"]] == ["ann"]
    await ann.leave(race)
    assert (await bob.lobby()).races == []
    assert await refused(bob.join(race)) == "unknown_race"
    await ann.close()
    await bob.close()


async def test_saying_not_ready_stops_the_countdown(server_factory: Any) -> None:
    server = server_factory("--countdown", "1")
    server.start()
    ann, bob = [await Client.connect(server.url, name) for name in ("ann", "bob")]
    race = (await ann.create("golf", seats=2)).race["id"]
    await bob.join(race)
    await ann.ready(race)
    await bob.ready(race)
    assert (await ann.next_event(Countdown, race)).starts_in == 1
    info = await bob.ready(race, False)
    assert info.race["status"] == "open"
    await asyncio.sleep(1.5)  # past the countdown that was stopped
    assert (await ann.snapshot(race)).race["status"] == "open"
    await bob.ready(race)  # a new countdown, and the start
    assert (await ann.next_event(Start, race, timeout=5)).seq == 0
    await ann.close()
    await bob.close()


async def test_a_player_sits_in_at_most_max_races_unfinished_races(server_factory: Any) -> None:
    server = server_factory("--max-races", "2")
    server.start()
    ann, bob = [await Client.connect(server.url, name) for name in ("ann", "bob")]
    first = (await ann.create("golf")).race["id"]
    await ann.create("golf")
    assert await refused(ann.create("golf")) == "too_many_races"
    other = (await bob.create("golf")).race["id"]
    assert await refused(ann.join(other)) == "too_many_races"
    await ann.leave(first)  # a seat given up counts no more
    await ann.join(other)
    await ann.close()
    await bob.close()


@pytest.mark.skipif(bool(REDIS_URL), reason="reads the embedded Redis of the server")
async def test_a_token_is_stored_only_as_its_hash(server: ServerProcess) -> None:
    ann = await Client.connect(server.url, "ann")
    assert ann.token is not None
    redis = aioredis.Redis.from_url(EmbeddedRedis(server.data_dir).url)
    stored = []
    async for key in redis.scan_iter():
        stored.append(key)
        kind = (await redis.type(key)).decode()
        if kind == "string":
            stored.append(await redis.get(key))
        elif kind == "hash":
            stored += [x for pair in (await redis.hgetall(key)).items() for x in pair]
        elif kind == "set":
            stored += await redis.smembers(key)
        elif kind == "list":
            stored += await redis.lrange(key, 0, -1)
        elif kind == "zset":
            stored += await redis.zrange(key, 0, -1)
    await redis.aclose()
    everything = b" ".join(stored)
    assert ann.token.encode() not in everything
    assert hashlib.sha256(ann.token.encode()).hexdigest().encode() in everything
    await ann.close()


async def test_sigint_stops_the_server_cleanly(server: ServerProcess) -> None:
    assert server.process is not None
    server.process.send_signal(signal.SIGINT)
    assert await asyncio.to_thread(server.process.wait, 15) == 0
    assert not (server.data_dir / "redis.pid").exists()  # the embedded Redis stopped with it
