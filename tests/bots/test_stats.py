"""The arena's statistics against published values, and their properties."""

from __future__ import annotations

import math
import statistics

import pytest
from hypothesis import given
from hypothesis import strategies as st

from parlour.bots.stats import Record, head_to_head, mean_interval, t95, wilson_interval

# Wilson intervals at 95%, as R's prop.test(correct=FALSE) and statsmodels' proportion_confint(method="wilson")
# give them.
WILSON = [
    ((81, 263), (0.2553, 0.3662)),
    ((5, 10), (0.2366, 0.7634)),
    ((0, 10), (0.0, 0.2775)),
    ((10, 10), (0.7225, 1.0)),
    ((1, 50), (0.0035, 0.1050)),
]


@pytest.mark.parametrize(("counts", "expected"), WILSON)
def test_wilson_interval_matches_published_values(counts: tuple[int, int], expected: tuple[float, float]) -> None:
    low, high = wilson_interval(*counts)  # type: ignore[misc]
    assert low == pytest.approx(expected[0], abs=1e-4)
    assert high == pytest.approx(expected[1], abs=1e-4)


def test_wilson_interval_of_nothing_is_none_and_impossible_counts_are_refused() -> None:
    assert wilson_interval(0, 0) is None
    with pytest.raises(ValueError):
        wilson_interval(3, 2)
    with pytest.raises(ValueError):
        wilson_interval(-1, 2)


# Student's t quantiles at 0.975 from the standard tables.
T_TABLE = {
    1: 12.7062,
    2: 4.3027,
    3: 3.1824,
    4: 2.7764,
    5: 2.5706,
    6: 2.4469,
    7: 2.3646,
    8: 2.3060,
    9: 2.2622,
    10: 2.2281,
    15: 2.1314,
    20: 2.0860,
    30: 2.0423,
    60: 2.0003,
    120: 1.9799,
    1000: 1.9623,
}


@pytest.mark.parametrize(("df", "expected"), sorted(T_TABLE.items()))
def test_t95_matches_the_table(df: int, expected: float) -> None:
    assert t95(df) == pytest.approx(expected, abs=1e-4)


def test_t95_tends_to_the_normal_quantile_and_refuses_no_freedom() -> None:
    assert t95(10**7) == pytest.approx(1.959964, abs=1e-6)
    with pytest.raises(ValueError):
        t95(0)


def test_mean_interval_is_students_t() -> None:
    # 1..5: mean 3, sample sd sqrt(2.5), t(0.975, 4) = 2.776445: half-width 1.963243.
    low, high = mean_interval([1, 2, 3, 4, 5])  # type: ignore[misc]
    assert low == pytest.approx(3 - 1.963243, abs=1e-6)
    assert high == pytest.approx(3 + 1.963243, abs=1e-6)
    assert mean_interval([7.0, 7.0, 7.0]) == (7.0, 7.0)
    assert mean_interval([4.0]) is None
    assert mean_interval([]) is None


def test_head_to_head_counts_wins_ties_and_losses_by_the_games_own_order() -> None:
    lower_wins = lambda a, b: a < b  # noqa: E731 - Golf's order
    record = head_to_head([0, 5, 7, 7], [3, 5, 2, 9], lower_wins)
    assert record == Record(beats=2, ties=1, deals=4)
    assert record.loses == 1
    assert (record.beats_share, record.ties_share) == (0.5, 0.25)
    assert head_to_head([0, 5, 7, 7], [3, 5, 2, 9], lambda a, b: a > b) == Record(1, 1, 4)
    assert head_to_head([], [], lower_wins).beats_share == 0.0
    with pytest.raises(ValueError):
        head_to_head([1], [1, 2], lower_wins)


@given(st.integers(min_value=1, max_value=10_000).flatmap(lambda n: st.tuples(st.integers(0, n), st.just(n))))
def test_wilson_interval_holds_the_rate_within_zero_and_one(counts: tuple[int, int]) -> None:
    successes, n = counts
    low, high = wilson_interval(successes, n)  # type: ignore[misc]
    assert 0.0 <= low <= successes / n <= high <= 1.0
    assert low < high
    # Four times the deals at the same rate: a narrower interval.
    low4, high4 = wilson_interval(4 * successes, 4 * n)  # type: ignore[misc]
    assert high4 - low4 < high - low


finite = st.floats(min_value=-1e6, max_value=1e6, allow_nan=False)


@given(st.lists(finite, min_size=2, max_size=200), finite)
def test_mean_interval_holds_the_mean_and_moves_with_the_values(values: list[float], shift: float) -> None:
    low, high = mean_interval(values)  # type: ignore[misc]
    mean = statistics.fmean(values)
    assert low <= mean + 1e-6 * (1 + abs(mean)) and mean - 1e-6 * (1 + abs(mean)) <= high
    moved_low, moved_high = mean_interval([v + shift for v in values])  # type: ignore[misc]
    assert moved_high - moved_low == pytest.approx(high - low, rel=1e-6, abs=1e-3)
    assert math.isfinite(low) and math.isfinite(high)


@given(st.lists(st.tuples(st.integers(0, 5), st.integers(0, 5)), max_size=50))
def test_head_to_head_records_of_a_pair_mirror_each_other(pairs: list[tuple[int, int]]) -> None:
    a = [x for x, _ in pairs]
    b = [y for _, y in pairs]
    better = lambda x, y: x > y  # noqa: E731
    ab, ba = head_to_head(a, b, better), head_to_head(b, a, better)
    assert ab.beats == ba.loses and ab.loses == ba.beats and ab.ties == ba.ties
    assert ab.beats + ab.ties + ab.loses == len(pairs)
    assert head_to_head(a, a, better) == Record(0, len(a), len(a))
