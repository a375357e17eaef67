"""Operating a store: ``stats``, ``consolidate``, ``doctor``, ``demo``, ``bench``, ``eval``."""

import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from sedimem.cli.common import Store, Tenant, Working, console, open_memory, run

# The demo, the evaluation and the scope model are imported in the commands that use
# them: `sedimem --help` stays cheap.
if TYPE_CHECKING:
    from sedimem.evaluation.bench import BenchResult
    from sedimem.footprint import Counts
    from sedimem.longterm.oversized import OversizedValue

__all__ = ["bench", "consolidate", "demo", "doctor", "eval_app", "stats"]


def stats(
    tenant: Tenant = "default",
    user: Annotated[str | None, typer.Option(help="Count what this user sees.")] = None,
    by_user: Annotated[
        bool, typer.Option("--by-user", help="Add a column per user (they add up to the total).")
    ] = False,
    working: Working = None,
    store: Store = None,
) -> None:
    """How many episodes, facts and procedures a tenant holds (every user's records), or
    what one user sees (--user), and the backends."""

    from rich.table import Table

    from sedimem.scope import Scope

    async def main() -> None:
        async with open_memory(working, store) as memory:
            found = await memory.stats(Scope.parse(tenant=tenant, user=user), by_user=by_user)
        title = f"tenant {tenant!r}" + (f", user {user!r}" if user else ", every user")
        users = found.by_user or []
        table = Table("", "count", *(_user_label(u.user) for u in users), title=title)
        for label, field in _ROWS:
            table.add_row(label, _count(found, field), *(_count(u, field) for u in users))
        console.print(table)
        fallback = " (on its in-process fallback)" if found.using_fallback else ""
        console.print(
            f"working memory: {found.working_backend}{fallback}; "
            f"long-term store: {found.longterm_backend}",
            highlight=False,
        )

    run(main())


_ROWS = (
    ("episodes", "episodes"),
    ("facts", "facts"),
    ("current facts", "current_facts"),
    ("procedures", "procedures"),
)


def _user_label(user: str | None) -> str:
    return "(no user)" if user is None else f"user {user}"


def _count(counts: "Counts", field: str) -> str:
    return str(getattr(counts, field))


def doctor(working: Working = None, store: Store = None) -> None:
    """Check what is stored: list metadata and document values over the shape limits
    (nested deeper or larger than a write may be today: versions before the limits accepted
    them). They still read; fix them by editing the record, or export, trim and import.
    Exits 1 when it finds any."""

    async def main() -> list["OversizedValue"]:
        async with open_memory(working, store) as memory:
            return await memory.oversized_values()

    found = run(main())
    if not found:
        console.print("no stored value is over the shape limits", highlight=False)
        return
    for item in found:
        console.print(
            f"{item.tenant} {item.kind} {item.id} {item.field}: {item.problem}", highlight=False
        )
    console.print(f"{len(found)} value(s) over the limits", highlight=False)
    raise typer.Exit(1)


def consolidate(
    tenant: Tenant = "default",
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Report what would change; change nothing.")
    ] = False,
    working: Working = None,
    store: Store = None,
) -> None:
    """Run consolidation once: episodes -> facts and procedures, decay and pruning."""
    from rich.table import Table

    async def main() -> bool:
        from sedimem.access import Access

        async with open_memory(working, store) as memory:
            with console.status("consolidating..."):
                report = await memory.consolidate(Access.local(tenant), dry_run=dry_run)
        title = f"consolidation of tenant {tenant!r}" + (" (dry run)" if dry_run else "")
        table = Table("job", "status", "read", "changed", "seconds", "error", title=title)
        for job in report.jobs:
            table.add_row(
                job.job,
                job.status,
                _counts(job.counts_in),
                _counts(job.counts_out),
                f"{job.finished_at - job.started_at:.2f}",
                job.error or "",
            )
        console.print(table)
        return report.ok

    if not run(main()):
        raise typer.Exit(1)


def _counts(counts: dict[str, int]) -> str:
    return ", ".join(f"{k}={v}" for k, v in counts.items()) or "-"


