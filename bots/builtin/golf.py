"""Golf: the built-in bots' play and the perfect-information ceiling.

Only ranks matter in Golf, and pile cards only leave from the top, so a position is the
height of each pile, the waste top's rank and the ranks still in the stock (its order is
hidden: every order of those cards is equally likely).

``Greedy`` plays a pile card whenever it can: the one that leaves the most pile tops it
can play next, from the tallest pile on a tie; else it turns the stock.

``Search`` decides once per stock card. Nothing new is seen between two turns, so a
decision is a whole run of plays (a *chain*: each card one rank from the last) followed by
a turn; it plans the chain and plays it out. It values a chain's end by looking one card
ahead: for each rank the next turn may show (weighted by how many such cards are unseen) it
takes the best chain that card allows, valued by games played to the finish with the rest
of the stock shuffled anew for each (the same shuffles for every chain). In those games each
later chain is the first, by fewest cards left then piles as even as possible, that leaves
the deal winnable with the cards still unturned (:meth:`_Chains.hopeless`: the solver's
parity, king/ace and dead-card tests). Purely greedy games (the first chain, whatever it
leaves) won about half as often as the best blind play from the same positions (10.6%
against 20.2% from 9 stock cards; 13.2% with the test), and valued chains so badly that the
bot gave away about 1 point of win rate per decision at 9 and at 10 stock cards (0.3 and
0.6 with the test and win-only rewards), measured against exact blind values. A game's
reward is 1 for a win and at most ``TIE`` for a loss (less the more cards stay): the bot
plays to win, and cards left only break ties. Each chain end after a turn gets ``rollouts``
games, fewer when the games would turn more than ``ROLLOUT_BUDGET`` stock cards in all (at
least one each); a decision compares at most ``MAX_ENDS`` chains (fewest cards left first),
fewer when each pair of chain end and turned rank would get under ``MIN_ROLLOUTS`` games.
With ``exact_below`` cards or fewer left in the stock it searches every order instead and
plays the chain with the best expected reward exactly, a hopeless position counting as lost
(unless that takes more than ``EXACT_BUDGET`` positions). Every bound is a count, so the
moves depend only on the seed.
Drawing orders rather than solving drawn deals is deliberate: a solver that sees the
drawn stock plans for cards it could not know were coming, and played that way (PIMC)
Golf wins far fewer deals.

``ceiling`` is :func:`parlour.games.golf_solver.fewest`: the fewest cards a player who sees
the stock can leave, exact.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from parlour.bots.base import Bot, Turn
from parlour.games import Move
from parlour.games.base import Score
from parlour.games.cards import RANK, parse_card
from parlour.games.golf import PILES, PLAY, TURN, GolfState
from parlour.games.golf_solver import fewest

ROLLOUTS = 64  # games played to the end per chain end, for each rank the next turn may show
ROLLOUT_BUDGET = 60_000  # stock cards turned in rollouts per decision at most, unless each chain end gets one game
MIN_ROLLOUTS = 4  # a decision compares no more chain ends than leave each of their pairs this many games
MAX_ENDS = 60  # chain ends a decision compares at most (fewest cards left first); most decisions have under 60
EXACT_BELOW = 6  # stock cards at or under which the search is exact
EXACT_BUDGET = 12_000  # positions the exact search may value per decision before it gives way to rollouts
TIE = 0.01  # a lost game's reward at most (fewer cards left, more): it only sets apart chains equally likely to win

Heights = tuple[int, ...]
Counts = tuple[int, ...]  # cards still in the stock, by rank (index 1 to 13; index 0 unused)


def _reward(left: int) -> float:
    """A finished game's reward: 1 for a win; a loss scores at most ``TIE``, less the more cards stay."""
    return 1.0 if left == 0 else TIE * (1.0 - left / 35)


