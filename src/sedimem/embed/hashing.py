"""A deterministic feature-hashing embedder, for tests only.

Each lowercased word token is hashed with BLAKE2b (never Python's salted ``hash()``) into one
of ``dimension`` buckets, the counts are summed and the row is normalised. The
same text gives the same vector on every machine and in every process; texts that share words
are close, so retrieval tests behave sensibly without any model.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence

import numpy as np

from sedimem.embed.base import Matrix, check_texts, embed_off_loop, normalize_rows
from sedimem.errors import ValidationError

__all__ = ["HashEmbedder"]

_WORD = re.compile(r"\w+")


class HashEmbedder:
    """Feature hashing of word tokens into ``dimension`` buckets (not semantic).

    Counts are unsigned, so a text with at least one word never embeds to the zero row.
    """

    def __init__(self, dimension: int = 64) -> None:
        if isinstance(dimension, bool) or not isinstance(dimension, int) or dimension < 1:
            raise ValidationError("dimension", f"got {dimension!r}", allowed="an int >= 1")
        self._dimension = dimension

    @property
    def name(self) -> str:
        return f"sedimem/hash-v1-{self._dimension}"

    @property
    def dimension(self) -> int:
        return self._dimension

    def embed(self, texts: Sequence[str]) -> Matrix:
        items = check_texts(texts)
        matrix = np.zeros((len(items), self._dimension), dtype=np.float32)
        for row, text in enumerate(items):
            for word in _WORD.findall(text.lower()):
                digest = hashlib.blake2b(word.encode("utf-8"), digest_size=8).digest()
                matrix[row, int.from_bytes(digest, "little") % self._dimension] += 1.0
        return normalize_rows(matrix)

    async def aembed(self, texts: Sequence[str]) -> Matrix:
        return await embed_off_loop(self, texts)

    def __repr__(self) -> str:
        return f"HashEmbedder(dimension={self._dimension})"
