"""Replay documents made without a server: the honest replay of given logs on a fixed deal, as the
server would publish it (the commitment from the seed and salt, every seat's result, the places)."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from parlour.games import Ending, Move, get_game, score_wire
from parlour.protocol.replay import REPLAY_FORMAT, commitment, ranked_results

SALT = bytes.fromhex("00112233445566778899aabbccddeeff")


def seat_result(game_name: str, seed: int, log: Sequence[list[Any]]) -> tuple[int | float, int, str]:
    """A log's score, standing moves and ending (as :func:`verify_replay` counts them)."""
    game = get_game(game_name)
    states = [game.deal(seed)]
    conceded = False
    for entry in log:
        if entry == ["undo"]:
            states.pop()
            continue
        states.append(game.apply(states[-1], Move.from_wire(entry)))
        conceded = entry == ["concede"]
    state = states[-1] if states[-1].ended is not None else game.end(states[-1], Ending.OUT_OF_TIME)
    return score_wire(game.score(state)), len(states) - 1 - conceded, state.ended.value


def made_replay(
    game_name: str, seed: int, logs: Sequence[Sequence[list[Any]]], names: Sequence[str] = ("ada", "bob", "cy")
) -> dict[str, Any]:
    """The replay of a race of ``game_name`` on the deal of ``seed`` whose seats played ``logs``
    (undo allowed); seat ``i`` is named ``names[i]`` and took ``10 + i`` seconds."""
    game = get_game(game_name)
    seats, results = [], []
    for i, log in enumerate(logs):
        player = f"p{i:016x}"
        seats.append({"seat": i, "player": player, "name": names[i], "bot": i == 1, "log": [list(e) for e in log]})
        score, moves, ended = seat_result(game_name, seed, log)
        result = {"seat": i, "player": player, "name": names[i], "score": score, "ended": ended, "moves": moves}
        results.append({**result, "time": 10.0 + i})
    ranked = ranked_results(results, game.higher_is_better)
    results = [{"place": place, **r} for place, r in enumerate(ranked, 1)]
    options = game.resolve_options({})
    return {
        "format": REPLAY_FORMAT,
        "race": "r0replay01",
        "game": game_name,
        "options": options,
        "seed": f"{seed:x}",
        "salt": SALT.hex(),
        "commitment": commitment(seed, SALT),
        "started_at": 1763740020.0,
        "ended_at": 1763740040.0,
        "settings": {"game": game_name, "options": options, "seats": len(logs), "time_limit": 300, "undo": True},
        "seats": seats,
        "results": results,
    }


def played_log(game_name: str, seed: int, moves: int, pick: int) -> list[list[Any]]:
    """Up to ``moves`` legal moves on the deal of ``seed``, each chosen by a ``random.Random(pick)``."""
    game = get_game(game_name)
    rng = random.Random(pick)
    state = game.deal(seed)
    log: list[list[Any]] = []
    for _ in range(moves):
        legal = game.legal_moves(state)
        if not legal:
            break
        move = rng.choice(legal)
        state = game.apply(state, move)
        log.append(move.wire())
    return log
