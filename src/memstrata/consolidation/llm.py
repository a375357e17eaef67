"""Facts from episodes by an OpenAI-compatible chat endpoint (structured JSON output).

``POST {base_url}/chat/completions`` with ``response_format`` = a JSON schema asking for
``{"facts": [{"statement", "subject", "predicate", "object", "confidence"}]}``. The answer is
validated with pydantic; an invalid answer (not JSON, wrong shape) is asked for once more,
and if it is still invalid the episode is logged (warning) and skipped: no fact from an
invalid answer is ever returned, so none is ever written. Connection errors, timeouts, 429
and 5xx are retried (tenacity); what still fails raises
:class:`~memstrata.errors.StoreUnavailable`, other 4xx
:class:`~memstrata.errors.ConfigurationError`: the job fails and its cursor stays put.
"""

from __future__ import annotations

import logging
from typing import Any, Self
from urllib.parse import urlsplit

import httpx
from pydantic import BaseModel, ConfigDict, Field
from pydantic import ValidationError as PydanticError
from tenacity import AsyncRetrying, RetryError, retry_if_exception, stop_after_attempt, wait_fixed

from memstrata.consolidation.extract import fact_for, unique
from memstrata.errors import ConfigurationError, StoreError, StoreUnavailable
from memstrata.types.longterm import Episode, Fact

__all__ = ["OpenAIChatExtractor"]

log = logging.getLogger(__name__)

_SYSTEM = (
    "Extract durable facts from the experience below. Answer with JSON only: "
    '{"facts": [{"statement": str, "subject": str|null, "predicate": str|null, '
    '"object": str|null, "confidence": number 0..1}]}. Use snake_case predicates '
    "(lives_in, works_at, likes). Return an empty list when nothing is worth keeping."
)


class _ExtractedFact(BaseModel):
    model_config = ConfigDict(extra="forbid")

    statement: str = Field(min_length=1, max_length=2000)
    subject: str | None = Field(default=None, max_length=256)
    predicate: str | None = Field(default=None, max_length=256)
    object: str | None = Field(default=None, max_length=2000)
    confidence: float = Field(default=0.7, ge=0.0, le=1.0)


class _Answer(BaseModel):
    model_config = ConfigDict(extra="forbid")

    facts: list[_ExtractedFact] = Field(max_length=100)


_SCHEMA: dict[str, Any] = {
    "name": "facts",
    "strict": True,
    "schema": {
        "type": "object",
        "additionalProperties": False,
        "required": ["facts"],
        "properties": {
            "facts": {
                "type": "array",
                "items": {
                    "type": "object",
                    "additionalProperties": False,
                    "required": ["statement", "subject", "predicate", "object", "confidence"],
                    "properties": {
                        "statement": {"type": "string"},
                        "subject": {"type": ["string", "null"]},
                        "predicate": {"type": ["string", "null"]},
                        "object": {"type": ["string", "null"]},
                        "confidence": {"type": "number"},
                    },
                },
            }
        },
    },
}


class _Retryable(Exception):
    def __init__(self, response: httpx.Response) -> None:
        super().__init__(f"HTTP {response.status_code}")
        self.response = response


def _should_retry(exc: BaseException) -> bool:
    return isinstance(exc, _Retryable | httpx.TransportError)


class _Invalid(Exception):
    """The model's answer is not valid JSON of the expected shape."""


