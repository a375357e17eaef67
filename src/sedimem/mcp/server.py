"""The MCP server: every sedimem tool registered on the SDK's ``MCPServer``.

Failures become ``isError`` tool results, never protocol errors or a crashed server:

- arguments that fail the input schema: ``field: problem, got X (allowed: range)``;
- our own errors (``ValidationError``, ``NotFound``, ``PermissionDenied``...): their message,
  which names the field and what is allowed; store failures: a generic retry-later message;
- anything else: the SDK's generic ``Error executing tool <name>``, logged with a traceback.
"""

from __future__ import annotations

import json
import logging
from typing import Any

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError, UnexpectedToolError
from mcp.server.mcpserver.tools import Tool
from mcp.types import CallToolResult, InputRequiredResult, TextContent, ToolAnnotations
from pydantic import ValidationError as PydanticValidationError

from sedimem import __version__
from sedimem.errors import SedimemError, StoreError
from sedimem.mcp.access import KeySource
from sedimem.mcp.failures import describe_error, describe_invalid_arguments
from sedimem.mcp.tools import ToolEnv, ToolSpec, tool_specs
from sedimem.memory import Memory

__all__ = ["INSTRUCTIONS", "MemoryServer", "build_server"]

logger = logging.getLogger("sedimem.mcp")

INSTRUCTIONS = """\
sedimem is your layered memory. At the start of a task call assemble_context (or recall) \
with what you are about to do; keep the task's state in working memory (working_set, \
append_scratchpad, checkpoint / restore, working_get to resume), all per session id. When a \
task ends, remember it as an episode (tier 'episodic': description, outcome, actions, \
lessons_learned); pass the conversation's turns to ingest_messages (stored once, the \
facts they state learned); store durable facts with tier 'semantic' and reusable step lists \
with tier 'procedural'; after following a procedure found by search_procedures, call \
record_outcome. To correct a memory use its id: edit_memory, invalidate_fact (a fact no \
longer true) or delete_memory; a fact stored with cardinality 'one' replaces the current \
value of its subject and predicate (declare_predicates does so for every later write). \
Pinned blocks (persona, user profile, instructions; always first in a context): \
list_blocks, update_block, append_block, delete_block. Scope fields (project, user, \
agent_type, agent, session) are optional; your API key may fix some of them. Errors name \
the argument and the allowed range: fix it and call again."""


class MemoryServer(MCPServer[Any]):
    """``MCPServer`` whose tool failures read as one actionable line (see module doc)."""

    def __init__(self, tools: list[Tool]) -> None:
        super().__init__(
            name="sedimem",
            title="sedimem memory",
            version=__version__,
            instructions=INSTRUCTIONS,
            tools=tools,
            log_level="WARNING",
        )
        self._schemas = {tool.name: tool.parameters for tool in tools}

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
            if isinstance(cause, StoreError):
                logger.warning("tool %r: store failure", name, exc_info=cause)
            text = describe_error(cause, schema)
            raise ToolError(f"Error executing tool {name}: {text}") from cause
        except ToolError as exc:
            cause = exc.__cause__
            if not isinstance(cause, PydanticValidationError):
                raise
            text = describe_invalid_arguments(cause, schema)
            raise ToolError(f"Error executing tool {name}: {text}") from cause
        return _compact(result)


def _compact(result: CallToolResult | InputRequiredResult) -> CallToolResult | InputRequiredResult:
    """The text content as compact JSON (the SDK indents it): fewer tokens for the agent."""
    if not isinstance(result, CallToolResult) or result.structured_content is None:
        return result
    text = json.dumps(result.structured_content, ensure_ascii=False, separators=(",", ":"))
    return result.model_copy(update={"content": [TextContent(type="text", text=text)]})


def _tool(spec: ToolSpec) -> Tool:
    return Tool.from_function(
        spec.fn,
        name=spec.name,
        title=spec.title,
        description=" ".join((spec.fn.__doc__ or "").split()),  # one paragraph, unwrapped
        annotations=ToolAnnotations(
            title=spec.title,
            read_only_hint=spec.read_only,
            destructive_hint=spec.destructive,
            idempotent_hint=spec.idempotent,
            open_world_hint=False,
        ),
    )


def build_server(memory: Memory, key_source: KeySource) -> MemoryServer:
    """A server whose tools call ``memory`` as the caller ``key_source`` names."""
    return MemoryServer([_tool(spec) for spec in tool_specs(ToolEnv(memory, key_source))])
