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

:func:`fewest` finds the best score (the fewest cards left in the piles) by the same
search, pruning a position when a lower bound on the cards it must leave reaches the
best score found so far. The bounds: the two conditions above, counted (each excess odd
or even card, king or ace stays in the piles), and dead cards. A pile card is dead when
every card that could come straight before it (one rank away, and not under it in its
own pile) is already covered on the waste; it and every card under it stay.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import NamedTuple

from parlour.games.base import Move
from parlour.games.cards import RANK
from parlour.games.golf import PILES, PLAY, TURN, GolfState

_WEIGHTS = tuple(6**i for i in range(PILES))  # a pile holds at most 5 cards: heights in base 6
# The Hall test of :func:`solve`: intervals of ranks of one parity, [a, b] with b - a even. Each interval's
# slack (the cards that may feed it less its pile cards) is kept in one field of a packed int, biased by
# _BIAS so that a field's top bit is set while the slack is 0 or more. A slack is at most 28 (7 ranks of
# feeders, 4 cards each) and the search stops at the first move that takes one to -1, so a field holds
# 31 to 60 and never borrows from or carries into the next.
_INTERVALS = tuple((a, b) for a in range(1, 14) for b in range(a, 14, 2))
_FIELD = 6
_BIAS = 32
_OK = sum(_BIAS << (_FIELD * k) for k in range(len(_INTERVALS)))


@dataclass(frozen=True)
class Best:
    """The best score found on one board, and a line of moves that reaches it."""

    score: int  # cards left in the piles at the end of ``line`` (all turns made)
    line: tuple[Move, ...]
    positions: int  # positions searched
    exact: bool  # False when the search stopped at its position limit: ``score`` may not be the best


class _Limit(Exception):
    """The search reached its position limit (or the best score it can prove)."""


@dataclass(frozen=True)
class Solution:
    """The verdict on one board: ``line`` wins when ``winnable``, else it is empty."""

    winnable: bool
    line: tuple[Move, ...]
    positions: int  # positions searched


class _Tallies(NamedTuple):
    """What both searches' bounds start from; ``count`` and ``balance`` change as cards are played."""

    odd_from: list[int]  # odd-ranked stock cards from stock position t on (index t)
    even_from: list[int]
    queens_from: list[int]
    twos_from: list[int]
    count: list[int]  # pile cards by rank (index 1 to 13)
    balance: int  # odd-ranked pile cards minus even-ranked ones


def _tallies(piles: list[list[int]], stock: list[int]) -> _Tallies:
    n = len(stock)
    odd_from, even_from, queens_from, twos_from = ([0] * (n + 1) for _ in range(4))
    for t in range(n - 1, -1, -1):
        r = stock[t]
        odd_from[t] = odd_from[t + 1] + (r & 1)
        even_from[t] = even_from[t + 1] + (1 - (r & 1))
        queens_from[t] = queens_from[t + 1] + (r == 12)
        twos_from[t] = twos_from[t + 1] + (r == 2)
    count = [0] * 15
    for pile in piles:
        for r in pile:
            count[r] += 1
    balance = sum(1 if r & 1 else -1 for pile in piles for r in pile)
    return _Tallies(odd_from, even_from, queens_from, twos_from, count, balance)


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


