"""Tokenizers: exact cl100k_base counts, prefix truncation, offline loading, errors."""

import os
import subprocess
import sys
import textwrap

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sedimem.context import TiktokenTokenizer, Tokenizer, WhitespaceTokenizer, default_tokenizer
from sedimem.context.tokens import sanitize
from sedimem.errors import ConfigurationError, ValidationError

CL100K = default_tokenizer()


@pytest.mark.parametrize(
    ("text", "tokens"),
    [
        ("", 0),
        ("hello world", 2),
        ("tiktoken is great!", 6),
        ("The quick brown fox jumps over the lazy dog.", 10),
        ("Ana lived in Lisbon until 2024.", 9),
        ("🙂🙂🙂", 6),
        ("## Known facts\n\n", 4),
    ],
)
def test_cl100k_counts_known_strings_exactly(text: str, tokens: int) -> None:
    assert CL100K.count(text) == tokens


def test_default_tokenizer_is_cl100k_base_and_shared() -> None:
    assert CL100K.name == "cl100k_base"
    assert default_tokenizer() is CL100K
    assert isinstance(CL100K, Tokenizer)
    assert isinstance(WhitespaceTokenizer(), Tokenizer)


def test_special_token_text_is_counted_as_ordinary_text() -> None:
    assert CL100K.count("<|endoftext|>") == 7
    assert CL100K.truncate("<|endoftext|> tail", 7) == "<|endoftext|>"


def test_truncate_returns_the_text_when_it_fits() -> None:
    assert CL100K.truncate("hello world", 2) == "hello world"
    assert CL100K.truncate("hello world", 1) == "hello"
    assert CL100K.truncate("tiktoken is great!", 3) == "tiktoken"
    assert CL100K.truncate("hello world", 0) == ""


def test_truncate_never_splits_a_character() -> None:
    # Each emoji takes two byte-level tokens; one token would be half a character.
    assert CL100K.truncate("🙂🙂🙂", 1) == ""
    assert CL100K.truncate("🙂🙂🙂", 3) == "🙂"


def test_lone_surrogates_are_counted_as_replacement_characters() -> None:
    assert sanitize("a\ud800b") == "a\ufffdb"
    assert sanitize("plain") == "plain"
    assert CL100K.count("a\ud800b") == CL100K.count("a\ufffdb")
    assert CL100K.truncate("a\ud800b c", 10) == "a\ufffdb c"


@pytest.mark.parametrize("tokenizer", [CL100K, WhitespaceTokenizer()])
@pytest.mark.parametrize("bad", [-1, 1.5, True, "3"])
def test_truncate_rejects_bad_max_tokens(tokenizer: Tokenizer, bad: object) -> None:
    with pytest.raises(ValidationError) as caught:
        tokenizer.truncate("text", bad)  # type: ignore[arg-type]
    assert caught.value.field == "max_tokens"


@settings(max_examples=150, deadline=None)
@given(text=st.text(alphabet=st.characters(exclude_categories=())), limit=st.integers(0, 60))
def test_truncate_gives_a_prefix_within_the_limit(text: str, limit: int) -> None:
    for tokenizer in (CL100K, WhitespaceTokenizer()):
        cut = tokenizer.truncate(text, limit)
        assert sanitize(text).startswith(cut)
        assert tokenizer.count(cut) <= limit


def test_whitespace_tokenizer_counts_words() -> None:
    words = WhitespaceTokenizer()
    assert words.name == "whitespace"
    assert words.count("  one two\nthree ") == 3
    assert words.truncate("one two three", 2) == "one two"
    assert words.truncate("one two", 5) == "one two"
    assert words.truncate("one two", 0) == ""


def test_unknown_encoding_is_a_configuration_error() -> None:
    with pytest.raises(ConfigurationError, match="no_such_encoding"):
        TiktokenTokenizer("no_such_encoding")


_OFFLINE_SCRIPT = textwrap.dedent(
    """
    import socket

    def refuse(*args, **kwargs):
        raise OSError("network access attempted")

    socket.socket.connect = refuse
    socket.create_connection = refuse

    import tiktoken
    from sedimem.context import TiktokenTokenizer

    print(TiktokenTokenizer().count("hello world"))
    try:
        tiktoken.get_encoding("cl100k_base")  # tiktoken's own loader downloads
    except Exception:
        print("download refused")
    """
)


@pytest.mark.parametrize("cache", ["empty", "disabled"])
def test_cl100k_base_loads_without_network(tmp_path: os.PathLike[str], cache: str) -> None:
    env = dict(os.environ)
    env.update(
        HTTPS_PROXY="http://127.0.0.1:9",
        HTTP_PROXY="http://127.0.0.1:9",
        TIKTOKEN_CACHE_DIR=str(tmp_path) if cache == "empty" else "",
    )
    env.pop("DATA_GYM_CACHE_DIR", None)
    done = subprocess.run(
        [sys.executable, "-c", _OFFLINE_SCRIPT],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split("\n")[:2] == ["2", "download refused"]


def test_counts_are_remembered_by_a_digest_of_the_text_only(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import sedimem.context.tokens as tokens

    tokenizer = TiktokenTokenizer()
    encoding = tokenizer._encoding
    texts = ["hello world", "a secret phrase about kiwis", "hello world", "lone \ud800 surrogate"]
    exact = [len(encoding.encode_ordinary(sanitize(text))) for text in texts]
    assert [tokenizer.count(text) for text in texts] == exact
    assert [tokenizer.count(text) for text in texts] == exact  # the second time from memory
    assert len(tokenizer._counts) == 3
    # only digests and numbers are kept: no word of a text (erasure leaves nothing behind)
    assert all(isinstance(key, bytes) and len(key) == 16 for key in tokenizer._counts)
    assert not any(b"kiwi" in key for key in tokenizer._counts)
    # bounded: full, it starts afresh
    monkeypatch.setattr(tokens, "_COUNTS_KEPT", 3)
    assert tokenizer.count("one more text") == len(encoding.encode_ordinary("one more text"))
    assert len(tokenizer._counts) == 1
