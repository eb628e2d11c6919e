"""Cheer: one test per ruling (named after it), hand-made layouts, every move and end, the scoring table."""

from __future__ import annotations

import dataclasses
import json
from itertools import pairwise

import pytest

from parlour.games import cheer  # noqa: F401
from parlour.games.base import CONCEDE, Ending, Move, parse_move
from parlour.games.cards import RANK, TEXT, parse_card, standard_deck
from parlour.games.cheer import CheerState
from parlour.games.errors import BadLayout, BadMove, IllegalMove
from parlour.games.registry import get_game
from parlour.games.shuffle import shuffle

CHEER = get_game("cheer")
DECK = standard_deck(ranks=range(6, 14))


def layout(
    cols: list[str], parking: tuple[str, ...] = ("", "", ""), found: str = "", opened: str | None = None
) -> CheerState:
    """A Cheer layout: columns c1.. (missing ones empty), parking p1-p3, foundation tops, opened spaces."""
    lines = [f"Foundations: {found}"]
    if opened is not None:
        lines.append(f"Opened: {opened}")
    lines += [f"p{i + 1}: {cards}" for i, cards in enumerate(parking)]
    lines += [f"c{i + 1}: {cards}" for i, cards in enumerate(cols + [""] * (7 - len(cols)))]
    return CHEER.from_text("\n".join(lines) + "\n")


def mv(src: str, dst: str, count: int = 0) -> Move:
    return Move("move", src, dst, count)


def texts(pile: tuple[int, ...]) -> list[str]:
    return [TEXT[c] for c in pile]


# Foundations up to TC QD 9H 8S; the 13 cards left are on the columns.
COLUMN_PLAY = ["QH KS", "KH JH TH", "QS JS TS 9S", "KC QC JC", "KD"]
COLUMN_FOUND = "TC QD 9H 8S"
# JC parked in p1 (opened); the other 12 cards on the columns, c7 empty.
PARKED = ["KC QC", "KS QS JS TS 9S", "KD", "JH", "KH QH", "TH"]
PARKED_SPACES = ("JC", "", "")

SEED_1 = """\
Foundations:
Opened:
p1:
p2:
p3:
c1: TC JD
c2: 7S JH KD 6C
c3: 9C 7C KH QC QS TD
c4: 7H TS 9H KC 6H 8H 9S 8D
c5: QD JS 7D 8C KS 9D
c6: TH 8S JC QH
c7: 6S 6D
"""


# --- the deal --------------------------------------------------------------------------------------------


def test_ruling_cheer_32_cards_in_columns_of_2_4_6_8_6_4_2_three_parking_spaces_four_foundations() -> None:
    state = CHEER.deal(2024)
    assert [len(c) for c in state.columns] == [2, 4, 6, 8, 6, 4, 2]
    assert state.parking == ((), (), ()) and state.foundations == (0, 0, 0, 0) and state.opened == 0
    assert sorted(CHEER.cards(state)) == DECK
    assert {RANK[c] for c in CHEER.cards(state)} == set(range(6, 14))
    assert state.ended is None


def test_ruling_cheer_all_cards_face_up_nothing_hidden() -> None:
    state = CHEER.deal(7)
    assert CHEER.hidden_cards(state) == []
    board = CHEER.view(state)["board"]
    shown = [t for column in board["columns"] for t in column]
    assert sorted(shown) == sorted(TEXT[c] for c in DECK)
    assert board["parking"] == [[], [], []] and board["foundations"] == [None] * 4 and board["opened"] == []
    json.dumps(CHEER.view(state))  # plain data only


def test_cheer_deal_for_a_pinned_seed_is_dealt_column_by_column() -> None:
    state = CHEER.deal(1)
    assert CHEER.to_text(state) == SEED_1
    assert texts(state.columns[0]) == ["TC", "JD"]  # deck cards 0 and 1; JD is exposed
    assert texts(state.columns[3])[-1] == "8D"


