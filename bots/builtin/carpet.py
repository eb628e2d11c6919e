"""Carpet: the built-in bots' play and the perfect-information ceiling.

Two facts make Carpet small:

- A move to a foundation is never wrong: the card can go nowhere else later, and moving it
  only frees a cell or uncovers the next discard card. Both bots make every such move first.
- The carpet's cells are interchangeable (no rule looks at a cell's place), so the only real
  choice is between dealing and putting the discard top into an empty cell (to dig down to a
  card under it).

``Greedy`` fills a cell only when that uncovers a card it can play, and deals otherwise.
``Search`` decides each real choice by drawing deals consistent with its view (its ``samples``
per decision) and solving each both ways with the perfect-information solver below; it takes
the choice with the better total (wins first, then cards on the foundations). ``ceiling`` is
that solver on the real deal: exact, a depth-first search over (foundations, the cards on the
carpet, cards dealt) that makes every foundation move at once.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from parlour.bots.base import Bot, Turn
from parlour.games import Move
from parlour.games.base import Score
from parlour.games.cards import RANK, SUIT, parse_card
from parlour.games.carpet import CELLS, DEAL, EMPTY, CarpetState

WON = 52  # every card on the foundations
SAMPLES = 12  # deals drawn per real choice
SOLVE_LIMIT = 4000  # positions one solve may search before it answers with its best so far


def _foundation_move(moves: tuple[Move, ...]) -> Move | None:
    return next((m for m in moves if m.dst == "f"), None)


def _fill_move(moves: tuple[Move, ...]) -> Move | None:
    return next((m for m in moves if m.kind == "move" and m.src == "w" and m.dst != "f"), None)


@dataclass(frozen=True, slots=True)
class Solution:
    """The most cards a player who sees the deck can put on the foundations from a position."""

    best: int
    exact: bool  # False when the search stopped at its position limit
    positions: int


def solve(state: CarpetState, limit: int | None = None) -> Solution:
    """The best foundation total reachable from ``state`` with the deck's order known.

    With ``limit`` the search stops after that many positions and answers the best line
    found so far (a lower bound); without it the answer is exact.
    """
    deck = state.deck
    memo: dict[tuple[tuple[int, ...], frozenset[int], int], int] = {}
    positions = 0
    stopped = False

    def search(found: list[int], cells: set[int], dealt: int, discard: list[int]) -> int:
        nonlocal positions, stopped
        moved = True
        while moved:  # every foundation move, at once
            moved = False
            for suit in range(4):
                while found[suit] < 13:
                    card = suit * 13 + found[suit]
                    if card in cells:
                        cells.discard(card)
                    elif discard and discard[-1] == card:
                        discard.pop()
                    else:
                        break
                    found[suit] += 1
                    moved = True
        total = sum(found)
        if total == WON:
            return WON
        key = (tuple(found), frozenset(cells), dealt)
        known = memo.get(key)
        if known is not None:
            return known
        positions += 1
        if stopped or (limit is not None and positions > limit):
            stopped = True
            return total
        best = total
        if discard and len(cells) < CELLS:
            best = max(best, search(found[:], cells | {discard[-1]}, dealt, discard[:-1]))
        if best < WON and dealt < len(deck):
            best = max(best, search(found[:], set(cells), dealt + 1, [*discard, deck[dealt]]))
        memo[key] = best
        return best

    if state.ended is not None:
        return Solution(sum(state.foundations), True, 0)
    cells = {c for c in state.carpet if c != EMPTY}
    best = search(list(state.foundations), cells, 0, list(state.discard))
    return Solution(best, not stopped, positions)


CEILING_EXACT = True  # the ceiling is the exact best score


def ceiling(state: CarpetState) -> Score | None:
    """The most cards a player who sees every card can put on the foundations: exact."""
    return solve(state).best


class Greedy(Bot):
    name = "greedy"
    summary = "Carpet: every foundation move, a fill only when it uncovers a card to play, else deal."
    games: ClassVar[frozenset[str] | None] = frozenset({"carpet"})

    def choose(self, turn: Turn) -> Move:
        moves = turn.moves
        found = _foundation_move(moves)
        if found is not None:
            return found
        fill = _fill_move(moves)
        if fill is not None:
            discard = turn.view["board"]["discard"]
            tops = turn.view["board"]["foundations"]
            if len(discard) >= 2 and _playable(discard[-2], tops):
                return fill
        if DEAL in moves:
            return DEAL
        return fill if fill is not None else moves[0]


def _playable(text: str, tops: list[str]) -> bool:
    """Whether the card written ``text`` goes on its foundation; ``tops`` are the view's foundation tops."""
    card = parse_card(text)
    return RANK[card] == RANK[parse_card(tops[SUIT[card]])] + 1


class Search(Bot):
    name = "search"
    summary = "Carpet: every foundation move; deal or fill decided by solving drawn deals both ways."
    games: ClassVar[frozenset[str] | None] = frozenset({"carpet"})

    def __init__(self, seed: int = 0, samples: int = SAMPLES, limit: int = SOLVE_LIMIT) -> None:
        super().__init__(seed)
        self.samples = samples
        self.limit = limit

    def choose(self, turn: Turn) -> Move:
        moves = turn.moves
        found = _foundation_move(moves)
        if found is not None:
            return found
        fill = _fill_move(moves)
        if fill is None or DEAL not in moves:
            return fill if fill is not None else moves[0]
        game = turn.game
        totals = {fill: 0, DEAL: 0}
        for _ in range(self.samples):
            state = game.draw(turn.view, self.rng)
            for move in (fill, DEAL):
                best = solve(game.apply(state, move), self.limit).best
                totals[move] += best + (WON if best == WON else 0)  # a win counts double
        return fill if totals[fill] > totals[DEAL] else DEAL
