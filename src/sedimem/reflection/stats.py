"""The few statistics reflection needs, in plain Python and numpy (no scipy).

- :func:`wilson_interval`: the Wilson score interval of a proportion;
- :func:`hypergeom_sf`: the upper tail of the hypergeometric distribution, i.e. the
  one-sided p-value of Fisher's exact test on a 2x2 table;
- :func:`benjamini_hochberg`: q-values controlling the false discovery rate of a family;
- :func:`mann_whitney`: the rank-sum test (normal approximation, tie-corrected);
- :func:`robust_z`: z-scores from the median and the MAD of each side (double MAD);
- :func:`two_proportion_z`: the pooled two-proportion z statistic;
- :func:`student_t_two_sided`: two-sided tail of Student's t (via the incomplete beta);
- :func:`sidak_confidence`: ``1 - p`` corrected for the number of values tested.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

__all__ = [
    "LogFactorials",
    "MannWhitney",
    "benjamini_hochberg",
    "hypergeom_sf",
    "incomplete_beta",
    "mann_whitney",
    "normal_sf",
    "robust_z",
    "sidak_confidence",
    "student_t_two_sided",
    "two_proportion_z",
    "wilson_interval",
]

#: Makes the median absolute deviation a consistent estimator of sigma for normal data.
MAD_SCALE = 1.4826
#: The same for the mean absolute deviation around the median (used when the MAD is 0).
MEAN_AD_SCALE = 1.2533
#: Asymptotic efficiency of the MAD at the normal: a scale estimated from ``n`` values by
#: the MAD is about as uncertain as a standard deviation from ``0.37 n``.
MAD_EFFICIENCY = 0.37


def normal_sf(z: float) -> float:
    """P(Z > z) for a standard normal Z."""
    return 0.5 * math.erfc(z / math.sqrt(2.0))


def wilson_interval(hits: int, total: int, z: float) -> tuple[float, float]:
    """The Wilson score interval of ``hits / total``; ``(0, 1)`` when nothing was seen."""
    if total <= 0:
        return 0.0, 1.0
    p = hits / total
    z2 = z * z
    centre = p + z2 / (2 * total)
    spread = z * math.sqrt(p * (1 - p) / total + z2 / (4 * total * total))
    denominator = 1 + z2 / total
    return max(0.0, (centre - spread) / denominator), min(1.0, (centre + spread) / denominator)


class LogFactorials:
    """``log(n!)`` for ``n`` up to a bound, grown on demand."""

    def __init__(self, size: int = 1) -> None:
        self._table = [0.0]
        self._grow(size)

    def _grow(self, size: int) -> None:
        table = self._table
        for n in range(len(table), size + 1):
            table.append(table[-1] + math.log(n))

    def table(self, size: int) -> list[float]:
        if size >= len(self._table):
            self._grow(size)
        return self._table


def hypergeom_sf(k: int, n: int, big_k: int, big_n: int, logs: LogFactorials) -> float:
    """P(X >= k) for X ~ Hypergeometric(population ``big_n`` with ``big_k`` marked,
    ``n`` drawn): the one-sided p-value of Fisher's exact test that a group of ``n``
    holding ``k`` marked items is richer in them than chance."""
    lo, hi = max(0, n - (big_n - big_k)), min(n, big_k)
    if k <= lo:
        return 1.0
    if k > hi:
        return 0.0
    lf = logs.table(big_n)
    base = lf[big_k] + lf[big_n - big_k] + lf[n] + lf[big_n - n] - lf[big_n]
    mode = (n + 1) * (big_k + 1) // (big_n + 2)
    total = 0.0
    for x in range(k, hi + 1):
        term = math.exp(base - lf[x] - lf[big_k - x] - lf[n - x] - lf[big_n - big_k - n + x])
        total += term
        # past the mode the terms only shrink: stop once they no longer change the sum
        if x > mode and term <= total * 1e-15:
            break
    return min(1.0, total)


def benjamini_hochberg(p_values: Sequence[float]) -> list[float]:
    """Benjamini-Hochberg adjusted p-values (q-values), in the order given."""
    m = len(p_values)
    if m == 0:
        return []
    order = sorted(range(m), key=lambda i: p_values[i])
    q = [0.0] * m
    running = 1.0
    for rank in range(m, 0, -1):
        i = order[rank - 1]
        running = min(running, p_values[i] * m / rank)
        q[i] = min(1.0, running)
    return q


class MannWhitney:
    """Result of :func:`mann_whitney`: ``auc`` is P(a > b) + P(a = b) / 2."""

    __slots__ = ("auc", "p_value", "z")

    def __init__(self, z: float, p_value: float, auc: float) -> None:
        self.z = z
        self.p_value = p_value
        self.auc = auc


def mann_whitney(a: Sequence[float], b: Sequence[float]) -> MannWhitney:
    """Two-sided Mann-Whitney U test of ``a`` against ``b`` (normal approximation with
    tie and continuity corrections); needs at least one value on each side."""
    n1, n2 = len(a), len(b)
    values = np.asarray([*a, *b], dtype=np.float64)
    _, inverse, counts = np.unique(values, return_inverse=True, return_counts=True)
    ends = np.cumsum(counts)
    ranks = (ends - (counts - 1) / 2.0)[inverse]
    u1 = float(ranks[:n1].sum()) - n1 * (n1 + 1) / 2.0
    total = n1 + n2
    ties = float((counts.astype(np.float64) ** 3 - counts).sum())
    variance = n1 * n2 / 12.0 * ((total + 1) - ties / (total * (total - 1)))
    auc = u1 / (n1 * n2)
    if variance <= 0:
        return MannWhitney(0.0, 1.0, auc)
    delta = u1 - n1 * n2 / 2.0
    corrected = max(0.0, abs(delta) - 0.5)
    z = math.copysign(corrected / math.sqrt(variance), delta)
    return MannWhitney(z, min(1.0, 2.0 * normal_sf(abs(z))), auc)


def _spread(deviations: np.ndarray[Any, np.dtype[np.float64]]) -> float:
    """A robust sigma from absolute deviations around the median: ``1.4826 * MAD``, or
    ``1.2533 * mean`` when more than half of them are 0; 0 when all are."""
    scale = MAD_SCALE * float(np.median(deviations))
    if scale == 0.0:
        scale = MEAN_AD_SCALE * float(deviations.mean())
    return scale


def robust_z(
    values: np.ndarray[Any, np.dtype[np.float64]],
) -> tuple[float, float, float, np.ndarray[Any, np.dtype[np.float64]]]:
    """``(median, lower_sigma, upper_sigma, z)``: z-scores of ``values`` around their median
    by the *double MAD*: values below the median are measured in units of the robust sigma
    of the lower half, values above in units of the upper half's, so a skewed distribution
    does not make its long side look anomalous. A side is never measured with less than the
    whole sample's robust sigma (half a sample gives a noisy estimate, and an unluckily
    narrow side would flag ordinary values). All z are 0 when every value is the same."""
    median = float(np.median(values))
    deviation = values - median
    overall = _spread(np.abs(deviation))
    if overall == 0.0:
        return median, 0.0, 0.0, np.zeros_like(values)
    lower = max(overall, _spread(-deviation[deviation <= 0]))
    upper = max(overall, _spread(deviation[deviation >= 0]))
    return median, lower, upper, np.where(deviation < 0, deviation / lower, deviation / upper)


def two_proportion_z(hits1: int, n1: int, hits0: int, n0: int) -> float:
    """Pooled z statistic of ``hits1/n1 - hits0/n0`` (0 when it cannot be computed)."""
    if n1 == 0 or n0 == 0:
        return 0.0
    pooled = (hits1 + hits0) / (n1 + n0)
    se = math.sqrt(pooled * (1 - pooled) * (1 / n1 + 1 / n0))
    if se == 0.0:
        return 0.0
    return (hits1 / n1 - hits0 / n0) / se


def _beta_fraction(a: float, b: float, x: float) -> float:
    """The continued fraction of the incomplete beta function (modified Lentz)."""
    tiny = 1e-300
    c, d = 1.0, 1.0 - (a + b) * x / (a + 1.0)
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 300):
        for numerator in (
            m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)),
            -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1)),
        ):
            d = 1.0 + numerator * d
            d = 1.0 / (d if abs(d) > tiny else tiny)
            c = 1.0 + numerator / c
            c = c if abs(c) > tiny else tiny
            h *= d * c
        if abs(d * c - 1.0) < 1e-14:
            break
    return h


def incomplete_beta(a: float, b: float, x: float) -> float:
    """The regularised incomplete beta function I_x(a, b)."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    log_front = (
        math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)
    )
    if x < (a + 1.0) / (a + b + 2.0):
        return math.exp(log_front) * _beta_fraction(a, b, x) / a
    return 1.0 - math.exp(log_front) * _beta_fraction(b, a, 1.0 - x) / b


def student_t_two_sided(t: float, df: float) -> float:
    """P(|T| > |t|) for Student's T with ``df`` degrees of freedom."""
    return incomplete_beta(df / 2.0, 0.5, df / (df + t * t))


def sidak_confidence(p: float, tests: int) -> float:
    """``(1 - p) ** tests``: the probability that none of ``tests`` independent values with
    this two-sided tail probability ``p`` would lie this far out by chance."""
    if p >= 1.0:
        return 0.0
    return math.exp(max(1, tests) * math.log1p(-p))