class _Board:
    """A player's view of Golf in ranks."""

    def __init__(self, view: Mapping[str, Any]) -> None:
        board = view["board"]
        self.piles: tuple[tuple[int, ...], ...] = tuple(
            tuple(RANK[parse_card(t)] for t in pile) for pile in board["piles"]
        )
        self.heights: Heights = tuple(len(p) for p in self.piles)
        self.top = RANK[parse_card(board["waste"][-1])]
        counts = [0] + [4] * 13
        for pile in board["piles"]:
            for text in pile:
                counts[RANK[parse_card(text)]] -= 1
        for text in board["waste"]:
            counts[RANK[parse_card(text)]] -= 1
        self.unseen: Counts = tuple(counts)
        self.stock: int = board["stock"]


class _OverBudget(Exception):
    """The exact search valued more positions than its budget allows."""


class _Chains:
    """Chain ends over one deal's piles, with caches: positions repeat a lot in a search.

    ``piles`` are the ranks of the deal's piles as first seen; a position's ``heights`` say how
    much of each pile is left.
    """

    def __init__(self, piles: tuple[tuple[int, ...], ...]) -> None:
        self.piles = piles
        self._ends: dict[tuple[Heights, int], list[Heights]] = {}
        self.known_ends = self._ends  # read only: the ends found so far, for a fast look-up
        self._greedy: dict[tuple[Heights, int], Heights] = {}
        self._exact: dict[tuple[Heights, Counts], float] = {}
        self._needs: dict[Heights, tuple[int, int, int, tuple[int, ...]]] = {}
        self.budget = 0  # positions :meth:`expected` may still value before it raises _OverBudget

    def holds(self, piles: tuple[tuple[int, ...], ...]) -> bool:
        """Whether ``piles`` are what is left of this deal's piles."""
        return all(mine[: len(p)] == p for mine, p in zip(self.piles, piles, strict=True))

    def ends(self, heights: Heights, top: int) -> list[Heights]:
        """Every position a chain from ``top`` can reach (the empty chain too), fewest cards first."""
        key = (heights, top)
        found = self._ends.get(key)
        if found is None:
            piles = self.piles
            reached = {heights}
            seen = {key}
            todo = [key]
            while todo:
                h, t = todo.pop()
                for i in range(PILES):
                    k = h[i]
                    if k:
                        card = piles[i][k - 1]
                        if card - t == 1 or t - card == 1:
                            after = (*h[:i], k - 1, *h[i + 1 :])
                            if (after, card) not in seen:
                                seen.add((after, card))
                                todo.append((after, card))
                                reached.add(after)
            found = sorted(reached, key=lambda h: (sum(h), sum(k * k for k in h), h))
            self._ends[key] = found
        return found

    def greedy(self, heights: Heights, top: int) -> Heights:
        """The greedy chain's end: fewest cards left, then the most even piles."""
        key = (heights, top)
        found = self._greedy.get(key)
        if found is None:
            found = self._greedy[key] = self.ends(heights, top)[0]
        return found

    def hopeless(self, heights: Heights, unseen: Counts | list[int]) -> bool:
        """Whether no order of the ``unseen`` stock clears the piles: the solver's necessary conditions.

        Parity (see :mod:`parlour.games.golf_solver`): odd pile cards less even ones must lie between
        -(odd stock cards) and +(even stock cards). Kings and aces: each pile king needs its own queen
        (in the piles or the stock), each ace its own two. Dead cards: a pile card with no card one rank
        away left, in the stock or in the piles (bar its own pile's, except the card straight on it).
        """
        balance, kings, aces, needy = self._needs_of(heights)
        if balance > 0:
            if balance > unseen[2] + unseen[4] + unseen[6] + unseen[8] + unseen[10] + unseen[12]:
                return True
        elif -balance > unseen[1] + unseen[3] + unseen[5] + unseen[7] + unseen[9] + unseen[11] + unseen[13]:
            return True
        if kings > unseen[12] or aces > unseen[2]:
            return True
        return any((rank == 1 or not unseen[rank - 1]) and (rank == 13 or not unseen[rank + 1]) for rank in needy)

    def _needs_of(self, heights: Heights) -> tuple[int, int, int, tuple[int, ...]]:
        """The piles' part of :meth:`hopeless`: parity balance, kings less queens, aces less twos, and
        the ranks of the pile cards that only a stock card could come straight before."""
        found = self._needs.get(heights)
        if found is None:
            count = [0] * 15
            balance = 0
            for pile, k in zip(self.piles, heights, strict=True):
                for rank in pile[:k]:
                    count[rank] += 1
                    balance += 1 if rank & 1 else -1
            needy = set()
            for pile, k in zip(self.piles, heights, strict=True):
                for i in range(k):
                    rank = pile[i]
                    near = count[rank - 1] + count[rank + 1]
                    near -= sum(1 for j in range(k) if j != i + 1 and abs(pile[j] - rank) == 1)
                    if near <= 0:
                        needy.add(rank)
            found = (balance, count[13] - count[12], count[1] - count[2], tuple(sorted(needy)))
            self._needs[heights] = found
        return found

    def safe(self, heights: Heights, top: int, unseen: list[int]) -> Heights:
        """The rollouts' chain: the first end in :meth:`ends` order the ``unseen`` stock may still clear
        (else the greedy one)."""
        ends = self.ends(heights, top)
        for end in ends:
            if not self.hopeless(end, unseen):
                return end
        return ends[0]

    def path(self, heights: Heights, top: int, end: Heights) -> list[int]:
        """The piles to play from, in order, to go from ``heights`` to ``end`` with ``top`` on the waste."""
        piles = self.piles
        todo: list[tuple[Heights, int, list[int]]] = [(heights, top, [])]
        seen = {(heights, top)}
        while todo:
            h, t, line = todo.pop()
            if h == end:
                return line
            for i in range(PILES):
                k = h[i]
                if k > end[i]:
                    card = piles[i][k - 1]
                    if (card - t == 1 or t - card == 1) and ((after := (*h[:i], k - 1, *h[i + 1 :])), card) not in seen:
                        seen.add((after, card))
                        todo.append((after, card, [*line, i]))
        raise ValueError("that chain end cannot be reached")

    def expected(self, end: Heights, unseen: Counts) -> float:
        """The best expected reward from ``end`` before a turn, every order of ``unseen`` considered."""
        if not any(end):
            return 1.0
        key = (end, unseen)
        value = self._exact.get(key)
        if value is None:
            self.budget -= 1
            if self.budget < 0:
                raise _OverBudget
            total = sum(unseen)
            if not total or self.hopeless(end, unseen):
                value = _reward(sum(end))
            else:
                value = 0.0
                for rank in range(1, 14):
                    count = unseen[rank]
                    if count:
                        rest = (*unseen[:rank], count - 1, *unseen[rank + 1 :])
                        best = 0.0
                        for after in self.ends(end, rank):
                            best = max(best, self.expected(after, rest))
                            if best >= 1.0:
                                break
                        value += count * best
                value /= total
            self._exact[key] = value
        return value


