"""Race TV in the app: :class:`TVScreen` watches a race, every seat's board in a tile, or follows the most
active live race and moves on to the next when it ends.

What shows is only what a spectator is sent (protocol section 6.6). With live boards, each seat's
public view, ``spectator_delay`` seconds late (the title says so). Without them (the default), no board
of a running race ever reaches a spectator: each seat's progress line shows (score, moves, finished)
with a note, then the final boards at the end. A tournament's race shows none until the tournament ends.

Tiles: each seat's tile is its line, its board and the game's status line, in a border. As many
tiles stand side by side as the terminal's width takes, and as many rows as its height takes
(:func:`~parlour.client.tui.watching.tiling`); when not every seat fits, a window of them shows and
tab / shift+tab move it by a seat, 1-9 start it at that seat, and the seats not shown keep their line
under the tiles. On the opening boards, 80x24 shows one seat at a time (two stacked for Gate, German
Patience and The Chance); 120x40 shows two columns of three or four rows (six seats of Golf, eight of
The Chance), one column for Cheer and Gaps. The tiling follows the boards as they grow or shrink, and a
tile taller than the screen scrolls.

The client library watches the race again by itself after a reconnection; on its ``Resumed`` the
screen asks ``spectate`` once more for the boards and the summary as they stand. Leaving (escape or
q) sends ``unspectate``.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable
from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.css.query import NoMatches
from textual.screen import Screen
from textual.widgets import Footer, Static

from parlour.client.connection import Client, ClientError, Disconnected, Resumed
from parlour.client.tui.board import Board
from parlour.client.tui.layouts import layout_for
from parlour.client.tui.race import results_text
from parlour.client.tui.watching import SeatState, WatchedRace, race_to_follow, tiling, window
from parlour.client.tui.widgets import BoardView, PlaceView
from parlour.protocol.text import printable

LOOK = 3.0  # seconds between two looks at the lobby, in follow mode, while no race is watched
LINGER = 5.0  # seconds follow mode stays on a race once it is over (after its delay), showing the ranking
TILE_CHROME = (4, 4)  # a tile's border and padding (width), its border, line and status line (height)
LINE_WIDTH = 34  # the narrowest a tile gets: room for a seat's line


def board_size(board: Board) -> tuple[int, int]:
    """The cells ``board`` takes on screen, width and height, as :class:`BoardView` draws it."""
    labelled = any(band.label for band in board.bands)
    width = height = 0
    for band in board.bands:
        sizes = [(PlaceView(place).content_size_needed(), place.fan) for place in band.places]
        row = sum(w + (0 if fan in ("cell", "caption") else 1) for (w, _), fan in sizes) + (2 if labelled else 0)
        width = max(width, row)
        height += max((h for (_, h), _ in sizes), default=0)
    return width, height


def clipped(text: str, width: int) -> str:
    """``text`` cut to ``width`` cells, with ``…`` where it was cut."""
    return text if len(text) <= width else text[: max(0, width - 1)] + "…"


class SeatTile(Vertical):
    """One seat's tile: its line, its board (drawn by the game's layout from the public view), the game's
    status line. ``width`` is the board area's width, the same for every tile."""

    DEFAULT_CSS = """
    SeatTile { width: auto; height: auto; border: round $accent; padding: 0 1; }
    SeatTile.over { border: round $success; }
    SeatTile > .seat-line { text-style: bold; width: auto; }
    SeatTile > .seat-status { color: $text-muted; width: auto; }
    """

    def __init__(self, seat: SeatState, width: int) -> None:
        super().__init__(id=f"seat-{seat.seat}")
        assert seat.view is not None
        self.seat = seat
        self.width_ = width
        self.layout_ = layout_for(str(seat.view["game"]))
        self.board = self.layout_.board(seat.view)

    def compose(self) -> ComposeResult:
        yield Static(classes="seat-line")
        yield BoardView(self.board)
        yield Static(classes="seat-status")

    def on_mount(self) -> None:
        self.show(self.seat)

    def show(self, seat: SeatState) -> None:
        """Draw ``seat`` (its latest board) in this tile."""
        assert seat.view is not None
        self.seat = seat
        self.set_class(seat.finished, "over")
        self.board = self.layout_.board(seat.view)
        self.query_one(".seat-line", Static).update(Text(clipped(seat.line(), self.width_).ljust(self.width_)))
        self.query_one(".seat-status", Static).update(Text(clipped(self.board.status, self.width_)))
        view = self.query_one(BoardView)
        if not view.show(self.board, {}):
            view.remove()
            self.mount(BoardView(self.board), after=self.query_one(".seat-line"))


