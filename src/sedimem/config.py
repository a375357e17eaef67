"""Settings, read from ``SEDIMEM_*`` environment variables at the edge and passed down.

Nothing in sedimem imports a global settings object: the CLI or the application factory
builds :class:`Settings` once and hands the relevant part to each component.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Literal, Self
from urllib.parse import urlsplit

import platformdirs
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SecretStr,
    StringConstraints,
    field_validator,
    model_validator,
)
from pydantic import ValidationError as PydanticError
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

from sedimem.errors import ConfigurationError
from sedimem.settings import ConsolidationSettings, PostgresSettings, RetrievalSettings

__all__ = [
    "DEFAULT_SINGLE_VALUED",
    "MAX_CONFIGURED_PREDICATES",
    "MINILM_DIMENSION",
    "ConsolidationSettings",
    "EmbedderKind",
    "FactSettings",
    "PostgresSettings",
    "RetrievalSettings",
    "ServerSettings",
    "Settings",
    "WorkingSettings",
    "default_home",
    "load_settings",
]

#: Predicates with one value at a time unless configured otherwise ("lives_in": a new value
#: supersedes the old one; "speaks": values accumulate).
DEFAULT_SINGLE_VALUED = frozenset(
    {
        "lives_in", "located_in", "works_at", "works_as", "job_title", "role", "age",
        "email", "phone", "address", "name", "status", "married_to", "spouse", "birthday",
        "date_of_birth", "nationality", "timezone", "favorite", "manager",
        "reports_to", "owner", "version", "current_project",
    }
)  # fmt: skip

#: Most predicates one setting may list (the default set, or the additions to it).
MAX_CONFIGURED_PREDICATES = 1000

_Predicate = Annotated[str, StringConstraints(min_length=1, max_length=256)]

#: ``default``: the packaged static model (offline); ``minilm``: all-MiniLM-L6-v2 on
#: onnxruntime (offline, the ``quality`` extra); ``openai``: an OpenAI-compatible
#: ``/v1/embeddings`` endpoint; ``hash``: the deterministic hash embedder (tests only).
EmbedderKind = Literal["default", "minilm", "openai", "hash"]

#: The length of the ``minilm`` embedder's vectors (all-MiniLM-L6-v2's hidden size).
MINILM_DIMENSION = 384

_ENV_PREFIX = "SEDIMEM_"


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
    workers: int = Field(
        default=1, ge=1, le=512, description="Worker processes behind the port (--workers)."
    )
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
    access_log: Literal["stderr", "stdout", "off"] = Field(
        default="stderr",
        description=(
            "Where `sedimem serve` writes its access log, one JSON line per request "
            "(request id, route template, status, duration, hashed tenant, key id); off: none."
        ),
    )
    keep_alive_seconds: int = Field(
        default=75,
        ge=1,
        le=3600,
        description=(
            "How long an idle client connection stays open. Longer than clients' own idle "
            "limits (httpx: 5 s), so a client never sends on a connection the server is "
            "closing at that moment (its request would fail with a reset)."
        ),
    )
    rate_limit_per_second: float = Field(
        default=0,
        ge=0,
        le=1_000_000,
        description=(
            "Requests per second each API key may make to /v1 and /mcp, on average (a token "
            "bucket per key, in each server process); more get 429 with Retry-After. 0: no limit."
        ),
    )
    rate_limit_burst: int = Field(
        default=20,
        ge=1,
        le=1_000_000,
        description="Requests a key may make at once, above the rate, after being idle.",
    )
    rate_limit_keys: int = Field(
        default=100_000,
        ge=1,
        le=10_000_000,
        description="Keys whose buckets each process remembers (least recently used go).",
    )
    auth_failure_rate: float = Field(
        default=1.0,
        ge=0,
        le=1_000_000,
        description=(
            "Failed authentications per second each client address may make to /v1 and /mcp "
            "after its burst (a token bucket per address, in each server process); past it, "
            "the address gets 429 with Retry-After. 0: no limit."
        ),
    )
    auth_failure_burst: int = Field(
        default=20,
        ge=1,
        le=1_000_000,
        description="Failed authentications a client address may make at once.",
    )
    allow_weak_admin_key: bool = Field(
        default=False,
        description=(
            "Let `serve` start with an admin key shorter than 16 characters or equal to a "
            "documented example (`change-me`); for throwaway local setups only."
        ),
    )
    metrics_refresh_seconds: float = Field(
        default=15.0,
        ge=0,
        le=3600,
        description=(
            "/metrics recounts records per tier and consolidation lag (count queries per "
            "tenant) at most this often; scrapes in between see the last figures."
        ),
    )


class Settings(BaseSettings):
    """Everything sedimem can be configured with (``SEDIMEM_*``; nested with ``__``).

    Every part a deployment may tune hangs off this tree (``SEDIMEM_RETRIEVAL__RRF_K``,
    ``SEDIMEM_POSTGRES__EF_SEARCH``...); :meth:`sedimem.memory.Memory.open` hands each part
    to the component it tunes, so ``serve``, ``mcp``, ``worker`` and every command follow it.
    """

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
    store_read_urls: Annotated[tuple[str, ...], NoDecode] = Field(
        default=(),
        max_length=64,
        description=(
            "Streaming replicas of the PostgreSQL store (postgresql://... URLs, separated by "
            "spaces, or a JSON list) that serve searches (recall, assemble); writes and reads "
            "by id stay on the primary. Each must be a hot standby of the store's cluster."
        ),
    )
    working: WorkingSettings = Field(default_factory=WorkingSettings)
    server: ServerSettings = Field(default_factory=ServerSettings)
    facts: FactSettings = Field(default_factory=FactSettings)
    retrieval: RetrievalSettings = Field(
        default_factory=RetrievalSettings,
        description="Weights and depth of hybrid retrieval (every search and assemble).",
    )
    consolidation: ConsolidationSettings = Field(
        default_factory=ConsolidationSettings,
        description="The consolidation jobs: batches, leases, procedures, decay, idle sessions.",
    )
    postgres: PostgresSettings = Field(
        default_factory=PostgresSettings,
        description="The PostgreSQL long-term store's pool and vector search.",
    )
    admin_key: SecretStr | None = Field(
        default=None,
        description="Bearer token for admin routes (POST /v1/keys); unset: admin routes refuse.",
    )

    # -- the LLM fact extractor (unset URL: the offline rule extractor) ------------------
    llm_url: str | None = Field(
        default=None,
        description=(
            "API root of an OpenAI-compatible chat endpoint (e.g. https://api.openai.com/v1, "
            "http://127.0.0.1:11434/v1); set: consolidation extracts facts with it; "
            "unset: the offline rule extractor."
        ),
    )
    llm_model: str | None = Field(
        default=None, min_length=1, max_length=256, description="Chat model name (required)."
    )
    llm_api_key: SecretStr | None = Field(
        default=None, description="Bearer token of the chat endpoint (unset: none sent)."
    )
    llm_timeout_seconds: float = Field(
        default=60.0, gt=0, le=600, description="Time allowed for one chat request."
    )
    llm_max_retries: int = Field(
        default=3,
        ge=0,
        le=10,
        description="Retries of a chat request after a timeout, a connection error, 429 or 5xx.",
    )
    llm_invalid_retries: int = Field(
        default=1,
        ge=0,
        le=5,
        description="Times a reply that is not valid JSON of the facts schema is asked for again.",
    )
    llm_max_tokens: int = Field(
        default=2048, ge=16, le=200_000, description="Cap on the tokens of one chat reply."
    )
    llm_max_retry_after_seconds: float = Field(
        default=30.0,
        ge=0,
        le=3600,
        description=(
            "A 429/503 asking to retry later than this is not waited for: the call fails "
            "(the job reports it and the next run tries again)."
        ),
    )
    llm_structured_output: Literal["auto", "json_schema", "none"] = Field(
        default="auto",
        description=(
            "auto: send response_format json_schema, and stop sending it to a server that "
            "refuses it (HTTP 400/422); json_schema: always; none: never (prompt only)."
        ),
    )

    # -- the embedder ----------------------------------------------------------------------
    embedder: EmbedderKind = Field(
        default="default",
        description=(
            "default: the packaged static model (offline); minilm: all-MiniLM-L6-v2 on "
            "onnxruntime (offline, sedimem[quality]); openai: an OpenAI-compatible embeddings "
            "endpoint (SEDIMEM_EMBEDDER_URL, _MODEL); hash: deterministic, tests only."
        ),
    )
    embedder_url: str | None = Field(
        default=None, description="API root of the embeddings endpoint (embedder=openai)."
    )
    embedder_model: str | None = Field(
        default=None, min_length=1, max_length=256, description="Embedding model (openai)."
    )
    embedder_api_key: SecretStr | None = Field(
        default=None, description="Bearer token of the embeddings endpoint (unset: none sent)."
    )
    embedder_dimension: int | None = Field(
        default=None,
        ge=1,
        le=16_384,
        description="Vector length (openai: unset asks the server once; hash: default 256).",
    )
    embedder_timeout_seconds: float = Field(
        default=30.0, gt=0, le=600, description="Time allowed for one embeddings request."
    )
    embedder_max_retries: int = Field(
        default=3, ge=0, le=10, description="Retries of an embeddings request (as for the LLM)."
    )
    embedder_threads: int = Field(
        default=1, ge=1, le=64, description="onnxruntime intra-op threads (embedder=minilm)."
    )
    embedder_cache_size: int = Field(
        default=10_000,
        ge=0,
        le=1_000_000,
        description=(
            "Vectors the openai embedder keeps of texts it embedded (an LRU: a repeated "
            "question or re-ingested turn sends no request; dimension x 4 bytes each); 0: none."
        ),
    )

    # -- tracing (unset endpoint: no tracing, nothing of OpenTelemetry's SDK is imported) --
    otlp_endpoint: str | None = Field(
        default=None,
        description=(
            "Export traces over OTLP/HTTP (protobuf) to this collector (its root, e.g. "
            "http://127.0.0.1:4318; spans go to /v1/traces); unset: the standard "
            "OTEL_EXPORTER_OTLP_ENDPOINT (or _TRACES_ENDPOINT) if set, else no tracing. "
            "Needs sedimem[otel]."
        ),
    )
    otlp_service_name: str = Field(
        default="sedimem",
        min_length=1,
        max_length=256,
        description="The service.name of the exported spans.",
    )

    @field_validator("llm_url", "embedder_url", "otlp_endpoint")
    @classmethod
    def _http_url(cls, value: str | None) -> str | None:
        if value is None:
            return None
        parts = urlsplit(value)
        if parts.scheme not in ("http", "https") or not parts.netloc:
            raise ValueError("not an http(s) URL (expected e.g. 'https://api.openai.com/v1')")
        return value

    @field_validator("store_read_urls", mode="before")
    @classmethod
    def _url_list(cls, value: object) -> object:
        # spaces, not commas: a PostgreSQL URL lists several hosts with commas
        if isinstance(value, str):
            text = value.strip()
            return json.loads(text) if text.startswith("[") else text.split()
        return value

    @field_validator("store_read_urls")
    @classmethod
    def _postgres_urls(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        for n, url in enumerate(value):
            parts = urlsplit(url)
            if parts.scheme not in ("postgresql", "postgres"):
                shown = f"URL {n + 1}" if parts.password else repr(url)  # never a password
                raise ValueError(f"{shown} is not a postgresql:// URL")
        return value

    @model_validator(mode="after")
    def _complete(self) -> Self:
        if self.store_read_urls and urlsplit(self.resolved_store_url()).scheme not in (
            "postgresql",
            "postgres",
        ):
            raise ValueError(
                "store_read_urls: SEDIMEM_STORE_READ_URLS needs a PostgreSQL SEDIMEM_STORE_URL"
            )
        if self.llm_url is not None and not self.llm_model:
            raise ValueError("llm_model: SEDIMEM_LLM_MODEL is required when SEDIMEM_LLM_URL is set")
        if self.llm_url is None and self.llm_model is not None:
            raise ValueError("llm_url: SEDIMEM_LLM_URL is required when SEDIMEM_LLM_MODEL is set")
        if self.embedder == "openai":
            for field in ("embedder_url", "embedder_model"):
                if getattr(self, field) is None:
                    raise ValueError(
                        f"{field}: {_ENV_PREFIX}{field.upper()} is required when "
                        "SEDIMEM_EMBEDDER=openai"
                    )
        elif self.embedder_url is not None or self.embedder_model is not None:
            raise ValueError(
                "embedder: SEDIMEM_EMBEDDER_URL / _MODEL are set but SEDIMEM_EMBEDDER is "
                f"{self.embedder!r} (set SEDIMEM_EMBEDDER=openai to use them)"
            )
        if self.embedder == "minilm" and self.embedder_dimension not in (None, MINILM_DIMENSION):
            raise ValueError(
                f"embedder_dimension: SEDIMEM_EMBEDDER=minilm gives {MINILM_DIMENSION}-dimensional "
                f"vectors (got {self.embedder_dimension})"
            )
        return self

    def default_url(self) -> str:
        return f"sqlite:///{self.home / 'sedimem.db'}"

    def resolved_working_url(self) -> str:
        """The working-memory URL, defaulting to the SQLite file under ``home``."""
        return self.working_url or self.default_url()

    def resolved_store_url(self) -> str:
        """The long-term store URL, defaulting to the SQLite file under ``home``."""
        return self.store_url or self.default_url()


def load_settings(**overrides: object) -> Settings:
    """``Settings()`` from the environment, or :class:`ConfigurationError` naming each bad
    setting by its environment variable and saying what is allowed."""
    try:
        return Settings(**overrides)  # type: ignore[arg-type]
    except PydanticError as exc:
        problems = []
        for error in exc.errors():
            where = [str(part) for part in error["loc"] if isinstance(part, str | int)]
            message = str(error["msg"]).removeprefix("Value error, ")
            if where:
                name = _ENV_PREFIX + "__".join(where).upper()
                secret = "key" in name.lower() or "urls" in name.lower()  # URLs hold passwords
                got = "" if secret else f" (got {error.get('input')!r})"
                problems.append(f"{name}: {message}{got}")
            else:  # a rule across settings: the message names them
                problems.append(message)
        raise ConfigurationError("invalid settings: " + "; ".join(problems)) from exc
