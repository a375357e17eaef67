"""The tiers ranked by the question: procedures, facts and episodes as context items.

Each item carries its date (``at``, shown as its label) and its relevance on the scale
every tier shares (:mod:`sedimem.assembly.relevance`). Within a tier:

- **facts** keep their search order; a fact that holds a word of the question (other than
  the asker's name) is kept, and so is a fact describing the asking user (name, home,
  work, preferences, diet, what they are: :data:`PROFILE`; the best :data:`PROFILE_LIMIT`
  of them; every fact about them when the question asks about them as a whole); the
  rest must clear the relevance floor, and one that is neither a profile fact nor clearly
  closer in meaning than the pool's median (:meth:`Pool.stands_out`) is ``unmatched``: left
  out however poor the best candidate is;
- **procedures** are ``unmatched`` the same way when they hold no word of the question;
- **episodes** are weighed by who spoke (:mod:`sedimem.assembly.question`): another
  speaker than the one the question names counts :data:`OTHER_SPEAKER` of its score, the
  assistant's turns :data:`ASSISTANT` of theirs unless the question asks for advice (and
  the user's turns the same when it does); a long episode contributes its passage
  (:mod:`sedimem.assembly.passages`) and, when cut, its id to fetch it whole;
- of two episodes that state one thing (the same words of the question and most of their
  own words in common, or a count of the same word the question asks about: "27 species
  so far", later "32 species now"), the newer ranks first and the older is labelled
  ``earlier``: a value that changed is read in its newest form first.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass

from sedimem.assembly import passages as _passages
from sedimem.assembly.kinds import kind_of
from sedimem.assembly.question import Question
from sedimem.assembly.relevance import Pool
from sedimem.context.diversity import diversify
from sedimem.context.models import ContextItem
from sedimem.context.render import render_bullet, render_line
from sedimem.context.tokens import Tokenizer
from sedimem.ids import handle
from sedimem.retrieval.index.analyzer import Analyzer
from sedimem.scope import Scope
from sedimem.types.longterm import ABOUT, OTHER, Episode, Fact, Outcome, Procedure
from sedimem.types.search import Hit

__all__ = [
    "ASSISTANT",
    "EARLIER",
    "OTHER_SPEAKER",
    "PROFILE",
    "SESSION_BOOST",
    "Candidates",
    "episode_items",
    "fact_items",
    "procedure_items",
]

#: Facts and episodes recorded in the session asking rank this much higher (x 1.1): every
#: session of the owner is searched, and what this session learned is the likeliest to
#: matter to its next step. Small, so a much better match from another session still wins.
SESSION_BOOST = 0.1
#: A turn of another speaker than the one the question names keeps this share of its score.
OTHER_SPEAKER = 0.65
#: The assistant's turn, for a question that does not ask for advice (and the user's turn
#: for one that does), keeps this share of its score. An assistant's long, general answer
#: matches many questions a little; what the user asks about themselves is in their own
#: turns. Chosen on LoCoMo 0-4 handed over as user/assistant chats with long answers
#: (``sedimem eval context --chat --padding 12``); 0.9 before.
ASSISTANT = 0.6
#: An episode of a day or month the question names ("What did I say on 16 June, 2023?")
#: scores this many times its score. Chosen on LoCoMo 0-4 (``sedimem eval context``): 1.0 /
#: 1.5 / 2.0 gave the chat form 0.779 / 0.779 / 0.770 at 500 tokens and 0.823 / 0.841 /
#: 0.841 at 1,000; LoCoMo's own form the same at each.
DATED = 1.5
#: A reply brought in beside a matched turn scores this share of the matched turn's score.
REPLY = 0.95
#: A turn that stated a value since replaced or corrected keeps this share of its score, so
#: the turn that stated the newer value (or the fact) comes first; it is still shown,
#: labelled ``earlier``, for questions about what was before.
EARLIER = 0.5
#: Predicates that describe the asking user (who they are, where, their work, what they
#: need, prefer or cannot do) and are shown whatever the question, the best matching first:
#: advice ("what should I keep in mind when planning my workouts?") depends on them though
#: the question names none of their words. The names are the extractor's
#: (:mod:`sedimem.extraction.vocabulary`); a test keeps them so.
PROFILE = frozenset(
    {
        "name", "lives_in", "lives", "works_at", "works_as", "prefers", "allergic_to", "diet",
        "has_condition", "recovering_from", "status", "goal",
    }
)  # fmt: skip
#: How many profile facts may pass the relevance floor without matching the question.
PROFILE_LIMIT = 3
#: How many of the best items are compared for an older and a newer value.
COMPARED = 10
#: Two items state one thing when this share of their words (stems) is common to both.
SAME_THING = 0.4
PASSAGE_LIMIT = _passages.PASSAGE_TOKENS
_TURN_TYPES = frozenset({"conversation", "note"})
# a count and the word it counts: "27 species", "32 bird species" counts "bird" (close enough)
_COUNTED = re.compile(r"\b\d[\d,.]*\s+([A-Za-z]+)")


@dataclass(slots=True)
class Candidates:
    """Every ranked tier's hits and the pool of their texts the question is weighed on."""

    question: Question
    procedures: list[Hit[Procedure]]
    facts: list[Hit[Fact]]
    episodes: list[Hit[Episode]]
    pool: Pool
    analyzer: Analyzer

    @classmethod
    def of(
        cls,
        question: Question,
        procedures: list[Hit[Procedure]],
        facts: list[Hit[Fact]],
        episodes: list[Hit[Episode]],
        analyzer: Analyzer,
    ) -> Candidates:
        # a procedure is found by what it is for (name, trigger), shown by its steps
        texts = [
            f"{h.record.name}. {h.record.trigger} {_procedure_text(h.record)}" for h in procedures
        ]
        # a fact is also found by what kind of fact it is: "has a dog named Biscuit" is
        # what "Do I have any pets?" asks (``has_pet``)
        texts += [f"{h.record.statement} {kind_of(h.record)}" for h in facts]
        texts += [_speech(h.record)[1] for h in episodes]
        named = {s for h in episodes if (s := _speech(h.record)[0]) and question.named(s)}
        hits: list[Hit[Procedure] | Hit[Fact] | Hit[Episode]] = [*procedures, *facts, *episodes]
        cosines = [h.explain.vector for h in hits]
        pool = Pool.of(question, texts, analyzer, cosines=cosines, ignore=named)
        return cls(question, procedures, facts, episodes, pool, analyzer)


