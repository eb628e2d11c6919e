"""Gaps: one test per ruling (named after it), hand-made layouts, every move and end."""

from __future__ import annotations

import random

import pytest

from parlour.games import gaps  # noqa: F401
from parlour.games.base import CONCEDE, Ending, Move
from parlour.games.cards import RANK, TEXT, parse_card, parse_cards, standard_deck
from parlour.games.errors import BadLayout, BadMove, IllegalMove
from parlour.games.gaps import GAP, GapsState
from parlour.games.registry import get_game
from parlour.games.replay import replay
from parlour.games.shuffle import shuffle

GAPS = get_game("gaps")

# Pinned: the deal of seed 2024.
DEAL_2024 = """\
Seed: 2024
Redeals used: 0
2D -- KD TH 4H 8D 7H QD 6D TC 5D 3C 8S
2C KH JH JD 4S 8C 3D 3S TS 9H JS 6S --
2H 9D KS 9C QC 9S 7D 7S 3H 5S TD KC QS
2S 6H 4D JC -- 8H QH 6C 5H 7C 5C -- 4C
"""

# No gap can be filled: a5 is right of KH, b4 right of KC, b5 right of a gap, c13 right of KD.
# Runs: a 2C-4C (3), b 2D-3D (2), c 2H-QH (11), d 2S-QS (11): score 27.
STUCK_ROWS = """\
2C 3C 4C KH -- 5C 6C 7C 8C 9C TC JC QC
2D 3D KC -- -- 4D 5D 6D 7D 8D 9D TD JD
2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KD --
2S 3S 4S 5S 6S 7S 8S 9S TS JS QS QD KS
"""

NEARLY_WON = """\
2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC --
2D 3D 4D 5D 6D 7D 8D 9D TD JD QD KD --
2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH --
2S 3S 4S 5S 6S 7S 8S 9S TS JS QS -- KS
"""


def layout(rows: str, seed: int | None = None, redeals: int | None = None) -> str:
    head = ""
    if seed is not None:
        head += f"Seed: {seed}\n"
    if redeals is not None:
        head += f"Redeals used: {redeals}\n"
    return head + rows


def cell(name: str) -> int:
    return "abcd".index(name[0]) * 13 + int(name[1:]) - 1


def at(state: GapsState, name: str) -> str:
    c = state.cells[cell(name)]
    return "--" if c == GAP else TEXT[c]


def fill(name: str) -> Move:
    return Move("fill", name)


# --- the deal ---------------------------------------------------------------------------


def test_ruling_gaps_twos_go_to_column_1_in_the_order_they_come_in_the_shuffled_deck() -> None:
    for seed in (1, 2024, 99999):
        deck = shuffle(standard_deck(), seed, "deal")
        twos = [c for c in deck if RANK[c] == 2]
        state = GAPS.deal(seed)
        assert [state.cells[r * 13] for r in range(4)] == twos


def test_ruling_gaps_other_48_dealt_twelve_to_a_row_then_aces_removed_as_gaps() -> None:
    seed = 31337
    deck = shuffle(standard_deck(), seed, "deal")
    rest = [c for c in deck if RANK[c] != 2]
    state = GAPS.deal(seed)
    for r in range(4):
        row = state.cells[r * 13 + 1 : r * 13 + 13]
        assert row == tuple(GAP if RANK[c] == 1 else c for c in rest[r * 12 : r * 12 + 12])
    assert len(state.gaps) == 4 and all(state.cells[g] == GAP for g in state.gaps)
    assert not any(RANK[c] == 1 for c in state.cells if c != GAP)
    assert sorted(GAPS.cards(state)) == list(range(52))


def test_gaps_deal_for_a_pinned_seed() -> None:
    state = GAPS.deal(2024)
    assert GAPS.to_text(state) == DEAL_2024
    assert at(state, "a1") == "2D" and at(state, "a2") == "--" and at(state, "a3") == "KD"


