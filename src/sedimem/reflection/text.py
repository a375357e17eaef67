"""Plain sentences for findings."""

from __future__ import annotations

from sedimem.reflection.compare import Candidate, Contrast, Describer, Direction

__all__ = ["METRIC_NAMES", "amount", "pattern_sentence", "pct", "factor_sentence", "subject_of"]

#: How each compared metric reads in a sentence, and its unit.
METRIC_NAMES = {
    "duration_seconds": ("duration", "s"),
    "tokens_used": ("token use", "tokens"),
    "action_count": ("number of actions", "actions"),
}


def pct(rate: float) -> str:
    return f"{rate:.0%}"


def amount(metric: str, value: float) -> str:
    unit = METRIC_NAMES[metric][1]
    shown = f"{value:,.0f}" if abs(value) >= 100 or value == int(value) else f"{value:,.1f}"
    return f"{shown} s" if unit == "s" else f"{shown} {unit}"


def subject_of(candidate: Candidate) -> str:
    """The candidate as the subject of a sentence."""
    if candidate.feature == "actions":
        what = "action" if candidate.size == 1 else "action sequence"
        return f"episodes with the {what} '{candidate.label}'"
    if candidate.feature == "task_type":
        return f"'{candidate.label}' tasks"
    words = " and ".join(f"'{w}'" for w in candidate.label.split(", "))
    return f"episodes whose outcome details or lessons mention {words}"


def _other(candidate: Candidate) -> str:
    return "for other tasks" if candidate.feature == "task_type" else "without it"


def pattern_sentence(verb: str) -> Describer:
    """A describer for patterns: ``verb`` is "succeed" or "fail"."""

    def describe(c: Contrast, direction: Direction) -> str:
        del direction  # patterns are tested in one direction: more of the target outcome
        head = subject_of(c.candidate)
        return (
            f"{head[0].upper()}{head[1:]} {verb} {pct(c.rate)} of the time "
            f"({c.hits} of {c.support}) vs {pct(c.rate_without)} {_other(c.candidate)}."
        )

    return describe


def factor_sentence(task_type: str) -> Describer:
    """A describer for success and risk factors of one task type."""

    def describe(c: Contrast, direction: Direction) -> str:
        what = "action" if c.candidate.size == 1 else "action sequence"
        effect = "goes with success" if direction == "more" else "goes with lower success"
        rest = c.total - c.support
        rest_hits = c.total_hits - c.hits
        return (
            f"For '{task_type}' tasks, the {what} '{c.candidate.label}' {effect}: "
            f"{pct(c.rate)} succeed with it ({c.hits} of {c.support}) vs "
            f"{pct(c.rate_without)} without it ({rest_hits} of {rest})."
        )

    return describe
