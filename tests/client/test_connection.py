"""The asyncio client against real ``parlour serve`` processes: no mocks, real sockets.

Every test is bounded by ``asyncio.timeout``; the server restarts use the ``server``
fixture's ``kill()`` (SIGKILL) and ``start()`` (same port, same data).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import pytest
import pytest_asyncio

from parlour.client.connection import (
    Client,
    ClientError,
    Countdown,
    Disconnected,
    Error,
    Pong,
    Progress,
    RaceUpdate,
    Resumed,
    Start,
    Watch,
)
from parlour.protocol import ErrorCode
from tests.conftest import ServerProcess

TURN = ["turn"]  # a legal Golf move while the stock lasts (16 cards)


@dataclass
class Pair:
    """Two players in a running two-seat Golf race."""

    a: Client
    b: Client
    race: str
    start_a: Start
    start_b: Start


async def connect(server: ServerProcess, name: str, **kwargs: Any) -> Client:
    return await asyncio.wait_for(Client.connect(server.url, name, **kwargs), 10)


async def restart(server: ServerProcess) -> None:
    """Start the killed or stopped server again without blocking the clients' event loop."""
    await asyncio.to_thread(server.start)


@pytest_asyncio.fixture
async def pair(server: ServerProcess) -> AsyncIterator[Pair]:
    async with asyncio.timeout(15):
        a = await connect(server, "ada")
        b = await connect(server, "bob")
        race = (await a.create("golf")).race["id"]
        await b.join(race)
        await a.ready(race)
        await b.ready(race)
        start_a = await a.next_event(Start, race=race)
        start_b = await b.next_event(Start, race=race)
    yield Pair(a, b, race, start_a, start_b)
    await a.close()
    await b.close()


@pytest.mark.asyncio
async def test_hello_gives_a_token_that_resumes_the_same_player(server: ServerProcess) -> None:
    async with asyncio.timeout(15):
        first = await connect(server, "ada")
        assert first.token and first.player
        assert first.races == []
        await first.close()

        again = await connect(server, "ada-2", token=first.token)
        assert again.player == first.player
        assert again.token == first.token
        assert again.name == "ada-2"
        await again.close()

        with pytest.raises(ClientError) as refused:
            await connect(server, "eve", token="not-a-token")
        assert refused.value.code == ErrorCode.BAD_TOKEN


@pytest.mark.asyncio
async def test_lobby_join_and_ready_start_both_players_on_the_same_board(server: ServerProcess) -> None:
    async with asyncio.timeout(15):
        a = await connect(server, "ada")
        b = await connect(server, "bob")
        created = await a.create("golf", seats=2)
        race = created.race["id"]
        assert created.race["status"] == "open"
        assert race in [summary["id"] for summary in (await b.lobby()).races]

        joined = await b.join(race)
        assert [p["player"] for p in joined.race["players"]] == [a.player, b.player]
        update = await a.next_event(RaceUpdate, race=race)
        assert len(update.race["players"]) == 2

        await a.ready(race)
        loop = asyncio.get_running_loop()
        asked = loop.time()
        await b.ready(race)  # the countdown (0.2 s) begins
        for client in (a, b):
            countdown = await client.next_event(Countdown, race=race)
            # Counted from when it is sent: 0.2 s less at most the time since the ready that began it (a few ms,
            # unless the machine is starved; 5 ms more for the two clocks).
            assert 0.2 - (loop.time() - asked) - 0.005 <= countdown.starts_in <= 0.25
        start_a = await a.next_event(Start, race=race)
        start_b = await b.next_event(Start, race=race)
        assert (start_a.seat, start_b.seat) == (0, 1)
        assert start_a.seq == start_b.seq == 0
        assert start_a.commitment == start_b.commitment != ""
        assert start_a.view["board"] == start_b.view["board"]
        assert start_a.view["moves"]

        # A new connection with the token is told which live race to resume.
        other = await connect(server, "ada", token=a.token)
        assert other.races == [race]
        snapshot = await other.snapshot(race)
        assert (snapshot.seat, snapshot.seq, snapshot.view) == (0, 0, start_a.view)
        for client in (a, b, other):
            await client.close()


