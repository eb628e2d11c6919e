"""Watching a finished race again: :class:`ReplayScreen` and :class:`ReplayApp` (``parlour play --replay``).

The screen steps through a :class:`~parlour.client.tui.replaying.Replay` (rebuilt and checked by
:func:`~parlour.client.tui.replaying.positions_of`): one seat at a time or every seat side by side,
back and forward, to either end, or played at a chosen number of entries a second. Each board is drawn
from the rebuilt player view through the game's layout, with the places the last move joined marked
``*``; at a seat's final position its place, score and ending are shown.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any, ClassVar

from rich.text import Text
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, ScrollableContainer, Vertical
from textual.screen import Screen
from textual.timer import Timer
from textual.widgets import Footer, Static

from parlour.client.connection import Client
from parlour.client.tui.app import HelpScreen
from parlour.client.tui.layouts import Layout, layout_for
from parlour.client.tui.replaying import (
    Cursor,
    Position,
    Replay,
    ReplayRefused,
    SeatReplay,
    at_end,
    ending_text,
    just_made,
    last_step,
    moved,
    other_seat,
    positions_of,
    shown,
    toggled,
)
from parlour.client.tui.widgets import BoardView, Marks
from parlour.games import get_game
from parlour.protocol.text import plural, printable

SPEEDS = (0.5, 1.0, 2.0, 4.0, 8.0, 16.0)
"""The playing speeds, in entries a second; + and - step through them."""
DEFAULT_SPEED = 2.0

REPLAY_KEYS_HELP = """\
[b]Stepping[/b]
  ← / ,         one entry back          → / .   one entry forward
  Home / End    the start / the end
  Space         play or pause           + / -   faster / slower
[b]Seats[/b]
  Tab / S-Tab   the next / previous seat (alone)
  a             one seat alone, or all seats side by side
  ↑ ↓ S-← S-→   scroll the boards (or the mouse wheel)
[b]Marks[/b]  * the places the last move joined
  ?   this help          Esc, q   close the replay
"""


def load_replay(source: Replay | Mapping[str, Any] | str | Path) -> Replay:
    """A replay rebuilt from a saved file's path, a replay map, or as it is. Raises
    :class:`ReplayRefused` for a file that cannot be read or is no JSON, and for a replay
    :func:`~parlour.protocol.replay.verify_replay` finds a problem with."""
    if isinstance(source, Replay):
        return source
    if isinstance(source, str | Path):
        try:
            document = json.loads(Path(source).read_text())
        except OSError as error:
            raise ReplayRefused([f"cannot read {source}: {error.strerror or error}"]) from None
        except (UnicodeDecodeError, json.JSONDecodeError) as error:
            raise ReplayRefused([f"{source} is not JSON: {error}"]) from None
        return positions_of(document)
    return positions_of(source)


async def fetch_replay(client: Client, race: str) -> Replay:
    """A finished race's replay, fetched through ``client`` and rebuilt. Raises the client's errors
    (``not_finished``, ``unknown_race``, :class:`~parlour.client.connection.Disconnected`) and
    :class:`ReplayRefused`."""
    return positions_of((await client.replay(race)).replay)


def speed_text(speed: float) -> str:
    """``2 entries a second``, ``1 entry every 2 seconds``."""
    if speed < 1:
        return f"1 entry every {1 / speed:g} seconds"
    return f"{speed:g} {'entry' if speed == 1 else 'entries'} a second"


def seat_title(seat: SeatReplay) -> str:
    return f"{printable(seat.name)}{' (bot)' if seat.bot else ''}"


def position_line(seat: SeatReplay, position: Position) -> str:
    """A board's heading: the seat, the entry that led here, the score, and the result at the end."""
    score = f"score {position.view['score']}, {plural(position.moves, 'move')}"
    where = "the deal" if position.number == 0 else f"{position.number}/{seat.last} {printable(position.text)}"
    line = f"{seat_title(seat)}: {where}, {score}"
    if position.number == seat.last:
        line += f"\n{ending_text(seat)}"
    return line


