// REST helpers for the lobby and the game page (docs/server-protocol.md, "REST lobby").

/** An error the server answered: `code` and `message` from its `{"error": ...}` body. */
export class ApiError extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

/** Fetch `path` and return its JSON body; throw an `ApiError` when the server refuses. */
export async function api(path, options = {}) {
  const init = { headers: { Accept: "application/json" }, ...options };
  // the CSRF check of a signed-in request (docs/accounts.md): any request but a read
  if ((options.method || "GET") !== "GET") init.headers["X-Boardlab-CSRF"] = "1";
  if (options.body !== undefined && typeof options.body !== "string") {
    init.body = JSON.stringify(options.body);
    init.headers["Content-Type"] = "application/json";
  }
  let response;
  try {
    response = await fetch(path, init);
  } catch (error) {
    throw new ApiError(0, "network", "the server cannot be reached");
  }
  const text = await response.text();
  let body = null;
  try {
    body = text ? JSON.parse(text) : null;
  } catch (error) {
    body = null;
  }
  if (!response.ok) {
    const error = (body && body.error) || {};
    throw new ApiError(response.status, error.code || "http_" + response.status,
                       error.message || response.statusText);
  }
  return body;
}

export const getCatalog = () => api("/api/catalog");
export const getFacts = (spec) => api("/api/facts?spec=" + encodeURIComponent(spec));
export const listGames = (limit = 50) => api("/api/games?limit=" + limit);
export const createGame = (request) => api("/api/games", { method: "POST", body: request });
export const getGame = (id) => api("/api/games/" + encodeURIComponent(id));
export const getRecord = (id) => api("/api/games/" + encodeURIComponent(id) + "/record");
export const recordUrl = (id, format = "json") =>
  "/api/games/" + encodeURIComponent(id) + "/record" + (format === "json" ? "" : "." + format);

/** A fresh idempotency key (also outside secure contexts, where randomUUID is missing). */
export function freshKey() {
  const bytes = new Uint8Array(12);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** Offer `text` as a file download named `filename`. */
export function download(filename, text, type = "application/json") {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const link = document.createElement("a");
  link.href = url;
  link.download = filename;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

/** Copy `text` to the clipboard (falls back to a selected text area on plain http). */
export async function copyText(text) {
  if (navigator.clipboard && window.isSecureContext) {
    await navigator.clipboard.writeText(text);
    return;
  }
  const area = document.createElement("textarea");
  area.value = text;
  area.style.position = "fixed";
  area.style.opacity = "0";
  document.body.append(area);
  area.select();
  document.execCommand("copy");
  area.remove();
}

/** Create an element: `el("button", {class: "x", onclick: f}, "text", child)`. */
export function el(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith("on")) node.addEventListener(name.slice(2), value);
    else if (name === "dataset") Object.assign(node.dataset, value);
    else if (value === true) node.setAttribute(name, "");
    else node.setAttribute(name, value);
  }
  node.append(...children.filter((child) => child !== null && child !== undefined));
  return node;
}
