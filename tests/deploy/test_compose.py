"""deploy/ for real: the image builds, compose runs REPLICAS servers on one Redis behind the proxy,
and a race played through the proxy goes on to its results while the replica of one racer restarts.

Runs only with ``PARLOUR_CONTAINER_TESTS=1``, on a machine with podman and podman-compose (the
container registry is not needed once the base images exist: see deploy/README.md, "With podman").
The two racers are put on two different replicas (their welcomes name different nodes), and the
replica of one of them is restarted: its racer must come back through the proxy and play on, the
other racer's connection must not be cut, and the race must end once with both games played out.
Each run has a compose project of its own (its containers, network and Redis volume), removed at
the end with the image it built. Prints the image's size, the time from ``compose up`` to a server
answering through the proxy, and what the restart cost the racer whose replica it was (tests never
assert on timings).
"""

from __future__ import annotations

import asyncio
import os
import random
import re
import shutil
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

import pytest

from parlour.client.connection import Client, ClientError, Resumed
from parlour.protocol.messages import End, Error, Start
from parlour.protocol.replay import verify_replay
from tests.conftest import free_port
from tests.server.multinode import Player

REPLICAS = 3  # server replicas behind the proxy (a race across replicas needs the multi-node server)
ROOT = Path(__file__).resolve().parents[2]
COMPOSE_FILE = ROOT / "deploy" / "compose.yaml"
IMAGE_TAG = "test"  # the image is parlour:test
MOVES_BEFORE_RESTART = 5  # each racer's moves before the restart (then it waits for it); a Golf game has at least 17
PACE = 0.1  # seconds between two moves of a racer, so the restart falls in the middle of the race
UNAVAILABLE_FOR = 60.0  # seconds a request answered `unavailable` is sent again (see `retried`)
APART_ATTEMPTS = 20  # connections tried, at most, to put the second racer on another replica than the first

T = TypeVar("T")

pytestmark = [
    pytest.mark.skipif(
        os.environ.get("PARLOUR_CONTAINER_TESTS") != "1",
        reason="builds an image and runs containers: set PARLOUR_CONTAINER_TESTS=1 (needs podman and podman-compose)",
    ),
    pytest.mark.asyncio,
]


def podman_compose() -> str:
    """The podman-compose command: on PATH, or beside this Python (installed in its venv)."""
    found = shutil.which("podman-compose") or shutil.which("podman-compose", path=str(Path(sys.executable).parent))
    if shutil.which("podman") is None or found is None:
        pytest.fail("PARLOUR_CONTAINER_TESTS=1 needs podman and podman-compose (pip install podman-compose)")
    return found


class Stack:
    """One compose project of deploy/compose.yaml, its proxy published on a free loopback port."""

    def __init__(self) -> None:
        self.project = f"parlour-test-{os.getpid()}"
        self.port = free_port()
        self.compose_command = [podman_compose(), "-f", str(COMPOSE_FILE), "-p", self.project]
        self.environment = {
            **os.environ,
            "PROXY_PUBLISH": f"127.0.0.1:{self.port}",
            "SERVER_IMAGE_TAG": IMAGE_TAG,
            "SERVER_REPLICAS": str(REPLICAS),  # for down too: podman-compose removes the replicas it is told of
        }

    @property
    def url(self) -> str:
        return f"ws://127.0.0.1:{self.port}"

    def compose(self, *args: str, timeout: float = 300) -> str:
        return run([*self.compose_command, *args], timeout, self.environment)

    def containers(self, service: str) -> list[str]:
        """The names of the service's containers, running or not."""
        labels = [f"label=com.docker.compose.project={self.project}", f"label=com.docker.compose.service={service}"]
        listed = run(["podman", "ps", "-a", "--filter", labels[0], "--filter", labels[1], "--format", "{{.Names}}"])
        return sorted(listed.split())

    def healthy(self, container: str) -> bool:
        """Whether the container's own healthcheck (compose.yaml's) passes now. It is run here:
        podman runs healthchecks on a timer only under systemd."""
        checked = subprocess.run(["podman", "healthcheck", "run", container], capture_output=True, timeout=30)
        return checked.returncode == 0

    def replica_of(self, server: str) -> str:
        """The server container whose node (its ``/metrics``) is the one a welcome's ``server`` names."""
        node = node_of(server)
        matching = [name for name in self.containers("server") if self.metrics(name).get("node") == node]
        if len(matching) != 1:
            raise AssertionError(f"{len(matching)} replicas are node {node}: {matching}")
        return matching[0]

    def metrics(self, container: str) -> dict[str, Any]:
        """The replica's ``/metrics`` (not reachable through the proxy): each unlabelled sample by
        name, and ``node``, the id of ``parlour_node_info``."""
        get = "import urllib.request; print(urllib.request.urlopen('http://127.0.0.1:8765/metrics').read().decode())"
        text = run(["podman", "exec", container, "python", "-c", get])
        samples: dict[str, Any] = {}
        for line in text.splitlines():
            if found := re.fullmatch(r'parlour_node_info\{node="(.+)"\} 1', line):
                samples["node"] = found[1]
            elif found := re.fullmatch(r"(parlour_\w+) ([0-9.e+-]+)", line):
                samples[found[1]] = float(found[2])
        return samples

    def log(self, container: str) -> list[str]:
        """The container's log lines (the server logs on standard error)."""
        done = subprocess.run(["podman", "logs", container], capture_output=True, text=True, timeout=60)
        return (done.stdout + done.stderr).splitlines()

    def total(self, name: str) -> float:
        """A counter summed over the server replicas running now."""
        return sum(self.metrics(container).get(name, 0.0) for container in self.containers("server"))


