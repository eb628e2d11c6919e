"""Racing a bot on real servers (issue 11): bots online in the lobby, invitations by name or to any bot,
the bot taking its seat (in a private race too), invitations that lapse or are declined, and all of it
across nodes: a bot on one node invited to a race created on another, a killed node's bots gone.

Bots here are client library connections that say ``bot: true`` with the games they offer, as a bot in
any language would; they play random legal moves.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from typing import Any

import pytest
import pytest_asyncio

from parlour.client.connection import Client, ClientError, Resumed
from parlour.protocol.messages import End, Invitation, RaceUpdate
from tests.conftest import ServerProcess
from tests.server.multinode import Player, Seat, start_nodes

pytestmark = pytest.mark.asyncio

Connect = Callable[..., Awaitable[Player]]


@pytest.fixture(params=["one-redis", "redis-cluster"])
def store(request: pytest.FixtureRequest) -> tuple[str, tuple[str, ...]]:
    """Where the nodes keep their data: its URL, and the flags that say what it is."""
    if request.param == "redis-cluster":
        return request.getfixturevalue("valkey_cluster").url, ("--redis-cluster",)
    return request.getfixturevalue("shared_redis"), ()


@pytest_asyncio.fixture
async def connect() -> AsyncIterator[Connect]:
    """``await connect(node, name, games=None, max_races=None)``: a new player (a bot offering ``games`` if
    given) connected to ``node``, its events recorded; every one is closed after the test."""
    players: list[Player] = []

    async def connect_to(
        node: ServerProcess, name: str, games: Sequence[str] | None = None, max_races: int | None = None
    ) -> Player:
        bot = games is not None
        player = Player(await Client.connect(node.url, name, bot=bot, games=games, max_races=max_races))
        players.append(player)
        return player

    yield connect_to
    for player in players:
        await player.close()


async def refused(call: Awaitable[Any]) -> str:
    """The error code a request is refused with."""
    with pytest.raises(ClientError) as info:
        await call
    return str(info.value.code)


async def bots_online(player: Player) -> dict[str, dict[str, Any]]:
    """The bots the lobby lists, by name."""
    listed = (await player.client.lobby()).bots
    assert listed is not None, "the lobby's first page lists the bots"
    return {bot["name"]: bot for bot in listed}


async def until_bots(player: Player, check: Callable[[dict[str, dict[str, Any]]], bool], timeout: float = 15) -> None:
    """Ask the lobby again until ``check`` holds for its bots (a change on another node, or a closed
    connection, reaches the lobby a moment later)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not check(bots := await bots_online(player)):
        assert loop.time() < deadline, f"the lobby's bots stay {bots}"
        await asyncio.sleep(0.1)


def invited(summary: dict[str, Any]) -> list[str]:
    """The names of the bots a race summary shows invited."""
    return [invitation["name"] for invitation in summary.get("invited", [])]


async def race_to_the_end(person: Player, bot: Player, race: str) -> End:
    """The bot has joined: both say ready and play random legal moves until the race ends; the end both got."""
    await bot.client.ready(race)
    await person.client.ready(race)
    seats = [await Seat.started(person, race), await Seat.started(bot, race)]
    await asyncio.gather(seats[0].play(random.Random(1)), seats[1].play(random.Random(2)))
    ends = [await player.first(End, race) for player in (person, bot)]
    assert ends[0] == ends[1]
    by_seat = sorted(ends[0].results, key=lambda result: result["seat"])
    assert [(r["name"], r["moves"]) for r in by_seat] == [
        (p.client.name, len(s.log)) for p, s in zip((person, bot), seats, strict=True)
    ]
    return ends[0]


async def test_a_bot_is_listed_in_the_lobby_while_it_is_connected(server: ServerProcess, connect: Connect) -> None:
    ann = await connect(server, "ann")
    await connect(server, "plain-bot", games=None)  # a program, but offering no games: not listed
    greedy = await connect(server, "greedy", games=["golf", "gaps", "golf"], max_races=3)
    assert greedy.client.games == ["golf", "gaps", "golf"]
    listed = await bots_online(ann)
    assert listed == {
        "greedy": {
            "player": greedy.client.player,
            "name": "greedy",
            "games": ["gaps", "golf"],
            "max_races": 3,
            "busy": 0,
        }
    }
    for _ in range(2):
        await ann.client.create("golf", seats=3)
    page = await ann.client.lobby(limit=1)
    assert page.bots == [listed["greedy"]] and page.next is not None
    assert (await ann.client.lobby(after=page.next)).bots is None  # only the first page lists them
    assert (await bots_online(greedy)) == listed  # a bot sees itself, like anyone
    await greedy.close()
    await until_bots(ann, lambda bots: bots == {})


async def test_a_hello_offering_games_is_checked(server: ServerProcess) -> None:
    assert await refused(Client.connect(server.url, "x", games=["golf"])) == "bad_message"  # not a bot
    assert await refused(Client.connect(server.url, "x", bot=True, games=["golf", "poker"])) == "unknown_game"
    assert await refused(Client.connect(server.url, "x", bot=True, games=[])) == "bad_message"
    assert await refused(Client.connect(server.url, "x", bot=True, games=["golf"], max_races=65)) == "bad_message"


