"""Chris-Cross Pairs: one test per ruling (named after it), hand-made layouts, every move and end."""

from __future__ import annotations

import json
import random

import pytest

from parlour.games import (
    CONCEDE,
    BadLayout,
    BadMove,
    Ending,
    IllegalMove,
    Move,
    chris_cross_pairs,  # noqa: F401
    get_game,
    parse_move,
)
from parlour.games.cards import TEXT, parse_card, standard_deck
from parlour.games.shuffle import shuffle

CCP = get_game("chris-cross-pairs")

# A grid with no pair in any column or diagonal (rows 1-5, columns a-e). Tests change cells of it.
BASE = [
    "AC 6C JC 3D 8D",
    "2C 7C QC 4D 9D",
    "3C 8C KC 5D TD",
    "4C 9C AD 6D JD",
    "5C TC 2D 7D QD",
]


def layout(
    rows: list[str],
    stock: str = "",
    *,
    phase: int = 1,
    pairs: int = 0,
    round_: int = 1,
    emptied: str = "",
    slid: str = "",
) -> str:
    """A layout whose waste is every card found nowhere else."""
    head = [f"Round: {round_}", f"Phase: {phase}", f"Pairs this round: {pairs}", f"Stock: {stock}"]
    if emptied:
        head.append(f"Emptied: {emptied}")
    if slid:
        head.append(f"Slid: {slid}")
    return "\n".join(head + rows) + "\n"


def changed(rows: list[str], **cells: str) -> list[str]:
    """``rows`` with some cells replaced, e.g. ``changed(BASE, a3="2H", e5="..")``."""
    grid = [row.split() for row in rows]
    for name, card in cells.items():
        grid[int(name[1]) - 1]["abcde".index(name[0])] = card
    return [" ".join(row) for row in grid]


def grid_rows(state: object) -> list[str]:
    """The five grid lines of a state's layout."""
    return CCP.to_text(state).splitlines()[-5:]


def moves(*texts: str) -> list[Move]:
    return [parse_move(t) for t in texts]


# a2/a3 pair in column a; b2/e5 pair on the full a1-e5 diagonal.
SLIDES = changed(BASE, a3="2H", e5="7H")


# --- the deal -------------------------------------------------------------------------------


