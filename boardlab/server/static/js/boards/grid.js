// The grid renderer (board kinds `square` and `torus`): an SVG board of width × height
// cells, coordinates along the edges, pieces, marks and hints; on a torus a faint ring of
// the wrapped cells around the edge. Interface: docs/web-app.md, "The renderer interface".

const SVG = "http://www.w3.org/2000/svg";
const CELL = 100;
const EDGE = 44;          // room for the coordinates

/** Make an SVG element with attributes. */
function svg(tag, attributes = {}, parent = null) {
  const node = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, value);
  if (parent) parent.append(node);
  return node;
}

/** Colours named in a piece's label ("black stone", "white chip"), else a palette. */
const NAMED_COLOURS = {
  black: ["#23262b", "#000000", "#f4f1ea"], white: ["#f7f4ec", "#5b5f66", "#23262b"],
  red: ["#c4473a", "#7d241b", "#ffffff"], green: ["#3f8a55", "#1f4d2c", "#ffffff"],
  blue: ["#3a69b0", "#1d3a6b", "#ffffff"], purple: ["#7a4fa3", "#452a60", "#ffffff"],
  yellow: ["#e0b83a", "#7a6114", "#23262b"], orange: ["#d9823b", "#7a4216", "#23262b"],
};
const PALETTE = [NAMED_COLOURS.blue, NAMED_COLOURS.orange, NAMED_COLOURS.green, NAMED_COLOURS.purple];

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

/** Owner marks differ by shape (and colour): the n-th owner gets the n-th shape. */
const OWNER_SHAPES = ["square", "triangle", "circle", "diamond"];
const OWNER_COLOURS = ["#1f7a8c", "#c0582b", "#6b4fa0", "#4f7a28"];

function shape(kind, cx, cy, r, attributes, parent) {
  if (kind === "square") return svg("rect", { x: cx - r, y: cy - r, width: 2 * r, height: 2 * r, ...attributes }, parent);
  if (kind === "circle") return svg("circle", { cx, cy, r, ...attributes }, parent);
  if (kind === "triangle") {
    const points = `${cx},${cy - r * 1.1} ${cx + r * 1.1},${cy + r * 0.9} ${cx - r * 1.1},${cy + r * 0.9}`;
    return svg("polygon", { points, ...attributes }, parent);
  }
  if (kind === "diamond") {
    const points = `${cx},${cy - r * 1.25} ${cx + r * 1.25},${cy} ${cx},${cy + r * 1.25} ${cx - r * 1.25},${cy}`;
    return svg("polygon", { points, ...attributes }, parent);
  }
  // a five-pointed star
  const points = [];
  for (let i = 0; i < 10; i += 1) {
    const radius = i % 2 ? r * 0.45 : r * 1.2;
    const angle = -Math.PI / 2 + (i * Math.PI) / 5;
    points.push(`${(cx + radius * Math.cos(angle)).toFixed(1)},${(cy + radius * Math.sin(angle)).toFixed(1)}`);
  }
  return svg("polygon", { points: points.join(" "), ...attributes }, parent);
}

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

/** Draw a piece with code `code` centred in a cell at (cx, cy); its index sets its outline. */
function drawPiece(parent, code, cx, cy, colours, codes, label) {
  const colour = colours[code] || { fill: "#999", stroke: "#333", ink: "#000" };
  const group = svg("g", { class: "piece", "data-piece": code }, parent);
  const title = svg("title", {}, group);
  title.textContent = label || code;
  svg("circle", { cx, cy: cy + 3, r: 37, class: "piece-shadow" }, group);
  svg("circle", { cx, cy, r: 37, fill: colour.fill, stroke: colour.stroke, "stroke-width": 3 }, group);
  // A second outline for every other piece, so pieces differ without colour too.
  const index = codes.indexOf(code);
  if (index % 2 === 1) svg("circle", { cx, cy, r: 27, fill: "none", stroke: colour.stroke, "stroke-width": 2.5, opacity: 0.55 }, group);
  if (index >= 2) {
    const text = svg("text", { x: cx, y: cy + 9, "text-anchor": "middle", class: "piece-code", fill: colour.ink }, group);
    text.textContent = code;
  }
  return group;
}

