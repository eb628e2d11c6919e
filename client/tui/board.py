"""What a board on screen is made of: places in bands, and the cursor's moves between them.

A :class:`Board` is drawn from a player's view by a game's layout (:mod:`.layouts`): bands from top
to bottom, each a row of :class:`Place` values left to right. A place is where cards lie and what a
player points at: its ``name`` is the game's own place name (``"p3"``, ``"w"``, ``"f"``, ``"b7"``),
the one its moves use, so a press on a place maps straight onto the legal moves. Everything here is
plain data computed from a view: no Textual, no game state.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from typing import Literal

Fan = Literal["down", "right", "top", "cell", "button", "caption"]
"""How a place's cards lie: ``down`` a column, bottom card first; ``right`` a row, bottom card first;
``top`` only the top card, with the count (stock, waste); ``cell`` one card or nothing (a grid's
cell); ``button`` no card, a thing to press (redeal, settle); ``caption`` text only, not pointable."""

SUIT_SYMBOLS = {"C": "♣", "D": "♦", "H": "♥", "S": "♠"}
RED_SUITS = frozenset("DH")
CARD_WIDTH = 3  # "10♣", " A♠": what every card takes on screen


@dataclass(frozen=True, slots=True)
class Place:
    """One place of a board.

    ``cards`` are the face-up cards' texts (``"TD"``), bottom to top; ``None`` stands for an empty
    slot that keeps its room (a foundation not started, a gap). ``down`` counts the face-down cards
    under them. ``count`` is a number shown with the place (a stock's or a waste's size). ``note``
    is a short text shown under it. ``source`` is false for places no move ever starts from (the
    foundations), so pressing one first does not select it.
    """

    name: str
    label: str = ""
    fan: Fan = "down"
    cards: tuple[str | None, ...] = ()
    down: int = 0
    count: int | None = None
    note: str = ""
    source: bool = True

    @property
    def pointable(self) -> bool:
        """Whether the cursor can rest here (not on captions and other places no move names)."""
        return bool(self.name) and self.fan != "caption"

    def depth_at(self, index: int) -> int:
        """How many cards from the top a press on card ``index`` (0 = bottom face-up card) takes."""
        if self.fan not in ("down", "right") or not 0 <= index < len(self.cards):
            return 0
        return len(self.cards) - index


@dataclass(frozen=True, slots=True)
class Band:
    """A row of places, left to right, with an optional label at its left (a grid's row name)."""

    places: tuple[Place, ...]
    label: str = ""


@dataclass(frozen=True, slots=True)
class Board:
    """A whole board: ``bands`` top to bottom; ``main`` is the band the digit keys point into (the
    tableau); ``status`` is one line of the game's own counters (round, redeals left, ...)."""

    bands: tuple[Band, ...]
    main: int = 0
    status: str = ""

    def places(self) -> list[Place]:
        """Every place, band by band, left to right."""
        return [place for band in self.bands for place in band.places]

    def place(self, name: str) -> Place | None:
        """The place called ``name``, if the board has one."""
        for place in self.places():
            if place.name == name:
                return place
        return None

    def first(self) -> str:
        """Where the cursor starts: the main band's first pointable place."""
        for band in (self.bands[self.main], *self.bands):
            for place in band.places:
                if place.pointable:
                    return place.name
        return ""

    def numbered(self, number: int) -> str | None:
        """The ``number``-th (from 1) pointable place of the main band, for the digit keys."""
        places = [p for p in self.bands[self.main].places if p.pointable]
        return places[number - 1].name if 1 <= number <= len(places) else None


@dataclass(frozen=True, slots=True)
class Link:
    """What a legal move joins on screen: its source place, its destination place (``""`` for a move
    made by pressing one place, like turning the stock) and how many cards it takes (1 if the move
    names no count)."""

    src: str
    dst: str
    count: int = 1


Direction = Literal["left", "right", "up", "down"]
DIRECTIONS: tuple[Direction, ...] = ("left", "right", "up", "down")


def step(board: Board, name: str, direction: Direction) -> str:
    """Where the cursor goes from place ``name`` in ``direction``: the next pointable place in the
    band (wrapping), or in the band above or below, at the same relative position."""
    rows = [[p.name for p in band.places if p.pointable] for band in board.bands]
    rows = [row for row in rows if row]
    at = next(((r, row.index(name)) for r, row in enumerate(rows) if name in row), None)
    if at is None:
        return board.first()
    r, i = at
    if direction in ("left", "right"):
        row = rows[r]
        return row[(i + (1 if direction == "right" else -1)) % len(row)]
    target = (r + (1 if direction == "down" else -1)) % len(rows)
    here, there = rows[r], rows[target]
    if len(here) == len(there):
        return there[i]
    position = (i + 0.5) / len(here)
    return there[min(len(there) - 1, int(position * len(there)))]


def path(board: Board, start: str, target: str) -> list[Direction] | None:
    """The fewest cursor steps from place ``start`` to place ``target`` (``None`` if none gets there)."""
    paths: dict[str, list[Direction]] = {start: []}
    todo = deque([start])
    while todo and target not in paths:
        here = todo.popleft()
        for direction in DIRECTIONS:
            there = step(board, here, direction)
            if there not in paths:
                paths[there] = [*paths[here], direction]
                todo.append(there)
    return paths.get(target)


def card_face(text: str) -> tuple[str, bool]:
    """How card ``text`` (``"TD"``) reads on screen: ``("10♦", True)``, the face right-aligned to
    :data:`CARD_WIDTH` and whether the suit is red. Suits differ by symbol, not only by colour."""
    rank = "10" if text[0] == "T" else text[0]
    return f"{rank}{SUIT_SYMBOLS.get(text[1], text[1])}".rjust(CARD_WIDTH), text[1] in RED_SUITS
