"""Every game and option set through seeded random playouts, checked after every move.

After each move: every card exists exactly once; every listed legal move applies; every
well-formed move not listed is refused with ``IllegalMove``; neither view holds a card
that is face down (nor anything but msgpack-ready data); the text layout reads back to
the same state; the moves round-trip through their wire and text forms. After each
playout: replaying the log gives the same state hash after every move, and the game
has ended (by its own rules, or by conceding once a playout reaches its cap of moves,
which only games whose rules allow endless back-and-forth need). Each move also tries
a random sample of the well-formed moves that are not listed: all must be refused.

``PARLOUR_PLAYOUTS`` sets the playouts per game and option set (default 300; a quarter of
that for the games whose random playouts run to hundreds of moves): 2,175 playouts in all.
"""

from __future__ import annotations

import copy
import dataclasses
import itertools
import os
import pickle
import random
import re
from collections import Counter
from typing import Any

import pytest

from parlour.games import CONCEDE, Ending, Game, IllegalMove, Move, game_names, get_game, replay
from parlour.games.cards import TEXT

PLAYOUTS = int(os.environ.get("PARLOUR_PLAYOUTS", "300"))
# Games whose random playouts run to hundreds of moves get a quarter of the playouts (Gate's nearly all reach
# the cap: about 295 moves on average, The Chance's 275, German Patience's 1,160).
LONG_PLAYOUTS = {"gate", "german-patience", "the-chance"}
CAP = 300
# German Patience rarely ends by its rules before ~300 random moves; give it room.
CAPS = {"german-patience": 1200}
UNLISTED_PER_MOVE = 12  # a random sample of the well-formed moves not listed, refused each move
CARD_TEXT = re.compile(r"^[A2-9TJQK][CDHS]$")
# Games whose every playout must end by the rules alone (no endless back-and-forth is possible).
FINITE = {"carpet", "chris-cross-pairs", "golf"}


def option_sets(game: Game[Any]) -> list[dict[str, Any]]:
    names = [o.name for o in game.options_spec]
    return [
        dict(zip(names, values, strict=True)) for values in itertools.product(*(o.values for o in game.options_spec))
    ]


CONFIGS = [(name, options) for name in game_names() for options in option_sets(get_game(name))]


def card_texts(data: object) -> Counter[str]:
    """Count every card-looking string in plain data; fail on anything not msgpack-ready."""
    out: Counter[str] = Counter()
    stack = [data]
    while stack:
        item = stack.pop()
        kind = type(item)
        if kind is str:
            if len(item) == 2 and CARD_TEXT.match(item):  # type: ignore[arg-type]
                out[item] += 1  # type: ignore[index]
        elif kind is list:
            stack.extend(item)  # type: ignore[arg-type]
        elif kind is dict:
            for key, value in item.items():  # type: ignore[attr-defined]
                assert type(key) is str, f"view key {key!r} is not a string"
                stack.append(key)
                stack.append(value)
        else:
            assert item is None or kind in (bool, int, float), f"not plain data: {item!r}"
    return out


def check_state(game: Game[Any], state: Any, deck: list[int], chooser: random.Random) -> list[Move]:
    """Check one state; return its legal moves."""
    assert sorted(game.cards(state)) == deck, "a card is missing or doubled"
    hidden = Counter(game.hidden_cards(state))
    assert not hidden - Counter(game.cards(state)), "a hidden card is not in the state"
    visible = Counter(TEXT[c] for c in (Counter(game.cards(state)) - hidden).elements())
    for viewer in ("player", "public"):
        shown = card_texts(game.view(state, viewer))
        leaked = shown - visible
        assert not leaked, f"{viewer} view shows cards that are not face up: {sorted(leaked)}"
    text = game.to_text(state)
    again = game.from_text(text, state.options)
    assert game.to_text(again) == text, "the text layout does not read back"
    legal = game.legal_moves(state)
    assert len(set(legal)) == len(legal), "a legal move is listed twice"
    if state.ended is None:
        assert game.legal_moves(again) == legal, "the layout read back has other moves"
    for move in legal:
        assert move != CONCEDE
        assert Move.from_wire(move.wire()) == move
        assert game.parse_move(move.text()) == move
        game.apply(state, move)  # must not raise
    listed = set(legal)
    unlisted = [move for move in game.candidate_moves(state) if move not in listed]
    for move in chooser.sample(unlisted, min(len(unlisted), UNLISTED_PER_MOVE)):
        with pytest.raises(IllegalMove):
            game.apply(state, move)
    return legal


