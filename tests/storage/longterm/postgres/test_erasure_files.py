"""Erasure on PostgreSQL, byte by byte: what ``forget`` leaves in the server's files, and
what the operator's steps of docs/longterm.md ("Erasure on PostgreSQL") remove.

``forget`` runs ``VACUUM (ANALYZE)``: the erased rows leave every index at once, but plain
VACUUM frees the heap's space without zeroing it, and the write-ahead log keeps what was
written. This reads the database's files raw, so the docs stay honest.
"""

from __future__ import annotations

from pathlib import Path

import psycopg
import pytest

from sedimem.access import Access
from sedimem.embed import HashEmbedder
from sedimem.memory import Memory
from sedimem.scope import Scope
from sedimem.testing.postgres_server import PostgresServer
from sedimem.types import Episode

pytestmark = pytest.mark.postgres

MARKER = b"zebra-quartz-marker-4711"
#: Segments the log is moved on by, at most, until the erased bytes are gone: past every
#: future segment a checkpoint may have recycled them into (min_wal_size is 80 MB: 5).
WAL_ROUNDS = 30
_RELATIONS = """
    SELECT c.relname, pg_relation_filepath(c.oid) FROM pg_class c
    WHERE c.oid = 'sedimem_lt_records'::regclass
       OR c.oid = (SELECT reltoastrelid FROM pg_class WHERE relname = 'sedimem_lt_records')
       OR c.oid IN (SELECT indexrelid FROM pg_index WHERE indrelid IN (
            'sedimem_lt_records'::regclass,
            (SELECT reltoastrelid FROM pg_class WHERE relname = 'sedimem_lt_records')))
"""


def _hits(url: str, data_dir: Path) -> dict[str, int]:
    """Occurrences of the marker per relation (the table, its TOAST table, each index)."""
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("CHECKPOINT")  # what the server changed reaches the files
        relations = conn.execute(_RELATIONS).fetchall()
    found: dict[str, int] = {}
    for name, relative in relations:
        base = data_dir / relative
        files = [p for p in base.parent.glob(base.name + "*") if p.is_file()]
        found[name] = sum(p.read_bytes().count(MARKER) for p in files)
    return found


def _wal_hits(data_dir: Path) -> int:
    segments = [p for p in (data_dir / "pg_wal").iterdir() if p.is_file()]
    return sum(p.read_bytes().count(MARKER) for p in segments)


async def test_forget_then_the_operators_steps_leave_no_byte(
    postgres_url: str, postgres_server: PostgresServer
) -> None:
    data_dir = postgres_server.data_dir
    async with await Memory.open(
        working="memory://", store=postgres_url, embedder=HashEmbedder(64)
    ) as memory:
        ana, bo = Scope(tenant="t", user="ana"), Scope(tenant="t", user="bo")
        for n in range(20):
            text = f"{MARKER.decode()} {n} " + "filler " * 50
            await memory.episodes.record(Episode(scope=ana, description=text))
        await memory.episodes.record(Episode(scope=bo, description="bo stays"))
        assert sum(_hits(postgres_url, data_dir).values()) > 0  # the probe sees it at all
        receipt = await memory.forget(Access.local("t"), user="ana")
        assert receipt.episodes == 20
        assert "VACUUM" in receipt.scrubbed
    after_forget = _hits(postgres_url, data_dir)
    # every index is clean at once; the heap keeps the bytes in its freed space
    assert {n: c for n, c in after_forget.items() if n != "sedimem_lt_records" and c} == {}
    # the operator's first step: rewrite the table (VACUUM FULL; pg_repack does it online)
    with psycopg.connect(postgres_url, autocommit=True) as conn:
        conn.execute("VACUUM FULL sedimem_lt_records")
    assert sum(_hits(postgres_url, data_dir).values()) == 0
    assert _wal_hits(data_dir) > 0  # the write-ahead log still holds it
    # the second: past a checkpoint, WAL segments are removed, not recycled, with
    # wal_recycle off (a recycled segment keeps its old bytes until overwritten); no
    # archive, no replication slot and wal_keep_size 0 hold them here
    # (the reload reaches the checkpointer when it gets to it: a checkpoint before that, on
    # a busy machine, still recycles the segment into a future one, removed only once the
    # log has moved past it; so the log is moved on, a segment at a time, until it is)
    with psycopg.connect(postgres_url, autocommit=True) as conn:
        conn.execute("ALTER SYSTEM SET wal_recycle = off")
        conn.execute("SELECT pg_reload_conf()")
        conn.execute("CREATE TABLE wal_advance (n integer)")
        try:
            for _ in range(WAL_ROUNDS):
                conn.execute("INSERT INTO wal_advance VALUES (1)")
                conn.execute("SELECT pg_switch_wal()")
                conn.execute("CHECKPOINT")
                if _wal_hits(data_dir) == 0:
                    break
            assert _wal_hits(data_dir) == 0
        finally:
            conn.execute("DROP TABLE wal_advance")
            conn.execute("ALTER SYSTEM RESET wal_recycle")
            conn.execute("SELECT pg_reload_conf()")
    with psycopg.connect(postgres_url) as conn:
        left = conn.execute("SELECT count(*) FROM sedimem_lt_records WHERE kind = 'episode'")
        assert left.fetchone() == (1,)  # bo's episode
