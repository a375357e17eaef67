"""Erasing a user reaches what the framework adapters kept for them."""

from __future__ import annotations

from langgraph.checkpoint.conformance.test_utils import (
    generate_checkpoint,
    generate_config,
    generate_metadata,
)

from sedimem.access import Access
from sedimem.integrations.langgraph import SedimemSaver, SedimemStore
from sedimem.integrations.openai_agents import SedimemSession
from sedimem.scope import Scope
from tests.integrations.conftest import OpenMemory


async def test_forget_a_user_erases_threads_items_and_conversations(
    open_memory: OpenMemory,
) -> None:
    async with open_memory() as memory:
        ana, bob = Scope(tenant="t", user="ana"), Scope(tenant="t", user="bob")
        for scope in (ana, bob):
            saver = SedimemSaver(memory, scope)
            await saver.aput(generate_config("th"), generate_checkpoint(), generate_metadata(), {})
            await SedimemStore(memory, scope).aput(("prefs",), "seat", {"text": "window"})
            await SedimemSession("chat", memory, scope).add_items([{"content": "hi"}])

        receipt = await memory.forget(Access.local("t"), user="ana")
        assert receipt.documents == 1
        assert receipt.working_sessions == 2  # the thread and the conversation

        assert await SedimemSaver(memory, ana).aget_tuple(generate_config("th")) is None
        assert await SedimemStore(memory, ana).asearch(()) == []
        assert await SedimemSession("chat", memory, ana).get_items() == []
        # bob keeps everything
        assert await SedimemSaver(memory, bob).aget_tuple(generate_config("th")) is not None
        assert len(await SedimemStore(memory, bob).asearch(())) == 1
        assert len(await SedimemSession("chat", memory, bob).get_items()) == 1
