// GDPR: download a user's export; forget a user after a typed confirmation, with the receipt.

import { call } from "../api.js";
import { announce, attempt, confirmDialog, h, section, table } from "../dom.js";

export const title = "GDPR";

export async function render(root, ctx) {
  const fixedUser = ctx.who.user || "";
  const userInput = (id) => h("input", { id, name: "user", value: fixedUser || ctx.scope().user || "",
    disabled: !!fixedUser, size: 16 });
  const exportBox = section("Export");
  const exportUser = userInput("export-user");
  const exportForm = h("form", { "aria-label": "Export a user's records", onsubmit: async (event) => {
    event.preventDefault();
    const user = exportUser.value.trim();
    const response = await attempt(exportBox, () => call("GET", "v1/export", { query: { user }, raw: true }));
    if (!response) return;
    const text = await response.text();
    const lines = text.split("\n").filter(Boolean).length;
    const href = URL.createObjectURL(new Blob([text], { type: "application/x-ndjson" }));
    const name = `sedimem-export-${user || "no-user"}.jsonl`;
    const link = h("a", { href, download: name, id: "export-link" }, `Download ${name} (${lines} records)`);
    exportBox.querySelector(".result")?.remove();
    exportBox.append(h("p", { class: "result" }, link));
    announce(`Export ready: ${lines} records`);
  } }, h("p", {}, "A user's records as JSON Lines (no user: the records that name no user)."),
  h("span", { class: "field" }, h("label", { for: "export-user" }, "User"), exportUser), " ",
  h("button", { type: "submit" }, "Prepare export"));
  exportBox.append(exportForm);
  root.append(exportBox);
  if (ctx.readOnly) return;
  const forgetBox = section("Forget a user");
  const forgetUser = userInput("forget-user");
  const receipt = h("div", { id: "forget-receipt" });
  const forgetForm = h("form", { "aria-label": "Forget a user", onsubmit: async (event) => {
    event.preventDefault();
    const user = forgetUser.value.trim();
    if (!user) return;
    const ok = await confirmDialog(`Erase everything of user ${user}: episodes, facts, procedures, blocks, sessions. This cannot be undone.`,
      { typed: user, action: "Forget", danger: true });
    if (!ok) return;
    const result = await attempt(forgetBox, () => call("POST", "v1/forget", { body: { user } }));
    if (!result) return;
    receipt.replaceChildren(table(["Kind", "Erased"], Object.entries(result).map(([kind, n]) =>
      h("tr", {}, h("th", { scope: "row" }, kind), h("td", { dataset: { kind } }, n))), `Receipt: user ${user} forgotten`));
    announce(`User ${user} forgotten`);
  } }, h("p", {}, "Erases every record of the user in every tier. You will be asked to type the user id."),
  h("span", { class: "field" }, h("label", { for: "forget-user" }, "User"), forgetUser), " ",
  h("button", { type: "submit", class: "danger" }, "Forget…"), receipt);
  forgetBox.append(forgetForm);
  root.append(forgetBox);
}
