from datetime import UTC, datetime, timedelta, timezone

import pytest
from pydantic import ValidationError as PydanticValidationError

from sedimem.errors import ValidationError
from sedimem.types import Episode, Fact, Outcome, Procedure
from sedimem.types._base import Model


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


def _stored_records() -> list[Episode | Fact]:
    when = datetime(2024, 5, 1, 12, tzinfo=timezone(timedelta(hours=2)))
    return [
        Episode(
            description="deployed billing",
            actions=["ran migrations"],
            outcome=Outcome.PARTIAL,
            occurred_at=when,
            metadata={"ticket": [1, {"a": None}]},
        ),
        Fact(statement="Ana lives in Lisbon", subject="Ana", predicate="lives in", object="Lisbon"),
    ]


@pytest.mark.parametrize("record", _stored_records(), ids=lambda r: type(r).__name__)
def test_a_stored_record_reads_back_equal_validated_once(
    record: Episode | Fact, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A body a store wrote is validated once: not again by ``Model.__init__`` (which
    pydantic calls, for a model with its own ``__init__``, after validating the input)."""
    body = record.model_dump_json()
    inits: list[str] = []
    original = Model.__init__

    def counting(self: Model, /, **data: object) -> None:
        inits.append(type(self).__name__)
        original(self, **data)

    monkeypatch.setattr(Model, "__init__", counting)
    assert type(record).model_validate_json(body) == record
    assert inits  # the usual path does call it: the check below can fail
    inits.clear()
    read = type(record).from_stored(body)
    assert inits == []
    assert read == record
    assert read.model_dump_json() == body
    assert read.model_fields_set == type(record).model_validate_json(body).model_fields_set


def test_a_stored_procedure_reads_back_equal() -> None:
    # a schema that is the bare model: pydantic reuses the class's validator (the usual path)
    procedure = Procedure(name="deploy", trigger="a release is due", steps=["build", "ship"])
    body = procedure.model_dump_json()
    assert Procedure.from_stored(body) == procedure


def test_a_bad_stored_body_fails_as_it_always_has() -> None:
    body = '{"description": "", "bogus": 1}'
    with pytest.raises(PydanticValidationError) as usual:
        Episode.model_validate_json(body)
    with pytest.raises(PydanticValidationError) as stored:
        Episode.from_stored(body)
    assert str(stored.value) == str(usual.value)
