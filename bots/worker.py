"""A bot in a process of its own: the runner makes one per race, so that a bot's thinking never
holds up the connection.

:class:`BotProcess` makes ``bot_class(seed)`` in a child process and calls its hooks there:
:meth:`BotProcess.choose` for every move (the first call also calls the bot's ``start``), then
:meth:`BotProcess.finish`. The child receives only what a racer receives (views, ``seq``, times)
and sends back moves in wire form. A CPU-bound bot, even one in C code that holds the GIL, runs
beside the runner's event loop, which keeps answering the server meanwhile; several races think
on several cores; a bot that crashes takes down its own race only.

Children come from a fork server where there is one (POSIX), else they are spawned: the bot's
class must be importable by name (a class named in an entry point is).
"""

from __future__ import annotations

import asyncio
import multiprocessing
import multiprocessing.forkserver
import signal
import traceback
from collections.abc import Mapping
from multiprocessing.connection import Connection
from multiprocessing.context import BaseContext
from typing import Any

from parlour.bots.base import Bot, Turn
from parlour.games import CONCEDE

CLOSE_TIMEOUT = 2.0  # seconds a child may take to run finish() and exit before it is killed


class BotFailed(Exception):
    """The bot raised (the message ends with its traceback), chose an illegal move, or its process died."""


def context(bot_class: type[Bot]) -> BaseContext:
    """The multiprocessing context for ``bot_class``'s processes: a fork server that has imported the
    bot's module already (each race's process then starts in milliseconds), or spawn where there is none.
    Call it before the first :class:`BotProcess` of the program starts."""
    if "forkserver" not in multiprocessing.get_all_start_methods():
        return multiprocessing.get_context("spawn")
    forkserver = multiprocessing.get_context("forkserver")
    forkserver.set_forkserver_preload([__name__, bot_class.__module__])
    multiprocessing.forkserver.ensure_running()  # now, not while a race waits for its first move
    return forkserver


class BotProcess:
    """One bot object, ``bot_class(seed)``, living in a child process for one race.

    Calls are made one at a time. :meth:`close` (or :meth:`finish`) ends the child; a child whose
    parent died exits when it next waits for a call.
    """

    def __init__(self, ctx: BaseContext, bot_class: type[Bot], seed: int) -> None:
        self._conn, child = ctx.Pipe()
        # Not a daemon, so that a bot may start processes of its own; the runner ends every child it starts.
        self._process = ctx.Process(  # type: ignore[attr-defined]
            target=_serve, args=(child, bot_class, seed), name=f"parlour bot {bot_class.name}", daemon=False
        )
        self._process.start()
        child.close()

    async def choose(
        self, view: Mapping[str, Any], seq: int, time_left: float | None, budget: float
    ) -> list[str | int]:
        """The bot's move (wire form) for the player's ``view`` after ``seq`` entries: one of the view's
        moves, or ``["concede"]``. Raises :class:`BotFailed`."""
        move: list[str | int] = await self._call("choose", dict(view), seq, time_left, budget)
        return move

    async def finish(self, view: Mapping[str, Any] | None, result: Mapping[str, Any] | None) -> None:
        """Call the bot's ``finish`` (if it ever played a move), then end the child. Never raises
        :class:`BotFailed`: a bot failing in ``finish`` costs nothing."""
        try:
            if view is not None:
                await asyncio.wait_for(self._call("finish", dict(view), result), CLOSE_TIMEOUT)
        except (BotFailed, TimeoutError):
            pass
        finally:
            self.close()

    def close(self) -> None:
        """End the child now (killed if it is thinking)."""
        self._conn.close()
        if self._process.is_alive():
            self._process.kill()
        self._process.join(CLOSE_TIMEOUT)

    async def _call(self, kind: str, *args: Any) -> Any:
        loop = asyncio.get_running_loop()
        try:
            self._conn.send((kind, args))
        except (OSError, ValueError) as error:
            raise BotFailed(f"the bot's process is gone: {error}") from None
        readable = loop.create_future()
        fd = self._conn.fileno()
        loop.add_reader(fd, lambda: readable.done() or readable.set_result(None))
        try:
            await readable
        finally:
            loop.remove_reader(fd)
        try:
            status, value = self._conn.recv()
        except (EOFError, OSError) as error:
            raise BotFailed(f"the bot's process died (exit code {self._process.exitcode}): {error}") from None
        if status != "ok":
            raise BotFailed(value)
        return value


def _serve(conn: Connection, bot_class: type[Bot], seed: int) -> None:
    """The child: answer calls until ``finish``, or until the parent goes away."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C reaches the whole group: the runner decides
    player = _Player(bot_class, seed)
    while True:
        try:
            kind, args = conn.recv()
        except (EOFError, OSError):
            return
        try:
            reply = ("ok", player.call(kind, args))
        except Exception:
            reply = ("error", traceback.format_exc())
        try:
            conn.send(reply)
        except (OSError, ValueError):
            return
        if kind == "finish":
            return


class _Player:
    """The child's side: the bot object, made at the first call, and whether it has started."""

    def __init__(self, bot_class: type[Bot], seed: int) -> None:
        self.bot_class = bot_class
        self.seed = seed
        self.bot: Bot | None = None
        self.started = False

    def call(self, kind: str, args: tuple[Any, ...]) -> Any:
        if self.bot is None:
            self.bot = self.bot_class(self.seed)
        if kind == "finish":
            if self.started:
                self.bot.finish(*args)
            return None
        turn = Turn.of(*args)
        if not self.started:
            self.bot.start(turn)
            self.started = True
        move = self.bot.choose(turn)
        if move not in turn.moves and move != CONCEDE:
            raise BotFailed(f"{self.bot_class.name} chose {move!r}, which is not a legal move")
        return move.wire()
