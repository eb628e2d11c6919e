"""A Golf solver with full knowledge of the deal: is the board winnable, and how?

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
"""

from __future__ import annotations

import sys
from dataclasses import dataclass

from parlour.games.base import Move
from parlour.games.cards import RANK
from parlour.games.golf import PILES, PLAY, TURN, GolfState

_WEIGHTS = tuple(6**i for i in range(PILES))  # a pile holds at most 5 cards: heights in base 6


@dataclass(frozen=True)
class Solution:
    """The verdict on one board: ``line`` wins when ``winnable``, else it is empty."""

    winnable: bool
    line: tuple[Move, ...]
    positions: int  # positions searched


def solve(state: GolfState) -> Solution:
    """Solve ``state`` from where it stands (any Golf state; a finished one is decided)."""
    if state.ended is not None or not any(state.piles):
        return Solution(not any(state.piles), (), 0)
    piles = [[RANK[c] for c in pile] for pile in state.piles]
    stock = [RANK[c] for c in state.stock]
    n = len(stock)
    heights = [len(p) for p in piles]
    # Starters still to come from stock position t on, by kind.
    odd_from, even_from, queens_from, twos_from = ([0] * (n + 1) for _ in range(4))
    for t in range(n - 1, -1, -1):
        r = stock[t]
        odd_from[t] = odd_from[t + 1] + (r & 1)
        even_from[t] = even_from[t + 1] + (1 - (r & 1))
        queens_from[t] = queens_from[t + 1] + (r == 12)
        twos_from[t] = twos_from[t + 1] + (r == 2)
    count = [0] * 15  # pile cards by rank
    for pile in piles:
        for r in pile:
            count[r] += 1
    balance = sum(1 if r & 1 else -1 for pile in piles for r in pile)  # odd minus even
    done: set[int] = set()
    line: list[int] = []  # pile index, or -1 for a turn

    def hopeless(turned: int, top: int) -> bool:
        odd = odd_from[turned] + (top & 1)
        even = even_from[turned] + (1 - (top & 1))
        return (
            balance > even
            or -balance > odd
            or count[13] > count[12] + queens_from[turned] + (top == 12)
            or count[1] > count[2] + twos_from[turned] + (top == 2)
        )

    def search(code: int, turned: int, top: int) -> bool:
        nonlocal balance
        if code == 0:
            return True
        key = (code * 17 + turned) * 14 + top
        if key in done:
            return False
        done.add(key)
        if hopeless(turned, top):
            return False
        for i in range(PILES):
            h = heights[i]
            if h:
                card = piles[i][h - 1]
                if card - top == 1 or top - card == 1:
                    step = 1 if card & 1 else -1
                    heights[i] = h - 1
                    count[card] -= 1
                    balance -= step
                    line.append(i)
                    if search(code - _WEIGHTS[i], turned, card):
                        return True
                    line.pop()
                    heights[i] = h
                    count[card] += 1
                    balance += step
        if turned < n:
            line.append(-1)
            if search(code, turned + 1, stock[turned]):
                return True
            line.pop()
        return False

    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 1000))  # depth is at most 35 plays + 16 turns
    try:
        code = sum(h * w for h, w in zip(heights, _WEIGHTS, strict=True))
        won = search(code, 0, RANK[state.waste[-1]])
    finally:
        sys.setrecursionlimit(limit)
    moves = tuple(TURN if i < 0 else PLAY[i] for i in line) if won else ()
    return Solution(won, moves, len(done))