def demo(
    url: Annotated[
        str | None,
        typer.Option(help="One store URL for everything (default: the SQLite file in the home)."),
    ] = None,
    working: Working = None,
    store: Store = None,
    home: Annotated[
        Path | None,
        typer.Option(
            help="Keep what the demo writes in this home's SQLite file (default: a temporary "
            "home, removed at the end; your own store is left untouched)."
        ),
    ] = None,
) -> None:
    """A scripted agent: spawn, work, pause, resume, terminate, recall, assemble context."""
    import tempfile

    from sedimem.demo import run_demo

    async def main(default: str | None) -> None:
        async with open_memory(working or url or default, store or url or default) as memory:
            await run_demo(memory, console.get())

    if home is not None:
        home.mkdir(parents=True, exist_ok=True)
        run(main(f"sqlite:///{home / 'sedimem.db'}"))
        return
    if url or (working and store):
        run(main(None))
        return
    # the demo's memories must not land in the user's store (the README's own recall
    # example would find the demo's episode first): a home of its own, removed afterwards
    with tempfile.TemporaryDirectory(prefix="sedimem-demo-") as temporary:
        console.print(f"[dim]demo home: {temporary} (temporary; --home PATH keeps it)[/]")
        run(main(f"sqlite:///{Path(temporary) / 'sedimem.db'}"))


def bench(
    episodes: Annotated[int, typer.Option(help="Episodes to load (100..1000000).")] = 2000,
    queries: Annotated[int, typer.Option(help="Timed calls per operation (20..100000).")] = 200,
    working: Working = None,
    store: Store = None,
) -> None:
    """Time working memory, ingest and recall on the configured stores (a temporary tenant,
    erased afterwards). Prints p50/p95/p99, throughput and the ratio to a baseline."""
    from rich.progress import Progress
    from rich.table import Table

    from sedimem.evaluation.bench import run_bench

    async def main() -> "BenchResult":
        async with open_memory(working, store) as memory:
            with Progress(console=console.get(), transient=True) as progress:
                tasks = {
                    "working": progress.add_task("working memory", total=1),
                    "ingest": progress.add_task("ingest", total=episodes),
                    "recall": progress.add_task("recall", total=queries),
                }
                return await run_bench(
                    memory,
                    episodes=episodes,
                    queries=queries,
                    progress=lambda stage, n: progress.advance(tasks[stage], n),
                )

    result = run(main())
    table = Table("operation", "p50 ms", "p95 ms", "p99 ms", "per s", "baseline p95 ms", "ratio")
    for t in result.timings:
        table.add_row(
            t.name,
            f"{t.p50_ms:.3f}",
            f"{t.p95_ms:.3f}",
            f"{t.p99_ms:.3f}",
            f"{t.per_second:,.0f}",
            f"{t.baseline_p95_ms:.4f} ({t.baseline})" if t.baseline_p95_ms else "-",
            f"{t.ratio:.1f}x" if t.ratio is not None else "-",
        )
    console.print(table)
    console.print(f"ingest: {result.ingest_per_s:,.0f} episodes/s", highlight=False)
    print(json.dumps({"metrics": result.metrics()}))


eval_app = typer.Typer(
    help="Evaluate retrieval quality on public datasets.",
    no_args_is_help=True,
    rich_markup_mode=None,
)

_DEFAULT_LOCOMO = Path("../shared/data/locomo10.json")
_DEFAULT_PERSONA = Path("../shared/data/synthetic-persona-chat-test.csv")
#: the embedders `eval locomo` compares (offline, so the figures can be reproduced anywhere)
_OFFLINE_EMBEDDERS = ("default", "minilm")


