"""Reflection over a real long-term store (SQLite and PostgreSQL)."""

from datetime import timedelta

import pytest

from sedimem.embed import HashEmbedder
from sedimem.errors import ValidationError
from sedimem.longterm.episodic import EpisodicMemory
from sedimem.reflection import (
    FindingKind,
    Reflection,
    ReflectionSettings,
    analyze_patterns,
    detect_anomalies,
    identify_success_factors,
    reflect,
)
from sedimem.scope import Scope
from sedimem.storage.longterm.base import LongTermStore
from sedimem.testing.clock import ManualClock
from sedimem.types import Episode
from sedimem.types.longterm import Outcome
from tests.reflection.builders import NOW, episode
from tests.reflection.test_report import workload

SCOPE = Scope(tenant="a", project="p")


@pytest.fixture
def memory(lt_store: LongTermStore, embedder: HashEmbedder) -> EpisodicMemory:
    return EpisodicMemory(lt_store, embedder)


async def stored(memory: EpisodicMemory) -> list[Episode]:
    episodes = [e.model_copy(update={"scope": SCOPE}) for e in workload()]
    await memory.record_many(episodes)
    return episodes


async def test_reflect_over_the_store_matches_the_analysis_of_the_episodes(
    memory: EpisodicMemory,
) -> None:
    episodes = await stored(memory)
    reflection = Reflection(memory)
    report = await reflection.reflect(SCOPE, now=NOW)
    assert report == reflect(episodes, now=NOW)
    assert report.episodes_analyzed == 160
    assert not report.truncated
    deploy = next(r for r in report.success_factors if r.task_type == "deploy")
    assert deploy.success_factors[0].subject == "actions: run tests"
    assert report.anomalies.duration_anomalies[0].evidence.episode_ids == [episodes[3].id]
    kinds = {i.kind for i in report.insights.insights}
    assert FindingKind.FAILURE_RATE_SHIFT in kinds


async def test_chat_turns_have_no_outcome_and_are_left_out(memory: EpisodicMemory) -> None:
    episodes = await stored(memory)
    turns = [
        Episode(
            scope=SCOPE,
            task_type="conversation",
            description=f"user: hello {n}",
            outcome=Outcome.NONE,
            occurred_at=NOW - timedelta(hours=n),
        )
        for n in range(40)
    ]
    await memory.record_many(turns)
    report = await Reflection(memory).reflect(SCOPE, now=NOW)
    # the statistics are those of the 160 task episodes alone: small talk is no success
    assert report == reflect(episodes, now=NOW)
    assert report.episodes_analyzed == 160


async def test_each_call_reads_what_it_needs(memory: EpisodicMemory) -> None:
    episodes = await stored(memory)
    reflection = Reflection(memory)
    window = (NOW - timedelta(days=7), NOW)
    patterns = await reflection.analyze_patterns(SCOPE, time_range=window)
    assert patterns == analyze_patterns(episodes, time_range=window)
    assert patterns.episodes_analyzed == 60
    factors = await reflection.identify_success_factors(SCOPE, "deploy")
    assert factors == identify_success_factors(episodes, "deploy")
    anomalies = await reflection.detect_anomalies(SCOPE, now=NOW)
    assert anomalies == detect_anomalies(episodes, now=NOW)
    insights = await reflection.generate_insights(SCOPE, now=NOW)
    assert insights == reflect(episodes, now=NOW).insights
    narrowed = await reflection.reflect(SCOPE, time_range=window, now=NOW)
    assert narrowed == reflect(episodes, now=NOW, time_range=window)


async def test_another_tenant_sees_nothing(memory: EpisodicMemory) -> None:
    await stored(memory)
    report = await Reflection(memory).reflect(Scope(tenant="b", project="p"), now=NOW)
    assert report.episodes_analyzed == 0
    assert report.insights.insights == []
    assert report.patterns.overall.total == 0


async def test_the_episode_cap_is_reported(memory: EpisodicMemory) -> None:
    episodes = [episode(i, scope=SCOPE) for i in range(10)]
    await memory.record_many(episodes)
    capped = Reflection(memory, ReflectionSettings(max_episodes=7, page_size=3))
    loaded, truncated = await capped.load(SCOPE)
    assert truncated
    assert [e.id for e in loaded] == [e.id for e in reversed(episodes)][:7]  # newest recorded
    report = await capped.reflect(SCOPE, now=NOW)
    assert report.truncated
    assert report.episodes_analyzed == 7
    assert report.patterns.truncated
    assert report.anomalies.truncated
    assert report.insights.truncated
    assert (await capped.analyze_patterns(SCOPE)).truncated
    exact = Reflection(memory, ReflectionSettings(max_episodes=10, page_size=3))
    loaded, truncated = await exact.load(SCOPE)
    assert (len(loaded), truncated) == (10, False)
    assert not (await exact.detect_anomalies(SCOPE, now=NOW)).truncated


async def test_now_defaults_to_the_clock(lt_store: LongTermStore, embedder: HashEmbedder) -> None:
    reflection = Reflection.over_store(
        lt_store, embedder, clock=ManualClock(NOW.timestamp() + 86_400 * 100)
    )
    assert reflection.settings == ReflectionSettings()
    await EpisodicMemory(lt_store, embedder).record_many(
        [episode(i, scope=SCOPE) for i in range(3)]
    )
    report = await reflection.detect_anomalies(SCOPE)
    assert report.now == NOW + timedelta(days=100)
    assert report.episodes_analyzed == 0  # all of them are older than the baseline window
    whole = await reflection.reflect(SCOPE)
    assert whole.generated_at == NOW + timedelta(days=100)
    assert whole.patterns.episodes_analyzed == 3


async def test_bad_arguments_name_the_field(memory: EpisodicMemory) -> None:
    with pytest.raises(ValidationError) as caught:
        Reflection("memory")  # type: ignore[arg-type]
    assert caught.value.field == "episodes"
    with pytest.raises(ValidationError) as caught:
        Reflection(memory, {"min_support": 3})  # type: ignore[arg-type]
    assert caught.value.field == "settings"
    reflection = Reflection(memory)
    with pytest.raises(ValidationError) as caught:
        await reflection.reflect("tenant-a", now=NOW)  # type: ignore[arg-type]
    assert caught.value.field == "scope"
    with pytest.raises(ValidationError) as caught:
        await reflection.detect_anomalies(SCOPE, baseline_days=1, now=NOW)
    assert caught.value.field == "baseline_days"
    with pytest.raises(ValidationError) as caught:
        await reflection.identify_success_factors(SCOPE, "")
    assert caught.value.field == "task_type"
    with pytest.raises(ValidationError) as caught:
        await reflection.analyze_patterns(SCOPE, time_range=(NOW, NOW - timedelta(days=1)))
    assert caught.value.field == "time_range"
