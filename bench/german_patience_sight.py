"""German Patience: how much of the stock a player must see to win, on the bench deals.

A player who sees the next K stock cards (and no more) plays each deal of ``bench/bots.py`` (the
arena's deals of seed 0) with the ceiling's beam (``bots/builtin/german_patience.py``): before each
turn it runs the beam over the K cards it sees, from every position its moves reach, and goes to
the position whose line ends best by the beam's own order; with the stock out it goes to the
position with the most cards in piles. K=0 is the blind ``search`` bot itself (a racer's view,
nothing more); a K of 96 or more sees the whole stock at every turn. Seeing more never hurts a
player who plays best, so these rows say how far the blind bot is from what sight buys, and where
along the way wins come; they are no bound on the best blind play (this player is not the best
one for what it sees, either).

    python bench/german_patience_sight.py                          # K = 0, 1, 4; deals 0-99
    python bench/german_patience_sight.py --sight 8 --deals 50 --json

It prints, for each K, the mean cards placed (8 to 104; 104 is a win) with its 95% interval and the
wins with theirs. A deal takes about 5 s a card of K on one core (width 30), on all cores at once.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from concurrent.futures import ProcessPoolExecutor
from typing import Any

from parlour.bots.arena import bot_seed, deal_seed, play
from parlour.bots.builtin import german_patience as gp
from parlour.bots.stats import mean_interval, wilson_interval
from parlour.games import get_game
from parlour.games.cards import RANK

GAME = get_game("german-patience")
WIN = gp.PILES * gp.FULL


def choose(start: gp.Position, seen: list[int], width: int, spread: int) -> gp.Position:
    """The position to turn from: of those reachable from ``start``, the one whose beam over ``seen``
    (the next cards, in order) ends best by the beam's order; with nothing seen, the most cards in piles."""
    first = gp._reach(start, spread)
    if not seen:
        return max(first, key=gp._score)
    beam = [(position, i) for i, position in enumerate(first)]  # each with the first position it came from
    for rank in seen:
        found: dict[Any, tuple[tuple[int, int], gp.Position, int]] = {}
        for (piles, waste), origin in beam:
            for position in gp._reach((piles, (*waste, rank)), spread):
                key = gp._beam_key(position)
                value = gp._promise(position)
                if key not in found or value > found[key][0]:
                    found[key] = (value, position, origin)
        kept = sorted(found.values(), key=lambda item: item[0], reverse=True)[:width]
        beam = [(position, origin) for _, position, origin in kept]
    _, origin = max(beam, key=lambda item: gp._promise(item[0]))
    return first[origin]


def cards_placed(index: int, sight: int, width: int, spread: int) -> int:
    """The cards in piles at the end of the bench's deal ``index`` for a player who sees ``sight`` cards ahead."""
    seed = deal_seed(0, index)
    if sight == 0:
        return int(play(gp.Search(bot_seed(0, index)), GAME, seed, {}).score)
    state = GAME.deal(seed, {})
    stock = [RANK[card] for card in state.stock]
    position = gp._position_of(state)
    for turned, rank in enumerate(stock):
        piles, waste = choose(position, stock[turned : turned + sight], width, spread)
        position = (piles, (*waste, rank))
    return gp._score(choose(position, [], width, spread))


def _one(job: tuple[int, int, int, int]) -> int:
    return cards_placed(*job)


def measure(sight: int, first: int, deals: int, width: int, spread: int, jobs: int) -> dict[str, Any]:
    """The row of one ``sight``: every deal's cards placed, their mean and the wins, with 95% intervals."""
    started = time.perf_counter()
    work = [(index, sight, width, spread) for index in range(first, first + deals)]
    with ProcessPoolExecutor(jobs) as pool:
        placed = list(pool.map(_one, work))
    wins = sum(cards == WIN for cards in placed)
    mean = mean_interval(placed)
    win_ci = wilson_interval(wins, len(placed))
    return {
        "sight": sight,
        "deals": f"{first}-{first + deals - 1}",
        "width": width,
        "mean_placed": round(sum(placed) / len(placed), 2),
        "placed_ci": [round(mean[0], 2), round(mean[1], 2)] if mean else None,
        "wins": wins,
        "win_rate": round(wins / len(placed), 4),
        "win_ci": [round(win_ci[0], 4), round(win_ci[1], 4)] if win_ci else None,
        "seconds": round(time.perf_counter() - started, 1),
        "placed": placed,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sight", type=int, action="append", help="cards seen ahead (repeatable; default 0, 1, 4)")
    parser.add_argument("--deals", type=int, default=100, help="deals to play (default 100)")
    parser.add_argument("--first", type=int, default=0, help="the first deal's index (default 0)")
    parser.add_argument("--width", type=int, default=gp.CEILING_WIDTH, help="the beam's width (default the ceiling's)")
    parser.add_argument("--spread", type=int, default=gp.CEILING_SPREAD, help=argparse.SUPPRESS)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="worker processes (default all cores)")
    parser.add_argument("--json", action="store_true", help="one JSON object per K, every deal's score included")
    args = parser.parse_args(argv)
    if args.deals < 1 or args.first < 0 or args.width < 1 or args.jobs < 1 or min(args.sight or [0]) < 0:
        parser.error("--deals, --width and --jobs must be at least 1; --first and --sight at least 0")
    for sight in args.sight or [0, 1, 4]:
        row = measure(sight, args.first, args.deals, args.width, args.spread, args.jobs)
        if args.json:
            print(json.dumps(row), flush=True)
            continue
        who = "blind (search)" if sight == 0 else f"sees {sight} ahead"
        low, high = row["win_ci"]
        print(
            f"{who:>16}: {row['mean_placed']:.2f} cards placed {row['placed_ci']}, "
            f"{row['wins']} wins of {args.deals} ({100 * row['win_rate']:.1f}% [{100 * low:.1f}%, {100 * high:.1f}%]), "
            f"{row['seconds']} s",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
