"""The built-in bots' play for Gate (two gate posts, eight piles, a one-pass stock turned by one).

What a player sees: everything but the order of the stock. The stock turns one card at a time
with no redeal, so the waste is a stack: a card turned and not played stays under every later one.
Every pile is one sequence (cards only ever join a pile as a sequence onto its top), so what blocks
a card is what lies above it in its reserve, the waste, or its pile.

- :func:`worth` judges a position in foundation cards: the cards home, less 0.15 a card still in a
  reserve, 0.2 a card in the waste, 0.5 a card lying above a lower card of its own suit in a
  reserve or the waste (it must find a place in the piles before that card can go home), and 0.02
  a card not yet turned. It reads no card of the stock.
- :func:`children` lists the moves worth searching: every legal move but a part of a pile moved
  onto another pile when the card it uncovers can neither go home nor take a card in play.
- :class:`Greedy` looks one move ahead: the move to a position not seen before that raises
  :func:`worth` most; with none it turns the stock, and once the stock is empty it tries a move to
  a position not seen before (cards may go round the piles until something goes home), then
  concedes.
- :class:`Search` is determinized search (perfect-information Monte Carlo): it draws
  :attr:`Search.worlds` stock orders, runs a best-first search in each (at most
  :attr:`Search.budget` expanded positions, each position once), values each first move by the best
  position reached through it, and plays the move with the best mean over the draws, to a position
  not seen before; with nothing gaining it turns or goes round as :class:`Greedy` does.
- :func:`ceiling` sees the stock: a depth-first search (best child first, at most
  :data:`CEILING_NODES` expanded positions), and if that neither wins nor finishes, the search
  bot's own play with the real state as its one world; the better score. A lower bound on the best
  reachable score, exact when it is 52 or the depth-first search finished.
"""

from __future__ import annotations

import heapq
from typing import Any

from parlour.bots.arena import MAX_MOVES
from parlour.bots.base import Bot, Turn
from parlour.games import CONCEDE, Ending, Move, Score
from parlour.games.cards import RANK, SUIT
from parlour.games.gate import GATE, HOME, PARENTS, TURN, GateState

CEILING_NODES = 30_000

W_RESERVE = 0.15  # a card in a reserve
W_WASTE = 0.2  # a card in the waste
W_BURY = 0.5  # a card above a lower card of its own suit in a reserve or the waste
W_STOCK = 0.02  # a card not yet turned


def _buried(stack: tuple[int, ...]) -> int:
    """How many cards of ``stack`` (bottom to top) lie above a lower card of their own suit."""
    low = [99, 99, 99, 99]
    count = 0
    for card in stack:
        suit = SUIT[card]
        rank = RANK[card]
        if rank > low[suit]:
            count += 1
        else:
            low[suit] = rank
    return count


def worth(state: GateState) -> float:
    """How good ``state`` is, in foundation cards (see the module docstring); uses no stock order."""
    f = state.foundations
    n = f[0] + f[1] + f[2] + f[3]
    if n == 52:
        return 52.0
    r1, r2 = state.reserves
    waste = state.waste
    return (
        n
        - W_RESERVE * (len(r1) + len(r2))
        - W_WASTE * len(waste)
        - W_BURY * (_buried(r1) + _buried(r2) + _buried(waste))
        - W_STOCK * len(state.stock)
    )


def _key(state: GateState) -> tuple[Any, ...]:
    return (state.piles, state.reserves, len(state.waste), len(state.stock), state.foundations)


def children(state: GateState) -> list[tuple[Move, GateState]]:
    """The moves worth searching from ``state`` and the positions they reach.

    Moving part of a pile onto another pile is kept only if the card it uncovers can go home or
    can take a card in play (a reserve's or the waste's top, or a card of another pile).
    """
    out: list[tuple[Move, GateState]] = []
    apply = GATE.apply
    found = state.foundations
    takers: set[int] | None = None
    for move in GATE.legal_moves(state):
        if move.count:
            src = int(move.src[1:]) - 1
            pile = state.piles[src]
            if move.count < len(pile):
                under = pile[-move.count - 1]
                if found[SUIT[under]] != HOME[under]:
                    if takers is None:
                        takers = {c for pile in state.piles for c in pile}
                        for stack in (*state.reserves, state.waste):
                            if stack:
                                takers.add(stack[-1])
                    if not any(c in takers for c in _CHILDREN[under]):
                        continue
        out.append((move, apply(state, move)))
    return out


# _CHILDREN[c]: the cards that may be built on c.
_CHILDREN: tuple[tuple[int, ...], ...] = tuple(tuple(c for c in range(52) if d in PARENTS[c]) for d in range(52))


