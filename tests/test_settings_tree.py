"""One settings tree: every tunable part hangs off ``Settings``, is documented, and an
environment variable set for it changes what the components it tunes do."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from pydantic import BaseModel

from sedimem.access import Access
from sedimem.config import Settings, load_settings
from sedimem.embed import HashEmbedder
from sedimem.errors import ConfigurationError
from sedimem.memory import Memory
from sedimem.scope import Scope
from sedimem.types.longterm import Episode

DOC = Path(__file__).parents[1] / "docs" / "configuration.md"


def _variables(model: type[BaseModel], prefix: str = "SEDIMEM_") -> Iterator[str]:
    """The environment variable of every leaf field of ``model``, nested parts walked."""
    for name, field in model.model_fields.items():
        kind = field.annotation
        if isinstance(kind, type) and issubclass(kind, BaseModel):
            yield from _variables(kind, f"{prefix}{name.upper()}__")
        else:
            yield f"{prefix}{name.upper()}"


def test_every_setting_is_documented_with_a_default() -> None:
    rows = {}
    for line in DOC.read_text(encoding="utf-8").splitlines():
        if found := re.match(r"\| `(SEDIMEM_[A-Z0-9_]+)` \| ([^|]+) \|", line):
            rows[found.group(1)] = found.group(2).strip()
    variables = list(_variables(Settings))
    assert len(variables) > 70  # the walk reached the nested parts
    for name in ("SEDIMEM_RETRIEVAL__RRF_K", "SEDIMEM_POSTGRES__EF_SEARCH"):
        assert name in variables
    missing = [name for name in variables if name not in rows]
    assert not missing, f"not in docs/configuration.md: {missing}"
    assert all(rows[name] for name in variables)


def test_the_nested_parts_read_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SEDIMEM_RETRIEVAL__RRF_K", "60")
    monkeypatch.setenv("SEDIMEM_CONSOLIDATION__BATCH_SIZE", "7")
    monkeypatch.setenv("SEDIMEM_POSTGRES__EF_SEARCH", "200")
    settings = load_settings()
    assert settings.retrieval.rrf_k == 60
    assert settings.consolidation.batch_size == 7
    assert settings.postgres.ef_search == 200


@pytest.mark.parametrize(
    ("variable", "value"),
    [
        ("SEDIMEM_POSTGRES__EF_SEARCH", "0"),
        ("SEDIMEM_POSTGRES__MIN_POOL_SIZE", "20"),  # above max_pool_size (10)
        ("SEDIMEM_RETRIEVAL__RERANK_DEPTH", "-1"),
        ("SEDIMEM_CONSOLIDATION__MIN_SUCCESS_RATE", "1.5"),
    ],
)
def test_a_bad_value_names_its_variable(
    monkeypatch: pytest.MonkeyPatch, variable: str, value: str
) -> None:
    monkeypatch.setenv(variable, value)
    with pytest.raises(ConfigurationError) as refused:
        load_settings()
    # the variable, or (for a rule across fields) its part and the field
    part, field = variable.split("__")
    assert variable in str(refused.value) or (f"{part}: {field.lower()}" in str(refused.value)), (
        refused.value
    )


async def _score(tmp_path: Path, name: str) -> float:
    url = f"sqlite:///{tmp_path / name}"
    async with await Memory.open(url, embedder=HashEmbedder(64), settings=load_settings()) as m:
        scope = Scope(user="ana")
        await m.episodes.record(
            Episode(description="Booked the night train to Oslo", importance=0.8, scope=scope)
        )
        (hit,) = await m.episodes.recall("night train", scope=scope)
        return hit.score


async def test_a_retrieval_weight_set_in_the_environment_reaches_the_search(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SEDIMEM_HOME", str(tmp_path))
    monkeypatch.setenv("SEDIMEM_RETRIEVAL__RERANK_DEPTH", "0")  # fusion only: scores add up
    default = await _score(tmp_path, "a.db")
    monkeypatch.setenv("SEDIMEM_RETRIEVAL__IMPORTANCE_WEIGHT", "2")
    weighted = await _score(tmp_path, "b.db")
    assert weighted - default == pytest.approx((2 - 0.05) * 0.8)


async def test_a_consolidation_setting_in_the_environment_reaches_the_jobs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two successes make a procedure only when the environment says two are enough."""
    monkeypatch.setenv("SEDIMEM_HOME", str(tmp_path))
    steps = ["open the billing dashboard", "download the CSV export"]

    async def procedures(name: str) -> dict[str, int]:
        url = f"sqlite:///{tmp_path / name}"
        settings = load_settings()
        async with await Memory.open(url, embedder=HashEmbedder(64), settings=settings) as m:
            for _ in range(2):
                await m.episodes.record(
                    Episode(task_type="export", description="export run", actions=steps)
                )
            report = await m.consolidate(Access.local(), jobs=("procedures",))
            return report.job("procedures").counts_out

    assert not (await procedures("a.db")).get("recorded")
    monkeypatch.setenv("SEDIMEM_CONSOLIDATION__MIN_PROCEDURE_EPISODES", "2")
    assert (await procedures("b.db")).get("recorded") == 1


@pytest.mark.postgres
async def test_ef_search_and_the_pool_size_set_in_the_environment_reach_postgresql(
    postgres_url: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("SEDIMEM_HOME", str(tmp_path))
    monkeypatch.setenv("SEDIMEM_POSTGRES__EF_SEARCH", "321")
    monkeypatch.setenv("SEDIMEM_POSTGRES__MIN_POOL_SIZE", "1")
    monkeypatch.setenv("SEDIMEM_POSTGRES__MAX_POOL_SIZE", "1")
    settings = load_settings()
    async with await Memory.open(
        working="memory://", store=postgres_url, embedder=HashEmbedder(64), settings=settings
    ) as memory:
        scope = Scope(user="ana")
        await memory.episodes.record(Episode(description="Booked the night train", scope=scope))
        assert await memory.episodes.recall("night train", scope=scope)
        pool = memory.longterm_store._pool  # type: ignore[attr-defined]
        assert (pool.min_size, pool.max_size) == (1, 1)
        async with pool.connection() as conn:  # the only connection: the search's
            cursor = await conn.execute("SELECT current_setting('hnsw.ef_search')")
            assert await cursor.fetchone() == ("321",)
