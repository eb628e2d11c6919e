"""The app shows, stores and logs nothing it was not sent (issue 13).

A whole Golf race in the app against the random bot on a real server, with every frame the app's client
receives recorded (a client that keeps each frame before decoding it; the network and the server are real).
Golf deals 16 cards face down into the stock, so the first frames hold 36 of the 52 cards. After every move the
cards on the screen (read from the screen's own text, as a person sees it) must all be in the frames received
so far. After the race, the only file the app wrote under its home is the identities file, and no log record of
the app or of Textual names a card no frame held at the time.
"""

from __future__ import annotations

import html
import logging
import re
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any, ClassVar

import msgpack
import pytest
import pytest_asyncio
from textual.app import App

from parlour.client import line_race
from parlour.client.connection import Client
from parlour.client.line_race import Account
from parlour.client.tui.layouts import layout_for
from parlour.client.tui.racing import RaceApp, RaceResultScreen, RaceScreen
from tests.bots.helpers import BotRun, bot_online
from tests.client.tui.test_app import keyed_move, press_at, until_shown
from tests.conftest import ServerProcess

CODE = re.compile(r"^[2-9TJQKA][CDHS]$")
FACE = re.compile(r"(10|[2-9AJQK])([♣♦♥♠])")
SUITS = {"♣": "C", "♦": "D", "♥": "H", "♠": "S"}
ALL_CARDS = {rank + suit for rank in "A23456789TJQK" for suit in "CDHS"}


class RecordingClient(Client):
    """A client that keeps every frame it receives, decoded as plain msgpack, before the library reads it."""

    received: ClassVar[list[Any]] = []

    def _decode(self, frame: str | bytes) -> Any:
        RecordingClient.received.append(msgpack.unpackb(frame, raw=False, strict_map_key=False))
        return super()._decode(frame)


def cards_in(value: Any) -> set[str]:
    """Every card code (``"TD"``) anywhere in a decoded frame."""
    if isinstance(value, str):
        return {value} if CODE.match(value) else set()
    if isinstance(value, dict):
        return set().union(*(cards_in(k) | cards_in(v) for k, v in value.items())) if value else set()
    if isinstance(value, list | tuple):
        return set().union(*(cards_in(v) for v in value)) if value else set()
    return set()


def sent() -> set[str]:
    return set().union(*(cards_in(frame) for frame in RecordingClient.received))


def screen_cards(app: App[Any]) -> set[str]:
    """The cards the screen shows, read from its text row by row (``10♦`` -> ``TD``)."""
    rows: dict[str, list[str]] = {}
    for y, text in re.findall(r'<text[^>]*y="([\d.]+)"[^>]*>(.*?)</text>', app.export_screenshot()):
        rows.setdefault(y, []).append(html.unescape(text).replace("\xa0", " "))
    shown = set()
    for parts in rows.values():
        for rank, suit in FACE.findall("".join(parts)):
            shown.add(("T" if rank == "10" else rank) + SUITS[suit])
    return shown


@pytest_asyncio.fixture(autouse=True)
async def _no_process_left_behind() -> AsyncIterator[None]:
    yield
    await BotRun.cleanup()


@pytest.mark.asyncio
async def test_the_app_shows_stores_and_logs_only_what_it_was_sent(
    server: ServerProcess, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    await BotRun.start(server.url, "random", "--races", "1", home=tmp_path / "bot")
    async with await Client.connect(server.url, "look") as look:
        await bot_online(look, "random")
    home = tmp_path / "home"
    for variable, path in [("HOME", home), ("XDG_CONFIG_HOME", home / "config"), ("XDG_DATA_HOME", home / "data"),
                           ("XDG_CACHE_HOME", home / "cache"), ("XDG_STATE_HOME", home / "state")]:  # fmt: skip
        monkeypatch.setenv(variable, str(path))
    monkeypatch.setattr(line_race, "Client", RecordingClient)
    RecordingClient.received = []
    caplog.set_level(logging.DEBUG)

    account = Account(server.url, "ann")
    app = RaceApp(lambda: line_race.connect(account), "golf", "random")
    layout = layout_for("golf")
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await until_shown(pilot, RaceScreen, timeout=20, what="the race starts")
        table = screen.race
        await pilot.pause()
        first = sent()
        assert len(ALL_CARDS - first) == 16, "the stock's 16 cards are in no frame at the start"
        checked = 0
        while table.view["ended"] is None and table.moves_made < 100:
            shown = screen_cards(app)
            assert shown, "the board shows cards"
            assert shown <= sent(), f"shown but never sent: {sorted(shown - sent())}"
            checked += 1
            _, places = keyed_move(layout, table.view, screen.cursor)
            for place in places:
                await press_at(pilot, screen, place)
        assert screen_cards(app) <= sent()
        await until_shown(pilot, RaceResultScreen, timeout=30, what="the results")
        assert checked > 5
        received = sent()
        await pilot.press("q")

    written = sorted(str(p.relative_to(home)) for p in home.rglob("*") if p.is_file())
    assert written == ["config/parlour/identities.json"], written
    for record in caplog.records:
        if record.name.startswith(("parlour", "textual")):
            assert cards_in(record.getMessage().split()) <= received, record.getMessage()
