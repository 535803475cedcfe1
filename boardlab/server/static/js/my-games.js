// "My games": the games this browser holds seats in. A game page opened with a seat link
// remembers it (localStorage, newest first, at most MAX_KEPT); the lobby lists them, each
// with a link back to its seat, a "your turn" mark when one of its seats acts now, and the
// time left on your seats' clocks (from the game's `view.clocks` less the `elapsed` of the
// acting seats, as GET /api/games/ID sends them).

import { el, getGame } from "./api.js";
import { formatClock } from "./clock-text.js";

const KEY = "boardlab.myGames";
const MAX_KEPT = 30;
const REFRESH_MS = 8000;

/** The remembered games: `[{id, token, seats: [seat names], spec, title, at}]`. */
export function myGames() {
  try {
    const games = JSON.parse(localStorage.getItem(KEY) || "[]");
    return Array.isArray(games) ? games.filter((game) => game && game.id && game.token) : [];
  } catch (error) {
    return [];
  }
}

/** A seat link was opened and the server confirmed the seats its token holds. */
export function rememberGame(id, token, seats, spec, title) {
  const kept = myGames().filter((game) => game.id !== id);
  kept.unshift({ id, token, seats, spec, title, at: new Date().toISOString() });
  localStorage.setItem(KEY, JSON.stringify(kept.slice(0, MAX_KEPT)));
}

/** Forget game `id` (the list's "forget" button). */
export function forgetGame(id) {
  localStorage.setItem(KEY, JSON.stringify(myGames().filter((game) => game.id !== id)));
}

/** The seconds left on the clocks of `seats` (the least), or null without a clock. */
export function timeLeft(shown, seats) {
  const view = shown && shown.view;
  if (!view || view.terminal || !view.clocks) return null;
  const acting = view.acting || [];
  const left = seats.filter((name) => view.clocks[name] != null).map((name) =>
    view.clocks[name] - (acting.includes(name) ? (shown.elapsed || {})[name] || 0 : 0));
  return left.length ? Math.min(...left) : null;
}

/** One row: the game, whether it is your turn (or over), and the link to your seat. */
function row(game, shown) {
  const page = `/game/${encodeURIComponent(game.id)}#token=${encodeURIComponent(game.token)}`;
  const view = shown && shown.view;
  const acting = view && !view.terminal ? view.acting || [] : [];
  const yours = acting.some((name) => game.seats.includes(name));
  const status = !shown ? "gone" : view.terminal ? "over" : yours ? "your turn" : "waiting";
  const item = el("li", { "data-game": game.id, class: yours ? "your-turn" : "" },
    el("span", { class: "game-spec" }, game.title || game.spec || game.id),
    el("span", { class: "status-tag" + (yours ? " yours" : status === "over" ? " over" : "") },
      status),
    el("span", { class: "game-meta" }, `you: ${game.seats.join(", ")}` +
      (view ? ` · ${(view.history || []).length} moves` : "")),
    ...clockOf(shown, game.seats),
    el("a", { href: page }, yours ? "play" : "open"),
    el("button", { type: "button", class: "forget", "aria-label": `forget game ${game.id}`,
      onclick: () => { forgetGame(game.id); showMyGames(); } }, "forget"));
  return item;
}

function clockOf(shown, seats) {
  const left = timeLeft(shown, seats);
  if (left === null) return [];
  return [el("span", { class: "time-left", "data-time-left": String(Math.max(0, left)),
    title: "time left on your clock" }, formatClock(left))];
}

/** The lobby's "My games" panel (made here, above the games list), when there are any. */
export async function showMyGames() {
  let panel = document.getElementById("my-games-panel");
  const games = myGames();
  if (!panel) {
    panel = el("section", { class: "panel", id: "my-games-panel",
      "aria-labelledby": "my-games-title" },
    el("h2", { id: "my-games-title" }, "My games"),
    el("ul", { id: "my-games", class: "games-list" }));
    const list = document.getElementById("games");
    const anchor = list ? list.closest("section") : null;
    if (anchor) anchor.before(panel);
    else document.querySelector("main").append(panel);
  }
  panel.hidden = games.length === 0;
  const shown = await Promise.all(games.map((game) => getGame(game.id).catch(() => null)));
  document.getElementById("my-games").replaceChildren(
    ...games.map((game, i) => row(game, shown[i])));
}

/** Show "My games" now and every REFRESH_MS (the lobby's one call). */
export function startMyGames() {
  showMyGames();
  setInterval(showMyGames, REFRESH_MS);
}