export function createBoard(root, description, handlers) {
  const { width, height, cells } = description;
  const torus = description.kind === "torus";
  const ring = torus ? 1 : 0;
  const coords = coordinates(description);
  const codes = Object.keys(description.pieces || {});
  const colours = pieceColours(description.pieces);
  const left = EDGE + ring * CELL;
  const top = (coords ? EDGE / 2 : EDGE / 2) + ring * CELL;
  const boardWidth = width * CELL;
  const boardHeight = height * CELL;
  const totalWidth = left + boardWidth + ring * CELL + EDGE / 2;
  const totalHeight = top + boardHeight + ring * CELL + EDGE;

  root.classList.add("grid-board");
  root.replaceChildren();
  const picksPieces = (description.gestures || []).some((g) => g.picks.some((p) => p.startsWith("piece")));
  const palette = document.createElement("div");
  palette.className = "palette";
  palette.hidden = !picksPieces;
  const paletteButtons = new Map();
  for (const code of codes) {
    const button = document.createElement("button");
    button.type = "button";
    button.className = "palette-piece";
    button.dataset.pickKind = "piece";
    button.dataset.pick = code;
    const swatch = svg("svg", { viewBox: "0 0 100 100", width: 28, height: 28, "aria-hidden": "true" });
    drawPiece(swatch, code, 50, 48, colours, codes, description.pieces[code].label);
    const label = document.createElement("span");
    label.textContent = description.pieces[code].label || code;
    button.append(swatch, label);
    button.addEventListener("click", () => handlers.pick({ kind: "piece", value: code }));
    paletteButtons.set(code, button);
    palette.append(button);
  }

  const board = svg("svg", {
    viewBox: `0 0 ${totalWidth} ${totalHeight}`, class: "grid-svg", role: "group",
    "aria-label": `${description.kind} board, ${width} by ${height}`,
  });
  svg("rect", { x: left - 6, y: top - 6, width: boardWidth + 12, height: boardHeight + 12, rx: 10, class: "board-frame" }, board);
  const wrapLayer = svg("g", { class: "wrap-layer" }, board);
  const cellLayer = svg("g", { class: "cell-layer" }, board);
  const pieceLayer = svg("g", { class: "piece-layer" }, board);
  const markLayer = svg("g", { class: "mark-layer" }, board);
  const labelLayer = svg("g", { class: "coordinates" }, board);

  const cellNodes = new Map();
  const indexOf = new Map(cells.map((name, index) => [name, index]));
  const centre = (index) => ({
    x: left + (index % width) * CELL + CELL / 2,
    y: top + Math.floor(index / width) * CELL + CELL / 2,
  });
  cells.forEach((name, index) => {
    const x = left + (index % width) * CELL;
    const y = top + Math.floor(index / width) * CELL;
    const group = svg("g", { class: "cell", "data-cell": name, "data-pick-kind": "cell", "data-pick": name,
      role: "button", "aria-label": name }, cellLayer);
    const light = (index % width + Math.floor(index / width)) % 2 === 0;
    svg("rect", { x, y, width: CELL, height: CELL, class: light ? "cell-bg light" : "cell-bg dark" }, group);
    const title = svg("title", {}, group);
    title.textContent = name;
    if (!coords) {
      const text = svg("text", { x: x + 8, y: y + 22, class: "cell-name" }, group);
      text.textContent = name;
    }
    group.addEventListener("click", () => handlers.pick({ kind: group.dataset.pickKind, value: name }));
    group.addEventListener("keydown", (event) => {
      if (event.key === "Enter" || event.key === " ") {
        event.preventDefault();
        group.dispatchEvent(new MouseEvent("click"));
      }
    });
    cellNodes.set(name, group);
  });

  if (coords) {
    coords.columns.forEach((label, x) => {
      const text = svg("text", { x: left + x * CELL + CELL / 2, y: top + boardHeight + ring * CELL + EDGE * 0.72, class: "coord", "text-anchor": "middle" }, labelLayer);
      text.textContent = label;
    });
    coords.rows.forEach((label, y) => {
      const text = svg("text", { x: EDGE / 2, y: top + y * CELL + CELL / 2 + 9, class: "coord", "text-anchor": "middle" }, labelLayer);
      text.textContent = label;
    });
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
        svg("rect", { x: cx - CELL / 2, y: cy - CELL / 2, width: CELL, height: CELL, class: "cell-bg wrapped-bg" }, group);
        const text = svg("text", { x: cx - CELL / 2 + 8, y: cy - CELL / 2 + 22, class: "cell-name" }, group);
        text.textContent = cells[source];
        wrapped.push({ source, cx, cy, group });
      }
    }
  }

  const legend = document.createElement("div");
  legend.className = "legend";
  root.append(palette, board, legend);

  function drawLegend(owners, marks) {
    legend.replaceChildren();
    const item = (draw, text) => {
      const span = document.createElement("span");
      const icon = svg("svg", { viewBox: "0 0 40 40", width: 16, height: 16, "aria-hidden": "true" });
      draw(icon);
      span.append(icon, document.createTextNode(" " + text));
      legend.append(span);
    };
    owners.forEach((owner, i) => item((icon) => shape(OWNER_SHAPES[i % 4], 20, 20, 12, { fill: OWNER_COLOURS[i % 4] }, icon), owner));
    if ("last" in marks) item((icon) => svg("circle", { cx: 20, cy: 20, r: 11, class: "mark-last" }, icon), "last move");
    if ("secret" in marks) item((icon) => shape("star", 20, 21, 13, { class: "mark-secret" }, icon), "secret square");
    if ("revealed" in marks) item((icon) => shape("diamond", 20, 20, 11, { class: "mark-revealed" }, icon), "revealed");
  }

  let legendKey = "";

  function update(view, ui) {
    const block = view.board || {};
    const content = block.cells || [];
    const marks = block.marks || {};
    pieceLayer.replaceChildren();
    markLayer.replaceChildren();
    content.forEach((code, index) => {
      if (code === null || code === undefined) return;
      const { x, y } = centre(index);
      drawPiece(pieceLayer, code, x, y, colours, codes, (description.pieces[code] || {}).label);
    });
    for (const item of wrapped) {
      item.group.querySelector(".piece")?.remove();
      const code = content[item.source];
      if (code !== null && code !== undefined) {
        drawPiece(item.group, code, item.cx, item.cy, colours, codes, (description.pieces[code] || {}).label);
      }
    }
    const owners = Object.keys(marks).filter((name) => name.startsWith("owner:"));
    const place = (name, dx, dy) => {
      const index = indexOf.get(name);
      if (index === undefined) return null;
      const { x, y } = centre(index);
      return { x: x + dx, y: y + dy };
    };
    owners.forEach((owner, i) => {
      for (const name of marks[owner]) {
        const at = place(name, -CELL / 2 + 16, -CELL / 2 + 16);
        if (at) shape(OWNER_SHAPES[i % 4], at.x, at.y, 9, { fill: OWNER_COLOURS[i % 4], class: "mark-owner", "data-mark": owner }, markLayer);
      }
    });
    for (const [name, list] of Object.entries(marks)) {
      if (name.startsWith("owner:")) continue;
      for (const cell of list) {
        if (name === "last") {
          const at = place(cell, 0, 0);
          if (at) svg("circle", { cx: at.x, cy: at.y, r: 11, class: "mark-last", "data-mark": "last" }, markLayer);
        } else if (name === "secret") {
          const at = place(cell, CELL / 2 - 18, -CELL / 2 + 18);
          if (at) shape("star", at.x, at.y, 12, { class: "mark-secret", "data-mark": "secret" }, markLayer);
        } else if (name === "revealed") {
          const at = place(cell, CELL / 2 - 18, CELL / 2 - 18);
          if (at) shape("diamond", at.x, at.y, 9, { class: "mark-revealed", "data-mark": "revealed" }, markLayer);
        } else {
          const at = place(cell, -CELL / 2 + 16, CELL / 2 - 16);
          if (at) shape("circle", at.x, at.y, 7, { class: "mark-other", "data-mark": name }, markLayer);
        }
      }
    }
    const key = owners.join("|") + "/" + Object.keys(marks).join("|");
    if (key !== legendKey) {
      legendKey = key;
      drawLegend(owners.map((o) => o.slice("owner:".length)), marks);
    }

    const pickable = ui.pickable || {};
    const selected = ui.selected || [];
    const hints = ui.hints || new Map();
    for (const [name, group] of cellNodes) {
      const asToken = pickable.token && pickable.token.has(name);
      group.dataset.pickKind = asToken ? "token" : "cell";
      const can = (pickable.cell && pickable.cell.has(name)) || asToken;
      const chosen = selected.some((p) => (p.kind === "cell" || p.kind === "token") && p.value === name);
      const code = content[indexOf.get(name)];
      const piece = code === null || code === undefined ? "empty" : (description.pieces[code] || {}).label || code;
      group.setAttribute("aria-label", `${name}: ${piece}`);
      group.classList.toggle("pickable", Boolean(can) && ui.showPickable !== false);
      group.classList.toggle("can-pick", Boolean(can));
      group.classList.toggle("selected", chosen);
      if (can || chosen) group.setAttribute("tabindex", "0");
      else group.removeAttribute("tabindex");
      group.querySelector(".hint")?.remove();
      const hint = hints.get(name);
      if (hint) {
        const index = indexOf.get(name);
        const { x, y } = centre(index);
        const lines = String(hint.label).split(" · ");
        const text = svg("text", { x, y: y + CELL / 2 - 8 - 17 * (lines.length - 1), class: "hint", "text-anchor": "middle" }, group);
        lines.forEach((line, i) => {
          const span = svg("tspan", { x, dy: i ? 17 : 0 }, text);
          span.textContent = line;
        });
      }
    }
    for (const [code, button] of paletteButtons) {
      const can = pickable.piece && pickable.piece.has(code);
      const chosen = selected.some((p) => p.kind === "piece" && p.value === code);
      button.classList.toggle("pickable", Boolean(can));
      button.classList.toggle("selected", chosen);
      button.classList.toggle("unavailable", !can && !chosen);
      button.setAttribute("aria-pressed", chosen ? "true" : "false");
    }
  }

  function destroy() {
    root.replaceChildren();
    root.classList.remove("grid-board");
  }

  return { update, destroy };
}
