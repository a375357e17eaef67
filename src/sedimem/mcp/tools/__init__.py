"""The tool implementations: argument translation onto :class:`~sedimem.memory.Memory`.

:func:`tool_specs` lists every tool with the hints MCP hosts show (read-only, destructive,
idempotent); :mod:`sedimem.mcp.server` registers them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from sedimem.mcp.tools.admin import AdminTools
from sedimem.mcp.tools.base import ToolEnv
from sedimem.mcp.tools.blocks import BlockTools
from sedimem.mcp.tools.context import ContextTool
from sedimem.mcp.tools.conversation import ConversationTool
from sedimem.mcp.tools.edit import EditTools
from sedimem.mcp.tools.remember import RememberTool
from sedimem.mcp.tools.search import SearchTools
from sedimem.mcp.tools.working import WorkingTools

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
    """Every tool, bound to ``env``, in the order hosts list them. Tools that write are
    bound to ``env.writing()``: a read-only key may call only the reading ones."""
    writing = env.writing()
    search, search_w = SearchTools(env), SearchTools(writing)
    admin, admin_w = AdminTools(env), AdminTools(writing)
    working, working_w = WorkingTools(env), WorkingTools(writing)
    context = ContextTool(env)
    edit, edit_w = EditTools(env), EditTools(writing)
    blocks, blocks_w = BlockTools(env), BlockTools(writing)
    conversation = ConversationTool(writing)  # ingest writes episodes and facts
    return [
        ToolSpec(RememberTool(writing).remember, "Remember"),
        ToolSpec(conversation.ingest_messages, "Remember a conversation", idempotent=True),
        ToolSpec(search.recall, "Recall memories", read_only=True),
        ToolSpec(context.assemble_context, "Assemble context", read_only=True),
        ToolSpec(search.search_procedures, "Search procedures", read_only=True),
        ToolSpec(search_w.record_outcome, "Record a procedure's outcome"),
        ToolSpec(admin.reflect, "Reflect on episodes", read_only=True),
        ToolSpec(admin.get_memory_stats, "Memory statistics", read_only=True),
        ToolSpec(admin_w.forget, "Forget (erase) memories", destructive=True, idempotent=True),
        ToolSpec(working.working_get, "Read working memory", read_only=True),
        ToolSpec(working_w.working_set, "Set a working-memory key", idempotent=True),
        ToolSpec(working_w.append_scratchpad, "Append to the scratchpad"),
        ToolSpec(working_w.checkpoint, "Checkpoint working memory"),
        ToolSpec(working_w.restore, "Restore a checkpoint", destructive=True, idempotent=True),
        ToolSpec(edit_w.edit_memory, "Edit a memory", destructive=True),
        ToolSpec(edit_w.delete_memory, "Delete a memory", destructive=True, idempotent=True),
        ToolSpec(edit_w.invalidate_fact, "Stop believing a fact", idempotent=True),
        ToolSpec(edit_w.declare_predicates, "Declare single-valued predicates", idempotent=True),
        ToolSpec(edit.list_predicates, "Single-valued predicates", read_only=True),
        ToolSpec(blocks.list_blocks, "List pinned blocks", read_only=True),
        ToolSpec(blocks_w.update_block, "Write a pinned block", idempotent=True),
        ToolSpec(blocks_w.append_block, "Append to a pinned block"),
        ToolSpec(blocks_w.delete_block, "Delete a pinned block", destructive=True, idempotent=True),
    ]


TOOL_NAMES = (
    "remember",
    "ingest_messages",
    "recall",
    "assemble_context",
    "search_procedures",
    "record_outcome",
    "reflect",
    "get_memory_stats",
    "forget",
    "working_get",
    "working_set",
    "append_scratchpad",
    "checkpoint",
    "restore",
    "edit_memory",
    "delete_memory",
    "invalidate_fact",
    "declare_predicates",
    "list_predicates",
    "list_blocks",
    "update_block",
    "append_block",
    "delete_block",
)
