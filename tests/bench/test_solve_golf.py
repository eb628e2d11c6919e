"""bench/solve_golf.py runs, alone and with --compare against a commit (where git and the repository are here),
for solve and for fewest."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
SOLVE_GOLF = ROOT / "bench" / "solve_golf.py"


def run(*args: str) -> dict[str, Any]:
    """The bench's JSON on seeds 0-2, with ``args`` added."""
    done = subprocess.run(
        [sys.executable, str(SOLVE_GOLF), "--boards", "3", "--json", *args], capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr
    (line,) = done.stdout.splitlines()
    figures: dict[str, Any] = json.loads(line)
    return figures


def test_the_bench_solves_seeded_boards() -> None:
    row = run()
    assert row["boards"] == 3 and row["boards_per_s"] > 0 and 0 <= row["winnable_share"] <= 1


def test_compare_runs_the_solver_at_a_commit_on_the_same_boards() -> None:
    has_git = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True).returncode == 0
    if not has_git:
        pytest.skip("no git repository here")
    figures = run("--compare", "HEAD")
    assert figures["answers_differ"] == []
    assert figures["head"]["boards"] == figures["HEAD"]["boards"] == 3
    assert figures["speedup"] > 0


def test_fewest_compares_the_best_scores_and_lines_with_a_commit() -> None:
    has_git = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True).returncode == 0
    if not has_git:
        pytest.skip("no git repository here")
    figures = run("--fewest", "--compare", "HEAD")
    assert figures["answers_differ"] == []
    assert figures["head"]["boards"] == figures["HEAD"]["boards"] == 3
    assert figures["head"]["mean_score"] >= 0 and figures["speedup"] > 0
