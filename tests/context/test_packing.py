"""Packing: order, quota flow, truncation, deduplication, reasons, formats, input errors."""

import re

import pytest

from sedimem.context import (
    TIERS,
    AssembledContext,
    ContextItem,
    DropReason,
    WhitespaceTokenizer,
    default_tokenizer,
    pack,
)
from sedimem.errors import ValidationError

WORDS = WhitespaceTokenizer()


def item(id: str, text: str, score: float = 0.0, label: str | None = None) -> ContextItem:
    return ContextItem(id=id, text=text, score=score, label=label)


def words(n: int, word: str = "w") -> str:
    return " ".join(f"{word}{i}" for i in range(n))


def reasons(result: AssembledContext) -> dict[str, DropReason]:
    return {d.id: d.reason for d in result.report.dropped}


def test_sections_render_in_tier_order_blocks_first() -> None:
    sections = {
        "episodes": [item("e1", "the deploy failed on Friday", 0.99)],
        "facts": [item("f1", "Ana lives in Porto", 0.9), item("f2", "Ana likes tea", 0.5)],
        "procedures": [item("p1", "run tests then deploy", label="deploy")],
        "working": [item("w1", "3 of 5", label="current_step")],
        "blocks": [item("b1", "Be concise.", label="persona"), item("b2", "Metric units.")],
    }
    result = pack(sections, 1000, tokenizer=default_tokenizer())
    assert result.text is not None
    headings = re.findall(r"^## (.+)$", result.text, flags=re.M)
    assert headings == [
        "Pinned blocks",
        "Working state",
        "Relevant procedures",
        "Known facts",
        "Past episodes",
    ]
    assert result.text.startswith("## Pinned blocks\n\n- **persona**: Be concise.\n- Metric units.")
    assert "- **current_step**: 3 of 5\n" in result.text
    assert [i.id for i in result.report.included] == ["b1", "b2", "w1", "p1", "f1", "f2", "e1"]
    assert result.report.dropped == []
    assert result.tokens_used == default_tokenizer().count(result.text)
    assert result.tokenizer == "cl100k_base"
    assert result.messages is None


def test_exact_token_accounting_with_word_counts() -> None:
    # heading "\n## Known facts\n\n" = 3 words, line "- a b\n" = 3 words
    result = pack({"facts": [item("f1", "a b"), item("f2", "c d")]}, 9, tokenizer=WORDS)
    assert result.tokens_used == 9
    facts = result.report.tiers[TIERS.index("facts")]
    assert (facts.used_tokens, facts.included, facts.granted_tokens) == (9, 2, 9)
    assert [i.tokens for i in result.report.included] == [3, 3]
    smaller = pack({"facts": [item("f1", "a b"), item("f2", "c d")]}, 8, tokenizer=WORDS)
    assert [i.id for i in smaller.report.included] == ["f1"]
    assert reasons(smaller) == {"f2": DropReason.OVER_QUOTA}


def test_an_empty_tiers_share_flows_to_the_others() -> None:
    many = {
        "facts": [item(f"f{i}", words(8, f"f{i}x")) for i in range(40)],
        "episodes": [item(f"e{i}", words(8, f"e{i}x")) for i in range(40)],
    }
    result = pack(many, 200, tokenizer=WORDS)
    by_tier = {t.tier: t for t in result.report.tiers}
    assert by_tier["facts"].quota_tokens == 40
    assert by_tier["episodes"].quota_tokens == 60
    # blocks, working and procedures are empty: their 50% flows to facts and episodes 2:3
    assert by_tier["facts"].granted_tokens == 80
    assert by_tier["episodes"].granted_tokens == 120
    assert by_tier["facts"].used_tokens > by_tier["facts"].quota_tokens
    assert by_tier["episodes"].used_tokens > by_tier["episodes"].quota_tokens
    # lines are "- " + 8 words = 9 words: facts 3 + 8 x 9 = 75, episodes 3 + 13 x 9 = 120
    assert result.tokens_used == 195


def test_item_larger_than_the_budget_is_over_budget_and_smaller_ones_still_fit() -> None:
    sections = {
        "facts": [item("f1", words(20)), item("f2", "short")],
        "episodes": [item("e1", words(5))],
    }
    result = pack(sections, 20, tokenizer=WORDS)
    assert reasons(result) == {"f1": DropReason.OVER_BUDGET}
    assert {i.id for i in result.report.included} == {"f2", "e1"}


