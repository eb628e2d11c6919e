"""Gate: one test per ruling (named after it), hand-made layouts, every move and end."""

from __future__ import annotations

from parlour.games import gate  # noqa: F401  # isort: skip


import pytest

from parlour.games import CONCEDE, BadLayout, BadMove, Ending, IllegalMove, Move, get_game, parse_move
from parlour.games.cards import RANK, SUIT, TEXT, cards_text, parse_card, standard_deck
from parlour.games.shuffle import shuffle

GATE = get_game("gate")
TURN = Move("turn")


def mv(src: str, dst: str, count: int = 0) -> Move:
    return Move("move", src, dst, count)


def layout(
    *,
    stock: str = "",
    waste: str = "",
    found: str = "",
    r1: str = "",
    r2: str = "",
    piles: tuple[str, ...] = (),
    rest: str = "Stock",
) -> str:
    """A Gate layout; every card not written (nor implied by a foundation top) goes to ``rest``.

    ``rest`` is ``"Stock"`` (the cards go to the end of the stock, turned last) or a pile or
    the waste (the cards go underneath), in card order.
    """
    lines = {"Stock": stock, "Waste": waste, "Foundations": found, "r1": r1, "r2": r2}
    lines |= {f"t{i + 1}": pile for i, pile in enumerate((*piles, *[""] * (8 - len(piles))))}
    used: set[int] = set()
    for key, text in lines.items():
        for token in text.split():
            card = parse_card(token)
            if key == "Foundations":
                used.update(SUIT[card] * 13 + r for r in range(RANK[card]))
            else:
                used.add(card)
    missing = cards_text(c for c in range(52) if c not in used)
    if missing:
        lines[rest] = f"{lines[rest]} {missing}" if rest == "Stock" else f"{missing} {lines[rest]}"
    return "".join(f"{key}: {text.strip()}".rstrip() + "\n" for key, text in lines.items())


# Stock empty, no vacancy, every top red, the waste top red: nothing can move.
REDS = ("2H", "2D", "3H", "3D", "4H", "4D", "5H", "5D")
STUCK = layout(waste="6H", piles=REDS, rest="t8")
# The same with the 6H still in the stock: only the stock can move.
ALIVE = layout(stock="6H", piles=REDS, rest="t8")


def fills(state: object) -> set[Move]:
    """The legal moves into vacant piles."""
    vacant = {f"t{i + 1}" for i, pile in enumerate(state.piles) if not pile}  # type: ignore[attr-defined]
    return {m for m in GATE.legal_moves(state) if m.dst in vacant}


# --- the deal -----------------------------------------------------------------------------


def test_ruling_gate_52_cards_two_reserves_of_five_eight_piles_of_one_and_34_in_the_stock() -> None:
    state = GATE.deal(2024)
    assert [len(r) for r in state.reserves] == [5, 5]
    assert [len(p) for p in state.piles] == [1] * 8
    assert state.foundations == (0, 0, 0, 0) and state.waste == ()
    assert len(state.stock) == 34
    assert sorted(GATE.cards(state)) == list(range(52))
    assert state.ended is None


def test_gate_deal_for_a_pinned_seed() -> None:
    state = GATE.deal(2024)
    text = GATE.to_text(state)
    assert text.startswith("Stock: 3D 3S TS 9H JS 6S AD 9D KS 9C QC 2C 9S 7D 7S 3H 5S 2H TD 2S KC QS 6H 4D JC AH")
    assert "\nr1: AS KD TH 4H 8D\nr2: 7H QD 6D TC 5D\n" in text
    assert "\nt1: 3C\nt2: 8S\nt3: 2D\nt4: KH\nt5: JH\nt6: JD\nt7: 4S\nt8: 8C\n" in text
    # The documented order: r1 = deck[0:5], r2 = deck[5:10], t1..t8 = deck[10:18], stock = deck[18:].
    deck = shuffle(standard_deck(), 2024, "deal")
    assert state.reserves == (tuple(deck[0:5]), tuple(deck[5:10]))
    assert state.piles == tuple((c,) for c in deck[10:18])
    assert state.stock == tuple(deck[18:])
    assert GATE.legal_moves(state) == [mv("t3", "t1", 1), TURN]


def test_ruling_gate_deal_is_a_pure_function_of_the_seed() -> None:
    assert GATE.deal(5) == GATE.deal(5)
    assert GATE.to_text(GATE.deal(5)) == GATE.to_text(GATE.deal(5))
    assert GATE.to_text(GATE.deal(5)) != GATE.to_text(GATE.deal(6))


