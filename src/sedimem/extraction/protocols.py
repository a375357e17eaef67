"""What an extractor is: episode in, candidate facts out (nothing is written by one)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Protocol, runtime_checkable

from sedimem.llm.usage import Usage
from sedimem.scope import Scope
from sedimem.types.longterm import Episode, Fact

__all__ = ["CurrentFacts", "EndingExtractor", "Extractor", "MeteredExtractor"]


@runtime_checkable
class Extractor(Protocol):
    """Turns one episode into candidate facts (nothing is written by an extractor)."""

    async def extract(self, episode: Episode) -> list[Fact]: ...


@runtime_checkable
class EndingExtractor(Protocol):
    """An extractor that also reads which facts an episode says have ended."""

    async def endings(self, episode: Episode) -> list[Fact]: ...


@runtime_checkable
class MeteredExtractor(Protocol):
    """An extractor that calls a model and counts it into the caller's :class:`Usage`."""

    async def extract_metered(self, episode: Episode, usage: Usage | None) -> list[Fact]: ...


class CurrentFacts(Protocol):
    """What is known now: the semantic memory, as an extractor reads it (who the user's
    husband is, when a later turn names him)."""

    async def current_of(
        self, subject: str, predicates: Iterable[str], *, scope: Scope
    ) -> list[Fact]: ...
