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
// {update(view, ui), destroy()}; clicks on pickable things call handlers.pick.

const SVG = "http://www.w3.org/2000/svg";
const STYLE_ID = "boardlab-track-style";
const CELL = 60;              // a cell's side in SVG units
const GAP = 12;               // between cells
const PITCH = CELL + GAP;
const MIN_CELL_PX = 60;       // narrowest cell on screen before the track takes a new row
const MAX_CELL_PX = 84;       // widest
const MAX_COLS = 12;          // a board, not a ribbon: at most this many cells a row

// Calm tones for seats named after a colour; other seats take the palette in order.
const SEAT_TONES = {
  green: "#3f8f5a", purple: "#8160a8", red: "#c4514a", blue: "#3d6fb0",
  yellow: "#d9b23c", orange: "#d9843c", black: "#3a3a3a", white: "#e8e4da",
  pink: "#c96f9a", brown: "#8a6240", grey: "#8a8a8a", gray: "#8a8a8a",
};
const PALETTE = ["#3d6fb0", "#c4514a", "#3f8f5a", "#d9b23c", "#8160a8", "#d9843c"];
// Marker shapes by seat number: colour-blind players tell seats apart by shape.
const SHAPES = ["circle", "square", "triangle", "diamond", "hexagon", "star"];
// Symbol colours by legend order (readable on the light cells).
const SYMBOL_TONES = ["#b8413a", "#2f3b4c", "#c26a1d", "#2f5f96", "#6f4a96", "#2e7d4f"];

