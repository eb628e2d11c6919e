"""``parlour bot run`` and ``parlour serve --house-bots``: real servers, real bot processes, a person's client."""

from __future__ import annotations

import asyncio
import json
import os
import re
import signal
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import pytest
import pytest_asyncio

from parlour.client.connection import Client, Progress, RaceUpdate
from parlour.games import game_names
from parlour.protocol.replay import verify_replay
from tests.bots import sample_bots
from tests.bots.helpers import BotRun, bot_online, concede_at_start, person, race_bot, result_of, results
from tests.conftest import ServerProcess
from tests.server.multinode import start_nodes

pytestmark = pytest.mark.asyncio

PLAYED_OUT = ("won", "stuck", "lost", "out_of_time")  # anything but conceded
# The built-in bot raced in every game and from the command line: greedy once bots/builtin has each
# game's Greedy (random meanwhile: it needs nothing but the rules).
QUICK_BOT = "greedy"


@pytest_asyncio.fixture(autouse=True)
async def _no_process_left_behind() -> AsyncIterator[None]:
    yield
    await BotRun.cleanup()


async def bot_moves(client: Client, race: str, bot_seat_not: int, at_least: int) -> None:
    """Wait until the seat other than ``bot_seat_not`` has made ``at_least`` moves (by its progress)."""
    while True:
        progress = await client.next_event(Progress, race=race, timeout=30)
        if progress.seat != bot_seat_not and progress.moves >= at_least:
            return


async def test_a_person_invites_a_bot_by_name_and_every_game_ends_with_both_results(
    server_factory: type[ServerProcess], tmp_path: Path
) -> None:
    server = server_factory("--max-races", "16")
    server.start()
    runner = await BotRun.start(server.url, QUICK_BOT, "--max-races", "8", home=tmp_path)
    ann = await person(server.url)
    bot = await bot_online(ann, QUICK_BOT)
    assert sorted(bot["games"]) == sorted(game_names())
    races = {game: await race_bot(ann, game, QUICK_BOT, time_limit=10) for game in game_names()}
    for race in races.values():
        await concede_at_start(ann, race)
    for game, race in races.items():
        ranking = await results(ann, race)
        assert len(ranking) == 2, game
        # greedy concedes a lost Gate or The Chance by itself; a failure would be in the runner's log
        assert result_of(ranking, bot["player"])["ended"] in (*PLAYED_OUT, "conceded"), (game, ranking)
        assert verify_replay((await ann.replay(race)).replay) == [], game
    await ann.close()
    assert await runner.finish(signal.SIGTERM) == 0
    assert "the bot failed" not in runner.text


async def test_a_bot_thinking_longer_than_the_idle_timeout_keeps_its_connection(
    server_factory: type[ServerProcess], tmp_path: Path
) -> None:
    server = server_factory("--idle-timeout", "1")
    server.start()
    env = sample_bots.install(tmp_path / "site") | {"PARLOUR_TEST_THINK": "1.5"}
    run = await BotRun.start(server.url, "busy", home=tmp_path, env=env)
    ann = await person(server.url)
    bot = await bot_online(ann, "busy")
    connections = server.metrics()["parlour_connections_total"]
    race = await race_bot(ann, "golf", "busy")
    await concede_at_start(ann, race)
    mine = result_of(await results(ann, race), bot["player"])
    # Two moves of 1.5 s each (the second a concession), on the connection it had: a bot thinking on
    # the runner's event loop would have sent nothing for longer than the idle timeout, and been closed.
    assert (mine["ended"], mine["moves"]) == ("conceded", 1)
    assert server.metrics()["parlour_connections_total"] == connections
    assert "reconnected" not in run.text
    await ann.close()


