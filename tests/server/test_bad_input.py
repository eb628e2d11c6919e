"""Bad input against a real server process: typed errors or clean closes, nothing broken.

Each test ends by checking the server still serves (a fresh hello is welcomed) and, where
a race was running beside the abuse, that the race is untouched.
"""

from __future__ import annotations

import asyncio
import os
import random
from pathlib import Path
from typing import Any

import msgpack
import pytest
import websockets
from websockets.exceptions import ConnectionClosed

from tests.conftest import ServerProcess

pytestmark = pytest.mark.asyncio


class Raw:
    """A bare protocol peer: frames in, maps out."""

    def __init__(self, ws: websockets.ClientConnection) -> None:
        self.ws = ws
        self.next_id = 0

    @classmethod
    async def connect(cls, url: str, name: str | None = "tester", **hello: Any) -> Raw:
        peer = cls(await websockets.connect(url, compression=None, max_size=2**22, max_queue=None))
        if name is not None:
            reply = await peer.call({"type": "hello", "name": name, **hello})
            assert reply["type"] == "welcome", reply
            peer.player = reply["player"]
            peer.token = reply.get("token")
        return peer

    async def send(self, data: bytes | str) -> None:
        await self.ws.send(data)

    async def recv(self, timeout: float = 10) -> dict[str, Any]:
        return msgpack.unpackb(await asyncio.wait_for(self.ws.recv(), timeout))

    async def call(self, message: dict[str, Any]) -> dict[str, Any]:
        self.next_id += 1
        await self.ws.send(msgpack.packb({"id": self.next_id, **message}))
        while True:
            reply = await self.recv()
            if reply.get("id") == self.next_id:
                return reply

    async def until(self, kind: str) -> dict[str, Any]:
        while True:
            message = await self.recv()
            if message["type"] == kind:
                return message


async def running_race(url: str, game: str = "golf") -> tuple[Raw, Raw, str, dict[str, Any]]:
    """Two players in a started race; returns them, the race id and the first player's start."""
    a = await Raw.connect(url, "ann")
    b = await Raw.connect(url, "bob")
    race = (await a.call({"type": "create", "game": game}))["race"]["id"]
    assert (await b.call({"type": "join", "race": race}))["type"] == "race"
    await a.call({"type": "ready", "race": race})
    await b.call({"type": "ready", "race": race})
    start = await a.until("start")
    await b.until("start")
    return a, b, race, start


async def assert_serving(url: str) -> None:
    peer = await Raw.connect(url, "probe")
    assert (await peer.call({"type": "ping"}))["type"] == "pong"
    await peer.ws.close()


async def test_random_bytes_get_bad_frame_errors_and_the_server_stays_up(server: ServerProcess) -> None:
    peer = await Raw.connect(server.url)
    chooser = random.Random(7)
    for _ in range(50):
        await peer.send(bytes(chooser.randrange(256) for _ in range(chooser.randrange(1, 200))))
        reply = await peer.recv()
        assert reply["type"] == "error" and reply["code"] in ("bad_frame", "bad_message", "unknown_type")
    await peer.send("a text frame")
    assert (await peer.recv())["code"] == "bad_frame"
    assert (await peer.call({"type": "ping"}))["type"] == "pong"  # the connection still works
    await assert_serving(server.url)


@pytest.mark.parametrize(
    ("message", "code"),
    [
        ([1, 2, 3], "bad_message"),
        ({"no": "type"}, "bad_message"),
        ({"type": "teleport", "id": 1}, "unknown_type"),
        ({"type": "welcome", "id": 1}, "unknown_type"),
        ({"type": "create", "id": 1}, "bad_message"),
        ({"type": "create", "id": 1, "game": 7}, "bad_message"),
        ({"type": "move", "id": 1, "race": "x", "seq": "0", "move": ["turn"]}, "bad_message"),
        ({"type": "move", "id": 1, "race": "x", "seq": 0, "move": "turn"}, "bad_message"),
        ({"type": "create", "id": 1, "game": "chess"}, "unknown_game"),
        ({"type": "create", "id": 1, "game": "the-chance", "options": {"sequence": "spiral"}}, "bad_options"),
        ({"type": "join", "id": 1, "race": "nope"}, "unknown_race"),
        ({"type": "hello", "id": 1, "name": "again"}, "already_identified"),
    ],
)
async def test_wrong_shapes_get_typed_errors_with_their_id(server: ServerProcess, message: Any, code: str) -> None:
    peer = await Raw.connect(server.url)
    await peer.send(msgpack.packb(message))
    reply = await peer.recv()
    assert reply["type"] == "error" and reply["code"] == code, reply
    if isinstance(message, dict) and "id" in message:
        assert reply["id"] == message["id"]
    assert (await peer.call({"type": "ping"}))["type"] == "pong"


