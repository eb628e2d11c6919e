"""German Patience: build eight piles of thirteen, one rank up at a time, from two decks.

Rules (RULINGS.md, "German Patience"):

- 104 cards (two decks). Eight cards are dealt face up, one to each of eight piles;
  the other 96 are the face-down stock. The piles are both tableau and foundations.
- A card goes on a pile whose top card is one rank lower, suit and colour ignored;
  ranks wrap (an A goes on a K). A pile holds at most 13 cards. Only single cards move.
- The top card of a pile may move to another pile; the top card of the waste may
  move to a pile. An empty pile takes any card.
- The stock may be turned at any time: its top card goes face up onto the waste.
  No redeal.
- Won when all eight piles hold 13 cards. Score: the cards in the eight piles
  (8 to 104). Higher is better.

Choices this module makes:

- The deal: the two decks in ascending card order (``standard_deck(decks=2)``, card
  ``deck * 52 + suit * 13 + rank - 1``) are shuffled with ``shuffle(deck, seed, "deal")``.
  Shuffled card ``i`` (0-7) goes face up onto pile ``i + 1``; cards 8-103 are the
  stock, card 8 turned first. The waste starts empty.
- Places: piles ``p1`` to ``p8``, the waste ``w``. Moves: ``turn`` (stock to waste),
  ``move pN pM`` (pile N's top card onto pile M) and ``move w pM`` (the waste's top
  card onto pile M). No move carries a count. ``move pN pN`` is refused as illegal.
  Players may also type ``t`` or ``s`` for ``turn``, and ``3 5``, ``p3 p5``, ``w 5`` or
  ``w p5`` for the moves.
- Legal moves are listed source by source (``p1`` to ``p8``, then ``w``), each
  source's destinations from ``p1`` to ``p8``, and ``turn`` last.
- Every move the rules allow is listed, even one that gains nothing (the only card
  of a pile moved onto an empty pile, or a full pile's top card moved away and back):
  the rules forbid neither, so random play may cycle forever once the stock is empty.
- The game is stuck when no move is legal: the stock is empty, no pile is empty, and
  no pile top or waste top is one rank above the top of a pile holding fewer than 13.
- The view shows every pile and the whole waste (every waste card was turned face
  up) and the stock as a count. Two decks share text forms, so texts may repeat.
- Drawing a state from a view (``Game.draw``): the cards the view does not show are
  shuffled into the stock. The view cannot tell the decks apart, so a drawn state gives
  the first copy of a text read (piles p1-p8, then the waste) deck 0's card.

Text layout (``to_text`` / ``from_text``)::

    Stock: 7H 2C KD ...        (next turned first; may be empty)
    Waste: 4S 9D               (bottom to top; may be empty)
    p1: 5H 6C 7D               (eight lines p1-p8, bottom to top; may be empty)
    ...
    p8: KS

The ten lines may come in any order (names are case-insensitive, blank lines are
ignored) and must hold all 104 cards, every text exactly twice. The two cards written
the same, e.g. both ``TD``, are told apart by reading order: the first ``TD`` read
(lines from the top, cards left to right) is deck 0's, the second deck 1's. No rule
tells the decks apart, so this never changes the play. Every pile must be a run of
consecutive ranks going up (with K to A allowed) of at most 13 cards.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from itertools import pairwise
from typing import Any, Final

from parlour.games.base import Ending, Game, Move, Options, OptionValue, fast_init
from parlour.games.cards import RANK, RANK_CHARS, TEXT, Card, card_count, cards_text, parse_cards, standard_deck
from parlour.games.errors import BadLayout, BadMove, IllegalMove
from parlour.games.registry import register
from parlour.games.shuffle import shuffle, shuffle_drawn

PILES: Final = 8
FULL: Final = 13
DECK_SIZE: Final = 104
WASTE: Final = PILES  # source index of the waste
PILE_NAMES: Final = tuple(f"p{i + 1}" for i in range(PILES))
SOURCE_NAMES: Final = (*PILE_NAMES, "w")
_PILE_INDEX: Final = {name: i for i, name in enumerate(PILE_NAMES)}
_SOURCE_INDEX: Final = {name: i for i, name in enumerate(SOURCE_NAMES)}
_LINES: Final = ("stock", "waste", *PILE_NAMES)  # the layout's line names
TURN: Final = Move("turn")
# MOVES[src][dst]: src 0-7 are piles, 8 the waste; dst 0-7 are piles.
MOVES: Final = tuple(tuple(Move("move", s, d) for d in PILE_NAMES) for s in SOURCE_NAMES)
# ACCEPTS[c]: the rank a card needs to go on top of card c (one higher, K takes A).
ACCEPTS: Final[tuple[int, ...]] = tuple(RANK[c] % 13 + 1 for c in range(DECK_SIZE))
_FULL_DECK: Final = standard_deck(decks=2)
_DECODE: Final = {MOVES[s][d]: (s, d) for s in range(PILES + 1) for d in range(PILES)}
# _BY_MASK[src][mask]: the moves from src to the piles whose bits are set in mask, pile 1 first.
_BY_MASK: Final = tuple(
    tuple(tuple(row[d] for d in range(PILES) if mask >> d & 1) for mask in range(1 << PILES)) for row in MOVES
)


@dataclass(frozen=True, slots=True)
class GermanPatienceState:
    options: Options
    piles: tuple[tuple[Card, ...], ...]  # eight piles, bottom to top
    stock: tuple[Card, ...]  # face down, next turned first
    waste: tuple[Card, ...]  # face up, bottom to top
    ended: Ending | None = None

    # mypyc compiles this; plain Python replaces it with fast_init's (see fast_init).
    def __init__(
        self,
        options: Options,
        piles: tuple[tuple[Card, ...], ...],
        stock: tuple[Card, ...],
        waste: tuple[Card, ...],
        ended: Ending | None = None,
    ) -> None:
        self.options = options  # type: ignore[misc]
        self.piles = piles  # type: ignore[misc]
        self.stock = stock  # type: ignore[misc]
        self.waste = waste  # type: ignore[misc]
        self.ended = ended  # type: ignore[misc]


fast_init(GermanPatienceState)


def _has_move(piles: tuple[tuple[Card, ...], ...], waste: tuple[Card, ...]) -> bool:
    """Whether any card can go onto a pile (the stock aside)."""
    wanted = set()
    for pile in piles:
        n = len(pile)
        if not n:
            return True  # an empty pile takes the top of any other pile or the waste
        if n < FULL:
            wanted.add(ACCEPTS[pile[-1]])
    if not wanted:
        return False
    if waste and RANK[waste[-1]] in wanted:
        return True
    # A pile never takes its own top card (it wants a rank one higher), so no self check.
    return any(RANK[pile[-1]] in wanted for pile in piles)


def _settle(state: GermanPatienceState) -> GermanPatienceState:
    """Mark the state over if it is won or stuck."""
    if state.stock:
        return state
    piles = state.piles
    if all(len(pile) == FULL for pile in piles):
        return GermanPatienceState(state.options, piles, state.stock, state.waste, Ending.WON)
    if not _has_move(piles, state.waste):
        return GermanPatienceState(state.options, piles, state.stock, state.waste, Ending.STUCK)
    return state


def _pile_label(i: int) -> str:
    return f"pile {i + 1}"


class GermanPatience(Game[GermanPatienceState]):
    name = "german-patience"
    title = "German Patience"
    summary = "Two decks: build eight piles of 13 one rank up, suits ignored, K then A; most cards in piles wins."
    higher_is_better = True
    score_range = (8, 104)

    def _deal(self, seed: int, options: dict[str, OptionValue]) -> GermanPatienceState:
        deck = shuffle(_FULL_DECK, seed, "deal")
        piles = tuple((deck[i],) for i in range(PILES))
        return _settle(GermanPatienceState(options, piles, tuple(deck[PILES:]), ()))

    def _legal_moves(self, state: GermanPatienceState) -> list[Move]:
        piles = state.piles
        # wants[r]: bit d set if pile d takes a card of rank r; empty: bit d set if pile d is empty.
        wants = [0] * 14
        empty = 0
        for d, pile in enumerate(piles):
            n = len(pile)
            if not n:
                empty |= 1 << d
            elif n < FULL:
                wants[ACCEPTS[pile[-1]]] |= 1 << d
        moves: list[Move] = []
        # A non-empty pile never takes its own top card, so no source is among its destinations.
        for s, pile in enumerate(piles):
            if pile:
                mask = wants[RANK[pile[-1]]] | empty
                if mask:
                    moves += _BY_MASK[s][mask]
        if state.waste:
            mask = wants[RANK[state.waste[-1]]] | empty
            if mask:
                moves += _BY_MASK[WASTE][mask]
        if state.stock:
            moves.append(TURN)
        return moves

    def _apply(self, state: GermanPatienceState, move: Move) -> GermanPatienceState:
        where = _DECODE.get(move)
        if where is None:
            if move != TURN:
                raise BadMove(
                    f"German Patience moves are 'turn', 'move pN pM' and 'move w pM' (N, M from 1 to 8), "
                    f"not {move.text()!r}"
                )
            stock = state.stock
            if not stock:
                raise IllegalMove("the stock is empty")
            return _settle(GermanPatienceState(state.options, state.piles, stock[1:], state.waste + stock[:1]))
        s, d = where
        if s == d:
            raise IllegalMove(f"a card cannot move from {_pile_label(s)} onto the same pile")
        piles = state.piles
        if s == WASTE:
            if not state.waste:
                raise IllegalMove("the waste is empty")
            card = state.waste[-1]
        else:
            if not piles[s]:
                raise IllegalMove(f"{_pile_label(s)} is empty")
            card = piles[s][-1]
        target = piles[d]
        if target:
            if len(target) >= FULL:
                raise IllegalMove(f"{_pile_label(d)} already holds {FULL} cards")
            top = target[-1]
            if RANK[card] != ACCEPTS[top]:
                need = RANK_CHARS[ACCEPTS[top] - 1]
                raise IllegalMove(
                    f"{TEXT[card]} cannot go on {TEXT[top]} in {_pile_label(d)}: "
                    f"only a card one rank higher ({need}) can"
                )
        new = list(piles)
        new[d] = target + (card,)
        if s == WASTE:
            return _settle(GermanPatienceState(state.options, tuple(new), state.stock, state.waste[:-1]))
        new[s] = piles[s][:-1]
        # A pile-to-pile move never ends the game: the cards in piles stay as many (so it
        # cannot win), and the moved card can always go back (its old pile now wants its
        # rank, or is empty), so it cannot leave the game stuck.
        return GermanPatienceState(state.options, tuple(new), state.stock, state.waste)

    def _score(self, state: GermanPatienceState) -> int:
        return sum(len(pile) for pile in state.piles)

    def _view(self, state: GermanPatienceState) -> dict[str, Any]:
        return {
            "piles": [[TEXT[c] for c in pile] for pile in state.piles],
            "waste": [TEXT[c] for c in state.waste],
            "stock": len(state.stock),
        }

    def _draw(self, view: Mapping[str, Any], rng: random.Random) -> GermanPatienceState:
        board = view["board"]
        seen: dict[Card, int] = {}
        piles = tuple(tuple(parse_cards(pile, seen, decks=2)) for pile in board["piles"])
        waste = tuple(parse_cards(board["waste"], seen, decks=2))
        stock = [c + 52 * deck for c in range(52) for deck in range(seen.get(c, 0), 2)]
        if view["game"] != self.name or len(piles) != PILES or len(stock) != board["stock"]:
            raise BadLayout("not a player's view of a German Patience game")
        shuffle_drawn(stock, rng)
        ended = None if view["ended"] is None else Ending(view["ended"])
        return GermanPatienceState(dict(view["options"]), piles, tuple(stock), waste, ended)

    def render(self, view: Mapping[str, Any]) -> str:
        board = view["board"]
        waste = board["waste"]
        shown = " ".join(waste[-6:])
        if len(waste) > 6:
            shown = "... " + shown
        lines = [f"Stock: {card_count(board['stock'])}   Waste w ({len(waste)}): {shown or '-'}"]
        for name, pile in zip(PILE_NAMES, board["piles"], strict=True):
            if not pile:
                note = "empty, takes any card"
            elif len(pile) >= FULL:
                note = "full"
            else:
                note = "takes " + RANK_CHARS[(RANK_CHARS.index(pile[-1][0]) + 1) % 13]
            lines.append(f"{name} ({len(pile):>2}): {' '.join(pile):<38} {note}")
        lines.append("moves: turn | move p1 p2 | move w p3")
        return "\n".join(lines)

    def to_text(self, state: GermanPatienceState) -> str:
        lines = [f"Stock: {cards_text(state.stock)}".rstrip(), f"Waste: {cards_text(state.waste)}".rstrip()]
        lines += [f"{name}: {cards_text(pile)}".rstrip() for name, pile in zip(PILE_NAMES, state.piles, strict=True)]
        return "\n".join(lines) + "\n"

    def from_text(self, text: str, options: Mapping[str, object] | None = None) -> GermanPatienceState:
        resolved = self.resolve_options(options)
        seen: dict[Card, int] = {}
        found: dict[str, list[Card]] = {}
        for number, raw in enumerate(text.splitlines(), 1):
            line = raw.strip()
            if not line:
                continue
            head, colon, rest = line.partition(":")
            label = head.strip().lower()
            if not colon or label not in _LINES:
                raise BadLayout(
                    f"line {number}: expected 'Stock:', 'Waste:' or 'p1:' to 'p8:' followed by cards, not {line!r}"
                )
            if label in found:
                raise BadLayout(f"line {number}: {head.strip()!r} appears twice")
            try:
                found[label] = parse_cards(rest.split(), seen, decks=2)
            except BadLayout as error:
                raise BadLayout(f"line {number}: {error}") from None
            if label in _PILE_INDEX:
                self._check_pile(found[label], number, label)
        missing = [label for label in _LINES if label not in found]
        if missing:
            raise BadLayout(f"a German Patience layout needs the lines Stock, Waste and p1 to p8; missing: {missing}")
        total = sum(len(cards) for cards in found.values())
        if total != DECK_SIZE:
            short = sorted(c for c in range(52) if seen.get(c, 0) < 2)
            detail = ", ".join(f"{TEXT[c]} x{2 - seen.get(c, 0)}" for c in short[:10])
            raise BadLayout(f"a layout holds all {DECK_SIZE} cards (two decks), found {total}; missing {detail}")
        piles = tuple(tuple(found[name]) for name in PILE_NAMES)
        state = GermanPatienceState(resolved, piles, tuple(found["stock"]), tuple(found["waste"]))
        return _settle(state)

    @staticmethod
    def _check_pile(pile: list[Card], number: int, label: str) -> None:
        if len(pile) > FULL:
            raise BadLayout(f"line {number}: {label} holds {len(pile)} cards; a pile holds at most {FULL}")
        for below, above in pairwise(pile):
            if RANK[above] != ACCEPTS[below]:
                raise BadLayout(
                    f"line {number}: {label} has {TEXT[above]} on {TEXT[below]}; "
                    "a pile goes up one rank at a time (K then A)"
                )

    def cards(self, state: GermanPatienceState) -> list[Card]:
        return [c for pile in state.piles for c in pile] + list(state.waste) + list(state.stock)

    def hidden_cards(self, state: GermanPatienceState) -> list[Card]:
        return list(state.stock)

    def candidate_moves(self, state: GermanPatienceState) -> Iterable[Move]:
        return [TURN] + [m for row in MOVES for m in row]

    def parse_move(self, text: str) -> Move:
        tokens = text.strip().lower().split()
        if tokens in (["t"], ["s"], ["stock"]):
            return TURN
        if tokens and tokens[0] == "move":
            tokens = tokens[1:]
            if len(tokens) != 2:
                return super().parse_move(text)
        if len(tokens) == 2:
            src, dst = (f"p{t}" if t.isdigit() else t for t in tokens)
            if src in _SOURCE_INDEX and dst in _PILE_INDEX:
                return MOVES[_SOURCE_INDEX[src]][_PILE_INDEX[dst]]
        return super().parse_move(text)


GERMAN_PATIENCE: Final = register(GermanPatience())
