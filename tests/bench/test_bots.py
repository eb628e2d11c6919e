"""bench/bots.py runs: a few deals of two games, the random bot, and greedy and search where written."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "bench" / "bots.py"


def test_the_strength_bench_measures_every_bot_that_plays_and_writes_the_table(tmp_path: Path) -> None:
    table = tmp_path / "STRENGTH.md"
    command = [sys.executable, str(BENCH), "--games", "golf,gaps", "--deals", "3", "--jobs", "1", "--budget", "0.05"]
    done = subprocess.run([*command, "--json", "--markdown", str(table)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    records = [json.loads(line) for line in done.stdout.splitlines()]
    by_key = {(r["game"], r["bot"]): r for r in records}
    assert len(by_key) == len(records) == 6  # each game has one option set: three bots each
    for game in ("golf", "gaps"):
        random = by_key[(game, "random")]
        assert random["deals"] == 3 and random["options"] == {} and random["seed"] == 0
        assert 0 <= random["win_ci"][0] <= random["win_rate"] <= random["win_ci"][1] <= 1
        assert random["ceiling"]["exact"] is (game == "golf")  # Golf's solver is exact, Gaps' a search
        for bot in ("greedy", "search"):  # every built-in bot plays every game
            assert by_key[(game, bot)]["deals"] == 3, by_key[(game, bot)]
    text = table.read_text()
    assert text.startswith("# How strong the bots are")
    assert "python bench/bots.py --markdown bots/STRENGTH.md" in text
    assert "| golf | none | random |" in text and "| gaps | none | ceiling (a bound) |" in text
    assert "| golf | none | ceiling (exact) |" in text
    assert "| golf | under 1 win in 20 | a win |" in text and "| gaps | about 1 win in 20 | a win |" in text
    assert "## Each bot against the one before it" in text
