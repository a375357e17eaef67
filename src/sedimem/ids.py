"""Identifiers: UUIDv7, unique and sortable by creation time."""

from __future__ import annotations

import uuid_utils

__all__ = ["new_id"]


def new_id() -> str:
    """A new UUIDv7 as text; later ids sort after earlier ones."""
    return str(uuid_utils.uuid7())
