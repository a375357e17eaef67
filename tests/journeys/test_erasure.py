"""The privacy journey: user U's marked text in every tier, consolidated; user V of the same
tenant sees none of it through any read path; after ``forget(user=U)`` the marker is in no
read path and, on the embedded default, in no byte of the store's files.

Runs through the Python API on the embedded default (SQLite) and on Redis + PostgreSQL,
and once through a real ``sedimem serve`` process over REST.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest

from sedimem.access import Access
from sedimem.memory import Memory
from sedimem.scope import Scope
from sedimem.storage.longterm.base import RecordFilter
from sedimem.storage.longterm.sqlite import SqliteLongTermStore
from sedimem.testing import SedimemServer
from sedimem.types import Episode, Fact, Procedure
from sedimem.types.longterm import Outcome
from sedimem.types.working import TaskState

pytestmark = pytest.mark.slow

MARK = "QzvMarker7731"  # one token; the indexes keep it case-folded ...
FORMS = (MARK, MARK.lower())  # ... so the files are searched for both forms
TENANT = "clinic"
U = Scope(tenant=TENANT, user="ulla", agent_type="assistant")
V = Scope(tenant=TENANT, user="vera", agent_type="assistant")
KINDS = ("episode", "fact", "procedure", "block", "document")


async def write_everything(memory: Memory) -> None:
    """U's marked text into every tier; V writes ordinary records of her own."""
    blocks = memory.blocks(U)
    await blocks.update("profile", f"ulla has insurance number {MARK}-4711")
    await blocks.update(f"notes {MARK}", "private notes")
    wm = memory.working(U.with_session("live"))
    await wm.set("diagnosis", {"code": f"{MARK} result"})
    await wm.set(f"{MARK}key", "value")
    await wm.append_scratchpad(f"thinking about {MARK} and the claim")
    await wm.set_task_state(TaskState(task_id=f"task-{MARK}", metadata={"about": MARK}))
    await wm.create_checkpoint(f"before calling about {MARK}")
    for i in range(4):  # four private episodes: consolidation distils a procedure
        await memory.episodes.record(
            Episode(
                scope=U.with_session(f"s{i}"),
                task_type="claims",
                description=f"Filed the insurance claim {MARK} number {i}",
                actions=[f"upload {MARK} result", "call insurer about claim 4711"],
                outcome=Outcome.SUCCESS,
            )
        )
    await memory.episodes.record(
        Episode(scope=U.with_session("s9"), description=f"Ulla lives in {MARK}ville.")
    )
    await memory.facts.learn(Fact(scope=U, statement=f"Ulla's diagnosis is {MARK}"))
    await memory.documents(U).put(("notes",), f"doc-{MARK}", {"text": f"a note on {MARK}"})
    await memory.ingest(  # a conversation: an episode, and the facts read from it
        [{"role": "user", "content": f"I work at {MARK} Insurance in Bergen."}],
        U.with_session("chat"),
    )
    await memory.procedures.record(
        Procedure(scope=U, name="private routine", trigger=f"when {MARK} comes", steps=[MARK])
    )
    # V's own life: her reads are not empty, so "nothing of U" is a real check
    await memory.blocks(V).update("profile", "vera likes tea")
    await memory.episodes.record(
        Episode(scope=V.with_session("v1"), task_type="claims", description="Vera filed a claim")
    )


async def reads_of(memory: Memory, scope: Scope) -> dict[str, str]:
    """Everything ``scope`` can read, each read path rendered as text."""
    query = f"{MARK} insurance claim diagnosis result upload call insurer"
    out: dict[str, str] = {}
    for mode in ("hybrid", "keyword", "vector"):
        out[f"episodes {mode}"] = repr(
            await memory.episodes.recall(query, scope=scope, mode=mode)  # type: ignore[arg-type]
        )
        out[f"facts {mode}"] = repr(
            await memory.facts.recall(query, scope=scope, mode=mode, include_history=True)  # type: ignore[arg-type]
        )
        out[f"procedures {mode}"] = repr(
            await memory.procedures.find_matching(query, scope=scope, mode=mode)  # type: ignore[arg-type]
        )
    out["episodes list"] = repr(await memory.episodes.list(scope, limit=1000))
    out["blocks"] = repr(await memory.blocks(scope).list())
    out["documents"] = repr(await memory.documents(scope).search(("notes",), query=query))
    context = await memory.assemble(query, scope.with_session("live"), 4000)
    out["context"] = context.model_dump_json()
    out["working"] = repr(await memory.working(scope.with_session("live")).get_all())
    out["scratchpad"] = repr(await memory.working(scope.with_session("live")).get_scratchpad())
    out["checkpoints"] = repr(await memory.working(scope.with_session("live")).list_checkpoints())
    out["export"] = "\n".join(
        [line async for line in memory.export(Access.local(TENANT), scope.user)]
    )
    out["export of no user"] = "\n".join(
        [line async for line in memory.export(Access.local(TENANT), None)]
    )
    out["stats"] = (await memory.stats(scope)).model_dump_json()
    out["profile"] = (await memory.profile(scope)).model_dump_json()
    return out


