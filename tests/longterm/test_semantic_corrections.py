"""Facts that can be corrected: cardinality per fact and per tenant, possible conflicts,
corrections by id, on every long-term backend."""

from datetime import UTC, datetime, timedelta

import pytest

from sedimem.embed import HashEmbedder
from sedimem.errors import Conflict, LimitExceeded, NotFound, PermissionDenied, ValidationError
from sedimem.longterm.semantic import SemanticMemory
from sedimem.scope import Scope
from sedimem.storage.longterm.base import LongTermStore
from sedimem.types import Fact
from sedimem.types.edits import MAX_DECLARED_PREDICATES, MAX_PREDICATES_PER_CALL

Y = [datetime(2020 + i, 1, 1, tzinfo=UTC) for i in range(6)]


@pytest.fixture
def facts(lt_store: LongTermStore, embedder: HashEmbedder) -> SemanticMemory:
    return SemanticMemory(lt_store, embedder)


def seat(scope: Scope, where: str, since: datetime, **kwargs: object) -> Fact:
    return Fact(
        scope=scope,
        statement=f"Ana prefers the {where} seat",
        subject="Ana",
        predicate="prefers_seat",
        object=where,
        valid_from=since,
        **kwargs,  # type: ignore[arg-type]
    )


def lives(scope: Scope, city: str, since: datetime, **kwargs: object) -> Fact:
    return Fact(
        scope=scope,
        statement=f"Ana lives in {city}",
        subject="Ana",
        predicate="lives_in",
        object=city,
        valid_from=since,
        **kwargs,  # type: ignore[arg-type]
    )


async def test_cardinality_one_on_the_fact_supersedes(facts: SemanticMemory) -> None:
    scope = Scope(tenant="t", user="ana")
    window = await facts.learn(seat(scope, "window", Y[1]))
    assert window.action == "inserted"
    assert window.possible_conflicts == []
    aisle = await facts.learn(seat(scope, "aisle", Y[3], cardinality="one"))
    assert aisle.action == "superseded"
    assert aisle.superseded == [window.fact.id]
    assert [(f.object, f.valid_to) for f in aisle.closed] == [("window", Y[3])]
    assert [f.object for f in await facts.current("Ana", "prefers_seat", scope=scope)] == ["aisle"]
    history = await facts.history("Ana", "prefers_seat", scope=scope)
    assert [(f.object, f.valid_from, f.valid_to) for f in history] == [
        ("window", Y[1], Y[3]),
        ("aisle", Y[3], None),
    ]
    hits = await facts.recall("which seat does Ana prefer", scope=scope)
    assert [h.record.object for h in hits] == ["aisle"]


async def test_a_default_multi_valued_predicate_reports_possible_conflicts(
    facts: SemanticMemory,
) -> None:
    scope = Scope(tenant="t", user="ana")
    window = await facts.learn(seat(scope, "window", Y[1]))
    aisle = await facts.learn(seat(scope, "aisle", Y[2]))
    assert aisle.action == "inserted"
    assert [f.id for f in aisle.possible_conflicts] == [window.fact.id]
    current = await facts.current("Ana", "prefers_seat", scope=scope)
    assert {f.object for f in current} == {"window", "aisle"}
    # said explicitly: no conflict to report; the same value again: reinforced, no conflict
    middle = await facts.learn(seat(scope, "middle", Y[3], cardinality="many"))
    assert middle.action == "inserted"
    assert middle.possible_conflicts == []
    again = await facts.learn(seat(scope, "aisle", Y[4]))
    assert again.action == "reinforced"
    assert again.possible_conflicts == []
    # another user's value is not a conflict of Ana's
    bob = await facts.learn(seat(Scope(tenant="t", user="bob"), "aisle", Y[4]))
    assert bob.possible_conflicts == []


async def test_preferences_accumulate_by_default(facts: SemanticMemory) -> None:
    # "prefers" is not among the default single-valued predicates: a second preference
    # learned without a cardinality stands beside the first, as extraction's do
    scope = Scope(tenant="t", user="ana")

    def prefers(thing: str, since: datetime) -> Fact:
        return Fact(
            scope=scope, statement=f"Ana prefers {thing}", subject="Ana",
            predicate="prefers", object=thing, valid_from=since,
        )  # fmt: skip

    await facts.learn(prefers("quiet cafés", Y[1]))
    tea = await facts.learn(prefers("tea", Y[2]))
    assert tea.action == "inserted"
    current = await facts.current("Ana", "prefers", scope=scope)
    assert {f.object for f in current} == {"quiet cafés", "tea"}


