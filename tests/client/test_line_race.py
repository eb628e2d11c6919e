"""``parlour race`` and ``parlour watch`` as a person uses them: three real processes."""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import signal
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import ClassVar

import pytest

from tests.conftest import ServerProcess

pytestmark = pytest.mark.asyncio


class Cli:
    """A ``parlour`` process with its stdin and stdout, read line by line."""

    running: ClassVar[list[asyncio.subprocess.Process]] = []  # killed after each test

    def __init__(self, process: asyncio.subprocess.Process) -> None:
        self.process = process
        self.lines: list[str] = []
        Cli.running.append(process)

    @classmethod
    async def start(cls, home: Path, *args: str) -> Cli:
        env = {**os.environ, "XDG_CONFIG_HOME": str(home)}
        process = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "parlour.client.cli", *args,
            stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT, env=env,
        )  # fmt: skip
        return cls(process)

    async def until(self, pattern: str, timeout: float = 20) -> re.Match[str]:
        regex = re.compile(pattern)
        for line in self.lines:
            if found := regex.search(line):
                return found
        assert self.process.stdout is not None
        while True:
            raw = await asyncio.wait_for(self.process.stdout.readline(), timeout)
            if not raw:
                raise AssertionError(f"no line matching {pattern!r}; got:\n" + "".join(self.lines))
            line = raw.decode()
            self.lines.append(line)
            if found := regex.search(line):
                return found

    async def type(self, text: str) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(text.encode() + b"\n")
        await self.process.stdin.drain()

    async def finish(self) -> int:
        return await asyncio.wait_for(self.process.wait(), 20)


@pytest.fixture(autouse=True)
def _no_cli_left_behind() -> Iterator[None]:
    yield
    for process in Cli.running:  # a failed test leaves them running; their loop is gone by now
        with contextlib.suppress(ProcessLookupError):
            os.kill(process.pid, signal.SIGKILL)
    Cli.running.clear()


async def test_race_a_friend_and_watch_from_the_terminal(server: ServerProcess, tmp_path: Path) -> None:
    ann = await Cli.start(
        tmp_path / "ann", "race", "--server", server.url, "--name", "ann", "create", "golf", "--live-boards"
    )
    code = (await ann.until(r"join (\w+)")).group(1)
    race = (await ann.until(r"Race (\w+) created")).group(1)
    bob = await Cli.start(tmp_path / "bob", "race", "--server", server.url, "--name", "bob", "join", code)
    await bob.until("Joined race")
    for racer in (ann, bob):
        await racer.until("Go!")
    sam = await Cli.start(tmp_path / "sam", "watch", "--server", server.url, "--name", "sam", race)
    await sam.until("Watching race")
    await ann.type("?")
    await ann.until(r"1\. ")
    await ann.type("1")
    await sam.until(r"--- ann, entry 1, score \d+ ---")
    await bob.until(r"\[ann: score \d+, 1 moves\]")
    await ann.type("play p9")
    await ann.until("bad_move")
    await ann.type("quit")
    await bob.type("quit")
    for person in (ann, bob, sam):
        await person.until("Results:")
        await person.until(r"1\. (ann|bob): score")
    assert [await p.finish() for p in (ann, bob, sam)] == [0, 0, 0]
    assert (tmp_path / "ann" / "parlour" / "identities.json").exists()  # the token is kept for next time


async def test_watching_a_race_without_live_boards_shows_progress_then_the_final_boards(
    server: ServerProcess, tmp_path: Path
) -> None:
    ann = await Cli.start(tmp_path / "ann", "race", "--server", server.url, "--name", "ann", "create", "golf")
    code = (await ann.until(r"join (\w+)")).group(1)
    race = (await ann.until(r"Race (\w+) created")).group(1)
    bob = await Cli.start(tmp_path / "bob", "race", "--server", server.url, "--name", "bob", "join", code)
    for racer in (ann, bob):
        await racer.until("Go!")
    sam = await Cli.start(tmp_path / "sam", "watch", "--server", server.url, "--name", "sam", race)
    await sam.until("Watching race")
    await ann.type("t")
    await sam.until(r"\[ann: score 35, 1 moves\]")
    await ann.type("quit")
    await bob.type("quit")
    await sam.until(r"--- ann, entry 2, score 35, conceded ---")  # the final boards, at the end
    await sam.until(r"--- bob, entry 1, score 35, conceded ---")
    await sam.until("Results:")
    assert not any("entry 1, score 35 ---" in line for line in sam.lines)  # no board while it ran
    assert [await p.finish() for p in (ann, bob, sam)] == [0, 0, 0]


async def test_the_time_limit_ends_the_race_at_the_prompt_even_across_a_server_crash(
    server: ServerProcess, tmp_path: Path
) -> None:
    ann = await Cli.start(
        tmp_path / "ann", "race", "--server", server.url, "--name", "ann", "create", "golf", "--time-limit", "10"
    )
    code = (await ann.until(r"join (\w+)")).group(1)
    bob = await Cli.start(tmp_path / "bob", "race", "--server", server.url, "--name", "bob", "join", code)
    for racer in (ann, bob):
        await racer.until("Go!")
    started = asyncio.get_running_loop().time()
    await ann.type("quit")
    await ann.until("Waiting for the others")
    server.kill()  # the race's end falls while the server is down: nobody is told it
    await asyncio.sleep(max(0.0, started + 11 - asyncio.get_running_loop().time()))
    server.start()  # finishes the race at once; both learn of it when they reconnect
    for racer in (ann, bob):  # bob never types: the race ends him at the prompt
        await racer.until("reconnected", timeout=40)
        await racer.until(r"\d\. bob: score \d+ \(out_of_time")
    assert [await p.finish() for p in (ann, bob)] == [0, 0]
