from datetime import timedelta

import pytest

from sedimem.errors import ValidationError
from sedimem.reflection import (
    ConfidenceMethod,
    FindingKind,
    ReflectionSettings,
    identify_success_factors,
)
from sedimem.types import Episode
from tests.reflection.builders import NOW, F, P, S, balanced, episode


def dataset() -> list[Episode]:
    """40 deploys: 'run tests' is in 20, all successful and quick; 'force' is in 10, one
    successful; the other 10 succeed half the time. Failures are slow. Reviews that run
    tests always fail, but they are another task type."""
    out = []
    for i in range(20):
        actions = (
            ["checkout", "run tests", "deploy"] if i % 2 else ["run tests", "checkout", "deploy"]
        )
        out.append(episode(i, actions=actions, outcome=S, duration_seconds=60.0 + i % 5))
    for i in range(20, 30):
        failed = i % 2 == 0
        out.append(
            episode(
                i,
                actions=["checkout", "deploy"],
                outcome=F if failed else S,
                duration_seconds=200.0 + i if failed else 61.0,
            )
        )
    for i in range(30, 40):
        actions = ["checkout", "force", "deploy"] if i % 2 else ["force", "checkout", "deploy"]
        ok = i == 30
        out.append(
            episode(
                i,
                actions=actions,
                outcome=S if ok else F,
                duration_seconds=62.0 if ok else 250.0 + i,
            )
        )
    for i in range(40, 60):
        out.append(
            episode(i, task_type="review", actions=["run tests"], outcome=F, duration_seconds=5.0)
        )
    return out


def test_an_action_always_followed_by_success_is_a_success_factor() -> None:
    episodes = dataset()
    report = identify_success_factors(episodes, "deploy")
    assert report.task_type == "deploy"
    assert report.episodes_analyzed == 40
    assert (report.outcomes.successes, report.outcomes.failures) == (26, 14)
    top = report.success_factors[0]
    assert top.subject == "actions: run tests"
    assert top.kind is FindingKind.SUCCESS_FACTOR
    assert top.task_type == "deploy"
    assert top.confidence >= 0.95
    assert top.confidence_method is ConfidenceMethod.FISHER_BH
    assert (top.metrics["support"], top.metrics["hits"]) == (20, 20)
    assert top.metrics["lift"] == pytest.approx(1 / (26 / 40))
    assert top.metrics["rate_without"] == pytest.approx(6 / 20)
    assert top.effect == pytest.approx(1 - 6 / 20)
    assert top.evidence.total == 20
    assert set(top.evidence.episode_ids) == {e.id for e in episodes[:20]}
    assert top.description == (
        "For 'deploy' tasks, the action 'run tests' goes with success: 100% succeed with it "
        "(20 of 20) vs 30% without it (6 of 20)."
    )


def test_an_action_that_goes_with_failure_is_a_risk_factor() -> None:
    report = identify_success_factors(dataset(), "deploy")
    risks = {f.subject: f for f in report.risk_factors}
    force = risks["actions: force"]
    assert force.kind is FindingKind.RISK_FACTOR
    assert (force.metrics["support"], force.metrics["hits"]) == (10, 1)
    assert force.evidence.total == 9  # the nine episodes with it that did not succeed
    assert "goes with lower success: 10% succeed with it (1 of 10)" in force.description
    assert all(f.subject != "actions: force" for f in report.success_factors)


def test_successes_and_failures_differ_in_duration() -> None:
    report = identify_success_factors(dataset(), "deploy")
    by_metric = {f.subject: f for f in report.metric_differences}
    duration = by_metric["duration_seconds"]
    assert duration.kind is FindingKind.METRIC_DIFFERENCE
    assert duration.confidence_method is ConfidenceMethod.MANN_WHITNEY_BH
    assert duration.metrics["median_success"] == 61.5
    assert float(duration.metrics["median_failure"] or 0) > 200
    assert duration.effect == pytest.approx(1.0)  # every success is quicker than every failure
    assert duration.evidence.total == 40
    assert "successful episodes have a median duration of 61.5 s vs" in duration.description
    assert "tokens_used" not in by_metric  # no token counts recorded


def test_partial_outcomes_count_as_not_successful_and_are_left_out_of_metrics() -> None:
    episodes = dataset() + [
        episode(100 + i, actions=["checkout", "deploy"], outcome=P, duration_seconds=1.0)
        for i in range(10)
    ]
    report = identify_success_factors(episodes, "deploy")
    assert report.outcomes.partials == 10
    duration = next(f for f in report.metric_differences if f.subject == "duration_seconds")
    assert duration.evidence.total == 40


def test_balanced_data_has_no_factors() -> None:
    report = identify_success_factors(balanced(200), "deploy")
    assert report.success_factors == report.risk_factors == report.metric_differences == []
    assert report.candidates_tested > 0


def test_unknown_task_type_gives_an_empty_report() -> None:
    report = identify_success_factors(dataset(), "nothing")
    assert report.episodes_analyzed == 0
    assert report.success_factors == []
    assert report.outcomes.total == 0


def test_time_range_and_thresholds() -> None:
    episodes = dataset()
    recent = (NOW - timedelta(hours=10), NOW)
    report = identify_success_factors(episodes, "deploy", time_range=recent)
    assert report.episodes_analyzed == 10
    assert report.success_factors == []  # everything recent succeeded: nothing to compare
    strict = identify_success_factors(episodes, "deploy", ReflectionSettings(min_support=21))
    assert strict.success_factors == strict.risk_factors == strict.metric_differences == []


@pytest.mark.parametrize("bad", ["", 5, None, "x" * 257])
def test_bad_task_type_is_refused(bad: object) -> None:
    with pytest.raises(ValidationError) as caught:
        identify_success_factors(dataset(), bad)  # type: ignore[arg-type]
    assert caught.value.field == "task_type"
