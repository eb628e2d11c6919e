"""Ratings (pure): OpenSkill updates from race places, ties, replay."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from parlour.server.ratings import Rating, leaderboard, places_with_ties, rate, replay


def row(player: str, score: float, *, ended: str = "stuck", time: float = 5.0, moves: int = 3) -> dict:
    return {"player": player, "score": score, "ended": ended, "time": time, "moves": moves}


def test_places_follow_the_ranking_rule_and_equal_results_share_a_place() -> None:
    rows = [row("a", 3), row("b", 7), row("c", 3), row("d", 7, ended="conceded"), row("e", 7, time=1.0)]
    assert places_with_ties(rows, higher_is_better=True) == {"e": 1, "b": 2, "d": 3, "a": 4, "c": 4}
    assert places_with_ties(rows, higher_is_better=False)["a"] == 1


def test_untimed_places_follow_the_score_and_concession_alone() -> None:
    """An untimed tournament's race ranks as its matchpoints do: neither the finish time nor the moves count."""
    rows = [
        row("slow", 7, time=9.0, moves=2),
        row("quick", 7, time=1.0, moves=3),
        row("twin", 7, time=5.0, moves=2),
        row("gave-up", 7, ended="conceded", time=0.5, moves=1),
        row("best", 9, time=9.5, moves=80),
    ]
    assert places_with_ties(rows, higher_is_better=True) == {"best": 1, "quick": 2, "twin": 3, "slow": 4, "gave-up": 5}
    untimed = places_with_ties(rows, higher_is_better=True, timed=False)
    assert untimed == {"best": 1, "slow": 2, "quick": 2, "twin": 2, "gave-up": 5}
    assert places_with_ties([{"player": "a", "score": 1, "ended": "won"}], True, timed=False) == {"a": 1}


def test_the_winner_rises_the_loser_falls_and_both_grow_surer() -> None:
    new = rate({}, {"a": 1, "b": 2})
    assert new["a"].mu > Rating().mu > new["b"].mu
    assert new["a"].sigma < Rating().sigma and new["b"].sigma < Rating().sigma
    assert new["a"].races == new["b"].races == 1


def test_a_tie_between_equals_moves_neither_mean() -> None:
    new = rate({}, {"a": 1, "b": 1})
    assert new["a"].mu == pytest.approx(Rating().mu) == pytest.approx(new["b"].mu)


def test_a_lone_racer_is_not_rated() -> None:
    assert rate({}, {"a": 1}) == {"a": Rating()}


def test_a_stronger_record_leads_the_leaderboard() -> None:
    races = [{"search": 1, "greedy": 2, "random": 3}] * 10
    board = leaderboard(replay(races))
    assert [player for player, _ in board] == ["search", "greedy", "random"]


@given(
    st.lists(
        st.dictionaries(st.sampled_from("abcdef"), st.integers(1, 4), min_size=2, max_size=6),
        max_size=12,
    )
)
def test_replaying_the_same_races_gives_the_same_numbers(races: list[dict[str, int]]) -> None:
    step_by_step: dict[str, Rating] = {}
    for places in races:
        step_by_step.update(rate(step_by_step, places))
    assert replay(races) == step_by_step == replay(list(races))
    assert sum(r.races for r in step_by_step.values()) == sum(len(p) for p in races)


def test_a_rating_reads_back_from_its_map() -> None:
    rating = rate({}, {"a": 1, "b": 2})["a"]
    assert Rating.from_map(rating.to_map()) == rating
    assert rating.ordinal == rating.mu - 3 * rating.sigma
