"""An embedder for any OpenAI-compatible ``POST {base_url}/embeddings`` endpoint.

OpenAI, vLLM, Ollama, llama.cpp server, LM Studio and others speak this API. Texts are sent in
batches; connection errors, timeouts, 429 and 5xx answers are retried with exponential backoff
(tenacity); what still fails becomes :class:`~sedimem.errors.ModelUnavailable`, other 4xx
answers (bad key, unknown model) :class:`~sedimem.errors.ConfigurationError`, and a response
of the wrong shape :class:`~sedimem.errors.ModelError`. Rows are normalised here, since not
every server returns unit vectors. Empty or blank texts are not sent (most servers reject
them): they embed to the zero row. Vectors already fetched are kept in a bounded LRU
(:mod:`sedimem.embed.cache`, ``cache_size`` of them, keyed by this embedder's identity:
endpoint, model and dimension), so a repeated question or a re-ingested turn sends nothing,
and a text repeated within a batch is sent once.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any, Self

import numpy as np
from tenacity import wait_exponential, wait_random

from sedimem.embed.base import Matrix, check_texts, normalize_rows
from sedimem.embed.cache import EmbeddingCache, Plan, fetched
from sedimem.errors import ConfigurationError, ModelError, ValidationError
from sedimem.llm.http import JsonEndpoint, endpoint_url
from sedimem.llm.usage import Usage

__all__ = ["OpenAIEmbedder"]

_PROBE = "dimension probe"


class OpenAIEmbedder:
    """Embeddings from an OpenAI-compatible HTTP endpoint.

    ``base_url`` is the API root, as OpenAI clients take it (``https://api.openai.com/v1``,
    ``http://127.0.0.1:11434/v1``). Without ``dimension`` the first request tells it (reading
    :attr:`dimension` before any embedding sends one probe request). ``request_dimensions``
    sends ``dimension`` to the server (OpenAI's ``text-embedding-3-*`` shorten vectors on
    request; other servers may reject the field). ``name`` defaults to ``openai/{model}``.
    ``cache_size`` vectors are kept in an LRU of their own (0: none), or in ``cache`` when
    given (several embedders may share one: each only finds its own vectors).
    Close it with :meth:`close` / :meth:`aclose` or use it as a (async) context manager.
    """

    def __init__(
        self,
        base_url: str,
        model: str,
        api_key: str | None = None,
        dimension: int | None = None,
        *,
        timeout: float = 30.0,
        batch_size: int = 128,
        max_retries: int = 3,
        retry_wait: float = 0.5,
        concurrency: int = 4,
        request_dimensions: bool = False,
        name: str | None = None,
        cache_size: int = 0,
        cache: EmbeddingCache | None = None,
    ) -> None:
        url = endpoint_url(base_url, "/embeddings", what="embedding")
        if not model:
            raise ConfigurationError("embedding model name is empty")
        for field, value, low in (
            ("batch_size", batch_size, 1),
            ("max_retries", max_retries, 0),
            ("concurrency", concurrency, 1),
        ):
            if isinstance(value, bool) or not isinstance(value, int) or value < low:
                raise ValidationError(field, f"got {value!r}", allowed=f"an int >= {low}")
        for field, number in (("timeout", timeout), ("retry_wait", retry_wait)):
            if isinstance(number, bool) or not isinstance(number, int | float) or number < 0:
                raise ValidationError(field, f"got {number!r}", allowed="seconds, >= 0")
        if dimension is not None and (
            isinstance(dimension, bool) or not isinstance(dimension, int) or dimension < 1
        ):
            raise ValidationError("dimension", f"got {dimension!r}", allowed="an int >= 1 or None")
        self._url = url
        self._model = model
        self._dimension = dimension
        self._name = name or f"openai/{model}"
        self._batch_size = batch_size
        self._concurrency = concurrency
        self._request_dimensions = request_dimensions and dimension is not None
        self._cache = cache if cache is not None else EmbeddingCache(cache_size)
        self._endpoint = JsonEndpoint(
            url,
            what="embedding",
            model=model,
            api_key=api_key,
            timeout=timeout,
            max_retries=max_retries,
            # retry_wait, 2x, 4x ... (at most 10 s), plus up to retry_wait of jitter
            wait=wait_exponential(multiplier=retry_wait, max=max(retry_wait, 10.0))
            + wait_random(0, retry_wait),
        )

    kind = "embedding"

    @property
    def name(self) -> str:
        return self._name

    @property
    def usage(self) -> Usage:
        """Every request of this embedder's lifetime (what ``/metrics`` exports)."""
        return self._endpoint.usage

    @property
    def dimension(self) -> int:
        """The vector length; asks the server once (blocking) if it was not given."""
        if self._dimension is None:
            self._accept(self._post([_PROBE]), 1)
        assert self._dimension is not None
        return self._dimension

    @property
    def url(self) -> str:
        return self._url

    @property
    def cache(self) -> EmbeddingCache:
        """The vectors kept of texts already embedded, with their hit and miss counts."""
        return self._cache

    @property
    def identity(self) -> str:
        """What the cache keys this embedder's vectors by: endpoint, model, dimension."""
        return f"{self._url} {self._model} {self._dimension}"

    def clear_cache(self) -> None:
        """Drop every cached vector (erasure: nothing derived from erased text stays)."""
        self._cache.clear()

    def _plan(self, items: list[str], *, wait: bool = False) -> Plan | None:
        """The cache's lookup of ``items`` (``wait``: for texts another call is fetching);
        None while the dimension is unknown (the first request tells it) or with no cache."""
        if self._dimension is None or not self._cache.capacity:
            return None
        return self._cache.plan(self.identity, items, self._dimension, wait=wait)

    # -- sync -------------------------------------------------------------------------------

    def embed(self, texts: Sequence[str]) -> Matrix:
        items = check_texts(texts)
        plan = self._plan(items)
        if plan is None:
            return self._embed(items)
        return plan.fill(self._embed(plan.missing))

    def _embed(self, items: list[str]) -> Matrix:
        sendable = [i for i, text in enumerate(items) if text.strip()]
        rows: list[Matrix] = []
        for start in range(0, len(sendable), self._batch_size):
            batch = [items[i] for i in sendable[start : start + self._batch_size]]
            rows.append(self._accept(self._post(batch), len(batch)))
        return self._assemble(len(items), sendable, rows)

    def _post(self, batch: list[str]) -> Any:
        return self._endpoint.post(self._body(batch))

    def close(self) -> None:
        self._endpoint.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- async ------------------------------------------------------------------------------

    async def aembed(self, texts: Sequence[str]) -> Matrix:
        items = check_texts(texts)
        plan = self._plan(items, wait=True)
        if plan is None:
            return await self._aembed(items)
        return await fetched(plan, self._aembed)

    async def _aembed(self, items: list[str]) -> Matrix:
        sendable = [i for i, text in enumerate(items) if text.strip()]
        batches = [
            [items[i] for i in sendable[start : start + self._batch_size]]
            for start in range(0, len(sendable), self._batch_size)
        ]
        if self._dimension is None and not batches:
            self._accept(await self._apost([_PROBE]), 1)
        gate = asyncio.Semaphore(self._concurrency)

        async def one(batch: list[str]) -> Matrix:
            async with gate:
                return self._accept(await self._apost(batch), len(batch))

        tasks = [asyncio.ensure_future(one(batch)) for batch in batches]
        try:
            rows = list(await asyncio.gather(*tasks))
        except BaseException:
            for task in tasks:  # one batch failed: stop the others before raising
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            raise
        return self._assemble(len(items), sendable, rows)

    async def _apost(self, batch: list[str]) -> Any:
        return await self._endpoint.apost(self._body(batch))

    async def aclose(self) -> None:
        await self._endpoint.aclose()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    # -- shared -----------------------------------------------------------------------------

    def _body(self, batch: list[str]) -> dict[str, Any]:
        body: dict[str, Any] = {"model": self._model, "input": batch}
        if self._request_dimensions:
            body["dimensions"] = self._dimension
        return body

    def _accept(self, payload: Any, expected: int) -> Matrix:
        """Validate a response body and turn it into normalised rows, in input order."""
        data = payload.get("data") if isinstance(payload, dict) else None
        if not isinstance(data, list) or len(data) != expected:
            got = f"{len(data)} items" if isinstance(data, list) else "no 'data' list"
            raise self._malformed(f"expected 'data' with {expected} items, got {got}")
        vectors: list[Any] = [None] * expected
        for position, item in enumerate(data):
            index = item.get("index", position) if isinstance(item, dict) else None
            embedding = item.get("embedding") if isinstance(item, dict) else None
            if (
                not isinstance(index, int)
                or not 0 <= index < expected
                or vectors[index] is not None
            ):
                raise self._malformed(f"data[{position}] has a missing or repeated 'index'")
            if not isinstance(embedding, list) or not embedding:
                raise self._malformed(f"data[{position}].embedding is not a list of numbers")
            vectors[index] = embedding
        try:
            matrix = np.array(vectors, dtype=np.float32)
        except (TypeError, ValueError) as exc:
            raise self._malformed("embeddings are not equal-length lists of numbers") from exc
        if matrix.ndim != 2 or not np.isfinite(matrix).all():
            raise self._malformed("embeddings are not equal-length lists of finite numbers")
        if self._dimension is None:
            self._dimension = int(matrix.shape[1])
        elif matrix.shape[1] != self._dimension:
            raise ConfigurationError(
                f"embedding endpoint {self._url} returned {matrix.shape[1]}-dimensional vectors "
                f"for model {self._model!r}, but the embedder is configured for "
                f"{self._dimension}"
            )
        return normalize_rows(np.ascontiguousarray(matrix))

    def _malformed(self, detail: str) -> ModelError:
        return ModelError(f"embedding endpoint {self._url} returned a malformed response: {detail}")

    def _assemble(self, total: int, sendable: list[int], rows: list[Matrix]) -> Matrix:
        out = np.zeros((total, self.dimension), dtype=np.float32)
        if rows:
            out[sendable] = np.concatenate(rows)
        return out

    def __repr__(self) -> str:
        return f"OpenAIEmbedder(url={self._url!r}, model={self._model!r})"
