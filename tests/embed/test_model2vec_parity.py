"""The shipped embedder against model2vec's own inference of the same weights.

sedimem pools token vectors itself (model2vec is not a run-time dependency: our pooling is
~7x faster, see docs/benchmarks.md); this test proves the vectors are model2vec's. The texts are
generated here (chat-like turns, punctuation, accents, emoji, control characters, words
outside the vocabulary, long texts), not taken from any dataset.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from sedimem.embed import default_embedder
from sedimem.embed.static import DEFAULT_MODEL_DIR

model2vec = pytest.importorskip("model2vec")  # a dev dependency

WORDS = (
    "I went hiking with the kids last weekend and we saw a waterfall near Lisbon "
    "my sister's adoption agency called yesterday about the pottery class schedule "
    "Caroline Melanie Jon Gina café naïve résumé 東京 🦉 don't can't it's "
    "xqzvbrt Zorblaxian supercalifragilistic 42 3.14 #tag @mention https://example.org"
).split()


def texts(count: int, seed: int = 11) -> list[str]:
    rng = random.Random(seed)
    out = []
    for i in range(count):
        length = rng.choice([1, 3, 8, 20, 60]) if i % 50 else 700  # some past 512 tokens
        words = [rng.choice(WORDS) for _ in range(length)]
        if i % 7 == 0:
            words.insert(rng.randrange(len(words) + 1), rng.choice(["\t", "\x0c", "\n\n", "!?"]))
        out.append(f"{rng.choice(['Caroline', 'Jon'])}: " + " ".join(words))
    return out


def test_vectors_match_model2vec_inference_of_the_same_weights() -> None:
    reference = model2vec.StaticModel.from_pretrained(str(DEFAULT_MODEL_DIR))
    sample = texts(400)
    ours = default_embedder().embed(sample)
    theirs = np.asarray(reference.encode(sample, use_multiprocessing=False), dtype=np.float32)
    theirs /= np.linalg.norm(theirs, axis=1, keepdims=True)
    cosines = np.sum(ours * theirs, axis=1)
    assert cosines.min() >= 0.999, [sample[i][:80] for i in np.flatnonzero(cosines < 0.999)]
