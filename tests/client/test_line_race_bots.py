"""``parlour race create GAME --bot NAME`` and ``parlour races`` with bots online: real processes, and a bot
that is a client library connection saying ``bot: true`` (as any bot program would)."""

from __future__ import annotations

from pathlib import Path

import pytest

from parlour.client.connection import Client, Invitation, Start
from tests.client.test_line_race import Cli, _no_cli_left_behind, run_parlour  # noqa: F401 (a fixture)
from tests.conftest import ServerProcess

pytestmark = pytest.mark.asyncio


async def test_races_lists_the_bots_and_create_with_bot_races_it(server: ServerProcess, tmp_path: Path) -> None:
    async with await Client.connect(server.url, "greedy", bot=True, games=["golf", "gaps"], max_races=2) as bot:
        status, out = await run_parlour(tmp_path, "races", "--server", server.url)
        assert status == 0 and "Bots online (1):\n  greedy           plays gaps, golf  (in 0 of 2 races)\n" in out, out
        ann = await Cli.start(tmp_path, "race", "--server", server.url, "--name", "ann", "create", "golf", "--bot", "*")
        race = (await ann.until(r"Race (\w+) created: 2 seats of golf")).group(1)  # you and the bot
        await ann.until("Invited the bot greedy; waiting for it to take its seat.")
        invitation = await bot.next_event(Invitation)
        assert invitation.race["id"] == race
        await bot.join(race)
        await bot.ready(race)
        await ann.until(r"Seats: ann \(ready\), greedy \(ready\)")
        await ann.until("Go!")
        await bot.next_event(Start, race)
        await bot.concede(race)
        await ann.until(r"\[greedy: score \d+, 0 moves, conceded\]")
        await ann.type("concede")
        await ann.until(r"[12]\. greedy: score")
        assert await ann.finish() == 0
        assert "A friend joins with" not in ann.text  # the seat is the bot's


async def test_a_bot_that_is_not_online_or_does_not_come_is_told(
    server_factory: type[ServerProcess], tmp_path: Path
) -> None:
    server = server_factory("--invite-timeout", "1")
    server.start()
    status, out = await run_parlour(tmp_path, "race", "--server", server.url, "create", "golf", "--bot", "greedy")
    assert status == 2 and "no_such_bot" in out, out
    status, out = await run_parlour(tmp_path, "races", "--server", server.url)
    assert "Your races: none." in out and "Bots online: none." in out  # the race made for the bot is gone
    async with await Client.connect(server.url, "greedy", bot=True, games=["golf"]) as bot:
        ann = await Cli.start(tmp_path, "race", "--server", server.url, "create", "golf", "--bot", "greedy")
        await ann.until(r"Seats: \w+ \(ready\), greedy \(invited\)")
        await bot.next_event(Invitation)  # and it does nothing
        await ann.until(r"The bot greedy did not take its seat \(it declined, or the invitation lapsed\)")
        ann.interrupt()
        assert await ann.finish() == 130
