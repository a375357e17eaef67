from datetime import datetime

import pytest

from sedimem.errors import ValidationError
from sedimem.reflection import (
    ConfidenceMethod,
    FindingKind,
    ReflectionSettings,
    detect_anomalies,
    reflect,
)
from sedimem.types import Episode
from tests.reflection.builders import NOW, F, S, balanced, episode


def steady(count: int, *, days: float = 20.0, task_type: str = "deploy") -> list[Episode]:
    """Evenly spread over the last ``days``; durations 100..139 s, tokens 1000..1099."""
    return [
        episode(
            i,
            task_type=task_type,
            days_ago=days * (i + 0.5) / count,
            outcome=F if i % 10 == 0 else S,
            duration_seconds=100.0 + (i * 37) % 40,
            tokens_used=1000 + (i * 53) % 100,
        )
        for i in range(count)
    ]


def test_a_ten_times_longer_episode_is_flagged_alone() -> None:
    episodes = steady(40)
    slow = episodes[7].model_copy(update={"duration_seconds": 1200.0})
    episodes[7] = slow
    report = detect_anomalies(episodes, now=NOW)
    assert report.episodes_analyzed == 40
    assert [f.evidence.episode_ids for f in report.duration_anomalies] == [[slow.id]]
    flagged = report.duration_anomalies[0]
    assert flagged.kind is FindingKind.DURATION_ANOMALY
    assert flagged.subject == f"episode: {slow.id}"
    assert flagged.task_type == "deploy"
    assert flagged.confidence_method is ConfidenceMethod.ROBUST_Z_SIDAK
    assert flagged.confidence > 0.99
    assert float(flagged.metrics["z"] or 0) > 3.0
    assert flagged.metrics["ratio_to_median"] == pytest.approx(
        1200.0 / float(flagged.metrics["median"] or 1)
    )
    assert "took 1,200 s" in flagged.description
    assert report.token_anomalies == []
    assert report.failure_rate_shifts == []


def test_unusually_low_token_use_is_flagged_too() -> None:
    episodes = steady(40)
    episodes[11] = episodes[11].model_copy(update={"tokens_used": 3})
    report = detect_anomalies(episodes, now=NOW)
    (low,) = report.token_anomalies
    assert low.kind is FindingKind.TOKENS_ANOMALY
    assert float(low.metrics["z"] or 0) < -3.0
    assert "used only 3 tokens, far below the median" in low.description


def test_steady_data_has_no_anomalies() -> None:
    report = detect_anomalies(steady(60), now=NOW)
    assert report.duration_anomalies == report.token_anomalies == report.failure_rate_shifts == []
    balanced_report = detect_anomalies(balanced(300, task_types=("a", "b")), now=NOW)
    assert balanced_report.episodes_analyzed == 300
    assert balanced_report.duration_anomalies == balanced_report.token_anomalies == []
    assert balanced_report.failure_rate_shifts == []


def test_outliers_are_judged_within_their_task_type() -> None:
    # 'build' episodes take 1000 s as a rule: not anomalous next to quick 'deploy' ones
    episodes = steady(30) + [
        e.model_copy(update={"duration_seconds": 1000.0 + i})
        for i, e in enumerate(steady(30, task_type="build"))
    ]
    assert detect_anomalies(episodes, now=NOW).duration_anomalies == []


def test_identical_values_use_the_mean_deviation_and_never_divide_by_zero() -> None:
    same = [e.model_copy(update={"duration_seconds": 60.0}) for e in steady(20)]
    assert detect_anomalies(same, now=NOW).duration_anomalies == []
    same[3] = same[3].model_copy(update={"duration_seconds": 600.0})
    (flagged,) = detect_anomalies(same, now=NOW).duration_anomalies
    assert flagged.evidence.episode_ids == [same[3].id]


def test_zero_median_is_described_without_a_ratio() -> None:
    episodes = [e.model_copy(update={"duration_seconds": 0.0}) for e in steady(20)]
    episodes[0] = episodes[0].model_copy(update={"duration_seconds": 30.0})
    (flagged,) = detect_anomalies(episodes, now=NOW).duration_anomalies
    assert flagged.metrics["ratio_to_median"] is None
    assert "far above the median of 0 s" in flagged.description


def jump(recent_failures: int, baseline_failures: int) -> list[Episode]:
    """200 episodes 8..30 days ago and 20 in the last 7 days."""
    before = [
        episode(i, days_ago=8 + 22 * i / 200, outcome=F if i < baseline_failures else S)
        for i in range(200)
    ]
    recent = [
        episode(1000 + i, days_ago=6.5 * i / 20, outcome=F if i < recent_failures else S)
        for i in range(20)
    ]
    return before + recent


def test_a_failure_rate_jump_is_detected() -> None:
    episodes = jump(recent_failures=10, baseline_failures=20)
    report = detect_anomalies(episodes, now=NOW)
    (shift,) = report.failure_rate_shifts  # one task type: the overall test only
    assert shift.kind is FindingKind.FAILURE_RATE_SHIFT
    assert shift.subject == "failure_rate"
    assert shift.confidence_method is ConfidenceMethod.TWO_PROPORTION_SIDAK
    assert float(shift.metrics["z"] or 0) > 3.0
    assert (shift.metrics["recent_rate"], shift.metrics["baseline_rate"]) == (0.5, 0.1)
    assert shift.effect == pytest.approx(0.4)
    assert shift.evidence.total == 10
    assert shift.description.startswith(
        "The failure rate rose to 50% (10 of 20) in the last 7 days from 10% (20 of 200) "
        "in the 23 days before"
    )


