// Procedures: each with its versions, steps and how often it worked.

import { call, get, offers } from "../api.js";
import { userHint } from "./users.js";
import { announce, attempt, confirmDialog, empty, h, num, section, svg, timeEl, when } from "../dom.js";

export const title = "Procedures";

export async function render(root, ctx) {
  const hint = await userHint(ctx, "procedures");
  if (hint) root.append(hint);
  const page = await get("v1/procedures", { ...ctx.scope(), limit: 500 });
  if (!page.items.length) {
    root.append(empty("No procedure in this scope."));
    return;
  }
  const canDelete = !ctx.readOnly && (await offers("DELETE", "/v1/procedures/{procedure_id}"));
  root.append(section("Success rate per procedure", rates(page.items)));
  for (const p of page.items) {
    const history = Array.isArray(p.metadata?.history) ? p.metadata.history : [];
    const box = section(`${p.name} (v${p.version})`,
      h("p", {}, h("strong", {}, "When: "), p.trigger),
      h("p", { class: "muted" }, `${p.success_count} success(es), ${p.failure_count} failure(s), `,
        `success rate ${num(rate(p), 2)}; last used `, p.last_used_at ? timeEl(p.last_used_at) : "never", "; updated ", timeEl(p.updated_at)),
      trend(p),
      h("h4", {}, `Steps of v${p.version}`), h("ol", {}, p.steps.map((s) => h("li", {}, s))),
      history.length ? h("details", {}, h("summary", {}, `${history.length} earlier version(s)`),
        history.map((old) => [h("h5", {}, `v${old.version}`),
          h("ol", {}, (old.steps || []).map((s) => h("li", {}, s)))])) : null);
    box.dataset.id = p.id;
    if (canDelete) {
      box.append(h("button", { type: "button", class: "small danger", onclick: async () => {
        if (!(await confirmDialog(`Delete procedure "${p.name}" and its history?`, { action: "Delete", danger: true }))) return;
        if ((await attempt(box, () => call("DELETE", `v1/procedures/${encodeURIComponent(p.id)}`))) !== undefined) {
          announce("Procedure deleted");
          ctx.refresh();
        }
      } }, "Delete"));
    }
    root.append(box);
  }
}

// Laplace-smoothed, as the server ranks by it: an untried procedure scores 0.5.
const rate = (p) => (p.success_count + 1) / (p.success_count + p.failure_count + 2);

// The success rate over time: the rate after each logged use (the server keeps the newest
// uses with their time in metadata.uses; older uses count in the starting point), so the
// last point is the rate shown above.
function trend(p) {
  const uses = (Array.isArray(p.metadata?.uses) ? p.metadata.uses : [])
    .filter((u) => typeof u?.success === "boolean" && !Number.isNaN(Date.parse(u.at)));
  if (!uses.length) return null;
  const wins = uses.filter((u) => u.success).length;
  let ok = Math.max(0, p.success_count - wins);
  let bad = Math.max(0, p.failure_count - (uses.length - wins));
  const points = uses.map((u) => {
    if (u.success) ok += 1; else bad += 1;
    return { at: Date.parse(u.at), iso: u.at, rate: (ok + 1) / (ok + bad + 2), success: u.success };
  });
  const W = 640, H = 120, L = 44, R = 12, T = 10, B = 22;
  const lo = points[0].at, hi = Math.max(points[points.length - 1].at, lo + 1);
  const x = (t) => points.length === 1 ? (L + W - R) / 2 : L + ((t - lo) / (hi - lo)) * (W - L - R);
  const y = (r) => T + (1 - r) * (H - T - B);
  const rates = points.map((q) => num(q.rate, 3));
  return h("figure", { class: "trend" },
    svg("svg", { viewBox: `0 0 ${W} ${H}`, role: "img", "data-rates": rates.join(","),
      "aria-label": `success rate after each of the last ${points.length} uses: ${rates.join(", ")}` },
    svg("line", { x1: L, y1: H - B, x2: W - R, y2: H - B, class: "axis" }),
    svg("line", { x1: L, y1: H - B, x2: L, y2: T, class: "axis" }),
    [0, 0.5, 1].map((r) => svg("text", { x: L - 6, y: y(r) + 4, class: "tick end" }, num(r, 1))),
    svg("text", { x: L, y: H - 6, class: "tick" }, when(points[0].iso)),
    svg("text", { x: W - R, y: H - 6, class: "tick end" }, when(points[points.length - 1].iso)),
    svg("polyline", { points: points.map((q) => `${x(q.at)},${y(q.rate)}`).join(" "), class: "rate" }),
    points.map((q) => svg("circle", { cx: x(q.at), cy: y(q.rate), r: 3.5,
      class: `dot ${q.success ? "success" : "failure"}` }))),
    h("figcaption", { class: "muted" }, `Success rate after each of the last ${points.length} use(s); `,
      "green: worked, red: failed."));
}

function rates(items) {
  const rowH = 26, W = 640, L = 200;
  return svg("svg", { viewBox: `0 0 ${W} ${items.length * rowH + 10}`, class: "bars", role: "img",
    "aria-label": items.map((p) => `${p.name}: ${num(rate(p), 2)}`).join("; ") },
  items.map((p, i) => {
    const y = 5 + i * rowH;
    const tries = p.success_count + p.failure_count;
    return svg("g", {},
      svg("text", { x: L - 8, y: y + 16, class: "tick end" }, p.name.slice(0, 28)),
      svg("rect", { x: L, y, width: W - L - 100, height: rowH - 8, class: "track" }),
      svg("rect", { x: L, y, width: (W - L - 100) * rate(p), height: rowH - 8, class: "bar success" }),
      svg("text", { x: W - 92, y: y + 16, class: "tick" }, `${num(rate(p), 2)} (${tries} uses)`));
  }));
}
