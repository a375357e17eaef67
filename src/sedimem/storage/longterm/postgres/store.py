"""The PostgreSQL + pgvector long-term store (psycopg 3, async, pooled).

Open it with :meth:`PostgresLongTermStore.open`; it sets up (or upgrades) its schema under
an advisory lock, so any number of processes may open the same database at once. Every
statement names the tenant first; filters are SQL (:mod:`.filters`); search is
:mod:`.search`; ``update_locked`` serialises on ``pg_advisory_xact_lock`` keyed by
``(tenant, lock_key)``, which holds across processes and hosts. The store keeps the
planner's statistics fresh after large writes (:mod:`.analyze`).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import Any, Self, TypeVar

import numpy as np
from psycopg import AsyncConnection, sql
from psycopg_pool import AsyncConnectionPool

from sedimem.errors import ConfigurationError, ValidationError
from sedimem.storage.longterm.base import (
    Decision,
    Fusion,
    Pick,
    Ranked,
    RecordFilter,
    ScoredRecord,
    StoredRecord,
    Vector,
    check_tenant,
)
from sedimem.storage.longterm.postgres import search as postgres_search
from sedimem.storage.longterm.postgres.analyze import Analyzer
from sedimem.storage.longterm.postgres.errors import translated
from sedimem.storage.longterm.postgres.filters import Where, record_where
from sedimem.storage.longterm.postgres.fused import Settings as FusedSettings
from sedimem.storage.longterm.postgres.fused import fused_search, one_statement
from sedimem.storage.longterm.postgres.keywords import KeywordPlan, KeywordPlanner, words_of
from sedimem.storage.longterm.postgres.migrations import lock_id
from sedimem.storage.longterm.postgres.opening import bound_dimension, open_pools
from sedimem.storage.longterm.postgres.replicas import (
    ReadRouter,
    write_position,
)
from sedimem.storage.longterm.postgres.rows import record_columns, record_of, row_values, upsert
from sedimem.storage.longterm.postgres.schema import (
    TABLE,
    drop_vector_index_ddl,
    vector_index_ddl,
)

__all__ = ["PostgresLongTermStore"]

_T = TypeVar("_T")

_TABLE = sql.Identifier(TABLE)


def _positive(k: int, field: str = "k") -> None:
    if isinstance(k, bool) or not isinstance(k, int) or k < 0:
        raise ValidationError(field, f"must be a non-negative integer, got {k!r}")


class PostgresLongTermStore:
    """Long-term memory in PostgreSQL: tsvector (GIN) for keywords, pgvector HNSW for vectors."""

    def __init__(
        self,
        pool: AsyncConnectionPool[AsyncConnection[Any]],
        *,
        dimension: int | None,
        ef_search: int,
        exact_threshold: int,
        keyword_budget: int,
        analyze_rows: int = 0,
        estimated_rows: float = 0.0,
        iterative_scans: bool = False,
        distributed: bool = False,
        reads: ReadRouter | None = None,
    ) -> None:
        """Use :meth:`open`."""
        self._pool = pool
        self._reads = reads
        self._iterative = iterative_scans
        self._distributed = distributed
        self._dimension = dimension
        self._ef_search = ef_search
        self._exact_threshold = exact_threshold
        self._analyzer = Analyzer(
            pool,
            min_rows=analyze_rows,
            table_rows=estimated_rows,
            on_analyzed=self._statistics_changed,
        )
        self._keywords = KeywordPlanner(
            keyword_budget, on_missing_statistics=self._analyzer.statistics_missing
        )

    @classmethod
    async def open(
        cls,
        url: str,
        *,
        min_size: int = 1,
        max_size: int = 10,
        connect_timeout: float = 10.0,
        ef_search: int = 40,
        exact_threshold: int = 5_000,
        keyword_budget: int = 1_000,
        analyze_rows: int = 1_000,
        iterative_scans: bool = True,
        distributed: bool | None = None,
        read_urls: Sequence[str] = (),
        replica_max_lag: float = 10.0,
        replica_retry: float = 5.0,
    ) -> Self:
        """Connect, set up the schema (idempotent) and open a pool of connections.

        ``connect_timeout`` bounds connecting and waiting for a pooled connection (s);
        ``ef_search`` is the HNSW candidate list of a vector search (raised to ``2 k``);
        a filter matching fewer than ``exact_threshold`` records is searched exactly;
        ``keyword_budget`` is how many rows a keyword search may expect to rank before its
        commoner words only fill places left empty (see :mod:`.keywords`);
        after this process has written ``analyze_rows`` rows and a tenth of the table, the
        store runs ANALYZE in the background (0: never; see :mod:`.analyze`);
        ``iterative_scans``: filtered vector searches use pgvector's iterative index scans
        where the server has them (pgvector >= 0.8; see :mod:`.search`), else the path
        older servers take.
        ``distributed``: the records table is distributed by tenant (Citus; None: so when
        the database has the ``citus`` extension). The coordinator then has no planner
        statistics of it (each worker plans its shards with its own), so searches never
        take the paths meant for a table without statistics, whose fenced scans do not
        name the tenant and would reach every shard (see docs/deployment.md).

        ``read_urls`` are streaming replicas of ``url``'s cluster that serve searches (see
        :mod:`.replicas`): one that lags more than ``replica_max_lag`` seconds is not read
        from, one that cannot be reached is skipped for ``replica_retry`` seconds. A URL
        that is a primary, or a replica of another cluster, is refused
        (:class:`~sedimem.errors.ConfigurationError` naming it).
        """
        if not 1 <= min_size <= max_size:
            raise ConfigurationError(f"need 1 <= min_size <= max_size, got {min_size}, {max_size}")
        if not 1 <= ef_search <= postgres_search.MAX_EF_SEARCH:
            raise ConfigurationError(f"ef_search must be 1..1000, got {ef_search}")
        if keyword_budget < 1 or analyze_rows < 0:
            raise ConfigurationError(
                f"need keyword_budget >= 1 and analyze_rows >= 0, got {keyword_budget}, "
                f"{analyze_rows}"
            )
        if not (replica_max_lag > 0 and replica_retry > 0):
            raise ConfigurationError(
                "need replica_max_lag > 0 and replica_retry > 0 (seconds), got "
                f"{replica_max_lag}, {replica_retry}"
            )
        opened = await open_pools(
            url,
            min_size=min_size,
            max_size=max_size,
            connect_timeout=connect_timeout,
            distributed=distributed,
            iterative_scans=iterative_scans,
            read_urls=read_urls,
            replica_max_lag=replica_max_lag,
            replica_retry=replica_retry,
        )
        return cls(
            opened.pool,
            dimension=opened.dimension,
            ef_search=ef_search,
            exact_threshold=exact_threshold,
            keyword_budget=keyword_budget,
            analyze_rows=analyze_rows,
            estimated_rows=opened.rows,
            iterative_scans=opened.iterative_scans,
            distributed=opened.distributed,
            reads=opened.reads,
        )

    @property
    def name(self) -> str:
        return "postgres"

    @property
    def distributed(self) -> bool:
        """Whether the records table is taken as distributed by tenant (Citus)."""
        return self._distributed

    @property
    def iterative_scans(self) -> bool:
        """Whether filtered vector searches use iterative index scans (pgvector >= 0.8)."""
        return self._iterative

    async def aclose(self) -> None:
        await self._analyzer.wait()  # bounded: ANALYZE samples a fixed number of rows
        if self._reads is not None:
            await self._reads.aclose()
        await self._pool.close()

    @property
    def reads(self) -> ReadRouter | None:
        """Where searches go, when read replicas are configured (None: the primary)."""
        return self._reads

    async def _wrote(self, conn: AsyncConnection[Any], tenant: str) -> None:
        """After a write committed on ``conn``: the position replicas must reach to read it."""
        if self._reads is not None:
            self._reads.wrote(tenant, await write_position(conn))

    async def _search(
        self, tenant: str, body: Callable[[AsyncConnection[Any]], Awaitable[_T]]
    ) -> _T:
        """``body`` on a replica that has this process's writes of ``tenant`` (see
        :mod:`.replicas`), else on the primary."""
        if self._reads is None:
            async with self._pool.connection() as conn:
                return await body(conn)
        return await self._reads.search(tenant, body)

    # -- planner statistics --------------------------------------------------------------------

    async def analyzed(self) -> None:
        """Wait until the ANALYZE this store started (after large writes), if any, is done."""
        await self._analyzer.wait()

    async def scrub(self) -> str:
        """VACUUM ANALYZE the records table right after an erasure: the erased rows' dead
        tuples leave the heap and every index (GIN, HNSW), and the planner statistics
        (which keep frequent words) are recomputed from the rows that remain."""
        with translated("vacuum"):
            async with self._pool.connection() as conn:  # autocommit: VACUUM needs it
                await conn.execute(sql.SQL("VACUUM (ANALYZE) {}").format(_TABLE))
        self._keywords.forget_words()
        return f"postgres: VACUUM (ANALYZE) {TABLE}"

    def _statistics_changed(self) -> None:
        self._keywords.forget_statistics()

    # -- embedder ------------------------------------------------------------------------------

    async def bind_embedder(self, name: str, dimension: int, *, replace: bool = False) -> None:
        if not name:
            raise ValidationError("embedder", "a name is required")
        _positive(dimension, "dimension")
        if dimension == 0:
            raise ValidationError("dimension", "must be positive")
        with translated("bind_embedder", field="dimension"):
            async with self._pool.connection() as conn, conn.transaction():
                await conn.execute("SELECT pg_advisory_xact_lock(%s)", [lock_id("embedder")])
                cursor = await conn.execute("SELECT name, dimension FROM sedimem_lt_embedder")
                row = await cursor.fetchone()
                if row is not None and (row[0], row[1]) == (name, dimension):
                    self._dimension = dimension
                    return
                if row is not None and not replace:
                    raise ConfigurationError(
                        f"this store's vectors were written by embedder {row[0]!r} "
                        f"(dimension {row[1]}), not {name!r} (dimension {dimension}); "
                        "re-embed to switch embedders"
                    )
                if replace:
                    await conn.execute(drop_vector_index_ddl())
                await conn.execute(vector_index_ddl(dimension))
                await conn.execute(
                    "INSERT INTO sedimem_lt_embedder (name, dimension) VALUES (%s, %s) "
                    "ON CONFLICT (singleton) DO UPDATE "
                    "SET name = excluded.name, dimension = excluded.dimension",
                    [name, dimension],
                )
        self._dimension = dimension

    async def _require_binding(
        self, conn: AsyncConnection[Any] | None, records: Sequence[StoredRecord]
    ) -> None:
        """Refuse vectors while no embedder is bound (re-reading the binding, which another
        process may have made since this store opened)."""
        if self._dimension is not None or all(r.vector is None for r in records):
            return
        if conn is None:
            async with self._pool.connection() as fresh:
                self._dimension = await bound_dimension(fresh)
        else:
            self._dimension = await bound_dimension(conn)
        if self._dimension is None:
            raise ConfigurationError(
                "no embedder is bound to this store: call bind_embedder before writing vectors"
            )

    def _check_vector(self, vector: Any, field: str) -> Vector:
        if not isinstance(vector, np.ndarray) or vector.ndim != 1 or vector.size == 0:
            raise ValidationError(field, "must be a non-empty 1-D numpy array")
        if self._dimension is not None and vector.shape[0] != self._dimension:
            raise ValidationError(
                field,
                f"has dimension {vector.shape[0]}, the bound embedder's is {self._dimension}",
                allowed=f"{self._dimension} floats",
            )
        if not np.all(np.isfinite(vector)):
            raise ValidationError(field, "contains NaN or infinity")
        return vector.astype(np.float32, copy=False)

    # -- writes --------------------------------------------------------------------------------

    def _rows(self, tenant: str, records: Sequence[StoredRecord]) -> list[list[Any]]:
        check_tenant(tenant, records)
        latest = {record.id: record for record in records}  # the last of duplicate ids wins
        return [row_values(record, self._check_vector) for record in latest.values()]

    async def put(self, tenant: str, records: Sequence[StoredRecord]) -> None:
        check_tenant(tenant, records)
        if not records:
            return
        with translated("put"):
            await self._require_binding(None, records)
            rows = self._rows(tenant, records)
            async with self._pool.connection() as conn:
                async with conn.transaction():
                    await upsert(conn, rows)
                await self._wrote(conn, tenant)
        self._analyzer.wrote(len(rows))

    async def delete(self, tenant: str, ids: Sequence[str]) -> int:
        if not ids:
            return 0
        with translated("delete"):
            async with self._pool.connection() as conn:
                cursor = await conn.execute(
                    sql.SQL("DELETE FROM {} WHERE tenant = %s AND id = ANY(%s::text[])").format(
                        _TABLE
                    ),
                    [tenant, list(ids)],
                )
                deleted = cursor.rowcount
                await self._wrote(conn, tenant)
        self._analyzer.wrote(deleted)
        return deleted

    async def update_locked(
        self, tenant: str, lock_key: str, flt: RecordFilter, decide: Decision
    ) -> list[StoredRecord]:
        where = record_where(tenant, flt)
        with translated("update_locked"):
            async with self._pool.connection() as conn:
                async with conn.transaction():
                    await conn.execute(
                        "SELECT pg_advisory_xact_lock(%s)", [lock_id("update", tenant, lock_key)]
                    )
                    # with vectors: an edited record written back keeps its vector
                    current = await self._select(
                        conn, where, sql.SQL("ORDER BY id"), [], vectors=True
                    )
                    written = list(decide(current))
                    await self._require_binding(conn, written)
                    await upsert(conn, self._rows(tenant, written))
                if written:
                    await self._wrote(conn, tenant)
        self._analyzer.wrote(len(written))
        return written

    # -- reads ---------------------------------------------------------------------------------

    @staticmethod
    async def _select(
        conn: AsyncConnection[Any],
        where: Where,
        tail: sql.Composable,
        tail_params: list[Any],
        *,
        vectors: bool = False,
    ) -> list[StoredRecord]:
        query = sql.SQL("SELECT {columns} FROM {table} WHERE {where} {tail}").format(
            columns=record_columns(vector=vectors),
            table=_TABLE,
            where=where.clause,
            tail=tail,
        )
        cursor = await conn.execute(query, [*where.params, *tail_params])
        return [record_of(row, vector=vectors) for row in await cursor.fetchall()]

    async def get(self, tenant: str, ids: Sequence[str]) -> list[StoredRecord]:
        if not ids:
            return []
        return await self.find(tenant, RecordFilter(ids=tuple(ids)), limit=len(ids))

    async def find(
        self,
        tenant: str,
        flt: RecordFilter,
        *,
        limit: int,
        after: str | None = None,
        newest_first: bool = False,
    ) -> list[StoredRecord]:
        _positive(limit, "limit")
        if limit == 0:
            return []
        where = record_where(tenant, flt)
        if after is not None:
            where.add("id < %s" if newest_first else "id > %s", after)
        order = sql.SQL("ORDER BY id DESC LIMIT %s" if newest_first else "ORDER BY id LIMIT %s")
        with translated("find"):
            async with self._pool.connection() as conn:
                return await self._select(conn, where, order, [limit])

    async def count(self, tenant: str, flt: RecordFilter) -> int:
        where = record_where(tenant, flt)
        query = sql.SQL("SELECT count(*) FROM {table} WHERE {where}").format(
            table=_TABLE, where=where.clause
        )
        with translated("count"):
            async with self._pool.connection() as conn:
                cursor = await conn.execute(query, where.params)
                row = await cursor.fetchone()
        return int(row[0]) if row is not None else 0

    async def count_by_user(self, tenant: str, flt: RecordFilter) -> dict[str | None, int]:
        where = record_where(tenant, flt)
        query = sql.SQL(
            'SELECT "user", count(*) FROM {table} WHERE {where} GROUP BY "user"'
        ).format(table=_TABLE, where=where.clause)
        with translated("count"):
            async with self._pool.connection() as conn:
                cursor = await conn.execute(query, where.params)
                rows = await cursor.fetchall()
        return {user: int(n) for user, n in rows}

    async def tenants(self) -> list[str]:
        query = sql.SQL("SELECT DISTINCT tenant FROM {} ORDER BY tenant").format(_TABLE)
        with translated("tenants"):
            async with self._pool.connection() as conn:
                cursor = await conn.execute(query)
                return [str(row[0]) for row in await cursor.fetchall()]

    async def keyword_search(
        self, tenant: str, flt: RecordFilter, terms: Sequence[str], k: int
    ) -> list[Ranked]:
        hits = await self._keyword_search(tenant, flt, terms, k, select="ids")
        return [(str(row[0]), score) for row, score in hits]

    async def keyword_search_records(
        self, tenant: str, flt: RecordFilter, terms: Sequence[str], k: int
    ) -> list[ScoredRecord]:
        hits = await self._keyword_search(tenant, flt, terms, k, select="records")
        return [(record_of(row), score) for row, score in hits]

    async def vector_search(
        self, tenant: str, flt: RecordFilter, vector: Vector, k: int
    ) -> list[Ranked]:
        hits = await self._vector_search(tenant, flt, vector, k, select="ids")
        return [(str(row[0]), score) for row, score in hits]

    async def vector_search_records(
        self, tenant: str, flt: RecordFilter, vector: Vector, k: int
    ) -> list[ScoredRecord]:
        hits = await self._vector_search(tenant, flt, vector, k, select="records")
        return [(record_of(row), score) for row, score in hits]

    async def _keyword_search(
        self,
        tenant: str,
        flt: RecordFilter,
        terms: Sequence[str],
        k: int,
        *,
        select: postgres_search.Selected,
    ) -> list[postgres_search.Hit]:
        _positive(k)
        words = words_of(terms)
        if k == 0 or not words:
            return []
        where = record_where(tenant, flt)

        async def search(conn: AsyncConnection[Any]) -> list[postgres_search.Hit]:
            lexemes = await self._keywords.lexemes(conn, words)
            # no tiers: only stopwords
            plan = self._routable(await self._keywords.plan(conn, lexemes))
            return await postgres_search.keyword_search(
                conn, where, plan, k, cap=max(self._keywords.budget, 4 * k), select=select
            )

        with translated("keyword_search", field="terms"):
            return await self._search(tenant, search)

    async def _vector_search(
        self,
        tenant: str,
        flt: RecordFilter,
        vector: Vector,
        k: int,
        *,
        select: postgres_search.Selected,
    ) -> list[postgres_search.Hit]:
        _positive(k)
        query = self._check_vector(vector, "vector")
        if k == 0:
            return []
        where = record_where(tenant, flt)

        async def search(conn: AsyncConnection[Any]) -> list[postgres_search.Hit]:
            # the planner chooses between HNSW and B-tree by its statistics: without them,
            # the fenced path (see .search)
            iterative = self._iterative and await self._analysed(conn)
            return await postgres_search.vector_search(
                conn,
                where,
                query,
                k,
                ef_search=self._ef_search,
                exact_threshold=self._exact_threshold,
                select=select,
                iterative=iterative,
            )

        with translated("vector_search", field="vector"):
            return await self._search(tenant, search)

    def _routable(self, plan: KeywordPlan) -> KeywordPlan:
        """``plan``, as planned with statistics when the table is distributed (the fence
        of a table without them scans every tenant: every shard)."""
        if self._distributed and not plan.analysed:
            return KeywordPlan(plan.tiers, analysed=True)
        return plan

    async def _analysed(self, conn: AsyncConnection[Any]) -> bool:
        """Whether searches may trust the planner (see :meth:`_routable`)."""
        return self._distributed or await self._keywords.analysed(conn)

    async def fused_search(
        self,
        tenant: str,
        flt: RecordFilter,
        terms: Sequence[str],
        vector: Vector | None,
        pool: int,
        pick: Pick,
        *,
        fusion: Fusion | None = None,
    ) -> dict[str, StoredRecord]:
        """Both candidate lists by ids and scores, then the records of what ``pick`` keeps
        (see :mod:`.fused`): no record is read for a candidate fusion drops; with
        ``fusion``, those of its top ids are read with the candidates."""
        _positive(pool, "pool")
        query = None if vector is None else self._check_vector(vector, "vector")
        words = words_of(terms)
        if pool == 0 or (query is None and not words):
            return {}

        async def search(conn: AsyncConnection[Any]) -> dict[str, StoredRecord]:
            settings = FusedSettings(
                ef_search=self._ef_search,
                exact_threshold=self._exact_threshold,
                keyword_cap=self._keywords.budget,
                iterative=self._iterative and await self._analysed(conn),
            )
            plan = KeywordPlan([], analysed=True)
            if words:
                # words not seen yet: their stems guessed, and checked by the candidates
                # statement when there is one (a round trip saved; see .stems)
                guess = self._keywords.guess(words)
                plan = self._routable(await self._keywords.plan(conn, guess.lexemes))
                if guess.words and one_statement(plan, query, settings):
                    found = await fused_search(
                        conn,
                        tenant,
                        flt,
                        plan,
                        query,
                        pool,
                        pick,
                        settings,
                        check=guess,
                        fusion=fusion,
                    )
                    if found is not None:
                        self._keywords.learn(guess)
                        return found
                if guess.words:
                    lexemes = await self._keywords.lexemes(conn, words)
                    plan = self._routable(await self._keywords.plan(conn, lexemes))
            found = await fused_search(
                conn, tenant, flt, plan, query, pool, pick, settings, fusion=fusion
            )
            assert found is not None  # (None only for a check)
            return found

        with translated("fused_search", field="terms"):
            return await self._search(tenant, search)