def test_ruling_gaps_deal_is_a_pure_function_of_the_seed() -> None:
    assert GAPS.to_text(GAPS.deal(77)) == GAPS.to_text(GAPS.deal(77))
    assert GAPS.deal(77).cells != GAPS.deal(78).cells


def test_ruling_gaps_nothing_is_hidden_and_the_seed_never_appears_in_the_view() -> None:
    seed = 2**255 + 123456789
    state = GAPS.deal(seed)
    assert GAPS.hidden_cards(state) == []
    for viewer in ("player", "public"):
        view = GAPS.view(state, viewer)
        shown = [c for row in view["board"]["rows"] for c in row if c is not None]
        assert sorted(shown) == sorted(TEXT[c] for c in standard_deck() if RANK[c] != 1)
        assert str(seed) not in repr(view) and str(seed) not in GAPS.render(view)
    assert f"Seed: {seed}" in GAPS.to_text(state)


# --- filling gaps -----------------------------------------------------------------------


def test_ruling_gaps_gap_takes_the_next_rank_of_the_same_suit_as_its_left_neighbour() -> None:
    state = GAPS.from_text(DEAL_2024)
    assert GAPS.legal_moves(state) == [fill("a2"), fill("b13"), fill("d5"), fill("d12")]
    after = GAPS.apply(state, fill("a2"))  # 3D comes from b7, leaving a gap there
    assert at(after, "a2") == "3D" and at(after, "b7") == "--"
    assert after.gaps == (cell("b7"), cell("b13"), cell("d5"), cell("d12"))
    assert fill("b7") in GAPS.legal_moves(after)  # right of 8C: takes 9C
    after = GAPS.apply(after, fill("b7"))
    assert at(after, "b7") == "9C" and at(after, "c4") == "--"
    assert sorted(GAPS.cards(after)) == list(range(52))


def test_ruling_gaps_gap_right_of_a_king_cannot_be_filled() -> None:
    state = GAPS.from_text(layout(STUCK_ROWS))
    assert fill("a5") not in GAPS.legal_moves(state) and fill("c13") not in GAPS.legal_moves(state)
    with pytest.raises(IllegalMove, match=r"right of KH.*king"):
        GAPS.apply(state, fill("a5"))
    with pytest.raises(IllegalMove, match="right of KD"):
        GAPS.apply(state, fill("c13"))


def test_ruling_gaps_gap_right_of_another_gap_cannot_be_filled() -> None:
    state = GAPS.from_text(layout(STUCK_ROWS))
    assert fill("b5") not in GAPS.legal_moves(state)
    with pytest.raises(IllegalMove, match="right of another gap"):
        GAPS.apply(state, fill("b5"))


def test_gaps_fill_of_a_cell_that_is_no_gap_is_refused() -> None:
    state = GAPS.from_text(DEAL_2024)
    with pytest.raises(IllegalMove, match="a3 holds KD, not a gap"):
        GAPS.apply(state, fill("a3"))
    with pytest.raises(IllegalMove, match="not a gap"):
        GAPS.apply(state, fill("a1"))


def test_gaps_malformed_moves_are_bad_moves() -> None:
    state = GAPS.from_text(DEAL_2024)
    for move in (fill("e1"), fill("a14"), fill("a0"), Move("fill"), Move("fill", "a2", "b7"), Move("move", "a2")):
        with pytest.raises(BadMove):
            GAPS.apply(state, move)
    with pytest.raises(BadMove):
        GAPS.apply(state, Move("redeal", "a2"))


def test_ruling_gaps_column_1_never_holds_a_gap_the_twos_never_move() -> None:
    chooser = random.Random(5)
    for seed in range(20):
        state = GAPS.deal(seed)
        twos = [state.cells[r * 13] for r in range(4)]
        while state.ended is None:
            state = GAPS.apply(state, chooser.choice(GAPS.legal_moves(state)))
            assert [state.cells[r * 13] for r in range(4)] == twos
    with pytest.raises(BadLayout, match="column 1"):
        GAPS.from_text(DEAL_2024.replace("2D -- KD", "-- 2D KD"))


# --- redeals ----------------------------------------------------------------------------


