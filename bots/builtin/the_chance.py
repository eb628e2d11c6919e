"""The built-in bots' play for The Chance (Klondike turning three, lay-offs automatic).

What a player sees: every card but the face-down column cards and the stock's order. After one
pass through the stock every stock card has been seen in the waste, and a turnover makes the stock
the waste in turning order, so a player who remembers knows the stock from then on. Both bots
remember it (:class:`_Memory`) and draw their worlds accordingly: the cards not yet seen go
uniformly into the face-down places and the stock places not yet known.

The game ends only after a whole pass of the stock in which no card moved (the deal counts as
one: the first pass must move a card). Any card move starts the count again, so a player may go
round the stock as long as some card moves in between; both bots use that, making a harmless card
move to a position not seen before rather than let the game end (:func:`_keep_going`).

The search works on "macro moves" (:func:`children`): a card move now (waste to column, column to
column), or some turns of the stock followed by playing the waste's new top card to a column, or
the turns up to the first one that lays a card off. Turning that achieves nothing is never a node,
so a line of play is a few dozen macro moves rather than hundreds of turns. Useless moves are
pruned: a king-headed column that lies on no face-down card moved to an empty column, and a part
of a column's sequence moved unless a card goes to a foundation or the card it uncovers can take a
card in play (face up elsewhere, in the stock or the waste). Positions are judged by
:func:`worth`: cards home, less 0.6 a face-down card and 0.05 a card in the stock or waste, plus
what a win adds to the score, all in foundation cards.

- :class:`Greedy` looks one move ahead: it applies each legal move to one world drawn from the view
  and takes the move that raises :func:`judge` most, to a position not seen before; once it knows
  the stock, turning to a card and playing it counts as one move (a macro move that starts with a
  turn). :func:`judge` weighs what :func:`worth` does (cards home, face-down cards, talon cards),
  a king above face-down cards (it needs an empty column) and an empty column such a king can take,
  and, the stock known, the cards the next pass will turn up that fit a column or go home. With
  nothing gaining, it turns the stock, or keeps the game going as above, or concedes.
- :class:`Search` is determinized search (perfect-information Monte Carlo): it draws worlds from
  the view and its memory (:attr:`Search.settings`: 8 a move, 4 under ``any``); in each, every
  macro move from the position gets its own depth-first search (best child first, an equal share of
  300 expanded positions, 150 under ``any``); a first move is worth the best position found after
  it, and the bot plays the card move with the best mean over the worlds, or turns the stock if
  turning is better on the mean and in most worlds (a turn buries the waste's top card on the
  promise of cards not yet seen). When no move gains anything it turns on without searching again
  until something changes, and keeps the game going at most :attr:`Search.restarts` times. With
  nothing hidden it searches one world.
- :func:`ceiling` sees every card: a depth-first search over macro moves (best child first, at
  most :data:`CEILING_NODES` expanded positions), and if that neither wins nor finishes, the search
  bot's own play with the real state as its one world; the better score. A lower bound on the best
  reachable score, exact when it is a win or the depth-first search finished.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from parlour.bots.arena import MAX_MOVES
from parlour.bots.base import Bot, Turn
from parlour.games import CONCEDE, Ending, Move, Score
from parlour.games.cards import KING, RANK, TEXT
from parlour.games.the_chance import ACCEPTS, COLUMNS, THE_CHANCE, TURN, WASTE_MOVES, ChanceState

_CARD = {TEXT[c]: c for c in range(52)}
# What a win is worth beyond its 52 cards, in foundation cards: the score of a won game, less the
# score of a lost one with 52 cards, divided by what one card adds to a lost game's score.
WIN_BONUS = {"any": 0.0, "alternate": 42.0, "suit": 141.0}
CEILING_NODES = 30_000

# Weights of the heuristic, in foundation cards.
W_DOWN = 0.6  # a face-down card
W_TALON = 0.05  # a card in the stock or the waste


def worth(state: ChanceState) -> float:
    """How good ``state`` is, in foundation cards: the cards home, less what still stands in the way.

    Reads only what the player sees (counts of hidden cards, never their faces), so it can judge a
    drawn world without favouring what the draw happened to put face down.
    """
    found = state.found
    n = found[0] + found[1] + found[2] + found[3]
    if n == 52:
        return 52.0 + WIN_BONUS[state.options["sequence"]]  # type: ignore[index]
    down = sum(map(len, state.down))
    return n - W_DOWN * down - W_TALON * (len(state.stock) + len(state.waste))


# Weights of the greedy bot's judgement (:func:`judge`), in foundation cards.
GREEDY: dict[str, float] = {
    "down": 0.6,  # a face-down card
    "talon": 0.05,  # a card in the stock or the waste
    "king": 0.2,  # a king heading the face-up cards of a column that has face-down cards (it needs an empty column)
    "empty": 0.3,  # an empty column, as long as such a king waits for it
    "reach": 0.03,  # a card the next pass turns up that fits a column or goes home (the stock known)
}


def judge(state: ChanceState, known: bool = False, w: Mapping[str, float] = GREEDY) -> float:
    """The greedy bot's judgement of ``state``, in foundation cards: :func:`worth`'s cards home, face-down
    cards and talon, plus the empty columns kings wait for and, ``known`` (the stock's order is known),
    what the next pass through the stock will offer.

    "Reach" counts the cards the next pass shows on top of the waste (every third card of the talon
    from its start, and its last) that would go home or onto a column as the columns are now. Its
    weight is below a talon card's, so playing a card from the waste always gains; between moves
    that gain alike it prefers the one that leaves the next pass something to play.
    """
    found = state.found
    n = found[0] + found[1] + found[2] + found[3]
    if n == 52:
        return 52.0 + WIN_BONUS[state.options["sequence"]]  # type: ignore[index]
    value = n - w["talon"] * (len(state.stock) + len(state.waste))
    ups = state.up
    empty = sum(not u for u in ups)
    waiting = 0  # kings above face-down cards
    for i, down in enumerate(state.down):
        if down:
            value -= w["down"] * len(down)
            if RANK[ups[i][0]] == KING:
                waiting += 1
    value += w["empty"] * min(empty, waiting) - w["king"] * waiting
    if known:
        accepts = ACCEPTS[state.options["sequence"]]  # type: ignore[index]
        talon = state.waste + state.stock
        tops = [u[-1] for u in ups if u]
        fit = 0
        for p in range(2, len(talon) + 2, 3):
            card = talon[min(p, len(talon) - 1)]
            home = card % 13 == found[card // 13]
            if home or (RANK[card] == KING and empty) or any(card in accepts[t] for t in tops):
                fit += 1
        value += w["reach"] * fit
    return value


def _key(state: ChanceState) -> tuple[Any, ...]:
    return (state.up, state.down, state.waste, state.stock, state.idle)


def _seen_key(state: ChanceState) -> tuple[Any, ...]:
    """The position as the player sees it (the idle counter aside)."""
    return (state.up, state.waste, len(state.stock), tuple(len(d) for d in state.down))


def children(state: ChanceState) -> list[tuple[Move, ChanceState]]:
    """The macro moves from ``state``: (the first move to make, the position reached).

    Card moves now; then the waste's top card after each further turn of the stock (turning stops
    at the first turn that lays a card off, which is a macro move of its own, and before the turn
    that would end the game).
    """
    if state.ended is not None:
        return []
    accepts = ACCEPTS[state.options["sequence"]]  # type: ignore[index]
    apply = THE_CHANCE.apply
    out: list[tuple[Move, ChanceState]] = []
    found = state.found
    in_play: set[int] | None = None
    for move in THE_CHANCE.legal_moves(state):
        if move.kind == "turn":
            continue
        if move.count:
            src = int(move.src[1:]) - 1
            col = state.up[src]
            if move.count == len(col):
                if not state.down[src] and not state.up[int(move.dst[1:]) - 1]:
                    continue  # a king-headed column moved to an empty column changes nothing
            else:
                child = apply(state, move)
                if child.found == found:
                    if in_play is None:
                        in_play = set(state.stock)
                        in_play.update(state.waste)
                        for i, u in enumerate(state.up):
                            if i != src:
                                in_play.update(u)
                    if not (accepts[col[-move.count - 1]] & in_play):
                        continue
                out.append((move, child))
                continue
        out.append((move, apply(state, move)))
    # Turning: the waste tops reachable by turning, before the game would end. The stock and the
    # waste are one sequence, the waste its first p cards; turning moves p on by three, a
    # turnover sets it back to 0 and counts one more idle turnover.
    tops = [u[-1] if u else -1 for u in state.up]
    talon = state.waste + state.stock
    size = len(talon)
    p = len(state.waste)
    idle = state.idle
    while size:
        if p < size:
            before = p, idle
            p = min(p + 3, size)
        else:
            p = 0
            idle += 1
            if idle >= 2:
                break
            continue
        card = talon[p - 1]
        if card % 13 == found[card // 13]:
            q, i = before
            s = ChanceState(state.options, state.down, state.up, found, talon[q:], talon[:q], i)
            out.append((TURN, apply(s, TURN)))
            break
        for k in range(COLUMNS):
            top = tops[k]
            if (card in accepts[top]) if top >= 0 else RANK[card] == KING:
                s = ChanceState(state.options, state.down, state.up, found, talon[p:], talon[:p], idle)
                out.append((TURN, apply(s, WASTE_MOVES[k])))
        if p == len(state.waste) and idle > state.idle:
            break  # round to where it started
    return out


def depth_first(root: ChanceState, budget: int) -> dict[Move, float]:
    """For each first move, the best :func:`worth` a depth-first search finds after it (less 0.01 a step).

    Every macro move from ``root`` gets its own search, best child first, of an equal share of
    ``budget`` expanded positions (at least :data:`MIN_SHARE`), so that lines which reach the same
    position credit every first move that leads there.
    """
    kids = children(root)
    share = max(budget // max(len(kids), 1), MIN_SHARE)
    best: dict[Move, float] = {}
    for move, child in kids:
        value = _descend(child, share)
        if value > best.get(move, -1e9):
            best[move] = value
    return best


MIN_SHARE = 8


def _descend(start: ChanceState, budget: int) -> float:
    """The best :func:`worth` less 0.01 a macro move found by a depth-first search from ``start``."""
    top = worth(start) - 0.01
    if start.ended is not None:
        return top
    seen = {_key(start)}
    stack: list[tuple[ChanceState, int]] = [(start, 1)]
    expanded = 0
    while stack and expanded < budget:
        state, depth = stack.pop()
        expanded += 1
        kids = []
        for _, child in children(state):
            key = _key(child)
            if key in seen:
                continue
            seen.add(key)
            w = worth(child)
            kids.append((w, child))
            if w - 0.01 * (depth + 1) > top:
                top = w - 0.01 * (depth + 1)
                if child.ended is Ending.WON:
                    return top
        kids.sort(key=lambda k: k[0])
        stack.extend((child, depth + 1) for _, child in kids)
    return top


class _Memory:
    """The stock as far as the player knows it, next card first (``None`` where not yet seen).

    Updated from each view and the move made on the one before: turning takes the stock's first
    three cards, a turnover makes the stock the waste just seen. Anything unexpected (a view that
    does not follow) forgets what was known.
    """

    def __init__(self) -> None:
        self.stock: list[int | None] = []
        self._last: tuple[Mapping[str, Any], Move] | None = None

    def update(self, board: Mapping[str, Any]) -> None:
        if self._last is not None:
            before, move = self._last
            if move == TURN:
                if before["stock"]:
                    self.stock = self.stock[3:]
                else:
                    self.stock = [_CARD[t] for t in before["waste"]]
        if len(self.stock) != board["stock"]:
            self.stock = [None] * board["stock"]

    def made(self, board: Mapping[str, Any], move: Move) -> None:
        self._last = (board, move)


def draw(view: Mapping[str, Any], memory: _Memory, rng: Any) -> ChanceState:
    """A world consistent with ``view`` and with the stock cards ``memory`` knows."""
    state = THE_CHANCE.draw(view, rng)
    known = memory.stock
    if not any(c is not None for c in known):
        return state
    # Reshuffle: the known stock cards in their places, the rest of the hidden cards at random.
    fixed = {c for c in known if c is not None}
    loose = [c for d in state.down for c in d if c not in fixed]
    loose += [c for c in state.stock if c not in fixed]
    rng.shuffle(loose)
    at = 0
    down = []
    for d in state.down:
        down.append(tuple(loose[at : at + len(d)]))
        at += len(d)
    stock = []
    for c in known:
        if c is None:
            stock.append(loose[at])
            at += 1
        else:
            stock.append(c)
    return ChanceState(
        state.options, tuple(down), state.up, state.found, tuple(stock), state.waste, state.idle, state.ended
    )


class Greedy(Bot):
    """One move ahead in one drawn world, judged by :func:`judge`.

    It weighs the cards home, the face-down cards (0.6 a card), the cards in the stock and the waste
    (0.05), a king above face-down cards (-0.2) and an empty column while such a king waits for it
    (+0.3), and once the stock is known the cards the next pass turns up that would go home or onto
    a column (+0.03 each). Positions it has seen are not played again.
    """

    name = "greedy"
    summary = (
        "The Chance: one move ahead, weighing cards home, face-down cards, the talon, kings and the empty"
        " columns for them, and what the next pass of a known stock offers."
    )
    games = frozenset({"the-chance"})

    def __init__(self, seed: int = 0) -> None:
        super().__init__(seed)
        self.memory = _Memory()
        self.visited: set[tuple[Any, ...]] = set()

    def choose(self, turn: Turn) -> Move:
        board = turn.view["board"]
        self.memory.update(board)
        move = self._pick(turn)
        self.memory.made(board, move)
        return move

    def _pick(self, turn: Turn) -> Move:
        world = draw(turn.view, self.memory, self.rng)
        self.visited.add(_seen_key(world))
        known = None not in self.memory.stock
        here = judge(world, known)
        options = [(move, THE_CHANCE.apply(world, move)) for move in turn.moves if move != TURN]
        if known:
            # The stock is known: a run of turns and the card then played count as one move.
            options += [(move, after) for move, after in children(world) if move == TURN]
        best, chosen, neutral = 0.0, None, []
        for move, after in options:
            if _seen_key(after) in self.visited:
                continue
            gain = judge(after, known) - here
            if gain > best + 1e-9:
                best, chosen = gain, move
            elif gain > -1e-9 and move != TURN:
                neutral.append(move)
        if chosen is not None:
            return chosen
        return _keep_going(world, turn, neutral, self.rng)


def _keep_going(world: ChanceState, turn: Turn, neutral: list[Move], rng: Any) -> Move:
    """Nothing gains: turn the stock, unless that ends the game while a harmless card move is left.

    A card move between passes keeps the game going (the game ends only after a whole pass in
    which no card moved), and a new arrangement of the columns may let the next pass gain.
    """
    ends = not world.stock and world.idle >= 1
    if TURN in turn.moves and not (ends and neutral):
        return TURN
    if neutral:
        return rng.choice(neutral)
    return TURN if TURN in turn.moves else CONCEDE


class Search(Bot):
    name = "search"
    summary = "The Chance: depth-first search over macro moves in several drawn worlds, remembering the stock."
    games = frozenset({"the-chance"})

    # For each sequence rule: the worlds drawn per move, and the positions expanded in each. Under
    # "any" moves are many (each search costs more) and easy (a shallower search does as well).
    settings: ClassVar[dict[str, tuple[int, int]]] = {"any": (4, 150), "alternate": (8, 300), "suit": (8, 300)}
    restarts = 40  # card moves made only to keep the game going, at most, per game

    def __init__(self, seed: int = 0) -> None:
        super().__init__(seed)
        self.memory = _Memory()
        self.visited: set[tuple[Any, ...]] = set()
        self.barren: tuple[Any, ...] | None = None  # a position whose search found nothing to gain

    def choose(self, turn: Turn) -> Move:
        board = turn.view["board"]
        self.memory.update(board)
        move = self._pick(turn)
        self.memory.made(board, move)
        return move

    def _world(self, turn: Turn) -> ChanceState:
        """A world to search: drawn from the view and the memory."""
        return draw(turn.view, self.memory, self.rng)

    def _pick(self, turn: Turn) -> Move:
        world = self._world(turn)
        self.visited.add(_seen_key(world))
        if len(turn.moves) == 1:
            return turn.moves[0]
        # Turning on from a position where nothing was found turns up no new card: nothing to find.
        unknown = sum(c is None for c in self.memory.stock)
        sig = (world.up, world.found, unknown, frozenset(world.stock + world.waste))
        if sig != self.barren:
            move = self._search(turn, world)
            if move is not None:
                self.barren = None
                return move
            self.barren = sig
        neutral: list[Move] = []
        if self.restarts > 0 and not world.stock and world.idle >= 1:
            here = worth(world)
            for move in turn.moves:
                if move != TURN:
                    after = THE_CHANCE.apply(world, move)
                    if worth(after) >= here - 1e-9 and _seen_key(after) not in self.visited:
                        neutral.append(move)
        move = _keep_going(world, turn, neutral, self.rng)
        if move != TURN:
            self.restarts -= 1
            self.barren = None
        return move

    def _search(self, turn: Turn, first: ChanceState) -> Move | None:
        """The best move by the mean over the worlds, or ``None`` if none gains anything."""
        worlds, budget = self.settings[first.options["sequence"]]  # type: ignore[index]
        hidden = sum(len(d) for d in first.down) + sum(c is None for c in self.memory.stock)
        n = worlds if hidden > 1 else 1
        values: list[dict[Move, float]] = []
        here = 0.0
        for i in range(n):
            world = first if i == 0 else self._world(turn)
            here += worth(world)
            values.append(depth_first(world, budget))
        totals: dict[Move, float] = {}
        for found in values:
            for move, value in found.items():
                totals[move] = totals.get(move, 0.0) + value
        turning = totals.pop(TURN, None)
        for move, total in sorted(totals.items(), key=lambda item: -item[1]):
            if total <= here + 1e-6:
                break
            if _seen_key(THE_CHANCE.apply(first, move)) not in self.visited:
                # A turn buries the waste's top card and counts towards the end of the game, on the
                # promise of cards not yet seen; one lucky world must not outweigh a sure card move.
                # So the turn goes first only if it is better on the mean and in most worlds.
                if turning is not None and turning > total + 1e-6:
                    ahead = sum(found.get(TURN, -1e9) > found.get(move, -1e9) + 1e-6 for found in values)
                    if 2 * ahead > n:
                        return TURN
                return move
        if turning is not None and turning > here + 1e-6:
            return TURN
        return None


class _Clairvoyant(Search):
    """The search bot's play seeing every card: its one world is the real state (for :func:`ceiling`)."""

    settings: ClassVar[dict[str, tuple[int, int]]] = {rule: (1, nodes) for rule, (_, nodes) in Search.settings.items()}

    def __init__(self, state: ChanceState) -> None:
        super().__init__(0)
        self.state = state

    def _world(self, turn: Turn) -> ChanceState:
        return self.state