class SeatPanel(Vertical):
    """One seat's board at one position, with its heading."""

    DEFAULT_CSS = """
    SeatPanel { width: auto; height: auto; margin: 0 3 0 0; }
    SeatPanel .seat-head { width: auto; text-style: bold; }
    """

    def __init__(self, layout: Layout, seat: SeatReplay, position: Position) -> None:
        super().__init__()
        self.layout_ = layout
        self.seat = seat
        self.position = position

    def compose(self) -> ComposeResult:
        yield Static(position_line(self.seat, self.position), classes="seat-head")
        yield BoardView(self.layout_.board(self.position.view))

    def on_mount(self) -> None:
        self.call_after_refresh(self._mark)

    def show(self, position: Position) -> None:
        """Draw the seat at ``position``."""
        self.position = position
        self.query_one(".seat-head", Static).update(Text(position_line(self.seat, position)))
        board = self.layout_.board(position.view)
        board_view = self.query_one(BoardView)
        if not board_view.show(board, self.marks()):
            board_view.remove()
            self.mount(BoardView(board))
            self.call_after_refresh(self._mark)

    def _mark(self) -> None:
        board = self.layout_.board(self.position.view)
        self.query_one(BoardView).show(board, self.marks())

    def marks(self) -> dict[str, Marks]:
        """The places the move that led here joined, marked as a hint is (``*``)."""
        position = self.position
        if position.move is None or position.before is None:
            return {}
        names = {n for link in self.layout_.link(position.move, position.before) for n in (link.src, link.dst) if n}
        return {name: Marks(hinted=True) for name in names}


class Boards(Horizontal):
    """The seats' panels, side by side; a change of their size makes the screen check they fit."""

    def on_resize(self) -> None:
        screen = self.screen
        if isinstance(screen, ReplayScreen):
            screen.check_width()


