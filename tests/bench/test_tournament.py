"""bench/tournament.py runs: two deals of Golf through a real server and its bot runners, and in the arena, both
with the same move cap."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

TOURNAMENT = Path(__file__).resolve().parents[2] / "bench" / "tournament.py"


def test_the_tournament_bench_plays_the_same_races_through_the_server_and_in_the_arena() -> None:
    command = [sys.executable, str(TOURNAMENT), "--games", "golf", "--deals", "2", "--max-moves", "5", "--json"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=180)
    assert done.returncode == 0, done.stderr
    (line,) = done.stdout.splitlines()
    figures = json.loads(line)
    assert figures["games"] == ["golf"] and figures["deals"] == 2 and figures["max_moves"] == 5
    for side in ("server", "arena"):
        row = figures[side]
        assert row["races"] == 2, side
        assert row["moves"] == 2 * 2 * 5, side  # two bots on each deal, cut at 5 moves (Golf takes some 30)
        assert row["races_per_s"] == pytest.approx(row["races"] / row["seconds"], rel=0.01)
        assert row["moves_per_s"] == pytest.approx(row["moves"] / row["seconds"], rel=0.01)
    for rate in ("races_per_s", "moves_per_s"):
        assert figures["vs_arena"][rate] == pytest.approx(figures["server"][rate] / figures["arena"][rate], rel=0.01)
