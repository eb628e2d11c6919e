"""Golf solver speed: boards solved per second over seeded boards, and the winnable share.

python bench/solve_golf.py                 # 500 boards: seeds 0-499
python bench/solve_golf.py --boards 100 --json
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time

from parlour.games import get_game
from parlour.games.golf_solver import solve


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--boards", type=int, default=500, help="how many seeded boards (default 500)")
    parser.add_argument("--first-seed", type=int, default=0, help="the first seed (default 0)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    golf = get_game("golf")
    times: list[float] = []
    positions: list[int] = []
    winnable = 0
    start = time.perf_counter()
    for seed in range(args.first_seed, args.first_seed + args.boards):
        state = golf.deal(seed)
        t0 = time.perf_counter()
        solution = solve(state)
        times.append(time.perf_counter() - t0)
        positions.append(solution.positions)
        winnable += solution.winnable
    elapsed = time.perf_counter() - start
    row = {
        "boards": args.boards,
        "boards_per_s": round(args.boards / elapsed, 2),
        "winnable_share": round(winnable / args.boards, 4),
        "median_ms": round(statistics.median(times) * 1000, 1),
        "max_ms": round(max(times) * 1000, 1),
        "median_positions": int(statistics.median(positions)),
        "max_positions": max(positions),
    }
    if args.json:
        print(json.dumps(row))
    else:
        print(f"boards solved:     {row['boards']} (seeds {args.first_seed}-{args.first_seed + args.boards - 1})")
        print(f"boards per second: {row['boards_per_s']}")
        print(f"winnable:          {winnable} ({row['winnable_share']:.1%})")
        print(f"time per board:    median {row['median_ms']} ms, max {row['max_ms']} ms")
        print(f"positions:         median {row['median_positions']}, max {row['max_positions']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
