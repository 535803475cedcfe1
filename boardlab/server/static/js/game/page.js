// Small helpers of the game page's DOM (game.html): elements by id, the message line and a
// list of names in words.

/** The element with id `id`. */
export const $ = (id) => document.getElementById(id);

/** Show `text` in the message line above the board (`kind`: "error" or "notice"). */
export function say(text, kind = "error") {
  const line = $("message");
  line.textContent = text || "";
  line.dataset.kind = kind;
}

/** `["a", "b", "c"]` → "a, b and c". */
export function names(list) {
  if (list.length <= 1) return list.join("");
  return list.slice(0, -1).join(", ") + " and " + list[list.length - 1];
}
