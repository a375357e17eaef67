// A session's working memory: keys with TTL left, task state, scratchpad, checkpoints.

import { call, get, post } from "../api.js";
import { announce, attempt, confirmDialog, empty, formDialog, h, section, table, timeEl } from "../dom.js";

export const title = "Sessions";
const OWNER = ["project", "user", "agent_type", "agent"];

function link(s) {
  const query = new URLSearchParams({ name: s.session });
  for (const f of OWNER) if (s[f]) query.set(f, s[f]);
  return `#/session?${query}`;
}

export async function render(root, ctx) {
  const live = (await get("v1/sessions", ctx.scope())).items;
  const name = ctx.params.get("name");
  root.append(h("nav", { "aria-label": "Live sessions", class: "card" },
    h("h3", {}, "Live sessions"),
    live.length ? h("ul", { class: "inline", id: "session-list" }, live.map((s) => h("li", {},
      h("a", { href: link(s), "aria-current": s.session === name ? "true" : null }, s.session),
      OWNER.filter((f) => s[f]).map((f) => h("span", { class: "muted" }, ` ${f} ${s[f]}`)))))
      : empty("No session holds working state in this scope.")));
  if (!name) return;
  const owner = {};
  for (const f of OWNER) if (ctx.params.get(f)) owner[f] = ctx.params.get(f);
  const base = `v1/sessions/${encodeURIComponent(name)}`;
  const optional = (promise) => promise.catch((error) => (error.status === 404 ? null : Promise.reject(error)));
  const [entries, task, pad, checkpoints, stats] = await Promise.all([
    get(`${base}/keys`, owner), optional(get(`${base}/task`, owner)),
    get(`${base}/scratchpad`, owner), get(`${base}/checkpoints`, owner), get(`${base}/stats`, owner),
  ]);
  root.append(h("h3", { id: "session-name" }, `Session ${name}`),
    h("p", { class: "muted" }, `${stats.keys} key(s), ${stats.scratchpad_entries} scratchpad entr(ies), `,
      `${stats.checkpoints} checkpoint(s) on ${stats.backend}${stats.using_fallback ? " (fallback)" : ""}.`));
  root.append(section("Task", task ? taskView(task) : empty("No task state.")));
  root.append(section("Keys", entries.items.length ? table(["Key", "Value", "TTL left"],
    entries.items.map((e) => h("tr", { dataset: { key: e.key } }, h("th", { scope: "row" }, h("code", {}, e.key)),
      h("td", {}, h("code", { class: "value" }, JSON.stringify(e.value))),
      h("td", {}, e.ttl_left_seconds === null ? h("span", { class: "muted" }, "with the session")
        : `${Math.round(e.ttl_left_seconds)} s`)))) : empty("No keys.")));
  root.append(section("Scratchpad", pad.entries.length
    ? h("ol", { class: "timeline", id: "scratchpad" }, pad.entries.map((e) =>
      h("li", {}, timeEl(e.created_at), h("span", {}, e.text))))
    : empty("The scratchpad is empty.")));
  const box = section("Checkpoints");
  box.append(checkpoints.items.length ? table(["Created", "Description", "Holds", "Expires", ""],
    checkpoints.items.map((c) => h("tr", { dataset: { checkpoint: c.id } },
      h("td", {}, timeEl(c.created_at)), h("td", {}, c.description || h("span", { class: "muted" }, "—")),
      h("td", {}, `${c.keys} keys, ${c.scratchpad_entries} notes${c.has_task_state ? ", task" : ""}`),
      h("td", {}, timeEl(c.expires_at)),
      h("td", { class: "actions" }, ctx.readOnly ? null : [
        h("button", { type: "button", class: "small", onclick: () => restore(box, base, owner, c, ctx) },
          "Restore"),
        h("button", { type: "button", class: "small secondary", onclick: () => fork(box, base, owner, c, ctx) },
          "Fork"),
      ]))))
    : empty("No checkpoints."));
  if (!ctx.readOnly) {
    box.append(h("button", { type: "button", class: "small", onclick: async () => {
      const values = await formDialog("New checkpoint", [{ name: "description", label: "Description" }],
        { action: "Checkpoint" });
      if (values === null) return;
      if (await attempt(box, () => post(`${base}/checkpoints`, { description: values.description }, owner))) {
        announce("Checkpoint created");
        ctx.refresh();
      }
    } }, "Checkpoint now"));
  }
  root.append(box);
}

function taskView(task) {
  const percent = Math.round(task.progress_percent ?? 0);
  return h("dl", { class: "facts", id: "task" },
    h("dt", {}, "Task"), h("dd", {}, task.task_id),
    h("dt", {}, "Status"), h("dd", {}, h("span", { class: `status ${task.status}` }, task.status)),
    h("dt", {}, "Progress"), h("dd", {},
      h("progress", { max: 100, value: percent, "aria-label": "progress" }),
      ` ${percent}% (step ${task.current_step}${task.total_steps ? ` of ${task.total_steps}` : ""})`),
    h("dt", {}, "Started"), h("dd", {}, timeEl(task.started_at)),
    h("dt", {}, "Updated"), h("dd", {}, timeEl(task.updated_at)));
}

async function restore(box, base, owner, checkpoint, ctx) {
  const ok = await confirmDialog(
    `Restore checkpoint "${checkpoint.description || checkpoint.id}"? The live keys, task and scratchpad are replaced; checkpoints stay.`,
    { action: "Restore" });
  if (!ok) return;
  const done = await attempt(box, () =>
    call("POST", `${base}/checkpoints/${encodeURIComponent(checkpoint.id)}/restore`, { query: owner }));
  if (done !== undefined) { announce("Checkpoint restored"); ctx.refresh(); }
}

async function fork(box, base, owner, checkpoint, ctx) {
  const values = await formDialog("Fork into a new session",
    [{ name: "new_session", label: "New session id", required: true }], { action: "Fork" });
  if (values === null) return;
  const forked = await attempt(box, () =>
    post(`${base}/checkpoints/${encodeURIComponent(checkpoint.id)}/fork`, { new_session: values.new_session }, owner));
  if (forked) ctx.go(link({ ...owner, session: forked.session }));
}
