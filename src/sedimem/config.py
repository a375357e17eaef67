"""Settings, read from ``SEDIMEM_*`` environment variables at the edge and passed down.

Nothing in sedimem imports a global settings object: the CLI or the application factory
builds :class:`Settings` once and hands the relevant part to each component.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import platformdirs
from pydantic import BaseModel, ConfigDict, Field, SecretStr, StringConstraints
from pydantic_settings import BaseSettings, SettingsConfigDict

__all__ = [
    "DEFAULT_SINGLE_VALUED",
    "MAX_CONFIGURED_PREDICATES",
    "FactSettings",
    "ServerSettings",
    "Settings",
    "WorkingSettings",
    "default_home",
]

#: Predicates with one value at a time unless configured otherwise ("lives_in": a new value
#: supersedes the old one; "speaks": values accumulate).
DEFAULT_SINGLE_VALUED = frozenset(
    {
        "lives_in", "located_in", "works_at", "works_as", "job_title", "role", "age",
        "email", "phone", "address", "name", "status", "married_to", "spouse", "birthday",
        "date_of_birth", "nationality", "timezone", "favorite", "prefers", "manager",
        "reports_to", "owner", "version", "current_project",
    }
)  # fmt: skip

#: Most predicates one setting may list (the default set, or the additions to it).
MAX_CONFIGURED_PREDICATES = 1000

_Predicate = Annotated[str, StringConstraints(min_length=1, max_length=256)]


def default_home() -> Path:
    """Where the embedded store lives when ``SEDIMEM_HOME`` is not set."""
    return Path(platformdirs.user_data_dir("sedimem", appauthor=False))


class WorkingSettings(BaseModel):
    """Limits and lifetimes of working memory."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    session_ttl_seconds: float = Field(
        default=24 * 3600,
        gt=0,
        le=365 * 24 * 3600,
        description="A session untouched (no write) for this long is gone, with all its state.",
    )
    checkpoint_ttl_seconds: float = Field(
        default=7 * 24 * 3600,
        gt=0,
        le=365 * 24 * 3600,
        description="How long a checkpoint is kept after it was taken.",
    )
    max_value_bytes: int = Field(
        default=1024 * 1024,
        ge=1,
        le=512 * 1024 * 1024,
        description="Largest JSON-encoded value accepted by set().",
    )
    max_keys_per_session: int = Field(default=10_000, ge=1, le=10_000_000)
    max_scratchpad_entries: int = Field(
        default=1000, ge=1, le=1_000_000, description="The scratchpad keeps the newest N entries."
    )
    max_scratchpad_entry_bytes: int = Field(default=64 * 1024, ge=1, le=64 * 1024 * 1024)
    max_sessions_in_process: int = Field(
        default=10_000, ge=1, description="Bound of the in-process store (least recently used go)."
    )
    fallback: bool = Field(
        default=True, description="Serve from the in-process store while Redis is unreachable."
    )
    max_journal_entries: int = Field(
        default=100_000,
        ge=1,
        le=100_000_000,
        description=(
            "During a Redis outage, at most this many writes wait in the fallback's journal; "
            "past it writes fail with OutageJournalFull instead of being dropped."
        ),
    )
    journal_dir: Path | None = Field(
        default=None,
        description=(
            "Also write the outage journal to files here, fsynced before each write is "
            "acknowledged; a process started later writes back the journals of processes "
            "that died during an outage. Unset: the journal lives in memory only."
        ),
    )
    probe_interval_seconds: float = Field(
        default=1.0, gt=0, le=3600, description="How often a degraded store probes Redis."
    )
    sweep_interval_seconds: float = Field(
        default=60.0, gt=0, description="How often the SQLite store deletes expired rows."
    )


class FactSettings(BaseModel):
    """Semantic memory: which predicates hold one value at a time.

    A tenant may extend or override this at run time (``SemanticMemory.declare``), and a
    fact may override both when it is written (``Fact.cardinality``).
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    single_valued: frozenset[_Predicate] = Field(
        default=DEFAULT_SINGLE_VALUED,
        max_length=MAX_CONFIGURED_PREDICATES,
        description="Predicates whose new value supersedes the old one (JSON list); replaces "
        "the built-in set.",
    )
    extra_single_valued: frozenset[_Predicate] = Field(
        default=frozenset(),
        max_length=MAX_CONFIGURED_PREDICATES,
        description="Predicates added to `single_valued` (JSON list), keeping the built-in set.",
    )

    @property
    def single_valued_predicates(self) -> frozenset[str]:
        """Every predicate single-valued by default, as configured."""
        return self.single_valued | self.extra_single_valued


class ServerSettings(BaseModel):
    """The REST + MCP server (``sedimem serve``)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    host: str = Field(default="127.0.0.1", description="Address to listen on.")
    port: int = Field(default=8077, ge=0, le=65535, description="Port (0: any free port).")
    max_body_bytes: int = Field(
        default=2 * 1024 * 1024,
        ge=1024,
        le=1024 * 1024 * 1024,
        description="Larger request bodies get 413.",
    )
    max_page_size: int = Field(
        default=1000, ge=1, le=100_000, description="Hard cap on a list endpoint's page."
    )
    consolidation_interval_seconds: float = Field(
        default=0,
        ge=0,
        description="Run consolidation for every tenant with a key this often (0: never).",
    )


class Settings(BaseSettings):
    """Everything sedimem can be configured with (``SEDIMEM_*``; nested with ``__``)."""

    model_config = SettingsConfigDict(
        env_prefix="SEDIMEM_", env_nested_delimiter="__", extra="ignore", frozen=True
    )

    home: Path = Field(default_factory=default_home)
    working_url: str | None = Field(
        default=None,
        description="memory://, sqlite:///path or redis://host:port/db; default: the home file.",
    )
    store_url: str | None = Field(
        default=None,
        description="Long-term store: sqlite:///path or postgresql://...; default: the home file.",
    )
    working: WorkingSettings = Field(default_factory=WorkingSettings)
    server: ServerSettings = Field(default_factory=ServerSettings)
    facts: FactSettings = Field(default_factory=FactSettings)
    admin_key: SecretStr | None = Field(
        default=None,
        description="Bearer token for admin routes (POST /v1/keys); unset: admin routes refuse.",
    )

    def default_url(self) -> str:
        return f"sqlite:///{self.home / 'sedimem.db'}"

    def resolved_working_url(self) -> str:
        """The working-memory URL, defaulting to the SQLite file under ``home``."""
        return self.working_url or self.default_url()

    def resolved_store_url(self) -> str:
        """The long-term store URL, defaulting to the SQLite file under ``home``."""
        return self.store_url or self.default_url()
