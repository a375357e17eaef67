from datetime import UTC, datetime, timedelta, timezone

import pytest

from sedimem.errors import ValidationError
from sedimem.types import Episode, Fact, Outcome, Procedure


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"description": ""}, "description"),
        ({"description": "x", "importance": 1.5}, "importance"),
        ({"description": "x", "importance": -0.1}, "importance"),
        ({"description": "x", "outcome": "meh"}, "outcome"),
        ({"description": "x", "occurred_at": datetime(2024, 1, 1)}, "occurred_at"),
        ({"description": "x", "tokens_used": -1}, "tokens_used"),
        ({"description": "x", "unknown": 1}, "unknown"),
    ],
)
def test_bad_episode_names_the_field(kwargs: dict[str, object], field: str) -> None:
    with pytest.raises(ValidationError) as info:
        Episode(**kwargs)  # type: ignore[arg-type]
    assert info.value.field == field


def test_episode_times_are_utc_and_ids_sortable() -> None:
    local = datetime(2024, 5, 1, 12, tzinfo=timezone(timedelta(hours=2)))
    first, second = Episode(description="a", occurred_at=local), Episode(description="b")
    assert first.occurred_at.tzinfo == UTC
    assert first.occurred_at.hour == 10
    assert first.id < second.id
    assert first.outcome is Outcome.SUCCESS
    assert "a" in first.search_text()


def test_fact_time_rules() -> None:
    start = datetime(2024, 1, 1, tzinfo=UTC)
    with pytest.raises(ValidationError) as info:
        Fact(statement="s", valid_from=start, valid_to=start - timedelta(days=1))
    assert info.value.field == "valid_to"
    with pytest.raises(ValidationError) as info:
        Fact(statement="s", recorded_at=start, invalidated_at=start - timedelta(seconds=1))
    assert info.value.field == "invalidated_at"
    for kwargs in ({"subject": "ana"}, {"predicate": "lives_in"}):
        with pytest.raises(ValidationError, match="together"):
            Fact(statement="s", **kwargs)  # type: ignore[arg-type]
    fact = Fact(
        statement="Ana lives in Lisbon", subject="Ana", predicate="lives_in", object="Lisbon"
    )
    assert fact.is_current


def test_procedure_success_rate_is_smoothed() -> None:
    p = Procedure(name="deploy", trigger="ship it", steps=["build", "push"])
    assert p.success_rate == 0.5
    assert p.model_copy(update={"success_count": 8, "failure_count": 0}).success_rate == 0.9
    with pytest.raises(ValidationError) as info:
        Procedure(name="x", trigger="t", steps=[])
    assert info.value.field == "steps"
