// Draws the game page from the model (render(model, page) after every update): the board
// through its renderer, the turn's controls (picks, choices, confirmation, move buttons,
// number moves), the hotseat's pass-the-device screen, and through panels.js, clock.js,
// chat.js and analysis.js everything else. Read-only on the model; clicks call the
// page's `actions`.

import { el } from "../api.js";
import * as gestures from "../gestures.js";
import { analysisHints, renderAnalysis } from "./analysis.js";
import { renderChatControls } from "./chat.js";
import { renderClockBar } from "./clock.js";
import { renderReview, reviewHints } from "./review.js";
import { actingSeat, heldSeats, interactive, seatName, shownView } from "./model.js";
import { showTurn } from "./attention.js";
import { renderOffers } from "./offers.js";
import { $ } from "./page.js";
import { renderMoves } from "./moves.js";
import {
  renderActions, renderLines, renderLooking, renderPlayers, renderResult, renderStatus,
} from "./panels.js";

/**
 * Draw the whole page.
 * @param {object} model  model.js's model
 * @param {object} page  `{board, actions}`: the renderer's `{update}` and the page's actions
 *   (`sendMove(move, {confirmed})`, `clearPicks()`, `lookAt(at)`, `join(seat)`)
 */
export function render(model, page) {
  if (!model.facts || !model.live) return;
  const live = model.live;
  const view = shownView(model);
  const seat = actingSeat(model);
  const canPlay = interactive(model);
  const held = heldSeats(model);

  renderStatus(model);
  renderClockBar(model);
  renderLines(model, view);
  renderBoard(model, page.board, view, canPlay);
  renderPickLine(model, page.actions, canPlay);
  renderButtons(model, page.actions, canPlay);
  renderMoves(model, page.actions);
  renderPlayers(model, page.actions);
  renderResult(model);
  renderActions(model);
  renderOffers(model);
  renderLooking(model);
  renderPassDevice(model, seat);
  renderChatControls(model);
  renderAnalysis(model);
  renderReview(model, page.actions);

  const pending = (live.view.history || []).filter((entry) => /:\?$/.test(entry)).length;
  $("pending").hidden = pending === 0 || live.view.terminal;
  $("pending").textContent = `pending picks of a team mate: ${pending}`;
  // Announcements (collisions, reveals) stay for a few versions after their update.
  const recent = model.announcements.filter((item) => item.version >= live.version - 3);
  $("announcements").replaceChildren(...recent.map((item) => el("p", {}, item.text)));
  $("move-input").disabled = seat === null;
  renderLegalList(canPlay ? live.view.legal || [] : []);
  showTurn(`${model.facts.title || model.facts.game} — boardlab`,
    seat !== null && !live.view.terminal);
  const playing = held.length > 0 && !live.view.terminal;
  $("move-form").hidden = !playing;
  document.querySelector(".board-column").classList.toggle("compact", !playing);
  $("seat-name").hidden = false;
  $("seat-name").textContent = held.length
    ? "you: " + held.map((s) => seatName(model, s)).join(", ")
    : "watching";
}

function renderBoard(model, board, view, canPlay) {
  const { entries, picks } = model.gesture;
  const pickable = canPlay
    ? gestures.pickable(entries, picks)
    : Object.fromEntries(gestures.BOARD_KINDS.map((kind) => [kind, new Set()]));
  if (canPlay && picks.length) {
    // A fresh first pick of another kind restarts the gesture (another colour, another card).
    const starts = gestures.pickable(entries, []);
    for (const kind of gestures.BOARD_KINDS) {
      if (!pickable[kind].size) for (const value of starts[kind]) pickable[kind].add(value);
    }
  }
  const overlay = $("score-overlay");
  $("score-overlay-label").hidden = !(view.board && view.board.score);
  board.update(view, { pickable, selected: canPlay ? picks : [], hints: new Map([...analysisHints(model), ...reviewHints(model)]),
    showPickable: true, overlay: overlay.checked, preview: canPlay ? previewPiece(model) : null });
  $("board").classList.toggle("inactive", !canPlay);
}

/** The piece a click on an empty cell would place now: the piece picked so far, else the
 *  one piece the acting seat owns (null: none, or several). */
function previewPiece(model) {
  const picked = model.gesture.picks.find((pick) => pick.kind === "piece");
  if (picked) return picked.value;
  const name = seatName(model, actingSeat(model));
  const own = Object.entries(model.facts.board.pieces || {})
    .filter(([, piece]) => piece.owner === name);
  return own.length === 1 ? own[0][0] : null;
}

/** The line beside the buttons: the move to confirm, or the picks so far with the complete
 *  moves to choose from and a clear button. */