def test_ruling_gate_reserves_face_up_and_visible_only_the_stock_is_hidden() -> None:
    state = GATE.deal(2024)
    assert sorted(GATE.hidden_cards(state)) == sorted(state.stock)
    view = GATE.view(state)
    board = view["board"]
    assert board["reserves"] == [["AS", "KD", "TH", "4H", "8D"], ["7H", "QD", "6D", "TC", "5D"]]
    assert board["stock"] == 34 and board["waste"] == []
    text = repr(view)
    assert not any(f"'{TEXT[c]}'" in text for c in state.stock)
    assert GATE.view(state, "public")["board"] == board


# --- reserves -----------------------------------------------------------------------------


def test_ruling_gate_only_the_top_card_of_a_reserve_may_be_played() -> None:
    state = GATE.from_text(layout(r1="AS 5C", piles=("6H", "KD")))
    assert mv("r1", "t1") in GATE.legal_moves(state)
    assert mv("r1", "f") not in GATE.legal_moves(state)  # the AS lies under the 5C
    with pytest.raises(IllegalMove, match="5C cannot go to the foundations: the clubs foundation starts with the ace"):
        GATE.apply(state, mv("r1", "f"))
    after = GATE.apply(state, mv("r1", "t1"))
    assert after.reserves[0] == (parse_card("AS"),)
    assert GATE.apply(after, mv("r1", "f")).foundations == (0, 0, 0, 1)


def test_ruling_gate_nothing_is_ever_played_onto_a_reserve() -> None:
    state = GATE.from_text(layout(waste="4H", r1="5C", r2="5S", piles=("4D",)))
    assert all(m.dst not in ("r1", "r2") for m in GATE.legal_moves(state))
    for move in (mv("w", "r1"), mv("t1", "r2"), mv("r1", "r2")):
        with pytest.raises(IllegalMove, match="nothing is ever played onto a reserve"):
            GATE.apply(state, move)


def test_ruling_gate_reserve_top_may_go_to_a_foundation_or_the_tableau_at_any_time() -> None:
    state = GATE.from_text(layout(found="4C", r1="9D 5C", r2="KS 3H", piles=("6H", "4S")))
    moves = GATE.legal_moves(state)
    assert {mv("r1", "f"), mv("r1", "t1"), mv("r2", "t2")} <= set(moves)
    assert GATE.apply(state, mv("r1", "f")).foundations == (5, 0, 0, 0)
    onto = GATE.apply(state, mv("r2", "t2"))
    assert onto.piles[1] == (parse_card("4S"), parse_card("3H")) and onto.reserves[1] == (parse_card("KS"),)


# --- foundations --------------------------------------------------------------------------


def test_ruling_gate_foundations_start_empty_and_build_up_in_suit_from_the_ace() -> None:
    state = GATE.from_text(layout(found="2H", waste="3D", r1="AD", r2="3H", piles=("AC", "2C", "4H")))
    assert {mv("r1", "f"), mv("r2", "f"), mv("t1", "f")} <= set(GATE.legal_moves(state))
    assert mv("t2", "f") not in GATE.legal_moves(state)
    with pytest.raises(IllegalMove, match="2C cannot go to the foundations: the clubs foundation starts with the ace"):
        GATE.apply(state, mv("t2", "f"))
    with pytest.raises(IllegalMove, match="4H cannot go to the foundations: the hearts foundation needs 3H next"):
        GATE.apply(state, mv("t3", "f"))
    with pytest.raises(IllegalMove, match="3D cannot go to the foundations: the diamonds foundation starts"):
        GATE.apply(state, mv("w", "f"))
    state = GATE.apply(state, mv("t1", "f"))
    state = GATE.apply(state, mv("t2", "f"))
    state = GATE.apply(state, mv("r2", "f"))
    state = GATE.apply(state, mv("t3", "f"))
    assert state.foundations == (2, 0, 4, 0)
    assert GATE.view(state)["board"]["foundations"] == ["2C", None, "4H", None]


def test_ruling_gate_tableau_top_cards_go_to_the_foundations() -> None:
    state = GATE.from_text(layout(found="AS", piles=("KH 2S", "9C 3S")))
    assert mv("t1", "f") in GATE.legal_moves(state)
    state = GATE.apply(state, mv("t1", "f"))
    assert state.piles[0] == (parse_card("KH"),) and state.foundations == (0, 0, 0, 2)
    assert mv("t2", "f") in GATE.legal_moves(state)


