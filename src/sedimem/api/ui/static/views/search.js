// Search playground: a query over the tiers, each hit's score drawn as its parts.

import { post } from "../api.js";
import { empty, h, num, section, svg } from "../dom.js";

export const title = "Search";
const TIERS = ["episodes", "facts", "procedures"];
const MODES = ["hybrid", "keyword", "vector"];
// The parts of a score as the server explains it (keyword is raw BM25, the others 0..1).
const PARTS = ["keyword", "vector", "recency", "importance", "fused", "score"];

export async function render(root, ctx) {
  const p = ctx.params;
  const q = p.get("q") || "";
  const tiers = p.get("tiers") ? p.get("tiers").split(",") : TIERS;
  const mode = p.get("mode") || "hybrid";
  const k = p.get("k") || "10";
  const form = h("form", { class: "card filters", role: "search", "aria-label": "Search memories",
    onsubmit: (event) => {
      event.preventDefault();
      const data = new FormData(form);
      const query = new URLSearchParams({ q: data.get("q"), mode: data.get("mode"), k: data.get("k"),
        tiers: data.getAll("tier").join(",") });
      ctx.go(`#/search?${query}`);
    } },
  h("span", { class: "field grow" }, h("label", { for: "q" }, "Query"),
    h("input", { id: "q", name: "q", value: q, required: true, type: "search" })),
  h("fieldset", {}, h("legend", {}, "Tiers"), TIERS.map((t) => h("label", { class: "check" },
    h("input", { type: "checkbox", name: "tier", value: t, checked: tiers.includes(t) }), ` ${t}`))),
  h("span", { class: "field" }, h("label", { for: "mode" }, "Mode"),
    h("select", { id: "mode", name: "mode" }, MODES.map((m) => h("option", { value: m, selected: m === mode }, m)))),
  h("span", { class: "field" }, h("label", { for: "k" }, "Hits per tier"),
    h("input", { id: "k", name: "k", type: "number", min: 1, max: 100, value: k, size: 4 })),
  h("button", { type: "submit" }, "Search"));
  root.append(form);
  if (!q || !tiers.length) return;
  const found = await post("v1/recall", { ...ctx.scope(), query: q, tiers, mode, k: Number(k) });
  const results = h("div", { id: "results" });
  for (const tier of tiers) {
    const hits = found[tier] || [];
    results.append(section(`${tier} (${hits.length})`, hits.length
      ? h("ol", { class: "hits", dataset: { tier } }, hits.map((hit) => hitView(tier, hit)))
      : empty("No hit.")));
  }
  root.append(results);
}

function textOf(tier, r) {
  if (tier === "facts") return r.statement;
  if (tier === "procedures") return `${r.name}: ${r.trigger}`;
  return r.description;
}

function hitView(tier, hit) {
  const e = hit.explain;
  return h("li", { class: "hit", dataset: { id: hit.record.id } },
    h("p", {}, h("strong", {}, num(hit.score, 3)), " ", textOf(tier, hit.record)),
    parts(e),
    h("dl", { class: "parts" }, PARTS.map((part) => [
      h("dt", {}, part),
      h("dd", { dataset: { part, value: e[part] ?? "" } }, e[part] === null || e[part] === undefined
        ? "not found by this list" : num(e[part], 4),
      part === "keyword" && e.keyword_rank ? h("span", { class: "muted" }, ` (rank ${e.keyword_rank})`) : null,
      part === "vector" && e.vector_rank ? h("span", { class: "muted" }, ` (rank ${e.vector_rank})`) : null)])));
}

// One bar per part (0..1; BM25's raw keyword score is squashed as s / (1 + s) for drawing).
function parts(e) {
  const W = 520, rowH = 16, L = 90;
  const shown = PARTS.filter((p) => p !== "score");
  return svg("svg", { viewBox: `0 0 ${W} ${shown.length * rowH + 4}`, class: "parts-chart", role: "img",
    "aria-label": shown.map((p) => `${p} ${e[p] === null ? "none" : num(e[p], 3)}`).join(", ") },
  shown.map((p, i) => {
    const raw = e[p];
    const value = raw === null || raw === undefined ? 0 : p === "keyword" ? raw / (1 + raw) : raw;
    const y = 2 + i * rowH;
    return svg("g", {},
      svg("text", { x: L - 6, y: y + 11, class: "tick end" }, p),
      svg("rect", { x: L, y, width: W - L - 10, height: rowH - 4, class: "track" }),
      svg("rect", { x: L, y, width: Math.max(0, Math.min(1, value)) * (W - L - 10), height: rowH - 4,
        class: `bar ${p}` }));
  }));
}
