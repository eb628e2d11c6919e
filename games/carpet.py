"""Carpet: sweep a face-up carpet of twenty cards onto four ace foundations.

Rules (RULINGS.md, "Carpet"):

- 52 cards. The four aces start on the foundations. Twenty cards face up in four rows
  of five: the carpet. The other 28 are the face-down deck.
- Foundations build up in suit from the ace. Every carpet card and the top card of the
  discard pile may go to a foundation.
- The player may deal at any time: the deck's top card goes face up onto the discard
  pile. No redeal.
- An empty carpet cell may be filled only from the discard pile's top card.
- Over when won (all 52 cards on the foundations), or when the deck is empty and
  nothing can move (stuck). Score: the cards on the foundations (4 to 52). Higher is
  better.

Choices this module makes:

- The deal: the 48 cards that are not aces, in ascending card order (see
  :mod:`parlour.games.cards`), are shuffled with ``shuffle(deck, seed, "deal")``.
  Shuffled card ``i`` for ``i`` in 0-19 goes to the carpet row by row, left to right:
  row ``"abcd"[i // 5]``, column ``i % 5 + 1`` (card 0 is ``a1``, card 5 is ``b1``).
  Cards 20-47 are the face-down deck; card 20 is dealt first.
- No move is ever made automatically (the source's autoplay is an optional helper);
  a card stays where it is until the player moves it.
- A carpet card never moves to another carpet cell, and nothing leaves a foundation.
- Nothing but a move can still change the board once the deck is empty, so the game
  is stuck exactly when the deck is empty and no move is legal. Filling an empty cell
  from the discard pile counts as a move (it uncovers the next discard card).
- The game always ends by itself: each deal lowers ``3 * deck + discard`` by 2, each
  fill lowers it by 1, and each foundation move either lowers it or adds a card to the
  foundations, so a game has at most about 104 moves.
- Places: carpet cells ``a1`` to ``d5`` (row letter, column number), the discard pile
  ``w``, the foundations ``f`` (one place: a card goes to its own suit's pile), the
  deck ``s``.
- Moves: ``deal`` (deck to discard); ``move <cell> f`` and ``move w f`` (to the
  foundation); ``move w <cell>`` (fill an empty cell). ``count`` is never used.
  Typed shorthands: ``b3`` = ``move b3 f``; ``w`` = ``move w f``; ``w b3`` = ``move w
  b3``; ``b3 f`` = ``move b3 f``; ``deal``, ``s`` or ``t`` = ``deal``; ``d`` may be typed
  for ``w`` anywhere.
- The view: ``carpet`` (four rows of five, a card's text or ``None`` for an empty
  cell), ``foundations`` (the top card of each suit's pile, in suit order C D H S),
  ``discard`` (every discard card, bottom to top: each was dealt face up) and ``deck``
  (a count only).
- Drawing a state from a view (``Game.draw``): the cards the view does not show are
  shuffled into the deck.

Text layout::

    Foundations: 3C AD AH 2S       (the top card of each suit's pile)
    Deck: 6D KC ... 2C             (face-down deck, next dealt first)
    Discard: 9H QS                 (bottom to top)
    a: 2C 3C -- 5H 6D              (four rows a-d, columns 1-5; -- is an empty cell)
    b: ...
    c: ...
    d: ...

Every card must appear exactly once, counting the cards under each foundation top
(all lower ranks of its suit). ``Deck:`` and ``Discard:`` may be empty; a foundation
top may be written in any order, one per suit. No counters are needed: the layout is
the whole state.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any, Final

from parlour.games.base import Ending, Game, Move, Options, OptionValue, fast_init
from parlour.games.cards import KING, RANK, SUIT, TEXT, Card, card_count, cards_text, parse_cards, standard_deck
from parlour.games.errors import BadLayout, BadMove, IllegalMove
from parlour.games.registry import register
from parlour.games.shuffle import shuffle, shuffle_drawn

ROWS, COLS = 4, 5
CELLS: Final = ROWS * COLS
ROW_NAMES: Final = "abcd"
CELL_NAMES: Final = tuple(f"{ROW_NAMES[i // COLS]}{i % COLS + 1}" for i in range(CELLS))
_CELL_INDEX: Final = {name: i for i, name in enumerate(CELL_NAMES)}
DISCARD, FOUNDATION, DECK = "w", "f", "s"
EMPTY: Final = -1  # an empty carpet cell
SUIT_NAMES: Final = ("clubs", "diamonds", "hearts", "spades")

DEAL: Final = Move("deal")
TO_FOUNDATION: Final = tuple(Move("move", name, FOUNDATION) for name in CELL_NAMES)
DISCARD_TO_FOUNDATION: Final = Move("move", DISCARD, FOUNDATION)
FILL: Final = tuple(Move("move", DISCARD, name) for name in CELL_NAMES)
_SOURCES: Final = (*CELL_NAMES, DISCARD)
_ALL_ACES: Final = (1, 1, 1, 1)
_LINES: Final = ("foundations", "deck", "discard", *ROW_NAMES)  # the layout's line names
# _DECODE[move]: (source cell, -1 for the discard pile; destination cell, -1 for the foundations) of every move
# that may be legal.
_DECODE: Final[dict[Move, tuple[int, int]]] = {
    **{move: (i, -1) for i, move in enumerate(TO_FOUNDATION)},
    DISCARD_TO_FOUNDATION: (-1, -1),
    **{move: (-1, j) for j, move in enumerate(FILL)},
}
_HINT: Final = "carpet moves are 'deal', 'move <cell> f', 'move w f' and 'move w <cell>' (cells a1 to d5)"


@dataclass(frozen=True, slots=True)
class CarpetState:
    options: Options
    carpet: tuple[Card, ...]  # 20 cells, a1..a5, b1..b5, ...; EMPTY for an empty cell
    deck: tuple[Card, ...]  # face down, next dealt first
    discard: tuple[Card, ...]  # face up, bottom to top
    foundations: tuple[int, ...]  # the top rank of each suit's pile, C D H S (1 to 13)
    ended: Ending | None = None

    # mypyc compiles this; plain Python replaces it with fast_init's (see fast_init).
    def __init__(
        self,
        options: Options,
        carpet: tuple[Card, ...],
        deck: tuple[Card, ...],
        discard: tuple[Card, ...],
        foundations: tuple[int, ...],
        ended: Ending | None = None,
    ) -> None:
        self.options = options  # type: ignore[misc]
        self.carpet = carpet  # type: ignore[misc]
        self.deck = deck  # type: ignore[misc]
        self.discard = discard  # type: ignore[misc]
        self.foundations = foundations  # type: ignore[misc]
        self.ended = ended  # type: ignore[misc]


fast_init(CarpetState)


@cache
def _wanted(foundations: tuple[int, ...]) -> frozenset[Card]:
    """The cards that go on a foundation now (one per unfinished suit); cached, as few foundations occur."""
    return frozenset(s * 13 + top for s, top in enumerate(foundations) if top < KING)


def _any_move(carpet: tuple[Card, ...], discard: tuple[Card, ...], foundations: tuple[int, ...]) -> bool:
    """Whether some move other than ``deal`` is legal."""
    wanted = _wanted(foundations)
    if discard and (discard[-1] in wanted or EMPTY in carpet):
        return True
    return any(c in carpet for c in wanted)


def _settle(state: CarpetState) -> CarpetState:
    """Mark the state over if it is won or stuck."""
    if state.foundations == (KING, KING, KING, KING):
        ended = Ending.WON
    elif not state.deck and not _any_move(state.carpet, state.discard, state.foundations):
        ended = Ending.STUCK
    else:
        return state
    return CarpetState(state.options, state.carpet, state.deck, state.discard, state.foundations, ended)


def _refusal(state: CarpetState, move: Move) -> BadMove | IllegalMove:
    """Why ``move`` cannot be made here (it is no carpet move, or the rules forbid it now)."""
    kind, src, dst = move.kind, move.src, move.dst
    if kind == "deal":
        return BadMove(f"'deal' takes no places: {move.text()!r}")
    if kind != "move" or move.count or src not in _SOURCES or (dst != FOUNDATION and dst not in _CELL_INDEX):
        return BadMove(f"{_HINT}, not {move.text()!r}")
    carpet, discard = state.carpet, state.discard
    if src == DISCARD:
        if not discard:
            return IllegalMove("the discard pile is empty")
        card = discard[-1]
    else:
        card = carpet[_CELL_INDEX[src]]
        if card == EMPTY:
            return IllegalMove(f"cell {src} is empty")
    if dst == FOUNDATION:
        suit = SUIT[card]
        top = state.foundations[suit]
        needs = "is complete" if top == KING else f"needs {TEXT[suit * 13 + top]} next"
        return IllegalMove(f"{TEXT[card]} does not go on the foundation: the {SUIT_NAMES[suit]} pile {needs}")
    j = _CELL_INDEX[dst]
    if carpet[j] != EMPTY:
        return IllegalMove(f"cell {dst} is not empty (it holds {TEXT[carpet[j]]})")
    return IllegalMove(f"an empty cell may be filled only from the discard pile, not from cell {src}")


class Carpet(Game[CarpetState]):
    name = "carpet"
    title = "Carpet"
    summary = "Sweep a carpet of twenty face-up cards onto the four aces, dealing one card at a time."
    higher_is_better = True
    score_range = (4, 52)

    def _deal(self, seed: int, options: dict[str, OptionValue]) -> CarpetState:
        deck = shuffle([c for c in standard_deck() if RANK[c] != 1], seed, "deal")
        state = CarpetState(options, tuple(deck[:CELLS]), tuple(deck[CELLS:]), (), _ALL_ACES)
        return _settle(state)

    def _legal_moves(self, state: CarpetState) -> list[Move]:
        wanted = _wanted(state.foundations)
        carpet = state.carpet
        moves = [TO_FOUNDATION[i] for i, c in enumerate(carpet) if c in wanted]
        discard = state.discard
        if discard:
            if discard[-1] in wanted:
                moves.append(DISCARD_TO_FOUNDATION)
            if EMPTY in carpet:
                moves += [FILL[i] for i, c in enumerate(carpet) if c == EMPTY]
        if state.deck:
            moves.append(DEAL)
        return moves

    def _apply(self, state: CarpetState, move: Move) -> CarpetState:
        if move == DEAL:
            if not state.deck:
                raise IllegalMove("the deck is empty, and there are no redeals")
            return _settle(
                CarpetState(
                    state.options, state.carpet, state.deck[1:], state.discard + state.deck[:1], state.foundations
                )
            )
        where = _DECODE.get(move)
        if where is None:
            raise _refusal(state, move)
        i, j = where
        carpet, discard, foundations = state.carpet, state.discard, state.foundations
        if i < 0:
            if not discard:
                raise _refusal(state, move)
            card = discard[-1]
        else:
            card = carpet[i]
        if j < 0:  # to the foundations
            suit = card // 13
            if card < 0 or foundations[suit] != card % 13:
                raise _refusal(state, move)
            foundations = foundations[:suit] + (foundations[suit] + 1,) + foundations[suit + 1 :]
            if i < 0:
                return _settle(CarpetState(state.options, carpet, state.deck, discard[:-1], foundations))
            carpet = carpet[:i] + (EMPTY,) + carpet[i + 1 :]
            return _settle(CarpetState(state.options, carpet, state.deck, discard, foundations))
        if carpet[j] != EMPTY:
            raise _refusal(state, move)
        carpet = carpet[:j] + (card,) + carpet[j + 1 :]
        return _settle(CarpetState(state.options, carpet, state.deck, discard[:-1], foundations))

    def _score(self, state: CarpetState) -> int:
        return sum(state.foundations)

    def _view(self, state: CarpetState) -> dict[str, Any]:
        return {
            "carpet": [
                [None if c == EMPTY else TEXT[c] for c in state.carpet[r * COLS : (r + 1) * COLS]] for r in range(ROWS)
            ],
            "foundations": [TEXT[s * 13 + top - 1] for s, top in enumerate(state.foundations)],
            "discard": [TEXT[c] for c in state.discard],
            "deck": len(state.deck),
        }

    def _draw(self, view: Mapping[str, Any], rng: random.Random) -> CarpetState:
        board = view["board"]
        seen: dict[Card, int] = {}
        tops = parse_cards(board["foundations"], seen)
        foundations = tuple(RANK[c] for c in tops)
        parse_cards([TEXT[s * 13 + r] for s, top in enumerate(foundations) for r in range(top - 1)], seen)
        carpet = tuple(
            EMPTY if text is None else parse_cards([text], seen)[0] for row in board["carpet"] for text in row
        )
        discard = tuple(parse_cards(board["discard"], seen))
        deck = [c for c in standard_deck() if c not in seen]
        if (
            view["game"] != self.name
            or [SUIT[c] for c in tops] != [0, 1, 2, 3]
            or len(carpet) != CELLS
            or len(deck) != board["deck"]
        ):
            raise BadLayout("not a player's view of a Carpet game")
        shuffle_drawn(deck, rng)
        ended = None if view["ended"] is None else Ending(view["ended"])
        return CarpetState(dict(view["options"]), carpet, tuple(deck), discard, foundations, ended)

    def render(self, view: Mapping[str, Any]) -> str:
        board = view["board"]
        discard = board["discard"]
        top = f"{discard[-1]} ({card_count(len(discard))})" if discard else "empty"
        lines = [
            f"Foundations (f): {' '.join(board['foundations'])}",
            f"Discard (w): {top}   Deck (s): {card_count(board['deck'])}",
            ("    " + "  ".join(f"{c + 1:<2}" for c in range(COLS))).rstrip(),
        ]
        for r, row in enumerate(board["carpet"]):
            lines.append(f" {ROW_NAMES[r]}  " + "  ".join(card or ".." for card in row))
        lines.append("Moves: deal | move b3 f | move w f | move w b3 (or: s, b3, w, w b3)")
        return "\n".join(lines)

    def to_text(self, state: CarpetState) -> str:
        lines = [
            "Foundations: " + " ".join(TEXT[s * 13 + top - 1] for s, top in enumerate(state.foundations)),
            f"Deck: {cards_text(state.deck)}".rstrip(),
            f"Discard: {cards_text(state.discard)}".rstrip(),
        ]
        for r in range(ROWS):
            row = state.carpet[r * COLS : (r + 1) * COLS]
            lines.append(f"{ROW_NAMES[r]}: " + " ".join("--" if c == EMPTY else TEXT[c] for c in row))
        return "\n".join(lines) + "\n"

    def from_text(self, text: str, options: Mapping[str, object] | None = None) -> CarpetState:
        fields: dict[str, list[str]] = {}
        for number, raw in enumerate(text.splitlines(), 1):
            line = raw.strip()
            if not line:
                continue
            head, colon, rest = line.partition(":")
            key = head.strip().lower()
            if not colon or key not in _LINES:
                raise BadLayout(
                    f"line {number}: expected 'Foundations:', 'Deck:', 'Discard:' or a row 'a:' to 'd:', not {raw!r}"
                )
            if key in fields:
                raise BadLayout(f"line {number}: a second '{head.strip()}:' line")
            fields[key] = rest.split()
        missing = [k for k in _LINES if k not in fields]
        if missing:
            raise BadLayout(
                f"a Carpet layout needs the lines Foundations, Deck, Discard and a to d; missing: {missing}"
            )
        seen: dict[Card, int] = {}
        tops = parse_cards(fields["foundations"], seen)
        if sorted(SUIT[c] for c in tops) != [0, 1, 2, 3]:
            raise BadLayout("Foundations holds four cards, the top card of each suit's pile, one per suit")
        foundations = [0, 0, 0, 0]
        for c in tops:
            foundations[SUIT[c]] = RANK[c]
        below = [s * 13 + r for s, top in enumerate(foundations) for r in range(top - 1)]
        parse_cards([TEXT[c] for c in below], seen)  # claims them, so a repeat elsewhere is caught
        carpet: list[Card] = []
        for r in ROW_NAMES:
            tokens = fields[r]
            if len(tokens) != COLS:
                raise BadLayout(f"row {r} holds {COLS} cells (write -- for an empty one), not {len(tokens)}")
            for token in tokens:
                carpet.append(EMPTY if token in ("--", "..", ".") else parse_cards([token], seen)[0])
        deck = parse_cards(fields["deck"], seen)
        discard = parse_cards(fields["discard"], seen)
        absent = [c for c in standard_deck() if c not in seen]
        if absent:
            raise BadLayout(f"cards missing from the layout: {cards_text(absent)}")
        state = CarpetState(
            self.resolve_options(options), tuple(carpet), tuple(deck), tuple(discard), tuple(foundations)
        )
        return _settle(state)

    def cards(self, state: CarpetState) -> list[Card]:
        on_foundations = [s * 13 + r for s, top in enumerate(state.foundations) for r in range(top)]
        return on_foundations + [c for c in state.carpet if c != EMPTY] + list(state.deck) + list(state.discard)

    def hidden_cards(self, state: CarpetState) -> list[Card]:
        return list(state.deck)

    def candidate_moves(self, state: CarpetState) -> Iterable[Move]:
        destinations = [FOUNDATION] + [name for name, c in zip(CELL_NAMES, state.carpet, strict=True) if c == EMPTY]
        return [DEAL] + [Move("move", src, dst) for src in _SOURCES for dst in destinations]

    def parse_move(self, text: str) -> Move:
        tokens = ["w" if t == "d" else t for t in text.strip().lower().split()]
        if len(tokens) == 1:
            token = tokens[0]
            if token in ("deal", "s", "t"):
                return DEAL
            if token in _CELL_INDEX:
                return TO_FOUNDATION[_CELL_INDEX[token]]
            if token == DISCARD:
                return DISCARD_TO_FOUNDATION
        if len(tokens) == 2 and tokens[0] in _SOURCES:
            return Move("move", tokens[0], tokens[1])
        if len(tokens) == 3 and tokens[0] == "move":
            return Move("move", tokens[1], tokens[2])
        return super().parse_move(text)


CARPET: Final = register(Carpet())
