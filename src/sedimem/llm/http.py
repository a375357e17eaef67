"""POST JSON to an OpenAI-compatible endpoint: retries, timeouts and our errors, once.

The embedder (``/embeddings``) and the chat extractor (``/chat/completions``) share the
transport rules: connection errors, timeouts, 429 and 5xx answers are retried (tenacity);
what still fails becomes :class:`~sedimem.errors.StoreUnavailable`, other 4xx answers (bad
key, unknown model) :class:`~sedimem.errors.ConfigurationError`, and a body that is not
JSON :class:`~sedimem.errors.StoreError`. What the JSON must contain is the caller's rule.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any
from urllib.parse import urlsplit

import httpx
from tenacity import (
    AsyncRetrying,
    RetryError,
    Retrying,
    retry_if_exception,
    stop_after_attempt,
)
from tenacity.wait import wait_base

from sedimem.errors import ConfigurationError, StoreError, StoreUnavailable

__all__ = ["JsonEndpoint", "endpoint_url", "excerpt"]


def endpoint_url(base_url: str, path: str, *, what: str) -> str:
    """``base_url`` (an API root such as ``https://api.openai.com/v1``) joined with ``path``."""
    parts = urlsplit(base_url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise ConfigurationError(
            f"{what} base_url {base_url!r} is not an http(s) URL "
            "(expected e.g. 'https://api.openai.com/v1')"
        )
    return base_url.rstrip("/") + path


def excerpt(response: httpx.Response, limit: int = 300) -> str:
    """The start of a response body, on one line, for error messages."""
    text = response.text.strip().replace("\n", " ")
    return text if len(text) <= limit else text[:limit] + "..."


class _Retryable(Exception):
    """An answer worth trying again (429 or 5xx)."""

    def __init__(self, response: httpx.Response) -> None:
        super().__init__(f"HTTP {response.status_code}")
        self.response = response


def _should_retry(exc: BaseException) -> bool:
    return isinstance(exc, _Retryable | httpx.TransportError)


class JsonEndpoint:
    """One endpoint URL, posted to from sync or async code (a client for each, made lazily).

    ``what`` names the endpoint in errors ("embedding", "chat"); ``model`` is quoted when
    the server refuses a request.
    """

    def __init__(
        self,
        url: str,
        *,
        what: str,
        model: str,
        api_key: str | None,
        timeout: float,
        max_retries: int,
        wait: wait_base,
    ) -> None:
        self.url = url
        self._what = what
        self._model = model
        self._headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._timeout = httpx.Timeout(timeout)
        self._stop = stop_after_attempt(max(0, max_retries) + 1)
        self._wait = wait
        self._client: httpx.Client | None = None
        self._aclient: httpx.AsyncClient | None = None
        self._aclient_loop: asyncio.AbstractEventLoop | None = None

    def post(self, body: dict[str, Any]) -> Any:
        """The JSON answer to ``body`` (blocking)."""
        if self._client is None:
            self._client = httpx.Client(timeout=self._timeout, headers=self._headers)
        client = self._client
        try:
            for attempt in Retrying(
                stop=self._stop, wait=self._wait, retry=retry_if_exception(_should_retry)
            ):
                with attempt:
                    return self._decode(client.post(self.url, json=body))
        except RetryError as exc:
            raise self._unavailable(exc) from exc.last_attempt.exception()
        except httpx.HTTPError as exc:  # not retryable (e.g. an invalid header)
            raise StoreError(f"{self._what} request to {self.url} failed: {exc}") from exc
        raise AssertionError("unreachable")  # pragma: no cover

    async def apost(self, body: dict[str, Any]) -> Any:
        """The JSON answer to ``body``."""
        client = await self._async_client()
        try:
            async for attempt in AsyncRetrying(
                stop=self._stop, wait=self._wait, retry=retry_if_exception(_should_retry)
            ):
                with attempt:
                    return self._decode(await client.post(self.url, json=body))
        except RetryError as exc:
            raise self._unavailable(exc) from exc.last_attempt.exception()
        except httpx.HTTPError as exc:
            raise StoreError(f"{self._what} request to {self.url} failed: {exc}") from exc
        raise AssertionError("unreachable")  # pragma: no cover

    async def _async_client(self) -> httpx.AsyncClient:
        loop = asyncio.get_running_loop()
        if self._aclient is not None and self._aclient_loop is not loop:
            await self.aclose()  # a client belongs to the loop that made it
        if self._aclient is None:
            self._aclient = httpx.AsyncClient(timeout=self._timeout, headers=self._headers)
            self._aclient_loop = loop
        return self._aclient

    def close(self) -> None:
        if self._client is not None:
            self._client.close()
            self._client = None

    async def aclose(self) -> None:
        client, self._aclient, self._aclient_loop = self._aclient, None, None
        if client is not None:
            with contextlib.suppress(RuntimeError):  # its loop is gone, with its sockets
                await client.aclose()
        self.close()

    def _decode(self, response: httpx.Response) -> Any:
        """The JSON body of a 2xx answer; raises for the others."""
        status = response.status_code
        if status == 429 or status >= 500:
            raise _Retryable(response)
        if status >= 400:
            raise ConfigurationError(
                f"{self._what} endpoint {self.url} refused the request with HTTP {status} "
                f"(model {self._model!r}): {excerpt(response)}"
            )
        try:
            return response.json()
        except ValueError as exc:
            raise StoreError(
                f"{self._what} endpoint {self.url} answered HTTP {status} with a body that is "
                f"not JSON: {excerpt(response)}"
            ) from exc

    def _unavailable(self, exc: RetryError) -> StoreUnavailable:
        cause = exc.last_attempt.exception()
        tries = exc.last_attempt.attempt_number
        if isinstance(cause, _Retryable):
            detail = f"HTTP {cause.response.status_code}: {excerpt(cause.response)}"
        else:
            detail = f"{type(cause).__name__}: {cause}"
        return StoreUnavailable(
            f"{self._what} endpoint {self.url} failed after {tries} attempt(s): {detail}"
        )
