// The game page's review panel (#review): once the game is over, asks the server to review
// it (POST /api/games/{id}/review), shows the progress while the server's AI searches every
// position (GET, every REVIEW_POLL_MS), then draws the win-chance chart over the moves (SVG:
// one line for two sides, one per side for more), marks the moves that cost their mover
// most (in the chart, the list under it and the move list), jumps to a position on a click
// (or the arrow keys on the chart), and shows the AI's preferred move on the board at a
// marked position.

import { api, el } from "../api.js";
import * as gestures from "../gestures.js";
import { reviewReceived, shownAt } from "./model.js";
import { $ } from "./page.js";

const REVIEW_POLL_MS = 500;
const SVG = "http://www.w3.org/2000/svg";
const W = 600, H = 170, LEFT = 36, RIGHT = 8, TOP = 8, BOTTOM = 24;
const DASHES = ["", "6 3", "2 3", "8 3 2 3", "1 2"];    // one line per side: shape, not colour
let polling = null;
let drawn = null;            // the review the chart was drawn for (redrawn only for another)

const reviewUrl = (model) => `/api/games/${encodeURIComponent(model.id)}/review`;
const percent = (value) => `${Math.round(value * 100)}%`;

/** Ask where the review stands (a finished game's page, on load); draws what it finds. */
export async function loadReview(model, redraw) {
  await ask(model, redraw, "GET");
}

/** The "review the game" button: start the review (or join the one running). */
export async function requestReview(model, redraw) {
  $("review-request").disabled = true;
  await ask(model, redraw, "POST");
}

async function ask(model, redraw, method) {
  clearTimeout(polling);
  let answer;
  try {
    answer = await api(reviewUrl(model), { method });
  } catch (error) {
    $("review-request").disabled = false;
    $("review-status").textContent = error.status === 404 || error.status === 405
      ? "this server does not offer reviews yet" : error.message;
    return;
  }
  reviewReceived(model, answer);
  redraw();
  if (answer.status === "queued" || answer.status === "running") {
    polling = setTimeout(() => ask(model, redraw, "GET"), REVIEW_POLL_MS);
  }
}

/** The AI's preferred move at a marked position, as a hint on the cell (or token) it ends
 *  on: value → `{label, weight}` (the renderers' `ui.hints`). */
export function reviewHints(model) {
  const hints = new Map();
  const review = model.review && model.review.review;
  if (!review || !review.marked.includes(shownAt(model))) return hints;
  const best = review.moves[shownAt(model)].best;
  if (!best) return hints;
  const picks = gestures.picksFor(gestures.entries(model.facts.board, [best]), best);
  const target = picks && [...picks].reverse()
    .find((p) => p.kind === "cell" || p.kind === "token");
  if (!target) return hints;
  const before = picks.filter((p) => p !== target && p.kind !== "number")
    .map((p) => p.value).join("");
  hints.set(target.value, { label: before ? `AI ${before}` : "AI", weight: 1 });
  return hints;
}

/** Draw the panel: shown once the game is over. */
export function renderReview(model, actions) {
  const box = $("review");
  box.hidden = !model.live.view.terminal;
  if (box.hidden) return;
  const answer = model.review || { status: "none", done: 0, total: 0 };
  const working = answer.status === "queued" || answer.status === "running";
  $("review-request").hidden = answer.status === "done";
  $("review-request").disabled = working;
  const progress = $("review-progress");
  progress.hidden = !working;
  progress.max = Math.max(answer.total, 1);
  progress.value = answer.done;
  if (working) {
    $("review-status").textContent = answer.status === "queued"
      ? "waiting for the server's AI…"
      : `reviewing: ${answer.done} of ${answer.total} positions`;
  } else if (answer.status === "failed") {
    $("review-status").textContent = answer.message || "the review failed";
  }
  const review = answer.review;
  if (!review) {
    drawn = null;
    $("review-chart-box").replaceChildren();
    $("review-marks").replaceChildren();
    markMoves(null);
    return;
  }
  $("review-status").textContent = shownWords(review, shownAt(model));
  if (drawn !== review) {
    drawn = review;
    $("review-chart-box").replaceChildren(chartOf(review, () => shownAt(model), actions),
      ...(review.sides.length === 2 ? [] : [legendOf(review)]));
    $("review-marks").replaceChildren(...review.marked.map((at) =>
      markItem(review, at, actions)));
  }
  moveCursor(review, shownAt(model));
  markMoves(review);
}

/** The shown position in words: the sides' chances and the AI's preferred move there. */
function shownWords(review, at) {
  const position = review.positions[Math.min(at, review.positions.length - 1)];
  const chances = review.sides.map((side, i) => `${side} ${percent(position.chances[i])}`)
    .join(" · ");
  return `after ${at} moves: ${chances}` +
    (position.best ? ` — the AI would play ${position.best} (${position.seat})` : "");
}

function moveWords(review, at) {
  const move = review.moves[at];
  return `move ${at + 1}, ${move.move} (${move.seat}): −${Math.round(move.drop * 100)} ` +
    `points` + (move.best && move.best !== move.move ? `; the AI preferred ${move.best}` : "");
}

function markItem(review, at, actions) {
  const item = el("li", { "data-at": at, tabindex: "0", role: "button" },
    moveWords(review, at));
  item.addEventListener("click", () => actions.lookAt(at));
  item.addEventListener("keydown", (event) => {
    if (event.key === "Enter" || event.key === " ") {
      event.preventDefault();
      actions.lookAt(at);
    }
  });
  return item;
}

