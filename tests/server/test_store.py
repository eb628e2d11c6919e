"""The store against a real Redis (the embedded one, or ``PARLOUR_TEST_REDIS_URL``): batched writes."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import msgpack
import pytest
import pytest_asyncio
import redis.asyncio as aioredis

from parlour.server.embedded_redis import EmbeddedRedis
from parlour.server.race import Race, Settings, Status
from parlour.server.store import Appended, LogConflict, RaceClosed, Store, VersionConflict
from tests.conftest import REDIS_URL, flush_test_redis


@pytest.fixture
def redis_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    if REDIS_URL:
        flush_test_redis()
        yield REDIS_URL
        return
    embedded = EmbeddedRedis(Path(tmp_path_factory.mktemp("st", numbered=True)))
    embedded.start()
    try:
        yield embedded.url
    finally:
        embedded.stop()


@pytest_asyncio.fixture
async def store(redis_url: str) -> AsyncIterator[Store]:
    store = Store(aioredis.Redis.from_url(redis_url), node="n1")
    yield store
    await store.close()


@pytest_asyncio.fixture
async def other(redis_url: str) -> AsyncIterator[Store]:
    """A second node's store on the same Redis."""
    store = Store(aioredis.Redis.from_url(redis_url), node="n2")
    yield store
    await store.close()


def open_race(race_id: str) -> Race:
    race = Race(id=race_id, settings=Settings(game="golf", options={}, seats=2), created_by="p1", created_at=1.0)
    race.join("p1", "ann", False)
    return race


@pytest.mark.asyncio
async def test_appends_check_the_expected_length_even_within_one_batch(store: Store) -> None:
    # Made in the same turn of the loop, these go to Redis as one batch, applied in order.
    first, twin, second, skipped = (
        store.append("r1", 0, 0, ["turn"]),
        store.append("r1", 0, 0, ["play", "p1"]),  # entry 0 again: refused, the log holds 1
        store.append("r1", 0, 1, ["play", "p2"]),
        store.append("r1", 0, 5, ["turn"]),  # a gap: refused, the log holds 2
    )
    assert (await first).length == 1
    with pytest.raises(LogConflict) as conflict:
        await twin
    assert conflict.value.length == 1
    assert (await second).length == 2
    with pytest.raises(LogConflict) as gap:
        await skipped
    assert gap.value.length == 2
    assert await store.load_log("r1", 0) == [["turn"], ["play", "p2"]]


@pytest.mark.asyncio
async def test_many_concurrent_writers_keep_every_log_whole_and_in_order(store: Store) -> None:
    async def seat(race: str, moves: int) -> None:
        for seq in range(moves):
            assert (await store.append(race, 0, seq, ["move", f"m{seq}"])).length == seq + 1

    await asyncio.gather(*(seat(f"r{i}", 30) for i in range(40)))
    for i in range(40):
        assert await store.load_log(f"r{i}", 0) == [["move", f"m{seq}"] for seq in range(30)]


@pytest.mark.asyncio
async def test_a_saved_race_record_loads_back_and_is_tracked_as_active_then_finished(store: Store) -> None:
    race = Race(id="abc123", settings=Settings(game="golf", options={}, seats=1), created_by="p1", created_at=1.0)
    race.join("p1", "ann", False)
    race.start(2.0)
    entry = race.game.legal_moves(race.seats[0].state)[0].wire()
    await store.append(race.id, 0, 0, entry)
    race.record(0, entry, race.next_state(0, entry), 3.0)
    race.version = await store.save_race(race)
    assert await store.active_race_ids() == ["abc123"]
    loaded = await store.load_race("abc123")
    assert loaded is not None and loaded.seed == race.seed and loaded.salt == race.salt
    assert loaded.seats[0].log == race.seats[0].log and loaded.seats[0].state == race.seats[0].state
    race.finish(4.0)
    await store.save_race(race)
    assert await store.active_race_ids() == [] and await store.finished_race_ids() == ["abc123"]
    finished = await store.load_race("abc123")
    assert finished is not None and finished.status is Status.FINISHED and finished.results == race.results


@pytest.mark.asyncio
async def test_the_time_a_game_ended_is_stored_with_the_entry_that_ended_it(store: Store) -> None:
    race = Race(id="fin1", settings=Settings(game="golf", options={}, seats=2), created_by="p1", created_at=1.0)
    race.join("p1", "ann", False)
    race.join("p2", "bob", True)
    race.start(2.0)
    await store.save_race(race)  # the record says nothing of how the games went
    concede = ["concede"]
    refused = store.append(race.id, 1, 3, concede, 9.0)  # the log holds 0 entries: neither is written
    assert (await store.append(race.id, 0, 0, concede, 5.25)).length == 1
    with pytest.raises(LogConflict):
        await refused
    loaded = await store.load_race("fin1")
    assert loaded is not None
    assert loaded.seats[0].state.ended is not None and loaded.seats[0].finished_at == 5.25
    assert loaded.seats[1].state.ended is None and loaded.seats[1].finished_at is None
    ann = next(result for result in loaded.finish(10.0) if result["seat"] == 0)
    assert ann["time"] == 3.25  # 5.25 - 2.0


