// The move list (#moves), grouped by turn: one row per turn with the colour and name of who
// played it (the seats of the history entries come beside the view as `movers`; a turn is
// a run of entries by one side, so a team's simultaneous picks share a row), each move a
// button that shows the position after it. And the replay buttons.

import { el } from "../api.js";
import { OWNER_COLOURS } from "../boards/grid-pieces.js";
import { seatsOf } from "../boards/track-seats.js";
import { $ } from "./page.js";

/** The turns of `history`: `[{side, seat, entries: [{index, text}]}]`, where `side` is the
 *  mover's team (or seat) name, null when unknown (a server without `movers`). */
export function turnsOf(model, history) {
  const movers = model.live.movers;
  const names = model.facts.seats;
  const teams = model.facts.teams || [];
  const sideOf = (seat) => {
    if (seat === null || seat === undefined) return null;
    const team = teams.find((t) => t.seats.includes(names[seat]));
    return team && team.seats.length > 1 ? team.name : names[seat];
  };
  const turns = [];
  history.forEach((text, index) => {
    const seat = movers && index < movers.length ? movers[index] : null;
    const side = sideOf(seat);
    const last = turns[turns.length - 1];
    if (last && side !== null && last.side === side) last.entries.push({ index, text });
    else turns.push({ side, seat, entries: [{ index, text }] });
  });
  return turns;
}

/** Each seat's colour: its owner marks' on a board that marks owners (as the board's legend
 *  shows them), else the track's seat tone. */
function seatTones(view) {
  const owners = Object.keys(((view.board || {}).marks) || {})
    .filter((name) => name.startsWith("owner:")).map((name) => name.slice("owner:".length));
  return seatsOf(view).map((seat) => (owners.includes(seat.name)
    ? OWNER_COLOURS[owners.indexOf(seat.name) % OWNER_COLOURS.length] : seat.tone));
}

function turnRow(turn, number, tones, actions) {
  const tone = turn.seat !== null && turn.seat !== undefined ? tones[turn.seat] : null;
  const dot = el("span", { class: "seat-dot", "aria-hidden": "true" });
  if (tone) dot.style.background = tone;       // (CSSOM: no inline style attribute)
  const row = el("li", { class: "turn", "data-turn": number, "data-side": turn.side ?? "" },
    el("span", { class: "turn-no" }, `${number}.`),
    turn.side === null ? null : el("span", { class: "who" }, dot,
      el("span", { class: "who-name" }, turn.side)));
  const list = el("ol", { class: "turn-moves" });
  for (const { index, text } of turn.entries) {
    const item = el("li", { "data-index": index },
      el("button", { type: "button", class: "move", tabindex: "-1" }, text));
    item.addEventListener("click", () => actions.lookAt(index + 1));
    list.append(item);
  }
  row.append(list);
  return row;
}

/** The move list (redrawn when the history changes), the shown move marked and
 *  scrolled to; the replay buttons. */
export function renderMoves(model, actions) {
  const list = $("moves");
  const history = model.live.view.history || [];
  const current = model.look ? model.look.at : history.length;
  const key = history.length + "\n" + history.join("\n") + "\n" +
    (model.live.movers || []).join(",");
  const atBottom = list.scrollTop + list.clientHeight >= list.scrollHeight - 8;
  if (list.dataset.key !== key) {
    list.dataset.key = key;
    const tones = seatTones(model.live.view);
    list.replaceChildren(...turnsOf(model, history).map((turn, i) =>
      turnRow(turn, i + 1, tones, actions)));
  }
  let shown = null;
  for (const item of list.querySelectorAll("li[data-index]")) {
    const index = Number(item.dataset.index);
    const isCurrent = index + 1 === current && Boolean(model.look);
    item.classList.toggle("current", isCurrent);
    const button = item.firstElementChild;
    if (isCurrent) button.setAttribute("aria-current", "step");
    else button.removeAttribute("aria-current");
    // One move takes the Tab key's focus (the shown one, else the last): the arrow keys
    // step through the rest.
    const focusable = index + 1 === current;
    button.tabIndex = focusable ? 0 : -1;
    if (isCurrent) shown = item;
  }
  if (shown && list.dataset.shown !== String(current)) {
    list.scrollTop = Math.max(0, shown.offsetTop - list.offsetTop - list.clientHeight / 2);
  }
  list.dataset.shown = model.look ? String(current) : "";
  if (atBottom && !model.look) list.scrollTop = list.scrollHeight;
  $("replay-first").disabled = current === 0;
  $("replay-prev").disabled = current === 0;
  $("replay-next").disabled = !model.look;
  $("replay-last").disabled = !model.look;
}
