// The game page's words and side panels, drawn from the model: the status (whose turn, the
// result), the status lines under it, the players with their clocks, the result, the
// action buttons (resign, undo, draws, rematch, downloads) and the "looking at a past
// position" bar (the move list is moves.js's). Read-only on the model; clicks call the page's `actions`.

import { el } from "../api.js";
import { clockElement } from "./clock.js";
import { actingSeat, heldSeats, seatName, teamOf, teamPlay } from "./model.js";
import { $, names } from "./page.js";

/** The view envelope's own keys: every game's view has them (docs/protocol.md). */
const ENVELOPE_KEYS = new Set(["game", "spec", "seats", "teams", "seat", "to_move", "acting",
  "legal", "legal_actions", "history", "terminal", "result", "clocks", "board"]);

/** A result in words: "draw (agreed)", "Black wins", "North-South win (tricks)". */
export function resultWords(model, result) {
  if (!result) return "the game is over";
  if (result.summary) return result.summary;     // the server's words (core/results.py)
  const reason = result.reason ? ` (${result.reason})` : "";
  if (result.draw) return "draw" + reason;
  const winners = result.winners || [];
  const teams = (model.facts.teams || []).filter((team) => team.seats.length > 1 &&
    team.seats.every((name) => winners.includes(name)) && winners.length === team.seats.length);
  const label = teams.length === 1 ? teams[0].name : names(winners);
  return `${label} ${winners.length === 1 || teams.length === 1 ? "wins" : "win"}${reason}`;
}

export function renderStatus(model) {
  const seat = actingSeat(model);
  const held = heldSeats(model);
  const status = $("status");
  status.classList.toggle("your-turn", seat !== null && !model.look);
  status.classList.toggle("over", Boolean(model.live.view.terminal));
  const live = model.live.view;
  if (live.terminal) {
    status.textContent = resultWords(model, live.result);
    return;
  }
  const acting = live.acting || [];
  const who = live.to_move && !acting.every((name) => name === live.to_move)
    ? `${live.to_move} (${names(acting)})` : names(acting);
  if (seat !== null) {
    const mine = seatName(model, seat);
    status.textContent = held.length > 1 ? `your turn: ${mine}` : "your turn";
    if (held.length === 1 && acting.length > 1) {
      status.textContent += ` (with ${names(acting.filter((n) => n !== mine))})`;
    }
  } else if (acting.length) status.textContent = `${who} to move`;
  else status.textContent = "waiting…";
  if (model.live.draw_offer) status.textContent += ` — ${model.live.draw_offer} offers a draw`;
}

/** A short text for a plain value of the view (a number, a short word, a small flat object),
 *  else null. */
function plainValue(value) {
  if (typeof value === "number") return String(value);
  if (typeof value === "string") return value && value.length <= 12 ? value : null;
  if (!value || typeof value !== "object" || Array.isArray(value)) return null;
  const entries = Object.entries(value);
  if (!entries.length || entries.length > 6 ||
      entries.some(([, item]) => typeof item !== "number" && typeof item !== "string")) {
    return null;
  }
  return entries.map(([key, item]) => `${key} ${item}`).join(", ");
}

/** The lines under the status: the game's own (`lines` beside the view) when the server
 *  sends them, else a summary of the view's plain game keys (scores, quotas, phase, ...)
 *  that the board block does not already draw. */
export function renderLines(model, view) {
  const own = model.look ? model.look.lines : model.live.lines;
  let lines = own;
  if (!lines) {
    const parts = Object.entries(view)
      .filter(([key]) => !ENVELOPE_KEYS.has(key) && !(view.board && key in view.board))
      .map(([key, value]) => [key, plainValue(value)])
      .filter(([, text]) => text !== null)
      .map(([key, text]) => `${key.replaceAll("_", " ")}: ${text}`);
    lines = parts.length ? [parts.join(" · ")] : [];
  }
  const box = $("lines");
  box.classList.toggle("own", Boolean(own));
  const key = lines.join("\n");
  if (box.dataset.key !== key) {
    box.dataset.key = key;
    box.replaceChildren(...lines.map((line) => el("li", {}, line)));
  }
  box.hidden = lines.length === 0;
}

