"""What every tool implementation shares: the memory and the caller's key."""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import UTC, datetime

from sedimem.keys import ApiKey
from sedimem.mcp.access import KeySource
from sedimem.memory import Memory
from sedimem.scope import Scope

__all__ = ["ToolEnv", "time_range"]

_EARLIEST = datetime(1, 1, 2, tzinfo=UTC)
_LATEST = datetime(9999, 12, 30, tzinfo=UTC)


@dataclass(frozen=True, slots=True)
class ToolEnv:
    """The memory every tool calls, and where the current call's API key comes from."""

    memory: Memory
    key_source: KeySource

    def key(self) -> ApiKey:
        return self.key_source()

    def writing(self) -> ToolEnv:
        """The same memory for tools that write: a read-only key is refused there."""
        source = self.key_source

        def writer() -> ApiKey:
            key = source()
            key.access.require_writer("this tool")
            return key

        return replace(self, key_source=writer)

    def scope(
        self,
        *,
        project: str | None = None,
        user: str | None = None,
        agent_type: str | None = None,
        agent: str | None = None,
        session: str | None = None,
    ) -> Scope:
        """The request's scope: the key's tenant and narrowing, then the given fields."""
        return self.key().narrow(
            project=project, user=user, agent_type=agent_type, agent=agent, session=session
        )


def time_range(since: datetime | None, until: datetime | None) -> tuple[datetime, datetime] | None:
    """``(since, until)`` with an open end filled in; ``None`` when both are open."""
    if since is None and until is None:
        return None
    return (since or _EARLIEST, until or _LATEST)
