"""Tournaments on real servers with real bot processes (issue 12): the director runs every race of
the schedule, records the results once, and publishes standings; watchers follow it live."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio

from parlour.client.connection import Client, ClientError
from parlour.protocol.messages import Invitation, TournamentUpdate
from parlour.protocol.replay import verify_replay
from parlour.protocol.tournament import Spec, deal_seed, schedule
from tests.bots.helpers import BotRun, bot_online, finished, person
from tests.conftest import ServerProcess

pytestmark = pytest.mark.asyncio


@pytest_asyncio.fixture(autouse=True)
async def _no_process_left_behind() -> AsyncIterator[None]:
    yield
    await BotRun.cleanup()


async def test_a_duplicate_tournament_of_bots_plays_every_slot_and_ranks_them(
    server: ServerProcess, tmp_path: Path
) -> None:
    runners = [await BotRun.start(server.url, bot, home=tmp_path / bot) for bot in ("random", "greedy")]
    ann = await person(server.url)
    for bot in ("random", "greedy"):
        await bot_online(ann, bot)
    created = (await ann.tournament_create([("golf", None)], deals=3, bots=["random", "greedy"], seed=7)).tournament
    assert created["status"] == "running" and created["races"] == 3
    assert "seed" not in created
    summary = await finished(ann, created["id"], timeout=20)
    assert summary["done"] == 3
    assert int(summary["seed"], 16) == 7
    rows = summary["standings"]
    assert sorted(row["name"] for row in rows) == ["greedy", "random"]
    assert all(row["deals"] == 3 for row in rows)
    assert sum(row["matchpoints"] for row in rows) == 3  # one point per deal between two entrants
    export = (await ann.tournament_export(created["id"])).export
    spec = Spec.from_map(export["spec"])
    assert [race["race"] for race in export["races"]] == [f"{created['id']}-{s.index}" for s in schedule(spec)]
    for race in export["races"]:
        assert sorted(r["name"] for r in race["replay"]["results"]) == ["greedy", "random"]
    await ann.close()
    for runner in runners:
        runner.kill()


async def test_a_tournament_that_cannot_be_held_is_refused_saying_why(server: ServerProcess, tmp_path: Path) -> None:
    ann = await person(server.url)
    cases = [
        ({"bots": ["nobody"]}, "no_such_bot"),
        ({"bots": [], "people": 0}, "bad_tournament"),
        ({"bots": ["x"], "seed": 5, "rated": True}, "bad_tournament"),
        ({"format": "knockout", "people": 2}, "bad_tournament"),
    ]
    for fields, code in cases:
        with pytest.raises(ClientError) as info:
            await ann.tournament_create([("golf", None)], **fields)
        assert info.value.code == code, fields
    with pytest.raises(ClientError) as info:
        await ann.tournament_watch("t0000000000")
    assert info.value.code == "unknown_tournament"
    await ann.close()


async def test_head_to_head_pairs_every_two_bots_on_the_same_deals_and_counts_match_wins(
    server: ServerProcess, tmp_path: Path
) -> None:
    names = ["random", "greedy", "search"]
    runners = [await BotRun.start(server.url, bot, home=tmp_path / bot) for bot in names]
    ann = await person(server.url)
    for bot in names:
        await bot_online(ann, bot)
    created = (
        await ann.tournament_create([("golf", None)], format="head-to-head", deals=2, bots=names, seed=11, timed=False)
    ).tournament
    assert created["races"] == 6  # three pairs, two deals each
    summary = await finished(ann, created["id"])
    rows = summary["standings"]
    assert sum(row["match_wins"] for row in rows) == 3
    assert all(row["deals"] == 4 for row in rows)  # two deals against each of the other two
    export = (await ann.tournament_export(created["id"])).export
    seeds: dict[int, set[str]] = {}
    for race in export["races"]:
        replay = race["replay"]
        assert len(replay["results"]) == 2
        slot = schedule(Spec.from_map(export["spec"]))[race["slot"]]
        seeds.setdefault(slot.deal, set()).add(replay["seed"])
    assert all(len(found) == 1 for found in seeds.values())  # every pair played deal d from one seed
    assert len({next(iter(found)) for found in seeds.values()}) == 2
    await ann.close()
    for runner in runners:
        runner.kill()


async def test_a_mixed_tournament_sums_each_games_percentage(server: ServerProcess, tmp_path: Path) -> None:
    runners = [await BotRun.start(server.url, bot, home=tmp_path / bot) for bot in ("random", "greedy")]
    ann = await person(server.url)
    for bot in ("random", "greedy"):
        await bot_online(ann, bot)
    games = [("golf", None), ("the-chance", {"sequence": "suit"})]
    created = (
        await ann.tournament_create(games, format="mixed", deals=2, bots=["random", "greedy"], seed=3, timed=False)
    ).tournament
    assert [e["game"] for e in created["events"]] == ["golf", "the-chance"]
    lobby = (await ann.lobby()).tournaments
    assert lobby is not None and created["id"] in [t["id"] for t in lobby]
    summary = await finished(ann, created["id"])
    for row in summary["standings"]:
        assert len(row["by_game"]) == 2
        assert row["percentage"] == pytest.approx(sum(row["by_game"]), abs=1e-3)
    assert sum(row["percentage"] for row in summary["standings"]) == pytest.approx(200)
    assert created["id"] not in [t["id"] for t in (await ann.lobby()).tournaments or []]
    await ann.close()
    for runner in runners:
        runner.kill()


async def test_an_entrant_who_does_not_take_the_seat_forfeits_and_the_deal_is_played_without_them(
    server: ServerProcess, tmp_path: Path
) -> None:
    runner = await BotRun.start(server.url, "greedy", home=tmp_path)
    ann, bob = await person(server.url, "ann"), await person(server.url, "bob")
    await bot_online(ann, "greedy")
    created = (
        await ann.tournament_create([("golf", None)], deals=1, bots=["greedy"], people=1, forfeit_after=5, seed=5)
    ).tournament
    assert created["status"] == "open"
    joined = (await bob.tournament_join(created["id"])).tournament
    assert joined["status"] == "running"
    with pytest.raises(ClientError) as info:
        await ann.tournament_join(created["id"])
    assert info.value.code == "tournament_started"
    invitation = await bob.next_event(Invitation, timeout=10)
    assert invitation.tournament == created["id"] and invitation.race["game"] == "golf"
    assert invitation.max_moves == invitation.race["max_moves"] == 3000  # the cap by default: the arena's
    # bob lets the seat go; greedy plays the deal alone, and its End does not reveal the deal
    summary = await finished(ann, created["id"], timeout=60)
    rows = {row["name"]: row for row in summary["standings"]}
    assert rows["greedy"]["percentage"] == 100 and rows["bob"]["percentage"] == 0
    assert rows["greedy"]["place"] == 1 and rows["bob"]["place"] == 2
    export = (await ann.tournament_export(created["id"])).export
    (results,) = export["results"].values()
    assert sorted((r["entrant"], r["forfeit"]) for r in results) == [(0, False), (1, True)]
    assert [r["name"] for r in export["races"][0]["replay"]["results"]] == ["greedy"]
    await ann.close()
    await bob.close()
    runner.kill()


async def test_a_tournaments_race_reveals_its_deal_only_when_the_tournament_ends(
    server: ServerProcess, tmp_path: Path
) -> None:
    runners = [await BotRun.start(server.url, bot, home=tmp_path / bot) for bot in ("random", "greedy")]
    ann = await person(server.url)
    for bot in ("random", "greedy"):
        await bot_online(ann, bot)
    created = (await ann.tournament_create([("gaps", None)], deals=2, bots=["random", "greedy"], seed=9)).tournament
    watched = (await ann.tournament_watch(created["id"])).tournament
    first = f"{created['id']}-0"
    while watched.get("done", 0) < 1:
        watched = (await ann.next_event(TournamentUpdate, timeout=60)).tournament
    if watched["status"] != "finished":
        with pytest.raises(ClientError) as info:
            await ann.replay(first)
        assert info.value.code == "not_finished"
    await finished(ann, created["id"])
    replay = (await ann.replay(first)).replay
    assert verify_replay(replay) == []
    assert int(replay["seed"], 16) == deal_seed(9, 0, "gaps", 0)
    await ann.close()
    for runner in runners:
        runner.kill()


async def test_the_bots_are_told_the_tournaments_move_cap_and_concede_at_it(
    server: ServerProcess, tmp_path: Path
) -> None:
    """The runners' own cap is 3000 moves; the tournament's, 5, comes with each invitation, and a game of Golf
    (some 30 moves or more) still going after 5 moves is conceded there."""
    runners = [await BotRun.start(server.url, bot, home=tmp_path / bot) for bot in ("random", "greedy")]
    ann = await person(server.url)
    for bot in ("random", "greedy"):
        await bot_online(ann, bot)
    created = (
        await ann.tournament_create([("golf", None)], deals=2, bots=["random", "greedy"], seed=4, max_moves=5)
    ).tournament
    assert created["max_moves"] == 5
    summary = await finished(ann, created["id"])
    export = (await ann.tournament_export(created["id"])).export
    assert export["spec"]["max_moves"] == 5
    for race in export["races"]:
        replay = race["replay"]
        assert verify_replay(replay) == []
        assert [(r["ended"], r["moves"]) for r in replay["results"]] == [("conceded", 5)] * 2
        assert all(len(seat["log"]) == 6 and seat["log"][-1] == ["concede"] for seat in replay["seats"])
    assert summary["done"] == 2
    await ann.close()
    for runner in runners:
        runner.kill()


async def test_a_bot_entering_by_tournament_join_is_a_bot_and_watchers_hear_of_the_start(
    server: ServerProcess, tmp_path: Path
) -> None:
    """tournament_join records whether the entrant is a bot, as its hello said, and takes one of the seats for
    people all the same; tournament_start tells the watchers."""
    ann = await person(server.url, "ann")
    cy = await person(server.url, "cy")
    bot = await Client.connect(server.url, "walk-in", bot=True, games=["golf"])
    created = (await ann.tournament_create([("golf", None)], deals=1, people=3, seed=2)).tournament
    await cy.tournament_watch(created["id"])
    joined = (await bot.tournament_join(created["id"])).tournament
    assert [(e["name"], e["bot"]) for e in joined["entrants"]] == [("walk-in", True)]
    assert (await cy.next_event(TournamentUpdate, timeout=10)).tournament["entrants"] == joined["entrants"]
    joined = (await ann.tournament_join(created["id"])).tournament
    assert [(e["name"], e["bot"]) for e in joined["entrants"]] == [("walk-in", True), ("ann", False)]
    assert joined["status"] == "open"  # two of the three seats for people are taken
    await cy.next_event(TournamentUpdate, timeout=10)
    started = (await ann.tournament_start(created["id"])).tournament
    assert started["status"] == "running"
    update = (await cy.next_event(TournamentUpdate, timeout=10)).tournament
    assert update["status"] == "running" and update["playing"] == [f"{created['id']}-0"]
    for client in (ann, cy, bot):
        await client.close()
