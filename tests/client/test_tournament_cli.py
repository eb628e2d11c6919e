"""``parlour tournament ...`` and ``parlour ratings`` as people use them: real processes, a real
server, real bot processes."""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio

from tests.bots.helpers import BotRun, bot_online, person
from tests.client.test_line_race import Cli, _no_cli_left_behind, run_parlour  # noqa: F401 (a fixture)
from tests.conftest import ServerProcess

pytestmark = pytest.mark.asyncio


@pytest_asyncio.fixture(autouse=True)
async def _no_bot_left_behind() -> AsyncIterator[None]:
    yield
    await BotRun.cleanup()


async def bots_online(server: ServerProcess, home: Path, *names: str) -> None:
    """``parlour bot run`` for each of ``names``, each listed in the lobby before this returns."""
    for name in names:
        await BotRun.start(server.url, name, "--max-races", "2", home=home / name)
    ann = await person(server.url, "lobby")
    for name in names:
        await bot_online(ann, name)
    await ann.close()


async def test_create_and_watch_a_tournament_then_its_standings_and_exports(
    server: ServerProcess, tmp_path: Path
) -> None:
    await bots_online(server, tmp_path, "random", "greedy")
    at = ("--server", server.url)
    status, out = await run_parlour(
        tmp_path, "tournament", "create", "golf", "--bots", "random,greedy", "--deals", "3", "--seed", "7", "--untimed",
        "--title", "Cup | one", "--max-moves", "200", "--watch", *at,
    )  # fmt: skip
    assert status == 0, out
    tid = re.search(r"Created\. Tournament (t\w+) 'Cup \| one': duplicate of golf; 3 deals, 3 races, unrated", out)
    assert tid is not None, out
    assert re.search(r"untimed \(the score alone counts\), 10:00 a race, at most 200 moves a game;", out), out
    tid = tid.group(1)
    assert re.search(r"^Commitment to the tournament's seed: [0-9a-f]{64} \(revealed at the end\)\.$", out, re.M)
    assert f"Playing: {tid}-0 (golf deal 1: random, greedy)" in out
    assert re.search(r"^\[#{8}\.{16}\] 1/3 races, 0:\d\d so far, about 0:\d\d left$", out, re.M), out
    assert re.search(r"^\[#{24}\] 3/3 races, 0:\d\d so far$", out, re.M), out
    final = re.search(r"Final standings:\nplace +name +deals +% +matchpoints +total score\n[- ]+\n(.*)\n(.*)\n", out)
    assert final is not None, out
    assert sorted(re.split(r"\s{2,}", line.strip())[1] for line in final.groups()) == ["greedy (bot)", "random (bot)"]
    assert "Seed 7, salt " in out and f"parlour tournament export {tid} --format json" in out

    status, out = await run_parlour(tmp_path, "tournament", "standings", tid, *at)
    assert status == 0 and final.group(0) in out, out
    status, out = await run_parlour(tmp_path, "tournament", "standings", tid, "--json", *at)
    summary = json.loads(out)
    assert status == 0 and summary["id"] == tid and summary["done"] == 3 and int(summary["seed"], 16) == 7
    assert summary["max_moves"] == 200

    status, out = await run_parlour(tmp_path, "tournament", "export", tid, "--format", "csv", *at)
    rows = list(csv.DictReader(io.StringIO(out)))
    assert status == 0 and [row["name"] for row in rows] == [row["name"] for row in summary["standings"]]
    assert [float(row["percentage"]) for row in rows] == [row["percentage"] for row in summary["standings"]]
    assert list(rows[0])[-1] == "golf %"
    status, out = await run_parlour(tmp_path, "tournament", "export", tid, "--format", "csv", "--races", *at)
    races = list(csv.DictReader(io.StringIO(out)))
    assert status == 0 and len(races) == 6 and {row["race"] for row in races} == {f"{tid}-{i}" for i in range(3)}
    assert all(row["game"] == "golf" and row["forfeit"] == "False" for row in races)
    saved = tmp_path / "cup.md"
    status, out = await run_parlour(tmp_path, "tournament", "export", tid, "--format", "md", "-o", str(saved), *at)
    assert status == 0 and f"Saved tournament {tid} to {saved}" in out
    report = saved.read_text()
    assert report.startswith("# Cup \\| one\n") and "## Standings" in report and "## Races" in report
    assert len(re.findall(rf"^\| \d \| {tid}-\d \| golf \| \d \| (random|greedy) \|", report, re.M)) == 6
    status, out = await run_parlour(tmp_path, "tournament", "export", tid, "--races", *at)
    assert status == 2 and "--races is for --format csv" in out
    status, out = await run_parlour(tmp_path, "tournament", "list", *at)
    assert status == 0 and re.search(rf"^{tid}  finished duplicate +3 races  Cup \| one$", out, re.M), out


