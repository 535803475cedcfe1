// The gesture machine (docs/protocol.md, "The board description"): turns the picks a
// player makes on the board into moves, from the description's gestures and the view's
// `legal` list. Pure functions only; no DOM.

/** The kinds a click on the board can pick (a `number` is typed, not clicked). */
export const BOARD_KINDS = ["cell", "token", "piece", "card"];

/** `"piece:B|W"` → `{kind: "piece", allowed: Set{"B", "W"}}`; `"cell"` → `{kind, allowed: null}`. */
export function parsePick(spec) {
  const [kind, rest] = spec.split(":", 2);
  return { kind, allowed: rest ? new Set(rest.split("|")) : null };
}

/** Fill a template: `fill("move {0}>{1}", ["3", "4"])` → `"move 3>4"`. */
export function fill(template, values) {
  return template.replace(/\{(\d+)\}/g, (_, i) => values[Number(i)]);
}

const escapeRegExp = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** The values a pick of this spec can take, when the description lists them (else null). */
function knownValues(pick, description) {
  let values = null;
  if (pick.kind === "cell" || pick.kind === "token") values = description.cells || null;
  else if (pick.kind === "piece") values = Object.keys(description.pieces || {});
  if (pick.allowed) values = values ? values.filter((v) => pick.allowed.has(v)) : [...pick.allowed];
  return values;
}

/** A matcher of a gesture's template: a move → its picked values, or null. */
function matcher(gesture, description) {
  const picks = gesture.picks.map(parsePick);
  const slots = [];
  const source = gesture.template.replace(/\{(\d+)\}|([^{]+|\{)/g, (_, index, literal) => {
    if (literal !== undefined) return escapeRegExp(literal);
    slots.push(Number(index));
    const values = knownValues(picks[Number(index)] || { kind: "?" }, description);
    if (values && values.length) {
      const sorted = [...values].sort((a, b) => b.length - a.length);
      return "(" + sorted.map(escapeRegExp).join("|") + ")";
    }
    return "(.+?)";
  });
  const pattern = new RegExp("^" + source + "$");
  return (move) => {
    const found = pattern.exec(move);
    if (!found) return null;
    const values = [];
    slots.forEach((slot, i) => { values[slot] = found[i + 1]; });
    return picks.map((pick, i) => ({ kind: pick.kind, value: values[i] }));
  };
}

/**
 * Every way the legal moves are made by the gestures: `[{move, gesture, picks}]`, where
 * `picks` are `[{kind, value}]` in gesture order. A move no gesture makes is left out.
 */
export function entries(description, legal) {
  const found = [];
  for (const gesture of description.gestures || []) {
    const match = matcher(gesture, description);
    for (const move of legal) {
      const picks = match(move);
      if (picks) found.push({ move, gesture, picks });
    }
  }
  // A move two gestures match (`back@1` by `{0}@{1}` and `back@{0}`) belongs to the
  // more specific one: the template with the most literal text.
  const literal = (gesture) => gesture.template.replace(/\{\d+\}/g, "").length;
  const best = new Map();
  for (const entry of found) {
    best.set(entry.move, Math.max(best.get(entry.move) ?? -1, literal(entry.gesture)));
  }
  return found.filter((entry) => literal(entry.gesture) === best.get(entry.move));
}

const samePick = (a, b) => a.kind === b.kind && a.value === b.value;
const startsWith = (entry, picks) =>
  picks.length <= entry.picks.length && picks.every((pick, i) => samePick(pick, entry.picks[i]));

/** The entries whose picks begin with `picks`. */
export function matching(all, picks) {
  return all.filter((entry) => startsWith(entry, picks));
}

/** What a click may pick next: `{cell: Set, token: Set, piece: Set, card: Set}`. */
export function pickable(all, picks) {
  const result = Object.fromEntries(BOARD_KINDS.map((kind) => [kind, new Set()]));
  for (const entry of matching(all, picks)) {
    const next = entry.picks[picks.length];
    if (next && result[next.kind]) result[next.kind].add(next.value);
  }
  return result;
}

/**
 * Where the picks stand: `{complete: [moves the picks make now], continuing: [entries that
 * need more picks], matched: bool (some legal move starts with these picks)}`.
 */
export function status(all, picks) {
  const found = matching(all, picks);
  const complete = [...new Set(found.filter((e) => e.picks.length === picks.length).map((e) => e.move))];
  const continuing = found.filter((e) => e.picks.length > picks.length);
  return { complete, continuing, matched: found.length > 0 };
}

/**
 * Add a click to the picks: a click on a picked item deselects it (and what came after);
 * a click no legal move continues with is refused (`{picks, refused: true}`).
 */
export function addPick(all, picks, pick) {
  const at = picks.findIndex((p) => samePick(p, pick));
  if (at >= 0) return { picks: picks.slice(0, at), refused: false };
  const next = [...picks, pick];
  if (matching(all, next).length) return { picks: next, refused: false };
  // Not a continuation: maybe a fresh start (a new first pick replaces the old gesture).
  if (picks.length && matching(all, [pick]).length) return { picks: [pick], refused: false };
  return { picks, refused: true };
}

/** The picks that make a legal move (`[{kind, value}]`), or null. */
export function picksFor(all, move) {
  const entry = all.find((e) => e.move === move);
  return entry ? entry.picks.map((p) => ({ ...p })) : null;
}

/** The help of the gestures (for "not a legal start"). */
export function gestureHelp(description) {
  return (description.gestures || [])
    .filter((g) => g.help)
    .map((g) => `${g.name}: ${g.help}`)
    .join("; ");
}
