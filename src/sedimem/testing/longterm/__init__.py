"""The long-term store conformance suite, identical for every backend.

Subclass :class:`LongTermStoreConformance` and provide one async fixture:

- ``store``: a fresh, empty :class:`~sedimem.storage.longterm.base.LongTermStore` on
  which ``bind_embedder`` has not been called yet.

Records are built directly (:func:`make_record`) with small deterministic vectors
(dimension :data:`DIM`, L2-normalised). Ids are valid, time-ordered UUID strings, so a
backend may keep them in a ``uuid`` column. The tests live in
:mod:`~sedimem.testing.longterm.records`, :mod:`~sedimem.testing.longterm.search` and
:mod:`~sedimem.testing.longterm.visibility`.
"""

from __future__ import annotations

from sedimem.testing.longterm.helpers import (
    DIM,
    EMBEDDER,
    make_record,
    new_record_id,
    unit_vector,
)
from sedimem.testing.longterm.records import RecordConformance
from sedimem.testing.longterm.search import SearchConformance
from sedimem.testing.longterm.visibility import VisibilityConformance

__all__ = [
    "DIM",
    "EMBEDDER",
    "LongTermStoreConformance",
    "make_record",
    "new_record_id",
    "unit_vector",
]


class LongTermStoreConformance(RecordConformance, SearchConformance, VisibilityConformance):
    """Every rule of :mod:`sedimem.storage.longterm.base`, checked on one backend."""
