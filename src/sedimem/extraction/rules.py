"""The rule-based extractor: facts from episodes, deterministic and offline.

From an episode it takes:

- a conversation turn (``metadata["role"]``, as ingest files them): the statements of the
  turn, read with its role (see :mod:`sedimem.extraction.statements`): a user turn's first
  person is ``metadata["subject"]`` (the user's name or id), an assistant turn yields only
  what it records about that user. Nothing else of the episode is read;
- any other episode: each sentence of the description, input and output text shaped "X is/are
  Y", "X lives in Y", "X works at Y", "X likes Y" or "X prefers Y" (X: one to four words), as
  a structured fact (predicates ``is``, ``lives_in``, ``works_at``, ``likes``, ``prefers``;
  confidence 0.6); each line of ``lessons_learned`` as a fact about the task type (subject =
  task type, predicate ``lesson``, object = the line; confidence 0.8); and the description
  read as a person's words (the speaker is ``metadata["speaker"]``, else the ``"Name: "`` that
  opens the description).

Statements that end a fact ("I no longer eat meat") are not learned: :meth:`RuleExtractor.
endings` returns them and ingest and the facts job close the matching current facts
(:meth:`SemanticMemory.end`). Every fact carries ``source_episode_ids=[episode.id]``, the
episode's owner scope (its scope without the session) and ``valid_from`` = when the episode
occurred (or the date its clause names). Duplicates within one episode are dropped.
"""

from __future__ import annotations

import re
from datetime import datetime

from sedimem.extraction.changes import MOVED_THERE, MOVING_TO, NEW_JOB, pet_endings
from sedimem.extraction.clauses import FUNCTION_WORDS
from sedimem.extraction.protocols import CurrentFacts, EndingExtractor, Extractor
from sedimem.extraction.statements import RELATION_PREDICATES, Statement, extract_statements
from sedimem.extraction.subjects import NOT_NAMES, UNNAMED_USER
from sedimem.extraction.vocabulary import cardinality_of, phrase
from sedimem.types.longterm import Episode, Fact

__all__ = ["EndingExtractor", "Extractor", "RuleExtractor", "fact_for", "unique"]

_PATTERN = re.compile(
    r"^(?P<subject>[A-Za-z][\w'-]*(?: [\w'-]+){0,3}) "
    r"(?P<verb>is|are|lives in|works at|likes|prefers) "
    r"(?P<object>.{1,200})$",
    re.IGNORECASE,
)
_PREDICATES = {
    "is": "is",
    "are": "is",
    "lives in": "lives_in",
    "works at": "works_at",
    "likes": "likes",
    "prefers": "prefers",
}
_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+")
_NAME = re.compile(r"[A-Z][a-z]+")  # a relative known by name ("Arjun"), not "a nurse"
_WORD = re.compile(r"\b[A-Z][a-z]+\b")
_SPEAKER = re.compile(r"^(?P<name>[A-Z][\w'-]*(?: [A-Z][\w'-]*)?): (?P<text>.+)$", re.DOTALL)


def fact_for(
    episode: Episode,
    statement: str,
    subject: str | None,
    predicate: str | None,
    obj: str | None,
    confidence: float,
) -> Fact:
    """A fact derived from ``episode`` with its provenance, owner scope and world time."""
    return Fact(
        statement=statement,
        subject=subject,
        predicate=predicate,
        object=obj,
        confidence=confidence,
        source_episode_ids=[episode.id],
        scope=episode.scope.owner,
        valid_from=episode.occurred_at,
    )


def _identity(fact: Fact) -> str:
    """What a fact says: its triple when structured, else its statement (normalised)."""
    if fact.subject is not None and fact.predicate is not None:
        parts = [fact.subject, fact.predicate, fact.object or ""]
    else:
        parts = [fact.statement]
    return "\x1f".join(" ".join(p.lower().split()) for p in parts)


