// Procedures: each with its versions, steps and how often it worked.

import { call, get, offers } from "../api.js";
import { announce, attempt, confirmDialog, empty, h, num, section, svg, timeEl } from "../dom.js";

export const title = "Procedures";

export async function render(root, ctx) {
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

function rates(items) {
  const rowH = 26, W = 640, L = 200;
  return svg("svg", { viewBox: `0 0 ${W} ${items.length * rowH + 10}`, class: "bars", role: "img",
    "aria-label": items.map((p) => `${p.name}: ${num(rate(p), 2)}`).join("; ") },
  items.map((p, i) => {
    const y = 5 + i * rowH;
    const tries = p.success_count + p.failure_count;
    return svg("g", {},
      svg("text", { x: L - 8, y: y + 16, class: "tick end" }, p.name.slice(0, 28)),
      svg("rect", { x: L, y, width: W - L - 60, height: rowH - 8, class: "track" }),
      svg("rect", { x: L, y, width: (W - L - 60) * rate(p), height: rowH - 8, class: "bar success" }),
      svg("text", { x: W - 52, y: y + 16, class: "tick" }, `${num(rate(p), 2)} (${tries} uses)`));
  }));
}
