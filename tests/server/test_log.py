"""The server's log: one INFO line per connection and race event, shown by default by ``parlour serve``."""

from __future__ import annotations

import asyncio
import re

import pytest

from tests.conftest import ServerProcess
from tests.server.test_fairness import seated_race, start

pytestmark = pytest.mark.asyncio


async def logged(server: ServerProcess, pattern: str, timeout: float = 10) -> list[str]:
    """The server's output lines matching ``pattern``, waiting until there is one."""
    deadline = asyncio.get_running_loop().time() + timeout
    while True:
        found = [line.strip() for line in list(server.output) if re.search(pattern, line)]
        if found or asyncio.get_running_loop().time() > deadline:
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

    assert len(await logged(server, r"INFO .*connection \d+ opened from 127\.0\.0\.1:\d+")) >= 2
    assert await logged(server, rf"INFO .*connection \d+ identified as {ann.player} \(ann\)$")
    assert await logged(server, rf"INFO .*race {race} created by {ann.player}: golf for 2$")
    assert len(await logged(server, rf"INFO .*race {race} joined by {bob.player}, seat 1$")) == 2
    assert len(await logged(server, rf"INFO .*race {race} left by {bob.player}$")) == 1
    assert len(await logged(server, rf"INFO .*race {race} started$")) == 1
    assert len(await logged(server, rf"INFO .*race {race} finished$")) == 1
    assert await logged(server, r"INFO .*connection \d+ closed$")
    # One line per event: nothing is logged for a repeated join of a seat already held.
    await ann.call({"type": "join", "race": race})
    await asyncio.sleep(0.2)
    assert not [line for line in list(server.output) if f"race {race} joined by {ann.player}" in line]
