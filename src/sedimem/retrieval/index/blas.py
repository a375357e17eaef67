"""A search's matrix products on one BLAS thread.

numpy hands ``matrix @ vector`` to its BLAS (OpenBLAS in the wheels), which splits a product
of a few thousand rows across every core. For one query that is a loss whenever the other
cores are busy (other requests, another process): the product waits for a helper thread to
be scheduled. Measured on 2 cores at load ~3, 2,000 x 384 float32: 0.84 ms with the default
threads, 0.14-0.20 ms on one; an assembled context (three searches) went from p50 18 ms to
14 ms at 2k records. A server answers requests concurrently: one thread per product is
the right share. The limit is applied around each product only (the process's other numpy
work keeps its setting), through ``threadpoolctl``, which knows every BLAS build's switch.
"""

from __future__ import annotations

import functools
from contextlib import AbstractContextManager, nullcontext
from typing import Any

__all__ = ["one_blas_thread", "scan_blas"]


@functools.cache
def _blas() -> Any:
    """The BLAS libraries loaded in this process (scanned once: numpy's is loaded by then)."""
    from threadpoolctl import ThreadpoolController  # type: ignore[import-untyped,unused-ignore]

    return ThreadpoolController().select(user_api="blas")


def scan_blas() -> None:
    """Find the BLAS libraries now (~10 ms of file-system calls): a process's first search
    otherwise pays it."""
    _blas()


def one_blas_thread() -> AbstractContextManager[Any]:
    """A context in which BLAS calls run on the calling thread only."""
    blas = _blas()
    if not blas.lib_controllers:  # pragma: no cover - numpy always links a BLAS
        return nullcontext()
    limited: AbstractContextManager[Any] = blas.limit(limits=1)
    return limited
