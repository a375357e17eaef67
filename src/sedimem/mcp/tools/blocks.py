"""``list_blocks``, ``update_block``, ``append_block``, ``delete_block``: pinned blocks.

Blocks belong to an owner scope (the user or agent named, within the key's narrowing) and
are always placed first in an assembled context.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field

from sedimem.errors import NotFound
from sedimem.mcp.arguments import Agent, AgentType, Project, User
from sedimem.mcp.tools.base import ToolEnv, dump
from sedimem.types.blocks import MAX_BLOCK_CHARS

__all__ = ["BlockTools"]

BlockName = Annotated[
    str,
    Field(
        min_length=1,
        max_length=128,
        pattern=r"^[^\x00-\x1f]+$",
        description="The block's name, e.g. 'persona', 'user_profile', 'instructions'.",
    ),
]


class BlockTools:
    def __init__(self, env: ToolEnv) -> None:
        self._env = env

    async def list_blocks(
        self,
        project: Project = None,
        user: User = None,
        agent_type: AgentType = None,
        agent: Agent = None,
    ) -> dict[str, Any]:
        """The pinned blocks the scope sees (its own and those of its parents), in pinned
        order: name, content, position."""
        scope = self._env.scope(project=project, user=user, agent_type=agent_type, agent=agent)
        blocks = await self._env.memory.blocks(scope).list()
        return {"blocks": [dump(b) for b in blocks]}

    async def update_block(
        self,
        name: BlockName,
        content: Annotated[
            str,
            Field(max_length=MAX_BLOCK_CHARS, description="The block's whole new content."),
        ],
        position: Annotated[
            int | None,
            Field(ge=0, le=1_000_000, description="Order among blocks (lower first)."),
        ] = None,
        project: Project = None,
        user: User = None,
        agent_type: AgentType = None,
        agent: Agent = None,
    ) -> dict[str, Any]:
        """Create a pinned block or replace its content (persona, what you know about the
        user, standing instructions). Returns the block."""
        scope = self._env.scope(project=project, user=user, agent_type=agent_type, agent=agent)
        block = await self._env.memory.blocks(scope).update(name, content, position=position)
        return dump(block)

    async def append_block(
        self,
        name: BlockName,
        text: Annotated[
            str,
            Field(
                min_length=1,
                max_length=MAX_BLOCK_CHARS,
                description=f"Text to add at the end (the block holds at most "
                f"{MAX_BLOCK_CHARS} characters).",
            ),
        ],
        project: Project = None,
        user: User = None,
        agent_type: AgentType = None,
        agent: Agent = None,
    ) -> dict[str, Any]:
        """Append a line to a pinned block (created if missing), atomically: concurrent
        appends all land. Returns the block."""
        scope = self._env.scope(project=project, user=user, agent_type=agent_type, agent=agent)
        return dump(await self._env.memory.blocks(scope).append(name, text))

    async def delete_block(
        self,
        name: BlockName,
        project: Project = None,
        user: User = None,
        agent_type: AgentType = None,
        agent: Agent = None,
    ) -> dict[str, Any]:
        """Delete a pinned block of the scope's own (a parent's block, shared with the scope,
        stays). Returns its name."""
        scope = self._env.scope(project=project, user=user, agent_type=agent_type, agent=agent)
        if not await self._env.memory.blocks(scope).delete(name):
            raise NotFound(f"block {name!r} does not exist")
        return {"deleted": name}
