"""Consolidation: idle sessions -> episodes, episodes -> facts and procedures, decay and
pruning, under leases.

See ``docs/consolidation.md``.
"""

from sedimem.consolidation.consolidator import Consolidator
from sedimem.consolidation.models import ConsolidationReport, JobReport
from sedimem.consolidation.settings import JOBS, ConsolidationSettings
from sedimem.consolidation.worker import ConsolidationWorker
from sedimem.extraction.llm import OpenAIChatExtractor
from sedimem.extraction.protocols import EndingExtractor, Extractor
from sedimem.extraction.rules import RuleExtractor

__all__ = [
    "JOBS",
    "ConsolidationReport",
    "ConsolidationSettings",
    "ConsolidationWorker",
    "Consolidator",
    "EndingExtractor",
    "Extractor",
    "JobReport",
    "OpenAIChatExtractor",
    "RuleExtractor",
]
