"""Duel: the server at a git revision against this checkout's, both raced at once.

A change that saves a few percent of the server's CPU a move cannot be seen by running `load.py`
before and after it here: this machine's speed drifts by more than that from one minute to the
next (the same commit's ``server_us`` spans 88 to 173 µs within an hour). So this starts two
``parlour serve`` processes side by side (each with its own embedded Redis, the limits of
`load.py`): *base*, running the code of ``--base REV`` (``git archive`` into a temporary
directory, first on its ``PYTHONPATH``), and *new*, this checkout's. In each round N racers race
each server at the same time from this process (`load.py`'s racers: solo races, random legal
moves; with ``--races``, `races.py`'s, which concede each race at once). Both servers meet the same
machine at the same moments, so the quotient of their CPU a move (from ``/proc``) holds still where
each figure alone drifts: with ``--base HEAD`` (the same code twice), 6 rounds of 5 s at N=50 gave
quotients from 0.987 to 1.025, median 1.004. Each server runs at about half of `load.py`'s moves a second,
so its write batches are smaller: a saving per batch shows larger here than in `load.py`
(bench/README.md, "Measuring a few percent").

It prints each round's moves (or races) a second, server and Redis µs a move (a race) and p99 of
each server, and ``new/base``, the quotient of their server µs; then its median over the rounds
(below 1: the new code costs less).

    python bench/duel.py --base HEAD~3                 # N = 50 a server, 6 rounds of 5 s
    python bench/duel.py --base main --races --json    # what a race costs, apart from its moves
"""

from __future__ import annotations

import argparse
import asyncio
import io
import json
import os
import statistics
import subprocess
import sys
import tarfile
import tempfile
import tomllib
from pathlib import Path
from typing import Any

from load import BENCH_LIMITS, SERVE, CpuMeter, Racer, free_port, percentile, run_racers, start_process, stop_process
from races import Conceder

ROOT = Path(__file__).resolve().parents[1]


def extract(rev: str, into: Path) -> Path:
    """The code of ``rev`` laid out as the installed packages are (``parlour.server`` and the rest, as
    pyproject.toml maps them), under ``into``; the directory to put first on ``PYTHONPATH``."""
    done = subprocess.run(["git", "-C", str(ROOT), "archive", rev], capture_output=True)
    if done.returncode:
        raise SystemExit(f"duel.py: git cannot archive {rev!r}: {done.stderr.decode(errors='replace').strip()}")
    source = into / "src"
    source.mkdir(parents=True)
    with tarfile.open(fileobj=io.BytesIO(done.stdout)) as tar:
        tar.extractall(source, filter="data")
    dirs = tomllib.loads((source / "pyproject.toml").read_text())["tool"]["setuptools"]["package-dir"]
    for package, directory in dirs.items():
        place = into.joinpath(*package.split("."))
        place.parent.mkdir(parents=True, exist_ok=True)
        place.symlink_to(source / directory, target_is_directory=True)
    return into


def first_on_path(code: Path) -> dict[str, str]:
    """This process's environment with ``code`` first on ``PYTHONPATH``."""
    return {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(code), os.environ.get("PYTHONPATH")]))}


def check_code(code: Path) -> None:
    """Raise unless Python with ``code`` first on its path imports the server from there (and not
    from the installed package)."""
    where = subprocess.run(
        [sys.executable, "-c", "import parlour.server.app as app; print(app.__file__)"],
        env=first_on_path(code), capture_output=True, text=True, check=True,
    ).stdout.strip()  # fmt: skip
    if not Path(where).is_relative_to(code):
        raise RuntimeError(f"the base's server would be {where}, not the code extracted to {code}")


def start_server(data: Path, code: Path | None) -> tuple[subprocess.Popen[str], str]:
    """A ``parlour serve`` on a free port, with ``code`` first on its path (``None``: this checkout)."""
    port = free_port()
    command = [*SERVE, "--port", str(port), "--data-dir", str(data), *BENCH_LIMITS]
    env = None if code is None else first_on_path(code)
    return start_process(command, "listening on", env=env), f"ws://127.0.0.1:{port}"


