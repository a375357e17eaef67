"""Long-term memory services: episodes, bi-temporal facts, procedures."""

from memstrata.longterm.episodic import EpisodicMemory
from memstrata.longterm.procedural import ProceduralMemory
from memstrata.longterm.reembed import ReembedReport, reembed
from memstrata.longterm.semantic import DEFAULT_SINGLE_VALUED, LearnResult, SemanticMemory

__all__ = [
    "DEFAULT_SINGLE_VALUED",
    "EpisodicMemory",
    "LearnResult",
    "ProceduralMemory",
    "ReembedReport",
    "SemanticMemory",
    "reembed",
]
