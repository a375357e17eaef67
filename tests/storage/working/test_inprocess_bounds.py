from sedimem.scope import Scope
from sedimem.storage.working.inprocess import InProcessWorkingStore, SessionRegistry
from sedimem.working.memory import WorkingMemory


async def test_registry_drops_least_recently_used_sessions() -> None:
    registry = SessionRegistry(max_sessions=3)
    store = InProcessWorkingStore(registry)
    handles = [WorkingMemory(store, Scope(session=f"s{i}")) for i in range(4)]
    for wm in handles[:3]:
        await wm.set("k", 1)
    await handles[0].get("k")  # s0 is now the most recently used
    await handles[3].set("k", 1)
    assert len(registry.sessions) == 3
    assert await handles[1].get("k") is None  # the least recently used went
    assert await handles[0].get("k") == 1


async def test_default_stores_share_the_process_registry() -> None:
    one, two = InProcessWorkingStore(), InProcessWorkingStore()
    assert one.registry is two.registry
    scope = Scope(session="shared-by-default")
    await WorkingMemory(one, scope).set("k", "v")
    assert await WorkingMemory(two, scope).get("k") == "v"
    await WorkingMemory(one, scope).destroy()
