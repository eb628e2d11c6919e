"""Carpet: one test per ruling (named after it), hand-made layouts, every move and end."""

from __future__ import annotations

import pytest

from parlour.games import carpet  # noqa: F401
from parlour.games.base import CONCEDE, Ending, Move
from parlour.games.cards import RANK, TEXT, parse_card, parse_cards, standard_deck
from parlour.games.errors import BadLayout, BadMove, IllegalMove
from parlour.games.registry import get_game
from parlour.games.shuffle import shuffle

CARPET = get_game("carpet")

DEAL = Move("deal")

# The deal of seed 2024, as to_text writes it.
DEAL_2024 = """\
Foundations: AC AD AH AS
Deck: 5H 3H 6C 2D 3S 3C JH 4S 4C KH 7D 5C KD 7S 3D 2C 6D 8C KS 9S JD QS QD QH 7H TH 5D 9H
Discard:
a: 6H TS QC 2S 4D
b: 8H 9C 7C TC 2H
c: 9D 5S 8D TD 6S
d: JS 8S 4H JC KC
"""


def layout(foundations: str, deck: str, discard: str, rows: list[str]) -> str:
    """A layout from its parts; cards of rows may be '--' for an empty cell."""
    lines = [f"Foundations: {foundations}", f"Deck: {deck}".rstrip(), f"Discard: {discard}".rstrip()]
    lines += [f"{r}: {row}" for r, row in zip("abcd", rows, strict=True)]
    return "\n".join(lines) + "\n"


# Clubs and diamonds done; hearts up to 9H; spades up to 9S. Left: TH JH QH KH TS JS QS KS.
NEAR_END_FOUNDATIONS = "KC KD 9H 9S"


def near_end(deck: str, discard: str, cells: list[str]) -> str:
    """A layout with the eight cards above the nines of hearts and spades spread as given."""
    row_cells = cells + ["--"] * (20 - len(cells))
    rows = [" ".join(row_cells[r * 5 : r * 5 + 5]) for r in range(4)]
    return layout(NEAR_END_FOUNDATIONS, deck, discard, rows)


# Twenty cards for a full carpet; with foundations AC AD KH KS the rest are 2C 2D KC KD.
FULL_ROWS = ["3C 4C 5C 6C 7C", "8C 9C TC JC QC", "3D 4D 5D 6D 7D", "8D 9D TD JD QD"]


# --- rulings ----------------------------------------------------------------------------


def test_ruling_carpet_52_cards_aces_on_foundations_twenty_in_carpet_28_in_deck() -> None:
    state = CARPET.deal(2024)
    assert state.foundations == (1, 1, 1, 1)
    assert len(state.carpet) == 20 and all(c >= 0 and RANK[c] != 1 for c in state.carpet)
    assert len(state.deck) == 28 and state.discard == ()
    assert sorted(CARPET.cards(state)) == list(range(52))
    assert CARPET.score(state) == 4


def test_ruling_carpet_deal_order_pinned_for_seed_2024() -> None:
    state = CARPET.deal(2024)
    assert CARPET.to_text(state) == DEAL_2024
    shuffled = shuffle([c for c in standard_deck() if RANK[c] != 1], 2024, "deal")
    assert list(state.carpet) == shuffled[:20]  # row by row, left to right
    assert list(state.deck) == shuffled[20:]  # card 20 dealt first
    assert TEXT[state.carpet[0]] == "6H" and TEXT[state.carpet[5]] == "8H" and TEXT[state.deck[0]] == "5H"


def test_ruling_carpet_deal_is_a_pure_function_of_the_seed() -> None:
    assert CARPET.state_hash(CARPET.deal(99)) == CARPET.state_hash(CARPET.deal(99))
    assert CARPET.to_text(CARPET.deal(99)) != CARPET.to_text(CARPET.deal(100))


