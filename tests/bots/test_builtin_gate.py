"""Gate's built-in bots: whole deals with legal moves only, deterministic for a seed, a sane ceiling."""

from __future__ import annotations

import random

import pytest

from parlour.bots.arena import play
from parlour.bots.base import Bot
from parlour.bots.builtin import gate
from parlour.games import Ending, Move, get_game
from tests.bots.recording import recorded

GATE = get_game("gate")


class Quick(gate.Search):
    """The search bot with a small budget, so that whole deals play in a test's time."""

    worlds = 2
    budget = 15


def played_moves(bot: Bot, seed: int, max_moves: int = 3000) -> tuple[Ending, int, list[Move]]:
    played, moves = recorded(bot, GATE, seed, max_moves=max_moves)
    return played.ending, int(played.score), moves


@pytest.mark.parametrize("bot_class", [gate.Greedy, Quick])
def test_bots_play_whole_deals_with_legal_moves_and_the_same_moves_for_a_seed(bot_class: type[Bot]) -> None:
    for seed in (1, 2):
        ending, score, moves = played_moves(bot_class(seed), seed)
        assert ending in (Ending.WON, Ending.STUCK, Ending.CONCEDED)
        assert 0 <= score <= 52
        assert played_moves(bot_class(seed), seed) == (ending, score, moves)


def test_the_search_bot_as_configured_is_deterministic_for_a_seed() -> None:
    first = played_moves(gate.Search(5), 5, max_moves=25)
    assert first == played_moves(gate.Search(5), 5, max_moves=25)
    assert len(first[2]) == 25


def test_different_seeds_draw_different_worlds() -> None:
    view = GATE.view(GATE.deal(9), "player")
    stocks = {GATE.draw(view, random.Random(seed)).stock for seed in range(5)}
    assert len(stocks) == 5


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_ceiling_is_at_least_what_the_bots_score(seed: int) -> None:
    best = gate.ceiling(GATE.deal(seed))
    assert best is not None and 0 <= best <= 52
    for bot in (gate.Greedy(seed), Quick(seed)):
        assert play(bot, GATE, seed).score <= best


def test_the_ceiling_finds_the_win_of_a_position_one_stock_turn_from_done() -> None:
    # Everything home but two kings: KC on the waste, KS still in the stock.
    state = GATE.from_text(
        "Stock: KS\nWaste: KC\nFoundations: QC KD KH QS\nr1:\nr2:\n" + "".join(f"t{i}:\n" for i in range(1, 9))
    )
    assert gate.ceiling(state) == 52


def test_the_ceiling_of_a_finished_game_is_its_score() -> None:
    state = GATE.end(GATE.deal(4), Ending.CONCEDED)
    assert gate.ceiling(state) == GATE.score(state) == 0
