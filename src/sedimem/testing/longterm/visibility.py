"""Conformance: the visibility rule (DESIGN section 3), on every backend.

- ``session`` is provenance on a long-term record, never a boundary: a query from a session
  scope sees what its owner sees, from every session; "only this session" is the explicit
  ``RecordFilter.session``.
- On ``project``, ``agent_type`` and ``agent`` a record is visible when its value is unset,
  the query's is unset, or they are equal (sibling agents share what was filed at agent-type
  level, not what each filed privately).
- ``user`` is private: a record naming a user reaches only queries naming that user.
- ``all_users`` lifts the user rule for counting (statistics), and ``count_by_user`` splits
  such a count per user.
"""

from __future__ import annotations

from sedimem.scope import Scope
from sedimem.storage.longterm.base import LongTermStore, RecordFilter
from sedimem.testing.longterm.helpers import A, B, ConformanceBase, make_record, unit_vector

__all__ = ["VisibilityConformance"]

_AGENT = {"project": "p1", "agent_type": "coder", "agent": "a1"}


class VisibilityConformance(ConformanceBase):
    """Who sees which long-term record: the same answer from every read path."""

    async def _put(self, store: LongTermStore, spec: dict[str, dict[str, str]]) -> dict[str, str]:
        """One record per entry of ``spec`` (text ``echidna <key>``); the ids by key."""
        await self.bind(store)
        records = {
            key: make_record(f"echidna {key}", vector=unit_vector(i + 2), **fields)
            for i, (key, fields) in enumerate(spec.items())
        }
        await store.put(A, list(records.values()))
        return {key: record.id for key, record in records.items()}

    async def see(self, store: LongTermStore, scope: Scope, expected: list[str]) -> None:
        """Every read path under ``visible_to=scope`` selects exactly ``expected``."""
        await self.agree(store, RecordFilter(visible_to=scope), expected, "echidna")

    async def test_visibility_rule(self, store: LongTermStore) -> None:
        spec: dict[str, dict[str, str]] = {
            "tenant_wide": {},
            "p1": {"project": "p1"},
            "p2": {"project": "p2"},
            "p1_coder_a1": {"project": "p1", "agent_type": "coder", "agent": "a1"},
            "p1_coder_a2": {"project": "p1", "agent_type": "coder", "agent": "a2"},
            "p1_writer": {"project": "p1", "agent_type": "writer"},
            "s1": {**_AGENT, "session": "s1"},
            "s2": {**_AGENT, "session": "s2"},
            "lone_session": {"session": "s1"},
            "u1": {"user": "u1"},
            "u1_p1": {"user": "u1", "project": "p1"},
            "u2": {"user": "u2"},
        }
        ids = await self._put(store, spec)
        no_user = [k for k in spec if "user" not in spec[k]]
        agent_a1 = ["tenant_wide", "p1", "p1_coder_a1", "s1", "s2", "lone_session"]
        writer = ["tenant_wide", "p1", "p1_writer", "lone_session"]
        project_p1 = [*agent_a1, "p1_coder_a2", "p1_writer"]
        cases: list[tuple[Scope, list[str]]] = [
            # A query naming no user sees only records naming no user, at every level.
            (Scope(tenant=A), no_user),
            # A project-wide query sees the whole project (every agent, every session).
            (Scope(tenant=A, project="p1"), project_p1),
            # An agent sees what it, its agent type, project and tenant know, from every
            # session; a session of it sees exactly the same.
            (Scope(tenant=A, **_AGENT), agent_a1),
            (Scope(tenant=A, **_AGENT, session="s1"), agent_a1),
            (Scope(tenant=A, **_AGENT, session="s3"), agent_a1),
            (Scope(tenant=A, project="p1", agent_type="writer"), writer),
            (Scope(tenant=A, session="s2"), no_user),
            # A user sees their own records and everything naming no user.
            (Scope(tenant=A, user="u2"), [*no_user, "u2"]),
            (Scope(tenant=A, project="p1", user="u1"), [*project_p1, "u1", "u1_p1"]),
            (Scope(tenant=A, project="p2", user="u1"), ["tenant_wide", "p2", "lone_session", "u1"]),
            (Scope(tenant=A, project="p3"), ["tenant_wide", "lone_session"]),
        ]  # fmt: skip
        for scope, keys in cases:
            await self.see(store, scope, [ids[k] for k in keys])

    async def test_a_session_scope_sees_every_session_of_its_owner(
        self, store: LongTermStore
    ) -> None:
        ids = await self._put(
            store,
            {
                "run1": {**_AGENT, "user": "ana", "session": "run-1"},
                "run2": {**_AGENT, "user": "ana", "session": "run-2"},
                "owner": {**_AGENT, "user": "ana"},
            },
        )
        owner = Scope(tenant=A, user="ana", **_AGENT)
        everything = [ids["run1"], ids["run2"], ids["owner"]]
        for scope in (owner, owner.with_session("run-1"), owner.with_session("run-2")):
            await self.agree(store, RecordFilter(visible_to=scope), everything, "echidna")
            # the filter is the owner's: two sessions of one owner ask the same question
            assert RecordFilter(visible_to=scope) == RecordFilter(visible_to=owner)

    async def test_an_explicit_session_filter_narrows_to_that_session(
        self, store: LongTermStore
    ) -> None:
        ids = await self._put(
            store,
            {
                "run1": {**_AGENT, "user": "ana", "session": "run-1"},
                "run1_again": {**_AGENT, "user": "ana", "session": "run-1"},
                "run2": {**_AGENT, "user": "ana", "session": "run-2"},
                "owner": {**_AGENT, "user": "ana"},
                "bo_run1": {**_AGENT, "user": "bo", "session": "run-1"},
            },
        )
        scope = Scope(tenant=A, user="ana", session="run-2", **_AGENT)
        run1 = RecordFilter(visible_to=scope, session="run-1")
        await self.agree(store, run1, [ids["run1"], ids["run1_again"]], "echidna")
        run2 = RecordFilter(visible_to=scope, session="run-2")
        await self.agree(store, run2, [ids["run2"]], "echidna")
        # the session filter never widens the scope: another user's run-1 stays out
        bo = RecordFilter(visible_to=Scope(tenant=A, user="bo", **_AGENT), session="run-1")
        await self.agree(store, bo, [ids["bo_run1"]], "echidna")

    async def test_sibling_agents_share_the_agent_type_level_only(
        self, store: LongTermStore
    ) -> None:
        ids = await self._put(
            store,
            {
                "type_level": {"agent_type": "coder", "session": "s-a1"},
                "a1_private": {"agent_type": "coder", "agent": "a1", "session": "s-a1"},
                "a2_private": {"agent_type": "coder", "agent": "a2", "session": "s-a2"},
                "other_type": {"agent_type": "writer", "session": "s-w"},
            },
        )
        for agent, own in (("a1", "a1_private"), ("a2", "a2_private")):
            scope = Scope(tenant=A, agent_type="coder", agent=agent, session=f"new-{agent}")
            want = [ids["type_level"], ids[own]]
            await self.agree(store, RecordFilter(visible_to=scope), want, "echidna")

    async def test_a_users_records_stay_private_in_every_session(
        self, store: LongTermStore
    ) -> None:
        ids = await self._put(
            store,
            {
                "ana": {**_AGENT, "user": "ana", "session": "s1"},
                "bo": {**_AGENT, "user": "bo", "session": "s1"},
                "shared": {**_AGENT, "session": "s1"},
            },
        )
        for user in ("ana", "bo"):
            scope = Scope(tenant=A, user=user, session="s1", **_AGENT)
            await self.see(store, scope, [ids[user], ids["shared"]])
        # no user named: only what names no user, even from the very same session
        nobody = Scope(tenant=A, session="s1", **_AGENT)
        await self.agree(store, RecordFilter(visible_to=nobody), [ids["shared"]], "echidna")

    async def test_all_users_counts_every_users_records(self, store: LongTermStore) -> None:
        ids = await self._put(
            store,
            {
                "ana1": {"project": "p1", "user": "ana", "session": "s1"},
                "ana2": {"project": "p1", "user": "ana"},
                "bo": {"project": "p1", "user": "bo"},
                "shared": {"project": "p1"},
                "tenant_wide": {},
                "other_project": {"project": "p2", "user": "ana"},
            },
        )
        await store.put(B, [make_record("echidna", tenant=B, user="ana")])
        everyone = RecordFilter(visible_to=Scope(tenant=A, project="p1"), all_users=True)
        keys = ["ana1", "ana2", "bo", "shared", "tenant_wide"]
        await self.agree(store, everyone, [ids[k] for k in keys], "echidna")
        assert await store.count_by_user(A, everyone) == {"ana": 2, "bo": 1, None: 2}
        whole = RecordFilter(visible_to=Scope(tenant=A), all_users=True)
        assert await store.count_by_user(A, whole) == {"ana": 3, "bo": 1, None: 2}
        assert await store.count(A, whole) == 6
        # without all_users: a user's own records and those naming no user
        ana = RecordFilter(visible_to=Scope(tenant=A, user="ana"))
        assert await store.count_by_user(A, ana) == {"ana": 3, None: 2}
        assert await store.count_by_user(A, RecordFilter(kind="procedure")) == {}
