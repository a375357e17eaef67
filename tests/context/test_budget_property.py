"""Property: the rendered output never exceeds the budget, recounted with the same tokenizer."""

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sedimem.context import TIERS, ContextItem, default_tokenizer, pack

TOKENIZER = default_tokenizer()

_TRICKY = st.sampled_from(
    [
        "",
        "   ",
        "\n\n\n",
        "<|endoftext|>",
        "## not a heading\n- not a bullet",
        "🙂" * 200,
        "日本語のテキスト" * 50,
        "a\r\nb\rc\nd",
        " leading and trailing spaces ",
        "x" * 5000,
    ]
)
_TEXT = st.one_of(
    st.text(max_size=40),
    st.text(alphabet=st.characters(exclude_categories=()), max_size=200),
    st.text(min_size=300, max_size=3000),
    _TRICKY,
)
_ITEM = st.builds(
    ContextItem,
    id=st.text(min_size=1, max_size=8),
    text=_TEXT,
    score=st.floats(allow_nan=False, allow_infinity=False),
    label=st.none() | st.text(max_size=20),
)
_SECTIONS = st.dictionaries(st.sampled_from(TIERS), st.lists(_ITEM, max_size=25))
_BUDGET = st.one_of(st.integers(1, 60), st.integers(1, 3000), st.integers(1, 1_000_000))
_QUOTAS = st.none() | st.dictionaries(st.sampled_from(TIERS), st.floats(0.01, 10))
_SETTINGS = settings(
    max_examples=120,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


@_SETTINGS
@given(sections=_SECTIONS, budget=_BUDGET, quotas=_QUOTAS)
def test_markdown_never_exceeds_budget(
    sections: dict[str, list[ContextItem]], budget: int, quotas: dict[str, float] | None
) -> None:
    result = pack(sections, budget, quotas=quotas, tokenizer=TOKENIZER)
    assert result.text is not None
    recount = TOKENIZER.count(result.text)
    assert recount == result.tokens_used <= budget
    submitted = sum(len(items) for items in sections.values())
    assert len(result.report.included) + len(result.report.dropped) == submitted
    tiers = result.report.tiers
    assert sum(t.granted_tokens for t in tiers) <= budget
    assert sum(t.used_tokens for t in tiers) <= budget
    assert all(t.used_tokens <= t.granted_tokens + t.leftover_tokens for t in tiers)


@_SETTINGS
@given(sections=_SECTIONS, budget=_BUDGET, quotas=_QUOTAS)
def test_messages_never_exceed_budget(
    sections: dict[str, list[ContextItem]], budget: int, quotas: dict[str, float] | None
) -> None:
    result = pack(sections, budget, quotas=quotas, format="messages", tokenizer=TOKENIZER)
    assert result.messages is not None
    recount = sum(TOKENIZER.count(m["content"]) for m in result.messages)
    assert recount == result.tokens_used <= budget
    assert all(m["role"] == "system" for m in result.messages)
