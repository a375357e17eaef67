"""The MCP server: every sedimem tool registered on the SDK's ``MCPServer``.

Failures become ``isError`` tool results, never protocol errors or a crashed server:

- arguments that fail the input schema: ``field: problem, got X (allowed: range)``;
- our own errors (``ValidationError``, ``NotFound``, ``PermissionDenied``...): their message,
  which names the field and what is allowed; store failures: a generic retry-later message;
- anything else: the SDK's generic ``Error executing tool <name>``, logged with a traceback.
"""

from __future__ import annotations

import logging
from typing import Any

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError, UnexpectedToolError
from mcp.server.mcpserver.tools import Tool
from mcp.types import CallToolResult, InputRequiredResult, ToolAnnotations
from pydantic import ValidationError as PydanticValidationError

from sedimem import __version__
from sedimem.errors import ModelError, SedimemError, StoreError
from sedimem.mcp.access import KeySource
from sedimem.mcp.failures import describe_error, describe_invalid_arguments
from sedimem.mcp.schema import compact_schema
from sedimem.mcp.tools import ToolEnv, ToolSpec, tool_specs
from sedimem.memory import Memory

__all__ = ["INSTRUCTIONS", "MemoryServer", "build_server"]

logger = logging.getLogger("sedimem.mcp")

INSTRUCTIONS = """\
sedimem is your memory across sessions. Start a task with assemble_context (or recall) on \
what you are about to do. Keep the task's state with working_memory (per session id). Store \
what is worth knowing later with remember (plain text is enough) or, for a conversation, \
ingest_messages. Results give ids: correct a memory with update_memory, remove a wrong one \
with forget_memory. core_memory holds short pinned blocks (persona, user profile, \
instructions) placed first in every context. Before a task like earlier ones, or after \
failures, inspect_memory (report reflect) says what worked. erase_memories is for erasure \
requests only. remember and update_memory take less common record fields (metadata, \
valid_from, actions...) in fields.
Scope arguments (all optional): project, user, agent_type, agent, session. A write is filed \
under them; a read sees memories filed with the same values or without them, from every \
session (recall's from_session narrows to one). Memories naming a user are private to calls \
naming that user. Your API key may fix some of them: omit or repeat those. Results are text \
lines; format "json" gives structured data. An error names the argument and what is \
allowed: fix it and call again."""


class MemoryServer(MCPServer[Any]):
    """``MCPServer`` whose tool failures read as one actionable line (see module doc)."""

    def __init__(self, tools: list[Tool], schemas: dict[str, dict[str, Any]]) -> None:
        super().__init__(
            name="sedimem",
            title="sedimem memory",
            version=__version__,
            instructions=INSTRUCTIONS,
            tools=tools,
            log_level="WARNING",
        )
        # the full schemas (the published ones are trimmed): what an error says is allowed
        self._schemas = schemas

    async def call_tool(
        self, name: str, arguments: dict[str, Any], context: Context[Any, Any] | None = None
    ) -> CallToolResult | InputRequiredResult:
        schema = self._schemas.get(name, {})
        try:
            result = await super().call_tool(name, arguments, context)
        except UnexpectedToolError as exc:
            cause = exc.__cause__
            if not isinstance(cause, SedimemError):
                raise  # a crash: the SDK logs it and answers with a generic message
            if isinstance(cause, StoreError | ModelError):
                logger.warning("tool %r: store or model failure", name, exc_info=cause)
            text = describe_error(cause, schema)
            raise ToolError(f"Error executing tool {name}: {text}") from cause
        except ToolError as exc:
            cause = exc.__cause__
            if not isinstance(cause, PydanticValidationError):
                raise
            text = describe_invalid_arguments(cause, schema)
            raise ToolError(f"Error executing tool {name}: {text}") from cause
        return result


def _tool(spec: ToolSpec) -> Tool:
    return Tool.from_function(
        spec.fn,
        name=spec.name,
        title=spec.title,
        description=" ".join((spec.fn.__doc__ or "").split()),  # one paragraph, unwrapped
        # tools answer with a CallToolResult of their own (text, or JSON when asked): no
        # output schema, so tools/list stays small and text answers are not validated
        structured_output=False,
        # hints equal to the protocol's defaults (not read-only, destructive when not
        # read-only, not idempotent) are left out: the host assumes them
        annotations=ToolAnnotations(
            read_only_hint=spec.read_only or None,
            destructive_hint=None if spec.read_only or spec.destructive else False,
            idempotent_hint=spec.idempotent or None,
            open_world_hint=False,
        ),
    )


def build_server(memory: Memory, key_source: KeySource) -> MemoryServer:
    """A server whose tools call ``memory`` as the caller ``key_source`` names."""
    tools = [_tool(spec) for spec in tool_specs(ToolEnv(memory, key_source))]
    published = [t.model_copy(update={"parameters": compact_schema(t.parameters)}) for t in tools]
    return MemoryServer(published, {t.name: t.parameters for t in tools})