def test_ruling_gaps_redeal_only_when_stuck_and_then_the_only_listed_move() -> None:
    state = GAPS.from_text(DEAL_2024)
    assert Move("redeal") not in GAPS.legal_moves(state)
    with pytest.raises(IllegalMove, match=r"only when no gap can be filled.*a2 takes 3D"):
        GAPS.apply(state, Move("redeal"))
    stuck = GAPS.from_text(layout(STUCK_ROWS))
    assert stuck.ended is None
    assert GAPS.legal_moves(stuck) == [Move("redeal")]


def redealt_cells(rows: str, seed: int, n: int) -> dict[str, str]:
    """What redeal ``n`` puts in each empty cell of the STUCK_ROWS-shaped ``rows``, by the ruling."""
    empty = [f"a{c}" for c in range(4, 14)] + [f"b{c}" for c in range(3, 14)] + ["c12", "c13", "d12", "d13"]
    tokens = rows.split()
    picked = [parse_card(tokens[cell(name)]) for name in empty if tokens[cell(name)] != "--"]
    aces = [c for c in standard_deck() if RANK[c] == 1]
    dealt = shuffle(sorted(picked + aces), seed, f"gaps-redeal-{n}")
    return {name: "--" if RANK[c] == 1 else TEXT[c] for name, c in zip(empty, dealt, strict=True)}


def test_ruling_gaps_redeal_picks_up_every_card_outside_the_runs_and_deals_them_with_the_aces() -> None:
    state = GAPS.from_text(layout(STUCK_ROWS, seed=42))
    after = GAPS.apply(state, Move("redeal"))
    assert after.redeals == 1
    # The runs stay: 2C-4C, 2D-3D, 2H-QH, 2S-QS.
    for name in ("a1", "a2", "a3", "b1", "b2", "c11", "d11"):
        assert at(after, name) == at(state, name)
    # Everything else, even 5C-QC standing in order mid-row (the source's example is a misprint),
    # was picked up and dealt again into the empty cells, row by row, left to right.
    expected = redealt_cells(STUCK_ROWS, 42, 1)
    assert {name: at(after, name) for name in expected} == expected
    assert list(expected.values()).count("--") == 4 and len(after.gaps) == 4
    assert sorted(GAPS.cards(after)) == list(range(52))


def test_ruling_gaps_redeal_is_a_pure_function_of_seed_number_and_the_set_of_cards() -> None:
    swapped = STUCK_ROWS.replace("5C 6C 7C", "7C 6C 5C").replace("4D 5D", "5D 4D")
    one = GAPS.apply(GAPS.from_text(layout(STUCK_ROWS, seed=9)), Move("redeal"))
    two = GAPS.apply(GAPS.from_text(layout(swapped, seed=9)), Move("redeal"))
    assert one.cells == two.cells  # the same cards picked up, in another order: the same redeal
    other_seed = GAPS.apply(GAPS.from_text(layout(STUCK_ROWS, seed=10)), Move("redeal"))
    assert other_seed.cells != one.cells
    second = GAPS.apply(GAPS.from_text(layout(STUCK_ROWS, seed=9, redeals=1)), Move("redeal"))
    assert second.redeals == 2 and second.cells != one.cells
    expected = redealt_cells(STUCK_ROWS, 9, 2)
    assert {name: at(second, name) for name in expected} == expected


def test_ruling_gaps_redeal_at_most_twice_then_stuck() -> None:
    once = GAPS.from_text(layout(STUCK_ROWS, redeals=1))
    assert once.ended is None and GAPS.legal_moves(once) == [Move("redeal")]
    done = GAPS.from_text(layout(STUCK_ROWS, redeals=2))
    assert done.ended is Ending.STUCK and GAPS.legal_moves(done) == []
    with pytest.raises(IllegalMove, match="over"):
        GAPS.apply(done, Move("redeal"))
    # Played out: after two redeals, a stuck position ends the game.
    chooser = random.Random(3)
    state = GAPS.deal(8)
    while state.ended is None:
        state = GAPS.apply(state, chooser.choice(GAPS.legal_moves(state)))
    assert state.redeals == 2 and state.ended is Ending.STUCK


