"""A runner plays each race exactly as an uninterrupted in-process play of its bot would: across a server
SIGKILLed and restarted (which ends the runner's session), and with the seed an invitation gives.

The runner runs in this process (so that a test can shorten its reconnection timeout and hand it an
invitation); its bots, the server and the embedded Redis are real processes.
"""

from __future__ import annotations

import asyncio
import contextlib
import multiprocessing
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio

from parlour.bots.arena import MAX_MOVES
from parlour.bots.base import Turn
from parlour.bots.random_bot import RandomBot
from parlour.bots.runner import Runner, Settings, seed_for
from parlour.client.connection import Client, Invitation, Progress
from parlour.client.identity import Identity
from parlour.games import Move, get_game
from parlour.protocol.replay import verify_replay
from tests.bots.helpers import bot_online, concede_at_start, person, race_bot, result_of, results
from tests.bots.recording import recorded
from tests.conftest import ServerProcess

pytestmark = pytest.mark.asyncio

THINK = 0.05  # seconds the bot sleeps before each move, so that a kill lands mid-race


class SteadyBot(RandomBot):
    """The random bot, thinking ``THINK`` seconds a move: the same moves as ``random`` for the same seed."""

    name = "steady"
    summary = "The random bot, a little slower (for tests)."

    def choose(self, turn: Turn) -> Move:
        time.sleep(THINK)
        return super().choose(turn)


class WatchedRunner(Runner):
    """A runner whose current connection the test can see (to hand it an invitation), and its ``run()``."""

    client: Client | None = None
    running: asyncio.Task[int] | None = None

    async def _connect(self) -> Client:
        self.client = await super()._connect()
        return self.client


RunnerFactory = Callable[..., Awaitable[WatchedRunner]]


@pytest_asyncio.fixture
async def runner_factory(tmp_path: Path) -> AsyncIterator[RunnerFactory]:
    """Start ``WatchedRunner(SteadyBot, ...)`` on a server, its token kept in ``tmp_path``; returns once
    it is connected. Every runner started is stopped after the test."""
    started: list[WatchedRunner] = []

    async def start(server: str, reconnect_timeout: float = 30.0, max_moves: int = MAX_MOVES) -> WatchedRunner:
        identity = Identity(server, "steady", tmp_path / "identities.json")
        settings = Settings(
            server, "steady", ("golf",), identity=identity, reconnect_timeout=reconnect_timeout, max_moves=max_moves
        )
        runner = WatchedRunner(SteadyBot, settings)
        runner.running = asyncio.create_task(runner.run())
        started.append(runner)
        async with asyncio.timeout(20):
            while runner.client is None:
                await asyncio.sleep(0.05)
        return runner

    yield start
    for runner in started:
        assert runner.running is not None
        runner.stop()
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(20):
                await runner.running
        runner.running.cancel()


def expected_moves(replay: Mapping[str, Any], bot_seed: int) -> list[list[str | int]]:
    """The moves ``SteadyBot(bot_seed)`` makes in-process on the replay's deal (its revealed seed)."""
    game = get_game(replay["game"])
    _, moves = recorded(SteadyBot(bot_seed), game, int(replay["seed"], 16), replay["options"], may_concede=False)
    return [move.wire() for move in moves]


def bot_log(replay: Mapping[str, Any], player: str) -> list[list[str | int]]:
    return [list(entry) for entry in next(seat["log"] for seat in replay["seats"] if seat["player"] == player)]


def bot_processes() -> list[multiprocessing.process.BaseProcess]:
    """This process's live children that are bots' processes."""
    return [child for child in multiprocessing.active_children() if child.name == f"parlour bot {SteadyBot.name}"]


async def until_logged(caplog: pytest.LogCaptureFixture, text: str, timeout: float = 20) -> None:
    async with asyncio.timeout(timeout):
        while not any(text in message for message in caplog.messages):
            await asyncio.sleep(0.05)


