"""Races stay consistent under faults: moves in flight at the deadline, Redis down at a race's
start, the embedded Redis killed mid-race.

Real ``parlour serve`` processes, a real Redis (embedded, or one the test runs and stops itself),
real websockets through the client library.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import random
import signal
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import msgpack
import pytest
import redis

from parlour.client.connection import Client, ClientError
from parlour.protocol.messages import End, Progress, RaceUpdate, Start
from parlour.protocol.replay import verify_replay
from parlour.server.embedded_redis import EmbeddedRedis
from parlour.server.store import BATCH_TIMEOUT, Keys
from tests.conftest import REDIS_URL, ServerProcess

pytestmark = pytest.mark.asyncio
KEYS = Keys()  # the default prefix's

FAST = ("--rate", "100000", "--burst", "100000")  # bots here may send as fast as they can
GAMES = ["gate", "german-patience", "the-chance"]  # games that random play with undo rarely ends


async def start_race(url: str, game: str, seats: int, **settings: Any) -> tuple[str, list[Client], list[Start]]:
    """``seats`` connected players in a started race, with their start events."""
    clients = [await Client.connect(url, f"bot{i}", bot=True) for i in range(seats)]
    race = (await clients[0].create(game, seats=seats, **settings)).race["id"]
    for client in clients[1:]:
        await client.join(race)
    for client in clients:
        await client.ready(race)
    starts = [await client.next_event(Start, race, timeout=20) for client in clients]
    return race, clients, starts


async def until(condition: Callable[[], object], timeout: float, what: str) -> None:
    """Wait until ``condition()`` is true (checked every 0.05 s); AssertionError naming ``what`` after ``timeout`` s."""
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"{what}: not within {timeout} s"
        await asyncio.sleep(0.05)


def logged(server: ServerProcess, *parts: str, since: int = 0) -> bool:
    """Whether a line of the server's output read so far (from line ``since``) holds every one of ``parts``."""
    return any(all(part in line for part in parts) for line in server.output[since:])


async def with_retries(request: Any, *args: Any) -> Any:
    """``request(*args)``, sent again after ``retry_after`` while the server says ``unavailable``."""
    for _ in range(200):
        try:
            return await request(*args)
        except ClientError as error:
            if error.code != "unavailable":
                raise
            assert error.retry_after is not None and error.retry_after > 0
            await asyncio.sleep(min(error.retry_after, 0.2))
    raise AssertionError("the server stayed unavailable")


class Bot:
    """A racer that moves and undoes at random as fast as acks come back, each entry sent twice
    at once (the second copy gets a duplicate ack), until the race stops taking entries or
    ``until`` (a monotonic time) comes; an entry refused as ``unavailable`` is sent again."""

    def __init__(self, client: Client, race: str, start: Start, seed: int) -> None:
        self.client, self.race = client, race
        self.view, self.seq = start.view, start.seq
        self.rng = random.Random(seed)
        self.acked: list[list[Any]] = []  # every entry acknowledged, in log order
        self.standing = 0
        self.unavailable = 0  # refusals as unavailable

    def next_entry(self) -> list[Any] | None:
        if self.view["ended"] is not None:
            return None
        if self.view["moves"] and (self.standing == 0 or self.rng.random() < 0.55):
            return list(self.rng.choice(self.view["moves"]))
        return ["undo"] if self.standing else None

    async def send(self, entry: list[Any]) -> Any:
        if entry == ["undo"]:
            return await self.client.undo(self.race, self.seq)
        return await self.client.move(self.race, self.seq, entry)

    async def play(self, until: float = float("inf"), enough: Callable[[], bool] = lambda: False) -> None:
        """Play until the race takes no more entries, ``until`` comes or ``enough()`` is true."""
        while time.monotonic() < until and not enough() and (entry := self.next_entry()) is not None:
            replies = await asyncio.gather(self.send(entry), self.send(entry), return_exceptions=True)
            acks = [r for r in replies if not isinstance(r, BaseException)]
            for reply in replies:
                if isinstance(reply, ClientError):  # never internal, never stale_seq
                    assert reply.code in ("race_not_running", "unavailable"), reply
                    self.unavailable += reply.code == "unavailable"
                elif isinstance(reply, BaseException):
                    raise reply
            if not acks:
                if any(r.code == "unavailable" for r in replies):  # type: ignore[union-attr]
                    await asyncio.sleep(0.05)
                    continue  # the same entry again, with the same seq
                return  # the race no longer takes entries
            assert sum(not a.duplicate for a in acks) <= 1
            self.acked.append(entry)
            self.standing += -1 if entry == ["undo"] else 1
            self.view, self.seq = acks[-1].view, max(a.seq for a in acks)
            assert self.seq == len(self.acked)


