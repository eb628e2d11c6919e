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

import websockets
from load import BENCH_LIMITS, SERVE, Costs, CpuMeter, Racer, free_port, percentile, start_process, stop_process


class Conceder(Racer):
    """A racer whose every race is a single concession."""

    def __init__(self, ws: Any, game: str, seed: int) -> None:
        super().__init__(ws, game, seed)
        self.races: list[float] = []  # each race's time, create sent to end received

    async def play(self, deadline: float) -> None:
        while time.perf_counter() < deadline:
            began = time.perf_counter()
            race, _ = await self.new_race()
            await self.call({"type": "concede", "race": race})
            await self.until("end")
            self.races.append(time.perf_counter() - began)


async def run_races(url: str, n: int, seconds: float, game: str, meter: CpuMeter) -> tuple[float, list[float], Costs]:
    """Races per second of ``n`` racers, each race's time, and the CPU of each of ``meter``'s
    processes per race while they race (connecting, hello and closing left out)."""
    racers = []
    for i in range(n):
        ws = await websockets.connect(url, compression=None)
        racer = Conceder(ws, game, i)
        await racer.call({"type": "hello", "name": f"bench{i}", "bot": True})
        racers.append(racer)
    before = meter.snapshot()
    start = time.perf_counter()
    await asyncio.gather(*(r.play(start + seconds) for r in racers))
    elapsed = time.perf_counter() - start
    times = [x for r in racers for x in r.races]
    costs = CpuMeter.per_unit(before, meter.snapshot(), len(times))
    await asyncio.gather(*(r.ws.close() for r in racers))
    return len(times) / elapsed, times, costs


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
        try:
            for _ in range(rounds):
                rate, times, cost = asyncio.run(run_races(f"ws://127.0.0.1:{port}", n, seconds / rounds, game, meter))
                rates.append(rate)
                p50s.append(percentile(times, 50))
                p99s.append(percentile(times, 99))
                costs.append(cost)
        finally:
            stop_process(server)

    def cpu(index: int) -> float | None:
        figures = [figure for c in costs if (figure := c[index]) is not None]
        return round(statistics.median(figures)) if figures else None

    return {
        "n": n,
        "game": game,
        "races_per_s": round(statistics.median(rates)),
        "p50_ms": round(statistics.median(p50s) * 1000, 2),
        "p99_ms": round(statistics.median(p99s) * 1000, 2),
        "rounds": rounds,
        "server_us": cpu(0),
        "redis_us": cpu(1),
        "client_us": cpu(2),
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
