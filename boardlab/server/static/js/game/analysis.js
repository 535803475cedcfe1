// The game page's analysis panel (#analysis): asks the server to search the shown position
// (POST /api/games/{id}/analysis), shows the win chances and the best moves, and gives the
// board its hints (the moves' chances on the cells or tokens they end on).

import { api, el } from "../api.js";
import * as gestures from "../gestures.js";
import { analysisReceived, heldSeats, shownAt } from "./model.js";
import { $ } from "./page.js";

const THINKING = "thinking…";

/** Whether this page may analyse: a finished game, or a live one whose seats it all holds
 *  (no AI). */
function canAnalyse(model) {
  if (model.live.view.terminal) return true;
  const seats = model.game.seats || [];
  return Boolean(model.token) && heldSeats(model).length === model.facts.seats.length &&
    !seats.some((seat) => seat.kind === "ai");
}

/** Ask for the analysis of the shown position; `redraw()` once it is in. */
export async function analyse(model, redraw) {
  const body = { at: shownAt(model), seconds: Number($("analysis-seconds").value) };
  if (!model.live.view.terminal) body.token = model.token;
  $("analyse").disabled = true;
  $("analysis-estimate").textContent = THINKING;
  let answer;
  try {
    answer = await api(`/api/games/${encodeURIComponent(model.id)}/analysis`,
      { method: "POST", body });
  } catch (error) {
    analysisReceived(model, null);
    $("analysis-estimate").textContent = error.status === 404 || error.status === 405
      ? "this server does not offer analysis yet" : error.message;
    $("analyse").disabled = false;
    return;
  }
  analysisReceived(model, answer);
  $("analyse").disabled = false;
  redraw();
}

/** The analysis's moves as labels on the cells (or tokens) they end on: value →
 *  `{label, weight}` (the renderers' `ui.hints`). */
export function analysisHints(model) {
  const hints = new Map();
  const analysis = model.analysis;
  if (!analysis || analysis.at !== shownAt(model)) return hints;
  const all = gestures.entries(model.facts.board, analysis.moves.map((m) => m.move));
  for (const item of analysis.moves) {
    const picks = gestures.picksFor(all, item.move);
    const target = picks && [...picks].reverse()
      .find((p) => p.kind === "cell" || p.kind === "token");
    if (!target) continue;
    const before = picks.filter((p) => p !== target && p.kind !== "number")
      .map((p) => p.value).join("");
    const label = `${before ? before + " " : ""}${Math.round(item.win * 100)}%`;
    const known = hints.get(target.value);
    if (!known) hints.set(target.value, { label, weight: item.visits });
    else if (!known.label.includes(label)) known.label += " · " + label;
  }
  return hints;
}

export function renderAnalysis(model) {
  const box = $("analysis");
  box.hidden = !canAnalyse(model);
  if (box.hidden) return;
  const analysis = model.analysis;
  const current = analysis && analysis.at === shownAt(model);
  if (!current) {
    if ($("analysis-estimate").textContent !== THINKING) $("analysis-estimate").textContent = "";
    $("analysis-moves").replaceChildren();
    return;
  }
  const estimate = analysis.estimate
    ? Object.entries(analysis.estimate)
      .map(([name, chance]) => `${name} ${Math.round(chance * 100)}%`).join(" · ")
    : "";
  $("analysis-estimate").textContent = (analysis.seat ? `${analysis.seat} to act. ` : "") +
    (estimate ? `win chances: ${estimate}` : "nothing to search here");
  $("analysis-moves").replaceChildren(...analysis.moves.map((item) =>
    el("li", { "data-move": item.move },
      el("span", { class: "move" }, item.move),
      ` — ${Math.round(item.win * 100)}% (${item.visits} visits)`)));
}
