"""The lobby on a real server process: seats, leaving, readiness, limits, and identities in Redis."""

from __future__ import annotations

import asyncio
import hashlib
import signal
import time
import urllib.request
from typing import Any

import pytest
import redis.asyncio as aioredis

from parlour.client.connection import Client, ClientError
from parlour.protocol.codec import encode
from parlour.protocol.messages import Countdown, RaceUpdate, Start
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
    server = server_factory("--countdown", "3")  # time enough to say not ready during it, however loaded the machine
    server.start()
    ann, bob = [await Client.connect(server.url, name) for name in ("ann", "bob")]
    race = (await ann.create("golf", seats=2)).race["id"]
    await bob.join(race)
    await ann.ready(race)
    await bob.ready(race)
    assert (await ann.next_event(Countdown, race)).starts_in == pytest.approx(3, abs=0.2)  # from when it is sent
    info = await bob.ready(race, False)
    assert info.race["status"] == "open"
    await asyncio.sleep(3.5)  # past the countdown that was stopped
    assert (await ann.snapshot(race)).race["status"] == "open"
    await bob.ready(race)  # a new countdown, and the start
    assert (await ann.next_event(Start, race, timeout=15)).seq == 0
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


async def expired(client: Client, race: str, timeout: float) -> dict[str, Any]:
    """The race_update that says ``race`` expired (waiting up to ``timeout`` s)."""
    deadline = time.monotonic() + timeout
    while True:
        update = await client.next_event(RaceUpdate, race, timeout=max(0.01, deadline - time.monotonic()))
        if update.race["status"] == "expired":
            return update.race


def metric(server: ServerProcess, name: str) -> float:
    with urllib.request.urlopen(f"{server.http}/metrics", timeout=5) as response:
        lines = response.read().decode().splitlines()
    return float(next(line.split()[1] for line in lines if line.startswith(name + " ")))


async def test_the_lobby_comes_in_small_pages_own_races_first_then_newest_first(server_factory: Any) -> None:
    server = server_factory("--max-races", "200", "--race-burst", "500", "--rate", "5000", "--burst", "5000")
    server.start()
    # 120 full races of 8 seats whose players have the longest names (32 characters of 4 bytes each).
    players = [await Client.connect(server.url, chr(0x1D538 + i) * 32) for i in range(8)]

    async def create(creator: Client) -> list[str]:
        return [(await creator.create("the-chance", seats=8)).race["id"] for _ in range(15)]

    others = [race for made in await asyncio.gather(*(create(p) for p in players)) for race in made]

    async def join_all(player: Client) -> None:
        for race in others:
            await player.join(race)

    await asyncio.gather(*(join_all(p) for p in players))
    hidden = (await players[0].create("golf", public=False)).race["id"]
    vic = await Client.connect(server.url, "vic")
    mine = [(await vic.create("golf", public=public)).race["id"] for public in (True, False, True)]

    first = await vic.lobby(limit=100)
    assert len(first.races) == 100 and first.next is not None
    assert len(encode(first)) < 300_000, len(encode(first))  # 100 of the largest summaries: far under 1 MiB
    assert [r["id"] for r in first.races[:3]] == mine[::-1]  # own races first (the private one too), newest first
    assert all("code" in r for r in first.races[:3]) and not any("code" in r for r in first.races[3:])
    assert all(len(r["players"]) == 8 for r in first.races[3:])
    second = await vic.lobby(limit=100, after=first.next)
    assert len(second.races) == 23 and second.next is None
    listed = first.races[3:] + second.races
    assert sorted(r["id"] for r in listed) == sorted(others) and hidden not in {r["id"] for r in listed}
    stamps = [r["created_at"] for r in listed]
    assert stamps == sorted(stamps, reverse=True)  # newest first
    assert [r["id"] for r in await vic.lobby_all(limit=7)] == [r["id"] for r in first.races + second.races]
    assert len((await vic.lobby()).races) == 50  # the default page
    # A player's own races come first for them too: players[0] is seated in all 120, and in the private one.
    own = await players[0].lobby(limit=100)
    assert own.races[0]["id"] == hidden and all("code" in r for r in own.races)
    assert await refused(vic.lobby(after="not a cursor")) == "bad_message"
    assert await refused(vic.lobby(limit=101)) == "bad_message"
    for client in [*players, vic]:
        await client.close()


