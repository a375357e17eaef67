// "Choose a user": a memory that names a user is private to queries naming that user, so a
// view with no user chosen lists only what names no user, while the Overview counts every
// user's. Such a view says so, and offers the users whose records it does not show.

import { ApiError, get } from "../api.js";
import { h } from "../dom.js";

const LABELS = { episodes: "episodes", current_facts: "current facts", procedures: "procedures" };

// A notice for a view of ``count`` ("episodes", "current_facts", "procedures"), or null when
// a user is chosen (by the key, the scope bar or ``chosen``) or no user holds such records.
export async function userHint(ctx, count, chosen = "") {
  if (ctx.scope().user || chosen) return null;
  let stats;
  try {
    stats = await get("v1/stats", { ...ctx.scope(), by_user: true });
  } catch (error) {
    if (error instanceof ApiError) return null;  // an older server: no per-user counts
    throw error;
  }
  const users = (stats.by_user || []).filter((u) => u.user && u[count] > 0);
  if (!users.length) return null;
  const hidden = users.reduce((sum, u) => sum + u[count], 0);
  return h("div", { class: "card notice", id: "choose-user", role: "note" },
    h("p", {}, h("strong", {}, "No user chosen: "),
      `this view lists only ${LABELS[count]} that name no user. ${hidden} more are private to a `,
      "user and show once you choose one (in the scope bar, or here):"),
    h("ul", { class: "inline" }, users.map((u) => h("li", {},
      h("button", { type: "button", class: "link", dataset: { user: u.user },
        title: `narrow every view to user ${u.user}`, onclick: () => ctx.narrow({ user: u.user }) },
      `${u.user} (${u[count]})`)))));
}
