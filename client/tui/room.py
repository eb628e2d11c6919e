"""A race before its start, in the app: :class:`RoomScreen` says ready, shows who sits and who is ready,
and hands over to the race screen at the start (or at once, for a race that started meanwhile)."""

from __future__ import annotations

import contextlib
from typing import Any, ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import Screen
from textual.widgets import Footer, Static

from parlour.client.connection import Client, ClientError, Countdown, Disconnected, RaceUpdate, Resumed, Start
from parlour.client.line_race import describe_race, seat_list, server_offset
from parlour.client.tui.race import RaceTable, trouble
from parlour.client.tui.racing import RaceScreen
from parlour.protocol.text import printable


def table_from_snapshot(client: Client, race: dict[str, Any], seat: int, seq: int, view: dict[str, Any]) -> RaceTable:
    """The table of a race that started while this app was not looking (resumed from the lobby)."""
    start = Start(race=str(race["id"]), seat=seat, deadline=float(race.get("deadline", 0.0)), seq=seq, view=view)
    return RaceTable(client, race, start)


class RoomScreen(Screen[None]):
    """A race before its start: its settings, who sits and who is ready; this player is ready at once.
    The race screen takes over at the start; leaving gives the seat up."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("r", "ready", "Ready / not ready"),
        Binding("l,escape", "leave", "Leave the race"),
    ]
    DEFAULT_CSS = """
    RoomScreen { align: center middle; }
    RoomScreen > Vertical { width: 80; max-width: 100%; height: auto; border: round $accent; padding: 0 1; }
    RoomScreen #news { color: $text-muted; }
    """

    def __init__(self, client: Client, info: dict[str, Any], ready: bool = True) -> None:
        super().__init__()
        self.client = client
        self.info = info
        self.race_id = str(info["id"])
        self.ready = ready

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(id="settings")
            yield Static(id="seats")
            yield Static(id="news")
        yield Footer(compact=True)

    def on_mount(self) -> None:
        self.show()
        self.run_worker(self.wait(), name="room", exclusive=True)

    def show(self, news: str | None = None) -> None:
        if not self.query("#settings"):  # the player left this screen while a request was answered: nothing to show
            return
        self.query_one("#settings", Static).update(Text(describe_race(self.info)))
        code = f"  Join code: {printable(str(self.info['code']))}" if self.info.get("code") else ""
        state = "You are ready" if self.ready else "You are not ready (r)"
        self.query_one("#seats", Static).update(Text(f"Seats: {seat_list(self.info)}\n{state}.{code}"))
        if news is not None:
            self.query_one("#news", Static).update(Text(news))

    async def wait(self) -> None:
        """Say ready, then follow the race's events until it starts (or is gone)."""
        try:
            if self.ready:
                self.info = dict((await self.client.ready(self.race_id)).race)
            self.show("The race starts when every seat is taken and ready.")
            async for event in self.client.events():
                if isinstance(event, RaceUpdate) and event.race.get("id") == self.race_id:
                    self.info = dict(event.race)
                    if self.info["status"] == "expired":
                        self.show("The race expired: not every seat was taken and ready in time.")
                        return
                    self.show()
                elif isinstance(event, Countdown) and event.race == self.race_id:
                    self.show(f"Starting in {round(event.starts_in, 1):g} s…")
                elif isinstance(event, Start) and event.race == self.race_id:
                    offset = await server_offset(self.client)
                    summary = dict((await self.client.snapshot(self.race_id)).race)
                    if self in self.app.screen_stack:  # not once the player has left the room (the lobby is back)
                        self.app.switch_screen(RaceScreen(RaceTable(self.client, summary, event, offset), True))
                    return
                elif isinstance(event, Resumed) and self.race_id in event.races:
                    snapshot = await self.client.snapshot(self.race_id)
                    self.info = dict(snapshot.race)
                    if snapshot.view is not None and snapshot.seat is not None:
                        table = table_from_snapshot(
                            self.client, self.info, snapshot.seat, snapshot.seq, dict(snapshot.view)
                        )
                        table.offset = await server_offset(self.client)
                        if self in self.app.screen_stack:
                            self.app.switch_screen(RaceScreen(table, True))
                        return
                    self.show("Reconnected.")
        except ClientError as error:
            self.show(f"The server refused: {printable(error.message)}")
        except Disconnected as error:
            self.show(f"The connection is lost: {error}")

    async def action_ready(self) -> None:
        try:
            self.info = dict((await self.client.ready(self.race_id, not self.ready)).race)
        except (ClientError, Disconnected) as error:
            self.show(trouble(error))
            return
        self.ready = not self.ready
        self.show()

    async def action_leave(self) -> None:
        with contextlib.suppress(ClientError, Disconnected):
            await self.client.leave(self.race_id)
        self.app.pop_screen()
