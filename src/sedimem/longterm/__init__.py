"""Long-term memory services: episodes, bi-temporal facts, procedures."""

from sedimem.longterm.episodic import EpisodicMemory
from sedimem.longterm.procedural import ProceduralMemory
from sedimem.longterm.reembed import ReembedReport, reembed
from sedimem.longterm.semantic import DEFAULT_SINGLE_VALUED, LearnResult, SemanticMemory

__all__ = [
    "DEFAULT_SINGLE_VALUED",
    "EpisodicMemory",
    "LearnResult",
    "ProceduralMemory",
    "ReembedReport",
    "SemanticMemory",
    "reembed",
]
