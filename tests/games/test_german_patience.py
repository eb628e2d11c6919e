"""German Patience: one test per ruling (named after it), hand-made layouts, every move and end."""

from __future__ import annotations

from collections import Counter

import pytest

from parlour.games import german_patience  # noqa: F401
from parlour.games.base import CONCEDE, Ending, Move, parse_move
from parlour.games.cards import TEXT, parse_card, standard_deck
from parlour.games.errors import BadLayout, BadMove, IllegalMove
from parlour.games.registry import get_game
from parlour.games.shuffle import shuffle

GP = get_game("german-patience")
TEXTS = [TEXT[c] for c in range(52)]  # card order
CLUBS_UP = "AC 2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC"
SUITS_UP = [" ".join(f"{r}{s}" for r in "A23456789TJQK") for s in "CDHS"]


def layout(piles: list[str], waste: str = "", stock: str = "", fill: str = "stock") -> str:
    """A full layout: the cards not written go to the bottom of the stock or of the waste, in card order."""
    used = Counter(" ".join([*piles, waste, stock]).split())
    rest = [t for t in TEXTS for _ in range(2 - used[t])]
    if fill == "stock":
        stock = " ".join([*stock.split(), *rest])
    else:
        waste = " ".join([*rest, *waste.split()])
    piles = piles + [""] * (8 - len(piles))
    lines = [f"Stock: {stock}", f"Waste: {waste}"] + [f"p{i + 1}: {p}" for i, p in enumerate(piles)]
    return "\n".join(line.rstrip() for line in lines) + "\n"


def mv(src: str, dst: str) -> Move:
    return Move("move", src, dst)


def full_piles() -> list[str]:
    return SUITS_UP + SUITS_UP


# --- rulings -------------------------------------------------------------------------


def test_ruling_german_patience_104_cards_eight_face_up_piles_rest_face_down_stock() -> None:
    state = GP.deal(2024)
    assert sorted(GP.cards(state)) == list(range(104))
    assert [len(p) for p in state.piles] == [1] * 8
    assert len(state.stock) == 96 and state.waste == ()
    assert sorted(GP.hidden_cards(state)) == sorted(state.stock)


def test_ruling_german_patience_two_decks_share_text_forms() -> None:
    state = GP.deal(3)
    texts = Counter(TEXT[c] for c in GP.cards(state))
    assert set(texts.values()) == {2} and len(texts) == 52
    assert TEXT[parse_card("TD") + 52] == "TD"


def test_ruling_german_patience_stock_hidden_view_shows_only_its_count() -> None:
    state = GP.deal(11)
    view = GP.view(state)
    board = view["board"]
    assert board["stock"] == 96
    assert board["piles"] == [[TEXT[p[0]]] for p in state.piles]
    assert board["waste"] == []
    shown = [c for p in board["piles"] for c in p] + board["waste"]
    assert len(shown) == 8
    assert GP.view(state, "public")["board"] == board
    turned = GP.apply(state, Move("turn"))
    assert GP.view(turned)["board"]["waste"] == [TEXT[state.stock[0]]]
    assert GP.view(turned)["board"]["stock"] == 95


def test_ruling_german_patience_deal_is_a_pure_function_of_the_seed() -> None:
    assert GP.to_text(GP.deal(77)) == GP.to_text(GP.deal(77))
    assert GP.deal(77) == GP.deal(77)
    assert GP.to_text(GP.deal(77)) != GP.to_text(GP.deal(78))


def test_ruling_german_patience_card_goes_one_rank_higher_suit_and_colour_ignored() -> None:
    state = GP.from_text(layout(["5H", "6S", "6D", "7C", "4C"], waste="6H"))
    moves = set(GP.legal_moves(state))
    assert {mv("p2", "p1"), mv("p3", "p1"), mv("w", "p1"), mv("p1", "p5"), mv("p4", "p2"), mv("p4", "p3")} <= moves
    after = GP.apply(state, mv("p3", "p1"))
    assert [TEXT[c] for c in after.piles[0]] == ["5H", "6D"] and after.piles[2] == ()
    with pytest.raises(IllegalMove, match="7C cannot go on 5H in pile 1: only a card one rank higher \\(6\\)"):
        GP.apply(state, mv("p4", "p1"))
    with pytest.raises(IllegalMove, match="5H cannot go on 7C"):
        GP.apply(state, mv("p1", "p4"))  # one rank lower is not enough


