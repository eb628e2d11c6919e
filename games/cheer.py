"""Cheer: clear a 32-card open tableau onto suit foundations, using as few parking spaces as you can.

Rules (RULINGS.md, "Cheer"):

- 32 cards: 6 to K in four suits. Seven columns of 2, 4, 6, 8, 6, 4, 2 cards, all face up (nothing is
  ever hidden). Three parking spaces, four foundations.
- Foundations build up in suit from the 6 to the K. Any exposed card (of a column or a parking space) may
  go to its foundation.
- A card, or a run (same suit, each card one rank below the card it covers, at the exposed end), may move
  onto the exposed card of another column that is the same suit and one rank above the run's head.
- An empty column takes only a king, or a run headed by a king.
- A card or run may move from a column into an empty parking space. A parking space holding cards takes
  no more. Its exposed card, or a run from its exposed end, may move back to a column, or (one card) to
  a foundation; once empty it may be filled again.
- Score: by the number of distinct parking spaces ever opened (refilling one already opened costs
  nothing). Won with 0 opened: 12 points; 1: 10; 2: 3. Opening a third parking space loses the game at
  once (``Ending.LOST``, 0 points). An unfinished game (running, conceded, out of time) scores 0. Higher
  is better. Option ``win_loss`` (default false): score 1 for a win with at most one parking space
  opened, else 0.

Choices this module makes:

- The deal: the shuffled 32-card deck (``standard_deck(ranks=range(6, 14))`` in ascending card order,
  shuffled with context ``"deal"``, see :mod:`parlour.games.shuffle`) is dealt column by column: cards
  0-1 to c1, 2-5 to c2, 6-11 to c3, 12-19 to c4, 20-25 to c5, 26-29 to c6, 30-31 to c7. Within a column
  the first card dealt is its bottom (most covered) card and the last is exposed. No automatic moves.
- Places: columns ``c1``..``c7``, parking spaces ``p1``..``p3``, the foundations ``f`` (one name for all
  four: the card's suit picks its foundation).
- One move kind, ``move SRC DST [COUNT]``. SRC is a column or parking space. DST ``f`` takes the one
  exposed card and is written without a count (``move c3 f``). Every other move always gives the number
  of cards moved, even 1 (``move c2 c5 1``, ``move c4 p1 3``, ``move p1 c2 2``). Cards never move from a
  parking space to another parking space, nor off a foundation.
- Parking spaces are named explicitly by the player. Any empty parking space may be filled, opened
  before or not: filling one that was opened before costs nothing; filling a never-opened one opens it
  (even while an opened one stands empty). So moving into p3 when only p1 was ever opened opens a second
  space; moving into a never-opened space when two are already opened is listed among the legal moves,
  opens the third and loses at once (the cards do land there).
- A run may be moved in part (the cards nearest the exposed end): into a parking space any count up to
  the run's length is legal. (Onto a column only the whole run ever fits: the card a part would go on is
  the one it covers.)
- Moving a king-headed run (or a king) into an empty column is legal even when it leaves another column
  empty; no repetition rule: cards may go back and forth forever (the player concedes).
- Legal moves are listed in this order: to the foundation (by source c1..c7, p1..p3); to the columns (by
  destination c1..c7; for an empty column the king-headed runs in suit order C, D, H, S); to the parking
  spaces (by source column, then space p1..p3, then count).
- The game ends won when all 32 cards are on the foundations, lost when a third parking space opens.
  It ends stuck when no move is left; this cannot happen in play (while at most two spaces are opened one
  is empty, so any column card can move; with every column empty, each suit's lowest card left is the
  exposed card of its parking run), but the check is made.
- The view: ``columns`` and ``parking`` (lists of card texts, bottom to exposed), ``foundations`` (the top
  card of the C, D, H, S foundations, or None), ``opened`` (names of the parking spaces ever opened).
- Drawing a state from a view (``Game.draw``): nothing is hidden, so the drawn state is the exact state
  the view shows (the random source is not used).

Text layout::

    Foundations: 8C 6H       (top card of each started foundation; the cards below it are implied)
    Opened: p1               (parking spaces ever opened, in order; empty for none)
    p1: JC TC 9C             (each pile bottom to exposed card; empty piles as 'p2:')
    p2:
    p3:
    c1: 7D KS
    ...
    c7: QD 8S

Reading: blank lines are skipped, lines may come in any order, the seven column lines are required; a
missing Foundations, Opened or parking line means empty (a missing Opened line means the parking spaces
holding cards). Every card 6-K appears exactly once (foundations included); a parking space holds a card
or a run; every parking space holding cards must be listed as opened. Three opened spaces read as lost.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Final

from parlour.games.base import Ending, Game, Move, Option, Options, OptionValue, fast_init
from parlour.games.cards import RANK, SUIT, TEXT, Card, cards_text, parse_cards, standard_deck
from parlour.games.errors import BadLayout, BadMove, IllegalMove
from parlour.games.registry import register
from parlour.games.shuffle import shuffle

COLUMNS: Final = 7
PARKING: Final = 3
PILES: Final = COLUMNS + PARKING
COLUMN_SIZES: Final = (2, 4, 6, 8, 6, 4, 2)
DECK: Final[tuple[Card, ...]] = tuple(standard_deck(ranks=range(6, 14)))
LOWEST: Final = 6  # the rank each foundation starts from
FOUNDATION: Final = "f"
COLUMN_NAMES: Final = tuple(f"c{i + 1}" for i in range(COLUMNS))
PARKING_NAMES: Final = tuple(f"p{i + 1}" for i in range(PARKING))
PILE_NAMES: Final = COLUMN_NAMES + PARKING_NAMES  # state.piles order: columns, then parking spaces
_PILE_INDEX: Final = {name: i for i, name in enumerate(PILE_NAMES)}
_LINES: Final = (*_PILE_INDEX, "foundations", "foundation", "opened")  # the layout's line names
_TEXT_ORDER: Final = (*range(COLUMNS, PILES), *range(COLUMNS))  # parking spaces, then columns
_ALL_OPENED: Final = (1 << PARKING) - 1
_OPENED_COUNT: Final = tuple(bin(mask).count("1") for mask in range(1 << PARKING))
_WIN_POINTS: Final = (12, 10, 3)  # by parking spaces opened
_SUIT_NAMES: Final = ("clubs", "diamonds", "hearts", "spades")
KINGS: Final = tuple(suit * 13 + 12 for suit in range(4))
_CARD_OF: Final = {TEXT[c]: c for c in DECK}

TO_FOUNDATION: Final = tuple(Move("move", name, FOUNDATION) for name in PILE_NAMES)
# MOVE[src][dst][count]: every counted move between two piles (count 0 unused).
MOVE: Final = tuple(
    tuple(tuple(Move("move", src, dst, k) for k in range(len(DECK) + 1)) for dst in PILE_NAMES) for src in PILE_NAMES
)


@dataclass(frozen=True, slots=True)
class CheerState:
    options: Options
    piles: tuple[tuple[Card, ...], ...]  # c1..c7 then p1..p3, each bottom to exposed card
    foundations: tuple[int, ...]  # cards on the C, D, H, S foundations (suit order of cards.py), 0 to 8
    opened: int  # bit q set once parking space p(q+1) has ever held cards
    ended: Ending | None = None

    # mypyc compiles this; plain Python replaces it with fast_init's (see fast_init).
    def __init__(
        self,
        options: Options,
        piles: tuple[tuple[Card, ...], ...],
        foundations: tuple[int, ...],
        opened: int,
        ended: Ending | None = None,
    ) -> None:
        self.options = options  # type: ignore[misc]
        self.piles = piles  # type: ignore[misc]
        self.foundations = foundations  # type: ignore[misc]
        self.opened = opened  # type: ignore[misc]
        self.ended = ended  # type: ignore[misc]

    @property
    def columns(self) -> tuple[tuple[Card, ...], ...]:
        return self.piles[:COLUMNS]

    @property
    def parking(self) -> tuple[tuple[Card, ...], ...]:
        return self.piles[COLUMNS:]


fast_init(CheerState)


def _run(pile: tuple[Card, ...]) -> int:
    """The length of the run at the exposed end of a non-empty pile."""
    n = len(pile)
    k = 1
    # Same suit and one rank lower is card + 1 in this deck (K + 1 is an ace, which Cheer lacks).
    while k < n and pile[n - k - 1] == pile[n - k] + 1:
        k += 1
    return k


def _moves(piles: tuple[tuple[Card, ...], ...], found: tuple[int, ...]) -> list[Move]:
    """Every legal move, in this order: to the foundation (by source pile); to the columns (by destination
    c1..c7; onto an empty column, the king-headed runs in suit order C, D, H, S); to the parking spaces (by
    source column, then space, then count).
    """
    out: list[Move] = []
    heads: dict[Card, tuple[int, int]] = {}  # each card of an exposed run -> (pile, cards from it to the exposed end)
    runs = [0] * COLUMNS
    for i in range(PILES):
        pile = piles[i]
        if not pile:
            continue
        top = pile[-1]
        if found[SUIT[top]] == RANK[top] - LOWEST:
            out.append(TO_FOUNDATION[i])
        heads[top] = (i, 1)
        n = len(pile)
        k = 1
        # Same suit and one rank higher is card + 1 in this deck (K + 1 would be an ace, which Cheer lacks).
        while k < n and pile[n - k - 1] == top + k:
            k += 1
            heads[top + k - 1] = (i, k)
        if i < COLUMNS:
            runs[i] = k
    for j in range(COLUMNS):
        dest = piles[j]
        if dest:
            hit = heads.get(dest[-1] - 1)  # the card that goes on it: same suit, one rank lower
            if hit is not None:
                out.append(MOVE[hit[0]][j][hit[1]])
        else:
            for king in KINGS:
                hit = heads.get(king)
                if hit is not None:
                    out.append(MOVE[hit[0]][j][hit[1]])
    empty = [q for q in range(COLUMNS, PILES) if not piles[q]]
    if empty:
        for i in range(COLUMNS):
            run = runs[i]
            if run:
                to = MOVE[i]
                for q in empty:
                    out.extend(to[q][1 : run + 1])
    return out


def _any_move(piles: tuple[tuple[Card, ...], ...], found: tuple[int, ...]) -> bool:
    """Whether any move is legal (fast when some column holds cards and some parking space is empty)."""
    if any(piles[:COLUMNS]) and not all(piles[COLUMNS:]):
        return True
    return bool(_moves(piles, found))


def _settle(state: CheerState) -> CheerState:
    """Mark the state over if it is lost, won or stuck."""
    if state.opened == _ALL_OPENED:
        ending = Ending.LOST
    elif sum(state.foundations) == len(DECK):
        ending = Ending.WON
    elif not _any_move(state.piles, state.foundations):
        ending = Ending.STUCK
    else:
        return state
    return CheerState(state.options, state.piles, state.foundations, state.opened, ending)


class Cheer(Game[CheerState]):
    name = "cheer"
    title = "Cheer"
    summary = "Build a 32-card open layout onto suit foundations; every parking space you open costs points."
    higher_is_better = True
    score_range = (0, 12)
    options_spec = (
        Option(
            "win_loss",
            (False, True),
            False,
            "score 1 for a win with at most one parking space opened, else 0 (instead of 12/10/3 points)",
        ),
    )

    def _deal(self, seed: int, options: dict[str, OptionValue]) -> CheerState:
        deck = shuffle(DECK, seed, "deal")
        piles: list[tuple[Card, ...]] = []
        start = 0
        for size in COLUMN_SIZES:
            piles.append(tuple(deck[start : start + size]))
            start += size
        piles += [()] * PARKING
        return _settle(CheerState(options, tuple(piles), (0, 0, 0, 0), 0))

    def _legal_moves(self, state: CheerState) -> list[Move]:
        return _moves(state.piles, state.foundations)

    def _apply(self, state: CheerState, move: Move) -> CheerState:
        i = _PILE_INDEX.get(move.src)
        if move.kind != "move" or i is None:
            raise BadMove(f"cheer moves are 'move SRC DST [COUNT]' from c1-c7 or p1-p3, not {move.text()!r}")
        piles = state.piles
        pile = piles[i]
        count = move.count
        if move.dst == FOUNDATION:
            if count:
                raise BadMove(f"a move to the foundation takes one card and has no count: 'move {move.src} f'")
            if not pile:
                raise IllegalMove(f"{move.src} is empty")
            card = pile[-1]
            suit = SUIT[card]
            have = state.foundations[suit]
            if RANK[card] != LOWEST + have:
                wanted = TEXT[suit * 13 + LOWEST + have - 1]
                raise IllegalMove(
                    f"{TEXT[card]} cannot go to the foundation: the {_SUIT_NAMES[suit]} foundation needs {wanted} next"
                )
            new_piles = piles[:i] + (pile[:-1],) + piles[i + 1 :]
            found = state.foundations[:suit] + (have + 1,) + state.foundations[suit + 1 :]
            after = CheerState(state.options, new_piles, found, state.opened)
            if any(new_piles[:COLUMNS]):  # not won, and a column card can go to an empty parking space
                return after
            return _settle(after)
        j = _PILE_INDEX.get(move.dst)
        if j is None:
            raise BadMove(f"a move goes to a column c1-c7, a parking space p1-p3 or the foundation f, not {move.dst!r}")
        if not isinstance(count, int) or count < 1:
            raise BadMove(
                f"a move to a column or parking space gives the number of cards: 'move {move.src} {move.dst} 1'"
            )
        if i == j:
            raise IllegalMove(f"the cards are already in {move.src}")
        if not pile:
            raise IllegalMove(f"{move.src} is empty")
        if count > len(pile):
            raise IllegalMove(f"{move.src} holds only {len(pile)} card{'s' if len(pile) > 1 else ''}")
        for k in range(1, count):
            if pile[-k - 1] != pile[-k] + 1:
                raise IllegalMove(
                    f"{cards_text(pile[-count:])} is not a run (same suit, each card one rank below the one it covers)"
                )
        head = pile[-count]
        dest = piles[j]
        opened = state.opened
        if j < COLUMNS:
            if dest:
                if dest[-1] != head + 1:  # same suit, one rank higher
                    raise IllegalMove(
                        f"{TEXT[head]} does not go on {TEXT[dest[-1]]}: a card goes only on the next higher card"
                        " of its own suit"
                    )
            elif RANK[head] != 13:
                raise IllegalMove(f"an empty column takes only a king or a run headed by a king, not {TEXT[head]}")
        else:
            if i >= COLUMNS:
                raise IllegalMove("cards in a parking space go back only to a column or to the foundation")
            if dest:
                raise IllegalMove(f"{move.dst} already holds {cards_text(dest)}; a parking space takes no more cards")
            opened |= 1 << (j - COLUMNS)
        moved = pile[-count:]
        new = list(piles)
        new[i] = pile[:-count]
        new[j] = dest + moved
        after = CheerState(state.options, tuple(new), state.foundations, opened)
        if opened == _ALL_OPENED:
            return CheerState(state.options, after.piles, state.foundations, opened, Ending.LOST)
        if any(new[:COLUMNS]):  # a never-opened parking space is empty, so a column card can move
            return after
        return _settle(after)

    def _score(self, state: CheerState) -> int:
        if state.ended is not Ending.WON:
            return 0
        used = _OPENED_COUNT[state.opened]
        if state.options.get("win_loss"):
            return 1 if used <= 1 else 0
        return _WIN_POINTS[used]

    def _view(self, state: CheerState) -> dict[str, Any]:
        return {
            "columns": [[TEXT[c] for c in pile] for pile in state.columns],
            "parking": [[TEXT[c] for c in pile] for pile in state.parking],
            "foundations": [_foundation_top(s, n) for s, n in enumerate(state.foundations)],
            "opened": _opened_names(state.opened),
        }

    def _draw(self, view: Mapping[str, Any], rng: random.Random) -> CheerState:
        # Nothing is hidden: the view gives the whole state.
        try:
            board = view["board"]
            piles = tuple(tuple(_CARD_OF[t] for t in pile) for pile in (*board["columns"], *board["parking"]))
            found = tuple(0 if top is None else RANK[_CARD_OF[top]] - LOWEST + 1 for top in board["foundations"])
            opened = sum(1 << PARKING_NAMES.index(name) for name in board["opened"])
            ended = None if view["ended"] is None else Ending(view["ended"])
            good = view["game"] == self.name and len(piles) == PILES and len(found) == len(_SUIT_NAMES)
        except (KeyError, TypeError, ValueError, IndexError):
            good = False
        if not good:
            raise BadLayout("not a player's view of a Cheer game")
        return CheerState(self.resolve_options(view["options"]), piles, found, opened, ended)

    def render(self, view: Mapping[str, Any]) -> str:
        board = view["board"]
        opened = board["opened"]
        tops = "  ".join(top or "--" for top in board["foundations"])
        lines = [f"f:  {tops}"]
        for name, pile in zip(PARKING_NAMES, board["parking"], strict=True):
            mark = "" if name in opened else "   (never opened)"
            lines.append(f"{name}: {' '.join(pile) if pile else '.'}{mark}")
        note = f"Parking spaces opened: {len(opened)}" + (f" ({' '.join(opened)})" if opened else "")
        lines.append(note + "; opening a third loses.")
        for name, pile in zip(COLUMN_NAMES, board["columns"], strict=True):
            lines.append(f"{name}: {' '.join(pile)}".rstrip())
        lines.append("Moves: move SRC f | move SRC DST COUNT   (e.g. 'c3 f', 'c4 c2 2', 'c5 p1 1')")
        return "\n".join(lines)

    def to_text(self, state: CheerState) -> str:
        tops = [_foundation_top(s, n) for s, n in enumerate(state.foundations)]
        lines = [
            f"Foundations: {' '.join(t for t in tops if t)}".rstrip(),
            f"Opened: {' '.join(_opened_names(state.opened))}".rstrip(),
        ]
        lines += [f"{PILE_NAMES[i]}: {cards_text(state.piles[i])}".rstrip() for i in _TEXT_ORDER]
        return "\n".join(lines) + "\n"

    def from_text(self, text: str, options: Mapping[str, object] | None = None) -> CheerState:
        resolved = self.resolve_options(options)
        seen: dict[Card, int] = {}
        found = [0, 0, 0, 0]
        piles: list[tuple[Card, ...] | None] = [None] * PILES
        opened: int | None = None
        done: set[str] = set()
        for number, raw in enumerate(text.splitlines(), 1):
            line = raw.strip()
            if not line:
                continue
            head, colon, rest = line.partition(":")
            key = head.strip().lower()
            if not colon or key not in _LINES:
                raise BadLayout(
                    f"line {number}: expected 'Foundations:', 'Opened:', 'p1:'-'p3:' or 'c1:'-'c7:', got {line!r}"
                )
            key = "foundations" if key == "foundation" else key
            if key in done:
                raise BadLayout(f"line {number}: a second {head.strip()!r} line")
            done.add(key)
            tokens = rest.split()
            try:
                if key == "foundations":
                    for top in parse_cards(tokens):
                        suit, rank = SUIT[top], RANK[top]
                        if rank < LOWEST:
                            raise BadLayout(f"{TEXT[top]} is not a Cheer card (6 to K only)")
                        if found[suit]:
                            raise BadLayout(f"two tops for the {_SUIT_NAMES[suit]} foundation")
                        found[suit] = rank - LOWEST + 1
                        parse_cards([TEXT[suit * 13 + r - 1] for r in range(LOWEST, rank + 1)], seen)
                elif key == "opened":
                    opened = 0
                    for token in tokens:
                        if token.lower() not in PARKING_NAMES:
                            raise BadLayout(f"{token!r} is not a parking space (p1, p2, p3)")
                        opened |= 1 << PARKING_NAMES.index(token.lower())
                else:
                    cards = parse_cards(tokens, seen)
                    bad = [TEXT[c] for c in cards if RANK[c] < LOWEST]
                    if bad:
                        raise BadLayout(f"{bad[0]} is not a Cheer card (6 to K only)")
                    i = _PILE_INDEX[key]
                    if i >= COLUMNS and cards and _run(tuple(cards)) != len(cards):
                        raise BadLayout(f"{key} holds {cards_text(cards)}: a parking space holds one card or a run")
                    piles[i] = tuple(cards)
            except BadLayout as error:
                raise BadLayout(f"line {number}: {error}") from None
        missing_columns = [name for name, pile in zip(COLUMN_NAMES, piles, strict=False) if pile is None]
        if missing_columns:
            raise BadLayout(f"a Cheer layout needs a line for every column; missing: {', '.join(missing_columns)}")
        missing = [TEXT[c] for c in DECK if c not in seen]
        if missing:
            raise BadLayout(f"cards missing from the layout: {' '.join(missing)}")
        full = tuple(() if pile is None else pile for pile in piles)
        holding = sum(1 << q for q in range(PARKING) if full[COLUMNS + q])
        if opened is None:
            opened = holding
        elif holding & ~opened:
            names = " ".join(_opened_names(holding & ~opened))
            raise BadLayout(f"parking space(s) {names} hold cards but are not listed as opened")
        return _settle(CheerState(resolved, full, tuple(found), opened))

    def cards(self, state: CheerState) -> list[Card]:
        on_foundations = [s * 13 + r - 1 for s, n in enumerate(state.foundations) for r in range(LOWEST, LOWEST + n)]
        return [c for pile in state.piles for c in pile] + on_foundations

    def hidden_cards(self, state: CheerState) -> list[Card]:
        return []

    def candidate_moves(self, state: CheerState) -> Iterable[Move]:
        out: list[Move] = []
        for i in range(PILES):
            out.append(TO_FOUNDATION[i])
            most = max(1, len(state.piles[i]))
            for j in range(PILES):
                out.extend(MOVE[i][j][1 : most + 1])
        return out

    def parse_move(self, text: str) -> Move:
        """Also read ``SRC DST [COUNT]`` without the kind, and a missing count as 1 (``c2 p1`` is ``move c2 p1 1``)."""
        tokens = text.lower().split()
        if tokens and tokens[0] in _PILE_INDEX:
            tokens.insert(0, "move")
        if len(tokens) == 3 and tokens[0] == "move" and tokens[1] in _PILE_INDEX and tokens[2] in _PILE_INDEX:
            tokens.append("1")
        return super().parse_move(" ".join(tokens))


def _foundation_top(suit: int, count: int) -> str | None:
    return TEXT[suit * 13 + LOWEST + count - 2] if count else None


def _opened_names(opened: int) -> list[str]:
    return [name for q, name in enumerate(PARKING_NAMES) if opened >> q & 1]


CHEER: Final = register(Cheer())