async def test_a_tenant_declares_predicates_durably(
    facts: SemanticMemory, lt_store: LongTermStore, embedder: HashEmbedder
) -> None:
    scope = Scope(tenant="t", user="ana")
    await facts.learn(seat(scope, "window", Y[1]))
    declared = await facts.declare(["Prefers_Seat"], scope=Scope(tenant="t"))
    assert declared.declared == {"prefers_seat": "one"}
    assert "prefers_seat" in declared.single_valued
    assert "lives_in" in declared.single_valued
    # another service on the same store (another process, the server) follows it
    elsewhere = SemanticMemory(lt_store, embedder)
    assert await elsewhere.cardinality("prefers_seat", tenant="t") == "one"
    aisle = await elsewhere.learn(seat(scope, "aisle", Y[3]))
    assert aisle.action == "superseded"
    assert [f.object for f in await facts.current("Ana", "prefers_seat", scope=scope)] == ["aisle"]
    # other tenants keep the defaults; "many" overrides a default; the fact overrides both
    assert await facts.cardinality("prefers_seat", tenant="u") == "many"
    after = await facts.declare(["lives_in"], "many", scope=Scope(tenant="t"))
    assert "lives_in" not in after.single_valued
    assert "lives_in" in after.defaults
    assert (await facts.predicates(tenant="t")).declared == {
        "lives_in": "many",
        "prefers_seat": "one",
    }
    await facts.learn(lives(scope, "Oslo", Y[1]))
    rome = await facts.learn(lives(scope, "Rome", Y[2]))
    assert rome.action == "inserted"
    assert rome.possible_conflicts == []
    paris = await facts.learn(lives(scope, "Paris", Y[3], cardinality="one"))
    assert paris.action == "superseded"
    assert len(paris.superseded) == 2
    assert [f.object for f in await facts.current("Ana", "lives_in", scope=scope)] == ["Paris"]


async def test_bad_declarations_are_refused(facts: SemanticMemory) -> None:
    with pytest.raises(PermissionDenied, match="user='ana'"):
        await facts.declare(["prefers_seat"], scope=Scope(tenant="t", user="ana"))
    with pytest.raises(ValidationError) as too_many:
        await facts.declare(
            [f"p{i}" for i in range(MAX_PREDICATES_PER_CALL + 1)], scope=Scope(tenant="t")
        )
    assert too_many.value.field == "predicates"
    assert too_many.value.allowed == f"length <= {MAX_PREDICATES_PER_CALL}"
    with pytest.raises(ValidationError) as unknown:
        await facts.declare(["x"], "two", scope=Scope(tenant="t"))  # type: ignore[arg-type]
    assert unknown.value.field == "cardinality"
    for start in range(0, MAX_DECLARED_PREDICATES, MAX_PREDICATES_PER_CALL):
        names = [f"p{i}" for i in range(start, start + MAX_PREDICATES_PER_CALL)]
        await facts.declare(names, scope=Scope(tenant="t"))
    with pytest.raises(LimitExceeded) as full:
        await facts.declare(["one_more"], scope=Scope(tenant="t"))
    assert full.value.field == "predicates"
    assert len((await facts.predicates(tenant="t")).declared) == MAX_DECLARED_PREDICATES


def test_unknown_or_misplaced_cardinality_is_refused() -> None:
    with pytest.raises(ValidationError) as unknown:
        seat(Scope(), "aisle", Y[0], cardinality="two")
    assert unknown.value.field == "cardinality"
    assert unknown.value.allowed == "'one' or 'many'"
    with pytest.raises(ValidationError) as unstructured:
        Fact(statement="Ana likes jazz", cardinality="one")  # type: ignore[arg-type]
    assert unstructured.value.field == "cardinality"


async def test_a_correction_is_a_new_version_and_history_stays(facts: SemanticMemory) -> None:
    scope = Scope(tenant="t", user="ana")
    window = (await facts.learn(seat(scope, "window", Y[1]))).fact
    fixed = await facts.correct(
        window.id, {"object": "aisle", "statement": "Ana prefers the aisle seat"}, scope=scope
    )
    assert fixed.action == "superseded"
    assert fixed.superseded == [window.id]
    assert fixed.fact.id != window.id
    assert (fixed.fact.object, fixed.fact.valid_from) == ("aisle", Y[1])
    assert fixed.fact.metadata["corrects"] == window.id
    assert [f.object for f in await facts.current("Ana", "prefers_seat", scope=scope)] == ["aisle"]
    hits = await facts.recall("Ana prefers seat", scope=scope)
    assert [h.record.object for h in hits] == ["aisle"]
    before = fixed.fact.recorded_at - timedelta(microseconds=1)
    believed = await facts.history("Ana", "prefers_seat", scope=scope, known_at=before)
    assert [f.object for f in believed] == ["window"]
    # the superseded version cannot be edited: the error names the current one
    with pytest.raises(Conflict) as stale:
        await facts.correct(window.id, {"confidence": 0.5}, scope=scope)
    assert stale.value.field == "fact_id"
    assert stale.value.current == (fixed.fact.id,)
    assert fixed.fact.id in str(stale.value)
    # nor can an invalidated fact with nothing current
    await facts.invalidate(fixed.fact.id, scope=scope)
    with pytest.raises(Conflict, match="no current version"):
        await facts.correct(fixed.fact.id, {"confidence": 0.5}, scope=scope)