CEILING_EXACT = False  # the ceiling is a reachable score, a lower bound on the best


def ceiling(state: ChanceState, nodes: int = CEILING_NODES) -> Score | None:
    """The best score reachable from ``state`` seeing every card, as far as two searches find.

    First a depth-first search over macro moves, best child first by :func:`worth`, every position
    searched once, for at most ``nodes`` expansions; exact when it wins or runs out of positions.
    If it does neither, the search bot's own play seeing every card (its one world the real
    state) is tried too. The better score is returned: a lower bound on the true ceiling, and the
    true ceiling whenever the deal is won.
    """
    best = state
    seen = {_key(state)}
    stack = [state]
    expanded = 0
    while stack and expanded < nodes and best.ended is not Ending.WON:
        s = stack.pop()
        expanded += 1
        kids = []
        for _, child in children(s):
            key = _key(child)
            if key in seen:
                continue
            seen.add(key)
            if sum(child.found) > sum(best.found):
                best = child
            kids.append((worth(child), child))
        kids.sort(key=lambda k: k[0])
        stack.extend(child for _, child in kids)
    if stack and best.ended is not Ending.WON:
        played = _play_seeing(state)
        if sum(played.found) > sum(best.found):
            best = played
    return THE_CHANCE.score(best)


def _play_seeing(state: ChanceState) -> ChanceState:
    """Where :class:`_Clairvoyant` takes ``state`` (within :data:`MAX_MOVES` moves)."""
    bot = _Clairvoyant(state)
    for seq in range(MAX_MOVES):
        if state.ended is not None:
            break
        bot.state = state
        state = THE_CHANCE.apply(state, bot.choose(Turn.of(THE_CHANCE.view(state, "player"), seq)))
    return state
