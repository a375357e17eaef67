"""Every size and range limit of sedimem's input, stated once.

The records (:mod:`sedimem.types`) and the services enforce these; the REST schemas and the
MCP tool schemas publish them by reusing the records' fields and the aliases of
:mod:`sedimem.types.fields`, never by restating a number. A limit that depends on the
server's settings (the request body size, the page size cap) is not here: it is a setting.
"""

from __future__ import annotations

__all__ = [
    "KEPT_SESSION_TTL_SECONDS",
    "FUTURE_TOLERANCE_SECONDS",
    "MAX_ACTIONS",
    "MAX_BASELINE_DAYS",
    "MAX_BLOCK_CHARS",
    "MAX_BLOCK_NAME_CHARS",
    "MAX_BLOCK_POSITION",
    "MAX_BUDGET_TOKENS",
    "MAX_CHECKPOINT_DESCRIPTION_CHARS",
    "MAX_COUNT",
    "MAX_DECLARED_PREDICATES",
    "MAX_DURATION_SECONDS",
    "MAX_EPISODE_PAGE",
    "MAX_DOCUMENT_BYTES",
    "MAX_ID_CHARS",
    "MAX_JSON_DEPTH",
    "MAX_K",
    "MAX_KEY_CHARS",
    "MAX_KEY_LABEL_CHARS",
    "MAX_LABEL_CHARS",
    "MAX_LISTING",
    "MAX_MESSAGES",
    "MAX_MESSAGE_CHARS",
    "MAX_MESSAGE_ID_CHARS",
    "MAX_METADATA_BYTES",
    "MAX_OBJECT_CHARS",
    "MAX_PREDICATES_PER_CALL",
    "MAX_PROCEDURE_USES",
    "MAX_PROFILE_SAMPLE",
    "MAX_QUERY_CHARS",
    "MAX_QUOTA",
    "MAX_RUNS",
    "MAX_SCOPE_CHARS",
    "MAX_SEPARATOR_CHARS",
    "MAX_SOURCE_IDS",
    "MAX_STEPS",
    "MAX_TASK_TYPES",
    "MAX_TERMINATE_LESSONS",
    "MAX_TEXT_CHARS",
    "MAX_TOKENS_USED",
    "MAX_TTL_SECONDS",
]

# -- text ------------------------------------------------------------------------------------

#: The body of a memory (an episode's description, a fact's statement, a step...).
MAX_TEXT_CHARS = 100_000
#: A short name: task type, subject, predicate, procedure name, task id.
MAX_LABEL_CHARS = 256
#: A fact's object.
MAX_OBJECT_CHARS = 10_000
#: A record's, checkpoint's, job's or key's id.
MAX_ID_CHARS = 64
#: A scope field: project, user, agent type, agent, session, tenant.
MAX_SCOPE_CHARS = 128
#: A search query or a task description to match.
MAX_QUERY_CHARS = 10_000

# -- free-form JSON (metadata, working-memory values, documents) ------------------------------

#: How deep a JSON value may nest (an object or a list is one level; ``{"a": [1]}`` is 2).
#: Deeper values cannot be read back by every JSON library on the way (pydantic's parser
#: stops near 200 levels, its serializer sooner), so they are refused on write.
MAX_JSON_DEPTH = 64
#: A record's ``metadata`` (episode, fact, procedure, task state), encoded as UTF-8 JSON.
MAX_METADATA_BYTES = 64 * 1024
#: A keyed document's value (a LangGraph store item), encoded as UTF-8 JSON.
MAX_DOCUMENT_BYTES = 1024 * 1024

# -- lists -----------------------------------------------------------------------------------

#: An episode's actions, or its lessons learned.
MAX_ACTIONS = 10_000
#: The episode ids a fact is derived from.
MAX_SOURCE_IDS = 10_000
#: A procedure's steps.
MAX_STEPS = 1000
#: The lessons a session's termination records.
MAX_TERMINATE_LESSONS = 1000

# -- numbers ---------------------------------------------------------------------------------

#: Hits per tier of one search.
MAX_K = 1000
#: A context's token budget.
MAX_BUDGET_TOKENS = 1_000_000
#: A tier's relative quota share in a context request.
MAX_QUOTA = 1e6
#: How long an episode took, in seconds.
MAX_DURATION_SECONDS = 1e10
#: Tokens an episode or a session used.
MAX_TOKENS_USED = 10**15
#: A step counter of a task.
MAX_COUNT = 1_000_000_000
#: A catalogue page (current facts, procedures).
MAX_LISTING = 500
#: A page of episodes (the server's page size setting may lower it).
MAX_EPISODE_PAGE = 1000
#: Consolidation runs one listing returns.
MAX_RUNS = 1000
#: Facts a scope's profile samples.
MAX_PROFILE_SAMPLE = 100
#: Uses of a procedure kept with their time and outcome (``metadata["uses"]``, newest last).
MAX_PROCEDURE_USES = 100

# -- working memory --------------------------------------------------------------------------

#: A working-memory key.
MAX_KEY_CHARS = 256
#: A key's own time to live: one year.
MAX_TTL_SECONDS = 365 * 24 * 3600.0
#: A checkpoint's (or a pause's) description.
MAX_CHECKPOINT_DESCRIPTION_CHARS = 1024
#: The idle lifetime of a framework's state (a LangGraph thread, an OpenAI Agents session)
#: given none: a century, that is kept until it is deleted or erased.
KEPT_SESSION_TTL_SECONDS = 100 * 365 * 24 * 3600.0

# -- pinned blocks ---------------------------------------------------------------------------

#: A block's content.
MAX_BLOCK_CHARS = 20_000
#: A block's name.
MAX_BLOCK_NAME_CHARS = 128
#: A block's position in the pinned order.
MAX_BLOCK_POSITION = 1_000_000
#: The separator of an append to a block.
MAX_SEPARATOR_CHARS = 16

# -- conversations ---------------------------------------------------------------------------

#: Messages in one ingest call (split a longer history into calls).
MAX_MESSAGES = 500
#: Characters of one message's content.
MAX_MESSAGE_CHARS = 32_000
#: A message's own id.
MAX_MESSAGE_ID_CHARS = 256
#: How far in the future a message's timestamp may lie (clocks drift); later is refused.
FUTURE_TOLERANCE_SECONDS = 300.0

# -- facts -----------------------------------------------------------------------------------

#: Predicates one declaration may name.
MAX_PREDICATES_PER_CALL = 100
#: Predicates a tenant may declare in all (its declarations are read on every write).
MAX_DECLARED_PREDICATES = 1000

# -- reflection and keys ---------------------------------------------------------------------

#: Task types one reflection names.
MAX_TASK_TYPES = 100
#: The baseline window of a reflection, in days.
MAX_BASELINE_DAYS = 36_500.0
#: An API key's label.
MAX_KEY_LABEL_CHARS = 200