def _boosted(scope: Scope, hit: Hit[Fact] | Hit[Episode]) -> float:
    own = scope.session is not None and hit.record.scope.session == scope.session
    return hit.score * (1.0 + SESSION_BOOST) if own else hit.score


def _asker_is(f: Fact, scope: Scope) -> bool:
    """Whether ``f`` is about the asking user by their id (what chat extraction files)."""
    return scope.user is not None and (f.subject or "").casefold() == scope.user.casefold()


def _procedure_text(p: Procedure) -> str:
    return "; ".join(f"{i}. {step}" for i, step in enumerate(p.steps, start=1))


def _speech(e: Episode) -> tuple[str | None, str]:
    """The speaker of a conversational episode (None for others) and what was said."""
    speaker = e.metadata.get("speaker")
    if e.task_type in _TURN_TYPES and isinstance(speaker, str) and speaker:
        return speaker, e.description.removeprefix(f"{speaker}: ")
    text = e.description
    if e.lessons_learned:
        text += " Lessons: " + "; ".join(e.lessons_learned)
    return None, text


def procedure_items(found: Candidates) -> list[ContextItem]:
    pool = found.pool
    return [
        ContextItem(
            id=h.record.id,
            label=h.record.name,
            text=_procedure_text(h.record),
            score=h.score,
            relevance=pool.relevance(i, h.explain),
            unmatched=not pool.touches(i) and not pool.stands_out(h.explain),
        )
        for i, h in enumerate(found.procedures)
    ]


