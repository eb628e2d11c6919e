"""``parlour verify`` on the export of a real tournament, run by a real server with real bot processes:
the honest export is accepted; a changed score, a changed move, a missing race and a changed standing
are each rejected, saying why. An export holds a race every entrant forfeited too."""

from __future__ import annotations

import copy
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio

from parlour.client.cli import main
from tests.bots.helpers import BotRun, bot_online, finished, person
from tests.conftest import ServerProcess

pytestmark = pytest.mark.asyncio


@pytest_asyncio.fixture(autouse=True)
async def _no_process_left_behind() -> AsyncIterator[None]:
    yield
    await BotRun.cleanup()


def verify(path: Path, export: dict[str, Any], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    """``parlour verify`` of ``export`` saved to ``path``: its status and what it printed."""
    path.write_text(json.dumps(export))
    capsys.readouterr()
    status = main(["verify", str(path)])
    return status, capsys.readouterr().out


async def test_verify_accepts_an_honest_export_and_rejects_each_change_saying_why(
    server: ServerProcess, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for bot in ("random", "greedy"):
        await BotRun.start(server.url, bot, "--max-races", "2", home=tmp_path / bot)
    ann = await person(server.url)
    for bot in ("random", "greedy"):
        await bot_online(ann, bot)
    created = await ann.tournament_create([("golf", None)], deals=3, bots=["random", "greedy"], seed=21, timed=False)
    tid = created.tournament["id"]
    await finished(ann, tid)
    await ann.close()
    # saved by the command line, as a person would
    saved = tmp_path / "export.json"
    run = await BotRun.command("tournament", "export", tid, "-o", str(saved), "--server", server.url, home=tmp_path)
    assert await run.finish() == 0, run.text
    assert f"check it with: parlour verify {saved}" in run.text
    honest = json.loads(saved.read_text())
    capsys.readouterr()
    assert main(["verify", str(saved)]) == 0
    out = capsys.readouterr().out
    assert out.count("  ok: ") == 5 and f"{saved}: OK: every check holds" in out, out

    score = copy.deepcopy(honest)  # greedy's score on the first deal, changed where the tournament records it
    greedy = next(i for i, e in enumerate(score["spec"]["entrants"]) if e["name"] == "greedy")
    row = next(r for r in score["results"]["0"] if r["entrant"] == greedy)
    row["score"] -= 1
    status, out = verify(tmp_path / "score.json", score, capsys)
    assert status == 1 and "REJECTED" in out
    assert f"slot 0: greedy's recorded score is {row['score']}, the race's result {row['score'] + 1}" in out, out

    move = copy.deepcopy(honest)  # greedy's first move turns the stock instead: the rest of its log goes astray
    seat = next(s for s in move["races"][0]["replay"]["seats"] if s["name"] == "greedy")
    assert seat["log"][0] != ["turn"]
    seat["log"][0] = ["turn"]
    status, out = verify(tmp_path / "move.json", move, capsys)
    assert status == 1 and "FAILED: the races" in out
    assert f"slot 0: seat {seat['seat']}: " in out, out

    missing = copy.deepcopy(honest)
    del missing["races"][2]
    status, out = verify(tmp_path / "missing.json", missing, capsys)
    assert status == 1 and "FAILED: the schedule" in out
    assert "slot 2 (round 2, event 0 deal 2, table 0) has no race: missing" in out, out

    standing = copy.deepcopy(honest)
    first = standing["tournament"]["standings"][0]
    first["matchpoints"] += 1
    status, out = verify(tmp_path / "standing.json", standing, capsys)
    assert status == 1 and "FAILED: the standings" in out
    assert f"standings row 1 ({first['name']}): matchpoints is {first['matchpoints']} in the export" in out, out


async def test_a_race_every_entrant_forfeited_is_exported_without_a_replay_and_verifies(
    server: ServerProcess, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ann, bob = await person(server.url, "ann"), await person(server.url, "bob")
    created = await ann.tournament_create([("golf", None)], deals=1, people=2, forfeit_after=5, seed=4)
    tid = created.tournament["id"]
    await ann.tournament_join(tid)
    await bob.tournament_join(tid)  # and neither takes the seat
    summary = await finished(ann, tid, timeout=30)
    assert [row["percentage"] for row in summary["standings"]] == [50, 50]
    export = (await ann.tournament_export(tid)).export
    assert export["races"] == [{"slot": 0, "race": f"{tid}-0", "replay": None}]
    assert all(r["forfeit"] for r in export["results"]["0"])
    status, out = verify(tmp_path / "forfeits.json", export, capsys)
    assert status == 0, out
    await ann.close()
    await bob.close()
