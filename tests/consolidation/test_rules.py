"""The rule-based extractor and the pure helpers of the jobs."""

from __future__ import annotations

from sedimem.consolidation import ConsolidationReport, JobReport, RuleExtractor
from sedimem.consolidation.decay_job import decayed
from sedimem.consolidation.procedures_job import best_sequence
from sedimem.scope import Scope
from sedimem.types.longterm import Episode


async def test_patterns_and_lessons() -> None:
    episode = Episode(
        task_type="support",
        description="Ana lives in Lisbon. The printer is broken! Bob works at Acme",
        input_text="I think so\nMy cat likes fish.",
        output_text="Carla prefers email. nothing to see here",
        lessons_learned=["restart first", "  ", "restart first"],
        scope=Scope(project="p", session="s"),
    )
    facts = await RuleExtractor().extract(episode)
    triples = [(f.subject, f.predicate, f.object) for f in facts]
    assert triples == [
        ("Ana", "lives_in", "Lisbon"),
        ("The printer", "is", "broken"),
        ("Bob", "works_at", "Acme"),
        ("My cat", "likes", "fish"),
        ("Carla", "prefers", "email"),
        ("support", "lesson", "restart first"),
    ]
    assert facts[0].statement == "Ana lives in Lisbon."
    assert all(f.source_episode_ids == [episode.id] for f in facts)
    assert all(f.scope == Scope(project="p") for f in facts)
    assert all(f.valid_from == episode.occurred_at for f in facts)
    assert await RuleExtractor().extract(Episode(description="hello there")) == []


def test_decay_halves_per_half_life() -> None:
    assert decayed(0.8, 0, 10) == 0.8
    assert abs(decayed(0.8, 10 * 86_400, 10) - 0.4) < 1e-9
    assert decayed(0.8, -5, 10) == 0.8  # the future does not grow importance


def test_best_sequence() -> None:
    tallies = {("a",): (3, 4), ("b",): (5, 5), ("c",): (9, 20), (): (10, 10)}
    assert best_sequence(tallies, 3, 0.7) == (("b",), 5, 5)
    assert best_sequence(tallies, 6, 0.7) is None
    assert best_sequence({("a",): (3, 3), ("b",): (3, 3)}, 3, 0.7) == (("a",), 3, 3)


def test_report_helpers() -> None:
    job = JobReport(job="facts", tenant="t", status="ok", started_at=1.0, finished_at=3.5)
    report = ConsolidationReport(tenant="t", dry_run=False, jobs=[job])
    assert report.job("facts").seconds == 2.5
    assert report.ok
    try:
        report.job("decay")
    except KeyError:
        pass
    else:  # pragma: no cover
        raise AssertionError("expected KeyError")