def fact_items(
    found: Candidates,
    scope: Scope,
    matched: int,
    kinds: frozenset[str],
    asked: frozenset[str] = frozenset(),
) -> list[ContextItem]:
    """The facts as items; those found below the first ``matched`` were searched for only
    as facts describing the user (a question about the user as a whole keeps them all).
    ``kinds``: the predicates the question asks for (:func:`~.kinds.asked`): a fact of one
    is kept as matching; so is one of ``asked`` (read for the kinds, relatives and pets
    the question names: "Raj works at HubSpot" for "What does my husband do?")."""
    offset = len(found.procedures)
    items = []
    profile = 0
    # the asker's own name is in most of their facts: holding it touches nothing
    names = frozenset(found.analyzer.terms(scope.user)) if scope.user else frozenset()
    for i, h in enumerate(found.facts):
        fact = h.record
        kept = False
        askers = scope.user is not None and fact.scope.user == scope.user  # in their memory
        # "jo's sister lives in London" is in jo's memory, but it is not where jo lives
        relative = fact.subject is not None and "'s " in fact.subject
        relative = relative or fact.metadata.get(ABOUT) == OTHER  # "Raj works at HubSpot"
        profiled = askers and not relative and fact.predicate in PROFILE
        # below the first ``matched``, searched only for what the asker said of themself
        deep = i >= matched
        if askers and found.question.about_asker:
            kept = True  # "What do you know about me?": everything known of them answers
        elif profiled and profile < PROFILE_LIMIT and (not deep or _asker_is(fact, scope)):
            kept, profile = True, profile + 1  # describes the user
        elif deep:
            continue
        elif (
            found.pool.touches(offset + i, names)
            or (askers and fact.predicate in kinds)
            or fact.id in asked
        ):
            kept = True  # holds a word of the question, or is of the kind it asks for
        # neither a word nor a meaning of the question: not shown because nothing better is
        unmatched = not kept and not profiled and not found.pool.stands_out(h.explain)
        items.append(
            ContextItem(
                id=fact.id,
                text=fact.statement,
                label=f"{fact.valid_from:%Y-%m-%d}",
                score=_boosted(scope, h),
                relevance=found.pool.relevance(offset + i, h.explain),
                kept=kept,
                unmatched=unmatched,
                at=fact.valid_from,
            )
        )
    # facts need no newer-first step: of a single-valued predicate only the newest value
    # is current (supersession closed the older ones), and only current facts are found
    return diversify(sorted(items, key=lambda item: -item.score))


def _weight(question: Question, speaker: str | None, role: object, named: bool) -> float:
    weight = 1.0
    if named and speaker is not None and not question.named(speaker):
        weight *= OTHER_SPEAKER
    if role == ("user" if question.advice else "assistant"):
        weight *= ASSISTANT
    return weight


def episode_items(
    found: Candidates,
    scope: Scope,
    analyzer: Analyzer,
    tokenizer: Tokenizer,
    replies: Mapping[str, Episode] | None = None,
    replaced: Mapping[str, Collection[str]] | None = None,
) -> list[ContextItem]:
    """The episodes found, best first: newer values before older ones, a turn that told
    what has since changed (``replaced``: such turns, each with the turns that told what
    replaced it) labelled ``earlier``, weighed down and placed after those turns, and each
    of the best followed by its reply."""
    replaced = replaced or {}
    offset = len(found.procedures) + len(found.facts)
    question = found.question
    speakers = [_speech(h.record)[0] for h in found.episodes]
    named = any(s is not None and question.named(s) for s in speakers)
    shown = _Shown(found.pool.weights, analyzer, tokenizer)
    items = []
    for i, h in enumerate(found.episodes):
        e = h.record
        speaker = speakers[i]
        label = f"{e.occurred_at:%Y-%m-%d}"
        if speaker is None and e.outcome is not Outcome.NONE:
            label += f" {e.outcome.value}"  # how a task ended; a chat turn has no outcome
        text = shown(e, label)
        weight = _weight(question, speaker, e.metadata.get("role"), named)
        if question.names_the_time_of(e.occurred_at):
            weight *= DATED
        if e.id in replaced:
            label, weight = f"{label} earlier", weight * EARLIER
        items.append(
            ContextItem(
                id=e.id,
                text=text,
                label=label,
                score=_boosted(scope, h) * weight,
                relevance=found.pool.relevance(offset + i, h.explain),
                at=e.occurred_at,
            )
        )
    ranked = diversify(sorted(items, key=lambda item: -item.score))
    ranked = _after_replacements(_newer_first(ranked, found, offset, analyzer), replaced)
    return _with_replies(ranked, replies or {}, {h.record.id for h in found.episodes}, shown)


def _after_replacements(
    items: list[ContextItem], replaced: Mapping[str, Collection[str]]
) -> list[ContextItem]:
    """Each turn that told what has since changed moved after the turns that told what
    replaced it, when they come later: the newer value is read first."""
    ordered = list(items)
    for item in items:
        later = replaced.get(item.id)
        if not later:
            continue
        at = ordered.index(item)
        last = max((i for i, x in enumerate(ordered) if x.id in later), default=-1)
        if last > at:
            ordered.insert(last, ordered.pop(at))
    return ordered


