// Small helpers of the game page's DOM (game.html): elements by id, the message line and a
// list of names in words.

/** The element with id `id`. */
export const $ = (id) => document.getElementById(id);

/** How long a message stays before it fades (ms), by kind; and the fade itself. */
const SHOWN_MS = { error: 6000, notice: 4000 };
const FADE_MS = 600;
let timers = [];

/** Show `text` in the message line under the board (`kind`: "error" or "notice"): it covers
 *  nothing (the line keeps its room), and fades after a few seconds. */
export function say(text, kind = "error") {
  const line = $("message");
  timers.forEach(clearTimeout);
  timers = [];
  line.classList.remove("fading");
  line.textContent = text || "";
  line.dataset.kind = kind;
  if (!text) return;
  timers.push(setTimeout(() => {
    line.classList.add("fading");
    timers.push(setTimeout(() => {
      line.textContent = "";
      line.classList.remove("fading");
    }, FADE_MS));
  }, SHOWN_MS[kind] || SHOWN_MS.error));
}

/** `["a", "b", "c"]` → "a, b and c". */
export function names(list) {
  if (list.length <= 1) return list.join("");
  return list.slice(0, -1).join(", ") + " and " + list[list.length - 1];
}
