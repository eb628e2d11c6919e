"""Chris-Cross Pairs' built-in bots: whole deals with legal moves only, deterministic, and the ceiling."""

from __future__ import annotations

import pytest

from parlour.bots.arena import play
from parlour.bots.base import Bot, Turn
from parlour.bots.builtin import chris_cross_pairs as ccp
from parlour.games import Ending, Move, get_game
from tests.bots.recording import Recording, recorded

GAME = get_game("chris-cross-pairs")
# Two rounds from the end: the grid's two kings pair in column a; the stock's last two cards, the
# queens, fill a1 and a2 once the kings are gone.
NEAR_THE_END = """\
Stock: QD QS
KD .. .. .. ..
KS .. .. .. ..
.. .. .. .. ..
.. .. .. .. ..
.. .. .. .. ..
"""


def moves_of(bot: Bot, seed: int) -> list[Move]:
    return recorded(bot, GAME, seed)[1]


@pytest.mark.parametrize(("make", "seed"), [(ccp.Greedy, 1), (ccp.Greedy, 2), (ccp.Search, 5), (ccp.Search, 10)])
def test_bots_play_whole_deals_with_legal_moves_and_the_same_moves_for_a_seed(make: type[Bot], seed: int) -> None:
    first = Recording(make(seed))
    played = play(first, GAME, seed)
    assert played.ending in (Ending.WON, Ending.LOST)
    assert first.moves == moves_of(make(seed), seed)


def test_greedy_casts_rather_than_settling_early() -> None:
    state = GAME.from_text("Stock:\nKD QD .. .. ..\nKS QS .. .. ..\n.. .. .. .. ..\n.. .. .. .. ..\n.. .. .. .. ..\n")
    state = GAME.apply(state, Move("cast", "a1", "a2"))  # the kings; the queens in column b remain
    turn = Turn.of(GAME.view(state, "player"), 1)
    assert Move("settle") in turn.moves
    assert ccp.Greedy(0).choose(turn) == Move("cast", "b1", "b2")


# The stock is empty and 14 cards are left (the deal of seed 10, played greedily): a win is there, but
# Greedy misses it.
ENDGAME = """\
Round: 4
Stock:
QS 5H 8C .. ..
5C JC QH .. ..
TS TD 8D .. ..
4C JD .. .. ..
3S 4D 3H .. ..
"""


def finish(bot: Bot, text: str) -> int:
    state = GAME.from_text(text)
    while state.ended is None:
        state = GAME.apply(state, bot.choose(Turn.of(GAME.view(state, "player"), 0)))
    return int(GAME.score(state))


def test_search_solves_the_endgame_once_the_stock_is_empty() -> None:
    assert finish(ccp.Greedy(0), ENDGAME) < 52
    assert finish(ccp.Search(0), ENDGAME) == 52
    assert finish(ccp.Search(0), NEAR_THE_END) == 52


def test_the_ceiling_of_a_deal_with_no_pair_is_0_and_of_a_won_endgame_52() -> None:
    no_pair = GAME.deal(50)  # the deal's grid holds no pair in a column or full diagonal: lost at once
    assert no_pair.ended is Ending.LOST and ccp.ceiling(no_pair) == 0
    assert ccp.ceiling(GAME.from_text(NEAR_THE_END)) == 52


@pytest.mark.parametrize("seed", [3, 10])
def test_the_ceiling_is_at_least_what_the_bots_score(seed: int) -> None:
    top = ccp.ceiling(GAME.deal(seed))
    assert 0 <= top <= 52
    assert top >= play(ccp.Search(seed), GAME, seed).score
    assert top >= play(ccp.Greedy(seed), GAME, seed).score


@pytest.mark.parametrize("seed", [0, 5, 13, 15, 18, 19, 26])  # endgames plain search handles fast; some lost
def test_the_exact_search_agrees_with_plain_search_on_endgames(seed: int) -> None:
    state = GAME.deal(seed)
    while state.ended is None and state.stock:  # played greedily until the stock is empty
        state = GAME.apply(state, ccp._greedy_move(state, GAME.legal_moves(state)))
    assert state.ended is None
    score, exact = ccp._Solver().best(state, 100_000)
    assert exact and score == plain_best(state)


def plain_best(state: ccp.ChrisCrossState, known: dict[str, int] | None = None) -> int:
    """The most cards cast out from ``state`` by trying every line of moves (each position once)."""
    known = {} if known is None else known
    if state.ended is not None:
        return len(state.waste)
    key = GAME.state_hash(state)
    if key not in known:
        known[key] = max(plain_best(GAME.apply(state, move), known) for move in GAME.legal_moves(state))
    return known[key]
