"""The one exception hierarchy of sedimem.

Every error sedimem raises on purpose is a :class:`SedimemError`. Foreign exceptions
(driver, network, JSON) are translated where they cross into our code, with the original
kept as ``__cause__``::

    SedimemError
    ├── ValidationError          bad input: names the field and what is allowed
    │   └── LimitExceeded        a configured capacity would be exceeded (keys, size)
    ├── NotFound                 the addressed thing does not exist (or is another tenant's)
    ├── Conflict                 the request contradicts stored state
    ├── PermissionDenied         outside the caller's tenant narrowing
    ├── ConfigurationError       settings or wiring are wrong (bad URL, embedder mismatch)
    ├── StoreError               a backing store failed (I/O, connection, protocol)
    │   └── StoreUnavailable     the store cannot be reached at all
    │       └── OutageJournalFull  during an outage, the bounded journal of writes is full
    └── ModelError               a model endpoint (chat, embeddings) gave no usable answer
        ├── ExtractionFailed     an LLM gave no valid answer for an episode after retries
        └── ModelUnavailable     the endpoint cannot be reached, or stayed overloaded

A model endpoint is not a store: its failures say so (REST: 502 ``model-error`` or 503
``model-unavailable``, with ``Retry-After``), and nothing the stores hold is at fault.
"""

from __future__ import annotations

__all__ = [
    "Conflict",
    "ConfigurationError",
    "ExtractionFailed",
    "LimitExceeded",
    "ModelError",
    "ModelUnavailable",
    "SedimemError",
    "NotFound",
    "OutageJournalFull",
    "PermissionDenied",
    "StoreError",
    "StoreUnavailable",
    "ValidationError",
]


class SedimemError(Exception):
    """Base class of every error raised by sedimem."""


class ValidationError(SedimemError, ValueError):
    """Input was rejected before anything was written.

    ``field`` names the offending input and ``allowed`` says what would have been accepted.
    """

    def __init__(self, field: str, message: str, *, allowed: str | None = None) -> None:
        self.field = field
        self.allowed = allowed
        text = f"{field}: {message}"
        if allowed:
            text += f" (allowed: {allowed})"
        super().__init__(text)


class LimitExceeded(ValidationError):
    """A configured capacity (keys per session, value size, ...) would be exceeded."""


class NotFound(SedimemError, LookupError):
    """The addressed record does not exist for this caller."""


class Conflict(SedimemError):
    """The request contradicts the stored state.

    ``field`` names the input that met the conflict, when one did (``fact_id`` of an edit
    of a superseded fact); ``current`` holds the ids of the records to address instead.
    """

    def __init__(
        self, message: str, *, field: str | None = None, current: tuple[str, ...] = ()
    ) -> None:
        self.field = field
        self.current = current
        super().__init__(f"{field}: {message}" if field else message)


class PermissionDenied(SedimemError):
    """The request lies outside what the caller's credential allows.

    ``field`` names what refused it, when one thing did: the narrowing field the request
    went past (``user``, ``project``, ``agent``), ``read_only`` for a write by a read-only
    key, ``admin`` for an operation only the operator may run.
    """

    def __init__(self, message: str, *, field: str | None = None) -> None:
        self.field = field
        super().__init__(f"{field}: {message}" if field else message)


class ConfigurationError(SedimemError):
    """Settings or wiring are invalid."""


class StoreError(SedimemError):
    """A backing store failed while serving a request."""


class ModelError(SedimemError):
    """A model endpoint (an OpenAI-compatible chat or embeddings API) failed: its answer was
    unusable, or it could not be had. ``retry_after`` is when to try again, in seconds, if
    the endpoint said (``Retry-After``) or a retry is worth it at all."""

    def __init__(self, message: str, *, retry_after: float | None = None) -> None:
        self.retry_after = retry_after
        super().__init__(message)


class ExtractionFailed(ModelError):
    """A model's replies for one input were not valid JSON of the expected shape, every
    time it was asked (``attempts``); nothing was extracted from them."""

    def __init__(self, message: str, *, attempts: int, retry_after: float | None = None) -> None:
        self.attempts = attempts
        super().__init__(message, retry_after=retry_after)


class ModelUnavailable(ModelError):
    """A model endpoint could not be reached, or kept answering 429/5xx, after retries."""


class StoreUnavailable(StoreError):
    """A backing store cannot be reached."""


class OutageJournalFull(StoreUnavailable):
    """Redis is unreachable and the fallback's journal of writes has reached its bound.

    The write was refused before anything was written; ``bound`` is the configured
    ``max_journal_entries``.
    """

    def __init__(self, message: str, *, bound: int) -> None:
        self.bound = bound
        super().__init__(message)
