// The REST API as the inspector calls it: the key from sessionStorage, problem+json errors.
// Paths are relative ("v1/..."), so the page works under any root path.

const KEY = "sedimem.key";
const READ_ONLY = "sedimem.readOnly";

export const session = {
  get key() { return sessionStorage.getItem(KEY); },
  set key(value) {
    if (value) sessionStorage.setItem(KEY, value);
    else sessionStorage.removeItem(KEY);
  },
  get readOnly() { return sessionStorage.getItem(READ_ONLY) === "1"; },
  set readOnly(value) { sessionStorage.setItem(READ_ONLY, value ? "1" : "0"); },
  clear() { sessionStorage.removeItem(KEY); sessionStorage.removeItem(READ_ONLY); },
};

export class ApiError extends Error {
  constructor(status, problem) {
    super(problem?.detail || problem?.title || `HTTP ${status}`);
    this.status = status;
    this.problem = problem;
  }
}

function url(path, query) {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query || {})) {
    if (value !== null && value !== undefined && value !== "") params.append(name, String(value));
  }
  const text = params.toString();
  return text ? `${path}?${text}` : path;
}

export async function call(method, path, { query, body, raw = false } = {}) {
  const headers = { Authorization: `Bearer ${session.key}` };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  const response = await fetch(url(path, query), {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
    credentials: "omit",
    cache: "no-store",
  });
  if (!response.ok) {
    let problem = null;
    try { problem = await response.json(); } catch { /* not JSON */ }
    throw new ApiError(response.status, problem);
  }
  if (raw) return response;
  if (response.status === 204) return null;
  return response.json();
}

export const get = (path, query) => call("GET", path, { query });
export const post = (path, body, query) => call("POST", path, { body, query });

// Which operations this server offers (read once from its OpenAPI document), so edits whose
// routes are missing are not offered at all.
let operations = null;
export async function offers(method, template) {
  if (operations === null) {
    const response = await fetch("openapi.json", { cache: "no-store" });
    const spec = response.ok ? await response.json() : { paths: {} };
    operations = new Set();
    for (const [path, item] of Object.entries(spec.paths || {})) {
      for (const verb of Object.keys(item)) operations.add(`${verb.toUpperCase()} ${path}`);
    }
  }
  return operations.has(`${method} ${template}`);
}
