from pathlib import Path

import pytest

from sedimem.access import Access
from sedimem.embed import HashEmbedder
from sedimem.errors import ConfigurationError
from sedimem.memory import Memory
from sedimem.scope import Scope
from sedimem.types import Episode, Fact


async def test_default_open_uses_one_file_under_home(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SEDIMEM_HOME", str(tmp_path))
    async with await Memory.from_env() as memory:
        assert memory.working_store.name == "sqlite"
        assert memory.longterm_store.name == "sqlite"
        assert memory.embedder.name.startswith("sedimem/minilm")
        scope = Scope(tenant="t", user="ana", session="s")
        await memory.working(scope).set("k", 1)
        await memory.episodes.record(Episode(scope=scope, description="ana visited Oslo"))
        await memory.facts.learn(Fact(scope=scope, statement="ana likes Oslo"))
        stats = await memory.stats(Scope(tenant="t", user="ana"))
        assert (stats.episodes, stats.facts, stats.current_facts, stats.procedures) == (1, 1, 1, 0)
        assert stats.using_fallback is False
    assert (tmp_path / "sedimem.db").exists()
    async with await Memory.open(settings=None, url=f"sqlite:///{tmp_path}/sedimem.db") as again:
        assert await again.working(scope).get("k") == 1
        hits = await again.episodes.recall("Oslo", scope=Scope(tenant="t", user="ana"))
        assert len(hits) == 1


async def test_gdpr_through_the_facade(tmp_path: Path) -> None:
    embedder = HashEmbedder(64)
    async with await Memory.open(
        working="memory://", store=f"sqlite:///{tmp_path}/a.db", embedder=embedder
    ) as memory:
        scope = Scope(tenant="t", user="ana", session="s")
        await memory.working(scope).set("k", 1)
        await memory.episodes.record(Episode(scope=scope, description="ana booked a flight"))
        lines = [line async for line in memory.export(Access.local("t"), "ana")]
        assert len(lines) == 1
        receipt = await memory.forget(Access.local("t"), user="ana")
        assert (receipt.episodes, receipt.working_sessions) == (1, 1)
        assert await memory.working(scope).get("k") is None
        assert await memory.import_(Access.local("t"), lines) == {
            "episode": 1,
            "fact": 0,
            "procedure": 0,
            "block": 0,
            "document": 0,
        }
        assert [line async for line in memory.export(Access.local("t"), "ana")] == lines


async def test_an_embedder_mismatch_is_refused_and_nothing_leaks(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path}/m.db"
    async with await Memory.open(url, embedder=HashEmbedder(64)):
        pass
    with pytest.raises(ConfigurationError, match="embedder"):
        await Memory.open(url, embedder=HashEmbedder(32))
    with pytest.raises(ConfigurationError, match="unsupported"):
        await Memory.open(working="nope://x", store=url)
    with pytest.raises(ConfigurationError, match="unsupported"):
        await Memory.open(working="memory://", store="nope://x")


async def test_health_reports_each_store(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'm.db'}"
    async with await Memory.open(url, embedder=HashEmbedder(16)) as memory:
        health = await memory.health()
        assert health.status == "ready"
        assert (health.working.backend, health.working.reachable) == ("sqlite", True)
        assert health.working.fallback is False
        assert (health.longterm.backend, health.longterm.reachable) == ("sqlite", True)
        await memory.longterm_store.aclose()
        down = await memory.health()
        assert down.status == "unavailable"
        assert down.longterm.reachable is False
        assert down.working.reachable is True


@pytest.mark.parametrize("working", ["memory://", "sqlite"])
async def test_sessions_lists_the_owners_live_sessions_every_page(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, working: str
) -> None:
    import sedimem.memory as memory_module

    monkeypatch.setattr(memory_module, "_SESSION_PAGE", 2)  # several pages of the index
    url = f"sqlite:///{tmp_path}/w.db" if working == "sqlite" else working
    async with await Memory.open(
        working=url, store=f"sqlite:///{tmp_path}/a.db", embedder=HashEmbedder(64)
    ) as memory:
        owner = Scope(tenant="sessions-t", project="p")
        for name in ("s1", "s2", "s3", "s4", "s5"):
            await memory.working(owner.with_session(name)).set("k", 1)
        await memory.working(Scope(tenant="sessions-t", project="q", session="x")).set("k", 1)
        await memory.working(Scope(tenant="other", project="p", session="y")).set("k", 1)
        await memory.working(owner.with_session("s5")).destroy()
        found = await memory.sessions(owner.with_session("any"))
        assert sorted(s.session or "" for s in found) == ["s1", "s2", "s3", "s4"]
        assert all(s.owner == owner for s in found)


def test_scope_from_canonical_round_trips_and_refuses_other_text() -> None:
    scope = Scope(tenant="t", user="ana", session="s")
    assert Scope.from_canonical(scope.canonical) == scope
    for text in ("not json", "[1, 2]", '{"a": 1}', '["", null, null, null, null, null]'):
        assert Scope.from_canonical(text) is None