@eval_app.command("locomo")
def eval_locomo(
    data: Annotated[
        Path | None,
        typer.Option(help="Path to locomo10.json (default: ../shared/data/locomo10.json)."),
    ] = None,
    store: Annotated[
        str | None, typer.Option(help="Long-term store URL (default: a temporary SQLite file).")
    ] = None,
    ablation: Annotated[
        bool,
        typer.Option(help="Also run hybrid recall with each retrieval technique taken away."),
    ] = False,
    embedder: Annotated[
        str,
        typer.Option(
            help="default: the packaged static model; minilm: all-MiniLM-L6-v2 on onnxruntime "
            "(sedimem[quality]). Both offline."
        ),
    ] = "default",
    conversations: Annotated[
        str,
        typer.Option(help="Conversations to run, by position: 0-4 were tuned on, 5-9 were not."),
    ] = "0-9",
) -> None:
    """Evidence recall@5/@10 and NDCG@10 for keyword-only, vector-only and hybrid retrieval,
    overall and per LoCoMo category."""
    from sedimem.config import EmbedderKind, Settings
    from sedimem.embed.factory import open_embedder
    from sedimem.evaluation.context import parse_conversations
    from sedimem.evaluation.run import run_locomo

    path = data or _DEFAULT_LOCOMO
    if not path.exists():
        raise typer.BadParameter(f"{path} does not exist; pass --data PATH", param_hint="--data")
    if embedder not in _OFFLINE_EMBEDDERS:
        raise typer.BadParameter(
            f"{embedder!r} is not one of {', '.join(_OFFLINE_EMBEDDERS)}", param_hint="--embedder"
        )

    async def main() -> None:
        kind: EmbedderKind = "minilm" if embedder == "minilm" else "default"
        chosen = await open_embedder(Settings(embedder=kind))
        await run_locomo(
            path,
            console.get(),
            store_url=store,
            ablation=ablation,
            embedder=chosen,
            only=parse_conversations(conversations),
        )

    run(main())


@eval_app.command("context")
def eval_context(
    data: Annotated[
        Path | None,
        typer.Option(help="Path to locomo10.json (default: ../shared/data/locomo10.json)."),
    ] = None,
    budgets: Annotated[str, typer.Option(help="Token budgets, comma-separated.")] = "500,1000,2000",
    conversations: Annotated[
        str,
        typer.Option(help="Conversations to run, by position: 0-4 were tuned on, 5-9 were not."),
    ] = "0-9",
    chat: Annotated[
        bool,
        typer.Option(
            help="Hand each conversation over as a user/assistant chat (no names) and ask "
            "only the questions about the user, as the user."
        ),
    ] = False,
    padding: Annotated[
        int,
        typer.Option(
            min=0,
            max=100,
            help="With --chat: turns of other conversations appended to each assistant turn "
            "(long, general answers).",
        ),
    ] = 0,
) -> None:
    """Whether assemble's context holds the answer, beside raw turns in BM25 order and hybrid
    recall's top turns packed into the same budget; tuned and untuned halves apart."""
    from sedimem.evaluation.context import parse_conversations, report_context

    path = data or _DEFAULT_LOCOMO
    if not path.exists():
        raise typer.BadParameter(f"{path} does not exist; pass --data PATH", param_hint="--data")
    try:
        chosen = [int(b) for b in budgets.split(",")]
    except ValueError as exc:
        raise typer.BadParameter(f"cannot read {budgets!r}", param_hint="--budgets") from exc
    if not chosen or any(not 1 <= b <= 100_000 for b in chosen):
        raise typer.BadParameter("each budget must be 1..100000", param_hint="--budgets")
    if padding and not chat:
        raise typer.BadParameter("padding needs --chat", param_hint="--padding")
    report_context(
        path,
        console.get(),
        budgets=chosen,
        conversations=parse_conversations(conversations),
        chat=chat,
        padding=padding,
    )


@eval_app.command("extraction")
def eval_extraction(
    data: Annotated[
        Path | None,
        typer.Option(help="Path to locomo10.json (default: ../shared/data/locomo10.json)."),
    ] = None,
    labels: Annotated[
        Path | None, typer.Option(help="Labels file (default: the labels shipped with sedimem).")
    ] = None,
    persona: Annotated[
        Path | None,
        typer.Option(
            help="Path to synthetic-persona-chat-test.csv "
            "(default: ../shared/data/synthetic-persona-chat-test.csv)."
        ),
    ] = None,
) -> None:
    """Precision and recall of the offline fact extractor on labelled LoCoMo turns and on
    Synthetic-Persona-Chat's test split (tuning half 0-483 and held-out half apart)."""
    from sedimem.evaluation.extraction import report
    from sedimem.evaluation.persona import report as report_persona

    path = data or _DEFAULT_LOCOMO
    if not path.exists():
        raise typer.BadParameter(f"{path} does not exist; pass --data PATH", param_hint="--data")
    chats = persona or _DEFAULT_PERSONA
    if not chats.exists():
        raise typer.BadParameter(
            f"{chats} does not exist; pass --persona PATH", param_hint="--persona"
        )
    report(path, console.get(), labels=labels)
    report_persona(chats, console.get())
