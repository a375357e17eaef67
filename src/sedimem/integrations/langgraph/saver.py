"""``SedimemSaver``: a LangGraph checkpointer over sedimem's working memory.

A thread is a session of the saver's scope (``thread_id`` is the session id), so a thread
lives in whichever working store the ``Memory`` uses (SQLite file, Redis, in-process), is
isolated per tenant like any session and is erased by ``forget``. A checkpointer is durable:
a thread is kept until it is deleted (``ttl_seconds`` sets an idle lifetime instead), and
the consolidation ``sessions`` job never removes it (its keys are framework state,
``ConsolidationSettings.framework_key_prefixes``), however long a graph waits at an
``interrupt``. See :mod:`sedimem.integrations.langgraph.layout` for what the session holds.

The async methods are the implementation; the sync ones run them on the memory's loop
(:mod:`sedimem.integrations.loop`).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator, Sequence
from typing import TYPE_CHECKING, Any

from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import (
    WRITES_IDX_MAP,
    BaseCheckpointSaver,
    ChannelVersions,
    Checkpoint,
    CheckpointMetadata,
    CheckpointTuple,
    get_checkpoint_id,
    get_checkpoint_metadata,
)
from langgraph.checkpoint.serde.base import SerializerProtocol

from sedimem.errors import ValidationError
from sedimem.integrations.langgraph.layout import (
    PREFIX,
    StoredCheckpoint,
    StoredWrite,
    ThreadState,
    checkpoint_key,
    dump,
    load,
    write_key,
)
from sedimem.integrations.loop import LoopBridge
from sedimem.limits import KEPT_SESSION_TTL_SECONDS
from sedimem.memory import Memory
from sedimem.scope import Scope
from sedimem.working.memory import WorkingMemory, check_session_ttl

if TYPE_CHECKING:
    from sedimem.integrations.langgraph.connection import SaverConnection

__all__ = ["SedimemSaver"]

_STRATEGIES = ("keep_latest", "delete")


def _configurable(config: RunnableConfig) -> dict[str, Any]:
    configurable = config.get("configurable")
    if not isinstance(configurable, dict) or "thread_id" not in configurable:
        raise ValidationError(
            "config.configurable.thread_id", "is missing", allowed="a thread id (1..128 chars)"
        )
    return configurable


def _check_strategy(strategy: str) -> None:
    if strategy not in _STRATEGIES:
        allowed = ", ".join(_STRATEGIES)
        raise ValidationError("strategy", f"{strategy!r} is unknown", allowed=allowed)


class SedimemSaver(BaseCheckpointSaver[int]):
    """Checkpoints of LangGraph threads, kept as sessions of ``scope`` in working memory.

    Build it in async code next to ``memory`` (``SedimemSaver(memory, scope)``), or from sync
    code with the bridge of a :class:`~sedimem.integrations.loop.BackgroundMemory`.
    """

    def __init__(
        self,
        memory: Memory,
        scope: Scope | None = None,
        *,
        bridge: LoopBridge | None = None,
        serde: SerializerProtocol | None = None,
        ttl_seconds: float | None = None,
    ) -> None:
        super().__init__(serde=serde)
        scope = scope or Scope()
        if scope.session is not None:
            raise ValidationError(
                "scope.session", "is set; threads are the sessions", allowed="unset"
            )
        self.memory = memory
        self.scope = scope
        self.bridge = bridge or LoopBridge.current()
        #: a thread's idle lifetime: kept until deleted, unless ``ttl_seconds`` is given
        self.ttl_seconds = KEPT_SESSION_TTL_SECONDS if ttl_seconds is None else ttl_seconds
        check_session_ttl(self.ttl_seconds)

    @classmethod
    def from_conn_string(
        cls,
        conn_string: str,
        *,
        scope: Scope | None = None,
        store: str | None = None,
        ttl_seconds: float | None = None,
        **memory_options: Any,
    ) -> SaverConnection:
        """A saver on a memory of its own, opened from ``conn_string`` (the working store's
        URL) for the length of a ``with`` or ``async with`` block, as LangGraph's savers
        offer (see :mod:`sedimem.integrations.langgraph.connection`). ``memory_options``
        go to ``Memory.open`` (``settings``, ``embedder``...)."""
        from sedimem.integrations.langgraph.connection import SaverConnection

        return SaverConnection(
            conn_string,
            scope=scope,
            store=store,
            ttl_seconds=ttl_seconds,
            memory_options=memory_options,
        )

    def _thread(self, thread_id: object) -> WorkingMemory:
        return self.memory.working(
            self.scope.with_session(str(thread_id)), session_ttl_seconds=self.ttl_seconds
        )

    async def _state(self, wm: WorkingMemory) -> ThreadState:
        items = await wm.get_all()
        return ThreadState({k: v for k, v in items.items() if k.startswith(PREFIX)})

    def _tuple(
        self, thread_id: str, cp: StoredCheckpoint, writes: list[StoredWrite]
    ) -> CheckpointTuple:
        checkpoint: Checkpoint = load(self.serde, cp.checkpoint)
        # like LangGraph's own savers: a checkpoint holds the values of its versioned channels
        versions = checkpoint["channel_versions"]
        values = checkpoint["channel_values"]
        checkpoint["channel_values"] = {k: values[k] for k in versions if k in values}
        return CheckpointTuple(
            config=self._config(thread_id, cp.ns, cp.id),
            checkpoint=checkpoint,
            metadata=load(self.serde, cp.metadata),
            parent_config=None if cp.parent is None else self._config(thread_id, cp.ns, cp.parent),
            pending_writes=[(w.task_id, w.channel, load(self.serde, w.value)) for w in writes],
        )

    @staticmethod
    def _config(thread_id: str, ns: str, checkpoint_id: str) -> RunnableConfig:
        return {
            "configurable": {
                "thread_id": thread_id,
                "checkpoint_ns": ns,
                "checkpoint_id": checkpoint_id,
            }
        }

    # -- async: the implementation ----------------------------------------------------------

    async def aget_tuple(self, config: RunnableConfig) -> CheckpointTuple | None:
        return await self.bridge.run(self._get_tuple(config))

    async def _get_tuple(self, config: RunnableConfig) -> CheckpointTuple | None:
        configurable = _configurable(config)
        thread_id = str(configurable["thread_id"])
        ns = configurable.get("checkpoint_ns", "")
        state = await self._state(self._thread(thread_id))
        by_id = state.checkpoints.get(ns, {})
        wanted = get_checkpoint_id(config)
        if wanted is None:
            if not by_id:
                return None
            wanted = max(by_id)
        cp = by_id.get(wanted)
        return None if cp is None else self._tuple(thread_id, cp, state.writes_of(cp))

    async def alist(
        self,
        config: RunnableConfig | None,
        *,
        filter: dict[str, Any] | None = None,
        before: RunnableConfig | None = None,
        limit: int | None = None,
    ) -> AsyncIterator[CheckpointTuple]:
        for item in await self.bridge.run(self._list(config, filter, before, limit)):
            yield item

    async def _list(
        self,
        config: RunnableConfig | None,
        flt: dict[str, Any] | None,
        before: RunnableConfig | None,
        limit: int | None,
    ) -> list[CheckpointTuple]:
        if config is None:
            threads = [s.session for s in await self.memory.sessions(self.scope) if s.session]
            configurable: dict[str, Any] = {}
        else:
            configurable = _configurable(config)
            threads = [str(configurable["thread_id"])]
        only_ns = configurable.get("checkpoint_ns")
        only_id = get_checkpoint_id(config) if config is not None else None
        before_id = get_checkpoint_id(before) if before is not None else None
        found: list[CheckpointTuple] = []
        for thread_id in sorted(threads):
            state = await self._state(self._thread(thread_id))
            cps = sorted(state.all_checkpoints(), key=lambda c: (c.id, c.ns), reverse=True)
            for cp in cps:
                if limit is not None and len(found) >= limit:
                    return found
                if only_ns is not None and cp.ns != only_ns:
                    continue
                if (only_id and cp.id != only_id) or (before_id and cp.id >= before_id):
                    continue
                if flt:
                    metadata = load(self.serde, cp.metadata)
                    if not all(metadata.get(k) == v for k, v in flt.items()):
                        continue
                found.append(self._tuple(thread_id, cp, state.writes_of(cp)))
        return found

    async def aput(
        self,
        config: RunnableConfig,
        checkpoint: Checkpoint,
        metadata: CheckpointMetadata,
        new_versions: ChannelVersions,
    ) -> RunnableConfig:
        return await self.bridge.run(self._put(config, checkpoint, metadata))

    async def _put(
        self, config: RunnableConfig, checkpoint: Checkpoint, metadata: CheckpointMetadata
    ) -> RunnableConfig:
        configurable = _configurable(config)
        thread_id = str(configurable["thread_id"])
        ns = configurable.get("checkpoint_ns", "")
        cp = StoredCheckpoint(
            key=checkpoint_key(ns, checkpoint["id"]),
            ns=ns,
            id=checkpoint["id"],
            parent=configurable.get("checkpoint_id"),
            checkpoint=dump(self.serde, checkpoint),
            metadata=dump(self.serde, get_checkpoint_metadata(config, metadata)),
        )
        await self._thread(thread_id).set(cp.key, cp.value())
        return self._config(thread_id, ns, checkpoint["id"])

    async def aput_writes(
        self,
        config: RunnableConfig,
        writes: Sequence[tuple[str, Any]],
        task_id: str,
        task_path: str = "",
    ) -> None:
        await self.bridge.run(self._put_writes(config, writes, task_id, task_path))

    async def _put_writes(
        self, config: RunnableConfig, writes: Sequence[tuple[str, Any]], task_id: str, path: str
    ) -> None:
        configurable = _configurable(config)
        ns = configurable.get("checkpoint_ns", "")
        checkpoint_id = configurable["checkpoint_id"]
        wm = self._thread(configurable["thread_id"])
        for i, (channel, value) in enumerate(writes):
            idx = WRITES_IDX_MAP.get(channel, i)
            key = write_key(ns, checkpoint_id, task_id, idx)
            # a regular write is kept once per (task, idx): a retried task does not add it
            # again; the special channels (errors, interrupts) are replaced
            if idx >= 0 and await wm.exists(key):
                continue
            write = StoredWrite(
                key, ns, checkpoint_id, task_id, idx, channel, dump(self.serde, value), path
            )
            await wm.set(key, write.as_value())

    async def adelete_thread(self, thread_id: str) -> None:
        await self.bridge.run(self._thread(thread_id).destroy())

    async def acopy_thread(self, source_thread_id: str, target_thread_id: str) -> None:
        await self.bridge.run(self._copy_thread(source_thread_id, target_thread_id))

    async def _copy_thread(self, source: str, target: str) -> None:
        wm = self._thread(source)
        if not (await self._state(wm)).checkpoints:
            return
        # working memory's fork: one consistent snapshot of the session, started anew as the
        # target session; the checkpoint it goes through is removed again
        checkpoint_id = await wm.create_checkpoint(f"langgraph copy_thread to {target}")
        try:
            await wm.fork(checkpoint_id, target)
        finally:
            await wm.delete_checkpoint(checkpoint_id)

    async def adelete_for_runs(self, run_ids: Sequence[str]) -> None:
        await self.bridge.run(self._delete_for_runs(run_ids))

    async def _delete_for_runs(self, run_ids: Sequence[str]) -> None:
        wanted = set(run_ids)
        if not wanted:
            return
        for scope in await self.memory.sessions(self.scope):
            wm = self._thread(scope.session)
            state = await self._state(wm)
            for cp in state.all_checkpoints():
                if load(self.serde, cp.metadata).get("run_id") in wanted:
                    await self._delete(wm, state, cp)

    async def aprune(self, thread_ids: Sequence[str], *, strategy: str = "keep_latest") -> None:
        _check_strategy(strategy)
        await self.bridge.run(self._prune(thread_ids, strategy))

    async def _prune(self, thread_ids: Sequence[str], strategy: str) -> None:
        for thread_id in thread_ids:
            wm = self._thread(thread_id)
            state = await self._state(wm)
            for by_id in state.checkpoints.values():
                latest = max(by_id)
                for cp in by_id.values():
                    if strategy == "delete" or cp.id != latest:
                        await self._delete(wm, state, cp)

    @staticmethod
    async def _delete(wm: WorkingMemory, state: ThreadState, cp: StoredCheckpoint) -> None:
        for write in state.writes_of(cp):
            await wm.delete(write.key)
        await wm.delete(cp.key)

    # -- sync: the same, waited for -------------------------------------------------------

    def get_tuple(self, config: RunnableConfig) -> CheckpointTuple | None:
        return self.bridge.block(self._get_tuple(config))

    def list(
        self,
        config: RunnableConfig | None,
        *,
        filter: dict[str, Any] | None = None,
        before: RunnableConfig | None = None,
        limit: int | None = None,
    ) -> Iterator[CheckpointTuple]:
        return iter(self.bridge.block(self._list(config, filter, before, limit)))

    def put(
        self,
        config: RunnableConfig,
        checkpoint: Checkpoint,
        metadata: CheckpointMetadata,
        new_versions: ChannelVersions,
    ) -> RunnableConfig:
        return self.bridge.block(self._put(config, checkpoint, metadata))

    def put_writes(
        self,
        config: RunnableConfig,
        writes: Sequence[tuple[str, Any]],
        task_id: str,
        task_path: str = "",
    ) -> None:
        self.bridge.block(self._put_writes(config, writes, task_id, task_path))

    def delete_thread(self, thread_id: str) -> None:
        self.bridge.block(self._thread(thread_id).destroy())

    def copy_thread(self, source_thread_id: str, target_thread_id: str) -> None:
        self.bridge.block(self._copy_thread(source_thread_id, target_thread_id))

    def delete_for_runs(self, run_ids: Sequence[str]) -> None:
        self.bridge.block(self._delete_for_runs(run_ids))

    def prune(self, thread_ids: Sequence[str], *, strategy: str = "keep_latest") -> None:
        _check_strategy(strategy)
        self.bridge.block(self._prune(thread_ids, strategy))
