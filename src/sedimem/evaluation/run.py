"""Run the LoCoMo evaluation on a fresh store and report tables plus a JSON line."""

from __future__ import annotations

import json
import tempfile
from collections.abc import Sequence
from pathlib import Path

from rich.console import Console
from rich.progress import Progress
from rich.table import Table

from sedimem.embed import Embedder, default_embedder
from sedimem.evaluation.locomo import CATEGORIES, MODES, ask, evaluate, load_locomo
from sedimem.longterm.episodic import EpisodicMemory
from sedimem.longterm.stores import open_longterm_store
from sedimem.retrieval.fusion import RetrievalSettings

__all__ = ["ABLATIONS", "run_locomo"]

_DEFAULTS = RetrievalSettings()
#: Hybrid recall with one technique taken away (or the fusion as it was before them).
ABLATIONS: dict[str, RetrievalSettings] = {
    "fusion only (rrf_k 60, no second stage)": _DEFAULTS.model_copy(
        update={"rrf_k": 60.0, "rerank_depth": 0}
    ),
    "fusion only (rrf_k 20, no second stage)": _DEFAULTS.model_copy(update={"rerank_depth": 0}),
    "without coverage": _DEFAULTS.model_copy(update={"coverage_weight": 0.0}),
    "without time": _DEFAULTS.model_copy(update={"time_weight": 0.0, "when_weight": 0.0}),
    "without session": _DEFAULTS.model_copy(update={"session_weight": 0.0}),
}
_COLUMNS = ("recall@5_any", "recall@10_any", "recall@5_all", "recall@10_all", "ndcg@10")
_HEADERS = ("R@5 any", "R@10 any", "R@5 all", "R@10 all", "NDCG@10")


async def run_locomo(
    data: Path,
    console: Console,
    *,
    store_url: str | None = None,
    ablation: bool = False,
    embedder: Embedder | None = None,
    only: Sequence[int] | None = None,
) -> dict[str, float]:
    """Ingest LoCoMo into a fresh store with ``embedder`` (default: the packaged static
    model), ask every question in each mode, print the tables and a JSON last line.
    ``only``: the conversations to run, by position in the file (default: all)."""
    conversations = load_locomo(data)
    if only is not None:
        wanted = set(only)
        conversations = [c for i, c in enumerate(conversations) if i in wanted]
    embedder = embedder or default_embedder()
    with tempfile.TemporaryDirectory(prefix="sedimem-eval-") as tmp:
        store = await open_longterm_store(store_url or f"sqlite:///{tmp}/locomo.db")
        await store.bind_embedder(embedder.name, embedder.dimension)
        try:
            memory = EpisodicMemory(store, embedder, settings=_DEFAULTS)
            with Progress(console=console, transient=True) as progress:
                turns = sum(len(c.turns) for c in conversations)
                questions = sum(len(c.questions) for c in conversations)
                tasks = {"ingest": progress.add_task("ingest", total=turns)}
                for mode in MODES:
                    tasks[mode] = progress.add_task(f"ask ({mode})", total=questions)
                metrics = await evaluate(
                    memory,
                    conversations,
                    progress=lambda name, n: progress.advance(tasks[name], n),
                )
                ablations = {}
                for label, settings in ABLATIONS.items() if ablation else ():
                    variant = EpisodicMemory(store, embedder, settings=settings)
                    ablations[label] = await ask(variant, conversations, "hybrid")
        finally:
            await store.aclose()
    _print(console, embedder.name, metrics, ablations)
    for label, figures in ablations.items():
        for name, value in figures.items():
            metrics[f"ablation.{label}.{name}"] = value
    console.print(json.dumps({"metrics": metrics}), soft_wrap=True, highlight=False)
    return metrics


def _print(
    console: Console,
    embedder: str,
    metrics: dict[str, float],
    ablations: dict[str, dict[str, float]],
) -> None:
    title = (
        f"LoCoMo evidence retrieval ({int(metrics['questions'])} questions, categories 1-4; "
        f"{embedder}, ingest {metrics['ingest_s']:.1f} s)"
    )
    table = Table("mode", *_HEADERS, "ms/question", title=title)
    for mode in MODES:
        table.add_row(
            mode,
            *(f"{metrics[f'{mode}.{m}']:.3f}" for m in _COLUMNS),
            f"{metrics[f'{mode}.ms_per_question']:.1f}",
        )
    console.print(table)
    table = Table(
        "category", "questions", *(f"{m} R@10 / NDCG@10" for m in MODES), title="per category"
    )
    for label in CATEGORIES.values():
        cells = [
            f"{metrics[f'{m}.{label}.recall@10_any']:.3f} / {metrics[f'{m}.{label}.ndcg@10']:.3f}"
            for m in MODES
        ]
        table.add_row(label, f"{metrics[f'hybrid.{label}.questions']:.0f}", *cells)
    console.print(table)
    if ablations:
        table = Table("hybrid", *_HEADERS, title="ablation (categories 1-4)")
        table.add_row(
            "all techniques (default)", *(f"{metrics[f'hybrid.{m}']:.3f}" for m in _COLUMNS)
        )
        for label, figures in ablations.items():
            table.add_row(label, *(f"{figures[m]:.3f}" for m in _COLUMNS))
        console.print(table)