def test_ruling_chris_cross_pairs_25_dealt_face_up_down_column_1_first_and_27_in_the_stock() -> None:
    seed = 1
    deck = shuffle(standard_deck(), seed, "deal")
    state = CCP.deal(seed)
    assert state.ended is None
    assert list(state.grid) == deck[:25]
    rows = CCP.view(state)["board"]["rows"]
    for i in range(25):
        assert rows[i % 5][i // 5] == TEXT[deck[i]]  # card i: column i // 5, row i % 5
    assert list(state.stock) == deck[25:] and len(state.stock) == 27
    assert sorted(CCP.cards(state)) == list(range(52))


def test_chris_cross_pairs_pinned_deal() -> None:
    state = CCP.deal(1)
    assert grid_rows(state) == [
        "QH TD 7H 6S 2C",
        "AS 6D 5D 4H 9C",
        "2S 8H JD AD KC",
        "8C JS 3S QD 4C",
        "KH QC QS 2H 6H",
    ]
    assert CCP.to_text(state).splitlines()[4].startswith("Stock: 3H 7C KD 5H")
    assert CCP.legal_moves(state) == moves("cast a1 d4", "cast b2 e5", "cast b4 c3")


def test_ruling_chris_cross_pairs_deal_is_a_pure_function_of_the_seed() -> None:
    assert CCP.to_text(CCP.deal(99)) == CCP.to_text(CCP.deal(99))
    assert CCP.state_hash(CCP.deal(99)) == CCP.state_hash(CCP.deal(99))
    assert CCP.to_text(CCP.deal(99)) != CCP.to_text(CCP.deal(100))


def test_ruling_chris_cross_pairs_stock_is_face_down_view_shows_its_count_only() -> None:
    state = CCP.deal(3)
    assert sorted(CCP.hidden_cards(state)) == sorted(state.stock)
    view = CCP.view(state)
    assert view["board"]["stock"] == 27
    text = json.dumps(view)
    for card in state.stock:
        assert f'"{TEXT[card]}"' not in text
    assert CCP.view(state, "public")["board"] == view["board"]


def test_ruling_chris_cross_pairs_a_deal_without_a_cast_is_lost_at_once() -> None:
    state = CCP.deal(50)
    assert state.ended is Ending.LOST and CCP.score(state) == 0
    assert CCP.legal_moves(state) == []
    assert "Game over: lost" in CCP.render(CCP.view(state))


# --- casts ----------------------------------------------------------------------------------


def test_ruling_chris_cross_pairs_cast_removes_an_equal_rank_pair_in_a_column_or_a_full_diagonal() -> None:
    state = CCP.from_text(layout(changed(BASE, a3="AH", e5="7H"), "KD"))
    assert CCP.legal_moves(state) == moves("cast a1 a3", "cast b2 e5")
    after = CCP.apply(state, Move("cast", "a1", "a3"))
    assert after.grid[0] == after.grid[2] == -1
    assert [TEXT[c] for c in after.waste[-2:]] == ["AC", "AH"]
    diagonal = CCP.apply(state, Move("cast", "b2", "e5"))
    assert CCP.score(diagonal) == CCP.score(state) + 2
    with pytest.raises(IllegalMove, match="not of the same rank"):
        CCP.apply(state, Move("cast", "a1", "a2"))
    with pytest.raises(IllegalMove, match="neither a column nor a diagonal"):
        CCP.apply(state, Move("cast", "a1", "c4"))  # AC and AD: same rank, no common line
    with pytest.raises(IllegalMove, match="neither a column nor a diagonal"):
        CCP.apply(state, Move("cast", "a1", "b1"))  # a row is no line


def test_ruling_chris_cross_pairs_a_diagonal_counts_only_while_all_five_cells_hold_a_card() -> None:
    # AC at a1 and AH at d4 share the a1-e5 diagonal, but e5 is empty; b1/b5 are a column pair.
    rows = changed(BASE, d4="AH", b5="6H", e5="..")
    state = CCP.from_text(layout(rows, "KD KH"))
    assert CCP.legal_moves(state) == moves("cast b1 b5")
    with pytest.raises(IllegalMove, match=r"a1-e5 diagonal is not full \(e5 empty\)"):
        CCP.apply(state, Move("cast", "a1", "d4"))
    full = CCP.from_text(layout(changed(BASE, d4="AH", b5="6H", e5="KH"), "KD"))
    assert Move("cast", "a1", "d4") in CCP.legal_moves(full)


def test_chris_cross_pairs_a_column_cast_through_the_centre_breaks_both_diagonals_for_the_step() -> None:
    state = CCP.from_text(layout(changed(BASE, c1="KH", e5="7H"), "KD"))
    assert CCP.legal_moves(state) == moves("cast c1 c3", "cast b2 e5")
    after = CCP.apply(state, Move("cast", "c1", "c3"))
    assert Move("cast", "b2", "e5") not in CCP.legal_moves(after)
    with pytest.raises(IllegalMove, match=r"a1-e5 diagonal is not full \(c3 empty\)"):
        CCP.apply(after, Move("cast", "b2", "e5"))


def test_ruling_chris_cross_pairs_several_casts_may_be_made_before_settling() -> None:
    state = CCP.from_text(layout(changed(BASE, a4="2H", e5="7H"), "KD"))
    assert CCP.legal_moves(state) == moves("cast a2 a4", "cast b2 e5")
    before = CCP.score(state)
    state = CCP.apply(state, Move("cast", "a2", "a4"))
    assert state.emptied and Move("cast", "b2", "e5") in CCP.legal_moves(state)
    assert CCP.legal_moves(state)[-1] == Move("settle")
    state = CCP.apply(state, Move("cast", "b2", "e5"))
    assert CCP.view(state)["board"]["emptied"] == ["a2", "a4", "b2", "e5"]
    assert state.round_casts == 2 and CCP.score(state) == before + 4


def test_chris_cross_pairs_cast_of_an_empty_cell_is_refused() -> None:
    state = CCP.apply(CCP.from_text(layout(SLIDES, "KD")), Move("cast", "a2", "a3"))
    with pytest.raises(IllegalMove, match="cell a2 is empty"):
        CCP.apply(state, Move("cast", "a1", "a2"))


# --- slides ---------------------------------------------------------------------------------


def test_ruling_chris_cross_pairs_a_card_next_to_a_cast_cell_may_slide_into_it_once_per_step() -> None:
    state = CCP.apply(CCP.from_text(layout(SLIDES, "KD")), Move("cast", "a2", "a3"))
    assert CCP.legal_moves(state) == moves("cast b2 e5", "slide a1 a2", "slide a4 a3", "settle")
    state = CCP.apply(state, Move("slide", "a1", "a2"))
    assert TEXT[state.grid[1]] == "AC" and state.grid[0] == -1
    assert CCP.legal_moves(state) == moves("slide a4 a3", "settle")
    with pytest.raises(IllegalMove, match="AC has already slid in this step"):
        CCP.apply(state, Move("slide", "a2", "a3"))
    with pytest.raises(IllegalMove, match="a1 was not emptied by a cast"):
        CCP.apply(state, Move("slide", "a2", "a1"))


def test_chris_cross_pairs_slide_refusals() -> None:
    state = CCP.apply(CCP.from_text(layout(SLIDES, "KD")), Move("cast", "a2", "a3"))
    with pytest.raises(IllegalMove, match="not next to it"):
        CCP.apply(state, Move("slide", "a5", "a3"))
    with pytest.raises(IllegalMove, match="not next to it"):
        CCP.apply(state, Move("slide", "b2", "a2"))  # sideways
    with pytest.raises(IllegalMove, match="b2 holds 7C"):
        CCP.apply(state, Move("slide", "b1", "b2"))
    with pytest.raises(IllegalMove, match="a3 is empty"):
        CCP.apply(state, Move("slide", "a3", "a4"))


def test_chris_cross_pairs_no_cast_after_a_slide_in_the_same_step() -> None:
    state = CCP.apply(CCP.from_text(layout(SLIDES, "KD")), Move("cast", "a2", "a3"))
    state = CCP.apply(state, Move("slide", "a1", "a2"))
    assert CCP.view(state)["board"]["can_cast"] is False
    with pytest.raises(IllegalMove, match="no more casts in this step once a card has slid"):
        CCP.apply(state, Move("cast", "b2", "e5"))


# --- settling -------------------------------------------------------------------------------


def test_ruling_chris_cross_pairs_settle_closes_every_row_to_the_left_then_casting_goes_on() -> None:
    state = CCP.apply(CCP.from_text(layout(SLIDES, "KD")), Move("cast", "a2", "a3"))
    settled = CCP.apply(state, Move("settle"))
    assert grid_rows(settled) == [
        "AC 6C JC 3D 8D",
        "7C QC 4D 9D ..",
        "8C KC 5D TD ..",
        "4C 9C AD 6D JD",
        "5C TC 2D 7D 7H",
    ]
    assert settled.emptied == 0 and settled.ended is None
    # Rows 2 and 3 shifted left, which filled the a5-e1 diagonal with two new pairs (5C 5D, 9C 9D);
    # 7C left the a1-e5 diagonal.
    assert CCP.legal_moves(settled) == moves("cast a5 c3", "cast b4 d2")
    assert settled.round == 1 and settled.phase == 1


def test_chris_cross_pairs_slides_then_settle_by_itself_when_nothing_else_is_left() -> None:
    state = CCP.apply(CCP.from_text(layout(SLIDES, "KD")), Move("cast", "a2", "a3"))
    state = CCP.apply(state, Move("slide", "a1", "a2"))
    state = CCP.apply(state, Move("slide", "a4", "a3"))  # no slide left: the engine settles
    assert state.emptied == 0 and state.slid == 0
    assert grid_rows(state) == [
        "6C JC 3D 8D ..",
        "AC 7C QC 4D 9D",
        "4C 8C KC 5D TD",
        "9C AD 6D JD ..",
        "5C TC 2D 7D 7H",
    ]
    assert CCP.legal_moves(state) == moves("cast b2 e5")  # the a1-e5 diagonal is full again


def test_chris_cross_pairs_settle_between_steps_is_refused() -> None:
    state = CCP.from_text(layout(SLIDES, "KD"))
    with pytest.raises(IllegalMove, match="nothing to settle"):
        CCP.apply(state, Move("settle"))


# --- phases and rounds ----------------------------------------------------------------------

# Only e1/e2 pair; after that cast nothing can slide or cast, and rows 1-5 all hold four cards.
PHASES = ["AC 6C JC 3D 8D", "2C 7C QC 4D 8H", "3C 8C KC 5D ..", "4C 9C AD 6D ..", "5C TC 2D 7D .."]


def test_ruling_chris_cross_pairs_phase_2_transposes_short_rows_then_the_round_ends_and_refills() -> None:
    state = CCP.from_text(layout(PHASES, "KD KH"))
    assert CCP.legal_moves(state) == moves("cast e1 e2")
    state = CCP.apply(state, Move("cast", "e1", "e2"))
    # Settled by itself; phase 1 had a pair, so phase 2 moved each short row's first card to its end;
    # phase 2 could cast nothing, so round 2 refilled e1 and e2 from the stock.
    assert (state.round, state.phase, state.round_casts, state.ended) == (2, 1, 0, None)
    assert grid_rows(state) == [
        "6C JC 3D AC KD",
        "7C QC 4D 2C KH",
        "8C KC 5D 3C ..",
        "9C AD 6D 4C ..",
        "TC 2D 7D 5C ..",
    ]
    assert state.stock == () and CCP.legal_moves(state) == moves("cast e1 e2")


def test_ruling_chris_cross_pairs_phase_2_casting_resumes_after_the_transposition() -> None:
    rows = ["AC 6C JC 3D 8D", "8H 7C QC 3H ..", "3C 8C KC 5D ..", "4C 9C AD 6D ..", "5C TC 2D 7D .."]
    state = CCP.from_text(layout(rows, "KD"))
    assert CCP.legal_moves(state) == moves("cast d1 d2")
    state = CCP.apply(state, Move("cast", "d1", "d2"))
    assert CCP.legal_moves(state) == moves("slide d3 d2", "settle")
    state = CCP.apply(state, Move("settle"))
    # Settled: row 1 is AC 6C JC 8D, row 2 8H 7C QC; no cast, so phase 2 moved every first card to the end.
    assert (state.round, state.phase, state.round_casts) == (1, 2, 1)
    assert grid_rows(state) == [
        "6C JC 8D AC ..",
        "7C QC 8H .. ..",
        "8C KC 5D 3C ..",
        "9C AD 6D 4C ..",
        "TC 2D 7D 5C ..",
    ]
    assert CCP.legal_moves(state) == moves("cast c1 c2")


def test_ruling_chris_cross_pairs_phase_1_that_cast_nothing_loses() -> None:
    state = CCP.from_text(layout(BASE, "KD"))
    assert state.ended is Ending.LOST and CCP.legal_moves(state) == []
    assert CCP.score(state) == 26


def test_ruling_chris_cross_pairs_new_round_refills_down_column_1_first_as_far_as_the_stock_lasts() -> None:
    rows = ["AC 6C JC .. ..", "2C 7C .. .. ..", "3C 8C KC 5D ..", ".. .. .. .. ..", "5C TC 2D 7D QD"]
    state = CCP.from_text(layout(rows, "KD KH KS 9H", phase=2, pairs=1))
    assert (state.round, state.phase, state.round_casts) == (2, 1, 0)
    assert grid_rows(state) == [
        "AC 6C JC .. ..",
        "2C 7C KS .. ..",
        "3C 8C KC 5D ..",
        "KD KH 9H .. ..",
        "5C TC 2D 7D QD",
    ]
    assert state.stock == ()
    assert CCP.legal_moves(state) == moves("cast c2 c3")


def test_ruling_chris_cross_pairs_a_round_without_a_cast_loses_even_with_stock_left() -> None:
    state = CCP.from_text(layout(changed(BASE, e5=".."), "QH KD KH KS", phase=2, pairs=1))
    assert state.ended is Ending.LOST
    assert (state.round, state.phase) == (2, 1) and TEXT[state.grid[24]] == "QH"
    assert [TEXT[c] for c in state.stock] == ["KD", "KH", "KS"]
    assert CCP.view(state)["board"]["stock"] == 3


def test_ruling_chris_cross_pairs_a_round_without_a_cast_loses_once_the_stock_is_used_up() -> None:
    refilled = CCP.from_text(layout(changed(BASE, e4="..", e5=".."), "QH", phase=2, pairs=1))
    assert refilled.ended is Ending.LOST and refilled.stock == () and TEXT[refilled.grid[23]] == "QH"
    nothing_left = CCP.from_text(layout(changed(BASE, e5=".."), "", phase=2, pairs=1))
    assert nothing_left.ended is Ending.LOST and nothing_left.round == 2


def test_ruling_chris_cross_pairs_won_when_tableau_and_stock_are_empty() -> None:
    rows = ["AC .. .. .. ..", "AH .. .. .. ..", ".. .. .. .. ..", ".. .. .. .. ..", ".. .. .. .. .."]
    state = CCP.from_text(layout(rows, ""))
    assert CCP.legal_moves(state) == moves("cast a1 a2")
    state = CCP.apply(state, Move("cast", "a1", "a2"))
    assert state.ended is Ending.WON and CCP.score(state) == 52
    assert CCP.legal_moves(state) == []
    with pytest.raises(IllegalMove, match="over"):
        CCP.apply(state, Move("settle"))


def test_ruling_chris_cross_pairs_not_won_while_the_stock_has_cards() -> None:
    rows = ["AC .. .. .. ..", "AH .. .. .. ..", ".. .. .. .. ..", ".. .. .. .. ..", ".. .. .. .. .."]
    state = CCP.apply(CCP.from_text(layout(rows, "KD KH")), Move("cast", "a1", "a2"))
    assert state.ended is None and (state.round, state.phase) == (2, 1)
    assert grid_rows(state)[:2] == ["KD .. .. .. ..", "KH .. .. .. .."]


def test_ruling_chris_cross_pairs_score_is_the_cards_cast_out_higher_is_better() -> None:
    assert CCP.higher_is_better is True and CCP.score_range == (0, 52)
    assert CCP.better(52, 40) and not CCP.better(10, 12)
    state = CCP.deal(1)
    assert CCP.score(state) == 0
    state = CCP.apply(state, Move("cast", "a1", "d4"))
    assert CCP.score(state) == 2 and CCP.view(state)["board"]["cast_out"] == 2


def test_ruling_chris_cross_pairs_concede_at_any_time_scores_as_it_stands() -> None:
    state = CCP.apply(CCP.deal(1), Move("cast", "a1", "d4"))
    assert CCP.end(state, Ending.OUT_OF_TIME).ended is Ending.OUT_OF_TIME
    assert CCP.score(CCP.end(state, Ending.OUT_OF_TIME)) == 2
    state = CCP.apply(state, CONCEDE)  # mid-step, before settling
    assert state.ended is Ending.CONCEDED and CCP.score(state) == 2
    with pytest.raises(IllegalMove, match="over"):
        CCP.apply(state, Move("settle"))


def test_chris_cross_pairs_random_games_always_end_won_or_lost() -> None:
    chooser = random.Random(7)
    for seed in range(40):
        state = CCP.deal(seed)
        for _ in range(200):
            legal = CCP.legal_moves(state)
            if not legal:
                break
            state = CCP.apply(state, chooser.choice(legal))
        assert state.ended in (Ending.WON, Ending.LOST)
        assert sorted(CCP.cards(state)) == list(range(52))


def test_chris_cross_pairs_listed_moves_apply_and_other_candidates_are_refused() -> None:
    chooser = random.Random(11)
    for seed in range(4):
        state = CCP.deal(seed)
        while state.ended is None:
            legal = CCP.legal_moves(state)
            assert len(set(legal)) == len(legal) and set(legal) <= set(CCP.candidate_moves(state))
            for move in CCP.candidate_moves(state):
                if move in legal:
                    CCP.apply(state, move)
                    continue
                try:
                    CCP.apply(state, move)
                except IllegalMove:
                    continue
                raise AssertionError(f"{move.text()} is not listed but applies")
            state = CCP.apply(state, chooser.choice(legal))


# --- malformed moves, text forms ------------------------------------------------------------


def test_chris_cross_pairs_malformed_moves_are_bad_moves() -> None:
    state = CCP.from_text(layout(SLIDES, "KD"))
    for move in [
        Move("turn"),
        Move("cast", "a2"),
        Move("cast", "a2", "z9"),
        Move("cast", "a3", "a2"),  # cells out of order
        Move("cast", "a2", "a2"),
        Move("cast", "a2", "a3", 2),
        Move("slide", "a1"),
        Move("settle", "a1"),
    ]:
        with pytest.raises(BadMove):
            CCP.apply(state, move)


def test_chris_cross_pairs_move_text_wire_and_shorthands() -> None:
    cast = Move("cast", "a1", "a3")
    assert cast.wire() == ["cast", "a1", "a3"] and Move.from_wire(cast.wire()) == cast
    assert parse_move(cast.text()) == cast and parse_move("settle") == Move("settle")
    assert CCP.parse_move("c a3 a1") == cast
    assert CCP.parse_move("CAST A3 A1") == cast
    assert CCP.parse_move("slide B1 B2") == Move("slide", "b1", "b2")
    assert CCP.parse_move("m b2 b1") == Move("slide", "b2", "b1")
    assert CCP.parse_move("s") == Move("settle")


def test_chris_cross_pairs_render_shows_cells_and_step_marks() -> None:
    state = CCP.apply(CCP.from_text(layout(SLIDES, "KD")), Move("cast", "a2", "a3"))
    state = CCP.apply(state, Move("slide", "a1", "a2"))
    text = CCP.render(CCP.view(state))
    assert "\n   a   b   c   d   e\n" in text
    assert "2  AC*" in text and "3  --" in text and "1  .. " in text
    assert "Round 1, phase 1" in text and "Stock: 1 card" in text


# --- layouts --------------------------------------------------------------------------------


def test_chris_cross_pairs_layout_round_trips_dealt_and_mid_step() -> None:
    state = CCP.deal(5)
    assert CCP.to_text(CCP.from_text(CCP.to_text(state))) == CCP.to_text(state)
    state = CCP.apply(CCP.from_text(layout(SLIDES, "KD")), Move("cast", "a2", "a3"))
    state = CCP.apply(state, Move("slide", "a1", "a2"))
    text = CCP.to_text(state)
    assert "Emptied: a2 a3\n" in text and "Slid: AC\n" in text and "Cast out: 28\n" in text
    again = CCP.from_text(text)
    assert CCP.to_text(again) == text
    assert CCP.legal_moves(again) == CCP.legal_moves(state) == moves("slide a4 a3", "settle")
    assert CCP.state_hash(again) == CCP.state_hash(state)


def test_chris_cross_pairs_layout_waste_keeps_the_cast_order() -> None:
    state = CCP.apply(CCP.from_text(layout(SLIDES, "KD")), Move("cast", "b2", "e5"))
    text = CCP.to_text(state)
    waste = next(line for line in text.splitlines() if line.startswith("Waste:"))
    assert waste.endswith("7C 7H")
    assert CCP.from_text(text).waste == state.waste
    assert parse_card("7H") in state.waste


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (layout(SLIDES[:4], "KD"), "5 grid lines"),
        ("Round: 1\n" + "\n".join(SLIDES), "Stock:"),
        (layout([*SLIDES[:4], "5C TC 2D 7D"], "KD"), "5 cells"),
        (layout(SLIDES, "KD 2H"), "more than 1"),
        (layout(SLIDES, "XX"), "not a card"),
        (layout(SLIDES, "") + "Bogus: 1\n", "unknown header"),
        (layout(SLIDES, ""), "holds pairs"),
        (layout(changed(SLIDES, a1=".."), "KD KH"), "closed to the left"),
        (layout(SLIDES, "KD", phase=2), "phase 2"),
        (layout(SLIDES, "KD", phase=3), "phase"),
        (layout(SLIDES, "KD", emptied="a2 a3"), "casts empty two cells"),
        (layout(SLIDES, "KD", pairs=1, emptied="a2 a3"), "did not slide there"),
        (layout(SLIDES, "KD", pairs=1, emptied="a2 z3"), "no cell"),
        (layout(SLIDES, "KD", slid="AC"), "emptied by a cast"),
        (layout(SLIDES, "KD") + "Cast out: 4\n", "Cast out"),
        (layout(SLIDES, "KD") + "Stock: KH\n", "twice"),
    ],
)
def test_chris_cross_pairs_bad_layouts_are_refused(text: str, message: str) -> None:
    with pytest.raises(BadLayout, match=message):
        CCP.from_text(text)