async def test_a_bot_invited_by_name_takes_the_seat_and_the_race_ends_with_both_results(
    server: ServerProcess, connect: Connect
) -> None:
    ann, greedy = await connect(server, "ann"), await connect(server, "greedy", games=["golf"])
    race = (await ann.client.create("golf", seats=2)).race["id"]
    reply = (await ann.client.invite(race, "greedy")).race
    assert invited(reply) == ["greedy"] and reply["invited"][0]["player"] == greedy.client.player
    update = await ann.first(RaceUpdate, race)  # the inviter sees the invitation before the reply
    assert invited(update.race) == ["greedy"]
    invitation = await greedy.first(Invitation)
    assert invitation.race["id"] == race and invitation.by == "ann"
    assert invitation.expires_at == reply["invited"][0]["expires_at"]
    assert "code" not in invitation.race  # the bot is not seated yet
    assert (await bots_online(ann))["greedy"]["busy"] == 1  # the pending invitation counts
    joined = (await greedy.client.join(race)).race
    assert [(p["name"], p["bot"]) for p in joined["players"]] == [("ann", False), ("greedy", True)]
    assert "invited" not in joined  # taken
    assert (await bots_online(ann))["greedy"]["busy"] == 1  # now its seat counts, once
    assert (await ann.client.invite(race, "greedy")).race == joined  # seated already: nothing changes
    end = await race_to_the_end(ann, greedy, race)
    assert sorted(result["name"] for result in end.results) == ["ann", "greedy"]
    await until_bots(ann, lambda bots: bots["greedy"]["busy"] == 0)


async def test_any_bot_means_one_that_plays_the_game_with_a_race_free(server: ServerProcess, connect: Connect) -> None:
    ann, bob, cy = await connect(server, "ann"), await connect(server, "bob"), await connect(server, "cy")
    gapper = await connect(server, "gapper", games=["gaps"])
    one = await connect(server, "one", games=["golf", "gaps"], max_races=1)
    two = await connect(server, "two", games=["golf"], max_races=1)
    busy = (await bob.client.create("golf")).race["id"]
    await one.client.join(busy)  # one races all it can now
    race = (await ann.client.create("golf")).race["id"]
    assert invited((await ann.client.invite(race, "*")).race) == ["two"]
    await two.first(Invitation)
    other = (await cy.client.create("golf")).race["id"]
    assert await refused(cy.client.invite(other, "*")) == "bot_busy"  # two's invitation counts
    assert await refused(cy.client.invite(other, "two")) == "bot_busy"
    gaps = (await cy.client.create("gaps", seats=3)).race["id"]
    first = invited((await cy.client.invite(gaps, "*")).race)
    assert first == ["gapper"]  # one is busy
    assert await refused(cy.client.invite(gaps, "*")) == "bot_busy"  # no other gaps bot is free
    await gapper.first(Invitation)
    assert one.every(Invitation) == []


async def test_invitations_are_refused_where_they_cannot_be_taken(server: ServerProcess, connect: Connect) -> None:
    ann, bob, cy = await connect(server, "ann"), await connect(server, "bob"), await connect(server, "cy")
    await connect(server, "gapper", games=["gaps"])
    await connect(server, "greedy", games=["golf"])
    await connect(server, "search", games=["golf"])
    race = (await ann.client.create("golf", seats=2)).race["id"]
    assert await refused(ann.client.invite("0000000000", "greedy")) == "unknown_race"
    assert await refused(ann.client.invite(race, "nobody")) == "no_such_bot"
    assert await refused(ann.client.invite(race, "gapper")) == "no_such_bot"  # it does not play golf
    assert await refused(ann.client.invite(race, "ann")) == "no_such_bot"  # a person is no bot
    assert await refused(bob.client.invite(race, "greedy")) == "not_seated"
    await ann.client.invite(race, "greedy")
    assert await refused(ann.client.invite(race, "search")) == "race_full"  # the last seat is kept for greedy
    assert await refused(bob.client.join(race)) == "race_full"
    public = (await bob.client.create("golf", seats=2)).race["id"]
    await cy.client.join(public)
    assert await refused(bob.client.invite(public, "search")) == "race_full"
    await bob.client.ready(public)
    await cy.client.ready(public)
    await bob.first(RaceUpdate, public, lambda update: update.race["status"] == "running")
    assert await refused(bob.client.invite(public, "search")) == "race_started"


async def test_a_bot_joins_a_private_race_while_invited_and_may_decline(
    server: ServerProcess, connect: Connect
) -> None:
    ann, greedy = await connect(server, "ann"), await connect(server, "greedy", games=["golf"])
    race = (await ann.client.create("golf", seats=2, public=False)).race["id"]
    assert await refused(greedy.client.join(race)) == "unknown_race"  # private: by its code only
    await ann.client.invite(race, "greedy")
    await greedy.first(Invitation)
    await greedy.client.leave(race)  # declined
    update = await ann.first(RaceUpdate, race, lambda update: not invited(update.race))
    assert [p["name"] for p in update.race["players"]] == ["ann"]
    assert await refused(greedy.client.join(race)) == "unknown_race"
    assert await refused(greedy.client.leave(race)) == "not_seated"
    await ann.client.invite(race, "greedy")  # again: a new invitation, told again
    await greedy.first(Invitation, where=lambda _: len(greedy.every(Invitation)) == 2)
    assert len((await greedy.client.join(race)).race["players"]) == 2
    await race_to_the_end(ann, greedy, race)


