"""``python -m benchmarks.ann`` on a few thousand synthetic vectors: it runs to its end and
its JSON line holds every structure's figures. (Its figures are docs/benchmarks.md's:
nothing here is timed.)"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarks import ann


def test_the_benchmark_compares_the_partition_and_the_graph_with_numpy(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    missing = tmp_path / "no-locomo.json"  # synthetic texts and questions
    ann.main(["--data", str(missing), "--size", "3000", "--queries", "20", "--probes", "4,16"])
    metrics = json.loads(capsys.readouterr().out.strip().splitlines()[-1])["metrics"]
    assert metrics["numpy_exact.r10"] == 1.0
    for name in ("ivf_64_lists_4_probes", "ivf_64_lists_16_probes", "hnsw_(kept_settings)"):
        assert 0.0 < metrics[f"{name}.r10"] <= 1.0
        assert metrics[f"{name}.p95_ms"] > 0
    # more lists probed, at least as many of the exact top 10 found
    assert metrics["ivf_64_lists_16_probes.r10"] >= metrics["ivf_64_lists_4_probes.r10"]
