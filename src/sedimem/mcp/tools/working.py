"""``working_memory``: the current session's state (keys, task, scratchpad, checkpoints)."""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal

from mcp.types import CallToolResult
from pydantic import Field

from sedimem.errors import ValidationError
from sedimem.mcp.arguments import (
    Agent,
    AgentType,
    Format,
    Project,
    Ttl,
    User,
    WorkingKey,
)
from sedimem.mcp.reply import dump, reply, when
from sedimem.mcp.tools.base import ToolEnv
from sedimem.scope import Identifier
from sedimem.types.longterm import RecordId as RecordIdText
from sedimem.types.working import TaskState
from sedimem.working.memory import WorkingMemory

__all__ = ["WorkingTool"]

Action = Literal["get", "set", "delete", "note", "task", "checkpoint", "restore"]
_READING = frozenset({"get"})
#: The newest scratchpad entries ``get`` shows.
SCRATCHPAD_SHOWN = 20


class WorkingTool:
    def __init__(self, env: ToolEnv) -> None:
        self._read = env
        self._write = env.writing()

    async def working_memory(
        self,
        session: Annotated[Identifier, Field(description="The session to work in.")],
        action: Annotated[
            Action,
            Field(
                description="get: a key, or all without key. note: add text to the "
                "scratchpad. task: value = {task_id, status, current_step, total_steps}. "
                "checkpoint: snapshot (text: label). restore: to checkpoint_id."
            ),
        ] = "get",
        key: Annotated[WorkingKey | None, Field(description="get/set/delete: the key.")] = None,
        value: Annotated[Any, Field(description="Any JSON value.")] = None,
        ttl_seconds: Ttl = None,
        text: Annotated[str | None, Field(description="note, checkpoint: the text.")] = None,
        checkpoint_id: Annotated[
            RecordIdText | None, Field(description="restore: the checkpoint.")
        ] = None,
        project: Project = None,
        user: User = None,
        agent_type: AgentType = None,
        agent: Agent = None,
        format: Format = "text",
    ) -> CallToolResult:
        """Keep the state of the task at hand for this session: variables, task progress,
        scratchpad notes, checkpoints to go back to. Call get when resuming."""
        env = self._read if action in _READING else self._write
        wm = env.memory.working(
            env.scope(
                project=project, user=user, agent_type=agent_type, agent=agent, session=session
            )
        )
        if action == "get":
            if key is not None:
                return await _get_key(wm, key, format)
            return await _get_all(wm, session, format)
        if action in ("set", "delete"):
            if key is None:
                raise ValidationError("key", f"is required to {action} a key")
            if action == "delete":
                deleted = await wm.delete(key)
                data = {"key": key, "deleted": deleted}
                return reply(format, data, lambda: f"{key}: {'deleted' if deleted else 'absent'}")
            if value is None:
                raise ValidationError("value", "is required to set a key", allowed="any JSON")
            await wm.set(key, value, ttl_seconds)
            data = {"key": key, "ttl_seconds": ttl_seconds}
            return reply(format, data, lambda: f"set {key}")
        if action == "note":
            if not text:
                raise ValidationError("text", "is required to note", allowed="the note's text")
            await wm.append_scratchpad(text)
            count = (await wm.get_stats()).scratchpad_entries
            return reply(format, {"scratchpad_entries": count}, lambda: f"noted ({count})")
        if action == "task":
            if not isinstance(value, dict):
                raise ValidationError("value", "must give the task state", allowed="an object")
            task = TaskState(**value)
            await wm.set_task_state(task)
            return reply(format, {"task_state": dump(task)}, lambda: _task_line(task))
        if action == "checkpoint":
            made = await wm.create_checkpoint(text or "")
            return reply(format, {"checkpoint_id": made}, lambda: f"checkpoint {made}")
        if checkpoint_id is None:
            raise ValidationError("checkpoint_id", "is required to restore")
        await wm.restore_checkpoint(checkpoint_id)
        return reply(format, {"restored": checkpoint_id}, lambda: f"restored {checkpoint_id}")


async def _get_key(wm: WorkingMemory, key: str, format: str) -> CallToolResult:
    missing = object()
    value = await wm.get(key, missing)
    found = value is not missing
    data = {"key": key, "found": found, "value": value if found else None}
    return reply(format, data, lambda: f"{key} = {_json(value)}" if found else f"{key}: not set")


async def _get_all(wm: WorkingMemory, session: str, format: str) -> CallToolResult:
    values = await wm.get_all()
    state = await wm.get_task_state()
    notes = await wm.get_scratchpad_with_timestamps()
    checkpoints = await wm.list_checkpoints()
    data: dict[str, Any] = {
        "session": session,
        "values": values,
        "task_state": None if state is None else dump(state),
        "scratchpad": [dump(n) for n in notes],
        "checkpoints": [dump(c) for c in checkpoints],
    }

    def text() -> str:
        lines = [f"session {session}"]
        lines += [f"{k} = {_json(v)}" for k, v in values.items()] or ["no keys"]
        if state is not None:
            lines.append(_task_line(state))
        shown = notes[-SCRATCHPAD_SHOWN:]
        if notes:
            lines.append(f"scratchpad ({len(shown)} newest of {len(notes)}):")
            lines += [f"- {when(n.created_at)} {n.text}" for n in shown]
        lines += [
            f"checkpoint {c.id}: {c.description or '(no label)'} at {when(c.created_at)}"
            for c in checkpoints
        ]
        return "\n".join(lines)

    return reply(format, data, text)


def _task_line(state: TaskState) -> str:
    total = "" if state.total_steps is None else f"/{state.total_steps}"
    return (
        f"task {state.task_id}: {state.status.value}, step {state.current_step}{total}, "
        f"{round(state.progress_percent, 1)}%"
    )


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))
