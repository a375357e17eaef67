"""Facts from episodes by an OpenAI-compatible chat endpoint (structured JSON output).

``POST {base_url}/chat/completions`` asking for
``{"facts": [{"statement", "subject", "predicate", "object", "confidence"}]}``, with
``response_format`` = that JSON schema where the server takes it: in ``auto`` mode a server
that refuses the field (HTTP 400 / 422) is asked again without it, and is not sent it again.
The reply is parsed tolerantly (code fences, prose around the JSON, a bare list of facts,
unknown keys) and each fact validated: an invalid fact is dropped; a reply with no JSON
object, a truncated one, or only invalid facts is invalid and asked for again
(``invalid_retries`` times); still invalid, :class:`~sedimem.errors.ExtractionFailed` is
raised (the facts job reports it and goes on). Transport failures are retried by
:class:`~sedimem.llm.http.JsonEndpoint` (``Retry-After`` honoured) and then raise
:class:`~sedimem.errors.ModelUnavailable`; other 4xx raise
:class:`~sedimem.errors.ConfigurationError`. Requests and tokens are counted (``usage``).
"""

from __future__ import annotations

import json
import logging
from typing import Any, Literal, Self

from pydantic import BaseModel, ConfigDict, Field
from pydantic import ValidationError as PydanticError
from tenacity import wait_exponential

from sedimem.config import Settings
from sedimem.errors import ConfigurationError, ExtractionFailed, ModelError, ValidationError
from sedimem.extraction.checks import RULES, checked
from sedimem.extraction.rules import fact_for, unique
from sedimem.llm.http import JsonEndpoint, Refused, endpoint_url
from sedimem.llm.usage import Usage
from sedimem.types.longterm import Episode, Fact

__all__ = ["OpenAIChatExtractor", "StructuredOutput"]

log = logging.getLogger(__name__)

StructuredOutput = Literal["auto", "json_schema", "none"]

_SYSTEM = (
    "Extract durable facts from the experience below. Answer with JSON only: "
    '{"facts": [{"statement": str, "subject": str|null, "predicate": str|null, '
    '"object": str|null, "confidence": number 0..1}]}. Use snake_case predicates '
    "(lives_in, works_at, likes). Return an empty list when nothing is worth keeping. " + RULES
)


class _ExtractedFact(BaseModel):
    model_config = ConfigDict(extra="ignore")  # tolerant: a model may add keys

    statement: str = Field(min_length=1, max_length=2000)
    subject: str | None = Field(default=None, max_length=256)
    predicate: str | None = Field(default=None, max_length=256)
    object: str | None = Field(default=None, max_length=2000)
    confidence: float = Field(default=0.7, ge=0.0, le=1.0)


_MAX_FACTS = 100

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
                "maxItems": _MAX_FACTS,
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


def _json_text(content: str) -> str:
    """The JSON inside a reply: without code fences or prose around it."""
    text = content.strip()
    if text.startswith("```"):
        text = text.split("\n", 1)[1] if "\n" in text else ""
        text = text.rsplit("```", 1)[0]
    starts = [i for i in (text.find("{"), text.find("[")) if i >= 0]
    if not starts:
        raise _Invalid("no JSON object in the reply")
    start = min(starts)
    end = text.rfind("}" if text[start] == "{" else "]")
    if end < start:
        raise _Invalid("the JSON is truncated")
    return text[start : end + 1]


def parse_facts(content: str) -> tuple[list[_ExtractedFact], int]:
    """The valid facts of a reply and how many were dropped as invalid.

    Raises :class:`_Invalid` when the reply holds no JSON of the expected shape, or
    only invalid facts.
    """
    try:
        data = json.loads(_json_text(content))
    except json.JSONDecodeError as exc:
        raise _Invalid(f"not valid JSON ({exc.msg} at char {exc.pos})") from exc
    items = data.get("facts") if isinstance(data, dict) else data
    if not isinstance(items, list):
        raise _Invalid("no 'facts' list in the reply")
    facts: list[_ExtractedFact] = []
    for item in items[:_MAX_FACTS]:
        try:
            facts.append(_ExtractedFact.model_validate(item))
        except PydanticError:
            continue
    dropped = len(items) - len(facts)
    if items and not facts:
        raise _Invalid(f"none of the {len(items)} facts is valid")
    return facts, dropped