def test_ruling_german_patience_ranks_wrap_ace_goes_on_king() -> None:
    state = GP.from_text(layout(["QD KD", "AS", "2H", "KC"]))
    moves = set(GP.legal_moves(state))
    assert mv("p2", "p1") in moves and mv("p2", "p4") in moves and mv("p2", "p3") not in moves
    assert mv("p3", "p2") in moves  # 2 on A
    after = GP.apply(state, mv("p2", "p1"))
    assert [TEXT[c] for c in after.piles[0]] == ["QD", "KD", "AS"]
    with pytest.raises(IllegalMove, match="KC cannot go on AS"):
        GP.apply(state, mv("p4", "p2"))


def test_ruling_german_patience_pile_holds_at_most_13_cards() -> None:
    state = GP.from_text(layout([CLUBS_UP, "AD"], waste="AH"))
    moves = set(GP.legal_moves(state))
    assert mv("p2", "p1") not in moves and mv("w", "p1") not in moves
    with pytest.raises(IllegalMove, match="pile 1 already holds 13 cards"):
        GP.apply(state, mv("p2", "p1"))
    with pytest.raises(IllegalMove, match="already holds 13"):
        GP.apply(state, mv("w", "p1"))
    with pytest.raises(BadLayout, match="at most 13"):
        GP.from_text(layout([CLUBS_UP + " AD"]))


def test_ruling_german_patience_only_single_cards_move() -> None:
    state = GP.from_text(layout(["5H 6H 7H", "4C"]))
    assert all(m.count == 0 for m in GP.candidate_moves(state))
    assert mv("p1", "p2") not in GP.legal_moves(state)  # the 5H-7H run cannot go on 4C
    with pytest.raises(BadMove):
        GP.apply(state, Move("move", "p1", "p2", 3))
    # Only the top card of a pile moves: 7H to an empty pile, leaving 5H 6H behind.
    after = GP.apply(state, mv("p1", "p3"))
    assert [TEXT[c] for c in after.piles[0]] == ["5H", "6H"] and [TEXT[c] for c in after.piles[2]] == ["7H"]


def test_ruling_german_patience_pile_top_may_move_to_another_pile() -> None:
    state = GP.from_text(layout(["8S", "9D", "TC"]))
    assert mv("p2", "p1") in GP.legal_moves(state) and mv("p2", "p3") not in GP.legal_moves(state)
    state = GP.apply(state, mv("p2", "p1"))
    assert [TEXT[c] for c in state.piles[0]] == ["8S", "9D"] and state.piles[1] == ()
    state = GP.apply(state, mv("p3", "p1"))
    assert [TEXT[c] for c in state.piles[0]] == ["8S", "9D", "TC"] and state.piles[2] == ()
    # The top card of a longer pile moves on, leaving the cards below it.
    state = GP.apply(state, mv("p1", "p2"))
    assert [TEXT[c] for c in state.piles[0]] == ["8S", "9D"] and [TEXT[c] for c in state.piles[1]] == ["TC"]


def test_ruling_german_patience_waste_top_may_move_to_a_pile() -> None:
    state = GP.from_text(layout(["8S", "3D"], waste="4C 9H"))
    assert mv("w", "p1") in GP.legal_moves(state) and mv("w", "p2") not in GP.legal_moves(state)
    after = GP.apply(state, mv("w", "p1"))
    assert [TEXT[c] for c in after.piles[0]] == ["8S", "9H"]
    assert TEXT[after.waste[-1]] == "4C"  # the next waste card is now on top
    assert mv("w", "p2") in GP.legal_moves(after)
    with pytest.raises(IllegalMove, match="9H cannot go on 3D"):
        GP.apply(state, mv("w", "p2"))