const CSS = `
.track-board { font: 14px/1.35 system-ui, sans-serif; color: #2d2a26; }
.track-board svg.track { display: block; width: 100%; height: auto; margin: 0 auto; }
.track-board .track-path { fill: none; stroke: #d6cdb8; stroke-width: 8; stroke-linecap: round;
  stroke-linejoin: round; }
.track-board .cell > rect { fill: #fbf7ee; stroke: #b9ad94; stroke-width: 1.5; }
.track-board .cell.end > rect { fill: #efe6d2; }
.track-board .cell.pickable > rect { stroke: #2f7a6b; stroke-width: 3; cursor: pointer; }
.track-board .cell.selected > rect { fill: #dcefe9; }
.track-board .cell-name { font-size: 10px; fill: #8a7f6a; }
.track-board .cell-label { font-size: 12px; font-weight: 600; fill: #6b5d43; }
.track-board .glyph { font-size: 24px; font-family: "DejaVu Sans", system-ui, sans-serif; }
.track-board .code { font-size: 9px; fill: #8a7f6a; }
.track-board .token { stroke: #2d2a26; stroke-width: 1; }
.track-board .token-count { font-size: 10.5px; font-weight: 700; pointer-events: none; }
.track-board g.tokens.pickable { cursor: pointer; }
.track-board g.tokens.pickable .token { stroke: #10463c; stroke-width: 2.5; }
.track-board g.tokens.pickable .halo { fill: none; stroke: #2f7a6b; stroke-width: 2;
  stroke-dasharray: 3 2; }
.track-board g.tokens.selected .halo { fill: #f2d45c; fill-opacity: .55; stroke: #8a6d00;
  stroke-dasharray: none; stroke-width: 2.5; }
.track-board .hint rect { fill: #f2d45c; stroke: #8a6d00; stroke-width: 1; }
.track-board .hint text { font-size: 9px; font-weight: 700; fill: #3d3000; }
.track-board [data-pick-kind]:focus-visible { outline: 3px solid #2f7a6b; outline-offset: 2px; }
.track-board .table { display: flex; flex-wrap: wrap; gap: .6rem 1.4rem; margin-top: .6rem;
  align-items: flex-start; }
.track-board .table section { min-width: 9rem; }
.track-board .table h4 { margin: 0 0 .25rem; font-size: .8rem; font-weight: 600;
  color: #6b5d43; text-transform: uppercase; letter-spacing: .04em; }
.track-board .cards { display: flex; flex-wrap: wrap; gap: .35rem; }
.track-board .card { position: relative; display: inline-flex; flex-direction: column;
  align-items: center; justify-content: center; width: 2.9rem; height: 3.9rem;
  border: 1.5px solid #b9ad94; border-radius: .4rem; background: #fffdf8; padding: 0;
  font: inherit; color: inherit; }
.track-board .card.small { width: 2.1rem; height: 2.8rem; }
.track-board .card .card-glyph { font-size: 1.5rem; line-height: 1;
  font-family: "DejaVu Sans", system-ui, sans-serif; }
.track-board .card.small .card-glyph { font-size: 1.1rem; }
.track-board .card .card-code { font-size: .7rem; color: #8a7f6a; }
.track-board .card .card-count { position: absolute; top: -.45rem; right: -.45rem;
  min-width: 1.1rem; height: 1.1rem; border-radius: .55rem; background: #4a4338; color: #fff;
  font-size: .7rem; font-weight: 700; line-height: 1.1rem; text-align: center; padding: 0 .2rem; }
.track-board button.card { cursor: default; }
.track-board button.card.pickable { cursor: pointer; border-color: #2f7a6b; border-width: 2.5px;
  box-shadow: 0 0 0 2px #cfe7e0; }
.track-board button.card.selected { background: #f7e7a8; border-color: #8a6d00;
  transform: translateY(-.3rem); }
.track-board .seats { list-style: none; margin: 0; padding: 0; }
.track-board .seats li { display: flex; align-items: center; gap: .4rem; margin: 0; line-height: 1.35; }
.track-board .seats li.acting { font-weight: 700; }
.track-board .seats li.acting::after { content: "◀ to play"; font-size: .75rem;
  font-weight: 400; color: #2f7a6b; }
.track-board .seat-shape { width: 1.05rem; height: 1.05rem; flex: none; }
.track-board .muted { color: #8a7f6a; }
.track-board .turn.discarding { color: #a23b2c; font-weight: 600; }
.track-board .legend { display: flex; flex-wrap: wrap; gap: .2rem .9rem; margin: .5rem 0 0;
  padding: 0; list-style: none; font-size: .85rem; color: #5a5040; }
.track-board .legend .card-glyph { font-size: 1.1rem; margin-right: .2rem;
  font-family: "DejaVu Sans", system-ui, sans-serif; }
`;

function injectStyle() {
  if (document.getElementById(STYLE_ID)) return;
  const style = document.createElement("style");
  style.id = STYLE_ID;
  style.textContent = CSS;
  document.head.appendChild(style);
}

function svg(name, attrs = {}, parent = null) {
  const node = document.createElementNS(SVG, name);
  for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, value);
  if (parent) parent.appendChild(node);
  return node;
}

function html(name, attrs = {}, parent = null, text = null) {
  const node = document.createElement(name);
  for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, value);
  if (text !== null) node.textContent = text;
  if (parent) parent.appendChild(node);
  return node;
}

// The tone of a seat: its own colour word when it is one, else the palette in order.
function seatTone(name, index) {
  const word = String(name).toLowerCase();
  if (SEAT_TONES[word]) return SEAT_TONES[word];
  if (window.CSS && window.CSS.supports && window.CSS.supports("color", word)) return word;
  return PALETTE[index % PALETTE.length];
}

// Dark text on light tones, white on dark ones.
function inkOn(tone) {
  const probe = document.createElement("canvas").getContext("2d");
  probe.fillStyle = tone;
  const hex = probe.fillStyle;            // normalised to #rrggbb
  if (!/^#[0-9a-f]{6}$/i.test(hex)) return "#fff";
  const [r, g, b] = [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16));
  return 0.299 * r + 0.587 * g + 0.114 * b > 150 ? "#2d2a26" : "#fff";
}

