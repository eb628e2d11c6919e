"""bench/german_patience_sight.py runs: a blind and a sighted player on one bench deal, with a tiny beam."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from parlour.bots.arena import bot_seed, deal_seed, play
from parlour.bots.builtin import german_patience as gp

SIGHT = Path(__file__).resolve().parents[2] / "bench" / "german_patience_sight.py"


def test_sight_rows_hold_each_deals_cards_placed_and_k_0_is_the_search_bot() -> None:
    command = [sys.executable, str(SIGHT), "--sight", "0", "--sight", "2", "--deals", "1", "--first", "3"]
    done = subprocess.run(
        [*command, "--width", "2", "--spread", "10", "--jobs", "1", "--json"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    blind, sighted = (json.loads(line) for line in done.stdout.splitlines())
    assert (blind["sight"], sighted["sight"]) == (0, 2) and blind["deals"] == "3-3"
    assert blind["placed"] == [play(gp.Search(bot_seed(0, 3)), "german-patience", deal_seed(0, 3)).score]
    assert 8 < sighted["placed"][0] <= 104 and sighted["wins"] == (sighted["placed"][0] == 104)
    assert 0 <= sighted["win_ci"][0] <= sighted["win_rate"] <= sighted["win_ci"][1] <= 1


def test_sight_refuses_a_negative_sight() -> None:
    done = subprocess.run([sys.executable, str(SIGHT), "--sight", "-1"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and "--sight" in done.stderr
