"""Gaps' built-in bots: whole deals with legal moves only, deterministic, a deal searched to its best."""

from __future__ import annotations

import dataclasses

import pytest

from parlour.bots.arena import play
from parlour.bots.base import Bot, Turn
from parlour.bots.builtin import gaps
from parlour.games import Ending, Move, get_game
from parlour.games.gaps import FILL, GapsState
from tests.bots.recording import recorded

GAPS = get_game("gaps")
# No gap can be filled (a5 right of KH, b4 right of KC, b5 right of a gap, c13 right of KD).
STUCK = """\
2C 3C 4C KH -- 5C 6C 7C 8C 9C TC JC QC
2D 3D KC -- -- 4D 5D 6D 7D 8D 9D TD JD
2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KD --
2S 3S 4S 5S 6S 7S 8S 9S TS JS QS QD KS
"""


def moves_of(bot_class: type[Bot], seed: int) -> list[Move]:
    return recorded(bot_class(seed), GAPS, seed)[1]


@pytest.mark.parametrize("bot_class", [gaps.Greedy, gaps.Search])
def test_bots_play_whole_deals_with_legal_moves_and_the_same_moves_for_a_seed(bot_class: type[Bot]) -> None:
    for seed in (1, 2):
        played = play(bot_class(seed), GAPS, seed)
        assert played.ending in (Ending.WON, Ending.STUCK)
        assert moves_of(bot_class, seed) == moves_of(bot_class, seed)


def best_by_plain_search(state: GapsState) -> int:
    """The most cards secured at any stuck position reachable by fills: every position, no pruning."""
    seen = {state.cells}
    stack = [state]
    best = 0
    while stack:
        at = stack.pop()
        moves = [m for m in GAPS.legal_moves(at) if m.kind == "fill"]
        if not moves:
            best = max(best, gaps.secured(at.cells))
        for move in moves:
            after = GAPS.apply(at, move)
            if after.cells not in seen:
                seen.add(after.cells)
                stack.append(after)
    return best


@pytest.mark.parametrize("seed", [8, 5])
def test_search_deal_finds_the_best_stuck_position_and_its_lines_replay(seed: int) -> None:
    state = GAPS.deal(seed)
    found = gaps.search_deal(state.cells, 100_000, keep=3)
    assert found.complete
    assert found.ends[0].score == best_by_plain_search(state)
    for end in found.ends:
        at = state
        for g in end.line:
            at = GAPS.apply(at, FILL[g])
        assert at.cells == end.cells and gaps.secured(at.cells) == end.score
        assert not [m for m in GAPS.legal_moves(at) if m.kind == "fill"]


def test_search_with_no_redeal_left_reaches_the_best_stuck_position() -> None:
    state = dataclasses.replace(GAPS.deal(5), redeals=2)
    best = best_by_plain_search(state)
    bot = gaps.Search(0)
    while state.ended is None:
        state = GAPS.apply(state, bot.choose(Turn.of(GAPS.view(state, "player"), 0)))
    assert GAPS.score(state) == best


def test_greedy_fills_the_gap_that_secures_a_card() -> None:
    # Row a: 2C 3C then a gap that takes 4C; the gap at b8 (right of 7D) takes 8D and secures nothing.
    state = GAPS.from_text(
        "2C 3C -- 5C 6C 7C 8C 9C TC JC QC KC 4D\n"
        "2D 3D 5D 6D 4C JD QD 7D -- 9D TD KD --\n"
        "2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH 8D\n"
        "2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS --\n"
    )
    turn = Turn.of(GAPS.view(state, "player"), 0)
    assert set(turn.moves) == {Move("fill", "a3"), Move("fill", "b9")}
    assert gaps.Greedy(0).choose(turn) == Move("fill", "a3")


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_ceiling_is_at_least_what_the_bots_score(seed: int) -> None:
    top = gaps.ceiling(GAPS.deal(seed))
    assert 4 <= top <= 48
    assert top >= play(gaps.Search(seed), GAPS, seed).score
    assert top >= play(gaps.Greedy(seed), GAPS, seed).score


def test_the_ceiling_sees_the_seed_of_the_redeals() -> None:
    # Stuck with a redeal left: the ceiling redeals with the state's own seed, so it depends on it.
    stuck = GAPS.from_text("Seed: 1\n" + STUCK)
    assert GAPS.legal_moves(stuck) == [Move("redeal")]
    tops = {gaps.ceiling(dataclasses.replace(stuck, seed=seed)) for seed in range(8)}
    assert len(tops) > 1
