import asyncio
import uuid
from collections.abc import Callable
from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sedimem.embed import HashEmbedder
from sedimem.errors import NotFound, ValidationError
from sedimem.longterm.episodic import EpisodicMemory
from sedimem.longterm.semantic import SemanticMemory
from sedimem.scope import Scope
from sedimem.storage.longterm.base import LongTermStore
from sedimem.types import Episode, Fact
from sedimem.types.longterm import SINCE, TOLD

Y = [datetime(2018 + i, 1, 1, tzinfo=UTC) for i in range(10)]


@pytest.fixture
def facts(lt_store: LongTermStore, embedder: HashEmbedder) -> SemanticMemory:
    return SemanticMemory(lt_store, embedder)


def lives(scope: Scope, city: str, since: datetime, *sources: str) -> Fact:
    return Fact(
        scope=scope,
        statement=f"Ana lives in {city}",
        subject="Ana",
        predicate="lives_in",
        object=city,
        valid_from=since,
        source_episode_ids=list(sources),
    )


async def test_supersession_keeps_history(facts: SemanticMemory) -> None:
    scope = Scope(tenant="a", user="ana")
    first = await facts.learn(lives(scope, "Lisbon", Y[2]))
    assert first.action == "inserted"
    second = await facts.learn(lives(scope, "Porto", Y[6]))
    assert second.action == "superseded"
    assert [f.object for f in second.closed] == ["Lisbon"]
    assert second.closed[0].valid_to == Y[6]
    history = await facts.history("ana", "LIVES_IN", scope=scope)
    assert [(f.object, f.valid_from, f.valid_to) for f in history] == [
        ("Lisbon", Y[2], Y[6]),
        ("Porto", Y[6], None),
    ]
    assert [f.object for f in await facts.current("Ana", "lives_in", scope=scope)] == ["Porto"]
    past = await facts.recall("where does Ana live", scope=scope, valid_at=Y[4])
    assert [h.record.object for h in past] == ["Lisbon"]
    now = await facts.recall("where does Ana live", scope=scope)
    assert [h.record.object for h in now] == ["Porto"]
    everything = await facts.recall("Ana lives", scope=scope, include_history=True)
    assert {h.record.object for h in everything} == {"Lisbon", "Porto"}
    # the open-ended Lisbon version is retired, not deleted: it is what we believed before
    believed_then = await facts.recall(
        "where does Ana live",
        scope=scope,
        valid_at=Y[8],
        known_at=second.fact.recorded_at - timedelta(microseconds=1),
    )
    assert [h.record.object for h in believed_then] == ["Lisbon"]
    all_versions = await facts.history("ana", "lives_in", scope=scope, include_retired=True)
    assert len(all_versions) == 3


async def test_the_same_fact_reinforces(
    facts: SemanticMemory, lt_store: LongTermStore, embedder: HashEmbedder
) -> None:
    scope = Scope(tenant="a", user="ana")
    episodes = EpisodicMemory(lt_store, embedder)
    e1, e2 = [await episodes.record(Episode(scope=scope, description=d)) for d in ("1", "2")]
    await facts.learn(lives(scope, "Lisbon", Y[2], e1.id))
    again = await facts.learn(lives(scope, "lisbon ", Y[3], e2.id))
    assert again.action == "reinforced"
    assert again.fact.reinforcement_count == 2
    assert again.fact.source_episode_ids == [e1.id, e2.id]
    assert len(await facts.history("Ana", "lives_in", scope=scope)) == 1
    note = Fact(scope=scope, statement="Ana likes jazz")
    assert (await facts.learn(note)).action == "inserted"
    assert (
        await facts.learn(Fact(scope=scope, statement="ana likes  JAZZ"))
    ).action == "reinforced"


async def test_multi_valued_predicates_accumulate(facts: SemanticMemory) -> None:
    scope = Scope(tenant="a")
    for language in ("Python", "Rust"):
        result = await facts.learn(
            Fact(
                scope=scope,
                statement=f"Ana speaks {language}",
                subject="Ana",
                predicate="speaks",
                object=language,
            )
        )
        assert result.action == "inserted"
    current = await facts.current("Ana", "speaks", scope=scope)
    assert {f.object for f in current} == {"Python", "Rust"}
    assert facts.is_single_valued("Lives_In")
    assert not facts.is_single_valued("speaks")


