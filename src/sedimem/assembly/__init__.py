"""Context assembly: fetch every tier in parallel, keep what answers, pack into a budget.

Tiers, in the order they appear: pinned blocks (always first), working state (task,
keys, the newest scratchpad notes), matching procedures, facts true and believed now,
episodes. Long-term tiers are searched across every session of the scope's owner. What
decides what goes in (docs/context.md tells the same with an example):

1. the question is read once (:mod:`.question`): its words, whom it names, whether it asks
   for advice or about time;
2. every ranked tier's candidates get a relevance on one scale (:mod:`.relevance`), and
   packing leaves out what falls under :data:`FLOOR` times the best of the whole assembly,
   so budget a tier cannot use well flows to tiers that match, and a fact or procedure
   that matches the question by no word and no clearly closer meaning however poor the
   best is (``unmatched``: :meth:`~sedimem.assembly.relevance.Pool.stands_out`);
3. within a tier, items are ordered by who said them, newer values first, near-copies last
   (:mod:`.ranked`), long episodes cut to the passage that matched (:mod:`.passages`);
4. every item shows its date; a question about time gets facts and episodes in time order;
   a question naming a day or month also draws the episodes of that time, ranked higher;
   a turn whose every fact is no longer current (replaced, corrected, ended: semantic
   memory's ``outdated_sources``) is labelled ``earlier`` and ranks lower.

Packing (quotas, the exact token count, the report) is :mod:`sedimem.context`.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Awaitable, Iterable, Mapping, Sequence
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from sedimem import observe
from sedimem.assembly.kinds import asked, named_by_kind, pets, relatives
from sedimem.assembly.question import Question, read_question
from sedimem.assembly.ranked import (
    SESSION_BOOST,
    Candidates,
    episode_items,
    fact_items,
    procedure_items,
)
from sedimem.assembly.relevance import FLOOR, FLOORED
from sedimem.assembly.state import block_items, working_items
from sedimem.context.models import AssembledContext, ContextFormat
from sedimem.context.packing import pack
from sedimem.context.tokens import Tokenizer, default_tokenizer
from sedimem.embed.base import Embedder
from sedimem.longterm.arguments import check_query
from sedimem.retrieval.index.analyzer import Analyzer
from sedimem.retrieval.index.blas import scan_blas
from sedimem.scope import Scope
from sedimem.types.longterm import Episode, Fact
from sedimem.types.search import Hit, ScoreBreakdown

if TYPE_CHECKING:
    from sedimem.memory import Memory

__all__ = ["FLOOR", "FLOORED", "SESSION_BOOST", "assemble", "episode_depth", "prepare"]

_FACTS = 5
#: Facts searched, of which the first ``_FACTS`` may match the question and the rest may
#: only describe the asker (advice needs "has lactose intolerance" for "What should I cook
#: tonight?", which the first five rarely hold among a user's facts).
_FACTS_PROFILED = 10
#: Facts searched for a question about the asker as a whole ("What do you know about me?").
_FACTS_ABOUT_ASKER = 15
_PROCEDURES = 5
#: The asker's facts of the kinds a question asks for, read beside the search (the newest).
_OF_KIND = 3
#: How many of them are read (the newest recorded): a traveller's hundred ``visited``
#: facts are not all read for "Where did I travel?".
_OF_KIND_READ = 20
#: The facts of each relative a question names by kind ("my husband"), of at most
#: ``_RELATIVES`` relatives, read beside the search (the newest).
_OF_RELATIVE = 5
_RELATIVES = 2
#: The best episodes whose next turn (the reply) is fetched to stand beside them.
NEIGHBOURS = 5
#: How long after a turn its reply may come.
_REPLY_WITHIN = timedelta(hours=6)
#: Dates a question names that are searched (the first ones), and episodes drawn for each.
_DATES = 2
_DATED_DEPTH = 10


_local = threading.local()


def _analyzer() -> Analyzer:
    """This thread's analyzer: it caches stems, and is not safe to share across threads."""
    analyzer: Analyzer | None = getattr(_local, "analyzer", None)
    if analyzer is None:
        analyzer = _local.analyzer = Analyzer()
    return analyzer


