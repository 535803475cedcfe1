// The SVG helpers the board renderers share (grid.js, track.js): element creation, text
// labels and titles, marker shapes from unit outlines, keyboard activation and the
// pickable/selected highlight of pick targets. No game knowledge and no layout: each
// renderer keeps its own geometry, colours and shape outlines.

export const SVG_NS = "http://www.w3.org/2000/svg";

/** An SVG element `tag` with `attributes`, appended to `parent` when given. */
export function svg(tag, attributes = {}, parent = null) {
  const node = document.createElementNS(SVG_NS, tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, value);
  if (parent) parent.append(node);
  return node;
}

/** An HTML element `tag` with `attributes` and optional text, appended to `parent`. */
export function html(tag, attributes = {}, parent = null, text = null) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, value);
  if (text !== null) node.textContent = text;
  if (parent) parent.append(node);
  return node;
}

/** An SVG `<text>` label with `content`, appended to `parent`. */
export function svgText(parent, attributes, content) {
  const node = svg("text", attributes, parent);
  node.textContent = content;
  return node;
}

/** An SVG `<title>` (the tooltip and accessible name) with `content`, in `parent`. */
export function title(parent, content) {
  const node = svg("title", {}, parent);
  node.textContent = content;
  return node;
}

/** The `points` attribute of a polygon: unit outline `[[ux, uy], ...]` scaled by `r`
 *  around (cx, cy), to `digits` decimals. */
export function outlinePoints(outline, cx, cy, r, digits = 2) {
  const at = (centre, unit) => (centre + unit * r).toFixed(digits);
  return outline.map(([ux, uy]) => `${at(cx, ux)},${at(cy, uy)}`).join(" ");
}

/** A polygon of unit `outline` scaled by `r` around (cx, cy). */
export function polygon(outline, cx, cy, r, attributes = {}, parent = null) {
  return svg("polygon", { points: outlinePoints(outline, cx, cy, r), ...attributes }, parent);
}

/** The unit outline of `n` points on a ring starting at angle `turn`, their radii taken in
 *  turn from `radii` (`[1.2, 0.45]` over 10 points: a five-pointed star). */
export function ringOutline(n, turn, radii = [1]) {
  return Array.from({ length: n }, (_, i) => {
    const angle = turn + (i * 2 * Math.PI) / n;
    const radius = radii[i % radii.length];
    return [radius * Math.cos(angle), radius * Math.sin(angle)];
  });
}

/** Enter and Space on `node` act as a click (for focusable SVG pick targets). */
export function clickOnKeys(node) {
  node.addEventListener("keydown", (event) => {
    if (event.key === "Enter" || event.key === " ") {
      event.preventDefault();
      node.dispatchEvent(new MouseEvent("click"));
    }
  });
}

/** Whether `ui.pickable` holds `value` for one of `kinds`. */
export function isPickable(ui, kinds, value) {
  const pickable = ui.pickable || {};
  return kinds.some((kind) => Boolean(pickable[kind] && pickable[kind].has(value)));
}

/** Whether `ui.selected` (the picks so far) holds `value` picked as one of `kinds`. */
export function isSelected(ui, kinds, value) {
  return (ui.selected || []).some((pick) => kinds.includes(pick.kind) && pick.value === value);
}

/** Mark `node` as the pick target `kind`/`value` (`data-pick-kind`, `data-pick`) with the
 *  classes `pickable` and `selected` from `ui`; returns whether it is pickable. */
export function markPickTarget(node, kind, value, ui) {
  node.setAttribute("data-pick-kind", kind);
  node.setAttribute("data-pick", value);
  const pickable = isPickable(ui, [kind], value);
  node.classList.toggle("pickable", pickable);
  node.classList.toggle("selected", isSelected(ui, [kind], value));
  return pickable;
}
