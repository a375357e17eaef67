"""The facade as an agent uses it, on the embedded default (SQLite).

- ``assemble.p95_ms@100k``: context assembly with 100k episodes, 10k facts and 1k procedures
  in the scope (plus pinned blocks and working state), budget 2,000 tokens; the stores are
  warmed first (steady state), the query embedding is included (it is part of assembling);
- ``lifecycle.spawn_pause_resume_terminate.p95_ms``: one whole session lifecycle;
- ``reflect.seconds@1000``: all four reflection calls over 1,000 episodes (p95);
- ``first_assemble_ms@250``: in a fresh process, the first ``assemble`` after opening a
  store of 250 chat turns (median of 5 processes), beside ``open_ms@250`` and the second
  ``assemble`` of the same process (``second_assemble_ms@250``, its steady state).
Each timed measure also reports calls per second (``per_s``, sequential) and this process's
CPU time per call (``cpu_ms``, all its threads: unlike the wall-clock percentiles, it
hardly depends on what else the machine runs); the load average at the start and the end of
the run is given (the machine may be shared), with a baseline measured in the same run:
``baseline.numpy_top10.p50_ms``, numpy's exact top 10 of 100k x 256 float32 vectors (a
slower or busier machine shows up there first), and the ratio of ``assemble`` to it.
``--corpus locomo`` writes LoCoMo's turns (``../shared/data/locomo10.json``, read in place)
as a chat (user and assistant turns of ~20 words, 100 to a session, as ``ingest`` records
them, so ``assemble`` also reads the reply to each of its best turns; facts and procedure
steps are drawn from the same turns) and asks its questions, in place of
sentences of 38 words: every word of those is in ~30% of the records, so each query term's
postings and each candidate's matches are many times what real text has. The synthetic
corpus stays the default (the targets are set on it); the other shows what text costs.
Prints a table and, as its last line, ``{"metrics": {...}}``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np

from sedimem.memory import Memory
from sedimem.scope import Scope
from sedimem.types import Episode, Fact, Outcome, Procedure, TaskState

_REPO = str(Path(__file__).resolve().parent.parent)
SCOPE = Scope(tenant="bench", project="p", user="ana", session="live")
WORDS = (
    "oslo lisbon train flight hotel budget visa museum dinner meeting report deadline "
    "invoice refund client launch release bug deploy review design draft budget tax "
    "garden piano yoga recipe doctor school holiday birthday wedding concert"
).split()


def percentiles(samples: list[float]) -> dict[str, float]:
    q = statistics.quantiles(samples, n=100, method="inclusive")
    return {"p50": q[49], "p95": q[94], "p99": q[98]}


def sentence(rng: random.Random, n: int = 12) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(n)).capitalize() + "."


Text = Callable[[random.Random, int], str]


def locomo_corpus(path: Path) -> tuple[Text, list[str]]:
    """Texts drawn from LoCoMo's turns (about ``n`` words from whole turns) and its
    questions."""
    raw = json.loads(path.read_text())
    turns = [
        str(t["text"])
        for conv in raw
        for key, session in conv["conversation"].items()
        if key.startswith("session_") and isinstance(session, list)
        for t in session
    ]
    questions = [str(qa["question"]) for conv in raw for qa in conv["qa"]]

    def text(rng: random.Random, n: int = 12) -> str:
        words: list[str] = []
        while len(words) < n:
            words += rng.choice(turns).split()
        return " ".join(words)

    return text, questions


#: Turns per session of the chat-shaped corpus.
SESSION_TURNS = 100


def chat_turn(i: int, said: str) -> Episode:
    """Turn ``i`` of a chat as ``ingest`` records it: the user and the assistant in turn,
    a minute apart, :data:`SESSION_TURNS` to a session."""
    role = "user" if i % 2 == 0 else "assistant"
    speaker = "Ana" if role == "user" else role
    return Episode(
        scope=SCOPE.owner.with_session(f"chat-{i // SESSION_TURNS}"),
        task_type="conversation",
        description=f"{speaker}: {said}",
        occurred_at=datetime(2024, 1, 1, tzinfo=UTC) + timedelta(minutes=i),
        metadata={"role": role, "speaker": speaker},
    )


async def populate(
    memory: Memory,
    episodes: int,
    facts: int,
    procedures: int,
    text: Text = sentence,
    *,
    chat: bool = False,
) -> float:
    """``chat``: the episodes are chat turns (:func:`chat_turn`): ``assemble`` then also
    reads the reply to each of its best turns, as it does for ingested conversations."""
    rng = random.Random(7)
    start = time.perf_counter()
    batch = [
        chat_turn(i, text(rng, 20))
        if chat
        else Episode(
            scope=SCOPE.owner,
            description=f"{text(rng, 12)} (#{i})",
            outcome=rng.choice(list(Outcome)),
        )
        for i in range(episodes)
    ]
    await memory.episodes.record_many(batch, batch_size=2000)
    for i in range(facts):
        await memory.facts.learn(Fact(scope=SCOPE.owner, statement=f"{text(rng, 8)} #{i}"))
    for i in range(procedures):
        await memory.procedures.record(
            Procedure(
                scope=SCOPE.owner,
                name=f"procedure {i}",
                trigger=text(rng, 8),
                steps=[text(rng, 5) for _ in range(4)],
            )
        )
    await memory.blocks(SCOPE).update("persona", "You are a helpful, precise assistant.")
    wm = memory.working(SCOPE)
    await wm.set_task_state(TaskState(task_id="plan", total_steps=5, current_step=2))
    for i in range(10):
        await wm.set(f"var{i}", text(rng, 6))
        await wm.append_scratchpad(text(rng, 10))
    return time.perf_counter() - start


async def bench_assemble(
    memory: Memory, queries: int, asked: list[str] | None = None
) -> dict[str, float]:
    rng = random.Random(11)
    warm = getattr(memory.longterm_store, "warm", None)
    start = time.perf_counter()
    if warm is not None:
        await warm(SCOPE.tenant, wait=True)
    warmed = time.perf_counter() - start
    if asked is None:
        questions = [sentence(rng, 6) for _ in range(queries + 10)]
    else:
        questions = rng.sample(asked, queries + 10)
    for q in questions[:10]:
        await memory.assemble(q, SCOPE, budget_tokens=2000)
    samples = []
    cpu = time.process_time()
    for q in questions[10:]:
        t0 = time.perf_counter()
        await memory.assemble(q, SCOPE, budget_tokens=2000)
        samples.append((time.perf_counter() - t0) * 1000)
    cpu_ms = (time.process_time() - cpu) * 1000 / len(samples)
    return {
        "warm_s": warmed,
        **percentiles(samples),
        "per_s": 1000 * len(samples) / sum(samples),
        "cpu": cpu_ms,  # CPU time of this process per call, all threads: load-independent
    }


def bench_baseline(rounds: int) -> dict[str, float]:
    """numpy's exact top 10 of 100k x 256 float32 vectors: how fast this machine is now."""
    rng = np.random.default_rng(3)
    matrix = rng.standard_normal((100_000, 256), dtype=np.float32)
    queries = rng.standard_normal((rounds, 256), dtype=np.float32)
    samples = []
    for query in queries:
        t0 = time.perf_counter()
        scores = matrix @ query
        np.argpartition(-scores, 9)[:10]
        samples.append((time.perf_counter() - t0) * 1000)
    return percentiles(samples)


