// Episodes: a timeline filtered by outcome, task type, time and user; one episode in full.

import { call, get, offers } from "../api.js";
import { userHint } from "./users.js";
import { announce, attempt, confirmDialog, empty, h, num, section, svg, timeEl, when } from "../dom.js";

export const title = "Episodes";
const OUTCOMES = ["", "success", "failure", "partial", "none"];

export async function render(root, ctx) {
  const p = ctx.params;
  const filters = {
    outcome: p.get("outcome") || "", task_type: p.get("task_type") || "",
    since: p.get("since") || "", until: p.get("until") || "", user: p.get("user") || "",
  };
  const form = h("form", { class: "card filters", "aria-label": "Filter episodes", onsubmit: (event) => {
    event.preventDefault();
    const query = new URLSearchParams();
    for (const [name, value] of new FormData(form).entries()) if (value) query.set(name, value);
    ctx.go(`#/episodes?${query}`);
  } },
  field("outcome", "Outcome", h("select", { id: "f-outcome", name: "outcome" },
    OUTCOMES.map((o) => h("option", { value: o, selected: o === filters.outcome }, o || "any")))),
  field("task_type", "Task type", h("input", { id: "f-task_type", name: "task_type", value: filters.task_type, size: 12 })),
  field("since", "Since", h("input", { id: "f-since", name: "since", type: "date", value: filters.since })),
  field("until", "Until", h("input", { id: "f-until", name: "until", type: "date", value: filters.until })),
  field("user", "User", h("input", { id: "f-user", name: "user", value: filters.user, size: 10,
    disabled: !!ctx.who.user })),
  h("button", { type: "submit" }, "Filter"));
  root.append(form);
  const hint = await userHint(ctx, "episodes", filters.user);
  if (hint) root.append(hint);
  const query = { ...ctx.scope(), newest_first: true, limit: 200 };
  if (filters.user && !ctx.who.user) query.user = filters.user;
  if (filters.outcome) query.outcome = filters.outcome;
  if (filters.task_type) query.task_type = filters.task_type;
  if (filters.since) query.since = `${filters.since}T00:00:00Z`;
  if (filters.until) query.until = `${filters.until}T23:59:59Z`;
  const page = await get("v1/episodes", query);
  const items = page.items;
  const detail = h("div", { id: "episode-detail" });
  const canDelete = !ctx.readOnly && (await offers("DELETE", "/v1/episodes/{episode_id}"));
  root.append(section(`Timeline (${items.length}${page.next_cursor ? "+" : ""})`,
    items.length ? [strip(items), h("ol", { class: "episodes", id: "episode-list" }, items.map((e) =>
      h("li", { class: `episode ${e.outcome}`, dataset: { id: e.id } },
        h("button", { type: "button", class: "link", "aria-controls": "episode-detail",
          onclick: () => show(detail, e, ctx, canDelete) },
        h("span", { class: `status ${e.outcome}` }, e.outcome), " ", h("strong", {}, e.task_type), " — ",
        e.description), " ", timeEl(e.occurred_at))))]
      : empty("No episode matches.")), detail);
  const selected = p.get("id");
  const chosen = items.find((e) => e.id === selected);
  if (chosen) show(detail, chosen, ctx, canDelete);
}

function field(name, label, control) {
  return h("span", { class: "field" }, h("label", { for: `f-${name}` }, label), control);
}

// A strip of dots on a time axis, coloured by outcome: when things happened and how they ended.
function strip(items) {
  const times = items.map((e) => Date.parse(e.occurred_at));
  const lo = Math.min(...times);
  const hi = Math.max(...times);
  const width = 900;
  const x = (t) => 20 + (hi === lo ? (width - 40) / 2 : ((t - lo) / (hi - lo)) * (width - 40));
  return svg("svg", { viewBox: `0 0 ${width} 46`, class: "strip", role: "img",
    "aria-label": `${items.length} episodes from ${when(new Date(lo).toISOString())} to ${when(new Date(hi).toISOString())}` },
  svg("line", { x1: 20, x2: width - 20, y1: 24, y2: 24, class: "axis" }),
  items.map((e, i) => svg("circle", { cx: x(times[i]), cy: 24, r: 6, class: `dot ${e.outcome}` },
    svg("title", {}, `${e.task_type}: ${e.outcome} at ${when(e.occurred_at)}`))),
  svg("text", { x: 20, y: 44, class: "tick" }, when(new Date(lo).toISOString())),
  svg("text", { x: width - 20, y: 44, class: "tick end" }, when(new Date(hi).toISOString())));
}

function show(detail, e, ctx, canDelete) {
  const list = (items) => (items.length ? h("ol", {}, items.map((a) => h("li", {}, a))) : empty("none"));
  const box = section(`Episode ${e.id}`,
    h("dl", { class: "facts" },
      h("dt", {}, "Task type"), h("dd", {}, e.task_type),
      h("dt", {}, "Outcome"), h("dd", {}, h("span", { class: `status ${e.outcome}` }, e.outcome),
        e.outcome_details ? ` — ${e.outcome_details}` : ""),
      h("dt", {}, "Occurred"), h("dd", {}, timeEl(e.occurred_at)),
      h("dt", {}, "Importance"), h("dd", {}, num(e.importance, 2)),
      h("dt", {}, "Scope"), h("dd", {}, ["user", "session", "project", "agent_type", "agent"]
        .filter((f) => e.scope[f]).map((f) => `${f}=${e.scope[f]}`).join(", ") || "tenant-wide"),
      e.duration_seconds !== null ? [h("dt", {}, "Duration"), h("dd", {}, `${e.duration_seconds} s`)] : null,
      e.tokens_used !== null ? [h("dt", {}, "Tokens"), h("dd", {}, e.tokens_used)] : null),
    h("p", {}, e.description),
    e.context_summary ? h("p", { class: "muted" }, e.context_summary) : null,
    h("h4", {}, "Actions"), list(e.actions),
    h("h4", {}, "Lessons learned"), list(e.lessons_learned));
  if (canDelete) {
    box.append(h("button", { type: "button", class: "danger", onclick: async () => {
      if (!(await confirmDialog(`Delete episode "${e.description}"? This cannot be undone.`,
        { action: "Delete", danger: true }))) return;
      const done = await attempt(box, () => call("DELETE", `v1/episodes/${encodeURIComponent(e.id)}`));
      if (done !== undefined) { announce("Episode deleted"); ctx.refresh(); }
    } }, "Delete episode"));
  }
  detail.replaceChildren(box);
  box.querySelector("h3").setAttribute("tabindex", "-1");
  box.querySelector("h3").focus();
}