def test_ruling_cheer_deal_is_a_pure_function_of_seed_and_options() -> None:
    assert CHEER.state_hash(CHEER.deal(99)) == CHEER.state_hash(CHEER.deal(99))
    assert CHEER.to_text(CHEER.deal(99)) != CHEER.to_text(CHEER.deal(100))
    plain, win_loss = CHEER.deal(99), CHEER.deal(99, {"win_loss": True})
    assert CHEER.to_text(plain) == CHEER.to_text(win_loss)
    assert plain.options == {"win_loss": False} and win_loss.options == {"win_loss": True}
    assert CHEER.state_hash(plain) != CHEER.state_hash(win_loss)


def test_cheer_option_win_loss_is_a_bool_defaulting_to_false() -> None:
    (option,) = CHEER.options_spec
    assert (option.name, option.values, option.default) == ("win_loss", (False, True), False)
    assert CHEER.resolve_options({"win_loss": "true"}) == {"win_loss": True}


# --- foundations -----------------------------------------------------------------------------------------


def test_ruling_cheer_foundations_build_up_in_suit_from_the_6() -> None:
    state = layout(["6S 7S", "KS QS JS TS 9S 8S"], found="KC KD KH")
    with pytest.raises(IllegalMove, match="7S cannot go to the foundation: the spades foundation needs 6S"):
        CHEER.apply(state, mv("c1", "f"))
    assert mv("c1", "f") not in CHEER.legal_moves(state)
    state = CHEER.apply(state, mv("c1", "c2", 1))  # 7S onto 8S
    assert mv("c1", "f") in CHEER.legal_moves(state)
    state = CHEER.apply(state, mv("c1", "f"))
    assert state.foundations == (8, 8, 8, 1) and state.columns[0] == ()
    with pytest.raises(IllegalMove, match="c1 is empty"):
        CHEER.apply(state, mv("c1", "f"))


def test_ruling_cheer_any_exposed_card_of_a_column_goes_to_its_foundation() -> None:
    state = layout(COLUMN_PLAY, found=COLUMN_FOUND)
    to_foundation = [m for m in CHEER.legal_moves(state) if m.dst == "f"]
    assert to_foundation == [mv("c2", "f"), mv("c3", "f"), mv("c4", "f"), mv("c5", "f")]
    after = CHEER.apply(state, mv("c2", "f"))
    assert texts(after.columns[1]) == ["KH", "JH"] and after.foundations == (5, 7, 5, 3)
    with pytest.raises(IllegalMove, match="KS cannot go to the foundation: the spades foundation needs 9S next"):
        CHEER.apply(state, mv("c1", "f"))


def test_ruling_cheer_exposed_card_of_a_parking_space_goes_to_its_foundation() -> None:
    state = layout(PARKED, PARKED_SPACES, found=COLUMN_FOUND, opened="p1")
    assert mv("p1", "f") in CHEER.legal_moves(state)
    after = CHEER.apply(state, mv("p1", "f"))
    assert after.parking[0] == () and after.foundations[0] == 6
    wrong = layout(["KC QC JC", "KS QS JS TS 9S", "KD", "JH", "KH", "TH"], ("QH", "", ""), COLUMN_FOUND, "p1")
    assert mv("p1", "f") not in CHEER.legal_moves(wrong)
    with pytest.raises(IllegalMove, match="QH cannot go to the foundation: the hearts foundation needs TH next"):
        CHEER.apply(wrong, mv("p1", "f"))


# --- column moves ----------------------------------------------------------------------------------------


def test_ruling_cheer_a_card_or_run_moves_onto_the_same_suit_one_rank_higher() -> None:
    state = layout(COLUMN_PLAY, found=COLUMN_FOUND)
    assert mv("c3", "c1", 4) in CHEER.legal_moves(state)
    after = CHEER.apply(state, mv("c3", "c1", 4))
    assert texts(after.columns[0]) == ["QH", "KS", "QS", "JS", "TS", "9S"] and after.columns[2] == ()
    with pytest.raises(IllegalMove, match="JS does not go on KS"):
        CHEER.apply(state, mv("c3", "c1", 3))
    with pytest.raises(IllegalMove, match="JH does not go on KS"):  # right rank gap, wrong suit
        CHEER.apply(state, mv("c2", "c1", 2))
    with pytest.raises(IllegalMove, match="KD does not go on JC"):
        CHEER.apply(state, mv("c5", "c4", 1))


