"""Gate: two gate posts of five cards feed eight piles built down in alternating colours.

Rules (RULINGS.md, "Gate"):

- 52 cards. Two reserves (the "gate posts") of five cards each, face up and all
  visible; only the top card of a reserve may be played, and nothing is ever played
  onto a reserve. Eight tableau piles of one face-up card each. Four foundations, empty
  at the start, build up in suit from the ace. The other 34 cards are the face-down
  stock.
- Tableau piles build down in alternating colour (a red 7 on a black 8). Any valid
  sequence at the top of a pile (each card one rank below and the opposite colour of
  the card under it) may move as a unit onto a pile whose top card is one rank above
  and the opposite colour of the sequence's bottom card.
- A vacant tableau pile may be filled only with the top card of a reserve (either
  reserve, the player chooses); once both reserves are empty, only with the top card
  of the waste; once the reserves, the waste and the stock are all empty, with any
  card or sequence from another tableau pile. (So with both reserves empty, an empty
  waste and cards left in the stock, a vacancy waits until a card is turned.)
- The stock turns one card at a time onto the waste. No redeal. The top card of the
  waste, and the top card of either reserve, may be played to a foundation or onto the
  tableau at any time. Tableau top cards may go to the foundations. Nothing leaves a
  foundation.
- Won when all 52 cards are on the foundations. Over when won, conceded, or when the
  stock is empty and no card can move (stuck). With cards left in the stock the game
  never sticks, since the stock can always be turned.
- Score: the cards on the foundations (0 to 52). Higher is better.

Choices this module makes:

- The deal: the shuffled deck (see :mod:`parlour.games.shuffle`) is dealt in order:
  cards 0-4 form reserve ``r1`` (card 0 at the bottom, card 4 on top and playable),
  cards 5-9 form reserve ``r2`` (card 9 on top), cards 10-17 go one each to tableau
  piles ``t1`` to ``t8``, and cards 18-51 are the stock, card 18 turned first. The
  waste and the foundations start empty. No move is automatic.
- Moving the whole of a pile (a one-card pile included) into a vacant pile is refused:
  it only renames the pile and changes nothing. This never makes a game stuck that
  could otherwise go on: in the "any" regime every card lies in the tableau or on the
  foundations, so if all piles held one card, the next card of some suit would be a
  pile top and could go home. Moving part of a pile's sequence into a vacancy is
  allowed, so once everything lies in the tableau, cards may go back and forth between
  piles forever; the game then lasts until the player concedes or time runs out (no
  repetition rule is invented).
- A move from a place onto itself (``move t1 t1 1``) is well formed but refused.
- Places: reserves ``r1`` ``r2``, waste ``w``, foundations ``f`` (one place: a card
  goes to its own suit's foundation), tableau piles ``t1`` to ``t8``.
- Moves:

  - ``turn``: the stock's next card onto the waste.
  - ``move SRC f``: the top card of ``r1``, ``r2``, ``w`` or a pile to its foundation.
  - ``move SRC tN``: the top card of ``r1``, ``r2`` or ``w`` onto pile N.
  - ``move tM tN COUNT``: the top COUNT cards of pile M (a sequence) onto pile N. The
    count is always written for pile-to-pile moves and never for any other move.

  Moves onto ``r1``/``r2``/``w`` or out of ``f`` are well formed but always refused.
  Players may also type ``t`` or ``s`` for ``turn`` and leave out the word ``move``
  (``r1 t3``, ``t2 f``, ``t1 t4 2``).
- The legal moves come in this order: to the foundations (r1, r2, w, t1..t8), single
  cards from r1, r2, w onto non-empty piles, pile-to-pile moves onto non-empty piles,
  fills of vacant piles, then ``turn``.
- The view (``board``): ``reserves`` (two lists, bottom to top), ``piles`` (eight
  lists, bottom to top), ``foundations`` (the top card of the clubs, diamonds, hearts
  and spades foundations, ``None`` where empty), ``foundation_cards`` (their total),
  ``waste`` (every waste card, bottom to top: all were seen face up), ``stock`` (a
  count) and ``vacancy``: which source may fill a vacant pile now, ``"reserve"``,
  ``"waste"`` or ``"any"``.
- Drawing a state from a player's view (``Game.draw``): the stock is the only hidden
  place, so the cards the view does not show (on a foundation, in a reserve, a pile or
  the waste) are shuffled with the caller's ``random.Random`` into the stock.

Text layout (``to_text`` / ``from_text``), one ``Name: cards`` line each, cards
bottom to top unless said otherwise::

    Stock: 7C 2D ...        (face down, the next card turned first)
    Waste: 4H 9S            (the top card last)
    Foundations: 3C AH      (each non-empty foundation's top card; the cards under
                             it are implied)
    r1: 5C 9D KH 2S 3D
    r2: QS 4D 8C JH 6S
    t1: 8H
    ...
    t8:                     (an empty pile)

Every line must be present once (names are case-insensitive, blank lines ignored) and
the 52 cards must each appear exactly once, the implied foundation cards included. No
counter is needed: which source may fill a vacancy follows from the position.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Final

from parlour.games.base import Ending, Game, Move, Options, OptionValue, fast_init
from parlour.games.cards import RANK, RED, SUIT, TEXT, Card, card_count, cards_text, parse_cards, standard_deck
from parlour.games.errors import BadLayout, BadMove, IllegalMove
from parlour.games.registry import register
from parlour.games.shuffle import shuffle, shuffle_drawn

PILES: Final = 8
RESERVE_SIZE: Final = 5
PILE_NAMES: Final = tuple(f"t{i + 1}" for i in range(PILES))
RESERVE_NAMES: Final = ("r1", "r2")
WASTE: Final = "w"
FOUNDATION: Final = "f"
# Single-card sources, indexed 0 (r1), 1 (r2), 2 (w).
SINGLE_NAMES: Final = (*RESERVE_NAMES, WASTE)
PLACES: Final = (*RESERVE_NAMES, WASTE, FOUNDATION, *PILE_NAMES)
_CARD: Final = {TEXT[c]: c for c in range(52)}
_PILE_INDEX: Final = {name: i for i, name in enumerate(PILE_NAMES)}
_RESERVE_INDEX: Final = {name: i for i, name in enumerate(RESERVE_NAMES)}
_PLACE_SET: Final = frozenset(PLACES)
_SUIT_NAMES: Final = ("clubs", "diamonds", "hearts", "spades")
MAX_RUN: Final = 13

TURN: Final = Move("turn")
SINGLE_TO_F: Final = tuple(Move("move", name, FOUNDATION) for name in SINGLE_NAMES)
PILE_TO_F: Final = tuple(Move("move", name, FOUNDATION) for name in PILE_NAMES)
SINGLE_TO_PILE: Final = tuple(tuple(Move("move", src, dst) for dst in PILE_NAMES) for src in SINGLE_NAMES)
# PILE_TO_PILE[i][j][m]: the top m cards of pile i onto pile j (index 0, no card, unused).
PILE_TO_PILE: Final = tuple(
    tuple(tuple(Move("move", src, dst, m) for m in range(MAX_RUN + 1)) for dst in PILE_NAMES) for src in PILE_NAMES
)

# PARENTS[c]: the cards c may be built on (one rank higher, the other colour).
PARENTS: Final[tuple[tuple[Card, ...], ...]] = tuple(
    tuple(d for d in range(52) if RANK[d] == RANK[c] + 1 and RED[d] != RED[c]) for c in range(52)
)
# KEY[c]: the rank, plus 14 if rank + (1 if red) is odd. That parity is the same for every card
# of a sequence and the card under it, so c may lie on d exactly when KEY[d] == KEY[c] + 1.
KEY: Final[tuple[int, ...]] = tuple(RANK[c] + 14 * ((RANK[c] + RED[c]) % 2) for c in range(52))
# HOME[c]: how many cards of c's suit the foundation must hold for c to go there.
HOME: Final[tuple[int, ...]] = tuple(RANK[c] - 1 for c in range(52))
# ONTO[c * 52 + d]: card c may lie on card d in a pile.
ONTO: Final[tuple[bool, ...]] = tuple(d in PARENTS[c] for c in range(52) for d in range(52))


@dataclass(frozen=True, slots=True)
class GateState:
    options: Options
    reserves: tuple[tuple[Card, ...], tuple[Card, ...]]  # r1, r2; bottom to top
    piles: tuple[tuple[Card, ...], ...]  # t1..t8; bottom to top
    runs: tuple[int, ...]  # the length of the sequence at the top of each pile (0 if empty)
    foundations: tuple[int, ...]  # cards on the C, D, H and S foundations (four)
    stock: tuple[Card, ...]  # next turned first
    waste: tuple[Card, ...]  # bottom to top
    ended: Ending | None = None

    # mypyc compiles this; plain Python replaces it with fast_init's (see fast_init).
    def __init__(
        self,
        options: Options,
        reserves: tuple[tuple[Card, ...], tuple[Card, ...]],
        piles: tuple[tuple[Card, ...], ...],
        runs: tuple[int, ...],
        foundations: tuple[int, ...],
        stock: tuple[Card, ...],
        waste: tuple[Card, ...],
        ended: Ending | None = None,
    ) -> None:
        self.options = options  # type: ignore[misc]
        self.reserves = reserves  # type: ignore[misc]
        self.piles = piles  # type: ignore[misc]
        self.runs = runs  # type: ignore[misc]
        self.foundations = foundations  # type: ignore[misc]
        self.stock = stock  # type: ignore[misc]
        self.waste = waste  # type: ignore[misc]
        self.ended = ended  # type: ignore[misc]


fast_init(GateState)


def _run(pile: tuple[Card, ...]) -> int:
    """The length of the sequence at the top of a non-empty pile."""
    n = len(pile)
    k = 1
    while k < n and ONTO[pile[-k] * 52 + pile[-k - 1]]:
        k += 1
    return k


def vacancy_source(state: GateState) -> str:
    """Which source may fill a vacant pile now: ``"reserve"``, ``"waste"`` or ``"any"``."""
    if state.reserves[0] or state.reserves[1]:
        return "reserve"
    if state.waste or state.stock:
        return "waste"
    return "any"


def _moves(state: GateState) -> list[Move]:
    """Every legal move, in the documented order."""
    piles = state.piles
    found = state.foundations
    runs = state.runs
    r1, r2 = state.reserves
    waste = state.waste
    moves: list[Move] = []
    add = moves.append
    singles: list[tuple[int, Card]] = []
    if r1:
        singles.append((0, r1[-1]))
    if r2:
        singles.append((1, r2[-1]))
    if waste:
        singles.append((2, waste[-1]))
    tops: dict[Card, int] = {}
    ends: list[tuple[int, int, int]] = []  # (pile, rank + 14 * parity of its top card, run)
    vacant: list[int] = []
    keys = 0  # bit k set: some pile's top card has key k
    for i, pile in enumerate(piles):
        if pile:
            card = pile[-1]
            tops[card] = i
            key = KEY[card]
            ends.append((i, key, runs[i]))
            keys |= 1 << key
        else:
            vacant.append(i)

    for si, card in singles:
        if found[SUIT[card]] == HOME[card]:
            add(SINGLE_TO_F[si])
    for card, i in tops.items():
        if found[SUIT[card]] == HOME[card]:
            add(PILE_TO_F[i])

    for si, card in singles:
        for parent in PARENTS[card]:
            j = tops.get(parent)
            if j is not None:
                add(SINGLE_TO_PILE[si][j])

    # A sequence keeps one parity of rank + colour, and so does the card it lands on, so the
    # top m cards of pile i go on pile j exactly when KEY[j's top] - KEY[i's top] == m, with m
    # at least 1 and no longer than i's sequence (KEY adds 14 for odd parity, so the parities
    # never mix).
    if len(ends) > 1:
        for i, key, run in ends:
            if not keys >> (key + 1) & ((1 << run) - 1):
                continue  # no top card has a key from key + 1 to key + run
            moves_ij = PILE_TO_PILE[i]
            for j, other, _run_j in ends:
                m = other - key
                if 0 < m <= run:
                    add(moves_ij[j][m])

    if vacant:
        if r1 or r2:
            for si, _card in singles:
                if si < 2:
                    fills = SINGLE_TO_PILE[si]
                    moves += [fills[j] for j in vacant]
        elif waste or state.stock:
            if waste:
                fills = SINGLE_TO_PILE[2]
                moves += [fills[j] for j in vacant]
        else:
            for i, _key, run in ends:
                most = run if run < len(piles[i]) else run - 1
                moves_ij = PILE_TO_PILE[i]
                for j in vacant:
                    moves += moves_ij[j][1 : most + 1]

    if state.stock:
        add(TURN)
    return moves


# The last unfinished state _settle listed the moves of (compared by identity), and those moves; one
# tuple, replaced whole, so that a reader never pairs one state with another's moves.
_last_moves: tuple[GateState | None, tuple[Move, ...]] = (None, ())


def _settle(state: GateState) -> GateState:
    """Mark the state over if it is won or stuck."""
    global _last_moves
    if state.stock:
        return state  # the stock can always be turned
    if sum(state.foundations) == 52:
        ended = Ending.WON
    else:
        # With the stock empty the game goes on only if a move is legal: list the moves now, and keep
        # them for the legal_moves call that usually follows (random playouts, search, a player's view).
        moves = _moves(state)
        if moves:
            _last_moves = (state, tuple(moves))
            return state
        ended = Ending.STUCK
    return GateState(
        state.options, state.reserves, state.piles, state.runs, state.foundations, state.stock, state.waste, ended
    )


def _foundation_cards(foundations: tuple[int, ...]) -> list[Card]:
    return [s * 13 + r for s in range(4) for r in range(foundations[s])]


class Gate(Game[GateState]):
    name = "gate"
    title = "Gate"
    summary = "Two gate posts feed eight piles built down in alternating colours; build the suits up from the aces."
    higher_is_better = True
    score_range = (0, 52)

    def _deal(self, seed: int, options: dict[str, OptionValue]) -> GateState:
        deck = shuffle(standard_deck(), seed, "deal")
        n = RESERVE_SIZE
        reserves = (tuple(deck[0:n]), tuple(deck[n : 2 * n]))
        piles = tuple((c,) for c in deck[2 * n : 2 * n + PILES])
        stock = tuple(deck[2 * n + PILES :])
        return _settle(GateState(options, reserves, piles, (1,) * PILES, (0, 0, 0, 0), stock, ()))

    def _legal_moves(self, state: GateState) -> list[Move]:
        last = _last_moves
        if last[0] is state:
            return list(last[1])
        return _moves(state)

    def _apply(self, state: GateState, move: Move) -> GateState:
        kind = move.kind
        if kind == "turn":
            if move.src or move.dst or move.count:
                raise BadMove(f"'turn' takes nothing after it, not {move.text()!r}")
            if not state.stock:
                raise IllegalMove("the stock is empty (there is no redeal)")
            return _settle(
                GateState(
                    state.options,
                    state.reserves,
                    state.piles,
                    state.runs,
                    state.foundations,
                    state.stock[1:],
                    state.waste + state.stock[:1],
                )
            )
        if kind != "move":
            raise BadMove(f"gate moves are 'turn' and 'move SRC DST [COUNT]', not {move.text()!r}")
        src, dst, count = move.src, move.dst, move.count
        if src not in _PLACE_SET or dst not in _PLACE_SET:
            raise BadMove(f"gate places are {' '.join(PLACES)}; {move.text()!r} names another")
        si = _PILE_INDEX.get(src)
        di = _PILE_INDEX.get(dst)
        if si is not None and di is not None:
            if not count:
                raise BadMove(f"a move between piles gives the number of cards, e.g. 'move {src} {dst} 1'")
        elif count:
            raise BadMove(f"only moves between piles give a number of cards, not {move.text()!r}")
        if dst in _RESERVE_INDEX:
            raise IllegalMove("nothing is ever played onto a reserve")
        if dst == WASTE:
            raise IllegalMove("only the stock turns cards onto the waste")
        if src == FOUNDATION:
            raise IllegalMove("cards never leave the foundations")
        if src == dst:
            raise IllegalMove(f"{src} cannot move onto itself")

        piles = state.piles
        reserves = state.reserves
        waste = state.waste
        m = count or 1
        if si is not None:
            pile = piles[si]
            if not pile:
                raise IllegalMove(f"pile {src} is empty")
            if m > len(pile):
                raise IllegalMove(f"pile {src} holds only {len(pile)} card(s), not {m}")
            if m > 1 and _run(pile) < m:
                raise IllegalMove(
                    f"the top {m} cards of {src} ({cards_text(pile[-m:])}) are not a sequence "
                    "going down in alternating colours"
                )
            card = pile[-m]
        elif src == WASTE:
            if not waste:
                raise IllegalMove("the waste is empty")
            card = waste[-1]
        else:
            reserve = reserves[_RESERVE_INDEX[src]]
            if not reserve:
                raise IllegalMove(f"reserve {src} is empty")
            card = reserve[-1]

        found: tuple[int, ...] = state.foundations
        new_piles = list(piles)
        runs = list(state.runs)
        if di is None:  # to the foundations
            suit = SUIT[card]
            have = found[suit]
            if RANK[card] != have + 1:
                if have == 0:
                    why = f"the {_SUIT_NAMES[suit]} foundation starts with the ace"
                else:
                    why = f"the {_SUIT_NAMES[suit]} foundation needs {TEXT[suit * 13 + have]} next"
                raise IllegalMove(f"{TEXT[card]} cannot go to the foundations: {why}")
            found = found[:suit] + (have + 1,) + found[suit + 1 :]
        else:
            target = piles[di]
            if target:
                top = target[-1]
                if not ONTO[card * 52 + top]:
                    raise IllegalMove(
                        f"{TEXT[card]} does not go on {TEXT[top]}: piles build down by one rank in alternating colours"
                    )
            else:
                regime = vacancy_source(state)
                if regime == "reserve":
                    if src not in _RESERVE_INDEX:
                        raise IllegalMove(
                            f"vacant pile {dst} may be filled only with a reserve's top card "
                            "while a reserve holds cards"
                        )
                elif regime == "waste":
                    if src != WASTE:
                        raise IllegalMove(
                            f"vacant pile {dst} may be filled only with the waste's top card "
                            "once both reserves are empty"
                        )
                elif si is not None and m == len(piles[si]):
                    raise IllegalMove(f"moving all of {src} into vacant pile {dst} changes nothing")
            new_piles[di] = target + (piles[si][-m:] if si is not None else (card,))
            runs[di] = runs[di] + m if target else m

        if si is not None:
            rest = new_piles[si] = piles[si][:-m]
            run = runs[si]
            runs[si] = run - m if m < run else (_run(rest) if rest else 0)
        elif src == WASTE:
            waste = waste[:-1]
        elif src == "r1":
            reserves = (reserves[0][:-1], reserves[1])
        else:
            reserves = (reserves[0], reserves[1][:-1])
        return _settle(GateState(state.options, reserves, tuple(new_piles), tuple(runs), found, state.stock, waste))

    def _score(self, state: GateState) -> int:
        return sum(state.foundations)

    def _view(self, state: GateState) -> dict[str, Any]:
        return {
            "reserves": [[TEXT[c] for c in reserve] for reserve in state.reserves],
            "piles": [[TEXT[c] for c in pile] for pile in state.piles],
            "foundations": [TEXT[s * 13 + n - 1] if n else None for s, n in enumerate(state.foundations)],
            "foundation_cards": sum(state.foundations),
            "waste": [TEXT[c] for c in state.waste],
            "stock": len(state.stock),
            "vacancy": vacancy_source(state),
        }

    def render(self, view: Mapping[str, Any]) -> str:
        board = view["board"]
        waste = board["waste"]
        foundations = " ".join(top or "--" for top in board["foundations"])
        waste_text = f"{waste[-1]} ({card_count(len(waste))})" if waste else "empty"
        lines = [
            f"Stock: {card_count(board['stock'])}   Waste w: {waste_text}",
            f"Foundations f: {foundations}   ({board['foundation_cards']} of 52)",
        ]
        lines.append("Reserves and piles run bottom to top: the last card is the top one.")
        lines += [f"{name}: {' '.join(r) or '-'}" for name, r in zip(RESERVE_NAMES, board["reserves"], strict=True)]
        lines += [f"{name}: {' '.join(p)}" for name, p in zip(PILE_NAMES, board["piles"], strict=True)]
        fill = {
            "reserve": "a reserve's top card (r1, r2)",
            "waste": "the waste's top card (w)",
            "any": "any card or sequence from another pile",
        }[board["vacancy"]]
        lines.append(f"A vacant pile takes: {fill}")
        return "\n".join(lines)

    def to_text(self, state: GateState) -> str:
        tops = [s * 13 + n - 1 for s, n in enumerate(state.foundations) if n]
        lines = [
            f"Stock: {cards_text(state.stock)}".rstrip(),
            f"Waste: {cards_text(state.waste)}".rstrip(),
            f"Foundations: {cards_text(tops)}".rstrip(),
        ]
        lines += [f"{name}: {cards_text(r)}".rstrip() for name, r in zip(RESERVE_NAMES, state.reserves, strict=True)]
        lines += [f"{name}: {cards_text(p)}".rstrip() for name, p in zip(PILE_NAMES, state.piles, strict=True)]
        return "\n".join(lines) + "\n"

    def from_text(self, text: str, options: Mapping[str, object] | None = None) -> GateState:
        wanted = ("stock", "waste", "foundations", *RESERVE_NAMES, *PILE_NAMES)
        found_lines: dict[str, list[Card]] = {}
        seen: dict[Card, int] = {}
        for number, raw in enumerate(text.splitlines(), 1):
            line = raw.strip()
            if not line:
                continue
            head, colon, rest = line.partition(":")
            name = head.strip().lower()
            if not colon or name not in wanted:
                raise BadLayout(
                    f"line {number}: expected 'Name: cards' with Name one of Stock, Waste, Foundations, "
                    f"r1, r2, t1..t8; got {raw!r}"
                )
            if name in found_lines:
                raise BadLayout(f"line {number}: a second {head.strip()!r} line")
            try:
                found_lines[name] = parse_cards(rest.split(), seen)
            except BadLayout as error:
                raise BadLayout(f"line {number}: {error}") from None
        missing = [name for name in wanted if name not in found_lines]
        if missing:
            raise BadLayout(f"a Gate layout needs the lines {', '.join(missing)} (write 't8:' for an empty pile)")
        foundations = [0, 0, 0, 0]
        for card in found_lines["foundations"]:
            suit = SUIT[card]
            if foundations[suit]:
                raise BadLayout(f"Foundations: two {_SUIT_NAMES[suit]} cards; write only each foundation's top card")
            foundations[suit] = RANK[card]
        placed = set(seen)
        for card in _foundation_cards(tuple(foundations)):
            if card in placed and RANK[card] != foundations[SUIT[card]]:
                raise BadLayout(f"card {TEXT[card]} lies on the foundation (under its top card) and elsewhere too")
            placed.add(card)
        if len(placed) != 52:
            absent = [c for c in standard_deck() if c not in placed]
            raise BadLayout(f"the layout is missing {len(absent)} card(s): {cards_text(absent)}")
        piles = tuple(tuple(found_lines[name]) for name in PILE_NAMES)
        state = GateState(
            self.resolve_options(options),
            (tuple(found_lines["r1"]), tuple(found_lines["r2"])),
            piles,
            tuple(_run(pile) if pile else 0 for pile in piles),
            (foundations[0], foundations[1], foundations[2], foundations[3]),
            tuple(found_lines["stock"]),
            tuple(found_lines["waste"]),
        )
        return _settle(state)

    def _draw(self, view: Mapping[str, Any], rng: random.Random) -> GateState:
        try:
            if view["game"] != self.name:
                raise BadLayout(f"not a view of {self.name}: {view['game']!r}")
            board = view["board"]
            found = tuple(0 if top is None else RANK[_CARD[top]] for top in board["foundations"])
            r1, r2 = (tuple(_CARD[t] for t in reserve) for reserve in board["reserves"])
            piles = tuple(tuple(_CARD[t] for t in pile) for pile in board["piles"])
            waste = tuple(_CARD[t] for t in board["waste"])
            stock_size = board["stock"]
            ended = None if view["ended"] is None else Ending(view["ended"])
        except (KeyError, TypeError, ValueError) as error:
            raise BadLayout(f"not a player's view of {self.name}: {error!r}") from None
        if len(found) != 4 or len(piles) != PILES:
            raise BadLayout(f"not a player's view of {self.name}: wrong number of foundations or piles")
        shown = set(_foundation_cards(found))
        for part in [r1, r2, waste, *piles]:
            shown.update(part)
        stock = [c for c in range(52) if c not in shown]
        if len(stock) != stock_size:
            raise BadLayout(f"the view's stock holds {stock_size} cards but {len(stock)} are unseen")
        shuffle_drawn(stock, rng)
        runs = tuple(_run(pile) if pile else 0 for pile in piles)
        found_t = (found[0], found[1], found[2], found[3])
        return GateState(
            self.resolve_options(view["options"]), (r1, r2), piles, runs, found_t, tuple(stock), waste, ended
        )

    def cards(self, state: GateState) -> list[Card]:
        out = _foundation_cards(state.foundations)
        for reserve in state.reserves:
            out += reserve
        for pile in state.piles:
            out += pile
        return out + list(state.stock) + list(state.waste)

    def hidden_cards(self, state: GateState) -> list[Card]:
        return list(state.stock)

    def candidate_moves(self, state: GateState) -> Iterable[Move]:
        moves = [TURN]
        for src in PLACES:
            si = _PILE_INDEX.get(src)
            for dst in PLACES:
                if si is not None and dst in _PILE_INDEX:
                    most = max(1, len(state.piles[si]))
                    moves += [Move("move", src, dst, m) for m in range(1, most + 1)]
                else:
                    moves.append(Move("move", src, dst))
        return moves

    def parse_move(self, text: str) -> Move:
        tokens = text.strip().lower().split()
        if tokens in (["t"], ["s"], ["stock"]):
            return TURN
        if tokens and tokens[0] in _PLACE_SET:
            tokens = ["move", *tokens]
        return super().parse_move(" ".join(tokens))


GATE: Final = register(Gate())
