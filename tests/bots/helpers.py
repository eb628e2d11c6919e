"""Helpers for the runner's tests: ``parlour bot run`` processes, and a person who races bots."""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import signal
import sys
from pathlib import Path
from typing import Any, ClassVar

from parlour.client.connection import Client, ClientError, End, Start, TournamentUpdate


class BotRun:
    """A ``parlour bot run`` process (or another ``parlour`` command), its output read line by line."""

    running: ClassVar[list[asyncio.subprocess.Process]] = []  # killed after each test (see ``cleanup``)

    def __init__(self, process: asyncio.subprocess.Process) -> None:
        self.process = process
        self.lines: list[str] = []
        BotRun.running.append(process)

    @classmethod
    async def start(cls, server: str, bot: str, *args: str, home: Path, env: dict[str, str] | None = None) -> BotRun:
        """``parlour bot run BOT --server SERVER ARGS``, its identities kept under ``home``; returns once
        it is connected."""
        run = await cls.command("bot", "run", bot, "--server", server, *args, home=home, env=env)
        await run.until("connected to")
        return run

    @classmethod
    async def command(cls, *args: str, home: Path, env: dict[str, str] | None = None) -> BotRun:
        """Any ``parlour`` command, started."""
        env = {**os.environ, "XDG_CONFIG_HOME": str(home), **(env or {})}
        process = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "parlour.client.cli", *args,
            stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT, env=env,
        )  # fmt: skip
        return cls(process)

    async def until(self, pattern: str, timeout: float = 20) -> re.Match[str]:
        """The first line (read so far, or next) matching ``pattern``."""
        regex = re.compile(pattern)
        for line in self.lines:
            if found := regex.search(line):
                return found
        assert self.process.stdout is not None
        while True:
            try:
                raw = await asyncio.wait_for(self.process.stdout.readline(), timeout)
            except TimeoutError:
                raise AssertionError(f"no line matching {pattern!r} in {timeout} s; got:\n{self.text}") from None
            if not raw:
                raise AssertionError(f"no line matching {pattern!r}; got:\n{self.text}")
            self.lines.append(raw.decode())
            if found := regex.search(self.lines[-1]):
                return found

    async def type(self, text: str) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(text.encode() + b"\n")
        await self.process.stdin.drain()

    async def finish(self, sig: int | None = None, timeout: float = 20) -> int:
        """Send ``sig`` (if any), then read the rest of the output and return the exit status."""
        if sig is not None:
            self.process.send_signal(sig)
        assert self.process.stdout is not None
        rest = await asyncio.wait_for(self.process.stdout.read(), timeout)
        self.lines += rest.decode().splitlines(keepends=True)
        return await asyncio.wait_for(self.process.wait(), timeout)

    def kill(self) -> None:
        self.process.send_signal(signal.SIGKILL)

    @property
    def text(self) -> str:
        return "".join(self.lines)

    @classmethod
    async def cleanup(cls) -> None:
        for process in cls.running:  # a failed test leaves them running
            with contextlib.suppress(ProcessLookupError):
                process.kill()
            await asyncio.wait_for(process.communicate(), 20)
        cls.running.clear()


async def person(url: str, name: str = "ann") -> Client:
    return await Client.connect(url, name)


async def bot_online(client: Client, name: str, timeout: float = 20) -> dict[str, Any]:
    """The lobby's entry for the online bot ``name``, once it is listed."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        bots = (await client.lobby()).bots or []
        for bot in bots:
            if bot["name"] == name:
                return dict(bot)
        assert loop.time() < deadline, f"no bot {name!r} online within {timeout} s; online: {bots}"
        await asyncio.sleep(0.1)


async def race_bot(client: Client, game: str, bot: str, **settings: Any) -> str:
    """Create a race of ``game``, say ready and invite ``bot``; return the race id."""
    race = str((await client.create(game, **settings)).race["id"])
    await client.ready(race)
    await client.invite(race, bot)
    return race


async def concede_at_start(client: Client, race: str, timeout: float = 30) -> None:
    await client.next_event(Start, race=race, timeout=timeout)
    await client.concede(race)


async def results(client: Client, race: str, timeout: float = 60) -> list[dict[str, Any]]:
    """The race's results: from its ``end``, or from a snapshot if the end came while disconnected."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        try:
            return list((await client.next_event(End, race=race, timeout=1.0)).results)
        except TimeoutError:
            assert loop.time() < deadline, f"race {race} did not end within {timeout} s"
        with contextlib.suppress(ClientError, TimeoutError):
            async with asyncio.timeout(2):
                state = await client.snapshot(race)
            if state.race["status"] == "finished":
                return list(state.race["results"])


def result_of(results: list[dict[str, Any]], player: str) -> dict[str, Any]:
    found = [r for r in results if r["player"] == player]
    assert len(found) == 1, f"no result for {player} in {results}"
    return found[0]


async def finished(client: Client, tournament: str, timeout: float = 120) -> dict[str, Any]:
    """The tournament's summary once it is finished (watching it); fails after ``timeout`` seconds."""
    summary = (await client.tournament_watch(tournament)).tournament
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while summary["status"] != "finished":
        left = deadline - loop.time()
        assert left > 0, f"the tournament did not finish in {timeout} s: {summary.get('done')} races done"
        summary = (await client.next_event(TournamentUpdate, timeout=left)).tournament
    return dict(summary)