def test_tokens_whole_items_leave_unused_go_to_other_tiers() -> None:
    sections = {
        "facts": [item("f1", words(9, "a")), item("f2", words(9, "b"))],
        "episodes": [item(f"e{i}", words(4, f"e{i}x")) for i in range(10)],
    }
    result = pack(sections, 30, tokenizer=WORDS)
    by_tier = {t.tier: t for t in result.report.tiers}
    # facts are granted 12 but a fact needs 3 + 10; episodes fill their 18, then take 10 of
    # the 12 facts left unused
    assert (by_tier["facts"].granted_tokens, by_tier["facts"].used_tokens) == (12, 0)
    assert by_tier["episodes"].granted_tokens == 18
    assert by_tier["episodes"].leftover_tokens == 10
    assert by_tier["episodes"].used_tokens == 28
    assert reasons(result)["f1"] == DropReason.OVER_QUOTA
    assert "took 0 left over and used 0" in result.report.dropped[0].detail


def test_pinned_block_truncated_to_fit_is_reported() -> None:
    long_block = "You are a careful assistant who explains every step. " * 40
    sections = {
        "blocks": [item("persona", long_block, label="persona"), item("units", "Metric.")],
        "facts": [item(f"f{i}", f"fact number {i} about the project") for i in range(30)],
    }
    tokenizer = default_tokenizer()
    result = pack(sections, 150, tokenizer=tokenizer)
    assert result.text is not None
    assert result.text.startswith("## Pinned blocks\n\n- **persona**: You are a careful")
    assert "…\n- **" not in result.text  # order kept: persona first, then units
    assert result.text.index("- **persona**") < result.text.index("Metric.")
    (cut,) = result.report.truncated
    assert cut.id == "persona"
    assert cut.tier == "blocks"
    assert 0 < cut.kept_tokens < cut.original_tokens == tokenizer.count(long_block.strip())
    persona = next(i for i in result.report.included if i.id == "persona")
    assert persona.truncated
    assert "…" in result.text
    blocks = result.report.tiers[0]
    assert blocks.used_tokens <= blocks.granted_tokens
    assert result.tokens_used <= 150


def test_block_too_big_for_any_room_is_dropped_over_quota() -> None:
    result = pack({"blocks": [item("b1", words(50), label="persona")]}, 5, tokenizer=WORDS)
    # heading 3 + "- **persona**: …" 3 leaves no word of text
    assert result.text == ""
    assert result.tokens_used == 0
    assert reasons(result) == {"b1": DropReason.OVER_BUDGET}
    assert result.report.truncated == []


def test_whole_blocks_are_placed_before_one_is_truncated() -> None:
    sections = {"blocks": [item("b1", words(50)), item("b2", words(30))]}
    result = pack(sections, 40, tokenizer=WORDS)
    assert [t.id for t in result.report.truncated] == ["b1"]
    assert [(i.id, i.truncated) for i in result.report.included] == [("b1", True), ("b2", False)]
    # heading 3 + b2 31 + "- w0 w1 w2 w3…" 5 (the mark joins the last word)
    assert result.tokens_used == 39


def test_block_beyond_the_blocks_grant_is_dropped_over_quota() -> None:
    sections = {
        "blocks": [item("b1", words(100)), item("b2", words(20))],
        "facts": [item(f"f{i}", words(10, f"f{i}x")) for i in range(20)],
    }
    quotas = {"blocks": 0.2, "working": 0, "procedures": 0, "facts": 0.8, "episodes": 0}
    # facts fill their 80 exactly (3 + 7 x 11), so nothing is left over for b2
    result = pack(sections, 100, quotas=quotas, tokenizer=WORDS)
    blocks = result.report.tiers[0]
    assert (blocks.quota_tokens, blocks.granted_tokens) == (20, 20)
    assert [t.id for t in result.report.truncated] == ["b1"]
    assert reasons(result)["b2"] == DropReason.OVER_QUOTA
    assert result.text is not None
    assert result.text.startswith("## Pinned blocks\n\n- w0 w1")


def test_duplicates_empty_items_and_disabled_tiers_are_reported() -> None:
    sections = {
        "blocks": [item("b1", "Prefers  metric\nunits.")],
        "facts": [item("f1", "Prefers metric units."), item("f2", "   "), item("f3", "new")],
        "episodes": [item("e1", "an episode")],
    }
    result = pack(sections, 500, quotas={"episodes": 0}, tokenizer=WORDS)
    dropped = {d.id: d for d in result.report.dropped}
    assert dropped["f1"].reason == DropReason.DUPLICATE
    assert dropped["f1"].detail == "same text as b1"
    assert dropped["f2"].reason == DropReason.EMPTY
    assert dropped["e1"].reason == DropReason.TIER_DISABLED
    assert [i.id for i in result.report.included] == ["b1", "f3"]
    by_tier = {t.tier: t for t in result.report.tiers}
    assert by_tier["episodes"].share == 0
    assert (by_tier["facts"].included, by_tier["facts"].dropped) == (1, 2)


