import random
from datetime import datetime, timedelta

import pytest

from sedimem.errors import ValidationError
from sedimem.reflection import (
    ConfidenceMethod,
    FindingKind,
    ReflectionSettings,
    analyze_patterns,
    reflect,
)
from sedimem.types import Episode
from tests.reflection.builders import NOW, F, S, balanced, episode

PUSH = ["plan", "force push", "notify"]
SHIP = ["plan", "build", "test", "ship"]


def dataset() -> list[Episode]:
    """90 episodes. 'plan > force push > notify' always fails (12 deploys, with the same
    outcome details); 'build > test > ship' succeeds 44 times out of 48."""
    out = []
    for i in range(12):
        out.append(
            episode(i, actions=PUSH, outcome=F, outcome_details="Rejected by branch protection")
        )
    for i in range(12, 60):
        failed = i % 12 == 0
        out.append(episode(i, actions=SHIP, outcome=F if failed else S))
    for i in range(60, 90):
        out.append(
            episode(
                i, task_type="review", actions=["read", "comment"], outcome=F if i % 5 == 0 else S
            )
        )
    return out


def test_outcome_rates_per_task_type() -> None:
    report = analyze_patterns(dataset())
    assert report.episodes_analyzed == 90
    assert not report.truncated
    assert (report.overall.total, report.overall.successes, report.overall.failures) == (90, 68, 22)
    deploy, review = report.by_task_type
    assert (deploy.task_type, deploy.total, deploy.successes, deploy.failures) == (
        "deploy",
        60,
        44,
        16,
    )
    assert (review.task_type, review.total, review.successes, review.failures) == (
        "review",
        30,
        24,
        6,
    )
    assert deploy.success_rate == pytest.approx(44 / 60)
    assert deploy.success_rate_low < deploy.success_rate < deploy.success_rate_high


def test_a_sequence_that_always_fails_is_a_failure_pattern_with_its_evidence() -> None:
    episodes = dataset()
    report = analyze_patterns(episodes)
    by_subject = {f.subject: f for f in report.failure_patterns}
    push = by_subject["actions: plan > force push > notify"]
    assert push.kind is FindingKind.FAILURE_PATTERN
    assert push.confidence_method is ConfidenceMethod.FISHER_BH
    assert push.confidence >= 0.95
    assert push.metrics["support"] == push.metrics["hits"] == 12
    assert push.metrics["rate"] == 1.0
    assert push.metrics["rate_without"] == pytest.approx(10 / 78)
    # the same episodes as 'force push', 'notify', 'plan > force push', ...: reported once
    assert "force push" in str(push.metrics["same_episodes_as"])
    assert not any(s.startswith("actions: force push") for s in by_subject)
    # evidence: the 12 failures, most recent first
    expected = [e.id for e in sorted(episodes[:12], key=lambda e: e.occurred_at, reverse=True)]
    assert push.evidence.episode_ids == expected
    assert push.evidence.total == 12
    assert not push.evidence.truncated
    assert push.description.startswith("Episodes with the action sequence")
    assert "fail 100% of the time (12 of 12)" in push.description
    # words of the outcome details that only failures share: one candidate for all of them
    words = by_subject["term: branch, protection, rejected"]
    assert words.metrics["feature"] == "term"
    assert "'branch' and 'protection' and 'rejected'" in words.description


def test_a_sequence_that_mostly_succeeds_is_a_success_pattern_and_recurs() -> None:
    report = analyze_patterns(dataset())
    subjects = [f.subject for f in report.success_patterns]
    assert "actions: build > test > ship" in subjects
    ship = next(f for f in report.success_patterns if f.subject == "actions: build > test > ship")
    assert ship.metrics["hits"] == 44
    assert str(ship.metrics["same_episodes_as"]).startswith("plan > build > test; build > test")
    assert ship.evidence.total == 44
    assert len(ship.evidence.episode_ids) == 20  # max_evidence
    assert ship.evidence.truncated
    recurring = {tuple(s.actions): s for s in report.recurring_sequences}
    stat = recurring[("build", "test", "ship")]
    assert (stat.support, stat.successes, stat.failures) == (48, 44, 4)
    assert stat.baseline_success_rate == pytest.approx(68 / 90)
    assert stat.lift == pytest.approx((44 / 48) / (68 / 90))
    assert stat.success_rate_low < stat.success_rate < stat.success_rate_high
    assert ("plan", "force push", "notify") in recurring
    assert all(len(s.actions) > 1 for s in report.recurring_sequences)


