"""What every request of one app shares (the memory, the settings, the metrics), and the
dependencies that hand it to route handlers. Nothing here is global: each app has its own."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Annotated, Any, cast

from fastapi import Depends, Request

from sedimem.api.metrics import Metrics
from sedimem.config import Settings
from sedimem.memory import Memory

__all__ = [
    "AppState",
    "MemoryDep",
    "MetricsDep",
    "SettingsDep",
    "StateDep",
    "app_state",
]


@dataclass(frozen=True, slots=True)
class AppState:
    memory: Memory
    settings: Settings
    metrics: Metrics
    #: OpenAPI documents of single routes, built on demand to explain validation errors.
    route_schemas: dict[int, dict[str, Any]] = field(default_factory=dict)
    #: The query parameters each route takes (anything else is refused).
    query_names: dict[int, frozenset[str]] = field(default_factory=dict)


def app_state(request: Request) -> AppState:
    return cast(AppState, request.app.state.sedimem)


def _memory(request: Request) -> Memory:
    return app_state(request).memory


def _settings(request: Request) -> Settings:
    return app_state(request).settings


def _metrics(request: Request) -> Metrics:
    return app_state(request).metrics


StateDep = Annotated[AppState, Depends(app_state)]
MemoryDep = Annotated[Memory, Depends(_memory)]
SettingsDep = Annotated[Settings, Depends(_settings)]
MetricsDep = Annotated[Metrics, Depends(_metrics)]
