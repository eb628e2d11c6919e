"""bench/cluster.py runs: one node on a shared Redis beside the load.py-style baseline, for about 2 s."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

CLUSTER = Path(__file__).resolve().parents[2] / "bench" / "cluster.py"


def test_cluster_bench_measures_one_node_and_the_baseline_in_one_run() -> None:
    command = [sys.executable, str(CLUSTER), "--nodes", "1", "--racers", "4", "--seconds", "1", "--rounds", "1"]
    done = subprocess.run([*command, "--json"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    baseline, one = [json.loads(line) for line in done.stdout.splitlines()]
    assert baseline["baseline"] == "load.py" and baseline["moves_per_s"] > 0
    assert set(one) == {"nodes", "moves_per_s", "p50_ms", "p99_ms", "crossed", "vs_load_py"}
    assert one["nodes"] == 1 and one["moves_per_s"] > 0
    assert 0 < one["p50_ms"] <= one["p99_ms"]
    assert one["crossed"] in (None, 0)  # one node: no event has another node to go to
    assert one["vs_load_py"] == round(one["moves_per_s"] / baseline["moves_per_s"], 3)
