"""The order and number of events, as the specification states them, on a real server."""

from __future__ import annotations

import asyncio
import base64
import os
import signal
from typing import Any

import msgpack
import pytest
import websockets
from websockets.exceptions import ConnectionClosed

from tests.conftest import ServerProcess
from tests.server.test_fairness import kinds, seated_race, settle, start
from tests.server.test_hidden_information import Recorder

pytestmark = pytest.mark.asyncio


def types_for(peer: Recorder, race: str) -> list[str]:
    """The kinds of frame ``peer`` got about ``race``, in order (a status for race updates)."""
    out = []
    for frame in peer.frames:
        if frame["type"] == "race_update" and frame["race"]["id"] == race:
            out.append(f"race_update({frame['race']['status']})")
        elif frame.get("race") == race and frame["type"] != "race_update":
            out.append(frame["type"])
    return out


async def test_a_connection_both_seated_and_spectating_gets_each_race_update_once(server: ServerProcess) -> None:
    ann = await Recorder.connect(server.url, "ann")
    race = (await ann.call({"type": "create", "game": "golf"}))["race"]["id"]
    await ann.call({"type": "spectate", "race": race})  # her own race, before the start: allowed
    bob = await Recorder.connect(server.url, "bob")
    await bob.call({"type": "join", "race": race})
    await bob.call({"type": "ready", "race": race})
    await settle(ann)
    updates = kinds(ann, "race_update")
    assert len(updates) == 2, [u["race"]["players"] for u in updates]  # bob's join, bob's ready
    assert all("code" in u["race"] for u in updates)  # the seated player's summary


async def test_at_the_start_racers_get_start_then_race_update_and_spectators_then_the_opening_boards(
    server: ServerProcess,
) -> None:
    for live in (True, False):
        ann, bob, race = await seated_race(server.url, live_boards=live)
        sam = await Recorder.connect(server.url, "sam")
        await sam.call({"type": "spectate", "race": race})
        await start(race, ann, bob)
        await settle(ann, bob, sam)
        for racer in (ann, bob):
            assert types_for(racer, race)[-2:] == ["start", "race_update(running)"]
        seen = types_for(sam, race)
        assert seen[seen.index("race_update(running)") :] == (
            ["race_update(running)", "watch", "watch"] if live else ["race_update(running)"]
        )

        # The ack of the entry that ends the race comes before the end it brings about.
        await ann.call({"type": "concede", "race": race})
        ack_id = bob.next_id + 1
        await bob.call({"type": "concede", "race": race})
        await bob.until("end")
        await settle(bob)
        ack = next(i for i, f in enumerate(bob.frames) if f.get("id") == ack_id)
        end = next(i for i, f in enumerate(bob.frames) if f["type"] == "end")
        assert bob.frames[ack]["type"] == "ack" and ack < end
        assert types_for(bob, race)[-2:] == ["end", "race_update(finished)"]


async def stalled_websocket(port: int) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """A websocket that never reads again after its handshake: closing it takes the server's close timeout."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    key = base64.b64encode(os.urandom(16)).decode()
    writer.write(
        f"GET / HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n".encode()
    )
    await writer.drain()
    assert b" 101 " in await reader.readuntil(b"\r\n\r\n")
    return reader, writer


async def test_a_hello_on_a_connection_opened_during_shutdown_gets_shutting_down(server: ServerProcess) -> None:
    listener = await Recorder.connect(server.url, "listener")
    _stalled = await stalled_websocket(server.port)  # keeps the shutdown going for about a second
    assert server.process is not None
    server.process.send_signal(signal.SIGTERM)
    notice = await listener.until("error")
    assert notice["code"] == "shutting_down" and "id" not in notice
    late = await websockets.connect(server.url, compression=None)
    await late.send(msgpack.packb({"type": "hello", "id": 1, "name": "late"}))
    reply: dict[str, Any] = msgpack.unpackb(await asyncio.wait_for(late.recv(), 5))
    assert (reply["type"], reply["code"], reply["id"]) == ("error", "shutting_down", 1)
    with pytest.raises(ConnectionClosed) as closed:
        await asyncio.wait_for(late.recv(), 5)
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 1001
