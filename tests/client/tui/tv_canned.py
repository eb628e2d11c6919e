"""A canned race for Race TV's tests without a server: a client that answers ``spectate`` with fixed
boards and whose events come only when a test puts them, and an app that opens the TV screen."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

from textual.app import App

from parlour.client.connection import ClientEvent, Ok, Pong, Races, Spectating
from parlour.client.tui.tv import TVScreen
from parlour.games import get_game

STARTED = 1_800_000_000.0
NOW = STARTED + 55  # four minutes and five seconds left of five
NAMES = ["ann", "bo", "cy"]


def played(game_name: str, seed: int, moves: int) -> dict[str, Any]:
    """The public view of the deal of ``seed`` after its first legal move ``moves`` times."""
    game = get_game(game_name)
    state = game.deal(seed)
    for _ in range(moves):
        legal = game.legal_moves(state)
        if not legal:
            break
        state = game.apply(state, legal[0])
    return game.view(state, "public")


def summary(game: str = "golf", seats: int = 3, *, live_boards: bool = True, delay: int = 30) -> dict[str, Any]:
    """A running race's summary, as a spectator gets it."""
    return {
        "id": "tv1",
        "game": game,
        "options": {},
        "seats": seats,
        "time_limit": 300,
        "public": True,
        "undo": False,
        "spectator_delay": delay,
        "live_boards": live_boards,
        "status": "running",
        "players": [
            {"seat": s, "player": f"p{s}", "name": NAMES[s], "bot": False, "ready": True} for s in range(seats)
        ],
        "created_at": STARTED - 10,
        "starts_at": STARTED,
        "started_at": STARTED,
        "deadline": STARTED + 300,
    }


def canned_boards(game: str = "golf", seats: int = 3) -> list[dict[str, Any]]:
    return [{"seat": s, "seq": 2 * s + 1, "view": played(game, 7, 2 * s + 1)} for s in range(seats)]


class Canned:
    """A client that answers with a canned race; its events are what the test puts."""

    def __init__(self, race: dict[str, Any], boards: list[dict[str, Any]]) -> None:
        self.player = "spectator"
        self.race = race
        self.boards = boards
        self.queue: asyncio.Queue[ClientEvent] = asyncio.Queue()
        self.unspectated: list[str] = []
        self.spectated: list[str] = []
        self.lobby_races: list[dict[str, Any]] = []

    async def spectate(self, race: str) -> Spectating:
        self.spectated.append(race)
        return Spectating(id=1, race=self.race, boards=self.boards)

    async def unspectate(self, race: str) -> Ok:
        self.unspectated.append(race)
        return Ok(id=2)

    async def ping(self) -> Pong:
        return Pong(id=3, time=NOW)  # the server's clock is ``now``: no offset

    async def lobby(self, limit: int = 50, after: str | None = None) -> Races:
        return Races(id=4, races=self.lobby_races)

    async def events(self) -> AsyncIterator[ClientEvent]:
        while True:
            yield await self.queue.get()


class OneTV(App[None]):
    """An app that opens a TV screen over its default screen."""

    def __init__(self, screen: TVScreen) -> None:
        super().__init__()
        self.tv = screen

    def on_mount(self) -> None:
        self.push_screen(self.tv)


def canned_app(game: str = "golf", seats: int = 3, *, live_boards: bool = True, delay: int = 30) -> OneTV:
    """The TV screen on the canned race (no board when the race has no live boards)."""
    boards = canned_boards(game, seats) if live_boards else []
    client = Canned(summary(game, seats, live_boards=live_boards, delay=delay), boards)
    return OneTV(TVScreen(client, "tv1", now=lambda: NOW))  # type: ignore[arg-type]
