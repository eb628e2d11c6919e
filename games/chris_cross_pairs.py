"""Chris-Cross Pairs: cast out pairs of equal rank from the columns and diagonals of a 5 x 5 grid.

Rules (RULINGS.md, "Chris-Cross Pairs"):

- 52 cards. 25 are dealt face up into a 5 x 5 grid, down column 1 first, then column 2,
  and so on. The other 27 form a face-down stock. The two diagonals of the grid count as
  lines only while all five of their cells hold a card.
- A cast removes two cards of equal rank that stand in the same column, or in the same
  full diagonal. Several casts may be made before settling.
- After casting, the player may slide cards: a card directly above or below a cell
  emptied by a cast in this step may move one cell up or down into it; each card moves
  at most once per step.
- Settle: gaps in every row close by shifting cards left. Then casting goes on.
- A phase ends when no cast is possible. Phase 1 ends the round, and the game, lost if it
  cast nothing. Otherwise phase 2 begins: every row with fewer than five cards moves its
  leftmost card to its right end, then casting resumes. When phase 2 can cast no more,
  the round ends.
- A new round refills the empty cells from the stock, down column 1 first, then column 2,
  as far as the stock lasts; then phase 1 again. A round in which no pair can be cast
  loses the game, stock or not.
- Won when tableau and stock are both empty. Score: cards cast out (0 to 52), higher is
  better.

Choices this module makes:

- The deal: the shuffled deck (see :mod:`parlour.games.shuffle`, context ``"deal"``) is
  dealt so that card ``i`` (0-24) goes to column ``i // 5`` (0 = column a), row ``i % 5``
  (0 = row 1, the top row): cards 0-4 fill column a from top to bottom, 5-9 column b, and
  so on. Cards 25-51 are the stock, card 25 dealt first.
- Places: the 25 cells are named column letter then row number, ``a1`` (top left) to
  ``e5`` (bottom right). The diagonals are ``a1 b2 c3 d4 e5`` and ``a5 b4 c3 d2 e1``.
- A *step* is: one or more casts, then any number of slides, then a settle.

  * ``cast X Y`` removes the cards in cells ``X`` and ``Y``: both hold cards of one rank,
    and they share a column, or a diagonal whose five cells all hold a card at that
    moment. ``X`` comes before ``Y`` in cell order (``a1 a2 .. a5 b1 .. e5``; a
    different order is a malformed move, though :meth:`parse_move` accepts either).
    Because a cast empties two cells, a diagonal allows at most one cast per step, and a
    column cast that takes a diagonal cell breaks that diagonal until the next settle.
  * ``slide X Y`` moves the card in ``X`` one cell up or down into ``Y``. ``Y`` must be
    empty and have been emptied by a cast in this step (a cell vacated by a slide takes
    no card), and the card must not have slid already in this step.
  * Once a card has slid, no more casts are allowed in that step: casting, then sliding,
    then settling, in that order, as the source describes.
  * ``settle`` ends the step: every row closes its gaps by shifting its cards left. It is
    legal whenever a cast has been made in this step. The engine settles by itself when,
    after a cast or a slide, settling is the only legal move left.
- Legal moves are listed casts first (column a's pairs, then b's, ... e's, then the a1-e5
  diagonal's, then the a5-e1 diagonal's; each line's pairs in cell order), then slides (by
  target cell in cell order, the card above first), then ``settle``. At the start of a step
  only casts are listed.
- The engine checks for the end of a phase only at the start of a step (after a settle,
  after the deal and after its own transposition or refill): if no cast is possible
  there, the phase ends and the engine does the bookkeeping at once: phase 1 with no pair
  cast this round loses (``Ending.LOST``); otherwise the phase-2 transposition; after
  phase 2 the round ends, the next round refills from the stock and phase 1 starts. The
  win (tableau and stock both empty) is detected there too. So a player always faces a step
  with at least one move, and the game never ends ``stuck``; it ends won or lost.
  Every step casts at least one pair, so the game always ends.
- A round that ends when the stock is empty leaves the next round nothing to refill; its
  phase 1 finds the same position with no cast, so the game is lost then.
- The source's two waste piles (an active one face down, a history one face up) are a
  memory aid: every cast card was seen face up in the grid, so the cast-out cards form
  one face-up waste, kept in the order they were cast.
- The view: ``rows`` (five rows, top first, of five cells, columns a-e; a card's text or
  ``None``), ``stock`` (a count only), ``waste`` (cast order), ``cast_out`` (its size),
  ``round``, ``phase``, ``pairs_this_round``, ``emptied`` (cells emptied by casts this
  step, in cell order), ``slid`` (cells holding a card that slid this step) and
  ``can_cast`` (whether casting is still allowed in this step).
- Drawing a state from a view (``Game.draw``): the grid, waste and step as shown; the stock is the
  cards seen nowhere (neither in the grid nor in the waste) in a random order.

Text layout::

    Round: 1
    Phase: 1
    Pairs this round: 1
    Cast out: 2
    Stock: 4C 9S ... (next dealt first)
    Waste: 7H 7S          (cast order)
    Emptied: a2 a4        (cells emptied by casts this step, cell order)
    Slid: QC              (cards that slid this step)
    KD 2S 8C 3H 5D        (five lines: rows 1-5, top first; columns a-e;
    .. 9D 6C JH TS         '..' is an empty cell)
    ...

Every header line is optional except ``Stock:`` (defaults: round 1, phase 1, no pairs
this round, nothing emptied or slid). ``Cast out:``, if given, must equal the waste's
size. Without a ``Waste:`` line the waste is every card found nowhere else, in card
order. Between steps (no ``Emptied:`` cells) each row must be closed to the left. Reading
a layout does the engine's bookkeeping (settling, phase and round ends) as if the
position had just been reached.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from parlour.games.base import Ending, Game, Move, Options, OptionValue, fast_init
from parlour.games.cards import RANK, TEXT, Card, card_count, cards_text, parse_cards, standard_deck
from parlour.games.errors import BadLayout, BadMove, IllegalMove
from parlour.games.registry import register
from parlour.games.shuffle import shuffle, shuffle_drawn

SIZE = 5
CELLS: Final = SIZE * SIZE
EMPTY: Final = -1
COLUMN_LETTERS: Final = "abcde"
# Cell index = column * 5 + row (column 0 = a, row 0 = row 1 at the top): the deal order.
CELL_NAMES: Final = tuple(f"{COLUMN_LETTERS[i // SIZE]}{i % SIZE + 1}" for i in range(CELLS))
CELL_INDEX: Final = {name: i for i, name in enumerate(CELL_NAMES)}
COLUMNS: Final = tuple(tuple(c * SIZE + r for r in range(SIZE)) for c in range(SIZE))
ROWS: Final = tuple(tuple(c * SIZE + r for c in range(SIZE)) for r in range(SIZE))
DIAGONAL_DOWN: Final = tuple(k * SIZE + k for k in range(SIZE))  # a1 b2 c3 d4 e5
DIAGONAL_UP: Final = tuple(k * SIZE + (SIZE - 1 - k) for k in range(SIZE))  # a5 b4 c3 d2 e1
DIAGONALS: Final = (DIAGONAL_DOWN, DIAGONAL_UP)
DIAGONAL_NAMES: Final = ("a1-e5", "a5-e1")

SETTLE: Final = Move("settle")
SLIDE: Final = {
    (s, t): Move("slide", CELL_NAMES[s], CELL_NAMES[t])
    for s in range(CELLS)
    for t in (s - 1, s + 1)
    if 0 <= t < CELLS and t // SIZE == s // SIZE
}


# The 70 pairs of cells that share a line, by id: the column pairs (column a first, upper cell first),
# then the a1-e5 diagonal's pairs, then the a5-e1 diagonal's. LINE_OF[id] is -1 for a column, else the
# diagonal's number; KILLS[id] is the cells whose emptying ends the pair's chance this step.
PAIRS: Final = tuple(
    (a, b, line)
    for line, cells in [(-1, col) for col in COLUMNS] + list(enumerate(DIAGONALS))
    for k, a in enumerate(cells)
    for b in cells[k + 1 :]
)
PAIR_ID: Final = {(a, b): p for p, (a, b, _) in enumerate(PAIRS)}
PAIR_MOVE: Final = tuple(Move("cast", CELL_NAMES[a], CELL_NAMES[b]) for a, b, _ in PAIRS)
LINE_OF: Final = tuple(line for _, _, line in PAIRS)
KILLS: Final = tuple((1 << a | 1 << b) if line < 0 else sum(1 << i for i in DIAGONALS[line]) for a, b, line in PAIRS)
COLUMN_PAIR_IDS: Final = tuple((p, a, b) for p, (a, b, line) in enumerate(PAIRS) if line < 0)
DIAGONAL_PAIR_IDS: Final = tuple(tuple((p, a, b) for p, (a, b, line) in enumerate(PAIRS) if line == d) for d in (0, 1))
COLUMN_PAIRS: Final = tuple(tuple((p, a, b) for p, a, b in COLUMN_PAIR_IDS if a // SIZE == c) for c in range(SIZE))
# For each cell, the slides into it: (source cell, move), the cell above first.
SLIDES_INTO: Final = tuple(tuple((s, SLIDE[s, t]) for s in (t - 1, t + 1) if (s, t) in SLIDE) for t in range(CELLS))
CANDIDATES: Final = (*PAIR_MOVE, *SLIDE.values(), SETTLE)
_CELL_OF: Final[dict[str | None, Card]] = {None: EMPTY, **{TEXT[c]: c for c in range(52)}}


@dataclass(frozen=True, slots=True)
class ChrisCrossState:
    options: Options
    grid: tuple[Card, ...]  # 25 cells, index column * 5 + row; EMPTY (-1) for an empty cell
    stock: tuple[Card, ...]  # next dealt first
    waste: tuple[Card, ...]  # cast-out cards in the order cast
    round: int  # 1, 2, ...
    phase: int  # 1 or 2
    round_casts: int  # pairs cast in this round
    emptied: int  # bit i: cell i was emptied by a cast in this step (0 between steps)
    slid: int  # bit i: the card in cell i slid in this step
    # Derived, kept to save work: the ids (see PAIRS) of the casts allowed now; () once a card has slid.
    casts: tuple[int, ...] = field(compare=False, repr=False)
    ended: Ending | None = None

    # mypyc compiles this; plain Python replaces it with fast_init's (see fast_init).
    def __init__(
        self,
        options: Options,
        grid: tuple[Card, ...],
        stock: tuple[Card, ...],
        waste: tuple[Card, ...],
        round: int,
        phase: int,
        round_casts: int,
        emptied: int,
        slid: int,
        casts: tuple[int, ...],
        ended: Ending | None = None,
    ) -> None:
        self.options = options  # type: ignore[misc]
        self.grid = grid  # type: ignore[misc]
        self.stock = stock  # type: ignore[misc]
        self.waste = waste  # type: ignore[misc]
        self.round = round  # type: ignore[misc]
        self.phase = phase  # type: ignore[misc]
        self.round_casts = round_casts  # type: ignore[misc]
        self.emptied = emptied  # type: ignore[misc]
        self.slid = slid  # type: ignore[misc]
        self.casts = casts  # type: ignore[misc]
        self.ended = ended  # type: ignore[misc]


fast_init(ChrisCrossState)


def _casts(grid: tuple[Card, ...]) -> tuple[int, ...]:
    """The ids of the pairs that may be cast in ``grid``, in id order."""
    out: list[int] = []
    for column in range(SIZE):
        seen = 0  # bit r: a card of rank r stands in this column
        for i in COLUMNS[column]:
            card = grid[i]
            if card >= 0:
                bit = 1 << RANK[card]
                if seen & bit:  # a pair: list the column's pairs
                    for p, a, b in COLUMN_PAIRS[column]:
                        if grid[a] >= 0 and grid[b] >= 0 and RANK[grid[a]] == RANK[grid[b]]:
                            out.append(p)
                    break
                seen |= bit
    for line in range(2):
        seen = 0
        pair = False
        for i in DIAGONALS[line]:
            card = grid[i]
            if card < 0:  # not full: no line now
                pair = False
                break
            bit = 1 << RANK[card]
            pair = pair or bool(seen & bit)
            seen |= bit
        if pair:
            for p, a, b in DIAGONAL_PAIR_IDS[line]:
                if RANK[grid[a]] == RANK[grid[b]]:
                    out.append(p)
    return tuple(out)


def _slides(grid: tuple[Card, ...], emptied: int, slid: int, first: bool = False) -> list[Move]:
    """The legal slides, by target cell, the card above first (only the first one if ``first``)."""
    out: list[Move] = []
    mask = emptied
    while mask:
        t = (mask & -mask).bit_length() - 1
        mask &= mask - 1
        if grid[t] < 0:
            for s, move in SLIDES_INTO[t]:
                if grid[s] >= 0 and not slid >> s & 1:
                    out.append(move)
                    if first:
                        return out
    return out


def _close_rows(grid: tuple[Card, ...], rotate: bool = False) -> tuple[Card, ...]:
    """Every row closed to the left; with ``rotate``, a row of 2-4 cards also moves its first card to its end."""
    if EMPTY not in grid:
        return grid
    cells = [EMPTY] * CELLS
    for r in range(SIZE):
        k = r  # the next cell to fill in this row (cells go column by column)
        for i in ROWS[r]:
            card = grid[i]
            if card >= 0:
                cells[k] = card
                k += SIZE
        if rotate and SIZE + r < k < CELLS:  # 2 to 4 cards: the first goes to the end
            first = cells[r]
            for j in range(r, k - SIZE, SIZE):
                cells[j] = cells[j + SIZE]
            cells[k - SIZE] = first
    return tuple(cells)


def _rows_closed(grid: tuple[Card, ...]) -> bool:
    for row in ROWS:
        gap = False
        for i in row:
            if grid[i] < 0:
                gap = True
            elif gap:
                return False
    return True


def _advance(
    options: Options,
    grid: tuple[Card, ...],
    stock: tuple[Card, ...],
    waste: tuple[Card, ...],
    rnd: int,
    phase: int,
    pairs: int,
) -> ChrisCrossState:
    """The state at the start of a step: end phases and rounds while no cast is possible; detect the end."""
    while True:
        casts = _casts(grid)
        if casts:
            ending: Ending | None = None
            break
        if not stock and max(grid) < 0:
            ending = Ending.WON
            break
        if phase == 1:
            if pairs == 0:
                ending = Ending.LOST
                break
            phase = 2
            grid = _close_rows(grid, rotate=True)
        else:
            rnd, phase, pairs = rnd + 1, 1, 0
            if stock:
                cells = list(grid)
                taken = 0
                for i in range(CELLS):
                    if cells[i] < 0:
                        if taken == len(stock):
                            break
                        cells[i] = stock[taken]
                        taken += 1
                grid, stock = tuple(cells), stock[taken:]
    return ChrisCrossState(options, grid, stock, waste, rnd, phase, pairs, 0, 0, casts, ending)


def _settle(state: ChrisCrossState) -> ChrisCrossState:
    """End the step: close every row to the left, clear the step's bookkeeping, go on."""
    s = state
    return _advance(s.options, _close_rows(s.grid), s.stock, s.waste, s.round, s.phase, s.round_casts)