def test_multiline_items_stay_inside_their_bullet() -> None:
    result = pack({"episodes": [item("e1", "Tried X.\r\nLesson:\ndo Y.")]}, 100)
    assert result.text == "## Past episodes\n\n- Tried X.\n  Lesson:\n  do Y.\n"


def test_budget_of_one_gives_empty_output() -> None:
    result = pack({"facts": [item("f1", "x")]}, 1)
    assert (result.text, result.tokens_used, result.budget_tokens) == ("", 0, 1)
    assert reasons(result) == {"f1": DropReason.OVER_BUDGET}


def test_messages_format_is_one_system_message_per_section() -> None:
    sections = {
        "blocks": [item("b1", "Be brief.", label="persona")],
        "facts": [item("f1", "Ana lives in Porto")],
    }
    tokenizer = default_tokenizer()
    result = pack(sections, 200, format="messages", tokenizer=tokenizer)
    assert result.text is None
    assert result.messages == [
        {"role": "system", "content": "## Pinned blocks\n\n- **persona**: Be brief.\n"},
        {"role": "system", "content": "## Known facts\n\n- Ana lives in Porto\n"},
    ]
    assert result.tokens_used == sum(tokenizer.count(m["content"]) for m in result.messages)


class JoinPenaltyTokenizer(WhitespaceTokenizer):
    """Words, plus 2 for every bullet that follows another line: joins cost more than parts."""

    def count(self, text: str) -> int:
        return super().count(text) + 2 * text.count("\n- ")


@pytest.mark.parametrize("fmt", ["markdown", "messages"])
def test_exact_recount_trims_the_lowest_items_until_within_budget(fmt: str) -> None:
    tokenizer = JoinPenaltyTokenizer()
    sections = {
        "facts": [item(f"f{i}", f"fact {i}") for i in range(5)],
        "episodes": [item(f"e{i}", f"episode {i}") for i in range(5)],
    }
    # counted alone the lines fit (2 headings x 3 + 10 lines x 3 = 36); joined, each
    # bullet after a line costs 2 more, so the packer must trim after the exact recount
    result = pack(sections, 40, format=fmt, tokenizer=tokenizer)  # type: ignore[arg-type]
    if fmt == "markdown":
        assert result.text is not None
        assert result.tokens_used == tokenizer.count(result.text)
    else:
        assert result.messages is not None
        assert result.tokens_used == sum(tokenizer.count(m["content"]) for m in result.messages)
    assert result.tokens_used <= 40
    trimmed = [d for d in result.report.dropped if "recount" in d.detail]
    assert trimmed
    assert all(d.reason == DropReason.OVER_BUDGET for d in trimmed)
    kept = [i.id for i in result.report.included]
    # the lowest tier loses its lowest-ranked items first
    assert kept == [f"f{i}" for i in range(5)] + [f"e{i}" for i in range(len(kept) - 5)]


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"budget_tokens": 0}, "budget_tokens"),
        ({"budget_tokens": 1_000_001}, "budget_tokens"),
        ({"budget_tokens": 10.5}, "budget_tokens"),
        ({"budget_tokens": True}, "budget_tokens"),
        ({"budget_tokens": "100"}, "budget_tokens"),
        ({"format": "html"}, "format"),
        ({"floor": 1.5}, "floor"),
        ({"floor": -0.1}, "floor"),
        ({"quotas": {"facts": -1}}, "quotas.facts"),
        ({"quotas": {"notes": 1}}, "quotas"),
        ({"sections": {"notes": []}}, "sections"),
        ({"sections": ["facts"]}, "sections"),
        ({"sections": {"facts": "text"}}, "sections.facts"),
        ({"sections": {"facts": [{"id": "f1", "text": "x"}]}}, "sections.facts[0]"),
    ],
)
def test_bad_input_names_the_field(kwargs: dict[str, object], field: str) -> None:
    arguments: dict[str, object] = {"sections": {}, "budget_tokens": 100, "tokenizer": WORDS}
    arguments.update(kwargs)
    with pytest.raises(ValidationError) as caught:
        pack(**arguments)  # type: ignore[arg-type]
    assert caught.value.field == field


def test_context_item_validates_through_our_error() -> None:
    with pytest.raises(ValidationError) as caught:
        ContextItem(id="", text="x")
    assert caught.value.field == "id"