async def prepare(embedder: Embedder) -> None:
    """Load, in threads and at once, what the first ``assemble`` of a process would
    otherwise wait for: the tokenizer's table (~0.15 s), a local embedder's weights and
    the BLAS libraries' scan (~10 ms)."""
    load = getattr(embedder, "load", None)
    jobs = [
        asyncio.to_thread(default_tokenizer),
        asyncio.to_thread(_analyzer().terms, "warm"),
        asyncio.to_thread(scan_blas),
    ]
    if callable(load):
        jobs.append(asyncio.to_thread(load))
    await asyncio.gather(*jobs)


def episode_depth(budget_tokens: int) -> int:
    """How many episodes are drawn for a budget: about one per 25 tokens, 20 to 40."""
    return max(20, min(40, budget_tokens // 25))


@observe.operation("assemble")
async def assemble(
    memory: Memory,
    query: str,
    scope: Scope,
    budget_tokens: int,
    *,
    quotas: Mapping[str, float] | None = None,
    format: ContextFormat = "markdown",
    tokenizer: Tokenizer | None = None,
    now: datetime | None = None,
) -> AssembledContext:
    """The memories that answer ``query`` best, packed into at most ``budget_tokens``;
    ``now`` (aware): what the question's relative dates ("yesterday") count from."""
    check_query(query)
    counter = tokenizer if tokenizer is not None else default_tokenizer()
    analyzer = _analyzer()
    question = read_question(query, analyzer, now)
    depth = episode_depth(budget_tokens) if isinstance(budget_tokens, int) else 20
    kinds = asked(question)  # the kinds of fact it asks for ("Where am I from?": comes_from)
    blocks, working, procedures, (facts, matched, read), episodes, dated = await asyncio.gather(
        block_items(memory, scope),
        working_items(memory, scope),
        memory.procedures.find_matching(query, scope=scope.owner, k=_PROCEDURES),
        _facts(memory, query, scope, question, kinds),
        memory.episodes.recall(query, scope=scope, k=depth),
        _dated(memory, query, scope, question.dates[:_DATES]),
    )
    drawn = {h.record.id for h in episodes}
    episodes += [h for h in dated if h.record.id not in drawn]
    replies = await _replies(memory, scope, episodes[:NEIGHBOURS])
    shown = [h.record.id for h in episodes] + [r.id for r in replies.values()]
    # what the question asks about: the subjects and predicates of the facts it found
    topics = [(h.record.subject, h.record.predicate) for h in facts]
    outdated = await memory.facts.outdated_sources(
        shown, scope=scope, topics=[(s, p) for s, p in topics if s and p]
    )
    # the reply to an outdated turn answered the old value ("Denver is a lovely city")
    for turn, reply in replies.items():
        if turn in outdated:
            outdated.setdefault(reply.id, set()).update(outdated[turn])
    found = Candidates.of(question, procedures, facts, episodes, analyzer)
    sections = {
        "blocks": blocks,
        "working": working,
        "procedures": procedure_items(found),
        "facts": fact_items(found, scope, matched, kinds, read),
        "episodes": episode_items(found, scope, analyzer, counter, replies, outdated),
    }
    return pack(
        sections,
        budget_tokens,
        quotas=quotas,
        format=format,
        tokenizer=counter,
        floor=FLOOR,
        floored=FLOORED,
        time_ordered=("facts", "episodes") if question.temporal else (),
    )


async def _dated(
    memory: Memory, query: str, scope: Scope, dates: Sequence[tuple[datetime, datetime]]
) -> list[Hit[Episode]]:
    """The episodes that match best on each day or in each month the question names
    ("What did I say on 16 June, 2023?"): a search of the whole history may not reach them."""
    found = await asyncio.gather(
        *(memory.episodes.recall(query, scope=scope, k=_DATED_DEPTH, time_range=r) for r in dates)
    )
    return [h for hits in found for h in hits]


async def _facts(
    memory: Memory, query: str, scope: Scope, question: Question, kinds: frozenset[str]
) -> tuple[list[Hit[Fact]], int, frozenset[str]]:
    """The facts found for ``query``, how many of the first may match it, and the ids of
    those read for the kinds and the relatives it asks about (they answer it)."""
    k = _FACTS_ABOUT_ASKER if question.about_asker else _FACTS_PROFILED
    found, of_kind = await asyncio.gather(
        memory.facts.recall(query, scope=scope, k=k), _of_kind(memory, scope, question, kinds)
    )
    return *_with_kind(found, of_kind), frozenset(f.id for f in of_kind)


async def _of_kind(
    memory: Memory, scope: Scope, question: Question, kinds: frozenset[str]
) -> list[Fact]:
    """The asker's current facts of the kinds the question's words ask for ("What
    medication am I on?": ``takes``), the newest ``_OF_KIND``; and of the relatives and
    pets it names by kind, the newest ``_OF_RELATIVE`` of each: those filed under the
    relation ("my husband": "jo's spouse likes golf") and those of the one the asker named
    ("my cat": "jo has a cat named Luna", then "Luna has diabetes"). A search for the
    question's words may reach none of them."""
    kin, kept = relatives(question)[:_RELATIVES], pets(question)[:_RELATIVES]
    user = scope.user
    if user is None or question.about_asker or not (kinds or kin or kept):
        return []  # a question about the asker as a whole searches for all they said
    naming = (*kin, "has_pet") if kept else kin

    def read(subject: str, predicates: Iterable[str] | None) -> Awaitable[list[Fact]]:
        return memory.facts.current_of(subject, predicates, scope=scope, newest=_OF_KIND_READ)

    own, namers, *of_relation = await asyncio.gather(
        read(user, kinds) if kinds else _none(),
        read(user, naming) if naming else _none(),
        *(read(f"{user}'s {relation}", None) for relation in kin),
    )
    # the newest first: of two sisters named, the one told of last
    named = [(f, n) for f in reversed(namers) if (n := named_by_kind(f, kin, kept))]
    of_named = await asyncio.gather(*(read(n, None) for _, n in named[:_RELATIVES]))
    return (
        own[-_OF_KIND:]
        + [f for facts in of_relation for f in facts[-_OF_RELATIVE:]]
        + [f for f, _ in named[:_RELATIVES]]
        + [f for facts in of_named for f in facts[-_OF_RELATIVE:]]
    )


async def _none() -> list[Fact]:
    return []


def _with_kind(found: list[Hit[Fact]], of_kind: Sequence[Fact]) -> tuple[list[Hit[Fact]], int]:
    """The facts found, with the facts of the kinds and relatives asked for among those
    that may match the question (scored as the best fact found: they answer what it
    asks); and how many may match."""
    matching = {h.record.id for h in found[:_FACTS]}
    brought = [f for f in of_kind if f.id not in matching]
    if not brought:
        return found, _FACTS
    ids = {f.id for f in brought}
    best = found[0].score if found else 1.0
    hits = [Hit(record=f, score=best, explain=ScoreBreakdown(score=best)) for f in brought]
    rest = [h for h in found[_FACTS:] if h.record.id not in ids]
    return [*found[:_FACTS], *hits, *rest], _FACTS + len(hits)


async def _replies(
    memory: Memory, scope: Scope, hits: Sequence[Hit[Episode]]
) -> dict[str, Episode]:
    """The turn after each conversational hit in its session, by the hit's id."""

    async def reply(e: Episode) -> Episode | None:
        if e.scope.session is None or "speaker" not in e.metadata:
            return None
        start = e.occurred_at + timedelta(microseconds=1)
        page = await memory.episodes.list(
            scope,
            limit=1,
            task_type=e.task_type,
            time_range=(start, e.occurred_at + _REPLY_WITHIN),
            session=e.scope.session,
        )
        return page.items[0] if page.items else None

    found = await asyncio.gather(*(reply(h.record) for h in hits))
    return {h.record.id: r for h, r in zip(hits, found, strict=True) if r is not None}
