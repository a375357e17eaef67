"""Identifiers: UUIDv7, unique and sortable by creation time, and their short handles.

A handle is how a record is named in text a model reads (a passage of a long episode in an
assembled context ends with ``(id <handle>)``): the last :data:`HANDLE_LENGTH` characters
of a 36-character id, which a UUIDv7 fills with random bits. A whole id costs ~25 tokens
of a context's budget, a handle ~7. Every read by id also takes the handle
(``episodes.get``, ``GET /v1/episodes/{id}``, MCP ``read_memory``); two of a tenant's
records share a handle about once in 10^12 pairs, and such a read is refused with both ids.
Ids of another length (given by a caller) are their own handle.
"""

from __future__ import annotations

import re

import uuid_utils

__all__ = ["HANDLE_LENGTH", "ID_LENGTH", "handle", "has_handle", "is_handle", "new_id"]

#: The length of an id sedimem makes (a UUID in text), the only kind shortened to a handle.
ID_LENGTH = 36
#: Characters of an id kept in its handle (40 bits, most of them random in a UUIDv7).
HANDLE_LENGTH = 10

_HANDLE = re.compile(f"[0-9a-f]{{{HANDLE_LENGTH}}}")


def new_id() -> str:
    """A new UUIDv7 as text; later ids sort after earlier ones."""
    return str(uuid_utils.uuid7())


def handle(record_id: str) -> str:
    """How ``record_id`` is named in text a model reads: its last :data:`HANDLE_LENGTH`
    characters when it has :data:`ID_LENGTH` (the ids sedimem makes), else the id itself."""
    return record_id[-HANDLE_LENGTH:] if len(record_id) == ID_LENGTH else record_id


def is_handle(text: str) -> bool:
    """Whether ``text`` can be a handle of a sedimem-made id (lowercase hex digits)."""
    return _HANDLE.fullmatch(text) is not None


def has_handle(record_id: str, text: str) -> bool:
    """Whether ``text`` is the handle of ``record_id``, a sedimem-made id (what a store's
    lookup by handle matches: a caller's id of another length is only read whole)."""
    return len(record_id) == ID_LENGTH and record_id.endswith(text) and is_handle(text)
