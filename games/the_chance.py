"""The Chance: Klondike in which every card that can go to a foundation goes there at once.

Rules (RULINGS.md, "The Chance"):

- 52 cards. Seven columns of 1 to 7 cards, only each column's top card face up; the
  other 24 cards form the face-down stock. Four foundations build up in suit from the ace.
- Any card that can go to a foundation goes there at once, by itself, before the player
  moves again; this already happens after the deal. Turning up a face-down top card is
  automatic too. There are no foundation moves for the player to make.
- Columns build down by the option ``sequence``: ``alternate`` (alternating colours, the
  default), ``any`` (any suit) or ``suit`` (same suit). A whole sequence, from any face-up
  card down to the column's top, may move. An empty column takes only a king, or a
  sequence headed by a king.
- Stock: three cards are turned at a time onto the waste (fewer if fewer remain); the
  waste's top card may be played to a column. When the stock is empty the waste turns over
  to become the stock again, without limit.
- Over when won (all 52 cards on the foundations), when conceded, or when the player has
  gone once through the whole stock and turned it over without any card moving in between.
- Score, with n the number of cards on the foundations: ``any``: (n - 20) / 4 won or lost;
  ``alternate``: won 2 * (n - 10) / 2, lost (n - 10) / 2; ``suit``: won 4 * (n - 5), lost
  n - 5. A game not won (running, stuck or conceded) scores by the "lost" formula. Scores
  are :class:`fractions.Fraction` values; higher is better.

Choices this module makes:

- The deal: the shuffled deck (see :mod:`parlour.games.shuffle`) is dealt the classic
  Klondike way, in rows: for row ``r`` from 0 to 6, one card onto each column from
  ``c(r+1)`` to ``c7``, in that order. So cards 0-6 are the bottom cards of c1 to c7,
  cards 7-12 the second cards of c2 to c7, ..., card 27 the seventh card of c7. The last
  card dealt onto each column (cards 0, 7, 13, 18, 22, 25, 27 for c1 to c7) is face up.
  Cards 28-51 are the stock, card 28 turned first.
- Turning: the next three stock cards go onto the waste one by one, so the first of them
  lies lowest and the third is the waste's top. Turning the waste over makes the stock the
  waste's cards in the order they were turned (the waste's bottom card is turned first
  again), so a pass in which nothing moves is repeated exactly by the next pass.
- Automatic lay-offs happen after the deal and after every move, until none is possible:
  the engine looks at the tops of c1 to c7 in turn, then the waste's top, lays off every
  card that fits (and the card then exposed, and so on), turns up a column's top
  face-down card as soon as its last face-up card has gone, and repeats until a whole
  round lays off nothing. The result does not depend on this order: laying a card off
  never stops another card from going.
- "Without any card moving": a card moves when the player moves cards to a column (from
  the waste or from another column) or when a card is laid off on a foundation. Turning
  stock cards onto the waste, turning the waste over and turning up a face-down column card
  are not card moves. The counter ``Idle`` is the number of turnovers since a card last
  moved, the deal counting as the first: 1 after the deal, 0 as soon as a card moves, plus
  1 at each turnover. The turnover that makes it 2 is performed and ends the game
  (``stuck``): a whole pass went by without a card moving.
- The game is also ``stuck`` when no move at all is legal (stock and waste both empty and
  no column move possible). Moves that change nothing of substance (a king-headed column
  moved to another empty column, a sequence moved back and forth between two like cards)
  are legal and count as card moves, as the rules do not forbid them.
- Places: columns ``c1`` to ``c7`` and the waste ``w``. Moves: ``turn`` (three stock
  cards onto the waste, or, when the stock is empty, the waste turned over into the stock:
  one move kind, like clicking the stock in the source), ``move w cN`` (the waste's top
  card onto column N, no count) and ``move cN cM K`` (the top K cards of column N onto
  column M; K is always written, even when it is 1). Shorthands: ``t`` or ``s`` for
  ``turn``; the kind ``move`` may be left out (``w c3``, ``c1 c4 2``).
- The view: ``foundations`` (the top card of each foundation in suit order C D H S, or
  ``None``), ``stock`` (a count), ``waste`` (every waste card, bottom to top: all were seen
  face up), ``columns`` (for each column ``{"down": count, "up": [cards, bottom to top]}``)
  and ``idle`` (the counter above: at 1 the next turnover ends the game).
- Drawing a state from a player's view (``Game.draw``): the cards the view does not show
  (neither on a foundation, in the waste nor face up) are shuffled with the caller's
  ``random.Random`` and dealt into the hidden places, uniformly: each column's face-down
  cards (c1 to c7, bottom to top), then the stock (next turned first). The view hides the
  stock's order even after a turnover; a player who remembers the waste knows it, and may
  constrain its own draws.

Text layout::

    Foundations: 3C AH          (the top card of each non-empty foundation, C D H S order)
    Stock: 6D KC KS ...         (face down, the next card turned first)
    Waste: 4D 9C KS             (bottom to top)
    Idle: 0                     (0, 1 or 2; see above; 2 means the game ended stuck)
    c1: | 7H 6S                 (face-down cards bottom to top, '|', face-up bottom to top)
    c2: 5H | 9C
    ...
    c7: 2D 3S 4C 5C 6C 7C | 8D

An empty column is ``c1: |``. Reading a layout, the ``Idle`` line may be left out (it
means 0), a column line without ``|`` is all face up, the foundations' lower cards are
implied by their tops, every card must appear exactly once, and the face-up cards of each
column must be a sequence under the ``sequence`` option. Lay-offs that are due are made
at once (as after the deal, without changing ``Idle``); a column with face-down cards but
no face-up card is refused.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from itertools import pairwise
from typing import Any, Final, cast

from parlour.games.base import Ending, Game, Move, Option, Options, OptionValue, fast_init
from parlour.games.cards import (
    KING,
    RANK,
    RED,
    SUIT,
    SUIT_CHARS,
    TEXT,
    Card,
    card_count,
    cards_text,
    parse_cards,
    standard_deck,
)
from parlour.games.errors import BadLayout, BadMove, IllegalMove
from parlour.games.registry import register
from parlour.games.shuffle import shuffle, shuffle_drawn

COLUMNS: Final = 7
COLUMN_NAMES: Final = tuple(f"c{i + 1}" for i in range(COLUMNS))
_COLUMN_INDEX: Final = {name: i for i, name in enumerate(COLUMN_NAMES)}
_CARD: Final = {TEXT[c]: c for c in range(52)}
WASTE: Final = "w"
TURN_SIZE: Final = 3
SEQUENCES: Final = ("alternate", "any", "suit")
_MAX_UP: Final = 13  # a face-up sequence holds at most K down to A

TURN: Final = Move("turn")
WASTE_MOVES: Final = tuple(Move("move", WASTE, name) for name in COLUMN_NAMES)
# COLUMN_MOVES[i][k][n]: n cards from column i onto column k.
COLUMN_MOVES: Final = tuple(
    tuple(tuple(Move("move", src, dst, n) if n else None for n in range(_MAX_UP + 1)) for dst in COLUMN_NAMES)
    for src in COLUMN_NAMES
)

_RULE_WORDS: Final = {
    "alternate": "columns build down one rank at a time in alternating colours",
    "any": "columns build down one rank at a time",
    "suit": "columns build down one rank at a time in the same suit",
}
_SUIT_NAMES: Final = ("clubs", "diamonds", "hearts", "spades")


def _accepts(rule: str) -> tuple[frozenset[Card], ...]:
    """For each card, the cards that may be laid on it in a column under ``rule``."""
    table = []
    for onto in range(52):
        fit = set()
        for card in range(52):
            if RANK[card] + 1 != RANK[onto]:
                continue
            if rule == "alternate" and RED[card] == RED[onto]:
                continue
            if rule == "suit" and SUIT[card] != SUIT[onto]:
                continue
            fit.add(card)
        table.append(frozenset(fit))
    return tuple(table)


ACCEPTS: Final = {rule: _accepts(rule) for rule in SEQUENCES}

Columns = tuple[tuple[Card, ...], ...]


@dataclass(frozen=True, slots=True)
class ChanceState:
    options: Options
    down: Columns  # face-down cards per column, bottom to top
    up: Columns  # face-up cards per column, bottom to top; empty only if the column is empty
    found: tuple[int, int, int, int]  # cards on each foundation, suits C D H S
    stock: tuple[Card, ...]  # face down, next turned first
    waste: tuple[Card, ...]  # bottom to top
    idle: int  # turnovers since a card last moved, the deal counting as one
    ended: Ending | None = None

    # mypyc compiles this; plain Python replaces it with fast_init's (see fast_init).
    def __init__(
        self,
        options: Options,
        down: Columns,
        up: Columns,
        found: tuple[int, int, int, int],
        stock: tuple[Card, ...],
        waste: tuple[Card, ...],
        idle: int,
        ended: Ending | None = None,
    ) -> None:
        self.options = options  # type: ignore[misc]
        self.down = down  # type: ignore[misc]
        self.up = up  # type: ignore[misc]
        self.found = found  # type: ignore[misc]
        self.stock = stock  # type: ignore[misc]
        self.waste = waste  # type: ignore[misc]
        self.idle = idle  # type: ignore[misc]
        self.ended = ended  # type: ignore[misc]


fast_init(ChanceState)


def _lay_off(
    down: Columns, up: Columns, found: tuple[int, int, int, int], waste: tuple[Card, ...]
) -> tuple[Columns, Columns, tuple[int, int, int, int], tuple[Card, ...]] | None:
    """Every lay-off now due (see the module docstring), or ``None`` if none is."""
    for col in up:
        if col and col[-1] % 13 == found[col[-1] // 13]:
            break
    else:
        if not waste or waste[-1] % 13 != found[waste[-1] // 13]:
            return None
    downs, ups, f = list(down), list(up), list(found)
    changed = True
    while changed:
        changed = False
        for i in range(COLUMNS):
            col = ups[i]
            while col and col[-1] % 13 == f[col[-1] // 13]:
                f[col[-1] // 13] += 1
                col = col[:-1]
                if not col and downs[i]:
                    col = downs[i][-1:]
                    downs[i] = downs[i][:-1]
                changed = True
            ups[i] = col
        while waste and waste[-1] % 13 == f[waste[-1] // 13]:
            f[waste[-1] // 13] += 1
            waste = waste[:-1]
            changed = True
    return tuple(downs), tuple(ups), (f[0], f[1], f[2], f[3]), waste


def _any_column_move(up: Columns, accepts: tuple[frozenset[Card], ...]) -> bool:
    """Whether some column-to-column move is legal."""
    tops = [col[-1] if col else -1 for col in up]
    for i, col in enumerate(up):
        if not col:
            continue
        n = len(col)
        head = RANK[col[0]]
        for k in range(COLUMNS):
            if k == i:
                continue
            top = tops[k]
            if top < 0:
                if head == KING:
                    return True
            else:
                j = head - RANK[top] + 1
                if 0 <= j < n and col[j] in accepts[top]:
                    return True
    return False


def _settle(state: ChanceState) -> ChanceState:
    """Mark the state over if it is won or no move is left (the turnover rule is in ``_apply``)."""
    if state.ended is not None:
        return state
    ended = None
    if sum(state.found) == 52:
        ended = Ending.WON
    elif (
        not state.stock
        and not state.waste
        and not _any_column_move(state.up, ACCEPTS[cast(str, state.options["sequence"])])
    ):
        ended = Ending.STUCK
    if ended is None:
        return state
    return ChanceState(state.options, state.down, state.up, state.found, state.stock, state.waste, state.idle, ended)


def _after_card_move(
    state: ChanceState, down: Columns, up: Columns, found: tuple[int, int, int, int], waste: tuple[Card, ...]
) -> ChanceState:
    """The state after the player moved cards to a column: lay-offs made, end detected."""
    laid = _lay_off(down, up, found, waste)
    if laid is not None:
        down, up, found, waste = laid
    return _settle(ChanceState(state.options, down, up, found, state.stock, waste, 0))


class TheChance(Game[ChanceState]):
    name = "the-chance"
    title = "The Chance"
    summary = "Klondike, turning three, where every card that can go to a foundation goes there at once."
    options_spec = (
        Option(
            "sequence",
            SEQUENCES,
            "alternate",
            "how columns build down: alternate (alternating colours), any (any suit) or suit (same suit)",
        ),
    )
    higher_is_better = True
    score_range = (-5, 188)  # lost with 0 cards under every rule; suit won with 52: 4 * 47

    # --- play ----------------------------------------------------------------------

    def _deal(self, seed: int, options: dict[str, OptionValue]) -> ChanceState:
        deck = shuffle(standard_deck(), seed, "deal")
        cols: list[list[Card]] = [[] for _ in range(COLUMNS)]
        i = 0
        for row in range(COLUMNS):
            for c in range(row, COLUMNS):
                cols[c].append(deck[i])
                i += 1
        down = tuple(tuple(col[:-1]) for col in cols)
        up: tuple[tuple[Card, ...], ...] = tuple((col[-1],) for col in cols)
        found = (0, 0, 0, 0)
        waste: tuple[Card, ...] = ()
        laid = _lay_off(down, up, found, waste)
        if laid is not None:
            down, up, found, waste = laid
        return _settle(ChanceState(options, down, up, found, tuple(deck[i:]), waste, 1))

    def _legal_moves(self, state: ChanceState) -> list[Move]:
        accepts = ACCEPTS[cast(str, state.options["sequence"])]
        targets = []  # (column, rank of its top, the cards its top accepts) for each non-empty column
        empties = []
        ranks = 0  # bit r set: some column's top has rank r
        for k, col in enumerate(state.up):
            if col:
                top = col[-1]
                targets.append((k, RANK[top], accepts[top]))
                ranks |= 1 << RANK[top]
            else:
                empties.append(k)
        moves: list[Move] = []
        waste = state.waste
        if waste:
            card = waste[-1]
            moves += [WASTE_MOVES[k] for k, _, fit in targets if card in fit]
            if empties and RANK[card] == KING:
                moves += [WASTE_MOVES[k] for k in empties]
        for i, col in enumerate(state.up):
            if not col:
                continue
            # The face-up cards run from rank head down to head - n + 1, so a top of rank r can
            # take only the card at index head + 1 - r; a column's own top is never in range.
            n = len(col)
            head = RANK[col[0]] + 1
            low = head - n + 1
            row = COLUMN_MOVES[i]
            if ranks & ((2 << head) - (1 << low)):
                for k, r, fit in targets:
                    if low <= r <= head and col[head - r] in fit:
                        moves.append(row[k][n - head + r])  # type: ignore[arg-type]
            if empties and head == KING + 1:
                moves += [row[k][n] for k in empties]  # type: ignore[misc]
        if state.stock or waste:
            moves.append(TURN)
        return moves

    def _apply(self, state: ChanceState, move: Move) -> ChanceState:
        kind = move.kind
        if kind == "turn":
            if move.src or move.dst or move.count:
                raise BadMove(f"'turn' takes nothing after it, not {move.text()!r}")
            return self._turn(state)
        if kind != "move":
            raise BadMove(
                f"the moves of The Chance are 'turn', 'move w cN' and 'move cN cM count', not {move.text()!r}"
            )
        dst = _COLUMN_INDEX.get(move.dst)
        if dst is None:
            if move.dst in ("f", "foundation", "foundations"):
                raise BadMove("cards go to the foundations by themselves; moves go to a column c1 to c7")
            raise BadMove(f"a move goes to a column c1 to c7, not {move.dst!r}")
        if move.src == WASTE:
            if move.count:
                raise BadMove("a move from the waste takes one card and gives no count: 'move w cN'")
            return self._play_waste(state, dst)
        src = _COLUMN_INDEX.get(move.src)
        if src is None:
            raise BadMove(f"a move comes from the waste w or a column c1 to c7, not {move.src!r}")
        if src == dst:
            raise BadMove(f"a move goes from one column to another, not from {move.src} to itself")
        if not move.count:
            raise BadMove(f"a column move says how many cards move, e.g. 'move {move.src} {move.dst} 1'")
        return self._move_column(state, src, dst, move.count)

    def _turn(self, state: ChanceState) -> ChanceState:
        if state.stock:
            waste = state.waste + state.stock[:TURN_SIZE]
            stock = state.stock[TURN_SIZE:]
            idle = state.idle
            down, up, found = state.down, state.up, state.found
            laid = _lay_off(down, up, found, waste)
            if laid is not None:
                down, up, found, waste = laid
                idle = 0
            return _settle(ChanceState(state.options, down, up, found, stock, waste, idle))
        if not state.waste:
            raise IllegalMove("the stock and the waste are both empty: there is nothing to turn")
        idle = state.idle + 1
        ended = Ending.STUCK if idle >= 2 else None
        return ChanceState(state.options, state.down, state.up, state.found, state.waste, (), idle, ended)

    def _play_waste(self, state: ChanceState, dst: int) -> ChanceState:
        if not state.waste:
            raise IllegalMove("the waste is empty")
        card = state.waste[-1]
        target = state.up[dst]
        self._check_fit(state, card, target, dst)
        up = state.up[:dst] + (target + (card,),) + state.up[dst + 1 :]
        return _after_card_move(state, state.down, up, state.found, state.waste[:-1])

    def _move_column(self, state: ChanceState, src: int, dst: int, count: int) -> ChanceState:
        col = state.up[src]
        name = COLUMN_NAMES[src]
        if not col:
            raise IllegalMove(f"{name} is empty")
        n = len(col)
        if count > n:
            cards = "card" if n == 1 else "cards"
            raise IllegalMove(f"{name} has only {n} face-up {cards}, so {count} cannot move")
        target = state.up[dst]
        self._check_fit(state, col[n - count], target, dst)
        rest = col[: n - count]
        down = state.down
        if not rest and down[src]:
            rest = down[src][-1:]
            down = down[:src] + (down[src][:-1],) + down[src + 1 :]
        ups = list(state.up)
        ups[src] = rest
        ups[dst] = target + col[n - count :]
        return _after_card_move(state, down, tuple(ups), state.found, state.waste)

    @staticmethod
    def _check_fit(state: ChanceState, card: Card, target: tuple[Card, ...], dst: int) -> None:
        if not target:
            if RANK[card] != KING:
                raise IllegalMove(f"{COLUMN_NAMES[dst]} is empty and takes only a king, not {TEXT[card]}")
            return
        rule = cast(str, state.options["sequence"])
        if card not in ACCEPTS[rule][target[-1]]:
            raise IllegalMove(
                f"{TEXT[card]} cannot go on {TEXT[target[-1]]} in {COLUMN_NAMES[dst]}: {_RULE_WORDS[rule]}"
            )

    def _score(self, state: ChanceState) -> Fraction:
        n = sum(state.found)
        rule = cast(str, state.options["sequence"])
        won = state.ended is Ending.WON
        if rule == "any":
            return Fraction(n - 20, 4)
        if rule == "alternate":
            return Fraction(2 * (n - 10), 2) if won else Fraction(n - 10, 2)
        return Fraction(4 * (n - 5)) if won else Fraction(n - 5)

    # --- views and layouts ---------------------------------------------------------------

    def _view(self, state: ChanceState) -> dict[str, Any]:
        return {
            "foundations": [TEXT[s * 13 + n - 1] if n else None for s, n in enumerate(state.found)],
            "stock": len(state.stock),
            "waste": [TEXT[c] for c in state.waste],
            "columns": [
                {"down": len(down), "up": [TEXT[c] for c in up]} for down, up in zip(state.down, state.up, strict=True)
            ],
            "idle": state.idle,
        }

    def render(self, view: Mapping[str, Any]) -> str:
        board = view["board"]
        found = "  ".join(f"{s}:{top or '--'}" for s, top in zip(SUIT_CHARS, board["foundations"], strict=True))
        waste = " ".join(board["waste"]) or "(empty)"
        lines = [
            f"Foundations  {found}",
            f"Stock: {card_count(board['stock'])}   Waste w (top last): {waste}",
        ]
        for name, col in zip(COLUMN_NAMES, board["columns"], strict=True):
            cards = ["##"] * col["down"] + list(col["up"])
            lines.append(f"{name}: {' '.join(cards) if cards else '(empty)'}")
        if view.get("ended") is None and board["idle"] >= 1 and not board["stock"] and board["waste"]:
            lines.append("No card has moved since the last turnover: turning the waste over now ends the game.")
        lines.append("Moves: turn | move w cN | move cN cM count")
        return "\n".join(lines)

    def to_text(self, state: ChanceState) -> str:
        tops = [TEXT[s * 13 + n - 1] for s, n in enumerate(state.found) if n]
        lines = [
            f"Foundations: {' '.join(tops)}".rstrip(),
            f"Stock: {cards_text(state.stock)}".rstrip(),
            f"Waste: {cards_text(state.waste)}".rstrip(),
            f"Idle: {state.idle}",
        ]
        for name, down, up in zip(COLUMN_NAMES, state.down, state.up, strict=True):
            lines.append(f"{name}: {cards_text(down)} | {cards_text(up)}".replace("  ", " ").rstrip())
        return "\n".join(lines) + "\n"

    def from_text(self, text: str, options: Mapping[str, object] | None = None) -> ChanceState:
        opts = self.resolve_options(options)
        rule = cast(str, opts["sequence"])
        seen: dict[Card, int] = {}
        headers: dict[str, Any] = {}
        downs: list[tuple[Card, ...] | None] = [None] * COLUMNS
        ups: list[tuple[Card, ...]] = [()] * COLUMNS
        for number, raw in enumerate(text.splitlines(), 1):
            line = raw.strip()
            if not line:
                continue
            head, colon, rest = line.partition(":")
            key = head.strip().lower()
            if not colon:
                raise BadLayout(f"line {number}: expected 'Name: value', got {line!r}")
            if key in _COLUMN_INDEX:
                i = _COLUMN_INDEX[key]
                if downs[i] is not None:
                    raise BadLayout(f"line {number}: column {key} is given twice")
                left, bar, right = rest.partition("|")
                if not bar:
                    left, right = "", left
                downs[i] = tuple(parse_cards(left.split(), seen))
                ups[i] = tuple(parse_cards(right.split(), seen))
                continue
            if key == "foundation":
                key = "foundations"
            if key not in ("foundations", "stock", "waste", "idle"):
                raise BadLayout(f"line {number}: unknown line {head.strip()!r}")
            if key in headers:
                raise BadLayout(f"line {number}: {head.strip()!r} is given twice")
            if key == "idle":
                value = rest.strip()
                if value not in ("0", "1", "2"):
                    raise BadLayout(f"line {number}: Idle is 0, 1 or 2, not {value!r}")
                headers[key] = int(value)
            elif key == "foundations":
                headers[key] = parse_cards(rest.split(), seen)
            else:
                headers[key] = tuple(parse_cards(rest.split(), seen))
        for key in ("foundations", "stock", "waste"):
            if key not in headers:
                raise BadLayout(f"a layout of The Chance needs a '{key.capitalize()}:' line")
        missing_columns = [COLUMN_NAMES[i] for i in range(COLUMNS) if downs[i] is None]
        if missing_columns:
            raise BadLayout(f"a layout needs a line for every column; missing: {', '.join(missing_columns)}")

        found = [0, 0, 0, 0]
        for top in headers["foundations"]:
            suit = SUIT[top]
            if found[suit]:
                raise BadLayout(f"the {_SUIT_NAMES[suit]} foundation is given twice in 'Foundations:'")
            found[suit] = RANK[top]
            for below in range(suit * 13, top):
                if below in seen:
                    raise BadLayout(f"{TEXT[below]} lies on the foundation under {TEXT[top]} and cannot appear again")
                seen[below] = 1
        missing = [c for c in range(52) if c not in seen]
        if missing:
            raise BadLayout(f"cards missing from the layout: {cards_text(missing)}")

        accepts = ACCEPTS[rule]
        for i in range(COLUMNS):
            down, up = downs[i], ups[i]
            if down and not up:
                raise BadLayout(f"{COLUMN_NAMES[i]} has face-down cards but no face-up card")
            for lower, upper in pairwise(up):
                if upper not in accepts[lower]:
                    raise BadLayout(
                        f"{COLUMN_NAMES[i]}: {TEXT[upper]} cannot lie face up on {TEXT[lower]} "
                        f"under the {rule!r} sequence rule ({_RULE_WORDS[rule]})"
                    )
        down_t = tuple(d or () for d in downs)
        up_t = tuple(ups)
        found_t = (found[0], found[1], found[2], found[3])
        waste = headers["waste"]
        laid = _lay_off(down_t, up_t, found_t, waste)
        if laid is not None:
            down_t, up_t, found_t, waste = laid
        idle = headers.get("idle", 0)
        state = ChanceState(
            opts, down_t, up_t, found_t, headers["stock"], waste, idle, Ending.STUCK if idle >= 2 else None
        )
        return _settle(state)

    def _draw(self, view: Mapping[str, Any], rng: random.Random) -> ChanceState:
        try:
            if view["game"] != self.name:
                raise BadLayout(f"not a view of {self.name}: {view['game']!r}")
            board = view["board"]
            options = self.resolve_options(view["options"])
            found = tuple(0 if top is None else RANK[_CARD[top]] for top in board["foundations"])
            waste = tuple(_CARD[t] for t in board["waste"])
            ups = tuple(tuple(_CARD[t] for t in col["up"]) for col in board["columns"])
            downs = [col["down"] for col in board["columns"]]
            stock_size = board["stock"]
            ended = None if view["ended"] is None else Ending(view["ended"])
            idle = board["idle"]
        except (KeyError, TypeError, ValueError) as error:
            raise BadLayout(f"not a player's view of {self.name}: {error!r}") from None
        if len(found) != 4 or len(ups) != COLUMNS or len(downs) != COLUMNS:
            raise BadLayout(f"not a player's view of {self.name}: wrong number of foundations or columns")
        shown = {s * 13 + r for s, n in enumerate(found) for r in range(n)}
        shown.update(waste)
        for up in ups:
            shown.update(up)
        unseen = [c for c in range(52) if c not in shown]
        if len(unseen) != sum(downs) + stock_size:
            raise BadLayout(f"the view hides {sum(downs) + stock_size} cards but leaves {len(unseen)} unseen")
        shuffle_drawn(unseen, rng)
        down = []
        at = 0
        for n in downs:
            down.append(tuple(unseen[at : at + n]))
            at += n
        found_t = (found[0], found[1], found[2], found[3])
        return ChanceState(options, tuple(down), ups, found_t, tuple(unseen[at:]), waste, idle, ended)

    def cards(self, state: ChanceState) -> list[Card]:
        out = [s * 13 + r for s, n in enumerate(state.found) for r in range(n)]
        for down, up in zip(state.down, state.up, strict=True):
            out += down
            out += up
        return out + list(state.stock) + list(state.waste)

    def hidden_cards(self, state: ChanceState) -> list[Card]:
        return [c for down in state.down for c in down] + list(state.stock)

    def candidate_moves(self, state: ChanceState) -> Iterable[Move]:
        moves = [TURN, *WASTE_MOVES]
        for i in range(COLUMNS):
            most = max(1, len(state.down[i]) + len(state.up[i]))
            for k in range(COLUMNS):
                if k != i:
                    moves += [Move("move", COLUMN_NAMES[i], COLUMN_NAMES[k], n) for n in range(1, most + 1)]
        return moves

    def parse_move(self, text: str) -> Move:
        tokens = text.strip().lower().split()
        if tokens in (["t"], ["s"], ["stock"]):
            return TURN
        if tokens and (tokens[0] == WASTE or tokens[0] in _COLUMN_INDEX):
            text = "move " + " ".join(tokens)
        return super().parse_move(text)


THE_CHANCE: Final = register(TheChance())