def test_ruling_german_patience_empty_pile_takes_any_card() -> None:
    state = GP.from_text(layout(["8S", "3D", "", "KH"], waste="JC"))
    moves = GP.legal_moves(state)
    for src in ("p1", "p2", "p4", "w"):
        for dst in ("p3", "p5", "p6", "p7", "p8"):
            assert mv(src, dst) in moves
    after = GP.apply(state, mv("w", "p3"))
    assert [TEXT[c] for c in after.piles[2]] == ["JC"]


def test_ruling_german_patience_stock_may_be_turned_at_any_time_no_redeal() -> None:
    state = GP.from_text(layout(["8S", "9D", "TC"], waste="5H", stock="QC 2H", fill="waste"))
    assert {mv("p2", "p1"), Move("turn")} <= set(GP.legal_moves(state))  # turn even with a pile move open
    state = GP.apply(state, Move("turn"))
    assert TEXT[state.waste[-1]] == "QC" and [TEXT[c] for c in state.stock] == ["2H"]
    state = GP.apply(state, Move("turn"))
    assert TEXT[state.waste[-1]] == "2H" and state.stock == () and state.ended is None
    assert Move("turn") not in GP.legal_moves(state)  # no redeal
    with pytest.raises(IllegalMove, match="the stock is empty"):
        GP.apply(state, Move("turn"))


def test_ruling_german_patience_won_when_all_eight_piles_hold_13() -> None:
    piles = full_piles()
    piles[7] = piles[7].removesuffix(" KS")
    state = GP.from_text(layout(piles, waste="KS", fill="waste"))
    assert state.ended is None and mv("w", "p8") in GP.legal_moves(state)
    state = GP.apply(state, mv("w", "p8"))
    assert state.ended is Ending.WON and GP.score(state) == 104
    assert GP.legal_moves(state) == []
    with pytest.raises(IllegalMove, match="over"):
        GP.apply(state, mv("p8", "p1"))
    assert GP.from_text(layout(full_piles())).ended is Ending.WON


def test_ruling_german_patience_stuck_when_no_move_is_legal() -> None:
    low = [" ".join(s.split()[:5]) for s in SUITS_UP]  # A-5 of each suit
    piles = low + low
    state = GP.from_text(layout(piles, waste="9C", fill="waste"))
    assert state.ended is Ending.STUCK and GP.legal_moves(state) == [] and GP.score(state) == 40
    # Reached by a move: playing the waste's last useful card.
    piles[0] = "AC 2C 3C 4C"
    state = GP.from_text(layout(piles, waste="9C 5C", fill="waste"))
    assert state.ended is None and mv("w", "p1") in GP.legal_moves(state)
    state = GP.apply(state, mv("w", "p1"))
    assert state.ended is Ending.STUCK
    # Reached by turning the last stock card.
    state = GP.from_text(layout(low + low, waste="9C", stock="JH", fill="waste"))
    assert GP.legal_moves(state) == [Move("turn")]
    assert GP.apply(state, Move("turn")).ended is Ending.STUCK


def test_ruling_german_patience_not_stuck_while_a_pile_is_empty() -> None:
    low = [" ".join(s.split()[:5]) for s in SUITS_UP]
    piles = low + low
    piles[7] = ""
    state = GP.from_text(layout(piles, waste="9C", fill="waste"))
    assert state.ended is None and mv("w", "p8") in GP.legal_moves(state)


def test_ruling_german_patience_score_is_cards_in_piles_higher_is_better() -> None:
    assert GP.higher_is_better is True and GP.score_range == (8, 104)
    assert GP.better(104, 8) and not GP.better(8, 104)
    assert GP.score(GP.deal(5)) == 8  # the deal: 8 cards in the piles
    state = GP.from_text(layout(["5H 6H 7H", "4C", "", "KD"], waste="8S"))
    assert GP.score(state) == 5  # cards in the waste or stock do not count
    assert GP.score(GP.apply(state, mv("w", "p1"))) == 6  # a waste card played counts
    assert GP.score(GP.apply(state, mv("p1", "p3"))) == 5  # moving between piles changes nothing
    assert GP.score(GP.from_text(layout(full_piles()))) == 104  # won


