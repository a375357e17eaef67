"""An embedder for any OpenAI-compatible ``POST {base_url}/embeddings`` endpoint.

OpenAI, vLLM, Ollama, llama.cpp server, LM Studio and others speak this API. Texts are sent in
batches; connection errors, timeouts, 429 and 5xx answers are retried with exponential backoff
(tenacity); what still fails becomes :class:`~memstrata.errors.StoreUnavailable`, other 4xx
answers (bad key, unknown model) :class:`~memstrata.errors.ConfigurationError`, and a response
of the wrong shape :class:`~memstrata.errors.StoreError`. Rows are normalised here, since not
every server returns unit vectors. Empty or blank texts are not sent (most servers reject
them): they embed to the zero row.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Sequence
from typing import Any, Self
from urllib.parse import urlsplit

import httpx
import numpy as np
from tenacity import (
    AsyncRetrying,
    RetryError,
    Retrying,
    retry_if_exception,
    stop_after_attempt,
    wait_exponential,
    wait_random,
)

from memstrata.embed.base import Matrix, check_texts, normalize_rows
from memstrata.errors import ConfigurationError, StoreError, StoreUnavailable, ValidationError

__all__ = ["OpenAIEmbedder"]

_PROBE = "dimension probe"


class _Retryable(Exception):
    """An answer worth trying again (429 or 5xx)."""

    def __init__(self, response: httpx.Response) -> None:
        super().__init__(f"HTTP {response.status_code}")
        self.response = response


def _should_retry(exc: BaseException) -> bool:
    return isinstance(exc, _Retryable | httpx.TransportError)


class OpenAIEmbedder:
    """Embeddings from an OpenAI-compatible HTTP endpoint.

    ``base_url`` is the API root, as OpenAI clients take it (``https://api.openai.com/v1``,
    ``http://127.0.0.1:11434/v1``). Without ``dimension`` the first request tells it (reading
    :attr:`dimension` before any embedding sends one probe request). ``request_dimensions``
    sends ``dimension`` to the server (OpenAI's ``text-embedding-3-*`` shorten vectors on
    request; other servers may reject the field). ``name`` defaults to ``openai/{model}``.
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
    ) -> None:
        parts = urlsplit(base_url)
        if parts.scheme not in ("http", "https") or not parts.netloc:
            raise ConfigurationError(
                f"embedding base_url {base_url!r} is not an http(s) URL "
                "(expected e.g. 'https://api.openai.com/v1')"
            )
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
        self._url = base_url.rstrip("/") + "/embeddings"
        self._model = model
        self._dimension = dimension
        self._name = name or f"openai/{model}"
        self._batch_size = batch_size
        self._concurrency = concurrency
        self._request_dimensions = request_dimensions and dimension is not None
        self._headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._timeout = httpx.Timeout(timeout)
        self._stop = stop_after_attempt(max_retries + 1)
        # retry_wait, 2x, 4x ... (at most 10 s), plus up to retry_wait of jitter
        self._wait = wait_exponential(
            multiplier=retry_wait, max=max(retry_wait, 10.0)
        ) + wait_random(0, retry_wait)
        self._client: httpx.Client | None = None
        self._aclient: httpx.AsyncClient | None = None
        self._aclient_loop: asyncio.AbstractEventLoop | None = None

    @property
    def name(self) -> str:
        return self._name

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

    # -- sync -------------------------------------------------------------------------------

    def embed(self, texts: Sequence[str]) -> Matrix:
        items = check_texts(texts)
        sendable = [i for i, text in enumerate(items) if text.strip()]
        rows: list[Matrix] = []
        for start in range(0, len(sendable), self._batch_size):
            batch = [items[i] for i in sendable[start : start + self._batch_size]]
            rows.append(self._accept(self._post(batch), len(batch)))
        return self._assemble(len(items), sendable, rows)

    def _post(self, batch: list[str]) -> Any:
        if self._client is None:
            self._client = httpx.Client(timeout=self._timeout, headers=self._headers)
        client = self._client
        try:
            for attempt in Retrying(
                stop=self._stop,
                wait=self._wait,
                retry=retry_if_exception(_should_retry),
                reraise=False,
            ):
                with attempt:
                    return self._decode(client.post(self._url, json=self._body(batch)))
        except RetryError as exc:
            raise self._unavailable(exc) from exc.last_attempt.exception()
        except httpx.HTTPError as exc:  # not retryable (e.g. an invalid header)
            raise StoreError(f"embedding request to {self._url} failed: {exc}") from exc
        raise AssertionError("unreachable")  # pragma: no cover

    def close(self) -> None:
        if self._client is not None:
            self._client.close()
            self._client = None

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- async ------------------------------------------------------------------------------

    async def aembed(self, texts: Sequence[str]) -> Matrix:
        items = check_texts(texts)
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
        client = await self._async_client()
        try:
            async for attempt in AsyncRetrying(
                stop=self._stop,
                wait=self._wait,
                retry=retry_if_exception(_should_retry),
                reraise=False,
            ):
                with attempt:
                    response = await client.post(self._url, json=self._body(batch))
                    return self._decode(response)
        except RetryError as exc:
            raise self._unavailable(exc) from exc.last_attempt.exception()
        except httpx.HTTPError as exc:
            raise StoreError(f"embedding request to {self._url} failed: {exc}") from exc
        raise AssertionError("unreachable")  # pragma: no cover

    async def _async_client(self) -> httpx.AsyncClient:
        loop = asyncio.get_running_loop()
        if self._aclient is not None and self._aclient_loop is not loop:
            await self.aclose()  # a client belongs to the loop that made it
        if self._aclient is None:
            self._aclient = httpx.AsyncClient(timeout=self._timeout, headers=self._headers)
            self._aclient_loop = loop
        return self._aclient

    async def aclose(self) -> None:
        client, self._aclient, self._aclient_loop = self._aclient, None, None
        if client is not None:
            with contextlib.suppress(RuntimeError):  # its loop is gone, with its sockets
                await client.aclose()
        self.close()

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

    def _decode(self, response: httpx.Response) -> Any:
        """The JSON body of a 2xx answer; raises for the others."""
        status = response.status_code
        if status == 429 or status >= 500:
            raise _Retryable(response)
        if status >= 400:
            raise ConfigurationError(
                f"embedding endpoint {self._url} refused the request with HTTP {status} "
                f"(model {self._model!r}): {_excerpt(response)}"
            )
        try:
            return response.json()
        except ValueError as exc:
            raise StoreError(
                f"embedding endpoint {self._url} answered HTTP {status} with a body that is "
                f"not JSON: {_excerpt(response)}"
            ) from exc

    def _unavailable(self, exc: RetryError) -> StoreUnavailable:
        cause = exc.last_attempt.exception()
        tries = exc.last_attempt.attempt_number
        if isinstance(cause, _Retryable):
            detail = f"HTTP {cause.response.status_code}: {_excerpt(cause.response)}"
        else:
            detail = f"{type(cause).__name__}: {cause}"
        return StoreUnavailable(
            f"embedding endpoint {self._url} failed after {tries} attempt(s): {detail}"
        )

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

    def _malformed(self, detail: str) -> StoreError:
        return StoreError(f"embedding endpoint {self._url} returned a malformed response: {detail}")

    def _assemble(self, total: int, sendable: list[int], rows: list[Matrix]) -> Matrix:
        out = np.zeros((total, self.dimension), dtype=np.float32)
        if rows:
            out[sendable] = np.concatenate(rows)
        return out

    def __repr__(self) -> str:
        return f"OpenAIEmbedder(url={self._url!r}, model={self._model!r})"


def _excerpt(response: httpx.Response, limit: int = 300) -> str:
    text = response.text.strip().replace("\n", " ")
    return text if len(text) <= limit else text[:limit] + "..."
