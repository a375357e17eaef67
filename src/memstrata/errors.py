"""The one exception hierarchy of memstrata.

Every error memstrata raises on purpose is a :class:`MemstrataError`. Foreign exceptions
(driver, network, JSON) are translated where they cross into our code, with the original
kept as ``__cause__``::

    MemstrataError
    ├── ValidationError          bad input: names the field and what is allowed
    │   └── LimitExceeded        a configured capacity would be exceeded (keys, size)
    ├── NotFound                 the addressed thing does not exist (or is another tenant's)
    ├── Conflict                 the request contradicts stored state
    ├── PermissionDenied         outside the caller's tenant narrowing
    ├── ConfigurationError       settings or wiring are wrong (bad URL, embedder mismatch)
    └── StoreError               a backing store failed (I/O, connection, protocol)
        └── StoreUnavailable     the store cannot be reached at all
"""

from __future__ import annotations

__all__ = [
    "Conflict",
    "ConfigurationError",
    "LimitExceeded",
    "MemstrataError",
    "NotFound",
    "PermissionDenied",
    "StoreError",
    "StoreUnavailable",
    "ValidationError",
]


class MemstrataError(Exception):
    """Base class of every error raised by memstrata."""


class ValidationError(MemstrataError, ValueError):
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


class NotFound(MemstrataError, LookupError):
    """The addressed record does not exist for this caller."""


class Conflict(MemstrataError):
    """The request contradicts the stored state."""


class PermissionDenied(MemstrataError):
    """The request lies outside what the caller's credential allows."""


class ConfigurationError(MemstrataError):
    """Settings or wiring are invalid."""


class StoreError(MemstrataError):
    """A backing store failed while serving a request."""


class StoreUnavailable(StoreError):
    """A backing store cannot be reached."""
