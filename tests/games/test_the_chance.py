"""The Chance: one test per ruling (named after it), hand-made layouts, every move and end."""

from __future__ import annotations

import dataclasses
import json
from fractions import Fraction

import pytest

from parlour.games import the_chance  # noqa: F401
from parlour.games.base import CONCEDE, Ending, Move, parse_move
from parlour.games.cards import TEXT, cards_text, parse_card, parse_cards, standard_deck
from parlour.games.errors import BadLayout, BadMove, IllegalMove
from parlour.games.registry import get_game
from parlour.games.shuffle import shuffle

GAME = get_game("the-chance")
TURN = Move("turn")


def mv(src: str, dst: str, count: int = 0) -> Move:
    return Move("move", src, dst, count)


def layout(columns: list[str], found: str = "", stock: str = "", waste: str = "", idle: int = 0, spare: int = 6) -> str:
    """A full layout: ``columns`` are seven 'down | up' strings; every card not named elsewhere
    goes face down at the bottom of column ``spare`` (which must have a face-up card)."""
    used = set(parse_cards(" ".join([*columns, stock, waste]).replace("|", " ").split()))
    for top in parse_cards(found.split()):
        used.update(range(top - top % 13, top + 1))
    rest = cards_text(c for c in standard_deck() if c not in used)
    cols = [col if "|" in col else f"| {col}" for col in columns]
    cols[spare] = f"{rest} {cols[spare]}"
    lines = [f"Foundations: {found}", f"Stock: {stock}", f"Waste: {waste}", f"Idle: {idle}"]
    lines += [f"c{i + 1}: {col}" for i, col in enumerate(cols)]
    return "\n".join(line.rstrip() for line in lines) + "\n"


def state_of(text: str, sequence: str = "alternate"):  # type: ignore[no-untyped-def]
    return GAME.from_text(text, {"sequence": sequence})


# Foundations up to the fours; columns for building (the 'alternate' rule).
BUILD = layout(
    ["KS | 9H 8S", "TC", "TD", "", "QS | JH", "KH QC", "7C"],
    found="4C 4D 4H 4S",
    stock="KD",
)

PINNED_SEED_1 = """\
Foundations:
Stock: 5H 4D 8S AH 8D 9S 3D TH 6C KS JH JC AC 7S 7D 9H 5S TS 2D 4S 9D 3C TC 5C
Waste:
Idle: 1
c1: | QH
c2: AS | 8H
c3: 2S JS | 3S
c4: 8C QC QS | QD
c5: KH 7H 6S 2H | KC
c6: TD 5D 4H 2C 4C | 3H
c7: 6D JD AD 9C 6H 7C | KD
"""


# --- the deal -------------------------------------------------------------------------


def test_ruling_the_chance_klondike_layout_seven_columns_of_one_to_seven_top_face_up_24_in_stock() -> None:
    state = GAME.deal(1)
    assert [len(d) for d in state.down] == [0, 1, 2, 3, 4, 5, 6]
    assert [len(u) for u in state.up] == [1] * 7
    assert len(state.stock) == 24 and state.waste == () and state.found == (0, 0, 0, 0)
    assert sorted(GAME.cards(state)) == list(range(52))


def test_the_chance_deal_for_seed_1_is_pinned() -> None:
    assert GAME.to_text(GAME.deal(1)) == PINNED_SEED_1


def test_the_chance_deal_is_row_wise_klondike_and_the_stock_is_the_rest_in_order() -> None:
    deck = shuffle(standard_deck(), 1, "deal")
    state = GAME.deal(1)
    columns = [state.down[i] + state.up[i] for i in range(7)]
    assert [col[0] for col in columns] == deck[:7]  # row 0: the bottom card of c1..c7
    assert [col[1] for col in columns[1:]] == deck[7:13]  # row 1: c2..c7
    assert [col[-1] for col in columns] == [deck[i] for i in (0, 7, 13, 18, 22, 25, 27)]
    assert list(state.stock) == deck[28:]


