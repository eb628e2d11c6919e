"""German Patience's built-in play: whole deals with legal moves only, the same moves for a seed, the ceiling.

Strength is measured by ``bench/bots.py``, not here: these tests check behaviour on a few deals.
"""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from parlour.bots.arena import play
from parlour.bots.base import Bot, Turn
from parlour.bots.builtin.german_patience import Greedy, Search, _beam_key, _position_of, _successors, ceiling
from parlour.games import Ending, Move, get_game
from parlour.games.german_patience import SOURCE_NAMES, GermanPatienceState
from tests.bots.recording import recorded

GP = get_game("german-patience")


def moves_of(bot: Bot, seed: int) -> list[Move]:
    """The moves ``bot`` makes on the deal of ``seed``, each one of the legal moves (or a concession)."""
    return recorded(bot, GP, seed)[1]


def test_greedy_and_search_play_whole_deals() -> None:
    for seed in (1, 2):
        for bot in (Greedy(seed), Search(seed)):
            played = play(bot, "german-patience", seed)
            assert played.ending in (Ending.WON, Ending.STUCK, Ending.CONCEDED)  # never cycling until out of time


def test_the_same_seed_gives_the_same_moves() -> None:
    assert moves_of(Search(3), 4) == moves_of(Search(3), 4)


def clubs_two_to_nine() -> GermanPatienceState:
    """Piles 2C to 9C (p1 to p8), TD on the waste, the rest of both decks in the stock in card order."""
    lines = [f"p{i}: {rank}C" for i, rank in enumerate("23456789", 1)]
    stock = [f"{r}{s}" for s in "CDHS" for r in "A23456789TJQK"] * 2
    for used in ("2C", "3C", "4C", "5C", "6C", "7C", "8C", "9C", "TD"):
        stock.remove(used)
    return GP.from_text("\n".join([f"Stock: {' '.join(stock)}", "Waste: TD", *lines]))


def test_greedy_plays_the_waste_onto_the_pile_that_wants_it() -> None:
    state = clubs_two_to_nine()
    turn = Turn.of(GP.view(state, "player"), 0)
    assert Greedy(0).choose(turn) == Move("move", "w", "p8")  # the 9C wants a ten


def test_search_empties_piles_before_it_turns() -> None:
    # Piles 2C to 9C, TD on the waste: the piles can gather into a few runs, and an empty pile takes
    # any card, so the search empties piles before it turns.
    state = clubs_two_to_nine()
    bot = Search(0)
    for seq in range(20):
        move = bot.choose(Turn.of(GP.view(state, "player"), seq))
        if move == Move("turn"):
            break
        state = GP.apply(state, move)
    else:
        raise AssertionError("the search never turned")
    assert sum(1 for pile in state.piles if not pile) >= 4


def test_ceiling_reaches_a_win_in_sight_and_beats_greedy() -> None:
    piles = [" ".join(f"{r}{'CDHS'[i % 4]}" for r in "A23456789TJQK") for i in range(8)]
    piles[0] = piles[0][:-3]  # p1 lacks its king, which lies on the waste
    state = GP.from_text("\n".join(["Stock:", "Waste: KC", *(f"p{i + 1}: {p}" for i, p in enumerate(piles))]))
    assert ceiling(state) == 104
    assert ceiling(GP.deal(1)) >= play(Greedy(1), "german-patience", 1).score


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32), plies=st.integers(0, 300))
def test_the_successors_are_the_legal_moves_with_one_empty_pile_and_where_they_lead(seed: int, plies: int) -> None:
    # After some random play, the search's steps are the game's legal moves other than the turn, except
    # that of several empty piles only the first is a destination (the others give the same position), and
    # each leads to the position the engine reaches by that move.
    rng = random.Random(seed)
    state = GP.deal(seed)
    for _ in range(plies):
        if state.ended is not None:
            break
        state = GP.apply(state, rng.choice(GP.legal_moves(state)))

    empty = [i for i, pile in enumerate(state.piles) if not pile]
    legal = {
        (SOURCE_NAMES.index(m.src), SOURCE_NAMES.index(m.dst)): _position_of(GP.apply(state, m))
        for m in GP.legal_moves(state)
        if m.kind == "move" and SOURCE_NAMES.index(m.dst) not in empty[1:]
    }
    successors = _successors(*_position_of(state))
    assert len(successors) == len(legal)
    assert dict(successors) == legal


def test_the_beam_tells_positions_apart_by_tops_and_waste_alone() -> None:
    # Two piles of tops 5 and 6: moving the 6 onto the 5 swaps the tops and changes only the lengths.
    before = (((5, 3), (6, 4), (0, 0), (9, 13), (1, 1), (2, 2), (3, 3), (4, 4)), (7, 12))
    after = (((6, 4), (5, 3), (0, 0), (9, 13), (1, 1), (2, 2), (3, 3), (4, 4)), (7, 12))
    shorter = (((5, 3), (6, 5), (0, 0), (9, 13), (1, 1), (2, 2), (3, 3), (4, 3)), (7, 12))
    assert _beam_key(before) == _beam_key(after) == _beam_key(shorter)
    assert _beam_key(before) != _beam_key((before[0], (12, 7)))  # the waste's order matters
    emptied = (((5, 3), (6, 4), (0, 0), (9, 13), (0, 0), (2, 2), (3, 3), (4, 4)), (7, 12))
    assert _beam_key(before) != _beam_key(emptied)
