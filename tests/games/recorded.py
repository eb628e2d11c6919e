"""Recorded random playouts: what the engine of commit 0d4d8b5 did, to compare a faster engine with.

Each playout deals ``seed`` with one option set and makes random legal moves chosen by
``random.Random(seed)`` until the game ends or ``cap`` moves are made. At every step the digest takes in
the legal moves in order (wire form), the player's and the public view, the full text layout, the score
and the ending; at some steps a state drawn from the player's view (``game.draw`` with a seeded rng) too.
The fixture keeps, per playout, the number of moves, the chosen moves, the final layout, score and
ending, a digest of everything every ``CHECKPOINT`` moves (to say where two engines part) and of the
whole playout.

    python -m tests.games.recorded      # rewrite the fixture with the engine installed now
"""

from __future__ import annotations

import gzip
import hashlib
import json
import random
import sys
from pathlib import Path
from typing import Any

FIXTURE = Path(__file__).parent / "data" / "recorded_playouts.json.gz"
PLAYOUTS = 2000  # per game
SHORT_CAP = 150  # moves in most playouts
LONG_CAP = 2000  # moves in every LONG_EVERY-th playout
LONG_EVERY = 25
CHECKPOINT = 50
DRAW_EVERY = 40  # a drawn state at steps 20, 60, 100, ...
FIRST_SEED = 7_000_000


def option_sets(name: str) -> list[dict[str, Any]]:
    from parlour.games import get_game

    game = get_game(name)
    if not game.options_spec:
        return [{}]
    spec = game.options_spec[0]  # every game has at most one option (tests/games/test_draw.py)
    return [{spec.name: value} for value in spec.values]


def _text(data: object) -> bytes:
    return json.dumps(data, sort_keys=True, separators=(",", ":")).encode()


def play(name: str, index: int) -> dict[str, Any]:
    """Playout ``index`` of game ``name``: its record (see the module's docstring)."""
    from parlour.games import get_game, score_wire

    game = get_game(name)
    sets = option_sets(name)
    options = sets[index % len(sets)]
    seed = FIRST_SEED + index
    cap = LONG_CAP if index % LONG_EVERY == 0 else SHORT_CAP
    chooser = random.Random(seed)
    state = game.deal(seed, options)
    whole = hashlib.sha256()
    checkpoints = []
    chosen = []
    step = 0
    while True:
        legal = game.legal_moves(state)
        digest = hashlib.sha256()
        digest.update(_text([m.wire() for m in legal]))
        digest.update(_text(game.view(state, "player")))
        digest.update(_text(game.view(state, "public")))
        digest.update(game.to_text(state).encode())
        digest.update(_text([score_wire(game.score(state)), None if state.ended is None else state.ended.value]))
        if step % DRAW_EVERY == DRAW_EVERY // 2 and state.ended is None:
            drawn = game.draw(game.view(state, "player"), random.Random(seed * 1000 + step))
            digest.update(game.to_text(drawn).encode())
        whole.update(digest.digest())
        if step % CHECKPOINT == 0:
            checkpoints.append(whole.hexdigest()[:12])
        if not legal or step == cap:
            break
        pick = chooser.randrange(len(legal))
        chosen.append(pick)
        state = game.apply(state, legal[pick])
        step += 1
    return {
        "seed": seed,
        "options": options,
        "moves": step,
        "chosen": chosen,
        "text": game.to_text(state),
        "score": score_wire(game.score(state)),
        "ended": None if state.ended is None else state.ended.value,
        "checkpoints": checkpoints,
        "digest": whole.hexdigest()[:24],
    }


def record() -> dict[str, list[dict[str, Any]]]:
    from parlour.games import game_names

    return {name: [play(name, i) for i in range(PLAYOUTS)] for name in game_names()}


def load() -> dict[str, list[dict[str, Any]]]:
    with gzip.open(FIXTURE, "rt") as f:
        return json.load(f)


if __name__ == "__main__":
    data = record()
    with gzip.open(FIXTURE, "wt", compresslevel=9) as f:
        json.dump(data, f, separators=(",", ":"))
    print(f"{FIXTURE}: {FIXTURE.stat().st_size} bytes", file=sys.stderr)
