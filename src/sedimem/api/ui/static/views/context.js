// Context preview: a query packed into a token budget; what went in and what was dropped.

import { post } from "../api.js";
import { empty, h, num, section, table } from "../dom.js";

export const title = "Context";

export async function render(root, ctx) {
  const p = ctx.params;
  const budget = Number(p.get("budget") || 400);
  const query = h("input", { id: "context-query", name: "q", value: p.get("q") || "", required: true, type: "search" });
  const slider = h("input", { id: "budget", name: "budget", type: "range", min: 20, max: 4000, step: 10,
    value: budget, "aria-describedby": "budget-value" });
  const shown = h("output", { id: "budget-value", for: "budget" }, `${budget} tokens`);
  const out = h("div", { id: "context-result", "aria-live": "polite" });
  let pending = 0;
  const assemble = async () => {
    if (!query.value.trim()) return;
    const ticket = ++pending;
    out.setAttribute("aria-busy", "true");
    const wanted = Number(slider.value);
    try {
      const result = await post("v1/context", { ...ctx.scope(), query: query.value, budget_tokens: wanted });
      if (ticket === pending) out.replaceChildren(...view(result));
    } catch (error) {
      if (ticket === pending) out.replaceChildren(h("p", { class: "error", role: "alert" }, error.message));
    } finally {
      if (ticket === pending) {
        out.setAttribute("aria-busy", "false");
        out.dataset.budget = String(wanted);
      }
    }
  };
  let timer = null;
  slider.addEventListener("input", () => {
    shown.textContent = `${slider.value} tokens`;
    clearTimeout(timer);
    timer = setTimeout(assemble, 150);
  });
  const form = h("form", { class: "card filters", "aria-label": "Assemble a context", onsubmit: (event) => {
    event.preventDefault();
    history.replaceState(null, "", `#/context?${new URLSearchParams({ q: query.value, budget: slider.value })}`);
    assemble();
  } },
  h("span", { class: "field grow" }, h("label", { for: "context-query" }, "Query"), query),
  h("span", { class: "field grow" }, h("label", { for: "budget" }, "Budget"), slider, shown),
  h("button", { type: "submit" }, "Assemble"));
  root.append(form, out);
  await assemble();
}

function view(result) {
  const r = result.report;
  const used = h("p", { class: "budget-line" }, "Used ",
    h("strong", { id: "tokens-used" }, result.tokens_used), " of ",
    h("strong", { id: "tokens-budget" }, result.budget_tokens), ` tokens (${result.tokenizer}).`,
    h("meter", { min: 0, max: result.budget_tokens, value: result.tokens_used, "aria-label": "tokens used" }));
  const tiers = table(["Tier", "Share", "Quota", "Granted", "Used", "Included", "Dropped"],
    r.tiers.map((t) => h("tr", {}, h("th", { scope: "row" }, t.tier), h("td", {}, num(t.share, 2)),
      h("td", {}, t.quota_tokens), h("td", {}, t.granted_tokens), h("td", {}, t.used_tokens),
      h("td", {}, t.included), h("td", {}, t.dropped))), "Sections and their token quotas");
  const included = r.included.length ? table(["Tier", "Item", "Tokens", "Score", ""],
    r.included.map((i) => h("tr", { dataset: { id: i.id } }, h("td", {}, i.tier), h("td", {}, item(i.id, i.text)),
      h("td", {}, i.tokens), h("td", {}, num(i.score, 3)), h("td", {}, i.truncated ? "truncated" : ""))))
    : empty("Nothing fits.");
  const dropped = r.dropped.length ? table(["Tier", "Item", "Tokens", "Score", "Reason"],
    r.dropped.map((d) => h("tr", { class: "dropped", dataset: { id: d.id } }, h("td", {}, d.tier),
      h("td", {}, item(d.id, d.excerpt)),
      h("td", {}, d.tokens), h("td", {}, num(d.score, 3)),
      h("td", {}, h("strong", {}, d.reason), d.detail ? ` — ${d.detail}` : ""))), "Dropped items and why")
    : empty("Nothing was dropped.");
  const text = result.text ?? (result.messages || []).map((m) => `[${m.role}]\n${m.content}`).join("\n\n");
  return [used, section("Sections", tiers), section(`Included (${r.included.length})`, included),
    section(`Dropped (${r.dropped.length})`, dropped),
    section("Assembled text", h("pre", { class: "context-text", tabindex: 0 }, text || ""))];
}

// An item as its text says it (its id on hover); a server that sends no text: its id.
function item(id, text) {
  return text ? h("span", { class: "item-text", title: id }, text) : h("code", {}, id);
}