def _after_step_move(state: ChrisCrossState) -> ChrisCrossState:
    """Settle by itself if settling is the only legal move left in this step."""
    if state.casts or _slides(state.grid, state.emptied, state.slid, first=True):
        return state
    return _settle(state)


def _two(grid: tuple[Card, ...], i: int, j: int) -> str:
    return f"{TEXT[grid[i]]} at {CELL_NAMES[i]} and {TEXT[grid[j]]} at {CELL_NAMES[j]}"


def _cells_text(mask: int) -> str:
    return " ".join(CELL_NAMES[i] for i in range(CELLS) if mask >> i & 1)


class ChrisCrossPairs(Game[ChrisCrossState]):
    name = "chris-cross-pairs"
    title = "Chris-Cross Pairs"
    summary = "Cast out pairs of equal rank from the columns and full diagonals of a 5x5 grid; clear all 52 to win."
    higher_is_better = True
    score_range = (0, 52)

    def _deal(self, seed: int, options: dict[str, OptionValue]) -> ChrisCrossState:
        deck = shuffle(standard_deck(), seed, "deal")
        return _advance(options, tuple(deck[:CELLS]), tuple(deck[CELLS:]), (), 1, 1, 0)

    def _legal_moves(self, state: ChrisCrossState) -> list[Move]:
        moves = list(map(PAIR_MOVE.__getitem__, state.casts))
        if state.emptied:
            moves += _slides(state.grid, state.emptied, state.slid)
            moves.append(SETTLE)
        return moves

    def _apply(self, state: ChrisCrossState, move: Move) -> ChrisCrossState:
        kind = move.kind
        if kind == "settle":
            if move.src or move.dst or move.count:
                raise BadMove(f"'settle' takes no cells, not {move.text()!r}")
            if not state.emptied:
                raise IllegalMove("there is nothing to settle: no pair has been cast in this step")
            return _settle(state)
        if kind not in ("cast", "slide"):
            raise BadMove(f"chris-cross-pairs moves are 'cast X Y', 'slide X Y' and 'settle', not {move.text()!r}")
        if move.src not in CELL_INDEX or move.dst not in CELL_INDEX or move.count:
            raise BadMove(f"'{kind}' names two cells a1 to e5 (column a-e, row 1-5), not {move.text()!r}")
        i, j = CELL_INDEX[move.src], CELL_INDEX[move.dst]
        if i == j:
            raise BadMove(f"'{kind}' names two different cells, not {move.text()!r}")
        if kind == "cast":
            return self._cast(state, i, j)
        return self._slide(state, i, j)

    def _cast(self, state: ChrisCrossState, i: int, j: int) -> ChrisCrossState:
        if i > j:
            raise BadMove(f"write a cast's cells in order: 'cast {CELL_NAMES[j]} {CELL_NAMES[i]}'")
        grid = state.grid
        a, b = grid[i], grid[j]
        for cell, card in ((i, a), (j, b)):
            if card < 0:
                raise IllegalMove(f"cell {CELL_NAMES[cell]} is empty")
        if state.slid:
            raise IllegalMove("no more casts in this step once a card has slid; settle first")
        pair = PAIR_ID.get((i, j))
        if pair is None:
            raise IllegalMove(f"{_two(grid, i, j)} share neither a column nor a diagonal")
        line = LINE_OF[pair]
        if line >= 0:
            holes = [CELL_NAMES[k] for k in DIAGONALS[line] if grid[k] < 0]
            if holes:
                raise IllegalMove(
                    f"the {DIAGONAL_NAMES[line]} diagonal is not full ({' '.join(holes)} empty), so it is no line now"
                )
        if RANK[a] != RANK[b]:
            raise IllegalMove(f"{_two(grid, i, j)} are not of the same rank")
        cells = list(grid)
        cells[i] = cells[j] = EMPTY
        after = tuple(cells)
        gone = 1 << i | 1 << j
        emptied = state.emptied | gone
        s = state
        # Removing cards makes no new pair: a cast ends only the pairs it touches or whose diagonal it breaks.
        casts = tuple(p for p in s.casts if not KILLS[p] & gone)
        if casts or _slides(after, emptied, 0, first=True):
            return ChrisCrossState(
                s.options, after, s.stock, s.waste + (a, b), s.round, s.phase, s.round_casts + 1, emptied, 0, casts
            )
        return _advance(s.options, _close_rows(after), s.stock, s.waste + (a, b), s.round, s.phase, s.round_casts + 1)

    def _slide(self, state: ChrisCrossState, s: int, t: int) -> ChrisCrossState:
        grid = state.grid
        card = grid[s]
        if card < 0:
            raise IllegalMove(f"cell {CELL_NAMES[s]} is empty")
        if (s, t) not in SLIDE:
            raise IllegalMove(f"a card slides one cell up or down in its column; {CELL_NAMES[t]} is not next to it")
        if grid[t] >= 0:
            raise IllegalMove(f"cell {CELL_NAMES[t]} holds {TEXT[grid[t]]}")
        if not state.emptied >> t & 1:
            raise IllegalMove(f"cell {CELL_NAMES[t]} was not emptied by a cast in this step")
        if state.slid >> s & 1:
            raise IllegalMove(f"{TEXT[card]} has already slid in this step")
        cells = list(grid)
        cells[s], cells[t] = EMPTY, card
        after = tuple(cells)
        slid = state.slid | 1 << t
        st = state
        if _slides(after, st.emptied, slid, first=True):
            return ChrisCrossState(
                st.options, after, st.stock, st.waste, st.round, st.phase, st.round_casts, st.emptied, slid, ()
            )
        return _advance(st.options, _close_rows(after), st.stock, st.waste, st.round, st.phase, st.round_casts)

    def _score(self, state: ChrisCrossState) -> int:
        return len(state.waste)

    def _view(self, state: ChrisCrossState) -> dict[str, Any]:
        grid = state.grid
        return {
            "rows": [[TEXT[grid[i]] if grid[i] >= 0 else None for i in row] for row in ROWS],
            "stock": len(state.stock),
            "waste": [TEXT[c] for c in state.waste],
            "cast_out": len(state.waste),
            "round": state.round,
            "phase": state.phase,
            "pairs_this_round": state.round_casts,
            "emptied": [CELL_NAMES[i] for i in range(CELLS) if state.emptied >> i & 1],
            "slid": [CELL_NAMES[i] for i in range(CELLS) if state.slid >> i & 1],
            "can_cast": not state.slid,
        }

    def _draw(self, view: Mapping[str, Any], rng: random.Random) -> ChrisCrossState:
        # Only the stock's order is hidden: its cards are those the grid and the waste do not show.
        try:
            board = view["board"]
            rows = board["rows"]
            grid = tuple(_CELL_OF[rows[i % SIZE][i // SIZE]] for i in range(CELLS))
            waste = tuple(_CELL_OF[t] for t in board["waste"])
            emptied = sum(1 << CELL_INDEX[name] for name in board["emptied"])
            slid = sum(1 << CELL_INDEX[name] for name in board["slid"])
            numbers = board["round"], board["phase"], board["pairs_this_round"]
            ended = None if view["ended"] is None else Ending(view["ended"])
            shown = [c for c in grid if c >= 0] + list(waste)
            seen = set(shown)
            stock = [c for c in range(52) if c not in seen]
            good = view["game"] == self.name and len(seen) == len(shown) and len(stock) == board["stock"]
            good = good and len(rows) == SIZE and all(len(row) == SIZE for row in rows)
        except (KeyError, TypeError, ValueError, IndexError):
            good = False
        if not good:
            raise BadLayout("not a player's view of a Chris-Cross Pairs game")
        shuffle_drawn(stock, rng)
        casts = () if slid else _casts(grid)
        options = self.resolve_options(view["options"])
        return ChrisCrossState(options, grid, tuple(stock), waste, *numbers, emptied, slid, casts, ended)

    def render(self, view: Mapping[str, Any]) -> str:
        board = view["board"]
        emptied, slid = set(board["emptied"]), set(board["slid"])
        lines = [
            f"Round {board['round']}, phase {board['phase']}   Pairs this round: {board['pairs_this_round']}   "
            f"Stock: {card_count(board['stock'])}   Cast out: {board['cast_out']}",
            "   " + "   ".join(COLUMN_LETTERS),
        ]
        for r, row in enumerate(board["rows"]):
            cells = []
            for c, text in enumerate(row):
                name = f"{COLUMN_LETTERS[c]}{r + 1}"
                if text is None:
                    cells.append("-- " if name in emptied else ".. ")
                else:
                    cells.append(text + ("*" if name in slid else " "))
            lines.append(f"{r + 1}  " + " ".join(cells).rstrip())
        if emptied:
            step = f"This step: cast from {' '.join(board['emptied'])} (--)"
            if slid:
                step += f"; slid (*) {' '.join(board['slid'])}; no more casts"
            lines.append(step)
        if view.get("ended"):
            lines.append(f"Game over: {view['ended']}")
        else:
            lines.append("Moves: cast a1 a3 (same column or full diagonal a1-e5 / a5-e1), slide b1 b2, settle")
        return "\n".join(lines)

    def to_text(self, state: ChrisCrossState) -> str:
        grid = state.grid
        lines = [
            f"Round: {state.round}",
            f"Phase: {state.phase}",
            f"Pairs this round: {state.round_casts}",
            f"Cast out: {len(state.waste)}",
            f"Stock: {cards_text(state.stock)}".rstrip(),
            f"Waste: {cards_text(state.waste)}".rstrip(),
            f"Emptied: {_cells_text(state.emptied)}".rstrip(),
            f"Slid: {cards_text(grid[i] for i in range(CELLS) if state.slid >> i & 1)}".rstrip(),
        ]
        lines += [" ".join(TEXT[grid[i]] if grid[i] >= 0 else ".." for i in row) for row in ROWS]
        return "\n".join(lines) + "\n"

    def from_text(self, text: str, options: Mapping[str, object] | None = None) -> ChrisCrossState:
        headers: dict[str, tuple[int, str]] = {}
        rows: list[tuple[int, list[str]]] = []
        known = ("round", "phase", "pairs this round", "cast out", "stock", "waste", "emptied", "slid")
        for number, raw in enumerate(text.strip("\n").splitlines(), 1):
            line = raw.strip()
            if not line:
                continue
            head, colon, rest = line.partition(":")
            if colon:
                key = head.strip().lower()
                if key not in known:
                    raise BadLayout(f"line {number}: unknown header {head.strip()!r}; headers: {', '.join(known)}")
                if key in headers:
                    raise BadLayout(f"line {number}: header {head.strip()!r} given twice")
                headers[key] = (number, rest.strip())
            else:
                rows.append((number, line.split()))
        if "stock" not in headers:
            raise BadLayout("a Chris-Cross Pairs layout needs a 'Stock:' line (write 'Stock:' alone for none)")
        if len(rows) != SIZE:
            raise BadLayout(f"a Chris-Cross Pairs layout has {SIZE} grid lines (rows 1-5), found {len(rows)}")

        def number_of(key: str, default: int, low: int, high: int) -> int:
            if key not in headers:
                return default
            at, value = headers[key]
            if not value.isdigit() or not low <= int(value) <= high:
                raise BadLayout(f"line {at}: {key} is a whole number from {low} to {high}, not {value!r}")
            return int(value)

        rnd = number_of("round", 1, 1, 10**6)
        phase = number_of("phase", 1, 1, 2)
        round_casts = number_of("pairs this round", 0, 0, 26)
        seen: dict[Card, int] = {}
        cells = [EMPTY] * CELLS
        for r, (at, tokens) in enumerate(rows):
            if len(tokens) != SIZE:
                raise BadLayout(f"line {at}: a grid row has {SIZE} cells (a card or '..'), found {len(tokens)}")
            for c, token in enumerate(tokens):
                if token != "..":
                    cells[c * SIZE + r] = parse_cards([token], seen)[0]
        grid = tuple(cells)
        stock = tuple(parse_cards(headers["stock"][1].split(), seen))
        if "waste" in headers:
            waste = tuple(parse_cards(headers["waste"][1].split(), seen))
            missing = [c for c in standard_deck() if c not in seen]
            if missing:
                raise BadLayout(
                    f"cards found nowhere: {cards_text(missing)} (every card is in the grid, stock or waste)"
                )
        else:
            waste = tuple(c for c in standard_deck() if c not in seen)
        if len(waste) % 2:
            raise BadLayout(f"the waste holds pairs, but it has {len(waste)} cards")
        if "cast out" in headers and number_of("cast out", 0, 0, 52) != len(waste):
            raise BadLayout(
                f"line {headers['cast out'][0]}: 'Cast out' says {headers['cast out'][1]}, the waste holds {len(waste)}"
            )
        if 2 * round_casts > len(waste):
            raise BadLayout(f"{round_casts} pairs cast this round, but only {len(waste)} cards are cast out")
        if phase == 2 and round_casts == 0:
            raise BadLayout("phase 2 is reached only after phase 1 cast a pair, but no pair is cast this round")

        emptied = 0
        if "emptied" in headers:
            at, value = headers["emptied"]
            for name in value.split():
                if name.lower() not in CELL_INDEX:
                    raise BadLayout(f"line {at}: {name!r} is no cell (a1 to e5)")
                emptied |= 1 << CELL_INDEX[name.lower()]
        slid = 0
        if "slid" in headers:
            at, value = headers["slid"]
            for card in parse_cards(value.split()):
                if card not in grid:
                    raise BadLayout(f"line {at}: slid card {TEXT[card]} is not in the grid")
                slid |= 1 << grid.index(card)
        if emptied.bit_count() % 2 or emptied.bit_count() > 2 * round_casts:
            raise BadLayout(
                f"{emptied.bit_count()} cells emptied by casts this step: casts empty two cells each, "
                f"and {round_casts} pairs are cast this round"
            )
        if slid & ~emptied:
            raise BadLayout(f"a slid card stands only in a cell emptied by a cast: {_cells_text(slid & ~emptied)}")
        filled = [CELL_NAMES[i] for i in range(CELLS) if emptied >> i & 1 and grid[i] >= 0 and not slid >> i & 1]
        if filled:
            raise BadLayout(f"cells emptied by a cast hold a card that did not slide there: {' '.join(filled)}")

        casts = () if slid else _casts(grid)
        state = ChrisCrossState(
            self.resolve_options(options), grid, stock, waste, rnd, phase, round_casts, emptied, slid, casts
        )
        if emptied:
            return _after_step_move(state)
        if not _rows_closed(grid):
            raise BadLayout("between steps every row is closed to the left (no '..' before a card in a row)")
        return _advance(state.options, grid, stock, waste, rnd, phase, round_casts)

    def cards(self, state: ChrisCrossState) -> list[Card]:
        return [c for c in state.grid if c >= 0] + list(state.stock) + list(state.waste)

    def hidden_cards(self, state: ChrisCrossState) -> list[Card]:
        return list(state.stock)

    def candidate_moves(self, state: ChrisCrossState) -> Iterable[Move]:
        return CANDIDATES

    def parse_move(self, text: str) -> Move:
        """Also reads ``c``/``s``/``m`` for cast/settle/slide, upper case, and a cast's cells in either order."""
        tokens = text.strip().lower().split()
        if tokens:
            kind = {"c": "cast", "s": "settle", "m": "slide", "move": "slide"}.get(tokens[0], tokens[0])
            if kind == "settle" and len(tokens) == 1:
                return SETTLE
            if kind in ("cast", "slide") and len(tokens) == 3 and all(t in CELL_INDEX for t in tokens[1:]):
                a, b = CELL_INDEX[tokens[1]], CELL_INDEX[tokens[2]]
                if kind == "cast" and a > b:
                    a, b = b, a
                return Move(kind, CELL_NAMES[a], CELL_NAMES[b])
        return super().parse_move(text)


CHRIS_CROSS_PAIRS: Final = register(ChrisCrossPairs())
