"""Each game's board on screen, drawn from a player's view, and what its moves join.

One :class:`Layout` per game, found by :func:`layout_for`. A layout reads only the view (the
``board`` a game's ``view(state, "player")`` returns, and its ``moves``), so it cannot show a
hidden card: face-down cards arrive as counts and are drawn as backs. For the pointing it says
which places each legal move joins (:meth:`Layout.links`), which move a press on a place alone makes
(:attr:`Layout.actions`: the stock, a redeal button), and which move a player means by a source and
a destination that no legal move joins (:meth:`Layout.attempt`), so the engine or the server can
say why it is refused.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from parlour.client.tui.board import Band, Board, Link, Place
from parlour.games import Move

View = Mapping[str, Any]
SUITS = "CDHS"
RANKS = "A23456789TJQK"


def legal_moves(view: View) -> list[Move]:
    """The view's legal moves as :class:`Move` values (none once the game is over)."""
    return [Move.from_wire(m) for m in view.get("moves", [])]


def _pile(name: str, cards: Sequence[str | None], label: str = "", **extra: Any) -> Place:
    return Place(name, label or name, "down", tuple(cards), **extra)


def _stock(count: int, label: str = "Stock") -> Place:
    return Place("s", label, "top", down=count, count=count)


def _waste(cards: Sequence[str], label: str = "Waste", source: bool = True) -> Place:
    return Place("w", label, "top", tuple(cards), count=len(cards), source=source)


def _foundations(tops: Sequence[str | None], label: str = "Foundations", **extra: Any) -> Place:
    return Place("f", label, "right", tuple(tops), source=False, **extra)


def _caption(text: str) -> Place:
    return Place("", text, "caption")


def _grid(rows: Sequence[Sequence[str | None]], names: Sequence[Sequence[str]], row_labels: str) -> list[Band]:
    """A grid of cells: one band per row, each labelled, its cells named by ``names``."""
    return [
        Band(tuple(Place(name, "", "cell", (card,)) for name, card in zip(row_names, row, strict=True)), label)
        for label, row_names, row in zip(row_labels, names, rows, strict=True)
    ]


def _header(labels: Sequence[str], row_label: str = " ") -> Band:
    return Band(tuple(_caption(text) for text in labels), row_label)


class Layout:
    """One game's board and pointing. Subclasses set ``game`` and implement :meth:`board`."""

    game: ClassVar[str]
    actions: ClassVar[dict[str, Move]] = {}
    """The move a press on a place alone makes (turn the stock, redeal), by place name."""
    one_click: ClassVar[bool] = False
    """Whether pressing a source with one legal move plays it at once (Golf: a pile goes to the waste)."""

    def board(self, view: View) -> Board:
        """The board drawn from ``view``."""
        raise NotImplementedError

    def link(self, move: Move, view: View) -> list[Link]:
        """The places ``move`` joins (a move a player may point at either way has two links)."""
        for place, action in self.actions.items():
            if move == action:
                return [Link(place, "")]
        if move.dst:
            return [Link(move.src, move.dst, move.count or 1)]
        return [Link(move.src, "")]

    def links(self, view: View) -> list[tuple[Link, Move]]:
        """Every legal move of ``view`` with the places it joins."""
        return [(link, move) for move in legal_moves(view) for link in self.link(move, view)]

    def attempt(self, view: View, src: str, dst: str, count: int) -> Move | str:
        """The move meant by taking ``count`` cards (0: as many as the move takes) from ``src`` to
        ``dst`` when no legal move joins them: a move to send (the engine says why it is refused),
        or the reason itself when the game has no such move at all."""
        if dst == "f":
            return Move("move", src, "f")
        return Move("move", src, dst, max(count, 1))


class GolfLayout(Layout):
    game = "golf"
    actions: ClassVar[dict[str, Move]] = {"s": Move("turn")}
    one_click = True

    def board(self, view: View) -> Board:
        b = view["board"]
        top = Band((_stock(b["stock"]), _waste(b["waste"], source=False)))
        piles = Band(tuple(_pile(f"p{i}", pile, str(i)) for i, pile in enumerate(b["piles"], 1)))
        return Board((top, piles), main=1)

    def link(self, move: Move, view: View) -> list[Link]:
        if move.kind == "play":
            return [Link(move.src, "w")]
        return super().link(move, view)

    def attempt(self, view: View, src: str, dst: str, count: int) -> Move | str:
        if dst == "w" and src.startswith("p"):
            return Move("play", src)
        return "in Golf a pile's top card goes onto the waste, nowhere else"


