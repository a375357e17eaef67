"""The journeys through the Python API: the :class:`~sedimem.memory.Memory` facade.

- "Restart" closes the facade and opens a new one on the same stores: the embedded process
  holding the memory ends and a new one starts, as an agent's process would.
- Keys are an interface's notion; :meth:`PythonDriver.narrowed` issues a real key
  (``memory.keys``) and builds every scope with the key's own rule (``ApiKey.narrow``),
  which is what REST and MCP apply to each request; a record read by id is read with the
  key's scope, so the service refuses one outside it.
- The ``sessions`` job's idle threshold is a setting of the process that runs the job
  (``working.session_ttl_seconds``: half of it, at most an hour); :meth:`consolidate` with
  ``idle_after_seconds`` runs the job from a second facade on the same stores set up so, as
  a consolidation worker process would be.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from sedimem.access import Access
from sedimem.config import Settings, WorkingSettings
from sedimem.errors import Conflict, NotFound, PermissionDenied
from sedimem.keys import ApiKey
from sedimem.memory import Memory, record_kind
from sedimem.scope import Scope
from sedimem.types.edits import FactChanges
from sedimem.types.longterm import Episode, Fact, LearnResult, Outcome
from tests.journeys.backends import Stores, StoreUrls
from tests.journeys.drivers.base import MISSING, TIERS, Driver, Learned, Refused, Tier, Who

__all__ = ["PythonDriver"]


@contextmanager
def _refusals() -> Iterator[None]:
    try:
        yield
    except (PermissionDenied, NotFound, Conflict) as exc:
        raise Refused(type(exc).__name__, str(exc)) from exc


def _learned(result: LearnResult) -> Learned:
    return Learned(
        action=result.action,
        id=result.fact.id,
        superseded=tuple(result.superseded),
        possible_conflicts=tuple(f.id for f in result.possible_conflicts),
    )


def _json(model: Any) -> dict[str, Any]:
    data: dict[str, Any] = model.model_dump(mode="json")
    return data


class PythonDriver(Driver):
    interface = "python"

    def __init__(
        self, stores: Stores, urls: StoreUrls, tenant: str, *, key: ApiKey | None = None
    ) -> None:
        self.backend = stores.backend
        self.tenant = tenant
        self._stores = stores
        self._urls = urls
        self._key = key
        self._memory: Memory | None = None
        self._children: list[PythonDriver] = []

    @property
    def memory(self) -> Memory:
        assert self._memory is not None, "the driver is not open"
        return self._memory

    async def open(self) -> PythonDriver:
        self._memory = await Memory.open(working=self._urls.working, store=self._urls.store)
        return self

    async def aclose(self) -> None:
        for child in self._children:
            await child.aclose()
        if self._memory is not None:
            await self._memory.aclose()
            self._memory = None

    def _scope(self, who: Who) -> Scope:
        if self._key is None:
            return Scope(tenant=self.tenant, **who.fields())
        with _refusals():
            return self._key.narrow(**who.fields())

    # -- working memory and lifecycle -----------------------------------------------------

    async def spawn(
        self, who: Who, state: dict[str, Any] | None = None, *, task_id: str | None = None
    ) -> None:
        await self.memory.lifecycle.spawn(self._scope(who), state, task_id=task_id)

    async def set(self, who: Who, key: str, value: Any) -> None:
        await self.memory.working(self._scope(who)).set(key, value)

    async def get(self, who: Who, key: str) -> Any:
        return await self.memory.working(self._scope(who)).get(key, MISSING)

    async def note(self, who: Who, text: str) -> None:
        await self.memory.working(self._scope(who)).append_scratchpad(text)

    async def notes(self, who: Who) -> list[str]:
        return await self.memory.working(self._scope(who)).get_scratchpad()

    async def task_status(self, who: Who) -> str | None:
        state = await self.memory.working(self._scope(who)).get_task_state()
        return None if state is None else state.status.value

    async def checkpoint(self, who: Who, description: str = "") -> str:
        return await self.memory.working(self._scope(who)).create_checkpoint(description)

    async def checkpoints(self, who: Who) -> list[str]:
        return [c.id for c in await self.memory.working(self._scope(who)).list_checkpoints()]

    async def pause(self, who: Who) -> str:
        result = await self.memory.lifecycle.pause(self._scope(who))
        assert result.checkpoint_id is not None
        return result.checkpoint_id

    async def resume(self, who: Who, checkpoint: str | None = None) -> None:
        await self.memory.lifecycle.resume(self._scope(who), checkpoint)

    async def fork(self, who: Who, checkpoint: str, new_session: str) -> Who:
        forked = await self.memory.working(self._scope(who)).fork(checkpoint, new_session)
        assert forked.scope.session == new_session
        return who.in_session(new_session)

    async def terminate(
        self,
        who: Who,
        outcome: str,
        *,
        lessons: Sequence[str] = (),
        task_description: str | None = None,
        task_type: str | None = None,
    ) -> dict[str, Any] | None:
        extra = {} if task_type is None else {"task_type": task_type}
        result = await self.memory.lifecycle.terminate(
            self._scope(who), outcome, task_description, list(lessons), **extra
        )
        return None if result.episode is None else _json(result.episode)

    # -- long-term memory -------------------------------------------------------------------

    async def learn(
        self,
        who: Who,
        statement: str,
        *,
        subject: str | None = None,
        predicate: str | None = None,
        object: str | None = None,
        cardinality: str | None = None,
    ) -> Learned:
        extra = {} if cardinality is None else {"cardinality": cardinality}
        fact = Fact(
            scope=self._scope(who),
            statement=statement,
            subject=subject,
            predicate=predicate,
            object=object,
            **extra,
        )
        with _refusals():
            result = await self.memory.facts.learn(fact)
        return _learned(result)

    async def ingest(self, who: Who, messages: Sequence[dict[str, Any]]) -> dict[str, Any]:
        result = await self.memory.ingest(messages, self._scope(who))
        return result.model_dump(mode="json")

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
        episode = Episode(
            scope=self._scope(who),
            description=description,
            outcome=Outcome(outcome),
            lessons_learned=list(lessons),
            actions=list(actions),
            task_type=task_type or "general",
        )
        return (await self.memory.episodes.record(episode)).id

    async def declare_single_valued(self, predicates: Sequence[str]) -> None:
        with _refusals():
            await self.memory.facts.declare(list(predicates), "one", scope=self._scope(Who()))

    async def correct_fact(
        self, fact_id: str, *, statement: str, object: str | None = None
    ) -> Learned:
        changes = FactChanges(statement=statement, object=object)
        with _refusals():
            return _learned(
                await self.memory.facts.correct(fact_id, changes, scope=self._scope(Who()))
            )

    async def invalidate_fact(self, fact_id: str) -> None:
        with _refusals():
            await self.memory.facts.invalidate(fact_id, scope=self._scope(Who()))

    async def delete(self, tier: Tier, record_id: str) -> None:
        services = {
            "episodes": self.memory.episodes,
            "facts": self.memory.facts,
            "procedures": self.memory.procedures,
        }
        with _refusals():
            if not await services[tier].delete(record_id, scope=self._scope(Who())):
                raise NotFound(f"{tier} {record_id!r} does not exist")

    async def put_block(self, who: Who, name: str, content: str) -> None:
        await self.memory.blocks(self._scope(who)).update(name, content)

    async def append_block(self, who: Who, name: str, text: str) -> None:
        await self.memory.blocks(self._scope(who)).append(name, text)

    async def stats(self, who: Who) -> dict[str, int]:
        counted = await self.memory.stats(self._scope(who))
        return {
            "episodes": counted.episodes,
            "facts": counted.facts,
            "procedures": counted.procedures,
        }

    async def get_fact(self, fact_id: str) -> dict[str, Any]:
        with _refusals():
            fact = await self.memory.facts.get(fact_id, scope=self._scope(Who()))
        return _json(fact)

    async def read(self, record_id: str) -> dict[str, Any]:
        with _refusals():
            record = await self.memory.read(record_id, self._scope(Who()))
        return {"kind": record_kind(record), "id": record.id, "record": _json(record)}

    async def history(self, who: Who, subject: str, predicate: str) -> list[dict[str, Any]]:
        facts = await self.memory.facts.history(subject, predicate, scope=self._scope(who))
        return [_json(f) for f in facts]

    async def recall(
        self,
        who: Who,
        query: str,
        tiers: Sequence[Tier] = TIERS,
        *,
        outcome: str | None = None,
        from_session: str | None = None,
    ) -> dict[Tier, list[dict[str, Any]]]:
        scope = self._scope(who)
        only = {} if from_session is None else {"session": from_session}
        found: dict[Tier, list[Any]] = {}
        if "episodes" in tiers:
            found["episodes"] = await self.memory.episodes.recall(
                query, scope=scope, outcome=outcome, **only
            )
        if "facts" in tiers:
            found["facts"] = await self.memory.facts.recall(query, scope=scope, **only)
        if "procedures" in tiers:
            found["procedures"] = await self.memory.procedures.find_matching(
                query, scope=scope, **only
            )
        return {
            tier: [{"record": _json(h.record), "explain": _json(h.explain)} for h in hits]
            for tier, hits in found.items()
        }

    async def procedures(self, who: Who, task: str) -> list[dict[str, Any]]:
        hits = await self.memory.procedures.find_matching(task, scope=self._scope(who))
        return [_json(h.record) for h in hits]

    async def assemble(self, who: Who, query: str, budget_tokens: int = 3000) -> str:
        return (await self.memory.assemble(query, self._scope(who), budget_tokens)).text

    # -- operations ------------------------------------------------------------------------

    async def consolidate(
        self, jobs: Sequence[str], *, idle_after_seconds: float | None = None
    ) -> None:
        if idle_after_seconds is None:
            report = await self.memory.consolidate(Access.local(self.tenant), jobs=jobs)
        else:
            settings = Settings(working=WorkingSettings(session_ttl_seconds=2 * idle_after_seconds))
            async with await Memory.open(
                working=self._urls.working, store=self._urls.store, settings=settings
            ) as worker:
                report = await worker.consolidate(Access.local(self.tenant), jobs=jobs)
        assert all(job.status == "ok" for job in report.jobs), report

    async def export(self, user: str) -> str:
        return "".join(
            [line + "\n" async for line in self.memory.export(Access.local(self.tenant), user)]
        )

    async def import_(self, lines: str) -> dict[str, int]:
        counts = await self.memory.import_(Access.local(self.tenant), lines.splitlines())
        return {f"{kind}s": n for kind, n in counts.items()}  # keyed by kind: "episode"...

    async def restart(self) -> None:
        await self.memory.aclose()
        self._memory = None
        await self.open()

    async def narrowed(self, *, user: str) -> Driver:
        issued = await self.memory.keys.create(self.tenant, user=user)
        child = await PythonDriver(self._stores, self._urls, self.tenant, key=issued.key).open()
        self._children.append(child)
        return child

    async def stranger(self) -> Driver:
        tenant = f"{self.tenant}-stranger"
        child = await PythonDriver(self._stores, self._urls, tenant).open()
        self._children.append(child)
        return child

    async def fresh(self) -> Driver:
        return await PythonDriver(self._stores, self._stores.new(), self.tenant).open()