async def test_an_open_race_nobody_joins_expires_and_a_join_restarts_its_clock(server_factory: Any) -> None:
    # The join comes half way through the timeout: 2 s of room on either side, however loaded the machine.
    server = server_factory("--open-timeout", "4")
    server.start()
    ann, bob = [await Client.connect(server.url, name) for name in ("ann", "bob")]
    joined = (await ann.create("golf", seats=3)).race
    lonely = (await ann.create("golf", seats=2, public=False)).race
    await asyncio.sleep(2)
    await bob.join(joined["id"])  # the clock of this race starts again
    gone = await expired(ann, lonely["id"], timeout=15)  # 4 s after its creation
    assert gone["status"] == "expired" and gone["id"] == lonely["id"]
    assert await refused(bob.join(code=lonely["code"])) == "unknown_race"
    assert await refused(ann.snapshot(lonely["id"])) == "unknown_race"
    assert [r["id"] for r in (await ann.lobby()).races] == [joined["id"]]
    for client in (ann, bob):  # 4 s after the join, both of its players are told
        assert (await expired(client, joined["id"], timeout=15))["players"][1]["name"] == "bob"
    assert (await ann.lobby()).races == [] and (await bob.lobby()).races == []
    again = await Client.connect(server.url, "ann", token=ann.token)
    assert again.races == []
    assert metric(server, "parlour_races_expired_total") == 2
    if not REDIS_URL:  # removed from Redis too
        redis = aioredis.Redis.from_url(EmbeddedRedis(server.data_dir).url)
        assert await redis.exists(f"parlour:race:{{{joined['id']}}}") == 0
        assert await redis.smembers("parlour:races:active") == set()
        await redis.aclose()
    for client in (ann, bob, again):
        await client.close()


async def test_an_open_race_whose_players_all_went_away_expires_and_one_who_comes_back_keeps_it(
    server_factory: Any,
) -> None:
    server = server_factory("--abandoned-timeout", "3")
    server.start()
    ann, bob, cy, watcher = [await Client.connect(server.url, name) for name in ("ann", "bob", "cy", "dan")]
    left = (await ann.create("golf", seats=3)).race["id"]
    await bob.join(left)
    kept = (await cy.create("golf", seats=2)).race["id"]
    await watcher.spectate(left)
    await ann.close()
    await cy.close()  # from now on nobody of `kept` is connected
    await asyncio.sleep(0.5)
    await bob.close()  # nor of `left`, whose clock starts after the one of `kept`
    cy = await Client.connect(server.url, "cy", token=cy.token)  # back within the timeout
    await expired(watcher, left, timeout=15)
    assert [r["id"] for r in (await watcher.lobby()).races] == [kept]
    ann = await Client.connect(server.url, "ann", token=ann.token)
    assert ann.races == [] and cy.races == [kept]
    for client in (ann, cy, watcher):
        await client.close()


async def test_open_races_recovered_after_a_restart_expire_when_nobody_comes_back(server_factory: Any) -> None:
    server = server_factory("--abandoned-timeout", "3")
    server.start()
    ann = await Client.connect(server.url, "ann", reconnect=False)
    race = (await ann.create("golf")).race["id"]
    await ann.close()
    server.kill()
    server.start()
    dan = await Client.connect(server.url, "dan")
    assert [r["id"] for r in (await dan.lobby()).races] == [race]  # recovered
    deadline = time.monotonic() + 15
    while (await dan.lobby()).races:  # until it expires
        assert time.monotonic() < deadline, "the recovered race did not expire"
        await asyncio.sleep(0.1)
    await dan.close()


async def test_an_open_race_left_by_its_last_connected_player_expires_when_the_others_are_away(
    server_factory: Any,
) -> None:
    """The abandoned clock starts when the last connected player goes away by leaving, too."""
    server = server_factory("--abandoned-timeout", "1")
    server.start()
    ann, bob, dan = [await Client.connect(server.url, name) for name in ("ann", "bob", "dan")]
    race = (await ann.create("golf", seats=3)).race["id"]
    await bob.join(race)
    await bob.close()  # ann is still connected: the race is attended
    await dan.spectate(race)
    await ann.leave(race)  # from now on none of its players is connected
    gone = await expired(dan, race, timeout=15)
    assert [p["name"] for p in gone["players"]] == ["bob"]
    assert await refused(dan.snapshot(race)) == "unknown_race"
    for client in (ann, dan):
        await client.close()
