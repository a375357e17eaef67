"""Embedders: the ``Embedder`` protocol, the shipped static default and adapters.

``default_embedder()`` is the offline default (no torch, no network). ``OpenAIEmbedder`` is
imported from :mod:`memstrata.embed.openai` (it needs ``httpx`` and ``tenacity``).
"""

from memstrata.embed.base import Embedder, Matrix
from memstrata.embed.hashing import HashEmbedder
from memstrata.embed.static import StaticEmbedder, default_embedder

__all__ = ["Embedder", "HashEmbedder", "Matrix", "StaticEmbedder", "default_embedder"]
