"""`sedimem eval context` on a small dataset of LoCoMo's shape, written by the test."""

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from sedimem.cli import app
from sedimem.context.tokens import WhitespaceTokenizer
from sedimem.errors import ValidationError
from sedimem.evaluation.context import (
    answered,
    bm25_ranking,
    load_dialogues,
    normalize,
    pack_lines,
    parse_conversations,
)

_FILLER = [
    "We talked about the weather again today.",
    "The bus was late so I walked to the office.",
    "Dinner was pasta with a simple tomato sauce.",
    "I watched a documentary about deep sea fish.",
    "My neighbour is painting his fence green.",
]


def dataset(path: Path, conversations: int = 2) -> Path:
    data = []
    for n in range(conversations):
        turns = [
            {"speaker": "Ana", "dia_id": "D1:1", "text": "I adopted a grey kitten named Pixel."},
            {"speaker": "Bo", "dia_id": "D1:2", "text": "What a lovely name for a kitten!"},
        ]
        turns += [
            {"speaker": "Bo" if i % 2 else "Ana", "dia_id": f"D1:{i + 3}", "text": text}
            for i, text in enumerate(_FILLER)
        ]
        later = [
            {"speaker": "Bo", "dia_id": "D2:1", "text": "Which concert did you go to?"},
            {"speaker": "Ana", "dia_id": "D2:2", "text": "It was Matt Patterson, so talented!"},
        ]
        qa = [
            {"question": "What is the name of Ana's kitten?", "answer": "Pixel",
             "evidence": ["D1:1"], "category": 4},
            {"question": "Who performed at the concert Ana went to?", "answer": "Matt Patterson",
             "evidence": ["D2:2"], "category": 1},
            # the answer is not written in the evidence: not a probe of this protocol
            {"question": "When did Ana adopt it?", "answer": "May 2023",
             "evidence": ["D1:1"], "category": 2},
            {"question": "Adversarial", "answer": "x", "evidence": ["D1:1"], "category": 5},
        ]  # fmt: skip
        conversation = {
            "speaker_a": "Ana",
            "speaker_b": "Bo",
            "session_1_date_time": "1:56 pm on 8 May, 2023",
            "session_1": turns,
            "session_2_date_time": "10:00 am on 2 June, 2023",
            "session_2": later,
        }
        data.append({"sample_id": f"conv-{n}", "conversation": conversation, "qa": qa})
    path.write_text(json.dumps(data))
    return path


def test_answers_match_whole_words_in_order() -> None:
    assert normalize("It's  Matt-Patterson!") == " it s matt patterson "
    assert answered("Matt Patterson", "- [2023] Ana: It was Matt Patterson, so talented")
    assert not answered("Matt Patterson", "Patterson and Matt")
    assert not answered("cat", "a category")  # whole words only
    assert not answered("...", "anything")  # an answer of punctuation matches nothing


def test_bm25_ranks_rare_shared_terms_first() -> None:
    docs = ["the kitten Pixel", "a kitten", "weather talk", "kitten kitten named Pixel here"]
    ranked = bm25_ranking("kitten named Pixel", docs)
    assert ranked[0] in (0, 3)
    assert set(ranked) == {0, 1, 3}  # the weather shares no term
    assert bm25_ranking("unrelated", docs) == []


def test_packing_keeps_whole_lines_within_the_budget() -> None:
    tokenizer = WhitespaceTokenizer()
    packed = pack_lines(["one two three", "four five six seven", "eight"], 5, tokenizer)
    assert packed == "one two three\neight"  # the second does not fit; a later one does
    assert tokenizer.count(packed) <= 5


def test_loading_keeps_only_answers_written_in_evidence(tmp_path: Path) -> None:
    first, second = load_dialogues(dataset(tmp_path / "d.json"))
    assert [p.question for p in first.probes] == [
        "What is the name of Ana's kitten?",
        "Who performed at the concert Ana went to?",
    ]
    assert (first.half, second.half) == ("tuned", "tuned")
    assert first.turns[-1].session == 2
    assert first.turns[0].at < first.turns[1].at  # turns keep their order within a session


def test_conversation_ranges() -> None:
    assert parse_conversations("5-9") == [5, 6, 7, 8, 9]
    assert parse_conversations("0,2-3") == [0, 2, 3]
    for bad in ("x", "", "-1"):
        with pytest.raises(ValidationError, match="conversations"):
            parse_conversations(bad)


def test_cli_reports_every_method_and_budget(tmp_path: Path) -> None:
    data = str(dataset(tmp_path / "d.json"))
    result = CliRunner().invoke(
        app, ["eval", "context", "--data", data, "--budgets", "60,200", "--conversations", "0-1"]
    )
    assert result.exit_code == 0, result.output
    metrics = json.loads(result.output.strip().splitlines()[-1])["metrics"]
    for method in ("assemble", "bm25", "hybrid"):
        for budget in (60, 200):
            assert 0.0 <= metrics[f"tuned.{method}.{budget}"] <= 1.0
            assert metrics[f"tuned.{method}.{budget}.questions"] == 4
            assert 0 < metrics[f"tuned.{method}.{budget}.tokens"] <= budget
    # the reply that names the performer follows the question that matched: in context
    assert metrics["tuned.assemble.200"] == 1.0
    assert metrics["assemble_ms_p95"] > 0
    assert "contexts holding the answer" in result.output


def test_cli_refuses_bad_options(tmp_path: Path) -> None:
    missing = CliRunner().invoke(app, ["eval", "context", "--data", str(tmp_path / "x.json")])
    assert missing.exit_code != 0
    assert "does not exist" in missing.output
    data = str(dataset(tmp_path / "d.json"))
    for budgets in ("0", "a,b"):
        bad = CliRunner().invoke(app, ["eval", "context", "--data", data, "--budgets", budgets])
        assert bad.exit_code != 0
        assert "--budgets" in bad.output
