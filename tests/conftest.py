"""Shared fixtures. Real services are started by the plugins below, on loopback."""

pytest_plugins = [
    "tests.fixtures.services",
    "tests.fixtures.redis",
    "tests.fixtures.postgres",
    "tests.fixtures.memory",
    "tests.fixtures.llm",
]
