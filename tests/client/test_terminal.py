"""What the line clients print and read on a real terminal (a pseudo-terminal), and text from servers made safe."""

from __future__ import annotations

import asyncio
import os
import pty
import re
import signal
import sys
from pathlib import Path

import pytest

from parlour.client.line_race import board_heading, describe_race, format_results, race_line
from parlour.protocol.text import printable
from tests.client.test_line_race import Cli, _no_cli_left_behind  # noqa: F401  (kills what a failed test leaves)
from tests.conftest import ServerProcess

HOSTILE = "ev\x1b[2Jil\x07\x00\u202egnp.exe\nfake line\u200b"


def test_printable_escapes_control_and_format_characters() -> None:
    assert printable("ann") == "ann"
    assert printable("Zoë 🂡 名前") == "Zoë 🂡 名前"
    assert printable(HOSTILE) == "ev\\x1b[2Jil\\x07\\x00\\u202egnp.exe\\x0afake line\\u200b"


def test_every_server_given_text_is_printed_escaped() -> None:
    """Names, messages and race fields from a server reach the terminal with no control or format character."""
    player = {"seat": 0, "player": "p1", "name": HOSTILE, "bot": False, "ready": True}
    info = {
        "id": "r\x1b1",
        "game": "golf\x1b",
        "options": {"k\x07": "v\u202e"},
        "seats": 2,
        "time_limit": 600,
        "public": True,
        "undo": False,
        "spectator_delay": 0,
        "status": "open\x1b",
        "players": [player],
        "code": "C\x1bDE",
    }
    result = {"place": 1, "name": HOSTILE, "score": 3, "ended": "won\x1b", "moves": 1, "time": 2.0}
    printed = [
        race_line(info),
        describe_race(info),
        format_results([result], "s\x1beed", "sa\x07lt"),
        board_heading(HOSTILE, 3, {"score": 1, "ended": "won\x1b"}),
    ]
    for text in printed:
        assert not re.search("[\x00-\x1f\x7f\u200b\u202e]", text.replace("\n", "")), text
        assert "\\x1b" in text


class Pty:
    """A ``parlour`` process on a pseudo-terminal, as a person at a terminal runs it."""

    def __init__(self, process: asyncio.subprocess.Process, master: int) -> None:
        self.process = process
        self.master = master
        self.output = b""

    @classmethod
    async def start(cls, home: Path, *args: str) -> Pty:
        master, slave = pty.openpty()
        env = {**os.environ, "XDG_CONFIG_HOME": str(home), "TERM": "xterm"}
        process = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "parlour.client.cli", *args,
            stdin=slave, stdout=slave, stderr=slave, env=env, start_new_session=True,
        )  # fmt: skip
        os.close(slave)
        os.set_blocking(master, False)
        Cli.running.append(process)
        return cls(process, master)

    async def until(self, pattern: bytes, timeout: float = 20) -> None:
        loop = asyncio.get_running_loop()
        readable = asyncio.Event()
        loop.add_reader(self.master, readable.set)
        try:
            async with asyncio.timeout(timeout):
                while not re.search(pattern, self.output):
                    await readable.wait()
                    readable.clear()
                    try:
                        self.output += os.read(self.master, 4096)
                    except BlockingIOError:
                        continue
                    except OSError:  # the process ended
                        raise AssertionError(f"no {pattern!r}; the process ended; got:\n{self.output!r}") from None
        except TimeoutError:
            raise AssertionError(f"no {pattern!r} in {timeout} s; got:\n{self.output!r}") from None
        finally:
            loop.remove_reader(self.master)

    def type(self, keys: str) -> None:
        os.write(self.master, keys.encode())


@pytest.mark.asyncio
async def test_on_a_terminal_lines_are_edited_with_history_and_progress_prints_above_the_typed_line(
    server: ServerProcess, tmp_path: Path
) -> None:
    ann = await Pty.start(tmp_path / "ann", "race", "--server", server.url, "--name", "ann", "create", "golf")
    await ann.until(rb"join (\w+)")
    code = re.search(rb"join (\w+)", ann.output).group(1).decode()  # type: ignore[union-attr]
    bob = await Cli.start(tmp_path / "bob", "race", "--server", server.url, "--name", "bob", "join", code)
    await bob.until("Go!")
    await ann.until(rb"move.*> ")
    ann.type("play p9\r")
    await ann.until(rb"bad_move")
    ann.type("\x1b[A\r")  # the up arrow brings the line back: the same refusal, not a move of escape codes
    await ann.until(rb"bad_move(.|\n)*bad_move")
    assert b"\\x1b" not in ann.output and b"[A" not in ann.output.split(b"bad_move")[-1]
    ann.type("pla")  # typed, not yet entered, when bob's progress arrives
    await ann.until(rb"> pla")
    await bob.type("?")
    await bob.until("#1 ")
    await bob.type("#1")
    await ann.until(rb"\r\x1b\[2K  \[bob: score \d+, 1 move\]\r?\n(\r)?move \(\d+:\d\d left\)> pla")
    ann.type("\x15concede\r")  # Ctrl-U clears the line
    await bob.type("concede")
    await ann.until(rb"Results:")
    await ann.until(rb"Save the replay to \w+\.replay\.json\? \[Y/n\] ")
    ann.type("n\r")
    await ann.until(rb"To save the replay: parlour replay")
    assert await asyncio.wait_for(ann.process.wait(), 20) == 0
    assert await bob.finish() == 0
    os.close(ann.master)


@pytest.mark.asyncio
async def test_ctrl_c_on_a_terminal_gives_the_terminal_back(server: ServerProcess, tmp_path: Path) -> None:
    ann = await Pty.start(tmp_path / "ann", "race", "--server", server.url, "create", "golf")
    await ann.until(rb"You are ready")
    os.killpg(ann.process.pid, signal.SIGINT)
    await ann.until(rb"You left race \w+\.")
    assert await asyncio.wait_for(ann.process.wait(), 20) == 130
    os.close(ann.master)
