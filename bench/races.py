"""Races: what a race costs the server apart from its moves.

`load.py`'s racers play random Golf, whose games end after about 27 moves, so a race's own work
(create, ready, countdown, deal, close, results, timers, leases) is a large share of what a move
costs there. This measures that work alone: N racers, each against ``parlour serve`` (embedded
Redis, in a temporary directory, the limits of `load.py`), create a solo race, ready it, take the
start, concede at once and take the end, over and over. It prints races a second, the p50 and p99
of a whole race (create sent to end received) and, on Linux, the CPU each process spent per race
(``server_us``, ``redis_us``, ``client_us``, from ``/proc``, as `load.py` counts them), medians
over the rounds.

    python bench/races.py                    # N = 100, 3 rounds of 4 s
    python bench/races.py --n 100 --n 1000 --seconds 6 --rounds 2 --json
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from load import (
    BENCH_LIMITS,
    SERVE,
    Costs,
    CpuMeter,
    Racer,
    free_port,
    median_us,
    percentile,
    run_racers,
    start_process,
    stop_process,
)


class Conceder(Racer):
    """A racer whose every race is a single concession; ``latencies`` holds each race's time,
    create sent to end received."""

    async def play(self, deadline: float) -> None:
        while time.perf_counter() < deadline:
            began = time.perf_counter()
            race, _ = await self.new_race()
            await self.call({"type": "concede", "race": race})
            await self.until("end")
            self.latencies.append(time.perf_counter() - began)


def measure(n: int, seconds: float, game: str, rounds: int) -> dict[str, Any]:
    """``rounds`` rounds of ``n`` racers on one server; medians over the rounds."""
    with tempfile.TemporaryDirectory(prefix="pl-") as data:
        port = free_port()
        command = [*SERVE, "--port", str(port), "--data-dir", str(Path(data) / "d"), *BENCH_LIMITS]
        server = start_process(command, "listening on")
        meter = CpuMeter(server.pid, children=True)
        rates: list[float] = []
        p50s: list[float] = []
        p99s: list[float] = []
        costs: list[Costs] = []
        url = f"ws://127.0.0.1:{port}"
        try:
            for _ in range(rounds):
                rate, times, cost = asyncio.run(run_racers(url, n, seconds / rounds, game, meter, Conceder))
                rates.append(rate)
                p50s.append(percentile(times, 50))
                p99s.append(percentile(times, 99))
                costs.append(cost)
        finally:
            stop_process(server)

    return {
        "n": n,
        "game": game,
        "races_per_s": round(statistics.median(rates)),
        "p50_ms": round(statistics.median(p50s) * 1000, 2),
        "p99_ms": round(statistics.median(p99s) * 1000, 2),
        "rounds": rounds,
        "server_us": median_us(costs, 0),
        "redis_us": median_us(costs, 1),
        "client_us": median_us(costs, 2),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--n", type=int, action="append", help="racers (repeatable; default 100)")
    parser.add_argument("--seconds", type=float, default=12.0, help="racing time per N (default 12)")
    parser.add_argument("--rounds", type=int, default=3, help="rounds per N (default 3)")
    parser.add_argument("--game", default="golf", help="the game of the races (default golf)")
    parser.add_argument("--json", action="store_true", help="one JSON object per N")
    args = parser.parse_args(argv)
    if not args.json:
        header = (
            f"{'N':>5} {'races/s':>8} {'p50 ms':>8} {'p99 ms':>8} {'server us':>10} {'redis us':>9} {'client us':>10}"
        )
        print(header)
    for n in args.n or [100]:
        row = measure(n, args.seconds, args.game, args.rounds)
        if args.json:
            print(json.dumps(row), flush=True)
        else:
            print(
                f"{n:>5} {row['races_per_s']:>8} {row['p50_ms']:>8} {row['p99_ms']:>8} {row['server_us']!s:>10} "
                f"{row['redis_us']!s:>9} {row['client_us']!s:>10}",
                flush=True,
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
