"""A tournament's spectators (issue 12): the boards of a race that is over stay hidden while another
table may still be playing the same deal, and are shown once the tournament ends."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio

from parlour.protocol.messages import Invitation, Start, TournamentUpdate
from tests.bots.helpers import BotRun, bot_online, person
from tests.conftest import ServerProcess

pytestmark = pytest.mark.asyncio


@pytest_asyncio.fixture(autouse=True)
async def _no_process_left_behind() -> AsyncIterator[None]:
    yield
    await BotRun.cleanup()


async def test_a_finished_tables_boards_wait_for_the_tournaments_end(server: ServerProcess, tmp_path: Path) -> None:
    for bot in ("random", "greedy"):
        await BotRun.start(server.url, bot, home=tmp_path / bot)
    ann, bob, cy = await person(server.url, "ann"), await person(server.url, "bob"), await person(server.url, "cy")
    for bot in ("random", "greedy"):
        await bot_online(ann, bot)
    # four entrants at two tables of the same deal: the bots at table 0, ann and bob at table 1
    created = await ann.tournament_create(
        [("golf", None)], deals=1, bots=["random", "greedy"], people=2, table_size=2, forfeit_after=30
    )
    tid = created.tournament["id"]
    summary = (await cy.tournament_watch(tid)).tournament
    await ann.tournament_join(tid)
    await bob.tournament_join(tid)
    for racer in (ann, bob):
        invitation = await racer.next_event(Invitation, timeout=10)
        assert invitation.race["id"] == f"{tid}-1"
        await racer.join(invitation.race["id"])
    await ann.next_event(Start, race=f"{tid}-1", timeout=10)
    while summary.get("done", 0) < 1:  # the bots' table is done; ann and bob still play the deal
        summary = (await cy.next_event(TournamentUpdate, timeout=20)).tournament
    assert summary["done"] == 1 and summary["playing"] == [f"{tid}-1"]
    spectating = await cy.spectate(f"{tid}-0")
    assert spectating.race["status"] == "finished" and spectating.boards == []  # ann's deal, face up: not yet
    await cy.unspectate(f"{tid}-0")
    for racer in (ann, bob):
        await racer.concede(f"{tid}-1")
    while summary["status"] != "finished":
        summary = (await cy.next_event(TournamentUpdate, timeout=20)).tournament
    spectating = await cy.spectate(f"{tid}-0")
    assert len(spectating.boards) == 2
    for client in (ann, bob, cy):
        await client.close()
