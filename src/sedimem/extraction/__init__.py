"""Extraction: facts from chat turns and episodes, by rules (offline) or by an LLM.

Used by conversation ingest and by consolidation's ``facts`` job alike, so it sits below
both. The parts, each its own module: :mod:`.sentences` (the splitter), :mod:`.clauses`
(what is a statement), :mod:`.subjects` (who a statement is about), :mod:`.vocabulary`
(predicates, cardinality, phrasing), :mod:`.patterns` and :mod:`.profile` (what a clause
states), :mod:`.changes` (a value that changed or ended), :mod:`.dates`, :mod:`.statements`
(one turn), :mod:`.rules` (the rule extractor over episodes), :mod:`.llm` (the LLM
extractor). See ``docs/consolidation.md``
("Extraction") and ``docs/conversations.md``.
"""

from sedimem.extraction.dates import DateMention, find_dates
from sedimem.extraction.statements import Statement, extract_statements
from sedimem.extraction.subjects import UNNAMED_USER, TurnSubjects, turn_subjects
from sedimem.extraction.vocabulary import SINGLE_VALUED, Cardinality, cardinality_of, phrase

__all__ = [
    "SINGLE_VALUED",
    "UNNAMED_USER",
    "Cardinality",
    "DateMention",
    "Statement",
    "TurnSubjects",
    "cardinality_of",
    "extract_statements",
    "find_dates",
    "phrase",
    "turn_subjects",
]
