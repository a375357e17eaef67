// Consolidation runs and their counts; run the jobs now (or as a dry run).

import { ApiError, get, post } from "../api.js";
import { announce, attempt, empty, h, num, section, table, timeEl } from "../dom.js";

export const title = "Consolidation";

const counts = (map) => Object.entries(map || {}).map(([k, v]) => `${k} ${v}`).join(", ") || "—";

export async function render(root, ctx) {
  let runs;
  try {
    runs = (await get("v1/consolidation/runs", { limit: 200 })).items;
  } catch (error) {
    if (error instanceof ApiError && error.status === 403) {
      root.append(empty("Consolidation spans the tenant; this key is narrowed, so its log is not shown."));
      return;
    }
    throw error;
  }
  const box = section("Run now");
  const report = h("div", { id: "consolidation-report" });
  if (!ctx.readOnly) {
    const run = (dry) => async () => {
      const result = await attempt(box, () => post("v1/consolidate", { dry_run: dry }));
      if (!result) return;
      report.replaceChildren(runTable(result.jobs, dry ? "Dry run: what would change" : "This run"));
      announce(dry ? "Dry run finished" : "Consolidation finished");
      if (!dry) setTimeout(() => ctx.refresh(), 50);
    };
    box.append(h("p", {}, "Idle sessions become episodes, episodes facts and procedures; decay prunes."),
      h("button", { type: "button", class: "secondary", onclick: run(true) }, "Dry run"), " ",
      h("button", { type: "button", onclick: run(false) }, "Consolidate now"), report);
    root.append(box);
  }
  root.append(section(`Logged runs (${runs.length})`, runs.length ? runTable(runs) : empty("No run is logged yet.")));
}

function runTable(runs, caption) {
  return table(["Job", "Status", "Started", "Seconds", "Read", "Changed", "Error"],
    runs.map((r) => h("tr", { class: r.status, dataset: { run: r.run_id || "" } },
      h("th", { scope: "row" }, r.job), h("td", {}, h("span", { class: `status ${r.status}` }, r.status)),
      h("td", {}, timeEl(r.started_at)), h("td", {}, num(r.finished_at - r.started_at, 3)),
      h("td", {}, counts(r.counts_in)), h("td", {}, counts(r.counts_out)), h("td", {}, r.error || ""))), caption);
}