async def test_a_race_cut_by_a_server_sigkill_is_played_move_for_move_as_uninterrupted(
    server_factory: type[ServerProcess], runner_factory: RunnerFactory, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level("INFO", logger="parlour.bot")
    server = server_factory()
    server.start()
    # The client library gives up after half a second, so the kill below ends the runner's session.
    await runner_factory(server.url, reconnect_timeout=0.5)
    ann = await person(server.url)
    bot = await bot_online(ann, "steady")
    race = await race_bot(ann, "golf", "steady", time_limit=120)
    await concede_at_start(ann, race)
    while (await ann.next_event(Progress, race=race, timeout=30)).moves < 3:
        pass
    server.kill()
    await until_logged(caplog, "is lost")  # the session is over: the next one resumes the race
    await asyncio.to_thread(server.start)
    mine = result_of(await results(ann, race), bot["player"])
    replay = (await ann.replay(race)).replay
    assert verify_replay(replay) == []
    log = bot_log(replay, bot["player"])
    # The same moves as one bot object playing the deal alone: the bot (and its random numbers) outlived
    # the session, and the move it was choosing when the server died was sent, not chosen again.
    assert log == expected_moves(replay, seed_for(race))
    assert mine["ended"] in ("won", "stuck")
    assert mine["moves"] == len(log) > 3
    await ann.close()


async def test_a_bot_plays_with_the_seed_its_invitation_gives(
    server: ServerProcess, runner_factory: RunnerFactory
) -> None:
    runner = await runner_factory(server.url)
    assert runner.client is not None
    ann = await person(server.url)
    bot = await bot_online(ann, "steady")
    summary = dict((await ann.create("golf", time_limit=120)).race)
    race = str(summary["id"])
    await ann.ready(race)
    seed = 2**64 - 12345  # a tournament's seed for this seat (the server does not send one yet)
    runner._invited(runner.client, Invitation(race=summary, by=ann.name, seed=seed))
    await concede_at_start(ann, race)
    mine = result_of(await results(ann, race), bot["player"])
    replay = (await ann.replay(race)).replay
    assert mine["ended"] in ("won", "stuck")
    assert bot_log(replay, bot["player"]) == expected_moves(replay, seed)
    await ann.close()


async def test_a_game_still_going_after_max_moves_is_conceded_after_the_same_moves_as_in_process(
    server: ServerProcess, runner_factory: RunnerFactory
) -> None:
    """Random play cycles for ever in some games: the runner concedes at its cap (the arena's, 3000, by
    default; 6 here, in Golf) instead of playing on to the deadline, so where the game stops does not depend
    on how fast the bot's moves go through."""
    await runner_factory(server.url, max_moves=6)
    ann = await person(server.url)
    bot = await bot_online(ann, "steady")
    race = await race_bot(ann, "golf", "steady", time_limit=120)
    await concede_at_start(ann, race)
    mine = result_of(await results(ann, race), bot["player"])
    replay = (await ann.replay(race)).replay
    assert verify_replay(replay) == []
    assert bot_log(replay, bot["player"]) == [*expected_moves(replay, seed_for(race))[:6], ["concede"]]
    assert (mine["ended"], mine["moves"]) == ("conceded", 6)
    await ann.close()


async def test_a_runner_stopped_while_disconnected_ends_the_bots_it_kept_for_the_next_session(
    server_factory: type[ServerProcess], runner_factory: RunnerFactory, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level("INFO", logger="parlour.bot")
    server = server_factory()
    server.start()
    runner = await runner_factory(server.url, reconnect_timeout=0.5)
    ann = await person(server.url)
    await bot_online(ann, "steady")
    race = await race_bot(ann, "golf", "steady", time_limit=120)
    await concede_at_start(ann, race)
    while (await ann.next_event(Progress, race=race, timeout=30)).moves < 1:
        pass
    server.kill()
    await until_logged(caplog, "is lost")
    assert race in runner.races  # kept, with its bot, for a session that will not come
    assert len(bot_processes()) == 1
    runner.stop()
    assert runner.running is not None
    assert await asyncio.wait_for(runner.running, 20) == 0
    assert bot_processes() == []
    await ann.close()
