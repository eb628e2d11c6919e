"""The server's log: one INFO line per connection and race event, shown by default by ``parlour serve``."""

from __future__ import annotations

import asyncio
import re

import pytest

from parlour.client.connection import Client
from tests.conftest import REDIS_URL, ServerProcess
from tests.server.test_fairness import seated_race, start

pytestmark = pytest.mark.asyncio


async def logged(server: ServerProcess, pattern: str, timeout: float = 10, count: int = 1) -> list[str]:
    """The server's output lines matching ``pattern``, waiting until there are ``count`` (its output is
    read line by line by a thread: a line logged just after another may not be read yet)."""
    deadline = asyncio.get_running_loop().time() + timeout
    while True:
        found = [line.strip() for line in list(server.output) if re.search(pattern, line)]
        if len(found) >= count or asyncio.get_running_loop().time() > deadline:
            return found
        await asyncio.sleep(0.05)


async def test_the_server_logs_connections_and_races_one_line_per_event(server: ServerProcess) -> None:
    ann, bob, race = await seated_race(server.url)
    await bob.call({"type": "leave", "race": race})
    await bob.call({"type": "join", "race": race})
    await start(race, ann, bob)
    await ann.call({"type": "concede", "race": race})
    await bob.call({"type": "concede", "race": race})
    await bob.until("end")
    await bob.ws.close()

    # Each line ends with the ids of what it is about (race, player, connection).
    assert len(await logged(server, r"INFO .*: connection opened from 127\.0\.0\.1:\d+ connection=\d+$", count=2)) >= 2
    assert await logged(server, rf"INFO .*: connection identified as ann player={ann.player} connection=\d+$")
    assert await logged(server, rf"INFO .*: race created: golf for 2 race={race} player={ann.player}$")
    assert len(await logged(server, rf"INFO .*: race joined, seat 1 race={race} player={bob.player}$", count=2)) == 2
    assert len(await logged(server, rf"INFO .*: race left race={race} player={bob.player}$")) == 1
    assert len(await logged(server, rf"INFO .*: race started race={race}$")) == 1
    assert len(await logged(server, rf"INFO .*: race finished race={race}$")) == 1
    assert await logged(server, r"INFO .*: connection closed player=p[0-9a-f]+ connection=\d+$")
    # One line per event: nothing is logged for a repeated join of a seat already held.
    await ann.call({"type": "join", "race": race})
    await asyncio.sleep(0.2)
    assert not [line for line in list(server.output) if f"joined, seat 0 race={race} player={ann.player}" in line]


@pytest.mark.parametrize("alone", [True, False])
async def test_a_node_stopping_says_where_its_races_go_counted_in_words(
    alone: bool, server_factory: type[ServerProcess], shared_redis: str
) -> None:
    """With the embedded Redis no other node can take its races: they wait for its next start. A node
    sharing a Redis hands them to the others. Either way one race is "1 race"."""
    if alone and REDIS_URL:
        pytest.skip("PARLOUR_TEST_REDIS_URL: every server shares that Redis, none has one of its own")
    server = server_factory() if alone else server_factory(redis_url=shared_redis)
    server.start()
    ann = await Client.connect(server.url, "ann")
    await ann.create("golf")
    await ann.close()
    assert server.stop() == 0
    output = "".join(server.output)
    if alone:
        assert "left 1 race for this node's next start: no other node uses its Redis" in output, output
        assert "handed" not in output
    else:
        assert "handed 1 race over to the other nodes" in output, output
