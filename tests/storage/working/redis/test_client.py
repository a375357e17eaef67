"""Which failures of the Redis client count as "unavailable"."""

from __future__ import annotations

import asyncio

import pytest

from sedimem.storage.working.redis.client import torn_down


def test_a_stream_closed_under_a_command_counts_as_torn_down() -> None:
    # What redis-py raises when its Cluster client closed the connection mid-command.
    writer: asyncio.StreamWriter | None = None
    with pytest.raises(AttributeError) as caught:
        writer.writelines([b"PING"])  # type: ignore[union-attr]
    assert torn_down(caught.value)


def test_other_attribute_errors_are_bugs_not_outages() -> None:
    assert not torn_down(AttributeError("'Store' object has no attribute 'ping'"))
    assert not torn_down(ValueError("'NoneType' object"))
