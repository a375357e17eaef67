from datetime import timedelta

import pytest

from sedimem.errors import ValidationError
from sedimem.reflection import (
    FindingKind,
    ReflectionSettings,
    analyze_patterns,
    detect_anomalies,
    generate_insights,
    identify_success_factors,
    reflect,
)
from sedimem.types import Episode
from tests.reflection import test_factors
from tests.reflection.builders import NOW, F, S, balanced, episode


def workload() -> list[Episode]:
    """Deploys with a success factor and a slow outlier, and a recent failure-rate jump in
    reviews."""
    out = test_factors.dataset()[:40]
    out[3] = out[3].model_copy(update={"duration_seconds": 5000.0})
    out += [
        episode(
            100 + i,
            task_type="review",
            actions=["read", "comment"],
            days_ago=8 + 20 * i / 100,
            outcome=F if i % 10 == 0 else S,
        )
        for i in range(100)
    ]
    out += [
        episode(
            300 + i,
            task_type="review",
            actions=["read", "comment"],
            days_ago=6 * i / 20,
            outcome=F if i % 2 else S,
        )
        for i in range(20)
    ]
    return out


def test_reflect_runs_all_four_and_ranks_insights() -> None:
    episodes = workload()
    report = reflect(episodes, now=NOW)
    assert report.episodes_analyzed == len(episodes) == 160
    assert report.generated_at == NOW
    assert not report.truncated
    assert report.patterns.episodes_analyzed == 160
    assert [f.task_type for f in report.success_factors] == ["review", "deploy"]
    deploy = report.success_factors[1]
    assert deploy.success_factors[0].subject == "actions: run tests"
    assert {f.evidence.episode_ids[0] for f in report.anomalies.duration_anomalies} == {
        episodes[3].id
    }
    assert any(f.subject == "failure_rate: review" for f in report.anomalies.failure_rate_shifts)
    insights = report.insights.insights
    assert [i.rank for i in insights] == list(range(1, len(insights) + 1))
    priorities = [i.priority for i in insights]
    assert priorities == sorted(priorities, reverse=True)
    kinds = {i.kind for i in insights}
    assert {
        FindingKind.SUCCESS_FACTOR,
        FindingKind.DURATION_ANOMALY,
        FindingKind.FAILURE_RATE_SHIFT,
    } <= kinds
    for insight in insights:
        assert insight.statement.endswith(".")
        assert 0 <= insight.priority <= insight.confidence <= 1
        assert insight.evidence.total >= len(insight.evidence.episode_ids) >= 1
    slow = next(i for i in insights if i.kind is FindingKind.DURATION_ANOMALY)
    assert slow.statement.startswith(
        "1 'deploy' episode(s) had an outlying duration (1 far above the usual range); "
        "the most extreme took 5,000 s against a median of"
    )
    assert slow.statement.endswith("x).")
    assert report.insights.total == len(insights)


def test_the_pure_calls_agree_with_reflect() -> None:
    episodes = workload()
    report = reflect(episodes, now=NOW)
    assert analyze_patterns(episodes) == report.patterns
    assert identify_success_factors(episodes, "deploy") == report.success_factors[1]
    assert detect_anomalies(episodes, now=NOW) == report.anomalies
    again = generate_insights(report.patterns, report.success_factors, report.anomalies)
    assert again == report.insights
    assert generate_insights().insights == []


def test_a_pattern_that_a_factor_already_states_is_not_repeated() -> None:
    episodes = test_factors.dataset()[:40]  # one task type: patterns and factors coincide
    report = reflect(episodes, now=NOW)
    assert any(f.subject == "actions: run tests" for f in report.patterns.success_patterns)
    statements = [i.statement for i in report.insights.insights]
    assert sum("'run tests'" in s for s in statements) == 1


def test_task_types_and_caps() -> None:
    episodes = workload()
    only = reflect(episodes, now=NOW, task_types=["deploy"])
    assert [f.task_type for f in only.success_factors] == ["deploy"]
    capped = reflect(episodes, ReflectionSettings(max_task_types=1, max_insights=2), now=NOW)
    assert [f.task_type for f in capped.success_factors] == ["review"]
    assert capped.omitted == {"success_factors": 1}
    assert len(capped.insights.insights) == 2
    assert capped.insights.omitted["insights"] == capped.insights.total - 2


def test_time_range_narrows_patterns_and_factors_but_not_anomalies() -> None:
    episodes = workload()
    window = (NOW - timedelta(days=7), NOW)
    report = reflect(episodes, now=NOW, time_range=window)
    assert report.patterns.episodes_analyzed == 60  # 40 deploys (hourly) + 20 recent reviews
    assert report.anomalies.episodes_analyzed == 160


def test_balanced_data_yields_no_insights() -> None:
    report = reflect(balanced(400, task_types=("a", "b", "c")), now=NOW)
    assert report.insights.insights == []
    assert report.insights.total == 0


@pytest.mark.parametrize("task_types", ["deploy", [""], [3]])
def test_bad_task_types_are_refused(task_types: object) -> None:
    with pytest.raises(ValidationError) as caught:
        reflect(workload(), now=NOW, task_types=task_types)  # type: ignore[arg-type]
    assert caught.value.field in {"task_types", "task_type"}