async def test_the_newest_of_many_current_facts_are_read_alone(facts: SemanticMemory) -> None:
    scope = Scope(tenant="a", user="ana")
    for n in range(12):
        await facts.learn(
            Fact(scope=scope, statement=f"Ana visited Town{n}", subject="Ana",
                 predicate="visited", object=f"Town{n}", valid_from=Y[0] + timedelta(days=n))
        )  # fmt: skip
    await facts.learn(Fact(scope=scope, statement="Ana ran", subject="Ana", predicate="ran"))
    every = await facts.current_of("Ana", ["visited", "returned_from"], scope=scope)
    assert [f.object for f in every] == [f"Town{n}" for n in range(12)]
    newest = await facts.current_of("Ana", ["visited", "returned_from"], scope=scope, newest=3)
    assert [f.object for f in newest] == ["Town9", "Town10", "Town11"]
    other = Scope(tenant="a", user="ben")
    assert await facts.current_of("Ana", ["visited"], scope=other, newest=3) == []
    # of any predicate
    any_kind = await facts.current_of("Ana", None, scope=scope, newest=2)
    assert [f.predicate for f in any_kind] == ["visited", "ran"]
    for bad in (0, -1, True):
        with pytest.raises(ValidationError, match="newest"):
            await facts.current_of("Ana", ["visited"], scope=scope, newest=bad)


async def test_late_learned_older_value_splits_the_timeline(facts: SemanticMemory) -> None:
    scope = Scope(tenant="a")
    await facts.learn(lives(scope, "Lisbon", Y[0]))
    await facts.learn(lives(scope, "Porto", Y[6]))
    late = await facts.learn(lives(scope, "Madrid", Y[3]))
    assert late.action == "superseded"
    assert late.fact.valid_to == Y[6]
    timeline = [
        (f.object, f.valid_from, f.valid_to)
        for f in await facts.history("Ana", "lives_in", scope=scope)
    ]
    assert timeline == [("Lisbon", Y[0], Y[3]), ("Madrid", Y[3], Y[6]), ("Porto", Y[6], None)]
    before_all = await facts.learn(lives(scope, "Paris", Y[0] - timedelta(days=365)))
    assert before_all.action == "inserted"
    assert before_all.fact.valid_to == Y[0]


async def said(lt_store: LongTermStore, embedder: HashEmbedder, scope: Scope, at: datetime) -> str:
    """An episode (a turn) said at ``at``: the source of a fact."""
    episode = Episode(scope=scope, description=f"a turn at {at.isoformat()}", occurred_at=at)
    await EpisodicMemory(lt_store, embedder).record(episode)
    return episode.id


async def test_a_value_said_later_but_dated_earlier_replaces_the_one_said_before(
    lt_store: LongTermStore, embedder: HashEmbedder, facts: SemanticMemory
) -> None:
    scope = Scope(tenant=f"t-{uuid.uuid4().hex[:8]}", user="ana")
    monday, tuesday = Y[5], Y[5] + timedelta(days=1)
    # Monday: "I live in Munich"; Tuesday: "I moved to Hamburg last week"
    munich = await facts.learn(
        lives(scope, "Munich", monday, await said(lt_store, embedder, scope, monday))
    )
    hamburg = await facts.learn(
        lives(
            scope,
            "Hamburg",
            tuesday - timedelta(days=7),
            await said(lt_store, embedder, scope, tuesday),
        )
    )
    assert hamburg.action == "superseded"
    assert hamburg.superseded == [munich.fact.id]
    assert hamburg.fact.valid_to is None  # not cut short by the version it contradicts
    assert [f.object for f in await facts.current("Ana", "lives_in", scope=scope)] == ["Hamburg"]
    timeline = [
        (f.object, f.valid_from, f.valid_to)
        for f in await facts.history("Ana", "lives_in", scope=scope)
    ]
    assert timeline == [("Hamburg", tuesday - timedelta(days=7), None)]


async def test_a_dated_version_is_followed_not_contradicted(
    lt_store: LongTermStore, embedder: HashEmbedder, facts: SemanticMemory
) -> None:
    """ "I moved to Porto last year", then, a minute later, "I moved to Lisbon in 2019":
    Porto's start is a date the user gave, not when it was said, so the older move is
    history before it, and Porto stays current."""
    scope = Scope(tenant=f"t-{uuid.uuid4().hex[:8]}", user="ana")
    now = datetime(2026, 11, 27, 10, tzinfo=UTC)
    porto = datetime(2025, 1, 1, tzinfo=UTC)
    await facts.learn(lives(scope, "Porto", porto, await said(lt_store, embedder, scope, now)))
    lisbon = await facts.learn(
        lives(
            scope,
            "Lisbon",
            datetime(2019, 1, 1, tzinfo=UTC),
            await said(lt_store, embedder, scope, now + timedelta(minutes=1)),
        )
    )
    assert lisbon.action == "inserted"
    assert lisbon.fact.valid_to == porto
    assert [f.object for f in await facts.current("Ana", "lives_in", scope=scope)] == ["Porto"]


