"""Consolidation: idle sessions -> episodes, episodes -> facts and procedures, decay and
pruning, under leases.

See ``docs/consolidation.md``.
"""

from memstrata.consolidation.consolidator import Consolidator
from memstrata.consolidation.extract import Extractor, RuleExtractor
from memstrata.consolidation.llm import OpenAIChatExtractor
from memstrata.consolidation.models import ConsolidationReport, JobReport
from memstrata.consolidation.settings import JOBS, ConsolidationSettings
from memstrata.consolidation.worker import ConsolidationWorker

__all__ = [
    "JOBS",
    "ConsolidationReport",
    "ConsolidationSettings",
    "ConsolidationWorker",
    "Consolidator",
    "Extractor",
    "JobReport",
    "OpenAIChatExtractor",
    "RuleExtractor",
]