async def test_editing_a_fact_superseded_by_learning_names_the_current_one(
    facts: SemanticMemory,
) -> None:
    scope = Scope(tenant="t", user="ana")
    window = (await facts.learn(seat(scope, "window", Y[1]))).fact
    aisle = (await facts.learn(seat(scope, "aisle", Y[3], cardinality="one"))).fact
    with pytest.raises(Conflict) as stale:
        await facts.correct(window.id, {"object": "middle"}, scope=scope)
    assert aisle.id in stale.value.current


async def test_by_id_access_is_ruled_by_the_scope(facts: SemanticMemory) -> None:
    ana = Scope(tenant="t", user="ana", session="s1")
    fact = (await facts.learn(seat(ana, "window", Y[1]))).fact
    shared = (await facts.learn(Fact(scope=Scope(tenant="t"), statement="Trains run"))).fact
    other_session = Scope(tenant="t", user="ana", session="s2")
    assert (await facts.get(fact.id, scope=other_session)).id == fact.id
    with pytest.raises(NotFound):  # another tenant's id: as if absent
        await facts.get(fact.id, scope=Scope(tenant="u"))
    assert await facts.delete(fact.id, scope=Scope(tenant="u")) is False
    bob = Scope(tenant="t", user="bob")
    for attempt in (
        facts.get(fact.id, scope=bob),
        facts.correct(fact.id, {"confidence": 0.1}, scope=bob),
        facts.invalidate(fact.id, scope=bob),
        facts.delete(fact.id, scope=bob),
        facts.invalidate(shared.id, scope=ana),  # shared: Ana reads it, may not change it
    ):
        with pytest.raises(PermissionDenied):
            await attempt
    assert (await facts.get(shared.id, scope=ana)).statement == "Trains run"
    with pytest.raises(ValidationError, match="tenant"):
        await facts.get(fact.id, tenant="u", scope=ana)
    assert (await facts.invalidate(fact.id, scope=other_session)).invalidated_at is not None
    assert await facts.delete(fact.id, scope=other_session) is True
    with pytest.raises(NotFound):
        await facts.correct(fact.id, {"confidence": 0.1}, scope=ana)
    with pytest.raises(ValidationError) as bad:
        await facts.correct(shared.id, {"confidence": 2.0}, tenant="t")
    assert bad.value.field == "confidence"
    with pytest.raises(ValidationError) as order:
        await facts.correct(shared.id, {"valid_to": Y[0] - timedelta(days=1)}, tenant="t")
    assert order.value.field == "valid_to"


async def test_an_edited_object_rephrases_the_statement(facts: SemanticMemory) -> None:
    scope = Scope(tenant="t", user="ana")
    city = Fact(
        scope=scope, statement="ana lives in Munich.", subject="ana", predicate="lives_in",
        object="Munich", cardinality="one",
    )  # fmt: skip
    learned = (await facts.learn(city)).fact
    # the statement names the old object: the new one takes its place, wording kept
    moved = (await facts.correct(learned.id, {"object": "Hamburg"}, scope=scope)).fact
    assert moved.statement == "ana lives in Hamburg."
    hits = await facts.recall("where does ana live", scope=scope)
    assert [h.record.statement for h in hits] == ["ana lives in Hamburg."]
    # a statement that does not name the object: phrased from the parts
    odd = Fact(scope=scope, statement="Ana's pet", subject="ana", predicate="has_pet",
               object="dog named Rex")  # fmt: skip
    pet = (await facts.learn(odd)).fact
    fixed = (await facts.correct(pet.id, {"object": "cat named Tom"}, scope=scope)).fact
    assert fixed.statement == "ana has a cat named Tom."
    # a new statement alone that no longer names the object is refused, naming the field
    with pytest.raises(ValidationError) as refused:
        await facts.correct(moved.id, {"statement": "ana lives in Berlin."}, scope=scope)
    assert refused.value.field == "statement"
    assert "Hamburg" in str(refused.value)
    # the statement and the object together: the caller's words
    both = {"statement": "Ana is based in Berlin.", "object": "Berlin"}
    assert (await facts.correct(moved.id, both, scope=scope)).fact.statement == both["statement"]
