"""Golf: one test per ruling (named after it), hand-made layouts, every move and end."""

from __future__ import annotations

import json
import random

import pytest

from parlour.games import CONCEDE, Ending, IllegalMove, Move, get_game
from parlour.games.cards import TEXT, parse_card, standard_deck
from parlour.games.shuffle import shuffle

GOLF = get_game("golf")

# Piles bottom to top, exposed card last.
LAYOUT = """\
Talon: 6D KC KS AH AC KD 4S 8D 8H JD TC AD QH 4C JS 2C
Foundations: 5S
9D TS 5C 7D 7H
3S 6S 5D QC 7S
9S 6C 3H JC 9H
QD 7C 5H 3C QS
AS KH 2H TH TD
4H 8C 6H 2D 2S
9C 4D 8S JH 3D
"""


def board(talon: str, waste: str, piles: list[str]) -> str:
    return f"Talon: {talon}\nFoundations: {waste}\n" + "\n".join(p or ":" for p in piles) + "\n"


def test_ruling_golf_52_cards_seven_piles_of_five_and_16_stock_after_first_turn() -> None:
    state = GOLF.deal(2024)
    assert [len(p) for p in state.piles] == [5] * 7
    assert len(state.stock) == 16 and len(state.waste) == 1
    assert sorted(GOLF.cards(state)) == list(range(52))


def test_ruling_golf_all_piles_face_up_only_stock_hidden() -> None:
    state = GOLF.deal(7)
    assert sorted(GOLF.hidden_cards(state)) == sorted(state.stock)
    view = GOLF.view(state)
    assert view["board"]["stock"] == 16
    assert all(len(p) == 5 for p in view["board"]["piles"])


def test_ruling_golf_pile_top_goes_on_waste_one_rank_above_or_below_suit_ignored() -> None:
    state = GOLF.from_text(board("KC", "5S", ["4H", "6D", "5C", "7S", "", "", ""]))
    assert set(GOLF.legal_moves(state)) == {Move("play", "p1"), Move("play", "p2"), Move("turn")}
    after = GOLF.apply(state, Move("play", "p2"))
    assert after.waste[-1] == parse_card("6D") and after.piles[1] == ()
    with pytest.raises(IllegalMove, match="not one rank above or below"):
        GOLF.apply(state, Move("play", "p3"))
    with pytest.raises(IllegalMove, match="empty"):
        GOLF.apply(state, Move("play", "p5"))


def test_ruling_golf_ranks_do_not_wrap() -> None:
    on_king = GOLF.from_text(board("5C", "KS", ["AH", "QD", "KD", "", "", "", ""]))
    assert set(GOLF.legal_moves(on_king)) == {Move("play", "p2"), Move("turn")}
    on_ace = GOLF.from_text(board("5C", "AS", ["KH", "2D", "AD", "", "", "", ""]))
    assert set(GOLF.legal_moves(on_ace)) == {Move("play", "p2"), Move("turn")}
    with pytest.raises(IllegalMove):
        GOLF.apply(on_ace, Move("play", "p1"))


def test_ruling_golf_stock_may_be_turned_at_any_time_no_redeal() -> None:
    state = GOLF.from_text(board("9C 2D", "5S", ["4H", "", "", "", "", "", ""]))
    assert Move("turn") in GOLF.legal_moves(state)  # even with a playable pile card
    state = GOLF.apply(state, Move("turn"))
    assert state.waste[-1] == parse_card("9C") and state.stock == (parse_card("2D"),)
    state = GOLF.apply(state, Move("turn"))
    assert state.stock == () and state.ended is Ending.STUCK
    with pytest.raises(IllegalMove, match="over"):
        GOLF.apply(state, Move("turn"))


def test_ruling_golf_no_redeal_once_the_stock_is_empty() -> None:
    state = GOLF.from_text(board("", "5S", ["4H", "KC", "", "", "", "", ""]))
    assert GOLF.legal_moves(state) == [Move("play", "p1")]
    with pytest.raises(IllegalMove, match="stock is empty"):
        GOLF.apply(state, Move("turn"))


def test_ruling_golf_over_when_tableau_empty_won() -> None:
    state = GOLF.from_text(board("KC", "5S", ["4H", "", "", "", "", "", ""]))
    state = GOLF.apply(state, Move("play", "p1"))
    assert state.ended is Ending.WON and GOLF.score(state) == 0
    assert GOLF.legal_moves(state) == []


def test_ruling_golf_over_when_stock_empty_and_no_pile_card_moves() -> None:
    state = GOLF.from_text(board("", "5S", ["9H", "KC", "", "", "", "", ""]))
    assert state.ended is Ending.STUCK and GOLF.score(state) == 2


def test_ruling_golf_score_is_cards_left_lower_is_better() -> None:
    assert GOLF.higher_is_better is False
    assert GOLF.score(GOLF.deal(1)) == 35
    assert GOLF.better(0, 3) and not GOLF.better(3, 0)
    state = GOLF.from_text(LAYOUT)
    assert GOLF.score(state) == 35


def test_ruling_golf_concede_at_any_time_scores_as_it_stands() -> None:
    state = GOLF.apply(GOLF.from_text(LAYOUT), CONCEDE)
    assert state.ended is Ending.CONCEDED and GOLF.score(state) == 35
    # Part-way through: the cards left in the piles, whether conceded or out of time.
    played = GOLF.apply(GOLF.from_text(board("KC", "5S", ["4H", "9D 6D", "", "", "", "", ""])), Move("play", "p1"))
    assert played.ended is None and GOLF.score(played) == 2
    for over in (GOLF.apply(played, CONCEDE), GOLF.end(played, Ending.OUT_OF_TIME)):
        assert over.ended in (Ending.CONCEDED, Ending.OUT_OF_TIME) and GOLF.score(over) == 2
        assert GOLF.legal_moves(over) == []


