// The inspector's shell: sign-in, the scope bar, and a hash router over the views.

import { ApiError, get, session } from "./api.js";
import { announce, failure, h } from "./dom.js";
import * as blocks from "./views/blocks.js";
import * as consolidation from "./views/consolidation.js";
import * as context from "./views/context.js";
import * as episodes from "./views/episodes.js";
import * as facts from "./views/facts.js";
import * as gdpr from "./views/gdpr.js";
import * as overview from "./views/overview.js";
import * as procedures from "./views/procedures.js";
import * as search from "./views/search.js";
import * as sessions from "./views/session.js";

const VIEWS = {
  overview, session: sessions, episodes, facts, procedures, blocks, search, context,
  consolidation, gdpr,
};
const SCOPE_FIELDS = ["project", "user", "agent_type", "agent"];
const SCOPE_KEY = "sedimem.scope";

const main = document.getElementById("main");
const nav = document.getElementById("nav");
const bar = document.getElementById("scopebar");
const whoBox = document.getElementById("who");
const loginForm = document.getElementById("login");

let who = null;
let navigated = false;  // the first view after loading keeps the browser's focus order

function chosenScope() {
  try { return JSON.parse(sessionStorage.getItem(SCOPE_KEY) || "{}"); } catch { return {}; }
}

// The narrowing a request names: the key's own fields win (the server refuses others).
function scope() {
  const chosen = chosenScope();
  const out = {};
  for (const field of SCOPE_FIELDS) {
    const value = (who && who[field]) || chosen[field];
    if (value) out[field] = value;
  }
  return out;
}

function renderWho() {
  const fixed = SCOPE_FIELDS.filter((f) => who[f]).map((f) => `${f}=${who[f]}`);
  whoBox.replaceChildren(...[
    h("span", { class: "badge", title: "tenant" }, `tenant ${who.tenant}`),
    fixed.length ? h("span", { class: "badge" }, `key narrowed to ${fixed.join(", ")}`) : null,
    ctx.readOnly ? h("span", { class: "badge ro", id: "read-only-badge" }, "read-only") : null,
    who.label ? h("span", { class: "muted" }, who.label) : null,
    h("button", { type: "button", class: "secondary small", onclick: () => signOut() }, "Sign out"),
  ].filter(Boolean));
}

function renderScopeBar() {
  const chosen = chosenScope();
  const inputs = SCOPE_FIELDS.map((field) => {
    const id = `scope-${field}`;
    const fixed = who[field];
    return h("span", { class: "field" },
      h("label", { for: id }, field.replace("_", " ")),
      h("input", {
        id, name: field, value: fixed || chosen[field] || "", disabled: !!fixed,
        title: fixed ? "fixed by the key" : "narrow every view to this value", size: 10,
      }));
  });
  const form = h("form", { "aria-label": "Scope", onsubmit: (event) => {
    event.preventDefault();
    const next = {};
    for (const field of SCOPE_FIELDS) {
      const value = form.elements[field].value.trim();
      if (value && !who[field]) next[field] = value;
    }
    sessionStorage.setItem(SCOPE_KEY, JSON.stringify(next));
    route();
  } }, h("strong", {}, "Scope"), inputs, h("button", { type: "submit", class: "small" }, "Apply"));
  bar.replaceChildren(form);
}

const ctx = {
  get who() { return who; },
  get readOnly() { return session.readOnly; },
  scope,
  // narrow every view to these fields (as the scope bar does), then show the view again
  narrow(fields) {
    const next = { ...chosenScope(), ...fields };
    for (const field of SCOPE_FIELDS) if (!next[field] || who[field]) delete next[field];
    sessionStorage.setItem(SCOPE_KEY, JSON.stringify(next));
    renderScopeBar();
    route();
  },
  go(hash) { if (location.hash === hash) route(); else location.hash = hash; },
  refresh() { route(); },
};

function viewName() {
  const hash = location.hash.replace(/^#\/?/, "");
  const [name] = hash.split("?");
  return VIEWS[name] ? name : "overview";
}

function params() {
  const hash = location.hash;
  const at = hash.indexOf("?");
  return new URLSearchParams(at < 0 ? "" : hash.slice(at + 1));
}

async function route() {
  if (!who) return;
  const name = viewName();
  for (const link of nav.querySelectorAll("a")) {
    if (link.getAttribute("href") === `#/${name}`) link.setAttribute("aria-current", "page");
    else link.removeAttribute("aria-current");
  }
  const view = VIEWS[name];
  const holder = h("div", { class: "view", id: `view-${name}`, "aria-busy": "true" });
  const heading = h("h2", { id: "view-title", tabindex: "-1" }, view.title);
  main.replaceChildren(heading, holder);
  // a new view: move focus to its title, so a keyboard or screen reader starts there
  if (navigated) heading.focus({ preventScroll: true });
  navigated = true;
  document.title = `${view.title} - sedimem inspector`;
  try {
    await view.render(holder, { ...ctx, params: params() });
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) return signOut("The key was refused.");
    holder.append(failure(error));
  } finally {
    holder.setAttribute("aria-busy", "false");
    holder.dataset.ready = "1";
    announce(`${view.title} loaded`);
  }
}

function signOut(message) {
  session.clear();
  who = null;
  nav.hidden = true;
  bar.hidden = true;
  whoBox.replaceChildren();
  main.replaceChildren(loginForm);
  loginForm.reset();
  document.getElementById("login-error").textContent = typeof message === "string" ? message : "";
  document.getElementById("key").focus();
}

async function signIn() {
  try {
    who = await get("v1/keys/self");
  } catch (error) {
    const message = error instanceof ApiError && error.status === 401
      ? "This key is not valid (unknown or revoked)." : `Cannot reach the server: ${error.message}`;
    signOut(message);
    return;
  }
  if (who.read_only) session.readOnly = true;  // a key that cannot write: no edit offered
  document.body.classList.toggle("read-only", session.readOnly);
  nav.hidden = false;
  bar.hidden = false;
  renderWho();
  renderScopeBar();
  if (!location.hash) location.hash = "#/overview";
  else route();
}

loginForm.addEventListener("submit", (event) => {
  event.preventDefault();
  const key = document.getElementById("key").value.trim();
  if (!key) return;
  session.key = key;
  session.readOnly = document.getElementById("readonly").checked;
  document.getElementById("key").value = "";
  signIn();
});

window.addEventListener("hashchange", route);
if (session.key) signIn();
else document.getElementById("key").focus();
