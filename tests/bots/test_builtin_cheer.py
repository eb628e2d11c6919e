"""Cheer's built-in bots: whole deals with legal moves only, deterministic, and an exact solver."""

from __future__ import annotations

import pytest

from parlour.bots.arena import play
from parlour.bots.base import Bot
from parlour.bots.builtin import cheer
from parlour.games import Ending, Move, get_game
from parlour.games.cheer import CheerState
from tests.bots.recording import recorded

CHEER = get_game("cheer")
OPTIONS = [{"win_loss": False}, {"win_loss": True}]


def moves_of(bot_class: type[Bot], seed: int, options: dict[str, bool]) -> list[Move]:
    return recorded(bot_class(seed), CHEER, seed, options)[1]


@pytest.mark.parametrize("options", OPTIONS)
@pytest.mark.parametrize("bot_class", [cheer.Greedy, cheer.Search])
def test_bots_play_whole_deals_with_legal_moves_and_the_same_moves_for_a_seed(
    bot_class: type[Bot], options: dict[str, bool]
) -> None:
    for seed in (1, 2, 3):
        played = play(bot_class(seed), CHEER, seed, options)
        assert played.ending in (Ending.WON, Ending.LOST, Ending.CONCEDED)
        assert moves_of(bot_class, seed, options) == moves_of(bot_class, seed, options)


def exhaustive_best(state: CheerState) -> int:
    """The best score by plain search over every legal move (no pruning but the symmetry of columns and
    of parking spaces), trying 0, then 1, then 2 parking spaces."""
    for limit in range(3):
        seen: set[object] = set()
        stack = [state]
        while stack:
            at = stack.pop()
            key = (sorted(at.columns), sorted(p for p in at.parking if p), at.opened.bit_count())
            if repr(key) in seen:
                continue
            seen.add(repr(key))
            if at.ended is Ending.WON:
                return CHEER.score(at)
            stack.extend(
                after
                for after in (CHEER.apply(at, m) for m in CHEER.legal_moves(at))
                if after.opened.bit_count() <= limit
            )
    return 0


@pytest.mark.parametrize(("seed", "best"), [(10, 12), (3, 10), (0, 3), (33, 0)])
def test_the_ceiling_is_the_best_score_found_by_plain_exhaustive_search(seed: int, best: int) -> None:
    state = CHEER.deal(seed)
    assert cheer.ceiling(state) == exhaustive_best(state) == best


@pytest.mark.parametrize("options", OPTIONS)
def test_search_reaches_the_ceiling_and_greedy_never_passes_it(options: dict[str, bool]) -> None:
    for seed in (10, 3, 0, 33, 5):
        top = cheer.ceiling(CHEER.deal(seed, options))
        assert play(cheer.Search(seed), CHEER, seed, options).score == top
        assert play(cheer.Greedy(seed), CHEER, seed, options).score <= top


def test_the_solvers_line_wins_opening_the_fewest_parking_spaces() -> None:
    state = CHEER.deal(3)  # winnable with one parking space, not with none
    line, proved = cheer.solve(state)
    assert proved and line is not None
    for move in line:
        state = CHEER.apply(state, move)
    assert state.ended is Ending.WON and state.opened.bit_count() == 1
    assert cheer.solve(CHEER.deal(33)) == (None, True)  # no win at all