def test_golf_layout_round_trips_in_the_solver_format() -> None:
    state = GOLF.from_text(LAYOUT)
    assert GOLF.to_text(state) == LAYOUT
    assert state.stock[0] == parse_card("6D") and state.waste[-1] == parse_card("5S")
    assert state.piles[0][-1] == parse_card("7H")  # exposed card last
    assert sorted(GOLF.cards(state)) == list(range(52))


def test_golf_layout_reads_solver_output_with_colon_prefixes() -> None:
    text = "Foundations: 5S\nTalon: 6D\n: 9D TS\n:\n: 3S\n:\n:\n:\n:\n"
    state = GOLF.from_text(text)
    assert [len(p) for p in state.piles] == [2, 0, 1, 0, 0, 0, 0]


def test_golf_move_shorthands() -> None:
    assert GOLF.parse_move("3") == Move("play", "p3")
    assert GOLF.parse_move("t") == Move("turn")
    assert GOLF.parse_move("play p7") == Move("play", "p7")


# --- added by the rulings audit ---------------------------------------------------------------------


def test_ruling_golf_deal_is_a_pure_function_of_the_seed_using_the_documented_shuffle() -> None:
    deck = shuffle(standard_deck(), 1, "deal")
    random.seed(1)
    first = GOLF.deal(1)
    random.seed(2)  # Python's random module plays no part
    assert GOLF.state_hash(GOLF.deal(1)) == GOLF.state_hash(first)
    assert first.piles == tuple(tuple(deck[p:35:7]) for p in range(7))  # card i onto pile i % 7
    assert first.waste == (deck[35],) and first.stock == tuple(deck[36:])
    assert GOLF.to_text(first).startswith("Talon: 6C KS JH JC AC 7S 7D 9H 5S TS 2D 4S 9D 3C TC 5C\nFoundations: TH\n")
    assert GOLF.to_text(GOLF.deal(1)) != GOLF.to_text(GOLF.deal(2))


def test_ruling_golf_first_stock_card_is_turned_onto_the_waste_at_the_start() -> None:
    deck = shuffle(standard_deck(), 5, "deal")
    state = GOLF.deal(5)
    assert state.waste == (deck[35],) and len(state.stock) == 16
    assert GOLF.apply(state, Move("turn")).waste == (deck[35], deck[36])


def test_ruling_golf_stock_order_is_hidden_the_view_shows_only_its_count() -> None:
    state = GOLF.deal(9)
    for viewer in ("player", "public"):
        view = GOLF.view(state, viewer)
        assert view["board"]["stock"] == 16
        dumped = json.dumps(view)
        assert all(f'"{TEXT[c]}"' not in dumped for c in state.stock)
        assert all(f'"{TEXT[c]}"' in dumped for pile in state.piles for c in pile)
        assert f'"{TEXT[state.waste[-1]]}"' in dumped


def test_ruling_golf_only_the_top_card_of_a_pile_may_go_onto_the_waste() -> None:
    # p1: 6D under 4H (4H is the top); p2: 4C under 9C.
    state = GOLF.from_text(board("KC", "5S", ["6D 4H", "4C 9C", "", "", "", "", ""]))
    assert set(GOLF.legal_moves(state)) == {Move("play", "p1"), Move("turn")}
    after = GOLF.apply(state, Move("play", "p1"))
    assert after.waste[-1] == parse_card("4H") and after.piles[0] == (parse_card("6D"),)
    with pytest.raises(IllegalMove, match="9C is not one rank above or below"):
        GOLF.apply(state, Move("play", "p2"))


def test_ruling_golf_a_king_and_an_ace_do_not_go_on_each_other() -> None:
    on_king = GOLF.from_text(board("5C", "KS", ["AH", "", "", "", "", "", ""]))
    with pytest.raises(IllegalMove, match="AH is not one rank above or below the waste card KS"):
        GOLF.apply(on_king, Move("play", "p1"))
    on_ace = GOLF.from_text(board("5C", "AS", ["KH", "", "", "", "", "", ""]))
    with pytest.raises(IllegalMove, match="KH is not one rank above or below the waste card AS"):
        GOLF.apply(on_ace, Move("play", "p1"))
    # With the stock empty, a K on an A is no move: the game is over.
    assert GOLF.from_text(board("", "AS", ["KH", "", "", "", "", "", ""])).ended is Ending.STUCK


def test_ruling_golf_not_over_while_the_stock_has_cards() -> None:
    state = GOLF.from_text(board("2D", "5S", ["9H", "KC", "", "", "", "", ""]))
    assert state.ended is None and GOLF.legal_moves(state) == [Move("turn")]
    # Won with cards left in the stock: the tableau is empty.
    won = GOLF.apply(GOLF.from_text(board("9C 2D", "5S", ["6H", "", "", "", "", "", ""])), Move("play", "p1"))
    assert won.ended is Ending.WON and len(won.stock) == 2 and GOLF.score(won) == 0


@pytest.mark.parametrize(("piles", "left"), [(["9H", "KC"], 2), (["9H 9D 9C 9S", "KC KD KH", "QC"], 8)])
def test_ruling_golf_score_is_the_cards_left_in_the_seven_piles(piles: list[str], left: int) -> None:
    state = GOLF.from_text(board("", "5S", piles + [""] * (7 - len(piles))))
    assert state.ended is Ending.STUCK and GOLF.score(state) == left
    assert GOLF.view(state)["score"] == left
    assert GOLF.score_range == (0, 35)
