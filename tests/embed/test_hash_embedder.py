"""The deterministic hash embedder used by tests."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

from sedimem.embed import Embedder, HashEmbedder
from sedimem.errors import ValidationError


def test_golden_vector_is_stable_across_machines() -> None:
    vector = HashEmbedder(8).embed(["Hello, hello world!"])[0]
    expected = np.zeros(8, dtype=np.float32)
    expected[7], expected[0] = 2 / np.sqrt(5), 1 / np.sqrt(5)  # "hello" twice, "world" once
    np.testing.assert_allclose(vector, expected, atol=1e-7)


def test_same_vector_in_another_process_with_another_hash_seed() -> None:
    texts = ["the same text", "Another one, with Punctuation!"]
    code = (
        "from sedimem.embed import HashEmbedder\n"
        f"print(HashEmbedder(32).embed({texts!r}).tobytes().hex())\n"
    )
    env = {**os.environ, "PYTHONHASHSEED": "12345"}
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env
    )
    assert result.stdout.strip() == HashEmbedder(32).embed(texts).tobytes().hex()


def test_shape_normalisation_and_overlap() -> None:
    embedder = HashEmbedder(64)
    assert isinstance(embedder, Embedder)
    assert embedder.name == "sedimem/hash-v1-64"
    assert embedder.dimension == 64
    vectors = embedder.embed(["red apple pie", "Apple pie, red!", "quantum chromodynamics", ""])
    assert vectors.shape == (4, 64)
    assert vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors[:3], axis=1), 1.0, atol=1e-6)
    assert not vectors[3].any()
    np.testing.assert_allclose(vectors[0], vectors[1], atol=1e-6)  # same words, case-folded
    assert vectors[0] @ vectors[1] > vectors[0] @ vectors[2]
    assert embedder.embed([]).shape == (0, 64)


async def test_aembed_and_validation() -> None:
    embedder = HashEmbedder()
    np.testing.assert_array_equal(await embedder.aembed(["x y"]), embedder.embed(["x y"]))
    many = [f"text {i}" for i in range(40)]
    np.testing.assert_array_equal(await embedder.aembed(many), embedder.embed(many))
    with pytest.raises(ValidationError) as info:
        embedder.embed(["ok", None])  # type: ignore[list-item]
    assert info.value.field == "texts.1"
    for bad in (0, -3, True, 2.5):
        with pytest.raises(ValidationError):
            HashEmbedder(bad)  # type: ignore[arg-type]
