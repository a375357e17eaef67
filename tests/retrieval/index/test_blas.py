"""Search products run on one BLAS thread, and the process's setting is left as it was."""

from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_info

from sedimem.memory import Memory
from sedimem.retrieval.index import blas
from sedimem.retrieval.index.blas import one_blas_thread


def blas_threads() -> list[int]:
    return [lib["num_threads"] for lib in threadpool_info() if lib["user_api"] == "blas"]


def test_products_inside_run_on_one_thread_and_the_setting_comes_back() -> None:
    before = blas_threads()
    assert before  # numpy links a BLAS
    matrix = np.ones((64, 8), dtype=np.float32)
    with one_blas_thread():
        assert blas_threads() == [1] * len(before)
        scores = matrix @ np.ones(8, dtype=np.float32)
    assert scores.tolist() == [8.0] * 64
    assert blas_threads() == before
    with one_blas_thread(), one_blas_thread():  # nested: still one, then restored
        assert blas_threads() == [1] * len(before)
    assert blas_threads() == before


async def test_opening_a_memory_scans_the_blas_libraries_before_the_first_search(
    tmp_path: Path,
) -> None:
    """The scan (~10 ms of file-system calls) is done while the store opens, beside the
    tokenizer's load, not by the first search of the process."""
    blas._blas.cache_clear()
    async with await Memory.open(f"sqlite:///{tmp_path}/m.db"):
        assert blas._blas.cache_info().currsize == 1
