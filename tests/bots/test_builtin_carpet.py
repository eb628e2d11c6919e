"""Carpet's built-in play: whole deals with legal moves only, the same moves for a seed, and the ceiling.

Strength is measured by ``bench/bots.py``, not here: these tests check behaviour on a few deals.
"""

from __future__ import annotations

import random
from typing import Any

from parlour.bots.arena import play
from parlour.bots.base import Bot, Turn
from parlour.bots.builtin.carpet import Greedy, Search, ceiling, solve
from parlour.games import Ending, Move, get_game
from tests.bots.recording import recorded

CARPET = get_game("carpet")


def moves_of(bot: Bot, seed: int) -> list[Move]:
    """The moves ``bot`` makes on the deal of ``seed``, each one of the legal moves."""
    return recorded(bot, CARPET, seed, may_concede=False)[1]


def plain_best(state: Any) -> int:
    """The most cards on the foundations any sequence of legal moves reaches: try them all.

    Positions that differ only in which cells hold which cards count once (no rule looks at a
    cell's place).
    """
    seen: set[tuple[Any, ...]] = set()
    best = CARPET.score(state)
    todo = [state]
    while todo:
        here = todo.pop()
        key = (here.foundations, tuple(sorted(here.carpet)), here.deck, here.discard)
        if key in seen:
            continue
        seen.add(key)
        best = max(best, CARPET.score(here))
        todo += [CARPET.apply(here, move) for move in CARPET.legal_moves(here)]
    return int(best)


def late(seed: int) -> Any:
    """The deal of ``seed`` after random moves, until at most four cards are left to deal."""
    rng = random.Random(seed)
    state = CARPET.deal(seed)
    while state.ended is None and len(state.deck) > 4:
        state = CARPET.apply(state, rng.choice(CARPET.legal_moves(state)))
    return state


def test_greedy_and_search_play_whole_deals() -> None:
    for seed in (1, 2, 3):
        for bot in (Greedy(seed), Search(seed, samples=3)):
            played = play(bot, "carpet", seed)
            assert played.ending in (Ending.WON, Ending.STUCK)


def test_the_same_seed_gives_the_same_moves() -> None:
    assert moves_of(Search(7, samples=3), 4) == moves_of(Search(7, samples=3), 4)


def test_both_bots_take_a_foundation_move_before_dealing() -> None:
    turn = Turn.of(CARPET.view(CARPET.deal(0), "player"), 0)  # three 2s on the carpet, and the deck
    assert Move("deal") in turn.moves
    assert Greedy(0).choose(turn).dst == "f"
    assert Search(0).choose(turn).dst == "f"


def test_solver_equals_plain_search_on_late_positions() -> None:
    results = []
    for seed in range(12):
        state = late(seed)
        assert solve(state).best == plain_best(state) == ceiling(state), f"seed {seed}"
        results.append(solve(state).best)
    assert len(set(results)) > 1


def test_ceiling_is_at_least_what_the_bots_score() -> None:
    for seed in (0, 1, 5):
        best = ceiling(CARPET.deal(seed))
        assert best >= play(Search(seed, samples=3), "carpet", seed).score
        assert best >= play(Greedy(seed), "carpet", seed).score