def test_ruling_the_chance_deal_is_a_pure_function_of_seed_and_options() -> None:
    assert GAME.to_text(GAME.deal(99)) == GAME.to_text(GAME.deal(99))
    assert GAME.state_hash(GAME.deal(99)) == GAME.state_hash(GAME.deal(99, {"sequence": "alternate"}))
    assert GAME.to_text(GAME.deal(99)) != GAME.to_text(GAME.deal(100))
    # the option changes the rules, not where the cards lie
    assert GAME.to_text(GAME.deal(99, {"sequence": "suit"})) == GAME.to_text(GAME.deal(99))


def test_ruling_the_chance_cards_are_laid_off_already_after_the_deal() -> None:
    # Seed 8 deals AS on top of c4 and AH on top of c7; both go up, and the cards under them turn up.
    state = GAME.deal(8)
    assert state.found == (0, 0, 1, 1)
    assert TEXT[state.up[3][-1]] == "TH" and TEXT[state.up[6][-1]] == "TC"
    assert [len(d) for d in state.down] == [0, 1, 2, 2, 4, 5, 5]
    assert state.idle == 1  # the deal's lay-offs are no move of the player's


# --- building and moving ------------------------------------------------------------------


def test_ruling_the_chance_columns_build_down_in_alternating_colours_by_default() -> None:
    state = state_of(BUILD)
    assert GAME.resolve_options({}) == {"sequence": "alternate"}
    assert set(GAME.legal_moves(state)) == {
        mv("c1", "c2", 2),
        mv("c2", "c5", 1),
        mv("c5", "c6", 1),
        mv("c6", "c4", 2),
        TURN,
    }
    after = GAME.apply(state, mv("c5", "c6", 1))
    assert cards_text(after.up[5]) == "KH QC JH" and cards_text(after.up[4]) == "QS"
    with pytest.raises(IllegalMove, match=r"9H cannot go on TD in c3: .*alternating colours"):
        GAME.apply(state, mv("c1", "c3", 2))
    with pytest.raises(IllegalMove, match="8S cannot go on TC"):
        GAME.apply(state, mv("c1", "c2", 1))


def test_ruling_the_chance_sequence_any_builds_down_regardless_of_suit() -> None:
    state = state_of(BUILD, "any")
    assert set(GAME.legal_moves(state)) == {
        *(mv("c1", "c2", 2), mv("c1", "c3", 2), mv("c2", "c5", 1), mv("c3", "c5", 1)),
        *(mv("c5", "c6", 1), mv("c6", "c4", 2), mv("c7", "c1", 1), TURN),
    }
    after = GAME.apply(state, mv("c1", "c3", 2))
    assert cards_text(after.up[2]) == "TD 9H 8S"
    with pytest.raises(IllegalMove, match=r"8S cannot go on TD in c3: columns build down one rank at a time$"):
        GAME.apply(state, mv("c1", "c3", 1))


def test_ruling_the_chance_sequence_suit_builds_down_in_the_same_suit_only() -> None:
    text = layout(["KS | 9H 8H", "TH", "TC", "", "QS | JS", "KH QH", "7C"], "4C 4D 4H 4S")
    state = state_of(text, "suit")
    assert set(GAME.legal_moves(state)) == {mv("c1", "c2", 2), mv("c6", "c4", 2)}
    with pytest.raises(IllegalMove, match=r"9H cannot go on TC in c3: .*same suit"):
        GAME.apply(state, mv("c1", "c3", 2))
    with pytest.raises(IllegalMove, match="JS cannot go on QH"):
        GAME.apply(state, mv("c5", "c6", 1))


def test_ruling_the_chance_a_whole_sequence_from_any_face_up_card_may_move() -> None:
    text = layout(["9D | KS QH JC TD", "", "KC | QD", "", "", "", "8C"], "4C 4D 4H 4S")
    state = state_of(text)
    assert set(GAME.legal_moves(state)) == {mv("c1", "c3", 2), *(mv("c1", c, 4) for c in ("c2", "c4", "c5", "c6"))}
    after = GAME.apply(state, mv("c1", "c3", 2))  # from the middle: JC and the TD on it
    assert cards_text(after.up[2]) == "QD JC TD" and cards_text(after.up[0]) == "KS QH"
    after = GAME.apply(state, mv("c1", "c2", 4))  # the whole face-up part, headed by the king
    assert cards_text(after.up[1]) == "KS QH JC TD" and cards_text(after.up[0]) == "9D"
    with pytest.raises(IllegalMove, match="TD cannot go on QD"):
        GAME.apply(state, mv("c1", "c3", 1))
    with pytest.raises(IllegalMove, match="c1 has only 4 face-up cards, so 5 cannot move"):
        GAME.apply(state, mv("c1", "c3", 5))