_HALL = _hall_tables()


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
    start = sum(1 << (6 * i + len(p)) for i, p in enumerate(piles))
    rank_of: dict[int, int] = {}  # the rank of the pile card at each bit
    adjacent = [0] * 16  # adjacent[r]: the bits of the pile cards one rank from r
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

    Exact unless ``limit`` positions are searched first; then the best line found so far.
    The line makes every turn still to come, so replaying it ends the game.
    """
    piles = [[RANK[c] for c in pile] for pile in state.piles]
    heights = [len(p) for p in piles]
    left = sum(heights)
    if state.ended is not None or left == 0:
        return Best(left, (), 0, True)
    stock = [RANK[c] for c in state.stock]
    n = len(stock)
    odd_from, even_from, queens_from, twos_from, count, balance = _tallies(piles, stock)
    # Dead cards. An item is a pile card (pile i, index k: item 5i + k), a stock card (35 + t)
    # or the waste top (51). live[x]: the items not yet covered that could come straight before
    # pile card x; follows[y]: the pile cards item y could come straight before.
    top_item = 51
    live = [0] * 52
    follows: list[list[int]] = [[] for _ in range(52)]
    cards = [(i, k) for i in range(PILES) for k in range(heights[i])]
    waste_top = RANK[state.waste[-1]]
    for i, k in cards:
        x = i * 5 + k
        r = piles[i][k]
        before = [j * 5 + m for j, m in cards if (j != i or m == k + 1) and abs(piles[j][m] - r) == 1]
        before += [35 + t for t in range(n) if abs(stock[t] - r) == 1]
        if k == heights[i] - 1 and abs(waste_top - r) == 1:
            before.append(top_item)
        for y in before:
            follows[y].append(x)
        live[x] = len(before)
    dead = sum(1 for i, k in cards if live[i * 5 + k] == 0)
    done: set[int] = set()
    line: list[int] = []
    best = left + 1
    best_line: list[int] = []
    positions = 0

    def bound(turned: int, top: int) -> int:
        odd = odd_from[turned] + (top & 1)
        even = even_from[turned] + (1 - (top & 1))
        low = max(balance - even, -balance - odd, 0)
        excess = max(count[13] - count[12] - queens_from[turned] - (top == 12), 0)
        excess += max(count[1] - count[2] - twos_from[turned] - (top == 2), 0)
        low = max(low, excess)
        if dead:
            stay = 0
            for i in range(PILES):
                for k in range(heights[i] - 1, -1, -1):
                    if live[i * 5 + k] == 0:
                        stay += k + 1
                        break
            low = max(low, stay)
        return low

    def cover(y: int) -> None:
        nonlocal dead
        for x in follows[y]:
            live[x] -= 1
            if live[x] == 0 and x % 5 < heights[x // 5]:
                dead += 1

    def uncover(y: int) -> None:
        nonlocal dead
        for x in follows[y]:
            if live[x] == 0 and x % 5 < heights[x // 5]:
                dead -= 1
            live[x] += 1

    def search(code: int, turned: int, top: int, top_item: int) -> None:
        nonlocal balance, best, best_line, positions, left
        key = (code * 17 + turned) * 14 + top
        if key in done:
            return
        done.add(key)
        positions += 1
        if left < best:
            best = left
            best_line = line[:]
            if best <= floor:
                raise _Limit
        if limit is not None and positions >= limit:
            raise _Limit
        if bound(turned, top) >= best:
            return
        for i in range(PILES):
            h = heights[i]
            if h:
                card = piles[i][h - 1]
                if card - top == 1 or top - card == 1:
                    step = 1 if card & 1 else -1
                    heights[i] = h - 1
                    left -= 1
                    count[card] -= 1
                    balance -= step
                    cover(top_item)
                    line.append(i)
                    search(code - _WEIGHTS[i], turned, card, i * 5 + h - 1)
                    line.pop()
                    uncover(top_item)
                    heights[i] = h
                    left += 1
                    count[card] += 1
                    balance += step
        if turned < n:
            cover(top_item)
            line.append(-1)
            search(code, turned + 1, stock[turned], 35 + turned)
            line.pop()
            uncover(top_item)

    floor = bound(0, waste_top)
    depth = sys.getrecursionlimit()
    sys.setrecursionlimit(max(depth, 1000))  # depth is at most 35 plays + 16 turns
    try:
        search(sum(h * w for h, w in zip(heights, _WEIGHTS, strict=True)), 0, waste_top, top_item)
        exact = True
    except _Limit:
        exact = best <= floor
    finally:
        sys.setrecursionlimit(depth)
    turns = n - best_line.count(-1) if best else 0
    moves = tuple(TURN if i < 0 else PLAY[i] for i in best_line) + (TURN,) * turns
    return Best(best, moves, positions, exact)
