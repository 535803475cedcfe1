// The grid renderer (board kinds `square` and `torus`): an SVG board of width × height
// cells, coordinates along the edges, pieces, marks and hints; on a torus a faint ring of
// the wrapped cells around the edge. Interface: docs/web-app.md, "The renderer interface".
// What goes in a cell (pieces, marks, the legend) is drawn by grid-pieces.js.

import { OWNER_COLOURS, drawLegend, drawMarks, drawPiece, pieceColours } from "./grid-pieces.js";
import { clickOnKeys, isPickable, isSelected, svg, svgText, title } from "./svg.js";

const CELL = 100;
const EDGE = 44;          // room for the coordinates

/** Column and row labels from cell names like `c3` (letters, then a number), else null. */
function coordinates(description) {
  const { width, height, cells } = description;
  const parsed = cells.map((name) => /^([A-Za-z]+)(\d+)$/.exec(name));
  if (parsed.some((p) => !p)) return null;
  const columns = [];
  const rows = [];
  for (let x = 0; x < width; x += 1) columns.push(parsed[x][1]);
  for (let y = 0; y < height; y += 1) rows.push(parsed[y * width][2]);
  return { columns, rows };
}

/** The palette of pieces above the board (shown when a gesture picks a piece): code → button. */
function makePalette(description, colours, codes, handlers) {
  const palette = document.createElement("div");
  palette.className = "palette";
  palette.hidden = !(description.gestures || [])
    .some((g) => g.picks.some((p) => p.startsWith("piece")));
  const buttons = new Map();
  for (const code of codes) {
    const button = document.createElement("button");
    button.type = "button";
    button.className = "palette-piece";
    button.dataset.pickKind = "piece";
    button.dataset.pick = code;
    const swatch = svg("svg", { viewBox: "0 0 100 100", width: 28, height: 28,
      "aria-hidden": "true" });
    drawPiece(swatch, code, 50, 48, colours, codes, description.pieces[code].label);
    const name = document.createElement("span");
    name.textContent = description.pieces[code].label || code;
    button.append(swatch, name);
    button.addEventListener("click", () => handlers.pick({ kind: "piece", value: code }));
    buttons.set(code, button);
    palette.append(button);
  }
  return { palette, buttons };
}

