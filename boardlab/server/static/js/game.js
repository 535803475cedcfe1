// The game page (/game/{id}#token=T): draws the board through the renderer of its kind
// and plays through one WebSocket (docs/web-app.md). Nothing here depends on the game:
// everything comes from the game's facts and the view envelope.
//
// This module starts the page: it loads the game, makes the model (game/model.js), the
// controller (game/controller.js), the board and the connection, and wires the page's
// controls. Drawing is game/render.js's (with panels.js, clock.js, chat.js, analysis.js).

import { ApiError, download, getGame, getRecord, recordUrl } from "./api.js";
import { renderers } from "./boards/index.js";
import { Connection } from "./connection.js";
import * as gestures from "./gestures.js";
import { analyse } from "./game/analysis.js";
import { armButton } from "./game/arm.js";
import { play, played, wireSoundSwitch } from "./game/sounds.js";
import { wireChat } from "./game/chat.js";
import { startTicking } from "./game/clock.js";
import { createController } from "./game/controller.js";
import { loadReview, requestReview } from "./game/review.js";
import { wireDrawer } from "./game/drawer.js";
import { wireKeys } from "./game/keys.js";
import { wireOffers as wireRematch } from "./game/offers.js";
import * as m from "./game/model.js";
import { $, say } from "./game/page.js";

const CONFIRM_KEY = "boardlab.confirmMoves";
const OVERLAY_KEY = "boardlab.scoreOverlay";

const model = m.createModel(
  decodeURIComponent(location.pathname.split("/").filter(Boolean).pop() || ""),
  new URLSearchParams(location.hash.slice(1)).get("token"));
const page = createController(model);

/** Typed moves, the confirm setting, Escape, and the replay buttons. */
function wireMoves() {
  $("move-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const move = $("move-input").value.trim();
    if (!move) return;
    $("move-input").value = "";
    page.sendMove(move, { confirmed: true });
  });
  const overlay = $("score-overlay");
  overlay.checked = localStorage.getItem(OVERLAY_KEY) === "1";
  overlay.addEventListener("change", () => {
    localStorage.setItem(OVERLAY_KEY, overlay.checked ? "1" : "0");
    page.redraw();
  });
  const confirm = $("confirm-moves");
  confirm.checked = localStorage.getItem(CONFIRM_KEY) === "1";
  confirm.addEventListener("change",
    () => localStorage.setItem(CONFIRM_KEY, confirm.checked ? "1" : "0"));
  wireKeys({
    at: () => (model.live ? m.shownAt(model) : null),
    last: () => (model.live ? (model.live.view.history || []).length : 0),
    lookAt: page.lookAt,
    backToLive: page.backToLive,
    escape: () => {
      page.clearPicks();
      say("");
    },
  });
  $("back-to-live").addEventListener("click", page.backToLive);
  $("replay-first").addEventListener("click", () => page.lookAt(0));
  $("replay-prev").addEventListener("click", () => page.lookAt(m.shownAt(model) - 1));
  $("replay-next").addEventListener("click", () => page.lookAt(m.shownAt(model) + 1));
  $("replay-last").addEventListener("click", page.backToLive);
}

/** Resign, undo, draws, rematch. */
function wireOffers() {
  const act = (type) => () => {
    const seat = m.actingSeat(model) ?? m.ownSeat(model);
    page.connection().act({ type, seat });
  };
  armButton($("resign"), act("resign"), "click again to resign");
  $("undo").addEventListener("click", act("undo"));
  $("accept-draw").addEventListener("click", act("accept_draw"));
  const plain = (type) => () => page.connection().send({ type, seat: m.ownSeat(model) });
  $("offer-draw").addEventListener("click", plain("offer_draw"));
  $("decline-draw").addEventListener("click", plain("decline_draw"));
  wireRematch((message) => page.connection().send(message));
}

/** The record downloads, the analysis, the pass-the-device screen, the chat. */
function wireRest() {
  $("download-json").addEventListener("click", async () => {
    try {
      const record = await getRecord(model.id);
      download(`boardlab-${model.id}.json`, JSON.stringify(record, null, 2));
    } catch (error) {
      say(error.message);
    }
  });
  $("download-sgf").addEventListener("click", async () => {
    const response = await fetch(recordUrl(model.id, "sgf"));
    if (!response.ok) {
      say("the SGF record is not available");
      return;
    }
    download(`boardlab-${model.id}.sgf`, await response.text(), "application/x-go-sgf");
  });
  $("analyse").addEventListener("click", () => analyse(model, page.redraw));
  $("review-request").addEventListener("click", () => requestReview(model, page.redraw));
  $("pass-device-ready").addEventListener("click", () => {
    m.devicePassed(model, m.actingSeat(model));
    page.redraw();
  });
  wireChat(model, page.sendSpecial);
  wireSoundSwitch($("sound"));
  wireDrawer();
  window.addEventListener("hashchange", () => location.reload());
}

/** `window.boardlab`: what the browser tests and scripts/web_timing.py read. */
function exposeState() {
  window.boardlab = {
    get view() { return m.shownView(model); },
    get version() { return model.live ? model.live.version : null; },
    get seat() { return model.live ? model.live.seat : null; },
    get seats() { return m.heldSeats(model); },
    picksFor(move) {
      const all = gestures.entries(model.facts.board, (model.live && model.live.view.legal) || []);
      return gestures.picksFor(all, move);
    },
    connection: page.connection,
    sounds: played,
  };
}

/** Show the game's facts (title, spec, rules, notation, gesture help). */
function showFacts(game) {
  const facts = game.facts;
  $("title").textContent = facts.title || facts.game;
  $("spec").textContent = game.spec;
  $("rules").textContent = facts.rules || "";
  $("notation").textContent = facts.notation || "";
  $("gesture-help").textContent = gestures.gestureHelp(facts.board);
}

async function start() {
  wireMoves();
  wireOffers();
  wireRest();
  exposeState();
  let game;
  try {
    game = await getGame(model.id);
  } catch (error) {
    $("status").textContent = error instanceof ApiError && error.status === 404
      ? "there is no such game" : `the game cannot be loaded: ${error.message}`;
    return;
  }
  m.gameLoaded(model, game);
  showFacts(game);
  if (game.status === "over") loadReview(model, page.redraw);
  const renderer = renderers[model.facts.board.kind];
  if (!renderer) {
    $("board").textContent = `no renderer for boards of kind ${model.facts.board.kind}`;
    return;
  }
  const board = renderer.createBoard($("board"), model.facts.board, { pick: page.onPick });
  const connection = new Connection({ gameId: model.id, token: model.token,
    onMessage: page.onMessage, banner: $("banner") });
  page.attach(board, connection);
  connection.open();
  startTicking(model, () => play("low"));
}

start();
