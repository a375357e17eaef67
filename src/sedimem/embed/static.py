"""The default embedder: a static (model2vec) model that ships inside the package.

The artifact in ``_model/`` holds one vector per WordPiece token, distilled from
sentence-transformers/all-MiniLM-L6-v2 (see ``_model/PROVENANCE.md`` and
``scripts/build_default_embedder.py``). A text's vector is the normalised mean of the vectors
of its tokens: no padding (the pitfall of pooling over 128 padded positions cannot arise), no
special tokens, unknown tokens dropped, at most ``max_tokens`` tokens. Nothing here needs torch
or a network; weights load on first use (a few tenths of a second) and are shared by all
threads.

Speed: the WordPiece tokenizer costs far more than the pooling, and a BERT tokenizer never looks
across whitespace, so each whitespace-separated chunk is tokenized once and its ids are cached;
a text then costs one ``split`` and a dictionary look-up per word. Tokenizers whose behaviour
could cross whitespace are run on whole texts instead.
"""

from __future__ import annotations

import json
import math
import os
import re
import threading
from collections import ChainMap
from collections.abc import Sequence
from functools import cache
from itertools import chain
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from sedimem.embed.base import Matrix, check_texts, embed_off_loop, normalize_rows
from sedimem.errors import ConfigurationError, ValidationError

if TYPE_CHECKING:
    from tokenizers import Tokenizer

__all__ = ["DEFAULT_MODEL_DIR", "StaticEmbedder", "default_embedder"]

DEFAULT_MODEL_DIR = Path(__file__).resolve().parent / "_model"

_POOL_TEXTS = 32
"""Texts pooled per block of a batch (a few hundred token vectors: the block stays in cache)."""

# Control characters that Python's ``str.split`` treats as whitespace but BERT's normaliser
# deletes ("a\x0cb" is one word to BERT); removing them first keeps chunking identical to the
# tokenizer's own splitting.
_DELETED_BY_BERT = str.maketrans(dict.fromkeys("\x0b\x0c\x1c\x1d\x1e\x1f\x85"))
_HAS_DELETED = re.compile("[\x0b\x0c\x1c-\x1f\x85]")


