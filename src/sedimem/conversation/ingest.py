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
from sedimem.embed.base import Embedder
from sedimem.errors import NotFound, SedimemError, ValidationError
from sedimem.extraction.protocols import EndingExtractor, Extractor, MeteredExtractor
from sedimem.extraction.subjects import turn_subjects
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
from sedimem.types.longterm import Episode, Fact, Outcome

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
        field = f"messages.{index}"  # the documented form of a field path
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


def _episode(
    message: Message, scope: Scope, key: str, now: float, user_name: str | None
) -> Episode:
    speaker = message.name or message.role
    # who the turn is about: the user's first person, or the user an assistant addresses
    name = message.name if message.role == "user" else user_name
    subjects = turn_subjects(message.role, scope, name)
    about = subjects.speaker or subjects.addressee
    return Episode(
        scope=scope,
        task_type=TASK_TYPE,
        description=f"{speaker}: {message.content}",
        outcome=Outcome.NONE,  # a turn is no attempt at anything: it neither succeeds nor fails
        input_text=message.content if message.role == "user" else None,
        output_text=message.content if message.role == "assistant" else None,
        occurred_at=message.timestamp or utc_from_timestamp(now),
        metadata={
            "role": message.role,
            "speaker": speaker,
            **({"subject": about} if about is not None else {}),
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
        # checked once: an isinstance against a runtime protocol costs ~70 us per call
        self._metered = extractor if isinstance(extractor, MeteredExtractor) else None
        self._ending = extractor if isinstance(extractor, EndingExtractor) else None
        self._clock = clock or SystemClock()
        # each job with the scope it wrote in: who may read what it wrote may read it
        self._jobs: OrderedDict[str, tuple[Scope, IngestResult]] = OrderedDict()
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
        episodes: list[tuple[Episode, str]] = []
        user_name: str | None = None  # the name the user last gave in this call
        for message in parsed:
            if message.role == "user" and message.name:
                user_name = message.name
            key = message_key(owner, message)
            episodes.append((_episode(message, scope, key, now, user_name), key))
        stored, duplicates = await self._file(episodes, scope)
        if not background:
            return await self._extract(stored, duplicates)
        job_id = new_id()
        pending = IngestResult(
            status="pending",
            job_id=job_id,
            stored=[e.id for e in stored],
            duplicates=duplicates,
        )
        self._remember(job_id, scope, pending)

        async def run() -> None:
            self._remember(job_id, scope, pending.model_copy(update={"status": "running"}))
            try:
                result = await self._extract(stored, duplicates)
            except Exception as exc:
                # an unexpected failure (a bug in an extractor) is the job's end too: recorded,
                # never left "running"; the facts job reads the turns again
                log.error("ingest job %s failed", job_id, exc_info=exc)
                self._end(job_id, scope, f"{type(exc).__name__}: {exc}")
                return
            self._remember(job_id, scope, result.model_copy(update={"job_id": job_id}))

        def done(task: asyncio.Task[None]) -> None:
            self._tasks.discard(task)
            if task.cancelled():  # at shutdown, before or while it ran
                self._end(job_id, scope, "CancelledError")

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
                outcome=Outcome.NONE,
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

    def job(
        self, job_id: str, *, tenant: str | None = None, reader: Scope | None = None
    ) -> IngestResult:
        """A background ingest's status, for its tenant, or for a ``reader`` scope that
        may read what the job wrote (:meth:`Scope.reaches`: a key narrowed to another user
        may not); ``NotFound`` otherwise, alike, or once this process no longer keeps it."""
        found = self._jobs.get(job_id)
        if found is not None and reader is not None and not reader.reaches(found[0]):
            found = None
        if found is not None and tenant is not None and found[0].tenant != tenant:
            found = None
        if found is None or (tenant is None and reader is None):
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

    def _end(self, job_id: str, scope: Scope, error: str) -> None:
        """Record a background job as failed with ``error``, unless it finished already."""
        found = self._jobs.get(job_id)
        if found is None or found[1].status in ("done", "failed"):
            return
        update = {
            "status": "failed",
            "error": error,
            "finished_at": utc_from_timestamp(self._clock.now()),
        }
        self._remember(job_id, scope, found[1].model_copy(update=update))

    def _remember(self, job_id: str, scope: Scope, result: IngestResult) -> None:
        self._jobs[job_id] = (scope, result)
        self._jobs.move_to_end(job_id)
        while len(self._jobs) > MAX_JOBS:
            self._jobs.popitem(last=False)

    async def _file(
        self, keyed: list[tuple[Episode, str]], scope: Scope
    ) -> tuple[list[Episode], list[str]]:
        """Write each episode unless one with its unique key is filed already.

        One locked read-and-write for the whole call (one round trip to the store, not one
        per turn: ingest's speed is mostly this), under a lock of the scope owner, so two
        concurrent calls with the same turns, from any process, file each turn once.
        """
        fresh: list[tuple[Episode, str]] = []
        claimed: set[str] = set()
        for episode, key in keyed:
            if key not in claimed:  # the same turn twice in one call is filed once
                claimed.add(key)
                fresh.append((episode, key))
        vectors = await embed_all(self._embedder, [e.search_text() for e, _ in fresh])
        existing: dict[str, str] = {}  # key -> the id filed before

        def decide(rows: list[StoredRecord]) -> list[StoredRecord]:
            existing.clear()  # a store may call decide again (a retried transaction)
            existing.update((row.name, row.id) for row in rows if row.name is not None)
            return [
                records.episode_row(episode, vector, name=key)
                for (episode, key), vector in zip(fresh, vectors, strict=True)
                if key not in existing
            ]

        names = tuple(key for _, key in fresh)
        await self._store.update_locked(
            scope.tenant,
            f"ingest:{scope.owner.canonical}",
            RecordFilter(kind=records.EPISODE, names=names),
            decide,
        )
        stored = [episode for episode, key in fresh if key not in existing]
        duplicates = [existing[key] for _, key in fresh if key in existing]
        return stored, duplicates

    async def _extract(self, stored: list[Episode], duplicates: list[str]) -> IngestResult:
        inserted: list[str] = []
        reinforced: list[str] = []
        superseded: list[str] = []
        ended: list[str] = []
        conflicts: dict[str, Fact] = {}
        error: str | None = None
        metered = self._metered is not None
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
                if self._ending is not None:
                    for ending in await self._ending.endings(episode):
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
        if self._metered is not None:
            return await self._metered.extract_metered(episode, usage)
        return await self._extractor.extract(episode)