def test_the_relevance_floor_leaves_out_what_matches_far_less_than_the_best() -> None:
    sections = {
        "working": [ContextItem(id="k", text="unranked state", score=1.0)],
        "facts": [
            ContextItem(id="f1", text="best fact", relevance=0.8),
            ContextItem(id="f2", text="weak fact", relevance=0.3),
            ContextItem(id="f3", text="unranked fact"),
        ],
        "episodes": [ContextItem(id="e1", text="weak episode", relevance=0.1)],
    }
    result = pack(sections, 100, tokenizer=WORDS, floor=0.5, floored=("facts",))
    placed = {i.id for i in result.report.included}
    assert placed == {"k", "f1", "f3", "e1"}  # episodes are not floored here
    (dropped,) = result.report.dropped
    assert (dropped.id, dropped.reason) == ("f2", DropReason.BELOW_FLOOR)
    assert "0.300" in dropped.detail
    assert "0.800" in dropped.detail
    # floored everywhere, the weak episode goes too; without a floor everything stays
    everywhere = pack(sections, 100, tokenizer=WORDS, floor=0.5)
    assert {d.id for d in everywhere.report.dropped} == {"f2", "e1"}
    assert len(pack(sections, 100, tokenizer=WORDS).report.included) == 5


def test_time_ordered_tiers_render_oldest_first_while_selection_keeps_rank() -> None:
    from datetime import UTC, datetime

    def at(day: int) -> datetime:
        return datetime(2025, 1, day, tzinfo=UTC)

    episodes = [
        ContextItem(id="late", text="late one", score=3, at=at(20)),
        ContextItem(id="early", text="early one", score=2, at=at(2)),
        ContextItem(id="undated", text="undated one", score=1),
        ContextItem(id="mid", text="mid one", score=0.5, at=at(10)),
    ]
    ranked = pack({"episodes": episodes}, 100, tokenizer=WORDS)
    assert (ranked.text or "").index("late one") < (ranked.text or "").index("early one")
    timed = pack({"episodes": episodes}, 100, tokenizer=WORDS, time_ordered=("episodes",))
    text = timed.text or ""
    assert text.index("undated") < text.index("early") < text.index("mid") < text.index("late")
    # a tight budget still chooses by rank, then orders what it chose by time
    tight = pack({"episodes": episodes}, 10, tokenizer=WORDS, time_ordered=("episodes",))
    assert [i.id for i in tight.report.included] == ["late", "early"]
    assert (tight.text or "").index("early") < (tight.text or "").index("late")


def test_a_kept_item_passes_the_floor_and_still_sets_the_best() -> None:
    facts = [
        ContextItem(id="touching", text="holds a question word", relevance=0.9, kept=True),
        ContextItem(id="profile", text="describes the asker", relevance=0.01, kept=True),
        ContextItem(id="weak", text="matches little", relevance=0.2),
    ]
    result = pack({"facts": facts}, 100, tokenizer=WORDS, floor=0.5)
    assert {i.id for i in result.report.included} == {"touching", "profile"}
    assert [d.id for d in result.report.dropped] == ["weak"]  # 0.2 < 0.5 x 0.9


def test_an_unmatched_item_is_left_out_however_poor_the_best_is() -> None:
    facts = [
        ContextItem(id="poor", text="the best of a poor lot", relevance=0.05),
        ContextItem(id="unmatched", text="no word, no meaning", relevance=0.04, unmatched=True),
        ContextItem(id="profile", text="describes the asker", relevance=0.0, kept=True,
                    unmatched=True),
    ]  # fmt: skip
    episodes = [ContextItem(id="e", text="an episode", relevance=0.0, unmatched=True)]
    result = pack({"facts": facts, "episodes": episodes}, 100, tokenizer=WORDS, floor=0.5,
                  floored=("facts",))  # fmt: skip
    # kept wins over unmatched; tiers not floored keep theirs; 0.04 >= 0.5 x 0.05 alone
    assert {i.id for i in result.report.included} == {"poor", "profile", "e"}
    (dropped,) = result.report.dropped
    assert (dropped.id, dropped.reason) == ("unmatched", DropReason.BELOW_FLOOR)
    assert "no word" in dropped.detail
    # with no relative floor at all (nothing has a relevance above 0), it is still left out
    flat = [f.model_copy(update={"relevance": 0.0}) for f in facts]
    alone = pack({"facts": flat}, 100, tokenizer=WORDS, floor=0.5)
    assert [d.id for d in alone.report.dropped] == ["unmatched"]
