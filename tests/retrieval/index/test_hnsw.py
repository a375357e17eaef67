"""The HNSW graph of the in-memory index, apart from any store."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

from sedimem.retrieval.index.hnsw import HnswGraph


def test_a_failed_graph_build_leaves_exact_search() -> None:
    graph = HnswGraph(8, None)
    with pytest.raises(ValueError, match="dimensions"):  # vectors of another width
        graph.refresh(np.ones((3, 4), np.float32), 1)
    assert not graph.ready

    with ThreadPoolExecutor(1) as pool:
        graph = HnswGraph(8, pool)
        graph.refresh(np.ones((3, 4), np.float32), 1)
        assert graph.job is not None
        graph.job.exception()
        graph.refresh(np.ones((3, 4), np.float32), 1)  # collects the failure
    assert graph.failed
    assert not graph.ready
    assert graph.job is None