def test_gate_cards_never_leave_the_foundations_and_only_the_stock_feeds_the_waste() -> None:
    state = GATE.from_text(layout(found="3S", waste="9H", piles=("4H",)))
    assert all(m.src != "f" and m.dst != "w" for m in GATE.legal_moves(state))
    with pytest.raises(IllegalMove, match="never leave the foundations"):
        GATE.apply(state, mv("f", "t1"))
    with pytest.raises(IllegalMove, match="only the stock turns cards onto the waste"):
        GATE.apply(state, mv("t1", "w"))


# --- building on the tableau ---------------------------------------------------------------


def test_ruling_gate_tableau_piles_build_down_in_alternating_colour() -> None:
    state = GATE.from_text(layout(waste="7H", r1="7C", r2="7S", piles=("8S", "8D", "7D", "9D", "6C")))
    moves = set(GATE.legal_moves(state))
    assert {mv("w", "t1"), mv("r1", "t2"), mv("r2", "t2"), mv("t3", "t1", 1), mv("t1", "t4", 1)} <= moves
    assert {mv("t5", "t3", 1)} <= moves
    refused = {mv("w", "t2"), mv("r1", "t1"), mv("t3", "t2", 1), mv("t2", "t4", 1), mv("t5", "t2", 1)}
    assert not refused & moves
    with pytest.raises(IllegalMove, match="7H does not go on 8D: piles build down by one rank in alternating colours"):
        GATE.apply(state, mv("w", "t2"))
    with pytest.raises(IllegalMove, match="8D does not go on 9D"):
        GATE.apply(state, mv("t2", "t4", 1))
    with pytest.raises(IllegalMove, match="6C does not go on 8D"):
        GATE.apply(state, mv("t5", "t2", 1))
    after = GATE.apply(state, mv("w", "t1"))
    assert after.piles[0] == (parse_card("8S"), parse_card("7H")) and after.waste == ()


def test_ruling_gate_any_valid_sequence_moves_as_a_unit() -> None:
    state = GATE.from_text(layout(r1="QS", piles=("KC 9S 8H 7C 6D", "TD", "8C", "JH TH")))
    moves = GATE.legal_moves(state)
    # From t1 (sequence 9S 8H 7C 6D): all four onto TD or TH; 7C 6D does not go on 8C.
    assert [m for m in moves if m.src == "t1"] == [mv("t1", "t2", 4), mv("t1", "t4", 4)]
    after = GATE.apply(state, mv("t1", "t2", 4))
    assert after.piles[0] == (parse_card("KC"),)
    assert cards_text(after.piles[1]) == "TD 9S 8H 7C 6D"
    with pytest.raises(IllegalMove, match="pile t4 holds only 2 card"):
        GATE.apply(state, mv("t4", "t2", 3))
    with pytest.raises(IllegalMove, match="the top 2 cards of t4 \\(JH TH\\) are not a sequence"):
        GATE.apply(state, mv("t4", "t2", 2))
    with pytest.raises(IllegalMove, match="9S does not go on 8C"):
        GATE.apply(state, mv("t1", "t3", 4))
    with pytest.raises(IllegalMove, match="8H does not go on TD"):
        GATE.apply(state, mv("t1", "t2", 3))
    with pytest.raises(IllegalMove, match="holds only 1 card"):
        GATE.apply(state, mv("t2", "t4", 2))
    with pytest.raises(IllegalMove, match="cannot move onto itself"):
        GATE.apply(state, mv("t1", "t1", 1))


def test_gate_a_sequence_runs_only_as_deep_as_the_colours_alternate() -> None:
    state = GATE.from_text(layout(piles=("KD 9D 8C 7H", "TS", "TH")))
    # 9D 8C 7H is a sequence; 9D on KD is not, so the longest move from t1 is three cards.
    assert state.runs[0] == 3
    assert mv("t1", "t2", 3) in GATE.legal_moves(state)
    with pytest.raises(IllegalMove, match="9D does not go on TH"):
        GATE.apply(state, mv("t1", "t3", 3))


# --- vacant piles: the three regimes ----------------------------------------------------------