def shutting_down(error: Error) -> bool:
    """Whether an error event says the server is stopping."""
    return error.code == "shutting_down"


def node_of(server: str) -> str:
    """The node id in a welcome's ``server`` field, ``parlour/0.1 (NODE)``."""
    found = re.fullmatch(r"parlour/\S+ \((.+)\)", server)
    assert found, f"no node id in the welcome's server field {server!r}"
    return found[1]


def run(command: list[str], timeout: float = 60, env: dict[str, str] | None = None) -> str:
    """Run a command; its standard output, or AssertionError with everything it printed."""
    done = subprocess.run(command, capture_output=True, text=True, timeout=timeout, env=env)
    if done.returncode != 0:
        raise AssertionError(f"{' '.join(command)} exited {done.returncode}:\n{done.stdout}\n{done.stderr}")
    return done.stdout.strip()


def until(condition: Any, timeout: float, what: str) -> float:
    """Wait for ``condition()`` to be true; return the time it took, or fail saying ``what``."""
    began = time.monotonic()
    while not condition():
        if time.monotonic() - began > timeout:
            raise AssertionError(f"{what}: not within {timeout} s")
        time.sleep(0.1)
    return time.monotonic() - began


def answers_through_proxy(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=2) as response:
            return response.status == 200
    except (OSError, urllib.error.URLError):
        return False


async def retried(request: Callable[[], Awaitable[T]]) -> T:
    """``await request()``, made again while the server answers ``unavailable`` (it cannot reach Redis
    right now: try again, says the protocol), for up to UNAVAILABLE_FOR seconds. On podman 4 a
    container started moments ago may not resolve the others' names for several seconds (its DNS,
    aardvark-dns, drops queries while it reloads: containers/aardvark-dns#389), so a replica can fail
    to open a new connection to Redis for a while."""
    deadline = time.monotonic() + UNAVAILABLE_FOR
    while True:
        try:
            return await request()
        except ClientError as error:
            if error.code != "unavailable" or time.monotonic() > deadline:
                raise
            await asyncio.sleep(0.5)


async def nodes_reached(url: str) -> set[str]:
    """The nodes (welcome's ``server``) of REPLICAS connections opened through the proxy at once:
    the proxy balances by least connections, so each goes to another replica it reaches."""
    clients = [
        await retried(lambda i=i: Client.connect(url, f"probe{i}", bot=True, reconnect=False)) for i in range(REPLICAS)
    ]
    for client in clients:
        await client.close()
    return {node_of(client.server) for client in clients}


def every_replica_reached(url: str, timeout: float) -> None:
    """Wait until REPLICAS connections opened at once through the proxy land on REPLICAS nodes."""
    deadline = time.monotonic() + timeout
    while len(reached := asyncio.run(nodes_reached(url))) < REPLICAS:
        if time.monotonic() > deadline:
            raise AssertionError(f"the proxy reached {len(reached)} of {REPLICAS} replicas: {sorted(reached)}")
        time.sleep(0.5)