def test_ruling_cheer_only_a_same_suit_descending_run_at_the_exposed_end_moves_together() -> None:
    state = layout(COLUMN_PLAY, found=COLUMN_FOUND)
    with pytest.raises(IllegalMove, match="KH JH TH is not a run"):
        CHEER.apply(state, mv("c2", "c6", 3))
    with pytest.raises(IllegalMove, match="QH KS is not a run"):
        CHEER.apply(state, mv("c1", "p1", 2))
    with pytest.raises(IllegalMove, match="c5 holds only 1 card"):
        CHEER.apply(state, mv("c5", "c1", 2))
    with pytest.raises(IllegalMove, match="already in c5"):
        CHEER.apply(state, mv("c5", "c5", 1))
    with pytest.raises(IllegalMove, match="c6 is empty"):
        CHEER.apply(state, mv("c6", "c1", 1))


def test_ruling_cheer_an_empty_column_takes_only_a_king_or_a_king_headed_run() -> None:
    state = layout(COLUMN_PLAY, found=COLUMN_FOUND)
    to_columns = [m for m in CHEER.legal_moves(state) if m.dst.startswith("c")]
    kings = [mv("c4", dst, 3) for dst in ("c6", "c7")]
    assert to_columns == [
        mv("c3", "c1", 4),
        *[m for dst in ("c6", "c7") for m in (mv("c4", dst, 3), mv("c5", dst, 1), mv("c1", dst, 1))],
    ]
    after = CHEER.apply(state, kings[0])
    assert texts(after.columns[5]) == ["KC", "QC", "JC"] and after.columns[3] == ()
    with pytest.raises(IllegalMove, match="an empty column takes only a king or a run headed by a king, not QC"):
        CHEER.apply(state, mv("c4", "c6", 2))
    with pytest.raises(IllegalMove, match="not TH"):
        CHEER.apply(state, mv("c2", "c6", 1))


def test_cheer_a_lone_king_may_move_from_one_column_to_an_empty_one() -> None:
    state = layout(COLUMN_PLAY, found=COLUMN_FOUND)
    after = CHEER.apply(state, mv("c5", "c6", 1))
    assert after.columns[4] == () and texts(after.columns[5]) == ["KD"]
    assert mv("c6", "c5", 1) in CHEER.legal_moves(after)  # and back again: no repetition rule


# --- parking spaces --------------------------------------------------------------------------------------


def test_ruling_cheer_a_card_or_run_moves_into_an_empty_parking_space() -> None:
    state = layout(COLUMN_PLAY, found=COLUMN_FOUND)
    moves = CHEER.legal_moves(state)
    for count in (1, 2, 3, 4):
        assert mv("c3", "p2", count) in moves
    assert mv("c3", "p2", 5) not in moves and mv("c1", "p1", 2) not in moves
    after = CHEER.apply(state, mv("c3", "p2", 2))  # part of a run
    assert texts(after.parking[1]) == ["TS", "9S"] and texts(after.columns[2]) == ["QS", "JS"]
    assert after.opened == 0b010 and after.ended is None
    assert CHEER.view(after)["board"]["opened"] == ["p2"]


def test_ruling_cheer_a_parking_space_holding_cards_takes_no_more() -> None:
    state = layout(PARKED, PARKED_SPACES, found=COLUMN_FOUND, opened="p1")
    assert not [m for m in CHEER.legal_moves(state) if m.dst == "p1"]
    with pytest.raises(IllegalMove, match="p1 already holds JC; a parking space takes no more"):
        CHEER.apply(state, mv("c6", "p1", 1))


def test_ruling_cheer_parked_cards_move_back_to_a_column_or_foundation_only() -> None:
    state = layout(PARKED, PARKED_SPACES, found=COLUMN_FOUND, opened="p1")
    parked = [m for m in CHEER.legal_moves(state) if m.src == "p1"]
    assert parked == [mv("p1", "f"), mv("p1", "c1", 1)]
    after = CHEER.apply(state, mv("p1", "c1", 1))
    assert texts(after.columns[0]) == ["KC", "QC", "JC"] and after.parking[0] == () and after.opened == 1
    with pytest.raises(IllegalMove, match="go back only to a column or to the foundation"):
        CHEER.apply(state, mv("p1", "p2", 1))


