"""Whole races on a real server process, driven by the client library.

Two players race on the same deal, a spectator watches, players disconnect and come
back, the server is killed with SIGKILL and restarted, results rank by each game's own
direction, and ``parlour verify`` checks the published replay.
"""

from __future__ import annotations

import asyncio
import json
import random
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

import pytest
import redis.asyncio as aioredis

from parlour.client.connection import Client, ClientError, Resumed
from parlour.games import get_game
from parlour.protocol.messages import End, Progress, Start, Watch
from parlour.server.embedded_redis import EmbeddedRedis
from tests.conftest import REDIS_URL, ServerProcess

pytestmark = pytest.mark.asyncio


async def race_of_two(url: str, game: str = "golf", **settings: Any) -> tuple[Client, Client, str, Start, Start]:
    """Two connected players seated in a started race, with their start events."""
    ann = await Client.connect(url, "ann")
    bob = await Client.connect(url, "bob")
    race = (await ann.create(game, **settings)).race["id"]
    await bob.join(race)
    await ann.ready(race)
    await bob.ready(race)
    return ann, bob, race, await ann.next_event(Start, race), await bob.next_event(Start, race)


async def play(client: Client, race: str, view: dict[str, Any], seq: int, moves: int, seed: int) -> tuple[dict, int]:
    """Make up to ``moves`` random legal moves; return the last view and seq."""
    chooser = random.Random(seed)
    for _ in range(moves):
        if not view["moves"]:
            break
        ack = await client.move(race, seq, chooser.choice(view["moves"]))
        assert ack.seq == seq + 1 and not ack.duplicate
        view, seq = ack.view, ack.seq
    return view, seq


async def test_two_players_race_on_the_same_deal_and_see_only_progress(server: ServerProcess) -> None:
    ann, bob, race, start_a, start_b = await race_of_two(server.url, "the-chance")
    assert start_a.view["board"] == start_b.view["board"]  # the same deal
    assert start_a.commitment == start_b.commitment and len(start_a.commitment) == 64
    assert (start_a.seat, start_b.seat) == (0, 1)
    _view, _seq = await play(ann, race, start_a.view, 0, 5, seed=1)
    progress = await bob.next_event(Progress, race)
    assert progress.seat == 0 and progress.moves == 1
    assert not hasattr(progress, "view")  # another racer's board never travels while the race runs
    with pytest.raises(ClientError) as info:
        await ann.spectate(race)
    assert info.value.code == "forbidden"
    await ann.concede(race)
    await bob.concede(race)
    end = await ann.next_event(End, race)
    assert {r["seat"] for r in end.results} == {0, 1}


async def test_a_spectator_watches_live_and_with_a_delay(server: ServerProcess) -> None:
    ann, _bob, race, start_a, _ = await race_of_two(server.url, live_boards=True)
    sam = await Client.connect(server.url, "sam")
    spectating = await sam.spectate(race)
    assert [b["seat"] for b in spectating.boards] == [0, 1]
    assert "moves" not in spectating.boards[0]["view"]  # the public view lists no moves
    view, seq = await play(ann, race, start_a.view, 0, 3, seed=2)
    watch = await sam.next_event(Watch, race)
    assert watch.seat == 0 and watch.seq == 1
    assert watch.view["board"]["stock"] == view["board"]["stock"] or watch.seq < seq

    delayed_ann, _delayed_bob, delayed, start, _ = await race_of_two(server.url, spectator_delay=1, live_boards=True)
    await sam.spectate(delayed)
    moved_at = asyncio.get_running_loop().time()
    await delayed_ann.move(delayed, 0, start.view["moves"][0])
    seen: list[tuple[int, int, float]] = []  # (seat, seq, when) of every board the spectator gets
    while not any(seq == 1 for _, seq, _ in seen):
        watch = await sam.next_event(Watch, delayed, timeout=5)
        seen.append((watch.seat, watch.seq, asyncio.get_running_loop().time() - moved_at))
    assert {(seat, seq) for seat, seq, _ in seen} == {(0, 0), (1, 0), (0, 1)}  # the opening boards, then the move
    assert all(when >= 0.9 for _, seq, when in seen if seq == 1)  # a second late


async def test_a_player_disconnects_and_resumes_with_nothing_lost_or_doubled(server: ServerProcess) -> None:
    ann, _bob, race, start_a, _ = await race_of_two(server.url, "gate")
    view, seq = await play(ann, race, start_a.view, 0, 6, seed=3)
    token = ann.token
    await ann.close()
    again = await Client.connect(server.url, "ann", token=token)
    assert again.player == ann.player and race in again.races
    snapshot = await again.snapshot(race)
    assert snapshot.seat == 0 and snapshot.seq == seq and snapshot.view == view
    duplicate = await again.move(race, seq, view["moves"][0])
    repeat = await again.move(race, seq, view["moves"][0])
    assert repeat.duplicate and repeat.seq == duplicate.seq == seq + 1 and repeat.view == duplicate.view