async def check_replay(client: Client, race: str, end: End, acked: list[list[list[Any]]]) -> None:
    """The replay verifies, its results are the published ones, and its logs hold exactly the acked entries."""
    replay = (await client.replay(race)).replay
    assert verify_replay(replay) == []
    assert replay["results"] == end.results
    assert [seat["log"] for seat in replay["seats"]] == acked


async def test_moves_in_flight_at_the_deadline_are_counted_or_refused_and_every_replay_verifies(
    server_factory: Any,
) -> None:
    """Issue 9 item 1 and its "done when": 20 races of bots playing flat out up to the deadline."""
    server = server_factory(*FAST)
    server.start()

    async def one_race(number: int) -> None:
        race, clients, starts = await start_race(server.url, GAMES[number % len(GAMES)], 2, time_limit=10, undo=True)
        bots = [Bot(c, race, s, seed=number * 10 + i) for i, (c, s) in enumerate(zip(clients, starts, strict=True))]
        await asyncio.gather(*(bot.play() for bot in bots))
        assert [bot.unavailable for bot in bots] == [0, 0]
        end = await clients[0].next_event(End, race, timeout=30)
        if "out_of_time" in {r["ended"] for r in end.results}:
            at_the_deadline.append(race)
        await check_replay(clients[0], race, end, [bot.acked for bot in bots])
        for client in clients:
            await client.close()

    at_the_deadline: list[str] = []  # races that the time limit ended, with the bots still playing
    await asyncio.gather(*(one_race(n) for n in range(20)))
    assert len(at_the_deadline) >= 15


@pytest.fixture
def own_redis(tmp_path_factory: pytest.TempPathFactory) -> Iterator[EmbeddedRedis]:
    """A Redis of the test's own (the embedded kind), which the test may stop and start again."""
    embedded = EmbeddedRedis(Path(tmp_path_factory.mktemp("rd", numbered=True)))
    embedded.start()
    yield embedded
    embedded.stop()


