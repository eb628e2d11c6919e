"""Chris-Cross Pairs: a greedy player, a determinized Monte Carlo player and a ceiling.

The view hides only the stock's order. ``Greedy`` looks one move ahead, judging the position after the
move as if the step were settled at once: the most cards cast out, then a win, then not a loss, then
the most pairs castable.

``Search``, while the stock lasts, draws a few full states from its view (the stock in random orders,
see :meth:`parlour.games.Game.draw`), plays every legal move in each of them and then the rest of the
game by a quick rule (the first pair listed while one can be cast, else settle), and makes the move
with the most cards cast out in total over the draws (determinized flat Monte Carlo; the same draws for
every move). Once the stock is empty nothing is hidden: it searches the rest of the game exactly (as
the ceiling does, within a budget of positions per move, remembered from move to move) and makes the
move after which the most cards can be cast out. (Rollouts played by ``Greedy`` instead of the quick
rule were no stronger, at seven times the cost; more draws than eight gained nothing.)

``ceiling`` sees the stock. It first plays a nested rollout search (at each move, every legal move
played out greedily; the best line found so far is followed), which finds a win on nearly every deal in
a few hundredths of a second; where it does not, a depth-first search over the whole game follows
(every position searched remembered, moves tried in ``Greedy``'s order, stopping at a win). Within
that search's budget of positions the result is exact; where the budget runs out, it is the best found:
a lower bound on the best.
"""

from __future__ import annotations

from typing import Any

from parlour.bots.base import Bot, Turn
from parlour.games import Move
from parlour.games.base import Ending, Score
from parlour.games.chris_cross_pairs import CHRIS_CROSS_PAIRS, SETTLE, ChrisCrossState

GAME = CHRIS_CROSS_PAIRS
DRAWS = 8  # states Search draws per move
ENDGAME_NODES = 5_000  # new positions Search may search per move once the stock is empty
CEILING_NODES = 200_000  # positions the ceiling may search


def _judge(state: ChrisCrossState) -> tuple[int, bool, bool, int]:
    """How good ``state`` looks with its step settled: cards cast out, won, not lost, pairs castable."""
    if state.ended is None and state.emptied:
        state = GAME.apply(state, SETTLE)
    return len(state.waste), state.ended is Ending.WON, state.ended is not Ending.LOST, len(state.casts)


def _greedy_move(state: ChrisCrossState, moves: list[Move] | tuple[Move, ...]) -> Move:
    if len(moves) == 1:
        return moves[0]
    best: tuple[int, bool, bool, int] | None = None
    choice = moves[0]
    for move in moves:
        value = _judge(GAME.apply(state, move))
        if best is None or value > best:
            best, choice = value, move
    return choice


def _greedy_ending(state: ChrisCrossState, line: list[Move] | None = None) -> int:
    """The cards cast out at the end of the game played on from ``state`` as ``Greedy`` plays (its moves
    appended to ``line`` if given)."""
    while state.ended is None:
        move = _greedy_move(state, GAME.legal_moves(state))
        if line is not None:
            line.append(move)
        state = GAME.apply(state, move)
    return len(state.waste)


def _quick_ending(state: ChrisCrossState) -> int:
    """The cards cast out at the end of the game played on from ``state`` by the quick rule: the first
    pair listed while one can be cast, then settle (no slides)."""
    while state.ended is None:
        moves = GAME.legal_moves(state)
        move = moves[0]
        if move.kind != "cast" and state.emptied:
            move = SETTLE
        state = GAME.apply(state, move)
    return len(state.waste)


def _nested_rollouts(state: ChrisCrossState) -> int:
    """The most cards cast out by a level-1 nested rollout search from ``state`` (the stock known): at each
    move every legal move is played out greedily, and the best whole line found so far is followed."""
    best = -1
    line: list[Move] = []
    played = 0
    while state.ended is None:
        for move in GAME.legal_moves(state):
            rest: list[Move] = []
            score = _greedy_ending(GAME.apply(state, move), rest)
            if score > best:
                best, line = score, [*line[:played], move, *rest]
                if best == 52:
                    return best
        state = GAME.apply(state, line[played])
        played += 1
    return max(best, len(state.waste))