class GermanPatienceLayout(Layout):
    game = "german-patience"
    actions: ClassVar[dict[str, Move]] = {"s": Move("turn")}

    def board(self, view: View) -> Board:
        b = view["board"]
        top = Band((_stock(b["stock"]), _waste(b["waste"])))
        piles = Band(tuple(_pile(f"p{i}", pile, str(i), note=_takes(pile)) for i, pile in enumerate(b["piles"], 1)))
        return Board((top, piles), main=1, status="A card goes on a pile one rank lower (K, then A); 13 fill a pile.")

    def attempt(self, view: View, src: str, dst: str, count: int) -> Move | str:
        if dst == "w":
            return "only the stock turns cards onto the waste"
        return Move("move", src, dst)


def _takes(pile: Sequence[str]) -> str:
    """What a German Patience pile takes next: ``"5"``, ``"any"`` or ``"full"``."""
    if not pile:
        return "any"
    if len(pile) >= 13:
        return "full"
    return "+" + RANKS[(RANKS.index(pile[-1][0]) + 1) % 13].replace("T", "10")


class CarpetLayout(Layout):
    game = "carpet"
    actions: ClassVar[dict[str, Move]] = {"s": Move("deal")}

    def board(self, view: View) -> Board:
        b = view["board"]
        top = Band((_stock(b["deck"], "Deck"), _waste(b["discard"], "Discard"), _foundations(b["foundations"])))
        names = [[f"{r}{c}" for c in range(1, 6)] for r in "abcd"]
        return Board((top, _header("12345"), *_grid(b["carpet"], names, "abcd")), main=2)

    def attempt(self, view: View, src: str, dst: str, count: int) -> Move | str:
        if dst == "f" or src == "w":
            return Move("move", src, dst)
        return "a carpet card goes only to the foundations; the discard's top card fills an empty cell"


class GapsLayout(Layout):
    game = "gaps"
    actions: ClassVar[dict[str, Move]] = {"redeal": Move("redeal")}

    def board(self, view: View) -> Board:
        b = view["board"]
        redeal = Place("redeal", "Redeal", "button", note=f"{b['redeals_left']} left")
        removed = Place("", "Removed", "right", tuple(b["removed"]), source=False)
        names = [[f"{r}{c}" for c in range(1, 14)] for r in "abcd"]
        header = _header([str(c) for c in range(1, 14)])
        status = "Fill a gap with the card after its left neighbour (same suit, one rank up)."
        return Board((Band((redeal, removed)), header, *_grid(b["rows"], names, "abcd")), main=2, status=status)

    def link(self, move: Move, view: View) -> list[Link]:
        if move.kind == "fill":
            card = _gap_takes(view, move.src)
            where = _cell_of(view, card) if card else None
            return [Link(where, move.src)] if where else []
        return super().link(move, view)

    def attempt(self, view: View, src: str, dst: str, count: int) -> Move | str:
        card = _cell_card(view, src)
        if _cell_card(view, dst) is not None or card is None:
            return Move("fill", dst)
        wanted = _gap_takes(view, dst)
        if wanted is None or wanted == card:
            return Move("fill", dst)  # the engine says why nothing goes there
        return f"the gap at {dst} takes {wanted}, the card after its left neighbour, not {card}"


def _cell_card(view: View, cell: str) -> str | None:
    rows = view["board"]["rows"]
    return rows["abcd".index(cell[0])][int(cell[1:]) - 1]


def _cell_of(view: View, card: str) -> str | None:
    for r, row in enumerate(view["board"]["rows"]):
        for c, text in enumerate(row):
            if text == card:
                return f"{'abcd'[r]}{c + 1}"
    return None


def _gap_takes(view: View, gap: str) -> str | None:
    """The card that fills ``gap`` (one rank above its left neighbour, same suit), or ``None``."""
    column = int(gap[1:])
    if column == 1:
        return None
    left = _cell_card(view, f"{gap[0]}{column - 1}")
    if left is None or left[0] == "K":
        return None
    return RANKS[RANKS.index(left[0]) + 1] + left[1]


