"""``parlour race`` and ``parlour watch`` as a person uses them: three real processes."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import signal
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import ClassVar

import pytest
import pytest_asyncio

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
    async def start(cls, home: Path, *args: str, env: dict[str, str] | None = None) -> Cli:
        env = {**os.environ, "XDG_CONFIG_HOME": str(home), **(env or {})}
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
            try:
                raw = await asyncio.wait_for(self.process.stdout.readline(), timeout)
            except TimeoutError:
                raise AssertionError(f"no line matching {pattern!r} in {timeout} s; got:\n" + self.text) from None
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
        assert self.process.stdout is not None
        rest = await asyncio.wait_for(self.process.stdout.read(), 20)
        self.lines += rest.decode().splitlines(keepends=True)
        return await asyncio.wait_for(self.process.wait(), 20)

    def interrupt(self) -> None:
        """Ctrl-C: SIGINT, as a terminal sends it."""
        self.process.send_signal(signal.SIGINT)

    @property
    def text(self) -> str:
        return "".join(self.lines)


@pytest_asyncio.fixture(autouse=True)
async def _no_cli_left_behind() -> AsyncIterator[None]:
    yield
    for process in Cli.running:  # a failed test leaves them running
        with contextlib.suppress(ProcessLookupError):
            process.kill()
        # Inside the test's loop: a pipe transport left for the collector warns once that loop is closed.
        await asyncio.wait_for(process.communicate(), 20)
    Cli.running.clear()


async def test_race_a_friend_and_watch_from_the_terminal(server: ServerProcess, tmp_path: Path) -> None:
    ann, bob, _, race = await start_race(server, tmp_path, "--live-boards")
    await bob.until("Joined race")
    sam = await Cli.start(tmp_path / "sam", "watch", "--server", server.url, "--name", "sam", race)
    await sam.until("Watching race")
    await ann.type("?")
    await ann.until(r"#1 ")
    await ann.type("#1")
    await sam.until(r"--- ann, entry 1, score \d+ ---")
    await bob.until(r"\[ann: score \d+, 1 move\]")
    await ann.type("play p9")
    await ann.until("bad_move")
    await ann.type("quit")
    await ann.until(r"Concede\? \[y/N\]")
    await ann.type("y")
    await bob.type("concede")
    for person in (ann, bob, sam):
        await person.until("Results:")
        await person.until(r"1\. (ann|bob): score")
    assert [await p.finish() for p in (ann, bob, sam)] == [0, 0, 0]
    assert (tmp_path / "ann" / "parlour" / "identities.json").exists()  # the token is kept for next time


async def test_watching_a_race_without_live_boards_shows_progress_then_the_final_boards(
    server: ServerProcess, tmp_path: Path
) -> None:
    ann, bob, _, race = await start_race(server, tmp_path)
    sam = await Cli.start(tmp_path / "sam", "watch", "--server", server.url, "--name", "sam", race)
    await sam.until("Watching race")
    await ann.type("t")
    await sam.until(r"\[ann: score 35, 1 move\]")
    await ann.type("concede")
    await bob.type("concede")
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
    await ann.type("concede")
    await ann.until("Waiting for the others")
    server.kill()  # the race's end falls while the server is down: nobody is told it
    await asyncio.sleep(max(0.0, started + 11 - asyncio.get_running_loop().time()))
    server.start()  # finishes the race at once; both learn of it when they reconnect
    for racer in (ann, bob):  # bob never types: the race ends him at the prompt
        await racer.until("reconnected", timeout=40)
        await racer.until(r"\d\. bob: score \d+ \(out_of_time")
    assert [await p.finish() for p in (ann, bob)] == [0, 0]


async def start_race(server: ServerProcess, home: Path, *create: str, game: str = "golf") -> tuple[Cli, Cli, str, str]:
    """ann creates a race (Golf, with ``create``'s extra arguments), bob joins; both at 'Go!'."""
    ann = await Cli.start(home / "ann", "race", "--server", server.url, "--name", "ann", "create", game, *create)
    code = (await ann.until(r"join (\w+)")).group(1)
    race = (await ann.until(r"Race (\w+) created")).group(1)
    bob = await Cli.start(home / "bob", "race", "--server", server.url, "--name", "bob", "join", code)
    for racer in (ann, bob):
        await racer.until("Go!")
    return ann, bob, code, race


async def concede_both(ann: Cli, bob: Cli) -> None:
    for racer in (ann, bob):
        await racer.type("concede")
    for racer in (ann, bob):
        await racer.until(r"1\. (ann|bob): score")


async def test_ctrl_c_in_a_race_then_the_same_command_again_resumes_the_seat(
    server: ServerProcess, tmp_path: Path
) -> None:
    ann, bob, code, race = await start_race(server, tmp_path)
    await ann.type("turn")
    await bob.until(r"\[ann: score \d+, 1 moves?\]")
    for racer in (ann, bob):
        racer.interrupt()
    assert [await p.finish() for p in (ann, bob)] == [130, 130]
    for racer in (ann, bob):
        assert "keeps your seat" in racer.text and f"parlour race resume {race}" in racer.text
    # the same commands again: the same seats, where they were
    ann = await Cli.start(tmp_path / "ann", "race", "--server", server.url, "--name", "ann", "create", "golf")
    bob = await Cli.start(tmp_path / "bob", "race", "--server", server.url, "--name", "bob", "join", code)
    await ann.until(f"You already have race {race} of golf \\(running\\): resuming it")
    await ann.until("Back in the race at seat 0, after 1 entry in your log")
    await bob.until(f"You already have seat 1 in race {race}")
    await bob.until("Back in the race at seat 1, after 0 entries in your log")
    await ann.type("turn")
    await bob.until(r"\[ann: score \d+, 2 moves\]")  # the move is entry 1, after the one before Ctrl-C
    await concede_both(ann, bob)
    assert [await p.finish() for p in (ann, bob)] == [0, 0]
    assert "race_started" not in ann.text + bob.text and "created" not in ann.text


async def test_a_finished_race_saves_a_replay_that_verify_accepts(server: ServerProcess, tmp_path: Path) -> None:
    saved = tmp_path / "ann.json"
    ann, bob, _, race = await start_race(server, tmp_path, "--save-replay", str(saved))
    await ann.type("?")
    await ann.type("#1")
    await concede_both(ann, bob)
    await ann.until(f"Replay saved to {saved}")
    await bob.until(f"To save the replay: parlour replay {race}")  # not a terminal: no question asked
    assert [await p.finish() for p in (ann, bob)] == [0, 0]
    home = {**os.environ, "XDG_CONFIG_HOME": str(tmp_path / "bob")}
    run = [sys.executable, "-m", "parlour.client.cli"]
    replay = await asyncio.create_subprocess_exec(
        *run, "replay", race, "--server", server.url, cwd=tmp_path, env=home, stderr=asyncio.subprocess.PIPE
    )
    _, said = await asyncio.wait_for(replay.communicate(), 20)
    assert replay.returncode == 0 and f"parlour verify {race}.replay.json" in said.decode()
    verify = await asyncio.create_subprocess_exec(
        *run, "verify", f"{race}.replay.json", str(saved), cwd=tmp_path, stdout=asyncio.subprocess.PIPE
    )
    out, _ = await asyncio.wait_for(verify.communicate(), 20)
    assert verify.returncode == 0 and out.decode().count(": OK: golf, 2 seats") == 2


async def run_parlour(home: Path, *args: str, env: dict[str, str] | None = None) -> tuple[int, str]:
    """A whole ``parlour`` command: its status and its output (stdout and stderr)."""
    cli = await Cli.start(home, *args, env=env)
    status = await cli.finish()
    return status, cli.text


async def test_ctrl_c_before_the_start_leaves_the_race_and_races_lists_and_leave_gives_up_a_seat(
    server: ServerProcess, tmp_path: Path
) -> None:
    ann = await Cli.start(tmp_path, "race", "--server", server.url, "--name", "ann", "create", "golf")
    race = (await ann.until(r"Race (\w+) created")).group(1)
    await ann.until("You are ready")
    ann.interrupt()
    assert await ann.finish() == 130
    assert f"You left race {race}." in ann.text
    status, out = await run_parlour(tmp_path, "races", "--server", server.url)
    assert status == 0 and "Your races: none." in out and "In the lobby: no other race." in out
    # a race left behind by a killed client (no Ctrl-C): listed with its code, and left with 'parlour leave'
    for _ in range(2):
        ann = await Cli.start(tmp_path, "race", "--server", server.url, "create", "golf", "--new", "--private")
        await ann.until("Ctrl-C leaves the race")
        ann.process.kill()
        await ann.finish()
    cy = await Cli.start(tmp_path / "cy", "race", "--server", server.url, "--name", "cy", "create", "cheer")
    other = (await cy.until(r"Race (\w+) created")).group(1)
    status, out = await run_parlour(tmp_path, "races", "--server", server.url)
    mine = re.findall(r"^  (\w+)  golf +open +1/2 seats: ann \(ready\)  \(code \w+\)  private$", out, re.MULTILINE)
    assert status == 0 and "Your races (2):" in out and len(mine) == 2, out
    assert re.search(rf"In the lobby \(1\):\n  {other}  cheer +open +1/2 seats: cy \(ready\)$", out, re.MULTILINE), out
    status, out = await run_parlour(tmp_path, "race", "resume", "--server", server.url)
    assert status == 2 and "you have 2 unfinished races" in out and mine[0] in out and mine[1] in out
    for race in mine:
        status, out = await run_parlour(tmp_path, "leave", race, "--server", server.url)
        assert status == 0 and f"You left race {race}." in out
    status, out = await run_parlour(tmp_path, "races", "--server", server.url)
    assert "Your races: none." in out


async def test_a_waiting_racer_whose_race_expires_is_told_and_the_command_ends(
    server_factory: type[ServerProcess], tmp_path: Path
) -> None:
    server = server_factory("--open-timeout", "1")
    server.start()
    ann = await Cli.start(tmp_path, "race", "--server", server.url, "--name", "ann", "create", "golf")
    await ann.until("You are ready")
    await ann.until("The race expired: not every seat was taken and ready in time", timeout=10)
    assert await ann.finish() == 1


async def test_two_profiles_on_one_machine_race_each_other(server: ServerProcess, tmp_path: Path) -> None:
    ann = await Cli.start(tmp_path, "race", "--server", server.url, "--profile", "ann", "create", "golf")
    code = (await ann.until(r"join (\w+)")).group(1)
    race = (await ann.until(r"Race (\w+) created")).group(1)
    await ann.until(r"You are ann, profile ann on ")  # a profile's name is its own, by default
    same = await Cli.start(tmp_path, "race", "--server", server.url, "--profile", "ann", "join", code)
    await same.until(f"You already have seat 0 in race {race}, as ann: resuming it. To race yourself")
    same.process.kill()
    bob = await Cli.start(tmp_path, "race", "--server", server.url, "join", code, "--profile", "bob")
    await bob.until(f"Joined race {race}")
    await bob.until(r"Race \w+: golf, 2 seats, time limit 10:00, public, no undo, spectators see the boards at the end")
    for racer in (ann, bob):
        await racer.until("Go!")
    await concede_both(ann, bob)
    assert [await p.finish() for p in (ann, bob)] == [0, 0]
    assert re.search(r"2\. (ann|bob)", ann.text)
    known = json.loads((tmp_path / "parlour" / "identities.json").read_text())
    assert set(known["profiles"]) == {"ann", "bob"} and known["profiles"]["ann"] != known["profiles"]["bob"]
    # --name renames the player, and is kept for the profile
    status, out = await run_parlour(tmp_path, "races", "--profile", "bob", "--name", "bobby", "--server", server.url)
    assert status == 0 and "You are bobby, profile bob" in out
    status, out = await run_parlour(tmp_path, "races", "--profile", "bob", "--server", server.url)
    assert status == 0 and "You are bobby, profile bob" in out


async def test_password_from_the_environment_a_url_without_ws_and_server_after_the_action(
    server_factory: type[ServerProcess], tmp_path: Path
) -> None:
    server = server_factory("--password", "s3cret")
    server.start()
    address = f"127.0.0.1:{server.port}"
    status, out = await run_parlour(tmp_path, "race", "create", "golf", "--server", address)
    assert status == 2 and "bad_password" in out and "--password or $PARLOUR_PASSWORD" in out
    assert "Traceback" not in out
    secret = {"PARLOUR_PASSWORD": "s3cret", "PARLOUR_SERVER": address}
    ann = await Cli.start(tmp_path, "race", "create", "golf", env=secret)  # no --server: the environment's
    race = (await ann.until(r"Race (\w+) created")).group(1)
    await ann.until("Ctrl-C leaves the race")
    status, out = await run_parlour(tmp_path / "cy", "races", "--server", address, "--password", "s3cret")
    assert status == 0 and f"In the lobby (1):\n  {race}  golf" in out
    ann.interrupt()
    await ann.finish()
    status, out = await run_parlour(tmp_path, "races", "--server", "http://" + address, env=secret)
    assert status == 2 and "starts with ws:// or wss://" in out and "Traceback" not in out


async def test_undo_typed_in_a_race_takes_the_move_back(server: ServerProcess, tmp_path: Path) -> None:
    ann, bob, _, _ = await start_race(server, tmp_path, "--undo")
    await ann.type("turn")
    await bob.until(r"\[ann: score \d+, 1 moves?\]")
    await ann.type("undo")
    await bob.until(r"\[ann: score \d+, 0 moves\]")
    await ann.type("undo")
    await ann.until("illegal_move: there is no move to undo")
    await concede_both(ann, bob)
    assert [await p.finish() for p in (ann, bob)] == [0, 0]
    assert "bad_move" not in ann.text


async def test_a_watcher_with_a_delay_shows_the_last_boards_after_the_end(
    server: ServerProcess, tmp_path: Path
) -> None:
    ann, bob, _, race = await start_race(server, tmp_path, "--live-boards", "--delay", "2")
    sam = await Cli.start(tmp_path / "sam", "watch", race, "--server", server.url)
    await sam.until("Watching race")
    await ann.type("turn")
    await bob.until(r"\[ann: score \d+, 1 moves?\]")
    await concede_both(ann, bob)  # the race ends before sam has seen any of it
    await sam.until(r"--- ann, entry 2, score \d+, conceded ---", timeout=10)
    await sam.until(r"--- bob, entry 1, score \d+, conceded ---", timeout=10)
    await sam.until("Results:")
    assert [await p.finish() for p in (ann, bob, sam)] == [0, 0, 0]


async def test_time_left_and_the_race_settings_are_shown_and_quit_asks_first(
    server: ServerProcess, tmp_path: Path
) -> None:
    ann, bob, _, _ = await start_race(server, tmp_path, "--time-limit", "120", "-o", "win_loss=true", game="cheer")
    await bob.until(r"Race \w+: cheer \(win_loss=true\), 2 seats, time limit 2:00, public, no undo")
    await bob.type("time")
    await bob.until(r"move \((2:00|1:[0-5]\d) left\)> Time left: (2:00|1:[0-5]\d) of 2:00\.")
    await bob.type("quit")
    await bob.until(r"Quitting concedes your game.*Concede\? \[y/N\]")
    await bob.type("n")
    await bob.until("Not conceded: play on.")
    await bob.type("quit")
    await bob.type("yes")
    await bob.until("Game over: conceded")
    await ann.type("concede")
    assert [await p.finish() for p in (ann, bob)] == [0, 0]


async def test_the_end_of_input_leaves_the_race_without_conceding_and_the_seat_is_kept(
    server: ServerProcess, tmp_path: Path
) -> None:
    ann, bob, _, race = await start_race(server, tmp_path)
    countdown = await ann.until(r"Starting in (\S+) s\.\.\.")
    assert re.fullmatch(r"0|0\.\d", countdown.group(1)), countdown.group(0)  # 0.2 s, rounded to a tenth
    await ann.type("turn")
    await bob.until(r"\[ann: score \d+, 1 move\]")
    assert ann.process.stdin is not None
    ann.process.stdin.close()  # a script's moves ran out
    assert await ann.finish() == 1
    assert "parlour: input ended: you left the running race without conceding: the server keeps your seat" in ann.text
    assert f"To come back: parlour race resume {race}" in ann.text and "Game over" not in ann.text
    ann = await Cli.start(tmp_path / "ann", "race", "resume", race, "--server", server.url)
    await ann.until("Back in the race at seat 0, after 1 entry in your log")  # nothing was conceded
    assert "conceded" not in bob.text
    await concede_both(ann, bob)
    assert [await p.finish() for p in (ann, bob)] == [0, 0]
