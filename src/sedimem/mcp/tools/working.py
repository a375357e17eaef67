"""Working-memory tools: read and write a session's keys, scratchpad and checkpoints."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field

from sedimem.mcp import limits
from sedimem.mcp.arguments import (
    Agent,
    AgentType,
    CheckpointId,
    Project,
    Session,
    Ttl,
    User,
    WorkingKey,
)
from sedimem.mcp.tools.base import ToolEnv, dump
from sedimem.working.memory import WorkingMemory

__all__ = ["WorkingTools"]


class WorkingTools:
    def __init__(self, env: ToolEnv) -> None:
        self._env = env

    def _session(
        self,
        session: str,
        project: str | None,
        user: str | None,
        agent_type: str | None,
        agent: str | None,
    ) -> WorkingMemory:
        scope = self._env.scope(
            project=project, user=user, agent_type=agent_type, agent=agent, session=session
        )
        return self._env.memory.working(scope)

    async def working_get(
        self,
        session: Session,
        key: Annotated[
            WorkingKey | None, Field(description="The key to read; omit to see the whole session.")
        ] = None,
        scratchpad_entries: Annotated[
            int,
            Field(
                ge=0,
                le=limits.MAX_SCRATCHPAD_SHOWN,
                description="With no key: how many of the newest scratchpad entries to include.",
            ),
        ] = 20,
        project: Project = None,
        user: User = None,
        agent_type: AgentType = None,
        agent: Agent = None,
    ) -> dict[str, Any]:
        """Read the current session's working memory. With a key: {found, value}. Without:
        every key and value, the task state, the newest scratchpad entries (oldest first)
        and the checkpoints you can restore. Use it when resuming a task."""
        wm = self._session(session, project, user, agent_type, agent)
        if key is not None:
            missing = object()
            value = await wm.get(key, missing)
            found = value is not missing
            return {"key": key, "found": found, "value": value if found else None}
        notes = await wm.get_scratchpad_with_timestamps()
        state = await wm.get_task_state()
        shown = notes[len(notes) - scratchpad_entries :] if scratchpad_entries else []
        return {
            "session": session,
            "values": await wm.get_all(),
            "task_state": None if state is None else dump(state),
            "scratchpad": [dump(n) for n in shown],
            "scratchpad_total": len(notes),
            "checkpoints": [dump(c) for c in await wm.list_checkpoints()],
        }

    async def working_set(
        self,
        session: Session,
        key: WorkingKey,
        value: Annotated[
            Any,
            Field(
                description="Any JSON value (at most the server's max value size, 1 MiB by "
                "default). Replaces the key's earlier value."
            ),
        ],
        ttl_seconds: Ttl | None = None,
        project: Project = None,
        user: User = None,
        agent_type: AgentType = None,
        agent: Agent = None,
    ) -> dict[str, Any]:
        """Set a key in the session's working memory (task variables, intermediate results),
        optionally expiring after ttl_seconds. State lives for the session and survives a
        restart; checkpoint it before risky steps. Returns the key and its TTL."""
        wm = self._session(session, project, user, agent_type, agent)
        await wm.set(key, value, ttl_seconds)
        return {"session": session, "key": key, "ttl_seconds": ttl_seconds}

    async def append_scratchpad(
        self,
        session: Session,
        text: Annotated[
            str,
            Field(
                min_length=1,
                max_length=limits.MAX_SCRATCHPAD_CHARS,
                description="One note: a reasoning step, an observation, a plan change "
                "(at most 64 KiB encoded, by default).",
            ),
        ],
        project: Project = None,
        user: User = None,
        agent_type: AgentType = None,
        agent: Agent = None,
    ) -> dict[str, Any]:
        """Append a timestamped note to the session's scratchpad (ordered, capped at the
        newest entries). Concurrent appends never lose entries. Returns how many entries the
        scratchpad now holds."""
        wm = self._session(session, project, user, agent_type, agent)
        await wm.append_scratchpad(text)
        return {"session": session, "scratchpad_entries": (await wm.get_stats()).scratchpad_entries}

    async def checkpoint(
        self,
        session: Session,
        description: Annotated[
            str,
            Field(
                max_length=limits.MAX_CHECKPOINT_DESCRIPTION_CHARS,
                description="What state this is, e.g. 'before booking'.",
            ),
        ] = "",
        project: Project = None,
        user: User = None,
        agent_type: AgentType = None,
        agent: Agent = None,
    ) -> dict[str, Any]:
        """Snapshot the session's working memory (keys with their remaining TTLs, task state,
        scratchpad) so it can be restored later, e.g. before a risky step or when pausing.
        Returns the checkpoint id to pass to restore."""
        wm = self._session(session, project, user, agent_type, agent)
        checkpoint_id = await wm.create_checkpoint(description)
        return {"session": session, "checkpoint_id": checkpoint_id}

    async def restore(
        self,
        session: Session,
        checkpoint_id: CheckpointId,
        project: Project = None,
        user: User = None,
        agent_type: AgentType = None,
        agent: Agent = None,
    ) -> dict[str, Any]:
        """Replace the session's live working memory with a checkpoint's, atomically (undo to
        that point). Other checkpoints are kept. Returns the restored checkpoint id."""
        wm = self._session(session, project, user, agent_type, agent)
        await wm.restore_checkpoint(checkpoint_id)
        return {"session": session, "restored": checkpoint_id}