// A marker of `shape` centred on (x, y) with radius r.
function shapeNode(shape, x, y, r, attrs) {
  const polygon = (points) => svg("polygon", {
    points: points.map(([px, py]) => `${(x + px * r).toFixed(2)},${(y + py * r).toFixed(2)}`)
      .join(" "), ...attrs,
  });
  const ring = (n, turn, radii = [1]) => Array.from({ length: n }, (_, i) => {
    const a = turn + (i * 2 * Math.PI) / n;
    const k = radii[i % radii.length];
    return [k * Math.cos(a), k * Math.sin(a)];
  });
  switch (shape) {
    case "square": return svg("rect", { x: x - r * 0.85, y: y - r * 0.85, width: r * 1.7,
      height: r * 1.7, rx: 1.5, ...attrs });
    case "triangle": return polygon([[0, -1.1], [1.05, 0.75], [-1.05, 0.75]]);
    case "diamond": return polygon([[0, -1.15], [1.05, 0], [0, 1.15], [-1.05, 0]]);
    case "hexagon": return polygon(ring(6, 0));
    case "star": return polygon(ring(10, -Math.PI / 2, [1.15, 0.55]));
    default: return svg("circle", { cx: x, cy: y, r, ...attrs });
  }
}

// A small inline SVG of a seat's marker (for the table and the seat list).
function seatIcon(shape, tone) {
  const icon = svg("svg", { viewBox: "0 0 20 20", class: "seat-shape", "aria-hidden": "true" });
  icon.appendChild(shapeNode(shape, 10, 10, 8, { fill: tone, class: "token" }));
  return icon;
}

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
  injectStyle();
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
  const ink = (tone) => {
    if (!inks.has(tone)) inks.set(tone, inkOn(tone));
    return inks.get(tone);
  };

  function onClick(event) {
    const target = event.target.closest("[data-pick-kind][data-pick]");
    if (!target || !root.contains(target) || !target.classList.contains("pickable")) return;
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

  // Mark a pick target: data attributes always, `pickable`/`selected` per ui.
  function pickTarget(node, kind, value, ui) {
    node.setAttribute("data-pick-kind", kind);
    node.setAttribute("data-pick", value);
    const pickable = ui.pickable && ui.pickable[kind] && ui.pickable[kind].has(value);
    const selected = (ui.selected || []).some((p) => p.kind === kind && p.value === value);
    node.classList.toggle("pickable", Boolean(pickable));
    node.classList.toggle("selected", selected);
    if (pickable && node instanceof SVGElement) {
      node.setAttribute("tabindex", "0");
      node.setAttribute("role", "button");
    }
    return pickable;
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

    // Tokens by cell: [seat index, count] for each seat with tokens there.
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

    cells.forEach((name, i) => {
      const [cx, cy] = centres[i];
      const x0 = cx - CELL / 2;
      const y0 = cy - CELL / 2;
      const label = labels[name];
      const group = svg("g", { class: `cell${label ? " end" : ""}`, "data-cell": name }, board);
      if (ui.pickable && ui.pickable.cell && ui.pickable.cell.size) pickTarget(group, "cell", name, ui);
      svg("rect", { x: x0, y: y0, width: CELL, height: CELL, rx: 8 }, group);
      const title = svg("title", {}, group);
      const symbol = symbols[i];
      const count = onCell[i].reduce((sum, [, n]) => sum + n, 0);
      title.textContent = [`${name}`, label, symbol != null ? nameOf(symbol) : null,
        count ? `${count} token${count > 1 ? "s" : ""}` : null].filter(Boolean).join(" · ");
      const crowded = onCell[i].length > 3;
      if (label) {
        svg("text", { x: cx, y: y0 + 15, "text-anchor": "middle", class: "cell-label" }, group)
          .textContent = label;
      } else if (symbol != null) {
        const glyph = svg("text", { x: cx, y: y0 + (crowded ? 21 : 26), "text-anchor": "middle",
          class: "glyph", fill: symbolTone.get(symbol) || "#2d2a26" }, group);
        glyph.textContent = glyphOf(symbol);
        if (crowded) glyph.setAttribute("font-size", "17");
        if (glyphOf(symbol) !== symbol) {
          svg("text", { x: x0 + CELL - 4, y: y0 + 10, "text-anchor": "end", class: "code" }, group)
            .textContent = symbol;
        }
      }
      if (!label) {
        svg("text", { x: x0 + 4, y: y0 + 10, class: "cell-name" }, group).textContent = name;
      }

      const spots = markerSpots(onCell[i].length);
      onCell[i].forEach(([s, n], k) => {
        const seat = seats[s];
        const [dx, dy] = spots[k];
        const [mx, my] = [cx + dx, cy + dy];
        const tokens = svg("g", { class: "tokens", "data-seat": seat.name }, group);
        svg("circle", { class: "halo", cx: mx, cy: my, r: 11.5, fill: "none", stroke: "none" },
          tokens);
        const r = spots.length > 3 ? 7.5 : 8.5;
        tokens.appendChild(shapeNode(seat.shape, mx, my, r, { fill: seat.tone, class: "token" }));
        if (n > 1) {
          svg("text", { x: mx, y: my + (seat.shape === "triangle" ? 5 : 3.7), "text-anchor": "middle", class: "token-count",
            fill: ink(seat.tone) }, tokens).textContent = String(n);
        }
        svg("title", {}, tokens).textContent = `${seat.name}: ${n} on ${label || name}`;
        if (seat.acting && seat.viewer) pickTarget(tokens, "token", name, ui);
      });

      const hint = ui.hints && ui.hints.get ? ui.hints.get(name) : null;
      if (hint) {
        // A pill across the cell's top edge, stronger for heavier hints.
        const badge = svg("g", { class: "hint" }, group);
        const weight = Math.max(0, Math.min(1, Number(hint.weight) || 0));
        badge.setAttribute("opacity", String(0.55 + 0.45 * weight));
        const text = String(hint.label ?? "").slice(0, 6);
        const wide = 8 + 6 * Math.max(2, text.length);
        svg("rect", { x: cx - wide / 2, y: y0 - 6, width: wide, height: 12, rx: 6 }, badge);
        svg("text", { x: cx, y: y0 + 3, "text-anchor": "middle" }, badge).textContent = text;
        svg("title", {}, badge).textContent = `hint: ${hint.label}`;
      }
    });
    trackBox.replaceChildren(board);
  }

  // One card: a button when it may be picked (the viewer's own), else a plain box.
  function card(parent, code, count, ui, { pick = false, small = false } = {}) {
    const node = html(pick ? "button" : "span", { class: `card${small ? " small" : ""}` }, parent);
    if (pick) {
      node.type = "button";
      const pickable = pickTarget(node, "card", code, ui);
      node.disabled = !pickable;
    }
    node.title = count === null ? nameOf(code) : `${nameOf(code)} × ${count}`;
    html("span", { class: "card-glyph", style: `color:${symbolTone.get(code) || "#2d2a26"}` },
      node, glyphOf(code));
    if (glyphOf(code) !== code) html("span", { class: "card-code" }, node, code);
    if (count !== null && count !== 1) html("span", { class: "card-count" }, node, String(count));
    return node;
  }

  function cardRow(parent, counts, ui, options) {
    const row = html("div", { class: "cards" }, parent);
    const codes = Object.keys(counts).filter((code) => counts[code] > 0);
    for (const code of codes) card(row, code, counts[code], ui, options);
    if (!codes.length) html("span", { class: "muted" }, row, "no cards");
    return row;
  }

  function drawTable(view, ui, seats) {
    const block = view.board || {};
    const hands = block.hand || {};
    const viewer = seats.find((seat) => seat.viewer);
    tableBox.replaceChildren();

    if (viewer && hands[viewer.name] !== undefined) {
      const mine = html("section", { class: "hand", "aria-label": "your hand" }, tableBox);
      html("h4", {}, mine, "Your hand");
      const hand = hands[viewer.name];
      if (typeof hand === "object" && hand !== null) cardRow(mine, hand, ui, { pick: true });
      else html("span", {}, mine, `${hand} cards`);
    }

    const others = html("section", { class: "others" }, tableBox);
    html("h4", {}, others, "Players");
    const list = html("ul", { class: "seats" }, others);
    const finish = cells.length - 1;      // the last cell, when labelled (a goal)
    for (const seat of seats) {
      const item = html("li", { "data-seat": seat.name }, list);
      if (seat.acting) item.classList.add("acting");
      item.appendChild(seatIcon(seat.shape, seat.tone));
      html("span", {}, item, seat.viewer ? `${seat.name} (you)` : seat.name);
      const hand = hands[seat.name];
      if (typeof hand === "number") {
        html("span", { class: "muted" }, item, `${hand} card${hand === 1 ? "" : "s"}`);
      } else if (hand && !seat.viewer) {
        const shown = html("span", {}, item);
        cardRow(shown, hand, ui, { small: true });
      }
      const tokens = (block.tokens || {})[seat.name] || [];
      if (finish > 0 && labels[cells[finish]]) {
        const home = tokens.filter((t) => t === finish).length;
        if (home) html("span", { class: "muted" }, item, `· ${home} at ${labels[cells[finish]]}`);
      }
    }

    const pile = html("section", { class: "pile" }, tableBox);
    html("h4", {}, pile, "Table");
    if (block.pile !== undefined) html("div", {}, pile, `Pile: ${block.pile} card${block.pile === 1 ? "" : "s"}`);
    if (block.actions_left !== undefined && !view.terminal) {
      html("div", { class: "turn" }, pile, `Actions left this turn: ${block.actions_left}`);
    }
    if (block.discarding) {
      html("div", { class: "turn discarding" }, pile, "Discarding down to the hand limit");
    }

    if (Array.isArray(block.face_up)) {
      const row = html("section", { class: "face-up" }, tableBox);
      html("h4", {}, row, "Face up (next first)");
      const cardsBox = html("div", { class: "cards" }, row);
      for (const code of block.face_up) card(cardsBox, code, null, ui, { small: true });
      if (!block.face_up.length) html("span", { class: "muted" }, cardsBox, "none");
    }
    if (block.discard && typeof block.discard === "object") {
      const discards = html("section", { class: "discards" }, tableBox);
      html("h4", {}, discards, "Discards");
      cardRow(discards, block.discard, ui, { small: true });
    }
  }

  function drawLegend() {
    legendBox.replaceChildren();
    for (const [code, entry] of Object.entries(legend)) {
      const item = html("li", {}, legendBox);
      html("span", { class: "card-glyph", style: `color:${symbolTone.get(code)}` }, item,
        entry.glyph || code);
      item.append(`${entry.label}${entry.glyph && entry.glyph !== code ? ` (${code})` : ""}`);
    }
  }
  drawLegend();

  function update(view, ui = {}) {
    last = [view, ui];
    const names = view.seats || Object.keys((view.board || {}).tokens || {});
    const acting = new Set(view.acting || []);
    const viewerName = view.seat !== null && view.seat !== undefined ? names[view.seat] : null;
    const seats = names.map((name, s) => ({
      name, tone: seatTone(name, s), shape: SHAPES[s % SHAPES.length],
      acting: acting.has(name) && !view.terminal, viewer: name === viewerName,
    }));
    drawTrack(view, ui, seats);
    drawTable(view, ui, seats);
  }

  function destroy() {
    if (resize) resize.disconnect();
    root.removeEventListener("click", onClick);
    root.removeEventListener("keydown", onKey);
    root.classList.remove("track-board");
    root.replaceChildren();
    last = null;
  }

  return { update, destroy };
}
