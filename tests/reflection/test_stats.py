import math

import numpy as np
import pytest

from sedimem.reflection.stats import (
    LogFactorials,
    benjamini_hochberg,
    hypergeom_sf,
    incomplete_beta,
    mann_whitney,
    normal_sf,
    robust_z,
    sidak_confidence,
    student_t_two_sided,
    two_proportion_z,
    wilson_interval,
)


def test_wilson_interval_matches_the_closed_form() -> None:
    assert wilson_interval(0, 0, 1.96) == (0.0, 1.0)
    low, high = wilson_interval(20, 20, 1.96)
    assert low == pytest.approx(20 / (20 + 1.96**2), rel=1e-9)  # p = 1: low = n / (n + z^2)
    assert high == pytest.approx(1.0)
    low, high = wilson_interval(5, 10, 1.96)
    assert low == pytest.approx(0.2366, abs=1e-4)
    assert high == pytest.approx(0.7634, abs=1e-4)


def brute_sf(k: int, n: int, big_k: int, big_n: int) -> float:
    total = math.comb(big_n, n)
    return (
        sum(math.comb(big_k, x) * math.comb(big_n - big_k, n - x) for x in range(k, n + 1)) / total
    )


@pytest.mark.parametrize(
    ("k", "n", "big_k", "big_n"),
    [
        (5, 5, 50, 100),
        (3, 5, 50, 100),
        (0, 5, 50, 100),
        (9, 10, 30, 60),
        (2, 20, 5, 80),
        (6, 20, 5, 80),
        (40, 40, 60, 100),
        (1, 1, 1, 2),
    ],
)
def test_hypergeometric_tail_matches_exact_sums(k: int, n: int, big_k: int, big_n: int) -> None:
    logs = LogFactorials()
    assert hypergeom_sf(k, n, big_k, big_n, logs) == pytest.approx(
        brute_sf(k, n, big_k, big_n), rel=1e-9, abs=1e-15
    )


def test_benjamini_hochberg_q_values() -> None:
    assert benjamini_hochberg([]) == []
    q = benjamini_hochberg([0.01, 0.04, 0.03, 0.2])
    assert q == pytest.approx([0.04, 0.04 * 4 / 3, 0.04 * 4 / 3, 0.2])
    assert benjamini_hochberg([0.5, 1.0]) == pytest.approx([1.0, 1.0])


def test_mann_whitney_separates_groups_and_handles_ties() -> None:
    far = mann_whitney([1, 2, 3, 4, 5, 6], [10, 11, 12, 13, 14, 15])
    assert far.auc == 0.0
    assert far.z < 0
    assert far.p_value < 0.01
    same = mann_whitney([3, 3, 3], [3, 3, 3])
    assert (same.p_value, same.auc) == (1.0, 0.5)
    mixed = mann_whitney([1, 2, 3], [1, 2, 3])
    assert mixed.auc == 0.5
    assert mixed.p_value == pytest.approx(1.0)


def test_robust_z_uses_median_and_the_mad_of_each_side() -> None:
    median, lower, upper, z = robust_z(np.array([1.0, 2.0, 3.0, 4.0, 100.0]))
    assert median == 3.0
    assert lower == pytest.approx(1.4826 * 1.0)  # deviations below: 2, 1, 0
    assert upper == pytest.approx(1.4826 * 1.0)  # deviations above: 0, 1, 97
    assert z[-1] == pytest.approx(97 / 1.4826)
    assert z[0] == pytest.approx(-2 / 1.4826)
    # a long upper side does not make its own values look far out
    _, lower, upper, z = robust_z(np.array([9.0, 10.0, 11.0, 12.0, 20.0, 30.0, 40.0]))
    assert upper > lower
    assert abs(z[-1]) < 3
    # more than half equal: the MAD is 0, the mean absolute deviation takes over
    median, lower, upper, z = robust_z(np.array([5.0] * 9 + [50.0]))
    assert median == 5.0
    assert upper == pytest.approx(1.2533 * 45 / 10)
    assert lower == upper  # no spread below: the whole sample's sigma
    assert z[-1] > 3
    _, lower, upper, z = robust_z(np.array([7.0] * 4))
    assert lower == upper == 0.0
    assert not z.any()


def test_two_proportion_z_and_sidak() -> None:
    assert two_proportion_z(1, 0, 1, 10) == 0.0
    assert two_proportion_z(0, 10, 0, 10) == 0.0
    z = two_proportion_z(10, 20, 20, 200)
    assert z == pytest.approx(0.4 / math.sqrt(30 / 220 * 190 / 220 * (1 / 20 + 1 / 200)))
    assert normal_sf(0.0) == 0.5
    assert sidak_confidence(1.0, 10) == 0.0
    one = sidak_confidence(0.01, 1)
    assert one == pytest.approx(0.99)
    assert sidak_confidence(0.01, 100) == pytest.approx(0.99**100)


@pytest.mark.parametrize(
    ("t", "df", "expected"),
    # two-sided tails from standard t tables
    [(2.0, 10, 0.0734), (3.0, 5, 0.0300), (1.0, 1, 0.5), (0.5, 30, 0.6207), (2.228, 10, 0.05)],
)
def test_student_t_tail_matches_tables(t: float, df: float, expected: float) -> None:
    assert student_t_two_sided(t, df) == pytest.approx(expected, abs=2e-4)
    assert student_t_two_sided(-t, df) == student_t_two_sided(t, df)


def test_student_t_tends_to_the_normal_and_edges() -> None:
    assert student_t_two_sided(3.0, 1e7) == pytest.approx(2 * normal_sf(3.0), rel=1e-4)
    assert student_t_two_sided(0.0, 4) == 1.0
    assert incomplete_beta(2.0, 3.0, 0.0) == 0.0
    assert incomplete_beta(2.0, 3.0, 1.0) == 1.0
    assert incomplete_beta(1.0, 1.0, 0.3) == pytest.approx(0.3)  # uniform CDF
