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
later chain is, of those that leave the deal winnable with the cards still unturned
(:meth:`_Chains.hopeless`: the solver's parity, king/ace and dead-card tests), the one whose
end has the best merit (:data:`MERIT`: a linear score of the piles left, fitted on exact
blind values; fewer cards, even piles, cards one rank from the card under them and few
cards that only the stock can reach count for it), the best of all if none does. Purely
greedy games (the chain with fewest cards left, whatever it leaves) won about half as often
as the best blind play from the same positions (10.6% against 20.2% from 9 stock cards;
13.2% with the test), and valued chains so badly that the bot gave away about 1 point of
win rate per decision at 9 and at 10 stock cards, measured against exact blind values;
0.33 and 0.65 with the test and win-only rewards, 0.27 and 0.33 with merit too (means over
400 positions each, standard errors 0.07 to 0.15). A game's
reward is 1 for a win and at most ``TIE`` for a loss (less the more cards stay): the bot
plays to win, and cards left only break ties. Each chain end after a turn gets ``rollouts``
games, fewer when the games would turn more than ``ROLLOUT_BUDGET`` stock cards in all (at
least one each); a decision compares at most ``MAX_ENDS`` chains (fewest cards left first),
fewer when each pair of chain end and turned rank would get under ``MIN_ROLLOUTS`` games.
With ``exact_below`` cards or fewer left in the stock it searches every order instead and
plays the chain with the best expected reward exactly, a hopeless position counting as lost
(unless that takes more than ``EXACT_BUDGET`` positions). Every bound is a count, so the
moves depend only on the seed. On the 500 arena deals of ``bench/bots.py`` (seed 0) it wins
25.2% (126; 23.4% without merit), with 16 ms of CPU a move on average and about 0.5 s at most.
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
# How rollouts rank a position's chain ends (see :meth:`_Chains.needs`): the weights of cards left, the sum of
# squared pile heights, empty piles, pile cards one rank from the card under them, the tallest pile, pairs of
# pile tops one rank apart, and pile cards with no / one pile card one rank away that may come straight before
# them (another pile's, or the one on top of it). Fitted by gradient ascent on the softmax-weighted exact value
# of the ends not already hopeless, over about 105,000 positions right after a turn (1 to 9 stock cards left)
# met in the exact blind solutions of 400 deals from 9 and 10 stock cards, with every chain end's exact win
# probability; fitted on even deals, checked on odd ones (the mean loss against the best end, in win
# probability: 0.035 for the first safe end by fewest cards, 0.026 by merit); scaled to 1 a card.
MERIT = (1.0, 0.0874, 0.54, 0.95, 0.385, 0.45, 1.26, 0.67)
TIE = 0.01  # a lost game's reward at most (fewer cards left, more): it only sets apart chains equally likely to win

Heights = tuple[int, ...]
Counts = tuple[int, ...]  # cards still in the stock, by rank (index 1 to 13; index 0 unused)
Code = int  # pile heights in one int, 3 bits a pile, the first pile highest: codes sort as height tuples do

_SHIFT = tuple(3 * (PILES - 1 - i) for i in range(PILES))
_UNIT = tuple(1 << shift for shift in _SHIFT)
_BITS = 3 * PILES
_MASK = (1 << _BITS) - 1
_CARDS = 1 << (_BITS + 8)  # in a sort key: cards left << (_BITS + 8) | sum of squared heights << _BITS | code
_ODD = (1 << 1) | (1 << 3) | (1 << 5) | (1 << 7) | (1 << 9) | (1 << 11) | (1 << 13)


def encode(heights: Heights) -> Code:
    return sum(k << shift for k, shift in zip(heights, _SHIFT, strict=True))


def decode(code: Code) -> Heights:
    return tuple((code >> shift) & 7 for shift in _SHIFT)


def _part(code: Code, piles: int) -> tuple[int, int]:
    """Cards and sum of squared heights of the last ``piles`` piles of ``code``."""
    heights = [(code >> 3 * i) & 7 for i in range(piles)]
    return sum(heights), sum(k * k for k in heights)


# What the first 3 and the last 4 piles add to a sort key (cards left, sum of squared heights), and cards left
_KEY_HIGH = tuple(c * _CARDS + (q << _BITS) for c, q in (_part(code, 3) for code in range(1 << 9)))
_KEY_LOW = tuple(c * _CARDS + (q << _BITS) for c, q in (_part(code, 4) for code in range(1 << 12)))
_LEFT_HIGH = tuple(_part(code, 3)[0] for code in range(1 << 9))
_LEFT_LOW = tuple(_part(code, 4)[0] for code in range(1 << 12))


def cards_left(code: Code) -> int:
    return _LEFT_HIGH[code >> 12] + _LEFT_LOW[code & 4095]


def _sort_key(code: Code) -> int:
    return _KEY_HIGH[code >> 12] + _KEY_LOW[code & 4095] + code


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
        self.code: Code = encode(self.heights)
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

    ``piles`` are the ranks of the deal's piles as first seen; a position's heights (as a :data:`Code`)
    say how much of each pile is left.
    """

    def __init__(self, piles: tuple[tuple[int, ...], ...]) -> None:
        self.piles = piles
        # rank_at[i][k]: the rank of pile i's top card at height k (99 at height 0: one rank from nothing)
        self.rank_at = tuple((99, *pile, *[99] * (5 - len(pile))) for pile in piles)
        # step[i][k]: what playing pile i's top card at height k takes off a sort key
        self.step = tuple(tuple(_CARDS + ((2 * k - 1) << _BITS) + _UNIT[i] for k in range(6)) for i in range(PILES))
        self._by_pile = tuple(zip(_SHIFT, self.rank_at, self.step, strict=True))
        # The piles' part of the hopeless test, by pile and height: parity balance, kings less queens,
        # aces less twos, the cards present (one bit each, 5 a pile), and each present card's supporters
        # (the pile cards one rank away that may come straight before it) with its rank's bit.
        self._balance = tuple(tuple(sum(1 if r & 1 else -1 for r in p[:k]) for k in range(6)) for p in piles)
        self._kings = tuple(tuple(p[:k].count(13) - p[:k].count(12) for k in range(6)) for p in piles)
        self._aces = tuple(tuple(p[:k].count(1) - p[:k].count(2) for k in range(6)) for p in piles)
        self._present = tuple(tuple(((1 << k) - 1) << 5 * i for k in range(6)) for i in range(PILES))
        # For :data:`MERIT`: by pile and height, the pile cards one rank from the card under them
        self._runs = tuple(
            tuple(sum(1 for j in range(1, min(k, len(p))) if abs(p[j] - p[j - 1]) == 1) for k in range(6))
            for p in piles
        )
        support = []
        for i, pile in enumerate(piles):
            mine = []
            for j, rank in enumerate(pile):
                mask = 0
                for i2, other in enumerate(piles):
                    for j2, rank2 in enumerate(other):
                        if abs(rank2 - rank) == 1 and (i2 != i or j2 == j + 1):
                            mask |= 1 << (5 * i2 + j2)
                mine.append((mask, 1 << rank))
            support.append(tuple(tuple(mine[:k]) for k in range(6)))
        self._support = tuple(support)
        self._ends: dict[int, list[Code]] = {}
        self._exact: dict[tuple[Code, Counts], float] = {}
        self._needs: dict[Code, tuple[int, int, int, int, float]] = {}
        self.known_needs = self._needs  # read only: what :meth:`needs` found so far, for a fast look-up
        self._choices: dict[int, list[Code]] = {}
        self.known_choices = self._choices  # read only, likewise for :meth:`choices` (by code << 4 | top)
        self.budget = 0  # positions :meth:`expected` may still value before it raises _OverBudget

    def holds(self, piles: tuple[tuple[int, ...], ...]) -> bool:
        """Whether ``piles`` are what is left of this deal's piles."""
        return all(mine[: len(p)] == p for mine, p in zip(self.piles, piles, strict=True))

    def ends(self, code: Code, top: int) -> list[Code]:
        """Every position a chain from ``top`` can reach (the empty chain too): fewest cards left first, then
        the most even piles, then by heights."""
        key = code << 4 | top
        found = self._ends.get(key)
        if found is None:
            piles = self._by_pile
            for shift, rank_at, _ in piles:
                card = rank_at[(code >> shift) & 7]
                if card - top == 1 or top - card == 1:
                    break
            else:  # no play
                found = self._ends[key] = [code]
                return found
            start = _sort_key(code)
            reached = {start}
            seen = {key}
            todo = [(start, top)]
            while todo:
                sk, t = todo.pop()
                for shift, rank_at, step in piles:
                    k = (sk >> shift) & 7
                    card = rank_at[k]
                    if card - t == 1 or t - card == 1:
                        after = sk - step[k]
                        mark = (after & _MASK) << 4 | card
                        if mark not in seen:
                            seen.add(mark)
                            todo.append((after, card))
                            reached.add(after)
            found = [sk & _MASK for sk in sorted(reached)]
            self._ends[key] = found
        return found

    def needs(self, code: Code) -> tuple[int, int, int, int, float]:
        """The piles' part of :meth:`hopeless`: parity balance, kings less queens, aces less twos, and the
        ranks (one bit each) of the pile cards that only a stock card could come straight before; and the
        position's merit for rollouts (:data:`MERIT`: the higher, the likelier a win)."""
        found = self._needs.get(code)
        if found is None:
            balance = kings = aces = present = runs = empty = tall = tops = 0
            for i in range(PILES):
                k = (code >> _SHIFT[i]) & 7
                balance += self._balance[i][k]
                kings += self._kings[i][k]
                aces += self._aces[i][k]
                present |= self._present[i][k]
                if k:
                    runs += self._runs[i][k]
                    tops |= 1 << self.rank_at[i][k]
                    tall = max(tall, k)
                else:
                    empty += 1
            needy = lone = single = 0
            for i in range(PILES):
                for mask, bit in self._support[i][(code >> _SHIFT[i]) & 7]:
                    near = present & mask
                    if not near:
                        needy |= bit
                        lone += 1
                    elif not near & (near - 1):
                        single += 1
            key = _sort_key(code)
            merit = (
                -MERIT[0] * (key >> (_BITS + 8))
                - MERIT[1] * ((key >> _BITS) & 255)
                - MERIT[2] * empty
                + MERIT[3] * runs
                - MERIT[4] * tall
                + MERIT[5] * (tops & tops >> 1).bit_count()
                - MERIT[6] * lone
                - MERIT[7] * single
            )
            found = self._needs[code] = (balance, kings, aces, needy, merit)
        return found

    def choices(self, code: Code, top: int) -> list[Code]:
        """:meth:`ends` by merit (see :data:`MERIT`), best first; ties and a win keep their place."""
        key = code << 4 | top
        found = self._choices.get(key)
        if found is None:
            found = self.ends(code, top)
            if len(found) > 1 and found[0]:
                needs = self.needs
                found = sorted(found, key=lambda end: -needs(end)[4])
            self._choices[key] = found
        return found

    def hopeless(self, code: Code, unseen: Counts | list[int]) -> bool:
        """Whether no order of the ``unseen`` stock clears the piles: the solver's necessary conditions.

        Parity (see :mod:`parlour.games.golf_solver`): odd pile cards less even ones must lie between
        -(odd stock cards) and +(even stock cards). Kings and aces: each pile king needs its own queen
        (in the piles or the stock), each ace its own two. Dead cards: a pile card with no card one rank
        away left, in the stock or in the piles (bar its own pile's, except the card straight on it).
        """
        balance, kings, aces, needy, _ = self.needs(code)
        if balance > 0:
            if balance > unseen[2] + unseen[4] + unseen[6] + unseen[8] + unseen[10] + unseen[12]:
                return True
        elif -balance > unseen[1] + unseen[3] + unseen[5] + unseen[7] + unseen[9] + unseen[11] + unseen[13]:
            return True
        if kings > unseen[12] or aces > unseen[2]:
            return True
        return bool(needy) and any(
            needy >> rank & 1 and (rank == 1 or not unseen[rank - 1]) and (rank == 13 or not unseen[rank + 1])
            for rank in range(1, 14)
        )

    def path(self, code: Code, top: int, end: Code) -> list[int]:
        """The piles to play from, in order, to go from ``code`` to ``end`` with ``top`` on the waste."""
        rank_at = self.rank_at
        todo: list[tuple[Code, int, list[int]]] = [(code, top, [])]
        seen = {(code, top)}
        while todo:
            h, t, line = todo.pop()
            if h == end:
                return line
            for i in range(PILES):
                k = (h >> _SHIFT[i]) & 7
                if k > (end >> _SHIFT[i]) & 7:
                    card = rank_at[i][k]
                    if (card - t == 1 or t - card == 1) and (h - _UNIT[i], card) not in seen:
                        seen.add((h - _UNIT[i], card))
                        todo.append((h - _UNIT[i], card, [*line, i]))
        raise ValueError("that chain end cannot be reached")

    def expected(self, end: Code, unseen: Counts) -> float:
        """The best expected reward from ``end`` before a turn, every order of ``unseen`` considered."""
        if not end:
            return 1.0
        key = (end, unseen)
        value = self._exact.get(key)
        if value is None:
            self.budget -= 1
            if self.budget < 0:
                raise _OverBudget
            total = sum(unseen)
            if not total or self.hopeless(end, unseen):
                value = _reward(cards_left(end))
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

    def __init__(
        self, seed: int = 0, rollouts: int = ROLLOUTS, exact_below: int = EXACT_BELOW, budget: int = ROLLOUT_BUDGET
    ) -> None:
        super().__init__(seed)
        self.rollouts = rollouts
        self.budget = budget
        self.exact_below = exact_below
        self._chains: _Chains | None = None
        self._plan: list[tuple[Move, Code, int]] = []  # each planned move and the position it expects

    def choose(self, turn: Turn) -> Move:
        board = _Board(turn.view)
        if self._plan:
            move, code, top = self._plan.pop(0)
            if (code, top) == (board.code, board.top) and move in turn.moves:
                return move
            self._plan = []
        if not any(m.kind == "play" for m in turn.moves):
            return TURN if TURN in turn.moves else turn.moves[0]
        if self._chains is None or not self._chains.holds(board.piles):
            self._chains = _Chains(board.piles)
        chains = self._chains
        end = self._decide(chains, board)
        code, top = board.code, board.top
        for i in chains.path(code, top, end):
            self._plan.append((PLAY[i], code, top))
            top = chains.rank_at[i][(code >> _SHIFT[i]) & 7]
            code -= _UNIT[i]
        if board.stock and end:
            self._plan.append((TURN, code, top))
        if not self._plan:  # the best chain is no chain, with nothing left to turn: play on anyway
            return next(m for m in turn.moves if m.kind == "play")
        return self._plan.pop(0)[0]

    def _decide(self, chains: _Chains, board: _Board) -> Code:
        ends = chains.ends(board.code, board.top)
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
        if not ends[0]:
            return ends[0]
        nexts: dict[tuple[Code, int], list[Code]] = {}
        pairs: set[tuple[Code, int]] = set()  # (chain end after the next turn, the rank turned)
        compared = []
        for end in ends[:MAX_ENDS]:  # fewest cards left first, while each pair can get MIN_ROLLOUTS games
            if compared and len(pairs) * board.stock * MIN_ROLLOUTS > self.budget:
                break
            compared.append(end)
            for rank in ranks:
                nexts[end, rank] = chains.ends(end, rank)
                pairs.update((after, rank) for after in nexts[end, rank])
        ends = compared
        rollouts = max(1, min(self.rollouts, self.budget // (len(pairs) * board.stock)))
        orders: dict[int, list[tuple[int, ...]]] = {}
        for rank in ranks:  # the same shuffles of the rest for every chain that follows a turned ``rank``
            rest = [r for r in range(1, 14) for _ in range(unseen[r] - (r == rank))]
            orders[rank] = []
            for _ in range(rollouts):
                self.rng.shuffle(rest)
                orders[rank].append(tuple(rest))
        values: dict[tuple[Code, int], float] = {}

        def value(after: Code, rank: int) -> float:
            """The mean reward of rollouts from ``after``, ``rank`` just turned and played on."""
            found = values.get((after, rank))
            if found is None:
                left = list(unseen)
                left[rank] -= 1
                if chains.hopeless(after, left):
                    found = _reward(cards_left(after))
                else:
                    found = sum(self._rollout(chains, after, left, order) for order in orders[rank]) / rollouts
                values[(after, rank)] = found
            return found

        best, best_value = ends[0], -1.0
        for end in ends:
            expected = sum(unseen[rank] * max(value(after, rank) for after in nexts[end, rank]) for rank in ranks)
            if expected > best_value:
                best, best_value = end, expected
        return best

    @staticmethod
    def _rollout(chains: _Chains, code: Code, unseen: list[int], order: tuple[int, ...]) -> float:
        """The reward of one game from ``code`` (before a turn) with the stock turned in ``order``: each chain
        is the first in :meth:`_Chains.choices` order (by merit) that the stock still unturned may clear (else
        the first)."""
        known_choices, choices = chains.known_choices, chains.choices
        known_needs, needs = chains.known_needs, chains.needs
        left = list(unseen)
        odd = sum(left[rank] for rank in range(1, 14, 2))
        even = sum(left[rank] for rank in range(2, 14, 2))
        gone = 1 | 1 << 14  # ranks (one bit each) with no card left in the stock; 0 and 14 never have any
        for rank in range(1, 14):
            if not left[rank]:
                gone |= 1 << rank
        for rank in order:
            if not code:
                return 1.0
            left[rank] -= 1
            if _ODD >> rank & 1:
                odd -= 1
            else:
                even -= 1
            if not left[rank]:
                gone |= 1 << rank
            options = known_choices.get(code << 4 | rank) or choices(code, rank)
            code = options[0]
            if len(options) > 1:
                dead = gone << 1 & gone >> 1  # ranks whose neighbours are both gone from the stock
                for end in options:
                    balance, kings, aces, needy, _ = known_needs.get(end) or needs(end)
                    if (
                        (balance > even if balance > 0 else -balance > odd)
                        or kings > left[12]
                        or aces > left[2]
                        or needy & dead
                    ):
                        continue
                    code = end
                    break
        return _reward(cards_left(code))


CEILING_EXACT = True  # the ceiling is the exact best score


def ceiling(state: GolfState) -> Score | None:
    """The fewest cards a player who sees the stock can leave in the piles: exact."""
    return fewest(state).score
