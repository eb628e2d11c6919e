"""The arena: duplicate deals, the same results for any number of workers, the figures, the CLI."""

from __future__ import annotations

import io
import json
from fractions import Fraction

import pytest

from parlour.bots import BotNotFound
from parlour.bots.arena import (
    ArenaError,
    ArenaResult,
    DealResult,
    Outcome,
    Setup,
    bot_seed,
    deal_seed,
    play,
    run_arena,
    winning_score,
)
from parlour.bots.random_bot import RandomBot
from parlour.bots.report import arena_text
from parlour.client.cli import main
from parlour.games import Ending, get_game

FIRST = "tests.bots.tiny_bots:First"


def essentials(result: ArenaResult) -> list[tuple[int, int, list[tuple[object, Ending, int]]]]:
    """Everything of a run but the times."""
    return [(d.index, d.seed, [(o.score, o.ending, o.moves) for o in d.outcomes]) for d in result.deals]


def test_the_results_are_the_same_in_one_process_and_across_two_workers() -> None:
    one = run_arena("golf", ["random", FIRST], 24, seed=7, jobs=1)
    two = run_arena("golf", ["random", FIRST], 24, seed=7, jobs=2)
    assert essentials(one) == essentials(two)
    assert [d.index for d in two.deals] == list(range(24))


def test_every_bot_plays_every_deal_and_a_deal_is_what_play_gives() -> None:
    result = run_arena("german-patience", ["random", FIRST], 6, seed=3, jobs=1)
    for deal in result.deals:
        assert deal.seed == deal_seed(3, deal.index)
        again = play(RandomBot(bot_seed(3, deal.index)), "german-patience", deal.seed)
        assert (again.score, again.ending, again.moves) == (
            deal.outcomes[0].score,
            deal.outcomes[0].ending,
            deal.outcomes[0].moves,
        )
        assert deal.outcomes[1].moves > 0
    assert len({d.seed for d in result.deals}) == 6
    assert deal_seed(3, 0) != deal_seed(4, 0) and bot_seed(3, 0) != bot_seed(3, 1)
    # Another lineup does not change a bot's games: its seeds follow from the deal alone.
    alone = run_arena("german-patience", ["random"], 6, seed=3, jobs=1)
    assert alone.scores("random") == result.scores("random")


def test_a_bots_options_reach_the_deals() -> None:
    result = run_arena("the-chance", [FIRST], 3, seed=1, options={"sequence": "suit"}, jobs=1)
    assert result.setup.options == {"sequence": "suit"}
    assert all(isinstance(s, Fraction) for s in result.scores(FIRST))


def test_summaries_count_the_wins_and_moves_and_lie_in_their_intervals() -> None:
    result = run_arena("carpet", ["random"], 30, seed=5, jobs=1)
    s = result.summary("random")
    outcomes = [d.outcomes[0] for d in result.deals]
    assert s.deals == 30 and s.wins == sum(o.ending is Ending.WON for o in outcomes)
    assert s.moves == sum(o.moves for o in outcomes)
    assert s.win_ci is not None and s.win_ci[0] <= s.win_rate <= s.win_ci[1]
    assert s.score_ci is not None and s.score_ci[0] <= s.mean_score <= s.score_ci[1]
    assert s.mean_score == pytest.approx(sum(float(o.score) for o in outcomes) / 30)
    assert 0 <= s.ms_per_move <= s.max_ms


def test_head_to_head_uses_the_games_own_order() -> None:
    setup = Setup("golf", ("a", "b"), {}, 0, False, 1.0, 100)

    def deal(i: int, a: int, b: int) -> DealResult:
        return DealResult(i, i, (Outcome(a, Ending.STUCK, 1, 0.0, 0.0), Outcome(b, Ending.STUCK, 1, 0.0, 0.0)), None)

    result = ArenaResult(setup, (deal(0, 3, 9), deal(1, 4, 4), deal(2, 8, 1)))
    record = result.record("a", "b")  # lower is better in golf
    assert (record.beats, record.ties, record.loses) == (1, 1, 1)
    assert result.ceiling() is None


def test_a_ceiling_counts_as_a_win_only_where_no_loss_scores_it() -> None:
    assert winning_score(get_game("golf"), {}, 0) and not winning_score(get_game("golf"), {}, 1)
    assert winning_score(get_game("carpet"), {}, 52) and not winning_score(get_game("carpet"), {}, 51)
    cheer = get_game("cheer")
    assert winning_score(cheer, {"win_loss": False}, 3) and not winning_score(cheer, {"win_loss": False}, 0)
    assert winning_score(cheer, {"win_loss": True}, 1) and not winning_score(cheer, {"win_loss": True}, 0)
    chance = get_game("the-chance")
    assert winning_score(chance, {"sequence": "any"}, Fraction(8))
    assert winning_score(chance, {"sequence": "alternate"}, Fraction(42))
    assert not winning_score(chance, {"sequence": "alternate"}, Fraction(41, 2))  # lost with 51 cards home
    assert winning_score(chance, {"sequence": "suit"}, Fraction(188))


