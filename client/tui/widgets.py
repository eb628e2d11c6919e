"""The board's widgets: each place drawn as text, a click posted as a press. Thin: they draw what
:mod:`.board` computed and decide nothing.

Every mark stays readable without colour (``NO_COLOR``): suits by symbol, the cursor as
``▸`` and reverse video, the destinations of the selected card as ``→``, the hinted places as ``*``, the
selected cards with ``•`` beside them.
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.geometry import Size
from textual.message import Message
from textual.widget import Widget
from textual.widgets import Static

from parlour.client.tui.board import CARD_WIDTH, Board, Place, card_face

FACE = "black on white"
RED_FACE = "red on white"
BACK = "white on dark_blue"
EMPTY = "dim"
CURSOR = "reverse"
TARGET = "bold green"
HINT = "bold yellow"
SLOT = CARD_WIDTH + 2  # a card on screen: a gutter, its face, a space


@dataclass
class Marks:
    """How a place is marked now: under the cursor, holding the selected cards (how many from the top,
    -1 for the place as a whole), a destination of the selection, part of the hint."""

    cursor: bool = False
    selected: int = 0
    target: bool = False
    hinted: bool = False


def marked(marks: Marks) -> tuple[str, str]:
    """The mark before a place's label (or a cell's card), and its style: the cursor first, then a
    destination, then the hint."""
    if marks.cursor:
        return "▸", CURSOR
    if marks.target:
        return "→", TARGET
    if marks.hinted:
        return "*", HINT
    return " ", ""


def card_text(card: str | None, gutter: str = " ", extra: str = "") -> Text:
    """One card on screen (:data:`SLOT` cells): a gutter mark, then the face (or an empty slot)."""
    if card is None:
        return Text(gutter, style=extra) + Text("[  ]", style=f"{EMPTY} {extra}".strip())
    face, red = card_face(card)
    return Text(gutter, style=extra) + Text(face + " ", style=f"{RED_FACE if red else FACE} {extra}".strip())


def back_text(count: int, gutter: str = " ") -> Text:
    """Face-down cards: one back, with their number when there are several."""
    inside = "▒▒▒▒" if count == 1 else f"▒{count:>2}▒" if count < 100 else f"{count:>4}"
    return Text(gutter) + Text(inside, style=BACK)


class PlaceView(Widget):
    """One place of the board. A click posts :class:`PlaceView.Pressed` with the card it hit."""

    DEFAULT_CSS = """
    PlaceView { width: auto; height: auto; margin: 0 1 0 0; }
    PlaceView.cell { margin: 0; }
    """

    class Pressed(Message):
        """A place was clicked: ``count`` cards from its top (0 for the place as a whole)."""

        def __init__(self, name: str, count: int) -> None:
            super().__init__()
            self.name = name
            self.count = count

    def __init__(self, place: Place) -> None:
        super().__init__(classes="cell" if place.fan in ("cell", "caption") else "")
        self.place = place
        self.marks = Marks()
        self._lines: list[Text] | None = None

    def show(self, place: Place, marks: Marks) -> None:
        """Draw ``place`` with ``marks`` from now on."""
        if place != self.place or marks != self.marks:
            before = self.content_size_needed()
            self.place, self.marks = place, marks
            self._lines = None
            self.refresh(layout=self.content_size_needed() != before)  # a new layout only when the size changes

    def content_size_needed(self) -> tuple[int, int]:
        """The width and height the place's text takes."""
        lines = self.lines()
        return max(line.cell_len for line in lines), len(lines)

    def render(self) -> Text:
        return Text("\n").join(self.lines())

    def get_content_width(self, container: Size, viewport: Size) -> int:
        return self.content_size_needed()[0]

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return self.content_size_needed()[1]

    def lines(self) -> list[Text]:
        """The place's text, line by line."""
        if self._lines is None:
            self._lines = self._draw()
        return self._lines

    def _draw(self) -> list[Text]:
        place, marks = self.place, self.marks
        if place.fan == "caption":
            return [Text(f" {place.label:>{CARD_WIDTH}} ", style="dim")]
        if place.fan == "cell":
            mark, style = marked(marks)
            chosen = "bold underline" if marks.selected else ""
            return [card_text(place.cards[0] if place.cards else None, mark, f"{style} {chosen}".strip())]
        lines = [self._label()]
        if place.fan == "button":
            return lines
        if place.fan == "top":
            if place.cards:
                lines.append(card_text(place.cards[-1], "•" if marks.selected else " "))
            elif place.down:
                lines.append(back_text(place.down))
            else:
                lines.append(card_text(None))
            return lines
        if place.fan == "right":
            row = Text()
            for i, card in enumerate(place.cards or (None,)):
                chosen = marks.selected and (marks.selected < 0 or i >= len(place.cards) - marks.selected)
                row += card_text(card, "•" if chosen else " ")
            return [*lines, row]
        if place.down:
            lines.append(back_text(place.down))
        for i, card in enumerate(place.cards):
            chosen = marks.selected and (marks.selected < 0 or i >= len(place.cards) - marks.selected)
            lines.append(card_text(card, "•" if chosen else " "))
        if not place.cards and not place.down:
            lines.append(card_text(None))
        return lines

    def _label(self) -> Text:
        place, marks = self.place, self.marks
        mark, style = marked(marks)
        text = place.label if place.fan != "button" else f"[{place.label}]"
        if place.count is not None and place.fan == "top":
            text += f" {place.count}"
        if place.note:
            text += f" {place.note}"
        label = Text(mark) + Text(text, style="bold" if place.fan == "button" else "")
        if style:
            label.stylize(style)
        return label

    def on_click(self, event: events.Click) -> None:
        event.stop()
        offset = event.get_content_offset(self)
        x, y = (offset.x, offset.y) if offset is not None else (event.x, event.y)
        self.post_message(self.Pressed(self.place.name, self._depth(x, y)))

    def _depth(self, x: int, y: int) -> int:
        place = self.place
        if place.fan == "down":
            return place.depth_at(y - 1 - (1 if place.down else 0))
        if place.fan == "right" and y >= 1:
            return place.depth_at(x // SLOT)
        return 0


class BoardView(Vertical):
    """The whole board: a row of :class:`PlaceView` widgets per band, the band's label at its left."""

    DEFAULT_CSS = """
    BoardView { height: auto; width: auto; }
    BoardView > Horizontal { height: auto; width: auto; }
    BoardView .band-label { width: 2; color: $text-muted; }
    """

    def __init__(self, board: Board) -> None:
        super().__init__()
        self.board = board
        self.views: dict[str, PlaceView] = {}

    def compose(self) -> ComposeResult:
        for band in self.board.bands:
            with Horizontal(classes="band"):
                if any(b.label for b in self.board.bands):
                    yield Static(band.label, classes="band-label")
                for place in band.places:
                    view = PlaceView(place)
                    if place.name:
                        self.views[place.name] = view
                    yield view

    def shape(self) -> list[list[tuple[str, str]]]:
        """The board's places as (name, fan), band by band: what the widgets were built for."""
        return [[(p.name, p.fan) for p in band.places] for band in self.board.bands]

    def show(self, board: Board, marks: dict[str, Marks]) -> bool:
        """Draw ``board``; ``False`` if its places differ from the widgets' (then build a new BoardView)."""
        if [[(p.name, p.fan) for p in band.places] for band in board.bands] != self.shape():
            return False
        self.board = board
        widgets = [w for w in self.query(PlaceView)]
        for widget, place in zip(widgets, board.places(), strict=True):
            widget.show(place, marks.get(place.name, Marks()) if place.name else Marks())
        return True
