"""Embedding requests saved by the embedder's cache, on a realistic mix against the project's
test embeddings server (``sedimem.testing.llm_server``, a real process on loopback).

The mix, per LoCoMo conversation (read from ``../shared/data/locomo10.json``), is what an
agent sends over its life: each session's turns are ingested (``Memory.ingest``, no message
ids) and a share of the sessions, ``--resend``, is sent a second time (a client that retried,
or re-sends the history); between sessions the agent recalls (episodes, facts and
procedures at once, as ``POST /v1/recall`` does) and assembles context for questions drawn
from the conversation's own QA list, the popular ones more often (Zipf, exponent
``--zipf``). The same mix runs twice in one run, on fresh SQLite stores: with the cache off
(``embedder_cache_size=0``, the baseline) and on (``--cache-size``).

Printed: embedding requests and texts sent per run and their ratio, the cache's hits and
misses, and the latency of recall and assemble (p50 / p95 / p99 over every call, ms) and
the throughput of the whole mix. The scripted server answers in well under a millisecond,
so latency saved here is the round trip on loopback only; a real endpoint (tens of ms per
request) saves far more per hit.

    python -m benchmarks.embed_cache [--conversations 2] [--questions 200] [--sessions 0]
        [--resend 0.3] [--zipf 1.1] [--cache-size 10000] [--seed 5]

The last line printed is a JSON object ``{"metrics": {...}}``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from sedimem.config import Settings
from sedimem.memory import Memory
from sedimem.scope import Scope
from sedimem.testing.llm_server import ScriptedLLMServer

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "locomo10.json"


def conversations(count: int, path: Path = DATA) -> list[dict[str, Any]]:
    return list(json.loads(path.read_text()))[:count]


def sessions(sample: dict[str, Any]) -> list[list[dict[str, str]]]:
    """The conversation's sessions as chat turns (speaker A is the user)."""
    talk = sample["conversation"]
    user = talk["speaker_a"]
    numbers = sorted(
        int(k.split("_")[1]) for k in talk if k.startswith("session_") and k.count("_") == 1
    )
    return [
        [
            {
                "role": "user" if turn["speaker"] == user else "assistant",
                "name": turn["speaker"],
                "content": turn["text"],
            }
            for turn in talk[f"session_{n}"]
        ]
        for n in numbers
    ]


def zipf_draws(items: list[str], count: int, exponent: float, rng: random.Random) -> list[str]:
    weights = [1.0 / (rank + 1) ** exponent for rank in range(len(items))]
    return rng.choices(items, weights=weights, k=count)


def cuts(samples: list[float]) -> dict[str, float]:
    if len(samples) < 2:
        return {"p50_ms": 0.0, "p95_ms": 0.0, "p99_ms": 0.0}
    q = statistics.quantiles(samples, n=100, method="inclusive")
    return {"p50_ms": q[49] * 1e3, "p95_ms": q[94] * 1e3, "p99_ms": q[98] * 1e3}


