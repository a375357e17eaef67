"""Embedders: the ``Embedder`` protocol, the shipped static default and adapters.

``default_embedder()`` is the offline default (no torch, no network). ``OpenAIEmbedder`` is
imported from :mod:`sedimem.embed.openai` (it needs ``httpx`` and ``tenacity``),
``OnnxMiniLMEmbedder`` (all-MiniLM-L6-v2 on onnxruntime, the ``quality`` extra) from
:mod:`sedimem.embed.minilm`.
"""

from sedimem.embed.base import Embedder, Matrix
from sedimem.embed.hashing import HashEmbedder
from sedimem.embed.static import StaticEmbedder, default_embedder

__all__ = ["Embedder", "HashEmbedder", "Matrix", "StaticEmbedder", "default_embedder"]
