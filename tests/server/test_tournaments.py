"""Tournaments on real servers with real bot processes (issue 12): the director runs every race of
the schedule, records the results once, and publishes standings; watchers follow it live."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio

from parlour.client.connection import Client, ClientError
from parlour.protocol.messages import TournamentUpdate
from parlour.protocol.tournament import Spec, schedule
from tests.bots.helpers import BotRun, bot_online, person
from tests.conftest import ServerProcess

pytestmark = pytest.mark.asyncio


@pytest_asyncio.fixture(autouse=True)
async def _no_process_left_behind() -> AsyncIterator[None]:
    yield
    await BotRun.cleanup()


async def finished(client: Client, tournament: str, timeout: float = 120) -> dict[str, Any]:
    """The tournament's summary once it is finished (watching it)."""
    summary = (await client.tournament_watch(tournament)).tournament
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while summary["status"] != "finished":
        left = deadline - loop.time()
        assert left > 0, f"the tournament did not finish in {timeout} s: {summary.get('done')} races done"
        summary = (await client.next_event(TournamentUpdate, timeout=left)).tournament
    return summary


async def test_a_duplicate_tournament_of_bots_plays_every_slot_and_ranks_them(
    server: ServerProcess, tmp_path: Path
) -> None:
    runners = [await BotRun.start(server.url, bot, home=tmp_path / bot) for bot in ("random", "greedy")]
    ann = await person(server.url)
    for bot in ("random", "greedy"):
        await bot_online(ann, bot)
    created = (await ann.tournament_create([("golf", None)], deals=3, bots=["random", "greedy"], seed=7)).tournament
    assert created["status"] == "running" and created["races"] == 3
    assert "seed" not in created
    try:
        summary = await finished(ann, created["id"], timeout=20)
    except BaseException:
        print("".join(server.output)[-6000:])
        raise
    assert summary["done"] == 3
    assert int(summary["seed"], 16) == 7
    rows = summary["standings"]
    assert sorted(row["name"] for row in rows) == ["greedy", "random"]
    assert all(row["deals"] == 3 for row in rows)
    assert sum(row["matchpoints"] for row in rows) == 3  # one point per deal between two entrants
    export = (await ann.tournament_export(created["id"])).export
    spec = Spec.from_map(export["spec"])
    assert [race["race"] for race in export["races"]] == [f"{created['id']}-{s.index}" for s in schedule(spec)]
    for race in export["races"]:
        players = sorted(r["name"] for r in race["replay"]["results"])
        if players != ["greedy", "random"]:
            Path("/tmp/tdebug.txt").write_text(runners[0].text + "\n=====\n" + "".join(server.output))
        assert players == ["greedy", "random"]
    await ann.close()
    for runner in runners:
        runner.kill()


async def test_a_tournament_that_cannot_be_held_is_refused_saying_why(server: ServerProcess, tmp_path: Path) -> None:
    ann = await person(server.url)
    cases = [
        ({"bots": ["nobody"]}, "no_such_bot"),
        ({"bots": [], "people": 0}, "bad_tournament"),
        ({"bots": ["x"], "seed": 5, "rated": True}, "bad_tournament"),
        ({"format": "knockout", "people": 2}, "bad_tournament"),
    ]
    for fields, code in cases:
        with pytest.raises(ClientError) as info:
            await ann.tournament_create([("golf", None)], **fields)
        assert info.value.code == code, fields
    with pytest.raises(ClientError) as info:
        await ann.tournament_watch("t0000000000")
    assert info.value.code == "unknown_tournament"
    await ann.close()
