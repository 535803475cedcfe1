// The game page's keys: ← and → step through the moves (the position before, after),
// Home goes to the first position and End back to the live one; Escape drops the picks.
// Never while the player types (an input, a select, a text area), nor with Ctrl, Alt or
// Meta held (the browser's own keys).

const TYPING = new Set(["INPUT", "SELECT", "TEXTAREA"]);

/** Whether `target` takes typed keys itself. */
function typing(target) {
  return Boolean(target && (TYPING.has(target.tagName) || target.isContentEditable));
}

/**
 * Listen for the page's keys.
 * @param {object} steps  `{at(), last(), lookAt(at), backToLive(), escape()}`: the position
 *   shown (moves into the game), the number of moves, and what the keys do
 */
export function wireKeys(steps) {
  document.addEventListener("keydown", (event) => {
    if (event.key === "Escape") {
      steps.escape();
      return;
    }
    if (event.ctrlKey || event.altKey || event.metaKey || typing(event.target)) return;
    const at = steps.at();
    const last = steps.last();
    if (at === null) return;
    let to = null;
    if (event.key === "ArrowLeft") to = Math.max(0, at - 1);
    else if (event.key === "ArrowRight") to = Math.min(last, at + 1);
    else if (event.key === "Home") to = 0;
    else if (event.key === "End") to = last;
    else return;
    event.preventDefault();
    if (to === at) return;
    if (to >= last) steps.backToLive();
    else steps.lookAt(to);
  });
}
