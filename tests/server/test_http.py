"""``GET /healthz`` and ``GET /metrics`` on a real server process, over real HTTP."""

from __future__ import annotations

import asyncio
import os
import signal
import urllib.error
import urllib.request

import pytest

from parlour.client.connection import Client, ClientError
from parlour.protocol.messages import Start
from tests.conftest import REDIS_URL, ServerProcess

pytestmark = pytest.mark.asyncio


async def get(url: str) -> tuple[int, list[str], str]:
    """Status, every Content-Type header and body of ``GET url`` (error statuses included)."""

    def fetch() -> tuple[int, list[str], str]:
        try:
            with urllib.request.urlopen(url, timeout=10) as response:
                return response.status, response.headers.get_all("Content-Type"), response.read().decode()
        except urllib.error.HTTPError as error:
            return error.code, error.headers.get_all("Content-Type"), error.read().decode()

    return await asyncio.to_thread(fetch)


def samples(text: str) -> dict[str, float]:
    """The metric lines of a Prometheus text page: name with labels -> value."""
    out = {}
    for line in text.splitlines():
        if line and not line.startswith("#"):
            name, value = line.rsplit(" ", 1)
            out[name] = float(value)
    return out


async def test_healthz_answers_ok_while_redis_answers(server: ServerProcess) -> None:
    assert await get(server.http + "/healthz") == (200, ["text/plain; charset=utf-8"], "ok\n")


@pytest.mark.skipif(bool(REDIS_URL), reason="stops the embedded Redis")
async def test_healthz_answers_unavailable_while_redis_does_not_answer(server: ServerProcess) -> None:
    # A stopped Redis, not a killed one: the supervisor restarts a dead embedded Redis within
    # a fraction of a second, which would race with the request.
    pid = int((server.data_dir / "redis.pid").read_text())
    os.kill(pid, signal.SIGSTOP)
    try:
        status, _, body = await get(server.http + "/healthz")
        assert (status, body) == (503, "unavailable\n")
        assert server.process is not None and server.process.poll() is None  # still up, and says so
    finally:
        os.kill(pid, signal.SIGCONT)
    status, _, body = await get(server.http + "/healthz")
    assert (status, body) == (200, "ok\n")


async def test_metrics_count_moves_errors_connections_and_races(server: ServerProcess) -> None:
    ann = await Client.connect(server.url, "ann")
    bob = await Client.connect(server.url, "bob")
    race = (await ann.create("golf")).race["id"]
    await bob.join(race)
    await ann.ready(race)
    await bob.ready(race)
    start = await ann.next_event(Start, race)
    first = await ann.move(race, 0, start.view["moves"][0])
    await ann.move(race, 1, first.view["moves"][0])
    assert (await ann.move(race, 0, start.view["moves"][0])).duplicate  # counted: it is answered with an ack
    with pytest.raises(ClientError):
        await ann.move(race, 2, ["play", "p9"])  # no such pile
    await bob.concede(race)  # a concession is not a move

    status, content_type, page = await get(server.http + "/metrics")
    assert status == 200 and content_type == ["text/plain; version=0.0.4; charset=utf-8"]
    metrics = samples(page)
    assert metrics["parlour_moves_total"] == 3
    assert metrics["parlour_move_latency_seconds_count"] == 3
    assert metrics['parlour_move_latency_seconds_bucket{le="+Inf"}'] == 3
    assert 0 < metrics["parlour_move_latency_seconds_sum"] < 30
    assert metrics['parlour_errors_total{code="bad_move"}'] == 1
    assert metrics["parlour_connections"] == 2 and metrics["parlour_connections_total"] == 2
    assert metrics["parlour_races_running"] == 1 and metrics["parlour_races_open"] == 0
    await ann.close()
    await bob.close()


async def test_races_watched_counts_only_races_with_a_spectator(server: ServerProcess) -> None:
    ann = await Client.connect(server.url, "ann")
    bob = await Client.connect(server.url, "bob")
    race = (await ann.create("golf")).race["id"]
    await bob.join(race)
    await ann.ready(race)
    await bob.ready(race)
    await ann.next_event(Start, race)  # the start drops seated players from the race's spectators
    assert samples((await get(server.http + "/metrics"))[2])["parlour_races_watched"] == 0
    sam = await Client.connect(server.url, "sam")
    await sam.spectate(race)
    assert samples((await get(server.http + "/metrics"))[2])["parlour_races_watched"] == 1
    await sam.unspectate(race)
    assert samples((await get(server.http + "/metrics"))[2])["parlour_races_watched"] == 0
    for client in (ann, bob, sam):
        await client.close()