def test_ruling_the_chance_an_empty_column_takes_only_a_king_or_a_king_headed_sequence() -> None:
    state = state_of(BUILD)
    after = GAME.apply(state, mv("c6", "c4", 2))
    assert cards_text(after.up[3]) == "KH QC" and after.up[5] == ()
    with pytest.raises(IllegalMove, match="c4 is empty and takes only a king, not 9H"):
        GAME.apply(state, mv("c1", "c4", 2))
    with pytest.raises(IllegalMove, match="c4 is empty and takes only a king, not QC"):
        GAME.apply(state, mv("c6", "c4", 1))
    waste_king = state_of(layout(["QD", "", "", "", "", "", "8C"], "4C 4D 4H 4S", waste="KS"))
    assert mv("w", "c2") in GAME.legal_moves(waste_king)
    assert cards_text(GAME.apply(waste_king, mv("w", "c2")).up[1]) == "KS"


def test_ruling_the_chance_a_face_down_top_card_turns_up_by_itself() -> None:
    state = GAME.apply(state_of(BUILD), mv("c1", "c2", 2))
    assert cards_text(state.up[0]) == "KS" and state.down[0] == ()
    assert cards_text(state.up[1]) == "TC 9H 8S"


def test_the_chance_column_move_refusals() -> None:
    state = state_of(BUILD)
    with pytest.raises(IllegalMove, match="c4 is empty"):
        GAME.apply(state, mv("c4", "c1", 1))
    for bad in (mv("c1", "c1", 1), mv("c1", "c2"), mv("c1", "f", 1), mv("x1", "c2", 1), mv("c1", "c8", 1)):
        with pytest.raises(BadMove):
            GAME.apply(state, bad)


# --- the waste and the stock ------------------------------------------------------------------


def test_ruling_the_chance_stock_turns_three_at_a_time_fewer_if_fewer_remain() -> None:
    state = state_of(layout(["QD", "", "", "", "", "", "8C"], "4C 4D 4H 4S", stock="KS 9D 7H QH JS"))
    state = GAME.apply(state, TURN)
    assert cards_text(state.waste) == "KS 9D 7H" and cards_text(state.stock) == "QH JS"  # the third card is on top
    state = GAME.apply(state, TURN)
    assert cards_text(state.waste) == "KS 9D 7H QH JS" and state.stock == ()


def test_ruling_the_chance_the_waste_top_may_be_played_to_a_column() -> None:
    state = state_of(layout(["QD", "", "", "", "", "", "8C"], "4C 4D 4H 4S", waste="9H JS"))
    assert GAME.legal_moves(state) == [mv("w", "c1"), TURN]
    after = GAME.apply(state, mv("w", "c1"))
    assert cards_text(after.up[0]) == "QD JS" and cards_text(after.waste) == "9H"
    with pytest.raises(IllegalMove, match="9H cannot go on JS"):
        GAME.apply(after, mv("w", "c1"))
    with pytest.raises(IllegalMove, match="c2 is empty and takes only a king, not 9H"):
        GAME.apply(after, mv("w", "c2"))
    empty = state_of(layout(["QD", "", "", "", "", "", "8C"], "4C 4D 4H 4S", stock="9H"))
    with pytest.raises(IllegalMove, match="the waste is empty"):
        GAME.apply(empty, mv("w", "c1"))
    for bad in (mv("w", "c1", 1), mv("w", "w"), mv("w", "f")):
        with pytest.raises(BadMove):
            GAME.apply(state, bad)


