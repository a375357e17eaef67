"""Run the LoCoMo evaluation on a fresh store and report a table plus a JSON line."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

from rich.console import Console
from rich.progress import Progress
from rich.table import Table

from sedimem.embed import default_embedder
from sedimem.evaluation.locomo import MODES, evaluate, load_locomo
from sedimem.longterm.episodic import EpisodicMemory
from sedimem.longterm.stores import open_longterm_store
from sedimem.retrieval.fusion import RetrievalSettings

__all__ = ["run_locomo"]


async def run_locomo(
    data: Path, console: Console, *, store_url: str | None = None
) -> dict[str, float]:
    conversations = load_locomo(data)
    embedder = default_embedder()
    with tempfile.TemporaryDirectory(prefix="sedimem-eval-") as tmp:
        store = await open_longterm_store(store_url or f"sqlite:///{tmp}/locomo.db")
        await store.bind_embedder(embedder.name, embedder.dimension)
        try:
            memory = EpisodicMemory(store, embedder, settings=RetrievalSettings())
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
        finally:
            await store.aclose()
    title = f"LoCoMo evidence retrieval ({int(metrics['questions'])} questions)"
    columns = ("recall@5_any", "recall@10_any", "recall@5_all", "recall@10_all", "ndcg@10")
    table = Table("mode", "R@5 any", "R@10 any", "R@5 all", "R@10 all", "NDCG@10", title=title)
    for mode in MODES:
        table.add_row(mode, *(f"{metrics[f'{mode}.{m}']:.3f}" for m in columns))
    console.print(table)
    console.print(json.dumps({"metrics": metrics}), soft_wrap=True, highlight=False)
    return metrics
