"""Limits on what one client may do, against a real server process: new identities per address,
new races per player, wrong join codes and wrong passwords made expensive.

Peers connect from several loopback addresses (127.0.0.1, 127.0.0.2, ...) so that the
server sees several remote addresses.
"""

from __future__ import annotations

import asyncio
import re
import secrets
import subprocess
import sys
import time
import urllib.error
import urllib.request
from typing import Any

import msgpack
import pytest
import websockets

from parlour.client.connection import Client
from tests.conftest import ServerProcess

pytestmark = pytest.mark.asyncio
CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"  # Crockford's base32: no I, L, O, U


class Peer:
    """A bare protocol peer from a chosen local address."""

    def __init__(self, ws: websockets.ClientConnection) -> None:
        self.ws = ws
        self.next_id = 0

    @classmethod
    async def open(cls, url: str, address: str = "127.0.0.1") -> Peer:
        return cls(await websockets.connect(url, compression=None, local_addr=(address, 0)))

    @classmethod
    async def hello(cls, url: str, name: str, address: str = "127.0.0.1", **hello: Any) -> Peer:
        """A peer that said hello and was welcomed."""
        peer = await cls.open(url, address)
        welcome = await peer.call({"type": "hello", "name": name, **hello})
        assert welcome["type"] == "welcome", welcome
        peer.token = welcome.get("token")
        return peer

    async def call(self, message: dict[str, Any]) -> dict[str, Any]:
        self.next_id += 1
        await self.ws.send(msgpack.packb({"id": self.next_id, **message}))
        while True:
            reply = msgpack.unpackb(await asyncio.wait_for(self.ws.recv(), 10))
            if reply.get("id") == self.next_id:
                return reply


async def test_new_identities_from_one_address_are_rate_limited_by_default(server: ServerProcess) -> None:
    welcomed, limited, tokens = 0, None, []
    peers = []
    for _ in range(100):
        peer = await Peer.open(server.url)
        peers.append(peer)
        reply = await peer.call({"type": "hello", "name": "sybil"})
        if reply["type"] == "welcome":
            welcomed += 1
            tokens.append(reply["token"])
        else:
            limited = reply
            break
    assert limited is not None, "100 new identities from one address in a row, none refused"
    assert limited["code"] == "rate_limited" and 60 <= welcomed <= 62  # the burst, and what refilled meanwhile
    assert 0 < limited["retry_after"] <= 5  # one identity every 5 s
    # Coming back with a token is no new identity; another address has its own budget.
    again = await peers[-1].call({"type": "hello", "name": "sybil", "token": tokens[0]})
    assert again["type"] == "welcome"
    await Peer.hello(server.url, "neighbour", address="127.0.0.2")
    for peer in peers:
        await peer.ws.close()


async def test_new_races_of_one_player_are_rate_limited_by_default(server: ServerProcess) -> None:
    ann = await Client.connect(server.url, "ann")
    created, refused = 0, None
    for _ in range(60):
        try:
            race = (await ann.create("golf")).race["id"]
        except Exception as error:
            refused = error
            break
        created += 1
        await ann.leave(race)  # under max_races: only the rate limit can refuse
    assert refused is not None, "60 races created in a row, none refused"
    assert getattr(refused, "code", None) == "rate_limited" and 30 <= created <= 33
    assert 0 < getattr(refused, "retry_after", 0) <= 2  # one race every 2 s
    bob = await Client.connect(server.url, "bob")
    await bob.create("golf")  # the limit is per player
    await ann.close()
    await bob.close()


async def test_join_codes_are_twelve_characters_of_crockford_base32_read_as_people_type_them(
    server: ServerProcess,
) -> None:
    ann = await Client.connect(server.url, "ann")
    codes = [(await ann.create("golf", public=False)).race["code"] for _ in range(5)]
    assert all(re.fullmatch("[0-9A-HJKMNP-TV-Z]{12}", code) for code in codes), codes
    code = codes[0]
    typed = f"{code[:4].lower()}-{code[4:8]} {code[8:]}"  # lowercase, a dash and a space
    bob = await Client.connect(server.url, "bob")
    assert (await bob.join(code=typed)).race["code"] == code
    from parlour.server.race import read_code

    assert read_code("o1lI-0000-0000") == "0111" + "0" * 8  # O reads as 0, I and L as 1
    assert read_code("0123456789") is None and read_code("U" * 12) is None  # not a join code at all
    await ann.close()
    await bob.close()