def test_ruling_cheer_a_parked_run_moves_back_whole_onto_an_empty_column() -> None:
    state = layout(PARKED, PARKED_SPACES, found=COLUMN_FOUND, opened="p1")
    state = CHEER.apply(state, mv("c2", "p2", 5))
    assert texts(state.parking[1]) == ["KS", "QS", "JS", "TS", "9S"] and state.opened == 0b011
    moves = CHEER.legal_moves(state)
    assert mv("p2", "c2", 5) in moves and mv("p2", "c7", 5) in moves and mv("p2", "f") in moves
    after = CHEER.apply(state, mv("p2", "c7", 5))
    assert texts(after.columns[6]) == ["KS", "QS", "JS", "TS", "9S"] and after.parking[1] == ()
    with pytest.raises(IllegalMove, match="QS does not go on TH"):
        CHEER.apply(state, mv("p2", "c6", 4))


def test_ruling_cheer_an_emptied_parking_space_may_be_refilled_at_no_cost() -> None:
    state = layout(PARKED, PARKED_SPACES, found=COLUMN_FOUND, opened="p1")
    state = CHEER.apply(state, mv("p1", "f"))
    state = CHEER.apply(state, mv("c6", "p1", 1))  # refill p1
    assert texts(state.parking[0]) == ["TH"] and state.opened == 0b001
    assert CHEER.view(state)["board"]["opened"] == ["p1"]


def test_cheer_a_move_into_p3_when_only_p1_was_opened_opens_a_second_space() -> None:
    state = layout(PARKED, PARKED_SPACES, found=COLUMN_FOUND, opened="p1")
    after = CHEER.apply(state, mv("c6", "p3", 1))
    assert after.opened == 0b101 and after.ended is None
    assert CHEER.view(after)["board"]["opened"] == ["p1", "p3"]


def test_cheer_filling_a_never_opened_space_opens_it_even_while_an_opened_one_is_empty() -> None:
    state = CHEER.apply(layout(PARKED, PARKED_SPACES, found=COLUMN_FOUND, opened="p1"), mv("p1", "f"))
    moves = CHEER.legal_moves(state)
    assert mv("c6", "p1", 1) in moves and mv("c6", "p2", 1) in moves and mv("c6", "p3", 1) in moves
    after = CHEER.apply(state, mv("c6", "p2", 1))
    assert after.opened == 0b011 and after.parking[0] == ()


def test_ruling_cheer_opening_a_third_parking_space_loses_at_once() -> None:
    state = layout(PARKED, PARKED_SPACES, found=COLUMN_FOUND, opened="p1 p2")
    assert mv("c6", "p3", 1) in CHEER.legal_moves(state)  # legal, and listed
    lost = CHEER.apply(state, mv("c6", "p3", 1))
    assert lost.ended is Ending.LOST and texts(lost.parking[2]) == ["TH"] and lost.opened == 0b111
    assert CHEER.legal_moves(lost) == [] and CHEER.score(lost) == 0
    with pytest.raises(IllegalMove, match="over"):
        CHEER.apply(lost, mv("c5", "f"))
    # The same move with only one space opened before is harmless.
    assert CHEER.apply(layout(PARKED, PARKED_SPACES, found=COLUMN_FOUND, opened="p1"), mv("c6", "p3", 1)).ended is None


# --- ends and scores -------------------------------------------------------------------------------------


def _nearly_won(opened: str, win_loss: bool):
    text = f"Foundations: KC KD KH QS\nOpened: {opened}\n" + columns("KS")
    return CHEER.from_text(text, {"win_loss": win_loss})


@pytest.mark.parametrize(
    ("opened", "points", "win_loss_points"),
    [("", 12, 1), ("p3", 10, 1), ("p1", 10, 1), ("p1 p2", 3, 0), ("p2 p3", 3, 0)],
)
def test_ruling_cheer_score_won_by_parking_spaces_opened(opened: str, points: int, win_loss_points: int) -> None:
    for win_loss, expected in ((False, points), (True, win_loss_points)):
        state = _nearly_won(opened, win_loss)
        assert state.ended is None and CHEER.score(state) == 0  # unfinished: 0
        won = CHEER.apply(state, mv("c1", "f"))
        assert won.ended is Ending.WON and CHEER.score(won) == expected
        assert CHEER.legal_moves(won) == []


