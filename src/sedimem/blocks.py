"""Pinned blocks of an owner (a user or an agent): durable, ordered, edited atomically."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from sedimem.clock import Clock, SystemClock, utc_from_timestamp
from sedimem.errors import LimitExceeded, NotFound, ValidationError
from sedimem.longterm.records import normalise
from sedimem.scope import Scope
from sedimem.storage.longterm.base import LongTermStore, RecordFilter, StoredRecord
from sedimem.types.blocks import MAX_BLOCK_CHARS, Block
from sedimem.types.text import check_no_nul

__all__ = ["BLOCK", "Blocks", "block_row"]

BLOCK = "block"


def block_row(block: Block) -> StoredRecord:
    """The row of a block (no vector: blocks are placed by order, never searched)."""
    s = block.scope
    return StoredRecord(
        id=block.id,
        kind=BLOCK,
        tenant=s.tenant,
        project=s.project,
        user=s.user,
        agent_type=s.agent_type,
        agent=s.agent,
        session=None,
        text=f"{block.name}\n{block.content}",
        occurred_at=block.updated_at.timestamp(),
        importance=1.0,
        body=block.model_dump_json(),
        name=normalise(block.name),
    )


class Blocks:
    """The blocks an owner scope sees, in pinned order (``position``, then name)."""

    def __init__(self, store: LongTermStore, scope: Scope, *, clock: Clock | None = None) -> None:
        self._store = store
        self._scope = scope.owner
        self._clock = clock or SystemClock()

    async def list(self) -> list[Block]:
        """Every block visible to the scope (its own and those of its parents)."""
        rows = await self._store.find(
            self._scope.tenant, RecordFilter(kind=BLOCK, visible_to=self._scope), limit=1000
        )
        blocks = [Block.from_stored(r.body) for r in rows]
        return sorted(blocks, key=lambda b: (b.position, b.name.lower(), b.id))

    async def get(self, name: str) -> Block:
        for block in await self.list():
            if normalise(block.name) == normalise(name):
                return block
        raise NotFound(f"block {name!r} does not exist")

    async def update(self, name: str, content: str, *, position: int | None = None) -> Block:
        """Create or replace the block's content."""
        self._check_content("content", content)
        return await self._change(name, lambda old: content, position)

    async def append(self, name: str, text: str, *, separator: str = "\n") -> Block:
        """Add text to the end of a block (created if missing), atomically."""
        self._check_content("text", text)
        check_no_nul("separator", separator)

        def extend(old: str) -> str:
            new = f"{old}{separator}{text}" if old else text
            if len(new) > MAX_BLOCK_CHARS:
                raise LimitExceeded(
                    "text", f"the block would hold {len(new)} characters",
                    allowed=f"at most {MAX_BLOCK_CHARS} characters per block",
                )  # fmt: skip
            return new

        return await self._change(name, extend, None)

    async def delete(self, name: str) -> bool:
        mine = await self._own(name)
        if mine is None:
            return False
        return await self._store.delete(self._scope.tenant, [mine.id]) > 0

    async def _own(self, name: str) -> Block | None:
        rows = await self._store.find(
            self._scope.tenant,
            RecordFilter(kind=BLOCK, name=normalise(name), user=self._scope.user),
            limit=1000,
        )
        for row in rows:
            block = Block.from_stored(row.body)
            if block.scope == self._scope:
                return block
        return None

    async def _change(
        self,
        name: str,
        change: Callable[[str], str],
        position: int | None,
    ) -> Block:
        """Create or edit the owner's block under a lock: concurrent appends all land."""
        probe = Block(scope=self._scope, name=name)  # validates the name before anything
        now = utc_from_timestamp(self._clock.now())
        result: list[Block] = []

        def decide(rows: list[StoredRecord]) -> Sequence[StoredRecord]:
            mine = [
                b for b in (Block.from_stored(r.body) for r in rows)
                if b.scope == self._scope
            ]  # fmt: skip
            if mine:
                old = mine[0]
                block = old.model_copy(
                    update={
                        "content": change(old.content),
                        "updated_at": now,
                        "position": old.position if position is None else position,
                    }
                )
            else:
                block = probe.model_copy(
                    update={"content": change(""), "updated_at": now, "position": position or 0}
                )
            result.append(block)
            return [block_row(block)]

        await self._store.update_locked(
            self._scope.tenant,
            f"block:{self._scope.digest}:{normalise(name)}",
            RecordFilter(kind=BLOCK, name=normalise(name), user=self._scope.user),
            decide,
        )
        return result[0]

    @staticmethod
    def _check_content(field: str, content: str) -> None:
        """Checked here, before any write: the block is then edited with ``model_copy``,
        which validates nothing (a NUL would reach the store, kept by SQLite and refused by
        PostgreSQL without the field's name)."""
        if not isinstance(content, str):
            raise ValidationError(field, "must be text", allowed="a string")
        check_no_nul(field, content)
        if len(content) > MAX_BLOCK_CHARS:
            raise LimitExceeded(
                field, f"is {len(content)} characters long",
                allowed=f"at most {MAX_BLOCK_CHARS} characters",
            )  # fmt: skip
