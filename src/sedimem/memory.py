"""``Memory``: the one facade every interface uses.

It owns the stores it opened (working memory, the long-term store) and the embedder, and
exposes the tiers, the lifecycle and GDPR operations. ``Memory.open()`` with no argument
uses one SQLite file under ``SEDIMEM_HOME`` for everything.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Mapping, Sequence
from datetime import datetime
from types import TracebackType
from typing import Literal, Self

from sedimem import footprint, gdpr, observe
from sedimem.access import LOCAL, Access
from sedimem.assembly import assemble, prepare
from sedimem.blocks import Blocks
from sedimem.clock import Clock, SystemClock, utc_from_timestamp
from sedimem.config import Settings
from sedimem.consolidation import (
    JOBS,
    ConsolidationReport,
    ConsolidationSettings,
    ConsolidationWorker,
    Consolidator,
    Extractor,
    JobReport,
)
from sedimem.context.models import AssembledContext, ContextFormat
from sedimem.context.tokens import Tokenizer
from sedimem.conversation import Conversations
from sedimem.embed.base import Embedder
from sedimem.embed.factory import open_embedder
from sedimem.embed.queries import shared_queries
from sedimem.errors import NotFound
from sedimem.extraction.llm import OpenAIChatExtractor
from sedimem.extraction.rules import RuleExtractor
from sedimem.footprint import Counts, MemoryProfile, MemoryStats, UserCounts
from sedimem.health import MemoryHealth, StoreHealth
from sedimem.keys import API_KEY, ApiKeys
from sedimem.lifecycle import Lifecycle
from sedimem.llm.usage import Metered
from sedimem.longterm import EpisodicMemory, ProceduralMemory, SemanticMemory, records
from sedimem.longterm.arguments import check_text
from sedimem.longterm.catalog import Catalog
from sedimem.longterm.documents import Documents
from sedimem.longterm.oversized import OversizedValue, find_oversized
from sedimem.longterm.service import locate
from sedimem.longterm.stores import open_longterm_store
from sedimem.reflection import Reflection, ReflectionReport
from sedimem.retrieval.fusion import RetrievalSettings
from sedimem.scope import SYSTEM_TENANT, Scope
from sedimem.storage.longterm.base import LongTermStore, RecordFilter
from sedimem.storage.working.base import WorkingStore
from sedimem.storage.working.factory import open_working_store
from sedimem.types.conversation import IngestResult, MessageFields
from sedimem.types.longterm import Episode, Fact, Procedure
from sedimem.working.memory import WorkingMemory

__all__ = [
    "Memory",
    "MemoryHealth",
    "MemoryProfile",
    "MemoryStats",
    "RecordKind",
    "StoreHealth",
    "UserCounts",
    "record_kind",
]

log = logging.getLogger(__name__)

#: The kinds of long-term record addressed by id.
RecordKind = Literal["episode", "fact", "procedure"]
_RECORD_KINDS: dict[str | None, RecordKind] = {
    records.EPISODE: "episode",
    records.FACT: "fact",
    records.PROCEDURE: "procedure",
}


def record_kind(record: Episode | Fact | Procedure) -> RecordKind:
    """The kind of a record :meth:`Memory.read` returned."""
    if isinstance(record, Episode):
        return "episode"
    return "fact" if isinstance(record, Fact) else "procedure"


_SESSION_PAGE = 500


class Memory:
    """Layered memory for one deployment: all tiers, lifecycle and GDPR, behind one object."""

    def __init__(
        self,
        working_store: WorkingStore,
        longterm_store: LongTermStore,
        embedder: Embedder,
        *,
        settings: Settings | None = None,
        retrieval: RetrievalSettings | None = None,
        clock: Clock | None = None,
        tokenizer: Tokenizer | None = None,
        consolidation: ConsolidationSettings | None = None,
        extractor: Extractor | None = None,
    ) -> None:
        self.settings = settings or Settings()
        self._extractor = extractor
        # the components as given (what the properties return; usage counters are read
        # from them)
        self._given = (working_store, longterm_store, embedder)
        self._metered: tuple[object, ...] = (extractor, embedder)
        # every store and embedder call is a span when something observes (sedimem.observe)
        working_store = observe.instrumented(
            working_store, "store", _store_attributes("working", working_store.name)
        )
        longterm_store = observe.instrumented(
            longterm_store, "store", _store_attributes("longterm", longterm_store.name)
        )
        embedder = observe.instrumented(embedder, "embed", {"sedimem.embedder": embedder.name})
        # the tiers of one ``assemble`` ask for the question's vector at once: embedded once
        # (each real embedding still a span)
        embedder = shared_queries(embedder)
        # what ``open`` built for this Memory (an HTTP embedder, an LLM extractor): closed
        # with it
        self._owned: list[Embedder | Extractor] = []
        self._tokenizer = tokenizer
        self._working_store = working_store
        self._longterm = longterm_store
        self._embedder = embedder
        self._clock = clock or SystemClock()
        # given parts win over the settings tree's (tests, benchmarks tune one part)
        retrieval = retrieval or self.settings.retrieval
        consolidation = consolidation or self.settings.consolidation
        self._retrieval = retrieval
        self.episodes = EpisodicMemory(longterm_store, embedder, settings=retrieval, clock=clock)
        self.facts = SemanticMemory(
            longterm_store,
            embedder,
            single_valued=self.settings.facts.single_valued_predicates,
            settings=retrieval,
            clock=clock,
        )
        self.procedures = ProceduralMemory(
            longterm_store, embedder, settings=retrieval, clock=clock
        )
        self.lifecycle = Lifecycle(self.working, longterm_store, embedder, clock=clock)
        self.reflection = Reflection(self.episodes, clock=clock)
        self.keys = ApiKeys(longterm_store, clock=clock)
        # one extractor for both paths: ingest reads new turns with it, the facts job the rest
        extractor = extractor or RuleExtractor(known=self.facts)
        self.conversations = Conversations(
            longterm_store, embedder, self.facts, extractor, clock=clock
        )
        self.catalog = Catalog(longterm_store, clock=clock)
        self.consolidator = Consolidator(
            longterm_store,
            self.episodes,
            self.facts,
            self.procedures,
            settings=consolidation,
            extractor=extractor,
            clock=clock,
            # the sessions job: idle sessions nobody terminated become episodes
            working=working_store,
            working_settings=self.settings.working,
            embedder=embedder,
        )

    @classmethod
    async def open(
        cls,
        url: str | None = None,
        *,
        working: str | None = None,
        store: str | None = None,
        settings: Settings | None = None,
        embedder: Embedder | None = None,
        extractor: Extractor | None = None,
        clock: Clock | None = None,
    ) -> Self:
        """Open the stores: ``url`` for both, or ``working=`` and ``store=`` separately.

        Defaults come from ``settings`` (``SEDIMEM_*``): one SQLite file under the home,
        the embedder ``SEDIMEM_EMBEDDER`` names, and the LLM extractor when
        ``SEDIMEM_LLM_URL`` is set (else the rule extractor); retrieval, consolidation and
        the PostgreSQL pool and search follow ``settings.retrieval``, ``.consolidation``
        and ``.postgres``. A store written by another
        embedder is refused (:class:`~sedimem.errors.ConfigurationError`).
        """
        settings = settings or Settings()
        working_url = working or url or settings.resolved_working_url()
        store_url = store or url or settings.resolved_store_url()
        owned: list[Embedder | Extractor] = []
        try:
            if embedder is None:
                embedder = await open_embedder(settings)
                owned.append(embedder)
            if extractor is None:
                extractor = OpenAIChatExtractor.from_settings(settings)
                if extractor is not None:
                    owned.append(extractor)
            working_store = await open_working_store(working_url, settings.working)
            try:
                longterm = await open_longterm_store(
                    store_url, settings.postgres, read_urls=settings.store_read_urls
                )
                try:
                    await longterm.bind_embedder(embedder.name, embedder.dimension)
                except BaseException:
                    await longterm.aclose()
                    raise
            except BaseException:
                await working_store.aclose()
                raise
        except BaseException:
            await _close_all(owned)
            raise
        memory = cls(
            working_store, longterm, embedder, settings=settings, clock=clock, extractor=extractor
        )
        memory._owned = owned
        # the first assemble after opening should not pay for loading models
        await prepare(embedder)
        return memory

    @classmethod
    async def from_env(cls) -> Self:
        """Everything from ``SEDIMEM_*`` environment variables."""
        return await cls.open(settings=Settings())

    @property
    def embedder(self) -> Embedder:
        return self._given[2]

    @property
    def extractor(self) -> Extractor | None:
        """The fact extractor given or configured (None: the rule-based default)."""
        return self._extractor

    def model_usage(self) -> dict[str, Metered]:
        """The components that call a model endpoint, by kind ("chat", "embedding"), each
        with its lifetime :class:`~sedimem.llm.usage.Usage` (what ``/metrics`` exports)."""
        found: dict[str, Metered] = {}
        for component in self._metered:
            if isinstance(component, Metered):
                found[component.kind] = component
        return found

    @property
    def working_store(self) -> WorkingStore:
        return self._given[0]

    @property
    def longterm_store(self) -> LongTermStore:
        return self._given[1]

    def working(self, scope: Scope, *, session_ttl_seconds: float | None = None) -> WorkingMemory:
        """The working memory of a session scope; ``session_ttl_seconds`` overrides the
        configured idle lifetime for this handle's writes (framework state is kept for
        :data:`~sedimem.limits.KEPT_SESSION_TTL_SECONDS`)."""
        return WorkingMemory(
            self._working_store,
            scope,
            settings=self.settings.working,
            clock=self._clock,
            session_ttl_seconds=session_ttl_seconds,
        )

    async def sessions(self, owner: Scope) -> list[Scope]:
        """The sessions of ``owner`` (its scope without a session) that hold working state.

        Reads the tenant's session index page by page (cost: the tenant's live sessions).
        """
        owner = owner.owner
        found: list[Scope] = []
        after: str | None = None
        while True:
            # a session is "idle for at least 0 s" from its first write on: every live one
            page = await self._working_store.idle_sessions(
                owner.tenant, 0.0, self._clock.now(), _SESSION_PAGE, after
            )
            for idle in page:
                scope = Scope.from_canonical(idle.scope)
                if scope is not None and scope.session is not None and scope.owner == owner:
                    found.append(scope)
            if len(page) < _SESSION_PAGE:
                return found
            after = page[-1].cursor

    async def live_sessions(self, scope: Scope) -> list[Scope]:
        """Every session with working state inside ``scope``: those whose project, user,
        agent type and agent equal the ones ``scope`` sets (its unset fields match any).

        Reads the tenant's session index page by page (cost: the tenant's live sessions).
        """
        fields = ("project", "user", "agent_type", "agent")
        wanted = {f: getattr(scope, f) for f in fields if getattr(scope, f) is not None}
        found: list[Scope] = []
        after: str | None = None
        while True:
            page = await self._working_store.idle_sessions(
                scope.tenant, 0.0, self._clock.now(), _SESSION_PAGE, after
            )
            for idle in page:
                session = Scope.from_canonical(idle.scope)
                if session is None or session.session is None or session.tenant != scope.tenant:
                    continue
                if all(getattr(session, f) == v for f, v in wanted.items()):
                    found.append(session)
            if len(page) < _SESSION_PAGE:
                return found
            after = page[-1].cursor

    async def consolidation_runs(
        self, access: Access = LOCAL, *, limit: int = 50, job: str | None = None
    ) -> list[JobReport]:
        """The logged consolidation runs of the access's tenant (of one job when given),
        newest first; the log spans the tenant (``PermissionDenied`` to a narrowed access)."""
        access.require_tenant_wide("the consolidation log")
        return await self.consolidator.runs(access.tenant, limit, job=job)

    def documents(self, scope: Scope) -> Documents:
        """The keyed JSON documents of the scope's owner (what LangGraph's store keeps)."""
        return Documents(
            self._longterm, self._embedder, scope, settings=self._retrieval, clock=self._clock
        )

    def blocks(self, scope: Scope) -> Blocks:
        """The pinned blocks of the scope's owner (its user or agent; sessions share them)."""
        return Blocks(self._longterm, scope, clock=self._clock)

    async def profile(self, scope: Scope, *, sample: int = 10) -> MemoryProfile:
        """Counts per tier (every user's when ``scope`` names no user), first and last
        seen, recent sessions and a sample of the facts visible to ``scope``."""
        return await footprint.profile(self._longterm, scope, sample=sample)

    async def consolidate(
        self,
        access: Access = LOCAL,
        *,
        jobs: Sequence[str] = JOBS,
        dry_run: bool = False,
    ) -> ConsolidationReport:
        """Idle sessions -> episodes, episodes -> facts, -> procedures, decay and pruning of
        the access's tenant: idempotent, leased per job and tenant (a concurrent run
        elsewhere is reported as skipped), logged. It spans and changes the tenant:
        ``PermissionDenied`` to a narrowed or read-only access."""
        access.require_writer("consolidation")
        access.require_tenant_wide("consolidation")
        return await self.consolidator.run(access.tenant, jobs=jobs, dry_run=dry_run)

    def consolidation_worker(
        self, tenants: Sequence[str], interval_seconds: float
    ) -> ConsolidationWorker:
        """A background task running ``consolidate`` for ``tenants`` on a schedule."""
        return ConsolidationWorker(self.consolidator, tenants, interval_seconds)

    async def reflect(
        self,
        scope: Scope,
        *,
        time_range: tuple[datetime, datetime] | None = None,
        task_types: Sequence[str] | None = None,
        baseline_days: float = 30.0,
    ) -> ReflectionReport:
        """Patterns, success factors, anomalies and insights over the scope's episodes
        (statistics only, no LLM); each finding carries its evidence and confidence."""
        return await self.reflection.reflect(
            scope, time_range=time_range, task_types=task_types, baseline_days=baseline_days
        )

    async def assemble(
        self,
        query: str,
        scope: Scope,
        budget_tokens: int,
        *,
        quotas: Mapping[str, float] | None = None,
        format: ContextFormat = "markdown",
    ) -> AssembledContext:
        """Pinned blocks, working state, procedures, facts and episodes for ``query``,
        packed into at most ``budget_tokens`` tokens, with a report of what was left out."""
        return await assemble(
            self,
            query,
            scope,
            budget_tokens,
            quotas=quotas,
            format=format,
            tokenizer=self._tokenizer,
            now=utc_from_timestamp(self._clock.now()),
        )

    async def ingest(
        self,
        messages: Sequence[MessageFields | Mapping[str, object]],
        scope: Scope,
        *,
        background: bool = False,
    ) -> IngestResult:
        """File chat turns (``role`` user / assistant / system / tool, ``content``, optional
        ``name``, ``timestamp``, ``id``) as conversational episodes of ``scope``, once per
        message, and learn the facts they state with the configured extractor (inline, or
        in a background job: ``conversations.job(job_id, tenant=...)``). See
        :mod:`sedimem.conversation.ingest`."""
        return await self.conversations.ingest(messages, scope, background=background)

    async def remember(self, text: str, scope: Scope) -> IngestResult:
        """File plain ``text`` as a note episode of ``scope`` (once per owner and text) and
        learn the facts the configured extractor reads in it, as :meth:`ingest` does for a
        chat turn."""
        return await self.conversations.note(text, scope)

    async def kind_of(self, record_id: str, scope: Scope) -> RecordKind:
        """Which long-term record ``record_id`` names in ``scope``'s tenant: ``episode``,
        ``fact`` or ``procedure``. ``NotFound`` when the tenant holds none of them with
        that id (another tenant's id included); whether ``scope`` may read or change it is
        the tier's own call to decide."""
        check_text("id", record_id)
        rows = await self._longterm.get(scope.tenant, [record_id])
        kind = rows[0].kind if rows else None
        if kind not in _RECORD_KINDS:
            raise NotFound(f"no episode, fact or procedure has the id {record_id!r}")
        return _RECORD_KINDS[kind]

    async def read(self, record_id: str, scope: Scope) -> Episode | Fact | Procedure:
        """The episode, fact or procedure ``record_id`` names in ``scope``'s tenant, by its
        id or its handle (an assembled context's ``(id <handle>)``: see :mod:`sedimem.ids`),
        if ``scope`` may read it. ``NotFound``, ``PermissionDenied`` or, for a handle two
        reachable records share, ``ValidationError`` on ``id`` naming both."""
        kinds = (records.EPISODE, records.FACT, records.PROCEDURE)
        row = await locate(
            self._longterm, scope.tenant, record_id, kinds, scope, field="id", by_handle=True
        )
        return records.record_from_row(row)

    async def forget(
        self,
        access: Access = LOCAL,
        *,
        user: str | None = None,
        session: str | None = None,
        before: datetime | None = None,
    ) -> gdpr.ForgetReceipt:
        """Erase what matches in the access's tenant, in every tier, with what was derived
        from it, and make it physical (see :mod:`sedimem.gdpr.forget`); the receipt counts
        each kind. An access narrowed to a user erases only that user's data (``user``
        defaults to it); one narrowed to a project or an agent, or read-only, is refused
        (``PermissionDenied``): a user's data spans projects and agents."""
        access.require_writer("erasure")
        access.require_user_at_most("erasure")
        scope = access.narrow(user=user, session=session)
        return await gdpr.forget(
            self._longterm,
            self._working_store,
            access.tenant,
            user=scope.user,
            session=scope.session,
            before=before,
            embedder=self._embedder,
            clock=self._clock,
        )

    def export(self, access: Access = LOCAL, user: str | None = None) -> AsyncIterator[str]:
        """JSON Lines of the user's records in the access's tenant, pinned blocks included
        (``None``: the access's user, else records naming no user). An access narrowed to
        a project or an agent is refused (``PermissionDenied``, raised here, before any
        line): a user's data spans those."""
        access.require_user_at_most("export")
        return gdpr.export_user(self._longterm, access.tenant, access.narrow(user=user).user)

    async def import_(
        self,
        access: Access,
        lines: Iterable[str],
        *,
        progress: Callable[[int], None] | None = None,
    ) -> dict[str, int]:
        """Records exported by :meth:`export`, into the access's tenant (validated before
        writing). The lines may name any user or project: a narrowed or read-only access
        is refused (``PermissionDenied``)."""
        access.require_writer("import")
        access.require_tenant_wide("import")
        return await gdpr.import_records(
            self._longterm, self._embedder, access.tenant, lines, progress=progress
        )

    async def stats(self, scope: Scope, *, by_user: bool = False) -> MemoryStats:
        """Counts per tier (count queries, never a full fetch): with no user in ``scope``,
        every user's records (the tenant's or project's total); with a user, what that user
        sees. ``by_user`` adds the counts per user, which add up to the totals."""
        counts, users = await footprint.count(self._longterm, scope, by_user=by_user)
        return MemoryStats(
            **counts.model_dump(),
            tenant=scope.tenant,
            user=scope.user,
            working_backend=self._working_store.name,
            using_fallback=self._working_store.using_fallback,
            longterm_backend=self._longterm.name,
            by_user=users,
        )

    async def oversized_values(self) -> list[OversizedValue]:
        """Stored metadata and document values over the shape limits (written by versions
        before them), in every tenant: what ``sedimem doctor`` reports."""
        return await find_oversized(self._longterm)

    async def record_totals(self) -> Counts:
        """Records per tier over every tenant (what ``/metrics`` exports): one count
        query per tier and tenant, never a fetch."""
        totals = Counts(episodes=0, facts=0, current_facts=0, procedures=0)
        for tenant in await self._longterm.tenants():
            if tenant == SYSTEM_TENANT:
                continue
            counts, _ = await footprint.count(self._longterm, Scope(tenant=tenant))
            totals = Counts(
                **{
                    name: getattr(totals, name) + getattr(counts, name)
                    for name in Counts.model_fields
                }
            )
        return totals

    async def health(self) -> MemoryHealth:
        """Ask each store one cheap question; any failure counts as "does not answer"."""

        async def answers(name: str, check: Awaitable[object]) -> bool:
            try:
                return await check is not False
            except Exception as exc:  # a probe reports, it does not raise
                log.warning("health check: the %s store does not answer: %s", name, exc)
                return False

        working_up, longterm_up = await asyncio.gather(
            answers("working", self._working_store.ping()),
            answers("long-term", self._longterm.count(SYSTEM_TENANT, RecordFilter(kind=API_KEY))),
        )
        # a store on its fallback answers (the fallback serves), but the store itself does
        # not: it is reported unreachable, and the service degraded rather than unavailable
        fallback = self._working_store.using_fallback
        status: Literal["ready", "degraded", "unavailable"] = "ready"
        if not (working_up and longterm_up):
            status = "unavailable"
        elif fallback:
            status = "degraded"
        return MemoryHealth(
            status=status,
            working=StoreHealth(
                backend=self._working_store.name,
                reachable=working_up and not fallback,
                fallback=fallback,
            ),
            longterm=StoreHealth(backend=self._longterm.name, reachable=longterm_up),
        )

    async def aclose(self) -> None:
        await self.conversations.aclose()
        try:
            await self._working_store.aclose()
        finally:
            try:
                await self._longterm.aclose()
            finally:
                owned, self._owned = self._owned, []
                await _close_all(owned)

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()


def _store_attributes(store: str, backend: str) -> dict[str, observe.Value]:
    return {"sedimem.store": store, "sedimem.backend": backend}


async def _close_all(components: Sequence[object]) -> None:
    """Close what ``open`` built (HTTP clients); the first error is raised after all ran."""
    first: BaseException | None = None
    for component in components:
        close = getattr(component, "aclose", None)
        if close is None:
            continue
        try:
            await close()
        except Exception as exc:  # close the others before raising
            first = first or exc
    if first is not None:
        raise first
