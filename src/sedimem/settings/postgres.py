"""How the PostgreSQL long-term store connects and searches (see
:mod:`sedimem.storage.longterm.postgres`)."""

from __future__ import annotations

from typing import Self

from pydantic import BaseModel, ConfigDict, Field, model_validator

__all__ = ["MAX_EF_SEARCH", "PostgresSettings"]

#: pgvector's upper bound for ``hnsw.ef_search``.
MAX_EF_SEARCH = 1000


class PostgresSettings(BaseModel):
    """The PostgreSQL store's pool and search settings (unused by the SQLite store)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    min_pool_size: int = Field(
        default=1, ge=1, le=1000, description="Connections the pool keeps open."
    )
    max_pool_size: int = Field(
        default=10, ge=1, le=1000, description="Most connections the pool opens at once."
    )
    connect_timeout_seconds: float = Field(
        default=10.0,
        gt=0,
        le=600,
        description="Time allowed to connect, and to wait for a pooled connection.",
    )
    ef_search: int = Field(
        default=40,
        ge=1,
        le=MAX_EF_SEARCH,
        description="hnsw.ef_search of a vector search: the HNSW candidate list (raised to "
        "2 k for a search of k).",
    )
    exact_threshold: int = Field(
        default=5_000,
        ge=0,
        le=100_000_000,
        description="A filter matching fewer records than this is searched exactly.",
    )
    keyword_budget: int = Field(
        default=1_000,
        ge=1,
        le=10_000_000,
        description="Rows a keyword search may expect to rank before its commoner words only "
        "fill places left empty.",
    )
    analyze_rows: int = Field(
        default=1_000,
        ge=0,
        le=1_000_000_000,
        description="After this process has written this many rows (and a tenth of the "
        "table), the store runs ANALYZE in the background (0: never).",
    )
    iterative_scans: bool = Field(
        default=True,
        description="Filtered vector searches use pgvector's iterative index scans where the "
        "server has them (pgvector >= 0.8).",
    )

    replica_max_lag_seconds: float = Field(
        default=10.0,
        gt=0,
        le=86_400,
        description="A read replica (SEDIMEM_STORE_READ_URLS) whose replay is further behind "
        "than this (s) serves no search; they go to the primary until it catches up.",
    )
    replica_retry_seconds: float = Field(
        default=5.0,
        gt=0,
        le=3_600,
        description="A read replica that cannot be reached is skipped (its searches go to the "
        "primary) for this long (s), then tried again.",
    )

    @model_validator(mode="after")
    def _pool(self) -> Self:
        if self.min_pool_size > self.max_pool_size:
            raise ValueError(
                f"min_pool_size: {self.min_pool_size} is above max_pool_size ({self.max_pool_size})"
            )
        return self
