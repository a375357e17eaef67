"""Job ``sessions``: a session left idle without ``terminate`` -> one episode, then cleanup.

A session whose latest write is older than ``session_idle_seconds`` (and whose live state
is still there: that TTL is longer) is taken as ended. The job reads its task state,
scratchpad and values, records the same kind of episode ``Lifecycle.terminate`` records
(``lifecycle.summary``), under the same unique key (``lifecycle.record``), then removes the
session's working state, checkpoints included, as terminate does. So neither terminate nor
this job, nor two runs of it, ever record a second episode for a session.

- Outcome: the task's own verdict when it has one (``completed`` -> success, ``failed`` ->
  failure), otherwise ``partial`` (abandoned), with ``outcome_details`` saying so.
- A ``paused`` task is left alone: pausing means the session is to be resumed.
- A framework's state is durable: a session holding a key under one of
  ``framework_key_prefixes`` (a LangGraph thread, an OpenAI Agents session) is never
  removed. With ``framework_sessions="file"`` it is recorded as an episode once, and kept.
- A session with nothing in it (no task state, scratchpad or key) is removed unrecorded.
- Crash-safe: the episode is written before the session is removed; a run that dies in
  between is finished by the next one (the episode exists, so only the removal is left).
- The removal is conditional (``drop_idle_session``): a session written again after it was
  listed is kept. Its episode stays recorded; a later ``terminate`` then reports
  ``already_terminated``. That window is the few milliseconds of one session's turn.
- A dry run reads and counts (``would_record``, ``would_drop``) and changes nothing.

The store's own cursor pages through the tenant's idle sessions, ``batch_size`` at a time, and
is kept with the job's lease after each full page (fenced, as the other jobs' cursors), so a
run stopped by ``max_batches_per_run`` (or a crash) goes on where it stopped instead of
reading the sessions it left (paused ones) again and again. A run that reaches the end resets
it: the next run starts from the oldest idle session again. Sessions that turn idle later
were written after everything behind the cursor, so they come after it.
"""

from __future__ import annotations

from sedimem.clock import utc_from_timestamp
from sedimem.consolidation.context import JobContext
from sedimem.errors import ConfigurationError
from sedimem.lifecycle.record import is_recorded, record_once
from sedimem.lifecycle.summary import SessionState, read_session, session_episode
from sedimem.scope import Scope
from sedimem.storage.working.base import IdleSession, SessionRef, WorkingStore
from sedimem.types.longterm import Outcome
from sedimem.types.working import TaskStatus
from sedimem.working.memory import WorkingMemory

__all__ = ["outcome_of", "run_sessions", "scope_of"]

_VERDICTS = {TaskStatus.COMPLETED: Outcome.SUCCESS, TaskStatus.FAILED: Outcome.FAILURE}


def outcome_of(state: SessionState) -> Outcome:
    """The task's verdict if it gave one; an unfinished session is ``partial``."""
    if state.task is None:
        return Outcome.PARTIAL
    return _VERDICTS.get(state.task.status, Outcome.PARTIAL)


def scope_of(idle: IdleSession, tenant: str) -> Scope | None:
    """The session's scope from its canonical text; None if it does not add up."""
    scope = Scope.from_canonical(idle.scope)
    if scope is None:
        return None
    # never act on another tenant's session, nor on one whose text is not its own
    if scope.tenant != tenant or scope.session is None or scope.digest != idle.digest:
        return None
    return scope


async def _record(ctx: JobContext, scope: Scope, state: SessionState, idle: IdleSession) -> None:
    if await is_recorded(ctx.store, scope):  # terminated, or a previous run died after it
        ctx.add(ctx.counts_out, "already_recorded")
        return
    if ctx.dry_run:
        ctx.add(ctx.counts_out, "would_record")
        return
    if ctx.embedder is None:
        raise ConfigurationError("the sessions job needs the embedder of the long-term store")
    outcome = outcome_of(state)
    last = utc_from_timestamp(idle.touched).isoformat()
    episode = session_episode(
        scope,
        state,
        outcome,
        idle.touched,
        outcome_details=(
            "not terminated: the session was left idle after its last write at "
            f"{last} and recorded by consolidation"
            + ("" if outcome is not Outcome.PARTIAL else " (abandoned)")
        ),
        metadata={
            "ended_by": "consolidation",
            "task_status": None if state.task is None else state.task.status.value,
        },
    )
    wrote = await record_once(ctx.store, ctx.embedder, episode)
    ctx.add(ctx.counts_out, "recorded" if wrote else "already_recorded")


async def _end(ctx: JobContext, working: WorkingStore, idle: IdleSession) -> None:
    scope = scope_of(idle, ctx.tenant)
    if scope is None:
        ctx.add(ctx.counts_out, "unreadable")
        return
    wm = WorkingMemory(working, scope, settings=ctx.working_settings, clock=ctx.clock)
    state = await read_session(wm)
    if state.task is not None and state.task.status is TaskStatus.PAUSED:
        ctx.add(ctx.counts_out, "paused")
        return
    prefixes = ctx.settings.framework_key_prefixes
    if prefixes and any(key.startswith(prefixes) for key in state.values):
        # a checkpointer's thread or an agent's conversation: its owner decides when it ends
        ctx.add(ctx.counts_out, "framework")
        if ctx.settings.framework_sessions == "file":
            await _record(ctx, scope, state, idle)
        return
    if state.empty:
        ctx.add(ctx.counts_out, "empty")
    else:
        await _record(ctx, scope, state, idle)
    if ctx.dry_run:
        ctx.add(ctx.counts_out, "would_drop")
        return
    ref = SessionRef(
        scope.digest,
        scope.tenant,
        scope.user,
        ctx.working_settings.session_ttl_seconds,
        scope.canonical,
    )
    dropped = await working.drop_idle_session(ref, idle.touched)
    # not dropped: written again since it was listed (kept), or removed meanwhile
    ctx.add(ctx.counts_out, "dropped" if dropped else "kept")


async def run_sessions(ctx: JobContext) -> None:
    working = ctx.working
    if working is None:
        raise ConfigurationError("the sessions job needs the working store")
    size = ctx.settings.batch_size
    batches = 0
    while ctx.settings.max_batches_per_run is None or batches < ctx.settings.max_batches_per_run:
        batches += 1
        page = await working.idle_sessions(
            ctx.tenant, ctx.idle_seconds, ctx.clock.now(), size, ctx.cursor or None
        )
        for idle in page:
            ctx.add(ctx.counts_in, "sessions")
            await _end(ctx, working, idle)
        if len(page) < size:
            await ctx.advance(_START)  # the end: the next run starts from the beginning
            return
        await ctx.advance(page[-1].cursor)


_START = ""  # the cursor of "from the oldest idle session"