def unique(facts: list[Fact]) -> list[Fact]:
    """The facts with distinct identities (triple, else statement), first occurrence kept."""
    seen: set[str] = set()
    out: list[Fact] = []
    for fact in facts:
        key = _identity(fact)
        if key not in seen:
            seen.add(key)
            out.append(fact)
    return out


class RuleExtractor:
    """The deterministic, offline default (see the module docstring for the rules).

    ``known``: what is known now (the semantic memory): a user's turn is read knowing the
    names of the user's relatives told in earlier turns, so "Arjun is pescatarian now",
    sessions after "my husband Arjun", is a fact about Arjun. Without it, only names told
    earlier in the same turn are known.
    """

    # the last episode read and its statements (class defaults, so a subclass that defines
    # its own __init__ without calling this one's still has them)
    _last: tuple[Episode, list[Statement]] | None = None
    _known: CurrentFacts | None = None

    def __init__(self, known: CurrentFacts | None = None) -> None:
        self._known = known

    async def extract(self, episode: Episode) -> list[Fact]:
        facts: list[Fact] = []
        for text in self._plain_texts(episode):
            for sentence in _SENTENCE.split(text or ""):
                sentence = sentence.strip().rstrip(".!?").strip()
                match = _PATTERN.match(sentence)
                if match is None:
                    continue
                subject = match["subject"]
                obj = match["object"].strip()
                if not obj:
                    continue
                predicate = _PREDICATES[match["verb"].lower()]
                facts.append(fact_for(episode, sentence + ".", subject, predicate, obj, 0.6))
        for lesson in episode.lessons_learned:
            line = lesson.strip()
            if line:
                facts.append(fact_for(episode, line, episode.task_type, "lesson", line, 0.8))
        for statement in await self._statements_of(episode):
            if not statement.ends:
                facts.append(statement.fact)
        return unique(facts)

    async def endings(self, episode: Episode) -> list[Fact]:
        """What the episode's turn says stopped being true ("I no longer eat meat")."""
        statements = await self._statements_of(episode)
        return [f for s in statements if s.ends for f in pet_endings(s.fact)]

    async def _statements_of(self, episode: Episode) -> list[Statement]:
        """The episode's statements, read once for ``extract`` and ``endings`` together
        (callers ask for both, one after the other: the last episode read is kept)."""
        if self._last is not None and self._last[0] is episode:
            return self._last[1]
        found = self.episode_statements(episode, await self._people(episode))
        if not any(s.fact.predicate == "lives_in" for s in found):
            found += await self._moved_as_planned(episode)
        found += await self._hired(episode, found)
        self._last = (episode, found)
        return found

    def _user(self, episode: Episode) -> str | None:
        """Who speaks a user's turn, when what is known can be read (else None)."""
        subject = episode.metadata.get("subject")
        if self._known is None or episode.metadata.get("role") != "user":
            return None
        return subject if isinstance(subject, str) and subject else None

    async def _people(self, episode: Episode) -> frozenset[str]:
        """The names of the relatives of a user turn's speaker, as known now."""
        subject = self._user(episode)
        if subject is None or self._known is None:
            return frozenset()
        words = _WORD.findall(episode.input_text or "")
        if all(w in NOT_NAMES or w.lower() in FUNCTION_WORDS for w in words):
            return frozenset()  # no word of the turn can be a name: nothing to read for
        facts = await self._known.current_of(
            subject, RELATION_PREDICATES, scope=episode.scope.owner
        )
        return frozenset(f.object for f in facts if f.object and _NAME.fullmatch(f.object))

    async def _moved_as_planned(self, episode: Episode) -> list[Statement]:
        """ "We finally moved!" after "we're moving to Manchester in April": the user lives
        in Manchester now, and the plan is done (it ends)."""
        subject = self._user(episode)
        if subject is None or self._known is None:
            return []
        if not MOVED_THERE.search(episode.input_text or ""):
            return []
        owner = episode.scope.owner
        plans = await self._known.current_of(subject, ("plans",), scope=owner)
        planned = [(p, m) for p in plans if (m := MOVING_TO.match(p.object or ""))]
        if not planned:
            return []
        plan, moving = planned[-1]  # the latest plan to move
        moved = extract_statements(
            f"I moved to {moving['place']}.",
            subject,
            episode.occurred_at,
            scope=owner,
            source_episode_ids=[episode.id],
        )
        return [*moved, _ending(subject, "plans", plan.object, episode)]

    async def _hired(self, episode: Episode, found: list[Statement]) -> list[Statement]:
        """ "I got a new job at Meta" after "I'm looking for a new job": the turn files the
        user's new job, so the user's search for one is over (it ends)."""
        subject = self._user(episode)
        if subject is None or self._known is None or not NEW_JOB.search(episode.input_text or ""):
            return []
        if not any(
            s.fact.subject == subject and s.fact.predicate in ("works_at", "works_as")
            and not s.ends for s in found
        ):  # fmt: skip
            return []
        owner = episode.scope.owner
        searches = await self._known.current_of(subject, ("looking_for",), scope=owner)
        jobs = [f for f in searches if (f.object or "").endswith(("job", "work", "position"))]
        return [_ending(subject, "looking_for", f.object, episode) for f in jobs]

    @staticmethod
    def statements(
        text: str, speaker: str | None, at: datetime, *, role: str = "user"
    ) -> list[Statement]:
        """The facts a chat turn states or ends (see
        :func:`~sedimem.extraction.extract_statements`)."""
        return extract_statements(text, speaker, at, role=role, addressee=speaker)

    @staticmethod
    def _plain_texts(episode: Episode) -> list[str | None]:
        """The texts read by the "X is Y" sentence rules: none of a chat turn (its turn is
        read by the statement rules, which know who speaks)."""
        if episode.metadata.get("role") is not None:
            return []
        return [episode.description, episode.input_text, episode.output_text]

    @staticmethod
    def episode_statements(
        episode: Episode, people: frozenset[str] = frozenset()
    ) -> list[Statement]:
        """The statements of an episode's turn, filed like its other facts.

        A conversation turn (``metadata["role"]``) is read with its role: the user's words
        about ``metadata["subject"]`` (the user's name or id), an assistant's only for what
        it records about that user. Another episode is read as a person's words: the
        speaker is ``metadata["speaker"]``, else the ``"Name: "`` that opens the description.
        """
        role = episode.metadata.get("role")
        if isinstance(role, str):
            subject = episode.metadata.get("subject")
            who = subject if isinstance(subject, str) and subject else UNNAMED_USER
            text = episode.input_text if role == "user" else episode.output_text
            return extract_statements(
                text or "",
                who if role == "user" else None,
                episode.occurred_at,
                role=role,
                addressee=who,
                scope=episode.scope.owner,
                source_episode_ids=[episode.id],
                people=people,
            )
        text = episode.description
        speaker = episode.metadata.get("speaker")
        opening = _SPEAKER.match(text)
        if opening is not None:
            speaker = speaker or opening["name"]
            text = opening["text"]
        return extract_statements(
            text,
            speaker if isinstance(speaker, str) else None,
            episode.occurred_at,
            scope=episode.scope.owner,
            source_episode_ids=[episode.id],
        )


def _ending(subject: str, predicate: str, obj: str | None, episode: Episode) -> Statement:
    """The statement that the user's current ``(subject, predicate, obj)`` ended when
    ``episode`` was said: what a later turn settles ("We finally moved!" ends the plan to
    move)."""
    ended = Fact(
        statement=phrase(subject, predicate, obj, ended=True),
        subject=subject,
        predicate=predicate,
        object=obj,
        valid_from=episode.occurred_at,
        scope=episode.scope.owner,
        source_episode_ids=[episode.id],
        metadata={"ends": True},
    )
    return Statement(ended, ends=True, cardinality=cardinality_of(predicate))