async def test_history_filled_in_out_of_order_still_splits_the_timeline(
    lt_store: LongTermStore, embedder: HashEmbedder, facts: SemanticMemory
) -> None:
    """An older turn read after a newer one (an import in any order) is older news: the
    newer value, begun after the older turn was said, still follows it."""
    scope = Scope(tenant=f"t-{uuid.uuid4().hex[:8]}", user="ana")
    march = datetime(2024, 3, 1, tzinfo=UTC)
    january = datetime(2024, 1, 10, tzinfo=UTC)
    await facts.learn(
        lives(
            scope,
            "Hamburg",
            march - timedelta(days=7),
            await said(lt_store, embedder, scope, march),
        )
    )
    older = await facts.learn(
        lives(scope, "Munich", january, await said(lt_store, embedder, scope, january))
    )
    assert older.action == "inserted"
    assert older.fact.valid_to == march - timedelta(days=7)
    assert [f.object for f in await facts.current("Ana", "lives_in", scope=scope)] == ["Hamburg"]


async def test_tenants_and_owners_never_close_each_others_facts(facts: SemanticMemory) -> None:
    a, b = Scope(tenant="a", user="ana"), Scope(tenant="b", user="ana")
    await facts.learn(lives(a, "Lisbon", Y[1]))
    await facts.learn(lives(b, "Porto", Y[5]))
    await facts.learn(lives(Scope(tenant="a", user="bob"), "Rome", Y[5]))
    assert [f.object for f in await facts.current("Ana", "lives_in", scope=a)] == ["Lisbon"]
    assert [f.object for f in await facts.current("Ana", "lives_in", scope=b)] == ["Porto"]


async def test_invalidate_get_delete(facts: SemanticMemory) -> None:
    scope = Scope(tenant="a")
    learned = (await facts.learn(lives(scope, "Lisbon", Y[1]))).fact
    assert (await facts.get(learned.id, tenant="a")).object == "Lisbon"
    with pytest.raises(NotFound):
        await facts.get(learned.id, tenant="b")
    gone = await facts.invalidate(learned.id, tenant="a")
    assert gone.invalidated_at is not None
    assert await facts.current("Ana", "lives_in", scope=scope) == []
    assert await facts.recall("Ana lives", scope=scope) == []
    with pytest.raises(NotFound):
        await facts.invalidate("missing", tenant="a")
    assert await facts.delete(learned.id, tenant="a") is True
    with pytest.raises(NotFound):
        await facts.get(learned.id, tenant="a")


async def test_bad_time_arguments(facts: SemanticMemory) -> None:
    with pytest.raises(ValidationError) as info:
        await facts.recall("x", scope=Scope(), valid_at=datetime(2024, 1, 1))
    assert info.value.field == "valid_at"
    with pytest.raises(ValidationError, match="k"):
        await facts.recall("x", scope=Scope(), k=0)


async def test_concurrent_learns_leave_exactly_one_current_value(facts: SemanticMemory) -> None:
    scope = Scope(tenant="race")
    cities = [f"City{i}" for i in range(12)]
    await asyncio.gather(*(facts.learn(lives(scope, c, Y[1])) for c in cities))
    current = await facts.current("Ana", "lives_in", scope=scope)
    assert len(current) == 1
    assert current[0].object in cities


def value_at(timeline: dict[datetime, str], t: datetime) -> str | None:
    starts = [s for s in timeline if s <= t]
    return timeline[max(starts)] if starts else None


