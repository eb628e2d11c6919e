"""Information sets: ``Game.draw`` gives states consistent with a player's view, hidden cards uniform.

For every game and option set, on positions reached by random play:

- the drawn state's player view equals the view it was drawn from, and it holds the same cards;
- over many draws, every card the view does not show reaches every hidden place (``hidden_cards``
  lists the hidden places in a fixed order, so place ``i`` is index ``i``). Two-deck games compare
  card texts: the view cannot tell the decks apart.
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from parlour.games import game_names, get_game
from parlour.games.cards import TEXT

OPTION_SETS = [
    (name, dict(zip([o.name for o in get_game(name).options_spec], values, strict=True)))
    for name in game_names()
    for values in (
        [()]
        if not get_game(name).options_spec
        else [(v,) for v in get_game(name).options_spec[0].values]  # every game has at most one option
    )
]
IDS = [f"{name}-{'-'.join(str(v) for v in options.values()) or 'default'}" for name, options in OPTION_SETS]


def test_every_game_has_at_most_one_option() -> None:
    assert all(len(get_game(name).options_spec) <= 1 for name in game_names())


def reached(name: str, options: dict[str, Any], seed: int, steps: int) -> Any:
    """The position after up to ``steps`` random legal moves from the deal of ``seed``."""
    game = get_game(name)
    state = game.deal(seed, options)
    rng = random.Random(seed)
    for _ in range(steps):
        moves = game.legal_moves(state)
        if not moves:
            break
        state = game.apply(state, rng.choice(moves))
    return state


@pytest.mark.parametrize(("name", "options"), OPTION_SETS, ids=IDS)
@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**256 - 1), steps=st.integers(0, 60), draw_seed=st.integers(0, 2**32))
def test_a_drawn_state_shows_the_view_it_was_drawn_from(
    name: str, options: dict[str, Any], seed: int, steps: int, draw_seed: int
) -> None:
    game = get_game(name)
    state = reached(name, options, seed, steps)
    view = game.view(state, "player")
    drawn = game.draw(view, random.Random(draw_seed))
    assert game.view(drawn, "player") == view
    assert Counter(TEXT[c] for c in game.cards(drawn)) == Counter(TEXT[c] for c in game.cards(state))
    assert sorted(TEXT[c] for c in game.hidden_cards(drawn)) == sorted(TEXT[c] for c in game.hidden_cards(state))


@pytest.mark.parametrize(("name", "options"), OPTION_SETS, ids=IDS)
@pytest.mark.parametrize("steps", [0, 25])
def test_every_unseen_card_reaches_every_hidden_place(name: str, options: dict[str, Any], steps: int) -> None:
    game = get_game(name)
    state = reached(name, options, 7, steps)
    view = game.view(state, "player")
    unseen = {TEXT[c] for c in game.hidden_cards(state)}
    places = len(game.hidden_cards(state))
    seen: list[set[str]] = [set() for _ in range(places)]
    rng = random.Random(1)
    for _ in range(3000):
        for place, card in enumerate(game.hidden_cards(game.draw(view, rng))):
            seen[place].add(TEXT[card])
        if all(s == unseen for s in seen):
            break
    missing = [(place, sorted(unseen - s)) for place, s in enumerate(seen) if s != unseen]
    assert not missing, f"cards that never reached a hidden place: {missing[:3]}"