class CheerLayout(Layout):
    game = "cheer"

    def board(self, view: View) -> Board:
        b = view["board"]
        opened = b["opened"]
        top = Band((_foundations(b["foundations"]),))
        columns = [_pile(f"c{i}", pile, f"c{i}") for i, pile in enumerate(b["columns"], 1)]
        parking = [
            _pile(f"p{i}", pile, f"p{i}", note="open" if f"p{i}" in opened else "new")
            for i, pile in enumerate(b["parking"], 1)
        ]
        status = f"Parking spaces opened: {len(opened)} of 3; opening a third loses."
        return Board((top, Band((*columns, *parking))), main=1, status=status)


class ChrisCrossPairsLayout(Layout):
    game = "chris-cross-pairs"
    actions: ClassVar[dict[str, Move]] = {"settle": Move("settle")}

    def board(self, view: View) -> Board:
        b = view["board"]
        settle = Place("settle", "Settle", "button", note="end the step")
        top = Band((_stock(b["stock"]), _waste(b["waste"], "Cast out", source=False), settle))
        names = [[f"{c}{r}" for c in "abcde"] for r in range(1, 6)]
        status = f"Round {b['round']}, phase {b['phase']}: {b['pairs_this_round']} pairs this round"
        if not b["can_cast"]:
            status += "; casting is over for this step: slide, then settle"
        return Board((top, _header("abcde"), *_grid(b["rows"], names, "12345")), main=2, status=status)

    def link(self, move: Move, view: View) -> list[Link]:
        if move.kind == "cast":
            return [Link(move.src, move.dst), Link(move.dst, move.src)]
        return super().link(move, view)

    def attempt(self, view: View, src: str, dst: str, count: int) -> Move | str:
        rows = view["board"]["rows"]
        if len(src) != 2 or len(dst) != 2:
            return "cards are cast in pairs from the grid, and slide within it"
        target = rows[int(dst[1]) - 1]["abcde".index(dst[0])]
        if target is None:
            return Move("slide", src, dst)
        first, second = sorted((src, dst))
        return Move("cast", first, second)


class GateLayout(Layout):
    game = "gate"
    actions: ClassVar[dict[str, Move]] = {"s": Move("turn")}

    def board(self, view: View) -> Board:
        b = view["board"]
        foundations = _foundations(b["foundations"], note=f"{b['foundation_cards']} of 52")
        top = Band((_stock(b["stock"]), _waste(b["waste"]), foundations))
        reserves = Band(tuple(Place(f"r{i}", f"r{i}", "right", tuple(r)) for i, r in enumerate(b["reserves"], 1)))
        piles = Band(tuple(_pile(f"t{i}", pile, f"t{i}") for i, pile in enumerate(b["piles"], 1)))
        vacancy = {"reserve": "a reserve's top card", "waste": "the waste's top card", "any": "any card or run"}
        return Board((top, reserves, piles), main=2, status=f"A vacant pile takes {vacancy[b['vacancy']]}.")

    def attempt(self, view: View, src: str, dst: str, count: int) -> Move | str:
        if src.startswith("t") and dst.startswith("t"):  # only a move between piles gives a number of cards
            return Move("move", src, dst, max(count, 1))
        return Move("move", src, dst)


class TheChanceLayout(Layout):
    game = "the-chance"
    actions: ClassVar[dict[str, Move]] = {"s": Move("turn")}

    def board(self, view: View) -> Board:
        b = view["board"]
        foundations = Place("", "Foundations", "right", tuple(b["foundations"]), source=False)
        top = Band((_stock(b["stock"]), _waste(b["waste"]), foundations))
        columns = Band(
            tuple(
                _pile(f"c{i}", column["up"], f"c{i}", down=column["down"]) for i, column in enumerate(b["columns"], 1)
            )
        )
        status = "Cards go to the foundations by themselves."
        if b["idle"] >= 1 and b["stock"] == 0 and b["waste"]:
            status += " Turning the waste over now ends the game: nothing moved since the last turnover."
        return Board((top, columns), main=1, status=status)

    def attempt(self, view: View, src: str, dst: str, count: int) -> Move | str:
        if dst == "w":
            return "only the stock turns cards onto the waste"
        if src == "w":
            return Move("move", "w", dst)
        return Move("move", src, dst, max(count, 1))


LAYOUTS: dict[str, Layout] = {
    layout.game: layout
    for layout in (
        CarpetLayout(),
        CheerLayout(),
        ChrisCrossPairsLayout(),
        GapsLayout(),
        GateLayout(),
        GermanPatienceLayout(),
        GolfLayout(),
        TheChanceLayout(),
    )
}


def layout_for(game: str) -> Layout:
    """The layout of ``game`` (a registered game's name)."""
    return LAYOUTS[game]
