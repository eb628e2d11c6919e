"""Races across three server nodes that share one store (issue 10): any node serves any client, and the
race-wide steps (countdown, start, deadline, finish) happen once, whichever nodes the racers are on.

Three real ``parlour serve`` processes on one embedded Redis (the first test also on a real Redis Cluster of
three primaries), real websockets through the client library. Nodes die by SIGKILL and stop by SIGTERM
mid-race; a client of a dead node reconnects (the client library's resume, with its token) to another node,
as a load balancer would send it. What happened once is counted by summing each node's /metrics counters.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from typing import Any

import msgpack
import pytest
import pytest_asyncio
import redis

from parlour.client.connection import Client, ClientError, Invitation, Resumed
from parlour.protocol.messages import Countdown, End, Progress, Start
from parlour.protocol.replay import verify_replay
from parlour.server.store import Keys
from tests.bots.helpers import bot_online
from tests.conftest import ServerProcess
from tests.server.multinode import (
    COUNTDOWNS,
    DEADLINES,
    FINISHES,
    STARTS,
    Player,
    Seat,
    expect_counts,
    metrics,
    node_id,
    start_nodes,
)

pytestmark = pytest.mark.asyncio

Connect = Callable[[ServerProcess, str], Awaitable[Player]]


@pytest.fixture(params=["one-redis", "redis-cluster"])
def store(request: pytest.FixtureRequest) -> tuple[str, tuple[str, ...]]:
    """Where the nodes keep their data: its URL, and the flags that say what it is."""
    if request.param == "redis-cluster":
        return request.getfixturevalue("valkey_cluster").url, ("--redis-cluster",)
    return request.getfixturevalue("shared_redis"), ()


@pytest_asyncio.fixture
async def connect() -> AsyncIterator[Connect]:
    """``await connect(node, name)``: a new player connected to ``node``; every one is closed after the test."""
    players: list[Player] = []

    async def connect_to(node: ServerProcess, name: str) -> Player:
        player = await Player.connect(node, name)
        players.append(player)
        return player

    yield connect_to
    for player in players:
        await player.close()


async def race_across(connect: Connect, nodes: Sequence[ServerProcess], **settings: Any) -> tuple[str, list[Player]]:
    """A race of Golf for two on three nodes: ann on node 1 creates it, sam on node 3 watches it, bob on node 2
    joins it; bob says ready, then ann (so the creator's node is the one that begins the countdown).

    Returns the race id and the players ann, bob, sam; every one has had the race's `Countdown`.
    """
    ann, bob, sam = await connect(nodes[0], "ann"), await connect(nodes[1], "bob"), await connect(nodes[2], "sam")
    race = (await ann.client.create("golf", seats=2, **settings)).race["id"]
    await sam.client.spectate(race)
    await bob.client.join(race)
    await bob.client.ready(race)
    await ann.client.ready(race)
    for racer in (ann, bob):
        await racer.first(Countdown, race)
    return race, [ann, bob, sam]


def moves_of(seat: Seat) -> list[int]:
    """The standing-move counts the others must see in this seat's `Progress`, one per entry (no undo here)."""
    return list(range(1, len(seat.log) + 1))


async def same_replay_everywhere(race: str, players: Sequence[Player], end: End, seats: Sequence[Seat]) -> None:
    """The replay asked from each player's node is one and the same, verifies, and holds exactly the
    acknowledged entries of every seat and the results of the `end`."""
    replays = [(await player.client.replay(race)).replay for player in players]
    assert all(replay == replays[0] for replay in replays), "the nodes give different replays"
    replay = replays[0]
    assert verify_replay(replay) == []
    assert [seat["log"] for seat in replay["seats"]] == [seat.log for seat in seats]
    assert replay["results"] == end.results
    assert (replay["seed"], replay["salt"], replay["commitment"]) == (end.seed, end.salt, end.commitment)


def heard_once(players: Sequence[Player], race: str, *types: type) -> None:
    """Each player got exactly one event of each of ``types`` about the race."""
    for player in players:
        for type_ in types:
            count = len(player.every(type_, race))
            assert count == 1, f"{player.client.name} got {count} {type_.__name__} events"


async def test_each_node_names_itself_in_the_welcome_and_in_its_metrics(
    shared_redis: str, server_factory: Any, connect: Connect
) -> None:
    nodes = start_nodes(server_factory, shared_redis)
    ids = [node_id(samples) for samples in await metrics(nodes)]
    assert len(set(ids)) == 3, ids  # the same host name, but three nodes
    for node, node_name in zip(nodes, ids, strict=True):
        assert node_name in (await connect(node, "ann")).client.server


async def test_a_race_across_three_nodes_ends_once_with_the_same_results_on_every_node(
    store: tuple[str, tuple[str, ...]], server_factory: Any, connect: Connect
) -> None:
    url, flags = store
    nodes = start_nodes(server_factory, url, *flags)
    race, (ann, bob, sam) = await race_across(connect, nodes)
    starts = [await racer.first(Start, race) for racer in (ann, bob)]
    assert starts[0].view["board"] == starts[1].view["board"] and starts[0].commitment == starts[1].commitment
    assert [start.seat for start in starts] == [0, 1]
    seats = [await Seat.started(ann, race), await Seat.started(bob, race)]
    # Golf ends by its rules within 51 moves: both racers play their games out, at once.
    await asyncio.gather(seats[0].play(random.Random(1)), seats[1].play(random.Random(2)))

    ends = [await player.first(End, race) for player in (ann, bob, sam)]
    assert ends[1] == ends[0] and ends[2] == ends[0], "the racers and the spectator got different ends"
    end = ends[0]
    assert end.commitment == starts[0].commitment
    by_seat = sorted(end.results, key=lambda result: result["seat"])
    assert [(r["moves"], r["ended"], r["score"]) for r in by_seat] == [
        (len(seat.log), seat.view["ended"], seat.view["score"]) for seat in seats
    ]
    await same_replay_everywhere(race, [ann, bob, sam], end, seats)
    # Every entry's progress crossed to the other nodes once, in order, before the end it may have brought.
    assert bob.progress(race, 0) == moves_of(seats[0])
    assert ann.progress(race, 1) == moves_of(seats[1])
    assert [sam.progress(race, 0), sam.progress(race, 1)] == [moves_of(seats[0]), moves_of(seats[1])]

    heard_once([ann, bob], race, Countdown, Start, End)
    heard_once([sam], race, End)
    await expect_counts(nodes, {COUNTDOWNS: 1, STARTS: 1, DEADLINES: 0, FINISHES: 1})


async def test_a_race_across_three_nodes_ends_once_at_its_deadline(
    shared_redis: str, server_factory: Any, connect: Connect
) -> None:
    nodes = start_nodes(server_factory, shared_redis)
    race, (ann, bob, sam) = await race_across(connect, nodes, time_limit=10)
    seats = [await Seat.started(ann, race), await Seat.started(bob, race)]
    deadline = (await ann.first(Start, race)).deadline
    await asyncio.gather(seats[0].play(random.Random(1), 3), seats[1].play(random.Random(2), 3))

    ends = [await player.first(End, race, timeout=deadline - time.time() + 30) for player in (ann, bob, sam)]
    assert time.time() >= deadline, "the race ended before its deadline"
    assert ends[1] == ends[0] and ends[2] == ends[0], "the racers and the spectator got different ends"
    end = ends[0]
    assert [(r["ended"], r["time"]) for r in end.results] == [("out_of_time", 10)] * 2
    await same_replay_everywhere(race, [ann, bob, sam], end, seats)
    assert bob.progress(race, 0) == ann.progress(race, 1) == [1, 2, 3]
    assert sam.progress(race, 0) == sam.progress(race, 1) == [1, 2, 3]

    heard_once([ann, bob], race, Countdown, Start, End)
    heard_once([sam], race, End)
    await expect_counts(nodes, {COUNTDOWNS: 1, STARTS: 1, DEADLINES: 1, FINISHES: 1})


async def test_a_node_killed_mid_race_costs_its_racer_one_reconnection_and_no_acknowledged_move(
    shared_redis: str, server_factory: Any, connect: Connect
) -> None:
    nodes = start_nodes(server_factory, shared_redis)
    race, (ann, bob, sam) = await race_across(connect, nodes)
    seats = [await Seat.started(ann, race), await Seat.started(bob, race)]
    await seats[0].play(random.Random(1), 5)
    await seats[1].play(random.Random(2), 3)
    for watcher, seat, moves in ((bob, 0, 5), (sam, 0, 5), (ann, 1, 3), (sam, 1, 3)):  # nothing is in flight
        await watcher.first(Progress, race, lambda p, s=seat, n=moves: p.seat == s and p.moves == n)
    bob_plays_on = asyncio.create_task(seats[1].play(random.Random(3), pause=0.05))  # through the kill, on node 2

    ann.client.url = nodes[2].url  # where a load balancer would send her next connection
    nodes[0].kill()  # SIGKILL: node 1 held ann's connection and began the race's countdown
    await seats[0].play(random.Random(4), 1)  # sent while her client reconnects, answered once it has
    resumed = await ann.first(Resumed)
    assert race in resumed.races
    snapshot = await ann.client.snapshot(race)
    assert (snapshot.seq, snapshot.view) == (6, seats[0].view)  # the five moves acknowledged by node 1 and this one
    await seats[0].play(random.Random(5))  # her game, played out on node 3
    await bob_plays_on

    ends = [await player.first(End, race) for player in (ann, bob, sam)]
    assert ends[1] == ends[0] and ends[2] == ends[0], "the racers and the spectator got different ends"
    assert {r["seat"]: r["moves"] for r in ends[0].results} == {0: len(seats[0].log), 1: len(seats[1].log)}
    await same_replay_everywhere(race, [ann, bob, sam], ends[0], seats)  # node 3, node 2, node 3
    # ann's entries reached the others from node 1, then from node 3; bob's from node 2 all along.
    assert bob.progress(race, 0) == moves_of(seats[0])
    assert [sam.progress(race, 0), sam.progress(race, 1)] == [moves_of(seats[0]), moves_of(seats[1])]

    heard_once([ann, bob, sam], race, End)
    await expect_counts(nodes[1:], {DEADLINES: 0, FINISHES: 1})


async def test_the_timers_of_a_killed_nodes_race_fire_on_another_node(
    shared_redis: str, server_factory: Any, connect: Connect
) -> None:
    """The race's lease (5 s) passes to another node, which ends the race at its deadline."""
    nodes = start_nodes(server_factory, shared_redis)
    race, (ann, bob, sam) = await race_across(connect, nodes, time_limit=10)
    seats = [await Seat.started(ann, race), await Seat.started(bob, race)]
    deadline = (await ann.first(Start, race)).deadline
    await seats[0].play(random.Random(1), 2)

    ann.client.url = nodes[2].url
    nodes[0].kill()  # the node that created the race, began its countdown and (by then) held its lease
    await seats[0].play(random.Random(2), 2)  # on node 3, once reconnected
    await seats[1].play(random.Random(3), 2)  # on node 2

    # The lease runs out 5 s after the kill at most: far before the deadline, unless the machine is starved.
    ends = [await player.first(End, race, timeout=deadline - time.time() + 30) for player in (ann, bob, sam)]
    assert time.time() >= deadline, "the race ended before its deadline"
    assert ends[1] == ends[0] and ends[2] == ends[0], "the racers and the spectator got different ends"
    assert [(r["ended"], r["time"]) for r in ends[0].results] == [("out_of_time", 10)] * 2
    await same_replay_everywhere(race, [ann, bob, sam], ends[0], seats)

    heard_once([ann, bob, sam], race, End)
    await expect_counts(nodes[1:], {DEADLINES: 1, FINISHES: 1})


@pytest.mark.parametrize("when", ["countdown", "running"])
async def test_a_node_stopped_with_sigterm_hands_its_race_over_without_a_lost_event(
    when: str, shared_redis: str, server_factory: Any, connect: Connect
) -> None:
    """Three racers (ann on node 1, the race's creator, whose ready begins the countdown; bob on node 2; cy on
    node 3) and a spectator (sam, node 3). Node 1 stops with SIGTERM during the countdown (5 s), or once
    everyone has made two moves; the race starts (or goes on) and ends at its deadline on the other nodes."""
    nodes = start_nodes(server_factory, shared_redis, "--countdown", "5" if when == "countdown" else "0.2")
    places = ((nodes[0], "ann"), (nodes[1], "bob"), (nodes[2], "cy"), (nodes[2], "sam"))
    ann, bob, cy, sam = [await connect(node, name) for node, name in places]
    race = (await ann.client.create("golf", seats=3, time_limit=10)).race["id"]
    await sam.client.spectate(race)
    for racer in (bob, cy):
        await racer.client.join(race)
        await racer.client.ready(race)
    await ann.client.ready(race)
    for racer in (ann, bob, cy):
        await racer.first(Countdown, race)
    seats: list[Seat] = []
    if when == "running":
        seats = [await Seat.started(racer, race) for racer in (ann, bob, cy)]
        for number, seat in enumerate(seats):
            await seat.play(random.Random(number), 2)
        for watcher, others in ((ann, (1, 2)), (bob, (0, 2)), (cy, (0, 1)), (sam, (0, 1, 2))):
            for seat_number in others:  # nothing is in flight when node 1 stops
                await watcher.first(Progress, race, lambda p, s=seat_number: p.seat == s and p.moves == 2)

    node_1 = (await metrics(nodes[:1]))[0]  # what node 1 counted, read just before it stops
    ann.client.url = nodes[1].url
    assert await asyncio.to_thread(nodes[0].stop) == 0  # SIGTERM: a clean stop

    resumed = await ann.first(Resumed)
    assert race in resumed.races
    waited_until = time.monotonic() + 30
    while True:  # events sent while ann was away are lost: her snapshot tells where she is
        snapshot = await ann.client.snapshot(race)
        if snapshot.race["status"] == "running" or time.monotonic() > waited_until:
            break
        await asyncio.sleep(0.05)
    assert snapshot.race["status"] == "running" and snapshot.view is not None
    if when == "running":
        assert (snapshot.seq, snapshot.view) == (seats[0].seq, seats[0].view)
    else:
        seats = [
            Seat(ann, race, snapshot.view, snapshot.seq),
            await Seat.started(bob, race),
            await Seat.started(cy, race),
        ]
    for number, seat in enumerate(seats):
        await seat.play(random.Random(10 + number), 2)
    deadline = (await bob.first(Start, race)).deadline

    ends = [await player.first(End, race, timeout=deadline - time.time() + 30) for player in (ann, bob, cy, sam)]
    assert time.time() >= deadline, "the race ended before its deadline"
    assert all(end == ends[0] for end in ends), "the racers and the spectator got different ends"
    assert {r["ended"] for r in ends[0].results} == {"out_of_time"}
    await same_replay_everywhere(race, [ann, bob, cy, sam], ends[0], seats)  # node 2, node 2, node 3, node 3
    # No event lost on the nodes that stayed: every entry of every other seat, once and in order.
    for watcher, others in ((bob, (0, 2)), (cy, (0, 1)), (sam, (0, 1, 2))):
        assert [watcher.progress(race, s) for s in others] == [moves_of(seats[s]) for s in others], watcher.client.name
    heard_once([bob, cy], race, Countdown, Start, End)
    heard_once([ann, sam], race, End)

    await expect_counts(nodes[1:], {COUNTDOWNS: 1, STARTS: 1, DEADLINES: 1, FINISHES: 1}, before=[node_1])


async def test_a_lobby_on_any_node_lists_the_races_of_every_node(
    shared_redis: str, server_factory: Any, connect: Connect
) -> None:
    nodes = start_nodes(server_factory, shared_redis)
    hosts = [await connect(node, f"host{number}") for number, node in enumerate(nodes)]
    races = [(await host.client.create("golf")).race["id"] for host in hosts]  # one race created on each node
    lookers = [await connect(node, f"looker{number}") for number, node in enumerate(nodes)]

    async def lobby(player: Player) -> dict[str, dict[str, Any]]:
        return {race["id"]: race for race in await player.client.lobby_all()}

    for looker in lookers:
        assert set(await lobby(looker)) == set(races), looker.client.name
    joiner = await connect(nodes[1], "joiner")
    await joiner.client.join(races[0])  # node 1's race, joined on node 2
    for looker in lookers:
        assert [p["name"] for p in (await lobby(looker))[races[0]]["players"]] == ["host0", "joiner"]
    await hosts[2].client.leave(races[2])  # the last seat of node 3's race: the race is gone
    for looker in lookers:
        assert set(await lobby(looker)) == set(races[:2]), looker.client.name


async def test_an_entry_next_in_the_stored_log_is_taken_though_this_node_has_not_heard_of_the_ones_before(
    shared_redis: str, server_factory: Any, connect: Connect
) -> None:
    """Another node stored entries this node has not heard of yet (their events are on their way): the
    node reads the log again instead of refusing the entry that is next with `stale_seq`."""
    nodes = start_nodes(server_factory, shared_redis, count=2)
    race, (ann, _, _) = await race_across(connect, [*nodes, nodes[1]])
    seat = await Seat.started(ann, race)
    assert ["turn"] in seat.view["moves"] and seat.view["board"]["stock"] >= 2
    # As if ann's other connection, on a node that then died, had stored entry 0 (its event lost).
    redis.Redis.from_url(shared_redis).rpush(f"{Keys().race(race)}:log:0", msgpack.packb(["turn"]))
    ack = await ann.client.move(race, 1, ["turn"])
    assert ack.seq == 2 and not ack.duplicate
    with pytest.raises(ClientError) as ahead:  # an entry beyond the stored log is still refused
        await ann.client.move(race, 3, ["turn"])
    assert ahead.value.code == "stale_seq"


async def test_events_keep_crossing_after_the_nodes_subscriptions_to_redis_are_cut(
    shared_redis: str, server_factory: Any, connect: Connect
) -> None:
    """Pub/sub loses what is sent while a node is not subscribed: the node subscribes again and reads
    the races it holds again, so nothing stored is missed."""
    _, race, (ann, bob, sam), seats = await _two_moves_heard_across(shared_redis, server_factory, connect)
    store = redis.Redis.from_url(shared_redis)
    assert store.client_kill_filter(_type="pubsub") >= 2  # every node's subscriber connection
    await seats[0].play(random.Random(2), 3)  # meanwhile: their events may be lost
    await asyncio.gather(seats[0].play(random.Random(3)), seats[1].play(random.Random(4)))
    await _reported_to_every_player(race, (ann, bob, sam), seats)


async def test_a_node_that_subscribes_again_after_the_race_ended_still_tells_every_move_before_the_end(
    shared_redis: str, server_factory: Any, connect: Connect
) -> None:
    """Bob's node stays unsubscribed until both seats are done, so ann's node ends the race meanwhile: when
    bob's node subscribes again, it tells bob and sam the moves they missed, then the end."""
    nodes, race, (ann, bob, sam), seats = await _two_moves_heard_across(shared_redis, server_factory, connect)
    store = redis.Redis.from_url(shared_redis)
    name = "parlour:" + node_id((await metrics(nodes[1:]))[0])  # what the node names its Redis connections
    assert _cut_subscriptions(store, name) >= 1
    playing = asyncio.gather(seats[0].play(random.Random(3)), seats[1].play(random.Random(4)))
    # Cut every subscription it makes again while the seats play and until ann's node has ended the race: bob's
    # node subscribes again 0.5 s after a cut, and would hear of the end if ann's node was slow to store it.
    waited_until = time.monotonic() + 60
    while not (playing.done() and ann.every(End, race)):
        if playing.done():
            playing.result()  # raises if a seat failed
        assert time.monotonic() < waited_until, "ann heard of no end"
        _cut_subscriptions(store, name)
        await asyncio.sleep(0.02)
    await playing
    assert not bob.every(End, race)  # the end was stored while bob's node did not listen
    await _reported_to_every_player(race, (ann, bob, sam), seats)


async def _two_moves_heard_across(
    shared_redis: str, server_factory: Any, connect: Connect
) -> tuple[list[ServerProcess], str, tuple[Player, Player, Player], list[Seat]]:
    """Two nodes; a race of ann (node 0) and bob (node 1) that sam watches on node 1, both seats started;
    ann has made two moves and bob's node has told bob of them."""
    nodes = start_nodes(server_factory, shared_redis, count=2)
    race, (ann, bob, sam) = await race_across(connect, [*nodes, nodes[1]])
    seats = [await Seat.started(ann, race), await Seat.started(bob, race)]
    await seats[0].play(random.Random(1), 2)
    await bob.first(Progress, race, lambda p: p.seat == 0 and p.moves == 2)
    return nodes, race, (ann, bob, sam), seats


def _cut_subscriptions(store: redis.Redis, name: str) -> int:
    """Close the subscriber connections of the node whose connections are called ``name``; how many."""
    ids = [c["id"] for c in store.client_list() if c.get("name") == name and int(c.get("ssub", 0) or c.get("sub", 0))]
    for client_id in ids:
        store.client_kill_filter(_id=client_id)
    return len(ids)


async def _reported_to_every_player(race: str, players: Sequence[Player], seats: Sequence[Seat]) -> None:
    """Every player hears the same end, after every move of both seats."""
    ann, bob, sam = players
    ends = [await player.first(End, race, timeout=20) for player in (ann, bob, sam)]
    assert ends[1] == ends[0] and ends[2] == ends[0]
    assert bob.progress(race, 0)[-1] == len(seats[0].log)  # bob's node caught up with ann's seat
    assert sam.progress(race, 0)[-1] == len(seats[0].log)
    assert ann.progress(race, 1)[-1] == len(seats[1].log)  # and ann's with bob's
    await same_replay_everywhere(race, [ann, bob, sam], ends[0], seats)


async def test_a_snapshot_tells_the_stored_game_though_this_node_has_not_heard_of_its_last_entries(
    shared_redis: str, server_factory: Any, connect: Connect
) -> None:
    """A racer back on a node that has not heard of their last entries (events lost or on their way) asks
    where their game is, as the client library says to after a reconnection: the answer is the stored log's,
    not the node's copy (the racer would otherwise see a board their acknowledged moves had left)."""
    nodes = start_nodes(server_factory, shared_redis, count=2)
    race, (ann, _, _) = await race_across(connect, [*nodes, nodes[1]])
    seat = await Seat.started(ann, race)
    assert ["turn"] in seat.view["moves"]
    # As if ann's other connection, on a node that then died, had stored entry 0 (its event lost).
    redis.Redis.from_url(shared_redis).rpush(f"{Keys().race(race)}:log:0", msgpack.packb(["turn"]))
    snapshot = await ann.client.snapshot(race)
    assert snapshot.seq == 1 and snapshot.view is not None
    assert snapshot.view["board"]["stock"] == seat.view["board"]["stock"] - 1


async def test_a_node_that_takes_an_open_races_lease_over_tells_the_invited_bots_again(
    shared_redis: str, server_factory: Any, connect: Connect
) -> None:
    """The node that invites a bot may die between storing the race and telling the bot (a tournament's
    director creates races and invites their entrants so): the node that takes the race's lease over tells
    every bot still invited again, or a bot connected to a live node would never hear of its seat and the
    invitation would lapse (a forfeit, in a tournament)."""
    nodes = start_nodes(server_factory, shared_redis, count=2)
    bot = Player(await Client.connect(nodes[1].url, "eager", bot=True, games=["golf"]))
    ann = await connect(nodes[0], "ann")
    await bot_online(ann.client, "eager")
    race = (await ann.client.create("golf", seats=2)).race["id"]
    await ann.client.invite(race, "eager")
    await bot.first(Invitation, where=lambda event: event.race["id"] == race)  # told once, through node 2
    nodes[0].kill()  # it held the race's lease
    loop = asyncio.get_running_loop()
    deadline = loop.time() + 30  # the lease (5 s) runs out and node 2 takes it
    while len([e for e in bot.every(Invitation) if e.race["id"] == race]) < 2:
        assert loop.time() < deadline, "the bot was not told of its invitation again"
        await asyncio.sleep(0.1)
    await bot.client.join(race)  # the seat is still kept for it
    await bot.close()