class _Model:
    """The loaded artifact: token table, tokenizer and the chunk cache."""

    def __init__(
        self, path: Path, dimension: int, max_tokens: int | None, word_cache: bool, cache_size: int
    ) -> None:
        # Imported here: importing sedimem stays fast when nothing is embedded.
        from safetensors.numpy import load_file
        from tokenizers import Tokenizer

        try:
            tensors = load_file(str(path / "model.safetensors"))
            tokenizer = Tokenizer.from_file(str(path / "tokenizer.json"))
        except Exception as exc:  # safetensors and tokenizers raise bare Exceptions
            raise ConfigurationError(f"cannot load the static embedder at {path}: {exc}") from exc
        if "embeddings" not in tensors:
            raise ConfigurationError(f"{path / 'model.safetensors'} has no 'embeddings' tensor")
        table = np.asarray(tensors["embeddings"], dtype=np.float32)
        if "mapping" in tensors:  # a vocabulary-quantised model2vec model
            table = table[tensors["mapping"]]
        if "weights" in tensors:
            table = table * tensors["weights"].astype(np.float32)[:, None]
        vocab = tokenizer.get_vocab_size()
        if table.ndim != 2 or table.shape[1] != dimension or table.shape[0] < vocab:
            raise ConfigurationError(
                f"static embedder at {path}: table of shape {table.shape} does not fit "
                f"dimension {dimension} and a vocabulary of {vocab} tokens"
            )
        # One extra zero row: the id that pads a block of texts to its longest.
        self.pad = table.shape[0]
        self.table: npt.NDArray[np.float32] = np.vstack(
            [table, np.zeros((1, dimension), dtype=np.float32)]
        )
        # Padding (the MiniLM tokenizer.json pads to 128) and truncation are ours to do.
        tokenizer.no_padding()
        tokenizer.no_truncation()
        spec = json.loads(tokenizer.to_str())
        self.tokenizer = tokenizer
        self.max_tokens = max_tokens
        unknown = _unknown_token(tokenizer, spec)
        self.unknown = -1 if unknown is None else unknown
        self.chunked = word_cache and _splits_on_whitespace(spec)
        self.cache: dict[str, tuple[int, ...]] = {}
        self.cache_limit = cache_size

    def token_ids(self, texts: list[str]) -> tuple[npt.NDArray[np.intp], list[int]]:
        """All texts' token ids, concatenated, and the number of ids of each text."""
        if self.chunked:
            if _HAS_DELETED.search("".join(texts)) is not None:
                texts = [text.translate(_DELETED_BY_BERT) for text in texts]
            per_text = self._chunked_ids([text.split() for text in texts])
        else:
            unknown = self.unknown
            per_text = [
                [i for i in encoding.ids if i != unknown]
                for encoding in self.tokenizer.encode_batch_fast(texts, add_special_tokens=False)
            ]
        limit = self.max_tokens
        lengths = []
        for ids in per_text:
            if limit is not None and len(ids) > limit:
                del ids[limit:]
            lengths.append(len(ids))
        flat = np.fromiter(chain.from_iterable(per_text), dtype=np.intp, count=sum(lengths))
        return flat, lengths

    def _chunked_ids(self, chunked: list[list[str]]) -> list[list[int]]:
        """Token ids per text from its whitespace-separated chunks, through the chunk cache."""
        cache = self.cache
        missing = set(chain.from_iterable(chunked)).difference(cache)
        lookup = cache.__getitem__
        if missing:
            words = list(missing)
            unknown = self.unknown
            encodings = self.tokenizer.encode_batch_fast(words, add_special_tokens=False)
            fresh = {
                word: tuple(i for i in encoding.ids if i != unknown)
                for word, encoding in zip(words, encodings, strict=True)
            }
            if len(cache) + len(fresh) <= self.cache_limit:
                cache.update(fresh)
            else:  # full: use the new chunks for this call without keeping them
                lookup = ChainMap(fresh, cache).__getitem__
        return [list(chain.from_iterable(map(lookup, words))) for words in chunked]

    def pool(self, flat: npt.NDArray[np.intp], lengths: list[int]) -> Matrix:
        """Normalised mean of each text's token vectors (sum: the norm cancels the count)."""
        table = self.table
        if len(lengths) == 1 and flat.size:  # a query: a few calls fewer matter at ~50 us
            vector = table[flat].sum(axis=0)
            vector /= math.sqrt(float(vector @ vector)) or 1.0
            single: Matrix = vector[None, :]
            return single
        out = np.zeros((len(lengths), table.shape[1]), dtype=np.float32)
        if not flat.size:
            return out
        # Texts sorted by length, a few dozen at a time, padded with the zero row: one gather
        # and one sum over a (texts, tokens, dim) block each, small enough to stay in cache.
        sizes = np.array(lengths, dtype=np.intp)
        starts = np.cumsum(sizes) - sizes
        order = np.argsort(sizes, kind="stable")
        order = order[sizes[order] > 0]
        for first in range(0, order.size, _POOL_TEXTS):
            rows = order[first : first + _POOL_TEXTS]
            width = int(sizes[rows[-1]])
            offsets = np.arange(width, dtype=np.intp)
            inside = offsets < sizes[rows, None]
            positions = np.where(inside, starts[rows, None] + offsets, 0)
            ids = np.where(inside, flat[positions], self.pad)
            out[rows] = table[ids].sum(axis=1)
        return normalize_rows(out)