def test_ruling_carpet_carpet_face_up_deck_hidden_only_its_count_shown() -> None:
    state = CARPET.deal(7)
    assert sorted(CARPET.hidden_cards(state)) == sorted(state.deck)
    view = CARPET.view(state)
    board = view["board"]
    assert board["deck"] == 28
    assert [len(row) for row in board["carpet"]] == [5, 5, 5, 5]
    text = repr(view) + CARPET.render(view)
    for card in state.deck:
        assert TEXT[card] not in text
    for card in state.carpet:
        assert TEXT[card] in text


def test_ruling_carpet_foundations_build_up_in_suit_from_the_ace() -> None:
    state = CARPET.deal(2024)
    # a1 6H, a4 2S, b5 2H: the twos go up, the six does not.
    legal = CARPET.legal_moves(state)
    assert Move("move", "a4", "f") in legal and Move("move", "b5", "f") in legal
    assert Move("move", "a1", "f") not in legal
    with pytest.raises(IllegalMove, match="6H does not go on the foundation: the hearts pile needs 2H next"):
        CARPET.apply(state, Move("move", "a1", "f"))
    state = CARPET.apply(state, Move("move", "b5", "f"))
    assert state.foundations == (1, 1, 2, 1) and CARPET.view(state)["board"]["foundations"] == ["AC", "AD", "2H", "AS"]
    with pytest.raises(IllegalMove, match="4H does not go on the foundation: the hearts pile needs 3H next"):
        CARPET.apply(state, Move("move", "d3", "f"))  # right suit, skips a rank
    with pytest.raises(IllegalMove, match="the spades pile needs 2S next"):
        CARPET.apply(state, Move("move", "c2", "f"))  # 5S


def test_ruling_carpet_every_carpet_card_and_the_discard_top_may_go_to_a_foundation() -> None:
    text = near_end("TS", "JS QH TH", ["JH", "KH", "QS", "KS"])
    state = CARPET.from_text(text)
    # TH on the discard top, TS in the deck: the discard top is playable, any carpet cell too once wanted.
    assert CARPET.legal_moves(state)[0] == Move("move", "w", "f")
    state = CARPET.apply(state, Move("move", "w", "f"))
    assert state.foundations[2] == 10 and TEXT[state.discard[-1]] == "QH"
    # a1 holds JH: a carpet card from any cell goes up.
    assert Move("move", "a1", "f") in CARPET.legal_moves(state)
    state = CARPET.apply(state, Move("move", "a1", "f"))
    state = CARPET.apply(state, Move("move", "w", "f"))  # QH from the discard
    state = CARPET.apply(state, Move("move", "a2", "f"))  # KH from the carpet
    assert state.foundations[2] == 13
    with pytest.raises(IllegalMove, match="JS does not go on the foundation: the spades pile needs TS next"):
        CARPET.apply(state, Move("move", "w", "f"))  # only the top of the discard, and only if it fits


def test_ruling_carpet_only_the_discard_top_is_available() -> None:
    state = CARPET.from_text(near_end("", "TH JS", ["TS", "JH", "QS", "KS", "QH", "KH"]))
    # TH lies under JS: it cannot go up until JS has gone.
    assert Move("move", "a1", "f") in CARPET.legal_moves(state)  # TS
    assert Move("move", "w", "f") not in CARPET.legal_moves(state)
    with pytest.raises(IllegalMove, match="JS does not go on the foundation"):
        CARPET.apply(state, Move("move", "w", "f"))


def test_ruling_carpet_player_may_deal_at_any_time_deck_top_onto_discard() -> None:
    state = CARPET.deal(2024)
    legal = CARPET.legal_moves(state)
    assert DEAL in legal and Move("move", "a4", "f") in legal  # even with foundation moves waiting
    after = CARPET.apply(state, DEAL)
    assert after.discard == (parse_card("5H"),) and after.deck == state.deck[1:]
    after = CARPET.apply(after, DEAL)
    assert after.discard == (parse_card("5H"), parse_card("3H")) and len(after.deck) == 26
    assert CARPET.view(after)["board"]["discard"] == ["5H", "3H"]


