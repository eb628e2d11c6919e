"""Golf solver speed: boards solved per second over seeded boards, and the winnable share.

python bench/solve_golf.py                 # 500 boards: seeds 0-499
python bench/solve_golf.py --boards 100 --json
python bench/solve_golf.py --compare 0d4d8b5   # this solver against the one at a commit, in one run
python bench/solve_golf.py --fewest --boards 2000 --compare main   # the best score (``fewest``) instead

``--compare REV`` loads ``games/golf_solver.py`` as it was at ``REV`` (git show) and solves every board
with both, alternating which goes first, so the machine's noise falls on both alike. It checks that every
verdict and winning line is equal and prints both speeds and their ratio (this one over REV's).
``--fewest`` measures ``fewest`` (the best score) instead of ``solve``; every score, line and ``exact``
must then be equal.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from parlour.games import get_game
from parlour.games.golf_solver import fewest, solve

ROOT = Path(__file__).resolve().parent.parent


def solver_at(rev: str, name: str = "solve") -> Callable[[Any], Any]:
    """``solve`` (or the function ``name``) from ``games/golf_solver.py`` as it was at git revision ``rev``."""
    text = subprocess.run(
        ["git", "show", f"{rev}:games/golf_solver.py"], cwd=ROOT, check=True, capture_output=True, text=True
    ).stdout
    path = Path(tempfile.mkdtemp()) / "golf_solver_at_rev.py"
    path.write_text(text)
    spec = importlib.util.spec_from_file_location("golf_solver_at_rev", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return getattr(module, name)  # type: ignore[no-any-return]


def summary(boards: int, times: list[float], positions: list[int], winnable: int) -> dict[str, Any]:
    """``winnable``: the boards won (with ``--fewest``, those whose best score is 0)."""
    return {
        "boards": boards,
        "boards_per_s": round(boards / sum(times), 2),
        "winnable_share": round(winnable / boards, 4),
        "median_ms": round(statistics.median(times) * 1000, 1),
        "max_ms": round(max(times) * 1000, 1),
        "median_positions": int(statistics.median(positions)),
        "max_positions": max(positions),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--boards", type=int, default=500, help="how many seeded boards (default 500)")
    parser.add_argument("--first-seed", type=int, default=0, help="the first seed (default 0)")
    parser.add_argument("--compare", metavar="REV", help="also run the solver at git revision REV, interleaved")
    parser.add_argument("--fewest", action="store_true", help="measure fewest (the best score), not solve")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    golf = get_game("golf")
    function = "fewest" if args.fewest else "solve"
    solvers: dict[str, Callable[[Any], Any]] = {"head": fewest if args.fewest else solve}
    if args.compare:
        solvers[args.compare] = solver_at(args.compare, function)
    times: dict[str, list[float]] = {name: [] for name in solvers}
    positions: dict[str, list[int]] = {name: [] for name in solvers}
    winnable = 0
    differ: list[int] = []
    names = list(solvers)
    scores: list[int] = []
    for n, seed in enumerate(range(args.first_seed, args.first_seed + args.boards)):
        state = golf.deal(seed)
        answers = {}
        for name in names if n % 2 == 0 else names[::-1]:
            t0 = time.perf_counter()
            solution = solvers[name](state)
            times[name].append(time.perf_counter() - t0)
            positions[name].append(solution.positions)
            if args.fewest:
                answers[name] = (solution.score == 0, solution.score, solution.line, solution.exact)
            else:
                answers[name] = (solution.winnable, solution.line)
        winnable += answers["head"][0]
        if args.fewest:
            scores.append(answers["head"][1])
        if len({answers[name] for name in names}) > 1:
            differ.append(seed)
    rows = {name: summary(args.boards, times[name], positions[name], winnable) for name in names}
    if args.fewest:
        for row in rows.values():
            row["mean_score"] = round(statistics.mean(scores), 3)
    result: dict[str, Any] = rows["head"]
    if args.compare:
        result = {
            "head": rows["head"],
            args.compare: rows[args.compare],
            "speedup": round(sum(times[args.compare]) / sum(times["head"]), 2),
            "answers_differ": differ,
        }
    if args.json:
        print(json.dumps(result))
        return 1 if differ else 0
    print(f"boards solved:     {args.boards} (seeds {args.first_seed}-{args.first_seed + args.boards - 1})")
    print(f"winnable:          {winnable} ({winnable / args.boards:.1%})")
    if args.fewest:
        print(f"mean best score:   {rows['head']['mean_score']}")
    for name in names:
        row = rows[name]
        label = f" [{name}]" if args.compare else ""
        print(f"boards per second{label}: {row['boards_per_s']}")
        print(f"time per board{label}:    median {row['median_ms']} ms, max {row['max_ms']} ms")
        print(f"positions{label}:         median {row['median_positions']}, max {row['max_positions']}")
    if args.compare:
        print(f"speedup (head over {args.compare}): {result['speedup']}x")
        print(f"answers differ on: {differ or 'no board'}")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