/** The marked moves in the move list (`#moves li[data-index]`): class `review-mark`. */
function markMoves(review) {
  const marked = new Set(review ? review.marked : []);
  for (const item of $("moves").querySelectorAll("li[data-index]")) {
    const at = Number(item.dataset.index);
    item.classList.toggle("review-mark", marked.has(at));
    if (marked.has(at)) item.title = moveWords(review, at);
    else item.removeAttribute("title");
  }
}

function svg(tag, attributes = {}, ...children) {
  const node = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, value);
  node.append(...children);
  return node;
}

/** The sides' lines named (more than two sides: a line each). */
function legendOf(review) {
  return el("ul", { class: "review-legend" }, ...review.sides.map((side, i) =>
    el("li", {}, svg("svg", { viewBox: "0 0 24 8", width: 24, height: 8, "aria-hidden": "true" },
      svg("line", { class: `review-line side-${i}`, x1: 0, x2: 24, y1: 4, y2: 4,
        "stroke-dasharray": DASHES[i % DASHES.length] })), ` ${side}`)));
}

const xOf = (review) => (at) =>
  LEFT + (review.positions.length > 1 ? at / (review.positions.length - 1) : 0) *
  (W - LEFT - RIGHT);

/** The chart's cursor at the shown position (and the list's current mark). */
function moveCursor(review, shown) {
  const cursor = document.querySelector("#review-chart .review-cursor");
  const x = xOf(review)(Math.min(shown, review.positions.length - 1));
  cursor.setAttribute("x1", x);
  cursor.setAttribute("x2", x);
  document.getElementById("review-chart").dataset.shown = shown;
  for (const item of $("review-marks").children) {
    item.classList.toggle("current", Number(item.dataset.at) === shown);
  }
}

/** The chart: the sides' chances over the positions, the marked moves, a cursor at the
 *  shown position (`shown()`). */
function chartOf(review, shown, actions) {
  const last = review.positions.length - 1;
  const x = xOf(review);
  const y = (chance) => TOP + (1 - chance) * (H - TOP - BOTTOM);
  const two = review.sides.length === 2;
  const lines = two ? [0] : review.sides.map((_, i) => i);
  const title = two
    ? `Win chance of ${review.sides[0]} over the moves (${review.sides[1]}'s is the rest)`
    : `Win chance of each side over the moves: ${review.sides.join(", ")}`;
  const chart = svg("svg", { id: "review-chart", viewBox: `0 0 ${W} ${H}`, role: "group",
    tabindex: "0", "aria-labelledby": "review-chart-title review-chart-desc",
    "data-positions": review.positions.length },
  svg("title", { id: "review-chart-title" }, title),
  svg("desc", { id: "review-chart-desc" }, "Click a point of the chart, or use the arrow " +
      "keys, to show that position; the marks are the moves that cost their mover most."));
  chart.append(svg("rect", { class: "review-plot", x: LEFT, y: TOP, width: W - LEFT - RIGHT,
    height: H - TOP - BOTTOM }));
  for (const chance of [0, 0.5, 1]) {
    chart.append(svg("line", { class: "review-grid", x1: LEFT, x2: W - RIGHT, y1: y(chance),
      y2: y(chance) }), svg("text", { class: "review-label", x: LEFT - 4, y: y(chance) + 4,
      "text-anchor": "end" }, percent(chance)));
  }
  chart.append(svg("text", { class: "review-label", x: (LEFT + W - RIGHT) / 2, y: H - 6,
    "text-anchor": "middle" }, `moves (0–${last})`));
  for (const side of lines) {
    const points = review.positions.map((p, at) => `${x(at)},${y(p.chances[side])}`).join(" ");
    chart.append(svg("polyline", { class: `review-line side-${side}`, points,
      "stroke-dasharray": DASHES[side % DASHES.length], "data-side": review.sides[side] }));
  }
  chart.append(svg("line", { class: "review-cursor", x1: x(0), x2: x(0), y1: TOP,
    y2: H - BOTTOM }));
  for (const at of review.marked) {
    const move = review.moves[at];
    const side = two ? 0 : move.side;
    const cx = x(at + 1), cy = y(review.positions[at + 1].chances[side]);
    const mark = svg("path", { class: "review-point", "data-at": at, tabindex: "0",
      role: "button", "aria-label": moveWords(review, at),
      d: `M${cx - 6},${cy - 5} L${cx + 6},${cy - 5} L${cx},${cy + 6} Z` },
    svg("title", {}, moveWords(review, at)));
    mark.addEventListener("click", (event) => {
      event.stopPropagation();
      actions.lookAt(at);
    });
    mark.addEventListener("keydown", (event) => {
      if (event.key === "Enter" || event.key === " ") {
        event.preventDefault();
        event.stopPropagation();
        actions.lookAt(at);
      }
    });
    chart.append(mark);
  }
  chart.addEventListener("click", (event) => {
    const box = chart.getBoundingClientRect();
    const along = ((event.clientX - box.left) / box.width * W - LEFT) / (W - LEFT - RIGHT);
    actions.lookAt(Math.round(Math.min(1, Math.max(0, along)) * last));
  });
  chart.addEventListener("keydown", (event) => {
    const at = shown();
    const to = { ArrowLeft: at - 1, ArrowRight: at + 1, Home: 0, End: last }[event.key];
    if (to === undefined || event.target !== chart) return;
    event.preventDefault();
    actions.lookAt(Math.min(last, Math.max(0, to)));
  });
  return chart;
}
