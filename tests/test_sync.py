from collections.abc import Iterator
from pathlib import Path

import pytest

from sedimem.access import Access
from sedimem.embed import HashEmbedder
from sedimem.errors import ConfigurationError, NotFound
from sedimem.scope import Scope
from sedimem.sync import SyncMemory
from sedimem.types import Episode


def test_sync_memory_is_the_same_memory_blocking(tmp_path: Path) -> None:
    scope = Scope(tenant="t", user="u", session="s")
    with SyncMemory.open(f"sqlite:///{tmp_path}/s.db", embedder=HashEmbedder(64)) as memory:
        wm = memory.working(scope)
        wm.set("k", {"v": 1})
        assert wm.get("k") == {"v": 1}
        checkpoint = wm.create_checkpoint()
        wm.set("k", 2)
        wm.restore_checkpoint(checkpoint)
        assert wm.get("k") == {"v": 1}
        episode = memory.episodes.record(Episode(scope=scope, description="synced episode"))
        hits = memory.episodes.recall("synced", scope=scope)
        assert [h.record.id for h in hits] == [episode.id]
        assert memory.lifecycle.spawn(scope).operation == "spawn"
        assert memory.export(Access.local("t"), "u")[0].startswith('{"kind": "episode"')
        with pytest.raises(NotFound):
            memory.episodes.get("missing", tenant="t")
        assert "blocking" in repr(wm)


@pytest.fixture
def opened(tmp_path: Path) -> Iterator[SyncMemory]:
    # opened outside any event loop, as a synchronous program would
    with SyncMemory.open(f"sqlite:///{tmp_path}/s.db", embedder=HashEmbedder(64)) as memory:
        yield memory


async def test_sync_memory_refuses_a_running_loop(opened: SyncMemory, tmp_path: Path) -> None:
    with pytest.raises(ConfigurationError, match="running event loop"):
        opened.working(Scope(session="s")).get("k")
    with pytest.raises(ConfigurationError, match="running event loop"):
        SyncMemory.open(f"sqlite:///{tmp_path}/other.db", embedder=HashEmbedder(64))


def test_open_failure_stops_the_loop(tmp_path: Path) -> None:
    with pytest.raises(ConfigurationError):
        SyncMemory.open(working="nope://", store=f"sqlite:///{tmp_path}/x.db")