@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(["ana", "bob"]),
            st.sampled_from(["Lisbon", "Porto", "Rome"]),
            st.integers(0, 9),
        ),
        min_size=1,
        max_size=12,
    )
)
async def test_property_one_current_value_and_the_right_value_at_any_time(
    facts: SemanticMemory, learns: list[tuple[str, str, int]]
) -> None:
    scope = Scope(tenant=f"p-{uuid.uuid4().hex[:12]}")
    model: dict[str, dict[datetime, str]] = {}
    for person, city, year in learns:
        await facts.learn(
            Fact(
                scope=scope,
                statement=f"{person} lives in {city}",
                subject=person,
                predicate="lives_in",
                object=city,
                valid_from=Y[year],
            )
        )
        timeline = model.setdefault(person, {})
        if value_at(timeline, Y[year]) != city:
            timeline[Y[year]] = city
    for person, timeline in model.items():
        current = await facts.current(person, "lives_in", scope=scope)
        assert len(current) == 1
        assert current[0].object == value_at(timeline, Y[-1] + timedelta(days=1))
        for year in range(10):
            expected = value_at(timeline, Y[year] + timedelta(days=1))
            hits = await facts.recall(
                f"{person} lives in",
                scope=scope,
                valid_at=Y[year] + timedelta(days=1),
                subject=person,
                predicate="lives_in",
            )
            assert [h.record.object for h in hits] == ([] if expected is None else [expected])


async def test_every_rewrite_keeps_the_vector(facts: SemanticMemory) -> None:
    scope = Scope(tenant="vec", user="ana")
    await facts.learn(lives(scope, "Lisbon", Y[1]))
    await facts.learn(lives(scope, "Lisbon", Y[2]))  # reinforced
    await facts.learn(lives(scope, "Porto", Y[5]))  # superseded: retired + closed versions
    found = await facts.recall("Ana lives in Lisbon", scope=scope, valid_at=Y[3], mode="vector")
    assert [h.record.object for h in found] == ["Lisbon"]
    now = await facts.recall("Ana lives in Porto", scope=scope, mode="vector")
    assert [h.record.object for h in now] == ["Porto"]
    gone = await facts.invalidate(now[0].record.id, tenant="vec")
    assert gone.invalidated_at is not None
    while_believed = gone.recorded_at + (gone.invalidated_at - gone.recorded_at) / 2
    believed_before = await facts.recall(
        "Ana lives in Porto", scope=scope, known_at=while_believed, mode="vector"
    )  # fmt: skip
    assert [h.record.object for h in believed_before] == ["Porto"]


async def test_end_closes_the_current_value_and_keeps_history(facts: SemanticMemory) -> None:
    scope = Scope(tenant="e", user="ana")
    await facts.learn(lives(scope, "Lisbon", Y[2]))
    ended = Fact(scope=scope, statement="Ana no longer lives in Lisbon", subject="Ana",
                 predicate="lives_in", object="the Lisbon", valid_from=Y[5])  # fmt: skip
    (closed,) = await facts.end(ended)
    assert (closed.object, closed.valid_from, closed.valid_to) == ("Lisbon", Y[2], Y[5])
    assert await facts.current("Ana", "lives_in", scope=scope) == []
    history = await facts.history("Ana", "lives_in", scope=scope)
    assert [(f.object, f.valid_to) for f in history] == [("Lisbon", Y[5])]
    assert await facts.end(ended) == []  # already closed: nothing changes


async def test_an_end_dated_before_a_value_was_said_ends_a_value_said_without_a_date(
    facts: SemanticMemory,
) -> None:
    """ "I work at Acme" (said in year 3, no date of its own), then "I got laid off" dated
    year 2: the job is over, closed where it was said. A value dated in the sentence itself
    ("since year 3") is another stretch, which an earlier end leaves alone."""
    scope = Scope(tenant="e3", user="ana")
    said = Fact(scope=scope, statement="Ana works at Acme", subject="Ana", predicate="works_at",
                object="Acme", valid_from=Y[3], metadata={SINCE: TOLD})  # fmt: skip
    await facts.learn(said)
    laid_off = Fact(scope=scope, statement="Ana no longer works at Acme", subject="Ana",
                    predicate="works_at", object=None, valid_from=Y[2])  # fmt: skip
    (closed,) = await facts.end(laid_off)
    assert (closed.object, closed.valid_from, closed.valid_to) == ("Acme", Y[3], Y[3])
    assert await facts.current("Ana", "works_at", scope=scope) == []
    history = await facts.history("Ana", "works_at", scope=scope)
    assert [(f.object, f.valid_to) for f in history] == [("Acme", Y[3])]
    dated = said.model_copy(update={"object": "Globex", "metadata": {}, "valid_from": Y[4]})
    await facts.learn(dated)
    assert await facts.end(laid_off) == []  # stated to start after the end: left alone
    assert [f.object for f in await facts.current("Ana", "works_at", scope=scope)] == ["Globex"]


