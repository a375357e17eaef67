"""Catalog: page through the current facts and the procedures a scope sees."""

from __future__ import annotations

from pathlib import Path

import pytest

from sedimem.embed import HashEmbedder
from sedimem.errors import ValidationError
from sedimem.memory import Memory
from sedimem.scope import Scope
from sedimem.types.longterm import Fact, Procedure


async def test_pages_hold_every_record_once_and_respect_visibility(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'm.db'}"
    async with await Memory.open(url, embedder=HashEmbedder(32)) as memory:
        shared = Scope(tenant="t")
        ana = Scope(tenant="t", user="ana")
        for i in range(5):
            await memory.facts.learn(Fact(scope=shared, statement=f"shared fact {i}"))
        await memory.facts.learn(Fact(scope=ana, statement="Ana likes tea"))
        await memory.procedures.record(
            Procedure(scope=ana, name="brew", trigger="tea time", steps=["boil water"])
        )
        seen: list[str] = []
        cursor = None
        while True:
            page = await memory.catalog.facts(shared, limit=2, cursor=cursor)
            seen += [f.statement for f in page.items]
            if page.next_cursor is None:
                break
            cursor = page.next_cursor
        assert sorted(seen) == [f"shared fact {i}" for i in range(5)]  # not Ana's
        assert len((await memory.catalog.facts(ana)).items) == 6
        assert (await memory.catalog.procedures(shared)).items == []
        assert [p.name for p in (await memory.catalog.procedures(ana)).items] == ["brew"]
        assert (await memory.catalog.facts(Scope(tenant="other"))).items == []
        with pytest.raises(ValidationError) as limit:
            await memory.catalog.facts(shared, limit=0)
        assert limit.value.field == "limit"
        with pytest.raises(ValidationError) as cursor_error:
            await memory.catalog.procedures(shared, cursor="a\x00b")
        assert cursor_error.value.field == "cursor"
