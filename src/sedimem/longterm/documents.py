"""Documents: keyed JSON values of one owner scope, filed under namespace paths.

This is what a framework's key-value store asks of long-term memory (LangGraph's
``BaseStore``): ``put``/``get``/``delete`` by (namespace, key), ``search`` under a namespace
prefix with a filter on the values and an optional hybrid query, and the listing of
namespaces. Documents are durable long-term records (kind ``document``) of their owner
scope, searchable by keywords and meaning like every other record.

Rules kept here, once:
- a scope sees exactly its own documents (the scope's digest is stored in ``subject``,
  filtered inside the store), never a parent's: keys of two scopes never collide;
- a document may expire ``ttl_seconds`` after its last write, or its last read when
  ``refresh`` is asked for; an expired document is never returned and is removed when met;
- without a query, results come newest write first (as LangGraph's PostgreSQL store);
  with one, every match comes back, ranked by hybrid search, those without keyword or
  vector evidence last.

Cost: ``search`` and ``namespaces`` read the scope's documents (its rows, without vectors),
then rank the matching ones in the store.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Sequence
from typing import Any

from pydantic import AwareDatetime, BaseModel, ConfigDict

from sedimem.clock import Clock, utc_from_timestamp
from sedimem.embed.base import Embedder
from sedimem.errors import ValidationError
from sedimem.limits import MAX_DOCUMENT_BYTES
from sedimem.longterm.arguments import MAX_K
from sedimem.longterm.service import LongTermService
from sedimem.longterm.vectors import embed_all
from sedimem.retrieval.fusion import RetrievalSettings
from sedimem.scope import Scope
from sedimem.storage.longterm.base import LongTermStore, RecordFilter, StoredRecord
from sedimem.types.shape import check_shape, flatten_deep, loads_stored

__all__ = ["DOCUMENT", "Document", "DocumentRecord", "Documents", "values_match"]

DOCUMENT = "document"
_PAGE = 1000
_MAX_LABEL = 256
_OPERATORS = ("$eq", "$ne", "$gt", "$gte", "$lt", "$lte")
_PATH_PART = re.compile(r"([^.\[\]]+)|\[(\*|-?\d+)\]")


class Document(BaseModel):
    """One stored value and its bookkeeping."""

    model_config = ConfigDict(frozen=True)

    namespace: tuple[str, ...]
    key: str
    value: dict[str, Any]
    created_at: AwareDatetime
    updated_at: AwareDatetime
    ttl_seconds: float | None = None
    expires_at: AwareDatetime | None = None


def document_id(scope: Scope, namespace: tuple[str, ...], key: str) -> str:
    """A document's row id: one per owner scope, namespace and key."""
    name = json.dumps([scope.canonical, list(namespace), key])
    return hashlib.blake2b(name.encode(), digest_size=16).hexdigest()


class DocumentRecord(BaseModel):
    """A document with its owner scope and the text it is searched by: a stored row's
    content, and how an export carries a document."""

    model_config = ConfigDict(frozen=True)

    scope: Scope
    document: Document
    text: str = ""

    @property
    def id(self) -> str:
        """The row's id: one per owner scope, namespace and key."""
        return document_id(self.scope, self.document.namespace, self.document.key)

    def row(self) -> StoredRecord:
        s, doc = self.scope, self.document
        return StoredRecord(
            id=self.id,
            kind=DOCUMENT,
            tenant=s.tenant,
            project=s.project,
            user=s.user,
            agent_type=s.agent_type,
            agent=s.agent,
            session=None,
            text=self.text,
            occurred_at=doc.updated_at.timestamp(),
            importance=0.5,
            body=doc.model_dump_json(),
            subject=s.digest,
            name=json.dumps(list(doc.namespace)),
        )

    @classmethod
    def from_row(cls, row: StoredRecord) -> DocumentRecord:
        scope = Scope(
            tenant=row.tenant,
            project=row.project,
            user=row.user,
            agent_type=row.agent_type,
            agent=row.agent,
        )
        return cls(scope=scope, document=_document(row.body), text=row.text)


