"""Ids, filters and queries holding NUL are refused naming the argument, on SQLite and on
PostgreSQL alike (PostgreSQL's driver would refuse them without saying which)."""

from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from sedimem.embed import HashEmbedder
from sedimem.errors import ValidationError
from sedimem.longterm.episodic import EpisodicMemory
from sedimem.longterm.procedural import ProceduralMemory
from sedimem.longterm.semantic import SemanticMemory
from sedimem.scope import Scope
from sedimem.storage.longterm.base import LongTermStore

NUL = "a\x00b"
SCOPE = Scope(tenant="t")

Call = Callable[[EpisodicMemory, SemanticMemory, ProceduralMemory], Awaitable[Any]]

CALLS: list[tuple[str, Call]] = [
    ("episode_id", lambda e, f, p: e.get(NUL, tenant="t")),
    ("episode_id", lambda e, f, p: e.delete(NUL, tenant="t")),
    ("task_type", lambda e, f, p: e.list(SCOPE, task_type=NUL)),
    ("task_type", lambda e, f, p: e.recall("q", scope=SCOPE, task_type=NUL)),
    ("query", lambda e, f, p: e.recall(NUL, scope=SCOPE)),
    ("fact_id", lambda e, f, p: f.get(NUL, tenant="t")),
    ("fact_id", lambda e, f, p: f.invalidate(NUL, tenant="t")),
    ("fact_id", lambda e, f, p: f.delete(NUL, tenant="t")),
    ("subject", lambda e, f, p: f.history(NUL, "p", scope=SCOPE)),
    ("predicate", lambda e, f, p: f.history("s", NUL, scope=SCOPE)),
    ("subject", lambda e, f, p: f.recall("q", scope=SCOPE, subject=NUL, predicate="p")),
    ("procedure_id", lambda e, f, p: p.get(NUL, tenant="t")),
    ("procedure_id", lambda e, f, p: p.delete(NUL, tenant="t")),
    ("procedure_id", lambda e, f, p: p.record_outcome(NUL, success=True, tenant="t")),
]


@pytest.mark.parametrize(("field", "call"), CALLS)
async def test_nul_in_an_argument_names_it(
    lt_store: LongTermStore, embedder: HashEmbedder, field: str, call: Call
) -> None:
    services = (
        EpisodicMemory(lt_store, embedder),
        SemanticMemory(lt_store, embedder),
        ProceduralMemory(lt_store, embedder),
    )
    with pytest.raises(ValidationError) as info:
        await call(*services)
    assert info.value.field == field
    assert "NUL" in str(info.value)