def test_ruling_the_chance_an_empty_stock_turns_the_waste_over_without_limit() -> None:
    state = state_of(layout(["QD JS", "QH", "", "", "", "", "8C"], "4C 4D 4H 4S", waste="KS 9D 7H"))
    assert state.stock == () and TURN in GAME.legal_moves(state)
    for i in range(6):  # a card moves in every pass, so the turning never ends the game
        state = GAME.apply(state, TURN)
        assert cards_text(state.stock) == "KS 9D 7H" and state.waste == () and state.ended is None
        state = GAME.apply(state, TURN)
        assert cards_text(state.waste) == "KS 9D 7H" and state.stock == ()
        state = GAME.apply(state, mv(f"c{1 + i % 2}", f"c{2 - i % 2}", 1))  # JS from QD to QH and back
    assert state.ended is None


def test_the_chance_turn_refusals() -> None:
    state = state_of(layout(["QD", "", "", "", "", "", "8C"], "4C 4D 4H 4S"))
    assert state.ended is Ending.STUCK  # nothing to turn and no column move
    live = dataclasses.replace(state, ended=None)
    with pytest.raises(IllegalMove, match="the stock and the waste are both empty"):
        GAME.apply(live, TURN)
    for bad in (Move("turn", "c1"), Move("undo"), Move("play", "c1"), Move("deal")):
        with pytest.raises(BadMove):
            GAME.apply(live, bad)


# --- automatic lay-offs ---------------------------------------------------------------------------


def test_ruling_the_chance_foundations_build_up_in_suit_from_the_ace() -> None:
    state = state_of(layout(["9D", "", "", "", "", "", "8C"], found="AH", stock="2S 2H KS"))
    state = GAME.apply(state, TURN)  # KS on top: nothing goes
    assert state.found == (0, 0, 1, 0) and cards_text(state.waste) == "2S 2H KS"
    state = GAME.apply(state, mv("w", "c2"))  # KS to an empty column exposes 2H, which goes on AH
    # ... and exposes 2S, which stays: only an ace starts a foundation
    assert state.found == (0, 0, 2, 0) and cards_text(state.waste) == "2S"


def test_ruling_the_chance_a_card_that_can_go_to_a_foundation_goes_at_once() -> None:
    # from_text makes the lay-offs that are due, as after the deal
    state = state_of(layout(["9D | AS", "2S", "", "", "", "", "8C"], waste="AH"))
    assert state.found == (0, 0, 1, 2) and cards_text(state.up[0]) == "9D" and state.up[1] == () and state.waste == ()
    # turning a card that fits lays it off before the player moves again
    state = state_of(layout(["9D", "", "", "", "", "", "8C"], stock="KS QH AC"))
    state = GAME.apply(state, TURN)
    assert state.found == (1, 0, 0, 0) and cards_text(state.waste) == "KS QH" and state.idle == 0


def test_ruling_the_chance_lay_offs_cascade_through_columns_and_the_waste() -> None:
    text = layout(["4S | 9C", "TD", "6H | 6S", "", "", "", "8C"], found="3H 3S", waste="5H 4H 5S")
    state = state_of(text)
    assert state.found == (0, 0, 3, 3)
    state = GAME.apply(state, mv("c1", "c2", 1))
    # 9C leaves 4S, which turns up and goes; then 5S from the waste; then 6S from c3, which turns
    # up 6H; then 4H and 5H from the waste, and 6H from c3.
    assert state.found == (0, 0, 6, 6)
    assert state.up[0] == () and state.up[2] == () and state.waste == ()
    assert cards_text(state.up[1]) == "TD 9C" and state.idle == 0


def test_the_chance_there_are_no_manual_foundation_moves() -> None:
    state = state_of(BUILD)
    assert all(m.dst != "f" for m in GAME.legal_moves(state))
    with pytest.raises(BadMove, match="by themselves"):
        GAME.apply(state, mv("c1", "f", 1))
    with pytest.raises(BadMove, match="by themselves"):
        GAME.apply(state, mv("w", "f"))


# --- the end of the game ----------------------------------------------------------------------


