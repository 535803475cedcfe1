// What the grid renderer (grid.js) draws in a cell: pieces in their colours, the marks
// (owners, last move, secret squares, revealed cells) as shapes, and the legend icons.
// Marks differ in shape as well as colour, so colour-blind players tell them apart.

import { outlinePoints, ringOutline, svg, svgText, title } from "./svg.js";

/** Colours named in a piece's label ("black stone", "white chip"), else a palette. */
const NAMED_COLOURS = {
  black: ["#23262b", "#000000", "#f4f1ea"], white: ["#f7f4ec", "#5b5f66", "#23262b"],
  red: ["#c4473a", "#7d241b", "#ffffff"], green: ["#3f8a55", "#1f4d2c", "#ffffff"],
  blue: ["#3a69b0", "#1d3a6b", "#ffffff"], purple: ["#7a4fa3", "#452a60", "#ffffff"],
  yellow: ["#e0b83a", "#7a6114", "#23262b"], orange: ["#d9823b", "#7a4216", "#23262b"],
};
const PALETTE = [NAMED_COLOURS.blue, NAMED_COLOURS.orange, NAMED_COLOURS.green,
  NAMED_COLOURS.purple];

/** Owner marks differ by shape (and colour): the n-th owner gets the n-th shape. */
const OWNER_SHAPES = ["square", "triangle", "circle", "diamond"];
export const OWNER_COLOURS = ["#1f7a8c", "#c0582b", "#6b4fa0", "#4f7a28"];

/** Unit outlines of the polygon marks (a circle and a square are drawn as such). */
const OUTLINES = {
  triangle: [[0, -1.1], [1.1, 0.9], [-1.1, 0.9]],
  diamond: [[0, -1.25], [1.25, 0], [0, 1.25], [-1.25, 0]],
  star: ringOutline(10, -Math.PI / 2, [1.2, 0.45]),      // five-pointed
};
/** Decimals of the polygons' points (the star's to a tenth: the look it has always had). */
const DIGITS = { triangle: 2, diamond: 2, star: 1 };

/** `{fill, stroke, ink}` for each piece code of the description. */
export function pieceColours(pieces) {
  const colours = {};
  Object.entries(pieces || {}).forEach(([code, piece], index) => {
    const words = String(piece.label || "").toLowerCase().split(/\W+/);
    const named = words.map((word) => NAMED_COLOURS[word]).find(Boolean);
    const [fill, stroke, ink] = named || PALETTE[index % PALETTE.length];
    colours[code] = { fill, stroke, ink };
  });
  return colours;
}

/** A mark of shape `kind` (square, circle, triangle, diamond, else a star) of radius r. */
export function shape(kind, cx, cy, r, attributes, parent) {
  if (kind === "square") {
    return svg("rect", { x: cx - r, y: cy - r, width: 2 * r, height: 2 * r, ...attributes },
      parent);
  }
  if (kind === "circle") return svg("circle", { cx, cy, r, ...attributes }, parent);
  const name = OUTLINES[kind] ? kind : "star";
  const points = outlinePoints(OUTLINES[name], cx, cy, r, DIGITS[name]);
  return svg("polygon", { points, ...attributes }, parent);
}

/** The n-th owner's mark of radius r at (cx, cy). */
export function ownerMark(n, cx, cy, r, attributes, parent) {
  return shape(OWNER_SHAPES[n % 4], cx, cy, r, { fill: OWNER_COLOURS[n % 4], ...attributes },
    parent);
}

/** Draw a piece with code `code` centred in a cell at (cx, cy); its index sets its outline. */
export function drawPiece(parent, code, cx, cy, colours, codes, label) {
  const colour = colours[code] || { fill: "#999", stroke: "#333", ink: "#000" };
  const group = svg("g", { class: "piece", "data-piece": code }, parent);
  title(group, label || code);
  svg("circle", { cx, cy: cy + 3, r: 37, class: "piece-shadow" }, group);
  svg("circle", { cx, cy, r: 37, fill: colour.fill, stroke: colour.stroke, "stroke-width": 3 },
    group);
  // A second outline for every other piece, so pieces differ without colour too.
  const index = codes.indexOf(code);
  if (index % 2 === 1) {
    svg("circle", { cx, cy, r: 27, fill: "none", stroke: colour.stroke, "stroke-width": 2.5,
      opacity: 0.55 }, group);
  }
  if (index >= 2) {
    svgText(group, { x: cx, y: cy + 9, "text-anchor": "middle", class: "piece-code",
      fill: colour.ink }, code);
  }
  return group;
}

/** Draw the marks of a board block into `layer`: `place(cell, dx, dy)` is the point (dx, dy)
 *  from the centre of the named cell (null when there is no such cell); `cell` the cell's
 *  side. Returns the owner mark names (`owner:...`) in order. */
export function drawMarks(layer, marks, place, cell) {
  const half = cell / 2;
  const owners = Object.keys(marks).filter((name) => name.startsWith("owner:"));
  owners.forEach((owner, i) => {
    for (const name of marks[owner]) {
      const at = place(name, -half + 16, -half + 16);
      if (at) ownerMark(i, at.x, at.y, 9, { class: "mark-owner", "data-mark": owner }, layer);
    }
  });
  for (const [name, list] of Object.entries(marks)) {
    if (name.startsWith("owner:")) continue;
    for (const where of list) {
      if (name === "last") {
        const at = place(where, 0, 0);
        if (at) {
          svg("circle", { cx: at.x, cy: at.y, r: 11, class: "mark-last", "data-mark": "last" },
            layer);
        }
      } else if (name === "secret") {
        const at = place(where, half - 18, -half + 18);
        if (at) {
          shape("star", at.x, at.y, 12, { class: "mark-secret", "data-mark": "secret" }, layer);
        }
      } else if (name === "revealed") {
        const at = place(where, half - 18, half - 18);
        if (at) {
          shape("diamond", at.x, at.y, 9, { class: "mark-revealed", "data-mark": "revealed" },
            layer);
        }
      } else {
        const at = place(where, -half + 16, half - 16);
        if (at) shape("circle", at.x, at.y, 7, { class: "mark-other", "data-mark": name }, layer);
      }
    }
  }
  return owners;
}

/** Fill `legend` (an HTML element) with the owners' marks and the other marks in use. */
export function drawLegend(legend, owners, marks) {
  legend.replaceChildren();
  const item = (draw, text) => {
    const span = document.createElement("span");
    const icon = svg("svg", { viewBox: "0 0 40 40", width: 16, height: 16, "aria-hidden": "true" });
    draw(icon);
    span.append(icon, document.createTextNode(" " + text));
    legend.append(span);
  };
  owners.forEach((owner, i) => item((icon) => ownerMark(i, 20, 20, 12, {}, icon), owner));
  if ("last" in marks) {
    item((icon) => svg("circle", { cx: 20, cy: 20, r: 11, class: "mark-last" }, icon),
      "last move");
  }
  if ("secret" in marks) {
    item((icon) => shape("star", 20, 21, 13, { class: "mark-secret" }, icon), "secret square");
  }
  if ("revealed" in marks) {
    item((icon) => shape("diamond", 20, 20, 11, { class: "mark-revealed" }, icon), "revealed");
  }
}
