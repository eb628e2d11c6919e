"""The server under another asyncio event loop: uvloop, whose transports lack the selector
transport's ``max_size`` (the server shrinks CPython's read size through it)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from parlour.client.connection import Client, Start
from tests.conftest import ServerProcess

SITECUSTOMIZE = """\
import asyncio

import uvloop

asyncio.set_event_loop_policy(uvloop.EventLoopPolicy())
"""


@pytest.mark.skipif(sys.platform == "win32", reason="uvloop has no Windows build")
@pytest.mark.asyncio
async def test_a_race_on_a_server_running_under_uvloop(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("uvloop")
    (tmp_path / "site").mkdir()
    (tmp_path / "site" / "sitecustomize.py").write_text(SITECUSTOMIZE)
    monkeypatch.setenv("PYTHONPATH", str(tmp_path / "site"))
    server = ServerProcess(tmp_path / "data", "--countdown", "0")
    server.start()
    try:
        async with await Client.connect(server.url, "ada") as ada, await Client.connect(server.url, "bob") as bob:
            race = str((await ada.create("golf", seats=2)).race["id"])
            await bob.join(race)
            await ada.ready(race)
            await bob.ready(race)
            start = await ada.next_event(Start, race)
            ack = await ada.move(race, start.seq, start.view["moves"][0])
            assert ack.seq == start.seq + 1
    finally:
        server.stop()
    output = "".join(server.output)
    assert "uvloop" not in output and "Traceback" not in output, output
