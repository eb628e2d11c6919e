"""Every game says whether its ceiling is exact; an exact ceiling is never beaten by a bot."""

from __future__ import annotations

import pytest

from parlour.bots.arena import play
from parlour.bots.builtin import module_for
from parlour.bots.ceiling import ceiling, ceiling_exact
from parlour.bots.greedy import GreedyBot
from parlour.games import game_names, get_game

EXACT = {"cheer", "golf", "carpet"}


@pytest.mark.parametrize("name", game_names())
def test_every_game_declares_whether_its_ceiling_is_exact(name: str) -> None:
    assert isinstance(module_for(name).CEILING_EXACT, bool)
    assert ceiling_exact(get_game(name)) is (name in EXACT)


@pytest.mark.parametrize("name", sorted(EXACT))
def test_an_exact_ceiling_is_at_least_what_greedy_scores(name: str) -> None:
    game = get_game(name)
    for seed in range(3):
        best = ceiling(game, game.deal(seed, {}))
        score = play(GreedyBot(seed), game, seed, {}).score
        assert best is not None
        assert game.better(best, score) or best == score, (seed, best, score)
