"""Gaps: a greedy player, a search player and a ceiling.

Between two redeals Gaps hides nothing and nothing is random: the positions one deal of the cards can
reach form a finite graph, and :func:`search_deal` walks it depth first (cards to their home cells
first; every position remembered by a 64-bit Zobrist hash, so none is searched twice) for the stuck
positions that secure the most cards. A card in its row's run from the 2 never moves again, so the
cards secured only grow along a line of play, and the runs are all a redeal keeps: stuck positions
with the same runs redeal alike. What the view hides is the seed behind the redeals: to a player the
redeal is a random event.

``Search`` plans one deal at a time. On the first move of a deal it searches that deal's positions
(within a budget of positions) and follows the line to the best stuck position it found. With no redeal
left the value of a stuck position is its score. With a redeal left, the best few stuck positions by
score are compared by what follows them: for each of a few states drawn from the view (so with drawn
seeds, see :meth:`parlour.games.Game.draw`), the redeal is made and the next deal searched with a
small budget, and the position with the best mean is chosen (determinized search over the redeal).

``ceiling`` sees the deal's seed: it searches the first deal, then for the best few stuck positions
makes the real redeal and searches on, and so on to the end; it returns the best score found. It is a
strong bounded search (a lower bound on the true best), not an exact solver: the first deal alone can
reach hundreds of thousands of positions.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from parlour.bots.base import Bot, Turn
from parlour.games import Move
from parlour.games.base import Score
from parlour.games.cards import RANK, SUIT, Card
from parlour.games.gaps import COLS, FILL, GAP, GAPS, MAX_REDEALS, REDEAL, ROWS, GapsState, _run_lengths

_KING = 13
_WIN = sum(COLS - 1 for _ in range(ROWS))  # 48 cards secured
_ZOBRIST_RNG = random.Random("gaps-zobrist")
_ZOBRIST = tuple(tuple(_ZOBRIST_RNG.getrandbits(64) for _ in range(53)) for _ in range(52))
_GAP_CODE = 52  # the Zobrist column for a gap
# _DEAD[card]: nothing can follow ``card``: a king, or a gap (GAP is -1: the last entry).
_DEAD = [RANK[card] == _KING for card in range(52)] + [True]


@dataclass(frozen=True, slots=True)
class End:
    """A stuck (or won) position a line of fills reaches."""

    score: int  # the cards secured there
    line: tuple[int, ...]  # the gap cells filled to get there, in order
    cells: tuple[Card, ...]


@dataclass(frozen=True, slots=True)
class Found:
    """What :func:`search_deal` found: the best ends, best first, and how far it searched."""

    ends: tuple[End, ...]  # empty if the budget ran out before any stuck position
    nodes: int  # positions searched
    complete: bool  # every reachable position was searched


def secured(cells: tuple[Card, ...]) -> int:
    """The cards standing in their row's run from the 2: the score."""
    return sum(_run_lengths(cells))