function renderPickLine(model, actions, canPlay) {
  const { entries, picks, chooser, confirm } = model.gesture;
  const parts = [];
  if (confirm) {
    parts.push(el("span", {}, "play "), el("strong", { class: "built-move" }, confirm),
      el("span", {}, "? "),
      el("button", { type: "button", id: "confirm-move", class: "primary",
        onclick: () => actions.sendMove(model.gesture.confirm, { confirmed: true }) }, "confirm"),
      el("button", { type: "button", id: "cancel-move", onclick: actions.clearPicks }, "cancel"));
  } else if (canPlay && picks.length) {
    parts.push(el("span", {}, "picked: " + picks.map((p) => p.value).join(" · ") + " "));
    if (chooser.length) {
      parts.push(el("span", {}, " play "));
      for (const move of chooser) {
        parts.push(el("button", { type: "button", class: "choice", "data-choice": move,
          onclick: () => actions.sendMove(move) }, move));
      }
      const more = gestures.status(entries, picks).continuing;
      if (more.length) {
        const kinds = [...new Set(more.map((e) => e.gesture.name))].join(", ");
        parts.push(el("span", { class: "hint-text" }, " or pick on for " + kinds));
      }
    }
    parts.push(el("button", { type: "button", id: "clear-picks", onclick: actions.clearPicks,
      title: "Escape" }, "clear"));
  }
  $("pick-line").replaceChildren(...parts);
}

/** The whole-move buttons (declared buttons and moves no gesture makes) and the number
 *  moves (a komi bid: a number input and a submit button). */
function renderButtons(model, actions, canPlay) {
  const box = $("buttons");
  const numbers = $("number-moves");
  const entries = model.gesture.entries;
  const legal = canPlay ? model.live.view.legal || [] : [];
  const made = new Set(entries.map((entry) => entry.move));
  const buttons = (model.facts.board.buttons || []).filter((move) => legal.includes(move));
  // Whole moves no gesture makes and no declared button names (e.g. side choices).
  const others = legal.filter((move) => !made.has(move) && !buttons.includes(move));
  const shown = [...buttons, ...(others.length <= 12 ? others : [])];
  const key = shown.join("\n");
  if (box.dataset.key !== key) {
    box.dataset.key = key;
    box.replaceChildren(...shown.map((move) =>
      el("button", { type: "button", "data-move": move, onclick: () => actions.sendMove(move) },
        move)));
  }
  const forms = [];
  for (const gesture of model.facts.board.gestures || []) {
    if (!gesture.picks.every((pick) => gestures.parsePick(pick).kind === "number")) continue;
    const values = entries.filter((entry) => entry.gesture === gesture)
      .map((entry) => Number(entry.picks[0].value));
    if (!canPlay || !values.length || gesture.picks.length !== 1) continue;
    forms.push({ gesture, min: Math.min(...values), max: Math.max(...values) });
  }
  const numberKey = forms.map((f) => `${f.gesture.name}:${f.min}:${f.max}`).join("|");
  if (numbers.dataset.key !== numberKey) {
    numbers.dataset.key = numberKey;
    numbers.replaceChildren(...forms.map(({ gesture, min, max }) =>
      numberForm(gesture, min, max, actions)));
  }
}

function numberForm(gesture, min, max, actions) {
  const input = el("input", { type: "number", step: "any", min, max,
    "data-gesture": gesture.name, "data-pick-kind": "number",
    "aria-label": gesture.help || gesture.name, value: "" });
  const form = el("form", { class: "number-move" },
    el("label", {}, (gesture.help || gesture.name) + " "), input,
    el("button", { type: "submit" }, gesture.name));
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    if (input.value.trim() === "") return;
    actions.sendMove(gestures.fill(gesture.template, [input.value.trim()]));
  });
  return form;
}

/** Hotseat with hidden information: hide the board until the next player says they are
 *  ready. */
function renderPassDevice(model, seat) {
  const hides = model.facts.perfect_information === false && heldSeats(model).length > 1;
  const overlay = $("pass-device");
  if (!hides || seat === null) {
    overlay.hidden = true;
    $("board-wrap").classList.remove("hidden-board");
    return;
  }
  const show = seat !== model.passShownFor;
  overlay.hidden = !show;
  $("board-wrap").classList.toggle("hidden-board", show);
  if (show) $("pass-device-text").textContent = `Pass the device to ${seatName(model, seat)}.`;
}

/** The typed move's completions: the legal moves' notation (#legal-moves, a datalist). */
function renderLegalList(legal) {
  const list = $("legal-moves");
  const key = legal.join("\n");
  if (list.dataset.key === key) return;
  list.dataset.key = key;
  list.replaceChildren(...legal.map((move) => el("option", { value: move })));
}
