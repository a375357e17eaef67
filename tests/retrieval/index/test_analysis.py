"""Batches of texts analysed into postings: the batch path equals analysing each text
alone, and a bulk build's worker processes give the same index and leave nothing behind."""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import signal

import numpy as np
import pytest

from sedimem.retrieval.index import analysis
from sedimem.retrieval.index.analysis import POOL_FROM, TextAnalysis, analyse, encode
from sedimem.retrieval.index.analyzer import Analyzer
from sedimem.retrieval.index.engine import MemoryIndexEngine
from sedimem.retrieval.index.memindex import MemIndex
from sedimem.storage.longterm.base import RecordFilter
from sedimem.storage.longterm.sqlite.schema import INDEX_COLUMNS

TRICKY = [
    "Running runs RAN, the runner's run-ins (#12)",
    "Café naïve Ünïcode façade — résumé",
    "日本語のテキスト and ASCII",
    "",
    "   \t\n ",
    "a\x01b \x01 c",  # the batch's own separator inside a text
    "under_score __x__ 4th 3.14 x\x00y",
    # compatibility forms (a ligature, fullwidth letters, a roman numeral): NFKD-folded
    "\ufb01nance \uff46\uff55\uff4c\uff4c width \u216b",
    "\x1c\x1d\x1e\x1f spaces to str.split, not to the tokenizer",
]


def same(a: analysis.AnalysedBatch, b: analysis.AnalysedBatch) -> None:
    assert a.vocab == b.vocab
    for field in ("lengths", "docs", "terms", "tfs"):
        np.testing.assert_array_equal(getattr(a, field), getattr(b, field))


def test_a_batch_is_analysed_as_each_text_alone() -> None:
    rng = np.random.default_rng(3)
    words = ["cat", "cats", "running", "ran", "Über", "naïve", "x_y", "42", "a\x01"]
    texts = [" ".join(rng.choice(words, size=int(rng.integers(0, 12)))) for _ in range(300)]
    texts = TRICKY + texts + TRICKY
    one_by_one = Analyzer()
    same(analyse(Analyzer(), texts), encode([one_by_one.terms(t) for t in texts]))
    for text in TRICKY:
        same(analyse(Analyzer(), [text]), encode([one_by_one.terms(text)]))
    empty = analyse(Analyzer(), [])
    assert empty.vocab == []
    assert empty.lengths.shape == (0,)


def rows(texts: list[str]) -> list[tuple[object, ...]]:
    col = {name: i for i, name in enumerate(INDEX_COLUMNS)}
    out = []
    for i, text in enumerate(texts):
        row: list[object] = [None] * len(INDEX_COLUMNS)
        row[col["rid"]], row[col["id"]], row[col["text"]] = i + 1, f"r{i}", text
        row[col["sources"]] = "[]"
        out.append(tuple(row))
    return out


def corpus(n: int) -> list[str]:
    rng = np.random.default_rng(9)
    words = [f"w{i}" for i in range(400)] + ["running", "runs", "Café", "naïve"]
    return [" ".join(rng.choice(words, size=int(rng.integers(1, 9)))) for _ in range(n)]


def build(engine: MemoryIndexEngine, texts: list[str]) -> MemIndex:
    index = engine.create(None)
    every = rows(texts)
    for start in range(0, len(texts), 5000):
        index.add_rows(every[start : start + 5000])
    return index


QUERIES = [["w1", "w2"], ["run"], ["w7", "cafe", "w399"], ["naiv", "w0"], ["absent"]]


def answers(index: MemIndex) -> list[list[tuple[str, float]]]:
    return [index.keyword_search(q, RecordFilter(), 20) for q in QUERIES]


def test_a_bulk_build_in_worker_processes_is_the_inline_build() -> None:
    texts = corpus(POOL_FROM + 6000)
    inline = build(MemoryIndexEngine(analysis_workers=0), texts)
    engine = MemoryIndexEngine(analysis_workers=2)
    try:
        pooled = build(engine, texts)
        assert engine._analysis._pool is not None  # the workers did the bulk of it
        assert answers(pooled) == answers(inline)
        # later writes (small: analysed inline) and deletes stay exact
        more = rows(texts + corpus(50))[len(texts) :]  # rids after the build's
        for index in (pooled, inline):
            index.add_rows(more)
            index.remove_rids(list(range(1, 4000, 3)))
        assert answers(pooled) == answers(inline)
    finally:
        engine.close()
    assert engine._analysis._pool is None
    assert not multiprocessing.active_children()


def test_small_indexes_start_no_process() -> None:
    engine = MemoryIndexEngine(analysis_workers=2)
    try:
        index = build(engine, corpus(3000))
        assert answers(index)[0]
        assert engine._analysis._pool is None
    finally:
        engine.close()


def test_a_failed_worker_leaves_the_batch_to_the_caller() -> None:
    texts = corpus(20_000)
    work = TextAnalysis(Analyzer(), 2)
    try:
        pending = work.submit(texts, POOL_FROM)
        pool = work._pool
        assert pool is not None
        for process in list(pool._processes.values()):  # type: ignore[union-attr]
            os.kill(process.pid, signal.SIGKILL)  # type: ignore[arg-type]
        same(pending.result(), analyse(Analyzer(), texts))  # analysed here instead
        assert work.workers == 0
        later = work.submit(texts[:2000], POOL_FROM)  # no pool any more: inline
        assert later.done()
    finally:
        work.close()
    assert not multiprocessing.active_children()


async def test_a_bulk_build_from_an_async_caller() -> None:
    texts = corpus(POOL_FROM + 1000)
    engine = MemoryIndexEngine(analysis_workers=2)
    try:
        pooled = await asyncio.to_thread(build, engine, texts)
        inline = build(MemoryIndexEngine(analysis_workers=0), texts)
        assert answers(pooled) == answers(inline)
    finally:
        await asyncio.to_thread(engine.close)
    assert not multiprocessing.active_children()


@pytest.mark.parametrize("workers", [0, 1])
def test_one_worker_or_none_means_inline(workers: int) -> None:
    work = TextAnalysis(Analyzer(), workers)
    assert work.submit(corpus(2000), POOL_FROM).done()
    assert work._pool is None
    work.close()
