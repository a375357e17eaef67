"""The HNSW graph of the in-memory index, apart from any store."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

from sedimem.retrieval.index.hnsw import HnswGraph


def narrow(start: int) -> np.ndarray:
    return np.ones((3 - start, 4), np.float32)  # vectors of another width than the graph's


def test_a_failed_graph_build_leaves_exact_search(caplog: pytest.LogCaptureFixture) -> None:
    graph = HnswGraph(8, None)
    with pytest.raises(ValueError, match="dimensions"):  # vectors of another width
        graph.refresh(3, narrow, 1)
    assert not graph.ready

    with ThreadPoolExecutor(1) as pool:
        graph = HnswGraph(8, pool)
        graph.refresh(3, narrow, 1)
        assert graph.job is not None
        graph.job.exception()
        graph.refresh(3, narrow, 1)  # collects the failure
        graph.refresh(3, narrow, 1)  # and tries no more
        assert graph.job is None
    assert graph.failed
    assert not graph.ready
    failures = [r for r in caplog.records if "failed" in r.getMessage()]
    assert [r.getMessage() for r in failures] == [
        "building the HNSW graph failed; vector search stays exact"
    ]


def clustered(count: int, rng: np.random.Generator, shift: float = 0.0) -> np.ndarray:
    """Unit vectors on a narrow cone around one direction (their mean has norm ~0.995),
    as a static embedder's share one: what separates them is a small part of each."""
    rows = rng.standard_normal((count, 48)).astype(np.float32)
    rows[:, 0] = 0.0
    rows *= 0.1 / np.linalg.norm(rows, axis=1, keepdims=True)
    rows[:, 0] = 1.0
    rows[:, 1] += shift
    normed: np.ndarray = rows / np.linalg.norm(rows, axis=1, keepdims=True)
    return normed


def test_vectors_sharing_one_direction_find_their_exact_neighbours() -> None:
    rng = np.random.default_rng(3)
    rows = clustered(4000, rng)
    graph = HnswGraph(48, None)
    graph.refresh(rows.shape[0], lambda start: rows[start:], 1)
    queries = clustered(100, rng)
    found = 0
    for query in queries:
        candidates = graph.search(query, 30)
        best = candidates[np.argsort(-(rows[candidates] @ query))[:10]]
        found += len(set(best.tolist()) & set(np.argsort(-(rows @ query))[:10].tolist()))
    # int8 cells of the raw vectors keep little of what tells them apart (0.82 here)
    assert found / 1000 >= 0.97


def test_the_centre_is_the_first_builds_mean_and_travels_with_the_saved_graph() -> None:
    rng = np.random.default_rng(5)
    first = clustered(3000, rng)
    graph = HnswGraph(48, None)
    graph.refresh(first.shape[0], lambda start: first[start:], 1)
    assert graph.center is not None
    center = graph.center.copy()
    np.testing.assert_allclose(center, first.mean(axis=0, dtype=np.float64), atol=1e-6)

    rows = np.concatenate([first, clustered(3000, rng, shift=0.5)])  # elsewhere: same centre
    graph.refresh(rows.shape[0], lambda start: rows[start:], 1)
    assert graph.covered == rows.shape[0]
    np.testing.assert_array_equal(graph.center, center)

    saved = graph.saved()
    assert saved is not None
    reopened = HnswGraph(48, None)
    reopened.view(saved, graph.covered, graph.center)
    for query in clustered(20, rng):
        np.testing.assert_array_equal(reopened.search(query, 20), graph.search(query, 20))