def best_first(root: GateState, budget: int) -> dict[Move, float]:
    """Best-first search from ``root``, expanding at most ``budget`` positions.

    For each first move, the best :func:`worth` of a position reached through it, less a little per
    move so that shorter lines win ties.
    """
    seen = {_key(root)}
    heap: list[tuple[float, int, int, GateState, Move]] = []
    best: dict[Move, float] = {}
    tick = 0
    for move, child in children(root):
        key = _key(child)
        if key in seen:
            continue
        seen.add(key)
        w = worth(child)
        tick += 1
        heapq.heappush(heap, (-w, 1, tick, child, move))
        best[move] = max(best.get(move, -1e9), w - 0.001)
    expanded = 0
    while heap and expanded < budget:
        _, depth, _, state, first = heapq.heappop(heap)
        if state.ended is Ending.WON:
            break
        expanded += 1
        for _, child in children(state):
            key = _key(child)
            if key in seen:
                continue
            seen.add(key)
            w = worth(child)
            tick += 1
            heapq.heappush(heap, (-w, depth + 1, tick, child, first))
            value = w - 0.001 * (depth + 1)
            if value > best[first]:
                best[first] = value
    return best


class Greedy(Bot):
    name = "greedy"
    summary = "Gate: the move that most improves cards home and the reserves and waste, one move ahead."
    games = frozenset({"gate"})

    def __init__(self, seed: int = 0) -> None:
        super().__init__(seed)
        self.visited: set[tuple[Any, ...]] = set()

    def choose(self, turn: Turn) -> Move:
        world = GATE.draw(turn.view, self.rng)
        self.visited.add(_key(world))
        here = worth(world)
        best, chosen = 1e-9, None
        fresh: list[Move] = []
        for move in turn.moves:
            if move == TURN:
                continue
            after = GATE.apply(world, move)
            if _key(after) in self.visited:
                continue
            fresh.append(move)
            gain = worth(after) - here
            if gain > best:
                best, chosen = gain, move
        if chosen is not None:
            return chosen
        return _wander(turn, fresh, self.rng)


def _wander(turn: Turn, fresh: list[Move], rng: Any) -> Move:
    """Nothing gains: turn the stock; with the stock empty, try a move to a position not yet seen."""
    if TURN in turn.moves:
        return TURN
    if fresh:
        return rng.choice(fresh)
    return CONCEDE


class Search(Bot):
    name = "search"
    summary = "Gate: best-first search in several drawn stock orders, the moves judged by their mean."
    games = frozenset({"gate"})

    worlds = 3
    budget = 30  # positions expanded per world

    def __init__(self, seed: int = 0) -> None:
        super().__init__(seed)
        self.visited: set[tuple[Any, ...]] = set()

    def _world(self, turn: Turn) -> GateState:
        """A world to search: a stock order drawn from the view."""
        return GATE.draw(turn.view, self.rng)

    def choose(self, turn: Turn) -> Move:
        first = self._world(turn)
        self.visited.add(_key(first))
        if len(turn.moves) == 1:
            return turn.moves[0]
        n = self.worlds if len(first.stock) > 1 else 1
        totals: dict[Move, float] = {}
        here = 0.0
        for i in range(n):
            world = first if i == 0 else self._world(turn)
            here += worth(world)
            for move, value in best_first(world, self.budget).items():
                totals[move] = totals.get(move, 0.0) + value
        ranked = sorted(totals.items(), key=lambda item: -item[1])
        for move, total in ranked:
            if total <= here + 1e-6 and move != TURN:
                break
            if move == TURN or _key(GATE.apply(first, move)) not in self.visited:
                return move
        fresh = [m for m in turn.moves if m != TURN and _key(GATE.apply(first, m)) not in self.visited]
        return _wander(turn, fresh, self.rng)


class _Clairvoyant(Search):
    """The search bot's play seeing the stock: its one world is the real state (for :func:`ceiling`)."""

    worlds = 1

    def __init__(self, state: GateState) -> None:
        super().__init__(0)
        self.state = state

    def _world(self, turn: Turn) -> GateState:
        return self.state


CEILING_EXACT = False  # the ceiling is a reachable score, a lower bound on the best


def ceiling(state: GateState, nodes: int = CEILING_NODES) -> Score | None:
    """The best score reachable from ``state`` seeing the stock, as far as two searches find.

    First a depth-first search, best child first by :func:`worth`, every position searched once,
    for at most ``nodes`` expansions; exact when it wins or runs out of positions. If it does
    neither, the search bot's own play seeing the stock (its one world the real state) is tried
    too. The better score is returned: a lower bound on the true ceiling, exact when it is 52.
    """
    best = sum(state.foundations)
    seen = {_key(state)}
    stack = [state]
    expanded = 0
    while stack and expanded < nodes and best < 52:
        s = stack.pop()
        expanded += 1
        kids = []
        for _, child in children(s):
            key = _key(child)
            if key in seen:
                continue
            seen.add(key)
            best = max(best, sum(child.foundations))
            kids.append((worth(child), child))
        kids.sort(key=lambda k: k[0])
        stack.extend(child for _, child in kids)
    if stack and best < 52:
        bot = _Clairvoyant(state)
        for seq in range(MAX_MOVES):
            if state.ended is not None:
                break
            bot.state = state
            state = GATE.apply(state, bot.choose(Turn.of(GATE.view(state, "player"), seq)))
        best = max(best, sum(state.foundations))
    return best
