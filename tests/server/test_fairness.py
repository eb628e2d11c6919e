"""Fair races on a real server: what spectators (possibly a racer's second identity) see, and ranking.

Every frame each peer receives is recorded (raw websockets and msgpack), so the tests
check what was *not* sent as well as what was.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from tests.conftest import ServerProcess
from tests.server.test_hidden_information import Recorder

pytestmark = pytest.mark.asyncio


async def seated_race(url: str, **settings: Any) -> tuple[Recorder, Recorder, str]:
    """Two recorded racers seated in a new race of Golf, not yet ready."""
    ann = await Recorder.connect(url, "ann")
    bob = await Recorder.connect(url, "bob")
    race = (await ann.call({"type": "create", "game": "golf", **settings}))["race"]["id"]
    await bob.call({"type": "join", "race": race})
    return ann, bob, race


async def start(race: str, *racers: Recorder) -> list[dict[str, Any]]:
    for racer in racers:
        await racer.call({"type": "ready", "race": race})
    return [await racer.until("start") for racer in racers]


async def settle(*peers: Recorder) -> None:
    """Every event already sent to these peers has arrived (a ping's answer comes after them)."""
    for peer in peers:
        await peer.call({"type": "ping"})


async def until_end(peer: Recorder, timeout: float) -> dict[str, Any]:
    """The peer's next ``end`` frame, within ``timeout`` s (``Recorder.until`` gives each frame 10 s)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while (frame := await peer.recv(timeout=max(0.0, deadline - loop.time())))["type"] != "end":
        pass
    return frame


def kinds(peer: Recorder, *wanted: str) -> list[dict[str, Any]]:
    return [frame for frame in peer.frames if frame["type"] in wanted]


async def test_a_racers_second_identity_sees_no_board_of_a_running_race_by_default(server: ServerProcess) -> None:
    ann, bob, race = await seated_race(server.url)  # default settings: a public race of strangers
    mole = await Recorder.connect(server.url, "not-ann")  # ann's second identity
    spectating = await mole.call({"type": "spectate", "race": race})
    assert spectating["race"]["live_boards"] is False
    start_a, start_b = await start(race, ann, bob)
    late = await Recorder.connect(server.url, "late")
    during = await late.call({"type": "spectate", "race": race})
    assert during["race"]["status"] == "running" and during["boards"] == []

    seq_a = seq_b = 0
    for _ in range(3):  # turns: legal while the stock lasts, and they show the next stock card
        seq_a = (await ann.call({"type": "move", "race": race, "seq": seq_a, "move": ["turn"]}))["seq"]
    seq_b = (await bob.call({"type": "move", "race": race, "seq": seq_b, "move": ["turn"]}))["seq"]
    await settle(mole, late)
    for peer in (mole, late):
        assert kinds(peer, "watch") == [], "a board of a running race reached a spectator"
        followed = [(p["seat"], p["moves"]) for p in kinds(peer, "progress")]  # they follow it as racers do
        assert followed[-4:] == [(0, 1), (0, 2), (0, 3), (1, 1)]
    assert kinds(mole, "race_update")[-1]["race"]["status"] == "running"

    # At the end they get every seat's final board, then the end.
    await ann.call({"type": "concede", "race": race})
    await bob.call({"type": "concede", "race": race})
    await mole.until("end")
    after = mole.frames[mole.frames.index(kinds(mole, "progress")[-1]) + 1 :]
    assert [f["type"] for f in after[:3]] == ["watch", "watch", "end"]
    assert [(w["seat"], w["seq"], w["view"]["ended"]) for w in after[:2]] == [(0, 4, "conceded"), (1, 2, "conceded")]
    assert "moves" not in after[0]["view"]  # the public view
    assert after[0]["view"]["board"]["stock"] == start_a["view"]["board"]["stock"] - 3
    # And a spectate of the finished race shows the same final boards.
    finished = await Recorder.connect(server.url, "after")
    boards = (await finished.call({"type": "spectate", "race": race}))["boards"]
    assert [(b["seat"], b["seq"], b["view"]) for b in boards] == [(w["seat"], w["seq"], w["view"]) for w in after[:2]]
    assert start_b["view"] == start_a["view"]


async def test_live_boards_show_spectators_the_boards_while_the_race_runs(server: ServerProcess) -> None:
    ann, bob, race = await seated_race(server.url, live_boards=True)
    friend = await Recorder.connect(server.url, "friend")
    assert (await friend.call({"type": "spectate", "race": race}))["race"]["live_boards"] is True
    await start(race, ann, bob)
    await ann.call({"type": "move", "race": race, "seq": 0, "move": ["turn"]})
    await settle(friend)
    assert [(w["seat"], w["seq"]) for w in kinds(friend, "watch")] == [(0, 0), (1, 0), (0, 1)]
    assert kinds(friend, "progress") == []  # boards instead of progress, as before
    during = await (await Recorder.connect(server.url, "late")).call({"type": "spectate", "race": race})
    assert [(b["seat"], b["seq"]) for b in during["boards"]] == [(0, 1), (1, 0)]
    await ann.call({"type": "concede", "race": race})
    await bob.call({"type": "concede", "race": race})
    await ann.until("end")
    replay_settings = (await ann.call({"type": "replay", "race": race}))["replay"]["settings"]
    assert replay_settings["live_boards"] is True  # replays carry the setting


async def test_a_racer_watching_before_the_start_gets_no_opening_board_of_another_seat(server: ServerProcess) -> None:
    ann, bob, race = await seated_race(server.url, live_boards=True, spectator_delay=0)
    sam = await Recorder.connect(server.url, "sam")
    for peer in (ann, bob, sam):  # allowed: the race has not started
        await peer.call({"type": "spectate", "race": race})
    await start(race, ann, bob)
    await asyncio.sleep(0.3)
    await settle(ann, bob, sam)
    assert [(w["seat"], w["seq"]) for w in kinds(sam, "watch")] == [(0, 0), (1, 0)]
    assert kinds(bob, "watch") == [], "seat 1's player got an opening board"
    assert kinds(ann, "watch") == []


async def test_an_abandoned_seat_with_no_move_ranks_below_a_seat_that_played_to_the_same_score(
    server_factory: Any,
) -> None:
    server = server_factory("--grace", "1")
    server.start()
    ann, bob, race = await seated_race(server.url, time_limit=10)
    await start(race, ann, bob)
    await ann.ws.close()  # ann walks away: conceded for absence after the grace period, 0 moves
    seq = 0
    for _ in range(2):  # bob turns the stock (Golf: the 35 pile cards stay) until the time is up
        seq = (await bob.call({"type": "move", "race": race, "seq": seq, "move": ["turn"]}))["seq"]
    end = await until_end(bob, 30)  # the deadline 10 s after the start, with nothing to bob for 8 s before it
    ranked = [(r["seat"], r["score"], r["ended"], r["moves"]) for r in end["results"]]
    assert ranked == [(1, 35, "out_of_time", 2), (0, 35, "conceded", 0)]
    assert end["results"][1]["time"] < end["results"][0]["time"]  # the concession ended first, and ranks last
