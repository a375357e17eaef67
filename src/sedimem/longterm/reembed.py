"""Move a long-term store to another embedder: bind it, then embed every record again.

Rebinding drops every stored vector (they belong to the old embedder's space); until a
record is embedded again it is found by keywords only. Running ``reembed`` again after a
crash finishes the work: each page is written whole or not at all.
"""

from __future__ import annotations

from collections.abc import Callable

from pydantic import BaseModel, ConfigDict

from sedimem.embed.base import Embedder
from sedimem.longterm.vectors import embed_all
from sedimem.scope import SYSTEM_TENANT
from sedimem.storage.longterm.base import LongTermStore, RecordFilter

__all__ = ["ReembedReport", "reembed"]


class ReembedReport(BaseModel):
    model_config = ConfigDict(frozen=True)

    embedder: str
    dimension: int
    tenants: int
    records: int


async def reembed(
    store: LongTermStore,
    embedder: Embedder,
    *,
    page_size: int = 500,
    progress: Callable[[int], None] | None = None,
) -> ReembedReport:
    """Bind ``embedder`` (replacing any other) and write every record's vector again."""
    await store.bind_embedder(embedder.name, embedder.dimension, replace=True)
    # API keys (the system tenant) carry no text to embed.
    tenants = [t for t in await store.tenants() if t != SYSTEM_TENANT]
    total = 0
    for tenant in tenants:
        cursor: str | None = None
        while True:
            page = await store.find(tenant, RecordFilter(), limit=page_size, after=cursor)
            if not page:
                break
            vectors = await embed_all(embedder, [record.text for record in page])
            for record, vector in zip(page, vectors, strict=True):
                record.vector = vector
            await store.put(tenant, page)
            total += len(page)
            if progress is not None:
                progress(len(page))
            cursor = page[-1].id
    return ReembedReport(
        embedder=embedder.name, dimension=embedder.dimension, tenants=len(tenants), records=total
    )
