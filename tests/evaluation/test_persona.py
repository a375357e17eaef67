"""The persona evaluation: its matching rule, a tiny CSV, and the real test split's halves."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from sedimem.cli import app
from sedimem.errors import ValidationError
from sedimem.evaluation.persona import USER, agree, content_words, halves, load, score

REAL = next(
    (
        p / "shared" / "data" / "synthetic-persona-chat-test.csv"
        for p in Path(__file__).resolve().parents[2].parents
        if (p / "shared" / "data" / "synthetic-persona-chat-test.csv").exists()
    ),
    Path("../shared/data/synthetic-persona-chat-test.csv"),
)


def tiny(tmp_path: Path) -> Path:
    path = tmp_path / "persona.csv"
    with path.open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["user 1 personas", "user 2 personas", "Best Generated Conversation"])
        writer.writerow(
            [
                "I live in Ohio.\nI have two dogs.\nMy favorite color is green.",
                "I am a nurse.\nI have a cat named Tom.",
                "User 1: Hi! What's your favorite color?\n"
                "User 2: I have a cat named Tom. I'm a nurse.\n"
                "User 1: Cool. I live in Ohio and I love hiking.\n"
                "User 2: Nice, I love hiking too.",
            ]
        )
    return path


def test_matching_rule() -> None:
    assert content_words(f"{USER} lives in Ohio.") == {"liv", "ohio"}
    assert agree("persona_user has 2 dogs.", "I have two dogs.")  # "dog" is shared
    assert agree("persona_user lives in Ohio.", "I live in Ohio.")
    assert not agree("persona_user lives in Ohio.", "I have two dogs.")
    assert not agree("the", "a")  # nothing to compare


def test_scores_a_tiny_conversation(tmp_path: Path) -> None:
    (conv,) = load(tiny(tmp_path))
    outcome = score([conv])
    metrics = outcome.metrics()
    # stated: "I live in Ohio" only (the colour is asked, not stated; the dogs never come up)
    assert metrics["stated"] == 1
    assert metrics["recall"] == 1.0
    # learned: lives in Ohio (correct), likes hiking (unlisted); nothing from User 2's turns
    assert metrics["learned"] == 2
    assert metrics["precision"] == 1.0
    assert metrics["strict_precision"] == 0.5
    assert metrics["other_speaker_share"] == metrics["question_share"] == 0.0
    assert metrics["unlisted_share"] == 0.5
    result = CliRunner().invoke(
        app,
        ["eval", "extraction", "--persona", str(tiny(tmp_path))],
    )
    if result.exit_code == 0:  # with LoCoMo beside the checkout: both sets printed
        persona = json.loads(result.output.strip().splitlines()[-1])["persona"]
        assert set(persona) == {"tuning_0_483", "held_out_484_967"}


def test_bad_input(tmp_path: Path) -> None:
    with pytest.raises(ValidationError, match="persona"):
        load(tmp_path / "none.csv")
    (tmp_path / "bad.csv").write_text("a,b\n1,2\n")
    with pytest.raises(ValidationError, match="persona"):
        load(tmp_path / "bad.csv")
    missing = CliRunner().invoke(
        app, ["eval", "extraction", "--persona", str(tmp_path / "none.csv")]
    )
    assert missing.exit_code != 0


def test_the_held_out_half() -> None:
    """The acceptance lines, on the half no rule was tuned on (484-967)."""
    if not REAL.exists():
        pytest.skip(f"persona data not found at {REAL}")
    tuned, held = halves(load(REAL))
    assert len(tuned) == 484
    assert len(held) == 484
    metrics = score(held).metrics()
    assert metrics["question_share"] == 0.0, metrics
    assert metrics["other_speaker_share"] == 0.0, metrics
    assert metrics["recall"] >= 0.5, metrics
    assert metrics["precision"] >= 0.9, metrics
