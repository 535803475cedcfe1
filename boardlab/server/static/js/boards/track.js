// The track renderer: race games drawn from a `track` board description
// (docs/protocol.md, boardlab/core/board.py) and each view's board block.
//
// The track is an SVG serpentine of cells in order (start first), reflowed to the
// width of `root`; each cell shows its symbol (the description's, or the block's
// when dealt per game), its name and the tokens on it, grouped by seat: one marker
// per seat and cell, a shape and a colour per seat, with a count when several stand
// together. Below it, the table: the viewer's hand (one card per code, with its
// count), the other seats' hands, the pile, the discards, the face-up row, the
// actions left and whether the player is discarding, and the symbols' legend.
//
// Interface (docs/web-app.md): createBoard(root, description, handlers) returns
// {update(view, ui), destroy()}; clicks on pickable things call handlers.pick. The seats'
// tones and markers are track-seats.js's, the table track-table.js's, the CSS
// track-style.js's.

import { html, markPickTarget, svg, svgText, title } from "./svg.js";
import { inkOn, seatsOf, shapeNode } from "./track-seats.js";
import { createTable } from "./track-table.js";
import { injectTrackStyle } from "./track-style.js";

const CELL = 60;              // a cell's side in SVG units
const GAP = 12;               // between cells
const PITCH = CELL + GAP;
const MIN_CELL_PX = 60;       // narrowest cell on screen before the track takes a new row
const MAX_CELL_PX = 84;       // widest
const MAX_COLS = 12;          // a board, not a ribbon: at most this many cells a row
// Symbol colours by legend order (readable on the light cells).
const SYMBOL_TONES = ["#b8413a", "#2f3b4c", "#c26a1d", "#2f5f96", "#6f4a96", "#2e7d4f"];

// Columns and rows of the serpentine for `count` cells at `width` pixels.
function layoutFor(count, width) {
  const fit = Math.min(MAX_COLS, Math.max(4, Math.floor((width || 800) / MIN_CELL_PX)));
  let cols = Math.min(count, fit);
  const rows = Math.ceil(count / cols);
  cols = Math.ceil(count / rows);          // balance the rows: no near-empty last row
  return { cols, rows };
}

// The centre of cell i: left to right on even rows, right to left on odd ones.
function cellCentre(i, cols) {
  const row = Math.floor(i / cols);
  const col = row % 2 === 0 ? i % cols : cols - 1 - (i % cols);
  return [col * PITCH + GAP / 2 + CELL / 2, row * PITCH + GAP / 2 + CELL / 2];
}

// Offsets from the cell centre of `n` token markers: one row of up to three, else two rows.
function markerSpots(n) {
  const perRow = n <= 3 ? n : Math.ceil(n / 2);
  const spots = [];
  for (let k = 0; k < n; k += 1) {
    const row = Math.floor(k / perRow);
    const inRow = Math.min(perRow, n - row * perRow);
    const step = Math.min(18, (CELL - 12) / Math.max(1, inRow - 1));
    const col = k % perRow;
    const dx = (col - (inRow - 1) / 2) * step;
    const dy = n <= 3 ? 13 : 6 + row * 15;
    spots.push([dx, dy]);
  }
  return spots;
}