@dataclass(frozen=True, slots=True)
class _Shown:
    """How an episode's text is shown: its passage for the question's weighted words."""

    weights: Mapping[str, float]
    analyzer: Analyzer
    tokenizer: Tokenizer

    def __call__(self, e: Episode, label: str) -> str:
        """``label``: the item's, with which packing counts its line."""
        speaker, said = _speech(e)
        shown, cut = _passages.passage(
            said, self.weights, analyzer=self.analyzer, tokenizer=self.tokenizer,
            limit=PASSAGE_LIMIT, tokens=self._tokens(speaker, said, label),
        )  # fmt: skip
        text = f"{speaker}: {shown}" if speaker is not None else shown
        return f"{text} (id {handle(e.id)})" if cut else text

    def _tokens(self, speaker: str | None, said: str, label: str) -> int | None:
        """The tokens ``said`` adds to its item's line, read off the count of the whole line
        (which packing counts next: counted once, remembered by the tokenizer) less its
        start up to the space before ``said``; ``None`` for a text short enough to fit
        uncounted (:func:`~.passages.passage`). Tokenizers split text at that space (a word
        opens with it), so the difference is the text's own count, with the space."""
        if _passages.fits_uncounted(said, PASSAGE_LIMIT):
            return None
        head = render_bullet(label) + (f"{speaker}:" if speaker is not None else "")
        line = render_line(f"{speaker}: {said}" if speaker is not None else said, label)
        return self.tokenizer.count(line) - self.tokenizer.count(head.rstrip())


def _with_replies(
    items: list[ContextItem],
    replies: Mapping[str, Episode],
    known: set[str],
    shown: _Shown,
) -> list[ContextItem]:
    """Each item followed by the reply to it, when it has one not ranked on its own: its
    passage, like any episode's (a 600-token answer brought in whole would fill the
    section). The reply to a turn labelled ``earlier`` answered the old value: so is it."""
    out: list[ContextItem] = []
    for item in items:
        out.append(item)
        reply = replies.get(item.id)
        if reply is not None and reply.id not in known:
            known.add(reply.id)
            earlier = " earlier" if (item.label or "").endswith("earlier") else ""
            label = f"{reply.occurred_at:%Y-%m-%d}{earlier}"
            out.append(
                ContextItem(
                    id=reply.id,
                    text=shown(reply, label),
                    label=label,
                    score=item.score * REPLY,
                    relevance=item.relevance,
                    at=reply.occurred_at,
                )
            )
    return out


def _measures(text: str, analyzer: Analyzer) -> frozenset[str]:
    """The stems of the words counted in ``text`` ("27 species" -> ``speci``)."""
    return frozenset(stem for word in _COUNTED.findall(text) for stem in analyzer.terms(word)[:1])


def _same_thing(
    mine: frozenset[str], theirs: frozenset[str], asked: frozenset[str], counted: bool
) -> bool:
    """Whether two items state one thing: the same question words and most of their own
    words in common, or a count of the same word the question asks about."""
    if counted:
        return True
    shared = mine & theirs
    return bool(shared & asked) and len(shared) >= SAME_THING * len(mine | theirs)


def _newer_first(
    items: Sequence[ContextItem], found: Candidates, offset: int, analyzer: Analyzer
) -> list[ContextItem]:
    """Of two values of one thing, the newer first: when two of the best items state one
    thing (:func:`_same_thing`), the newer moves before the older, labelled ``earlier``."""
    ordered = list(items[:COMPARED])
    position = {id_: offset + i for i, id_ in enumerate(_ids(found))}
    asked = frozenset(found.pool.weights)
    held = [found.pool.held[position[item.id]] if item.id in position else None for item in ordered]
    counts = [_measures(item.text, analyzer) & asked for item in ordered]
    for j in range(1, len(ordered)):
        newer, mine = ordered[j], held[j]
        if mine is None or newer.at is None:
            continue
        for i in range(j):
            older, theirs = ordered[i], held[i]
            if theirs is None or older.at is None or older.at >= newer.at:
                continue
            if _same_thing(mine, theirs, asked, bool(counts[i] & counts[j])):
                label = older.label or ""
                label = label if label.endswith("earlier") else f"{label} earlier".strip()
                ordered[i] = older.model_copy(update={"label": label})
                for row in (ordered, held, counts):
                    row.insert(i, row.pop(j))  # type: ignore[arg-type]
                break
    return ordered + list(items[COMPARED:])


def _ids(found: Candidates) -> list[str]:
    return [h.record.id for h in found.episodes]
