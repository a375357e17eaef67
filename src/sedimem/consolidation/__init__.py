"""Consolidation: idle sessions -> episodes, episodes -> facts and procedures, decay and
pruning, under leases.

See ``docs/consolidation.md``.
"""

from sedimem.consolidation.consolidator import Consolidator
from sedimem.consolidation.extract import EndingExtractor, Extractor, RuleExtractor
from sedimem.consolidation.llm import OpenAIChatExtractor
from sedimem.consolidation.models import ConsolidationReport, JobReport
from sedimem.consolidation.settings import JOBS, ConsolidationSettings
from sedimem.consolidation.worker import ConsolidationWorker

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