@pytest.mark.asyncio
async def test_a_closed_race_takes_no_entry_whichever_node_sends_it(store: Store) -> None:
    # Issue 9 item 1: Redis decides what lands before the end.
    in_batch = store.append("c1", 0, 0, ["turn"])  # queued before the close: stored
    assert (await in_batch).length == 1
    assert await store.close_race("c1", 2, 7.5) == (7.5, [1, 0])
    late = [store.append("c1", 0, 1, ["turn"]), store.append("c1", 1, 0, ["concede"], 8.0)]
    for refused in late:
        with pytest.raises(RaceClosed):
            await refused
    assert await store.close_race("c1", 2, 9.0) == (7.5, [1, 0])  # closed once: the first end time stays
    assert await store.load_log("c1", 0) == [["turn"]] and await store.load_log("c1", 1) == []
    assert await store.load_finished("c1") == {}


@pytest.mark.asyncio
async def test_a_record_is_saved_only_over_the_version_it_was_read_at(store: Store, other: Store) -> None:
    race = open_race("v1")
    race.version = await store.save_race(race)
    assert race.version == 1
    theirs = await other.load_record("v1")
    assert theirs is not None and theirs.version == 1
    theirs.join("p2", "bob", False)
    theirs.version = await other.save_race(theirs)  # the other node saves first
    race.join("p3", "cy", False)
    with pytest.raises(VersionConflict) as conflict:
        await store.save_race(race)  # over version 1: refused, nothing written
    assert conflict.value.version == 2
    stored = await store.load_record("v1")
    assert stored is not None and [s.player for s in stored.seats] == ["p1", "p2"] and stored.version == 2
    assert await store.unfinished_races("p2") == ["v1"] and await store.unfinished_races("p3") == []


@pytest.mark.asyncio
async def test_an_entry_is_published_only_when_another_node_holds_the_race(store: Store, other: Store) -> None:
    await store.watch_race("x1")
    assert (await store.append("x1", 0, 0, ["turn"])) == Appended(1, crossed=False)  # only this node holds it
    pubsub = other.redis.pubsub()
    await pubsub.ssubscribe(other.keys.channel("x1"))
    await other.watch_race("x1")
    assert (await store.append("x1", 0, 1, ["turn"], 4.5)) == Appended(2, crossed=True)
    message = None
    while message is None or message["type"] != "smessage":
        message = await pubsub.get_message(timeout=2.0)
    assert msgpack.unpackb(message["data"]) == ["e", "n1", 0, 1, ["turn"], 4.5]
    await pubsub.aclose()


@pytest.mark.asyncio
async def test_a_lease_passes_to_another_node_only_once_it_runs_out_or_is_handed_over(
    store: Store, other: Store
) -> None:
    # Leases of 2 s: the next two calls come well within them, however loaded the machine.
    assert await store.take_leases(2.0, ["l1", "l2"]) == {"l1": "", "l2": ""}
    assert await other.take_leases(2.0) == {}  # held
    lost, live = await store.heartbeat(["l1", "l2"], 2.0)
    assert lost == [] and "n1" in live
    await asyncio.sleep(2.5)  # n1 stops beating: its leases run out
    assert await other.take_leases(5.0) == {"l1": "n1", "l2": "n1"}
    lost, _ = await store.heartbeat(["l1", "l2"], 5.0)
    assert lost == ["l1", "l2"]
    await other.give_leases(["l1"], hand=True)  # n2 stops cleanly: n1 takes l1 at once
    assert await store.take_leases(5.0) == {"l1": "n2"}
    await store.give_leases(["l1"], hand=False)  # the race is over: nobody takes it again
    assert await other.take_leases(5.0) == {}


@pytest.mark.asyncio
async def test_instances_with_different_prefixes_share_one_redis_without_seeing_each_other(redis_url: str) -> None:
    first = Store(aioredis.Redis.from_url(redis_url), prefix="one", node="a")
    second = Store(aioredis.Redis.from_url(redis_url), prefix="two", node="b")
    try:
        race = open_race("same")
        await first.save_race(race)
        assert await second.load_record("same") is None
        assert await second.active_race_ids() == [] and await first.active_race_ids() == ["same"]
        assert (await second.append("same", 0, 0, ["turn"])).length == 1
        assert await first.load_log("same", 0) == []
        keys = sorted(k.decode() for k in await first.redis.keys("*"))
        assert all(k.startswith(("one:", "two:")) for k in keys), keys
    finally:
        await first.close()
        await second.close()