def test_ruling_the_chance_a_pass_and_a_turnover_with_no_card_moving_end_the_game() -> None:
    # Seed 1: no card of the stock is ever on top of the waste with its foundation ready.
    state = GAME.deal(1)
    for _ in range(8):
        state = GAME.apply(state, TURN)
    assert state.stock == () and len(state.waste) == 24 and state.ended is None and state.idle == 1
    state = GAME.apply(state, TURN)
    assert state.ended is Ending.STUCK and state.idle == 2 and len(state.stock) == 24
    assert GAME.legal_moves(state) == []
    with pytest.raises(IllegalMove, match="over"):
        GAME.apply(state, TURN)


def test_ruling_the_chance_a_card_moving_during_the_pass_lets_the_turnover_go_on() -> None:
    text = layout(["QD", "", "", "", "", "", "8C"], "4C 4D 4H 4S", stock="9S 7C JS", idle=1)
    state = GAME.apply(state_of(text), TURN)
    assert cards_text(state.waste) == "9S 7C JS" and state.ended is None
    assert GAME.apply(state, TURN).ended is Ending.STUCK  # the turnover: nothing moved since the deal
    played = GAME.apply(state, mv("w", "c1"))  # JS onto QD
    assert played.idle == 0
    state = GAME.apply(played, TURN)
    assert state.ended is None and state.idle == 1 and cards_text(state.stock) == "9S 7C"
    state = GAME.apply(GAME.apply(state, TURN), TURN)  # a second pass with nothing moving
    assert state.ended is Ending.STUCK
    assert GAME.score(state) == Fraction(16 - 10, 2)


def test_ruling_the_chance_turnover_rule_uses_the_idle_counter_of_the_layout() -> None:
    fresh = layout(["QD", "", "", "", "", "", "8C"], "4C 4D 4H 4S", waste="9S 7C", idle=0)
    state = GAME.apply(state_of(fresh), TURN)
    assert state.ended is None and state.idle == 1
    waiting = state_of(fresh.replace("Idle: 0", "Idle: 1"))
    assert GAME.apply(waiting, TURN).ended is Ending.STUCK
    assert state_of(fresh.replace("Idle: 0", "Idle: 2")).ended is Ending.STUCK
    assert state_of(fresh.replace("Idle: 0\n", "")).idle == 0  # the line may be left out


def test_ruling_the_chance_stuck_when_no_move_at_all_is_legal() -> None:
    text = layout(["4S | 9C", "TD", "6H | 6S", "", "", "", "8C"], found="3H 3S", waste="5H 4H 5S")
    state = GAME.apply(state_of(text), mv("c1", "c2", 1))
    assert state.stock == () and state.waste == () and state.ended is Ending.STUCK
    assert GAME.legal_moves(state) == []
    # a king that can still go to an empty column keeps the game going
    alive = state_of(layout(["9D | KS", "", "", "", "", "", "8C"], "4C 4D 4H 4S"))
    assert alive.ended is None and GAME.legal_moves(alive) == [mv("c1", c, 1) for c in ("c2", "c3", "c4", "c5", "c6")]


def test_ruling_the_chance_won_when_every_card_is_on_the_foundations() -> None:
    for sequence, score in (("any", 8), ("alternate", 42), ("suit", 188)):
        state = state_of(layout(["QC | KC", "", "", "", "", "", ""], "JC KD KH KS", spare=0), sequence)
        assert state.ended is None
        state = GAME.apply(state, mv("c1", "c2", 1))  # KC leaves QC, which goes up, then KC too
        assert state.ended is Ending.WON and sum(state.found) == 52
        assert GAME.score(state) == score and isinstance(GAME.score(state), Fraction)


def test_ruling_the_chance_a_player_may_concede_and_is_scored_as_it_stands() -> None:
    state = GAME.apply(state_of(BUILD), CONCEDE)
    assert state.ended is Ending.CONCEDED and GAME.legal_moves(state) == []
    assert GAME.score(state) == Fraction(16 - 10, 2)
    with pytest.raises(IllegalMove, match="over"):
        GAME.apply(state, mv("c1", "c2", 2))


