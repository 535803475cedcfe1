// How the track renderer (track.js) tells seats apart: a tone and a marker shape per seat
// (colour-blind players tell seats apart by shape), and the ink that reads on a tone.

import { polygon, ringOutline, svg } from "./svg.js";

// Calm tones for seats named after a colour; other seats take the palette in order.
const SEAT_TONES = {
  green: "#3f8f5a", purple: "#8160a8", red: "#c4514a", blue: "#3d6fb0",
  yellow: "#d9b23c", orange: "#d9843c", black: "#3a3a3a", white: "#e8e4da",
  pink: "#c96f9a", brown: "#8a6240", grey: "#8a8a8a", gray: "#8a8a8a",
};
const PALETTE = ["#3d6fb0", "#c4514a", "#3f8f5a", "#d9b23c", "#8160a8", "#d9843c"];
// Marker shapes by seat number.
const SHAPES = ["circle", "square", "triangle", "diamond", "hexagon", "star"];
// Unit outlines of the polygon markers.
const OUTLINES = {
  triangle: [[0, -1.1], [1.05, 0.75], [-1.05, 0.75]],
  diamond: [[0, -1.15], [1.05, 0], [0, 1.15], [-1.05, 0]],
  hexagon: ringOutline(6, 0),
  star: ringOutline(10, -Math.PI / 2, [1.15, 0.55]),
};

/** The seats of a view as the renderer draws them: `[{name, tone, shape, acting, viewer}]`. */
export function seatsOf(view) {
  const names = view.seats || Object.keys((view.board || {}).tokens || {});
  const acting = new Set(view.acting || []);
  const viewerName = view.seat !== null && view.seat !== undefined ? names[view.seat] : null;
  return names.map((name, s) => ({
    name, tone: seatTone(name, s), shape: SHAPES[s % SHAPES.length],
    acting: acting.has(name) && !view.terminal, viewer: name === viewerName,
  }));
}

/** The tone of a seat: its own colour word when it is one, else the palette in order. */
function seatTone(name, index) {
  const word = String(name).toLowerCase();
  if (SEAT_TONES[word]) return SEAT_TONES[word];
  if (window.CSS && window.CSS.supports && window.CSS.supports("color", word)) return word;
  return PALETTE[index % PALETTE.length];
}

/** Dark text on light tones, white on dark ones. */
export function inkOn(tone) {
  const probe = document.createElement("canvas").getContext("2d");
  probe.fillStyle = tone;
  const hex = probe.fillStyle;            // normalised to #rrggbb
  if (!/^#[0-9a-f]{6}$/i.test(hex)) return "#fff";
  const [r, g, b] = [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16));
  return 0.299 * r + 0.587 * g + 0.114 * b > 150 ? "#2d2a26" : "#fff";
}

/** A marker of `shape` centred on (x, y) with radius r. */
export function shapeNode(shape, x, y, r, attrs) {
  if (shape === "square") {
    return svg("rect", { x: x - r * 0.85, y: y - r * 0.85, width: r * 1.7, height: r * 1.7,
      rx: 1.5, ...attrs });
  }
  if (OUTLINES[shape]) return polygon(OUTLINES[shape], x, y, r, attrs);
  return svg("circle", { cx: x, cy: y, r, ...attrs });
}

/** A small inline SVG of a seat's marker (for the table and the seat list). */
export function seatIcon(shape, tone) {
  const icon = svg("svg", { viewBox: "0 0 20 20", class: "seat-shape", "aria-hidden": "true" });
  icon.appendChild(shapeNode(shape, 10, 10, 8, { fill: tone, class: "token" }));
  return icon;
}
