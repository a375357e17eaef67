"""The ``Embedder`` protocol and the checks every embedder shares.

An embedder turns texts into unit-length float32 vectors of a fixed dimension. Its ``name``
identifies the model *and* its version, so a store can refuse vectors written by another one.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

from sedimem.errors import ValidationError

__all__ = [
    "INLINE_BATCH",
    "CachingEmbedder",
    "Embedder",
    "Matrix",
    "check_texts",
    "embed_off_loop",
    "forget_cached_text",
    "normalize_rows",
]

Matrix = npt.NDArray[np.float32]
"""A 2-D float32 array of shape ``(n, dimension)``."""

INLINE_BATCH = 16
"""Local embedders run batches up to this size on the event loop (a thread hop costs more)."""


@runtime_checkable
class Embedder(Protocol):
    """Turns texts into vectors.

    ``embed`` returns a C-contiguous float32 array of shape ``(len(texts), dimension)`` whose
    rows have unit L2 norm; the one exception is a text that carries nothing the model knows
    (an empty string, say), which embeds to the zero row. An empty ``texts`` gives shape
    ``(0, dimension)``. A ``texts`` that is not a sequence of ``str`` raises
    :class:`~sedimem.errors.ValidationError` naming the field (``texts.3``).
    """

    @property
    def name(self) -> str:
        """Model and version, e.g. ``"sedimem/minilm-l6-static-v1"``."""
        ...

    @property
    def dimension(self) -> int:
        """Length of every vector."""
        ...

    def embed(self, texts: Sequence[str]) -> Matrix:
        """Embed ``texts`` (blocking)."""
        ...

    async def aembed(self, texts: Sequence[str]) -> Matrix:
        """Embed ``texts`` without blocking the event loop for long."""
        ...


@runtime_checkable
class CachingEmbedder(Protocol):
    """An embedder that keeps pieces of the texts it saw (a chunk cache, say)."""

    def clear_cache(self) -> None:
        """Drop every cached piece of text (erasure calls it)."""
        ...


def forget_cached_text(embedder: Embedder) -> None:
    """Drop what ``embedder`` keeps of texts it saw, if it keeps anything."""
    if isinstance(embedder, CachingEmbedder):
        embedder.clear_cache()


def check_texts(texts: Sequence[str]) -> list[str]:
    """``texts`` as a list, or :class:`ValidationError` naming the first bad item."""
    if isinstance(texts, str | bytes) or not isinstance(texts, Sequence):
        raise ValidationError(
            "texts",
            f"expected a sequence of strings, got {type(texts).__name__}",
            allowed="a list or tuple of str (wrap a single text in a list)",
        )
    items = list(texts)
    for index, text in enumerate(items):
        if not isinstance(text, str):
            raise ValidationError(
                f"texts.{index}", f"expected str, got {type(text).__name__}", allowed="str"
            )
    return items


def normalize_rows(matrix: Matrix) -> Matrix:
    """Scale each row of ``matrix`` to unit L2 norm in place; zero rows stay zero."""
    norms = np.sqrt(np.einsum("ij,ij->i", matrix, matrix))
    norms[norms == 0] = 1.0
    matrix /= norms[:, None]
    return matrix


async def embed_off_loop(embedder: Embedder, texts: Sequence[str]) -> Matrix:
    """Run a local embedder's ``embed``: inline for small batches, else in a worker thread."""
    if isinstance(texts, Sequence) and len(texts) <= INLINE_BATCH:
        return embedder.embed(texts)
    return await asyncio.to_thread(embedder.embed, texts)
