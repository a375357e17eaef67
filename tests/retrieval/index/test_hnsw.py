"""The HNSW graph of the in-memory index, apart from any store."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

from sedimem.retrieval.index.hnsw import HnswGraph


def narrow(start: int) -> np.ndarray:
    return np.ones((3 - start, 4), np.float32)  # vectors of another width than the graph's


def test_a_failed_graph_build_leaves_exact_search() -> None:
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
    assert graph.failed
    assert not graph.ready
    assert graph.job is None
