"""The MCP interface: memstrata's tools over stdio and streamable HTTP (``memstrata[mcp]``).

- :func:`run_stdio` serves one caller on stdin/stdout (``memstrata mcp``);
- :func:`create_http_app` gives the ``/mcp`` endpoint the REST server mounts
  (``memstrata serve``), authenticating every request by its bearer API key.

Every tool call is scoped by an API key: the tenant comes from the key, and scope fields in
the call (project, user, agent_type, agent, session) narrow it within the key's limits.
See docs/mcp.md for the tools and their arguments.
"""

from memstrata.mcp.http import MCP_PATH, McpHttpApp, create_http_app
from memstrata.mcp.server import MemoryServer, build_server
from memstrata.mcp.stdio import run_stdio
from memstrata.mcp.tools import TOOL_NAMES

__all__ = [
    "MCP_PATH",
    "TOOL_NAMES",
    "McpHttpApp",
    "MemoryServer",
    "build_server",
    "create_http_app",
    "run_stdio",
]
