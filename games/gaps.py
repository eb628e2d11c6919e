"""Gaps: four rows of thirteen cells; fill each gap with the card after its left neighbour.

Rules (RULINGS.md, "Gaps"):

- 52 cards, all face up. The four 2s are placed in column 1, one per row, in the order
  they come in the shuffled deck; each row's suit is its 2's suit. The other 48 cards
  are dealt twelve to a row in columns 2 to 13. Then the four aces are removed: their
  cells are the gaps.
- A gap may be filled with the card one rank higher, same suit, than the card directly
  to its left. A gap to the right of a king, or of another gap, cannot be filled.
- Stuck (no gap can be filled): the player may redeal, at most twice. Every card that is
  not part of the unbroken same-suit run 2, 3, 4, ... at the start of its row is picked
  up. The picked-up cards and the four aces are shuffled and dealt into the empty cells,
  row by row, left to right; the aces are removed again, making four new gaps.
- Won when every row holds its suit from 2 to K in order (columns 1 to 12; column 13 is
  then a gap). Score: the cards, 2s included, that stand in an unbroken same-suit run
  from the 2 at the start of their row (4 to 48). Higher is better.

Choices this module makes:

- The deal: the deck in ascending card order is shuffled with
  ``shuffle(standard_deck(), seed, "deal")`` (see :mod:`parlour.games.shuffle`). Going
  through the shuffled deck in order, the n-th 2 met goes to column 1 of row n (rows
  ``a`` to ``d``, top to bottom). The other 48 cards, keeping their shuffled order, fill
  row ``a`` columns 2 to 13, then row ``b`` columns 2 to 13, then ``c``, then ``d``.
  Then each ace is taken out, leaving a gap in its cell.
- Column 1 never holds a gap: a card only ever moves into a gap right of the card one
  rank below it, and aces are never on the board, so a 2 never moves; a 2 always starts
  its row's run, so a redeal never picks it up. ``from_text`` therefore requires a 2 in
  column 1 of every row.
- The redeal: the cards picked up plus the four aces are sorted in ascending card order
  and shuffled with ``shuffle(sorted(cards), seed, f"gaps-redeal-{n}")``, ``n`` = 1 for
  the first redeal and 2 for the second, ``seed`` being the deal's seed. The shuffled
  cards fill the empty cells (the picked-up cards' cells and the four old gaps; there
  are exactly as many cells as cards) row by row, ``a`` to ``d``, each left to right;
  then the aces are taken out again. So the redeal is a pure function of (seed, redeal
  number, the set of cards), and the state carries the seed. The seed is never in the
  view (it is secret during a race); it is in the text layout.
- Redealing is a move the player chooses (``redeal``). It is listed only when no gap can
  be filled and fewer than two redeals have been made. A position where no gap can be
  filled and both redeals are used is over (stuck). A won position is won, not stuck.
- Places: cells ``a1`` to ``d13`` (row letter, column number). Moves: ``fill <gap>``,
  e.g. ``fill b7``: the one card that fits the gap (one rank above its left neighbour,
  same suit) moves there from wherever it is, leaving a gap behind. ``redeal``.
  Players may type just the cell (``b7``) for ``fill b7`` and ``r`` for ``redeal``.
- Random play can cycle (a card may move back and forth along with its lower
  neighbours); no repetition rule is added.
- The view: ``rows`` (four lists of thirteen: card text, or ``None`` for a gap),
  ``redeals_left``, ``redeals_used`` and ``removed`` (the four aces). No card is hidden.
- Drawing a state from a view (``Game.draw``): the cells as shown, and a random seed (256 bits from
  the random source) in place of the deal's, which the view never shows. So the redeals of a drawn
  state are random too, as they are to the player.

Text layout::

    Seed: 2024                                 (optional, default 0)
    Redeals used: 0                            (optional, default 0; 0 to 2)
    2D -- KD TH 4H 8D 7H QD 6D TC 5D 3C 8S     (four row lines, a to d,
    2C KH JH JD 4S 8C 3D 3S TS 9H JS 6S --      thirteen cells each,
    2H 9D KS 9C QC 9S 7D 7S 3H 5S TD KC QS      columns 1 to 13)
    2S 6H 4D JC -- 8H QH 6C 5H 7C 5C -- 4C

(the deal of seed 2024). A gap is written ``--``. Blank lines are ignored; ``Redeals`` is
read as ``Redeals used``. ``from_text`` requires four rows of thirteen, a 2 in column 1 of
each row and nowhere else, exactly four gaps, no ace and no card twice, and settles the
ending (won, or stuck with both redeals used). The aces appear nowhere: they are
removed. The layout holds the seed because redeals depend on it, so it must not be
shown to a racer before the race is over.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Final

from parlour.games.base import Ending, Game, Move, Options, OptionValue, fast_init
from parlour.games.cards import RANK, RANK_CHARS, TEXT, Card, parse_cards, standard_deck
from parlour.games.errors import BadLayout, BadMove, IllegalMove
from parlour.games.registry import register
from parlour.games.shuffle import check_seed, shuffle

ROWS: Final = 4
COLS: Final = 13
CELLS: Final = ROWS * COLS
MAX_REDEALS: Final = 2
GAP: Final = -1
GAP_TEXT: Final = "--"
ROW_NAMES: Final = "abcd"
CELL_NAMES: Final = tuple(f"{ROW_NAMES[i // COLS]}{i % COLS + 1}" for i in range(CELLS))
_CELL_INDEX: Final = {name: i for i, name in enumerate(CELL_NAMES)}
ACES: Final = tuple(c for c in standard_deck() if RANK[c] == 1)
REDEAL: Final = Move("redeal")
FILL: Final = tuple(Move("fill", name) for name in CELL_NAMES)
_FILL_INDEX: Final = {move: i for i, move in enumerate(FILL)}
# A gap's left neighbour takes a card after it unless it is a gap (GAP) or a king.
_BLOCKS: Final = frozenset([GAP, *(c for c in standard_deck() if RANK[c] == 13)])
_CELL_OF: Final[dict[str | None, Card]] = {None: GAP, **{TEXT[c]: c for c in standard_deck() if RANK[c] != 1}}


@dataclass(frozen=True, slots=True)
class GapsState:
    options: Options
    cells: tuple[Card, ...]  # 52 cells, row a columns 1-13, then b, c, d; GAP for a gap
    gaps: tuple[int, ...]  # the four gap cells, ascending
    redeals: int  # redeals made so far (0 to 2)
    seed: int  # the deal's seed: redeals shuffle with it; never shown in the view
    ended: Ending | None = None

    # mypyc compiles this; plain Python replaces it with fast_init's (see fast_init).
    def __init__(
        self,
        options: Options,
        cells: tuple[Card, ...],
        gaps: tuple[int, ...],
        redeals: int,
        seed: int,
        ended: Ending | None = None,
    ) -> None:
        self.options = options  # type: ignore[misc]
        self.cells = cells  # type: ignore[misc]
        self.gaps = gaps  # type: ignore[misc]
        self.redeals = redeals  # type: ignore[misc]
        self.seed = seed  # type: ignore[misc]
        self.ended = ended  # type: ignore[misc]


fast_init(GapsState)


def _run_lengths(cells: tuple[Card, ...]) -> list[int]:
    """Per row, how many cards from column 1 form the same-suit run 2, 3, 4, ..."""
    lengths = []
    for start in range(0, CELLS, COLS):
        want = cells[start]  # the row's 2: from_text and the rules keep a 2 in column 1
        n = 0
        while n < COLS and cells[start + n] == want:
            n += 1
            want += 1
        lengths.append(n)
    return lengths


def _fillable(cells: tuple[Card, ...], gaps: tuple[int, ...]) -> bool:
    return any(cells[g - 1] not in _BLOCKS for g in gaps)


# The four gaps, ascending, when every one is in the last column (one per row).
_LAST_COLUMN: Final = tuple(row * COLS + COLS - 1 for row in range(ROWS))


def _settle(state: GapsState) -> GapsState:
    """Mark the state over if it is won, or stuck with no redeal left."""
    cells, gaps = state.cells, state.gaps
    if gaps == _LAST_COLUMN and sum(_run_lengths(cells)) == 48:
        return GapsState(state.options, cells, gaps, state.redeals, state.seed, Ending.WON)
    if state.redeals >= MAX_REDEALS and not _fillable(cells, gaps):
        return GapsState(state.options, cells, gaps, state.redeals, state.seed, Ending.STUCK)
    return state


def _gaps_of(cells: tuple[Card, ...] | list[Card]) -> tuple[int, ...]:
    return tuple(i for i, c in enumerate(cells) if c == GAP)


def _fill_hint(rows: list[list[str | None]], cell: str) -> str:
    """``b7=5C``: a fill move's cell and the card that goes there, read from the view's rows."""
    i = _CELL_INDEX[cell]
    left = rows[i // COLS][i % COLS - 1]
    if left is None or left[0] == "K":
        return cell
    return f"{cell}={RANK_CHARS[RANK_CHARS.index(left[0]) + 1]}{left[1]}"


class Gaps(Game[GapsState]):
    name = "gaps"
    title = "Gaps"
    summary = "Fill the four gaps to build each row from 2 to K in one suit; two redeals when stuck."
    higher_is_better = True
    score_range = (4, 48)

    def _deal(self, seed: int, options: dict[str, OptionValue]) -> GapsState:
        deck = shuffle(standard_deck(), seed, "deal")
        twos = [c for c in deck if RANK[c] == 2]
        rest = [c for c in deck if RANK[c] != 2]
        cells: list[Card] = []
        for r in range(ROWS):
            cells.append(twos[r])
            cells.extend(rest[r * 12 : r * 12 + 12])
        cells = [GAP if RANK[c] == 1 else c for c in cells]
        return _settle(GapsState(options, tuple(cells), _gaps_of(cells), 0, seed))

    def _legal_moves(self, state: GapsState) -> list[Move]:
        cells = state.cells
        moves = [FILL[g] for g in state.gaps if cells[g - 1] not in _BLOCKS]
        if not moves and state.redeals < MAX_REDEALS:
            moves.append(REDEAL)
        return moves

    def _apply(self, state: GapsState, move: Move) -> GapsState:
        dst = _FILL_INDEX.get(move, -1)
        if dst >= 0:
            return self._fill(state, dst)
        if move == REDEAL:
            return self._redeal(state)
        raise BadMove(
            f"gaps moves are 'fill <gap cell>' (cells a1 to d13, e.g. 'fill b7') and 'redeal', not {move.text()!r}"
        )

    def _fill(self, state: GapsState, dst: int) -> GapsState:
        cells = state.cells
        name = CELL_NAMES[dst]
        if cells[dst] != GAP:
            raise IllegalMove(f"{name} holds {TEXT[cells[dst]]}, not a gap")
        left = cells[dst - 1]  # dst is never in column 1: a 2 always sits there
        if left == GAP:
            raise IllegalMove(
                f"the gap at {name} is right of another gap ({CELL_NAMES[dst - 1]}), so it cannot be filled"
            )
        if RANK[left] == 13:
            raise IllegalMove(f"the gap at {name} is right of {TEXT[left]}; nothing goes after a king")
        card = left + 1  # one rank higher, same suit
        src = cells.index(card)
        new = list(cells)
        new[dst] = card
        new[src] = GAP
        moved = list(state.gaps)
        moved[moved.index(dst)] = src
        moved.sort()
        gaps = tuple(moved)
        return _settle(GapsState(state.options, tuple(new), gaps, state.redeals, state.seed))

    def _redeal(self, state: GapsState) -> GapsState:
        if state.redeals >= MAX_REDEALS:
            raise IllegalMove(f"no redeal left: both of the {MAX_REDEALS} redeals are used")
        cells = state.cells
        for g in state.gaps:
            if cells[g - 1] not in _BLOCKS:
                raise IllegalMove(
                    f"you may redeal only when no gap can be filled; the gap at {CELL_NAMES[g]} takes "
                    f"{TEXT[cells[g - 1] + 1]}"
                )
        n = state.redeals + 1
        lengths = _run_lengths(cells)
        empty = [r * COLS + c for r in range(ROWS) for c in range(lengths[r], COLS)]
        picked = [cells[i] for i in empty if cells[i] != GAP]
        dealt = shuffle(sorted(picked + list(ACES)), state.seed, f"gaps-redeal-{n}")
        new = list(cells)
        for i, card in zip(empty, dealt, strict=True):
            new[i] = GAP if RANK[card] == 1 else card
        return _settle(GapsState(state.options, tuple(new), _gaps_of(new), n, state.seed))

    def _score(self, state: GapsState) -> int:
        return sum(_run_lengths(state.cells))

    def _view(self, state: GapsState) -> dict[str, Any]:
        # Never the seed: it is secret during a race and would reveal future redeals.
        return {
            "rows": [
                [None if c == GAP else TEXT[c] for c in state.cells[r * COLS : (r + 1) * COLS]] for r in range(ROWS)
            ],
            "redeals_used": state.redeals,
            "redeals_left": MAX_REDEALS - state.redeals,
            "removed": [TEXT[c] for c in ACES],
        }

    def _draw(self, view: Mapping[str, Any], rng: random.Random) -> GapsState:
        # Every card is shown; only the seed behind the redeals is not, so it is drawn.
        try:
            board = view["board"]
            cells = tuple(_CELL_OF[c] for row in board["rows"] for c in row)
            redeals = board["redeals_used"]
            ended = None if view["ended"] is None else Ending(view["ended"])
            good = view["game"] == self.name and len(cells) == CELLS and redeals in (0, 1, 2)
        except (KeyError, TypeError, ValueError):
            good = False
        if not good:
            raise BadLayout("not a player's view of a Gaps game")
        seed = rng.getrandbits(256)
        return GapsState(self.resolve_options(view["options"]), cells, _gaps_of(cells), redeals, seed, ended)

    def render(self, view: Mapping[str, Any]) -> str:
        board = view["board"]
        lines = ["    " + " ".join(f"{c:>2}" for c in range(1, COLS + 1))]
        for name, row in zip(ROW_NAMES, board["rows"], strict=True):
            lines.append(f"{name}:  " + " ".join(GAP_TEXT if c is None else c for c in row))
        footer = f"Redeals left: {board['redeals_left']}"
        moves = view.get("moves")
        if moves is not None:
            typed = [_fill_hint(board["rows"], m[1]) if m[0] == "fill" else m[0] for m in moves]
            footer += f"   Moves: {' '.join(typed) if typed else 'none'}"
        lines.append(footer)
        lines.append(
            "Type a gap's cell (e.g. b7) to fill it with the card after its left neighbour; 'redeal' when stuck."
        )
        return "\n".join(lines)

    def to_text(self, state: GapsState) -> str:
        lines = [f"Seed: {state.seed}", f"Redeals used: {state.redeals}"]
        for r in range(ROWS):
            lines.append(" ".join(GAP_TEXT if c == GAP else TEXT[c] for c in state.cells[r * COLS : (r + 1) * COLS]))
        return "\n".join(lines) + "\n"

    def from_text(self, text: str, options: Mapping[str, object] | None = None) -> GapsState:
        seed = 0
        redeals = 0
        cells: list[Card] = []
        rows = 0
        seen: dict[Card, int] = {}
        for number, raw in enumerate(text.splitlines(), 1):
            line = raw.strip()
            if not line:
                continue
            head, colon, value = line.partition(":")
            if colon:
                key = head.strip().lower()
                value = value.strip()
                if key == "seed":
                    try:
                        seed = check_seed(int(value))
                    except ValueError:
                        raise BadLayout(f"line {number}: the seed is a whole number from 0 to 2**256 - 1") from None
                elif key in ("redeals used", "redeals"):
                    if value not in ("0", "1", "2"):
                        raise BadLayout(f"line {number}: 'Redeals used' is 0, 1 or 2, not {value!r}")
                    redeals = int(value)
                else:
                    raise BadLayout(
                        f"line {number}: unknown header {head.strip()!r} (Gaps has 'Seed' and 'Redeals used')"
                    )
                continue
            tokens = line.split()
            if len(tokens) != COLS:
                raise BadLayout(
                    f"line {number}: a row has {COLS} cells (write {GAP_TEXT} for a gap), found {len(tokens)}"
                )
            rows += 1
            if rows > ROWS:
                raise BadLayout(f"line {number}: a Gaps layout has {ROWS} rows")
            if tokens[0] == GAP_TEXT:
                raise BadLayout(f"line {number}: column 1 holds the row's 2, never a gap")
            for col, token in enumerate(tokens):
                if token == GAP_TEXT:
                    cells.append(GAP)
                    continue
                try:
                    (card,) = parse_cards([token], seen)
                except BadLayout as e:
                    raise BadLayout(f"line {number}: {e}") from None
                if RANK[card] == 1:
                    raise BadLayout(f"line {number}: the aces are removed in Gaps; {TEXT[card]} cannot be on the board")
                if (col == 0) != (RANK[card] == 2):
                    where = "column 1 holds the row's 2" if col == 0 else "the 2s belong in column 1"
                    raise BadLayout(f"line {number}: {where}, not {TEXT[card]} in column {col + 1}")
                cells.append(card)
        if rows != ROWS:
            raise BadLayout(f"a Gaps layout has {ROWS} row lines of {COLS} cells, found {rows}")
        gaps = _gaps_of(cells)
        if len(gaps) != 4:
            raise BadLayout(f"a Gaps layout has exactly 4 gaps ({GAP_TEXT}), found {len(gaps)}")
        return _settle(GapsState(self.resolve_options(options), tuple(cells), gaps, redeals, seed))

    def cards(self, state: GapsState) -> list[Card]:
        return [c for c in state.cells if c != GAP] + list(ACES)

    def hidden_cards(self, state: GapsState) -> list[Card]:
        return []

    def candidate_moves(self, state: GapsState) -> Iterable[Move]:
        return [*FILL, REDEAL]

    def parse_move(self, text: str) -> Move:
        token = text.strip().lower()
        if token in ("r", "redeal"):
            return REDEAL
        if token in _CELL_INDEX:
            return FILL[_CELL_INDEX[token]]
        tokens = token.split()
        if len(tokens) == 2 and tokens[0] == "fill" and tokens[1] in _CELL_INDEX:
            return FILL[_CELL_INDEX[tokens[1]]]
        return super().parse_move(text)


GAPS: Final = register(Gaps())