async def test_redis_unreachable_at_a_races_start_deals_it_once_acks_nothing_unstored_and_recovery_goes_on(
    server_factory: Any, own_redis: EmbeddedRedis
) -> None:
    """Issue 9 item 2: Redis down while a countdown ends."""
    server = server_factory("--redis-url", own_redis.url, "--countdown", "2", *FAST)
    server.start()
    ann = await Client.connect(server.url, "ann")
    bob = await Client.connect(server.url, "bob")
    cy = await Client.connect(server.url, "cy")
    spare = (await cy.create("golf")).race["id"]
    race = (await ann.create("gate", undo=True)).race["id"]
    await bob.join(race)
    await ann.ready(race)
    starts_at = (await bob.ready(race)).race["starts_at"]  # the countdown begins
    own_redis.stop()
    assert time.time() < starts_at  # Redis is down before the countdown ends
    await asyncio.sleep(starts_at - time.time() + 0.5)  # the countdown is over; Redis is still down

    refused: dict[str, str] = {}
    for name, request in {
        "move": ann.move(race, 0, ["turn"]),
        "create": bob.create("golf"),
        "join": bob.join(spare),
        "ready": ann.ready(race, False),
        "leave": bob.leave(race),
        "replay": ann.replay("0123456789"),  # not in memory: asked of Redis
    }.items():
        with pytest.raises(ClientError) as info:
            await request
        refused[name] = info.value.code
        if info.value.code == "unavailable":
            assert info.value.retry_after is not None and info.value.retry_after >= 0.001
    assert refused == {
        "move": "race_not_running",  # never acknowledged while the start is not stored
        "create": "unavailable",
        "join": "unavailable",
        "ready": "unavailable",
        "leave": "unavailable",
        "replay": "unavailable",
    }
    with pytest.raises(TimeoutError):
        await ann.next_event(Start, race, timeout=0.5)
    state = (await ann.snapshot(race)).race
    assert state["status"] == "countdown" and [p["ready"] for p in state["players"]] == [True, True]

    own_redis.start()  # back on the same data: the start goes out once it is stored
    assert len((await cy.snapshot(spare)).race["players"]) == 1  # the refused join changed nothing
    start_a = await ann.next_event(Start, race, timeout=10)
    start_b = await bob.next_event(Start, race, timeout=10)
    assert start_a.commitment == start_b.commitment
    bots = [Bot(ann, race, start_a, seed=1), Bot(bob, race, start_b, seed=2)]
    await asyncio.gather(*(bot.play(until=time.monotonic() + 0.5) for bot in bots))

    for _ in range(2):  # a restart keeps the deal and every acknowledged entry; so does the next one
        server.kill()
        server.start()
        for bot in bots:
            snapshot = await with_retries(bot.client.snapshot, race)
            assert snapshot.race["commitment"] == start_a.commitment
            assert (snapshot.seq, snapshot.view) == (bot.seq, bot.view)
        await asyncio.gather(*(bot.play(until=time.monotonic() + 0.3) for bot in bots))
    for bot in bots:
        if bot.view["ended"] is None:  # random play may have ended a game already
            await bot.client.concede(race)
            bot.acked.append(["concede"])
    end = await ann.next_event(End, race, timeout=10)
    await check_replay(ann, race, end, [bot.acked for bot in bots])


async def test_a_race_that_cannot_be_recovered_is_set_aside_and_the_server_starts_anyway(
    server_factory: Any, own_redis: EmbeddedRedis
) -> None:
    """Issue 9 item 2: one bad race does not stop the server."""
    server = server_factory("--redis-url", own_redis.url)
    server.start()
    races = []
    for _ in range(2):
        race, clients, starts = await start_race(server.url, "golf", 2)
        await clients[0].move(race, 0, starts[0].view["moves"][0])
        races.append((race, clients))
    (bad, _), (good, good_clients) = races
    server.kill()
    store = redis.Redis.from_url(own_redis.url)
    store.rpush(f"{KEYS.race(bad)}:log:0", msgpack.packb(["play", "p9"]))  # a move no deal allows twice
    store.rpush(f"{KEYS.race(bad)}:log:0", msgpack.packb(["play", "p9"]))
    server.start()
    # A shared Redis: the restarted node takes the races once the dead node's leases run out (5 s). It logs the
    # race once it is set aside, and a thread reads its output: wait for the line, not only for the store.
    set_aside = ("race cannot be recovered, set aside", f"race={bad}")
    await until(lambda: logged(server, *set_aside), 30, "the bad race set aside")
    assert store.smembers(KEYS.broken) == {bad.encode()}
    assert bad.encode() not in store.smembers(KEYS.active)
    assert (await with_retries(good_clients[1].snapshot, good)).seq == 0  # the other race goes on
    with pytest.raises(ClientError) as info:
        await good_clients[0].snapshot(bad)
    assert info.value.code == "unknown_race"
    server.kill()
    seen = len(server.output)
    server.start()  # and it is not tried again: not when this node takes the races over, once the leases run out
    taken = ("lease taken over", f"race={good}")
    await until(lambda: logged(server, *taken, since=seen), 30, "the good race taken over after the restart")
    server.stop()  # every line it wrote is read
    assert not logged(server, f"race={bad}", since=seen)


