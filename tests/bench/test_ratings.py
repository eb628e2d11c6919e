"""bench/ratings.py runs: a rated tournament of two deals of Golf through a real server and its bot runners, whose
leaderboard replays alike from the export."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

RATINGS = Path(__file__).resolve().parents[2] / "bench" / "ratings.py"


def test_the_ratings_bench_rates_every_bot_and_replays_the_ratings_from_the_export() -> None:
    command = [sys.executable, str(RATINGS), "--games", "golf", "--deals", "2", "--bots", "random,search", "--json"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=180)
    assert done.returncode == 0, done.stderr
    (line,) = done.stdout.splitlines()
    figures = json.loads(line)
    assert figures["games"] == ["golf"] and figures["deals"] == 2 and figures["bots"] == ["random", "search"]
    golf = figures["ratings"]["golf"]
    assert sorted(row["name"] for row in golf["leaderboard"]) == ["random", "search"]
    assert all(row["races"] == 2 for row in golf["leaderboard"])
    assert golf["recomputed"] is True
    # Search scores lower than random on 496 of the 500 Golf deals bots/STRENGTH.json holds (2 ties, 2 higher).
    assert golf["in_order"] is True, golf
