"""Whether the stores of a ``Memory`` answer: what ``Memory.health`` reports and ``/readyz``
and the MCP health tool show."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["MemoryHealth", "StoreHealth"]


class StoreHealth(BaseModel):
    """Whether one store answers."""

    model_config = ConfigDict(frozen=True)

    backend: str = Field(description="The store's name (sqlite, redis, postgresql...).")
    reachable: bool = Field(
        description="Whether it answered (working memory: the store itself; false while its "
        "fallback serves in its place)."
    )
    fallback: bool | None = Field(
        default=None, description="Working memory only: served by its in-process fallback."
    )


class MemoryHealth(BaseModel):
    """``ready``: every store answers; ``degraded``: working memory runs on its fallback
    (nothing acknowledged is lost, see the fallback store); ``unavailable``: a store does
    not answer."""

    model_config = ConfigDict(frozen=True)

    status: Literal["ready", "degraded", "unavailable"] = Field(
        description="`ready`, `degraded` (working memory on its fallback) or `unavailable`."
    )
    working: StoreHealth = Field(description="The working-memory store.")
    longterm: StoreHealth = Field(description="The long-term store.")