async def bench_lifecycle(memory: Memory, rounds: int) -> dict[str, float]:
    samples = []
    cpu = time.process_time()
    for i in range(rounds):
        scope = SCOPE.with_session(f"life-{i}")
        t0 = time.perf_counter()
        await memory.lifecycle.spawn(scope, {"goal": "benchmark"}, total_steps=3)
        wm = memory.working(scope)
        await wm.append_scratchpad("step one")
        await memory.lifecycle.pause(scope)
        await memory.lifecycle.resume(scope)
        await memory.lifecycle.terminate(scope, "success")
        samples.append((time.perf_counter() - t0) * 1000)
    cpu_ms = (time.process_time() - cpu) * 1000 / len(samples)
    return {**percentiles(samples), "per_s": 1000 * len(samples) / sum(samples), "cpu": cpu_ms}


_FIRST = """
import asyncio, json, sys, time
from sedimem.memory import Memory
from sedimem.scope import Scope
async def main():
    t0 = time.perf_counter()
    async with await Memory.open(sys.argv[1]) as memory:
        t1 = time.perf_counter()
        await memory.assemble("Where did I go hiking with Rex?", Scope(tenant="t", user="u"), 1000)
        t2 = time.perf_counter()
        await memory.assemble("How many birds did I see?", Scope(tenant="t", user="u"), 1000)
        t3 = time.perf_counter()
    print(json.dumps([t1 - t0, t2 - t1, t3 - t2]))
asyncio.run(main())
"""


