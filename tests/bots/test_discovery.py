"""Finding bots: ``parlour bots``, and a third-party bot package installed for real, racing on a server."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio

from tests.bots import sample_bots
from tests.bots.helpers import BotRun, bot_online, concede_at_start, person, race_bot, result_of, results
from tests.conftest import ServerProcess


@pytest_asyncio.fixture(autouse=True)
async def _no_process_left_behind() -> AsyncIterator[None]:
    yield
    await BotRun.cleanup()


def parlour(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "parlour.client.cli", *args],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, **(env or {})},
    )


def listed(output: str) -> dict[str, str]:
    """``parlour bots``'s output: each bot's name and its two lines."""
    bots: dict[str, str] = {}
    name = ""
    for line in output.splitlines():
        if not line.startswith(" "):
            name = line.split()[0]
            bots[name] = line
        else:
            bots[name] += "\n" + line
    return bots


def test_parlour_bots_lists_the_built_in_bots_with_their_games_and_package() -> None:
    done = parlour("bots")
    assert done.returncode == 0, done.stderr
    bots = listed(done.stdout)
    for name in ("random", "greedy", "search"):
        assert "plays every game; package parlour" in bots[name], done.stdout
    assert "uniformly at random" in bots["random"]


def test_a_broken_bot_is_listed_with_its_error_and_does_not_hide_the_others(tmp_path: Path) -> None:
    env = sample_bots.install(tmp_path, {"broken": "no_such_module_for_parlour:Bot", "notabot": "json:dumps"})
    bots = listed(parlour("bots", env=env).stdout)
    assert "BROKEN: ModuleNotFoundError" in bots["broken"]
    assert "package parlour-sample-bots (no_such_module_for_parlour:Bot)" in bots["broken"]
    assert "is not a parlour.bots.Bot subclass" in bots["notabot"]
    assert "plays golf; package parlour-sample-bots" in bots["busy"]
    assert "random" in bots
    refused = parlour("bot", "run", "broken", env=env)
    assert refused.returncode == 2
    assert "does not load: ModuleNotFoundError" in refused.stderr


def test_bot_run_refuses_an_unknown_bot_or_game_in_one_line() -> None:
    unknown = parlour("bot", "run", "nosuchbot", "--server", "ws://127.0.0.1:9")
    assert unknown.returncode == 2
    assert "no bot called 'nosuchbot' is installed; bots: greedy, random, search" in unknown.stderr
    game = parlour("bot", "run", "random", "--games", "golf,chess", "--server", "ws://127.0.0.1:9")
    assert game.returncode == 2
    assert "no such game: chess" in game.stderr


@pytest.mark.asyncio
async def test_the_example_bot_installed_as_a_package_is_discovered_and_plays_a_race(
    server: ServerProcess, tmp_path: Path
) -> None:
    env = sample_bots.install_example(tmp_path)
    bots = listed(parlour("bots", env=env).stdout)
    assert "plays every game; package parlour-example-bot" in bots["eager"]

    run = await BotRun.start(server.url, "eager", "--races", "1", home=tmp_path, env=env)
    ann = await person(server.url)
    bot = await bot_online(ann, "eager")
    race = await race_bot(ann, "carpet", "eager")
    await concede_at_start(ann, race)
    ranking = await results(ann, race)
    assert result_of(ranking, bot["player"])["ended"] in ("won", "stuck")
    assert await run.finish() == 0  # --races 1: it stops once its race is over
    await ann.close()
