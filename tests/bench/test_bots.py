"""bench/bots.py runs: a few deals of two games, the random bot, and greedy and search where written."""

from __future__ import annotations

import importlib.util
import json
import statistics
import subprocess
import sys
from pathlib import Path
from types import ModuleType

from parlour.bots.arena import BotSummary
from parlour.bots.stats import mean_interval
from parlour.games import get_game

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
    assert "python bench/bots.py --save bots/STRENGTH.json --markdown bots/STRENGTH.md" in text
    assert "| golf | none | random |" in text and "| gaps | none | ceiling (a bound) |" in text
    assert "| golf | none | ceiling (exact) |" in text
    assert "| golf | under 1 win in 20 | a win |" in text and "| gaps | about 1 win in 20 | a win |" in text
    assert "## Each bot against the one before it" in text
    assert "## Where and when" in text and "| golf | none |" in text.split("## Where and when")[1]


def test_saved_results_are_reused_and_only_the_games_named_are_measured_again(tmp_path: Path) -> None:
    """--save keeps every deal; --reuse rewrites the same table from it without playing, and --measure
    plays the games it names again (their CPU times differ, the other games' are the saved ones)."""
    saved, again = tmp_path / "saved.json", tmp_path / "again.json"
    first, second = tmp_path / "first.md", tmp_path / "second.md"
    command = [sys.executable, str(BENCH), "--games", "golf,gaps", "--deals", "2", "--jobs", "1", "--budget", "0.05"]
    done = subprocess.run([*command, "--save", str(saved), "--markdown", str(first)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    done = subprocess.run([*command, "--reuse", str(saved), "--markdown", str(second)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    body = [line for line in first.read_text().splitlines() if not line.startswith("This one came from")]
    assert [line for line in second.read_text().splitlines() if not line.startswith("This one came from")] == body
    reuse = ["--reuse", str(saved), "--measure", "gaps", "--save", str(again)]
    done = subprocess.run([*command, *reuse], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    before = {m["game"]: m for m in json.loads(saved.read_text())["measured"]}
    after = {m["game"]: m for m in json.loads(again.read_text())["measured"]}
    assert after["golf"] == before["golf"]
    assert after["gaps"]["result"]["deals"] != before["gaps"]["result"]["deals"]  # CPU times differ
    scores = [[o[0] for o in d["outcomes"]] for d in after["gaps"]["result"]["deals"]]
    assert scores == [[o[0] for o in d["outcomes"]] for d in before["gaps"]["result"]["deals"]]  # the same games
    done = subprocess.run([*command, "--measure", "gaps"], capture_output=True, text=True)
    assert done.returncode == 2 and "--measure goes with --reuse" in done.stderr


def _bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_bots", BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def _summary(bot: str, scores: list[float]) -> BotSummary:
    return BotSummary(bot, len(scores), 0, 0.0, None, statistics.fmean(scores), mean_interval(scores), 1, 0.0, 0.0)


def test_bots_whose_means_overlap_are_told_apart_by_their_gain_on_the_same_deals() -> None:
    """Deals that spread the scores widely make two means' intervals overlap; a bot one point better on
    every deal still shows a gain clear of 0, and one better on half the deals only does not."""
    bench = _bench()
    game = get_game("the-chance")
    deals = [float(10 * (i % 7)) for i in range(40)]
    weaker = _summary("random", deals)
    better = [score + 1 for score in deals]
    gain = bench.paired_gain(game, deals, better)
    assert gain[0] == 1 and gain[1] is not None and gain[1][0] > 0
    verdict = bench.order_verdict(game, weaker, _summary("greedy", better), gain)
    assert verdict.startswith("greedy above random, intervals overlap; gain on the same deals +1.00")
    assert verdict.endswith("clear of 0") and "not clear" not in verdict
    mixed = [score + (2 if i % 2 else -1.9) for i, score in enumerate(deals)]
    verdict = bench.order_verdict(game, weaker, _summary("greedy", mixed), bench.paired_gain(game, deals, mixed))
    assert verdict.endswith("not clear of 0")
    apart = [score + 100 for score in deals]
    verdict = bench.order_verdict(game, weaker, _summary("greedy", apart), bench.paired_gain(game, deals, apart))
    assert verdict == "greedy above random, intervals apart"
    worse = [score - 1 for score in deals]
    verdict = bench.order_verdict(game, weaker, _summary("greedy", worse), bench.paired_gain(game, deals, worse))
    assert verdict == "greedy not above random"


def test_where_fewer_is_better_a_gain_is_fewer() -> None:
    bench = _bench()
    golf = get_game("golf")
    assert bench.paired_gain(golf, [10, 20, 30], [8, 18, 28])[0] == 2


def test_the_notes_of_the_games_measured_follow_the_tables() -> None:
    bench = _bench()
    assert "## Notes" in bench.markdown("# h\n", [], [], [], ["the-chance"], [])
    assert "The Chance" not in bench.markdown("# h\n", [], [], [], ["cheer"], [])