class Greedy(Bot):
    """One move ahead, the step settled: most cards cast out, a win, no loss, then most pairs castable."""

    name = "greedy"
    summary = "Chris-Cross Pairs: the move leaving the most cast out, then the most pairs to cast."
    games = frozenset({"chris-cross-pairs"})

    def choose(self, turn: Turn) -> Move:
        return _greedy_move(GAME.draw(turn.view, self.rng), turn.moves)


class Search(Bot):
    """Determinized flat Monte Carlo while the stock lasts; an exact search once it is empty."""

    name = "search"
    summary = "Chris-Cross Pairs: tries each move on stocks drawn at random, played out; solves the endgame."
    games = frozenset({"chris-cross-pairs"})

    def __init__(self, seed: int = 0, draws: int = DRAWS, endgame: int = ENDGAME_NODES) -> None:
        super().__init__(seed)
        self.draws = draws
        self.endgame = endgame
        self._solver = _Solver()  # for the positions with an empty stock: nothing hidden any more

    def choose(self, turn: Turn) -> Move:
        if len(turn.moves) == 1:
            return turn.moves[0]
        if turn.view["board"]["stock"] == 0:
            move = self._solve(GAME.draw(turn.view, self.rng), turn.moves)
            if move is not None:
                return move
        drawn = [GAME.draw(turn.view, self.rng) for _ in range(self.draws)]
        best = -1
        choice = turn.moves[0]
        for move in turn.moves:
            total = sum(_quick_ending(GAME.apply(state, move)) for state in drawn)
            if total > best:
                best, choice = total, move
        return choice

    def _solve(self, state: ChrisCrossState, moves: tuple[Move, ...]) -> Move | None:
        """The move after which the most cards can be cast out, or ``None`` if the search ran out of budget."""
        best = -1
        choice = None
        left = self.endgame
        for move in moves:
            score, exact = self._solver.best(GAME.apply(state, move), left)
            left -= self._solver.nodes
            if not exact:
                return None
            if score > best:
                best, choice = score, move
        return choice


CEILING_EXACT = False  # the ceiling is a reachable score, a lower bound on the best


def ceiling(state: ChrisCrossState) -> Score:
    """The most cards a player who knows the stock's order can cast out from ``state`` (see the module)."""
    found = _nested_rollouts(state)
    if found < 52:
        found = max(found, _Solver(ordered=True).best(state, CEILING_NODES)[0])
    return found


class _Won(Exception):
    """A line casting out every card is found: nothing beats it."""


class _Spent(Exception):
    """The search's budget is spent."""


class _Solver:
    """Depth-first search for the most cards cast out, from positions whose stock's order is known.

    Every position searched to the end is remembered, across calls too (ask about one game only, or at
    least one order of the stock). ``ordered`` tries moves in ``Greedy``'s order (slower per position,
    finds wins sooner).
    """

    def __init__(self, ordered: bool = False) -> None:
        self.ordered = ordered
        self.budget = 0
        self.done: dict[tuple[Any, ...], int] = {}  # the most cast out from each position searched to the end
        self.nodes = 0
        self.found = -1

    def best(self, state: ChrisCrossState, budget: int) -> tuple[int, bool]:
        """The most cards cast out from ``state``, and whether that is exact (else the budget ran out: the
        best found so far). Searches at most ``budget`` new positions; ``nodes`` then says how many."""
        self.budget = budget
        self.nodes = 0
        self.found = -1
        try:
            return self._search(state), True
        except _Won:
            return 52, True
        except _Spent:
            return self.found, False

    def _search(self, state: ChrisCrossState) -> int:
        if state.ended is not None:
            score = len(state.waste)
            if score == 52:
                raise _Won
            self.found = max(self.found, score)
            return score
        # What the future depends on: the stock's order is known, so its size says which cards are left in it.
        key = (state.grid, len(state.stock), state.phase, state.round_casts > 0, state.emptied, state.slid)
        known = self.done.get(key)
        if known is not None:
            return known
        self.nodes += 1
        if self.nodes > self.budget:
            raise _Spent
        moves = GAME.legal_moves(state)
        if self.ordered and len(moves) > 1:
            moves.sort(key=lambda m: _judge(GAME.apply(state, m)), reverse=True)
        best = max(self._search(GAME.apply(state, move)) for move in moves)
        self.done[key] = best
        return best
