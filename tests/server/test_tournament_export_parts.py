"""A tournament's export comes in parts, each well inside one message, and the client library puts them
together: a mixed tournament of random bots over all eight games exports over a megabyte of move logs
(random play runs to 3000 moves in several games), more than a client takes in one message (1 MiB) or a
server queues for one connection (``--max-backlog``), and asking for it in one message never ended."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import msgpack
import pytest
import pytest_asyncio

from parlour.protocol import messages as m
from parlour.protocol.replay import verify_replay
from parlour.protocol.tournament import Spec, schedule
from tests.bots.helpers import BotRun, bot_online, finished, person

pytestmark = pytest.mark.asyncio

BACKLOG = 16 * 1024  # the server's --max-backlog: a part holds a quarter of it in replays, past its first race


@pytest_asyncio.fixture(autouse=True)
async def _no_process_left_behind() -> AsyncIterator[None]:
    yield
    await BotRun.cleanup()


async def test_a_long_export_comes_in_parts_within_the_servers_backlog_and_arrives_whole(
    server_factory: Any, tmp_path: Path
) -> None:
    server = server_factory("--max-backlog", str(BACKLOG), "--rate", "1000", "--burst", "1000")
    server.start()
    for bot in ("random", "greedy"):
        await BotRun.start(server.url, bot, home=tmp_path / bot)
    ann = await person(server.url)
    for bot in ("random", "greedy"):
        await bot_online(ann, bot)
    created = await ann.tournament_create([("golf", None)], deals=8, bots=["random", "greedy"], seed=5, timed=False)
    tournament = created.tournament["id"]
    await finished(ann, tournament)

    parts: list[m.TournamentExportData] = []
    first: int | None = 0
    while first is not None:  # the parts as the client library asks for them
        parts.append(await ann._request(m.TournamentExportData, m.TournamentExport, tournament=tournament, first=first))
        first = parts[-1].next
    assert len(parts) > 1, len(parts)
    for part in parts:
        replays = [len(msgpack.packb(race["replay"])) for race in part.export["races"]]
        assert sum(replays[:-1]) < BACKLOG // 4  # the part's last race is the one that reached the budget
    export = (await ann.tournament_export(tournament)).export
    assert export["races"] == [race for part in parts for race in part.export["races"]]
    slots = schedule(Spec.from_map(export["spec"]))
    assert [race["race"] for race in export["races"]] == [f"{tournament}-{slot.index}" for slot in slots]
    assert all(verify_replay(race["replay"]) == [] for race in export["races"])
    assert sorted(map(int, export["results"])) == [slot.index for slot in slots]
    await ann.close()