def test_gaps_view_counts_redeals() -> None:
    view = GAPS.view(GAPS.from_text(layout(STUCK_ROWS, redeals=1)))
    assert view["board"]["redeals_used"] == 1 and view["board"]["redeals_left"] == 1
    assert view["board"]["rows"][0][4] is None and view["board"]["rows"][0][3] == "KH"
    assert view["board"]["removed"] == ["AC", "AD", "AH", "AS"]
    assert view["moves"] == [["redeal"]]
    text = GAPS.render(view)
    assert "Redeals left: 1" in text and "a:  2C 3C 4C KH --" in text and "Moves: redeal" in text


# --- ends and score ---------------------------------------------------------------------


def test_ruling_gaps_won_when_every_row_holds_its_suit_from_2_to_king() -> None:
    state = GAPS.from_text(NEARLY_WON)
    assert state.ended is None and GAPS.legal_moves(state) == [fill("d12")]
    state = GAPS.apply(state, fill("d12"))
    assert state.ended is Ending.WON and GAPS.score(state) == 48
    assert GAPS.legal_moves(state) == []
    won = GAPS.from_text(NEARLY_WON.replace("QS -- KS", "QS KS --"))
    assert won.ended is Ending.WON  # won, not stuck, though no gap can be filled


def test_ruling_gaps_stuck_with_no_redeal_left_ends_the_game() -> None:
    state = GAPS.from_text(layout(STUCK_ROWS, redeals=2))
    assert state.ended is Ending.STUCK and GAPS.score(state) == 27


def test_ruling_gaps_score_counts_the_run_from_each_rows_2_higher_is_better() -> None:
    assert GAPS.higher_is_better is True and GAPS.score_range == (4, 48)
    assert GAPS.better(30, 20) and not GAPS.better(20, 30)
    assert GAPS.score(GAPS.from_text(layout(STUCK_ROWS))) == 3 + 2 + 11 + 11
    assert GAPS.score(GAPS.from_text(NEARLY_WON)) == 12 + 12 + 12 + 11
    # The minimum: no row's 2 has its 3 beside it.
    assert GAPS.score(GAPS.from_text(DEAL_2024)) == 4
    # A run stops at a gap, at another suit, and at a wrong rank.
    rows = """\
2C 3C -- 4C 5C 6C 7C 8C 9C TC JC QC KC
2D 3D 4S 5D 6D 7D 8D 9D TD JD QD KD --
2H 3H 4H 5H 6H 7H 9H 8H TH JH QH KH --
2S 3S 4D 5S 6S 7S 8S 9S TS JS QS KS --
"""
    assert GAPS.score(GAPS.from_text(rows)) == 2 + 2 + 6 + 2


def test_ruling_gaps_concede_at_any_time_scores_as_it_stands() -> None:
    state = GAPS.apply(GAPS.from_text(DEAL_2024), CONCEDE)
    assert state.ended is Ending.CONCEDED and GAPS.score(state) == 4
    assert GAPS.legal_moves(state) == []
    stuck = GAPS.from_text(layout(STUCK_ROWS))  # stuck, a redeal left: conceding scores the runs
    for over in (GAPS.apply(stuck, CONCEDE), GAPS.end(stuck, Ending.OUT_OF_TIME)):
        assert over.ended in (Ending.CONCEDED, Ending.OUT_OF_TIME) and GAPS.score(over) == 27


# --- layouts and moves ------------------------------------------------------------------


def test_gaps_layout_round_trips_dealt_and_played() -> None:
    state = GAPS.deal(555)
    chooser = random.Random(1)
    states = [state]
    while state.ended is None:
        state = GAPS.apply(state, chooser.choice(GAPS.legal_moves(state)))
        states.append(state)
    assert any(s.redeals for s in states)
    for s in states:
        text = GAPS.to_text(s)
        back = GAPS.from_text(text)
        assert GAPS.to_text(back) == text
        assert GAPS.legal_moves(back) == GAPS.legal_moves(s)
        assert back.ended == s.ended


