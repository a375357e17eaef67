"""What a running job gets: the stores, the services, the settings, its lease and counters."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from sedimem.clock import Clock
from sedimem.config import WorkingSettings
from sedimem.consolidation.lease import Leases
from sedimem.consolidation.settings import ConsolidationSettings
from sedimem.embed.base import Embedder
from sedimem.extraction.protocols import Extractor, MeteredExtractor
from sedimem.llm.usage import Usage
from sedimem.longterm.episodic import EpisodicMemory
from sedimem.longterm.procedural import ProceduralMemory
from sedimem.longterm.semantic import SemanticMemory
from sedimem.storage.longterm.base import LongTermStore
from sedimem.storage.working.base import WorkingStore

__all__ = ["JobContext", "JobFunction", "MeteredExtractor"]

#: a job report keeps at most this many warnings (the count of each kind is exact)
MAX_WARNINGS = 20


@dataclass(slots=True)
class JobContext:
    tenant: str
    job: str
    owner: str  # the lease token of this run
    cursor: str | None  # where the previous run stopped
    dry_run: bool
    store: LongTermStore
    episodes: EpisodicMemory
    facts: SemanticMemory
    procedures: ProceduralMemory
    extractor: Extractor
    settings: ConsolidationSettings
    clock: Clock
    leases: Leases
    # the ``sessions`` job's: working memory, its settings, the embedder, the idle threshold
    working: WorkingStore | None = None
    working_settings: WorkingSettings = field(default_factory=WorkingSettings)
    embedder: Embedder | None = None
    idle_seconds: float = 3600.0
    counts_in: dict[str, int] = field(default_factory=dict)
    counts_out: dict[str, int] = field(default_factory=dict)
    #: what went wrong without failing the job (an episode whose extraction failed)
    warnings: list[str] = field(default_factory=list)
    #: the model calls of this run (requests, retries, tokens), reported as ``llm_*``
    usage: Usage = field(default_factory=Usage)

    def add(self, counts: dict[str, int], key: str, n: int = 1) -> None:
        counts[key] = counts.get(key, 0) + n

    def warn(self, message: str) -> None:
        if len(self.warnings) < MAX_WARNINGS:
            self.warnings.append(message)

    async def advance(self, cursor: str) -> None:
        """Record a fully processed batch (and renew the lease); no-op in a dry run."""
        self.cursor = cursor
        if not self.dry_run:
            await self.leases.advance(self.tenant, self.job, self.owner, cursor, self.clock.now())

    async def renew(self) -> None:
        if not self.dry_run:
            await self.leases.renew(self.tenant, self.job, self.owner, self.clock.now())


JobFunction = Callable[[JobContext], Awaitable[None]]
