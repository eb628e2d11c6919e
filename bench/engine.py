"""Random-playout speed of every game: moves per second and games per second.

Each playout deals a new seed and makes uniformly random legal moves (legal-move
generation is part of every move) until the game ends, or for at most ``--cap`` moves,
after which it concedes. One core, one process.

    python bench/engine.py                 # every game, a table
    python bench/engine.py --game golf --seconds 5
    python bench/engine.py --json          # one JSON object per game
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from typing import Any

from parlour.games import Ending, game_names, get_game

TARGET_MOVES_PER_S = 20_000


def playouts(name: str, options: dict[str, Any], seconds: float, cap: int) -> dict[str, Any]:
    """Run random playouts of one game for ``seconds`` and return the figures."""
    game = get_game(name)
    chooser = random.Random(12345)
    moves = games = capped = 0
    seed = 0
    start = time.perf_counter()
    deadline = start + seconds
    while time.perf_counter() < deadline:
        state = game.deal(seed, options)
        seed += 1
        for _ in range(cap):
            legal = game.legal_moves(state)
            if not legal:
                break
            state = game.apply(state, chooser.choice(legal))
            moves += 1
        else:
            capped += 1
            state = game.end(state, Ending.CONCEDED)
        games += 1
    elapsed = time.perf_counter() - start
    return {
        "game": name,
        "options": options,
        "moves_per_s": round(moves / elapsed),
        "games_per_s": round(games / elapsed, 1),
        "moves_per_game": round(moves / games, 1),
        "capped": capped,
        "games": games,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--game", action="append", help="a game to measure (repeatable; default: all)")
    parser.add_argument("--seconds", type=float, default=3.0, help="time per game (default 3)")
    parser.add_argument("--cap", type=int, default=2000, help="moves before a playout concedes (default 2000)")
    parser.add_argument("--json", action="store_true", help="print one JSON object per game")
    args = parser.parse_args(argv)
    names = args.game or game_names()
    if not args.json:
        print(f"{'game':<20} {'moves/s':>9} {'games/s':>9} {'moves/game':>11} {'capped':>7}")
    slow = []
    for name in names:
        row = playouts(name, {}, args.seconds, args.cap)
        if row["moves_per_s"] < TARGET_MOVES_PER_S:
            slow.append(name)
        if args.json:
            print(json.dumps(row))
        else:
            print(
                f"{name:<20} {row['moves_per_s']:>9} {row['games_per_s']:>9} "
                f"{row['moves_per_game']:>11} {row['capped']:>4}/{row['games']}"
            )
    if slow and not args.json:
        print(f"below {TARGET_MOVES_PER_S} moves/s: {', '.join(slow)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
