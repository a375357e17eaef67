"""Clients of OpenAI-compatible HTTP endpoints (embeddings, chat completions)."""
