"""The opening positions as the specification (protocol/README.md, section 7.4) states them.

A client in another language rebuilds the opening view from the seed with these facts; each is
checked here over many deals, so the spec cannot drift from the engine.
"""

from __future__ import annotations

from typing import Any

import pytest

from parlour.games import get_game
from parlour.games.cards import TEXT, standard_deck
from parlour.games.shuffle import shuffle

SEEDS = range(150)


def opening(game: str, seed: int, **options: Any) -> dict[str, Any]:
    rules = get_game(game)
    return rules.view(rules.deal(seed, rules.resolve_options(options)), "player")


def dealt(seed: int) -> list[str]:
    return [TEXT[c] for c in shuffle(standard_deck(), seed, "deal")]


@pytest.mark.parametrize("seed", SEEDS)
def test_golf_carpet_gate_and_german_patience_open_as_the_spec_says(seed: int) -> None:
    golf = opening("golf", seed)
    cards = dealt(seed)
    assert golf["board"]["waste"] == [cards[35]] and golf["board"]["stock"] == 16 and golf["score"] == 35
    plays = [m for m in golf["moves"] if m[0] == "play"]
    assert plays == sorted(plays) and golf["moves"][-1] == ["turn"] and golf["ended"] is None

    carpet = opening("carpet", seed)["board"]
    assert carpet["foundations"] == ["AC", "AD", "AH", "AS"] and carpet["discard"] == [] and carpet["deck"] == 28

    gate = opening("gate", seed)
    assert gate["board"]["vacancy"] == "reserve" and gate["board"]["foundation_cards"] == 0
    assert gate["board"]["foundations"] == [None] * 4 and gate["board"]["stock"] == 34 and gate["score"] == 0
    assert [len(r) for r in gate["board"]["reserves"]] == [5, 5] and gate["board"]["reserves"][0][-1] == cards[4]

    german = opening("german-patience", seed)
    assert german["board"]["stock"] == 96 and german["board"]["waste"] == [] and german["score"] == 8
    assert german["moves"][-1] == ["turn"]


@pytest.mark.parametrize("seed", SEEDS)
def test_cheer_gaps_and_chris_cross_pairs_open_as_the_spec_says(seed: int) -> None:
    cheer = opening("cheer", seed)
    assert cheer["board"]["parking"] == [[], [], []] and cheer["board"]["opened"] == []
    assert cheer["board"]["foundations"] == [None] * 4 and cheer["score"] == 0

    gaps = opening("gaps", seed)
    board = gaps["board"]
    assert board["removed"] == ["AC", "AD", "AH", "AS"]
    assert (board["redeals_used"], board["redeals_left"]) == (0, 2)
    assert sum(row.count(None) for row in board["rows"]) == 4 and gaps["score"] >= 4
    fills = [m[1] for m in gaps["moves"] if m[0] == "fill"]
    order = [f"{r}{c}" for r in "abcd" for c in range(1, 14)]
    assert fills == sorted(fills, key=order.index)
    assert (gaps["moves"] == [["redeal"]]) == (not fills)

    ccp = opening("chris-cross-pairs", seed)
    board = ccp["board"]
    fixed = {k: board[k] for k in ("stock", "waste", "cast_out", "round", "phase", "pairs_this_round")}
    assert fixed == {"stock": 27, "waste": [], "cast_out": 0, "round": 1, "phase": 1, "pairs_this_round": 0}
    assert (board["emptied"], board["slid"], board["can_cast"]) == ([], [], True)
    assert board["rows"][0][1] == dealt(seed)[5]  # down column a first: card 5 is b1
    assert ccp["ended"] == (None if ccp["moves"] else "lost")
    assert all(m[0] == "cast" for m in ccp["moves"])


@pytest.mark.parametrize("sequence", ["alternate", "any", "suit"])
def test_the_chance_opens_after_its_lay_offs_with_idle_1(sequence: str) -> None:
    laid_off = 0
    for seed in SEEDS:
        view = opening("the-chance", seed, sequence=sequence)
        board = view["board"]
        assert board["idle"] == 1 and board["stock"] == 24 and board["waste"] == [] and view["ended"] is None
        on_foundations = sum(0 if top is None else "A23456789TJQK".index(top[0]) + 1 for top in board["foundations"])
        in_columns = sum(c["down"] + len(c["up"]) for c in board["columns"])
        assert on_foundations + in_columns == 28
        assert all(c["up"] or not c["down"] for c in board["columns"])  # face-down cards always under a face-up one
        laid_off += on_foundations
        n = on_foundations
        expected = {"any": (n - 20) / 4, "alternate": (n - 10) / 2, "suit": n - 5}[sequence]
        assert view["score"] == expected
        assert view["moves"][-1] == ["turn"]
    assert laid_off > 0  # some deals do lay cards off at once