def test_ruling_the_chance_undo_is_no_move_of_the_engine() -> None:
    state = state_of(BUILD)
    assert all(m.kind in ("move", "turn") for m in GAME.legal_moves(state))
    with pytest.raises(BadMove):
        GAME.apply(state, Move("undo"))


# --- scores ---------------------------------------------------------------------------------------


def _with(state, found: tuple[int, int, int, int], ended: Ending | None):  # type: ignore[no-untyped-def]
    return dataclasses.replace(state, found=found, ended=ended)


@pytest.mark.parametrize(
    ("sequence", "n", "won", "expected"),
    [
        ("any", 52, True, Fraction(32, 4)),
        ("any", 30, True, Fraction(10, 4)),
        ("any", 10, False, Fraction(-10, 4)),
        ("any", 33, False, Fraction(13, 4)),
        ("alternate", 52, True, Fraction(42)),
        ("alternate", 30, True, Fraction(20)),
        ("alternate", 13, False, Fraction(3, 2)),
        ("alternate", 0, False, Fraction(-5)),
        ("suit", 52, True, Fraction(188)),
        ("suit", 30, True, Fraction(100)),
        ("suit", 3, False, Fraction(-2)),
        ("suit", 30, False, Fraction(25)),
    ],
)
def test_ruling_the_chance_score_by_rule_won_and_lost(sequence: str, n: int, won: bool, expected: Fraction) -> None:
    base = GAME.deal(3, {"sequence": sequence})
    found = (min(n, 13), min(max(n - 13, 0), 13), min(max(n - 26, 0), 13), max(n - 39, 0))
    for ended in [Ending.WON] if won else [None, Ending.STUCK, Ending.CONCEDED, Ending.OUT_OF_TIME]:
        assert GAME.score(_with(base, found, ended)) == expected


def test_ruling_the_chance_higher_score_is_better() -> None:
    assert GAME.higher_is_better is True
    assert GAME.better(Fraction(3, 2), Fraction(-5)) and not GAME.better(-5, 0)
    low, high = GAME.score_range
    assert low == -5 and high == 188
    assert GAME.score(GAME.deal(1)) == -5  # nothing laid off, alternate: (0 - 10) / 2
    assert GAME.view(GAME.deal(8, {"sequence": "any"}))["score"] == -4.5  # (2 - 20) / 4


# --- what players see ---------------------------------------------------------------------------


def test_ruling_the_chance_face_down_cards_and_stock_order_are_hidden() -> None:
    state = GAME.deal(8)
    view = GAME.view(state)
    board = view["board"]
    assert board["stock"] == 24 and isinstance(board["stock"], int)
    assert [c["down"] for c in board["columns"]] == [0, 1, 2, 2, 4, 5, 5]
    assert [c["up"] for c in board["columns"]] == [["QD"], ["7D"], ["4D"], ["TH"], ["6D"], ["3S"], ["TC"]]
    assert board["foundations"] == [None, None, "AH", "AS"] and board["idle"] == 1
    dumped = json.dumps(view)
    assert all(TEXT[c] not in dumped for c in GAME.hidden_cards(state))
    assert sorted(GAME.hidden_cards(state)) == sorted([*state.stock, *(c for d in state.down for c in d)])
    assert GAME.view(state, "public")["board"] == board


def test_the_chance_waste_cards_are_face_up_in_the_view() -> None:
    state = GAME.apply(GAME.apply(GAME.deal(1), TURN), TURN)
    assert GAME.view(state)["board"]["waste"] == ["5H", "4D", "8S", "AH", "8D", "9S"]
    assert GAME.hidden_cards(state) == [c for d in state.down for c in d] + list(state.stock)


def test_the_chance_render_shows_every_place_name() -> None:
    state = state_of(layout(["9D | KS", "", "", "", "", "", "8C"], "4C 4H", waste="9S 7C JS"))
    text = GAME.render(GAME.view(state))
    for name in ("c1", "c2", "c7", "Waste w", "C:4C", "D:--", "H:4H", "JS", "## KS", "turn"):
        assert name in text
    assert "ends the game" not in text
    waiting = GAME.render(GAME.view(dataclasses.replace(state, idle=1)))
    assert "turning the waste over now ends the game" in waiting


