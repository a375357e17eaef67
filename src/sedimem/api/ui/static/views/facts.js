// Facts: the current facts per subject; a fact's bi-temporal history drawn on two time axes
// (valid time: when it was true in the world; record time: when the system believed it).

import { call, get, offers } from "../api.js";
import { userHint } from "./users.js";
import { announce, attempt, confirmDialog, empty, formDialog, h, num, section, svg, table, timeEl, when } from "../dom.js";

export const title = "Facts";

export async function render(root, ctx) {
  const subject = ctx.params.get("subject") || "";
  const form = h("form", { class: "card filters", "aria-label": "Filter facts", onsubmit: (event) => {
    event.preventDefault();
    const value = form.elements.subject.value.trim();
    ctx.go(value ? `#/facts?subject=${encodeURIComponent(value)}` : "#/facts");
  } }, h("span", { class: "field" }, h("label", { for: "f-subject" }, "Subject"),
    h("input", { id: "f-subject", name: "subject", value: subject })), h("button", { type: "submit" }, "Show"));
  root.append(form);
  const hint = await userHint(ctx, "current_facts");
  if (hint) root.append(hint);
  const page = await get("v1/facts/current", { ...ctx.scope(), subject: subject || null, limit: 500 });
  const bySubject = new Map();
  for (const fact of page.items) {
    const key = fact.subject ?? "(no subject)";
    if (!bySubject.has(key)) bySubject.set(key, []);
    bySubject.get(key).push(fact);
  }
  const detail = h("div", { id: "fact-detail" });
  const list = section(`Current facts (${page.items.length}${page.next_cursor ? "+" : ""})`);
  if (!page.items.length) list.append(empty("No current fact in this scope."));
  for (const [name, facts] of bySubject) {
    list.append(h("h4", {}, name), table(["Predicate", "Value", "Statement", "Valid from", "Confidence"],
      facts.map((f) => h("tr", { dataset: { id: f.id } },
        h("td", {}, f.predicate ?? ""), h("td", {}, f.object ?? ""),
        h("td", {}, h("button", { type: "button", class: "link", "aria-controls": "fact-detail",
          onclick: () => showHistory(detail, f, ctx) }, f.statement)),
        h("td", {}, timeEl(f.valid_from)), h("td", {}, num(f.confidence, 2))))));
  }
  root.append(list, detail);
  const selected = page.items.find((f) => f.id === ctx.params.get("id"));
  if (selected) await showHistory(detail, selected, ctx);
}

async function versionsOf(fact, ctx) {
  if (!fact.subject || !fact.predicate) return [fact];
  const scope = { ...ctx.scope() };
  if (fact.scope.user && !scope.user) scope.user = fact.scope.user;
  const found = await get("v1/facts/history", {
    ...scope, subject: fact.subject, predicate: fact.predicate, include_retired: true });
  return found.items.length ? found.items : [fact];
}

export async function showHistory(detail, fact, ctx) {
  const versions = await versionsOf(fact, ctx);
  const [canInvalidate, canCorrect] = ctx.readOnly ? [false, false] : await Promise.all([
    offers("POST", "/v1/facts/{fact_id}/invalidate"), offers("PATCH", "/v1/facts/{fact_id}")]);
  const box = section(`History of ${fact.subject ? `${fact.subject} ${fact.predicate}` : "a fact"}`);
  box.append(chart(versions), chainTable(versions, box, ctx, canInvalidate, canCorrect));
  if (!ctx.readOnly && !canInvalidate) {
    box.append(h("p", { class: "muted" }, "This server offers no route to invalidate or correct a fact."));
  }
  detail.replaceChildren(box);
  box.dataset.versions = String(versions.length);
  box.dataset.current = String(versions.filter((v) => !v.invalidated_at).length);
}

// What replaced a version: retired, the versions recorded when it was retired; ended in the
// world, the version that starts when it ends.
function successorsOf(v, versions) {
  const others = versions.filter((o) => o.id !== v.id);
  if (v.invalidated_at) {
    const end = Date.parse(v.invalidated_at);
    return others.filter((o) => Math.abs(Date.parse(o.recorded_at) - end) < 1000);
  }
  if (v.valid_to) return others.filter((o) => Date.parse(o.valid_from) === Date.parse(v.valid_to));
  return [];
}

function chainTable(versions, box, ctx, canInvalidate, canCorrect) {
  const label = new Map(versions.map((v, i) => [v.id, `v${i + 1}`]));
  return table(["", "Value", "Valid from", "Valid to", "Recorded", "Invalidated", "Superseded by", ""],
    versions.map((v) => {
      const next = successorsOf(v, versions);
      const current = !v.invalidated_at;
      return h("tr", { class: current ? "current" : "retired", dataset: { id: v.id, current: String(current) } },
        h("th", { scope: "row" }, label.get(v.id)),
        h("td", {}, v.object ?? v.statement),
        h("td", {}, timeEl(v.valid_from)), h("td", {}, timeEl(v.valid_to)),
        h("td", {}, timeEl(v.recorded_at)), h("td", {}, timeEl(v.invalidated_at)),
        h("td", { class: "chain" }, next.length ? `→ ${next.map((o) => label.get(o.id)).join(", ")}` : ""),
        h("td", { class: "actions" }, current && canCorrect ? h("button", { type: "button", class: "small secondary",
          onclick: () => correct(box, v, ctx) }, "Correct") : null,
        current && canInvalidate ? h("button", { type: "button", class: "small danger",
          onclick: () => invalidate(box, v, ctx) }, "Invalidate") : null));
    }), "Versions in world-time order; a retired version is kept as history");
}

