// The game page's clocks: the seconds a seat has left (its clock in the view, less the time
// since the view came while it acts), their text, the compact bar of seats and clocks above
// the board (#clock-bar) and the ticking of every `[data-clock]` on the page.

import { el } from "../api.js";
import { formatClock } from "../clock-text.js";
import { heldSeats } from "./model.js";
import { $ } from "./page.js";

/** Below this many seconds a clock shows as low. */
const LOW_SECONDS = 30;
const TICK_MS = 200;

export { formatClock };

/** The seconds seat `name` has left now, or null when it has no clock. */
export function clockLeft(model, name) {
  const live = model.live;
  const clocks = live && live.view.clocks;
  if (!clocks || !(name in clocks)) return null;
  let left = clocks[name];
  // a clock runs only where the server says so (`elapsed`: none before every side moved)
  if (!live.view.terminal && (live.view.acting || []).includes(name) &&
      name in (live.elapsed || {})) {
    left -= ((live.elapsed || {})[name] || 0) + (performance.now() - live.at) / 1000;
  }
  return left;
}

/** The `[data-clock]` element of seat `name` (ticked by startTicking), or null without a clock. */
export function clockElement(model, name) {
  const left = clockLeft(model, name);
  if (left === null) return null;
  return el("span", { class: "clock" + (left < LOW_SECONDS ? " low" : ""), "data-clock": name },
    formatClock(left));
}

/** The compact bar of seats and clocks above the board (shown on narrow screens, where the
 *  players panel is below the board). */
export function renderClockBar(model) {
  const view = model.live.view;
  const acting = view.terminal ? [] : view.acting || [];
  $("clock-bar").replaceChildren(...model.facts.seats.map((name, index) =>
    el("li", { class: [acting.includes(name) ? "acting" : "",
      heldSeats(model).includes(index) ? "mine" : ""].join(" ") },
    el("span", { class: "turn-dot", "aria-hidden": "true" }),
    el("span", { class: "player-name" }, name),
    clockElement(model, name))));
}

/** Update every clock on the page from the model, five times a second; `onLow()` once a
 *  turn when the clock of a held seat that acts falls under LOW_SECONDS. */
export function startTicking(model, onLow = () => {}) {
  let warned = null;
  setInterval(() => {
    const live = model.live;
    if (live && !live.view.terminal) {
      for (const seat of heldSeats(model)) {
        const name = model.facts.seats[seat];
        const left = clockLeft(model, name);
        const key = `${live.version}:${name}`;
        if (left !== null && left < LOW_SECONDS && (live.view.acting || []).includes(name) &&
            warned !== key) {
          warned = key;
          onLow();
        }
      }
    }
    for (const node of document.querySelectorAll("[data-clock]")) {
      const left = clockLeft(model, node.dataset.clock);
      if (left !== null) {
        node.textContent = formatClock(left);
        node.classList.toggle("low", left < LOW_SECONDS);
      }
    }
  }, TICK_MS);
}
