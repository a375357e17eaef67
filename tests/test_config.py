"""Settings of the LLM extractor and the embedder: read from the environment, validated at
startup, each problem named by its environment variable."""

from __future__ import annotations

from pathlib import Path

import pytest

from sedimem.config import Settings, load_settings
from sedimem.errors import ConfigurationError
from sedimem.longterm.stores import open_longterm_store


def test_llm_and_embedder_settings_come_from_the_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("SEDIMEM_LLM_URL", "http://127.0.0.1:9/v1")
    monkeypatch.setenv("SEDIMEM_LLM_MODEL", "qwen")
    monkeypatch.setenv("SEDIMEM_LLM_API_KEY", "sk-secret")
    monkeypatch.setenv("SEDIMEM_LLM_MAX_TOKENS", "512")
    monkeypatch.setenv("SEDIMEM_EMBEDDER", "openai")
    monkeypatch.setenv("SEDIMEM_EMBEDDER_URL", "http://127.0.0.1:9/v1")
    monkeypatch.setenv("SEDIMEM_EMBEDDER_MODEL", "nomic")
    monkeypatch.setenv("SEDIMEM_EMBEDDER_DIMENSION", "768")
    settings = load_settings()
    assert settings.llm_url == "http://127.0.0.1:9/v1"
    assert settings.llm_model == "qwen"
    assert settings.llm_api_key is not None
    assert settings.llm_api_key.get_secret_value() == "sk-secret"
    assert "sk-secret" not in repr(settings)  # a SecretStr never prints
    assert settings.llm_max_tokens == 512
    assert (settings.embedder, settings.embedder_model, settings.embedder_dimension) == (
        "openai",
        "nomic",
        768,
    )


def test_defaults_are_offline() -> None:
    settings = Settings()
    assert settings.llm_url is None
    assert settings.embedder == "default"


@pytest.mark.parametrize(
    ("env", "named"),
    [
        ({"SEDIMEM_LLM_URL": "ftp://x", "SEDIMEM_LLM_MODEL": "m"}, "SEDIMEM_LLM_URL: "),
        ({"SEDIMEM_LLM_URL": "http://x/v1"}, "SEDIMEM_LLM_MODEL is required"),
        ({"SEDIMEM_LLM_MODEL": "m"}, "SEDIMEM_LLM_URL is required"),
        ({"SEDIMEM_LLM_TIMEOUT_SECONDS": "0"}, "SEDIMEM_LLM_TIMEOUT_SECONDS: Input should be"),
        ({"SEDIMEM_LLM_MAX_RETRIES": "11"}, "SEDIMEM_LLM_MAX_RETRIES: Input should be less"),
        ({"SEDIMEM_LLM_MAX_TOKENS": "many"}, "SEDIMEM_LLM_MAX_TOKENS: Input should be"),
        ({"SEDIMEM_LLM_STRUCTURED_OUTPUT": "xml"}, "SEDIMEM_LLM_STRUCTURED_OUTPUT: "),
        ({"SEDIMEM_EMBEDDER": "bert"}, "SEDIMEM_EMBEDDER: Input should be 'default'"),
        ({"SEDIMEM_EMBEDDER": "openai"}, "SEDIMEM_EMBEDDER_URL is required"),
        (
            {"SEDIMEM_EMBEDDER": "openai", "SEDIMEM_EMBEDDER_URL": "http://x/v1"},
            "SEDIMEM_EMBEDDER_MODEL is required",
        ),
        ({"SEDIMEM_EMBEDDER_MODEL": "m"}, "set SEDIMEM_EMBEDDER=openai"),
        ({"SEDIMEM_EMBEDDER_DIMENSION": "0"}, "SEDIMEM_EMBEDDER_DIMENSION: Input should be"),
        (
            {"SEDIMEM_EMBEDDER": "minilm", "SEDIMEM_EMBEDDER_DIMENSION": "768"},
            "SEDIMEM_EMBEDDER=minilm gives 384-dimensional vectors (got 768)",
        ),
        ({"SEDIMEM_EMBEDDER_THREADS": "0"}, "SEDIMEM_EMBEDDER_THREADS: Input should be"),
        ({"SEDIMEM_WORKING__SESSION_TTL_SECONDS": "-1"}, "SEDIMEM_WORKING__SESSION_TTL_SECONDS"),
        (
            {"SEDIMEM_STORE_URL": "postgresql://db/s", "SEDIMEM_STORE_READ_URLS": "redis://r/0"},
            "SEDIMEM_STORE_READ_URLS: 'redis://r/0' is not a postgresql:// URL",
        ),
        (
            {"SEDIMEM_STORE_READ_URLS": "postgresql://replica/s"},
            "SEDIMEM_STORE_READ_URLS needs a PostgreSQL SEDIMEM_STORE_URL",
        ),
        (
            {"SEDIMEM_POSTGRES__REPLICA_MAX_LAG_SECONDS": "0"},
            "SEDIMEM_POSTGRES__REPLICA_MAX_LAG_SECONDS",
        ),
    ],
)
def test_a_bad_setting_is_a_configuration_error_naming_it(
    monkeypatch: pytest.MonkeyPatch, env: dict[str, str], named: str
) -> None:
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    with pytest.raises(ConfigurationError, match="invalid settings") as refused:
        load_settings()
    assert named in str(refused.value)


def test_a_replica_url_with_a_password_is_not_echoed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SEDIMEM_STORE_URL", "postgresql://u@primary/s")
    monkeypatch.setenv("SEDIMEM_STORE_READ_URLS", "postgresql://u@r1/s mysql://u:hunter2@r2/s")
    with pytest.raises(ConfigurationError, match="URL 2 is not a postgresql:// URL") as refused:
        load_settings()
    assert "hunter2" not in str(refused.value)


def test_a_bad_api_key_value_is_not_echoed(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(ConfigurationError) as refused:
        load_settings(llm_api_key=12345)
    assert "SEDIMEM_LLM_API_KEY" in str(refused.value)
    assert "12345" not in str(refused.value)


@pytest.mark.parametrize(
    "value",
    [
        "postgresql://u@r1/s postgresql://u@r2:5433,r3/s",
        '["postgresql://u@r1/s", "postgresql://u@r2:5433,r3/s"]',
    ],
)
def test_read_replicas_are_listed_by_spaces_or_as_json(
    monkeypatch: pytest.MonkeyPatch, value: str
) -> None:
    monkeypatch.setenv("SEDIMEM_STORE_URL", "postgresql://u@primary/s")
    monkeypatch.setenv("SEDIMEM_STORE_READ_URLS", value)
    # commas belong to a URL (its hosts), not to the list
    assert load_settings().store_read_urls == ("postgresql://u@r1/s", "postgresql://u@r2:5433,r3/s")


async def test_read_replicas_need_a_postgresql_store(tmp_path: Path) -> None:
    with pytest.raises(ConfigurationError, match="read replicas need a PostgreSQL store"):
        await open_longterm_store(
            f"sqlite:///{tmp_path / 'm.db'}", read_urls=["postgresql://u@r1/s"]
        )