def test_ruling_gate_a_vacancy_takes_only_a_reserve_top_while_a_reserve_holds_cards() -> None:
    state = GATE.from_text(layout(stock="KS", waste="QH", r1="5C 9D", r2="4H", piles=("8S", "", "7D 6C")))
    vacant = ["t2", "t4", "t5", "t6", "t7", "t8"]
    assert GATE.view(state)["board"]["vacancy"] == "reserve"
    assert fills(state) == {mv("r1", t) for t in vacant} | {mv("r2", t) for t in vacant}
    assert GATE.legal_moves(state) == [
        mv("t3", "t1", 2),
        *[mv("r1", t) for t in vacant],
        *[mv("r2", t) for t in vacant],
        TURN,
    ]
    with pytest.raises(IllegalMove, match="vacant pile t2 may be filled only with a reserve's top card"):
        GATE.apply(state, mv("w", "t2"))
    with pytest.raises(IllegalMove, match="only with a reserve's top card"):
        GATE.apply(state, mv("t3", "t2", 1))
    after = GATE.apply(state, mv("r1", "t2"))
    assert after.piles[1] == (parse_card("9D"),) and after.reserves[0] == (parse_card("5C"),)
    # With one reserve empty the other still feeds vacancies (and the waste still may not).
    one = GATE.from_text(layout(stock="KS", waste="QH", r2="4H", piles=("8S", "", "7D 6C")))
    assert fills(one) == {mv("r2", t) for t in vacant}
    with pytest.raises(IllegalMove, match="only with a reserve's top card"):
        GATE.apply(one, mv("w", "t2"))


def test_ruling_gate_once_both_reserves_are_empty_a_vacancy_takes_only_the_waste_top() -> None:
    state = GATE.from_text(layout(stock="KS", waste="QH", piles=("8S", "", "7D 6C")))
    vacant = ["t2", "t4", "t5", "t6", "t7", "t8"]
    assert GATE.view(state)["board"]["vacancy"] == "waste"
    assert fills(state) == {mv("w", t) for t in vacant}
    with pytest.raises(IllegalMove, match="vacant pile t2 may be filled only with the waste's top card"):
        GATE.apply(state, mv("t3", "t2", 1))
    after = GATE.apply(state, mv("w", "t2"))
    assert after.piles[1] == (parse_card("QH"),)
    # The last reserve card leaving switches the regime from "reserve" to "waste".
    last = GATE.from_text(layout(stock="KS", waste="QH", r1="9D", piles=("8S", "", "7D 6C")))
    assert fills(last) == {mv("r1", t) for t in vacant}
    switched = GATE.apply(last, mv("r1", "t2"))
    assert fills(switched) == {mv("w", t) for t in vacant if t != "t2"}


def test_ruling_gate_with_reserves_and_waste_empty_a_vacancy_waits_for_a_turn() -> None:
    state = GATE.from_text(layout(stock="QH", piles=("8S", "", "7D 6C")))
    assert GATE.view(state)["board"]["vacancy"] == "waste"
    assert fills(state) == set()
    assert GATE.legal_moves(state) == [mv("t3", "t1", 2), TURN]
    with pytest.raises(IllegalMove, match="the waste is empty"):
        GATE.apply(state, mv("w", "t2"))
    with pytest.raises(IllegalMove, match="only with the waste's top card"):
        GATE.apply(state, mv("t3", "t2", 1))
    turned = GATE.apply(state, TURN)
    assert mv("w", "t2") in GATE.legal_moves(turned)


def test_ruling_gate_with_reserves_waste_and_stock_empty_a_vacancy_takes_any_card_or_sequence() -> None:
    text = layout(found="9C 9D 9H 9S", piles=("KS QH JC TD", "TS KC QD", "JH TH", "KD QS JD TC", "KH QC JS"))
    state = GATE.from_text(text)
    assert GATE.view(state)["board"]["vacancy"] == "any"
    # Sequences on top: t1 four cards (all of it), t2 two of three, t3 one of two, t4 all four, t5 one of three.
    counts = {"t1": [1, 2, 3], "t2": [1, 2], "t3": [1], "t4": [1, 2, 3], "t5": [1]}
    assert fills(state) == {mv(src, dst, n) for src, ns in counts.items() for n in ns for dst in ("t6", "t7", "t8")}
    after = GATE.apply(state, mv("t1", "t7", 3))
    assert cards_text(after.piles[0]) == "KS" and cards_text(after.piles[6]) == "QH JC TD"
    with pytest.raises(IllegalMove, match="the top 2 cards of t3 \\(JH TH\\) are not a sequence"):
        GATE.apply(state, mv("t3", "t6", 2))