class StaticEmbedder:
    """A static (model2vec-format) embedder; with no ``path``, the one shipped in the package.

    ``path`` may point to any model2vec model directory (``model.safetensors``,
    ``tokenizer.json``, ``config.json``). ``name`` defaults to the artifact's
    ``sedimem_name`` (``"sedimem/minilm-l6-static-v1"`` for the shipped one).
    ``max_tokens`` caps the known tokens pooled per text (default, -1: the model's
    ``max_length``, 512 for the shipped one; ``None``: no cap).
    ``word_cache=False`` tokenizes whole texts (slower; same vectors for BERT tokenizers);
    ``cache_size`` bounds the cached chunks (about 100 bytes each; past it, new chunks are
    tokenized on every call).
    """

    def __init__(
        self,
        path: str | os.PathLike[str] | None = None,
        *,
        name: str | None = None,
        max_tokens: int | None = -1,
        word_cache: bool = True,
        cache_size: int = 200_000,
    ) -> None:
        self._path = Path(path) if path is not None else DEFAULT_MODEL_DIR
        config = _read_config(self._path)
        try:
            self._dimension = int(config["hidden_dim"])
        except (KeyError, TypeError, ValueError) as exc:
            raise ConfigurationError(
                f"{self._path / 'config.json'} has no valid 'hidden_dim'"
            ) from exc
        self._name = name or str(config.get("sedimem_name") or f"model2vec/{self._path.name}")
        if max_tokens == -1:
            configured = config.get("max_length", 512)
            max_tokens = configured if isinstance(configured, int) else None
        if max_tokens is not None and (isinstance(max_tokens, bool) or max_tokens < 1):
            raise ValidationError(
                "max_tokens", f"got {max_tokens!r}", allowed="an int >= 1 or None"
            )
        if isinstance(cache_size, bool) or not isinstance(cache_size, int) or cache_size < 0:
            raise ValidationError("cache_size", f"got {cache_size!r}", allowed="an int >= 0")
        self._max_tokens = max_tokens
        self._word_cache = word_cache
        self._cache_size = cache_size
        self._model: _Model | None = None
        self._lock = threading.Lock()

    @property
    def name(self) -> str:
        return self._name

    @property
    def dimension(self) -> int:
        return self._dimension

    @property
    def path(self) -> Path:
        return self._path

    def load(self) -> None:
        """Load the weights now rather than on the first ``embed``."""
        self._loaded()

    def clear_cache(self) -> None:
        """Forget the cached chunks (words of texts embedded so far): after an erasure, the
        process holds no piece of the erased text."""
        model = self._model
        if model is not None:
            # a new dict, not clear(): an embed running meanwhile keeps the one it read
            model.cache = {}

    def embed(self, texts: Sequence[str]) -> Matrix:
        items = check_texts(texts)
        if not items:
            return np.zeros((0, self._dimension), dtype=np.float32)
        model = self._loaded()
        flat, lengths = model.token_ids(items)
        return model.pool(flat, lengths)

    async def aembed(self, texts: Sequence[str]) -> Matrix:
        return await embed_off_loop(self, texts)

    def _loaded(self) -> _Model:
        model = self._model
        if model is None:
            with self._lock:
                if self._model is None:
                    self._model = _Model(
                        self._path,
                        self._dimension,
                        self._max_tokens,
                        self._word_cache,
                        self._cache_size,
                    )
                model = self._model
        return model

    def __repr__(self) -> str:
        return f"StaticEmbedder(name={self._name!r}, dimension={self._dimension})"


@cache
def default_embedder() -> StaticEmbedder:
    """The shipped embedder, one instance per process (its weights load on first use)."""
    return StaticEmbedder()


def _read_config(path: Path) -> dict[str, Any]:
    config_file = path / "config.json"
    try:
        config = json.loads(config_file.read_text(encoding="utf-8"))
    except FileNotFoundError as exc:
        hint = (
            " (the package is incomplete: reinstall sedimem)" if path == DEFAULT_MODEL_DIR else ""
        )
        raise ConfigurationError(f"no static embedder model at {path}{hint}") from exc
    except (OSError, ValueError) as exc:
        raise ConfigurationError(f"cannot read {config_file}: {exc}") from exc
    if not isinstance(config, dict):
        raise ConfigurationError(f"{config_file} is not a JSON object")
    return config


def _unknown_token(tokenizer: Tokenizer, spec: dict[str, Any]) -> int | None:
    model = spec.get("model") or {}
    token = model.get("unk_token")
    if isinstance(token, str):
        return tokenizer.token_to_id(token)
    unk_id = model.get("unk_id")
    return unk_id if isinstance(unk_id, int) else None


def _splits_on_whitespace(spec: dict[str, Any]) -> bool:
    """Whether tokenizing each whitespace-separated chunk alone gives the same ids.

    True for BERT's pipeline: its normaliser works per character (and deletes the control
    characters we delete before splitting), its pre-tokenizer splits on whitespace first, and
    WordPiece works per word.
    """
    normalizer = spec.get("normalizer") or {}
    pre_tokenizer = spec.get("pre_tokenizer") or {}
    added = spec.get("added_tokens") or []
    return (
        normalizer.get("type") == "BertNormalizer"
        and normalizer.get("clean_text") is True
        and pre_tokenizer.get("type") == "BertPreTokenizer"
        and (spec.get("model") or {}).get("type") == "WordPiece"
        and all(
            not (token.get("lstrip") or token.get("rstrip") or token.get("single_word"))
            and not any(ch.isspace() for ch in token.get("content", ""))
            for token in added
        )
    )