async def test_an_invitation_not_taken_in_time_lapses_and_the_inviter_sees_it(
    server_factory: Any, connect: Connect
) -> None:
    server = server_factory("--invite-timeout", "1")
    server.start()
    ann, greedy = await connect(server, "ann"), await connect(server, "greedy", games=["golf"])
    race = (await ann.client.create("golf", seats=2, public=False)).race["id"]
    await ann.client.invite(race, "greedy")
    await greedy.first(Invitation)
    lapsed = await ann.first(RaceUpdate, race, lambda update: not invited(update.race), timeout=10)
    assert lapsed.race["status"] == "open" and len(lapsed.race["players"]) == 1
    assert await refused(greedy.client.join(race)) == "unknown_race"
    assert (await bots_online(ann))["greedy"]["busy"] == 0
    await ann.client.invite(race, "greedy")  # inviting again is the inviter's to do
    await greedy.first(Invitation, where=lambda _: len(greedy.every(Invitation)) == 2)
    await greedy.client.join(race)
    await race_to_the_end(ann, greedy, race)


async def test_a_bot_that_resumes_after_its_server_restarts_is_online_again(
    server: ServerProcess, connect: Connect
) -> None:
    """The client library says the bot's offer again in the hello of its resume; the entry of the server's
    earlier run is not listed (that run is dead)."""
    greedy = await connect(server, "greedy", games=["golf"], max_races=2)
    server.kill()  # SIGKILL, then the same server again on the same data
    server.start()
    assert (await greedy.first(Resumed, timeout=20)).races == []
    ann = await connect(server, "ann")
    (listed,) = (await ann.client.lobby()).bots or []
    assert listed == {"player": greedy.client.player, "name": "greedy", "games": ["golf"], "max_races": 2, "busy": 0}
    race = (await ann.client.create("golf")).race["id"]
    await ann.client.invite(race, greedy.client.player)  # by its player id
    assert (await greedy.first(Invitation)).race["id"] == race


async def test_a_bot_back_after_its_server_restarts_is_told_its_pending_invitations_again(
    server: ServerProcess, connect: Connect
) -> None:
    """An invitation told to a connection that is gone is not lost: the hello of the bot's resume offers
    the game again, and the server sends the invitation again after the welcome, by the same inviter."""
    ann, greedy = await connect(server, "ann"), await connect(server, "greedy", games=["golf"])
    race = (await ann.client.create("golf", seats=2, public=False)).race["id"]
    await ann.client.invite(race, "greedy")
    first = await greedy.first(Invitation)
    server.kill()  # SIGKILL, then the same server again on the same data
    server.start()
    await greedy.first(Resumed, timeout=20)
    again = await greedy.first(Invitation, where=lambda _: len(greedy.every(Invitation)) == 2, timeout=10)
    assert (again.race["id"], again.by, again.expires_at) == (race, "ann", first.expires_at)
    await ann.first(Resumed, timeout=20)
    assert len((await greedy.client.join(race)).race["players"]) == 2
    await race_to_the_end(ann, greedy, race)


async def test_a_bot_on_one_node_takes_an_invitation_to_a_race_created_on_another(
    store: tuple[str, tuple[str, ...]], server_factory: Any, connect: Connect
) -> None:
    url, flags = store
    node_a, node_b = start_nodes(server_factory, url, *flags, count=2)
    greedy = await connect(node_b, "greedy", games=["golf"])
    ann = await connect(node_a, "ann")
    await until_bots(ann, lambda bots: "greedy" in bots)
    race = (await ann.client.create("golf", seats=2, public=False)).race["id"]
    await ann.client.invite(race, "greedy")
    invitation = await greedy.first(Invitation)
    assert invitation.race["id"] == race and invitation.by == "ann"
    await greedy.client.join(race)  # a private race, on node B
    await ann.first(RaceUpdate, race, lambda update: len(update.race["players"]) == 2)
    await race_to_the_end(ann, greedy, race)


async def test_a_killed_nodes_bots_drop_out_of_every_lobby(
    shared_redis: str, server_factory: Any, connect: Connect
) -> None:
    node_a, node_b = start_nodes(server_factory, shared_redis, count=2)
    await connect(node_b, "greedy", games=["golf"])
    await connect(node_a, "search", games=["golf"])
    ann = await connect(node_a, "ann")
    await until_bots(ann, lambda bots: set(bots) == {"greedy", "search"})
    node_b.kill()  # SIGKILL: nothing is cleaned up, its heartbeat just stops
    await until_bots(ann, lambda bots: set(bots) == {"search"})
    race = (await ann.client.create("golf")).race["id"]
    assert await refused(ann.client.invite(race, "greedy")) == "no_such_bot"