async def bench_first_assemble(tmp: Path, processes: int) -> dict[str, float]:
    """Open a 250-turn store in fresh processes and time their first two assembles."""
    import subprocess

    url = f"sqlite:///{tmp}/chat.db"
    user = Scope(tenant="t", user="u")
    at = datetime(2025, 1, 1, tzinfo=UTC)
    messages = [
        {
            "role": "user" if i % 2 == 0 else "assistant",
            "content": f"Turn {i}: I went hiking near lake {i % 17} with my dog Rex "
            f"and saw {i} birds.",
            "timestamp": at + timedelta(minutes=i),
        }
        for i in range(250)
    ]
    async with await Memory.open(url) as memory:
        await memory.ingest(messages[:125], user.with_session("a"))
        await memory.ingest(messages[125:], user.with_session("b"))
    runs = []
    for _ in range(processes):
        out = await asyncio.to_thread(
            lambda: (
                subprocess.run(
                    [sys.executable, "-c", _FIRST, url], check=True, capture_output=True, text=True
                ).stdout
            )
        )
        runs.append(json.loads(out.strip().splitlines()[-1]))
    opened, first, second = (sorted(r[i] * 1000 for r in runs) for i in range(3))
    middle = processes // 2
    return {
        "open_ms@250": opened[middle],
        "first_assemble_ms@250": first[middle],
        "second_assemble_ms@250": second[middle],
    }


async def bench_reflect(tmp: Path, repeat: int) -> dict[str, float]:
    sys.path.insert(0, _REPO)  # also when run as a script
    from benchmarks.reflection import run_size

    result = await run_size(1000, repeat, tmp)
    return {f"reflect.{k}_s@1000": v for k, v in result["reflect"].items()} | {
        "reflect.seconds@1000": result["reflect"]["p95"]
    }


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="2k episodes, 200 facts, 20 procs")
    parser.add_argument(
        "--corpus",
        choices=("synthetic", "locomo"),
        default="synthetic",
        help="what the records say (see the module docstring)",
    )
    parser.add_argument(
        "--data",
        type=Path,
        default=Path(_REPO).parent / "shared" / "data" / "locomo10.json",
        help="LoCoMo's JSON file, for --corpus locomo",
    )
    args = parser.parse_args()
    text: Text = sentence
    asked: list[str] | None = None
    if args.corpus == "locomo":
        text, asked = locomo_corpus(args.data)
    episodes, facts, procs = (2_000, 200, 20) if args.quick else (100_000, 10_000, 1_000)
    label = f"@{episodes // 1000}k"
    metrics: dict[str, Any] = {"load_average_start": os.getloadavg()[0]}
    metrics["corpus_locomo"] = float(args.corpus == "locomo")
    with tempfile.TemporaryDirectory(prefix="sedimem-context-") as tmpdir:
        tmp = Path(tmpdir)
        async with await Memory.open(f"sqlite:///{tmp}/bench.db") as memory:
            metrics["populate_s"] = await populate(
                memory, episodes, facts, procs, text, chat=args.corpus == "locomo"
            )
            print(f"populated in {metrics['populate_s']:.1f} s", flush=True)
            a = await bench_assemble(memory, 50 if args.quick else 200, asked)
            base = bench_baseline(50 if args.quick else 200)
            for k, v in base.items():
                metrics[f"baseline.numpy_top10.{k}_ms"] = v
            metrics[f"assemble.p50_ratio_to_baseline{label}"] = a["p50"] / base["p50"]
            metrics["assemble.warm_s"] = a.pop("warm_s")
            for k, v in a.items():
                metrics[f"assemble.{k}{label}" if k == "per_s" else f"assemble.{k}_ms{label}"] = v
            life = "lifecycle.spawn_pause_resume_terminate"
            for k, v in (await bench_lifecycle(memory, 50 if args.quick else 200)).items():
                metrics[f"{life}.{k}" if k == "per_s" else f"{life}.{k}_ms"] = v
        metrics.update(await bench_reflect(tmp, 5 if args.quick else 30))
        metrics.update(await bench_first_assemble(tmp, 5))
    metrics["load_average_end"] = os.getloadavg()[0]
    for name, value in metrics.items():
        print(f"{name:52} {value:12.3f}")
    print(json.dumps({"metrics": {k: round(v, 4) for k, v in metrics.items()}}))


if __name__ == "__main__":
    asyncio.run(main())