export function createBoard(root, description, handlers) {
  injectTrackStyle();
  const cells = description.cells || [];
  const labels = description.labels || {};
  const legend = description.legend || {};
  const symbolTone = new Map(Object.keys(legend).map((code, i) =>
    [code, SYMBOL_TONES[i % SYMBOL_TONES.length]]));
  const inks = new Map();
  let last = null;            // [view, ui] of the latest update, for reflows
  let cols = 0;

  root.classList.add("track-board");
  const trackBox = html("div", { class: "track-box" }, root);
  const tableBox = html("div", { class: "table" }, root);
  const legendBox = html("ul", { class: "legend", "aria-label": "symbols" }, root);

  const glyphOf = (code) => (legend[code] && legend[code].glyph) || code;
  const nameOf = (code) => (legend[code] && legend[code].label) || code;
  const toneOf = (code) => symbolTone.get(code) || "#2d2a26";
  const table = createTable({ glyphOf, nameOf, toneOf }, cells, labels);
  const ink = (tone) => {
    if (!inks.has(tone)) inks.set(tone, inkOn(tone));
    return inks.get(tone);
  };

  function onClick(event) {
    const target = event.target.closest("[data-pick-kind][data-pick]");
    // Every pick target goes to the page, pickable or not: a refused click gets its reason.
    if (!target || !root.contains(target)) return;
    event.preventDefault();
    handlers.pick({ kind: target.dataset.pickKind, value: target.dataset.pick });
  }
  function onKey(event) {
    if ((event.key === "Enter" || event.key === " ") && event.target instanceof SVGElement) {
      onClick(event);
    }
  }
  root.addEventListener("click", onClick);
  root.addEventListener("keydown", onKey);

  const resize = typeof ResizeObserver === "function" ? new ResizeObserver(() => {
    if (last && layoutFor(cells.length, root.clientWidth).cols !== cols) update(...last);
  }) : null;
  if (resize) resize.observe(root);

  // Mark a pick target (svg.js); a pickable SVG one also takes the keyboard focus.
  function pickTarget(node, kind, value, ui) {
    const pickable = markPickTarget(node, kind, value, ui);
    if (pickable) {
      node.setAttribute("tabindex", "0");
      node.setAttribute("role", "button");
    }
    return pickable;
  }

  /** Tokens by cell: `[seat index, count]` for each seat with tokens there. */
  function tokensByCell(block, seats) {
    const onCell = cells.map(() => []);
    seats.forEach((seat, s) => {
      const counts = new Map();
      for (const index of (block.tokens || {})[seat.name] || []) {
        counts.set(index, (counts.get(index) || 0) + 1);
      }
      for (const [index, count] of counts) {
        if (onCell[index]) onCell[index].push([s, count]);
      }
    });
    return onCell;
  }

  /** A cell's face: its tooltip, its label (start, goal) or symbol, and its name. */
  function drawFace(group, name, [cx, cy], symbol, here) {
    const x0 = cx - CELL / 2;
    const y0 = cy - CELL / 2;
    const label = labels[name];
    const count = here.reduce((sum, [, n]) => sum + n, 0);
    title(group, [`${name}`, label, symbol != null ? nameOf(symbol) : null,
      count ? `${count} token${count > 1 ? "s" : ""}` : null].filter(Boolean).join(" · "));
    const crowded = here.length > 3;
    if (label) {
      svgText(group, { x: cx, y: y0 + 15, "text-anchor": "middle", class: "cell-label" }, label);
    } else if (symbol != null) {
      const glyph = svgText(group, { x: cx, y: y0 + (crowded ? 21 : 26), "text-anchor": "middle",
        class: "glyph", fill: toneOf(symbol) }, glyphOf(symbol));
      if (crowded) glyph.setAttribute("font-size", "17");
      if (glyphOf(symbol) !== symbol) {
        svgText(group, { x: x0 + CELL - 4, y: y0 + 10, "text-anchor": "end", class: "code" },
          symbol);
      }
    }
    if (!label) svgText(group, { x: x0 + 4, y: y0 + 10, class: "cell-name" }, name);
  }

  /** One marker per seat with tokens on the cell, with their count when several. */
  function drawTokens(group, name, [cx, cy], here, seats, ui) {
    const spots = markerSpots(here.length);
    here.forEach(([s, n], k) => {
      const seat = seats[s];
      const [dx, dy] = spots[k];
      const [mx, my] = [cx + dx, cy + dy];
      const tokens = svg("g", { class: "tokens", "data-seat": seat.name }, group);
      svg("circle", { class: "halo", cx: mx, cy: my, r: 11.5, fill: "none", stroke: "none" },
        tokens);
      const r = spots.length > 3 ? 7.5 : 8.5;
      tokens.appendChild(shapeNode(seat.shape, mx, my, r, { fill: seat.tone, class: "token" }));
      if (n > 1) {
        svgText(tokens, { x: mx, y: my + (seat.shape === "triangle" ? 5 : 3.7),
          "text-anchor": "middle", class: "token-count", fill: ink(seat.tone) }, String(n));
      }
      title(tokens, `${seat.name}: ${n} on ${labels[name] || name}`);
      if (seat.acting && seat.viewer) pickTarget(tokens, "token", name, ui);
    });
  }

  /** An analysis hint: a pill across the cell's top edge, stronger for heavier hints. */
  function drawHint(group, [cx, cy], hint) {
    const y0 = cy - CELL / 2;
    const badge = svg("g", { class: "hint" }, group);
    const weight = Math.max(0, Math.min(1, Number(hint.weight) || 0));
    badge.setAttribute("opacity", String(0.55 + 0.45 * weight));
    const text = String(hint.label ?? "").slice(0, 6);
    const wide = 8 + 6 * Math.max(2, text.length);
    svg("rect", { x: cx - wide / 2, y: y0 - 6, width: wide, height: 12, rx: 6 }, badge);
    svgText(badge, { x: cx, y: y0 + 3, "text-anchor": "middle" }, text);
    title(badge, `hint: ${hint.label}`);
  }

  function drawTrack(view, ui, seats) {
    const block = view.board || {};
    const symbols = (description.symbols || []).some((s) => s !== null && s !== undefined)
      ? description.symbols : (block.symbols || []);
    ({ cols } = layoutFor(cells.length, root.clientWidth));
    const rows = Math.ceil(cells.length / cols);
    const width = cols * PITCH;
    const height = rows * PITCH;
    const board = svg("svg", { class: "track", viewBox: `0 0 ${width} ${height}`,
      role: "group", "aria-label": "track" });
    board.style.maxWidth = `${cols * (MAX_CELL_PX + GAP)}px`;

    const centres = cells.map((_, i) => cellCentre(i, cols));
    svg("path", { class: "track-path",
      d: centres.map(([x, y], i) => `${i ? "L" : "M"}${x} ${y}`).join(" ") }, board);
    const onCell = tokensByCell(block, seats);
    const cellsPickable = Boolean(ui.pickable && ui.pickable.cell && ui.pickable.cell.size);

    const [lastFrom, lastTo] = Array.isArray(block.last) ? block.last : [null, null];
    cells.forEach((name, i) => {
      const centre = centres[i];
      const group = svg("g", { class: `cell${labels[name] ? " end" : ""}`, "data-cell": name },
        board);
      if (cellsPickable) pickTarget(group, "cell", name, ui);
      svg("rect", { x: centre[0] - CELL / 2, y: centre[1] - CELL / 2, width: CELL, height: CELL,
        rx: 8 }, group);
      // The last move: a dashed ring where its token left, a solid one where it landed.
      if (i === lastFrom || i === lastTo) {
        const end = i === lastTo ? "to" : "from";
        const ring = svg("rect", { x: centre[0] - CELL / 2 + 3, y: centre[1] - CELL / 2 + 3,
          width: CELL - 6, height: CELL - 6, rx: 6, class: `last-${end}`,
          "data-mark": `last-${end}` }, group);
        title(ring, `last move ${end} here`);
      }
      drawFace(group, name, centre, symbols[i], onCell[i]);
      drawTokens(group, name, centre, onCell[i], seats, ui);
      const hint = ui.hints && ui.hints.get ? ui.hints.get(name) : null;
      if (hint) drawHint(group, centre, hint);
    });
    trackBox.replaceChildren(board);
  }

  function update(view, ui = {}) {
    last = [view, ui];
    const seats = seatsOf(view);
    drawTrack(view, ui, seats);
    table.drawTable(tableBox, view, ui, seats);
  }

  function destroy() {
    if (resize) resize.disconnect();
    root.removeEventListener("click", onClick);
    root.removeEventListener("keydown", onKey);
    root.classList.remove("track-board");
    root.replaceChildren();
    last = null;
  }

  table.drawLegend(legendBox, legend);
  return { update, destroy };
}
