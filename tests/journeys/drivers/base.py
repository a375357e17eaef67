"""The driver protocol the journeys are written against, once for every interface.

A journey speaks of *who* acts (:class:`Who`: a user and/or an agent, optionally in one
session) and of what a user of sedimem does: start a session, write working memory, learn a
fact, record an episode, pause, resume, fork, terminate, assemble a context, recall, run
consolidation, export and import, restart the process. Each driver maps these onto one
interface (the Python facade, REST against a real ``sedimem serve`` process, an MCP client
session over streamable HTTP) and translates results into plain JSON-like data, so the same
assertions hold for all three.

Where an interface has no operation of its own for a step, its driver says so in the method
and uses the nearest real path (never a fake): see each driver's module docstring.
"""

from __future__ import annotations

import abc
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal, Self

__all__ = ["MISSING", "Driver", "Learned", "Refused", "Tier", "Who"]

Tier = Literal["episodes", "facts", "procedures"]
TIERS: tuple[Tier, ...] = ("episodes", "facts", "procedures")

#: What ``get`` returns for a key the session does not hold.
MISSING: Any = type("Missing", (), {"__repr__": lambda self: "MISSING"})()


class Refused(Exception):
    """The interface refused the operation: REST 403/404/409, an MCP error result, or our
    ``PermissionDenied`` / ``NotFound`` / ``Conflict`` in Python. ``status`` is the HTTP
    status or the error's class name; ``message`` what the caller was told."""

    def __init__(self, status: int | str, message: str) -> None:
        super().__init__(f"{status}: {message}")
        self.status = status
        self.message = message


@dataclass(frozen=True, slots=True)
class Who:
    """Who acts: the scope fields below the tenant (the driver holds the tenant, from its key).

    ``session`` set: one session of that owner (working memory, lifecycle); unset: the owner
    itself, as a long-term memory's home or a query across all its sessions.
    """

    user: str | None = None
    agent_type: str | None = None
    agent: str | None = None
    project: str | None = None
    session: str | None = None

    def in_session(self, session: str) -> Who:
        return replace(self, session=session)

    @property
    def owner(self) -> Who:
        return replace(self, session=None)

    def fields(self, *, session: bool = True) -> dict[str, str]:
        """The fields that are set, as request parameters."""
        names = ("project", "user", "agent_type", "agent") + (("session",) if session else ())
        return {n: v for n in names if (v := getattr(self, n)) is not None}


@dataclass(frozen=True, slots=True)
class Learned:
    """What learning a fact did, as every interface reports it."""

    action: str  # inserted | reinforced | superseded
    id: str
    superseded: tuple[str, ...] = ()  # ids of the facts it retired
    possible_conflicts: tuple[str, ...] = ()  # ids of current facts it may contradict