/** The account holding a seat (the server's public seats): its name, a link to its
 *  profile (as text), and BOT for a bot account; null for a seat no account holds. */
function accountMark(account) {
  if (!account) return null;
  return el("span", { class: "player-account", "data-account": account.username },
    el("a", { href: "/user/" + encodeURIComponent(account.username) }, account.username),
    account.bot ? el("span", { class: "bot-badge" }, "BOT") : null);
}

/** The players panel: each seat's name, team, kind (or "you"), clock and, for a spectator,
 *  a button to take an open seat; then the scores. */
export function renderPlayers(model, actions) {
  const view = model.live.view;
  const held = heldSeats(model);
  const kinds = new Map((model.game.seats || []).map((seat) => [seat.seat, seat]));
  const acting = view.terminal ? [] : view.acting || [];
  const teams = teamPlay(model);
  $("players").replaceChildren(...model.facts.seats.map((name, index) => {
    const info = kinds.get(index) || {};
    const who = info.kind === "ai" ? `AI ${info.agent || ""}`
      : info.kind === "open" ? "open seat" : "person";
    const team = teams ? teamOf(model, name) : null;
    return el("li", { class: [acting.includes(name) ? "acting" : "",
      held.includes(index) ? "mine" : ""].join(" "), "data-seat": index },
    el("span", { class: "turn-dot", "aria-hidden": "true" }),
    el("span", { class: "player-name" }, name),
    accountMark(info.account),
    team ? el("span", { class: "team" }, team.name) : null,
    el("span", { class: "player-kind" }, held.includes(index) ? "you" : who),
    info.kind === "open" && !held.length && !view.terminal
      ? el("button", { type: "button", class: "join", "data-join": index,
        onclick: () => actions.join(index) }, "take this seat")
      : null,
    clockElement(model, name));
  }));
  const scores = (view.result && view.result.scores) ||
    (typeof view.scores === "object" && view.scores) || null;
  $("scores").textContent = scores && !Array.isArray(scores)
    ? "score: " + Object.entries(scores).map(([name, value]) => `${name} ${value}`).join(" · ")
    : "";
}

export function renderResult(model) {
  const view = model.live.view;
  const box = $("result");
  box.hidden = !view.terminal;
  if (!view.terminal) return;
  const result = view.result || {};
  box.dataset.winners = (result.winners || []).join(",");
  box.dataset.draw = result.draw ? "true" : "false";
  box.dataset.reason = result.reason || "";
  $("result-text").textContent = resultWords(model, result);
}

/** Whether the game lets players agree a draw: the game's own word (facts.agreed_draws); a
 *  server without it: two teams that can draw. */
function drawGame(facts) {
  if (typeof facts.agreed_draws === "boolean") return facts.agreed_draws;
  const [low, high] = facts.utility_bounds || [-1, 1];
  return (facts.teams || []).length === 2 && low <= 0 && high >= 0;
}

export function renderActions(model) {
  const live = model.live;
  const held = heldSeats(model);
  const over = Boolean(live.view.terminal);
  const others = (model.game.seats || []).filter((seat) => !held.includes(seat.seat));
  const myTeams = held.map((seat) => teamOf(model, seatName(model, seat))?.name);
  const playing = !over && held.length > 0;
  $("resign").hidden = !playing;
  $("undo").hidden = !playing || held.length !== 1 || !others.length ||
    others.some((seat) => seat.kind !== "ai");
  $("offer-draw").hidden = !playing || !drawGame(model.facts) || Boolean(live.draw_offer);
  const theirOffer = Boolean(live.draw_offer) && !myTeams.includes(live.draw_offer);
  $("accept-draw").hidden = !playing || !theirOffer;
  $("decline-draw").hidden = !playing || !theirOffer;
  const link = $("rematch-link");
  link.hidden = !live.rematch;
  if (live.rematch) link.href = `/game/${encodeURIComponent(live.rematch)}`;
  $("download-json").hidden = !over;
  $("download-sgf").hidden = !over || !(model.facts.record_formats || []).includes("sgf");
}

export function renderLooking(model) {
  $("looking").hidden = !model.look;
  if (model.look) {
    const total = (model.live.view.history || []).length;
    $("looking-text").textContent = `position after ${model.look.at} of ${total} moves`;
  }
}