class OpenAIChatExtractor:
    """An :class:`~memstrata.consolidation.extract.Extractor` backed by a chat endpoint.

    ``base_url`` is the API root as OpenAI clients take it (``http://127.0.0.1:8000/v1``).
    Close it with :meth:`aclose` (or ``async with``).
    """

    def __init__(
        self,
        base_url: str,
        model: str,
        api_key: str | None = None,
        *,
        timeout: float = 60.0,
        max_retries: int = 2,
        retry_wait: float = 0.5,
    ) -> None:
        parts = urlsplit(base_url)
        if parts.scheme not in ("http", "https") or not parts.netloc:
            raise ConfigurationError(
                f"chat base_url {base_url!r} is not an http(s) URL "
                "(expected e.g. 'https://api.openai.com/v1')"
            )
        if not model:
            raise ConfigurationError("chat model name is empty")
        self._url = base_url.rstrip("/") + "/chat/completions"
        self._model = model
        self._headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._timeout = httpx.Timeout(timeout)
        self._stop = stop_after_attempt(max(0, max_retries) + 1)
        self._wait = wait_fixed(max(0.0, retry_wait))
        self._client: httpx.AsyncClient | None = None

    @property
    def url(self) -> str:
        return self._url

    async def extract(self, episode: Episode) -> list[Fact]:
        for attempt in (1, 2):
            content = await self._ask(episode)
            try:
                answer = self._parse(content)
            except _Invalid as exc:
                if attempt == 1:
                    continue
                log.warning(
                    "chat extractor %s gave invalid output twice for episode %s; "
                    "skipping it (nothing written): %s",
                    self._url,
                    episode.id,
                    exc,
                )
                return []
            return unique([self._fact(episode, item) for item in answer.facts])
        raise AssertionError("unreachable")  # pragma: no cover

    @staticmethod
    def _fact(episode: Episode, item: _ExtractedFact) -> Fact:
        structured = item.subject and item.predicate
        return fact_for(
            episode,
            item.statement,
            item.subject if structured else None,
            item.predicate if structured else None,
            item.object if structured else None,
            item.confidence,
        )

    @staticmethod
    def _parse(content: str) -> _Answer:
        try:
            return _Answer.model_validate_json(content)
        except PydanticError as exc:
            raise _Invalid(str(exc).splitlines()[0]) from exc

    def _request(self, episode: Episode) -> dict[str, Any]:
        text = episode.search_text()
        user = f"Task type: {episode.task_type}\nOutcome: {episode.outcome.value}\n\n{text}"
        return {
            "model": self._model,
            "messages": [
                {"role": "system", "content": _SYSTEM},
                {"role": "user", "content": user},
            ],
            "response_format": {"type": "json_schema", "json_schema": _SCHEMA},
            "temperature": 0,
        }

    async def _ask(self, episode: Episode) -> str:
        """The message content of one completion (raises memstrata errors on failure)."""
        if self._client is None:
            self._client = httpx.AsyncClient(timeout=self._timeout, headers=self._headers)
        client = self._client
        try:
            async for attempt in AsyncRetrying(
                stop=self._stop,
                wait=self._wait,
                retry=retry_if_exception(_should_retry),
                reraise=False,
            ):
                with attempt:
                    response = await client.post(self._url, json=self._request(episode))
                    return self._content(response)
        except RetryError as exc:
            cause = exc.last_attempt.exception()
            raise StoreUnavailable(
                f"chat endpoint {self._url} failed after "
                f"{exc.last_attempt.attempt_number} attempt(s): {cause}"
            ) from cause
        except httpx.HTTPError as exc:
            raise StoreError(f"chat request to {self._url} failed: {exc}") from exc
        raise AssertionError("unreachable")  # pragma: no cover

    def _content(self, response: httpx.Response) -> str:
        status = response.status_code
        if status == 429 or status >= 500:
            raise _Retryable(response)
        if status >= 400:
            raise ConfigurationError(
                f"chat endpoint {self._url} refused the request with HTTP {status} "
                f"(model {self._model!r}): {response.text[:300]}"
            )
        try:
            payload = response.json()
            content = payload["choices"][0]["message"]["content"]
        except (ValueError, KeyError, IndexError, TypeError) as exc:
            raise StoreError(
                f"chat endpoint {self._url} returned a malformed completion: {response.text[:300]}"
            ) from exc
        if not isinstance(content, str):
            raise StoreError(f"chat endpoint {self._url} returned no message content")
        return content

    async def aclose(self) -> None:
        client, self._client = self._client, None
        if client is not None:
            await client.aclose()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()
