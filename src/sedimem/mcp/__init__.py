"""The MCP interface: sedimem's tools over stdio and streamable HTTP (``sedimem[mcp]``).

- :func:`run_stdio` serves one caller on stdin/stdout (``sedimem mcp``);
- :func:`create_http_app` gives the ``/mcp`` endpoint the REST server mounts
  (``sedimem serve``), authenticating every request by its bearer API key.

Every tool call is scoped by an API key: the tenant comes from the key, and scope fields in
the call (project, user, agent_type, agent, session) narrow it within the key's limits.
See docs/mcp.md for the tools and their arguments.
"""

from sedimem.mcp.http import MCP_PATH, McpHttpApp, create_http_app
from sedimem.mcp.server import MemoryServer, build_server
from sedimem.mcp.stdio import run_stdio
from sedimem.mcp.tools import TOOL_NAMES

__all__ = [
    "MCP_PATH",
    "TOOL_NAMES",
    "McpHttpApp",
    "MemoryServer",
    "build_server",
    "create_http_app",
    "run_stdio",
]