def test_ruling_carpet_no_redeal_when_the_deck_is_empty() -> None:
    state = CARPET.from_text(near_end("", "TH", ["TS", "JH", "QS", "KS", "QH", "KH", "JS"]))
    assert DEAL not in CARPET.legal_moves(state)
    with pytest.raises(IllegalMove, match="the deck is empty, and there are no redeals"):
        CARPET.apply(state, DEAL)


def test_ruling_carpet_empty_cell_filled_only_from_the_discard_top() -> None:
    state = CARPET.from_text(near_end("KS", "QS TH", ["TS", "JH", "JS", "QH", "KH"]))
    # a1..a5 hold cards; b1 onward are empty.
    legal = CARPET.legal_moves(state)
    assert Move("move", "w", "b2") in legal and Move("move", "w", "d5") in legal
    assert Move("move", "w", "a1") not in legal
    after = CARPET.apply(state, Move("move", "w", "c3"))
    assert TEXT[after.carpet[12]] == "TH" and after.discard == (parse_card("QS"),)
    with pytest.raises(IllegalMove, match="filled only from the discard pile, not from cell a1"):
        CARPET.apply(state, Move("move", "a1", "b2"))
    with pytest.raises(IllegalMove, match=r"cell a2 is not empty \(it holds JH\)"):
        CARPET.apply(state, Move("move", "w", "a2"))
    with pytest.raises(IllegalMove, match="cell b2 is empty"):
        CARPET.apply(state, Move("move", "b2", "c2"))
    emptied = CARPET.from_text(near_end("TH", "", ["TS", "JH", "QS", "KS", "QH", "KH", "JS"]))
    assert [m for m in CARPET.legal_moves(emptied) if m.dst != "f"] == [DEAL]
    with pytest.raises(IllegalMove, match="the discard pile is empty"):
        CARPET.apply(emptied, Move("move", "w", "b3"))


def test_ruling_carpet_won_when_all_52_on_the_foundations() -> None:
    state = CARPET.from_text(layout("KC KD KH QS", "", "KS", ["-- -- -- -- --"] * 4))
    assert state.ended is None and CARPET.legal_moves(state)[0] == Move("move", "w", "f")
    state = CARPET.apply(state, Move("move", "w", "f"))
    assert state.ended is Ending.WON and CARPET.score(state) == 52
    assert CARPET.legal_moves(state) == []
    won = CARPET.from_text(layout("KC KD KH KS", "", "", ["-- -- -- -- --"] * 4))
    assert won.ended is Ending.WON


def test_ruling_carpet_stuck_when_deck_empty_and_nothing_can_move() -> None:
    # Deck empty, the discard top (KD) does not fit, nothing in the carpet fits, but d5 is empty.
    one_gap = FULL_ROWS[:3] + ["8D 9D TD JD --"]
    state = CARPET.from_text(layout("AC AD KH KS", "", "2C 2D QD KC KD", one_gap))
    assert state.ended is None  # filling the empty cell is a move
    assert CARPET.legal_moves(state) == [Move("move", "w", "d5")]
    state = CARPET.apply(state, Move("move", "w", "d5"))
    assert state.ended is Ending.STUCK and CARPET.legal_moves(state) == []
    # Now a stuck position: deck empty, no cell empty, the discard top does not fit.
    stuck = CARPET.from_text(layout("AC AD KH KS", "", "2C 2D KC KD", FULL_ROWS))
    assert stuck.ended is Ending.STUCK and CARPET.legal_moves(stuck) == []
    assert CARPET.score(stuck) == 1 + 1 + 13 + 13
    with pytest.raises(IllegalMove, match="over"):
        CARPET.apply(stuck, DEAL)


def test_ruling_carpet_not_stuck_while_the_deck_has_cards() -> None:
    state = CARPET.from_text(layout("AC AD KH KS", "KD", "2C 2D KC", FULL_ROWS))
    assert state.ended is None and CARPET.legal_moves(state) == [DEAL]
    state = CARPET.apply(state, DEAL)
    assert state.ended is Ending.STUCK