async def run_mix(
    server: ScriptedLLMServer, cache_size: int, args: argparse.Namespace
) -> dict[str, Any]:
    """The mix on a fresh store; what the endpoint was sent and how long calls took."""
    rng = random.Random(args.seed)
    with tempfile.TemporaryDirectory(prefix="sedimem-embed-cache-") as home:
        settings = Settings(
            home=Path(home),
            embedder="openai",
            embedder_url=server.base_url,
            embedder_model="bench-embed",
            embedder_cache_size=cache_size,
        )
        memory = await Memory.open(settings=settings)
        server.reset()  # the dimension probe at open is not the mix's
        recalls: list[float] = []
        assembles: list[float] = []
        operations = 0
        begin = time.perf_counter()
        try:
            for number, sample in enumerate(conversations(args.conversations, args.data)):
                scope = Scope(tenant="bench", user=f"user{number}")
                questions = [qa["question"] for qa in sample["qa"]]
                rng.shuffle(questions)  # which questions are popular
                parts = sessions(sample)[: args.sessions or None]
                draws = zipf_draws(questions, args.questions, args.zipf, rng)
                per_session = max(1, len(draws) // len(parts))
                for index, turns in enumerate(parts):
                    await memory.ingest(turns, scope)
                    operations += 1
                    if rng.random() < args.resend:
                        await memory.ingest(turns, scope)
                        operations += 1
                    for question in draws[index * per_session : (index + 1) * per_session]:
                        started = time.perf_counter()
                        await asyncio.gather(
                            memory.episodes.recall(question, scope=scope),
                            memory.facts.recall(question, scope=scope),
                            memory.procedures.find_matching(question, scope=scope),
                        )
                        recalls.append(time.perf_counter() - started)
                        started = time.perf_counter()
                        await memory.assemble(question, scope, 1000)
                        assembles.append(time.perf_counter() - started)
                        operations += 2
            elapsed = time.perf_counter() - begin
            counts = None
            cache = getattr(memory.embedder, "cache", None)
            if cache is not None:
                counts = cache.counts()
        finally:
            await memory.aclose()
    requests = server.requests("embeddings")
    texts = [t for r in requests for t in r["body"]["input"]]
    return {
        "requests": len(requests),
        "texts": len(texts),
        "distinct_texts": len(set(texts)),
        "hits": counts.hits if counts is not None else 0,
        "misses": counts.misses if counts is not None else 0,
        "recall": cuts(recalls),
        "assemble": cuts(assembles),
        "operations": operations,
        "ops_per_s": operations / elapsed,
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--conversations", type=int, default=2)
    parser.add_argument("--data", type=Path, default=DATA, help="LoCoMo's locomo10.json")
    parser.add_argument("--questions", type=int, default=200, help="per conversation")
    parser.add_argument("--sessions", type=int, default=0, help="per conversation (0: all)")
    parser.add_argument("--resend", type=float, default=0.3, help="share of sessions sent twice")
    parser.add_argument("--zipf", type=float, default=1.1, help="popularity of questions")
    parser.add_argument("--cache-size", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=5)
    args = parser.parse_args(argv)

    with ScriptedLLMServer(dimension=64) as server:
        baseline = asyncio.run(run_mix(server, 0, args))
        cached = asyncio.run(run_mix(server, args.cache_size, args))

    print(
        f"mix: {args.conversations} LoCoMo conversations, {args.questions} questions each "
        f"(Zipf {args.zipf}), {args.resend:.0%} of sessions sent twice; "
        f"{cached['operations']} calls per run"
    )
    print(f"{'':<26}{'cache off':>12}{'cache on':>12}{'ratio':>8}")
    for label, key in (("embedding requests", "requests"), ("texts sent", "texts")):
        ratio = cached[key] / baseline[key] if baseline[key] else 0.0
        print(f"{label:<26}{baseline[key]:>12,}{cached[key]:>12,}{ratio:>8.2f}")
    for op in ("recall", "assemble"):
        for cut in ("p50_ms", "p95_ms", "p99_ms"):
            off, on = baseline[op][cut], cached[op][cut]
            ratio = on / off if off else 0.0
            print(f"{op + ' ' + cut:<26}{off:>12.2f}{on:>12.2f}{ratio:>8.2f}")
    ratio = cached["ops_per_s"] / baseline["ops_per_s"]
    print(
        f"{'throughput (calls/s)':<26}{baseline['ops_per_s']:>12.1f}{cached['ops_per_s']:>12.1f}"
        f"{ratio:>8.2f}"
    )
    looked_up = cached["hits"] + cached["misses"]
    hit_rate = cached["hits"] / looked_up if looked_up else 0.0
    print(f"cache: {cached['hits']:,} hits, {cached['misses']:,} misses (hit rate {hit_rate:.1%})")

    metrics = {
        "requests.off": baseline["requests"],
        "requests.on": cached["requests"],
        "texts.off": baseline["texts"],
        "texts.on": cached["texts"],
        "requests_saved_share": 1 - cached["requests"] / baseline["requests"],
        "texts_saved_share": 1 - cached["texts"] / baseline["texts"],
        "hit_rate": hit_rate,
        "throughput.off": baseline["ops_per_s"],
        "throughput.on": cached["ops_per_s"],
        "throughput_ratio": ratio,
    }
    for op in ("recall", "assemble"):
        for cut in ("p50_ms", "p95_ms", "p99_ms"):
            metrics[f"{op}.{cut}.off"] = baseline[op][cut]
            metrics[f"{op}.{cut}.on"] = cached[op][cut]
            if baseline[op][cut]:
                metrics[f"{op}.{cut}.ratio"] = cached[op][cut] / baseline[op][cut]
    print(json.dumps({"metrics": {k: round(v, 4) for k, v in metrics.items()}}))


if __name__ == "__main__":
    main()
