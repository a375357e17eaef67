"""Ingest benchmark: chat turns through ``Memory.ingest`` with the rule extractor, on the
embedded default (SQLite, the packaged static embedder), and the extractor alone.

Turns: the conversations of Synthetic-Persona-Chat's test split (``--data``, default
``../shared/data/synthetic-persona-chat-test.csv``), "User 1" as role ``user`` and "User 2"
as ``assistant``, no ``name``, one ``ingest`` call per conversation (as an agent hands over
a session), each conversation in its own user's scope. Timed: the whole call (filing each
turn once by its key, embedding, extracting, learning the facts). Then the extractor alone
over the same turns, once with the hand-written splitter and once with pysbd's (when
installed: the comparison behind the choice of splitter).

``--history N`` first files N earlier episodes in the same tenant (another user's, with
``record_many``): what ingest costs in a store with a long history. Every call looks its
turns up by their keys; a look-up that walked the tenant's episodes (as one did before
2026-11-29) grows with N, one that reads the keys' index does not.

Wall-clock figures on a shared machine move with its load (run it a few times); the
figure per CPU second counts the process's own work only.

Prints a table and, as its last line, ``{"metrics": {...}}``. Target (issue 22):
``ingest.turns_per_second`` >= 2,000.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from sedimem.evaluation.persona import load
from sedimem.extraction import extract_statements
from sedimem.memory import Memory
from sedimem.scope import Scope
from sedimem.types import Episode

T0 = datetime(2024, 1, 1, 12, 0, tzinfo=UTC)


def conversations(path: Path, count: int) -> list[list[dict[str, Any]]]:
    out = []
    for conv in [c for c in load(path) if c.turns][:count]:
        out.append(
            [
                {
                    "role": role,
                    "content": text,
                    "timestamp": (T0 + timedelta(minutes=n)).isoformat(),
                }
                for n, (role, text) in enumerate(conv.turns)
            ]
        )
    return out


async def ingest(
    convs: list[list[dict[str, Any]]], history: int = 0
) -> tuple[float, float, int, int]:
    with tempfile.TemporaryDirectory() as tmp:
        async with await Memory.open(f"sqlite:///{tmp}/bench.db") as memory:
            earlier = Scope(tenant="bench", user="earlier")
            await memory.episodes.record_many(
                [
                    Episode(scope=earlier, description=f"Earlier turn {i} about lake {i % 97}.")
                    for i in range(history)
                ],
                batch_size=2000,
            )
            await memory.ingest(convs[0][:1], Scope(tenant="warm", user="w"))  # load models
            started, cpu = time.perf_counter(), time.process_time()
            facts = 0
            for n, messages in enumerate(convs):
                result = await memory.ingest(messages, Scope(tenant="bench", user=f"u{n}"))
                facts += len(result.inserted) + len(result.reinforced)
            elapsed, used = time.perf_counter() - started, time.process_time() - cpu
    return elapsed, used, sum(map(len, convs)), facts


def extract_only(convs: list[list[dict[str, Any]]]) -> float:
    started = time.perf_counter()
    for messages in convs:
        for m in messages:
            extract_statements(m["content"], "u", T0, role=m["role"], addressee="u")
    return time.perf_counter() - started


def pysbd_split(convs: list[list[dict[str, Any]]]) -> float | None:
    try:
        import pysbd  # type: ignore[import-not-found, unused-ignore]
    except ImportError:
        return None
    segmenter = pysbd.Segmenter(language="en", clean=False)
    started = time.perf_counter()
    for messages in convs:
        for m in messages:
            segmenter.segment(m["content"])
    return time.perf_counter() - started


def own_split(convs: list[list[dict[str, Any]]]) -> float:
    from sedimem.extraction.sentences import split_sentences

    started = time.perf_counter()
    for messages in convs:
        for m in messages:
            split_sentences(m["content"])
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--data", type=Path, default=Path("../shared/data/synthetic-persona-chat-test.csv")
    )
    parser.add_argument("--conversations", type=int, default=200)
    parser.add_argument(
        "--history", type=int, default=0, help="earlier episodes in the tenant (see above)"
    )
    args = parser.parse_args()
    convs = conversations(args.data, args.conversations)
    elapsed, used, turns, facts = asyncio.run(ingest(convs, args.history))
    extracted = extract_only(convs)
    ours, theirs = own_split(convs), pysbd_split(convs)
    metrics = {
        "history": args.history,
        "turns": turns,
        "facts": facts,
        "ingest.turns_per_second": round(turns / elapsed),
        # per CPU second of the process (every thread): what a loaded, shared machine
        # cannot blur as much as wall-clock time
        "ingest.turns_per_cpu_second": round(turns / used),
        "extract.turns_per_second": round(turns / extracted),
        "split.own.turns_per_second": round(turns / ours),
        "split.pysbd.turns_per_second": None if theirs is None else round(turns / theirs),
    }
    print(f"{'measure':34} value")
    for key, value in metrics.items():
        print(f"{key:34} {value}")
    print(json.dumps({"metrics": metrics}))


if __name__ == "__main__":
    main()