@pytest.mark.asyncio
async def test_moves_carry_their_seq_and_refusals_are_typed(pair: Pair) -> None:
    a, b, race = pair.a, pair.b, pair.race
    async with asyncio.timeout(15):
        first = pair.start_a.view["moves"][0]
        ack = await a.move(race, 0, first)
        assert (ack.race, ack.seq, ack.duplicate) == (race, 1, False)

        with pytest.raises(ClientError) as bad:
            await a.move(race, 1, ["fly", "p1"])
        assert bad.value.code == ErrorCode.BAD_MOVE

        unplayable = next(["play", f"p{i}"] for i in range(1, 8) if ["play", f"p{i}"] not in ack.view["moves"])
        with pytest.raises(ClientError) as illegal:
            await a.move(race, 1, unplayable)
        assert illegal.value.code == ErrorCode.ILLEGAL_MOVE
        assert illegal.value.message

        with pytest.raises(ClientError) as ahead:
            await a.move(race, 5, TURN)
        assert ahead.value.code == ErrorCode.STALE_SEQ
        other = TURN if first != TURN else ["play", "p1"]
        with pytest.raises(ClientError) as rewritten:
            await a.move(race, 0, other)
        assert rewritten.value.code == ErrorCode.STALE_SEQ

        with pytest.raises(ClientError) as no_undo:
            await a.undo(race, 1)
        assert no_undo.value.code == ErrorCode.UNDO_NOT_ALLOWED

        again = await a.move(race, 0, first)
        assert (again.seq, again.duplicate, again.view) == (1, True, ack.view)
        snapshot = await a.snapshot(race)
        assert (snapshot.seat, snapshot.seq, snapshot.view) == (0, 1, ack.view)

        # The other racer saw one move, not two, and never the board.
        progress = await b.next_event(Progress, race=race)
        assert (progress.seat, progress.moves) == (0, 1)
        with pytest.raises(TimeoutError):
            await b.next_event(Progress, race=race, timeout=0.3)


@pytest.mark.asyncio
async def test_next_event_picks_one_kind_and_keeps_the_rest_in_order(server: ServerProcess) -> None:
    async with asyncio.timeout(15):
        a = await connect(server, "ada")
        b = await connect(server, "bob")
        first = (await a.create("golf")).race["id"]
        second = (await a.create("golf")).race["id"]
        await b.join(second)
        await b.join(first)
        assert (await a.next_event(RaceUpdate, race=first)).race["id"] == first
        assert (await a.next_event(RaceUpdate)).race["id"] == second  # passed over above, kept

        await a.ready(first)
        await b.ready(first)
        start = await a.next_event(Start, race=first)
        assert start.race == first
        # What the Start overtook is still there, in arrival order, and the stream goes on.
        seen: list[Any] = []
        async for event in a.events():
            seen.append(event)
            if isinstance(event, RaceUpdate) and event.race["status"] == "running":
                break
        kinds = [type(event) for event in seen]
        assert Countdown in kinds and Start not in kinds
        assert kinds.index(Countdown) < len(kinds) - 1

        with pytest.raises(TimeoutError, match="no Watch of race"):
            await a.next_event(Watch, race=first, timeout=0.2)
        await a.close()
        await b.close()


@pytest.mark.asyncio
async def test_the_client_resumes_by_itself_after_a_server_crash(server: ServerProcess, pair: Pair) -> None:
    a, b, race = pair.a, pair.b, pair.race
    async with asyncio.timeout(40):
        watcher = await connect(server, "cy")
        await watcher.spectate(race)
        await a.move(race, 0, TURN)
        ack = await a.move(race, 1, TURN)
        assert ack.seq == 2

        server.kill()
        await restart(server)
        for client in (a, b):
            resumed = await client.next_event(Resumed, timeout=20)
            assert resumed.races == [race]
        assert (await watcher.next_event(Resumed, timeout=20)).watching == [race]

        snapshot = await a.snapshot(race)
        assert (snapshot.seat, snapshot.seq, snapshot.view) == (0, 2, ack.view)
        after = await a.move(race, 2, snapshot.view["moves"][0])
        assert (after.seq, after.duplicate) == (3, False)
        while (progress := await watcher.next_event(Progress, race=race)).moves != 3:
            pass  # the race shows no live boards: its spectators follow it by progress
        assert progress.seat == 0
        assert (await b.snapshot(race)).seq == 0
        await watcher.close()


