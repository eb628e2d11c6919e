"""The arena's statistics: rates and means with 95% confidence intervals, and head-to-head records.

Pure functions of plain numbers. Every interval is a 95% two-sided one:

- a rate (wins out of deals) gets the Wilson score interval, which stays inside [0, 1] and is
  sensible at a rate of 0 or 1, where the normal approximation collapses to a point;
- a mean (of scores) gets Student's t interval, ``mean ± t(0.975, n-1) · s / √n`` with ``s`` the
  sample standard deviation: exact for normal scores, and right for any scores once ``n`` is a
  few dozen (by then it is the normal interval).
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TypeVar

Interval = tuple[float, float]
T = TypeVar("T")

Z95 = statistics.NormalDist().inv_cdf(0.975)  # 1.959963984540054
# t(0.975, df) for the small df where the expansion in t95 is not accurate enough.
_T95_SMALL = {
    1: 12.706204736174698,
    2: 4.302652729749464,
    3: 3.182446305284263,
    4: 2.7764451051977934,
    5: 2.570581835636314,
    6: 2.446911848791681,
}


def wilson_interval(successes: int, n: int) -> Interval | None:
    """The 95% Wilson score interval of the rate ``successes / n``; ``None`` when ``n`` is 0."""
    if not 0 <= successes <= n:
        raise ValueError(f"successes must lie in 0..n, not {successes} of {n}")
    if n == 0:
        return None
    z2 = Z95 * Z95
    p = successes / n
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = Z95 / (1 + z2 / n) * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n))
    # At a rate of exactly 0 or 1 the interval touches that end; say so exactly, not within rounding.
    low = 0.0 if successes == 0 else max(0.0, centre - half)
    high = 1.0 if successes == n else min(1.0, centre + half)
    return (low, high)


def t95(df: int) -> float:
    """Student's t quantile at 0.975 for ``df`` degrees of freedom (within 1e-4 of the exact value).

    Exact values for df 1 to 6; beyond, the Cornish-Fisher expansion in 1/df (Abramowitz and Stegun
    26.7.5) to the fourth term.
    """
    if df < 1:
        raise ValueError(f"degrees of freedom must be at least 1, not {df}")
    if df in _T95_SMALL:
        return _T95_SMALL[df]
    z = Z95
    g1 = (z**3 + z) / 4
    g2 = (5 * z**5 + 16 * z**3 + 3 * z) / 96
    g3 = (3 * z**7 + 19 * z**5 + 17 * z**3 - 15 * z) / 384
    g4 = (79 * z**9 + 776 * z**7 + 1482 * z**5 - 1920 * z**3 - 945 * z) / 92160
    return z + g1 / df + g2 / df**2 + g3 / df**3 + g4 / df**4


def mean_interval(values: Sequence[float]) -> Interval | None:
    """The 95% Student's t interval of the mean of ``values``; ``None`` for fewer than two values."""
    n = len(values)
    if n < 2:
        return None
    mean = statistics.fmean(values)
    half = t95(n - 1) * statistics.stdev(values) / math.sqrt(n)
    return (mean - half, mean + half)


@dataclass(frozen=True, slots=True)
class Record:
    """How one player fared against another over the same deals."""

    beats: int  # deals where the first player's score beats the second's
    ties: int  # deals where neither score beats the other
    deals: int

    @property
    def loses(self) -> int:
        return self.deals - self.beats - self.ties

    @property
    def beats_share(self) -> float:
        return self.beats / self.deals if self.deals else 0.0

    @property
    def ties_share(self) -> float:
        return self.ties / self.deals if self.deals else 0.0


def head_to_head(a: Sequence[T], b: Sequence[T], better: Callable[[T, T], bool]) -> Record:
    """A's record against B: ``a[i]`` and ``b[i]`` are their scores on deal ``i``; ``better(x, y)``
    says whether score ``x`` beats score ``y`` (the game's :meth:`~parlour.games.Game.better`)."""
    if len(a) != len(b):
        raise ValueError(f"scores of different deals: {len(a)} against {len(b)}")
    beats = sum(1 for x, y in zip(a, b, strict=True) if better(x, y))
    lost = sum(1 for x, y in zip(a, b, strict=True) if better(y, x))
    return Record(beats, len(a) - beats - lost, len(a))
