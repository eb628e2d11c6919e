"""The terminal of the line clients: typed lines in, printed lines out, and safe text from servers.

On a terminal, lines are read with the standard ``readline`` (line editing, history with the
arrow keys), and lines printed while a line is being typed appear above the prompt, which is
drawn again with what was typed so far. When stdin is not a terminal (a pipe, a file, a test),
lines are read plainly and printed as they come.
"""

from __future__ import annotations

import asyncio
import contextlib
import queue
import threading
from typing import TextIO

from parlour.protocol.text import printable

CLEAR_LINE = "\r\x1b[2K"  # back to the line's start, and erase it


def printable_block(text: str) -> str:
    """Several lines (a board rendered from a server's view), each made :func:`~parlour.protocol.text.printable`."""
    return "\n".join(printable(line) for line in text.split("\n"))


class Terminal:
    """Lines in and lines out, while events keep printing.

    Lines are read by a daemon thread, so giving up on one (the race ended) leaves nothing to
    wait for at exit. Call :meth:`close` at the end: on a terminal it gives the terminal its
    settings back (``readline`` may be in the middle of reading a line).
    """

    def __init__(self, stdin: TextIO, stdout: TextIO) -> None:
        self.stdin = stdin
        self.stdout = stdout
        self.interactive = _isatty(stdin) and _isatty(stdout)
        self.prompt = ""  # shown while a line is awaited
        self._reading = False  # a line is awaited now
        self._lines: asyncio.Queue[str | None] | None = None
        self._asks: queue.SimpleQueue[str] = queue.SimpleQueue()  # prompts for the interactive reader
        self._asked = False  # the interactive reader is reading a line nobody has taken yet
        self._saved: list | None = None  # type: ignore[type-arg]
        if self.interactive:
            import readline  # noqa: F401  (importing it is what gives input() line editing and history)

            with contextlib.suppress(Exception):
                import termios

                self._saved = termios.tcgetattr(stdin.fileno())

    def say(self, text: str) -> None:
        """Print ``text``; on a terminal, above the line being typed, which is drawn again below it."""
        if self.interactive and self._reading:
            import readline

            self.stdout.write(f"{CLEAR_LINE}{text}\n{self.prompt}{readline.get_line_buffer()}")
        else:
            self.stdout.write(text + "\n")
        self.stdout.flush()

    async def line(self, prompt: str = "") -> str | None:
        """The next line typed after ``prompt``, or ``None`` once input has ended."""
        if self._lines is None:
            self._lines = asyncio.Queue()
            target = self._read_interactive if self.interactive else self._read
            reader = threading.Thread(target=target, args=(asyncio.get_running_loop(), self._lines), daemon=True)
            reader.start()
        self.prompt = prompt
        if self.interactive:
            if not self._asked:  # else the reader shows the old prompt still: draw this one
                self._asked = True
                self._asks.put(prompt)
            else:
                import readline

                self.stdout.write(f"{CLEAR_LINE}{prompt}{readline.get_line_buffer()}")
                self.stdout.flush()
        else:
            self.stdout.write(prompt)
            self.stdout.flush()
        self._reading = True
        try:
            line = await self._lines.get()
        finally:
            self._reading = False
        if self.interactive:
            self._asked = False
        return line

    async def confirm(self, question: str, default: bool) -> bool:
        """Ask a yes-or-no question; an empty answer (or the end of input) is ``default``."""
        answer = await self.line(f"{question} [{'Y/n' if default else 'y/N'}] ")
        if answer is None or not answer.strip():
            return default
        return answer.strip().lower() in ("y", "yes")

    def close(self) -> None:
        """Give the terminal its settings back (a line may still be being read)."""
        if self._saved is not None:
            import termios

            with contextlib.suppress(Exception):
                termios.tcsetattr(self.stdin.fileno(), termios.TCSADRAIN, self._saved)
            if self._reading or self._asked:
                self.stdout.write("\n")
                self.stdout.flush()

    def _read(self, loop: asyncio.AbstractEventLoop, lines: asyncio.Queue[str | None]) -> None:
        while True:
            line = self.stdin.readline()
            if not _post(loop, lines, line or None) or not line:
                return

    def _read_interactive(self, loop: asyncio.AbstractEventLoop, lines: asyncio.Queue[str | None]) -> None:
        while True:
            prompt = self._asks.get()
            try:
                line: str | None = input(prompt) + "\n"
            except EOFError:
                line = None
            if not _post(loop, lines, line) or line is None:
                return


def _post(loop: asyncio.AbstractEventLoop, lines: asyncio.Queue[str | None], line: str | None) -> bool:
    try:
        loop.call_soon_threadsafe(lines.put_nowait, line)
    except RuntimeError:  # the loop is closed: nobody is reading any more
        return False
    return True


def _isatty(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False