async def test_end_of_multi_valued_facts_by_object_or_all(facts: SemanticMemory) -> None:
    scope = Scope(tenant="e2", user="ana")
    for food in ("meat", "fish"):
        await facts.learn(Fact(scope=scope, statement=f"Ana eats {food}", subject="Ana",
                               predicate="eats", object=food, valid_from=Y[1]))  # fmt: skip
    meat = Fact(scope=scope, statement="Ana no longer eats meat", subject="Ana",
                predicate="eats", object="meat", valid_from=Y[3])  # fmt: skip
    assert [f.object for f in await facts.end(meat)] == ["meat"]
    assert [f.object for f in await facts.current("Ana", "eats", scope=scope)] == ["fish"]
    # another owner's fact is never closed, and a fact starting after the end is left alone
    other = Scope(tenant="e2", user="bo")
    assert await facts.end(meat.model_copy(update={"scope": other, "object": None})) == []
    early = meat.model_copy(update={"object": None, "valid_from": Y[0]})
    assert await facts.end(early) == []
    everything = meat.model_copy(update={"object": None, "valid_from": Y[4]})
    assert [f.object for f in await facts.end(everything)] == ["fish"]
    assert await facts.current("Ana", "eats", scope=scope) == []
    with pytest.raises(ValidationError, match="subject"):
        await facts.end(Fact(scope=scope, statement="nothing"))


async def test_a_fact_learned_in_one_session_is_known_in_the_next(
    facts: SemanticMemory,
) -> None:
    owner = Scope(tenant=f"t-{uuid.uuid4().hex[:8]}", user="ana", agent="planner")
    one, two = owner.with_session("run-1"), owner.with_session("run-2")
    await facts.learn(Fact(scope=one, statement="Ana prefers trains"))
    await facts.learn(Fact(scope=two, statement="Ana prefers window seats"))
    every = {h.record.statement for h in await facts.recall("Ana prefers", scope=two)}
    assert every == {"Ana prefers trains", "Ana prefers window seats"}
    only = await facts.recall("Ana prefers", scope=two, session="run-1")
    assert [h.record.statement for h in only] == ["Ana prefers trains"]
    assert [h.record.scope.session for h in only] == ["run-1"]  # provenance is kept
    bo = two.model_copy(update={"user": "bo"})
    assert await facts.recall("Ana prefers", scope=bo) == []
    with pytest.raises(ValidationError, match="session"):
        await facts.recall("Ana", scope=two, session="x" * 129)


async def test_outdated_sources_are_the_episodes_whose_every_fact_was_replaced(
    lt_store: LongTermStore, embedder: HashEmbedder, facts: SemanticMemory
) -> None:
    scope = Scope(tenant=f"t-{uuid.uuid4().hex[:8]}", user="ana")
    lisbon, porto, meat, both, quiet = [
        await said(lt_store, embedder, scope, Y[i]) for i in (1, 2, 3, 4, 5)
    ]
    await facts.learn(lives(scope, "Lisbon", Y[1], lisbon))
    await facts.learn(lives(scope, "Porto", Y[2], porto))  # single-valued: supersedes Lisbon
    # many-valued, then ended ("I no longer eat meat"): whatever the cardinality
    eats = Fact(scope=scope, statement="Ana eats meat", subject="Ana", predicate="eats",
                object="meat", valid_from=Y[3], source_episode_ids=[meat])  # fmt: skip
    await facts.learn(eats)
    await facts.end(eats.model_copy(update={"valid_from": Y[6], "source_episode_ids": []}))
    # one episode stating two things, one of them still holding: not outdated
    await facts.learn(eats.model_copy(update={"statement": "Ana eats fish", "object": "fish",
                                              "source_episode_ids": [both]}))  # fmt: skip
    await facts.learn(Fact(scope=scope, statement="Ana works at Acme", subject="Ana",
                           predicate="works_at", object="Acme", valid_from=Y[4],
                           source_episode_ids=[both]))  # fmt: skip
    await facts.learn(Fact(scope=scope, statement="Ana works at Globex", subject="Ana",
                           predicate="works_at", object="Globex", valid_from=Y[7]))  # fmt: skip
    asked = [lisbon, porto, meat, both, quiet]
    # each with the turns, among those asked, that told what replaced it
    assert await facts.outdated_sources(asked, scope=scope) == {lisbon: {porto}, meat: set()}
    assert await facts.outdated_sources([], scope=scope) == {}
    # derived memories never cross users: another user sees no fact of Ana's
    other = Scope(tenant=scope.tenant, user="bo")
    assert await facts.outdated_sources(asked, scope=other) == {}


