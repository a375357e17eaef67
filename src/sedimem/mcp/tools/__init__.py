"""The tool implementations: argument translation onto :class:`~sedimem.memory.Memory`.

:func:`tool_specs` lists every tool with the hints MCP hosts show (read-only, destructive,
idempotent); :mod:`sedimem.mcp.server` registers them. Tools that only write are bound to
``env.writing()`` (a read-only key may not call them); tools with reading and writing
actions decide per action.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from sedimem.mcp.tools.admin import AdminTools
from sedimem.mcp.tools.base import ToolEnv
from sedimem.mcp.tools.blocks import CoreMemoryTool
from sedimem.mcp.tools.context import ContextTool
from sedimem.mcp.tools.conversation import ConversationTool
from sedimem.mcp.tools.edit import EditTools
from sedimem.mcp.tools.recall import RecallTool
from sedimem.mcp.tools.remember import RememberTool
from sedimem.mcp.tools.working import WorkingTool

__all__ = ["TOOL_NAMES", "ToolEnv", "ToolSpec", "tool_specs"]


@dataclass(frozen=True, slots=True)
class ToolSpec:
    fn: Callable[..., Any]
    title: str
    read_only: bool = False
    destructive: bool = False
    idempotent: bool = False

    @property
    def name(self) -> str:
        return str(self.fn.__name__)


def tool_specs(env: ToolEnv) -> list[ToolSpec]:
    """Every tool, bound to ``env``, in the order hosts list them."""
    writing = env.writing()
    edit = EditTools(writing)
    admin = AdminTools(env)
    return [
        ToolSpec(RememberTool(writing).remember, "Remember"),
        ToolSpec(RecallTool(env).recall, "Recall", read_only=True),
        ToolSpec(ContextTool(env).assemble_context, "Assemble context", read_only=True),
        ToolSpec(edit.update_memory, "Update a memory"),
        ToolSpec(edit.forget_memory, "Forget a memory", destructive=True, idempotent=True),
        ToolSpec(CoreMemoryTool(env).core_memory, "Core memory", destructive=True),
        ToolSpec(WorkingTool(env).working_memory, "Working memory", destructive=True),
        ToolSpec(
            ConversationTool(writing).ingest_messages, "Store a conversation", idempotent=True
        ),
        ToolSpec(admin.inspect_memory, "Inspect memory"),
        ToolSpec(admin.erase_memories, "Erase (GDPR)", destructive=True, idempotent=True),
    ]


TOOL_NAMES = (
    "remember",
    "recall",
    "assemble_context",
    "update_memory",
    "forget_memory",
    "core_memory",
    "working_memory",
    "ingest_messages",
    "inspect_memory",
    "erase_memories",
)