async def test_server_killed_mid_race_restarts_and_the_race_completes(server: ServerProcess) -> None:
    ann, bob, race, start_a, start_b = await race_of_two(server.url, "german-patience")
    view_a, seq_a = await play(ann, race, start_a.view, 0, 12, seed=4)
    _view_b, seq_b = await play(bob, race, start_b.view, 0, 7, seed=5)
    before = time.time()
    conceded = await bob.concede(race)  # bob's game ends: its time must survive the kill too
    after = time.time()
    started_at = (await ann.snapshot(race)).race["started_at"]
    server.kill()  # SIGKILL: no clean-up at all
    server.start()
    for client in (ann, bob):
        resumed = await client.next_event(Resumed, timeout=30)
        assert race in resumed.races
    snap_a, snap_b = await ann.snapshot(race), await bob.snapshot(race)
    assert (snap_a.seq, snap_b.seq) == (seq_a, conceded.seq)  # every acknowledged move kept
    assert snap_a.view == view_a and snap_b.view == conceded.view
    view_a, seq_a = await play(ann, race, view_a, seq_a, 5, seed=6)
    await ann.concede(race)
    end = await bob.next_event(End, race, timeout=15)
    moves = {r["seat"]: r["moves"] for r in end.results}
    assert moves == {0: seq_a, 1: seq_b}
    bob_time = next(r["time"] for r in end.results if r["seat"] == 1)
    assert before - started_at - 0.001 <= bob_time <= after - started_at + 0.001


async def test_golf_ranks_lower_scores_first(server: ServerProcess) -> None:
    ann, bob, race, start_a, _start_b = await race_of_two(server.url, "golf")
    view, seq = start_a.view, 0
    while not any(m[0] == "play" for m in view["moves"]):  # turn until a pile card can go
        ack = await ann.move(race, seq, ["turn"])
        view, seq = ack.view, ack.seq
    ack = await ann.move(race, seq, next(m for m in view["moves"] if m[0] == "play"))
    assert ack.view["score"] == 34  # ann: one card fewer left
    await ann.concede(race)
    await bob.concede(race)  # bob: 35 cards left
    end = await ann.next_event(End, race)
    assert [r["seat"] for r in end.results] == [0, 1]
    assert [r["score"] for r in end.results] == [34, 35]
    assert get_game("golf").higher_is_better is False


async def test_higher_is_better_game_ranks_higher_scores_first(server: ServerProcess) -> None:
    ann, bob, race, _start_a, start_b = await race_of_two(server.url, "carpet")
    await ann.concede(race)  # ann concedes first: the 4 aces on the foundations
    chooser = random.Random(8)
    view, seq = start_b.view, 0
    while view["moves"] and view["score"] <= 4:  # bob plays on until one more card is home
        home = [m for m in view["moves"] if m[-1] == "f"] or [chooser.choice(view["moves"])]
        ack = await bob.move(race, seq, home[0])
        view, seq = ack.view, ack.seq
    assert view["score"] > 4  # a whole deck dealt without one card going home cannot happen here
    await bob.concede(race)
    end = await ann.next_event(End, race)
    assert [r["seat"] for r in end.results] == [1, 0]  # higher score first, although ann finished first
    assert end.results[0]["score"] > end.results[1]["score"]


async def test_a_racer_away_past_the_grace_period_concedes(server_factory: Any) -> None:
    server = server_factory("--grace", "1")
    server.start()
    ann, bob, race, _start_a, _ = await race_of_two(server.url)
    await ann.close()
    progress = await bob.next_event(Progress, race, timeout=10)
    assert progress.seat == 0 and progress.ended == "conceded"


async def test_a_racer_without_a_connection_at_the_start_gets_a_grace_period_from_the_start(
    server_factory: Any,
) -> None:
    server = server_factory("--grace", "1", "--countdown", "1")
    server.start()
    ann = await Client.connect(server.url, "ann", reconnect=False)
    bob = await Client.connect(server.url, "bob")
    race = (await ann.create("golf", seats=2)).race["id"]
    await bob.join(race)
    await bob.ready(race)
    await ann.ready(race)
    await ann.close()  # during the countdown: the race starts without her
    await bob.next_event(Start, race, timeout=10)
    progress = await bob.next_event(Progress, race, timeout=10)
    assert progress.seat == 0 and progress.ended == "conceded"
    await bob.close()