async def test_requests_before_hello_and_bad_versions(server: ServerProcess) -> None:
    peer = await Raw.connect(server.url, name=None)
    assert (await peer.call({"type": "lobby"}))["code"] == "not_identified"
    assert (await peer.call({"type": "hello", "name": "x", "version": 99}))["code"] == "unsupported_version"
    assert (await peer.call({"type": "hello", "name": "x"}))["type"] == "welcome"


async def test_wrong_or_missing_tokens_and_passwords(server_factory: Any) -> None:
    server = server_factory("--password", "sesame")
    server.start()
    peer = await Raw.connect(server.url, name=None)
    assert (await peer.call({"type": "hello", "name": "x"}))["code"] == "bad_password"
    assert (await peer.call({"type": "hello", "name": "x", "password": "open"}))["code"] == "bad_password"
    welcome = await peer.call({"type": "hello", "name": "x", "password": "sesame"})
    assert welcome["type"] == "welcome" and welcome["token"]
    other = await Raw.connect(server.url, name=None)
    reply = await other.call({"type": "hello", "name": "x", "password": "sesame", "token": "forged-token"})
    assert reply["code"] == "bad_token"
    again = await other.call({"type": "hello", "name": "x", "password": "sesame", "token": welcome["token"]})
    assert again["type"] == "welcome" and again["player"] == welcome["player"] and "token" not in again


async def test_oversized_frames_close_the_connection_cleanly(server: ServerProcess) -> None:
    peer = await Raw.connect(server.url)
    await peer.send(msgpack.packb({"type": "ping", "id": 1, "pad": "x" * 100_000}))
    with pytest.raises(ConnectionClosed) as info:
        await peer.recv()
    assert info.value.rcvd is not None and info.value.rcvd.code == 1009  # message too big
    await assert_serving(server.url)


async def test_illegal_moves_and_other_players_races(server: ServerProcess) -> None:
    a, _b, race, start = await running_race(server.url)
    bad = await a.call({"type": "move", "race": race, "seq": 0, "move": ["play", "p9"]})
    assert bad["code"] == "bad_move"
    legal = start["view"]["moves"]
    illegal = next(["play", f"p{i}"] for i in range(1, 8) if ["play", f"p{i}"] not in legal)
    refused = await a.call({"type": "move", "race": race, "seq": 0, "move": illegal})
    assert refused["code"] == "illegal_move" and "waste" in refused["message"]
    assert (await a.call({"type": "move", "race": race, "seq": 5, "move": legal[0]}))["code"] == "stale_seq"
    intruder = await Raw.connect(server.url, "eve")
    assert (await intruder.call({"type": "move", "race": race, "seq": 0, "move": legal[0]}))["code"] == "not_seated"
    assert (await intruder.call({"type": "concede", "race": race}))["code"] == "not_seated"
    assert (await a.call({"type": "spectate", "race": race}))["code"] == "forbidden"
    ok = await a.call({"type": "move", "race": race, "seq": 0, "move": legal[0]})
    assert ok["type"] == "ack" and ok["seq"] == 1  # nothing before it was applied


async def test_a_flood_is_rate_limited_and_other_races_are_untouched(server: ServerProcess) -> None:
    a, _b, race, start = await running_race(server.url)
    ack = await a.call({"type": "move", "race": race, "seq": 0, "move": start["view"]["moves"][0]})
    flooder = await Raw.connect(server.url, "flood")
    frame = msgpack.packb({"type": "ping", "id": 1})
    limited = None
    try:
        for _ in range(2000):
            await flooder.send(frame)
        for _ in range(2000):
            reply = await flooder.recv()
            if reply.get("code") == "rate_limited":
                limited = reply
                break
    except ConnectionClosed:
        pass
    assert limited is not None and limited["retry_after"] > 0 and limited["id"] == 1  # names the request
    snapshot = await a.call({"type": "snapshot", "race": race})
    assert snapshot["type"] == "race_state", snapshot
    assert snapshot["seq"] == 1 and snapshot["view"] == ack["view"]
    await assert_serving(server.url)


