"""``python -m benchmarks.embed_cache`` on a sliver of the mix: it runs to its end against
the scripted embeddings server and its JSON line shows requests saved. (Its figures are
docs/benchmarks.md's: nothing here is timed.)"""

from __future__ import annotations

import json

import pytest

from benchmarks import embed_cache


def test_the_benchmark_reports_requests_saved(capsys: pytest.CaptureFixture[str]) -> None:
    embed_cache.main(["--conversations", "1", "--sessions", "2", "--questions", "8"])
    last = capsys.readouterr().out.strip().splitlines()[-1]
    metrics = json.loads(last)["metrics"]
    assert metrics["requests.on"] < metrics["requests.off"]
    assert metrics["texts.on"] < metrics["texts.off"]
    assert 0 < metrics["hit_rate"] < 1
    assert {"recall.p95_ms.off", "assemble.p99_ms.on", "throughput_ratio"} <= metrics.keys()