async def test_the_time_limit_ends_the_race(server: ServerProcess) -> None:
    ann, bob, race, start_a, _ = await race_of_two(server.url, time_limit=10)
    await ann.move(race, 0, start_a.view["moves"][0])
    end = await bob.next_event(End, race, timeout=20)
    assert {r["ended"] for r in end.results} == {"out_of_time"}


async def test_verify_accepts_an_honest_replay_and_rejects_tampered_ones(server: ServerProcess, tmp_path: Path) -> None:
    ann, bob, race, start_a, start_b = await race_of_two(server.url, "the-chance", options={"sequence": "any"})
    await play(ann, race, start_a.view, 0, 15, seed=9)
    await play(bob, race, start_b.view, 0, 10, seed=10)
    await ann.concede(race)
    await bob.concede(race)
    await ann.next_event(End, race)
    replay = (await ann.replay(race)).replay

    def verify(data: dict[str, Any], name: str) -> subprocess.CompletedProcess[str]:
        path = tmp_path / name
        path.write_text(json.dumps(data))
        command = [sys.executable, "-m", "parlour.client.cli", "verify", str(path)]
        return subprocess.run(command, capture_output=True, text=True, timeout=60)

    honest = verify(replay, "honest.json")
    assert honest.returncode == 0 and "OK" in honest.stdout, honest.stdout + honest.stderr

    seed = json.loads(json.dumps(replay))
    seed["seed"] = f"{int(seed['seed'], 16) ^ 1:x}"
    assert "commitment" in verify(seed, "seed.json").stdout

    score = json.loads(json.dumps(replay))
    score["results"][0]["score"] += 1
    bad_score = verify(score, "score.json")
    assert bad_score.returncode == 1 and "score" in bad_score.stdout

    log = json.loads(json.dumps(replay))
    log["seats"][0]["log"].insert(0, ["move", "c1", "c1", 1])
    bad_log = verify(log, "log.json")
    assert bad_log.returncode == 1 and "refused" in bad_log.stdout

    assert replay["settings"]["undo"] is False
    undo = json.loads(json.dumps(replay))
    undo["seats"][0]["log"][1:1] = [["undo"], undo["seats"][0]["log"][0]]  # take back and replay move 1
    bad_undo = verify(undo, "undo.json")
    assert bad_undo.returncode == 1 and "did not allow undo" in bad_undo.stdout
    undo["settings"]["undo"] = True  # the same log is honest where undo is allowed
    assert verify(undo, "undo-allowed.json").returncode == 0


async def test_private_races_need_their_code(server: ServerProcess) -> None:
    ann = await Client.connect(server.url, "ann")
    bob = await Client.connect(server.url, "bob")
    created = (await ann.create("gaps", public=False)).race
    assert all(r["id"] != created["id"] for r in (await bob.lobby()).races)
    with pytest.raises(ClientError) as info:
        await bob.join(created["id"])
    assert info.value.code == "unknown_race"
    joined = await bob.join(code=created["code"])
    assert joined.race["id"] == created["id"]


async def test_a_racer_watching_before_the_start_stops_watching_at_the_start(server: ServerProcess) -> None:
    ann = await Client.connect(server.url, "ann")
    bob = await Client.connect(server.url, "bob")
    sam = await Client.connect(server.url, "sam")
    race = (await ann.create("golf", live_boards=True)).race["id"]
    await bob.join(race)
    await ann.spectate(race)  # allowed: the race has not started
    await sam.spectate(race)
    await ann.ready(race)
    await bob.ready(race)
    start_b = await bob.next_event(Start, race)
    opening = [await sam.next_event(Watch, race) for _ in range(2)]
    assert sorted(w.seat for w in opening) == [0, 1] and all(w.seq == 0 for w in opening)
    await bob.move(race, 0, start_b.view["moves"][0])
    assert (await sam.next_event(Watch, race)).seat == 1
    with pytest.raises(TimeoutError):
        await ann.next_event(Watch, race, timeout=1)  # ann never sees bob's board


async def test_a_players_second_connection_follows_their_own_moves(server: ServerProcess) -> None:
    ann, bob, race, start_a, _start_b = await race_of_two(server.url, "golf")
    again = await Client.connect(server.url, "ann", token=ann.token)  # ann on a second device
    assert again.player == ann.player
    await play(ann, race, start_a.view, 0, 2, seed=3)
    seen = [await again.next_event(Progress, race) for _ in range(2)]
    assert [(p.seat, p.moves) for p in seen] == [(0, 1), (0, 2)]
    with pytest.raises(TimeoutError):  # the connection that moved got acks, not progress
        await ann.next_event(Progress, race, timeout=0.5)
    assert (await again.snapshot(race)).seq == 2
    for client in (ann, bob, again):
        await client.close()


