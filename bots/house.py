"""House bots: ``parlour serve --house-bots random,greedy`` runs one ``parlour bot run NAME`` beside
the server, so that someone alone can race a bot.

:func:`keep_house_bots` starts one child process per bot name once the server listens, pointed at
it, and starts a child again when it dies (after 1 s, doubling up to a minute while it keeps dying
within a minute of its start). Each child has a session of its own (Ctrl-C in the terminal reaches
the server only) and is told the server's process id (``--parent``): it stops by itself if the
server is killed. Cancelling :func:`keep_house_bots` (the server stopping) sends each child SIGTERM
and waits for it, then kills what is left.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import sys
from collections.abc import Sequence

from parlour.client.cli import PASSWORD_VARIABLE

log = logging.getLogger("parlour.server")

FIRST_BACKOFF = 1.0  # seconds before a dead house bot is started again; doubled while it keeps dying
MAX_BACKOFF = 60.0
STEADY = 60.0  # a house bot that ran this long before it died is started again after FIRST_BACKOFF
HOUSE_RACES = 8  # races a house bot plays at once
STOP_TIMEOUT = 15.0  # seconds a house bot gets to stop after SIGTERM before it is killed


def bot_url(host: str, port: int) -> str:
    """The URL a house bot uses to reach a server listening on ``host``: a wildcard address is
    reached through the loopback address."""
    if host in ("0.0.0.0", ""):
        host = "127.0.0.1"
    elif host == "::":
        host = "::1"
    return f"ws://[{host}]:{port}" if ":" in host else f"ws://{host}:{port}"


async def keep_house_bots(names: Sequence[str], url: str, password: str | None = None) -> None:
    """Run ``parlour bot run NAME --server URL`` for each name until cancelled, restarting any that dies."""
    tasks = [asyncio.create_task(_keep(name, url, password), name=f"house bot {name}") for name in names]
    try:
        await asyncio.gather(*tasks)  # cancelled, it cancels each task: each stops its child
    finally:
        for task in tasks:
            if not task.done() and not task.cancelling():
                task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


async def _keep(name: str, url: str, password: str | None) -> None:
    loop = asyncio.get_running_loop()
    backoff = FIRST_BACKOFF
    env = dict(os.environ)
    env.pop(PASSWORD_VARIABLE, None)
    if password is not None:
        env[PASSWORD_VARIABLE] = password  # not on the command line, where anyone may read it
    # -P: not the current directory first on sys.path, where a random.py would shadow the standard library's.
    command = [sys.executable, "-P", "-m", "parlour.client.cli", "bot", "run", name, "--server", url]
    command += ["--max-races", str(HOUSE_RACES), "--parent", str(os.getpid())]
    while True:
        child = await asyncio.create_subprocess_exec(*command, env=env, start_new_session=True)
        log.info("house bot %s started (pid %d)", name, child.pid)
        began = loop.time()
        try:
            status = await child.wait()
        except asyncio.CancelledError:
            await _stop(child)
            raise
        if loop.time() - began >= STEADY:
            backoff = FIRST_BACKOFF
        log.warning("house bot %s exited with status %s; starting it again in %.0f s", name, status, backoff)
        await asyncio.sleep(backoff)
        backoff = min(backoff * 2, MAX_BACKOFF)


async def _stop(child: asyncio.subprocess.Process) -> None:
    if child.returncode is not None:
        return
    with contextlib.suppress(ProcessLookupError):
        child.terminate()
    try:
        await asyncio.wait_for(child.wait(), STOP_TIMEOUT)
    except TimeoutError:
        with contextlib.suppress(ProcessLookupError):
            child.kill()
        await child.wait()