async def connect_apart(url: str, name: str, other: Client) -> Client:
    """A new player connected through the proxy to another node than ``other``'s: the
    connection is opened again (the same player, by its token) until the welcome names another
    node, at most APART_ATTEMPTS times."""
    client = await retried(lambda: Client.connect(url, name, bot=True))
    for _ in range(APART_ATTEMPTS - 1):
        if node_of(client.server) != node_of(other.server):
            return client
        await client.close()
        client = await retried(lambda token=client.token: Client.connect(url, name, token=token, bot=True))
    assert node_of(client.server) != node_of(other.server), f"{APART_ATTEMPTS} connections all reached {other.server}"
    return client


@pytest.fixture
def stack() -> Iterator[Stack]:
    """deploy/'s image built and compose up with REPLICAS servers, every one reached through the proxy."""
    stack = Stack()
    try:
        stack.compose("build", "server", timeout=900)
        began = time.monotonic()
        stack.compose("up", "-d")
        until(lambda: answers_through_proxy(f"http://127.0.0.1:{stack.port}/healthz"), 60, "/healthz via the proxy")
        first_healthy = time.monotonic() - began
        assert len(stack.containers("server")) == REPLICAS
        for service in ("redis", "server", "proxy"):
            for container in stack.containers(service):
                until(lambda c=container: stack.healthy(c), 60, f"{container}'s healthcheck")
        all_healthy = time.monotonic() - began
        every_replica_reached(stack.url, timeout=30)
        size = run(["podman", "image", "inspect", "--format", "{{.Size}}", f"parlour:{IMAGE_TAG}"])
        print(
            f"\nimage parlour:{IMAGE_TAG}: {int(size) / 1e6:.0f} MB; compose up to /healthz through the proxy: "
            f"{first_healthy:.1f} s; to every container's healthcheck passing: {all_healthy:.1f} s"
        )
        yield stack
    finally:
        logs = [*stack.compose_command, "logs", "--tail", "40"]  # shown by pytest if the test failed
        print(subprocess.run(logs, capture_output=True, text=True, timeout=60, env=stack.environment).stdout)
        stack.compose("down", "-v", "-t", "20", timeout=120)
        project = f"label=com.docker.compose.project={stack.project}"
        assert run(["podman", "ps", "-a", "-q", "--filter", project]) == ""
        assert run(["podman", "volume", "ls", "-q", "--filter", project]) == ""
        subprocess.run(["podman", "rmi", f"parlour:{IMAGE_TAG}"], capture_output=True, timeout=60)


class Racer:
    """Plays random legal moves, one every PACE seconds, until its game is over. A move refused
    because its server is stopping (``shutting_down``) or cannot store it (``unavailable``) is sent
    again with the same seq; one cut off in flight the client library sends again after resuming."""

    def __init__(self, client: Client, race: str, start: Start, seed: int) -> None:
        self.client, self.race = client, race
        self.view, self.seq = start.view, start.seq
        self.rng = random.Random(seed)
        self.acked: list[list[Any]] = []
        self.acked_at: list[float] = []  # the event loop's clock at each ack
        self.halfway = asyncio.Event()  # set after MOVES_BEFORE_RESTART moves
        self.go_on = asyncio.Event()  # the racer waits for it after MOVES_BEFORE_RESTART moves
        self.refused = 0

    async def play(self) -> None:
        loop = asyncio.get_running_loop()
        while self.view["moves"]:
            entry = list(self.rng.choice(self.view["moves"]))
            while True:
                try:
                    ack = await self.client.move(self.race, self.seq, entry)
                    break
                except ClientError as error:
                    assert error.code in ("shutting_down", "unavailable"), error
                    self.refused += 1
                    await asyncio.sleep(0.1)
            self.acked.append(entry)
            self.acked_at.append(loop.time())
            self.view, self.seq = ack.view, ack.seq
            assert self.seq == len(self.acked)
            if len(self.acked) == MOVES_BEFORE_RESTART:
                self.halfway.set()
                await self.go_on.wait()
            await asyncio.sleep(PACE)

    def longest_wait(self) -> float:
        """The longest time between two acks, less the PACE the racer waits between moves."""
        return max(after - before for before, after in zip(self.acked_at, self.acked_at[1:], strict=False)) - PACE


async def ann_told(ann: Player, restart: asyncio.Task[str]) -> None:
    """Until ``ann`` is told her replica is stopping (a TimeoutError after 60 s, or the restart's own error)."""
    told = asyncio.create_task(ann.first(Error, where=shutting_down, timeout=60))
    await asyncio.wait([told, restart], return_when=asyncio.FIRST_COMPLETED)
    if not told.done():  # the restart ended (or failed) first: ann must have been told by then
        restart.result()
    await told