def _document(body: str) -> Document:
    """A stored document; one an older version stored nested too deep made printable."""
    try:
        return Document.model_validate_json(body)
    except ValueError:  # pydantic's parser stops near 200 levels; Python's goes further
        data = loads_stored(body)
        return Document.model_validate({**data, "value": flatten_deep(data["value"])})


def _compare(actual: Any, operator: str, expected: Any) -> bool:
    if operator == "$eq":
        return bool(actual == expected)
    if operator == "$ne":
        return bool(actual != expected)
    try:
        a, e = float(actual), float(expected)
    except (TypeError, ValueError):
        return False
    return {"$gt": a > e, "$gte": a >= e, "$lt": a < e, "$lte": a <= e}[operator]


def values_match(actual: Any, expected: Any) -> bool:
    """JSON containment as LangGraph's stores filter: nested objects match field by field,
    lists element by element, ``{"$op": v}`` compares (``$eq $ne $gt $gte $lt $lte``)."""
    if isinstance(expected, dict):
        operators = [k for k in expected if k.startswith("$")]
        if operators:
            return all(_compare(actual, op, v) for op, v in expected.items())
        if not isinstance(actual, dict):
            return False
        return all(values_match(actual.get(k), v) for k, v in expected.items())
    if isinstance(expected, list | tuple):
        return (
            isinstance(actual, list | tuple)
            and len(actual) == len(expected)
            and all(values_match(a, e) for a, e in zip(actual, expected, strict=True))
        )
    return bool(actual == expected)


def _check_filter(flt: dict[str, Any]) -> None:
    def walk(value: Any) -> None:
        if isinstance(value, dict):
            for k, v in value.items():
                if k.startswith("$") and k not in _OPERATORS:
                    raise ValidationError(
                        "filter", f"operator {k!r} is unknown", allowed=", ".join(_OPERATORS)
                    )
                walk(v)

    walk(flt)


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


def _at_path(value: Any, path: str) -> list[Any]:
    """The values at a path such as ``a.b``, ``a[0]``, ``a[-1].b`` or ``a[*].b``."""
    found = [value]
    for name, index in _PATH_PART.findall(path):
        step: list[Any] = []
        for v in found:
            if name and isinstance(v, dict) and name in v:
                step.append(v[name])
            elif index == "*" and isinstance(v, list):
                step.extend(v)
            elif index and index != "*" and isinstance(v, list) and -len(v) <= int(index) < len(v):
                step.append(v[int(index)])
        found = step
    return found


def index_text(value: dict[str, Any], fields: Sequence[str] | None) -> str:
    """What keyword and vector search see of a value: its strings, or those at ``fields``.

    A value is JSON and may hold NUL (kept as ``\\u0000`` in the body); the search text is
    stored as text, which may not (``sedimem.types.text``), so NUL reads as a space there.
    """
    if fields is None or "$" in fields:
        text = "\n".join(_strings(value))
    else:
        text = "\n".join(s for f in fields for v in _at_path(value, f) for s in _strings(v))
    return text.replace("\x00", " ")


def _check_namespace(namespace: tuple[str, ...], field: str = "namespace") -> None:
    if not isinstance(namespace, tuple) or not all(
        isinstance(label, str) and 0 < len(label) <= _MAX_LABEL for label in namespace
    ):
        raise ValidationError(field, "must be a tuple of labels", allowed="1..256 characters each")


def _check_page(limit: int, offset: int) -> None:
    if isinstance(limit, bool) or not isinstance(limit, int) or limit < 0:
        raise ValidationError("limit", f"{limit!r} is out of range", allowed=">= 0")
    if isinstance(offset, bool) or not isinstance(offset, int) or offset < 0:
        raise ValidationError("offset", f"{offset!r} is out of range", allowed=">= 0")


def _pattern_matches(namespace: tuple[str, ...], pattern: tuple[str, ...], *, suffix: bool) -> bool:
    if len(namespace) < len(pattern):
        return False
    part = namespace[len(namespace) - len(pattern) :] if suffix else namespace[: len(pattern)]
    return all(p in ("*", n) for n, p in zip(part, pattern, strict=True))


