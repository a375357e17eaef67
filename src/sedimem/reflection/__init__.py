"""Reflection by statistics (no LLM): recurring patterns, success factors, anomalies and
insights over episodes, each finding with its evidence (episode ids) and confidence.

The analyses are pure functions over a list of :class:`~sedimem.types.Episode`;
:class:`Reflection` runs them over the episodes a scope can see in episodic memory.
"""

from sedimem.reflection.anomalies import detect_anomalies
from sedimem.reflection.factors import identify_success_factors
from sedimem.reflection.insights import generate_insights
from sedimem.reflection.models import (
    AnomalyReport,
    ConfidenceMethod,
    Evidence,
    Finding,
    FindingKind,
    Insight,
    InsightReport,
    OutcomeRate,
    PatternReport,
    ReflectionReport,
    SequenceStat,
    SuccessFactorReport,
)
from sedimem.reflection.patterns import analyze_patterns
from sedimem.reflection.report import reflect
from sedimem.reflection.service import Reflection
from sedimem.reflection.settings import ReflectionSettings

__all__ = [
    "AnomalyReport",
    "ConfidenceMethod",
    "Evidence",
    "Finding",
    "FindingKind",
    "Insight",
    "InsightReport",
    "OutcomeRate",
    "PatternReport",
    "Reflection",
    "ReflectionReport",
    "ReflectionSettings",
    "SequenceStat",
    "SuccessFactorReport",
    "analyze_patterns",
    "detect_anomalies",
    "generate_insights",
    "identify_success_factors",
    "reflect",
]
