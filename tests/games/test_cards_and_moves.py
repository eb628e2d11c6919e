"""Cards, moves, options and the registry: the vocabulary every game shares."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from parlour.games import BadLayout, BadMove, BadOptions, Move, UnknownGame, get_game, parse_move
from parlour.games.cards import RANK, SUIT, TEXT, card_text, is_red, make_card, parse_card, parse_cards


def test_card_encoding_and_text() -> None:
    assert card_text(make_card(10, 1)) == "TD"
    assert card_text(make_card(1, 3)) == "AS"
    assert card_text(make_card(13, 2, deck=1)) == "KH"
    assert parse_card("td") == parse_card("10D") == make_card(10, 1)
    assert is_red(parse_card("QH")) and not is_red(parse_card("QS"))
    assert {TEXT[c] for c in range(52)} == {TEXT[c] for c in range(52, 104)}
    assert all(RANK[c] == c % 13 + 1 and SUIT[c] == c // 13 % 4 for c in range(104))


@pytest.mark.parametrize("bad", ["", "1S", "TX", "KSS", "11H"])
def test_bad_card_text_is_refused(bad: str) -> None:
    with pytest.raises(BadLayout):
        parse_card(bad)


def test_second_copy_of_a_card_is_deck_one() -> None:
    seen: dict[int, int] = {}
    assert parse_cards(["TD", "TD"], seen, decks=2) == [make_card(10, 1), make_card(10, 1, deck=1)]
    with pytest.raises(BadLayout, match="more than 2"):
        parse_cards(["TD"], seen, decks=2)
    with pytest.raises(BadLayout, match="more than 1"):
        parse_cards(["AS", "AS"])


moves = st.builds(
    Move,
    kind=st.sampled_from(["turn", "move", "play", "cast", "x"]),
    src=st.sampled_from(["c1", "w", "p7", "a1"]),
    dst=st.sampled_from(["", "f", "c3", "b5"]),
    count=st.integers(min_value=0, max_value=104),
).filter(lambda m: bool(m.dst) or not m.count)


@given(moves)
def test_move_wire_and_text_round_trip(move: Move) -> None:
    assert Move.from_wire(move.wire()) == move
    assert parse_move(move.text()) == move


@pytest.mark.parametrize(
    "wire",
    [
        [],
        "turn",
        [1],
        ["move", 3],
        ["move", "c1", "c2", 0],
        ["move", "c1", "c2", -1],
        ["m", "", "c2"],
        ["move", "c1", "c2", True],
        ["move", "c1", "c2", 3, 4],
        None,
        {"kind": "turn"},
        ["move", "c1", "c2", 500],
    ],
)
def test_malformed_wire_moves_are_bad_moves(wire: object) -> None:
    with pytest.raises(BadMove):
        Move.from_wire(wire)


def test_unknown_game_lists_the_games() -> None:
    with pytest.raises(UnknownGame, match="golf") as info:
        get_game("solitaire")
    assert "the-chance" in str(info.value)


def test_options_are_validated_and_listed() -> None:
    chance = get_game("the-chance")
    assert chance.resolve_options(None) == {"sequence": "alternate"}
    assert chance.resolve_options({"sequence": "suit"}) == {"sequence": "suit"}
    with pytest.raises(BadOptions, match="alternate, any, suit"):
        chance.resolve_options({"sequence": "spiral"})
    with pytest.raises(BadOptions, match="sequence"):
        chance.resolve_options({"draw": "1"})
    cheer = get_game("cheer")
    assert cheer.resolve_options({"win_loss": "yes"}) == {"win_loss": True}
    with pytest.raises(BadOptions, match="false, true"):
        cheer.resolve_options({"win_loss": "maybe"})
    with pytest.raises(BadOptions, match="none"):
        get_game("golf").resolve_options({"wrap": "true"})