class Documents(LongTermService):
    """The documents of one owner scope (its session, if any, is dropped)."""

    def __init__(
        self,
        store: LongTermStore,
        embedder: Embedder,
        scope: Scope,
        *,
        settings: RetrievalSettings | None = None,
        clock: Clock | None = None,
    ) -> None:
        super().__init__(store, embedder, settings=settings, clock=clock)
        self.scope = scope.owner

    def _id(self, namespace: tuple[str, ...], key: str) -> str:
        return document_id(self.scope, namespace, key)

    def _filter(self, ids: tuple[str, ...] | None = None) -> RecordFilter:
        return RecordFilter(kind=DOCUMENT, subject=self.scope.digest, ids=ids)

    def _row(self, doc: Document, text: str) -> StoredRecord:
        return DocumentRecord(scope=self.scope, document=doc, text=text).row()

    async def put(
        self,
        namespace: tuple[str, ...],
        key: str,
        value: dict[str, Any],
        *,
        index: Sequence[str] | bool | None = None,
        ttl_seconds: float | None = None,
    ) -> Document:
        """Create or replace the document; ``index``: False (not searchable), the fields to
        search (paths such as ``a.b`` or ``a[*].c``), or None/True (all its text)."""
        _check_namespace(namespace)
        if not namespace:
            raise ValidationError("namespace", "is empty", allowed="at least one label")
        if not isinstance(key, str) or not 0 < len(key) <= 1024:
            raise ValidationError("key", "must be text", allowed="1..1024 characters")
        if not isinstance(value, dict):
            raise ValidationError("value", "must be a JSON object", allowed="a dict")
        check_shape("value", value, MAX_DOCUMENT_BYTES)
        if ttl_seconds is not None and not 0 < ttl_seconds <= 10 * 365 * 86400:
            raise ValidationError("ttl_seconds", f"{ttl_seconds!r} is out of range", allowed="> 0")
        now = self._clock.now()
        old = await self._read(namespace, key, now)
        stamp = utc_from_timestamp(now)
        doc = Document(
            namespace=namespace,
            key=key,
            value=json.loads(json.dumps(value)),  # a JSON copy: refuses what is not JSON
            created_at=old.created_at if old else stamp,
            updated_at=stamp,
            ttl_seconds=ttl_seconds,
            expires_at=None if ttl_seconds is None else utc_from_timestamp(now + ttl_seconds),
        )
        fields = None if index is None or isinstance(index, bool) else list(index)
        text = "" if index is False else index_text(doc.value, fields)
        row = self._row(doc, text)
        if text.strip():
            row.vector = (await embed_all(self._embedder, [text]))[0]
        await self._store.put(self.scope.tenant, [row])
        return doc

    async def _read(self, namespace: tuple[str, ...], key: str, now: float) -> Document | None:
        rows = await self._store.get(self.scope.tenant, [self._id(namespace, key)])
        if not rows:
            return None
        doc = _document(rows[0].body)
        if self._expired(doc, now):
            await self._store.delete(self.scope.tenant, [rows[0].id])
            return None
        return doc

    @staticmethod
    def _expired(doc: Document, now: float) -> bool:
        return doc.expires_at is not None and doc.expires_at.timestamp() <= now

    async def get(
        self, namespace: tuple[str, ...], key: str, *, refresh: bool = True
    ) -> Document | None:
        _check_namespace(namespace)
        now = self._clock.now()
        doc = await self._read(namespace, key, now)
        if doc is not None and refresh:
            await self._refresh([doc], now)
        return doc

    async def delete(self, namespace: tuple[str, ...], key: str) -> bool:
        _check_namespace(namespace)
        return await self._store.delete(self.scope.tenant, [self._id(namespace, key)]) > 0

    async def _refresh(self, docs: Sequence[Document], now: float) -> None:
        """Push the expiry of documents that have a TTL to ``now + ttl`` (vectors kept)."""
        due = {self._id(d.namespace, d.key): d for d in docs if d.ttl_seconds is not None}
        if not due:
            return

        def decide(rows: list[StoredRecord]) -> list[StoredRecord]:
            changed = []
            for row in rows:
                doc = _document(row.body)
                if doc.ttl_seconds is None or self._expired(doc, now):
                    continue
                new = utc_from_timestamp(now + doc.ttl_seconds)
                row.body = doc.model_copy(update={"expires_at": new}).model_dump_json()
                changed.append(row)
            return changed

        await self._store.update_locked(
            self.scope.tenant,
            f"documents:{self.scope.digest}:refresh",
            self._filter(tuple(sorted(due))),
            decide,
        )

    async def _all(self, now: float) -> list[Document]:
        """Every live document of the scope; expired ones met on the way are removed."""
        docs: list[Document] = []
        expired: list[str] = []
        after: str | None = None
        while True:
            rows = await self._store.find(
                self.scope.tenant, self._filter(), limit=_PAGE, after=after
            )
            for row in rows:
                doc = _document(row.body)
                (expired.append(row.id) if self._expired(doc, now) else docs.append(doc))
            if len(rows) < _PAGE:
                break
            after = rows[-1].id
        if expired:
            await self._store.delete(self.scope.tenant, expired)
        return docs

    async def search(
        self,
        prefix: tuple[str, ...] = (),
        *,
        filter: dict[str, Any] | None = None,
        query: str | None = None,
        limit: int = 10,
        offset: int = 0,
        refresh: bool = True,
    ) -> list[tuple[Document, float | None]]:
        """Documents under ``prefix`` whose values match ``filter``; ranked by ``query``."""
        _check_namespace(prefix, "namespace_prefix")
        _check_page(limit, offset)
        if filter is not None:
            if not isinstance(filter, dict):
                raise ValidationError("filter", "must be an object", allowed="a dict")
            _check_filter(filter)
        now = self._clock.now()
        matches = [
            d
            for d in await self._all(now)
            if d.namespace[: len(prefix)] == prefix
            and all(values_match(d.value.get(k), v) for k, v in (filter or {}).items())
        ]
        matches.sort(key=lambda d: (d.updated_at, d.namespace, d.key), reverse=True)
        scored: list[tuple[Document, float | None]] = [(d, None) for d in matches]
        if query and query.strip() and matches:
            scored = await self._rank(matches, query, now)
        page = scored[offset : offset + limit]
        if refresh:
            await self._refresh([d for d, _ in page], now)
        return page

    async def _rank(
        self, matches: list[Document], query: str, now: float
    ) -> list[tuple[Document, float | None]]:
        by_id = {self._id(d.namespace, d.key): d for d in matches}
        ranked: list[tuple[Document, float | None]] = []
        ids = list(by_id)
        for start in range(0, len(ids), MAX_K):
            chunk = tuple(ids[start : start + MAX_K])
            hits = await self._searcher.search(
                self.scope.tenant, self._filter(chunk), query, len(chunk), now=now
            )
            ranked += [(by_id.pop(row.id), b.score) for row, b in hits if row.id in by_id]
        ranked.sort(key=lambda pair: pair[1] or 0.0, reverse=True)
        # matches with no keyword or vector evidence still match: they come last
        return ranked + [(d, None) for d in matches if self._id(d.namespace, d.key) in by_id]

    async def namespaces(
        self,
        *,
        prefix: tuple[str, ...] | None = None,
        suffix: tuple[str, ...] | None = None,
        max_depth: int | None = None,
        limit: int = 100,
        offset: int = 0,
    ) -> list[tuple[str, ...]]:
        """The namespaces holding documents, sorted; ``*`` in a pattern matches any label;
        ``max_depth`` cuts them to their first labels."""
        _check_page(limit, offset)
        if max_depth is not None and (isinstance(max_depth, bool) or max_depth < 1):
            raise ValidationError("max_depth", f"{max_depth!r} is out of range", allowed=">= 1")
        found = {d.namespace for d in await self._all(self._clock.now())}
        if prefix:
            found = {n for n in found if _pattern_matches(n, prefix, suffix=False)}
        if suffix:
            found = {n for n in found if _pattern_matches(n, suffix, suffix=True)}
        if max_depth is not None:
            found = {n[:max_depth] for n in found}
        return sorted(found)[offset : offset + limit]