def test_gate_moving_a_whole_pile_into_a_vacancy_is_refused_as_changing_nothing() -> None:
    text = layout(found="9C 9D 9H 9S", piles=("KS QH JC TD", "TS KC QD", "JH TH", "KD QS JD TC", "KH QC JS"))
    state = GATE.from_text(text)
    assert mv("t1", "t6", 4) not in GATE.legal_moves(state)
    with pytest.raises(IllegalMove, match="moving all of t1 into vacant pile t6 changes nothing"):
        GATE.apply(state, mv("t1", "t6", 4))
    # A single-card pile may not move into a vacancy either.
    single = GATE.apply(state, mv("t3", "f"))  # TH home, JH left alone in t3
    assert not any(m.src == "t3" and m.dst in ("t6", "t7", "t8") for m in GATE.legal_moves(single))
    with pytest.raises(IllegalMove, match="changes nothing"):
        GATE.apply(single, mv("t3", "t6", 1))


# --- stock and waste --------------------------------------------------------------------------


def test_ruling_gate_stock_turns_one_card_at_a_time_onto_the_waste_no_redeal() -> None:
    state = GATE.from_text(layout(stock="9C 2D", piles=("KH",), rest="t1"))
    assert TURN in GATE.legal_moves(state)
    state = GATE.apply(state, TURN)
    assert state.waste == (parse_card("9C"),) and state.stock == (parse_card("2D"),)
    state = GATE.apply(state, TURN)
    assert state.waste == (parse_card("9C"), parse_card("2D")) and state.stock == ()
    assert TURN not in GATE.legal_moves(state) and state.ended is None
    with pytest.raises(IllegalMove, match="the stock is empty"):
        GATE.apply(state, TURN)


def test_gate_turn_from_an_empty_stock_is_refused() -> None:
    state = GATE.from_text(layout(waste="9C", piles=("TH",), rest="t1"))
    assert state.ended is None and TURN not in GATE.legal_moves(state)
    with pytest.raises(IllegalMove, match="the stock is empty"):
        GATE.apply(state, TURN)


def test_ruling_gate_waste_top_may_go_to_a_foundation_or_the_tableau_at_any_time() -> None:
    state = GATE.from_text(layout(stock="AH", found="5D", waste="7S 6D", piles=("7C", "8C", "8H")))
    moves = set(GATE.legal_moves(state))
    assert {mv("w", "f"), mv("w", "t1")} <= moves
    assert GATE.apply(state, mv("w", "f")).foundations == (0, 6, 0, 0)
    onto = GATE.apply(state, mv("w", "t1"))
    assert cards_text(onto.piles[0]) == "7C 6D" and onto.waste == (parse_card("7S"),)
    assert mv("w", "t3") in GATE.legal_moves(onto)  # the next waste card plays in turn
    assert mv("w", "t2") not in GATE.legal_moves(onto)


# --- the end and the score --------------------------------------------------------------------


def test_ruling_gate_won_when_all_52_cards_are_on_the_foundations() -> None:
    state = GATE.from_text(layout(found="KC KD KH QS", r1="KS"))
    assert state.ended is None and GATE.legal_moves(state)[0] == mv("r1", "f")
    state = GATE.apply(state, mv("r1", "f"))
    assert state.ended is Ending.WON and GATE.score(state) == 52 and GATE.legal_moves(state) == []
    with pytest.raises(IllegalMove, match="over"):
        GATE.apply(state, TURN)
    assert GATE.from_text(layout(found="KC KD KH KS")).ended is Ending.WON


def test_ruling_gate_over_when_the_stock_is_empty_and_no_card_can_move() -> None:
    state = GATE.from_text(STUCK)
    assert state.ended is Ending.STUCK and GATE.legal_moves(state) == []
    assert GATE.score(state) == 0
    # The same position with a card left in the stock is not over: the stock can be turned.
    alive = GATE.from_text(ALIVE)
    assert alive.ended is None and GATE.legal_moves(alive) == [TURN]
    stuck = GATE.apply(alive, TURN)
    assert stuck.ended is Ending.STUCK