@pytest.mark.parametrize(("name", "options"), CONFIGS, ids=[f"{n}-{o}" if o else n for n, o in CONFIGS])
def test_random_playouts_keep_every_rule_of_the_engine(name: str, options: dict[str, Any]) -> None:
    game = get_game(name)
    ended_by_rules = 0
    for seed in range(PLAYOUTS // 4 if name in LONG_PLAYOUTS else PLAYOUTS):
        chooser = random.Random(seed)
        state = game.deal(seed, options)
        deck = sorted(game.cards(state))
        log: list[Move] = []
        hashes = [game.state_hash(state)]
        while True:
            legal = check_state(game, state, deck, chooser)
            if not legal or len(log) == CAPS.get(name, CAP):
                break
            move = chooser.choice(legal)
            state = game.apply(state, move)
            log.append(move)
            hashes.append(game.state_hash(state))
        if state.ended is None:
            assert legal, f"seed {seed}: no legal move but the game is not over"
            assert name not in FINITE, f"seed {seed}: {name} ran past {len(log)} moves"
            state = game.apply(state, CONCEDE)
            hashes.append(game.state_hash(state))
            log.append(CONCEDE)
        else:
            ended_by_rules += 1
        assert game.outcome(state) is not None and game.legal_moves(state) == []
        with pytest.raises(IllegalMove):
            game.apply(state, CONCEDE)
        rebuilt = game.deal(seed, options)
        assert game.state_hash(rebuilt) == hashes[0]
        for i, move in enumerate(log):
            rebuilt = game.apply(rebuilt, move)
            assert game.state_hash(rebuilt) == hashes[i + 1], f"seed {seed}: replay differs after move {i + 1}"
        wire_log = [m.wire() for m in log]
        assert game.state_hash(replay(name, options, seed, wire_log)) == game.state_hash(state)
        assert game.score(state) == game.score(rebuilt)
    assert ended_by_rules > 0, "no playout ended by the game's own rules"


@pytest.mark.parametrize("name", game_names())
def test_concede_and_time_out_end_any_live_game(name: str) -> None:
    game = get_game(name)
    state = game.deal(99)
    if state.ended is None:
        for why in (Ending.CONCEDED, Ending.OUT_OF_TIME):
            over = game.end(state, why)
            assert game.outcome(over) is why and game.legal_moves(over) == []
            assert game.score(over) == game.score(state) or why is Ending.CONCEDED


@pytest.mark.parametrize("name", game_names())
def test_states_pickle_copy_and_stay_frozen(name: str) -> None:
    """Pure or compiled (mypyc), a state pickles and copies to an equal state and refuses to be changed."""
    game = get_game(name)
    chooser = random.Random(7)
    state = game.deal(41)
    for _ in range(12):
        if (legal := game.legal_moves(state)) and state.ended is None:
            state = game.apply(state, chooser.choice(legal))
    for again in (pickle.loads(pickle.dumps(state)), copy.copy(state), copy.deepcopy(state)):
        assert type(again) is type(state) and again == state
        assert game.to_text(again) == game.to_text(state) and game.legal_moves(again) == game.legal_moves(state)
    with pytest.raises(dataclasses.FrozenInstanceError):
        state.ended = Ending.WON  # type: ignore[misc]
