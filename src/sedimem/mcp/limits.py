"""The bounds every MCP tool argument is held to, stated once.

They are at most the facade's own bounds (a call the schema admits is never refused for size
by a lower layer, except for byte limits that depend on the server's settings) and small
enough that one tool call cannot ask the server for unbounded work.
"""

from __future__ import annotations

__all__ = [
    "MAX_BASELINE_DAYS",
    "MAX_BUDGET_TOKENS",
    "MAX_CHECKPOINT_DESCRIPTION_CHARS",
    "MAX_DESCRIPTION_CHARS",
    "MAX_DETAILS_CHARS",
    "MAX_ID_CHARS",
    "MAX_ITEMS",
    "MAX_ITEM_CHARS",
    "MAX_K",
    "MAX_KEY_CHARS",
    "MAX_LABEL_CHARS",
    "MAX_METADATA_KEYS",
    "MAX_QUERY_CHARS",
    "MAX_SCOPE_CHARS",
    "MAX_SCRATCHPAD_CHARS",
    "MAX_SCRATCHPAD_SHOWN",
    "MAX_STATEMENT_CHARS",
    "MAX_TASK_TYPES",
    "MAX_TRANSCRIPT_CHARS",
    "MAX_TTL_SECONDS",
]

MAX_SCOPE_CHARS = 128  # project, user, agent_type, agent, session (as Scope allows)
MAX_QUERY_CHARS = 10_000  # as the long-term services' check_query
MAX_K = 100
MAX_BUDGET_TOKENS = 200_000
MAX_TTL_SECONDS = 365 * 24 * 3600  # as working memory allows
MAX_KEY_CHARS = 256  # as working memory allows
MAX_ID_CHARS = 64  # record and checkpoint ids
MAX_LABEL_CHARS = 256  # task type, procedure name, subject, predicate
MAX_DESCRIPTION_CHARS = 20_000  # an episode's description, a procedure's trigger
MAX_STATEMENT_CHARS = 10_000  # a fact's statement and object
MAX_DETAILS_CHARS = 10_000  # outcome details, context summary
MAX_TRANSCRIPT_CHARS = 50_000  # an episode's input or output text
MAX_ITEM_CHARS = 2_000  # one action, lesson or step
MAX_ITEMS = 100  # actions, lessons, steps, source episode ids
MAX_METADATA_KEYS = 50
MAX_SCRATCHPAD_CHARS = 65_536  # the server's byte limit (default 64 KiB) also applies
MAX_SCRATCHPAD_SHOWN = 1_000
MAX_CHECKPOINT_DESCRIPTION_CHARS = 1_024  # as working memory allows
MAX_TASK_TYPES = 20
MAX_BASELINE_DAYS = 36_500.0  # as reflection allows
