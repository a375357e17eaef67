"""Counts of what an OpenAI-compatible endpoint was asked and answered: requests, retries,
failures, tokens (from the answers' ``usage``) and invalid replies.

An endpoint keeps one :class:`Usage` for its lifetime (what ``/metrics`` exports); a caller
that wants the share of one piece of work (a consolidation job, an ingest) passes a
:class:`Usage` of its own and gets the same counts added to it too.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field, fields
from typing import Protocol, runtime_checkable

__all__ = ["Metered", "Usage"]


@dataclass
class Usage:
    """Running totals; :meth:`add` is safe from several threads."""

    requests: int = 0  # HTTP requests sent, retries included
    retries: int = 0  # requests that were a retry of an earlier one
    failures: int = 0  # calls that failed after their retries (or were refused)
    prompt_tokens: int = 0
    completion_tokens: int = 0
    invalid_replies: int = 0  # chat: replies that were not valid JSON of the schema
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    def add(self, **counts: int) -> None:
        with self._lock:
            for name, n in counts.items():
                setattr(self, name, getattr(self, name) + n)

    def counts(self, prefix: str = "") -> dict[str, int]:
        """The non-zero counts, named ``{prefix}{name}`` (for a job report)."""
        return {
            prefix + f.name: getattr(self, f.name)
            for f in fields(self)
            if not f.name.startswith("_") and getattr(self, f.name)
        }


@runtime_checkable
class Metered(Protocol):
    """A component that calls an endpoint and counts it (``kind``: "chat", "embedding")."""

    @property
    def kind(self) -> str: ...

    @property
    def usage(self) -> Usage: ...