async def test_a_race_through_the_proxy_reaches_its_results_while_a_replica_restarts(stack: Stack) -> None:
    ann = await retried(lambda: Client.connect(stack.url, "ann", bot=True))
    bob = await connect_apart(stack.url, "bob", ann)
    replica = stack.replica_of(ann.server)  # the one to restart; bob's is another
    assert stack.replica_of(bob.server) != replica
    created = await retried(lambda: ann.create("golf", seats=2, time_limit=300))  # on ann's replica: it holds the lease
    race = created.race["id"]
    await retried(lambda: bob.join(race))
    for client in (ann, bob):
        await retried(lambda c=client: c.ready(race))
    starts = [await client.next_event(Start, race, timeout=30) for client in (ann, bob)]
    heard = [Player(ann), Player(bob)]  # each reads its client's events from now on
    racers = [Racer(ann, race, starts[0], seed=1), Racer(bob, race, starts[1], seed=2)]
    playing = [asyncio.create_task(racer.play()) for racer in racers]
    await asyncio.wait_for(asyncio.gather(*(racer.halfway.wait() for racer in racers)), 60)

    node_before = node_of(ann.server)
    loop = asyncio.get_running_loop()
    restart_began = loop.time()  # SIGTERM, then the same container starts again
    restart = asyncio.create_task(asyncio.to_thread(run, ["podman", "restart", "--time", "20", replica], 60))
    # The racers go on once ann is told her replica is stopping, so her game is still running then however
    # long podman takes to send the SIGTERM, and their moves meet the replica as it stops and starts again.
    await ann_told(heard[0], restart)
    for racer in racers:
        racer.go_on.set()
    await restart
    restarted = loop.time() - restart_began
    await asyncio.wait_for(asyncio.gather(*playing), 120)

    ends = [await player.first(End, race, timeout=60) for player in heard]
    assert ends[0].results == ends[1].results
    results = {row["player"]: row for row in ends[0].results}
    assert set(results) == {ann.player, bob.player}
    for client, racer in zip((ann, bob), racers, strict=True):
        assert results[client.player]["ended"] in ("won", "stuck")  # played out: not conceded, not out of time
        assert results[client.player]["moves"] == len(racer.acked)
    # ann was told her replica was stopping, and her connection resumed (on another node); bob's never broke.
    told, resumed = heard[0].when(Error, shutting_down), heard[0].when(Resumed)
    assert len(told) == 1 and len(resumed) == 1 and told[0] <= resumed[0], heard[0].events
    assert node_of(ann.server) != node_before  # another replica, or the restarted one's new process
    assert heard[1].when(Resumed) == [] and heard[1].when(Error, shutting_down) == [], heard[1].events

    replay = (await retried(lambda: bob.replay(race))).replay
    assert verify_replay(replay) == []
    assert replay["results"] == ends[0].results
    logs = {seat["player"]: seat["log"] for seat in replay["seats"]}
    assert logs == {ann.player: racers[0].acked, bob.player: racers[1].acked}
    await asyncio.to_thread(until, lambda: stack.healthy(replica), 60, f"{replica} healthy again")

    # Counted by the nodes running now: the restarted replica's process before the restart is gone,
    # but every step below came after it.
    assert await asyncio.to_thread(stack.total, "parlour_races_finished_total") == 1  # the finish, once
    assert await asyncio.to_thread(stack.total, "parlour_deadlines_total") == 0
    assert await asyncio.to_thread(stack.total, "parlour_leases_taken_total") >= 1  # ann's replica handed it over
    assert await asyncio.to_thread(stack.total, "parlour_moves_crossed_total") > 0  # moves went between replicas

    # Every websocket came through the proxy, and the replicas counted the client it named, not itself.
    opened = [line for name in stack.containers("server") for line in stack.log(name) if " opened from " in line]
    assert opened and all(" (for " in line for line in opened), opened

    print(
        f"\nrestart of ann's replica ({node_before}): podman restart took {restarted:.2f} s; ann was told "
        f"shutting_down {told[0] - restart_began:.3f} s after it began and had resumed {resumed[0] - told[0]:.3f} s "
        f"later, on {node_of(ann.server)}; ann's longest wait for an ack {racers[0].longest_wait():.3f} s "
        f"(bob's {racers[1].longest_wait():.3f} s); ann's moves refused and sent again: {racers[0].refused}"
    )
    for player in heard:
        await player.close()