async def test_a_bot_resumes_its_race_across_a_server_killed_and_restarted_and_plays_each_move_once(
    server_factory: type[ServerProcess], tmp_path: Path
) -> None:
    server = server_factory()
    server.start()
    record = tmp_path / "moves.jsonl"
    env = sample_bots.install(tmp_path / "site") | {"PARLOUR_TEST_THINK": "0.1", "PARLOUR_TEST_RECORD": str(record)}
    run = await BotRun.start(server.url, "slow", home=tmp_path, env=env)
    ann = await person(server.url)
    bot = await bot_online(ann, "slow")
    race = await race_bot(ann, "golf", "slow", time_limit=120)
    await concede_at_start(ann, race)
    await bot_moves(ann, race, bot_seat_not=0, at_least=2)
    server.kill()
    server.start()
    mine = result_of(await results(ann, race), bot["player"])
    assert mine["ended"] in ("won", "stuck")
    await run.until("reconnected")
    replay = (await ann.replay(race)).replay
    assert verify_replay(replay) == []
    log = next(seat["log"] for seat in replay["seats"] if seat["player"] == bot["player"])
    chosen = [json.loads(line) for line in record.read_text().splitlines()]
    # Every move the bot chose went into the log once, at the seq it was chosen for, and nothing else did.
    assert chosen == [[seq, entry] for seq, entry in enumerate(log)]
    assert len(log) == mine["moves"] > 2
    await ann.close()


async def test_a_runner_killed_and_started_again_is_the_same_player_and_finishes_its_race(
    server_factory: type[ServerProcess], tmp_path: Path
) -> None:
    server = server_factory()
    server.start()
    env = sample_bots.install(tmp_path / "site") | {"PARLOUR_TEST_THINK": "0.1"}
    run = await BotRun.start(server.url, "slow", home=tmp_path, env=env)
    ann = await person(server.url)
    bot = await bot_online(ann, "slow")
    race = await race_bot(ann, "golf", "slow", time_limit=120)
    await concede_at_start(ann, race)
    await bot_moves(ann, race, bot_seat_not=0, at_least=1)
    run.kill()
    assert await run.finish() == -signal.SIGKILL
    again = await BotRun.start(server.url, "slow", home=tmp_path, env=env)
    await again.until(rf"\(player {bot['player']}\)")  # its token was kept
    await again.until(f"resuming race {race}")
    assert result_of(await results(ann, race), bot["player"])["ended"] in ("won", "stuck")
    await ann.close()


async def test_sigterm_leaves_the_races_not_started_concedes_the_running_ones_and_exits_0(
    server_factory: type[ServerProcess], tmp_path: Path
) -> None:
    server = server_factory()
    server.start()
    env = sample_bots.install(tmp_path / "site") | {"PARLOUR_TEST_THINK": "0.5"}
    run = await BotRun.start(server.url, "slow", "--max-races", "2", "--stop-grace", "0.5", home=tmp_path, env=env)
    ann = await person(server.url)
    bot = await bot_online(ann, "slow")
    running = await race_bot(ann, "golf", "slow", time_limit=120)
    await concede_at_start(ann, running)
    await bot_moves(ann, running, bot_seat_not=0, at_least=1)
    waiting = str((await ann.create("golf")).race["id"])  # ann is not ready: it will not start
    await ann.invite(waiting, "slow")
    while len((await ann.next_event(RaceUpdate, race=waiting)).race["players"]) < 2:
        pass
    assert await run.finish(signal.SIGTERM) == 0
    while len((await ann.next_event(RaceUpdate, race=waiting)).race["players"]) > 1:
        pass
    assert result_of(await results(ann, running), bot["player"])["ended"] == "conceded"
    assert f"race {waiting}: left before the start" in run.text
    await ann.close()


async def test_a_bot_that_fails_concedes_that_race_and_the_runner_plays_the_next(
    server: ServerProcess, tmp_path: Path
) -> None:
    env = sample_bots.install(tmp_path / "site")
    run = await BotRun.start(server.url, "faulty", home=tmp_path, env=env)
    ann = await person(server.url)
    bot = await bot_online(ann, "faulty")
    failed = await race_bot(ann, "golf", "faulty")
    await concede_at_start(ann, failed)
    mine = result_of(await results(ann, failed), bot["player"])
    assert (mine["ended"], mine["moves"]) == ("conceded", 1)
    await run.until("ZeroDivisionError: a bug in the bot")
    played = await race_bot(ann, "carpet", "faulty")
    await concede_at_start(ann, played)
    assert result_of(await results(ann, played), bot["player"])["ended"] in ("won", "stuck")
    await ann.close()


