"""Export and import of a user's records as JSON Lines, pinned blocks and documents included.

One typed record a line: ``{"kind": ..., "record": {...}}``, kinds in a fixed order
(episodes, facts, procedures, blocks, documents), each kind by id. A document (a LangGraph
store item) carries its owner scope and the text it is searched by. Episodes come first so a reader
meets each source before the records derived from it; derived records carry their
provenance (``source_episode_ids``). Import keeps ids and recomputes vectors, so
export -> import -> export gives the same lines.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable, Iterable

from pydantic import ValidationError as PydanticValidationError

from sedimem.blocks import BLOCK, block_row
from sedimem.embed.base import Embedder
from sedimem.errors import ValidationError
from sedimem.limits import MAX_DOCUMENT_BYTES
from sedimem.longterm import records
from sedimem.longterm.documents import DOCUMENT, DocumentRecord
from sedimem.longterm.vectors import embed_all
from sedimem.storage.longterm.base import LongTermStore, RecordFilter, StoredRecord, Vector
from sedimem.types._base import translate
from sedimem.types.blocks import Block
from sedimem.types.longterm import Episode, Fact, Procedure
from sedimem.types.shape import allowed, check_shape

__all__ = ["EXPORTED_KINDS", "export_user", "import_records"]

_PAGE = 1000
Exported = Episode | Fact | Procedure | Block | DocumentRecord
_MODELS: dict[str, type[Exported]] = {
    records.EPISODE: Episode,
    records.FACT: Fact,
    records.PROCEDURE: Procedure,
    BLOCK: Block,
    DOCUMENT: DocumentRecord,
}
#: The kinds an export holds, in the order it writes them.
EXPORTED_KINDS = tuple(_MODELS)


async def export_user(longterm: LongTermStore, tenant: str, user: str | None) -> AsyncIterator[str]:
    """The records of ``user`` (``None``: the records naming no user), one JSON line each."""
    for kind in EXPORTED_KINDS:
        flt = RecordFilter(kind=kind, user=user)
        cursor: str | None = None
        while True:
            page = await longterm.find(tenant, flt, limit=_PAGE, after=cursor)
            for row in page:
                if user is None and row.user is not None:
                    continue
                yield _line(kind, row)
            if len(page) < _PAGE:
                break
            cursor = page[-1].id


def _line(kind: str, row: StoredRecord) -> str:
    try:
        return json.dumps({"kind": kind, "record": _exported(row)}, sort_keys=True)
    except RecursionError:  # a value an older version stored past what json recurses into
        return f'{{"kind": {json.dumps(kind)}, "record": {row.body}}}'  # the record as stored


def _exported(row: StoredRecord) -> object:
    if row.kind == DOCUMENT:
        return DocumentRecord.from_row(row).model_dump(mode="json")
    return json.loads(row.body)


def _parse(number: int, line: str, tenant: str) -> Exported:
    try:
        item = json.loads(line)
        model = _MODELS[item["kind"]]
        record = item["record"]
        parsed = model.model_validate(
            {**record, "scope": {**record.get("scope", {}), "tenant": tenant}}
        )
    except PydanticValidationError as exc:
        raise translate(exc, prefix=f"line {number}: ") from exc
    except RecursionError as exc:  # nested past what Python's parser takes (~1,000 levels)
        raise ValidationError(
            f"line {number}", "nests too deep to read", allowed=allowed(MAX_DOCUMENT_BYTES)
        ) from exc
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        raise ValidationError(f"line {number}", f"is not an exported record ({exc})") from exc
    if isinstance(parsed, DocumentRecord):  # its value is free-form JSON: the same rules
        check_shape(f"line {number}: document.value", parsed.document.value, MAX_DOCUMENT_BYTES)
    return parsed


async def import_records(
    longterm: LongTermStore,
    embedder: Embedder,
    tenant: str,
    lines: Iterable[str],
    *,
    progress: Callable[[int], None] | None = None,
) -> dict[str, int]:
    """Read what :func:`export_user` wrote into ``tenant`` (ids kept, vectors recomputed).

    Every line is validated before anything is written; a bad line names its number.
    Returns the records written per kind.
    """
    parsed = [
        _parse(number, line, tenant) for number, line in enumerate(lines, start=1) if line.strip()
    ]
    counts = dict.fromkeys(EXPORTED_KINDS, 0)
    for start in range(0, len(parsed), _PAGE):
        batch = parsed[start : start + _PAGE]
        searchable = [r for r in batch if not isinstance(r, Block | DocumentRecord)]
        searchable_docs = [r for r in batch if isinstance(r, DocumentRecord) and r.text.strip()]
        vectors = await embed_all(embedder, [_text(r) for r in searchable])
        by_id = {r.id: v for r, v in zip(searchable, vectors, strict=True)}
        doc_vectors = await embed_all(embedder, [r.text for r in searchable_docs])
        by_id |= {r.id: v for r, v in zip(searchable_docs, doc_vectors, strict=True)}
        rows = [_row(r, by_id.get(r.id)) for r in batch]
        await longterm.put(tenant, rows)
        for row in rows:
            counts[row.kind] += 1
        if progress is not None:
            progress(len(batch))
    return counts


def _text(record: Episode | Fact | Procedure) -> str:
    if isinstance(record, Fact):
        return record.statement
    return record.search_text()


def _row(record: Exported, vector: Vector | None) -> StoredRecord:
    if isinstance(record, Block):
        return block_row(record)
    if isinstance(record, DocumentRecord):
        row = record.row()
        row.vector = vector
        return row
    if isinstance(record, Episode):
        return records.episode_row(record, vector)
    if isinstance(record, Fact):
        return records.fact_row(record, vector)
    return records.procedure_row(record, vector)