def test_ruling_german_patience_concede_ends_the_game_scored_as_it_stands() -> None:
    state = GP.apply(GP.deal(9), Move("turn"))
    state = GP.apply(state, CONCEDE)
    assert state.ended is Ending.CONCEDED and GP.score(state) == 8
    assert GP.legal_moves(state) == []


# --- moves ---------------------------------------------------------------------------


def test_german_patience_refused_moves_say_why() -> None:
    state = GP.from_text(layout(["8S", "", "TC"], stock="", fill="waste"))
    with pytest.raises(IllegalMove, match="pile 2 is empty"):
        GP.apply(state, mv("p2", "p1"))
    with pytest.raises(IllegalMove, match="same pile"):
        GP.apply(state, mv("p1", "p1"))
    with pytest.raises(IllegalMove, match="stock is empty"):
        GP.apply(state, Move("turn"))
    empty_waste = GP.from_text(layout(["8S"]))
    with pytest.raises(IllegalMove, match="waste is empty"):
        GP.apply(empty_waste, mv("w", "p2"))


@pytest.mark.parametrize(
    "move",
    [
        Move("play", "p1"),
        Move("move", "p9", "p1"),
        Move("move", "p1", "w"),
        Move("move", "s", "p1"),
        Move("move", "p1"),
        Move("move", "p1", "p2", 1),
        Move("turn", "s"),
    ],
)
def test_german_patience_malformed_moves_are_bad(move: Move) -> None:
    with pytest.raises(BadMove):
        GP.apply(GP.deal(1), move)


def test_german_patience_unlisted_candidates_are_refused_as_illegal() -> None:
    state = GP.from_text(layout(["8S", "9D", "", "KH", "AC 2C"], waste="3H"))
    legal = set(GP.legal_moves(state))
    candidates = list(GP.candidate_moves(state))
    assert legal <= set(candidates) and len(candidates) == 1 + 9 * 8
    for move in candidates:
        if move not in legal:
            with pytest.raises(IllegalMove):
                GP.apply(state, move)


def test_german_patience_legal_move_order_is_fixed() -> None:
    state = GP.from_text(layout(["8S", "9D", "", "7C", "8H"], waste="9C"))
    assert GP.legal_moves(state) == [
        # sources p1-p8 then w; each source's destinations p1-p8
        *(mv("p1", f"p{i}") for i in (3, 4, 6, 7, 8)),
        *(mv("p2", f"p{i}") for i in (1, 3, 5, 6, 7, 8)),
        *(mv("p4", f"p{i}") for i in (3, 6, 7, 8)),
        *(mv("p5", f"p{i}") for i in (3, 4, 6, 7, 8)),
        *(mv("w", f"p{i}") for i in (1, 3, 5, 6, 7, 8)),
        Move("turn"),
    ]


def test_german_patience_move_text_and_wire_round_trip() -> None:
    for move in [Move("turn"), mv("p1", "p8"), mv("w", "p3")]:
        assert parse_move(move.text()) == move
        assert Move.from_wire(move.wire()) == move
        assert GP.parse_move(move.text()) == move
    assert mv("w", "p3").wire() == ["move", "w", "p3"]


def test_german_patience_move_shorthands() -> None:
    assert GP.parse_move("t") == Move("turn")
    assert GP.parse_move("s") == Move("turn")
    assert GP.parse_move("1 5") == mv("p1", "p5")
    assert GP.parse_move("p1 p5") == mv("p1", "p5")
    assert GP.parse_move("w 3") == mv("w", "p3")
    assert GP.parse_move("W P3") == mv("w", "p3")
    assert GP.parse_move("move 2 4") == mv("p2", "p4")


def test_german_patience_render_shows_the_places_to_type() -> None:
    state = GP.from_text(layout(["8S 9D", "", CLUBS_UP], waste="3H 4H"))
    text = GP.render(GP.view(state))
    for name in ("p1", "p2", "p8", "w", "turn", "Stock: 87"):
        assert name in text
    assert "3H 4H" in text and "takes T" in text and "full" in text and "takes any" in text


# --- layouts -------------------------------------------------------------------------


