"""Fields stated once: ``field_of`` copies a record's field (limits, description, examples)
and the records enforce the limits of ``sedimem.limits`` whichever interface built them."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import BaseModel, ConfigDict
from pydantic import ValidationError as PydanticValidationError

from sedimem import limits
from sedimem.errors import ValidationError
from sedimem.longterm.arguments import check_k, check_query
from sedimem.scope import Scope
from sedimem.types.fields import REQUIRED, Hits, SessionFilter, TtlSeconds, field_of
from sedimem.types.longterm import Episode, Fact, Procedure
from sedimem.types.text import Text
from sedimem.types.working import TaskState


class _Copy(BaseModel):
    model_config = ConfigDict(extra="forbid")

    importance: float = field_of(Episode, "importance")
    optional: float | None = field_of(Episode, "importance", default=None)
    occurred: Any = field_of(Episode, "occurred_at", default=None)
    outcome: str = field_of(Episode, "outcome", default=REQUIRED)
    lessons: list[Text] = field_of(Episode, "lessons_learned", max_length=2)
    hits: Hits = 10
    ttl: TtlSeconds = None
    session: SessionFilter = None


def test_a_copy_keeps_the_limits_description_and_default() -> None:
    assert _Copy(outcome="success").importance == 0.5
    with pytest.raises(PydanticValidationError, match="less than or equal to 1"):
        _Copy(outcome="success", importance=1.5)
    with pytest.raises(PydanticValidationError, match="less than or equal to 1"):
        _Copy(outcome="success", optional=1.5)
    schema = _Copy.model_json_schema()["properties"]
    source = Episode.model_json_schema()["properties"]
    assert schema["importance"]["description"] == source["importance"]["description"]
    assert schema["importance"]["examples"] == source["importance"]["examples"]
    assert (schema["importance"]["minimum"], schema["importance"]["maximum"]) == (0.0, 1.0)


def test_a_copy_takes_its_changes() -> None:
    copy = _Copy(outcome="success")
    assert copy.optional is None
    assert copy.occurred is None  # the record's factory (now) is replaced by the default
    with pytest.raises(PydanticValidationError, match="outcome"):
        _Copy()  # REQUIRED: no default, whatever the record's
    with pytest.raises(PydanticValidationError, match="at most 2 items"):
        _Copy(outcome="success", lessons=["a", "b", "c"])
    lessons = _Copy.model_json_schema()["properties"]["lessons"]
    assert lessons["maxItems"] == 2  # the change replaces the record's bound, not adds to it
    assert lessons["items"]["maxLength"] == limits.MAX_TEXT_CHARS


def test_optional_aliases_describe_the_field_itself() -> None:
    schema = _Copy.model_json_schema()["properties"]
    for name in ("hits", "ttl", "session"):
        assert schema[name]["description"], name
    assert schema["hits"]["maximum"] == limits.MAX_K
    assert schema["ttl"]["anyOf"][0]["maximum"] == limits.MAX_TTL_SECONDS


@pytest.mark.parametrize(
    ("build", "field", "allowed"),
    [
        (
            lambda: Episode(description="d", tokens_used=limits.MAX_TOKENS_USED + 1),
            "tokens_used",
            f"<= {limits.MAX_TOKENS_USED}",
        ),
        (
            lambda: Episode(description="d", actions=["a"] * (limits.MAX_ACTIONS + 1)),
            "actions",
            f"length <= {limits.MAX_ACTIONS}",
        ),
        (
            lambda: Episode(description="d", outcome_details="x" * (limits.MAX_TEXT_CHARS + 1)),
            "outcome_details",
            f"length <= {limits.MAX_TEXT_CHARS}",
        ),
        (
            lambda: Procedure(name="p", trigger="t", steps=["s"] * (limits.MAX_STEPS + 1)),
            "steps",
            f"length <= {limits.MAX_STEPS}",
        ),
        (
            lambda: Fact(statement="s", source_episode_ids=["x" * (limits.MAX_ID_CHARS + 1)]),
            "source_episode_ids.0",
            f"length <= {limits.MAX_ID_CHARS}",
        ),
        (
            lambda: TaskState(task_id="t", current_step=limits.MAX_COUNT + 1),
            "current_step",
            f"<= {limits.MAX_COUNT}",
        ),
    ],
)
def test_records_enforce_the_limits(build: Any, field: str, allowed: str) -> None:
    """Python callers meet the limits REST and MCP publish, named the same way."""
    with pytest.raises(ValidationError) as raised:
        build()
    assert raised.value.field == field
    assert raised.value.allowed is not None
    assert allowed in raised.value.allowed


def test_services_check_the_same_limits() -> None:
    assert check_k(limits.MAX_K) == limits.MAX_K
    with pytest.raises(ValidationError, match="k"):
        check_k(limits.MAX_K + 1)
    with pytest.raises(ValidationError) as raised:
        check_query("q" * (limits.MAX_QUERY_CHARS + 1))
    assert raised.value.allowed == f"1..{limits.MAX_QUERY_CHARS} characters"
    with pytest.raises(ValidationError) as scoped:
        Scope.parse(user="u" * (limits.MAX_SCOPE_CHARS + 1))
    assert str(limits.MAX_SCOPE_CHARS) in (scoped.value.allowed or "")


def test_every_record_field_is_described() -> None:
    for record in (Episode, Fact, Procedure, TaskState, Scope):
        for name, info in record.model_fields.items():
            assert info.description, f"{record.__name__}.{name}"