def test_gate_stuck_with_a_reserve_card_left() -> None:
    state = GATE.from_text(layout(r1="QD 6D", piles=REDS, rest="t8"))
    assert state.ended is Ending.STUCK
    higher = ("3H", "3D", "4H", "4D", "5H", "5D", "6H", "6D")
    playable = GATE.from_text(layout(r1="QD AC", piles=higher, rest="t8"))
    assert playable.ended is None and GATE.legal_moves(playable) == [mv("r1", "f")]
    after = GATE.apply(playable, mv("r1", "f"))
    assert after.ended is Ending.STUCK and GATE.score(after) == 1 and after.reserves[0] == (parse_card("QD"),)


def test_gate_not_stuck_while_a_vacancy_can_be_filled() -> None:
    state = GATE.from_text(layout(waste="6H", r1="QD", piles=REDS[:7], rest="r1"))
    assert state.ended is None and GATE.legal_moves(state) == [mv("r1", "t8")]
    after = GATE.apply(state, mv("r1", "t8"))
    assert after.ended is Ending.STUCK and after.piles[7] == (parse_card("QD"),)


def test_ruling_gate_score_is_the_cards_on_the_foundations_higher_is_better() -> None:
    assert GATE.higher_is_better is True and GATE.score_range == (0, 52)
    assert GATE.better(52, 3) and not GATE.better(3, 52)
    assert GATE.score(GATE.deal(1)) == 0
    assert GATE.score(GATE.from_text(layout(found="3C AH", piles=("KS",)))) == 4
    assert GATE.score(GATE.from_text(layout(found="KC KD KH QS", r1="KS"))) == 51
    assert GATE.score(GATE.from_text(layout(found="KC KD KH KS"))) == 52
    assert GATE.view(GATE.from_text(layout(found="3C AH", piles=("KS",))))["score"] == 4


def test_ruling_gate_a_player_may_concede_at_any_time() -> None:
    state = GATE.apply(GATE.from_text(layout(found="3C AH", piles=("KS",))), CONCEDE)
    assert state.ended is Ending.CONCEDED and GATE.score(state) == 4 and GATE.legal_moves(state) == []


# --- malformed moves ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("move", "why"),
    [
        (Move("play", "t1"), "gate moves are"),
        (Move("turn", "t1"), "'turn' takes nothing"),
        (mv("p1", "f"), "gate places are"),
        (mv("t1", ""), "gate places are"),
        (mv("t1", "t2"), "gives the number of cards"),
        (mv("t1", "f", 1), "only moves between piles give a number"),
        (mv("w", "t2", 1), "only moves between piles give a number"),
    ],
)
def test_gate_malformed_moves_are_bad_moves(move: Move, why: str) -> None:
    with pytest.raises(BadMove, match=why):
        GATE.apply(GATE.deal(3), move)


def test_gate_empty_sources_are_refused() -> None:
    state = GATE.from_text(layout(stock="KS", piles=("8S",)))
    with pytest.raises(IllegalMove, match="reserve r2 is empty"):
        GATE.apply(state, mv("r2", "t1"))
    with pytest.raises(IllegalMove, match="the waste is empty"):
        GATE.apply(state, mv("w", "f"))
    with pytest.raises(IllegalMove, match="pile t2 is empty"):
        GATE.apply(state, mv("t2", "t1", 1))


def test_gate_every_candidate_move_is_legal_or_refused_as_illegal() -> None:
    for state in (GATE.deal(11), GATE.from_text(ALIVE)):
        legal = set(GATE.legal_moves(state))
        assert legal <= set(GATE.candidate_moves(state))
        for move in GATE.candidate_moves(state):
            if move in legal:
                GATE.apply(state, move)
            else:
                with pytest.raises(IllegalMove):
                    GATE.apply(state, move)


# --- text, view, moves ----------------------------------------------------------------------------


def test_gate_layout_round_trips_dealt_and_played() -> None:
    state = GATE.deal(99)
    for _ in range(40):
        state = GATE.apply(state, GATE.legal_moves(state)[-1 if len(state.waste) < 8 else 0])
    for s in (GATE.deal(99), state, GATE.from_text(STUCK)):
        text = GATE.to_text(s)
        again = GATE.from_text(text)
        assert GATE.to_text(again) == text and again == s
        assert GATE.legal_moves(again) == GATE.legal_moves(s)