async def one_round(
    servers: dict[str, tuple[subprocess.Popen[str], str]], n: int, seconds: float, game: str, kind: type[Racer]
) -> dict[str, dict[str, Any]]:
    """N racers on each server at once; each server's rate, CPU per unit (µs) and p99 (ms)."""
    names = list(servers)
    runs = [
        run_racers(url, n, seconds, game, CpuMeter(process.pid, children=True), kind)
        for process, url in servers.values()
    ]
    results = await asyncio.gather(*runs)
    out = {}
    for name, (rate, latencies, costs) in zip(names, results, strict=True):
        server_us, redis_us, _ = costs
        out[name] = {
            "per_s": round(rate),
            "server_us": None if server_us is None else round(server_us, 1),
            "redis_us": None if redis_us is None else round(redis_us, 1),
            "p99_ms": round(percentile(latencies, 99) * 1000, 2),
        }
    return out


def duel(base: str, n: int, seconds: float, rounds: int, game: str, races: bool, verbose: bool) -> dict[str, Any]:
    """``rounds`` rounds of both servers raced at once; with ``verbose``, a line per round as it ends."""
    kind = Conceder if races else Racer
    with tempfile.TemporaryDirectory(prefix="pl-duel-") as tmp:
        code = extract(base, Path(tmp) / "base")
        check_code(code)
        servers = {}
        try:
            servers["base"] = start_server(Path(tmp) / "base-data", code)
            servers["new"] = start_server(Path(tmp) / "new-data", None)
            played = []
            for number in range(rounds):
                row = asyncio.run(one_round(servers, n, seconds, game, kind))
                b, m = row["base"]["server_us"], row["new"]["server_us"]
                row["new_over_base"] = None if not b or m is None else round(m / b, 3)
                played.append(row)
                if verbose:
                    print_round(number, row, races)
        finally:
            for process, _ in servers.values():
                stop_process(process)
    quotients = [row["new_over_base"] for row in played if row["new_over_base"] is not None]
    return {
        "base": base,
        "n": n,
        "game": game,
        "unit": "race" if races else "move",
        "rounds": played,
        "new_over_base": round(statistics.median(quotients), 3) if quotients else None,
        "new_over_base_range": [min(quotients), max(quotients)] if quotients else None,
    }


def print_round(number: int, row: dict[str, Any], races: bool) -> None:
    unit = "races" if races else "moves"
    parts = [
        f"{name} {row[name]['per_s']} {unit}/s, server {row[name]['server_us']} µs, "
        f"redis {row[name]['redis_us']} µs, p99 {row[name]['p99_ms']} ms"
        for name in ("base", "new")
    ]
    print(f"round {number + 1}: {' | '.join(parts)} | new/base {row['new_over_base']}", flush=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--base", default="HEAD", help="the git revision to race against (default HEAD)")
    parser.add_argument("--n", type=int, default=50, help="racers on each server (default 50)")
    parser.add_argument("--seconds", type=float, default=5.0, help="each round's racing time (default 5)")
    parser.add_argument("--rounds", type=int, default=6, help="rounds (default 6)")
    parser.add_argument("--game", default="golf", help="the game the racers play (default golf)")
    parser.add_argument("--races", action="store_true", help="racers that concede at once: the CPU of a race")
    parser.add_argument("--json", action="store_true", help="one JSON object, every round in it")
    args = parser.parse_args(argv)
    result = duel(args.base, args.n, args.seconds, args.rounds, args.game, args.races, not args.json)
    if args.json:
        print(json.dumps(result))
    else:
        low, high = result["new_over_base_range"] or (None, None)
        print(f"new/base server CPU a {result['unit']}: median {result['new_over_base']} (from {low} to {high})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