@pytest.mark.parametrize("win_loss", [False, True])
def test_ruling_cheer_third_parking_space_scores_0(win_loss: bool) -> None:
    state = CHEER.from_text(CHEER.to_text(layout(PARKED, PARKED_SPACES, COLUMN_FOUND, "p1 p2")), {"win_loss": win_loss})
    lost = CHEER.apply(state, mv("c6", "p3", 1))
    assert lost.ended is Ending.LOST and CHEER.score(lost) == 0


@pytest.mark.parametrize("win_loss", [False, True])
def test_ruling_cheer_unfinished_games_score_0(win_loss: bool) -> None:
    state = _nearly_won("", win_loss)
    conceded = CHEER.apply(state, CONCEDE)
    assert conceded.ended is Ending.CONCEDED and CHEER.score(conceded) == 0
    out_of_time = CHEER.end(state, Ending.OUT_OF_TIME)
    assert CHEER.score(out_of_time) == 0
    stuck = dataclasses.replace(state, ended=Ending.STUCK)
    assert CHEER.score(stuck) == 0
    assert CHEER.score(CHEER.deal(3, {"win_loss": win_loss})) == 0


def test_ruling_cheer_higher_score_is_better() -> None:
    assert CHEER.higher_is_better is True and CHEER.score_range == (0, 12)
    assert CHEER.better(12, 10) and CHEER.better(3, 0) and not CHEER.better(3, 10)


def test_cheer_won_from_a_parking_space() -> None:
    state = CHEER.from_text("Foundations: KC KD KH QS\np1: KS\n" + columns())
    assert state.opened == 0b001  # no Opened line: the spaces holding cards
    won = CHEER.apply(state, mv("p1", "f"))
    assert won.ended is Ending.WON and CHEER.score(won) == 10


def test_ruling_cheer_concede_at_any_time_ends_the_game_scoring_0() -> None:
    state = CHEER.apply(CHEER.deal(5), CONCEDE)
    assert state.ended is Ending.CONCEDED and CHEER.legal_moves(state) == [] and CHEER.score(state) == 0


def test_cheer_never_stuck_with_every_column_empty() -> None:
    # Every remaining card is parked; each suit's lowest card left is exposed, so play goes on.
    state = CHEER.from_text("Foundations: KC KD KH 8S\nOpened: p1 p2\np1: KS QS JS\np2: TS 9S\n" + columns())
    assert state.ended is None
    moves = CHEER.legal_moves(state)
    assert moves[0] == mv("p2", "f") and mv("p1", "c1", 3) in moves
    state = CHEER.apply(CHEER.apply(state, mv("p2", "f")), mv("p2", "f"))
    for _ in range(3):
        state = CHEER.apply(state, mv("p1", "f"))
    assert state.ended is Ending.WON and CHEER.score(state) == 3


# --- moves: form and refusals ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("move", "message"),
    [
        (Move("play", "c1", "f"), "cheer moves are"),
        (Move("move", "f", "c1", 1), "from c1-c7 or p1-p3"),
        (Move("move", "c9", "f"), "from c1-c7 or p1-p3"),
        (Move("move", "c1", "x1", 1), "a move goes to a column"),
        (Move("move", "c1", "f", 1), "has no count"),
        (Move("move", "c1", "c2"), "gives the number of cards"),
        (Move("move", "c1", "p1"), "gives the number of cards"),
    ],
)
def test_cheer_malformed_moves_are_bad_moves(move: Move, message: str) -> None:
    with pytest.raises(BadMove, match=message):
        CHEER.apply(layout(COLUMN_PLAY, found=COLUMN_FOUND), move)


def test_cheer_legal_moves_are_deterministic_without_duplicates_and_canonical() -> None:
    state = layout(COLUMN_PLAY, found=COLUMN_FOUND)
    moves = CHEER.legal_moves(state)
    assert moves == CHEER.legal_moves(state) and len(set(moves)) == len(moves)
    assert all((m.count == 0) == (m.dst == "f") for m in moves)
    parking = [m for m in moves if m.dst.startswith("p")]
    assert len(parking) == 3 * (1 + 2 + 4 + 3 + 1)  # runs at c1..c5: 1, 2, 4, 3, 1 cards
    assert set(moves) <= set(CHEER.candidate_moves(state))


