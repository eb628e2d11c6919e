"""The log's two formats: text (``parlour: LEVEL LOGGER [NODE]: ...``) and JSON (``--log-format json``),
from real server processes, and the formatters' ids (``extra``) on records logged in this process."""

from __future__ import annotations

import asyncio
import json
import logging
import re
import socket
import subprocess
import sys
from collections.abc import Iterator
from datetime import datetime
from typing import Any

import pytest

from parlour.client.connection import Client
from parlour.server.logs import Ids, announce, announce_error, configure
from tests.conftest import ServerProcess


async def lines_until(server: ServerProcess, wanted: str, timeout: float = 10) -> list[str]:
    """The server's output so far, once a line holding ``wanted`` is in it."""
    deadline = asyncio.get_running_loop().time() + timeout
    while not any(wanted in line for line in list(server.output)):
        assert asyncio.get_running_loop().time() < deadline, f"no line with {wanted!r} in:\n{''.join(server.output)}"
        await asyncio.sleep(0.05)
    return list(server.output)


async def one_player_comes_and_goes(server: ServerProcess) -> str:
    """Connect a player, close, and return its id once the server logged the close."""
    client = await Client.connect(server.url, "ann")
    await client.close()
    await lines_until(server, "closed")
    return client.player


@pytest.mark.asyncio
async def test_json_logs_are_one_object_per_line_naming_the_node(server_factory: type[ServerProcess]) -> None:
    server = server_factory("--log-format", "json", "--node", "node-a")
    server.start()
    player = await one_player_comes_and_goes(server)
    assert server.stop() == 0

    entries = [json.loads(line) for line in server.output]  # every line is a JSON object
    assert entries, "the server wrote nothing"
    for entry in entries:
        assert re.fullmatch(r"node-a-[0-9a-f]{6}", entry["node"])  # the name, and a suffix unique to the process
        assert entry["level"] in {"DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"}
        assert entry["logger"].startswith("parlour")
        assert isinstance(entry["message"], str)
        assert entry["time"].endswith("Z")
        assert datetime.fromisoformat(entry["time"]).utcoffset() is not None
    messages = [entry["message"] for entry in entries]
    assert messages[0].startswith("data in ") and messages[0].endswith("(embedded Redis)")
    assert messages[1].startswith("listening on ws://127.0.0.1:")
    assert messages[-1] == "shutting down"
    assert [entry["logger"] for entry in entries[:2]] == ["parlour.serve", "parlour.serve"]
    assert any(e["message"].startswith("connection opened from 127.0.0.1:") and e["connection"] for e in entries)
    assert any(e["message"] == "connection identified as ann" and e["player"] == player for e in entries)
    assert any(e["message"] == "connection closed" and e["player"] == player for e in entries)