async def test_a_bot_on_one_node_takes_an_invitation_from_a_race_created_on_another(
    server_factory: type[ServerProcess], shared_redis: str, tmp_path: Path
) -> None:
    node_a, node_b = start_nodes(server_factory, shared_redis, count=2)
    await BotRun.start(node_b.url, "random", home=tmp_path)
    ann = await person(node_a.url)
    bot = await bot_online(ann, "random")
    race = await race_bot(ann, "golf", "random")
    await concede_at_start(ann, race)
    ranking = await results(ann, race)
    assert len(ranking) == 2
    assert result_of(ranking, bot["player"])["ended"] in PLAYED_OUT
    await ann.close()


def house_bot_pids(server: ServerProcess) -> list[int]:
    pattern = rf"house bot {QUICK_BOT} started \(pid (\d+)\)"
    return [int(pid) for pid in re.findall(pattern, "".join(server.output))]


async def until_output(server: ServerProcess, check: Callable[[], bool], timeout: float = 20) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not check():
        assert loop.time() < deadline, "".join(server.output)
        await asyncio.sleep(0.05)


def gone(pid: int) -> bool:
    """Whether process ``pid`` has exited (a zombie nobody reaped yet counts as gone)."""
    try:
        status = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return True
    return status.rpartition(")")[2].split()[0] == "Z"


async def test_serve_with_house_bots_then_race_create_with_bot_races_it_from_the_command_line(
    server_factory: type[ServerProcess], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "server"))  # where the house bots keep their tokens
    server = server_factory("--house-bots", QUICK_BOT)
    server.start()
    watcher = await person(server.url, "sam")
    await bot_online(watcher, QUICK_BOT)
    await watcher.close()
    ann = await BotRun.command(
        "race", "--server", server.url, "--name", "ann", "create", "golf", "--bot", QUICK_BOT,
        "--save-replay", str(tmp_path / "replay.json"), home=tmp_path / "ann",
    )  # fmt: skip
    await ann.until(r"move \(")
    await ann.type("concede")
    await ann.until("Results:")
    assert await ann.finish() == 0
    replay = json.loads((tmp_path / "replay.json").read_text())
    assert [(seat["name"], seat["bot"]) for seat in replay["seats"]] == [("ann", False), (QUICK_BOT, True)]

    # A house bot that dies is started again; one whose server is killed stops by itself.
    await until_output(server, lambda: len(house_bot_pids(server)) == 1)
    first = house_bot_pids(server)[0]
    os.kill(first, signal.SIGKILL)
    await until_output(server, lambda: len(house_bot_pids(server)) == 2)
    second = house_bot_pids(server)[1]
    server.kill()
    await until_output(server, lambda: gone(second))

    # A server stopped cleanly stops its house bots first.
    server.start()
    await until_output(server, lambda: len(house_bot_pids(server)) == 3)
    third = house_bot_pids(server)[2]
    assert server.stop() == 0
    assert gone(third)


async def test_house_bots_started_where_a_module_shadows_the_standard_librarys_still_come_online(
    server_factory: type[ServerProcess], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A server started in a folder holding a random.py (someone's scripts): its house bots import the
    standard library's random, not that one, as the server itself does."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "server"))
    scripts = tmp_path / "scripts"
    scripts.mkdir()
    (scripts / "random.py").write_text("raise ImportError('this random.py is not the standard library one')\n")
    server = server_factory("--house-bots", QUICK_BOT)
    server.cwd = scripts
    server.start()
    watcher = await person(server.url, "sam")
    await bot_online(watcher, QUICK_BOT)
    await watcher.close()
    assert "exited with status" not in "".join(server.output)
