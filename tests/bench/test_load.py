"""bench/load.py runs: a few racers against a real server, beside the echo, for about 2 s."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

LOAD = Path(__file__).resolve().parents[2] / "bench" / "load.py"


def test_load_bench_measures_the_server_beside_the_echo_and_where_the_cpu_goes() -> None:
    command = [sys.executable, str(LOAD), "--n", "3", "--seconds", "2", "--rounds", "2", "--json"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    (row,) = [json.loads(line) for line in done.stdout.splitlines()]
    assert row["n"] == 3 and row["game"] == "golf" and row["rounds"] == 2
    assert row["moves_per_s"] > 0 and row["echo_per_s"] > 0
    assert row["ratio"] == round(row["moves_per_s"] / row["echo_per_s"], 3)
    assert 0 < row["p50_ms"] <= row["p99_ms"] and len(row["p99_ms_rounds"]) == 2
    if Path("/proc/self/stat").exists():  # the CPU split comes from /proc
        for key in ("server_us", "client_us", "echo_server_us", "echo_client_us"):
            assert row[key] > 0, key
        # Redis may spend less than one clock tick (10 ms) in a round this short: it is there, maybe 0.
        assert row["redis_us"] is not None and row["redis_us"] >= 0
        # A move costs the server more than echoing a message costs the echo server: it does all that and more.
        assert row["server_us"] > row["echo_server_us"]
