// Small helpers to build the page: elements, SVG, times and numbers. No framework.

import { ApiError } from "./api.js";

const SVG = "http://www.w3.org/2000/svg";

function append(node, children) {
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : String(child));
  }
  return node;
}

// h("button", {class: "x", onclick: fn, "aria-label": "..."}, "text", child...)
export function h(tag, props = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(props || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (name.startsWith("on")) node.addEventListener(name.slice(2), value);
    else if (name === "dataset") Object.assign(node.dataset, value);
    else if (name in node && !name.includes("-") && name !== "list") node[name] = value;
    else node.setAttribute(name, value === true ? "" : value);
  }
  return append(node, children);
}

export function svg(tag, attrs = {}, ...children) {
  const node = document.createElementNS(SVG, tag);
  if (tag === "svg" && attrs.viewBox && !attrs.width) {
    // drawn at its own size (text stays readable), shrunk only on a narrow screen
    const [, , width, height] = attrs.viewBox.split(" ");
    node.setAttribute("width", width);
    node.setAttribute("height", height);
  }
  for (const [name, value] of Object.entries(attrs)) {
    if (value !== null && value !== undefined) node.setAttribute(name, value);
  }
  return append(node, children);
}

export function when(iso) {
  if (!iso) return "";
  const d = typeof iso === "number" ? new Date(iso * 1000) : new Date(iso);
  return d.toISOString().replace("T", " ").replace(/\.\d+Z$/, "Z").replace(/:00Z$/, "Z");
}

export function timeEl(iso) {
  if (!iso) return h("span", { class: "muted" }, "open");
  const d = typeof iso === "number" ? new Date(iso * 1000) : new Date(iso);
  return h("time", { dateTime: d.toISOString() }, when(iso));
}

export function ago(seconds) {
  if (seconds === null || seconds === undefined) return "never";
  const s = Math.max(0, Math.round(seconds));
  if (s < 90) return `${s} s`;
  if (s < 5400) return `${Math.round(s / 60)} min`;
  if (s < 172800) return `${Math.round(s / 3600)} h`;
  return `${Math.round(s / 86400)} d`;
}

export const num = (x, digits = 3) => (x === null || x === undefined ? "–" : Number(x).toFixed(digits));

export function table(headers, rows, caption) {
  return h(
    "table",
    {},
    caption ? h("caption", {}, caption) : null,
    h("thead", {}, h("tr", {}, headers.map((t) => h("th", { scope: "col" }, t)))),
    h("tbody", {}, rows),
  );
}

export function section(title, ...children) {
  const id = "s-" + title.toLowerCase().replace(/[^a-z0-9]+/g, "-");
  return h("section", { class: "card", "aria-labelledby": id }, h("h3", { id }, title), children);
}

export function empty(text) {
  return h("p", { class: "muted empty" }, text);
}

export function announce(text) {
  const status = document.getElementById("status");
  if (status) status.textContent = text;
}

// A modal confirmation. With `typed`, the person must type that text to confirm.
export function confirmDialog(message, { typed = null, action = "Confirm", danger = false } = {}) {
  return new Promise((resolve) => {
    const input = typed
      ? h("input", { id: "confirm-typed", autocomplete: "off", spellcheck: "false" })
      : null;
    const ok = h("button", { type: "submit", class: danger ? "danger" : "", disabled: !!typed }, action);
    const cancel = h("button", { type: "button", class: "secondary" }, "Cancel");
    const form = h(
      "form",
      { method: "dialog" },
      h("p", { id: "confirm-message" }, message),
      typed ? h("label", { for: "confirm-typed" }, `Type ${typed} to confirm`) : null,
      input,
      h("div", { class: "actions" }, cancel, ok),
    );
    const dialog = h("dialog", { "aria-labelledby": "confirm-message", class: "confirm" }, form);
    if (input) input.addEventListener("input", () => (ok.disabled = input.value !== typed));
    let answer = false;
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      if (typed && input.value !== typed) return;
      answer = true;
      dialog.close();
    });
    cancel.addEventListener("click", () => dialog.close());
    dialog.addEventListener("close", () => {
      dialog.remove();
      resolve(answer);
    });
    document.body.append(dialog);
    dialog.showModal();
    (input || ok).focus();
  });
}

// A modal form: fields [{name, label, value, type, textarea}] -> values or null.
export function formDialog(title, fields, { action = "Save" } = {}) {
  return new Promise((resolve) => {
    const inputs = fields.map((f) => {
      const id = "fd-" + f.name;
      const props = { id, name: f.name, value: f.value ?? "", required: !!f.required };
      const control = f.textarea
        ? h("textarea", { ...props, rows: 4 })
        : h("input", { ...props, type: f.type || "text", step: f.step || null });
      return [h("label", { for: id }, f.label), control];
    });
    const ok = h("button", { type: "submit" }, action);
    const cancel = h("button", { type: "button", class: "secondary" }, "Cancel");
    const form = h("form", { method: "dialog" }, h("h3", { id: "fd-title" }, title), inputs,
      h("div", { class: "actions" }, cancel, ok));
    const dialog = h("dialog", { "aria-labelledby": "fd-title", class: "confirm" }, form);
    let values = null;
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      values = Object.fromEntries(new FormData(form).entries());
      dialog.close();
    });
    cancel.addEventListener("click", () => dialog.close());
    dialog.addEventListener("close", () => {
      dialog.remove();
      resolve(values);
    });
    document.body.append(dialog);
    dialog.showModal();
    form.querySelector("input, textarea")?.focus();
  });
}

export function failure(error) {
  const detail = error instanceof ApiError ? `${error.status}: ${error.message}` : String(error);
  return h("p", { class: "error", role: "alert" }, detail);
}

// Run an edit; show its failure in `where` instead of throwing.
export async function attempt(where, action) {
  try {
    return await action();
  } catch (error) {
    where.prepend(failure(error));
    return undefined;
  }
}
