"""Facts from episodes by an OpenAI-compatible chat endpoint (structured JSON output).

``POST {base_url}/chat/completions`` with ``response_format`` = a JSON schema asking for
``{"facts": [{"statement", "subject", "predicate", "object", "confidence"}]}``. The answer is
validated with pydantic; an invalid answer (not JSON, wrong shape) is asked for once more,
and if it is still invalid the episode is logged (warning) and skipped: no fact from an
invalid answer is ever returned, so none is ever written. Connection errors, timeouts, 429
and 5xx are retried (tenacity); what still fails raises
:class:`~sedimem.errors.StoreUnavailable`, other 4xx
:class:`~sedimem.errors.ConfigurationError`: the job fails and its cursor stays put.
"""

from __future__ import annotations

import logging
from typing import Any, Self

from pydantic import BaseModel, ConfigDict, Field
from pydantic import ValidationError as PydanticError
from tenacity import wait_fixed

from sedimem.consolidation.extract import fact_for, unique
from sedimem.errors import ConfigurationError, StoreError
from sedimem.llm.http import JsonEndpoint, endpoint_url
from sedimem.types.longterm import Episode, Fact

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


class _Invalid(Exception):
    """The model's answer is not valid JSON of the expected shape."""


class OpenAIChatExtractor:
    """An :class:`~sedimem.consolidation.extract.Extractor` backed by a chat endpoint.

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
        url = endpoint_url(base_url, "/chat/completions", what="chat")
        if not model:
            raise ConfigurationError("chat model name is empty")
        self._url = url
        self._model = model
        self._endpoint = JsonEndpoint(
            url,
            what="chat",
            model=model,
            api_key=api_key,
            timeout=timeout,
            max_retries=max_retries,
            wait=wait_fixed(max(0.0, retry_wait)),
        )

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
        """The message content of one completion (raises sedimem errors on failure)."""
        payload = await self._endpoint.apost(self._request(episode))
        try:
            content = payload["choices"][0]["message"]["content"]
        except (KeyError, IndexError, TypeError) as exc:
            raise StoreError(
                f"chat endpoint {self._url} returned a malformed completion: {str(payload)[:300]}"
            ) from exc
        if not isinstance(content, str):
            raise StoreError(f"chat endpoint {self._url} returned no message content")
        return content

    async def aclose(self) -> None:
        await self._endpoint.aclose()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()
