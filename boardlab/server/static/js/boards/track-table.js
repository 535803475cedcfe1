// The table under a track (track.js): the viewer's hand (one card per code, with its
// count), the other seats with their hands and tokens home, the pile, the actions left and
// whether the player is discarding, the face-up row and the discards; and the symbols'
// legend. Cards the viewer may pick are buttons (data-pick-kind="card").

import { html, markPickTarget } from "./svg.js";
import { seatIcon } from "./track-seats.js";

/**
 * The table's drawing functions for one board description.
 * @param {object} symbols  `{glyphOf(code), nameOf(code), toneOf(code)}` of the legend
 * @param {string[]} cells  the track's cells in order; `labels` their names (start, goal)
 */
export function createTable(symbols, cells, labels) {
  const { glyphOf, nameOf, toneOf } = symbols;

  // One card: a button when it may be picked (the viewer's own), else a plain box.
  function card(parent, code, count, ui, { pick = false, small = false } = {}) {
    const node = html(pick ? "button" : "span", { class: `card${small ? " small" : ""}` }, parent);
    if (pick) {
      node.type = "button";
      // Not disabled: a click on a card that plays no move now gets its reason.
      const can = markPickTarget(node, "card", code, ui);
      node.classList.toggle("unavailable", !can);
      node.setAttribute("aria-disabled", can ? "false" : "true");
    }
    node.title = count === null ? nameOf(code) : `${nameOf(code)} × ${count}`;
    html("span", { class: "card-glyph", style: `color:${toneOf(code)}` }, node, glyphOf(code));
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

  function drawHand(box, hands, viewer, ui) {
    if (!viewer || hands[viewer.name] === undefined) return;
    const mine = html("section", { class: "hand", "aria-label": "your hand" }, box);
    html("h4", {}, mine, "Your hand");
    const hand = hands[viewer.name];
    if (typeof hand === "object" && hand !== null) cardRow(mine, hand, ui, { pick: true });
    else html("span", {}, mine, `${hand} cards`);
  }

  function drawSeats(box, block, seats, ui) {
    const hands = block.hand || {};
    const others = html("section", { class: "others" }, box);
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
  }

  function drawPile(box, view, block) {
    const pile = html("section", { class: "pile" }, box);
    html("h4", {}, pile, "Table");
    if (block.pile !== undefined) {
      html("div", {}, pile, `Pile: ${block.pile} card${block.pile === 1 ? "" : "s"}`);
    }
    if (block.actions_left !== undefined && !view.terminal) {
      html("div", { class: "turn" }, pile, `Actions left this turn: ${block.actions_left}`);
    }
    if (block.discarding) {
      html("div", { class: "turn discarding" }, pile, "Discarding down to the hand limit");
    }
  }

  function drawRows(box, block, ui) {
    if (Array.isArray(block.face_up)) {
      const row = html("section", { class: "face-up" }, box);
      html("h4", {}, row, "Face up (next first)");
      const cardsBox = html("div", { class: "cards" }, row);
      for (const code of block.face_up) card(cardsBox, code, null, ui, { small: true });
      if (!block.face_up.length) html("span", { class: "muted" }, cardsBox, "none");
    }
    if (block.discard && typeof block.discard === "object") {
      const discards = html("section", { class: "discards" }, box);
      html("h4", {}, discards, "Discards");
      cardRow(discards, block.discard, ui, { small: true });
    }
  }

  /** Redraw the table into `box` from the view, the ui state and the seats (track-seats.js). */
  function drawTable(box, view, ui, seats) {
    const block = view.board || {};
    box.replaceChildren();
    drawHand(box, block.hand || {}, seats.find((seat) => seat.viewer), ui);
    drawSeats(box, block, seats, ui);
    drawPile(box, view, block);
    drawRows(box, block, ui);
  }

  /** Draw the symbols' legend (`{code: {glyph, label}}`) into `box`. */
  function drawLegend(box, legend) {
    box.replaceChildren();
    for (const [code, entry] of Object.entries(legend)) {
      const item = html("li", {}, box);
      html("span", { class: "card-glyph", style: `color:${toneOf(code)}` }, item,
        entry.glyph || code);
      item.append(`${entry.label}${entry.glyph && entry.glyph !== code ? ` (${code})` : ""}`);
    }
  }

  return { drawTable, drawLegend };
}