async def test_undo_takes_back_a_move_where_the_race_allows_it(server: ServerProcess) -> None:
    ann, bob, race, start_a, _ = await race_of_two(server.url, "golf", undo=True)
    moved = await ann.move(race, 0, start_a.view["moves"][0])
    undone = await ann.undo(race, 1)
    assert (undone.seq, undone.view) == (2, start_a.view)  # an entry of its own; the board as it was
    progress = [await bob.next_event(Progress, race) for _ in range(2)]
    assert [p.moves for p in progress] == [1, 0]  # standing moves
    with pytest.raises(ClientError) as nothing:
        await ann.undo(race, 2)
    assert nothing.value.code == "illegal_move"
    again = await ann.move(race, 2, start_a.view["moves"][0])
    assert again.view == moved.view
    await ann.concede(race)
    await bob.concede(race)
    end = await ann.next_event(End, race)
    assert next(r["moves"] for r in end.results if r["seat"] == 0) == 1
    replay = (await ann.replay(race)).replay
    assert replay["seats"][0]["log"][:3] == [start_a.view["moves"][0], ["undo"], start_a.view["moves"][0]]


async def test_a_finished_races_replay_is_built_once_and_kept_even_once_its_logs_are_gone(server_factory: Any) -> None:
    def built() -> float:
        with urllib.request.urlopen(f"{server.http}/metrics", timeout=5) as response:
            lines = response.read().decode().splitlines()
        return float(next(line.split()[1] for line in lines if line.startswith("parlour_replays_built_total ")))

    server = server_factory("--keep-finished", "0.5")
    server.start()
    ann, bob, race, start_a, start_b = await race_of_two(server.url)
    await play(ann, race, start_a.view, 0, 6, seed=3)
    await play(bob, race, start_b.view, 0, 4, seed=4)
    await ann.concede(race)
    await bob.concede(race)
    await ann.next_event(End, race)
    first = (await ann.replay(race)).replay
    assert built() == 1
    for _ in range(3):
        assert (await bob.replay(race)).replay == first
    assert built() == 1  # kept, not built again
    await asyncio.sleep(1)  # the race leaves memory
    redis = aioredis.Redis.from_url(REDIS_URL or EmbeddedRedis(server.data_dir).url)
    logs = [key async for key in redis.scan_iter(match=f"parlour:race:{{{race}}}:log:*")]
    assert len(logs) == 2
    await redis.delete(*logs, f"parlour:race:{{{race}}}:finished")  # nothing left to rebuild it from
    await redis.aclose()
    assert (await ann.replay(race)).replay == first
    assert built() == 1
    await ann.close()
    await bob.close()
    server.stop()
    server.start()
    cy = await Client.connect(server.url, "cy")
    assert (await cy.replay(race)).replay == first  # after a restart too
    assert built() == 0  # this process built none
    await cy.close()


async def test_a_concede_sent_from_two_connections_at_once_is_applied_once_and_the_other_gets_game_over(
    server: ServerProcess,
) -> None:
    """A concede is never a duplicate (section 3.3): its seq is the log's length when it is applied."""
    ann, bob, race, _start_a, _start_b = await race_of_two(server.url, "golf")
    again = await Client.connect(server.url, "ann", token=ann.token)  # ann on a second device
    replies = await asyncio.gather(ann.concede(race), again.concede(race), return_exceptions=True)
    acks = [r for r in replies if not isinstance(r, BaseException)]
    errors = [r for r in replies if isinstance(r, BaseException)]
    assert len(acks) == 1 and not acks[0].duplicate and acks[0].seq == 1, replies
    assert len(errors) == 1 and isinstance(errors[0], ClientError) and errors[0].code == "game_over", replies
    for client in (ann, bob, again):
        await client.close()


async def test_a_spectator_delay_still_holds_after_a_server_restart(server: ServerProcess) -> None:
    """A restart knows only each seat's current board: it is shown `spectator_delay` seconds after
    the restart, not at once (which would show a spectator the boards as they stand now)."""
    ann, _bob, race, start_a, _ = await race_of_two(server.url, spectator_delay=30, live_boards=True)
    await ann.move(race, 0, start_a.view["moves"][0])
    sam = await Client.connect(server.url, "sam")
    assert (await sam.spectate(race)).boards == []  # nothing is 30 s old yet
    server.kill()
    server.start()
    dan = await Client.connect(server.url, "dan")
    assert (await dan.spectate(race)).boards == []  # still nothing 30 s old
    for client in (ann, sam, dan):
        await client.close()
