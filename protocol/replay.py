"""Race replays and their verification: anyone can check a finished race.

A replay (the ``replay_data`` reply, or a file saved from it as JSON) holds the game,
its options, the revealed seed (hex) and salt (hex), the commitment published at the
start, and every seat's log. :func:`verify_replay` rebuilds the deal, checks that
``commitment == SHA-256(salt || seed as 32 bytes big-endian)``, replays every log entry
through the rules engine (``["undo"]`` takes back the last move where the race's
``settings`` allowed undo, ``["concede"]`` ends the game; a game still running at the end
ran out of time) and confirms every seat's
score, move count and place.
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Mapping, Sequence
from typing import Any

from parlour.games import Ending, GameError, Move, get_game, score_wire

REPLAY_FORMAT = "parlour-replay-1"


@functools.lru_cache(maxsize=4096)  # a server shows a running race's commitment in every summary of it
def commitment(seed: int, salt: bytes) -> str:
    """The hex SHA-256 of the salt followed by the seed as 32 big-endian bytes."""
    return hashlib.sha256(salt + seed.to_bytes(32, "big")).hexdigest()


def ranked_results(results: Sequence[Mapping[str, Any]], higher_is_better: bool) -> list[Mapping[str, Any]]:
    """``results`` (each with ``score``, ``ended``, ``time`` and ``moves`` as published) best first:
    by score in the game's direction; at an equal score a game played out (won, stuck, lost,
    out of time) before a conceded one (by its racer or for absence); then the earlier time,
    then fewer moves; ties keep their order. The one ranking rule: the server and
    :func:`verify_replay` both use it."""
    sign = -1 if higher_is_better else 1
    return sorted(results, key=lambda r: (sign * r["score"], r["ended"] == "conceded", r["time"], r["moves"]))


def verify_replay(replay: Mapping[str, Any]) -> list[str]:
    """Every problem found in ``replay``; an empty list means it is honest."""
    try:
        return _verify(replay)
    except (KeyError, TypeError, ValueError) as error:
        return [f"the replay is malformed: {type(error).__name__}: {error}"]


def _verify(replay: Mapping[str, Any]) -> list[str]:
    problems: list[str] = []
    if replay.get("format") != REPLAY_FORMAT:
        return [f"not a replay in the format {REPLAY_FORMAT!r}"]
    try:
        game = get_game(replay["game"])
        options = game.resolve_options(replay["options"])
    except GameError as error:
        return [str(error)]
    seed = int(replay["seed"], 16)
    salt = bytes.fromhex(replay["salt"])
    if commitment(seed, salt) != replay["commitment"]:
        problems.append("the seed and salt do not match the commitment published at the start")
    undo_allowed = replay.get("settings", {}).get("undo", True)  # older replays do not say
    outcomes = []
    for seat in replay["seats"]:
        states = [game.deal(seed, options)]
        conceded = False
        for number, entry in enumerate(seat["log"]):
            try:
                if entry == ["undo"]:
                    if not undo_allowed:
                        raise GameError("this race did not allow undo")
                    if len(states) < 2:
                        raise GameError("nothing to undo")
                    states.pop()
                    continue
                move = Move.from_wire(entry)
                states.append(game.apply(states[-1], move))
                conceded = entry == ["concede"]
            except GameError as error:
                problems.append(f"seat {seat['seat']}: entry {number} {entry!r} is refused: {error}")
                break
        state = states[-1]
        if state.ended is None:
            state = game.end(state, Ending.OUT_OF_TIME)
        outcomes.append((seat["seat"], score_wire(game.score(state)), len(states) - 1 - conceded, state.ended.value))
    results = {r["seat"]: r for r in replay["results"]}
    for seat, score, moves, ended in outcomes:
        claimed = results.get(seat)
        if claimed is None:
            problems.append(f"seat {seat} has no result")
            continue
        if claimed["score"] != score:
            problems.append(f"seat {seat}: the result says score {claimed['score']}, the replay gives {score}")
        if claimed["moves"] != moves:
            problems.append(f"seat {seat}: the result says {claimed['moves']} moves, the replay gives {moves}")
        if claimed["ended"] != ended:
            problems.append(f"seat {seat}: the result says {claimed['ended']}, the replay gives {ended}")
    ranked = ranked_results(replay["results"], game.higher_is_better)
    if [r["seat"] for r in ranked] != [r["seat"] for r in sorted(replay["results"], key=lambda r: r["place"])]:
        problems.append("the places do not follow the scores (then concessions last, finish times, moves)")
    return problems
