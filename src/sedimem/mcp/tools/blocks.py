"""``core_memory``: the pinned blocks (persona, user profile, standing instructions) that
every assembled context starts with; list, set, append or delete one.

Blocks belong to an owner scope (the user or agent named, within the key's narrowing); a
scope sees its own blocks and its parents'.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from mcp.types import CallToolResult
from pydantic import Field

from sedimem.errors import NotFound, ValidationError
from sedimem.mcp.arguments import Agent, AgentType, Format, Project, User
from sedimem.mcp.reply import dump, reply
from sedimem.mcp.tools.base import ToolEnv
from sedimem.types.blocks import Block, BlockContent, BlockName, BlockPosition

__all__ = ["CoreMemoryTool"]

Action = Literal["list", "set", "append", "delete"]


def _block_text(block: Block) -> str:
    return f"[{block.name}] (position {block.position})\n{block.content}"


class CoreMemoryTool:
    def __init__(self, env: ToolEnv) -> None:
        self._read = env
        self._write = env.writing()

    async def core_memory(
        self,
        action: Annotated[
            Action,
            Field(description="set: replace the block's text; append: add a line."),
        ] = "list",
        name: Annotated[
            BlockName | None, Field(description="e.g. persona, user_profile, instructions.")
        ] = None,
        text: Annotated[BlockContent | None, Field(description="The block's text.")] = None,
        position: Annotated[BlockPosition | None, Field(description="Lower first.")] = None,
        project: Project = None,
        user: User = None,
        agent_type: AgentType = None,
        agent: Agent = None,
        format: Format = "text",
    ) -> CallToolResult:
        """Read or edit pinned core memory: short named blocks (who you are, what you know
        about the user, standing instructions) placed first in every assembled context.
        Keep them short; store other knowledge with remember."""
        env = self._read if action == "list" else self._write
        scope = env.scope(project=project, user=user, agent_type=agent_type, agent=agent)
        blocks = self._read.memory.blocks(scope)
        if action == "list":
            listed = await blocks.list()
            data: dict[str, Any] = {"blocks": [dump(b) for b in listed]}
            return reply(
                format,
                data,
                lambda: "\n\n".join(map(_block_text, listed)) or "no core memory blocks",
            )
        if name is None:
            raise ValidationError("name", f"is required to {action} a block")
        if action == "delete":
            if not await blocks.delete(name):
                raise NotFound(f"block {name!r} does not exist")
            return reply(format, {"deleted": name}, lambda: f"deleted block {name}")
        if text is None:
            raise ValidationError("text", f"is required to {action} a block")
        if action == "set":
            block = await blocks.update(name, text, position=position)
        else:
            if not text:
                raise ValidationError("text", "is empty", allowed="1 or more characters")
            block = await blocks.append(name, text)
        return reply(format, dump(block), lambda: _block_text(block))
