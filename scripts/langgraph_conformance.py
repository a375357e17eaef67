"""Print LangGraph's checkpointer conformance report for SedimemSaver on every working store.

    .venv/bin/python scripts/langgraph_conformance.py

Runs ``langgraph-checkpoint-conformance``'s ``validate()`` (base and extended capabilities)
on the in-process store, a SQLite file and a real redis-server started on loopback (the
one the tests use); exits non-zero unless every capability passes on every store.
"""

from __future__ import annotations

import asyncio
import sys
import tempfile
from collections.abc import AsyncIterator
from pathlib import Path
from uuid import uuid4

from langgraph.checkpoint.conformance import checkpointer_test, validate

from sedimem.embed.hashing import HashEmbedder
from sedimem.integrations.langgraph import SedimemSaver
from sedimem.memory import Memory
from sedimem.scope import Scope
from sedimem.testing.redis_server import RedisServer


async def report(name: str, working: str, store: str) -> bool:
    @checkpointer_test(name=f"SedimemSaver on {name}")
    async def saver() -> AsyncIterator[SedimemSaver]:
        memory = await Memory.open(working=working, store=store, embedder=HashEmbedder())
        try:
            yield SedimemSaver(memory, Scope(tenant="conformance", project=uuid4().hex))
        finally:
            await memory.aclose()

    result = await validate(saver)
    result.print_report()
    return all(r.passed for r in result.results.values())


async def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        store = f"sqlite:///{Path(tmp) / 'longterm.db'}"
        redis = RedisServer().start()
        try:
            results = [
                await report("in-process", "memory://", store),
                await report("SQLite", f"sqlite:///{Path(tmp) / 'working.db'}", store),
                await report("Redis", redis.url, store),
            ]
        finally:
            redis.close()
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
