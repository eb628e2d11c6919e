"""Properties of every game, drawn by hypothesis: deals, move round trips, replays."""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from parlour.games import Move, game_names, get_game, parse_move, replay
from parlour.games.cards import TEXT

seeds = st.integers(min_value=0, max_value=2**256 - 1)
names = st.sampled_from(game_names())


@st.composite
def games_with_options(draw: st.DrawFn) -> tuple[str, dict[str, Any]]:
    name = draw(names)
    options = {o.name: draw(st.sampled_from(o.values)) for o in get_game(name).options_spec}
    return name, options


@given(games_with_options(), seeds)
def test_a_deal_is_a_pure_function_of_game_options_and_seed(config: tuple[str, dict[str, Any]], seed: int) -> None:
    name, options = config
    game = get_game(name)
    state = game.deal(seed, options)
    assert game.state_hash(game.deal(seed, options)) == game.state_hash(state)
    assert sorted(game.cards(state)) == sorted(game.cards(game.deal(0, options)))
    hidden = Counter(TEXT[c] for c in game.hidden_cards(state))
    visible = Counter(TEXT[c] for c in game.cards(state)) - hidden
    shown = Counter(s for s in json.dumps(game.view(state, "public")).split('"') if s in hidden)
    assert not shown - visible, "the public view shows a face-down card"


@settings(max_examples=60, deadline=None)
@given(games_with_options(), seeds, st.lists(st.integers(min_value=0, max_value=10**6), max_size=80))
def test_moves_round_trip_and_logs_replay_exactly(
    config: tuple[str, dict[str, Any]], seed: int, picks: list[int]
) -> None:
    name, options = config
    game = get_game(name)
    state = game.deal(seed, options)
    log: list[Move] = []
    for pick in picks:
        legal = game.legal_moves(state)
        if not legal:
            break
        move = legal[pick % len(legal)]
        assert Move.from_wire(json.loads(json.dumps(move.wire()))) == move
        assert parse_move(move.text()) == move == game.parse_move(move.text())
        state = game.apply(state, move)
        log.append(move)
    wire_log = json.loads(json.dumps([m.wire() for m in log]))  # as a log travels and is stored
    again = replay(name, options, seed, wire_log)
    assert game.state_hash(again) == game.state_hash(state)
    assert game.score(again) == game.score(state) and game.outcome(again) == game.outcome(state)
    assert game.to_text(game.from_text(game.to_text(state), options)) == game.to_text(state)