def test_ruling_carpet_score_is_cards_on_foundations_4_to_52_higher_is_better() -> None:
    assert CARPET.higher_is_better is True and CARPET.score_range == (4, 52)
    assert CARPET.better(52, 4) and not CARPET.better(4, 52)
    assert CARPET.score(CARPET.deal(5)) == 4
    state = CARPET.apply(CARPET.deal(2024), Move("move", "a4", "f"))
    assert CARPET.score(state) == 5
    state = CARPET.from_text(near_end("", "TH", ["TS", "JH", "QS", "KS", "QH", "KH", "JS"]))
    assert CARPET.score(state) == 13 + 13 + 9 + 9


def test_ruling_carpet_concede_ends_and_scores_as_it_stands() -> None:
    state = CARPET.apply(CARPET.deal(2024), Move("move", "b5", "f"))
    state = CARPET.apply(state, CONCEDE)
    assert state.ended is Ending.CONCEDED and CARPET.score(state) == 5
    assert CARPET.legal_moves(state) == []


def test_ruling_carpet_every_playout_ends_by_itself() -> None:
    for seed in range(40):
        state = CARPET.deal(seed)
        moves = 0
        while state.ended is None:
            legal = CARPET.legal_moves(state)
            state = CARPET.apply(state, legal[(seed + moves) % len(legal)])
            moves += 1
            assert moves <= 110
        assert state.ended in (Ending.WON, Ending.STUCK)


# --- moves --------------------------------------------------------------------------------


def test_carpet_legal_moves_order_and_contents() -> None:
    state = CARPET.from_text(near_end("KS", "QS TH", ["TS", "JH", "JS", "QH", "KH"]))
    moves = CARPET.legal_moves(state)
    fills = [Move("move", "w", f"{r}{c}") for r in "bcd" for c in range(1, 6)]
    assert moves == [Move("move", "a1", "f"), Move("move", "w", "f"), *fills, DEAL]


def test_carpet_malformed_moves_are_bad_moves() -> None:
    state = CARPET.deal(2024)
    for move in (
        Move("play", "a1"),
        Move("move", "e1", "f"),
        Move("move", "a6", "f"),
        Move("move", "a1", "w"),
        Move("move", "f", "a1"),
        Move("move", "s", "w"),
        Move("move", "a1", "f", 1),
        Move("move", "a1"),
        Move("deal", "s"),
        Move("deal", "", "", 1),
    ):
        with pytest.raises(BadMove):
            CARPET.apply(state, move)


def test_carpet_candidate_moves_cover_the_legal_ones_and_refuse_the_rest() -> None:
    state = CARPET.deal(2024)
    for _ in range(6):
        state = CARPET.apply(state, DEAL)
    state = CARPET.apply(state, Move("move", "a4", "f"))
    legal = CARPET.legal_moves(state)
    candidates = list(CARPET.candidate_moves(state))
    assert set(legal) <= set(candidates)
    for move in candidates:
        if move not in legal:
            with pytest.raises(IllegalMove):
                CARPET.apply(state, move)


def test_carpet_move_text_wire_and_shorthands() -> None:
    for move in (DEAL, Move("move", "b3", "f"), Move("move", "w", "f"), Move("move", "w", "d5")):
        assert Move.from_wire(move.wire()) == move
        assert CARPET.parse_move(move.text()) == move
    assert CARPET.parse_move("b3") == Move("move", "b3", "f")
    assert CARPET.parse_move("B3 F") == Move("move", "b3", "f")
    assert CARPET.parse_move("w") == Move("move", "w", "f")
    assert CARPET.parse_move("d") == Move("move", "w", "f")
    assert CARPET.parse_move("d c2") == Move("move", "w", "c2")
    assert CARPET.parse_move("move d c2") == Move("move", "w", "c2")
    assert CARPET.parse_move("s") == DEAL and CARPET.parse_move("t") == DEAL and CARPET.parse_move("deal") == DEAL
    assert Move("move", "w", "b3").wire() == ["move", "w", "b3"]


# --- layouts ------------------------------------------------------------------------------