async function invalidate(box, fact, ctx) {
  if (!(await confirmDialog(`Stop believing "${fact.statement}"? It stays in the history.`,
    { action: "Invalidate", danger: true }))) return;
  const done = await attempt(box, () => call("POST", `v1/facts/${encodeURIComponent(fact.id)}/invalidate`));
  if (done !== undefined) {
    announce("Fact invalidated");
    await showHistory(box.parentElement, fact, ctx);
  }
}

async function correct(box, fact, ctx) {
  const values = await formDialog("Correct the fact", [
    { name: "statement", label: "Statement", value: fact.statement, textarea: true, required: true },
    ...(fact.subject ? [{ name: "object", label: "Value", value: fact.object ?? "" }] : []),
  ], { action: "Correct" });
  if (values === null) return;
  const changes = { statement: values.statement };
  if (fact.subject && values.object !== (fact.object ?? "")) changes.object = values.object;
  const done = await attempt(box, () => call("PATCH", `v1/facts/${encodeURIComponent(fact.id)}`, { body: changes }));
  if (done !== undefined) {
    announce("Fact corrected");
    await showHistory(box.parentElement, fact, ctx);
  }
}

// Each version is a rectangle: across, the world time it was true for; up, the system time
// it was believed. An open end (still true, still believed) runs to the edge, dashed.
function chart(versions) {
  const W = 760, H = 300, L = 100, R = 20, T = 20, B = 50;
  const now = Date.now();
  // each axis has its own scale: world time spans years, record time often seconds
  const domain = (times) => {
    const lo = Math.min(...times);
    const top = Math.max(...times);
    return [lo, top + Math.max((top - lo) * 0.08, 1000)];
  };
  const at = (t) => Date.parse(t);
  const [vx0, vx1] = domain([now, ...versions.flatMap((v) => [v.valid_from, v.valid_to].filter(Boolean).map(at))]);
  const [ry0, ry1] = domain([now, ...versions.flatMap((v) => [v.recorded_at, v.invalidated_at].filter(Boolean).map(at))]);
  const x = (t) => L + ((t - vx0) / (vx1 - vx0)) * (W - L - R);
  const y = (t) => H - B - ((t - ry0) / (ry1 - ry0)) * (H - T - B);
  const shapes = versions.map((v, i) => {
    const x0 = x(at(v.valid_from));
    const x1 = v.valid_to ? x(at(v.valid_to)) : W - R;
    const y0 = y(at(v.recorded_at));
    const y1 = v.invalidated_at ? y(at(v.invalidated_at)) : T;
    const open = !v.valid_to || !v.invalidated_at;
    return svg("g", { class: `version ${v.invalidated_at ? "retired" : "current"}`, "data-id": v.id },
      svg("rect", { x: x0, y: y1, width: Math.max(2, x1 - x0), height: Math.max(2, y0 - y1),
        class: open ? "open" : "" }),
      svg("text", { x: x0 + 4, y: y0 - 6, class: "label" }, `v${i + 1} ${v.object ?? ""}`.slice(0, 28)),
      svg("title", {}, `v${i + 1}: ${v.statement}\nvalid ${when(v.valid_from)} – ${v.valid_to ? when(v.valid_to) : "now"}\n` +
        `believed ${when(v.recorded_at)} – ${v.invalidated_at ? when(v.invalidated_at) : "now"}`));
  });
  const iso = (t) => when(new Date(t).toISOString());
  return svg("svg", { viewBox: `0 0 ${W} ${H}`, class: "bitemporal", role: "img", id: "bitemporal",
    "aria-label": `${versions.length} version(s) drawn by valid time (across) and record time (up)` },
  svg("line", { x1: L, y1: H - B, x2: W - R, y2: H - B, class: "axis" }),
  svg("line", { x1: L, y1: H - B, x2: L, y2: T, class: "axis" }),
  svg("line", { x1: x(now), y1: H - B, x2: x(now), y2: T, class: "now" }),
  svg("line", { x1: L, y1: y(now), x2: W - R, y2: y(now), class: "now" }),
  svg("text", { x: (L + W - R) / 2, y: H - 8, class: "axis-label" }, "valid time (true in the world) →"),
  svg("text", { x: 14, y: (T + H - B) / 2, class: "axis-label", transform: `rotate(-90 14 ${(T + H - B) / 2})` },
    "record time (believed) →"),
  svg("text", { x: L, y: H - B + 16, class: "tick" }, iso(vx0)),
  svg("text", { x: W - R, y: H - B + 16, class: "tick end" }, iso(vx1)),
  svg("text", { x: L - 4, y: H - B, class: "tick end" }, iso(ry0).slice(11)),
  svg("text", { x: L - 4, y: T + 8, class: "tick end" }, iso(ry1).slice(11)),
  svg("text", { x: x(now) - 4, y: T + 10, class: "tick end" }, "now"),
  shapes);
}
