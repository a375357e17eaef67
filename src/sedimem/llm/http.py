"""POST JSON to an OpenAI-compatible endpoint: retries, timeouts and our errors, once.

The embedder (``/embeddings``) and the chat extractor (``/chat/completions``) share the
transport rules: connection errors, timeouts, 429 and 5xx answers are retried (tenacity),
waiting at least what a ``Retry-After`` header asks (seconds or an HTTP date); an answer
asking for more than ``max_retry_after`` seconds is not waited for. What still fails becomes
:class:`~sedimem.errors.ModelUnavailable` (with the endpoint's ``Retry-After`` when it gave
one), other 4xx answers (bad key, unknown model, an unsupported field) :class:`Refused` (a
:class:`~sedimem.errors.ConfigurationError`), and a body that is not JSON
:class:`~sedimem.errors.ModelError`. What the JSON must contain is
the caller's rule. Every request and the tokens the answers report are counted
(:class:`~sedimem.llm.usage.Usage`).
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from email.utils import parsedate_to_datetime
from typing import Any
from urllib.parse import urlsplit

import httpx
from tenacity import (
    AsyncRetrying,
    RetryCallState,
    RetryError,
    Retrying,
    retry_if_exception,
    stop_after_attempt,
)
from tenacity.wait import wait_base

from sedimem.errors import ConfigurationError, ModelError, ModelUnavailable
from sedimem.llm.usage import Usage

__all__ = ["JsonEndpoint", "Refused", "endpoint_url", "excerpt", "retry_after_seconds"]


class Refused(ConfigurationError):
    """The endpoint answered 4xx (not 429): the request or the settings are wrong."""

    def __init__(self, message: str, *, status: int) -> None:
        super().__init__(message)
        self.status = status


def retry_after_seconds(response: httpx.Response, now: float | None = None) -> float | None:
    """What the response's ``Retry-After`` header asks for, in seconds (None: no usable one)."""
    value = response.headers.get("retry-after", "").strip()
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:  # an HTTP date is GMT
        return None
    return max(0.0, when.timestamp() - (time.time() if now is None else now))


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


def _asked_wait(state: RetryCallState) -> float | None:
    outcome = state.outcome
    cause = outcome.exception() if outcome is not None and outcome.failed else None
    return retry_after_seconds(cause.response) if isinstance(cause, _Retryable) else None


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
        max_retry_after: float = 60.0,
    ) -> None:
        self.url = url
        self._what = what
        self._model = model
        self._headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._timeout = httpx.Timeout(timeout)
        self._attempts = stop_after_attempt(max(0, max_retries) + 1)
        self._backoff = wait
        self._max_retry_after = max_retry_after
        #: every request of this endpoint's lifetime (what /metrics exports)
        self.usage = Usage()
        self._client: httpx.Client | None = None
        self._aclient: httpx.AsyncClient | None = None
        self._aclient_loop: asyncio.AbstractEventLoop | None = None

    def _stop(self, state: RetryCallState) -> bool:
        asked = _asked_wait(state)
        return bool(self._attempts(state)) or (asked is not None and asked > self._max_retry_after)

    def _wait(self, state: RetryCallState) -> float:
        # the server's Retry-After is a floor: never come back sooner than asked
        return max(self._backoff(state), _asked_wait(state) or 0.0)

    def _count(self, usage: Usage | None, **counts: int) -> None:
        self.usage.add(**counts)
        if usage is not None:
            usage.add(**counts)

    def _sent(self, usage: Usage | None, attempt: int) -> None:
        self._count(usage, requests=1, retries=int(attempt > 1))

    def _answered(self, usage: Usage | None, payload: Any) -> Any:
        reported = payload.get("usage") if isinstance(payload, dict) else None
        if isinstance(reported, dict):
            prompt = reported.get("prompt_tokens")
            completion = reported.get("completion_tokens")
            self._count(
                usage,
                prompt_tokens=prompt if isinstance(prompt, int) and prompt > 0 else 0,
                completion_tokens=(
                    completion if isinstance(completion, int) and completion > 0 else 0
                ),
            )
        return payload

    def post(self, body: dict[str, Any], usage: Usage | None = None) -> Any:
        """The JSON answer to ``body`` (blocking); requests and tokens also go to ``usage``."""
        if self._client is None:
            self._client = httpx.Client(timeout=self._timeout, headers=self._headers)
        client = self._client
        try:
            for attempt in Retrying(
                stop=self._stop, wait=self._wait, retry=retry_if_exception(_should_retry)
            ):
                with attempt:
                    self._sent(usage, attempt.retry_state.attempt_number)
                    payload = self._decode(client.post(self.url, json=body))
                    return self._answered(usage, payload)
        except RetryError as exc:
            self._count(usage, failures=1)
            raise self._unavailable(exc) from exc.last_attempt.exception()
        except httpx.HTTPError as exc:  # not retryable (e.g. an invalid header)
            self._count(usage, failures=1)
            raise ModelError(f"{self._what} request to {self.url} failed: {exc}") from exc
        except (ModelError, ConfigurationError):
            self._count(usage, failures=1)
            raise
        raise AssertionError("unreachable")  # pragma: no cover

    async def apost(self, body: dict[str, Any], usage: Usage | None = None) -> Any:
        """The JSON answer to ``body``; requests and tokens are also counted in ``usage``."""
        client = await self._async_client()
        try:
            async for attempt in AsyncRetrying(
                stop=self._stop, wait=self._wait, retry=retry_if_exception(_should_retry)
            ):
                with attempt:
                    self._sent(usage, attempt.retry_state.attempt_number)
                    payload = self._decode(await client.post(self.url, json=body))
                    return self._answered(usage, payload)
        except RetryError as exc:
            self._count(usage, failures=1)
            raise self._unavailable(exc) from exc.last_attempt.exception()
        except httpx.HTTPError as exc:
            self._count(usage, failures=1)
            raise ModelError(f"{self._what} request to {self.url} failed: {exc}") from exc
        except (ModelError, ConfigurationError):
            self._count(usage, failures=1)
            raise
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
            raise Refused(
                f"{self._what} endpoint {self.url} refused the request with HTTP {status} "
                f"(model {self._model!r}): {excerpt(response)}",
                status=status,
            )
        try:
            return response.json()
        except ValueError as exc:
            raise ModelError(
                f"{self._what} endpoint {self.url} answered HTTP {status} with a body that is "
                f"not JSON: {excerpt(response)}"
            ) from exc

    def _unavailable(self, exc: RetryError) -> ModelUnavailable:
        cause = exc.last_attempt.exception()
        tries = exc.last_attempt.attempt_number
        asked: float | None = None
        if isinstance(cause, _Retryable):
            detail = f"HTTP {cause.response.status_code}: {excerpt(cause.response)}"
            asked = retry_after_seconds(cause.response)
            if asked is not None and asked > self._max_retry_after:
                detail += (
                    f" (asked to retry after {asked:g} s, more than the {self._max_retry_after:g}"
                    " s allowed)"
                )
        else:
            detail = f"{type(cause).__name__}: {cause}"
        return ModelUnavailable(
            f"{self._what} endpoint {self.url} failed after {tries} attempt(s): {detail}",
            retry_after=asked,
        )