class TVScreen(Screen[None]):
    """Race TV: the race ``race_id`` watched, or (``follow``) the most active live race, then the next.

    Follow mode asks the lobby every ``look_every`` seconds while it watches no race, watches the race
    :func:`~parlour.client.tui.watching.race_to_follow` picks (the running race with the most players,
    preferring live boards, then the latest start), and once that race is over stays on it for its
    spectator delay plus ``linger`` seconds (its last boards and the ranking) before looking again.
    A race that cannot be watched (``spectate`` refused) is not picked again.

    ``now`` is this machine's clock (the race's time left is read from it, corrected by the server's
    clock as a ``ping`` tells it); ``linger`` and ``look_every`` are :data:`LINGER` and :data:`LOOK`.
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q", "back", "Back"),
        Binding("tab", "next_seat(1)", "Next seat", priority=True),
        Binding("shift+tab", "next_seat(-1)", "Previous seat", show=False, priority=True),
        *(Binding(str(n), f"seat({n})", f"Seat {n}", show=False) for n in range(1, 10)),
    ]
    DEFAULT_CSS = """
    TVScreen #title { height: 1; background: $panel; padding: 0 1; }
    TVScreen #seats { height: 1fr; padding: 0 1; }
    TVScreen #seats > Horizontal { height: auto; width: auto; }
    TVScreen #progress { height: auto; }
    TVScreen #message { height: auto; padding: 0 1; }
    TVScreen #message.refused { color: $error; text-style: bold; }
    """

    def __init__(
        self,
        client: Client,
        race_id: str | None = None,
        *,
        follow: bool = False,
        now: Callable[[], float] = time.time,
        linger: float = LINGER,
        look_every: float = LOOK,
    ) -> None:
        super().__init__()
        if race_id is None and not follow:
            raise ValueError("a race to watch, or follow mode")
        self.client = client
        self.race_id = race_id
        self.follow = follow
        self.now = now
        self.linger = linger
        self.look_every = look_every
        self.watched: WatchedRace | None = None
        self.clock_offset = 0.0  # the server's clock minus this machine's
        self.first = 0  # the first seat of the window of tiles
        self.tiles_shape: tuple[str, int, tuple[int, ...]] = ("", 0, ())  # race, columns, seats of the tiles now
        self.skip: set[str] = set()  # races follow mode does not pick again
        self.moving_on = False
        self.notice = ""  # a line from the screen itself (a refusal, a lost connection), above the race's own
        self.refused = False
        self.drawing = asyncio.Lock()

    def compose(self) -> ComposeResult:
        yield Static(id="title")
        with VerticalScroll(id="seats"):
            yield Static(id="progress")
        yield Static(id="message")
        yield Footer(compact=True)

    def on_mount(self) -> None:
        self.run_worker(self.listen(), name="tv events", group="events", exclusive=True)
        self.run_worker(self.start(), name="tv start", group="start")
        self.set_interval(0.5, self.show_title)
        self.show_title()

    async def start(self) -> None:
        with contextlib.suppress(ClientError, Disconnected):
            before = self.now()
            pong = await self.client.ping()
            self.clock_offset = pong.time - (before + self.now()) / 2
        if self.follow:
            self.look()
            self.set_interval(self.look_every, self.look)
        elif self.race_id is not None:
            await self.open(self.race_id)

    # --- what is watched -------------------------------------------------------------

    async def open(self, race_id: str) -> None:
        """Spectate ``race_id`` and show it."""
        watched = WatchedRace(race_id)
        self.watched, self.first, self.moving_on = watched, 0, False
        self.tell("")
        await self.redraw()  # the last race's tiles go
        try:
            reply = await self.client.spectate(race_id)
        except ClientError as error:
            self.watched = None
            self.skip.add(race_id)
            self.tell(f"Race {printable(race_id)} cannot be watched: {printable(error.message)}", refused=True)
            await self.redraw()
            return
        except Disconnected as error:
            self.tell(f"The connection is lost: {error}", refused=True)
            return
        watched.spectating(reply)
        await self.redraw()

    def look(self) -> None:
        """Follow mode: if no race is watched, pick the most active live race from the lobby."""
        if self.watched is None:
            self.run_worker(self.look_once(), name="tv look", group="look", exclusive=True)

    async def look_once(self) -> None:
        try:
            page = await self.client.lobby(limit=100)
        except ClientError as error:
            self.tell(f"The lobby is not available: {printable(error.message)}", refused=True)
            return
        except Disconnected as error:
            self.tell(f"The connection is lost: {error}", refused=True)
            return
        if self.watched is not None:
            return
        race_id = race_to_follow(page.races, self.client.player, self.skip)
        if race_id is None:
            self.tell(f"No race is running: looking again every {self.look_every:g} s.")
            return
        await self.open(race_id)

    def move_on(self, race_id: str) -> None:
        """Follow mode: the race ``race_id`` is over and was shown long enough: stop watching it, find the next."""
        if self.watched is None or self.watched.race_id != race_id:
            return
        self.watched = None
        self.skip.add(race_id)
        self.run_worker(self.unspectate(race_id), group="unspectate")
        self.run_worker(self.redraw(), group="redraw")
        self.look()

    async def unspectate(self, race_id: str) -> None:
        with contextlib.suppress(ClientError, Disconnected):
            await self.client.unspectate(race_id)

    # --- events ----------------------------------------------------------------------

    async def listen(self) -> None:
        """Take in the client's events for the race watched, as long as the screen is up."""
        try:
            async for event in self.client.events():
                watched = self.watched
                if watched is None:
                    continue
                if isinstance(event, Resumed):
                    await self.resumed(watched, event)
                elif watched.heard(event):
                    await self.redraw()
        except Disconnected:
            pass
        self.tell("The connection to the server is lost.", refused=True)

    async def resumed(self, watched: WatchedRace, event: Resumed) -> None:
        """After a reconnection: the client watches again by itself; its boards as they stand now."""
        if watched.race_id not in event.watching:
            self.tell("Reconnected, but the race can no longer be watched.", refused=True)
            if self.follow:
                self.move_on(watched.race_id)
            return
        try:
            watched.spectating(await self.client.spectate(watched.race_id))
        except ClientError as error:
            self.tell(f"Reconnected, but the race is gone: {printable(error.message)}", refused=True)
            return
        self.tell("Reconnected.")
        await self.redraw()

    # --- drawing ---------------------------------------------------------------------

    def put(self, selector: str, text: str) -> None:
        """Show ``text`` in one line's widget (only if it changed)."""
        widget = self.query_one(selector, Static)
        if str(widget.render()) != text:
            widget.update(Text(text))

    def tell(self, text: str, refused: bool = False) -> None:
        """A line of the screen's own under the race's (a refusal, the connection lost, follow mode's search)."""
        self.notice, self.refused = text, refused
        if self.is_mounted:
            with contextlib.suppress(NoMatches):  # not while the screen is being taken down
                self.show_message()

    def title_text(self) -> str:
        watched = self.watched
        prefix = "Race TV (follow)" if self.follow else "Race TV"
        if watched is None or not watched.info:
            return prefix
        return f"{prefix}  ·  {watched.headline(watched.time_left(self.now() + self.clock_offset))}"

    def show_title(self) -> None:
        if self.is_mounted:
            with contextlib.suppress(NoMatches):  # not while the screen is being taken down
                self.put("#title", self.title_text())

    def message_lines(self, shown: list[int]) -> list[str]:
        """Under the tiles: the note, the lines of the seats whose tile is not shown (and how to show them),
        the ranking at the end, the screen's own line."""
        watched = self.watched
        lines: list[str] = []
        if watched is not None and watched.info:
            if note := watched.note():
                lines.append(note)
            hidden = [s for s in watched.boards() if s.seat not in shown]
            if hidden and shown:
                lines += [s.line() for s in hidden]
                lines.append(f"({len(shown)} of {len(hidden) + len(shown)} boards show: tab for the next, 1-9 a seat)")
            if watched.end is not None:
                lines += ["The race is over:", *results_text(watched.end)]
            elif watched.status == "expired":
                lines.append("The race was removed before it started.")
        if self.notice:
            lines.append(self.notice)
        return lines

    def show_message(self, shown: list[int] | None = None) -> None:
        if shown is None:
            shown = list(self.tiles_shape[2])
        self.put("#message", "\n".join(self.message_lines(shown)))
        self.query_one("#message", Static).set_class(self.refused, "refused")

    def arrangement(self, boards: list[SeatState]) -> tuple[list[int], int, int]:
        """Which seats' tiles show in the screen's room now (from the window's first seat), in how many
        columns, and the board area's width in each tile."""
        sizes = [board_size(layout_for(str(s.view["game"])).board(s.view)) for s in boards if s.view is not None]
        width = max([LINE_WIDTH, *(w for w, _ in sizes)])
        tile = (width + TILE_CHROME[0] + 1, max(h for _, h in sizes) + TILE_CHROME[1])
        seats = [s.seat for s in boards]
        shown = seats
        for _ in range(2):  # the messages' lines depend on the seats shown, and the room on the messages
            room = self.app.size.width - 2, self.app.size.height - 2 - max(1, len(self.message_lines(shown)))
            arranged = tiling(len(seats), tile, room)
            shown = window(seats, self.first, arranged.shown)
        return shown, arranged.columns, width

    async def redraw(self) -> None:
        """Draw the race as it stands: the title, every seat's tile (or progress line), the messages."""
        async with self.drawing:
            if not self.is_mounted:
                return
            try:
                await self.draw()
            except NoMatches:  # the screen is being taken down (the app quits): nothing to draw on
                return

    async def draw(self) -> None:
        self.show_title()
        watched = self.watched
        area = self.query_one("#seats", VerticalScroll)
        boards = watched.boards() if watched is not None else []
        if watched is None or not boards:
            if area.query(Horizontal):
                await area.query(Horizontal).remove()
            self.tiles_shape = ("", 0, ())
            lines = [s.line() for _, s in sorted(watched.seats.items())] if watched is not None else []
            self.put("#progress", "\n".join(lines))
            self.query_one("#progress").display = bool(lines)
            self.show_message([])
        else:
            self.query_one("#progress").display = False
            await self.tile(watched, boards, area)
        if watched is not None and watched.over and self.follow and not self.moving_on:
            self.moving_on = True
            race_id = watched.race_id
            self.set_timer(watched.delay + self.linger, lambda: self.move_on(race_id))

    async def tile(self, watched: WatchedRace, boards: list[SeatState], area: VerticalScroll) -> None:
        shown, columns, width = self.arrangement(boards)
        shape = (watched.race_id, columns, tuple(shown))
        if shape != self.tiles_shape:
            await area.query(Horizontal).remove()
            rows = [shown[i : i + columns] for i in range(0, len(shown), columns)]
            await area.mount_all(
                Horizontal(*(SeatTile(watched.seats[seat], width) for seat in row), classes="tiles") for row in rows
            )
            self.tiles_shape = shape
            self.refresh_bindings()
        else:
            for tile in area.query(SeatTile):
                tile.show(watched.seats[tile.seat.seat])
        self.show_message(shown)

    def on_resize(self) -> None:
        self.run_worker(self.redraw(), group="redraw")

    # --- keys ------------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("next_seat", "seat"):  # only while some seat's board does not show
            watched = self.watched
            return watched is not None and len(self.tiles_shape[2]) < len(watched.boards())
        return True

    def action_next_seat(self, step: int) -> None:
        """Move the window of tiles by ``step`` seats."""
        self.show_from(step, None)

    def action_seat(self, number: int) -> None:
        """Start the window of tiles at seat ``number`` (1 for the first seat)."""
        self.show_from(0, number - 1)

    def show_from(self, step: int, seat: int | None) -> None:
        watched = self.watched
        seats = [s.seat for s in watched.boards()] if watched is not None else []
        if not seats:
            return
        if seat is None:
            at = seats.index(self.first) if self.first in seats else 0
            seat = seats[(at + step) % len(seats)]
        if seat in seats:
            self.first = seat
            self.run_worker(self.redraw(), group="redraw")

    async def action_back(self) -> None:
        """Stop watching and go back to the screen below."""
        if self.watched is not None:
            race_id, self.watched = self.watched.race_id, None
            await self.unspectate(race_id)
        self.app.pop_screen()