def test_german_patience_pinned_deal_for_seed_1() -> None:
    state = GP.deal(1)
    assert [TEXT[p[0]] for p in state.piles] == ["TS", "9S", "TC", "3C", "2H", "TD", "8C", "KH"]
    assert [p[0] for p in state.piles] == [48, 99, 61, 2, 27, 74, 7, 90]  # deck 1 cards are 52-103
    assert [TEXT[c] for c in state.stock[:5]] == ["JD", "QS", "7H", "QD", "7C"]
    assert state.stock[:5] == (75, 102, 84, 76, 6)
    assert GP.to_text(state).startswith("Stock: JD QS 7H QD 7C 9S 3H")


def test_german_patience_layout_round_trips_dealt_and_played() -> None:
    state = GP.deal(4)
    text = GP.to_text(state)
    assert GP.to_text(GP.from_text(text)) == text
    assert text.splitlines()[1] == "Waste:" and text.splitlines()[2].startswith("p1: ")
    for _ in range(30):
        moves = GP.legal_moves(state)
        state = GP.apply(state, moves[len(moves) // 2])
    text = GP.to_text(state)
    again = GP.from_text(text)
    assert GP.to_text(again) == text
    assert GP.legal_moves(again) == GP.legal_moves(state)
    assert GP.state_hash(again) == GP.state_hash(state)
    assert sorted(GP.cards(again)) == list(range(104))


def test_german_patience_layout_first_copy_read_is_deck_0() -> None:
    text = layout(["TD", "TD"])
    state = GP.from_text(text)
    assert state.piles[0] == (parse_card("TD"),) and state.piles[1] == (parse_card("TD") + 52,)
    # Reading order is line order: with p2 written first, its TD is deck 0's.
    lines = text.splitlines()
    swapped = "\n".join([lines[3], *lines[:3], *lines[4:]]) + "\n"
    state = GP.from_text(swapped)
    assert state.piles[1] == (parse_card("TD"),) and state.piles[0] == (parse_card("TD") + 52,)
    assert GP.to_text(state) == text


def test_german_patience_layout_ended_is_computed() -> None:
    assert GP.from_text(layout(["8S"])).ended is None
    assert GP.from_text(layout(full_piles())).ended is Ending.WON
    low = [" ".join(s.split()[:5]) for s in SUITS_UP]
    assert GP.from_text(layout(low + low, waste="9C", fill="waste")).ended is Ending.STUCK
    assert GP.from_text(layout(low + low, waste="9C", stock="JH", fill="waste")).ended is None


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (layout(["8S"]).replace("p8:", "p9:"), "line 10: expected"),
        (layout(["8S"]).replace("Waste:", "Talon:"), "line 2: expected"),
        (layout(["8S"]) + "p1: 9S\n", "appears twice"),
        (layout(["8S"]).replace("p3:\n", ""), "missing: \\['p3'\\]"),
        (layout(["8S"]).replace("p3:", "p3: XX"), "line 5: not a card"),
        (layout(["8S"]).replace("p3:", "p3: 8S"), "8S appears more than 2"),
        (layout(["8S"]).replace("Stock: AC", "Stock:"), "found 103; missing AC x1"),
        (layout(["8S 9D TH", "3C 5C"]), "line 4: p2 has 5C on 3C"),
        (layout(["KC QC"]), "p1 has QC on KC"),
        ("hello\n", "line 1"),
    ],
)
def test_german_patience_layout_errors(text: str, message: str) -> None:
    with pytest.raises(BadLayout, match=message):
        GP.from_text(text)


# --- added by the rulings audit ---------------------------------------------------------------------


def test_ruling_german_patience_deal_uses_the_documented_shuffle_of_two_decks() -> None:
    for seed in (0, 1, 2**255):
        deck = shuffle(standard_deck(decks=2), seed, "deal")
        state = GP.deal(seed)
        assert state.piles == tuple((c,) for c in deck[:8]) and state.stock == tuple(deck[8:])


def test_ruling_german_patience_out_of_time_ends_the_game_scored_as_it_stands() -> None:
    state = GP.from_text(layout(["5H 6H 7H", "4C", "", "KD"], waste="8S"))
    over = GP.end(state, Ending.OUT_OF_TIME)
    assert over.ended is Ending.OUT_OF_TIME and GP.score(over) == 5 and GP.legal_moves(over) == []