def test_the_ceiling_summary_counts_the_deals_that_have_one() -> None:
    setup = Setup("golf", ("a",), {}, 0, True, 1.0, 100)
    outcome = (Outcome(5, Ending.STUCK, 1, 0.0, 0.0),)
    result = ArenaResult(setup, tuple(DealResult(i, i, outcome, c) for i, c in enumerate([0, 0, 4, 2])))
    best = result.ceiling()
    assert best is not None
    assert (best.deals, best.wins, best.win_rate, best.mean_score) == (4, 2, 0.5, 1.5)


def test_a_ceiling_where_there_is_one_is_never_worse_than_a_bots_score() -> None:
    result = run_arena("golf", ["random", FIRST], 4, seed=2, jobs=1, ceiling=True)
    game = get_game("golf")
    for deal in result.deals:
        if deal.ceiling is not None:  # once the per-game module's solver exists
            assert not any(game.better(o.score, deal.ceiling) for o in deal.outcomes)


def test_a_failing_bot_is_named_with_its_deal_from_a_worker_too() -> None:
    for jobs in (1, 2):
        with pytest.raises(ArenaError, match=r"tests\.bots\.tiny_bots:Illegal failed on deal \d+ \(seed \d+\) of golf"):
            run_arena("golf", ["random", "tests.bots.tiny_bots:Illegal"], 2, jobs=jobs)


def test_bots_that_are_not_there_or_do_not_play_the_game_are_refused() -> None:
    with pytest.raises(BotNotFound, match="no bot called 'nobody'"):
        run_arena("golf", ["nobody"], 1)
    with pytest.raises(BotNotFound, match="cannot load"):
        run_arena("golf", ["tests.bots.tiny_bots:Nobody"], 1)
    with pytest.raises(BotNotFound, match=r"not a parlour\.bots\.Bot"):
        run_arena("golf", ["tests.bots.tiny_bots:plain_data"], 1)
    with pytest.raises(BotNotFound, match="does not play gaps"):
        run_arena("gaps", ["tests.bots.tiny_bots:GolfOnly"], 1)
    with pytest.raises(ValueError):
        run_arena("golf", ["random", "random"], 1)
    with pytest.raises(ValueError):
        run_arena("golf", ["random"], 0)


def test_the_progress_bar_counts_the_deals() -> None:
    stream = io.StringIO()
    run_arena("golf", ["random"], 5, jobs=1, progress=stream, label="golf ")
    assert stream.getvalue().startswith("\rgolf [")
    assert "5/5 deals" in stream.getvalue() and stream.getvalue().endswith("\n")


def test_the_cli_prints_one_json_object_per_bot(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["arena", "golf", "--bots", f"random,{FIRST}", "--deals", "6", "--seed", "9", "--jobs", "2", "--json"]
    assert main([*argv, "--ceiling"]) == 0
    records = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [r["bot"] for r in records] == ["random", FIRST]
    for r in records:
        assert r["game"] == "golf" and r["options"] == {} and r["deals"] == 6 and r["seed"] == 9
        assert 0 <= r["win_ci"][0] <= r["win_rate"] <= r["win_ci"][1] <= 1
        assert r["score_ci"][0] <= r["mean_score"] <= r["score_ci"][1]
        assert r["ms_per_move"] >= 0 and r["max_ms"] >= 0
        assert "ceiling" in r
    shares = records[0]["head_to_head"][FIRST]
    mirror = records[1]["head_to_head"]["random"]
    assert shares["ties"] == mirror["ties"]
    assert shares["beats"] + shares["ties"] + mirror["beats"] == pytest.approx(1)


def test_the_cli_prints_a_table_and_the_head_to_head_matrix(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["arena", "cheer", "-o", "win_loss=true", "--bots", f"random,{FIRST}", "--deals", "4", "--jobs", "1"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert out.startswith("cheer (options: win_loss=true), 4 deals from seed ")
    assert "win rate" in out and "95% CI (t)" in out and "head to head" in out
    rows = [line.split()[0] for line in out.splitlines() if line[:1].strip()]  # not the matrix's heading
    assert rows.count("random") == 2 and rows.count(FIRST) == 2  # a table row and a matrix row each


def test_the_cli_reports_a_missing_or_failing_bot_in_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["arena", "golf", "--bots", "nobody", "--deals", "1"]) == 2
    assert capsys.readouterr().err.startswith("parlour: error: no bot called 'nobody'")
    assert main(["arena", "golf", "--bots", "tests.bots.tiny_bots:Illegal", "--deals", "1", "--seed", "1"]) == 2
    error = capsys.readouterr().err
    assert error.startswith("parlour: error: tests.bots.tiny_bots:Illegal failed on deal 0 (seed ")
    assert len(error.splitlines()) == 1


@pytest.mark.parametrize(("game", "label"), [("golf", "exact"), ("gaps", "a bound")])
def test_the_text_report_says_whether_the_ceiling_is_exact(game: str, label: str) -> None:
    text = arena_text(run_arena(game, ["random"], 2, seed=1, jobs=1, ceiling=True))
    ceiling_line = next(line for line in text.splitlines() if line.startswith("(ceiling)"))
    assert label in ceiling_line
    assert ("a bound" in ceiling_line) is (label == "a bound")
