"""Quota shares: defaults, overrides, validation, and how unused shares flow."""

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sedimem.context import DEFAULT_QUOTAS, TIERS, Tier, normalize_quotas
from sedimem.context.quotas import base_quotas, grant
from sedimem.errors import ValidationError


def test_defaults_are_documented_and_sum_to_one() -> None:
    assert dict(DEFAULT_QUOTAS) == {
        "blocks": 0.2,
        "working": 0.15,
        "procedures": 0.15,
        "facts": 0.2,
        "episodes": 0.3,
    }
    assert math.isclose(sum(normalize_quotas(None).values()), 1.0)


def test_overrides_lay_over_defaults_then_normalise() -> None:
    shares = normalize_quotas({"episodes": 0.8, "facts": 0})
    assert shares["facts"] == 0
    assert math.isclose(sum(shares.values()), 1.0)
    assert math.isclose(shares["episodes"], 0.8 / 1.3)
    assert math.isclose(shares["blocks"], 0.2 / 1.3)


@pytest.mark.parametrize(
    ("quotas", "field"),
    [
        ({"sessions": 0.5}, "quotas"),
        ({"facts": -0.1}, "quotas.facts"),
        ({"facts": math.nan}, "quotas.facts"),
        ({"facts": math.inf}, "quotas.facts"),
        ({"facts": "lots"}, "quotas.facts"),
        ({"facts": True}, "quotas.facts"),
        (dict.fromkeys(TIERS, 0), "quotas"),
        ([("facts", 1.0)], "quotas"),
    ],
)
def test_bad_quotas_name_the_field(quotas: object, field: str) -> None:
    with pytest.raises(ValidationError) as caught:
        normalize_quotas(quotas)  # type: ignore[arg-type]
    assert caught.value.field == field


def test_base_quotas_round_down() -> None:
    assert base_quotas(10, normalize_quotas(None)) == {
        "blocks": 2,
        "working": 1,
        "procedures": 1,
        "facts": 2,
        "episodes": 3,
    }


def test_an_empty_tiers_share_flows_to_the_others_by_share() -> None:
    shares = normalize_quotas(None)
    demand: dict[Tier, int] = {
        "blocks": 0,
        "working": 0,
        "procedures": 0,
        "facts": 10_000,
        "episodes": 10_000,
    }
    grants = grant(1000, shares, demand)
    assert grants == {"blocks": 0, "working": 0, "procedures": 0, "facts": 400, "episodes": 600}


def test_a_small_tier_gets_its_demand_and_the_rest_flows() -> None:
    shares = normalize_quotas(None)
    demand: dict[Tier, int] = {
        "blocks": 30,
        "working": 5,
        "procedures": 0,
        "facts": 10_000,
        "episodes": 10_000,
    }
    grants = grant(1000, shares, demand)
    assert grants["blocks"] == 30
    assert grants["working"] == 5
    assert grants["facts"] + grants["episodes"] == 965
    assert grants["facts"] == 386  # 965 x 0.2 / 0.5


def test_disabled_tier_gets_nothing_even_with_budget_left() -> None:
    shares = normalize_quotas({"episodes": 0})
    demand = dict.fromkeys(TIERS, 50)
    grants = grant(1000, shares, demand)
    assert grants["episodes"] == 0
    assert grants["facts"] == 50


_DEMAND = st.fixed_dictionaries({t: st.integers(0, 5000) for t in TIERS})
_SHARES = st.fixed_dictionaries({t: st.floats(0, 10) for t in TIERS})


@given(budget=st.integers(1, 1_000_000), raw=_SHARES, demand=_DEMAND)
def test_grants_never_exceed_budget_or_demand(
    budget: int, raw: dict[str, float], demand: dict[str, int]
) -> None:
    if sum(raw.values()) <= 0:
        return
    shares = normalize_quotas(raw)
    grants = grant(budget, shares, demand)  # type: ignore[arg-type]
    assert sum(grants.values()) <= budget
    for tier in TIERS:
        assert 0 <= grants[tier] <= demand[tier]
        if shares[tier] == 0:
            assert grants[tier] == 0
    wanted = sum(demand[t] for t in TIERS if shares[t] > 0)
    assert sum(grants.values()) == min(budget, wanted)  # nothing is left idle
