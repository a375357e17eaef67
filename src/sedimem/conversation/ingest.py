"""``ingest``: chat turns -> conversational episodes -> facts, once per message.

Each turn becomes one episode (task type ``conversation``) in the caller's scope: the user's
words in ``input_text``, the assistant's in ``output_text`` (what the assistant said is memory
too), every turn in ``description`` as ``"speaker: content"``. The episode carries the unique
key ``message:<digest>`` (the record's ``name``) of the scope owner and the message's own id,
or, without one, of its role, timestamp and content; it is written through ``update_locked``
under that key, so a turn sent again, from any process and concurrently, is filed once and
read for facts once (by the call that filed it).

Facts are extracted from the newly filed turns with the memory's configured extractor and
learned (insert, reinforce or supersede, by the cardinality rules); endings ("I no longer
eat meat") close the matching facts. An extraction failure does not undo the filed turns: it
is reported in the result, and the consolidation ``facts`` job reads those episodes again on
its next run (it skips what was already learned from an episode).

Background mode returns a job id at once; the job registry lives in the process that took
the call (a status is lost when that process ends; the turns are filed before the call
returns, and the ``facts`` job completes an extraction a restart interrupted).
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from typing import Any

from sedimem import observe
from sedimem.clock import Clock, SystemClock, utc_from_timestamp
from sedimem.consolidation.context import MeteredExtractor
from sedimem.consolidation.extract import EndingExtractor, Extractor
from sedimem.embed.base import Embedder
from sedimem.errors import NotFound, SedimemError, ValidationError
from sedimem.ids import new_id
from sedimem.llm.usage import Usage
from sedimem.longterm import records
from sedimem.longterm.semantic import SemanticMemory
from sedimem.longterm.vectors import embed_all
from sedimem.scope import Scope
from sedimem.storage.longterm.base import LongTermStore, RecordFilter, StoredRecord
from sedimem.types.conversation import (
    FUTURE_TOLERANCE_SECONDS,
    MAX_MESSAGES,
    IngestResult,
    Message,
    MessageFields,
    ModelUsage,
)
from sedimem.types.longterm import Episode, Fact

__all__ = ["MAX_JOBS", "NOTE_TYPE", "Conversations", "message_key", "note_key"]

log = logging.getLogger(__name__)

#: Background jobs whose status a process keeps (the oldest finished ones are dropped).
MAX_JOBS = 1000
#: What the episodes of chat turns are filed as.
TASK_TYPE = "conversation"
#: What a note (plain text remembered without a conversation) is filed as.
NOTE_TYPE = "note"


def message_key(owner: Scope, message: Message) -> str:
    """The unique key of a turn: its own id, or its role, timestamp and content."""
    if message.id is not None:
        identity = ["id", message.id]
    else:
        when = "" if message.timestamp is None else message.timestamp.isoformat()
        identity = ["turn", message.role, when, message.content]
    digest = hashlib.sha256("\x00".join([owner.canonical, *identity]).encode()).hexdigest()
    return f"message:{digest[:48]}"


def note_key(owner: Scope, text: str) -> str:
    """The unique key of a note: its owner and text (the same note again is a duplicate)."""
    digest = hashlib.sha256("\x00".join([owner.canonical, "note", text]).encode()).hexdigest()
    return f"note:{digest[:48]}"


def _parse(messages: Sequence[MessageFields | Mapping[str, Any]], now: float) -> list[Message]:
    if isinstance(messages, (str, bytes, Mapping)) or not 1 <= len(messages) <= MAX_MESSAGES:
        count = len(messages) if isinstance(messages, Sequence) else "not a list"
        raise ValidationError(
            "messages", f"{count} messages", allowed=f"a list of 1..{MAX_MESSAGES} messages"
        )
    parsed: list[Message] = []
    for index, raw in enumerate(messages):
        field = f"messages[{index}]"
        if not isinstance(raw, (MessageFields, Mapping)):
            raise ValidationError(field, "is not a message", allowed="an object: role, content")
        if isinstance(raw, MessageFields) and not isinstance(raw, Message):
            raw = raw.model_dump(exclude_unset=True)
        try:
            message = raw if isinstance(raw, Message) else Message(**raw)
        except ValidationError as exc:
            raise _within(field, exc) from exc
        stamp = message.timestamp
        if stamp is not None and stamp.timestamp() > now + FUTURE_TOLERANCE_SECONDS:
            raise ValidationError(
                f"{field}.timestamp",
                f"{stamp.isoformat()} is in the future",
                allowed=f"at most {int(FUTURE_TOLERANCE_SECONDS)} s after now",
            )
        parsed.append(message)
    return parsed


def _within(field: str, exc: ValidationError) -> ValidationError:
    """``exc`` with its field named inside the message at ``field``."""
    text = str(exc).removeprefix(f"{exc.field}: ")
    if exc.allowed:
        text = text.removesuffix(f" (allowed: {exc.allowed})")
    return ValidationError(f"{field}.{exc.field}", text, allowed=exc.allowed)


def _episode(message: Message, scope: Scope, key: str, now: float) -> Episode:
    speaker = message.name or message.role
    return Episode(
        scope=scope,
        task_type=TASK_TYPE,
        description=f"{speaker}: {message.content}",
        input_text=message.content if message.role == "user" else None,
        output_text=message.content if message.role == "assistant" else None,
        occurred_at=message.timestamp or utc_from_timestamp(now),
        metadata={
            "role": message.role,
            "speaker": speaker,
            "message_key": key,
            **({"message_id": message.id} if message.id is not None else {}),
        },
    )


class Conversations:
    """Ingest chat turns for a memory (see the module docstring)."""

    def __init__(
        self,
        store: LongTermStore,
        embedder: Embedder,
        facts: SemanticMemory,
        extractor: Extractor,
        *,
        clock: Clock | None = None,
    ) -> None:
        self._store = store
        self._embedder = embedder
        self._facts = facts
        self._extractor = extractor
        self._clock = clock or SystemClock()
        self._jobs: OrderedDict[str, tuple[str, IngestResult]] = OrderedDict()
        self._tasks: set[asyncio.Task[None]] = set()

    @observe.operation("ingest")
    async def ingest(
        self,
        messages: Sequence[MessageFields | Mapping[str, Any]],
        scope: Scope,
        *,
        background: bool = False,
    ) -> IngestResult:
        """File the turns not filed yet, then extract facts from them (inline, or in a
        background job whose status :meth:`job` answers)."""
        now = self._clock.now()
        parsed = _parse(messages, now)
        owner = scope.owner
        keyed = [(m, message_key(owner, m)) for m in parsed]
        stored, duplicates = await self._file(
            [(_episode(m, scope, key, now), key) for m, key in keyed], scope
        )
        if not background:
            return await self._extract(stored, duplicates)
        job_id = new_id()
        pending = IngestResult(
            status="pending",
            job_id=job_id,
            stored=[e.id for e in stored],
            duplicates=duplicates,
        )
        self._remember(job_id, scope.tenant, pending)

        async def run() -> None:
            self._remember(job_id, scope.tenant, pending.model_copy(update={"status": "running"}))
            try:
                result = await self._extract(stored, duplicates)
            except Exception as exc:
                # an unexpected failure (a bug in an extractor) is the job's end too: recorded,
                # never left "running"; the facts job reads the turns again
                log.error("ingest job %s failed", job_id, exc_info=exc)
                self._end(job_id, scope.tenant, f"{type(exc).__name__}: {exc}")
                return
            self._remember(job_id, scope.tenant, result.model_copy(update={"job_id": job_id}))

        def done(task: asyncio.Task[None]) -> None:
            self._tasks.discard(task)
            if task.cancelled():  # at shutdown, before or while it ran
                self._end(job_id, scope.tenant, "CancelledError")

        task = asyncio.create_task(run(), name=f"ingest-{job_id}")
        self._tasks.add(task)
        task.add_done_callback(done)
        return pending

    @observe.operation("remember")
    async def note(self, text: str, scope: Scope) -> IngestResult:
        """File ``text`` as a note episode of ``scope`` and learn the facts it states, like
        one chat turn: once per owner and text (the same note again is reported as a
        duplicate and not read again). Extraction runs inline."""
        try:
            episode = Episode(
                scope=scope,
                task_type=NOTE_TYPE,
                description=text,
                occurred_at=utc_from_timestamp(self._clock.now()),
            )
        except ValidationError as exc:
            if exc.field != "description":
                raise
            # the caller gave ``text``: name it, not the episode field it becomes
            message = str(exc).removeprefix("description: ").split(" (allowed:")[0]
            raise ValidationError("text", message, allowed=exc.allowed) from exc
        key = note_key(scope.owner, episode.description)
        stored, duplicates = await self._file([(episode, key)], scope)
        return await self._extract(stored, duplicates)

    def job(self, job_id: str, *, tenant: str) -> IngestResult:
        """A background ingest's status, for its tenant (``NotFound`` otherwise, or once
        this process no longer keeps it)."""
        found = self._jobs.get(job_id)
        if found is None or found[0] != tenant:
            raise NotFound(f"ingest job {job_id!r} is not known to this server process")
        return found[1]

    async def wait(self) -> None:
        """Until every background ingest of this process has finished (tests, shutdown)."""
        while self._tasks:
            await asyncio.gather(*list(self._tasks), return_exceptions=True)

    async def aclose(self) -> None:
        """Cancel unfinished background extraction (the ``facts`` job completes it)."""
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*list(self._tasks), return_exceptions=True)

    def _end(self, job_id: str, tenant: str, error: str) -> None:
        """Record a background job as failed with ``error``, unless it finished already."""
        found = self._jobs.get(job_id)
        if found is None or found[1].status in ("done", "failed"):
            return
        update = {
            "status": "failed",
            "error": error,
            "finished_at": utc_from_timestamp(self._clock.now()),
        }
        self._remember(job_id, tenant, found[1].model_copy(update=update))

    def _remember(self, job_id: str, tenant: str, result: IngestResult) -> None:
        self._jobs[job_id] = (tenant, result)
        self._jobs.move_to_end(job_id)
        while len(self._jobs) > MAX_JOBS:
            self._jobs.popitem(last=False)

    async def _file(
        self, keyed: list[tuple[Episode, str]], scope: Scope
    ) -> tuple[list[Episode], list[str]]:
        """Write each episode unless one with its unique key is filed already."""
        vectors = await embed_all(self._embedder, [e.search_text() for e, _ in keyed])
        stored: list[Episode] = []
        duplicates: list[str] = []
        claimed: set[str] = set()
        for (episode, key), vector in zip(keyed, vectors, strict=True):
            if key in claimed:  # the same turn twice in one call
                continue
            claimed.add(key)
            existing: list[str] = []

            def decide(
                rows: list[StoredRecord],
                episode: Episode = episode,
                vector: Any = vector,
                key: str = key,
                existing: list[str] = existing,
            ) -> list[StoredRecord]:
                if rows:
                    existing.extend(row.id for row in rows)
                    return []
                return [records.episode_row(episode, vector, name=key)]

            await self._store.update_locked(
                scope.tenant, key, RecordFilter(kind=records.EPISODE, name=key), decide
            )
            if existing:
                duplicates.append(existing[0])
            else:
                stored.append(episode)
        return stored, duplicates

    async def _extract(self, stored: list[Episode], duplicates: list[str]) -> IngestResult:
        inserted: list[str] = []
        reinforced: list[str] = []
        superseded: list[str] = []
        ended: list[str] = []
        conflicts: dict[str, Fact] = {}
        error: str | None = None
        metered = isinstance(self._extractor, MeteredExtractor)
        usage = Usage()  # this call's share of the model's calls and tokens
        try:
            for episode in stored:
                for fact in await self._facts_of(episode, usage):
                    learned = await self._facts.learn(fact)
                    if learned.action == "reinforced":
                        reinforced.append(learned.fact.id)
                    else:
                        inserted.append(learned.fact.id)
                    superseded.extend(learned.superseded)
                    conflicts.update((f.id, f) for f in learned.possible_conflicts)
                if isinstance(self._extractor, EndingExtractor):
                    for ending in await self._extractor.endings(episode):
                        closed = await self._facts.end(ending)
                        ended.extend(f.id for f in closed)
        except SedimemError as exc:
            # the turns stay filed; the facts job reads them again on its next run
            log.warning("ingest: extraction failed: %s", exc)
            error = str(exc)
        return IngestResult(
            status="failed" if error else "done",
            stored=[e.id for e in stored],
            duplicates=duplicates,
            inserted=inserted,
            reinforced=reinforced,
            superseded=superseded,
            ended=ended,
            possible_conflicts=list(conflicts.values()),
            error=error,
            finished_at=utc_from_timestamp(self._clock.now()),
            usage=ModelUsage(**usage.counts()) if metered else None,
        )

    async def _facts_of(self, episode: Episode, usage: Usage) -> list[Fact]:
        if isinstance(self._extractor, MeteredExtractor):
            return await self._extractor.extract_metered(episode, usage)
        return await self._extractor.extract(episode)