class Greedy(Bot):
    name = "greedy"
    summary = "Golf: plays a pile card when it can (the one that leaves most plays next), else turns."
    games: ClassVar[frozenset[str] | None] = frozenset({"golf"})

    def choose(self, turn: Turn) -> Move:
        plays = [m for m in turn.moves if m.kind == "play"]
        if not plays:
            return turn.moves[0]
        board = _Board(turn.view)

        def merit(move: Move) -> tuple[int, int]:
            i = PLAY.index(move)
            card = board.piles[i][-1]
            tops = [p[-1] for j, p in enumerate(board.piles) if j != i and p]
            if len(board.piles[i]) > 1:
                tops.append(board.piles[i][-2])
            return sum(1 for t in tops if abs(t - card) == 1), len(board.piles[i])

        return max(plays, key=merit)


class Search(Bot):
    name = "search"
    summary = "Golf: plans each chain of plays by Monte Carlo over stock orders; exact near the end."
    games: ClassVar[frozenset[str] | None] = frozenset({"golf"})

    def __init__(self, seed: int = 0, rollouts: int = ROLLOUTS, exact_below: int = EXACT_BELOW) -> None:
        super().__init__(seed)
        self.rollouts = rollouts
        self.exact_below = exact_below
        self._chains: _Chains | None = None
        self._plan: list[tuple[Move, Heights, int]] = []  # each planned move and the position it expects

    def choose(self, turn: Turn) -> Move:
        board = _Board(turn.view)
        if self._plan:
            move, heights, top = self._plan.pop(0)
            if (heights, top) == (board.heights, board.top) and move in turn.moves:
                return move
            self._plan = []
        if not any(m.kind == "play" for m in turn.moves):
            return TURN if TURN in turn.moves else turn.moves[0]
        if self._chains is None or not self._chains.holds(board.piles):
            self._chains = _Chains(board.piles)
        chains = self._chains
        end = self._decide(chains, board)
        heights, top = board.heights, board.top
        for i in chains.path(heights, top, end):
            self._plan.append((PLAY[i], heights, top))
            top = chains.piles[i][heights[i] - 1]
            heights = (*heights[:i], heights[i] - 1, *heights[i + 1 :])
        if board.stock and any(end):
            self._plan.append((TURN, heights, top))
        if not self._plan:  # the best chain is no chain, with nothing left to turn: play on anyway
            return next(m for m in turn.moves if m.kind == "play")
        return self._plan.pop(0)[0]

    def _decide(self, chains: _Chains, board: _Board) -> Heights:
        ends = chains.ends(board.heights, board.top)
        if len(ends) == 1 or not board.stock:
            return ends[0]
        if board.stock <= self.exact_below:
            chains.budget = EXACT_BUDGET
            try:
                return max(ends, key=lambda end: chains.expected(end, board.unseen))
            except _OverBudget:
                pass  # a rare tangle of piles: rollouts decide instead
        unseen = board.unseen
        ranks = [rank for rank in range(1, 14) if unseen[rank]]
        if not any(ends[0]):
            return ends[0]
        nexts: dict[tuple[Heights, int], list[Heights]] = {}
        pairs: set[tuple[Heights, int]] = set()  # (chain end after the next turn, the rank turned)
        compared = []
        for end in ends[:MAX_ENDS]:  # fewest cards left first, while each pair can get MIN_ROLLOUTS games
            if compared and len(pairs) * board.stock * MIN_ROLLOUTS > ROLLOUT_BUDGET:
                break
            compared.append(end)
            for rank in ranks:
                nexts[end, rank] = chains.ends(end, rank)
                pairs.update((after, rank) for after in nexts[end, rank])
        ends = compared
        rollouts = max(1, min(self.rollouts, ROLLOUT_BUDGET // (len(pairs) * board.stock)))
        orders: dict[int, list[tuple[int, ...]]] = {}
        for rank in ranks:  # the same shuffles of the rest for every chain that follows a turned ``rank``
            rest = [r for r in range(1, 14) for _ in range(unseen[r] - (r == rank))]
            orders[rank] = []
            for _ in range(rollouts):
                self.rng.shuffle(rest)
                orders[rank].append(tuple(rest))
        values: dict[tuple[Heights, int], float] = {}
        known = chains.known_ends
        hopeless = chains.hopeless

        def value(after: Heights, rank: int) -> float:
            """The mean reward of rollouts from ``after``, ``rank`` just turned and played on."""
            found = values.get((after, rank))
            if found is None:
                left = list(unseen)
                left[rank] -= 1
                if chains.hopeless(after, left):
                    found = _reward(sum(after))
                else:
                    found = 0.0
                    for order in orders[rank]:
                        heights = after
                        left = list(unseen)
                        left[rank] -= 1
                        for next_rank in order:
                            if not any(heights):
                                break
                            left[next_rank] -= 1
                            options = known.get((heights, next_rank)) or chains.ends(heights, next_rank)
                            heights = options[0]
                            if len(options) > 1 and hopeless(heights, left):  # the first end that may still win
                                heights = next((end for end in options if not hopeless(end, left)), heights)
                        found += _reward(sum(heights))
                    found /= rollouts
                values[(after, rank)] = found
            return found

        best, best_value = ends[0], -1.0
        for end in ends:
            expected = sum(unseen[rank] * max(value(after, rank) for after in nexts[end, rank]) for rank in ranks)
            if expected > best_value:
                best, best_value = end, expected
        return best


CEILING_EXACT = True  # the ceiling is the exact best score


def ceiling(state: GolfState) -> Score | None:
    """The fewest cards a player who sees the stock can leave in the piles: exact."""
    return fewest(state).score