def redis_pid(server: ServerProcess) -> int:
    return int((server.data_dir / "redis.pid").read_text())


async def healthz(server: ServerProcess) -> int:
    reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
    writer.write(b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
    status = int((await reader.readline()).split()[1])
    writer.close()
    return status


@pytest.mark.skipif(bool(REDIS_URL), reason="kills the embedded Redis")
async def test_the_embedded_redis_killed_mid_race_is_restarted_and_no_acknowledged_move_is_lost(
    server_factory: Any,
) -> None:
    """Issue 9 item 3 and its "done when": kill -9 of the embedded Redis while bots race flat out."""
    server = server_factory(*FAST)
    server.start()
    race, clients, starts = await start_race(server.url, "german-patience", 2, undo=True)
    bots = [Bot(c, race, s, seed=30 + i) for i, (c, s) in enumerate(zip(clients, starts, strict=True))]
    back: list[int] = []  # each bot's acknowledged entries once the new Redis answers
    # Each bot plays until it has 30 entries acknowledged after the restart (2 minutes at most, checked below),
    # however slowly a loaded machine lets it play.
    playing = asyncio.gather(
        *(
            bot.play(
                until=time.monotonic() + 120, enough=lambda n=n, bot=bot: bool(back) and len(bot.acked) >= back[n] + 30
            )
            for n, bot in enumerate(bots)
        )
    )
    await until(
        lambda: playing.done() or min(len(bot.acked) for bot in bots) > 30, 60, "30 entries each before the kill"
    )
    if playing.done():  # a bot failed (this raises) or both games ended already
        await playing
        raise AssertionError("both games ended before the kill")
    killed = redis_pid(server)
    os.kill(killed, signal.SIGKILL)
    await wait_for_a_new_redis(server, killed)  # the supervisor brings it back
    back += [len(bot.acked) for bot in bots]
    await playing
    assert sum(bot.unavailable for bot in bots) > 0  # the bots did play through the outage
    assert [len(bot.acked) >= n + 30 for bot, n in zip(bots, back, strict=True)] == [True, True], "no play after it"
    assert min(len(bot.acked) for bot in bots) > 50
    for bot in bots:
        if bot.view["ended"] is None:  # random play may have ended a game already
            await bot.client.concede(race)
            bot.acked.append(["concede"])
    end = await clients[0].next_event(End, race, timeout=10)
    await check_replay(clients[0], race, end, [bot.acked for bot in bots])
    assert server.process is not None and server.process.poll() is None
    assert server.stop() == 0
    assert any("the embedded Redis (pid" in line and "died" in line for line in server.output)


async def wait_for_a_new_redis(server: ServerProcess, killed: int) -> None:
    """Wait (up to 30 s) until the embedded Redis is another process than ``killed`` and the server reaches it."""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        await asyncio.sleep(0.1)
        with contextlib.suppress(FileNotFoundError, ValueError):
            if redis_pid(server) != killed and await healthz(server) == 200:
                return
    raise AssertionError("the embedded Redis was not restarted within 30 s")


@pytest.mark.skipif(bool(REDIS_URL), reason="kills the embedded Redis")
async def test_an_adopted_embedded_redis_is_supervised_too(server: ServerProcess) -> None:
    """Issue 9 item 3: the Redis left by a SIGKILLed server is no child of the next one, and is watched all the same."""
    ann = await Client.connect(server.url, "ann")
    race = (await ann.create("golf")).race["id"]
    adopted = redis_pid(server)
    server.kill()
    server.start()  # adopts the running Redis
    assert redis_pid(server) == adopted
    os.kill(adopted, signal.SIGKILL)
    await wait_for_a_new_redis(server, adopted)
    assert (await with_retries(ann.snapshot, race)).race["status"] == "open"
    assert (await with_retries(ann.ready, race)).race["players"][0]["ready"]


@pytest.mark.skipif(bool(REDIS_URL), reason="kills the embedded Redis")
async def test_the_server_exits_with_a_clear_message_when_the_embedded_redis_cannot_come_back(
    server_factory: Any,
) -> None:
    """Issue 9 item 3: a restart that fails stops the server with one line and status 1."""
    server = server_factory()
    server.start()
    manifests = list((server.data_dir / "appendonlydir").glob("*.manifest"))
    assert len(manifests) == 1
    manifests[0].write_text("not a manifest\n")  # the next start of Redis refuses its data
    os.kill(redis_pid(server), signal.SIGKILL)
    assert server.process is not None
    assert await asyncio.to_thread(server.process.wait, 30) == 1
    assert server.stop() == 1
    errors = [line for line in server.output if line.startswith("parlour: error:")]
    assert len(errors) == 1 and "the embedded Redis died and did not start again" in errors[0], server.output


def store_of(server: ServerProcess) -> redis.Redis:
    """A connection to the server's Redis."""
    if REDIS_URL:
        return redis.Redis.from_url(REDIS_URL)
    return redis.Redis(unix_socket_path=str(server.data_dir / "redis.sock"))


async def test_an_entry_stored_although_its_reply_was_lost_is_acknowledged_when_sent_again(
    server: ServerProcess,
) -> None:
    """Issue 9 item 3: a move in flight when Redis died may be stored unknown to the server; sent again, it is acked."""
    race, (ann, bob), (start, _) = await start_race(server.url, "golf", 2)
    first = await ann.move(race, 0, start.view["moves"][0])
    lost = list(first.view["moves"][0])
    store_of(server).rpush(f"{KEYS.race(race)}:log:0", msgpack.packb(lost))  # in Redis; the server never heard back
    again = await ann.move(race, 1, lost)
    assert again.duplicate and again.seq == 2
    assert (await ann.snapshot(race)).seq == 2
    assert (await bob.next_event(Progress, race)).moves == 1
    assert (await bob.next_event(Progress, race)).moves == 2  # the others learn of it too
    await ann.concede(race)
    await bob.concede(race)
    end = await ann.next_event(End, race)
    await check_replay(ann, race, end, [[start.view["moves"][0], lost, ["concede"]], [["concede"]]])


@pytest.mark.skipif(bool(REDIS_URL), reason="stops the embedded Redis")
async def test_a_move_while_redis_hangs_is_refused_as_unavailable_in_time_and_goes_in_once_when_sent_again(
    server: ServerProcess,
) -> None:
    """A Redis that stops answering (SIGSTOP: its connections stay open) holds a move up for the batch timeout,
    not for ever: the move is refused as ``unavailable``. Sent again once Redis answers, it is stored once (the
    first try may have gone in after all: Redis reads what was written to it before it stopped)."""
    race, (ann,), (start,) = await start_race(server.url, "golf", 1)
    move = start.view["moves"][0]
    pid = redis_pid(server)
    os.kill(pid, signal.SIGSTOP)
    try:
        began = time.monotonic()
        with pytest.raises(ClientError) as refused:
            async with asyncio.timeout(BATCH_TIMEOUT + 20):  # a batch without a bound would hang here
                await ann.move(race, 0, move)
        waited = time.monotonic() - began
    finally:
        os.kill(pid, signal.SIGCONT)
    assert refused.value.code == "unavailable", refused.value
    assert BATCH_TIMEOUT - 0.5 < waited < BATCH_TIMEOUT + 20
    again = await with_retries(ann.move, race, 0, move)
    assert again.seq == 1
    await ann.concede(race)
    end = await ann.next_event(End, race)
    await check_replay(ann, race, end, [[move, ["concede"]]])


@pytest.mark.skipif(bool(REDIS_URL), reason="kills the embedded Redis")
async def test_the_server_gives_up_when_the_embedded_redis_keeps_dying(server_factory: Any) -> None:
    """Issue 9 item 3: restarted four times, the fifth death within a minute stops the server."""
    server = server_factory()
    server.start()
    assert server.process is not None
    killed: set[int] = set()
    deadline = time.monotonic() + 120
    while server.process.poll() is None:
        assert time.monotonic() < deadline, f"the server still runs after {len(killed)} deaths of its Redis"
        with contextlib.suppress(FileNotFoundError, ValueError, ProcessLookupError):
            pid = redis_pid(server)
            # Killed once the supervisor watches it: the first once the server listens, every later one once the
            # server has said it runs again (killed while the supervisor still starts it, the start fails instead).
            if pid not in killed and (not killed or logged(server, f"the embedded Redis runs again (pid {pid})")):
                os.kill(pid, signal.SIGKILL)
                killed.add(pid)
        await asyncio.sleep(0.05)
    assert server.stop() == 1
    assert len(killed) == 5, server.output
    errors = [line for line in server.output if line.startswith("parlour: error:")]
    assert errors == [f"parlour: error: the embedded Redis died 5 times in 60 s; see {server.data_dir}/redis.log\n"]


async def test_an_open_race_expiring_while_redis_is_down_is_removed_from_the_store_once_it_is_back(
    server_factory: Any, own_redis: EmbeddedRedis
) -> None:
    """Expiry is stored first: a race whose open timeout passes while Redis is down is not told
    `expired` and forgotten with its record left in Redis (recovered at the next restart); it
    expires once Redis is back."""
    server = server_factory("--redis-url", own_redis.url, "--open-timeout", "3")
    server.start()
    ann = await Client.connect(server.url, "ann")
    asked = time.monotonic()
    race = (await ann.create("golf")).race["id"]
    answered = time.monotonic()  # the race was created between the two
    own_redis.stop()
    assert time.monotonic() < asked + 3, "Redis took the whole open timeout to stop"  # down before it passes
    await asyncio.sleep(answered + 3.5 - time.monotonic())  # the open timeout passes while Redis is down
    with pytest.raises(TimeoutError):  # not announced while it cannot be removed from the store
        await ann.next_event(RaceUpdate, race, timeout=0.5)
    assert (await ann.snapshot(race)).race["status"] == "open"
    own_redis.start()
    update = await ann.next_event(RaceUpdate, race, timeout=10)
    assert update.race["status"] == "expired"
    store = redis.Redis.from_url(own_redis.url)
    assert store.exists(KEYS.race(race)) == 0
    assert race.encode() not in store.smembers(KEYS.active)
    server.kill()
    server.start()
    again = await Client.connect(server.url, "ann", token=ann.token)
    assert again.races == []  # not recovered
    for client in (ann, again):
        await client.close()


async def test_creates_and_new_identities_refused_as_unavailable_do_not_count_against_their_limits(
    server_factory: Any, own_redis: EmbeddedRedis
) -> None:
    """A refused create does not count (section 3.3), `unavailable` included; nor does a refused new identity."""
    server = server_factory("--redis-url", own_redis.url, "--race-burst", "2", "--identity-burst", "2")
    server.start()
    ann = await Client.connect(server.url, "ann")  # one new identity of the two
    own_redis.stop()
    for _ in range(3):
        with pytest.raises(ClientError) as info:
            await ann.create("golf")
        assert info.value.code == "unavailable"
        with pytest.raises(ClientError) as info:
            await Client.connect(server.url, "bob", reconnect=False)
        assert info.value.code == "unavailable"
    own_redis.start()
    await with_retries(ann.create, "golf")
    await with_retries(ann.create, "golf")  # the burst of two, both still there
    bob = await Client.connect(server.url, "bob")  # the second identity of the two
    for client in (ann, bob):
        await client.close()
