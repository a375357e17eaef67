"""No record holds NUL: every text field refuses it, naming the field; JSON values may hold it."""

from datetime import UTC, datetime
from typing import Any

import pytest
from pydantic import ValidationError as PydanticValidationError

from sedimem.errors import ValidationError
from sedimem.keys import ApiKey
from sedimem.scope import Scope
from sedimem.types import Episode, Fact, Procedure, TaskState
from sedimem.types.blocks import Block
from sedimem.types.text import NUL_ALLOWED, check_no_nul

NUL = "before\x00after"
NOW = datetime(2024, 1, 1, tzinfo=UTC)


@pytest.mark.parametrize(
    ("build", "fields", "field"),
    [
        (Episode, {"description": NUL}, "description"),
        (Episode, {"description": "d", "task_type": NUL}, "task_type"),
        (Episode, {"description": "d", "actions": ["ok", NUL]}, "actions.1"),
        (Episode, {"description": "d", "outcome_details": NUL}, "outcome_details"),
        (Episode, {"description": "d", "context_summary": NUL}, "context_summary"),
        (Episode, {"description": "d", "lessons_learned": [NUL]}, "lessons_learned.0"),
        (Episode, {"description": "d", "input_text": NUL}, "input_text"),
        (Episode, {"description": "d", "output_text": NUL}, "output_text"),
        (Episode, {"description": "d", "id": NUL}, "id"),
        (Fact, {"statement": NUL}, "statement"),
        (Fact, {"statement": "s", "subject": NUL, "predicate": "p"}, "subject"),
        (Fact, {"statement": "s", "subject": "s", "predicate": NUL}, "predicate"),
        (Fact, {"statement": "s", "object": NUL}, "object"),
        (Fact, {"statement": "s", "source_episode_ids": [NUL]}, "source_episode_ids.0"),
        (Procedure, {"name": NUL, "trigger": "t", "steps": ["a"]}, "name"),
        (Procedure, {"name": "n", "trigger": NUL, "steps": ["a"]}, "trigger"),
        (Procedure, {"name": "n", "trigger": "t", "steps": ["a", NUL]}, "steps.1"),
        (Block, {"scope": Scope(), "name": "persona", "content": NUL}, "content"),
        (Block, {"scope": Scope(), "name": NUL}, "name"),
        (TaskState, {"task_id": NUL}, "task_id"),
        (ApiKey, {"id": "k", "tenant": "t", "label": NUL, "created_at": NOW}, "label"),
    ],
)
def test_text_fields_refuse_nul_naming_the_field(
    build: Any, fields: dict[str, Any], field: str
) -> None:
    with pytest.raises(ValidationError) as info:
        build(**fields)
    assert info.value.field == field
    if field != "name" or build is not Block:  # the block name has its own, wider rule
        assert info.value.allowed == NUL_ALLOWED
        assert "NUL" in str(info.value)


def test_json_values_may_hold_nul() -> None:
    # stores keep metadata as JSON text, where NUL is written \u0000
    episode = Episode(description="d", metadata={"note": NUL, NUL: [NUL]})
    assert episode.metadata["note"] == NUL
    assert Episode.model_validate_json(episode.model_dump_json()).metadata == episode.metadata
    assert TaskState(task_id="t", metadata={"x": NUL}).metadata == {"x": NUL}


def test_text_without_nul_passes_unchanged() -> None:
    text = "tabs\tnewlines\n and \u2028 and emoji \U0001f600 stay"
    assert Episode(description=text).description == text
    assert check_no_nul("field", text) == text
    with pytest.raises(ValidationError) as info:
        check_no_nul("field", NUL)
    assert (info.value.field, info.value.allowed) == ("field", NUL_ALLOWED)


def test_a_body_stored_before_the_rule_still_reads() -> None:
    # written by a version that let SQLite keep NUL in text: readable, so it can be erased
    fields = {**Episode(description="x").__dict__, "description": NUL, "actions": [NUL]}
    legacy = Episode.model_construct(**{**fields, "metadata": {"note": NUL}}).model_dump_json()
    assert "\\u0000" in legacy
    read = Episode.from_stored(legacy)
    assert read.description == read.actions[0] == "before\ufffdafter"
    assert read.metadata == {"note": NUL}  # JSON values keep theirs
    clean = Episode(description="y", metadata={"note": NUL})
    assert Episode.from_stored(clean.model_dump_json()) == clean
    with pytest.raises(PydanticValidationError):
        Episode.from_stored('{"description": ""}')  # other problems are not forgiven