async def test_a_value_said_again_keeps_its_first_episode_current(
    lt_store: LongTermStore, embedder: HashEmbedder, facts: SemanticMemory
) -> None:
    scope = Scope(tenant=f"t-{uuid.uuid4().hex[:8]}", user="ana")
    first, again = [await said(lt_store, embedder, scope, Y[i]) for i in (1, 2)]
    await facts.learn(lives(scope, "Lisbon", Y[1], first))
    reinforced = await facts.learn(lives(scope, "Lisbon", Y[1], again))
    assert reinforced.action == "reinforced"
    assert await facts.outdated_sources([first, again], scope=scope) == {}


def anas(scope: Scope, predicate: str) -> Callable[[str, datetime], Fact]:
    """A maker of Ana's facts of ``predicate`` (a value and its start)."""

    def fact(thing: str, at: datetime) -> Fact:
        return Fact(scope=scope, statement=f"Ana {predicate} {thing}", subject="Ana",
                    predicate=predicate, object=thing, valid_from=at)  # fmt: skip

    return fact


async def test_an_ending_closes_the_values_that_begin_with_its_words(
    facts: SemanticMemory,
) -> None:
    scope = Scope(tenant=f"t-{uuid.uuid4().hex[:8]}", user="ana")
    plays = anas(scope, "plays")
    for thing in ("guitar in a band", "meatball bingo", "the piano"):
        await facts.learn(plays(thing, Y[1]))
    closed = await facts.end(plays("the guitar", Y[3]))
    assert [f.object for f in closed] == ["guitar in a band"]
    assert await facts.end(plays("meat", Y[3])) == []  # words, not letters
    assert [f.object for f in await facts.end(plays("Piano", Y[3]))] == ["the piano"]
    assert [f.object for f in await facts.current("Ana", "plays", scope=scope)] == [
        "meatball bingo"
    ]


async def test_an_ending_closes_the_values_that_end_with_its_words(
    facts: SemanticMemory,
) -> None:
    scope = Scope(tenant=f"t-{uuid.uuid4().hex[:8]}", user="ana")
    owns = anas(scope, "owns")
    for thing in ("a 2015 Honda Civic", "a cat named Luna", "a red bike"):
        await facts.learn(owns(thing, Y[1]))
    assert await facts.end(owns("Honda", Y[3])) == []  # neither first nor last
    assert [f.object for f in await facts.end(owns("named Luna", Y[3]))] == ["a cat named Luna"]
    assert [f.object for f in await facts.end(owns("Honda Civic", Y[3]))] == ["a 2015 Honda Civic"]
    assert [f.object for f in await facts.current("Ana", "owns", scope=scope)] == ["a red bike"]


async def test_a_turn_that_told_an_older_value_of_what_is_asked_is_outdated(
    lt_store: LongTermStore, embedder: HashEmbedder, facts: SemanticMemory
) -> None:
    """A turn that stated several things, one of them replaced since: outdated for a
    question about that one only."""
    scope = Scope(tenant=f"t-{uuid.uuid4().hex[:8]}", user="ana")
    both, raised = [await said(lt_store, embedder, scope, Y[i]) for i in (1, 2)]

    def budget(value: str, at: datetime, source: str) -> Fact:
        return Fact(scope=scope, statement=f"Ana's budget is {value}", subject="Ana",
                    predicate="budget", object=value, valid_from=at, cardinality="one",
                    source_episode_ids=[source])  # fmt: skip

    await facts.learn(budget("5000 dollars", Y[1], both))
    await facts.learn(lives(scope, "Lisbon", Y[1], both))  # still holds
    await facts.learn(budget("6500 dollars", Y[2], raised))
    assert await facts.outdated_sources([both, raised], scope=scope) == {}
    asked = [("ana", "BUDGET")]  # compared as stored: case and spacing aside
    found = await facts.outdated_sources([both, raised], scope=scope, topics=asked)
    assert found == {both: {raised}}
    other = [("Ana", "lives_in")]
    assert await facts.outdated_sources([both, raised], scope=scope, topics=other) == {}