def test_task_types_that_fail_more_are_failure_patterns() -> None:
    episodes = [episode(i, task_type="migrate", outcome=F if i % 4 else S) for i in range(20)]
    episodes += [
        episode(i, task_type="chat", outcome=F if i % 10 == 0 else S) for i in range(20, 80)
    ]
    report = analyze_patterns(episodes)
    found = {f.subject: f for f in report.failure_patterns}
    migrate = found["task_type: migrate"]
    assert migrate.description.startswith("'migrate' tasks fail 75% of the time (15 of 20)")
    assert "for other tasks" in migrate.description


def test_balanced_data_has_no_patterns() -> None:
    report = analyze_patterns(balanced(240, task_types=("a", "b")))
    assert report.success_patterns == []
    assert report.failure_patterns == []
    assert report.candidates_tested > 0
    assert report.overall.success_rate == 0.5


def test_noise_rarely_yields_a_finding() -> None:
    """Random actions, outcomes independent of them: BH keeps spurious findings rare."""
    runs_with_findings = 0
    for seed in range(10):
        rng = random.Random(seed)
        episodes = [
            episode(
                i,
                task_type=rng.choice(["a", "b", "c"]),
                actions=[rng.choice(["plan", "read", "edit", "build", "lint"]) for _ in range(4)],
                outcome=S if rng.random() < 0.6 else F,
            )
            for i in range(300)
        ]
        report = analyze_patterns(episodes)
        runs_with_findings += bool(report.success_patterns or report.failure_patterns)
    assert runs_with_findings <= 2


def test_empty_input_gives_an_empty_report() -> None:
    report = analyze_patterns([])
    assert report.episodes_analyzed == 0
    assert report.overall.total == 0
    assert report.overall.success_rate == 0.0
    assert report.by_task_type == []
    assert report.recurring_sequences == []
    assert report.success_patterns == []


def test_time_range_selects_episodes_inclusively() -> None:
    episodes = dataset()
    start, end = NOW - timedelta(hours=30), NOW - timedelta(hours=1)
    report = analyze_patterns(episodes, time_range=(start, end))
    assert report.episodes_analyzed == 30  # hours 1..30 ago: episodes 0..29
    assert report.time_range == (start, end)


def test_caps_are_reported_not_silent() -> None:
    settings = ReflectionSettings(max_findings=1, max_evidence=3)
    report = analyze_patterns(dataset(), settings)
    assert len(report.failure_patterns) == 1
    assert report.omitted["failure_patterns"] >= 1
    assert len(report.recurring_sequences) == 1
    assert report.omitted["recurring_sequences"] >= 1
    assert len(report.failure_patterns[0].evidence.episode_ids) == 3


def test_thresholds_are_honoured() -> None:
    strict = ReflectionSettings(min_support=13)  # 'force push' occurs 12 times
    report = analyze_patterns(dataset(), strict)
    assert not any("force push" in f.subject for f in report.failure_patterns)
    picky = ReflectionSettings(min_lift=5.0)
    assert analyze_patterns(dataset(), picky).success_patterns == []


@pytest.mark.parametrize("bad", ["episodes", 42, [1, 2], [None]])
def test_bad_episodes_are_refused(bad: object) -> None:
    with pytest.raises(ValidationError) as caught:
        analyze_patterns(bad)  # type: ignore[arg-type]
    assert caught.value.field == "episodes"


@pytest.mark.parametrize(
    "time_range",
    [
        (datetime(2026, 1, 1), datetime(2026, 2, 1)),  # naive
        (NOW, NOW - timedelta(days=1)),  # ends before it starts
        (NOW,),
        "2026",
    ],
)
def test_bad_time_ranges_are_refused(time_range: object) -> None:
    with pytest.raises(ValidationError) as caught:
        analyze_patterns(dataset(), time_range=time_range)  # type: ignore[arg-type]
    assert caught.value.field == "time_range"
    with pytest.raises(ValidationError):
        reflect(dataset(), now=NOW, time_range=time_range)  # type: ignore[arg-type]


def test_actions_are_compared_without_case_and_extra_spaces() -> None:
    spellings = [
        ["Run  Tests", "deploy"],
        ["run tests", " DEPLOY "],
        ["run tests", "   ", "deploy"],
    ]
    episodes = [episode(i, actions=spellings[i % 3]) for i in range(9)]
    report = analyze_patterns(episodes)
    assert [(s.actions, s.support) for s in report.recurring_sequences] == [
        (["run tests", "deploy"], 9)
    ]