async def test_ratings_print_the_leaderboard_of_a_rated_tournament(server: ServerProcess, tmp_path: Path) -> None:
    await bots_online(server, tmp_path, "random", "greedy")
    at = ("--server", server.url)
    status, out = await run_parlour(tmp_path, "ratings", "golf", *at)
    assert status == 0 and "No rated players at golf yet" in out
    status, out = await run_parlour(
        tmp_path, "tournament", "create", "golf", "--bots", "random", "--bots", "greedy", "--deals", "2", "--rated",
        "--watch", *at,
    )  # fmt: skip
    assert status == 0 and "2 deals, 2 races, rated" in out and "Final standings" in out, out
    ann = await person(server.url)
    board = (await ann.ratings("golf", bots=True)).ratings
    await ann.close()
    assert len(board) == 2 and all(row["races"] == 2 for row in board)
    status, out = await run_parlour(tmp_path, "ratings", "golf", "--bots", *at)
    assert status == 0, out
    lines = out.splitlines()
    assert lines[0] == "Leaderboard of golf (bots):" and lines[1].split() == [
        "rank",
        "name",
        "rating",
        "mu",
        "sigma",
        "races",
    ]
    for rank, (row, line) in enumerate(zip(board, lines[3:5], strict=True), start=1):
        numbers = [f"{row[key]:.2f}".rstrip("0").rstrip(".") for key in ("ordinal", "mu", "sigma")]
        assert line.split() == [str(rank), row["name"], "(bot)", *numbers, "2"]
    status, out = await run_parlour(tmp_path, "ratings", "golf", "--people", *at)
    assert status == 0 and "No rated people at golf yet" in out


async def test_a_person_enters_plays_each_race_and_a_spectator_follows(server: ServerProcess, tmp_path: Path) -> None:
    await bots_online(server, tmp_path, "greedy")
    at = ("--server", server.url)
    status, out = await run_parlour(
        tmp_path / "ann", "tournament", "create", "golf", "--bots", "greedy", "--people", "2", "--deals", "2",
        "--forfeit-after", "30", "--seed", "3", *at,
    )  # fmt: skip
    assert status == 0, out
    tid = re.search(r"Tournament (t\w+): duplicate of golf", out).group(1)  # type: ignore[union-attr]
    assert f"People enter with:  parlour tournament join {tid} --server {server.url}" in out
    assert "; open." in out
    sam = await Cli.start(tmp_path / "sam", "tournament", "watch", tid, "--standings", *at)
    await sam.until(f"Tournament {tid}: duplicate of golf")
    bob = await Cli.start(tmp_path / "bob", "tournament", "join", tid, "--name", "bob", *at)
    await bob.until("You are an entrant.")
    await bob.until("The tournament starts once every seat for people is taken")
    status, out = await run_parlour(tmp_path / "bob", "tournament", "start", tid, *at)
    assert status == 2 and "forbidden: only the tournament's creator may start it" in out, out
    status, out = await run_parlour(tmp_path / "ann", "tournament", "export", tid, *at)
    assert status == 2 and "not_finished" in out and "Traceback" not in out
    status, out = await run_parlour(tmp_path / "ann", "tournament", "start", tid, *at)  # without the second person
    assert status == 0 and "entrants: greedy (bot), bob, 2 seats for people; running." in out, out
    await bob.until("The tournament has started.")
    for deal in range(2):
        await bob.until(rf"Race {tid}-{deal}: golf, 2 seats")
        await bob.until("Go! Commitment to the deal")
        await bob.type("concede")
        await bob.until(r"2\. bob: score \d+ \(conceded, 0 moves")
    await bob.until(r"Final standings:")
    assert await bob.finish() == 0
    assert re.search(r"^    1  greedy \(bot\)      2  100            2 ", bob.text, re.M), bob.text
    assert re.search(r"^    2  bob               2    0            0 ", bob.text, re.M), bob.text
    # Progress between races: after the first race, or with the second's (a result recorded while bob plays the
    # next race is told after it).
    assert re.search(r"Tournament: \[[#.]{24}\] [12]/2 races", bob.text), bob.text
    assert await sam.finish() == 0
    assert f"Playing: {tid}-1 (golf deal 2: greedy, bob)" in sam.text
    assert "Standings after 1 of 2:" in sam.text and "Final standings:" in sam.text
    assert sam.text.index("Standings after 1 of 2:") < sam.text.index("Final standings:")
    status, out = await run_parlour(tmp_path / "cy", "tournament", "join", tid, *at)
    assert status == 2 and "tournament_started: the tournament takes no more entrants" in out


async def test_refusals_are_one_clear_line_and_status_2(server: ServerProcess, tmp_path: Path) -> None:
    at = ("--server", server.url)
    cases = [
        (["tournament", "create", "golf", "--bots", "nobody", *at], "the server refused: no_such_bot: no online bot"),
        (["tournament", "create", "golf", "--people", "1", "--seed", "5", "--rated", *at], "its own secret seed"),
        (["tournament", "create", "chess", "--people", "2", *at], "no game called 'chess'"),
        (["tournament", "create", "golf", "the-chance", "-o", "x=y", "--people", "2", *at], "GAME:NAME=VALUE"),
        (["tournament", "create", "cheer:win_loss=perhaps", "--people", "2", *at], "false, true"),
        (["tournament", "create", "golf", *at], "a tournament needs entrants"),
        (["tournament", "create", "golf", "--people", "2", "--deals", "0", *at], "must be from 1 to 1000"),
        (["tournament", "standings", "t0000000000", *at], "unknown_tournament: no tournament with that id"),
        (["ratings", "chess", *at], "no game called 'chess'"),
    ]
    for args, said in cases:
        status, out = await run_parlour(tmp_path, *args)
        assert status == 2 and said in out and "Traceback" not in out, (args, out)
