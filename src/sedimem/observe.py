"""Observation hooks: timed spans around requests, service operations, store and embedder calls.

Nothing here records anything: a :class:`Sink` does (the Prometheus metrics of a REST app,
the OpenTelemetry tracer of ``sedimem.telemetry``). With no sink installed, :func:`span`
returns a shared no-op and :func:`operation` calls straight through, so code that is not
observed pays one context-variable read per call and imports nothing.

Sinks come two ways: :func:`install` for the whole process (tracing), :func:`attach` for
the current context and the tasks started from it (the metrics of one app, so two apps in
one process never count each other's work).

Attributes never carry user text: a span names its operation, its backend and counts; the
tenant is carried as :func:`tenant_digest`, a hash, never the name.
"""

from __future__ import annotations

import functools
import hashlib
import inspect
import time
from collections.abc import Awaitable, Callable, Hashable, Mapping
from contextvars import ContextVar, Token
from types import TracebackType
from typing import Any, Literal, ParamSpec, Protocol, TypeVar, cast

from sedimem.scope import Scope

__all__ = [
    "TENANT",
    "Finish",
    "Layer",
    "Sink",
    "Span",
    "Value",
    "attach",
    "detach",
    "install",
    "instrumented",
    "observing",
    "operation",
    "span",
    "tenant_digest",
    "uninstall",
]

#: Where a span sits: the HTTP request, a service operation, a store call, an embedder call.
Layer = Literal["request", "service", "store", "embed"]
Value = str | int | float | bool

#: The attribute carrying the tenant's digest (never its name).
TENANT = "sedimem.tenant_hash"

P = ParamSpec("P")
R = TypeVar("R")
T = TypeVar("T")


class Span:
    """One timed unit of work; its attributes may be added while it runs."""

    __slots__ = ("_finishes", "_started", "attributes", "layer", "name")

    def __init__(self, layer: Layer, name: str, attributes: dict[str, Value]) -> None:
        self.layer: Layer = layer
        self.name = name
        self.attributes = attributes
        self._finishes: list[Finish] = []
        self._started = 0.0

    def set(self, key: str, value: Value) -> None:
        self.attributes[key] = value

    def __enter__(self) -> Span:
        self._finishes = [sink.start(self) for sink in _sinks()]
        self._started = time.perf_counter()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        seconds = time.perf_counter() - self._started
        for finish in reversed(self._finishes):  # the last opened closes first
            finish(self, seconds, exc)


class _Unobserved(Span):
    """What :func:`span` gives when nothing observes: does nothing, costs nothing."""

    __slots__ = ()

    def set(self, key: str, value: Value) -> None:
        pass

    def __enter__(self) -> Span:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        pass


class Finish(Protocol):
    """Ends what a sink started for a span: its duration and the exception, if any."""

    def __call__(self, span: Span, seconds: float, error: BaseException | None) -> None: ...


class Sink(Protocol):
    """Something that records spans (a tracer, a metrics registry)."""

    def start(self, span: Span) -> Finish: ...


_UNOBSERVED = _Unobserved("service", "", {})
_process: tuple[Sink, ...] = ()
_scoped: ContextVar[tuple[Sink, ...]] = ContextVar("sedimem_observe_sinks", default=())


def _sinks() -> tuple[Sink, ...]:
    scoped = _scoped.get()
    return _process + scoped if scoped else _process


def observing() -> bool:
    """Whether any sink would see a span started now."""
    return bool(_process or _scoped.get())


def install(sink: Sink) -> None:
    """Observe every span of the process with ``sink`` (until :func:`uninstall`)."""
    global _process
    if sink not in _process:
        _process = (*_process, sink)


def uninstall(sink: Sink) -> None:
    global _process
    _process = tuple(s for s in _process if s is not sink)


def attach(sink: Sink) -> Token[tuple[Sink, ...]]:
    """Observe the spans of the current context (and of tasks it starts) with ``sink``;
    :func:`detach` with the token returned ends it."""
    current = _scoped.get()
    return _scoped.set(current if sink in current else (*current, sink))


def detach(token: Token[tuple[Sink, ...]]) -> None:
    _scoped.reset(token)


def span(layer: Layer, name: str, attributes: Mapping[str, Value] | None = None) -> Span:
    """A span to use as a context manager: ``with span("service", "x", {...}) as s:``."""
    if not (_process or _scoped.get()):
        return _UNOBSERVED
    return Span(layer, name, dict(attributes or {}))


def tenant_digest(tenant: str) -> str:
    """The tenant as traces and the access log carry it: its 8-byte BLAKE2b digest in hex.
    A pseudonym: one tenant's spans and lines can be told apart and counted without naming
    it (a known name can be hashed and compared)."""
    return _digest(tenant)


