"""Golf's built-in play: whole deals with legal moves only, the same moves for a seed, and the ceiling.

Strength is measured by ``bench/bots.py``, not here: these tests check behaviour on a few deals.
"""

from __future__ import annotations

from parlour.bots.arena import play
from parlour.bots.base import Bot, Turn
from parlour.bots.builtin.golf import Greedy, Search, ceiling
from parlour.bots.ceiling import ceiling as ceiling_of
from parlour.games import Ending, Move, get_game
from parlour.games.golf_solver import solve
from tests.bots.recording import recorded

GOLF = get_game("golf")
SEEDS = (1, 2, 3)


def moves_of(bot: Bot, seed: int) -> list[Move]:
    """The moves ``bot`` makes on the deal of ``seed``, each one of the legal moves."""
    return recorded(bot, GOLF, seed, may_concede=False)[1]


def test_greedy_and_search_play_whole_deals() -> None:
    for seed in SEEDS:
        for bot in (Greedy(seed), Search(seed, rollouts=4)):
            played = play(bot, "golf", seed)
            assert played.ending in (Ending.WON, Ending.STUCK)
            assert played.moves >= 16  # every stock card is turned unless the deal is won first


def test_the_same_seed_gives_the_same_moves() -> None:
    assert moves_of(Search(5, rollouts=4), 4) == moves_of(Search(5, rollouts=4), 4)
    assert moves_of(Greedy(5), 4) == moves_of(Greedy(5), 4)


def test_greedy_prefers_a_play_to_a_turn() -> None:
    state = GOLF.from_text("Talon: 2C 3C\nFoundations: 5S\n4H\nKD\n:\n:\n:\n:\n:\n")
    turn = Turn.of(GOLF.view(state, "player"), 0)
    assert Greedy(0).choose(turn) == Move("play", "p1")


def test_search_keeps_the_card_the_last_stock_card_needs() -> None:
    # 3H and 5D can each follow the 4S, but not both; the stock's last card is the 2C,
    # which only the 3H can follow. Playing 5D now and 3H after the turn wins.
    board = GOLF.from_text("Talon: 2C\nFoundations: 4S\n3H\n5D\n:\n:\n:\n:\n:\n")
    endings = []
    for bot in (Search(0, rollouts=4), Greedy(0)):
        state = board
        while state.ended is None:
            state = GOLF.apply(state, bot.choose(Turn.of(GOLF.view(state, "player"), 0)))
        endings.append(state.ended)
    assert endings == [Ending.WON, Ending.STUCK]  # greedy plays the 3H first


def test_ceiling_agrees_with_the_solver_and_beats_the_bots() -> None:
    for seed in (1, 3, 4, 7):  # two won, two lost; each solves in a fraction of a second
        state = GOLF.deal(seed)
        best = ceiling(state)
        assert best == ceiling_of(GOLF, state)
        assert (best == 0) == solve(state).winnable
        assert best <= play(Search(seed, rollouts=4), "golf", seed).score
        assert best <= play(Greedy(seed), "golf", seed).score
