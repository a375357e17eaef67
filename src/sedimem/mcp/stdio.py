"""MCP over stdio: one caller per process, speaking as one API key."""

from __future__ import annotations

from sedimem.keys import ApiKey
from sedimem.mcp.access import fixed_key
from sedimem.mcp.server import build_server
from sedimem.memory import Memory

__all__ = ["run_stdio"]


async def run_stdio(memory: Memory, key: ApiKey) -> None:
    """Serve MCP on stdin/stdout until the client closes it; every call is scoped by ``key``.

    Nothing else may write to stdout meanwhile (the SDK points fd 1 at stderr while serving,
    so stray prints and child processes cannot corrupt the protocol).
    """
    await build_server(memory, fixed_key(key)).run_stdio_async()
