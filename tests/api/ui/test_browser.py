"""The inspector in a real browser against a real server: sign in, every view, the score
parts, the context budget, restoring a checkpoint, fact history, forgetting a user, and a
second tenant that sees nothing of the first."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import expect

from tests.api.ui.seed import SESSION, Seeded, client

pytestmark = pytest.mark.slow

#: Text of tenant acme's records; none of it may show to a key of tenant globex.
ACME_TEXT = ["Lisbon", "Porto", "payment mock", "safe deploy", "s-checkout", "release engineer",
             "caching prices", "billing service"]  # fmt: skip


def sign_in(page: Any, seeded: Seeded, key: str, *, read_only: bool = False) -> None:
    page.goto(f"{seeded.url}/ui")
    page.get_by_label("API key").fill(key)
    if read_only:
        page.get_by_label("Browse read-only (no edits)").check()
    page.get_by_role("button", name="Open").click()
    ready(page, "overview")


def ready(page: Any, view: str) -> None:
    """Wait until ``view`` has rendered (not an earlier rendering of it, marked stale)."""
    page.wait_for_selector(f"#view-{view}[data-ready='1'][aria-busy='false']:not(.stale)")


def open_view(page: Any, view: str, query: str = "") -> None:
    """Follow the navigation link (as a person would), or open the view's address with a
    query (as a bookmark would). Page scripts are not evaluated: the CSP forbids eval."""
    if page.evaluate("location.hash") == f"#/{view}" and not query:
        ready(page, view)  # already there
        return
    page.evaluate("document.querySelector('.view')?.classList.add('stale')")
    if query:
        page.evaluate("hash => { location.hash = hash; }", f"#/{view}?{query}")
    else:
        page.get_by_role("navigation", name="Views").locator(f"a[href='#/{view}']").click()
    ready(page, view)


def narrow_to(page: Any, user: str) -> None:
    page.evaluate("document.querySelector('.view')?.classList.add('stale')")
    page.locator("#scope-user").fill(user)
    page.get_by_role("button", name="Apply").click()
    page.wait_for_selector(".view[data-ready='1'][aria-busy='false']:not(.stale)")


def settled(page: Any, budget: int) -> None:
    """The context assembled for ``budget`` is shown (no request for it still running)."""
    page.wait_for_selector(f"#context-result[data-budget='{budget}'][aria-busy='false']")


def shot(page: Any, where: Path, view: str) -> None:
    page.screenshot(path=str(where / f"inspector-{view}.png"))


def api(seeded: Seeded, key: str | None = None) -> httpx.Client:
    return client(seeded.url, key or seeded.key_a)


def test_the_key_is_asked_for_kept_in_session_storage_and_never_in_a_url(
    page: Any, seeded: Seeded, screenshots: Path
) -> None:
    page.goto(f"{seeded.url}/ui")
    assert page.get_by_label("API key").is_visible()
    shot(page, screenshots, "login")
    page.get_by_label("API key").fill("sdm_not-a-key-at-all-not-a-key-at-all")
    page.get_by_role("button", name="Open").click()
    page.wait_for_selector("#login-error:has-text('not valid')")
    sign_in(page, seeded, seeded.key_a)
    assert seeded.key_a not in page.url
    assert page.evaluate("sessionStorage.getItem('sedimem.key')") == seeded.key_a
    assert page.evaluate("localStorage.length") == 0
    assert page.locator("#who").inner_text().startswith("tenant acme")
    page.reload()  # same tab: still signed in
    ready(page, "overview")
    page.get_by_role("button", name="Sign out").click()
    assert page.evaluate("sessionStorage.getItem('sedimem.key')") is None
    assert page.get_by_label("API key").is_visible()


def test_a_key_submitted_before_the_script_runs_reaches_no_url(
    browser: Any, seeded: Seeded
) -> None:
    # without scripts (or before the module has loaded) the sign-in form submits as a plain
    # HTML form: it must carry no key into the address, the history or a server log
    context = browser.new_context(java_script_enabled=False)
    try:
        tab = context.new_page()
        tab.goto(f"{seeded.url}/ui")
        tab.get_by_label("API key").fill(seeded.key_a)
        tab.get_by_role("button", name="Open").click()
        tab.wait_for_load_state()
        assert seeded.key_a not in tab.url
        assert "key=" not in tab.url
    finally:
        context.close()


def test_every_view_opens_and_shows_the_seeded_memory(
    page: Any, seeded: Seeded, screenshots: Path
) -> None:
    sign_in(page, seeded, seeded.key_a)
    shot(page, screenshots, "overview")  # tenant-wide: every user's records, per user
    narrow_to(page, "ana")
    ready(page, "overview")
    with api(seeded) as a:
        stats = a.get("/v1/stats", params={"user": "ana"}).json()
    tiles = {
        label: int(page.locator(f"[data-count='{label}']").inner_text())
        for label in ("Episodes", "Current facts", "Procedures")
    }
    assert tiles == {
        "Episodes": stats["episodes"],
        "Current facts": stats["current_facts"],
        "Procedures": stats["procedures"],
    }
    assert page.locator("#live-sessions").inner_text().startswith(SESSION)
    assert page.locator("[data-lag='facts']").inner_text() != "never run"

    open_view(page, "session", f"name={SESSION}&user=ana")
    assert page.locator("#task").get_by_text("75%").count() == 1
    assert json.loads(page.locator("tr[data-key='step'] .value").inner_text()) == "patched mock"
    # the time each key has left: a key set with a TTL counts down, one without lives as long
    # as the session
    with api(seeded) as a:
        keys = a.get(f"/v1/sessions/{SESSION}/keys", params={"user": "ana"}).json()["items"]
    ttl = {k["key"]: k["ttl_left_seconds"] for k in keys}
    left = page.locator("tr[data-key='lock'] td").nth(1).inner_text()
    assert re.fullmatch(r"\d+ s", left), left
    assert 0 < int(left.split()[0]) <= 900
    assert int(left.split()[0]) == pytest.approx(ttl["lock"], abs=60)
    assert ttl["cart"] is None
    assert page.locator("tr[data-key='cart'] td").nth(1).inner_text() == "with the session"
    assert page.locator("#scratchpad li").count() == 2
    assert page.locator(f"tr[data-checkpoint='{seeded.checkpoint}']").count() == 1
    shot(page, screenshots, "session")

    open_view(page, "episodes")
    assert page.locator("#episode-list li").count() == 3  # ana's two and the tenant-wide one
    page.get_by_label("Outcome").select_option("failure")
    page.evaluate("document.querySelector('.view')?.classList.add('stale')")
    page.get_by_role("button", name="Filter").click()
    ready(page, "episodes")
    expect(page.locator("#episode-list li")).to_have_count(1)
    page.locator("#episode-list button").first.click()
    detail = page.locator("#episode-detail")
    assert "never cache prices across a sale" in detail.inner_text()
    assert "saw stale totals" in detail.inner_text()
    shot(page, screenshots, "episodes")

    open_view(page, "facts", "subject=ana")
    page.get_by_role("button", name="Ana lives in Porto").click()
    history = page.locator("#fact-detail section")
    history.wait_for()
    # Lisbon as first believed (retired when Porto came), Lisbon ended in 2024, Porto
    assert history.get_attribute("data-versions") == "3"
    assert history.get_attribute("data-current") == "2"
    assert page.locator("#bitemporal .version").count() == 3
    assert page.locator("#bitemporal .version.retired").count() == 1
    chain = [c.inner_text() for c in page.locator("#fact-detail td.chain").all()]
    assert chain == ["→ v2, v3", "→ v3", ""]
    page.set_viewport_size({"width": 1100, "height": 1080})  # the chart below the list
    shot(page, screenshots, "facts")
    page.set_viewport_size({"width": 1100, "height": 800})

    open_view(page, "procedures")
    deploy = page.locator("section", has_text="safe deploy (v2)")
    assert "2 success(es), 1 failure(s)" in deploy.inner_text()
    assert "1 earlier version(s)" in deploy.inner_text()
    # the success rate over time: the rate after each logged use, as the server logged them
    with api(seeded) as a:
        listed = a.get("/v1/procedures", params={"user": "ana"}).json()["items"]
    uses = next(p for p in listed if p["name"] == "safe deploy")["metadata"]["uses"]
    assert [u["success"] for u in uses] == [True, True, False]
    trend = deploy.locator("figure.trend svg")
    assert trend.get_attribute("data-rates") == "0.667,0.750,0.600"  # (s + 1) / (n + 2)
    assert deploy.locator("figure.trend circle.dot.failure").count() == 1
    shot(page, screenshots, "procedures")

    open_view(page, "blocks")
    assert "careful release engineer" in page.locator("[data-block='persona']").inner_text()
    shot(page, screenshots, "blocks")

    open_view(page, "consolidation")
    logged = page.locator("section", has_text="Logged runs")
    assert logged.locator("tr.ok").count() == 3
    shot(page, screenshots, "consolidation")

    open_view(page, "gdpr")
    page.get_by_role("button", name="Prepare export").click()
    link = page.locator("#export-link")
    link.wait_for()
    assert link.get_attribute("href").startswith("blob:")  # no key in any URL
    records = int(re.search(r"\((\d+) records\)", link.inner_text()).group(1))  # type: ignore[union-attr]
    with api(seeded) as a:
        exported = a.get("/v1/export", params={"user": "ana"}).text.strip().splitlines()
    assert records == len(exported) > 0
    shot(page, screenshots, "gdpr")


def test_episodes_filter_by_task_type_time_and_user(page: Any, seeded: Seeded) -> None:
    sign_in(page, seeded, seeded.key_a)
    open_view(page, "episodes")

    def filtered(**fields: str) -> list[str]:
        for name, value in fields.items():  # the filter form's fields (not the scope bar's)
            page.locator(f"#f-{name}").fill(value)
        page.evaluate("document.querySelector('.view')?.classList.add('stale')")
        page.get_by_role("button", name="Filter").click()
        ready(page, "episodes")
        return [li.get_attribute("data-id") for li in page.locator("#episode-list li").all()]

    def asked(**query: str) -> list[str]:
        with api(seeded) as a:
            found = a.get("/v1/episodes", params={**query, "newest_first": "true"}).json()
        return [e["id"] for e in found["items"]]

    shown = filtered(user="ana", task_type="checkout")
    assert len(shown) == 2  # ana's two checkout episodes; not bob's deploy, not the triage
    assert shown == asked(user="ana", task_type="checkout")
    assert "task_type=checkout" in page.url  # a bookmarkable view
    assert "user=ana" in page.url
    shown = filtered(since="2026-11-21", until="2026-11-21")
    assert shown == asked(user="ana", task_type="checkout", since="2026-11-21T00:00:00Z",
                          until="2026-11-21T23:59:59Z")  # fmt: skip
    assert page.locator("#episode-list li").inner_text().count("caching prices") == 1
    shown = filtered(user="bob", task_type="", since="", until="")
    texts = page.locator("#episode-list").inner_text()
    assert shown == asked(user="bob")
    assert "billing service" in texts
    assert "payment mock" not in texts  # ana's episodes are not bob's


def test_a_key_narrowed_to_a_user_fixes_the_scope_to_that_user(page: Any, seeded: Seeded) -> None:
    sign_in(page, seeded, seeded.key_ana)
    assert "key narrowed to user=ana" in page.locator("#who").inner_text()
    scope_user = page.locator("#scope-user")
    assert scope_user.is_disabled()
    assert scope_user.input_value() == "ana"
    with api(seeded, seeded.key_ana) as a:
        stats = a.get("/v1/stats").json()
    assert page.locator("[data-count='Episodes']").inner_text() == str(stats["episodes"])
    open_view(page, "episodes", "user=bob")  # a bookmark naming another user changes nothing
    assert page.locator("#f-user").is_disabled()
    texts = page.locator("#episode-list").inner_text()
    assert "caching prices" in texts
    assert "billing service" not in texts


def test_the_overview_lists_users_and_narrows_to_one(page: Any, seeded: Seeded) -> None:
    sign_in(page, seeded, seeded.key_a)
    with api(seeded) as a:
        users = a.get("/v1/stats", params={"by_user": "true"}).json()["by_user"]
    ana = next(u for u in users if u["user"] == "ana")
    row = page.locator("section", has_text="Users").locator("tr", has_text="ana")
    assert row.locator("td").nth(1).inner_text() == str(ana["episodes"])
    page.evaluate("document.querySelector('.view')?.classList.add('stale')")
    row.get_by_role("button", name="ana").click()
    ready(page, "overview")
    assert page.locator("#scope-user").input_value() == "ana"
    with api(seeded) as a:
        seen = a.get("/v1/stats", params={"user": "ana"}).json()  # hers and the shared ones
    assert page.locator("[data-count='Episodes']").inner_text() == str(seen["episodes"])


def test_the_score_parts_shown_are_the_apis(page: Any, seeded: Seeded, screenshots: Path) -> None:
    sign_in(page, seeded, seeded.key_a)
    narrow_to(page, "ana")
    open_view(page, "search")
    page.get_by_label("Query").fill("checkout payment mock")
    page.get_by_label("Mode").select_option("hybrid")
    with page.expect_response("**/v1/recall") as answered:
        page.get_by_role("button", name="Search").click()
    found = answered.value.json()  # exactly what the server answered the page
    ready(page, "search")
    with api(seeded) as a:
        body = {"query": "checkout payment mock", "user": "ana", "mode": "hybrid", "k": 10,
                "tiers": ["episodes", "facts", "procedures"]}  # fmt: skip
        again = a.post("/v1/recall", json=body).json()
    compared = 0
    for tier in ("episodes", "facts", "procedures"):
        shown = page.locator(f"ol.hits[data-tier='{tier}'] > li")
        assert shown.count() == len(found[tier]) > 0
        for i, hit in enumerate(found[tier]):
            item = shown.nth(i)
            assert item.get_attribute("data-id") == hit["record"]["id"]
            for part in ("keyword", "vector", "recency", "importance", "fused", "score"):
                raw = item.locator(f"dd[data-part='{part}']").get_attribute("data-value")
                assert (float(raw) if raw else None) == hit["explain"][part], (tier, part)
                compared += 1
            # the same query asked again: the same parts (recency moves with the clock)
            twin = again[tier][i]["explain"]
            for part in ("keyword", "vector", "importance"):
                assert twin[part] == hit["explain"][part]
            assert twin["recency"] == pytest.approx(hit["explain"]["recency"], abs=1e-4)
    assert compared >= 18
    shot(page, screenshots, "search")
    # one tier, keyword only: the page asks for exactly that and shows that tier alone
    form = page.get_by_role("search", name="Search memories")
    for tier in ("episodes", "procedures"):
        form.get_by_label(tier).uncheck()
    page.get_by_label("Mode").select_option("keyword")
    page.evaluate("document.querySelector('.view')?.classList.add('stale')")
    with page.expect_request("**/v1/recall") as asked:
        page.get_by_role("button", name="Search").click()
    sent = asked.value.post_data_json
    assert (sent["tiers"], sent["mode"]) == (["facts"], "keyword")
    ready(page, "search")
    assert page.locator("ol.hits[data-tier='facts'] > li").count() == len(
        asked.value.response().json()["facts"]
    )
    assert (
        page.locator("ol.hits[data-tier='episodes'], ol.hits[data-tier='procedures']").count() == 0
    )


def test_the_context_never_exceeds_the_budget_on_the_slider(
    page: Any, seeded: Seeded, screenshots: Path
) -> None:
    sign_in(page, seeded, seeded.key_a)
    narrow_to(page, "ana")
    open_view(page, "context", "q=checkout%20mock%20deploy&budget=800")
    page.wait_for_selector("#tokens-used")
    slider = page.get_by_label("Budget")
    seen_dropped = False
    for budget in (800, 60, 200, 30, 400):
        slider.evaluate(
            "(el, v) => { el.value = String(v); el.dispatchEvent(new Event('input')); }", budget
        )
        settled(page, budget)
        used = int(page.locator("#tokens-used").inner_text())
        assert int(page.locator("#tokens-budget").inner_text()) == budget
        assert 0 <= used <= budget
        reasons = [r.inner_text().strip() for r in page.locator("tr.dropped td:nth-child(5)").all()]
        assert all(reasons), reasons
        seen_dropped |= bool(reasons)
    assert seen_dropped  # a small budget drops items, and the report says why
    # keyboard: the slider moves with the arrow keys, by its step
    slider.focus()
    page.keyboard.press("ArrowRight")
    settled(page, 410)
    assert int(page.locator("#tokens-used").inner_text()) <= 410
    slider.evaluate("el => { el.value = '120'; el.dispatchEvent(new Event('input')); }")
    settled(page, 120)
    shot(page, screenshots, "context")


def test_restoring_a_checkpoint_brings_its_state_back(page: Any, seeded: Seeded) -> None:
    sign_in(page, seeded, seeded.key_a)
    open_view(page, "session", f"name={SESSION}&user=ana")
    value = page.locator("tr[data-key='step'] .value")
    assert json.loads(value.inner_text()) == "patched mock"
    row = page.locator(f"tr[data-checkpoint='{seeded.checkpoint}']")
    row.get_by_role("button", name="Restore").click()
    dialog = page.get_by_role("dialog")
    assert "before fix" in dialog.inner_text()
    dialog.get_by_role("button", name="Restore").click()
    expect(page.locator("tr[data-key='step'] .value")).to_have_text('"read logs"')
    with api(seeded) as a:
        step = a.get(f"/v1/sessions/{SESSION}/kv/step", params={"user": "ana"}).json()
    assert step["value"] == "read logs"
    assert page.locator("#scratchpad li").count() == 1  # the note written after it is gone
    assert page.locator(f"tr[data-checkpoint='{seeded.checkpoint}']").count() == 1  # kept


def test_forking_a_checkpoint_opens_a_new_session_with_its_state(page: Any, seeded: Seeded) -> None:
    sign_in(page, seeded, seeded.key_a)
    open_view(page, "session", f"name={SESSION}&user=ana")
    row = page.locator(f"tr[data-checkpoint='{seeded.checkpoint}']")
    row.get_by_role("button", name="Fork").click()
    dialog = page.get_by_role("dialog")
    dialog.get_by_label("New session id").fill("s-forked")
    page.evaluate("document.querySelector('.view')?.classList.add('stale')")
    dialog.get_by_role("button", name="Fork").click()
    ready(page, "session")
    expect(page.locator("#session-name")).to_have_text("Session s-forked")
    assert "name=s-forked" in page.url
    assert json.loads(page.locator("tr[data-key='step'] .value").inner_text()) == "read logs"
    assert page.locator("#scratchpad li").count() == 1  # as checkpointed
    with api(seeded) as a:
        step = a.get("/v1/sessions/s-forked/kv/step", params={"user": "ana"}).json()
        live = a.get("/v1/sessions", params={"user": "ana"}).json()["items"]
    assert step["value"] == "read logs"
    assert {SESSION, "s-forked"} <= {s["session"] for s in live}  # the original goes on


def test_invalidating_a_fact_changes_its_history(page: Any, seeded: Seeded) -> None:
    sign_in(page, seeded, seeded.key_a)
    narrow_to(page, "ana")
    open_view(page, "facts", "subject=ana")
    page.get_by_role("button", name="Ana likes green tea").click()
    history = page.locator("#fact-detail section")
    history.wait_for()
    assert history.get_attribute("data-versions") == "1"
    assert history.get_attribute("data-current") == "1"
    history.get_by_role("button", name="Invalidate").click()
    page.get_by_role("dialog").get_by_role("button", name="Invalidate").click()
    page.wait_for_selector("#fact-detail section[data-current='0']")
    assert page.locator("#bitemporal .version.retired").count() == 1
    with api(seeded) as a:
        current = a.get("/v1/facts/current", params={"user": "ana", "subject": "ana"}).json()
    assert "green tea" not in [f["object"] for f in current["items"]]


def test_edits_are_confirmed_and_shown_at_once(page: Any, seeded: Seeded) -> None:
    sign_in(page, seeded, seeded.key_a)
    # a pinned block, edited in place
    open_view(page, "blocks")
    page.locator("[data-block='persona']").get_by_role("button", name="Edit").click()
    dialog = page.get_by_role("dialog")
    dialog.get_by_label("Content").fill("You are a careful release engineer who writes tests.")
    page.evaluate("document.querySelector('.view')?.classList.add('stale')")
    dialog.get_by_role("button", name="Save").click()
    ready(page, "blocks")
    assert "who writes tests" in page.locator("[data-block='persona']").inner_text()
    # a fact, corrected: a new version, the old one kept as history
    open_view(page, "facts", "subject=checkout")
    page.get_by_role("button", name="The checkout service is owned by the payments team").click()
    history = page.locator("#fact-detail section")
    history.get_by_role("button", name="Correct").click()
    dialog = page.get_by_role("dialog")
    dialog.get_by_label("Value").fill("platform team")
    dialog.get_by_label("Statement").fill("The checkout service is owned by the platform team")
    dialog.get_by_role("button", name="Correct").click()
    page.wait_for_selector("#fact-detail section[data-versions='2'][data-current='1']")
    assert "platform team" in page.locator("#fact-detail tr[data-current='true']").inner_text()
    # an episode, deleted
    narrow_to(page, "ana")
    open_view(page, "episodes")
    page.get_by_role("button", name=re.compile("caching prices")).click()
    page.get_by_role("button", name="Delete episode").click()
    page.evaluate("document.querySelector('.view')?.classList.add('stale')")
    page.get_by_role("dialog").get_by_role("button", name="Delete").click()
    ready(page, "episodes")
    expect(page.locator("#episode-list li", has_text="caching prices")).to_have_count(0)
    with api(seeded) as a:
        left = a.get("/v1/episodes", params={"user": "ana"}).json()["items"]
    assert "caching prices" not in " ".join(e["description"] for e in left)


def test_forgetting_a_user_needs_the_typed_name_and_leaves_nothing(
    page: Any, seeded: Seeded, screenshots: Path
) -> None:
    sign_in(page, seeded, seeded.key_a)
    open_view(page, "gdpr")
    page.locator("#forget-user").fill("bob")
    page.get_by_role("button", name="Forget…").click()
    dialog = page.get_by_role("dialog")
    confirm = dialog.get_by_role("button", name="Forget")
    assert confirm.is_disabled()
    dialog.get_by_label("Type bob to confirm").fill("bo")
    assert confirm.is_disabled()
    dialog.get_by_label("Type bob to confirm").fill("bob")
    shot(page, screenshots, "gdpr-forget")
    confirm.click()
    receipt = page.locator("#forget-receipt")
    receipt.wait_for()
    assert receipt.locator("[data-kind='episodes']").inner_text() == "1"
    shot(page, screenshots, "gdpr-receipt")
    narrow_to(page, "bob")
    open_view(page, "episodes")
    assert page.locator("#episode-list li", has_text="billing service").count() == 0
    with api(seeded) as a:
        left = a.get("/v1/episodes", params={"user": "bob"}).json()["items"]
    assert [e for e in left if e["scope"].get("user") == "bob"] == []


def test_a_key_of_another_tenant_sees_nothing_of_the_first(page: Any, seeded: Seeded) -> None:
    sign_in(page, seeded, seeded.key_b)
    assert page.locator("#who").inner_text().startswith("tenant globex")
    for view, query in [("overview", ""), ("session", f"name={SESSION}&user=ana"),
                        ("episodes", "user=ana"), ("facts", ""), ("procedures", ""),
                        ("blocks", ""), ("search", "q=checkout%20deploy%20Lisbon"),
                        ("context", "q=checkout%20deploy%20Lisbon&budget=2000"),
                        ("consolidation", ""), ("gdpr", "")]:  # fmt: skip
        open_view(page, view, query)
        text = page.locator("main").inner_text()
        # the session view names the session asked for (from its address), nothing more
        echoed = {SESSION} if view == "session" else set()
        leaked = [t for t in ACME_TEXT if t in text and t not in echoed]
        assert leaked == [], (view, leaked)
        if view == "session":
            assert "No keys." in text
            assert "No checkpoints." in text
    open_view(page, "facts")
    assert page.get_by_role("button", name="Globex is run by Hank").count() == 1  # its own


@pytest.mark.parametrize("chosen", [False, True], ids=["read-only-key", "read-only-chosen"])
def test_read_only_mode_offers_no_edit(page: Any, seeded: Seeded, chosen: bool) -> None:
    # a key that cannot write turns read-only mode on; a person may choose it for any key
    sign_in(page, seeded, seeded.key_a if chosen else seeded.key_reader, read_only=chosen)
    assert page.locator("#read-only-badge").is_visible()
    open_view(page, "session", f"name={SESSION}&user=ana")
    assert page.get_by_role("button", name="Restore").count() == 0
    assert page.get_by_role("button", name="Checkpoint now").count() == 0
    open_view(page, "blocks")
    assert page.get_by_role("button", name="Edit").count() == 0
    open_view(page, "gdpr")
    assert page.get_by_role("button", name="Forget…").count() == 0
    assert page.get_by_role("button", name="Prepare export").count() == 1  # reading is fine
    open_view(page, "consolidation")
    assert page.get_by_role("button", name="Consolidate now").count() == 0


def test_the_views_can_be_reached_by_keyboard(page: Any, seeded: Seeded) -> None:
    sign_in(page, seeded, seeded.key_a)
    page.reload()  # still signed in (session storage); focus starts at the top
    ready(page, "overview")
    page.keyboard.press("Tab")  # the skip link comes first
    assert page.evaluate("document.activeElement.textContent") == "Skip to content"
    links = page.get_by_role("navigation", name="Views").locator("a")
    labels = [links.nth(i).inner_text() for i in range(links.count())]
    assert labels[:3] == ["Overview", "Sessions", "Episodes"]
    links.nth(2).focus()
    page.keyboard.press("Enter")
    ready(page, "episodes")
    assert page.locator("nav a[aria-current='page']").inner_text() == "Episodes"
    assert page.evaluate("document.activeElement.id") == "view-title"  # focus follows
    # every form control of the view has a label
    unlabelled = page.evaluate(
        "[...document.querySelectorAll('main input, main select, main textarea')]"
        ".filter(el => !el.labels?.length && !el.getAttribute('aria-label')).map(el => el.id)"
    )
    assert unlabelled == []


@pytest.mark.parametrize(
    ("view", "count", "words"),
    [("episodes", "episodes", "pinning the payment mock"), ("facts", "current_facts", "Porto")],
)
def test_with_no_user_chosen_a_view_says_a_user_must_be_chosen(
    page: Any, seeded: Seeded, view: str, count: str, words: str
) -> None:
    """The Overview counts every user's records; a view with no user lists only those naming
    none, so it says so and offers the users whose records it leaves out."""
    sign_in(page, seeded, seeded.key_a)
    with api(seeded) as a:
        users = a.get("/v1/stats", params={"by_user": "true"}).json()["by_user"]
    private = {u["user"]: u[count] for u in users if u["user"] and u[count]}
    open_view(page, view)
    hint = page.locator("#choose-user")
    expect(hint).to_contain_text("No user chosen")
    assert {b.get_attribute("data-user") for b in hint.get_by_role("button").all()} == set(private)
    assert words not in page.locator(f"#view-{view}").inner_text()  # ana's: not listed
    page.evaluate("document.querySelector('.view')?.classList.add('stale')")
    hint.get_by_role("button", name=re.compile("^ana ")).click()
    ready(page, view)
    assert page.locator("#scope-user").input_value() == "ana"
    assert page.locator("#choose-user").count() == 0
    assert words in page.locator(f"#view-{view}").inner_text()


def test_a_key_narrowed_to_a_user_is_never_asked_to_choose_one(page: Any, seeded: Seeded) -> None:
    sign_in(page, seeded, seeded.key_ana)
    for view in ("episodes", "facts", "procedures"):
        open_view(page, view)
        assert page.locator("#choose-user").count() == 0, view


def test_the_context_view_shows_what_each_item_says(page: Any, seeded: Seeded) -> None:
    sign_in(page, seeded, seeded.key_a)
    narrow_to(page, "ana")
    with page.expect_response("**/v1/context") as answered:
        open_view(page, "context", "q=checkout%20mock%20Porto&budget=120")
    report = answered.value.json()["report"]
    settled(page, 120)
    assert report["included"]
    for item in report["included"]:
        row = page.locator(f"#context-result tr[data-id='{item['id']}']").first
        assert item["text"]
        assert row.locator(".item-text").inner_text() == item["text"]
        assert row.locator(".item-text").get_attribute("title") == item["id"]
    for item in report["dropped"]:
        row = page.locator(f"#context-result tr.dropped[data-id='{item['id']}']").first
        if item["excerpt"]:
            assert row.locator(".item-text").inner_text() == item["excerpt"]
