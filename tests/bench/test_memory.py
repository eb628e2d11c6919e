"""bench/memory.py runs: idle connections, racers and finished races against a real server, at tiny sizes.
Its figures are only checked to be there and sane, never against targets (memory varies with the machine)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

MEMORY = Path(__file__).resolve().parents[2] / "bench" / "memory.py"
FIGURES = (
    "idle_connection_bytes",
    "racer_bytes",
    "finished_race_bytes_server",
    "idle_connection_bytes_redis",
    "racer_bytes_redis",
    "finished_race_bytes_redis",
)


def test_the_memory_bench_reads_the_server_and_its_redis_at_each_size() -> None:
    command = [sys.executable, str(MEMORY), "--sizes", "20,60", "--warmup", "4", "--moves", "2", "--pairs", "4"]
    done = subprocess.run([*command, "--json"], capture_output=True, text=True, timeout=180)
    assert done.returncode == 0, done.stderr
    (line,) = done.stdout.splitlines()
    figures = json.loads(line)
    for key in FIGURES:
        assert isinstance(figures[key], int) and figures[key] > 0, key
    assert figures["sizes"] == [20, 60]
    assert figures["finished_races_held"] == 4 + 60  # the warm-up's and the measured ones: none evicted yet
    for phase in ("idle", "racers", "finished"):
        readings = figures["readings"][phase]
        assert [r["n"] for r in readings] == [0, 20, 60], phase
        assert all(r["rss"] > 0 and r["redis"] > 0 and r["redis_used_memory"] > 0 for r in readings), phase


def test_the_memory_bench_refuses_odd_sizes() -> None:
    done = subprocess.run([sys.executable, str(MEMORY), "--sizes", "21,60"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and "even" in done.stderr
