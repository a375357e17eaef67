"""The offline extractor: facts from chat turns and episodes by rules, no LLM.

See ``docs/consolidation.md`` (section "Extraction") for what it reads and how it is measured.
"""

from sedimem.consolidation.extraction.dates import DateMention, find_dates
from sedimem.consolidation.extraction.statements import Statement, extract_statements
from sedimem.consolidation.extraction.vocabulary import SINGLE_VALUED, Cardinality, cardinality_of

__all__ = [
    "SINGLE_VALUED",
    "Cardinality",
    "DateMention",
    "Statement",
    "cardinality_of",
    "extract_statements",
    "find_dates",
]
