"""bench/engine.py runs: every figure for a game, and --compare measures another revision in the same run."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ENGINE = ROOT / "bench" / "engine.py"
KEYS = {"moves_per_s", "games_per_s", "moves_per_game", "capped", "games"}
NEW_KEYS = {"mid_moves_per_s", "mid_moves_per_playout", "drawn_moves_per_s", "drawn_moves_per_playout", "draws_per_s"}


def test_the_engine_bench_gives_the_old_and_the_search_figures_per_game() -> None:
    command = [sys.executable, str(ENGINE), "--game", "golf", "--game", "cheer", "--seconds", "0.05", "--json"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    rows = [json.loads(line) for line in done.stdout.splitlines()]
    assert [row["game"] for row in rows] == ["golf", "cheer"]
    for row in rows:
        assert set(row) >= KEYS | NEW_KEYS
        assert all(row[key] > 0 for key in ("moves_per_s", "mid_moves_per_s", "drawn_moves_per_s", "draws_per_s"))


def test_the_engine_bench_compares_with_another_revision_in_the_same_run() -> None:
    if not (ROOT / ".git").exists():
        return  # --compare needs the git history
    command = [sys.executable, str(ENGINE), "--game", "golf", "--seconds", "0.05", "--rounds", "1", "--json"]
    done = subprocess.run([*command, "--compare", "HEAD"], capture_output=True, text=True, timeout=180)
    assert done.returncode == 0, done.stderr
    (line,) = done.stdout.splitlines()
    row = json.loads(line)
    assert row["before"]["rev"] == "HEAD" and row["before"]["draws_per_s"] > 0
    assert set(row["ratio"]) == {"moves_per_s", "mid_moves_per_s", "drawn_moves_per_s", "draws_per_s"}