def search_deal(cells: tuple[Card, ...], budget: int, keep: int = 1) -> Found:
    """Search the positions reachable from ``cells`` by fills alone for the stuck ones securing most cards.

    A won position counts as stuck, and ends the search. At most ``budget`` positions are searched.
    The ``keep`` best ends are reported, one per set of run lengths (the rows' runs from the 2 are all
    a redeal keeps: stuck positions with the same runs redeal alike).
    """
    board = list(cells)
    where = [0] * 52
    for i, c in enumerate(board):
        if c != GAP:
            where[c] = i
    key = 0
    for i, c in enumerate(board):
        key ^= _ZOBRIST[i][_GAP_CODE if c == GAP else c]
    suits = [SUIT[board[r * COLS]] for r in range(ROWS)]
    seen = {key}
    nodes = 1
    path: list[int] = []
    undo: list[tuple[int, int, int, int]] = []  # (gap filled, source cell, card, key before)
    ends: dict[tuple[int, ...], End] = {}  # by run lengths

    def moves() -> list[int]:
        """The gaps that can be filled, best first: putting a card in its home cell, leaving a live gap."""
        ranked = []
        for g in range(52):
            if board[g] == GAP:
                left = board[g - 1]
                if not _DEAD[left]:
                    card = left + 1
                    home = SUIT[card] == suits[g // COLS] and RANK[card] == g % COLS + 2
                    src = where[card]
                    ranked.append((not home, _DEAD[board[src - 1]], g))
        ranked.sort()
        return [g for _, _, g in ranked]

    def leaf() -> int:
        runs = tuple(_run_lengths(tuple(board)))
        score = sum(runs)
        if runs not in ends and (len(ends) < keep or score > min(e.score for e in ends.values())):
            ends[runs] = End(score, tuple(path), tuple(board))
            if len(ends) > keep:
                worst = min(ends, key=lambda r: ends[r].score)
                del ends[worst]
        return score

    if not moves():
        leaf()
    stack = [iter(moves())]
    while stack:
        g = next(stack[-1], None)
        if g is None:
            stack.pop()
            if undo:
                gap, src, card, key = undo.pop()
                board[gap], board[src] = GAP, card
                where[card] = src
                path.pop()
            continue
        card = board[g - 1] + 1
        src = where[card]
        new_key = key ^ _ZOBRIST[g][_GAP_CODE] ^ _ZOBRIST[g][card] ^ _ZOBRIST[src][card] ^ _ZOBRIST[src][_GAP_CODE]
        if new_key in seen:
            continue
        if nodes >= budget:
            break
        seen.add(new_key)
        nodes += 1
        board[g], board[src] = card, GAP
        where[card] = g
        undo.append((g, src, card, key))
        path.append(g)
        key = new_key
        after = moves()
        if after:
            stack.append(iter(after))
            continue
        if leaf() == _WIN:
            break
        gap, src, card, key = undo.pop()
        board[gap], board[src] = GAP, card
        where[card] = src
        path.pop()
    best = sorted(ends.values(), key=lambda e: -e.score)
    return Found(tuple(best), nodes, not stack)


SEARCH_NODES = 10_000  # positions Search searches when it plans a deal
CANDIDATES = 3  # stuck positions (by their runs) Search compares across the redeal
DRAWS = 4  # states drawn (so redeal seeds) to compare them
LOOKAHEAD_NODES = 1_000  # positions searched in the next deal, per candidate and draw
CEILING_NODES = 30_000  # positions the ceiling searches per deal it plans
CEILING_BRANCHES = 3  # stuck positions the ceiling follows through each redeal


def _home(state: GapsState, card: Card, cell: int) -> bool:
    """Whether ``cell`` is where ``card`` stands in a won game (its suit's row, column = rank - 1)."""
    return SUIT[card] == SUIT[state.cells[cell - cell % COLS]] and RANK[card] == cell % COLS + 2


def _greedy_move(state: GapsState, moves: tuple[Move, ...]) -> Move:
    """The fill that secures the most cards, then leaves the most gaps that can be filled (not right of
    a king or a gap), then puts a card in its home cell."""
    best: tuple[int, int, bool] | None = None
    choice = moves[0]
    for move in moves:
        if move == REDEAL:
            return move
        after = GAPS.apply(state, move)
        cells = after.cells
        g = FILL.index(move)
        live = sum(1 for gap in after.gaps if not _DEAD[cells[gap - 1]])
        value = (secured(cells), live, _home(state, cells[g], g))
        if best is None or value > best:
            best, choice = value, move
    return choice


class Greedy(Bot):
    """One move ahead: the fill securing the most cards, then leaving the most gaps that can be filled,
    then putting a card in its home cell; redeals when stuck."""

    name = "greedy"
    summary = "Gaps: the fill that secures most, else keeps most gaps fillable, else puts a card home."
    games = frozenset({"gaps"})

    def choose(self, turn: Turn) -> Move:
        return _greedy_move(GAPS.draw(turn.view, self.rng), turn.moves)


class Search(Bot):
    """Plans each deal by :func:`search_deal` and follows the line to the best stuck position found;
    with a redeal left, chooses among the best few by a determinized look past the redeal."""

    name = "search"
    summary = "Gaps: searches each deal for the most cards secured, looking past the redeal on drawn seeds."
    games = frozenset({"gaps"})

    def __init__(
        self,
        seed: int = 0,
        budget: int = SEARCH_NODES,
        candidates: int = CANDIDATES,
        draws: int = DRAWS,
        lookahead: int = LOOKAHEAD_NODES,
    ) -> None:
        super().__init__(seed)
        self.budget, self.candidates, self.draws, self.lookahead = budget, candidates, draws, lookahead
        self._plan: list[tuple[tuple[Card, ...], int]] = []  # (the cells expected, the gap to fill there)

    def choose(self, turn: Turn) -> Move:
        if turn.moves == (REDEAL,):
            self._plan = []
            return REDEAL
        state = GAPS.draw(turn.view, self.rng)
        if not (self._plan and self._plan[0][0] == state.cells):
            self._plan = []
            line = self._line(turn, state)
            if not line:
                return _greedy_move(state, turn.moves)
            at = state
            for g in line:
                self._plan.append((at.cells, g))
                at = GAPS.apply(at, FILL[g])
        return FILL[self._plan.pop(0)[1]]

    def _line(self, turn: Turn, state: GapsState) -> tuple[int, ...]:
        last = state.redeals >= MAX_REDEALS
        found = search_deal(state.cells, self.budget, 1 if last else self.candidates)
        if len(found.ends) <= 1 or found.ends[0].score == _WIN:
            return found.ends[0].line if found.ends else ()
        drawn = [GAPS.draw(turn.view, self.rng) for _ in range(self.draws)]
        best: tuple[float, int] | None = None
        line: tuple[int, ...] = ()
        for end in found.ends:
            total = 0
            for d in drawn:
                stuck = GapsState(state.options, end.cells, _gaps_of(end.cells), state.redeals, d.seed)
                redealt = GAPS.apply(stuck, REDEAL)
                if redealt.ended is not None:
                    total += GAPS.score(redealt)
                    continue
                nxt = search_deal(redealt.cells, self.lookahead)
                total += nxt.ends[0].score if nxt.ends else secured(redealt.cells)
            value = (total / len(drawn), end.score)
            if best is None or value > best:
                best, line = value, end.line
        return line


def _gaps_of(cells: tuple[Card, ...]) -> tuple[int, ...]:
    return tuple(i for i, c in enumerate(cells) if c == GAP)


CEILING_EXACT = False  # the ceiling is a reachable score, a lower bound on the best


def ceiling(state: GapsState) -> Score:
    """The best score found from ``state`` seeing the deal's seed (so every redeal): a strong bounded
    search, a lower bound on the true best. Each deal is searched for ``CEILING_BRANCHES`` stuck positions
    (``CEILING_NODES`` positions each time); each of them is redealt and searched on, to the end."""
    return _ceiling(state, CEILING_NODES, CEILING_BRANCHES)


def _ceiling(state: GapsState, budget: int, branches: int) -> int:
    if state.ended is not None:
        return int(GAPS.score(state))
    last = state.redeals >= MAX_REDEALS
    found = search_deal(state.cells, budget, 1 if last else branches)
    if not found.ends:
        return secured(state.cells)
    best = 0
    for end in found.ends:
        at = GapsState(state.options, end.cells, _gaps_of(end.cells), state.redeals, state.seed)
        if end.score == _WIN or last:
            best = max(best, end.score)
        else:
            best = max(best, _ceiling(GAPS.apply(at, REDEAL), budget, branches))
        if best == _WIN:
            break
    return best