@pytest.mark.asyncio
async def test_requests_in_flight_during_a_restart_complete(server: ServerProcess, pair: Pair) -> None:
    a, race = pair.a, pair.race
    async with asyncio.timeout(40):
        await a.move(race, 0, TURN)
        # Sent just before the crash: the server may or may not have applied it. Either way
        # the re-send after the restart gets an ack for entry 1, and it is applied once.
        sent = asyncio.create_task(a.move(race, 1, TURN))
        await asyncio.sleep(0)
        server.kill()
        # Asked while the server is down: sent once the client is back, after the one above.
        waiting = asyncio.create_task(a.move(race, 2, TURN))
        pong = asyncio.create_task(a.ping())
        while a.connected:  # the client notices the lost connection (the test's timeout fails it if never)
            await asyncio.sleep(0.01)
        await restart(server)

        assert (await sent).seq == 2
        late = await waiting
        assert (late.seq, late.duplicate) == (3, False)
        assert (await pong).time > 0
        assert (await a.snapshot(race)).seq == 3
        assert a.connected


@pytest.mark.asyncio
async def test_a_clean_shutdown_is_announced_and_resumed(server: ServerProcess) -> None:
    async with asyncio.timeout(40):
        a = await connect(server, "ada")
        await asyncio.to_thread(server.stop)
        notice = await a.next_event(Error, timeout=20)
        assert notice.code == ErrorCode.SHUTTING_DOWN and notice.id is None
        await restart(server)
        assert await a.next_event(Resumed, timeout=20) == Resumed(races=[], watching=[])
        await a.ping()
        await a.close()


@pytest.mark.asyncio
async def test_a_lost_connection_is_final_without_reconnect_or_after_the_timeout(server: ServerProcess) -> None:
    async with asyncio.timeout(20):
        once = await connect(server, "ada", reconnect=False)
        patient = await connect(server, "bob", reconnect_timeout=0.5)
        server.kill()
        assert [event async for event in once.events()] == []
        with pytest.raises(Disconnected):
            await once.ping()
        with pytest.raises(Disconnected, match=r"within 0\.5 s"):
            await patient.next_event(Resumed, timeout=10)
        with pytest.raises(Disconnected):
            await patient.lobby()
        await once.close()
        await patient.close()


@pytest.mark.asyncio
async def test_close_fails_waiting_calls_and_ends_the_events(server: ServerProcess) -> None:
    async with asyncio.timeout(15):
        async with await connect(server, "ada") as client:
            waiting = asyncio.create_task(client.next_event(Start, timeout=10))
            await client.ping()
        assert not client.connected
        with pytest.raises(Disconnected):
            await waiting
        assert [event async for event in client.events()] == []
        with pytest.raises(Disconnected):
            await client.ping()
        await client.close()  # twice is fine


@pytest.mark.asyncio
async def test_a_silent_client_keeps_its_connection_by_pinging(server_factory: Any) -> None:
    """The welcome states the idle timeout; a client that only listens pings in time and is not
    closed, so it gets the events of a race it watches long after its last request."""
    # Pings every 0.8 s (a third): a stall of 1.6 s, not 0.8 s as with 1.2 s, would close a client on a loaded machine.
    server = server_factory("--idle-timeout", "2.4")
    await restart(server)
    async with asyncio.timeout(60):
        watcher = await connect(server, "quiet", reconnect=False)
        a = await connect(server, "ada", reconnect=False)
        assert watcher._idle_timeout == 2.4
        race = (await a.create("golf", seats=1, live_boards=True)).race["id"]
        await watcher.spectate(race)
        for _ in range(8):  # 8 s of silence from the watcher: over three idle timeouts
            await asyncio.sleep(1)
            await a.ping()  # the racer sends, so only the watcher is silent
        assert watcher.connected
        await a.ready(race)
        assert isinstance(await watcher.next_event(Watch, race=race, timeout=20), Watch)
        await watcher.close()
        await a.close()


@pytest.mark.asyncio
async def test_requests_from_many_tasks_are_paced_to_the_rate_the_welcome_gives(server_factory: Any) -> None:
    """The welcome gives the connection's rate and burst; the client sends no faster, so a burst of
    requests from many tasks at once (a bot in many races) is never refused as rate limited."""
    server = server_factory("--rate", "200", "--burst", "20")
    await restart(server)
    async with asyncio.timeout(60):
        client = await connect(server, "busy", reconnect=False)
        assert (client._rate, client._burst) == (200 * 0.9, 18)
        loop = asyncio.get_running_loop()
        started = loop.time()
        replies = await asyncio.gather(*(client.ping() for _ in range(300)), return_exceptions=True)
        took = loop.time() - started
        assert all(isinstance(reply, Pong) for reply in replies), {repr(r) for r in replies if not isinstance(r, Pong)}
        assert took >= (300 - 18) / 180 * 0.95, took  # paced: not sent at once
        assert client.connected
        await client.close()
