"""The IVF partition of the in-memory index, apart from any store."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

from sedimem.retrieval.index.ivf import IVF_SECTIONS, Partition, list_count, probe_count
from sedimem.retrieval.index.partitioned import IvfIndex
from tests.retrieval.index.test_hnsw import clustered


def recall_at_10(
    partition: Partition, rows: np.ndarray, queries: np.ndarray, probes: int | None = None
) -> float:
    found = 0
    for query in queries:
        candidates = partition.search(query, 50, probes=probes)
        best = candidates[np.argsort(-(rows[candidates] @ query))[:10]]
        found += len(set(best.tolist()) & set(np.argsort(-(rows @ query))[:10].tolist()))
    return found / (10 * queries.shape[0])


def test_lists_grow_with_the_square_root_and_queries_probe_a_share() -> None:
    assert [list_count(n) for n in (1, 300, 4000, 100_000, 1_000_000, 10**8)] == [
        1,
        16,
        64,
        256,
        1024,
        1024,
    ]
    assert probe_count(512) == 24
    assert probe_count(1024) == 25


def test_vectors_sharing_one_direction_find_their_exact_neighbours() -> None:
    """Codes of each vector's difference to the mean keep what tells them apart: with
    every list scanned, the top 50 by codes hold the exact top 10 (re-scored)."""
    rng = np.random.default_rng(3)
    rows = clustered(4000, rng)
    partition = Partition.build(rows)
    assert partition.centroids.shape[0] == 64
    queries = clustered(100, rng)
    assert recall_at_10(partition, rows, queries, probes=64) >= 0.97
    # 16 lists of 64 (a quarter) on isotropic noise, which no partition suits: most
    assert recall_at_10(partition, rows, queries, probes=16) >= 0.6


def test_every_slot_is_in_exactly_one_list_with_its_codes() -> None:
    rng = np.random.default_rng(4)
    rows = clustered(3000, rng)
    partition = Partition.build(rows[:2000]).extended(rows[2000:], 2000)
    assert sorted(partition.slots.tolist()) == list(range(3000))
    assert partition.offsets[0] == 0
    assert partition.offsets[-1] == 3000
    assert (np.diff(partition.offsets) >= 0).all()
    np.testing.assert_array_equal(partition.codes, partition._quantize(rows[partition.slots]))
    # each added vector sits in the list of its nearest centroid
    centroids = partition.centroids
    lists = np.repeat(np.arange(centroids.shape[0]), np.diff(partition.offsets))
    nearest = np.argmax(rows @ centroids.T - 0.5 * (centroids**2).sum(axis=1), axis=1)
    added = partition.slots >= 2000
    np.testing.assert_array_equal(lists[added], nearest[partition.slots[added]])
    # searching the grown partition finds the added vectors too
    assert recall_at_10(partition, rows, clustered(50, rng), probes=64) >= 0.97


def test_saved_sections_round_trip_and_inconsistent_ones_are_refused() -> None:
    rows = clustered(500, np.random.default_rng(5))
    partition = Partition.build(rows)
    sections = partition.sections()
    assert set(sections) == set(IVF_SECTIONS)
    again = Partition.from_sections(sections)
    query = rows[7]
    np.testing.assert_array_equal(again.search(query, 20), partition.search(query, 20))
    cut = dict(sections, ivf_codes=sections["ivf_codes"][:-1])
    with pytest.raises(ValueError, match="inconsistent"):
        Partition.from_sections(cut)
    with pytest.raises(ValueError, match="at least one"):
        Partition.build(rows[:0])


def test_a_saved_partition_checks_each_list_before_reading_it() -> None:
    rows = clustered(2000, np.random.default_rng(6))
    asked: list[tuple[int, int]] = []
    index = IvfIndex(None)
    index.view(Partition.build(rows).sections(), lambda lo, hi: asked.append((lo, hi)))
    index.search(rows[0], 10)
    assert 0 < len(asked) <= probe_count(list_count(2000))
    assert all(lo < hi for lo, hi in asked)
    asked.clear()
    index.refresh(2100, lambda start: clustered(2100 - start, np.random.default_rng(7)), 50)
    assert asked == [(0, 2000)]  # an extension reads every code: all checked first
    assert index.covered == 2100
    asked.clear()
    index.search(rows[0], 10)
    assert asked == []  # the extended partition lives in memory


def test_a_failed_build_leaves_exact_search_and_jobs_run_in_the_background(
    caplog: pytest.LogCaptureFixture,
) -> None:
    def narrow(start: int) -> np.ndarray:
        return np.ones((0, 8), np.float32)  # nothing to build from

    with ThreadPoolExecutor(1) as pool:
        index = IvfIndex(pool)
        index.refresh(3, narrow, 1)
        assert index.job is not None
        index.job.exception()
        index.refresh(3, narrow, 1)  # collects the failure
        assert index.failed
        assert "building the IVF partition failed" in caplog.text
        assert not index.ready
        assert index.job is None
        assert index.sections() == {}

        rows = clustered(1000, np.random.default_rng(8))
        index = IvfIndex(pool)
        index.refresh(1000, lambda start: rows[start:], 1)
        index.complete(1000, lambda start: rows[start:])  # waits for the job
        assert index.ready
        assert index.covered == 1000
        index.close()
        assert not index.ready


def test_candidates_are_the_best_by_their_codes_over_the_probed_lists() -> None:
    """The lists' int8 dots, written side by side into one array, pick exactly the best
    ``count`` by codes (checked against numpy's integer dot of every probed row)."""
    rng = np.random.default_rng(11)
    rows = clustered(3000, rng)
    partition = Partition.build(rows)
    lists = partition.centroids.shape[0]
    for query in clustered(20, rng):
        weights = query / partition.scale
        asked = np.rint(weights * (127.0 / np.abs(weights).max())).astype(np.int64)
        scores = partition.codes.astype(np.int64) @ asked  # every row's dot, exactly
        got = partition.search(query, 60, probes=lists)
        assert np.unique(got).shape[0] == 60
        by_slot = np.empty(partition.covered, dtype=np.int64)
        by_slot[partition.slots] = scores
        rest = np.setdiff1d(np.arange(partition.covered), got)
        assert by_slot[got].min() >= by_slot[rest].max()