# --- layouts and moves as text ---------------------------------------------------------------


def test_the_chance_layout_round_trips_on_dealt_and_played_states() -> None:
    state = GAME.deal(8)
    for move in (TURN, TURN, TURN, mv("c6", "c3", 1), TURN):
        state = GAME.apply(state, move)
        text = GAME.to_text(state)
        again = GAME.from_text(text)
        assert GAME.to_text(again) == text
        assert GAME.legal_moves(again) == GAME.legal_moves(state)
        assert GAME.state_hash(again) == GAME.state_hash(state)
    assert "c3: QS 7C | 4D 3S\n" in GAME.to_text(state) and "c6: JC 4S KH 4H | 2C\n" in GAME.to_text(state)
    assert GAME.from_text(BUILD).idle == 0 and GAME.to_text(state_of(BUILD)) == BUILD


def test_the_chance_layout_reading_accepts_columns_without_a_bar_as_face_up() -> None:
    text = BUILD.replace("c2: | TC", "c2: TC").replace("Foundations:", "foundation:")
    assert GAME.to_text(state_of(text)) == BUILD


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (("Stock: KD\n", ""), "needs a 'Stock:' line"),
        (("c3: | TD\n", ""), "missing: c3"),
        (("c5: QS | JH", "c5: | JH QS"), "c5: QS cannot lie face up on JH under the 'alternate'"),
        (("c3: | TD", "c3: | TD\nc3: | KD"), "given twice"),
        (("c5: QS | JH", "c5: QS JH |"), "face-down cards but no face-up card"),
        (("Idle: 0", "Idle: 3"), "Idle is 0, 1 or 2"),
        (("Idle: 0", "Idel: 0"), "line 4: unknown line"),
        (("Stock: KD", "Stock: KD 3C"), "under 4C"),
        (("Stock: KD", "Stock: KD 9H"), "appears more than"),
        (("Stock: KD", "Stock:"), "cards missing from the layout: KD"),
        (("Foundations: 4C", "Foundations: 3C 4C"), "clubs foundation is given twice"),
        (("Stock: KD", "Stock: KD ZZ"), "not a card"),
        (("Idle: 0", "Idle 0"), "line 4: expected 'Name: value'"),
    ],
)
def test_the_chance_layout_errors(change: tuple[str, str], message: str) -> None:
    assert change[0] in BUILD
    with pytest.raises(BadLayout, match=message):
        GAME.from_text(BUILD.replace(*change))


def test_the_chance_moves_round_trip_as_text_and_wire() -> None:
    for move in (TURN, mv("w", "c3"), mv("c1", "c7", 4)):
        assert parse_move(move.text()) == move and Move.from_wire(move.wire()) == move
    assert mv("c1", "c7", 4).wire() == ["move", "c1", "c7", 4] and mv("w", "c3").text() == "move w c3"


def test_the_chance_move_shorthands() -> None:
    assert GAME.parse_move("t") == TURN and GAME.parse_move("s") == TURN
    assert GAME.parse_move("w c3") == mv("w", "c3")
    assert GAME.parse_move("C1 c4 2") == mv("c1", "c4", 2)
    assert GAME.parse_move("move c1 c4 2") == mv("c1", "c4", 2)


def test_the_chance_candidate_moves_cover_the_legal_ones_and_the_rest_are_refused() -> None:
    for seed in (1, 8):
        state = GAME.deal(seed)
        legal = set(GAME.legal_moves(state))
        candidates = list(GAME.candidate_moves(state))
        assert legal <= set(candidates)
        for move in candidates:
            if move not in legal:
                with pytest.raises(IllegalMove):
                    GAME.apply(state, move)


def test_the_chance_cards_are_all_present_after_every_move() -> None:
    state = GAME.deal(8)
    for move in (TURN, TURN, mv("c6", "c3", 1), TURN):
        state = GAME.apply(state, move)
        assert sorted(GAME.cards(state)) == list(range(52))
        assert parse_card("AH") in GAME.cards(state)


# --- added by the rulings audit ---------------------------------------------------------------------
