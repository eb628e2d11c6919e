"""Bots for the runner's tests, installed for a test's processes by :func:`install`: entry points in a
``.dist-info`` folder on ``PYTHONPATH``, found as an installed package's are.

``slow`` sleeps ``$PARLOUR_TEST_THINK`` seconds (default 0.1) before each random move, and appends each
move it chooses to the file ``$PARLOUR_TEST_RECORD`` if set (a JSON line ``[seq, move]``). ``busy`` keeps
a core busy for ``$PARLOUR_TEST_THINK`` seconds before each move and concedes at its second. ``faulty``
raises at its second move in Golf (and plays random moves in the other games).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

from parlour.bots import Bot, Turn
from parlour.games import CONCEDE, Move

REPOSITORY = Path(__file__).resolve().parents[2]
EXAMPLE = REPOSITORY / "bots" / "examples" / "parlour-example-bot"


def think() -> float:
    return float(os.environ.get("PARLOUR_TEST_THINK", "0.1"))


class SlowBot(Bot):
    name = "slow"
    summary = "Sleeps before each random move (for tests)."

    def choose(self, turn: Turn) -> Move:
        time.sleep(think())
        move = self.rng.choice(turn.moves)
        if record := os.environ.get("PARLOUR_TEST_RECORD"):
            with open(record, "a") as file:
                file.write(json.dumps([turn.seq, move.wire()]) + "\n")
        return move


class BusyBot(Bot):
    name = "busy"
    summary = "Keeps a core busy before each move, and concedes at its second (for tests)."
    games = frozenset({"golf"})

    def choose(self, turn: Turn) -> Move:
        until = time.perf_counter() + think()
        while time.perf_counter() < until:
            pass
        return CONCEDE if turn.seq >= 1 else turn.moves[0]


class FaultyBot(Bot):
    name = "faulty"
    summary = "Fails at its second move in Golf (for tests)."

    def choose(self, turn: Turn) -> Move:
        if turn.game.name == "golf" and turn.seq == 1:
            raise ZeroDivisionError("a bug in the bot")
        return self.rng.choice(turn.moves)


def install(target: Path, entry_points: dict[str, str] | None = None) -> dict[str, str]:
    """Install the bots above (and ``entry_points``, name to ``module:Class``) as the package
    ``parlour-sample-bots`` in ``target``; return the environment variables that put it on the path."""
    points = {name: f"{__name__}:{cls.__name__}" for name, cls in BOTS.items()} | (entry_points or {})
    info = target / "parlour_sample_bots-0.1.dist-info"
    info.mkdir(parents=True, exist_ok=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: parlour-sample-bots\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(
        "[parlour.bots]\n" + "".join(f"{name} = {value}\n" for name, value in points.items())
    )
    return {"PYTHONPATH": os.pathsep.join([str(target), str(REPOSITORY)])}


BOTS: dict[str, type[Bot]] = {"slow": SlowBot, "busy": BusyBot, "faulty": FaultyBot}


def install_example(target: Path) -> dict[str, str]:
    """Install the example third-party bot (``bots/examples/parlour-example-bot``, the bot ``eager``) for
    real, with pip, offline, into ``target``; return the environment variables that put it on the path."""
    source = target / "source"  # a build writes into the source tree: not into the repository's
    shutil.copytree(EXAMPLE, source)
    site = target / "site"
    install = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--no-deps", "--no-build-isolation", "--no-index", "--quiet",
         "--target", str(site), str(source)],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert install.returncode == 0, install.stdout + install.stderr
    return {"PYTHONPATH": str(site)}