async def test_wrong_join_codes_back_off_per_player_and_address_while_a_right_code_still_works(
    server: ServerProcess,
) -> None:
    ann = await Client.connect(server.url, "ann")
    info = (await ann.create("golf", public=False)).race
    eve = await Peer.hello(server.url, "eve")
    # Guess every 10 ms (faster, 500 refusals in a row close the connection) until eight guesses were
    # answered: the eighth starts a wait of 4 s, inside which the checks below run however slow the
    # machine (stopping at a fixed time instead raced the end of a shorter wait under load).
    answered: list[float] = []  # when each answered guess was answered
    limited: list[float] = []
    deadline = time.monotonic() + 30
    while len(answered) < 8:
        assert time.monotonic() < deadline, (answered, limited[-3:])
        guess = "".join(secrets.choice(CROCKFORD) for _ in range(12))
        reply = await eve.call({"type": "join", "code": guess})
        if reply["code"] == "unknown_race":
            answered.append(time.monotonic())
        else:
            assert reply["code"] == "rate_limited", reply
            limited.append(reply["retry_after"])
        await asyncio.sleep(0.01)
    # 5 free guesses; the 6th is answered and makes the next wait 1 s, the 7th 2 s (the 8th 4 s).
    assert answered[6] - answered[5] > 0.9 and answered[7] - answered[6] > 1.9
    assert len(limited) > 10 and min(limited) > 0
    # A friend elsewhere with the right code is not slowed down.
    friend = await Peer.hello(server.url, "friend", address="127.0.0.2")
    joined = await friend.call({"type": "join", "code": info["code"].lower()})
    assert joined["type"] == "race" and joined["race"]["id"] == info["id"]
    # The guesser's address is slowed whatever the identity, and the guesser's identity whatever the address.
    sybil = await Peer.hello(server.url, "sybil")
    assert (await sybil.call({"type": "join", "code": "0" * 12}))["code"] == "rate_limited"
    moved = await Peer.hello(server.url, "eve", address="127.0.0.3", token=eve.token)
    assert (await moved.call({"type": "join", "code": "0" * 12}))["code"] == "rate_limited"
    # What cannot be a join code (a race id, say) is no guess: refused at once, as before.
    assert (await eve.call({"type": "join", "code": info["id"]}))["code"] == "unknown_race"
    await ann.close()


async def test_wrong_passwords_back_off_per_address(server_factory: Any) -> None:
    server = server_factory("--password", "sesame")
    server.start()
    peer = await Peer.open(server.url)
    answers = [(await peer.call({"type": "hello", "name": "x", "password": "open"}))["code"] for _ in range(7)]
    assert answers[:6] == ["bad_password"] * 6  # 5 free, and the 6th is answered but makes the next wait 1 s
    assert answers[6] == "rate_limited"
    refused = await peer.call({"type": "hello", "name": "x", "password": "sesame"})  # even the right one, now
    assert refused["code"] == "rate_limited" and 0 < refused["retry_after"] <= 1
    await Peer.hello(server.url, "y", address="127.0.0.2", password="sesame")  # other addresses are not slowed
    await asyncio.sleep(refused["retry_after"])
    assert (await peer.call({"type": "hello", "name": "x", "password": "sesame"}))["type"] == "welcome"


async def hello_forwarded_for(url: str, forwarded_for: str) -> dict[str, Any]:
    """The reply to a new identity's hello sent through a proxy that says it forwards for ``forwarded_for``."""
    async with websockets.connect(url, compression=None, additional_headers={"X-Forwarded-For": forwarded_for}) as ws:
        await ws.send(msgpack.packb({"type": "hello", "id": 1, "name": "via"}))
        return msgpack.unpackb(await asyncio.wait_for(ws.recv(), 10))


async def test_behind_a_trusted_proxy_the_limits_count_the_client_it_forwards_for(server_factory: Any) -> None:
    limit = ("--identity-burst", "1", "--identity-rate", "0.001")
    trusting = server_factory(*limit, "--trusted-proxy", "127.0.0.0/8")
    trusting.start()
    assert (await hello_forwarded_for(trusting.url, "203.0.113.7"))["type"] == "welcome"
    assert (await hello_forwarded_for(trusting.url, "203.0.113.7"))["code"] == "rate_limited"
    assert (await hello_forwarded_for(trusting.url, "198.51.100.4"))["type"] == "welcome"  # another client
    # What the client wrote itself (left of the proxy's entry) is not believed.
    assert (await hello_forwarded_for(trusting.url, "198.51.100.99, 203.0.113.7"))["code"] == "rate_limited"
    # A server that trusts no proxy counts the peer's own address, whatever the header says.
    plain = server_factory(*limit)
    plain.start()
    assert (await hello_forwarded_for(plain.url, "203.0.113.7"))["type"] == "welcome"
    assert (await hello_forwarded_for(plain.url, "198.51.100.4"))["code"] == "rate_limited"


def http_get(url: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=10) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()


@pytest.mark.asyncio
async def test_connections_beyond_max_connections_are_answered_503_until_one_closes(server_factory: Any) -> None:
    server = server_factory("--max-connections", "2")
    server.start()
    ada = await Client.connect(server.url, "ada")
    async with await Client.connect(server.url, "bob"):
        with pytest.raises(websockets.InvalidStatus) as refused:
            await websockets.connect(server.url)
        response = refused.value.response
        assert response.status_code == 503 and response.headers["Retry-After"] == "5"
        assert response.body == b"too many connections; try again later\n"
        assert http_get(server.http + "/healthz") == (200, "ok\n")  # plain HTTP is still answered
        metrics = http_get(server.http + "/metrics")[1]
        assert "parlour_connections_refused_total 1\n" in metrics
        command = [sys.executable, "-m", "parlour.client.cli", "race", "--server", server.url]
        command += ["--identity", str(server.data_dir / "identities.json"), "create", "golf"]
        told = await asyncio.to_thread(subprocess.run, command, capture_output=True, text=True, timeout=60)
        assert told.returncode != 0
        assert f"cannot reach {server.url}: HTTP 503: too many connections; try again later" in told.stderr

        await ada.close()  # one closes: a new connection gets in
        deadline = time.monotonic() + 10
        while True:
            try:
                async with await Client.connect(server.url, "cid") as cid:
                    assert (await cid.lobby()).races == []
                break
            except websockets.InvalidStatus:
                assert time.monotonic() < deadline, "the closed connection still counted"
                await asyncio.sleep(0.05)
