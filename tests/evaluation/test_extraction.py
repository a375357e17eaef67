"""The extraction scorer: its matching rule, a tiny dataset, and the real labelled sample."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from sedimem.cli import app
from sedimem.errors import ValidationError
from sedimem.evaluation.extraction import load_labels, load_turns, objects_overlap, score

# ../shared/data beside the checkout (a worktree may sit one level deeper)
REAL = next(
    (
        p / "shared" / "data" / "locomo10.json"
        for p in Path(__file__).resolve().parents[2].parents
        if (p / "shared" / "data" / "locomo10.json").exists()
    ),
    Path("../shared/data/locomo10.json"),
)


def dataset(tmp_path: Path) -> tuple[Path, Path]:
    conversation = {
        "speaker_a": "Ana", "speaker_b": "Bo",
        "session_1_date_time": "1:56 pm on 8 May, 2023",
        "session_1": [
            {"speaker": "Ana", "dia_id": "D1:1", "text": "I moved to Lisbon last week."},
            {"speaker": "Bo", "dia_id": "D1:2", "text": "Nice! I love sailing. I work at Acme."},
            {"speaker": "Ana", "dia_id": "D1:3", "text": "How was your day?"},
        ],
    }  # fmt: skip
    data = tmp_path / "locomo.json"
    data.write_text(json.dumps([{"sample_id": "c1", "conversation": conversation, "qa": []}]))
    labels = tmp_path / "labels.json"
    turns = [
        {"turn": "c1:D1:1", "facts": [{"subject": "Ana", "predicate": "lives_in",
                                       "object": "Lisbon", "valid_from": "2023-05-01"}]},
        {"turn": "c1:D1:2", "facts": [{"subject": "Bo", "predicate": "likes",
                                       "object": "sailing boats"},
                                      {"subject": "Bo", "predicate": "owns", "object": "a boat"}]},
        {"turn": "c1:D1:3", "facts": []},
    ]  # fmt: skip
    labels.write_text(json.dumps({"turns": turns}))
    return data, labels


def test_matching_rule() -> None:
    assert objects_overlap("a LGBTQ support group", "LGBTQ support group", "Ana")
    assert objects_overlap("Ana's first chess tournaments", "first chess tournament", "Ana")
    assert not objects_overlap("a place that holds", "her mother's old house", "Deb")
    assert objects_overlap(None, None, "Ana")
    assert not objects_overlap("x", None, "Ana")
    assert objects_overlap("the", "a", "Ana")  # nothing left on either side


def test_scores_a_tiny_dataset(tmp_path: Path) -> None:
    data, labels_path = dataset(tmp_path)
    labels = load_labels(labels_path)
    outcome = score(labels, load_turns(data, list(labels)))
    metrics = outcome.metrics()
    # extracted: lives_in Lisbon (right, dated right), likes sailing (right), works_at Acme
    # (not labelled: wrong); expected: three facts, two found
    assert metrics["extracted"] == 3
    assert metrics["matched"] == 2
    assert metrics["precision"] == round(2 / 3, 4)
    assert metrics["recall"] == round(2 / 3, 4)
    assert metrics["date_accuracy"] == 1.0
    assert outcome.false_positives == [("c1:D1:2", "(Bo, works_at, Acme)")]
    assert outcome.misses == [("c1:D1:2", "(Bo, owns, a boat)")]
    result = CliRunner().invoke(
        app, ["eval", "extraction", "--data", str(data), "--labels", str(labels_path)]
    )
    assert result.exit_code == 0, result.output
    # the LoCoMo metrics line comes first, then the persona set's figures (both halves)
    lines = [json.loads(x) for x in result.output.splitlines() if x.startswith("{")]
    assert lines[0]["metrics"]["matched"] == 2
    assert set(lines[1]["persona"]) == {"tuning_0_483", "held_out_484_967"}


def test_bad_inputs(tmp_path: Path) -> None:
    data, _ = dataset(tmp_path)
    with pytest.raises(ValidationError, match="labels"):
        load_labels(tmp_path / "none.json")
    with pytest.raises(ValidationError, match="data"):
        load_turns(tmp_path / "none.json", [])
    with pytest.raises(ValidationError, match="not in"):
        load_turns(data, ["c1:D9:9"])
    missing = CliRunner().invoke(app, ["eval", "extraction", "--data", str(tmp_path / "x")])
    assert missing.exit_code != 0
    assert "does not exist" in missing.output


def test_shipped_labels_cover_at_least_150_turns_without_text() -> None:
    labels = load_labels()
    assert len(labels) >= 150
    assert sum(1 for facts in labels.values() if not facts) >= 50  # turns with nothing to keep
    assert len({turn.split(":")[0] for turn in labels}) >= 5  # several conversations


def test_precision_on_the_real_sample() -> None:
    if not REAL.exists():
        pytest.skip(f"LoCoMo data not found at {REAL}")
    labels = load_labels()
    metrics = score(labels, load_turns(REAL, list(labels))).metrics()
    assert metrics["precision"] >= 0.8, metrics
    assert metrics["recall"] >= 0.3, metrics
    assert metrics["date_accuracy"] >= 0.8, metrics