export function createBoard(root, description, handlers) {
  const { width, height, cells } = description;
  const torus = description.kind === "torus";
  const ring = torus ? 1 : 0;
  const coords = coordinates(description);
  const codes = Object.keys(description.pieces || {});
  const colours = pieceColours(description.pieces);
  const pieceLabel = (code) => (description.pieces[code] || {}).label;
  const left = EDGE + ring * CELL;
  const top = EDGE / 2 + ring * CELL;
  const boardWidth = width * CELL;
  const boardHeight = height * CELL;
  const totalWidth = left + boardWidth + ring * CELL + EDGE / 2;
  const totalHeight = top + boardHeight + ring * CELL + EDGE;

  root.classList.add("grid-board");
  root.replaceChildren();
  const { palette, buttons: paletteButtons } = makePalette(description, colours, codes, handlers);

  const board = svg("svg", {
    viewBox: `0 0 ${totalWidth} ${totalHeight}`, class: "grid-svg", role: "group",
    "aria-label": `${description.kind} board, ${width} by ${height}`,
  });
  svg("rect", { x: left - 6, y: top - 6, width: boardWidth + 12, height: boardHeight + 12,
    rx: 10, class: "board-frame" }, board);
  const wrapLayer = svg("g", { class: "wrap-layer" }, board);
  const cellLayer = svg("g", { class: "cell-layer" }, board);
  const scoreLayer = svg("g", { class: "score-layer", "aria-hidden": "true" }, board);
  const pieceLayer = svg("g", { class: "piece-layer" }, board);
  const ghostLayer = svg("g", { class: "ghost-layer", "aria-hidden": "true" }, board);
  const markLayer = svg("g", { class: "mark-layer" }, board);
  const labelLayer = svg("g", { class: "coordinates" }, board);

  const cellNodes = new Map();
  const indexOf = new Map(cells.map((name, index) => [name, index]));
  const centre = (index) => ({
    x: left + (index % width) * CELL + CELL / 2,
    y: top + Math.floor(index / width) * CELL + CELL / 2,
  });
  /** The point (dx, dy) from the centre of the named cell, or null. */
  const place = (name, dx, dy) => {
    const index = indexOf.get(name);
    if (index === undefined) return null;
    const { x, y } = centre(index);
    return { x: x + dx, y: y + dy };
  };
  cells.forEach((name, index) => {
    const x = left + (index % width) * CELL;
    const y = top + Math.floor(index / width) * CELL;
    const group = svg("g", { class: "cell", "data-cell": name, "data-pick-kind": "cell",
      "data-pick": name, role: "button", "aria-label": name }, cellLayer);
    const light = (index % width + Math.floor(index / width)) % 2 === 0;
    svg("rect", { x, y, width: CELL, height: CELL,
      class: light ? "cell-bg light" : "cell-bg dark" }, group);
    title(group, name);
    if (!coords) svgText(group, { x: x + 8, y: y + 22, class: "cell-name" }, name);
    group.addEventListener("click",
      () => handlers.pick({ kind: group.dataset.pickKind, value: name }));
    group.addEventListener("pointerenter", () => preview(name));
    group.addEventListener("pointerleave", () => ghostLayer.replaceChildren());
    clickOnKeys(group);
    cellNodes.set(name, group);
  });

  if (coords) {
    const below = top + boardHeight + ring * CELL + EDGE * 0.72;
    coords.columns.forEach((text, x) => svgText(labelLayer, { x: left + x * CELL + CELL / 2,
      y: below, class: "coord", "text-anchor": "middle" }, text));
    coords.rows.forEach((text, y) => svgText(labelLayer, { x: EDGE / 2,
      y: top + y * CELL + CELL / 2 + 9, class: "coord", "text-anchor": "middle" }, text));
  }

  /** The wrapped ring of a torus: cell (x, y) outside the board shows cell (x mod w, y mod h). */
  const wrapped = [];
  if (torus) {
    for (let y = -1; y <= height; y += 1) {
      for (let x = -1; x <= width; x += 1) {
        if (x >= 0 && x < width && y >= 0 && y < height) continue;
        const source = ((y + height) % height) * width + ((x + width) % width);
        const cx = left + x * CELL + CELL / 2;
        const cy = top + y * CELL + CELL / 2;
        const group = svg("g", { class: "wrapped", "aria-hidden": "true" }, wrapLayer);
        svg("rect", { x: cx - CELL / 2, y: cy - CELL / 2, width: CELL, height: CELL,
          class: "cell-bg wrapped-bg" }, group);
        svgText(group, { x: cx - CELL / 2 + 8, y: cy - CELL / 2 + 22, class: "cell-name" },
          cells[source]);
        wrapped.push({ source, cx, cy, group });
      }
    }
  }

  const legend = document.createElement("div");
  legend.className = "legend";
  root.append(palette, board, legend);
  let legendKey = "";

  function drawPieces(content) {
    pieceLayer.replaceChildren();
    content.forEach((code, index) => {
      if (code === null || code === undefined) return;
      const { x, y } = centre(index);
      drawPiece(pieceLayer, code, x, y, colours, codes, pieceLabel(code));
    });
    for (const item of wrapped) {
      item.group.querySelector(".piece")?.remove();
      const code = content[item.source];
      if (code !== null && code !== undefined) {
        drawPiece(item.group, code, item.cx, item.cy, colours, codes, pieceLabel(code));
      }
    }
  }

  /** A cell's analysis hint: its label's parts (" · ") stacked at the cell's foot. */
  function drawHint(group, name, hint) {
    group.querySelector(".hint")?.remove();
    if (!hint) return;
    const { x, y } = centre(indexOf.get(name));
    const lines = String(hint.label).split(" · ");
    const text = svg("text", { x, y: y + CELL / 2 - 8 - 17 * (lines.length - 1), class: "hint",
      "text-anchor": "middle" }, group);
    lines.forEach((line, i) => {
      const span = svg("tspan", { x, dy: i ? 17 : 0 }, text);
      span.textContent = line;
    });
  }

  function highlightCells(content, ui) {
    const hints = ui.hints || new Map();
    for (const [name, group] of cellNodes) {
      const asToken = isPickable(ui, ["token"], name);
      group.dataset.pickKind = asToken ? "token" : "cell";
      const can = isPickable(ui, ["cell", "token"], name);
      const chosen = isSelected(ui, ["cell", "token"], name);
      const code = content[indexOf.get(name)];
      const piece = code === null || code === undefined ? "empty" : pieceLabel(code) || code;
      group.setAttribute("aria-label", `${name}: ${piece}`);
      group.classList.toggle("pickable", can && ui.showPickable !== false);
      group.classList.toggle("can-pick", can);
      group.classList.toggle("selected", chosen);
      if (can || chosen) group.setAttribute("tabindex", "0");
      else group.removeAttribute("tabindex");
      drawHint(group, name, hints.get(name));
    }
    for (const [code, button] of paletteButtons) {
      const can = isPickable(ui, ["piece"], code);
      const chosen = isSelected(ui, ["piece"], code);
      button.classList.toggle("pickable", can);
      button.classList.toggle("selected", chosen);
      button.classList.toggle("unavailable", !can && !chosen);
      button.setAttribute("aria-pressed", chosen ? "true" : "false");
    }
  }

  let shown = { content: [], ui: {} };      // the last update's, for the hover preview

  /** The piece the next click would place (`ui.preview`), faint, on the empty cell under
   *  the pointer when a click there may pick it. */
  function preview(name) {
    ghostLayer.replaceChildren();
    const code = shown.ui.preview;
    const index = indexOf.get(name);
    const here = shown.content[index];
    if (!code || (here !== null && here !== undefined) ||
        !isPickable(shown.ui, ["cell", "token"], name)) return;
    const { x, y } = centre(index);
    const ghost = drawPiece(ghostLayer, code, x, y, colours, codes, pieceLabel(code));
    ghost.classList.add("ghost");
    ghost.dataset.ghost = name;
  }

  /** The score overlay (`ui.overlay` and the block's `score`): each side's counted points
   *  tinted in its owner colour. */
  function drawScore(score, on) {
    scoreLayer.replaceChildren();
    if (!on || !score || !score.points) return;
    Object.entries(score.points).forEach(([side, points], s) => {
      for (const name of points) {
        const index = indexOf.get(name);
        if (index === undefined) continue;
        const { x, y } = centre(index);
        svg("rect", { x: x - CELL / 2 + 3, y: y - CELL / 2 + 3, width: CELL - 6,
          height: CELL - 6, rx: 8, class: "score-area", fill: OWNER_COLOURS[s % 4],
          "data-score": side, "data-score-cell": name }, scoreLayer);
      }
    });
  }

  function update(view, ui) {
    const block = view.board || {};
    const content = block.cells || [];
    const marks = block.marks || {};
    shown = { content, ui };
    ghostLayer.replaceChildren();
    drawScore(block.score, Boolean(ui.overlay));
    drawPieces(content);
    markLayer.replaceChildren();
    const owners = drawMarks(markLayer, marks, place, CELL);
    const key = owners.join("|") + "/" + Object.keys(marks).join("|");
    if (key !== legendKey) {
      legendKey = key;
      drawLegend(legend, owners.map((o) => o.slice("owner:".length)), marks);
    }
    highlightCells(content, ui);
  }

  function destroy() {
    root.replaceChildren();
    root.classList.remove("grid-board");
  }

  return { update, destroy };
}
