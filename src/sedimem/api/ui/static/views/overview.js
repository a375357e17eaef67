// Overview: counts per tier, users, recent and live sessions, consolidation lag.

import { ApiError, get } from "../api.js";
import { ago, empty, h, section, table, timeEl } from "../dom.js";

export const title = "Overview";

async function stats(scope) {
  try {
    return await get("v1/stats", { ...scope, by_user: true });
  } catch (error) {
    if (error instanceof ApiError && error.status === 422) return get("v1/stats", scope);
    throw error;
  }
}

async function runs() {
  try {
    return (await get("v1/consolidation/runs", { limit: 100 })).items;
  } catch (error) {
    if (error instanceof ApiError && error.status === 403) return null;  // a narrowed key
    throw error;
  }
}

function sessionLink(s) {
  const query = new URLSearchParams({ name: s.session });
  for (const f of ["project", "user", "agent_type", "agent"]) if (s[f]) query.set(f, s[f]);
  return h("a", { href: `#/session?${query}` }, s.session);
}

export async function render(root, ctx) {
  const scope = ctx.scope();
  const [counts, profile, live, log] = await Promise.all([
    stats(scope), get("v1/profile", { ...scope, sample: 0 }), get("v1/sessions", scope), runs(),
  ]);
  const tiles = [
    ["Episodes", counts.episodes, "episodes"],
    ["Current facts", counts.current_facts, "facts"],
    ["Fact versions", counts.facts, "facts"],
    ["Procedures", counts.procedures, "procedures"],
    ["Pinned blocks", profile.blocks, "blocks"],
    ["Live sessions", live.items.length, "session"],
  ];
  root.append(
    h("ul", { class: "tiles", "aria-label": "Counts per tier" },
      tiles.map(([label, value, view]) => h("li", { class: "tile" },
        h("a", { href: `#/${view}` }, h("span", { class: "value", dataset: { count: label } }, value),
          h("span", { class: "label" }, label))))),
    h("p", { class: "muted" },
      `Working memory: ${counts.working_backend}${counts.using_fallback ? " (on its fallback)" : ""}; `,
      `long-term: ${counts.longterm_backend}. First seen `, timeEl(profile.first_seen),
      ", last seen ", timeEl(profile.last_seen), "."),
  );
  const users = counts.by_user;
  root.append(section("Users", users && users.length
    ? table(["User", "Episodes", "Current facts", "Procedures"], users.map((u) =>
      h("tr", {}, h("td", {}, u.user && !ctx.who.user
        ? h("button", { type: "button", class: "link", title: `narrow every view to user ${u.user}`,
          onclick: () => ctx.narrow({ user: u.user }) }, u.user)
        : u.user ?? h("em", {}, "no user")), h("td", {}, u.episodes),
        h("td", {}, u.current_facts), h("td", {}, u.procedures))))
    : empty(users ? "No user has records yet." : "Per-user counts need a newer server.")));
  const recent = profile.recent_sessions || [];
  root.append(section("Sessions",
    h("h4", {}, "Live (working memory)"),
    live.items.length
      ? h("ul", { class: "inline", id: "live-sessions" }, live.items.map((s) => h("li", {}, sessionLink(s),
        s.user ? h("span", { class: "muted" }, ` user ${s.user}`) : null)))
      : empty("No session holds working state."),
    h("h4", {}, "Recent (from episodes)"),
    recent.length ? h("ul", { class: "inline" }, recent.map((name) => h("li", {},
      h("a", { href: `#/episodes?session=${encodeURIComponent(name)}` }, name))))
      : empty("No episode names a session yet.")));
  root.append(section("Consolidation lag", lag(log, live.items.length)));
}

function lag(log, waiting) {
  if (log === null) return empty("The consolidation log spans the tenant: this key is narrowed.");
  const now = Date.now() / 1000;
  const jobs = {};
  for (const run of log) {
    if (run.status === "ok" && !(run.job in jobs)) jobs[run.job] = run;
  }
  const rows = ["sessions", "facts", "procedures", "decay"].map((job) => {
    const run = jobs[job];
    return h("tr", {}, h("th", { scope: "row" }, job),
      h("td", { dataset: { lag: job } }, run ? ago(now - run.finished_at) : "never run"),
      h("td", {}, run ? timeEl(run.finished_at) : ""));
  });
  return [table(["Job", "Since last successful run", "Finished"], rows),
    h("p", { class: "muted" }, `${waiting} live session(s) not yet consolidated into episodes.`),
    h("p", {}, h("a", { href: "#/consolidation" }, "All runs"))];
}
