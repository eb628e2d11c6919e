"""bench/races.py runs: a few racers creating and conceding races against a real server, for about 2 s."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

RACES = Path(__file__).resolve().parents[2] / "bench" / "races.py"


def test_races_bench_measures_what_a_race_costs_the_server() -> None:
    command = [sys.executable, str(RACES), "--n", "3", "--seconds", "2", "--rounds", "2", "--json"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    (row,) = [json.loads(line) for line in done.stdout.splitlines()]
    assert row["n"] == 3 and row["game"] == "golf" and row["rounds"] == 2
    assert row["races_per_s"] > 0
    assert 0 < row["p50_ms"] <= row["p99_ms"]
    if Path("/proc/self/stat").exists():  # the CPU split comes from /proc
        assert row["server_us"] > 0 and row["client_us"] > 0
        assert row["redis_us"] is not None and row["redis_us"] >= 0