class ReplayScreen(Screen[None]):
    """A replay, stepped through. Esc or q closes it: back to the screen below, or out of the app."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("left,comma", "step(-1)", "Back"),
        Binding("right,full_stop", "step(1)", "Forward"),
        Binding("home", "jump(False)", "Start", show=False),
        Binding("end", "jump(True)", "End", show=False),
        Binding("space", "play", "Play"),
        Binding("plus,equals_sign", "speed(1)", "Faster"),
        Binding("minus", "speed(-1)", "Slower", show=False),
        Binding("tab", "seat(1)", "Seat"),
        Binding("shift+tab", "seat(-1)", "Seat", show=False),
        Binding("a", "together", "All"),
        Binding("up", "scroll('up')", "Scroll", show=False),
        Binding("down", "scroll('down')", "Scroll", show=False),
        Binding("shift+left", "scroll('left')", "Scroll", show=False),
        Binding("shift+right", "scroll('right')", "Scroll", show=False),
        Binding("question_mark,f1", "help", "Help"),
        Binding("escape,q", "close", "Close"),
    ]
    DEFAULT_CSS = """
    ReplayScreen { layout: vertical; }
    ReplayScreen #title { height: 1; background: $panel; padding: 0 1; }
    ReplayScreen #where { height: 1; background: $boost; padding: 0 1; }
    ReplayScreen #table { height: 1fr; padding: 0 1; }
    ReplayScreen #boards { width: auto; height: auto; }
    ReplayScreen #message { height: 1; padding: 0 1; }
    ReplayScreen #message.note { color: $warning; }
    """

    def __init__(self, replay: Replay, cursor: Cursor | None = None) -> None:
        super().__init__()
        self.replay = replay
        self.layout_ = layout_for(replay.game)
        self.cursor = cursor or Cursor()
        self.speed = DEFAULT_SPEED
        self.playing = False
        self.timer: Timer | None = None
        self._panels_for: tuple[bool, int] | None = None  # (together, seat) the panels were built for

    # --- drawing -----------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        title = get_game(self.replay.game).title
        race = f"race {printable(self.replay.race)}" if self.replay.race else "a race"
        yield Static(Text(f"Replay of {race}  ·  {title}  ·  seed {self.replay.seed:x}"), id="title")
        yield Static(id="where")
        table = ScrollableContainer(id="table")
        table.can_focus = False  # the screen's arrows step; the table scrolls by ↑ ↓ S-← S-→ or the mouse
        with table:
            yield Boards(id="boards")
        yield Static(id="message")
        yield Footer(compact=True)

    def on_mount(self) -> None:
        self.redraw()
        self.say("← → step, Space plays, a: all seats side by side, Tab: the next seat, ? help.")

    def redraw(self) -> None:
        """Draw the boards at the cursor (the panels rebuilt only when the seats shown change)."""
        seats = shown(self.replay, self.cursor)
        key = (self.cursor.together, -1 if self.cursor.together else self.cursor.seat)
        boards = self.query_one(Boards)
        if key != self._panels_for:
            self._panels_for = key
            boards.remove_children()
            boards.mount_all(SeatPanel(self.layout_, seat, position) for seat, position in seats)
        else:
            for panel, (_, position) in zip(boards.query(SeatPanel), seats, strict=True):
                panel.show(position)
        self.put("#where", self.where_text())

    def where_text(self) -> str:
        """What the cursor shows: the step, the entry just made, whether playing."""
        cursor, replay = self.cursor, self.replay
        last = last_step(replay, cursor)
        whose = "all seats" if cursor.together else seat_title(replay.seats[cursor.seat])
        made = just_made(replay, cursor)
        if made is None:
            what = "the deal"
        else:
            seat, position = made
            what = (
                printable(position.text) if not cursor.together else f"{seat_title(seat)}: {printable(position.text)}"
            )
        state = f"  ·  playing, {speed_text(self.speed)}" if self.playing else ""
        return f"{whose}  ·  step {cursor.step}/{last}  ·  {what}{state}"

    def check_width(self) -> None:
        """Side by side, say so when the boards are wider than the screen."""
        table = self.query_one("#table", ScrollableContainer)
        wide = self.query_one(Boards).outer_size.width > table.scrollable_content_region.width
        if self.cursor.together and wide:
            self.say("Too wide for the screen: Shift+← → (or the mouse) scrolls the boards.", note=True)

    def say(self, text: str, note: bool = False) -> None:
        """Show ``text`` on the message line (marked as a note if ``note``)."""
        self.put("#message", text)
        self.query_one("#message", Static).set_class(note, "note")

    def put(self, selector: str, text: str) -> None:
        widget = self.query_one(selector, Static)
        if str(widget.render()) != text:
            widget.update(Text(text))

    # --- actions -----------------------------------------------------------------------

    def go(self, cursor: Cursor) -> None:
        """Look at ``cursor`` now."""
        self.cursor = cursor
        self.redraw()

    def action_step(self, steps: int) -> None:
        self.go(moved(self.replay, self.cursor, steps))

    def action_jump(self, to_end: bool) -> None:
        self.go(replace(self.cursor, step=last_step(self.replay, self.cursor) if to_end else 0))

    def action_play(self) -> None:
        """Play from here (from the start again if at the end), or pause."""
        if self.playing:
            self.pause("Paused.")
            return
        if at_end(self.replay, self.cursor):
            self.go(moved(self.replay, self.cursor, -self.cursor.step))
        self.playing = True
        self.start_timer()
        self.say(f"Playing at {speed_text(self.speed)}: Space pauses, + and - change the speed.")
        self.redraw()

    def pause(self, why: str) -> None:
        self.playing = False
        if self.timer is not None:
            self.timer.stop()
            self.timer = None
        self.say(why)
        self.redraw()

    def start_timer(self) -> None:
        if self.timer is not None:
            self.timer.stop()
        self.timer = self.set_interval(1 / self.speed, self.tick)

    def tick(self) -> None:
        """One entry forward while playing; at the end, stop."""
        if not self.playing:
            return
        self.go(moved(self.replay, self.cursor, 1))
        if at_end(self.replay, self.cursor):
            self.pause("The end: Space plays it again.")

    def action_speed(self, by: int) -> None:
        index = SPEEDS.index(self.speed) if self.speed in SPEEDS else SPEEDS.index(DEFAULT_SPEED)
        self.speed = SPEEDS[max(0, min(len(SPEEDS) - 1, index + by))]
        if self.playing:
            self.start_timer()
        self.say(f"Speed: {speed_text(self.speed)}.")
        self.redraw()

    def action_seat(self, by: int) -> None:
        cursor = other_seat(self.replay, self.cursor, by)
        if cursor.together:
            cursor = toggled(self.replay, cursor)  # Tab shows one seat, the next one
        self.go(cursor)
        self.say(f"Seat {self.replay.seats[self.cursor.seat].seat}: {seat_title(self.replay.seats[self.cursor.seat])}.")

    def action_together(self) -> None:
        self.go(toggled(self.replay, self.cursor))
        if self.cursor.together:
            self.say("All seats side by side, entry by entry (a: one seat alone).")
        else:
            self.say(f"{seat_title(self.replay.seats[self.cursor.seat])} alone (a: all seats side by side).")

    def action_scroll(self, direction: str) -> None:
        table = self.query_one("#table", ScrollableContainer)
        {"up": table.scroll_up, "down": table.scroll_down, "left": table.scroll_left, "right": table.scroll_right}[
            direction
        ]()

    def action_help(self) -> None:
        self.app.push_screen(HelpScreen(self.replay.game, REPLAY_KEYS_HELP))

    def action_close(self) -> None:
        if self.timer is not None:
            self.timer.stop()
        if len(self.app.screen_stack) > 2:  # the default screen, then a screen that opened this one
            self.app.pop_screen()
        else:
            self.app.exit()


class ReplayApp(App[None]):
    """``parlour play --replay FILE``: a replay in the app, from a saved file, a replay map or as rebuilt.
    Raises :class:`~parlour.client.tui.replaying.ReplayRefused` at once for a replay it cannot show."""

    TITLE = "Parlour"

    def __init__(self, source: Replay | Mapping[str, Any] | str | Path, cursor: Cursor | None = None) -> None:
        super().__init__()
        self.replay = load_replay(source)
        self.cursor = cursor

    def on_mount(self) -> None:
        self.push_screen(ReplayScreen(self.replay, self.cursor))