async def test_garbage_in_many_connections_leaves_the_server_up(server: ServerProcess) -> None:
    async def abuse(seed: int) -> None:
        chooser = random.Random(seed)
        peer = await Raw.connect(server.url, f"noise{seed}")
        for _ in range(20):
            await peer.send(os.urandom(chooser.randrange(1, 64)))
        await peer.ws.close()

    await asyncio.gather(*(abuse(seed) for seed in range(20)))
    await assert_serving(server.url)


async def test_an_idle_connection_is_told_and_closed(server_factory: Any) -> None:
    server = server_factory("--idle-timeout", "2")
    server.start()
    idle = await Raw.connect(server.url, "sleepy")
    busy = await Raw.connect(server.url, "busy")
    told = asyncio.create_task(idle.recv(timeout=10))
    while not told.done():  # busy keeps talking (well within the timeout) until sleepy, who says nothing, is told
        assert (await busy.call({"type": "ping"}))["type"] == "pong"
        await asyncio.sleep(0.2)
    notice = await told
    assert notice["type"] == "error" and notice["code"] == "idle_timeout" and "id" not in notice
    with pytest.raises(ConnectionClosed) as info:
        await idle.recv(timeout=5)
    assert info.value.rcvd is not None and info.value.rcvd.code == 1000
    assert (await busy.call({"type": "ping"}))["type"] == "pong"


async def test_a_bin_key_in_options_or_anywhere_is_refused_with_bad_frame_not_internal(server: ServerProcess) -> None:
    peer = await Raw.connect(server.url)
    create = {"type": "create", "id": 1, "game": "the-chance", "options": {b"sequence": "suit"}}
    mixed = {"type": "create", "id": 2, "game": "the-chance", "options": {"colour": "red", b"sequence": "suit"}}
    top = {"type": "ping", "id": 3, b"pad": 1}
    for message in (create, mixed, top):
        await peer.send(msgpack.packb(message, use_bin_type=True))
        reply = await peer.recv()
        assert reply["type"] == "error" and reply["code"] == "bad_frame", reply  # the spec: non-string map keys
        assert "str" in reply["message"]
    valid = {"type": "create", "game": "the-chance", "options": {"sequence": "suit"}}
    assert (await peer.call(valid))["type"] == "race"


async def test_retry_after_is_rounded_up_and_never_zero(server_factory: Any) -> None:
    server = server_factory("--rate", "10000", "--burst", "1")  # every wait is under 0.1 ms
    server.start()
    peer = await Raw.connect(server.url)
    frame = msgpack.packb({"type": "ping", "id": 1})
    for _ in range(50):
        await peer.send(frame)
    waits = []
    for _ in range(50):
        reply = await peer.recv()
        if reply.get("code") == "rate_limited":
            waits.append(reply["retry_after"])
    assert waits and min(waits) >= 0.001, waits


async def test_the_password_can_come_from_the_environment_or_a_file_not_only_argv(
    server_factory: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("PARLOUR_PASSWORD", "from-env")
    by_env = server_factory()
    by_env.start()
    (tmp_path / "password").write_text("from-file\n")
    by_file = server_factory("--password-file", str(tmp_path / "password"))  # the file comes before the variable
    by_file.start()
    for server, password in ((by_env, "from-env"), (by_file, "from-file")):
        assert server.process is not None
        assert password.encode() not in Path(f"/proc/{server.process.pid}/cmdline").read_bytes()
        peer = await Raw.connect(server.url, name=None)
        assert (await peer.call({"type": "hello", "name": "x"}))["code"] == "bad_password"
        assert (await peer.call({"type": "hello", "name": "x", "password": password}))["type"] == "welcome"
        await peer.ws.close()
    both = server_factory("--password", "a", "--password-file", str(tmp_path / "password"))
    with pytest.raises(RuntimeError, match="give the password one way"):
        both.start()
