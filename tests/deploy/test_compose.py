"""deploy/ for real: the image builds, compose runs REPLICAS servers on one Redis behind the proxy,
and a race played through the proxy goes on to its results while the replica of one racer restarts.

Runs only with ``PARLOUR_CONTAINER_TESTS=1``, on a machine with podman and podman-compose (the
container registry is not needed once the base images exist: see deploy/README.md, "With podman").
Each run has a compose project of its own (its containers, network and Redis volume), removed at
the end with the image it built. Prints the image's size and the time from ``compose up`` to a
server answering through the proxy (tests never assert on timings).
"""

from __future__ import annotations

import asyncio
import os
import random
import shutil
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from parlour.client.connection import Client, ClientError, Resumed
from parlour.protocol.messages import End, Start
from parlour.protocol.replay import verify_replay
from tests.conftest import free_port

REPLICAS = 3  # server replicas behind the proxy (a race across replicas needs the multi-node server)
ROOT = Path(__file__).resolve().parents[2]
COMPOSE_FILE = ROOT / "deploy" / "compose.yaml"
IMAGE_TAG = "test"  # the image is parlour:test
MOVES_BEFORE_RESTART = 5  # each racer's moves before the restart; a Golf game has at least 17
PACE = 0.1  # seconds between two moves of a racer, so the restart falls in the middle of the race

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
        """The server container whose host name (the node's default name) is in a welcome's
        ``server`` field; with one replica, that one (the single-node server names no host)."""
        replicas = self.containers("server")
        hostnames = {name: run(["podman", "inspect", "--format", "{{.Config.Hostname}}", name]) for name in replicas}
        matching = [name for name, hostname in hostnames.items() if hostname and hostname in server]
        if len(matching) == 1:
            return matching[0]
        if len(replicas) == 1:
            return replicas[0]
        raise AssertionError(f"no single replica hosts {server!r}: {hostnames}")


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


async def nodes_reached(url: str) -> set[str]:
    """The nodes (welcome's ``server``) of REPLICAS connections opened through the proxy at once:
    the proxy balances by least connections, so each goes to another replica it reaches."""
    clients = [await Client.connect(url, f"probe{i}", bot=True, reconnect=False) for i in range(REPLICAS)]
    for client in clients:
        await client.close()
    return {client.server for client in clients}


def every_replica_reached(url: str, timeout: float) -> None:
    """Wait until REPLICAS connections opened at once through the proxy land on REPLICAS nodes."""
    deadline = time.monotonic() + timeout
    while len(reached := asyncio.run(nodes_reached(url))) < REPLICAS:
        if time.monotonic() > deadline:
            raise AssertionError(f"the proxy reached {len(reached)} of {REPLICAS} replicas: {sorted(reached)}")
        time.sleep(0.5)


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
        self.halfway = asyncio.Event()  # set after MOVES_BEFORE_RESTART moves
        self.refused = 0

    async def play(self) -> None:
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
            self.view, self.seq = ack.view, ack.seq
            assert self.seq == len(self.acked)
            if len(self.acked) == MOVES_BEFORE_RESTART:
                self.halfway.set()
            await asyncio.sleep(PACE)


async def test_a_race_through_the_proxy_reaches_its_results_while_a_replica_restarts(stack: Stack) -> None:
    ann = await Client.connect(stack.url, "ann", bot=True)
    bob = await Client.connect(stack.url, "bob", bot=True)
    race = (await ann.create("golf", seats=2, time_limit=300)).race["id"]
    await bob.join(race)
    for client in (ann, bob):
        await client.ready(race)
    starts = [await client.next_event(Start, race, timeout=30) for client in (ann, bob)]
    racers = [Racer(ann, race, starts[0], seed=1), Racer(bob, race, starts[1], seed=2)]
    playing = [asyncio.create_task(racer.play()) for racer in racers]
    await asyncio.wait_for(asyncio.gather(*(racer.halfway.wait() for racer in racers)), 60)

    replica = stack.replica_of(ann.server)  # SIGTERM, then the same container starts again
    await asyncio.to_thread(run, ["podman", "restart", "--time", "20", replica], 60)
    await asyncio.wait_for(asyncio.gather(*playing), 120)

    ends = [await client.next_event(End, race, timeout=60) for client in (ann, bob)]
    assert ends[0].results == ends[1].results
    results = {row["player"]: row for row in ends[0].results}
    assert set(results) == {ann.player, bob.player}
    for client, racer in zip((ann, bob), racers, strict=True):
        assert results[client.player]["ended"] in ("won", "stuck")  # played out: not conceded, not out of time
        assert results[client.player]["moves"] == len(racer.acked)
    await ann.next_event(Resumed, timeout=1)  # ann's connection was cut mid-race and resumed

    replay = (await bob.replay(race)).replay
    assert verify_replay(replay) == []
    assert replay["results"] == ends[0].results
    logs = {seat["player"]: seat["log"] for seat in replay["seats"]}
    assert logs == {ann.player: racers[0].acked, bob.player: racers[1].acked}
    await asyncio.to_thread(until, lambda: stack.healthy(replica), 60, f"{replica} healthy again")
    for client in (ann, bob):
        await client.close()