def test_a_failure_rate_drop_is_reported_per_task_type() -> None:
    episodes = jump(recent_failures=0, baseline_failures=120)
    episodes += [
        episode(5000 + i, task_type="chat", days_ago=0.1 + 25 * i / 40, outcome=S)
        for i in range(40)
    ]
    report = detect_anomalies(episodes, now=NOW)
    subjects = {f.subject: f for f in report.failure_rate_shifts}
    deploy = subjects["failure_rate: deploy"]
    assert "The failure rate of 'deploy' tasks fell to 0% (0 of 20)" in deploy.description
    assert deploy.evidence.total == 20  # the recent episodes that did not fail
    assert deploy.task_type == "deploy"


def test_small_windows_are_noted_not_guessed() -> None:
    episodes = steady(5) + steady(15, task_type="build")
    report = detect_anomalies(episodes, now=NOW)
    assert any("duration_seconds of 'deploy' tasks not checked" in n for n in report.notes)
    assert any("tokens_used of 'deploy' tasks not checked" in n for n in report.notes)
    assert any("failure rate not compared" in n for n in report.notes)
    mixed = jump(10, 20) + steady(12, task_type="chat")
    notes = detect_anomalies(mixed, now=NOW).notes
    assert any("failure rate not compared for 1 task type(s)" in n for n in notes)


def test_only_the_baseline_window_is_read() -> None:
    episodes = steady(30)
    old = episode(500, days_ago=45, duration_seconds=99_999.0)
    future = episode(501, days_ago=-1, duration_seconds=99_999.0)
    report = detect_anomalies([*episodes, old, future], now=NOW)
    assert report.episodes_analyzed == 30
    assert report.duration_anomalies == []
    wider = detect_anomalies([*episodes, old], now=NOW, baseline_days=60)
    assert wider.episodes_analyzed == 31
    assert [f.evidence.episode_ids for f in wider.duration_anomalies] == [[old.id]]
    assert wider.baseline_days == 60


def test_sigma_and_caps_are_configurable() -> None:
    episodes = steady(40)
    for i in (1, 2, 3):
        episodes[i] = episodes[i].model_copy(update={"duration_seconds": 500.0 + i})
    loose = detect_anomalies(episodes, ReflectionSettings(max_findings=2), now=NOW)
    assert len(loose.duration_anomalies) == 2
    assert loose.omitted == {"duration_anomalies": 1}
    blind = detect_anomalies(episodes, ReflectionSettings(anomaly_sigma=100.0), now=NOW)
    assert blind.duration_anomalies == []


@pytest.mark.parametrize("baseline_days", [7, 3, 0, -1, 40_000, True, "30"])
def test_bad_baseline_days_is_refused(baseline_days: object) -> None:
    with pytest.raises(ValidationError) as caught:
        detect_anomalies(steady(5), now=NOW, baseline_days=baseline_days)  # type: ignore[arg-type]
    assert caught.value.field == "baseline_days"


def test_naive_now_is_refused() -> None:
    with pytest.raises(ValidationError) as caught:
        detect_anomalies(steady(5), now=datetime(2026, 1, 1))
    assert caught.value.field == "now"
    with pytest.raises(ValidationError) as caught:
        reflect(steady(5), now=datetime(2026, 1, 1))
    assert caught.value.field == "now"


def test_tiny_deviations_of_tight_data_are_not_anomalies() -> None:
    tight = [
        e.model_copy(update={"duration_seconds": 60.0 + (i % 3) * 0.1})
        for i, e in enumerate(steady(30))
    ]
    tight[5] = tight[5].model_copy(update={"duration_seconds": 66.0})  # z ~ 90, but only +10 %
    assert detect_anomalies(tight, now=NOW).duration_anomalies == []
    strict = ReflectionSettings(anomaly_min_ratio=1.0)
    (flagged,) = detect_anomalies(tight, strict, now=NOW).duration_anomalies
    assert flagged.evidence.episode_ids == [tight[5].id]


def test_a_small_baseline_needs_a_clearer_outlier() -> None:
    """With 12 values the spread itself is uncertain: z = 4 is not enough at 95 %."""
    episodes = steady(12)
    episodes[3] = episodes[3].model_copy(update={"duration_seconds": 200.0})
    assert detect_anomalies(episodes, now=NOW).duration_anomalies == []
    (flagged,) = detect_anomalies(
        episodes, ReflectionSettings(min_confidence=0.8), now=NOW
    ).duration_anomalies
    assert 0.8 <= flagged.confidence < 0.95
    assert float(flagged.metrics["z"] or 0) > 3.0
    episodes[3] = episodes[3].model_copy(update={"duration_seconds": 500.0})
    assert len(detect_anomalies(episodes, now=NOW).duration_anomalies) == 1