def leaks(reads: dict[str, str]) -> list[str]:
    return sorted(path for path, text in reads.items() if MARK.lower() in text.lower())


def _count(data: bytes) -> int:
    return sum(data.count(form.encode()) for form in FORMS)


def raw_hits(db: Path) -> dict[str, int]:
    """How often the marker occurs in the bytes of the SQLite file and its companions."""
    found = {}
    for suffix in ("", "-wal", "-shm", "-journal"):
        path = Path(f"{db}{suffix}")
        if path.exists():
            found[path.name] = _count(path.read_bytes())
    return found


def home_hits(home: Path) -> dict[str, int]:
    """Every file under the store's directory (saved indexes included) holding the marker."""
    hits = {
        str(p.relative_to(home)): _count(p.read_bytes()) for p in home.rglob("*") if p.is_file()
    }
    return {name: n for name, n in hits.items() if n}


async def redis_hits(url: str) -> int:
    """Keys of the Redis database whose name or serialised value holds the marker."""
    import redis.asyncio as redis

    client = redis.Redis.from_url(url)
    try:
        hits = 0
        async for key in client.scan_iter(count=1000):
            value = await client.dump(key)
            hits += _count(key) > 0 or (value is not None and _count(value) > 0)
        return hits
    finally:
        await client.aclose()


async def counts_of(memory: Memory, user: str) -> dict[str, int]:
    store = memory.longterm_store
    return {k: await store.count(TENANT, RecordFilter(kind=k, user=user)) for k in KINDS}


async def test_erasing_a_user_leaves_nothing(memory_urls: tuple[str, str]) -> None:
    working_url, store_url = memory_urls
    memory = await Memory.open(working=working_url, store=store_url)
    db = Path(store_url.removeprefix("sqlite://")) if store_url.startswith("sqlite") else None
    try:
        await write_everything(memory)
        report = await memory.consolidate(Access.local(TENANT), jobs=("facts", "procedures"))
        assert report.ok, report
        assert report.job("procedures").counts_out.get("recorded") == 1
        # the distilled procedure is Ulla's, with its four episodes as provenance
        (derived,) = [
            p
            for p in await memory.procedures.find_matching("claims", scope=U, k=10)
            if p.record.metadata.get("source") == "consolidation"
        ]
        assert derived.record.scope.user == "ulla"
        assert len(derived.record.source_episode_ids) == 4

        assert leaks(await reads_of(memory, U))  # Ulla sees her own memories
        assert leaks(await reads_of(memory, V)) == []  # Vera sees none of them
        written = await counts_of(memory, "ulla")
        assert written["episode"] == 6
        assert written["procedure"] == 2
        assert written["block"] == 2
        assert written["document"] == 1
        assert written["fact"] >= 3  # learned, read from the chat, extracted by consolidation
        if db is not None:
            store = memory.longterm_store
            assert isinstance(store, SqliteLongTermStore)
            await store.warm(TENANT, wait=True)  # saves the indexes beside the file
            assert sum(raw_hits(db).values()) > 0  # the probe can see the marker at all
            assert any(name.endswith(".idx") for name in home_hits(db.parent))  # saved indexes
        else:
            assert await redis_hits(working_url) > 0

        receipt = await memory.forget(Access.local(TENANT), user="ulla")
        assert (
            receipt.episodes,
            receipt.facts,
            receipt.procedures,
            receipt.blocks,
            receipt.documents,
        ) == tuple(written[k] for k in KINDS)
        assert receipt.working_sessions == 1
        assert receipt.scrubbed_at is not None
        assert await counts_of(memory, "ulla") == dict.fromkeys(KINDS, 0)
        assert leaks(await reads_of(memory, U)) == []
        assert leaks(await reads_of(memory, V)) == []
        assert "vera likes tea" in (await reads_of(memory, V))["blocks"]  # Vera keeps hers
        if db is not None:
            assert raw_hits(db) == {db.name: 0, f"{db.name}-shm": 0, f"{db.name}-wal": 0}
            assert home_hits(db.parent) == {}
        else:
            assert await redis_hits(working_url) == 0
            assert "VACUUM" in receipt.scrubbed
    finally:
        await memory.aclose()
    if db is not None:  # and after a clean shutdown (which saves the indexes again)
        assert home_hits(db.parent) == {}


