"""A process popping one conversation until it is empty, for the multi-process pop test.

    python pops_proc.py WORKING_URL STORE_URL SESSION_ID START_AT

Waits until the epoch time START_AT (so that the processes really overlap), pops until the
session is empty and prints what it popped, as JSON.
"""

from __future__ import annotations

import asyncio
import json
import sys
import time

from sedimem.embed.hashing import HashEmbedder
from sedimem.integrations.openai_agents import SedimemSession
from sedimem.memory import Memory
from sedimem.scope import Scope


async def main(working: str, store: str, session_id: str, start_at: float) -> None:
    async with await Memory.open(working=working, store=store, embedder=HashEmbedder()) as m:
        session = SedimemSession(session_id, m, Scope(tenant="pops"))
        await asyncio.sleep(max(0.0, start_at - time.time()))
        popped = []
        while (item := await session.pop_item()) is not None:
            popped.append(item["n"])
        print(json.dumps(popped))


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4])))
