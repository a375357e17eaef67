"""Embedding records, and checking vectors a caller brings."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from sedimem.embed.base import Embedder
from sedimem.errors import ValidationError
from sedimem.storage.longterm.base import Vector

__all__ = ["as_vector", "embed_all"]


def as_vector(values: Sequence[float] | Vector, dimension: int, field: str = "embedding") -> Vector:
    """A caller's embedding as a normalised float32 vector of the embedder's dimension."""
    array = np.asarray(values, dtype=np.float32)
    if array.ndim != 1 or array.shape[0] != dimension:
        raise ValidationError(
            field, f"has shape {array.shape}", allowed=f"{dimension} numbers (the embedder's)"
        )
    norm = float(np.linalg.norm(array))
    if not np.isfinite(array).all() or norm == 0.0:
        raise ValidationError(field, "must be finite and non-zero", allowed="a real vector")
    return array / norm


async def embed_all(embedder: Embedder, texts: Sequence[str]) -> list[Vector]:
    if not texts:
        return []
    matrix = await embedder.aembed(list(texts))
    return [np.ascontiguousarray(row, dtype=np.float32) for row in matrix]
