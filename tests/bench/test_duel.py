"""bench/duel.py runs: the server at HEAD and this checkout's, raced at once by a few racers for about 2 s."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

DUEL = Path(__file__).resolve().parents[2] / "bench" / "duel.py"


@pytest.mark.parametrize("races", [False, True], ids=["moves", "races"])
def test_duel_races_two_servers_at_once_and_compares_their_cpu(races: bool) -> None:
    command = [sys.executable, str(DUEL), "--base", "HEAD", "--n", "3", "--seconds", "1", "--rounds", "2", "--json"]
    done = subprocess.run(command + ["--races"] * races, capture_output=True, text=True, timeout=180)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["base"] == "HEAD" and result["n"] == 3 and result["unit"] == ("race" if races else "move")
    assert len(result["rounds"]) == 2
    for row in result["rounds"]:
        assert row["base"]["per_s"] > 0 and row["new"]["per_s"] > 0  # both servers served their racers
        assert row["base"]["p99_ms"] > 0 and row["new"]["p99_ms"] > 0
    if Path("/proc/self/stat").exists():  # the CPU figures come from /proc
        quotients = [row["new_over_base"] for row in result["rounds"]]
        assert all(q > 0 for q in quotients)
        assert min(quotients) <= result["new_over_base"] <= max(quotients)


def test_duel_refuses_a_revision_git_does_not_know() -> None:
    command = [sys.executable, str(DUEL), "--base", "no-such-revision", "--n", "1", "--seconds", "1", "--rounds", "1"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=60)
    assert done.returncode != 0
    assert "no-such-revision" in done.stderr
