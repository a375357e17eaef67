"""``SedimemStore.search`` ranking on LoCoMo, beside LangGraph's ``InMemoryStore``.

The differential test proves that ``SedimemStore`` returns the same *set* of items as
LangGraph's ``InMemoryStore``; which of them come first is measured here. Both stores get
the 5,882 turns of LoCoMo's 10 conversations as items ``{"text": turn}`` and the same
embedder weights (sedimem's default embedder; LangGraph's ``index={"embed": ...}``), then
every question of categories 1-4 (1,531; ``--questions`` for a sample) searches its
conversation's items (``search(ns, query=question, limit=10)``) and scores a hit when any of
the top 10 is one of its evidence turns (R@10 "any", as ``sedimem eval locomo``).

- ``sedimem_store``: ``SedimemStore`` over SQLite, one scope per conversation (its
  project), namespace ``("turns",)``: sedimem's hybrid search (BM25 + vectors, fused);
- ``langgraph_mem``: ``InMemoryStore``, namespace ``("bench", conversation)``: cosine
  similarity of the embeddings only.

Latency excludes the query's embedding (questions are embedded once beforehand). Prints a
table and, as its last line, ``{"metrics": {...}}``. Needs the ``langgraph`` extra.

    python -m benchmarks.store_ranking [--questions N]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

from benchmarks.peers import (
    KEY,
    TENANT,
    Item,
    Precomputed,
    Question,
    Result,
    bench_langgraph_memory,
    hit_rate,
    load,
    timed_questions,
)
from sedimem.embed import default_embedder
from sedimem.memory import Memory
from sedimem.scope import Scope

NAMESPACE = ("turns",)


async def bench_sedimem_store(
    path: Path, turns: list[Item], questions: list[Question], precomputed: Precomputed, k: int
) -> Result:
    from sedimem.integrations.langgraph import SedimemStore

    by_project: dict[str, list[Item]] = defaultdict(list)
    for item in turns:
        by_project[item.project].append(item)
    async with await Memory.open(f"sqlite:///{path}", embedder=precomputed) as memory:
        stores = {
            project: SedimemStore(memory, Scope(tenant=TENANT, project=project))
            for project in by_project
        }
        began = time.perf_counter()
        for project, items in by_project.items():
            for item in items:
                await stores[project].aput(NAMESPACE, item.key, {"text": item.text, KEY: item.key})
        rate = len(turns) / (time.perf_counter() - began)

        async def ask(q: Question) -> list[str]:
            hits = await stores[q.project].asearch(NAMESPACE, query=q.text, limit=k)
            return [str(hit.value[KEY]) for hit in hits]

        p, found = await timed_questions(questions, ask)
    return Result(
        ingest_per_s=rate,
        p50=p["p50"],
        p95=p["p95"],
        p99=p["p99"],
        r_at_10=hit_rate(found, questions),
        short=sum(len(f) < k for f in found),
    )


async def run(args: argparse.Namespace) -> dict[str, float]:
    turns, questions = load(args.data, args.questions, args.seed)
    precomputed = Precomputed(default_embedder(), [q.text for q in questions])
    metrics: dict[str, float] = {"load_average_start": os.getloadavg()[0]}
    with tempfile.TemporaryDirectory(prefix="sedimem-store-ranking-") as tmp:
        ours = await bench_sedimem_store(
            Path(tmp) / "store.db", turns, questions, precomputed, args.k
        )
    theirs = await bench_langgraph_memory(turns, questions, precomputed, args)
    metrics["load_average_end"] = os.getloadavg()[0]
    print(f"LoCoMo: {len(turns)} turns, {len(questions)} questions, k={args.k}")
    print(f"{'store':<16}{'R@10':>8}{'p50 ms':>10}{'p95 ms':>10}{'put/s':>10}")
    for name, r in (("sedimem_store", ours), ("langgraph_mem", theirs)):
        print(
            f"{name:<16}{r.r_at_10:>8.3f}{r.p50:>10.2f}{r.p95:>10.2f}{r.ingest_per_s or 0:>10.0f}"
        )
        metrics[f"{name}.r_at_10"] = r.r_at_10
        metrics[f"{name}.search.p50_ms"] = r.p50
        metrics[f"{name}.search.p95_ms"] = r.p95
        metrics[f"{name}.short_results"] = float(r.short)
    return metrics


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=Path("../shared/data/locomo10.json"))
    parser.add_argument(
        "--questions", type=int, default=0, help="a sample of this many (default 0: all 1,531)"
    )
    parser.add_argument("--k", type=int, default=10)
    parser.add_argument("--batch", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=7)
    args: Any = parser.parse_args()
    if not args.data.exists():
        parser.error(f"{args.data} not found: LoCoMo's locomo10.json is needed (--data)")
    metrics = asyncio.run(run(args))
    print(json.dumps({"metrics": {k: round(v, 4) for k, v in metrics.items()}}))
    sys.stdout.flush()


if __name__ == "__main__":
    main()