def test_cheer_move_text_and_wire_round_trip() -> None:
    for move in (mv("c3", "f"), mv("c2", "c5", 3), mv("p1", "c7", 1)):
        assert Move.from_wire(move.wire()) == move and parse_move(move.text()) == move
        assert CHEER.parse_move(move.text()) == move
    assert mv("c2", "c5", 3).wire() == ["move", "c2", "c5", 3] and mv("c3", "f").text() == "move c3 f"


def test_cheer_move_shorthands() -> None:
    assert CHEER.parse_move("c3 f") == mv("c3", "f")
    assert CHEER.parse_move("C4 C2 2") == mv("c4", "c2", 2)
    assert CHEER.parse_move("c5 p1") == mv("c5", "p1", 1)
    assert CHEER.parse_move("move c5 p1") == mv("c5", "p1", 1)


# --- text layouts ----------------------------------------------------------------------------------------


def test_cheer_layout_round_trips_dealt_and_played() -> None:
    state = CHEER.deal(1)
    for move in [None, *CHEER.legal_moves(state)[:3]]:
        current = state if move is None else CHEER.apply(state, move)
        text = CHEER.to_text(current)
        again = CHEER.from_text(text)
        assert CHEER.to_text(again) == text and CHEER.legal_moves(again) == CHEER.legal_moves(current)
    played = layout(PARKED, PARKED_SPACES, found=COLUMN_FOUND, opened="p1 p3")
    text = CHEER.to_text(played)
    assert text.startswith("Foundations: TC QD 9H 8S\nOpened: p1 p3\np1: JC\np2:\np3:\nc1: KC QC\n")
    assert CHEER.to_text(CHEER.from_text(text)) == text and CHEER.from_text(text).opened == 0b101


def test_cheer_layout_reading_computes_the_ending() -> None:
    won = CHEER.from_text("Foundations: KC KD KH KS\n" + columns())
    assert won.ended is Ending.WON and CHEER.score(won) == 12
    lost = CHEER.from_text(CHEER.to_text(layout(PARKED, PARKED_SPACES, COLUMN_FOUND, "p1 p2 p3")))
    assert lost.ended is Ending.LOST and CHEER.score(lost) == 0


def columns(c1: str = "", skip: int = 0) -> str:
    """Column lines c1..c7 (c1 holding ``c1``), leaving out the last ``skip`` of them."""
    return "".join(f"c{i}: {c1 if i == 1 else ''}".rstrip() + "\n" for i in range(1, 8 - skip))


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("Foundations: KC KD KH KS\n" + columns(skip=2), "needs a line for every column; missing: c6, c7"),
        ("Foundations: KC KD KH QS\n" + columns(), "cards missing from the layout: KS"),
        ("Foundations: KC KD KH QS\n" + columns("KS KS"), "line 2: card KS appears more than 1"),
        ("Foundations: KC KD KH QS\n" + columns("KS 5S"), "line 2: 5S is not a Cheer card"),
        ("Foundations: KC KD KH 5S\n" + columns(), "line 1: 5S is not a Cheer card"),
        ("Foundations: KC KD KH QS QH\n" + columns(), "line 1: two tops for the hearts foundation"),
        ("Foundations: KC KD KH TS\np1: JS KS QS\n" + columns(), "line 2: p1 holds JS KS QS: a parking space holds"),
        ("Foundations: KC KD KH QS\nOpened: p2\np1: KS\n" + columns(), "p1 hold cards but are not listed as opened"),
        ("Foundations: KC KD KH KS\nOpened: p4\n" + columns(), "line 2: 'p4' is not a parking space"),
        ("Foundations: KC KD KH KS\nc8:\n" + columns(), "line 2: expected"),
        ("Foundations: KC KD KH KS\nc1 KS\n" + columns(), "line 2: expected"),
        ("Foundations: KC KD KH KS\nc1:\n" + columns(), "line 3: a second 'c1' line"),
        ("Foundations: KC KD KH KS\n" + columns("XX"), "line 2: not a card"),
    ],
)
def test_cheer_layout_errors(text: str, message: str) -> None:
    with pytest.raises(BadLayout, match=message):
        CHEER.from_text(text)


