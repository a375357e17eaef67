// Pinned blocks of the scope's owner: always first in a context; edited in place.

import { call, get } from "../api.js";
import { announce, attempt, confirmDialog, empty, formDialog, h, section, timeEl } from "../dom.js";

export const title = "Pinned blocks";

export async function render(root, ctx) {
  const scope = ctx.scope();
  const blocks = (await get("v1/blocks", scope)).items;
  if (!blocks.length) root.append(empty("No pinned block in this scope."));
  for (const b of blocks) {
    const box = section(b.name, h("pre", { class: "block" }, b.content),
      h("p", { class: "muted" }, `position ${b.position}, updated `, timeEl(b.updated_at)));
    box.dataset.block = b.name;
    if (!ctx.readOnly) {
      box.append(h("button", { type: "button", class: "small", onclick: () => edit(box, b, scope, ctx) }, "Edit"),
        h("button", { type: "button", class: "small danger", onclick: async () => {
          if (!(await confirmDialog(`Delete the block "${b.name}"?`, { action: "Delete", danger: true }))) return;
          if ((await attempt(box, () => call("DELETE", `v1/blocks/${encodeURIComponent(b.name)}`, { query: scope }))) !== undefined) {
            announce("Block deleted");
            ctx.refresh();
          }
        } }, "Delete"));
    }
    root.append(box);
  }
  if (!ctx.readOnly) {
    root.append(h("button", { type: "button", onclick: () => edit(root, null, scope, ctx) }, "New block"));
  }
}

async function edit(box, block, scope, ctx) {
  const values = await formDialog(block ? `Edit ${block.name}` : "New block", [
    ...(block ? [] : [{ name: "name", label: "Name", required: true }]),
    { name: "content", label: "Content", value: block?.content ?? "", textarea: true },
  ]);
  if (values === null) return;
  const name = block ? block.name : values.name;
  const done = await attempt(box, () => call("PUT", `v1/blocks/${encodeURIComponent(name)}`,
    { body: { content: values.content }, query: scope }));
  if (done !== undefined) {
    announce("Block saved");
    ctx.refresh();
  }
}