def test_gaps_layout_without_headers_means_seed_0_and_no_redeal_used() -> None:
    state = GAPS.from_text(STUCK_ROWS)
    assert state.seed == 0 and state.redeals == 0
    assert GAPS.to_text(state) == "Seed: 0\nRedeals used: 0\n" + STUCK_ROWS
    redealt = GAPS.apply(state, Move("redeal"))
    expected = redealt_cells(STUCK_ROWS, 0, 1)
    assert {name: at(redealt, name) for name in expected} == expected


def test_gaps_replay_reproduces_redeals() -> None:
    chooser = random.Random(2)
    state = GAPS.deal(4242)
    log = []
    while state.ended is None:
        move = chooser.choice(GAPS.legal_moves(state))
        log.append(move)
        state = GAPS.apply(state, move)
    assert Move("redeal") in log
    assert GAPS.state_hash(replay("gaps", None, 4242, [m.wire() for m in log])) == GAPS.state_hash(state)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (DEAL_2024.replace("2S 6H 4D JC -- 8H QH 6C 5H 7C 5C -- 4C\n", ""), "4 row lines"),
        (DEAL_2024 + DEAL_2024.splitlines()[-1] + "\n", "line 7: a Gaps layout has 4 rows"),
        (DEAL_2024.replace(" 8S\n", "\n"), "line 3: a row has 13 cells"),
        (DEAL_2024.replace("KD TH", "AD TH"), "aces are removed"),
        (DEAL_2024.replace("KD TH", "TH TH"), "more than 1"),
        (DEAL_2024.replace("KD TH", "ZZ TH"), "line 3: not a card"),
        (DEAL_2024.replace("2D -- KD", "KD -- 2D"), "column 1 holds the row's 2"),
        (DEAL_2024.replace("2D -- KD", "2D -- --"), "exactly 4 gaps"),
        (DEAL_2024.replace("Seed: 2024", "Seed: x"), "line 1: the seed"),
        (DEAL_2024.replace("Seed: 2024", f"Seed: {2**256}"), "the seed"),
        (DEAL_2024.replace("Redeals used: 0", "Redeals used: 3"), "line 2: 'Redeals used' is 0, 1 or 2"),
        (DEAL_2024.replace("Seed:", "Colour:"), "unknown header"),
    ],
)
def test_gaps_from_text_errors(text: str, message: str) -> None:
    with pytest.raises(BadLayout, match=message):
        GAPS.from_text(text)


def test_gaps_from_text_refuses_a_two_outside_column_1() -> None:
    with pytest.raises(BadLayout, match="the 2s belong in column 1"):
        GAPS.from_text(STUCK_ROWS.replace("2C 3C", "2C 2D").replace("2D 3D", "3C 3D", 1))


def test_gaps_move_text_wire_and_shorthands() -> None:
    for move in (fill("b7"), fill("d13"), Move("redeal")):
        assert Move.from_wire(move.wire()) == move
        assert GAPS.parse_move(move.text()) == move
    assert fill("b7").wire() == ["fill", "b7"] and fill("b7").text() == "fill b7"
    assert GAPS.parse_move("b7") == fill("b7")
    assert GAPS.parse_move(" B7 ") == fill("b7")
    assert GAPS.parse_move("r") == Move("redeal")
    assert GAPS.parse_move("fill c12") == fill("c12")


def test_gaps_candidate_moves_cover_every_cell_and_the_redeal() -> None:
    state = GAPS.from_text(DEAL_2024)
    candidates = list(GAPS.candidate_moves(state))
    assert set(GAPS.legal_moves(state)) <= set(candidates)
    assert len(candidates) == 53 and Move("redeal") in candidates
    for move in candidates:
        if move not in GAPS.legal_moves(state):
            with pytest.raises(IllegalMove):
                GAPS.apply(state, move)