@functools.lru_cache(maxsize=4096)
def _digest(tenant: str) -> str:
    return hashlib.blake2b(tenant.encode(), digest_size=8).hexdigest()


def operation(
    name: str,
) -> Callable[[Callable[P, Awaitable[R]]], Callable[P, Awaitable[R]]]:
    """Decorate a service's coroutine as the operation ``name`` (``recall.episodes``...):
    a ``service`` span with the tenant's digest, read from the first :class:`Scope` among
    the arguments (or an argument's ``scope``)."""

    def decorate(function: Callable[P, Awaitable[R]]) -> Callable[P, Awaitable[R]]:
        @functools.wraps(function)
        async def observed(*args: P.args, **kwargs: P.kwargs) -> R:
            if not (_process or _scoped.get()):
                return await function(*args, **kwargs)
            attributes: dict[str, Value] = {"sedimem.operation": name}
            tenant = _tenant_of((*args, *kwargs.values()))
            if tenant is not None:
                attributes[TENANT] = tenant_digest(tenant)
            with Span("service", name, attributes):
                return await function(*args, **kwargs)

        return observed

    return decorate


def _tenant_of(values: tuple[object, ...]) -> str | None:
    for value in values:
        if isinstance(value, Scope):
            return value.tenant
    for value in values:
        if isinstance(value, list | tuple) and value:  # records of one scope: the first's
            value = value[0]
        scope = getattr(value, "scope", None)
        if isinstance(scope, Scope):
            return scope.tenant
    return None


def instrumented(target: T, layer: Layer, attributes: Mapping[str, Value]) -> T:
    """``target`` with each public method a span of ``layer`` named after it (a store: one
    span per call); every other attribute is ``target``'s own. The proxy's class has the
    same public names as ``target``'s, so protocol checks (``isinstance``) answer alike."""
    proxy = _proxy_class(cast(Hashable, type(target)))(target, layer, dict(attributes))
    return cast(T, proxy)


@functools.lru_cache(maxsize=64)
def _proxy_class(cls: Any) -> type:
    members: dict[str, object] = {
        "__slots__": ("_target", "_layer", "_attributes", "_wrapped"),
        "__init__": _proxy_init,
        "__getattr__": _proxy_getattr,
        "__repr__": _proxy_repr,
    }
    for name in dir(cls):
        if name.startswith("_"):
            continue
        member = inspect.getattr_static(cls, name)
        if isinstance(member, staticmethod | classmethod) or inspect.isasyncgenfunction(member):
            members[name] = property(functools.partial(_forward, name=name))
        elif inspect.iscoroutinefunction(member):
            members[name] = property(functools.partial(_async_call, name=name))
        elif inspect.isfunction(member):
            members[name] = property(functools.partial(_call, name=name))
        else:  # properties, class attributes
            members[name] = property(functools.partial(_forward, name=name))
    return type(f"Instrumented{cls.__name__}", (), members)


def _proxy_init(self: Any, target: object, layer: Layer, attributes: dict[str, Value]) -> None:
    self._target = target
    self._layer = layer
    self._attributes = attributes
    self._wrapped = {}  # method name -> its observed wrapper, built on first use


def _proxy_getattr(self: Any, name: str) -> object:
    return getattr(self._target, name)


def _proxy_repr(self: Any) -> str:
    return f"instrumented({self._target!r})"


def _forward(self: Any, name: str) -> object:
    return getattr(self._target, name)


def _async_call(self: Any, name: str) -> Callable[..., Awaitable[object]]:
    wrapped: Callable[..., Awaitable[object]] | None = self._wrapped.get(name)
    if wrapped is not None:
        return wrapped
    method = getattr(self._target, name)
    layer: Layer = self._layer
    attributes: dict[str, Value] = self._attributes

    async def observed(*args: object, **kwargs: object) -> object:
        if not (_process or _scoped.get()):
            return await method(*args, **kwargs)
        with Span(layer, name, dict(attributes)):
            return await method(*args, **kwargs)

    self._wrapped[name] = observed
    return observed


def _call(self: Any, name: str) -> Callable[..., object]:
    wrapped: Callable[..., object] | None = self._wrapped.get(name)
    if wrapped is not None:
        return wrapped
    method = getattr(self._target, name)
    layer: Layer = self._layer
    attributes: dict[str, Value] = self._attributes

    def observed(*args: object, **kwargs: object) -> object:
        if not (_process or _scoped.get()):
            return method(*args, **kwargs)
        with Span(layer, name, dict(attributes)):
            return method(*args, **kwargs)

    self._wrapped[name] = observed
    return observed