class Driver(abc.ABC):
    """One interface on one backend, acting for one tenant."""

    interface: str
    backend: str
    tenant: str

    # -- working memory and lifecycle -----------------------------------------------------

    @abc.abstractmethod
    async def spawn(
        self, who: Who, state: dict[str, Any] | None = None, *, task_id: str | None = None
    ) -> None:
        """Start a session: a task in progress and the initial keys."""

    @abc.abstractmethod
    async def set(self, who: Who, key: str, value: Any) -> None: ...

    @abc.abstractmethod
    async def get(self, who: Who, key: str) -> Any:
        """The key's value, or :data:`MISSING`."""

    @abc.abstractmethod
    async def note(self, who: Who, text: str) -> None:
        """Append to the session's scratchpad."""

    @abc.abstractmethod
    async def notes(self, who: Who) -> list[str]:
        """The scratchpad, oldest first."""

    @abc.abstractmethod
    async def task_status(self, who: Who) -> str | None:
        """The session's task status (``in_progress``, ``paused``...), None without one."""

    @abc.abstractmethod
    async def checkpoint(self, who: Who, description: str = "") -> str: ...

    @abc.abstractmethod
    async def checkpoints(self, who: Who) -> list[str]:
        """The session's checkpoint ids, oldest first."""

    @abc.abstractmethod
    async def pause(self, who: Who) -> str:
        """Checkpoint the session and mark its task paused; the checkpoint's id."""

    @abc.abstractmethod
    async def resume(self, who: Who, checkpoint: str | None = None) -> None:
        """Restore a checkpoint (the latest when none is named)."""

    @abc.abstractmethod
    async def fork(self, who: Who, checkpoint: str, new_session: str) -> Who:
        """A new session of the same owner from a checkpoint of ``who``'s session."""

    @abc.abstractmethod
    async def terminate(
        self,
        who: Who,
        outcome: str,
        *,
        lessons: Sequence[str] = (),
        task_description: str | None = None,
        task_type: str | None = None,
    ) -> dict[str, Any] | None:
        """End the session: its episode (JSON), or None when none was recorded."""

    # -- long-term memory -------------------------------------------------------------------

    @abc.abstractmethod
    async def learn(
        self,
        who: Who,
        statement: str,
        *,
        subject: str | None = None,
        predicate: str | None = None,
        object: str | None = None,
        cardinality: str | None = None,
    ) -> Learned: ...

    @abc.abstractmethod
    async def ingest(self, who: Who, messages: Sequence[dict[str, Any]]) -> dict[str, Any]:
        """Chat turns in (``memory.ingest``); what was stored, skipped and learned."""

    @abc.abstractmethod
    async def record_episode(
        self,
        who: Who,
        description: str,
        *,
        outcome: str = "success",
        lessons: Sequence[str] = (),
        actions: Sequence[str] = (),
        task_type: str | None = None,
    ) -> str:
        """Record an episode directly (not through a session); its id."""

    @abc.abstractmethod
    async def declare_single_valued(self, predicates: Sequence[str]) -> None:
        """Declare, for the tenant, predicates that hold one value at a time."""

    @abc.abstractmethod
    async def correct_fact(
        self, fact_id: str, *, statement: str, object: str | None = None
    ) -> Learned:
        """Correct a current fact by id (a new version; the old one kept as history)."""

    @abc.abstractmethod
    async def invalidate_fact(self, fact_id: str) -> None:
        """Stop believing a fact (kept as history)."""

    @abc.abstractmethod
    async def delete(self, tier: Tier, record_id: str) -> None:
        """Delete one record by id (raises :class:`Refused` when it is not this tenant's)."""

    @abc.abstractmethod
    async def put_block(self, who: Who, name: str, content: str) -> None:
        """Create or replace a pinned block of ``who`` (a user or an agent)."""

    @abc.abstractmethod
    async def append_block(self, who: Who, name: str, text: str) -> None: ...

    @abc.abstractmethod
    async def stats(self, who: Who) -> dict[str, int]:
        """How many ``episodes``, ``facts`` and ``procedures`` the scope counts."""

    @abc.abstractmethod
    async def get_fact(self, fact_id: str) -> dict[str, Any]:
        """One fact by id (raises :class:`Refused` when absent or out of reach)."""

    @abc.abstractmethod
    async def read(self, record_id: str) -> dict[str, Any]:
        """One episode, fact or procedure whole, by its id or its handle (what a context's
        ``(id ...)`` shows): ``{"kind", "id", "record"}`` (raises :class:`Refused` when
        absent or out of reach)."""

    @abc.abstractmethod
    async def history(self, who: Who, subject: str, predicate: str) -> list[dict[str, Any]]:
        """The versions of a subject's predicate believed now, in world-time order, each
        with its valid interval (``valid_from``, ``valid_to``)."""

    @abc.abstractmethod
    async def recall(
        self,
        who: Who,
        query: str,
        tiers: Sequence[Tier] = TIERS,
        *,
        outcome: str | None = None,
        from_session: str | None = None,
    ) -> dict[Tier, list[dict[str, Any]]]:
        """Hits per tier (hybrid search), best first; each ``{"record": {...}, "explain":
        {...}}``, the explanation saying whether the keyword and vector lists found it.
        A read from a session sees every session of its owner; ``from_session`` asks for
        the memories recorded in that one session only."""

    @abc.abstractmethod
    async def procedures(self, who: Who, task: str) -> list[dict[str, Any]]:
        """Procedures matching a task, best first."""

    @abc.abstractmethod
    async def assemble(self, who: Who, query: str, budget_tokens: int = 3000) -> str:
        """The assembled context's text (markdown)."""

    # -- operations ------------------------------------------------------------------------

    @abc.abstractmethod
    async def consolidate(
        self, jobs: Sequence[str], *, idle_after_seconds: float | None = None
    ) -> None:
        """Run consolidation jobs for the tenant; per job, what it changed.

        ``idle_after_seconds``: the idle threshold of the ``sessions`` job (a session
        unwritten that long is taken as ended), as a consolidation worker would be set up.
        """

    @abc.abstractmethod
    async def export(self, user: str) -> str:
        """The user's records as JSON Lines."""

    @abc.abstractmethod
    async def import_(self, lines: str) -> dict[str, int]:
        """JSON Lines of an export into this driver's tenant; counts per kind."""

    @abc.abstractmethod
    async def restart(self) -> None:
        """Stop the process that holds the memory and start it again on the same stores."""

    @abc.abstractmethod
    async def narrowed(self, *, user: str) -> Driver:
        """The same interface and process, acting with a new key narrowed to ``user``
        (closed with this driver)."""

    @abc.abstractmethod
    async def stranger(self) -> Driver:
        """The same interface and process acting for another tenant (closed with this
        driver)."""

    @abc.abstractmethod
    async def fresh(self) -> Driver:
        """The same interface on new, empty stores (a new server process where there is
        one), for the same tenant; the caller closes it."""

    @abc.abstractmethod
    async def aclose(self) -> None:
        """Release what the driver opened (clients, the facade, servers of its own)."""

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()
