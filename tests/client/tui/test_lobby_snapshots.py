"""Snapshot tests (``pytest-textual-snapshot``) of the connect screen, the lobby and the new race's form, at
80x24 and 120x40, from a canned lobby (no server: a client whose ``lobby`` answers fixed races, bots and a
tournament). See tests/client/tui/test_snapshots.py for how to rewrite them. Nothing on screen moves.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from textual.app import App

from parlour.client.connection import Races
from parlour.client.identity import Identity
from parlour.client.line_race import Account
from parlour.client.tui.connect import LobbyApp
from parlour.client.tui.lobby import LobbyScreen
from parlour.client.tui.settings import CreateRaceScreen

SERVER = "ws://127.0.0.1:8765"
SIZES = {"80x24": (80, 24), "120x40": (120, 40)}
BOTS = [
    {"player": "pb1", "name": "greedy", "games": ["golf", "gaps", "carpet"], "busy": 1, "max_races": 8},
    {"player": "pb2", "name": "search", "games": ["golf", "the-chance"], "busy": 0, "max_races": 8},
]

SnapCompare = Callable[..., bool]


def race(number: int, game: str, status: str, players: list[str], seats: int = 2, **more: Any) -> dict[str, Any]:
    return {
        "id": f"5f0c2a9e4{number}",
        "game": game,
        "options": {},
        "seats": seats,
        "time_limit": 300 * number,
        "public": True,
        "undo": False,
        "spectator_delay": 0,
        "live_boards": False,
        "status": status,
        "players": [
            {"seat": s, "player": f"p{name}", "name": name, "bot": name in ("greedy", "search"), "ready": True}
            for s, name in enumerate(players)
        ],
        "created_at": 1_800_000_000.0,
        **more,
    }


RACES = [
    race(1, "golf", "running", ["ann", "greedy"]),
    race(2, "the-chance", "open", ["bob"], seats=3),
    race(3, "gaps", "open", ["cy"], public=False, code="7A3F1CKQ9M2D"),
    race(4, "carpet", "running", ["dee", "eve", "search"], seats=3),
]
TOURNAMENTS = [{"id": "t5e1", "name": "Friday night", "status": "running", "entrants": [{}, {}, {}, {}]}]


class CannedLobby:
    """A client that answers ``lobby`` with fixed races, bots and tournaments (ann is seated in the first)."""

    player = "pann"
    name = "ann"
    reconnecting = False

    async def lobby(self, *, limit: int = 50, after: str | None = None) -> Races:
        return Races(id=1, races=RACES, bots=BOTS, tournaments=TOURNAMENTS)


class LobbyShot(App[None]):
    TITLE = "Parlour"

    def __init__(self, create: bool = False) -> None:
        super().__init__()
        self.create = create

    def on_mount(self) -> None:
        self.push_screen(LobbyScreen(CannedLobby(), Account(SERVER)))  # type: ignore[arg-type]
        if self.create:
            self.push_screen(CreateRaceScreen(BOTS, "golf"))


@pytest.mark.parametrize("size", SIZES)
def test_the_lobby(snap_compare: SnapCompare, size: str) -> None:
    """Ann's running race first, then the open and running public ones; the tournament and the bots below."""
    assert snap_compare(LobbyShot(), terminal_size=SIZES[size])


@pytest.mark.parametrize("size", SIZES)
def test_a_new_race_s_settings(snap_compare: SnapCompare, size: str) -> None:
    """The form of a new Golf race, the bots that play Golf offered."""
    assert snap_compare(LobbyShot(create=True), terminal_size=SIZES[size])


def test_the_connect_screen(snap_compare: SnapCompare, tmp_path: Path) -> None:
    """The server and name filled in, the servers used last listed."""
    identities = tmp_path / "identities.json"
    for server in ("ws://friends.example:8765", SERVER):
        Identity(server, path=identities).save(used=True)
    app = LobbyApp(Account(SERVER, "ann", identity=identities))
    assert snap_compare(app, terminal_size=(80, 24))