def test_gate_layout_format() -> None:
    state = GATE.from_text(layout(stock="KS", waste="4D QH", found="3C AH", r1="5C 9D", piles=("8S", "", "7D 6C")))
    text = GATE.to_text(state)
    lines = text.splitlines()
    assert lines[0].startswith("Stock: KS ") and lines[1] == "Waste: 4D QH" and lines[2] == "Foundations: 3C AH"
    assert lines[3:7] == ["r1: 5C 9D", "r2:", "t1: 8S", "t2:"]
    assert state.stock[0] == parse_card("KS") and state.waste[-1] == parse_card("QH")
    # Lines in any order, any case, blank lines ignored.
    shuffled = "\n".join(reversed(lines)).replace("Stock", "STOCK") + "\n\n"
    assert GATE.to_text(GATE.from_text(shuffled)) == text


@pytest.mark.parametrize(
    ("text", "why"),
    [
        (layout(piles=("8S",)).replace("t8:\n", ""), "needs the lines t8"),
        (layout(piles=("8S",)) + "t1:\n", "line 14: a second 't1' line"),
        (layout(piles=("8S",)) + "t9: 4C\n", "line 14: expected 'Name: cards'"),
        (layout(piles=("8S",)).replace("t2:", "t2: XX"), "line 7: not a card"),
        (layout(piles=("8S",)).replace("t2:", "t2: 8S"), "8S appears more than 1"),
        (layout(piles=("8S",)).replace("8S", "", 1).replace("t1:", "t1: 4C"), "4C appears more than 1"),
        (layout(piles=("8S", "2C")).replace(" 8S", "", 1), "missing 1 card"),
        (layout(found="3C", piles=("8S",)).replace("Foundations: 3C", "Foundations: 3C 2C"), "two clubs"),
        (layout(found="3C", piles=("8S",)).replace("t2:", "t2: 2C"), "2C lies on the foundation"),
        ("Stock: KS\n", "needs the lines"),
    ],
)
def test_gate_from_text_errors(text: str, why: str) -> None:
    with pytest.raises(BadLayout, match=why):
        GATE.from_text(text)


def test_gate_view_and_render_show_every_place() -> None:
    state = GATE.from_text(layout(stock="KS", waste="4D QH", found="3C AH", r1="5C 9D", piles=("8S", "", "7D 6C")))
    view = GATE.view(state)
    board = view["board"]
    assert board["waste"] == ["4D", "QH"] and board["foundations"] == ["3C", None, "AH", None]
    assert board["foundation_cards"] == 4 and board["reserves"] == [["5C", "9D"], []]
    assert board["piles"][2] == ["7D", "6C"] and board["vacancy"] == "reserve"
    assert view["moves"] == [m.wire() for m in GATE.legal_moves(state)]
    text = GATE.render(view)
    for name in ("Waste w: QH", "Foundations f: 3C -- AH --", "r1: 5C 9D", "r2: -", "t3: 7D 6C", "t8:"):
        assert name in text
    assert "A vacant pile takes: a reserve's top card (r1, r2)" in text
    assert f"Stock: {len(state.stock)} cards" in text


def test_gate_moves_round_trip_and_shorthands() -> None:
    for move in (TURN, mv("r1", "t3"), mv("t2", "f"), mv("t1", "t4", 3)):
        assert parse_move(move.text()) == move and Move.from_wire(move.wire()) == move
        assert GATE.parse_move(move.text()) == move
    assert GATE.parse_move("t") == TURN and GATE.parse_move("s") == TURN
    assert GATE.parse_move("r1 t3") == mv("r1", "t3")
    assert GATE.parse_move("T1 T4 3") == mv("t1", "t4", 3)
    assert GATE.parse_move("w f") == mv("w", "f")


def test_gate_replay_reproduces_a_game() -> None:
    state = GATE.deal(42)
    log = []
    for _ in range(60):
        moves = GATE.legal_moves(state)
        if not moves:
            break
        move = moves[len(log) % len(moves)]
        log.append(move)
        state = GATE.apply(state, move)
    again = GATE.deal(42)
    for move in log:
        again = GATE.apply(again, move)
    assert GATE.state_hash(again) == GATE.state_hash(state)


# --- added by the rulings audit ---------------------------------------------------------------------


def test_ruling_gate_out_of_time_ends_and_scores_as_it_stands() -> None:
    state = GATE.from_text(layout(found="3C AH", piles=("KS",)))
    over = GATE.end(state, Ending.OUT_OF_TIME)
    assert over.ended is Ending.OUT_OF_TIME and GATE.score(over) == 4 and GATE.legal_moves(over) == []
    with pytest.raises(IllegalMove, match="over"):
        GATE.apply(over, mv("t1", "t2", 1))