def test_gaps_render_names_every_cell_and_the_card_each_gap_takes() -> None:
    text = GAPS.render(GAPS.view(GAPS.from_text(DEAL_2024)))
    assert " 1  2  3" in text and "13" in text
    assert "d:  2S 6H 4D JC -- 8H" in text
    assert "Moves: a2=3D b13=7S d5=QC d12=6C" in text


def test_gaps_cards_hold_the_removed_aces() -> None:
    state = GAPS.from_text(DEAL_2024)
    assert sorted(GAPS.cards(state)) == list(range(52))
    assert set(parse_cards(["AC", "AD", "AH", "AS"])) <= set(GAPS.cards(state))


# --- added by the rulings audit ---------------------------------------------------------------------

# The rows' 2s in the order spades, hearts, diamonds, clubs: each row is built in its own 2's suit.
OWN_SUITS = """\
2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS --
2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH --
2D 3D 4D 5D 6D 7D 8D 9D TD JD QD -- KD
2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC --
"""


def test_ruling_gaps_each_rows_suit_is_the_suit_of_its_2() -> None:
    state = GAPS.from_text(OWN_SUITS)
    assert state.ended is None and GAPS.score(state) == 12 + 12 + 11 + 12
    assert GAPS.legal_moves(state) == [fill("c12")]  # KD comes after QD: the row of 2D is diamonds
    won = GAPS.apply(state, fill("c12"))
    assert won.ended is Ending.WON and GAPS.score(won) == 48
    # A run of another suit than the row's 2 counts nothing.
    other = OWN_SUITS.replace("2S 3S 4S", "2S 3H 4S").replace("2H 3H 4H", "2H 3S 4H")
    assert GAPS.score(GAPS.from_text(other)) == 1 + 1 + 11 + 12


def test_ruling_gaps_the_aces_are_removed_after_a_redeal_leaving_four_gaps() -> None:
    for seed in range(6):
        after = GAPS.apply(GAPS.from_text(layout(STUCK_ROWS, seed=seed)), Move("redeal"))
        assert len(after.gaps) == 4 and [c for c in after.cells if c != GAP and RANK[c] == 1] == []
        assert sorted(GAPS.cards(after)) == list(range(52))
        # The four gaps lie among the redealt cells, never inside the runs kept in place.
        assert all(g % 13 >= {0: 3, 1: 2, 2: 11, 3: 11}[g // 13] for g in after.gaps)


def test_ruling_gaps_deal_does_not_use_pythons_random(monkeypatch: pytest.MonkeyPatch) -> None:
    dealt = {seed: GAPS.to_text(GAPS.deal(seed)) for seed in (0, 1)}
    redealt = {
        seed: GAPS.to_text(GAPS.apply(GAPS.from_text(layout(STUCK_ROWS, seed=seed)), Move("redeal"))) for seed in (0, 1)
    }

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("the deal used Python's random module")

    for name in ("random", "shuffle", "randrange", "randint", "choice", "sample", "seed", "getrandbits", "Random"):
        monkeypatch.setattr(random, name, refuse)
    for seed in (0, 1):
        assert GAPS.to_text(GAPS.deal(seed)) == dealt[seed]
        stuck = GAPS.from_text(layout(STUCK_ROWS, seed=seed))
        assert GAPS.to_text(GAPS.apply(stuck, Move("redeal"))) == redealt[seed]


def test_gaps_draw_keeps_the_cells_and_draws_the_seed_so_redeals_differ_between_draws() -> None:
    stuck = GAPS.from_text("Seed: 2024\n" + STUCK_ROWS)
    view = GAPS.view(stuck, "player")
    rng = random.Random(3)
    drawn = [GAPS.draw(view, rng) for _ in range(6)]
    assert all(GAPS.view(d, "player") == view for d in drawn)
    assert all(d.cells == stuck.cells for d in drawn)
    redealt = {GAPS.apply(d, Move("redeal")).cells for d in drawn}
    assert len(redealt) == len(drawn)  # six seeds, six different redeals
    assert GAPS.apply(stuck, Move("redeal")).cells not in redealt  # the real seed is not reproduced