class OpenAIChatExtractor:
    """An :class:`~sedimem.extraction.rules.Extractor` backed by a chat endpoint.

    ``base_url`` is the API root as OpenAI clients take it (``http://127.0.0.1:8000/v1``).
    Built from settings with :meth:`from_settings` (``SEDIMEM_LLM_*``). Close it with
    :meth:`aclose` (or ``async with``).
    """

    kind = "chat"

    def __init__(
        self,
        base_url: str,
        model: str,
        api_key: str | None = None,
        *,
        timeout: float = 60.0,
        max_retries: int = 3,
        retry_wait: float = 0.5,
        invalid_retries: int = 1,
        max_tokens: int = 2048,
        max_retry_after: float = 30.0,
        structured_output: StructuredOutput = "auto",
    ) -> None:
        url = endpoint_url(base_url, "/chat/completions", what="chat")
        if not model:
            raise ConfigurationError("chat model name is empty")
        if not 0 <= invalid_retries <= 5:
            raise ValidationError("invalid_retries", f"got {invalid_retries}", allowed="0..5")
        if max_tokens < 1:
            raise ValidationError("max_tokens", f"got {max_tokens}", allowed=">= 1")
        self._url = url
        self._model = model
        self._invalid_retries = invalid_retries
        self._max_tokens = max_tokens
        self._mode: StructuredOutput = structured_output
        self._endpoint = JsonEndpoint(
            url,
            what="chat",
            model=model,
            api_key=api_key,
            timeout=timeout,
            max_retries=max_retries,
            # retry_wait, 2x, 4x ... (at most 10 s); a Retry-After asking more wins
            wait=wait_exponential(multiplier=max(0.0, retry_wait), max=10.0),
            max_retry_after=max_retry_after,
        )

    @classmethod
    def from_settings(cls, settings: Settings) -> Self | None:
        """The extractor ``SEDIMEM_LLM_*`` configure, or None when no LLM URL is set."""
        if settings.llm_url is None:
            return None
        assert settings.llm_model is not None  # Settings checks the pair
        key = settings.llm_api_key
        return cls(
            settings.llm_url,
            settings.llm_model,
            key.get_secret_value() if key is not None else None,
            timeout=settings.llm_timeout_seconds,
            max_retries=settings.llm_max_retries,
            invalid_retries=settings.llm_invalid_retries,
            max_tokens=settings.llm_max_tokens,
            max_retry_after=settings.llm_max_retry_after_seconds,
            structured_output=settings.llm_structured_output,
        )

    @property
    def url(self) -> str:
        return self._url

    @property
    def usage(self) -> Usage:
        """Every request of this extractor's lifetime (what ``/metrics`` exports)."""
        return self._endpoint.usage

    @property
    def structured(self) -> bool:
        """Whether requests carry ``response_format`` json_schema (now)."""
        return self._mode != "none"

    async def extract(self, episode: Episode) -> list[Fact]:
        return await self.extract_metered(episode, None)

    async def extract_metered(self, episode: Episode, usage: Usage | None) -> list[Fact]:
        """The facts of ``episode``; requests, tokens and invalid replies also go to
        ``usage``. Raises :class:`ExtractionFailed` when no reply was valid."""
        attempts = self._invalid_retries + 1
        reason = ""
        for _ in range(attempts):
            content, finish = await self._ask(episode, usage)
            try:
                facts, dropped = parse_facts(content)
            except _Invalid as exc:
                reason = str(exc)
                if finish == "length":
                    reason += f" (the reply hit max_tokens={self._max_tokens})"
                self._count(usage, invalid_replies=1)
                continue
            if dropped:
                log.info("chat extractor dropped %d invalid fact(s) of %s", dropped, episode.id)
            allowed = [checked(episode, self._fact(episode, item)) for item in facts]
            return unique([fact for fact in allowed if fact is not None])
        log.warning(
            "chat extractor %s gave no valid reply for episode %s in %d attempt(s): %s",
            self._url,
            episode.id,
            attempts,
            reason,
        )
        raise ExtractionFailed(
            f"episode {episode.id}: the chat endpoint's reply was not valid facts JSON "
            f"after {attempts} attempt(s): {reason}",
            attempts=attempts,
        )

    def _count(self, usage: Usage | None, **counts: int) -> None:
        self._endpoint.usage.add(**counts)
        if usage is not None:
            usage.add(**counts)

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

    def _request(self, episode: Episode) -> dict[str, Any]:
        text = episode.search_text()
        user = f"Task type: {episode.task_type}\nOutcome: {episode.outcome.value}\n\n{text}"
        role, subject = episode.metadata.get("role"), episode.metadata.get("subject")
        if isinstance(role, str):  # a chat turn: who speaks, and who the user is
            user = f"A {role} turn; the user is {subject or 'unnamed'}.\n\n{text}"
        body: dict[str, Any] = {
            "model": self._model,
            "messages": [
                {"role": "system", "content": _SYSTEM},
                {"role": "user", "content": user},
            ],
            "temperature": 0,
            "max_tokens": self._max_tokens,
        }
        if self.structured:
            body["response_format"] = {"type": "json_schema", "json_schema": _SCHEMA}
        return body

    async def _ask(self, episode: Episode, usage: Usage | None) -> tuple[str, str | None]:
        """The message content of one completion and its ``finish_reason``."""
        try:
            payload = await self._endpoint.apost(self._request(episode), usage)
        except Refused as exc:
            if self._mode != "auto" or exc.status not in (400, 422):
                raise
            # the server does not take response_format json_schema: prompt-only from now on
            log.warning(
                "chat endpoint %s refused response_format (%s); not sending it", self._url, exc
            )
            self._mode = "none"
            payload = await self._endpoint.apost(self._request(episode), usage)
        try:
            choice = payload["choices"][0]
            content = choice["message"]["content"]
        except (KeyError, IndexError, TypeError) as exc:
            self._count(usage, failures=1)
            raise ModelError(
                f"chat endpoint {self._url} returned a malformed completion: {str(payload)[:300]}"
            ) from exc
        if not isinstance(content, str):
            self._count(usage, failures=1)
            raise ModelError(f"chat endpoint {self._url} returned no message content")
        finish = choice.get("finish_reason") if isinstance(choice, dict) else None
        return content, finish if isinstance(finish, str) else None

    async def aclose(self) -> None:
        await self._endpoint.aclose()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()
