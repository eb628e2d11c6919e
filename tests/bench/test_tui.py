"""bench/tui.py runs: a few Golf moves by keys in the app, against the random bot on a real server it starts itself.
Its figures are only checked to be there and sane, never against the targets (timings vary with the machine)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

TUI = Path(__file__).resolve().parents[2] / "bench" / "tui.py"


def test_the_tui_bench_times_the_first_screen_and_moves_against_a_real_server() -> None:
    command = [sys.executable, str(TUI), "--game", "golf", "--moves", "3", "--json"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=180)
    assert done.returncode == 0, done.stderr
    (line,) = done.stdout.splitlines()
    figures = json.loads(line)
    assert figures["game"] == "golf" and figures["size"] == "80x24"
    assert figures["moves"] == 3 and figures["races"] >= 1
    for key in ("imports_s", "first_screen_s", "race_screen_s", "move_ms_p50", "move_ms_p99", "ack_ms_p50"):
        assert isinstance(figures[key], float) and figures[key] > 0, key
    assert figures["move_ms_p50"] <= figures["move_ms_p99"] <= figures["move_ms_max"]
    assert figures["ack_ms_p50"] <= figures["ack_ms_p99"]
    assert figures["ack_ms_p50"] <= figures["move_ms_p50"]  # the ack comes before the board it is drawn from


def test_the_tui_bench_refuses_a_bad_size() -> None:
    done = subprocess.run([sys.executable, str(TUI), "--size", "80by24"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and "WIDTHxHEIGHT" in done.stderr
