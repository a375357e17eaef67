"""``sedimem worker``: the consolidation worker on the configured stores, until interrupted."""

from typing import Annotated

import typer

from sedimem.cli.common import console, load_settings, run

__all__ = ["worker"]

#: the interval when neither --interval nor SEDIMEM_SERVER__CONSOLIDATION_INTERVAL_SECONDS says
DEFAULT_INTERVAL = 60.0


def worker(
    tenant: Annotated[
        list[str] | None,
        typer.Option(
            help="A tenant to consolidate (repeat the option for several; default: every "
            "tenant with an API key, else 'default')."
        ),
    ] = None,
    interval: Annotated[
        float | None,
        typer.Option(
            min=0.01,
            help="Seconds between rounds [SEDIMEM_SERVER__CONSOLIDATION_INTERVAL_SECONDS, "
            "else 60].",
        ),
    ] = None,
) -> None:
    """Run consolidation (sessions, facts, procedures, decay) on a schedule until stopped.

    Stores, embedder and LLM extractor come from SEDIMEM_* as for `serve`; several workers
    (or a worker and `serve`) may run at once: each job of a tenant is leased.
    """
    import asyncio
    import logging
    import signal

    settings = load_settings()
    every = interval or settings.server.consolidation_interval_seconds or DEFAULT_INTERVAL
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(message)s")

    async def main() -> None:
        from sedimem.telemetry import start_tracing

        tracing = start_tracing(settings)  # None unless an OTLP endpoint is configured
        try:
            await consolidate()
        finally:
            if tracing is not None:
                tracing.stop()  # exports the spans still buffered

    async def consolidate() -> None:
        from sedimem.memory import Memory

        async with await Memory.open(settings=settings) as memory:
            tenants = tenant or sorted({key.tenant for key in await memory.keys.list()})
            tenants = tenants or ["default"]
            extractor = "LLM " + settings.llm_url if settings.llm_url else "rules"
            console.print(
                f"consolidating {', '.join(tenants)} every {every:g} s "
                f"(facts: {extractor}; embedder: {memory.embedder.name})",
                highlight=False,
            )
            job = memory.consolidation_worker(tenants, every)
            stopped = asyncio.Event()
            loop = asyncio.get_running_loop()
            for sig in (signal.SIGINT, signal.SIGTERM):
                loop.add_signal_handler(sig, stopped.set)
            job.start()
            try:
                await stopped.wait()
            finally:
                await job.stop()
            console.print(f"stopped after {job.rounds} round(s)", highlight=False)

    run(main())
