"""Golf: clear seven face-up piles onto one waste pile, one rank up or down.

Rules (RULINGS.md, "Golf"):

- 52 cards. Seven piles of five, all face up. The other 17 are the face-down stock;
  the first stock card is turned onto the waste at the start, leaving 16.
- The top card of any pile may go onto the waste if it is one rank above or below the
  waste's top card, suit ignored. Ranks do not wrap: only a Q goes on a K, only a 2 on
  an A.
- The stock may be turned at any time. No redeal.
- Over when the tableau is empty (won), or the stock is empty and no pile card can
  move (stuck).
- Score: the cards left in the seven piles (0 to 35). Lower is better.

Choices this module makes:

- The deal: the shuffled deck (see :mod:`parlour.games.shuffle`) is dealt in rows:
  card ``i`` (0-34) goes onto pile ``i % 7``, so the first seven cards are the bottom
  row. Card 35 is turned onto the waste; cards 36-51 are the stock, 36 turned next.
- Places: piles ``p1`` to ``p7``. Moves: ``turn`` (stock to waste) and ``play pN``
  (pile N's top card to the waste). Players may type ``t``/``s`` for ``turn`` and
  ``3`` or ``p3`` for ``play p3``.
- The view shows every pile, the whole waste (every waste card was face up) and the
  stock as a count.
- Drawing a state from a view (``Game.draw``): the cards the view does not show are
  shuffled into the stock.

Text layout: the format other Golf solvers read and write::

    Talon: 6D KC KS AH ... 2C        (stock cards, next dealt first)
    Foundations: 5S                  (the waste's top card)
    9D TS 5C 7D 7H                   (seven lines: piles 1-7, bottom to top)
    ...

An empty pile is written ``:``; lines may also start with ``:`` as in those solvers'
output. The waste below its top is not written: reading a layout puts every card that
appears nowhere else under the waste top, in card order.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Final

from parlour.games.base import Ending, Game, Move, Options, OptionValue, fast_init
from parlour.games.cards import RANK, TEXT, Card, card_count, cards_text, parse_cards, standard_deck
from parlour.games.errors import BadLayout, BadMove, IllegalMove
from parlour.games.registry import register
from parlour.games.shuffle import shuffle, shuffle_drawn

PILES: Final = 7
PILE_NAMES: Final = tuple(f"p{i + 1}" for i in range(PILES))
_PILE_INDEX: Final = {name: i for i, name in enumerate(PILE_NAMES)}
TURN: Final = Move("turn")
PLAY: Final = tuple(Move("play", name) for name in PILE_NAMES)
_PLAY_INDEX: Final = {move: i for i, move in enumerate(PLAY)}


@dataclass(frozen=True, slots=True)
class GolfState:
    options: Options
    piles: tuple[tuple[Card, ...], ...]  # bottom to top
    stock: tuple[Card, ...]  # next turned first
    waste: tuple[Card, ...]  # bottom to top; never empty
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


fast_init(GolfState)


def _fits(card: Card, onto: Card) -> bool:
    return abs(RANK[card] - RANK[onto]) == 1


# _NEAR[card]: the cards one rank above or below it (any suit; no wrap between K and A).
_NEAR: Final = tuple(frozenset(c for c in range(52) if abs(RANK[c] - RANK[top]) == 1) for top in range(52))


def _playable(piles: tuple[tuple[Card, ...], ...], top: Card) -> list[int]:
    near = _NEAR[top]
    return [i for i, pile in enumerate(piles) if pile and pile[-1] in near]


def _settle(state: GolfState) -> GolfState:
    """Mark the state over if it is won or stuck."""
    if not any(state.piles):
        return GolfState(state.options, state.piles, state.stock, state.waste, Ending.WON)
    if not state.stock and not _playable(state.piles, state.waste[-1]):
        return GolfState(state.options, state.piles, state.stock, state.waste, Ending.STUCK)
    return state


class Golf(Game[GolfState]):
    name = "golf"
    title = "Golf"
    summary = "Clear seven face-up piles onto the waste, one rank up or down; lowest score wins."
    higher_is_better = False
    score_range = (0, 35)

    def _deal(self, seed: int, options: dict[str, OptionValue]) -> GolfState:
        deck = shuffle(standard_deck(), seed, "deal")
        piles = tuple(tuple(deck[p:35:PILES]) for p in range(PILES))
        return _settle(GolfState(options, piles, tuple(deck[36:]), (deck[35],)))

    def _legal_moves(self, state: GolfState) -> list[Move]:
        near = _NEAR[state.waste[-1]]
        moves = [PLAY[i] for i, pile in enumerate(state.piles) if pile and pile[-1] in near]
        if state.stock:
            moves.append(TURN)
        return moves

    def _apply(self, state: GolfState, move: Move) -> GolfState:
        if move == TURN:
            if not state.stock:
                raise IllegalMove("the stock is empty")
            return _settle(GolfState(state.options, state.piles, state.stock[1:], state.waste + state.stock[:1]))
        i = _PLAY_INDEX.get(move, -1)
        if i < 0:
            raise BadMove(f"golf moves are 'turn' and 'play p1' to 'play p7', not {move.text()!r}")
        pile = state.piles[i]
        if not pile:
            raise IllegalMove(f"pile {i + 1} is empty")
        card, top = pile[-1], state.waste[-1]
        if not _fits(card, top):
            raise IllegalMove(f"{TEXT[card]} is not one rank above or below the waste card {TEXT[top]}")
        piles = state.piles[:i] + (pile[:-1],) + state.piles[i + 1 :]
        return _settle(GolfState(state.options, piles, state.stock, state.waste + (card,)))

    def _score(self, state: GolfState) -> int:
        return sum(len(pile) for pile in state.piles)

    def _view(self, state: GolfState) -> dict[str, Any]:
        return {
            "piles": [[TEXT[c] for c in pile] for pile in state.piles],
            "waste": [TEXT[c] for c in state.waste],
            "stock": len(state.stock),
        }

    def _draw(self, view: Mapping[str, Any], rng: random.Random) -> GolfState:
        board = view["board"]
        seen: dict[Card, int] = {}
        piles = tuple(tuple(parse_cards(pile, seen)) for pile in board["piles"])
        waste = tuple(parse_cards(board["waste"], seen))
        stock = [c for c in standard_deck() if c not in seen]
        if view["game"] != self.name or len(piles) != PILES or not waste or len(stock) != board["stock"]:
            raise BadLayout("not a player's view of a Golf game")
        shuffle_drawn(stock, rng)
        ended = None if view["ended"] is None else Ending(view["ended"])
        return GolfState(dict(view["options"]), piles, tuple(stock), waste, ended)

    def render(self, view: Mapping[str, Any]) -> str:
        board = view["board"]
        lines = [f"Waste: {board['waste'][-1]}   Stock: {card_count(board['stock'])}"]
        lines += [f"{name}: {' '.join(pile)}" for name, pile in zip(PILE_NAMES, board["piles"], strict=True)]
        return "\n".join(lines)

    def to_text(self, state: GolfState) -> str:
        lines = [f"Talon: {cards_text(state.stock)}".rstrip(), f"Foundations: {TEXT[state.waste[-1]]}"]
        lines += [cards_text(pile) if pile else ":" for pile in state.piles]
        return "\n".join(lines) + "\n"

    def from_text(self, text: str, options: Mapping[str, object] | None = None) -> GolfState:
        talon: list[Card] | None = None
        top: list[Card] | None = None
        piles: list[tuple[Card, ...]] = []
        seen: dict[Card, int] = {}
        lines = text.strip("\n").splitlines()
        for number, raw in enumerate(lines, 1):
            line = raw.strip()
            head, colon, rest = line.partition(":")
            if colon and head.strip().lower() == "talon":
                talon = parse_cards(rest.split(), seen)
            elif colon and head.strip().lower() in ("foundations", "foundation", "waste"):
                top = parse_cards(rest.split(), seen)
                if len(top) != 1:
                    raise BadLayout(f"line {number}: Foundations holds exactly one card, the waste top")
            else:
                piles.append(tuple(parse_cards((rest if colon and not head.strip() else line).split(), seen)))
        if talon is None or top is None:
            raise BadLayout("a Golf layout needs a 'Talon:' line and a 'Foundations:' line")
        if len(piles) != PILES:
            raise BadLayout(f"a Golf layout has {PILES} pile lines, found {len(piles)} (write ':' for an empty pile)")
        rest_of_waste = [c for c in standard_deck() if c not in seen]
        state = GolfState(self.resolve_options(options), tuple(piles), tuple(talon), (*rest_of_waste, top[0]))
        return _settle(state)

    def cards(self, state: GolfState) -> list[Card]:
        return [c for pile in state.piles for c in pile] + list(state.stock) + list(state.waste)

    def hidden_cards(self, state: GolfState) -> list[Card]:
        return list(state.stock)

    def candidate_moves(self, state: GolfState) -> Iterable[Move]:
        return [TURN, *PLAY]

    def parse_move(self, text: str) -> Move:
        token = text.strip().lower()
        if token in ("t", "s", "stock", "turn"):
            return TURN
        if token in _PILE_INDEX:
            return PLAY[_PILE_INDEX[token]]
        if token.isdigit() and 1 <= int(token) <= PILES:
            return PLAY[int(token) - 1]
        return super().parse_move(text)


GOLF: Final = register(Golf())