async def test_export_import_export_is_identical_with_blocks(tmp_path: Path) -> None:
    source = await Memory.open(f"sqlite:///{tmp_path / 'a.db'}")
    target = await Memory.open(f"sqlite:///{tmp_path / 'b.db'}")
    try:
        await write_everything(source)
        await source.consolidate(Access.local(TENANT), jobs=("facts", "procedures"))
        first = [line async for line in source.export(Access.local(TENANT), "ulla")]
        kinds = [json.loads(line)["kind"] for line in first]
        assert kinds.count("block") == 2
        assert kinds.count("document") == 1
        assert kinds.count("procedure") == 2
        counts = await target.import_(Access.local(TENANT), first)
        assert counts == {k: kinds.count(k) for k in KINDS}
        assert [line async for line in target.export(Access.local(TENANT), "ulla")] == first
        restored = await target.blocks(U).list()
        assert {b.name for b in restored} == {"profile", f"notes {MARK}"}
    finally:
        await source.aclose()
        await target.aclose()


# -- the same journey through a real server process, over REST ----------------------------


def _rest_reads(client: httpx.Client, user: str) -> dict[str, str]:
    query = f"{MARK} insurance claim diagnosis"
    owner = {"user": user, "agent_type": "assistant"}
    body: dict[str, Any] = {"query": query, **owner}
    return {
        "recall": client.post("/v1/recall", json=body).text,
        "context": client.post(
            "/v1/context", json={**body, "budget_tokens": 4000, "session": "live"}
        ).text,
        "match": client.post(
            "/v1/procedures/match",
            json={"task_description": query, "user": user, "agent_type": "assistant"},
        ).text,
        "episodes": client.get("/v1/episodes", params=owner).text,
        "blocks": client.get("/v1/blocks", params=owner).text,
        "kv": client.get("/v1/sessions/live/kv", params=owner).text,
        "scratchpad": client.get("/v1/sessions/live/scratchpad", params=owner).text,
        "checkpoints": client.get("/v1/sessions/live/checkpoints", params=owner).text,
        "export": client.get("/v1/export", params={"user": user}).text,
        "export of no user": client.get("/v1/export").text,
        "stats": client.get("/v1/stats", params=owner).text,
    }


def test_erasure_over_rest() -> None:
    with SedimemServer() as server:
        key = server.printed_key
        assert key is not None
        headers = {"Authorization": f"Bearer {key}"}
        with httpx.Client(base_url=server.url, headers=headers, timeout=60) as client:
            owner = {"user": "ulla", "agent_type": "assistant"}
            ok = [
                client.put(
                    "/v1/blocks/profile", json={**owner, "content": f"insurance {MARK}-4711"}
                ),
                client.put(f"/v1/blocks/notes-{MARK}", json={**owner, "content": "private"}),
                client.put("/v1/sessions/live/kv/diagnosis", json={**owner, "value": MARK}),
                client.put(f"/v1/sessions/live/kv/{MARK}", json={**owner, "value": 1}),
                client.post("/v1/sessions/live/scratchpad", json={**owner, "text": MARK}),
                client.post("/v1/sessions/live/checkpoints", json={**owner, "description": MARK}),
                *[
                    client.post(
                        "/v1/episodes",
                        json={
                            **owner,
                            "session": f"s{i}",
                            "task_type": "claims",
                            "description": f"Filed the claim {MARK} number {i}",
                            "actions": [f"upload {MARK} result", "call insurer about 4711"],
                        },
                    )
                    for i in range(4)
                ],
                client.post("/v1/facts", json={**owner, "statement": f"Ulla has {MARK}"}),
                client.post("/v1/consolidate", json={"jobs": ["facts", "procedures"]}),
            ]
            assert all(r.status_code < 300 for r in ok), [
                r.text for r in ok if r.status_code >= 300
            ]
            assert leaks(_rest_reads(client, "ulla"))
            assert leaks(_rest_reads(client, "vera")) == []

            receipt = client.post("/v1/forget", json={"user": "ulla"})
            assert receipt.status_code == 200, receipt.text
            erased = receipt.json()
            assert (erased["episodes"], erased["blocks"], erased["working_sessions"]) == (4, 2, 1)
            assert erased["procedures"] == 1
            assert erased["facts"] >= 1
            for user in ("ulla", "vera"):
                assert leaks(_rest_reads(client, user)) == []
        db = server.home / "sedimem.db"
        assert raw_hits(db) == {db.name: 0, f"{db.name}-shm": 0, f"{db.name}-wal": 0}
        assert home_hits(server.home) == {}  # its log included
        server.stop()  # a clean shutdown saves the indexes again
        assert home_hits(server.home) == {}