def test_cheer_layout_options_are_resolved() -> None:
    state = CHEER.from_text(SEED_1, {"win_loss": True})
    assert state.options == {"win_loss": True}
    assert parse_card("TC") == state.columns[0][0]


# --- view and render -------------------------------------------------------------------------------------


def test_cheer_render_shows_every_place_name() -> None:
    state = layout(PARKED, PARKED_SPACES, found=COLUMN_FOUND, opened="p1")
    text = CHEER.render(CHEER.view(state))
    for name in ("f:", "p1: JC", "p2:", "p3:", "c1: KC QC", "c7:"):
        assert name in text
    assert "TC  QD  9H  8S" in text and "p2: .   (never opened)" in text and "opened: 1 (p1)" in text


# --- added by the rulings audit ---------------------------------------------------------------------

# Hearts and spades left: KH, TS, JS, QS, KS.
REFILL = "Foundations: KC KD QH 9S\nc1: TS KH\nc2: JS KS QS\nc3:\nc4:\nc5:\nc6:\nc7:\n"


@pytest.mark.parametrize(("second", "points", "opened"), [("p1", 10, 0b001), ("p2", 3, 0b011)])
def test_ruling_cheer_refilling_an_opened_parking_space_costs_nothing(second: str, points: int, opened: int) -> None:
    state = CHEER.from_text(REFILL)
    for move in (mv("c1", "p1", 1), mv("c1", "f"), mv("p1", "f")):  # KH parked in p1, then home
        state = CHEER.apply(state, move)
    assert state.parking[0] == () and state.opened == 0b001
    # QS parked again: into p1 (opened before: free) or into p2 (a second space).
    for move in (mv("c2", second, 1), mv("c2", "c1", 1), mv("c2", "f"), mv(second, "f"), mv("c1", "f")):
        state = CHEER.apply(state, move)
    assert state.ended is Ending.WON and state.opened == opened
    assert CHEER.score(state) == points


def test_ruling_cheer_a_parked_run_moves_back_onto_a_column_card_one_rank_higher() -> None:
    state = CHEER.from_text("Foundations: KC KD KH 8S\np1: QS JS TS 9S\nc1: KS\nc2:\nc3:\nc4:\nc5:\nc6:\nc7:\n")
    moves = CHEER.legal_moves(state)
    assert mv("p1", "c1", 4) in moves and mv("p1", "f") in moves
    after = CHEER.apply(state, mv("p1", "c1", 4))
    assert texts(after.columns[0]) == ["KS", "QS", "JS", "TS", "9S"] and after.parking[0] == ()
    with pytest.raises(IllegalMove, match="JS does not go on KS"):
        CHEER.apply(state, mv("p1", "c1", 3))


def test_ruling_cheer_deal_uses_the_documented_shuffle_column_by_column() -> None:
    for seed in (0, 1, 2**200 + 7):
        deck = shuffle(DECK, seed, "deal")
        state = CHEER.deal(seed)
        starts = [0, 2, 6, 12, 20, 26, 30, 32]
        assert state.columns == tuple(tuple(deck[a:b]) for a, b in pairwise(starts))


def test_ruling_cheer_out_of_time_scores_0_even_with_every_card_but_one_home() -> None:
    state = _nearly_won("", False)
    over = CHEER.end(state, Ending.OUT_OF_TIME)
    assert over.ended is Ending.OUT_OF_TIME and CHEER.score(over) == 0 and CHEER.legal_moves(over) == []


def test_ruling_cheer_a_run_is_one_suit_cards_of_two_suits_never_move_together() -> None:
    # JH under TS: one rank apart, but two suits, so not a run.
    state = CHEER.from_text("Foundations: KC KD 9H 8S\nc1: JH TS\nc2: KH QH TH\nc3: KS QS JS 9S\nc4:\nc5:\nc6:\nc7:\n")
    assert mv("c1", "p1", 2) not in CHEER.legal_moves(state) and mv("c1", "p1", 1) in CHEER.legal_moves(state)
    with pytest.raises(IllegalMove, match="JH TS is not a run"):
        CHEER.apply(state, mv("c1", "p1", 2))
    with pytest.raises(IllegalMove, match="QH TH is not a run"):  # same suit, but a rank missing
        CHEER.apply(state, mv("c2", "p1", 2))
