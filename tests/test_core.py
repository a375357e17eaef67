import json

import pytest

from sedimem.config import DEFAULT_SINGLE_VALUED, Settings, WorkingSettings, default_home
from sedimem.errors import LimitExceeded, PermissionDenied, ValidationError
from sedimem.ids import new_id
from sedimem.scope import Scope


def test_scope_defaults_and_identity() -> None:
    assert Scope().tenant == "default"
    a = Scope(tenant="t", user="u", session="s")
    b = Scope(tenant="t", user="u", session="s")
    assert a == b
    assert a.digest == b.digest
    assert a.digest != Scope(tenant="t", user="u", session="s2").digest
    assert json.loads(a.canonical) == ["t", None, "u", None, None, "s"]
    # fields cannot collide by concatenation
    assert Scope(tenant="ab", project="c").digest != Scope(tenant="a", project="bc").digest


def test_scope_is_frozen_and_validated() -> None:
    scope = Scope(session="s")
    with pytest.raises(ValueError, match="frozen"):
        scope.tenant = "other"  # type: ignore[misc]
    for bad in ({"tenant": ""}, {"user": "x" * 129}, {"session": "a\nb"}, {"nope": "x"}):
        with pytest.raises(ValidationError) as info:
            Scope.parse(**bad)
        assert info.value.field.startswith("scope.")
    assert Scope.parse(tenant="t", session="s").with_session("s2").session == "s2"


@pytest.mark.parametrize("bad", ["\ud800", "a\nb", "", "x" * 129])
def test_the_constructor_refuses_with_our_error_naming_the_field(bad: str) -> None:
    # Scope(...) is how users build one: its refusal is ours, like every other input's.
    with pytest.raises(ValidationError) as info:
        Scope(tenant="t", user=bad)
    assert info.value.field == "scope.user"
    assert "printable characters" in (info.value.allowed or "")


def test_a_scope_inside_a_record_is_refused_naming_its_field() -> None:
    from sedimem.types import Episode

    with pytest.raises(ValidationError) as info:
        Episode(scope={"tenant": "t", "agent": "\x01"}, description="x")  # type: ignore[arg-type]
    assert info.value.field == "scope.agent"
    # a nested scope is validated by the schema alone (not by the constructor again)
    assert Scope.__pydantic_custom_init__ is False


def test_validation_error_names_field_and_allowed() -> None:
    err = LimitExceeded("value", "is too big", allowed="at most 10 bytes")
    assert str(err) == "value: is too big (allowed: at most 10 bytes)"
    assert isinstance(err, ValueError)
    assert ValidationError("f", "bad").allowed is None


def test_ids_are_unique_and_sortable_by_creation() -> None:
    ids = [new_id() for _ in range(2000)]
    assert len(set(ids)) == 2000
    assert ids == sorted(ids)


def test_settings_read_the_environment(monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("SEDIMEM_HOME", str(tmp_path))
    monkeypatch.setenv("SEDIMEM_WORKING__SESSION_TTL_SECONDS", "60")
    monkeypatch.setenv("SEDIMEM_WORKING__MAX_JOURNAL_ENTRIES", "500")
    settings = Settings()
    assert settings.working.max_journal_entries == 500
    assert settings.home == tmp_path
    assert settings.working.session_ttl_seconds == 60
    assert settings.resolved_working_url() == f"sqlite:///{tmp_path / 'sedimem.db'}"
    monkeypatch.setenv("SEDIMEM_WORKING_URL", "memory://")
    assert Settings().resolved_working_url() == "memory://"
    assert default_home().name == "sedimem"


def test_settings_refuse_out_of_range_values() -> None:
    with pytest.raises(ValueError, match="session_ttl_seconds"):
        WorkingSettings(session_ttl_seconds=0)
    with pytest.raises(ValueError, match="max_keys_per_session"):
        WorkingSettings(max_keys_per_session=0)
    with pytest.raises(ValueError, match="max_journal_entries"):
        WorkingSettings(max_journal_entries=0)
    with pytest.raises(ValueError, match="max_journal_entries"):
        WorkingSettings(max_journal_entries=100_000_001)


def test_a_scope_reaches_records_by_id_within_its_narrowing() -> None:
    tenant_wide = Scope(tenant="acme")
    ana = Scope(tenant="acme", user="ana", session="run-2")
    mine = Scope(tenant="acme", user="ana", agent="a1", session="run-1")
    shared = Scope(tenant="acme", project="p")
    bobs = Scope(tenant="acme", user="bob")
    # session is provenance: another session of the same user is reached, read and changed
    assert ana.reaches(mine)
    assert ana.reaches(mine, change=True)
    # a shared record is read by everyone, changed only by a scope not narrowed against it
    assert ana.reaches(shared)
    assert not ana.reaches(shared, change=True)
    assert tenant_wide.reaches(shared, change=True)
    assert tenant_wide.reaches(bobs, change=True)
    assert not ana.reaches(bobs)
    assert not ana.reaches(Scope(tenant="other", user="ana"))
    ana.ensure_reaches(mine, "fact 'x'", change=True)
    with pytest.raises(PermissionDenied, match="user='ana'"):
        ana.ensure_reaches(bobs, "fact 'x'")
    with pytest.raises(PermissionDenied, match="cannot be changed"):
        ana.ensure_reaches(shared, "fact 'x'", change=True)


def test_single_valued_predicates_are_a_setting(monkeypatch: pytest.MonkeyPatch) -> None:
    assert Settings().facts.single_valued_predicates == DEFAULT_SINGLE_VALUED
    monkeypatch.setenv("SEDIMEM_FACTS__EXTRA_SINGLE_VALUED", '["prefers_seat"]')
    assert Settings().facts.single_valued_predicates == DEFAULT_SINGLE_VALUED | {"prefers_seat"}
    monkeypatch.setenv("SEDIMEM_FACTS__SINGLE_VALUED", '["lives_in"]')
    assert Settings().facts.single_valued_predicates == {"lives_in", "prefers_seat"}
    with pytest.raises(ValueError, match="single_valued"):
        Settings(facts={"single_valued": [f"p{i}" for i in range(1001)]})  # type: ignore[arg-type]