# --- added by the rulings audit ---------------------------------------------------------------------


def test_ruling_chris_cross_pairs_phase_2_moves_only_rows_with_fewer_than_five_cards() -> None:
    # The only pair is 9D/9H at e2/e3; rows 4 and 5 hold four cards, row 1 five.
    rows = changed(BASE, e3="9H", e4="..", e5="..")
    state = CCP.from_text(layout(rows, "KD"))
    assert CCP.legal_moves(state) == moves("cast e2 e3")
    state = CCP.apply(state, Move("cast", "e2", "e3"))
    state = CCP.apply(state, Move("settle"))
    assert (state.round, state.phase) == (1, 2)
    assert grid_rows(state) == [
        "AC 6C JC 3D 8D",  # full: left alone
        "7C QC 4D 2C ..",
        "8C KC 5D 3C ..",
        "9C AD 6D 4C ..",
        "TC 2D 7D 5C ..",
    ]
    assert CCP.legal_moves(state) == moves("cast d1 d3")  # casting resumes: 3D and 3C


def test_ruling_chris_cross_pairs_a_phase_ends_only_when_no_cast_is_possible() -> None:
    # After one cast another pair is left: phase 1 goes on (the engine does not end it early).
    state = CCP.from_text(layout(changed(BASE, a4="2H", c3="JH"), "KD"))
    assert CCP.legal_moves(state) == moves("cast a2 a4", "cast c1 c3")
    state = CCP.apply(CCP.apply(state, Move("cast", "a2", "a4")), Move("settle"))
    assert (state.round, state.phase, state.round_casts, state.ended) == (1, 1, 1, None)
    assert Move("cast", "c1", "c3") in CCP.legal_moves(state)


def test_ruling_chris_cross_pairs_phase_1_without_a_cast_loses_at_once_no_transposition_no_refill() -> None:
    # Round 1, phase 1, no pair to cast: lost there and then, with row 5 short and cards in the stock.
    rows = changed(BASE, e5="..")
    state = CCP.from_text(layout(rows, "QH KD KH KS"))
    assert state.ended is Ending.LOST and CCP.legal_moves(state) == []
    assert (state.round, state.phase, state.round_casts) == (1, 1, 0)
    assert grid_rows(state) == rows  # no phase-2 transposition happened
    assert [TEXT[c] for c in state.stock] == ["QH", "KD", "KH", "KS"]  # and no refill
    assert CCP.score(state) == 52 - 24 - 4
