"""Schemathesis against the app's own OpenAPI document: no 5xx, every answer as documented,
and every invalid input refused.

Cases are generated from ``/openapi.json``, valid ones and invalid ones, and sent with a
valid API key (the admin key on ``/v1/keys``) to the app in-process over a real Memory.
Everything runs in one event loop of this test's own, so the Memory is only ever used from
the loop that opened it. Hypothesis is derandomized and bounded: the same cases every run.

Checks: no 5xx; invalid data (negative mode) gets a 4xx, never a 2xx; status codes,
content types, headers and bodies as documented. Schemathesis' other checks are left out,
each for its reason (docs/rest.md repeats this list):

- ``positive_data_acceptance``: data valid for the schema may still be refused, rightly,
  by rules a JSON schema cannot state (a subject needs its predicate, ``valid_to`` not
  before ``valid_from``, a generated id names no record: 404, another user's: 403).
- ``unsupported_method``, ``missing_required_header``, ``allow_header_conformance``: they
  judge only cases of schemathesis' coverage phase (an undocumented method, a header left
  out) or ``OPTIONS`` answers, which the generated cases here never are. What they check is
  tested directly: every path's ``OPTIONS`` and 405 ``Allow`` (tests/api/test_strict_input.py)
  and requests without a key (tests/api/test_auth.py).
- ``ignored_auth``, ``use_after_free``, ``ensure_resource_availability``: they repeat
  requests through schemathesis' own HTTP transport, which cannot reach this in-process app,
  and the last two follow OpenAPI links, which the document does not declare.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import Counter
from pathlib import Path
from typing import Any

import httpx
import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from hypothesis.errors import Unsatisfiable
from pydantic import SecretStr
from schemathesis.checks import not_a_server_error
from schemathesis.core.parameters import ParameterLocation
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    negative_data_rejection,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from sedimem.api import create_app
from sedimem.config import Settings
from sedimem.embed import HashEmbedder
from sedimem.memory import Memory
from tests.api.conftest import ADMIN, ADMIN_KEY

EXAMPLES = 5  # per operation and generation mode: ~50 operations x 2 modes, 30..130 s
BASE = "http://testserver"

CHECKS = [
    not_a_server_error,
    negative_data_rejection,
    status_code_conformance,
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
]


@schemathesis.serializer("application/x-ndjson")
def _ndjson(ctx: schemathesis.SerializationContext, value: Any) -> bytes:
    """The import route's body: JSON Lines, sent as the generated text."""
    return value if isinstance(value, bytes) else str(value).encode()


class Target:
    """The app behind an httpx client, driven from a loop of the test's own."""

    def __init__(self, runner: asyncio.Runner, app: Any, key: str) -> None:
        self.runner = runner
        self.client = httpx.AsyncClient(transport=httpx.ASGITransport(app), base_url=BASE)
        self.key = {"Authorization": f"Bearer {key}"}
        self.statuses: Counter[int] = Counter()

    def send(self, case: schemathesis.Case) -> httpx.Response:
        auth = ADMIN if case.operation.path.startswith("/v1/keys") else self.key
        kwargs = case.as_transport_kwargs(base_url=BASE, headers=auth)
        response = self.runner.run(self.client.request(**_as_httpx(kwargs)))
        self.statuses[response.status_code] += 1
        return response

    def close(self) -> None:
        self.runner.run(self.client.aclose())


def _as_httpx(kwargs: dict[str, Any]) -> dict[str, Any]:
    """Schemathesis' ``requests``-style arguments, as ``httpx`` takes them."""
    request = {k: kwargs[k] for k in ("method", "url", "headers", "params") if k in kwargs}
    if "json" in kwargs:
        request["json"] = kwargs["json"]
    elif "data" in kwargs:
        data = kwargs["data"]
        request["content" if isinstance(data, bytes | str) else "data"] = data
    return request


@pytest.mark.slow
def test_the_app_honours_its_schema(tmp_path: Path) -> None:
    failures: list[str] = []
    with asyncio.Runner() as runner:
        url = f"sqlite:///{tmp_path / 'm.db'}"
        memory = runner.run(Memory.open(url, embedder=HashEmbedder(64)))
        try:
            app = create_app(memory, Settings(admin_key=SecretStr(ADMIN_KEY)))
            target = Target(runner, app, runner.run(memory.keys.create("fuzz")).secret)
            schema = schemathesis.openapi.from_dict(app.openapi())
            operations = [result.ok() for result in schema.get_all_operations()]
            for operation in operations:
                for mode in schemathesis.GenerationMode:
                    label = f"{mode.value} {operation.label}"
                    failures += _fuzz(operation.as_strategy(generation_mode=mode), target, label)
            target.close()
        finally:
            runner.run(memory.aclose())
    assert failures == [], "\n\n".join(failures)
    # the cases reached the app, and not only its error paths
    assert sum(target.statuses.values()) >= 2 * len(operations)
    assert sum(n for status, n in target.statuses.items() if status < 300) >= len(operations)
    assert not [status for status in target.statuses if status >= 500]


#: Every check but ``negative_data_rejection``, for a case whose invalid parts never reach
#: the app as invalid (see :func:`_reaches_the_app_invalid`).
DOCUMENTED = [check for check in CHECKS if check is not negative_data_rejection]


def _reaches_the_app_invalid(case: schemathesis.Case) -> bool:
    """Whether a case generated as invalid still is when it reaches the app. Two invalid
    parts do not survive the way there: a header left out (this harness sends its key with
    every request) and a query value of a type a query string cannot carry (an object or
    a list is sent as its text, and any text is a valid string parameter)."""
    negative = {
        location for location, info in case.meta.components.items() if info.mode.is_negative
    } if case.meta is not None else set()  # fmt: skip
    if not negative or not negative <= {ParameterLocation.HEADER, ParameterLocation.QUERY}:
        return True
    query = case.query or {}
    carried = all(not isinstance(value, dict | list) for value in query.values())
    return ParameterLocation.QUERY in negative and carried


def _fuzz(strategy: Any, target: Target, label: str) -> list[str]:
    failures: list[str] = []

    @settings(
        max_examples=EXAMPLES,
        derandomize=True,
        database=None,
        deadline=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(case=strategy)
    def check(case: schemathesis.Case) -> None:
        response = target.send(case)
        checks = CHECKS if _reaches_the_app_invalid(case) else DOCUMENTED
        try:
            case.validate_response(response, checks=checks)
        except (AssertionError, BaseExceptionGroup) as failed:  # schemathesis' FailureGroup
            failures.append(f"{label}: {failed}")

    with contextlib.suppress(Unsatisfiable):  # nothing to make invalid (no parameters)
        check()
    return failures
