"""Golf solvers with full knowledge of the deal: is the board winnable, and how? What is the best score?

Only ranks matter in Golf, so a position is (the height of each pile, how many stock
cards have been turned, the waste top's rank). The solver searches those positions
depth first, trying pile plays before turning the stock, and remembers every position
it has finished (the moves form a DAG, so a finished position that did not win is
lost). A win is a position with every pile empty. The verdict is exact.

Two necessary conditions prune positions that cannot be won:

- Parity. Each play moves the waste rank by one, so the pile cards played after one
  "starter" (the waste top now, or each stock card still to turn) alternate odd and
  even ranks, and each such chain holds at most one more card of the parity opposite
  its starter than of the other. So (odd pile cards - even pile cards) must lie between
  -(odd starters) and +(even starters).
- Kings and aces. A king can only be played straight after a queen, an ace straight
  after a two, and each card is followed by one card at most: the pile kings cannot
  outnumber the queens still to come (in the piles, the stock, or on the waste top),
  nor the pile aces the twos.

:func:`solve` uses one test that holds both (Hall's condition). Every pile card needs
its own card straight before it, one rank away: a pile card, a stock card still to turn
or the waste top (its *feeders*). So for every interval of ranks of one parity, [a, b]
with b - a even, the pile cards of ranks a, a+2, ..., b cannot outnumber the feeders of
ranks a-1, a+1, ..., b+1. Parity is the widest two intervals, kings and aces [13, 13]
and [1, 1]. The 49 intervals' slacks live in one packed int, changed by one addition a
move. Its positions are one bit a pile (see :func:`solve`), keyed with the stock cards
turned and the waste rank. Prunes only cut positions that cannot be won and the moves
are tried in the same order, so the line found is the first winning line in that order.

:func:`fewest` finds the best score (the fewest cards left in the piles) with the same
test, made a bound. An interval's deficit (its pile cards less its feeders) is a number of
its pile cards that can never be played, so the largest deficit is a lower bound on the
cards left; :func:`solve` asks for it to be 0. Asking instead for at most ``target``
(every slack starts ``target`` higher, still one addition a move) makes the same search
answer "can the piles be brought down to ``target`` cards, and by what first line?".
:func:`fewest` asks that for ``target`` = the deal's largest deficit, then higher until
the answer is yes; that first yes is the best score, and its line is the first line in
move order that reaches it, the line a plain search in that order would find first. A
search that fails also says what it learned: a lower bound on the cards left from each
position it searched (the fewest it saw, or ``target`` + 1 below a pruned child). Those
are kept across targets, so a later search skips what an earlier one already ruled out,
and a target no position can reach is skipped. A position that can only turn is not
searched itself: the search goes straight on to the first position after its turns that
can play (the future of such a position does not depend on the waste top it turns over).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import Final, NamedTuple

from parlour.games.base import Move
from parlour.games.cards import RANK
from parlour.games.golf import PILES, PLAY, TURN, GolfState

# The Hall test: intervals of ranks of one parity, [a, b] with b - a even. Each interval's slack (the cards that
# may feed it less its pile cards; :func:`fewest` adds its target) is kept in one field of a packed int, biased
# by _BIAS so that a field's top bit is set while the slack is 0 or more. A slack is at most 28 (7 ranks of
# feeders, 4 cards each), a target at most 34, and a search goes no further than a move (or a play and a run of
# turns) that takes a slack below 0, to -17 at most; so a field holds 47 to 126 and never borrows from or
# carries into the next.
_INTERVALS: Final = tuple((a, b) for a in range(1, 14) for b in range(a, 14, 2))
_FIELD: Final = 7
_BIAS: Final = 64
_OK: Final = sum(_BIAS << (_FIELD * k) for k in range(len(_INTERVALS)))
_ONES: Final = sum(1 << (_FIELD * k) for k in range(len(_INTERVALS)))  # 1 in every field


@dataclass(frozen=True)
class Best:
    """The best score found on one board, and a line of moves that reaches it."""

    score: int  # cards left in the piles at the end of ``line`` (all turns made)
    line: tuple[Move, ...]
    positions: int  # positions searched
    exact: bool  # False when the search stopped at its position limit: ``score`` may not be the best


class _Limit(Exception):
    """The search reached its position limit."""


@dataclass(frozen=True)
class Solution:
    """The verdict on one board: ``line`` wins when ``winnable``, else it is empty."""

    winnable: bool
    line: tuple[Move, ...]
    positions: int  # positions searched


class _Board(NamedTuple):
    """A deal by rank, as both searches see it (see :func:`solve` for the bits)."""

    start: int  # the piles: bit 6i + h for pile i at height h
    rank_of: dict[int, int]  # the rank of the pile card at each bit
    adjacent: list[int]  # adjacent[r]: the bits of the pile cards one rank from r
    slack: list[int]  # each Hall interval's feeders less its pile cards


def _board(piles: list[list[int]], stock: list[int], waste_top: int) -> _Board:
    start = sum(1 << (6 * i + len(p)) for i, p in enumerate(piles))
    rank_of: dict[int, int] = {}
    adjacent = [0] * 16
    pile_count = [0] * 15
    for i, pile in enumerate(piles):
        for k, r in enumerate(pile):
            b = 1 << (6 * i + k + 1)
            rank_of[b] = r
            adjacent[r - 1] |= b
            adjacent[r + 1] |= b
            pile_count[r] += 1
    feeders = pile_count[:]  # cards that may still have a pile card played straight on them, by rank
    for r in stock:
        feeders[r] += 1
    feeders[waste_top] += 1
    slack = [
        sum(feeders[r] for r in range(a - 1, b + 2, 2) if 1 <= r <= 13) - sum(pile_count[r] for r in range(a, b + 1, 2))
        for a, b in _INTERVALS
    ]
    return _Board(start, rank_of, adjacent, slack)


def _packed(fields: list[int]) -> int:
    """Small non-negative numbers, one per Hall interval, in one int (:data:`_FIELD` bits each)."""
    return sum(v << (_FIELD * k) for k, v in enumerate(fields))


def _hall_tables() -> tuple[list[int], list[int]]:
    """What a change of one rank does to every interval's packed slack: ``need[r]`` adds 1 to each interval
    whose own ranks hold ``r`` (a pile card of rank ``r`` less to feed), ``pred[r]`` 1 to each interval that
    ``r`` can feed (subtract it when a card of rank ``r`` is covered on the waste)."""
    need = [_packed([1 if a <= r <= b and (r - a) % 2 == 0 else 0 for a, b in _INTERVALS]) for r in range(15)]
    pred = [_packed([1 if a - 1 <= r <= b + 1 and (r - a) % 2 == 1 else 0 for a, b in _INTERVALS]) for r in range(15)]
    return need, pred


_HALL: Final = _hall_tables()


def solve(state: GolfState) -> Solution:
    """Solve ``state`` from where it stands (any Golf state; a finished one is decided).

    The line is the first winning line in move order (pile plays from the first pile on, then the turn),
    whatever the prunes: they only cut positions that cannot be won.
    """
    if state.ended is not None or not any(state.piles):
        return Solution(not any(state.piles), (), 0)
    piles = [[RANK[c] for c in pile] for pile in state.piles]
    stock = [RANK[c] for c in state.stock]
    n = len(stock)
    waste_top = RANK[state.waste[-1]]
    # A position's piles are one bit a pile: bit 6i + h for pile i at height h (bit 6i: pile i is empty).
    # Playing the top card of a pile at bit b leaves the pile at bit b >> 1: ``tops - (b >> 1)``.
    empty = sum(1 << 6 * i for i in range(PILES))
    start, rank_of, adjacent, slack = _board(piles, stock, waste_top)
    if min(slack) < 0:
        return Solution(False, (), 0)
    need, pred = _HALL
    play = [[need[r] - pred[p] for r in range(15)] for p in range(15)]  # play[top][card]
    ok = _OK
    done: set[int] = set()
    line: list[int] = []  # the winning line backwards: a pile card's bit, or 0 for a turn

    turn_key = [(t + 1) << 4 | stock[t] for t in range(n)]  # the key's low bits after turning stock card t

    def search(tops: int, turned: int, top: int, hall: int) -> bool:
        """Whether this position (not won, not searched before, passing the Hall test) can be won.

        A child is searched only when it is new and passes the test (a won child ends the search);
        ``done`` holds every position searched, all lost but those on the current line.
        """
        m = tops & adjacent[top]
        if m:
            row = play[top]
            low = turned << 4
            while m:
                b = m & -m  # the lowest bit first: piles in order
                m ^= b
                card = rank_of[b]
                after = tops - (b >> 1)
                if after == empty:
                    line.append(b)
                    return True
                h = hall + row[card]
                if h & ok == ok:
                    key = after << 9 | low | card
                    if key not in done:
                        done.add(key)
                        if search(after, turned, card, h):
                            line.append(b)
                            return True
        if turned < n:
            h = hall - pred[top]
            if h & ok == ok:
                key = tops << 9 | turn_key[turned]
                if key not in done:
                    done.add(key)
                    if search(tops, turned + 1, stock[turned], h):
                        line.append(0)
                        return True
        return False

    done.add(start << 9 | waste_top)
    won = search(start, 0, waste_top, _packed([_BIAS + s for s in slack]))
    line.reverse()
    moves = tuple(TURN if b == 0 else PLAY[(b.bit_length() - 1) // 6] for b in line) if won else ()
    return Solution(won, moves, len(done))


def fewest(state: GolfState, limit: int | None = None) -> Best:
    """The fewest cards that can be left in the piles from ``state``, seeing every card.

    The line is the first line in move order (pile plays from the first pile on, then the turn) that
    reaches the best score, then every turn still to come, so replaying it ends the game. Exact unless
    ``limit`` positions are searched first; then the line the search was on, played on to the end of
    the game (every turn still to come, then the first play while there is one).
    """
    piles = [[RANK[c] for c in pile] for pile in state.piles]
    left = sum(len(p) for p in piles)
    if state.ended is not None or left == 0:
        return Best(left, (), 0, True)
    stock = [RANK[c] for c in state.stock]
    n = len(stock)
    waste_top = RANK[state.waste[-1]]
    start, rank_of, adjacent, slack = _board(piles, stock, waste_top)
    need, pred = _HALL
    play = [[need[r] - pred[p] for r in range(15)] for p in range(15)]  # play[top][card]
    ok = _OK
    hall_start = _packed([_BIAS + s for s in slack])
    stop = limit if limit is not None else sys.maxsize
    target = max(0, -min(slack))  # the fewest cards left is at least this: all lower targets failed
    lower: dict[int, int] = {}  # a lower bound on the fewest cards left from each position a search failed
    # The line found (or the one searched when the limit is reached), last move first, built on the way back
    # up: one entry a move, a pile card's bit plus 2**48 times the turns made straight after it (a position
    # that cannot play only turns), or just the turns.
    line: list[int] = []
    positions = 0

    def search(tops: int, turned: int, top: int, hall: int, togo: int) -> int:
        """Search for the first line from this position that leaves ``target`` cards (``togo`` plays on):
        -1 when found (``line`` holds it, last move first), else a lower bound on the cards left from here
        (above ``target``).

        The position passes the Hall test for ``target`` and can play or turn. A child that can only turn
        is not searched itself: the search goes straight on to the first position after it that can play
        (or to the end of the stock). Those are searched only when they pass the Hall test too and no
        search has shown that they cannot reach ``target``.
        """
        nonlocal positions
        low = target + togo  # the cards left here
        m = tops & adjacent[top]
        if m:
            if togo == 1:
                line.append(m & -m)
                return -1
            row = play[top]
            while m:
                b = m & -m  # the lowest bit first: piles in order
                m ^= b
                card = rank_of[b]
                after = tops - (b >> 1)
                h = hall + row[card]
                t = turned
                while not after & adjacent[card] and t < n:
                    h -= pred[card]
                    card = stock[t]
                    t += 1
                if h & ok != ok:  # more than ``target`` cards stay
                    if low > target + 1:
                        low = target + 1
                    continue
                if not after & adjacent[card]:  # the stock is out and no card can be played: the line ends
                    if low > target + togo - 1:
                        low = target + togo - 1
                    continue
                key = after << 9 | t << 4 | card
                v = lower.get(key, 0)
                if v <= target:
                    positions += 1
                    if positions >= stop:
                        raise _Limit
                    try:
                        v = search(after, t, card, h, togo - 1)
                    except _Limit:
                        line.append(b + ((t - turned) << 48))
                        raise
                    if v < 0:
                        line.append(b + ((t - turned) << 48))
                        return v
                    lower[key] = v
                if v < low:
                    low = v
        if turned < n:
            h = hall - pred[top]
            card = stock[turned]
            t = turned + 1
            while not tops & adjacent[card] and t < n:
                h -= pred[card]
                card = stock[t]
                t += 1
            if h & ok != ok:
                if low > target + 1:
                    low = target + 1
            elif tops & adjacent[card]:
                key = tops << 9 | t << 4 | card
                v = lower.get(key, 0)
                if v <= target:
                    positions += 1
                    if positions >= stop:
                        raise _Limit
                    try:
                        v = search(tops, t, card, h, togo)
                    except _Limit:
                        line.append((t - turned) << 48)
                        raise
                    if v < 0:
                        line.append((t - turned) << 48)
                        return v
                    lower[key] = v
                if v < low:
                    low = v
        return low

    try:
        while target < left:
            positions += 1
            if positions >= stop:
                raise _Limit
            found = search(start, 0, waste_top, hall_start + target * _ONES, left - target)
            if found < 0:
                break
            target = found
        exact = True
    except _Limit:
        exact = False
    line.reverse()
    best = left
    moves: list[Move] = []
    heights = [len(p) for p in piles]
    turned = 0
    top = waste_top
    for entry in line:
        b = entry & (1 << 48) - 1
        if b:
            best -= 1
            i = (b.bit_length() - 1) // 6
            moves.append(PLAY[i])
            heights[i] -= 1
            top = piles[i][heights[i]]
        for _ in range(entry >> 48):
            moves.append(TURN)
            top = stock[turned]
            turned += 1
    if best:  # every turn still to come, then the plays left (a line cut short by ``limit`` may have some)
        moves += [TURN] * (n - turned)
        top = stock[-1] if turned < n else top
        while playable := [i for i in range(PILES) if heights[i] and abs(piles[i][heights[i] - 1] - top) == 1]:
            i = playable[0]
            moves.append(PLAY[i])
            heights[i] -= 1
            top = piles[i][heights[i]]
            best -= 1
        exact = exact or best <= target
    return Best(best, tuple(moves), positions, exact)
