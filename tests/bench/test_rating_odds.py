"""bench/rating_odds.py runs: from a results file like bench/bots.py --save's, it rates draws of deals and says how
often each pair of bots comes out right."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from parlour.bots.arena import run_arena

RATING_ODDS = Path(__file__).resolve().parents[2] / "bench" / "rating_odds.py"


def test_rating_odds_rate_draws_of_deals_with_the_example_bot_and_the_cap(tmp_path: Path) -> None:
    result = run_arena("golf", ["random", "greedy", "search"], 12, seed=0, jobs=1)
    results = tmp_path / "results.json"
    results.write_text(json.dumps({"measured": [{"game": "golf", "options": {}, "result": result.to_map()}]}))
    command = [sys.executable, str(RATING_ODDS), "--results", str(results), "--deals", "5,12", "--draws", "40",
               "--max-moves", "100", "--json"]  # fmt: skip
    done = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    rows = [json.loads(line) for line in done.stdout.splitlines()]
    assert [(row["game"], row["deals"], row["draws"]) for row in rows] == [("golf", 5, 40), ("golf", 12, 40)]
    for row in rows:
        assert set(row["right"]) == {"search>greedy", "greedy>random", "search>random", "all"}
        assert all(0.0 <= share <= 1.0 for share in row["right"].values())
    # All twelve deals every time: one tournament, drawn 40 times in different orders. Search scores lower than
    # random on 496 of the 500 Golf deals measured (2 ties, 2 higher, none of them among these twelve); the cap
    # (no Golf game is that long) has random and greedy played again, alike.
    assert rows[1]["right"]["search>random"] == 1.0


def test_more_deals_than_measured_are_refused(tmp_path: Path) -> None:
    result = run_arena("golf", ["random", "greedy", "search"], 3, seed=0, jobs=1)
    results = tmp_path / "results.json"
    results.write_text(json.dumps({"measured": [{"game": "golf", "options": {}, "result": result.to_map()}]}))
    command = [sys.executable, str(RATING_ODDS), "--results", str(results), "--deals", "4", "--no-eager"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and "golf: 3 deals measured, fewer than 4" in done.stderr
