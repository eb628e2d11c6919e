"""The Chance's built-in bots: whole deals with legal moves only, deterministic, memory and ceiling sane."""

from __future__ import annotations

import random
from typing import ClassVar

import pytest

from parlour.bots.arena import play
from parlour.bots.base import Bot
from parlour.bots.builtin import the_chance
from parlour.games import Ending, Move, get_game
from parlour.games.the_chance import TURN
from tests.bots.recording import recorded

CHANCE = get_game("the-chance")
OPTIONS = [{"sequence": rule} for rule in ("alternate", "any", "suit")]


class Quick(the_chance.Search):
    """The search bot with a small budget, so that whole deals play in a test's time."""

    settings: ClassVar[dict[str, tuple[int, int]]] = {"any": (2, 20), "alternate": (2, 20), "suit": (2, 20)}
    restarts = 3


def played_moves(bot: Bot, seed: int, options: dict[str, str], max_moves: int = 3000) -> tuple[Ending, list[Move]]:
    played, moves = recorded(bot, CHANCE, seed, options, max_moves)
    return played.ending, moves


@pytest.mark.parametrize("options", OPTIONS, ids=lambda o: o["sequence"])
@pytest.mark.parametrize("bot_class", [the_chance.Greedy, Quick])
def test_bots_play_whole_deals_with_legal_moves_and_the_same_moves_for_a_seed(
    bot_class: type[Bot], options: dict[str, str]
) -> None:
    ending, moves = played_moves(bot_class(1), 1, options)
    assert ending in (Ending.WON, Ending.STUCK, Ending.CONCEDED)
    assert played_moves(bot_class(1), 1, options) == (ending, moves)


def test_the_search_bot_as_configured_is_deterministic_for_a_seed() -> None:
    options = {"sequence": "alternate"}
    first = played_moves(the_chance.Search(3), 3, options, max_moves=15)
    assert len(first[1]) == 15
    assert first == played_moves(the_chance.Search(3), 3, options, max_moves=15)


def test_after_a_pass_the_bots_know_the_stock_in_order_and_draw_it() -> None:
    state = CHANCE.deal(11, {"sequence": "suit"})
    memory = the_chance._Memory()
    for _ in range(20):
        view = CHANCE.view(state, "player")
        memory.update(view["board"])
        if state.stock == () and state.waste:
            break
        memory.made(view["board"], TURN)
        state = CHANCE.apply(state, TURN)
    assert memory.stock == [] and state.waste  # the whole stock went through the waste
    memory.made(CHANCE.view(state, "player")["board"], TURN)
    state = CHANCE.apply(state, TURN)  # the turnover (a card was laid off on the way, or it ends the game)
    view = CHANCE.view(state, "player")
    memory.update(view["board"])
    assert memory.stock == list(state.stock)
    rng = random.Random(1)
    for _ in range(5):
        world = the_chance.draw(view, memory, rng)
        assert world.stock == state.stock
        assert CHANCE.view(world, "player") == view


def test_before_the_stock_is_seen_the_draws_vary_it() -> None:
    view = CHANCE.view(CHANCE.deal(12), "player")
    memory = the_chance._Memory()
    memory.update(view["board"])
    rng = random.Random(2)
    worlds = [the_chance.draw(view, memory, rng) for _ in range(5)]
    assert len({w.stock for w in worlds}) == 5
    assert all(CHANCE.view(w, "player") == view for w in worlds)


@pytest.mark.parametrize("options", OPTIONS, ids=lambda o: o["sequence"])
def test_the_ceiling_is_at_least_what_the_bots_score(options: dict[str, str]) -> None:
    for seed in (1, 2):
        best = the_chance.ceiling(CHANCE.deal(seed, options), nodes=2000)
        assert best is not None
        for bot in (the_chance.Greedy(seed), Quick(seed)):
            assert play(bot, CHANCE, seed, options).score <= best


def test_the_ceiling_finds_a_win_that_needs_a_turn_and_a_card_played_from_the_waste() -> None:
    # Turning lays off 2C and shows 4C, which must go onto 5C to free 3C beneath it.
    layout = (
        "Foundations: AC KD KH KS\nStock: 3C 4C 2C\nWaste:\n"
        "c1: | KC QC JC TC 9C 8C 7C 6C 5C\nc2: |\nc3: |\nc4: |\nc5: |\nc6: |\nc7: |\n"
    )
    assert the_chance.ceiling(CHANCE.from_text(layout, {"sequence": "any"})) == 8  # won: (52 - 20) / 4
    # With 2C under 4C and 3C, turning shows 3C on top every time, and it goes nowhere.
    stuck = layout.replace("Stock: 3C 4C 2C", "Stock: 2C 4C 3C")
    assert the_chance.ceiling(CHANCE.from_text(stuck, {"sequence": "any"})) == 5  # lost with 40: (40 - 20) / 4


def test_the_ceiling_of_a_finished_game_is_its_score() -> None:
    state = CHANCE.end(CHANCE.deal(4, {"sequence": "suit"}), Ending.CONCEDED)
    assert the_chance.ceiling(state) == CHANCE.score(state)