def test_carpet_layout_round_trips_dealt_and_played() -> None:
    state = CARPET.from_text(DEAL_2024)
    assert CARPET.to_text(state) == DEAL_2024
    assert state == CARPET.deal(2024)
    for move in (DEAL, DEAL, Move("move", "a4", "f"), Move("move", "w", "a4"), Move("move", "b5", "f"), DEAL):
        state = CARPET.apply(state, move)
        again = CARPET.from_text(CARPET.to_text(state))
        assert CARPET.to_text(again) == CARPET.to_text(state)
        assert CARPET.legal_moves(again) == CARPET.legal_moves(state)
    assert "a: 6H TS QC 3H 4D" in CARPET.to_text(state)
    assert "Foundations: AC AD 2H 2S" in CARPET.to_text(state)


def test_carpet_layout_reads_foundations_in_any_order_and_dots_for_empty_cells() -> None:
    text = near_end("", "TH", ["TS", "JH", "QS", "KS", "QH", "KH", "JS"])
    shuffled = text.replace("Foundations: KC KD 9H 9S", "Foundations: 9S 9H KD KC").replace("--", ".")
    assert CARPET.to_text(CARPET.from_text(shuffled)) == text


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (DEAL_2024.replace("Discard:\n", ""), "missing"),
        (DEAL_2024 + "e: 2C\n", "line 8"),
        (DEAL_2024 + "Deck:\n", "line 8: a second 'Deck:'"),
        (DEAL_2024.replace("a: 6H TS QC 2S 4D", "a: 6H TS QC 2S"), "row a holds 5 cells"),
        (DEAL_2024.replace("a: 6H TS QC 2S 4D", "a: 6H TS QC 2S 5H"), "5H appears more than"),
        (DEAL_2024.replace("a: 6H TS QC 2S 4D", "a: 6H TS QC 2S AC"), "AC appears more than"),
        (DEAL_2024.replace("a: 6H TS QC 2S 4D", "a: 6H TS QC 2S --"), "missing from the layout: 4D"),
        (DEAL_2024.replace("Foundations: AC AD AH AS", "Foundations: AC AD AH"), "one per suit"),
        (DEAL_2024.replace("Foundations: AC AD AH AS", "Foundations: AC AD AH AH"), "AH appears more than"),
        (DEAL_2024.replace("Foundations: AC AD AH AS", "Foundations: AC AD AH 2S"), "2S appears more than"),
        (DEAL_2024.replace("a: 6H", "a: 1H"), "not a card"),
    ],
)
def test_carpet_layout_errors(text: str, message: str) -> None:
    with pytest.raises(BadLayout, match=message):
        CARPET.from_text(text)


def test_carpet_render_names_every_place() -> None:
    state = CARPET.apply(CARPET.apply(CARPET.deal(2024), DEAL), Move("move", "b5", "f"))
    text = CARPET.render(CARPET.view(state))
    assert "Foundations (f): AC AD 2H AS" in text
    assert "Discard (w): 5H (1 card)" in text and "Deck (s): 27 cards" in text
    assert " b  8H  9C  7C  TC  .." in text
    assert "    1   2   3   4   5" in text


def test_carpet_cards_counts_every_card_including_foundations() -> None:
    state = CARPET.from_text(near_end("", "TH", ["TS", "JH", "QS", "KS", "QH", "KH", "JS"]))
    assert sorted(CARPET.cards(state)) == list(range(52))
    assert CARPET.hidden_cards(state) == []
    assert sorted(parse_cards(["TH", "TS", "JH", "QS", "KS", "QH", "KH", "JS"])) == sorted(
        c for c in CARPET.cards(state) if c in state.carpet or c in state.discard
    )


# --- added by the rulings audit ---------------------------------------------------------------------


def test_ruling_carpet_out_of_time_ends_and_scores_as_it_stands() -> None:
    state = CARPET.apply(CARPET.deal(2024), Move("move", "a4", "f"))
    over = CARPET.end(state, Ending.OUT_OF_TIME)
    assert over.ended is Ending.OUT_OF_TIME and CARPET.score(over) == 5 and CARPET.legal_moves(over) == []
    with pytest.raises(IllegalMove, match="over"):
        CARPET.apply(over, DEAL)
