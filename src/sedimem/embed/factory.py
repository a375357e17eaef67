"""The embedder ``SEDIMEM_EMBEDDER`` names, built from settings at the edge."""

from __future__ import annotations

import asyncio

from sedimem.config import Settings
from sedimem.embed.base import Embedder
from sedimem.embed.hashing import HashEmbedder
from sedimem.embed.static import default_embedder

__all__ = ["HASH_DIMENSION", "open_embedder"]

#: the hash embedder's dimension when ``SEDIMEM_EMBEDDER_DIMENSION`` is unset
HASH_DIMENSION = 256


async def open_embedder(settings: Settings) -> Embedder:
    """``default`` (the packaged static model), ``minilm`` (all-MiniLM-L6-v2 on onnxruntime,
    loaded here: a missing ``quality`` extra fails now, not at the first write), ``openai``
    (an OpenAI-compatible endpoint, asked once for its dimension when it is not configured)
    or ``hash`` (tests)."""
    if settings.embedder == "hash":
        return HashEmbedder(settings.embedder_dimension or HASH_DIMENSION)
    if settings.embedder == "minilm":
        from sedimem.embed.minilm import packaged_minilm  # the quality extra: imported on use

        # about a second the first time: off the event loop
        return await asyncio.to_thread(packaged_minilm, settings.embedder_threads)
    if settings.embedder == "openai":
        from sedimem.embed.openai import OpenAIEmbedder  # needs httpx: imported on use

        assert settings.embedder_url is not None
        assert settings.embedder_model is not None
        key = settings.embedder_api_key
        embedder = OpenAIEmbedder(
            settings.embedder_url,
            settings.embedder_model,
            key.get_secret_value() if key is not None else None,
            settings.embedder_dimension,
            timeout=settings.embedder_timeout_seconds,
            max_retries=settings.embedder_max_retries,
            cache_size=settings.embedder_cache_size,
        )
        try:
            await embedder.aembed([])  # learns the dimension (one probe) if not configured
        except BaseException:
            await embedder.aclose()
            raise
        return embedder
    return default_embedder()