@pytest.mark.asyncio
async def test_the_log_format_and_the_node_come_from_the_environment_too(
    server_factory: type[ServerProcess], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PARLOUR_LOG_FORMAT", "json")
    monkeypatch.setenv("PARLOUR_NODE", "from-env")
    server = server_factory()
    server.start()
    await one_player_comes_and_goes(server)
    assert len({json.loads(line)["node"] for line in server.output}) == 1
    assert json.loads(server.output[0])["node"].startswith("from-env-")


@pytest.mark.asyncio
async def test_text_logs_name_the_node_which_is_the_host_name_by_default(server: ServerProcess) -> None:
    client = await Client.connect(server.url, "ann")
    assert socket.gethostname() in client.server  # the welcome names the node too
    await client.close()
    output = await lines_until(server, "closed")
    assert output[0].startswith("parlour: data in ") and output[1].startswith("parlour: listening on ws://")
    closed = [line for line in output if " connection closed " in line]
    node = re.escape(socket.gethostname()) + "-[0-9a-f]{6}"  # the name, and a suffix unique to the process
    assert closed and re.match(rf"parlour: INFO parlour\.server \[{node}\]: connection ", closed[0])


def test_a_bad_log_format_or_node_name_is_refused_before_the_server_starts() -> None:
    for flags in (["--log-format", "xml"], ["--node", "two words"], ["--node", ""]):
        command = [sys.executable, "-m", "parlour.client.cli", "serve", "--port", "0", *flags]
        done = subprocess.run(command, capture_output=True, text=True, timeout=30)
        assert done.returncode == 2
        assert f"argument {flags[0]}:" in done.stderr


@pytest.fixture
def logging_restored() -> Iterator[None]:
    """`configure` changes the process's loggers: put them back as pytest had them."""
    root, parlour, serve = logging.getLogger(), logging.getLogger("parlour"), logging.getLogger("parlour.serve")
    saved = (root.handlers[:], root.level, parlour.level, serve.handlers[:], serve.propagate)
    yield
    for handler in [*root.handlers, *serve.handlers]:
        handler.close()
    root.handlers[:], root.level, parlour.level, serve.handlers[:], serve.propagate = saved


def logged(capsys: pytest.CaptureFixture[str], log_format: str) -> tuple[list[str], list[str]]:
    """Log a few records in ``log_format``; return the lines of standard output and of standard error."""
    configure(log_format, "node-b")
    log = logging.getLogger("parlour.server")
    log.info("race %s created", "r1", extra=Ids(race="r1", player="p1"))
    log.info("connection opened", extra={"connection": 7})
    log.debug("not shown: below INFO")
    logging.getLogger("websockets.server").info("not shown: another library's INFO")
    logging.getLogger("websockets.server").warning("shown: another library's WARNING")
    try:
        raise ValueError("boom")
    except ValueError:
        log.exception("request failed", extra=Ids(connection=7))
    announce("listening on ws://127.0.0.1:1")
    announce_error("cannot serve")
    out, err = capsys.readouterr()
    return out.splitlines(), err.splitlines()


@pytest.mark.usefixtures("logging_restored")
def test_json_records_carry_the_ids_given_as_extra(capsys: pytest.CaptureFixture[str]) -> None:
    out, err = logged(capsys, "json")
    assert len(err) == 5  # the traceback is inside its record's line
    entries: list[dict[str, Any]] = [json.loads(line) for line in err]
    assert {entry["node"] for entry in entries} == {"node-b"}
    ids = {"race", "player", "connection"}
    shown = [(e["level"], e["logger"], e["message"], {k: v for k, v in e.items() if k in ids}) for e in entries]
    assert shown == [
        ("INFO", "parlour.server", "race r1 created", {"race": "r1", "player": "p1"}),
        ("INFO", "parlour.server", "connection opened", {"connection": 7}),
        ("WARNING", "websockets.server", "shown: another library's WARNING", {}),
        ("ERROR", "parlour.server", "request failed", {"connection": 7}),
        ("ERROR", "parlour.serve", "cannot serve", {}),
    ]
    assert entries[3]["exception"].startswith("Traceback") and entries[3]["exception"].endswith("ValueError: boom")
    assert [json.loads(line)["message"] for line in out] == ["listening on ws://127.0.0.1:1"]


@pytest.mark.usefixtures("logging_restored")
def test_text_records_end_with_the_ids_given_as_extra(capsys: pytest.CaptureFixture[str]) -> None:
    out, err = logged(capsys, "text")
    assert err[:3] == [
        "parlour: INFO parlour.server [node-b]: race r1 created race=r1 player=p1",
        "parlour: INFO parlour.server [node-b]: connection opened connection=7",
        "parlour: WARNING websockets.server [node-b]: shown: another library's WARNING",
    ]
    assert err[3] == "parlour: ERROR parlour.server [node-b]: request failed connection=7"  # then the traceback
    assert err[4] == "Traceback (most recent call last):" and err[-2] == "ValueError: boom"
    assert err[-1] == "parlour: error: cannot serve"
    assert out == ["parlour: listening on ws://127.0.0.1:1"]
