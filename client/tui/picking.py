"""Pointing at places: what a press on a place means, given what is selected.

A player presses a source, then a destination (by keys or by mouse). :func:`press` turns one press
into an :class:`Outcome`: select a source (with the destinations its legal moves reach, to
highlight), clear the selection, play a move, or refuse with a reason. Pure: it reads the view's
legal moves through the game's layout and decides nothing the rules decide; a move the player
means but no legal move matches is still played (:class:`Play`), so that the engine or the server
says why it is refused.
"""

from __future__ import annotations

from dataclasses import dataclass

from parlour.client.tui.board import Board, Link
from parlour.client.tui.layouts import Layout, View
from parlour.games import Move


@dataclass(frozen=True, slots=True)
class Selection:
    """A selected source: the place, and how many cards from its top (0: as many as a move takes)."""

    place: str
    count: int = 0


@dataclass(frozen=True, slots=True)
class Select:
    """Select ``selection``; ``targets`` are the places its legal moves go to; ``note`` says more."""

    selection: Selection
    targets: frozenset[str]
    note: str = ""


@dataclass(frozen=True, slots=True)
class Clear:
    """Drop the selection."""


@dataclass(frozen=True, slots=True)
class Play:
    """Send ``move`` (it may be refused: then show the reason and keep the board)."""

    move: Move


@dataclass(frozen=True, slots=True)
class Refuse:
    """Nothing to do, because of ``reason``; the selection is dropped."""

    reason: str


Outcome = Select | Clear | Play | Refuse


def counts_from(links: list[tuple[Link, Move]], place: str) -> list[int]:
    """The numbers of cards legal moves take from ``place`` to another place, largest first."""
    return sorted({link.count for link, _ in links if link.src == place and link.dst}, reverse=True)


def targets(links: list[tuple[Link, Move]], selection: Selection) -> frozenset[str]:
    """The places the legal moves of ``selection`` go to."""
    return frozenset(
        link.dst for link, _ in links if link.src == selection.place and link.dst and selection.count in (0, link.count)
    )


def press(layout: Layout, view: View, board: Board, selected: Selection | None, name: str, count: int = 0) -> Outcome:
    """What pressing place ``name`` means. ``count`` is how many cards from its top the press points
    at (a click on a card deep in a column), 0 for the place as a whole (a key)."""
    links = layout.links(view)
    if selected is not None:
        return _destination(layout, view, links, selected, name)
    if name in layout.actions:
        return Play(layout.actions[name])
    place = board.place(name)
    if place is None or not place.pointable:
        return Refuse("there is nothing to move there")
    outgoing = [(link, move) for link, move in links if link.src == name and link.dst]
    incoming = [move for link, move in links if link.dst == name]
    if layout.one_click and len(outgoing) == 1:
        return Play(outgoing[0][1])
    empty = place.down == 0 and all(card is None for card in place.cards)
    if not outgoing and (empty or not place.source):
        if empty and len(incoming) == 1:  # an empty place only one move can fill: fill it (a gap of Gaps)
            return Play(incoming[0])
        what = f"{place.label or name} is empty" if empty else f"nothing moves from {place.label or name}"
        return Refuse(what + (": choose the card to move first" if incoming else ""))
    counts = counts_from(links, name)
    selection = Selection(name, count if count in counts and len(counts) > 1 else 0)
    note = "" if outgoing else f"no legal move from {place.label or name}"
    return Select(selection, targets(links, selection), note)


def _destination(layout: Layout, view: View, links: list[tuple[Link, Move]], selected: Selection, name: str) -> Outcome:
    if name == selected.place:  # again: take fewer cards, then drop the selection
        counts = counts_from(links, name)
        current = selected.count or (counts[0] if counts else 0)
        fewer = [c for c in counts if c < current]
        if not fewer:
            return Clear()
        smaller = Selection(name, fewer[0])
        return Select(smaller, targets(links, smaller), f"taking {fewer[0]} card{'s' if fewer[0] > 1 else ''}")
    joining = [(link, move) for link, move in links if link.src == selected.place and link.dst == name]
    if selected.count:
        joining = [(link, move) for link, move in joining if link.count == selected.count]
    if joining:
        return Play(max(joining, key=lambda pair: pair[0].count)[1])
    meant = layout.attempt(view, selected.place, name, selected.count)
    return Play(meant) if isinstance(meant, Move) else Refuse(meant)


def presses(layout: Layout, view: View) -> list[tuple[Move, list[str]]]:
    """Every legal move a player makes by pressing whole places (no depth), with the places pressed: one
    (a move made by its source alone) or two (source, then destination)."""
    board = layout.board(view)
    found: list[tuple[Move, list[str]]] = []
    for link, move in layout.links(view):
        first = press(layout, view, board, None, link.src)
        if isinstance(first, Play) and first.move == move:
            found.append((move, [link.src]))
        elif isinstance(first, Select) and link.dst:
            second = press(layout, view, board, first.selection, link.dst)
            if isinstance(second, Play) and second.move == move:
                found.append((move, [link.src, link.dst]))
    return found
