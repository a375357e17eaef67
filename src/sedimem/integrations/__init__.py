"""Adapters that put sedimem where agents already live: LangGraph and the OpenAI Agents SDK.

Each adapter is an interface over the ``Memory`` facade, like the REST API and MCP server.
The frameworks are optional (``sedimem[langgraph]``, ``sedimem[openai-agents]``): nothing
here is imported by ``import sedimem``; import the submodule you need.
"""
