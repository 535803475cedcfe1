// The game page (/game/{id}#token=T): draws the board through the renderer of its kind
// and plays through one WebSocket (docs/web-app.md). Nothing here depends on the game:
// everything comes from the game's facts and the view envelope.

import { ApiError, api, download, el, getGame, getRecord, recordUrl } from "./api.js";
import { Connection } from "./connection.js";
import * as gestures from "./gestures.js";
import { renderers } from "./boards/index.js";

const $ = (id) => document.getElementById(id);
const CONFIRM_KEY = "boardlab.confirmMoves";

const state = {
  id: decodeURIComponent(location.pathname.split("/").filter(Boolean).pop() || ""),
  token: new URLSearchParams(location.hash.slice(1)).get("token"),
  game: null,          // GET /api/games/{id}: seats (kinds), facts
  facts: null,
  board: null,         // the renderer's {update, destroy}
  connection: null,
  live: null,          // the last sync/update: {version, seat, seats, view, draw_offer, rematch, clock, elapsed, at}
  look: null,          // {at, view} while showing a past position
  lookWanted: null,    // the position asked for last (a "look" on its way or shown)
  entries: [],         // the gestures' ways to make the legal moves of the live view
  picks: [],
  chooser: [],         // complete moves to choose from (an ambiguous click)
  confirm: null,       // a built move waiting for confirmation
  sending: false,      // an action is on its way (until its ack or error)
  passShownFor: null,  // hotseat with hidden information: the seat the device was passed to
  switchAsked: null,   // hotseat: the version at which a sync of another held seat was asked
  announcements: [],
  unsupported: new Set(),   // message types this server answered bad_message for
  lastSpecial: null,        // {type, at}: the last chat/look message sent
  analysis: null,           // the last analysis answer ({at, seat, estimate, moves})
};

// ---------------------------------------------------------------------------- helpers
const seatName = (seat) => (state.facts ? state.facts.seats[seat] : String(seat));
const heldSeats = () => (state.live ? state.live.seats || [] : []);
const teamOf = (name) => (state.facts.teams || []).find((team) => team.seats.includes(name));
const shownView = () => (state.look ? state.look.view : state.live && state.live.view);
const shownAt = () => (state.look ? state.look.at : (state.live.view.history || []).length);

/** The held seat that acts now in the live view (the one the page plays for), or null. */
function actingSeat() {
  const live = state.live;
  if (!live || live.view.terminal) return null;
  const acting = live.view.acting || [];
  if (heldSeats().includes(live.seat) && acting.includes(seatName(live.seat))) return live.seat;
  return heldSeats().find((seat) => acting.includes(seatName(seat))) ?? null;
}

/** Whether the board takes clicks now: a live position where the viewed seat acts. */
function interactive() {
  const seat = actingSeat();
  return !state.look && !state.sending && seat !== null && seat === state.live.seat;
}

function say(text, kind = "error") {
  const line = $("message");
  line.textContent = text || "";
  line.dataset.kind = kind;
}

function formatClock(seconds) {
  const s = Math.max(0, seconds);
  const minutes = Math.floor(s / 60);
  const rest = Math.floor(s % 60);
  const hours = Math.floor(minutes / 60);
  const mm = hours ? String(minutes % 60).padStart(2, "0") : String(minutes);
  const tenths = s < 10 ? "." + Math.floor((s * 10) % 10) : "";
  return (hours ? hours + ":" : "") + mm + ":" + String(rest).padStart(2, "0") + tenths;
}

function clockLeft(name) {
  const live = state.live;
  const clocks = live && live.view.clocks;
  if (!clocks || !(name in clocks)) return null;
  let left = clocks[name];
  if (!live.view.terminal && (live.view.acting || []).includes(name)) {
    left -= ((live.elapsed || {})[name] || 0) + (performance.now() - live.at) / 1000;
  }
  return left;
}

function names(list) {
  if (list.length <= 1) return list.join("");
  return list.slice(0, -1).join(", ") + " and " + list[list.length - 1];
}

// ---------------------------------------------------------------------------- sending
function sendMove(move, { confirmed = false } = {}) {
  const seat = actingSeat();
  if (!move) return;
  if (seat === null || state.look) {
    say(state.look ? "you are looking at a past position: go back to live to play" : "it is not your turn");
    return;
  }
  if (!confirmed && $("confirm-moves").checked) {
    state.confirm = move;
    render();
    $("confirm-move")?.focus();
    return;
  }
  state.confirm = null;
  state.picks = [];
  state.chooser = [];
  state.sending = true;
  say("");
  state.connection.act({ type: "action", seat, move, version: state.live.version });
  render();
}

function sendSpecial(message) {
  if (state.unsupported.has(message.type)) return;
  state.lastSpecial = { type: message.type, at: Date.now() };
  state.connection.send(message);
}

function lookAt(at) {
  const history = state.live.view.history || [];
  if (at >= history.length) {
    backToLive();
    return;
  }
  if (state.unsupported.has("look")) {
    say("this server cannot show past positions yet", "notice");
    return;
  }
  state.lookWanted = Math.max(0, at);
  sendSpecial({ type: "look", at: state.lookWanted });
}

function backToLive() {
  state.look = null;
  state.lookWanted = null;
  render();
}

// ---------------------------------------------------------------------------- picking
function onPick(pick) {
  if (!interactive()) {
    if (state.look) say("you are looking at a past position: go back to live to play", "notice");
    else if (state.sending) say("wait: the last move is on its way", "notice");
    else if (state.live && state.live.view.terminal) say("the game is over", "notice");
    else if (!heldSeats().length) say("you are watching this game", "notice");
    else say("it is not your turn", "notice");
    return;
  }
  const result = gestures.addPick(state.entries, state.picks, pick);
  state.confirm = null;
  state.chooser = [];
  if (result.refused) {
    const help = gestures.gestureHelp(state.facts.board);
    say((state.picks.length ? `${pick.value}: not a legal continuation` : `${pick.value}: not a legal start`) +
        (help ? ` — ${help}` : ""));
    render();
    return;
  }
  say("");
  state.picks = result.picks;
  const where = gestures.status(state.entries, state.picks);
  if (where.complete.length === 1 && where.continuing.length === 0) {
    sendMove(where.complete[0]);
    return;
  }
  if (where.complete.length >= 1) state.chooser = where.complete;
  render();
}

function clearPicks() {
  state.picks = [];
  state.chooser = [];
  state.confirm = null;
  render();
}

// ---------------------------------------------------------------------------- messages
function onMessage(message) {
  switch (message.type) {
    case "sync":
    case "update": {
      const previous = state.live;
      state.live = {
        version: message.version,
        seat: message.seat,
        seats: message.type === "sync" ? message.seats : previous ? previous.seats : [],
        view: message.view,
        draw_offer: message.draw_offer ?? null,
        rematch: message.rematch ?? null,
        clock: message.type === "sync" ? message.clock : previous && previous.clock,
        elapsed: message.elapsed || {},
        lines: Array.isArray(message.lines) ? message.lines : null,   // the game's own status lines
        at: performance.now(),
      };
      if (message.type === "sync" && Array.isArray(message.chat)) setChat(message.chat);
      // A new connection starts with the spectators' chat off: ask again if the box says on.
      if (message.type === "sync" && !previous && $("spectator-chat").checked && message.seats.length) {
        sendSpecial({ type: "spectator_chat", on: true });
      }
      if (message.announcements && message.announcements.length) {
        state.announcements.push(...message.announcements.map((text) => ({ text, version: message.version })));
        state.announcements = state.announcements.slice(-6);
      }
      if (!previous || previous.version !== message.version || previous.seat !== message.seat) {
        state.picks = [];
        state.chooser = [];
        state.confirm = null;
      }
      state.entries = gestures.entries(state.facts.board, message.view.legal || []);
      switchHeldSeat();
      render();
      // When each version was on screen (scripts/web_timing.py reads these marks).
      performance.mark("boardlab:shown", { detail: { version: message.version, type: message.type } });
      break;
    }
    case "ack":
      state.sending = false;
      render();
      break;
    case "error":
      onError(message);
      break;
    case "position":
      if (message.at !== state.lookWanted) return;   // an answer the player no longer waits for
      state.look = { at: message.at, view: message.view, lines: Array.isArray(message.lines) ? message.lines : null };
      render();
      break;
    case "draw":
      state.live.draw_offer = message.draw_offer;
      say(message.event === "offered" ? `${message.by} offers a draw` : `${message.by} declined the draw`, "notice");
      render();
      break;
    case "left":
      state.live.seats = message.seats;
      render();
      break;
    case "seats":
      state.game.seats = message.seats;
      render();
      break;
    case "rematch":
      if (message.token) {
        location.assign(`/game/${encodeURIComponent(message.id)}#token=${encodeURIComponent(message.token)}`);
        return;
      }
      state.live.rematch = message.id;
      render();
      break;
    case "chat":
      addChat(message);
      break;
    default:
      break;
  }
}

function onError(message) {
  if (message.key !== undefined) state.sending = false;
  const special = state.lastSpecial && Date.now() - state.lastSpecial.at < 10000 ? state.lastSpecial.type : null;
  switch (message.code) {
    case "bad_message":
      if (message.key === undefined && special) {
        state.unsupported.add(special);
        state.lastSpecial = null;
        const what = { look: "showing past positions", chat: "chat", spectator_chat: "the spectators' chat" }[special] || special;
        if (special === "chat" || special === "spectator_chat") {
          $("chat-notice").hidden = false;
          $("chat-notice").textContent = `this server does not offer ${what} yet`;
        } else say(`this server does not offer ${what} yet`, "notice");
      } else say(message.message || "the server did not understand that");
      break;
    case "no_draw":
      say("no draw offer is possible now", "notice");
      break;
    case "stale_version":
      say("the game moved on: choose again", "notice");
      state.connection.sync();
      break;
    case "rate_limited":
      $("chat-notice").hidden = false;
      $("chat-notice").textContent = "too many messages: wait a moment";
      break;
    case "not_found":
      $("status").textContent = "there is no such game";
      break;
    case "forbidden":
      say(state.token ? "this link holds no seat of the game (given up, or mistyped)" : message.message);
      break;
    default:
      say(message.message || message.code);
  }
  render();
}

/** Hotseat: when another held seat acts than the one viewed, ask for its view. */
function switchHeldSeat() {
  const live = state.live;
  const seat = actingSeat();
  if (seat === null || seat === live.seat) return;
  if (state.switchAsked === live.version) return;
  state.switchAsked = live.version;
  state.connection.sync(seat);
}

// ---------------------------------------------------------------------------- chat
function chatLine(message) {
  const when = message.at ? new Date(message.at) : null;
  return el("li", { "data-channel": message.channel },
    el("span", { class: "chat-from" }, message.from + (message.channel !== "players" ? ` (${message.channel})` : "")),
    " ", el("span", { class: "chat-text" }, message.text),
    when && !Number.isNaN(when.getTime())
      ? el("time", { datetime: message.at }, " " + when.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" }))
      : null);
}

function setChat(messages) {
  $("chat-log").replaceChildren(...messages.map(chatLine));
  $("chat-log").scrollTop = $("chat-log").scrollHeight;
}

function addChat(message) {
  const log = $("chat-log");
  log.append(chatLine(message));
  while (log.children.length > 200) log.firstChild.remove();
  log.scrollTop = log.scrollHeight;
}

function chatChannels() {
  if (!heldSeats().length) return ["spectators"];
  const teamPlay = (state.facts.teams || []).some((team) => team.seats.length > 1);
  return teamPlay ? ["players", "team"] : ["players"];
}

// ---------------------------------------------------------------------------- drawing
function render() {
  if (!state.facts || !state.live) return;
  const live = state.live;
  const view = shownView();
  const seat = actingSeat();
  const canPlay = interactive();

  renderStatus(view, seat);
  renderClockBar();
  renderLines(view);
  renderBoard(view, canPlay);
  renderPickLine(canPlay);
  renderButtons(canPlay);
  renderMoves();
  renderPlayers();
  renderResult(live.view);
  renderActions();
  renderLooking();
  renderPassDevice(seat);
  renderChatControls();
  renderAnalysis();

  const pending = (live.view.history || []).filter((entry) => /:\?$/.test(entry)).length;
  $("pending").hidden = pending === 0 || live.view.terminal;
  $("pending").textContent = `pending picks of a team mate: ${pending}`;
  // Announcements (collisions, reveals) stay for a few versions after their update.
  const recent = state.announcements.filter((item) => item.version >= live.version - 3);
  $("announcements").replaceChildren(...recent.map((item) => el("p", {}, item.text)));
  $("move-input").disabled = seat === null;
  const playing = heldSeats().length > 0 && !live.view.terminal;
  $("move-form").hidden = !playing;
  document.querySelector(".board-column").classList.toggle("compact", !playing);
  $("seat-name").hidden = false;
  $("seat-name").textContent = heldSeats().length
    ? "you: " + heldSeats().map(seatName).join(", ")
    : "watching";
}

function renderStatus(view, seat) {
  const status = $("status");
  status.classList.toggle("your-turn", seat !== null && !state.look);
  status.classList.toggle("over", Boolean(state.live.view.terminal));
  const live = state.live.view;
  if (live.terminal) {
    status.textContent = resultWords(live.result);
    return;
  }
  const acting = live.acting || [];
  const who = live.to_move && !acting.every((name) => name === live.to_move)
    ? `${live.to_move} (${names(acting)})` : names(acting);
  if (seat !== null) {
    status.textContent = heldSeats().length > 1 ? `your turn: ${seatName(seat)}` : "your turn";
    if (heldSeats().length === 1 && acting.length > 1) status.textContent += ` (with ${names(acting.filter((n) => n !== seatName(seat)))})`;
  } else if (acting.length) status.textContent = `${who} to move`;
  else status.textContent = "waiting…";
  if (state.live.draw_offer) status.textContent += ` — ${state.live.draw_offer} offers a draw`;
}

function resultWords(result) {
  if (!result) return "the game is over";
  const reason = result.reason ? ` (${result.reason})` : "";
  if (result.draw) return "draw" + reason;
  const winners = result.winners || [];
  const teams = (state.facts.teams || []).filter((team) => team.seats.length > 1 &&
    team.seats.every((name) => winners.includes(name)) && winners.length === team.seats.length);
  const label = teams.length === 1 ? teams[0].name : names(winners);
  return `${label} ${winners.length === 1 || teams.length === 1 ? "wins" : "win"}${reason}`;
}

/** The view envelope's own keys: every game's view has them (docs/protocol.md). */
const ENVELOPE_KEYS = new Set(["game", "spec", "seats", "teams", "seat", "to_move", "acting", "legal",
  "legal_actions", "history", "terminal", "result", "clocks", "board"]);

/** A short text for a plain value of the view (a number, a short word, a small flat object), else null. */
function plainValue(value) {
  if (typeof value === "number") return String(value);
  if (typeof value === "string") return value && value.length <= 12 ? value : null;
  if (!value || typeof value !== "object" || Array.isArray(value)) return null;
  const entries = Object.entries(value);
  if (!entries.length || entries.length > 6 ||
      entries.some(([, item]) => typeof item !== "number" && typeof item !== "string")) return null;
  return entries.map(([key, item]) => `${key} ${item}`).join(", ");
}

/** The lines under the status: the game's own (`lines` beside the view) when the server sends
 *  them, else a summary of the view's plain game keys (scores, quotas, phase, ...) that the
 *  board block does not already draw. */
function renderLines(view) {
  const own = state.look ? state.look.lines : state.live.lines;
  let lines = own;
  if (!lines) {
    const parts = Object.entries(view)
      .filter(([key]) => !ENVELOPE_KEYS.has(key) && !(view.board && key in view.board))   // the board draws those
      .map(([key, value]) => [key, plainValue(value)])
      .filter(([, text]) => text !== null)
      .map(([key, text]) => `${key.replaceAll("_", " ")}: ${text}`);
    lines = parts.length ? [parts.join(" · ")] : [];
  }
  const box = $("lines");
  box.classList.toggle("own", Boolean(own));
  const key = lines.join("\n");
  if (box.dataset.key !== key) {
    box.dataset.key = key;
    box.replaceChildren(...lines.map((line) => el("li", {}, line)));
  }
  box.hidden = lines.length === 0;
}

/** The compact bar of seats and clocks above the board (shown on narrow screens, where the
 *  players panel is below the board). */
function renderClockBar() {
  const view = state.live.view;
  const acting = view.terminal ? [] : view.acting || [];
  $("clock-bar").replaceChildren(...state.facts.seats.map((name, index) => {
    const left = clockLeft(name);
    return el("li", { class: [acting.includes(name) ? "acting" : "", heldSeats().includes(index) ? "mine" : ""].join(" ") },
      el("span", { class: "turn-dot", "aria-hidden": "true" }),
      el("span", { class: "player-name" }, name),
      left === null ? null : el("span", { class: "clock" + (left < 30 ? " low" : ""), "data-clock": name }, formatClock(left)));
  }));
}

function renderBoard(view, canPlay) {
  const pickable = canPlay
    ? gestures.pickable(state.entries, state.picks)
    : Object.fromEntries(gestures.BOARD_KINDS.map((kind) => [kind, new Set()]));
  if (canPlay && state.picks.length) {
    // A fresh first pick of another kind restarts the gesture (another colour, another card).
    const starts = gestures.pickable(state.entries, []);
    for (const kind of gestures.BOARD_KINDS) {
      if (!pickable[kind].size) for (const value of starts[kind]) pickable[kind].add(value);
    }
  }
  state.board.update(view, { pickable, selected: canPlay ? state.picks : [], hints: analysisHints(), showPickable: true });
  $("board").classList.toggle("inactive", !canPlay);
}

function renderPickLine(canPlay) {
  const line = $("pick-line");
  const parts = [];
  if (state.confirm) {
    parts.push(el("span", {}, "play "), el("strong", { class: "built-move" }, state.confirm), el("span", {}, "? "),
      el("button", { type: "button", id: "confirm-move", class: "primary", onclick: () => sendMove(state.confirm, { confirmed: true }) }, "confirm"),
      el("button", { type: "button", id: "cancel-move", onclick: clearPicks }, "cancel"));
  } else if (canPlay && state.picks.length) {
    parts.push(el("span", {}, "picked: " + state.picks.map((p) => p.value).join(" · ") + " "));
    if (state.chooser.length) {
      parts.push(el("span", {}, " play "));
      for (const move of state.chooser) {
        parts.push(el("button", { type: "button", class: "choice", "data-choice": move, onclick: () => sendMove(move) }, move));
      }
      const more = gestures.status(state.entries, state.picks).continuing;
      if (more.length) parts.push(el("span", { class: "hint-text" }, " or pick on for " + [...new Set(more.map((e) => e.gesture.name))].join(", ")));
    }
    parts.push(el("button", { type: "button", id: "clear-picks", onclick: clearPicks, title: "Escape" }, "clear"));
  }
  line.replaceChildren(...parts);
}

function renderButtons(canPlay) {
  const box = $("buttons");
  const numbers = $("number-moves");
  const legal = canPlay ? state.live.view.legal || [] : [];
  const made = new Set(state.entries.map((entry) => entry.move));
  const buttons = (state.facts.board.buttons || []).filter((move) => legal.includes(move));
  // Whole moves no gesture makes and no declared button names (e.g. side choices).
  const others = legal.filter((move) => !made.has(move) && !buttons.includes(move));
  const shown = [...buttons, ...(others.length <= 12 ? others : [])];
  const key = shown.join("\n");
  if (box.dataset.key !== key) {
    box.dataset.key = key;
    box.replaceChildren(...shown.map((move) =>
      el("button", { type: "button", "data-move": move, onclick: () => sendMove(move) }, move)));
  }
  // Number gestures (a komi bid): a number input and a submit button.
  const forms = [];
  for (const gesture of state.facts.board.gestures || []) {
    if (!gesture.picks.every((pick) => gestures.parsePick(pick).kind === "number")) continue;
    const values = state.entries.filter((entry) => entry.gesture === gesture).map((entry) => Number(entry.picks[0].value));
    if (!canPlay || !values.length || gesture.picks.length !== 1) continue;
    forms.push({ gesture, min: Math.min(...values), max: Math.max(...values) });
  }
  const numberKey = forms.map((f) => `${f.gesture.name}:${f.min}:${f.max}`).join("|");
  if (numbers.dataset.key !== numberKey) {
    numbers.dataset.key = numberKey;
    numbers.replaceChildren(...forms.map(({ gesture, min, max }) => {
      const input = el("input", { type: "number", step: "any", min, max, "data-gesture": gesture.name,
        "data-pick-kind": "number", "aria-label": gesture.help || gesture.name, value: "" });
      const form = el("form", { class: "number-move" },
        el("label", {}, (gesture.help || gesture.name) + " "), input,
        el("button", { type: "submit" }, gesture.name));
      form.addEventListener("submit", (event) => {
        event.preventDefault();
        if (input.value.trim() === "") return;
        sendMove(gestures.fill(gesture.template, [input.value.trim()]));
      });
      return form;
    }));
  }
}

function renderMoves() {
  const list = $("moves");
  const history = state.live.view.history || [];
  const current = state.look ? state.look.at : history.length;
  const atBottom = list.scrollTop + list.clientHeight >= list.scrollHeight - 8;
  if (list.children.length > history.length) list.replaceChildren();
  history.forEach((entry, index) => {
    let item = list.children[index];
    if (!item) {
      item = el("li", { "data-index": index, tabindex: "0", role: "button" });
      item.addEventListener("click", () => lookAt(index + 1));
      item.addEventListener("keydown", (event) => {
        if (event.key === "Enter" || event.key === " ") {
          event.preventDefault();
          lookAt(index + 1);
        }
      });
      list.append(item);
    }
    if (item.textContent !== entry) item.textContent = entry;
    const isCurrent = index + 1 === current && Boolean(state.look);
    if (isCurrent && !item.classList.contains("current")) {
      list.scrollTop = Math.max(0, item.offsetTop - list.offsetTop - list.clientHeight / 2);
    }
    item.classList.toggle("current", isCurrent);
  });
  list.classList.toggle("long", history.some((entry) => entry.length > 9));
  if (atBottom && !state.look) list.scrollTop = list.scrollHeight;
  const at = current;
  $("replay-first").disabled = at === 0;
  $("replay-prev").disabled = at === 0;
  $("replay-next").disabled = !state.look;
  $("replay-last").disabled = !state.look;
}

function renderPlayers() {
  const list = $("players");
  const view = state.live.view;
  const kinds = new Map((state.game.seats || []).map((seat) => [seat.seat, seat]));
  const acting = view.terminal ? [] : view.acting || [];
  const teamPlay = (state.facts.teams || []).some((team) => team.seats.length > 1);
  list.replaceChildren(...state.facts.seats.map((name, index) => {
    const info = kinds.get(index) || {};
    const who = info.kind === "ai" ? `AI ${info.agent || ""}` : info.kind === "open" ? "open seat" : "person";
    const left = clockLeft(name);
    const team = teamPlay ? teamOf(name) : null;
    return el("li", { class: [acting.includes(name) ? "acting" : "", heldSeats().includes(index) ? "mine" : ""].join(" "), "data-seat": index },
      el("span", { class: "turn-dot", "aria-hidden": "true" }),
      el("span", { class: "player-name" }, name),
      team ? el("span", { class: "team" }, team.name) : null,
      el("span", { class: "player-kind" }, heldSeats().includes(index) ? "you" : who),
      info.kind === "open" && !heldSeats().length && !view.terminal
        ? el("button", { type: "button", class: "join", "data-join": index, onclick: () => join(index) }, "take this seat")
        : null,
      left === null ? null : el("span", { class: "clock" + (left < 30 ? " low" : ""), "data-clock": name }, formatClock(left)));
  }));
  const scores = (view.result && view.result.scores) || (typeof view.scores === "object" && view.scores) || null;
  $("scores").textContent = scores && !Array.isArray(scores)
    ? "score: " + Object.entries(scores).map(([name, value]) => `${name} ${value}`).join(" · ")
    : "";
}

/** Take an open seat (POST /api/games/{id}/join) and go to its page. */
async function join(seat) {
  try {
    const answer = await api(`/api/games/${encodeURIComponent(state.id)}/join`, { method: "POST", body: { seat } });
    location.assign(answer.page || `/game/${encodeURIComponent(state.id)}#token=${encodeURIComponent(answer.token)}`);
  } catch (error) {
    say(error.message);
  }
}

function tickClocks() {
  for (const node of document.querySelectorAll("[data-clock]")) {
    const left = clockLeft(node.dataset.clock);
    if (left !== null) {
      node.textContent = formatClock(left);
      node.classList.toggle("low", left < 30);
    }
  }
}

function renderResult(view) {
  const box = $("result");
  box.hidden = !view.terminal;
  if (!view.terminal) return;
  const result = view.result || {};
  box.dataset.winners = (result.winners || []).join(",");
  box.dataset.draw = result.draw ? "true" : "false";
  box.dataset.reason = result.reason || "";
  $("result-text").textContent = resultWords(result);
}

function renderActions() {
  const live = state.live;
  const view = live.view;
  const held = heldSeats();
  const over = Boolean(view.terminal);
  const seats = state.game.seats || [];
  const others = seats.filter((seat) => !held.includes(seat.seat));
  const [low, high] = state.facts.utility_bounds || [-1, 1];
  // The game's own word (facts.agreed_draws); a server without it: two teams that can draw.
  const drawGame = typeof state.facts.agreed_draws === "boolean"
    ? state.facts.agreed_draws : (state.facts.teams || []).length === 2 && low <= 0 && high >= 0;
  const myTeams = held.map((seat) => teamOf(seatName(seat))?.name);
  $("resign").hidden = over || !held.length;
  $("undo").hidden = over || held.length !== 1 || !others.length || others.some((seat) => seat.kind !== "ai");
  $("offer-draw").hidden = over || !held.length || !drawGame || Boolean(live.draw_offer);
  const theirOffer = Boolean(live.draw_offer) && !myTeams.includes(live.draw_offer);
  $("accept-draw").hidden = over || !held.length || !theirOffer;
  $("decline-draw").hidden = over || !held.length || !theirOffer;
  $("rematch").hidden = !over || !held.length || Boolean(live.rematch);
  const link = $("rematch-link");
  link.hidden = !live.rematch;
  if (live.rematch) link.href = `/game/${encodeURIComponent(live.rematch)}`;
  $("download-json").hidden = !over;
  $("download-sgf").hidden = !over || !(state.facts.record_formats || []).includes("sgf");
}

// ---------------------------------------------------------------------------- analysis
/** Whether this page may analyse: a finished game, or a live one whose seats it all holds (no AI). */
function canAnalyse() {
  if (state.live.view.terminal) return true;
  const seats = state.game.seats || [];
  return Boolean(state.token) && heldSeats().length === state.facts.seats.length &&
    !seats.some((seat) => seat.kind === "ai");
}

async function analyse() {
  const at = shownAt();
  const body = { at, seconds: Number($("analysis-seconds").value) };
  if (!state.live.view.terminal) body.token = state.token;
  $("analyse").disabled = true;
  $("analysis-estimate").textContent = "thinking…";
  try {
    state.analysis = await api(`/api/games/${encodeURIComponent(state.id)}/analysis`, { method: "POST", body });
  } catch (error) {
    state.analysis = null;
    $("analysis-estimate").textContent = error.status === 404 || error.status === 405
      ? "this server does not offer analysis yet" : error.message;
    $("analyse").disabled = false;
    return;
  }
  $("analyse").disabled = false;
  render();
}

/** The analysis's moves as labels on the cells (or tokens) they end on. */
function analysisHints() {
  const hints = new Map();
  const analysis = state.analysis;
  if (!analysis || analysis.at !== shownAt()) return hints;
  const all = gestures.entries(state.facts.board, analysis.moves.map((m) => m.move));
  for (const item of analysis.moves) {
    const picks = gestures.picksFor(all, item.move);
    const target = picks && [...picks].reverse().find((p) => p.kind === "cell" || p.kind === "token");
    if (!target) continue;
    const before = picks.filter((p) => p !== target && p.kind !== "number").map((p) => p.value).join("");
    const label = `${before ? before + " " : ""}${Math.round(item.win * 100)}%`;
    const known = hints.get(target.value);
    if (!known) hints.set(target.value, { label, weight: item.visits });
    else if (!known.label.includes(label)) known.label += " · " + label;
  }
  return hints;
}

function renderAnalysis() {
  const box = $("analysis");
  box.hidden = !canAnalyse();
  if (box.hidden) return;
  const analysis = state.analysis;
  const current = analysis && analysis.at === shownAt();
  if (!current) {
    if ($("analysis-estimate").textContent !== "thinking…") $("analysis-estimate").textContent = "";
    $("analysis-moves").replaceChildren();
    return;
  }
  const estimate = analysis.estimate
    ? Object.entries(analysis.estimate).map(([name, chance]) => `${name} ${Math.round(chance * 100)}%`).join(" · ")
    : "";
  $("analysis-estimate").textContent = (analysis.seat ? `${analysis.seat} to act. ` : "") +
    (estimate ? `win chances: ${estimate}` : "nothing to search here");
  $("analysis-moves").replaceChildren(...analysis.moves.map((item) =>
    el("li", { "data-move": item.move },
      el("span", { class: "move" }, item.move),
      ` — ${Math.round(item.win * 100)}% (${item.visits} visits)`)));
}

function renderLooking() {
  const box = $("looking");
  box.hidden = !state.look;
  if (state.look) {
    const total = (state.live.view.history || []).length;
    $("looking-text").textContent = `position after ${state.look.at} of ${total} moves`;
  }
}

function renderPassDevice(seat) {
  const hides = state.facts.perfect_information === false && heldSeats().length > 1;
  const overlay = $("pass-device");
  if (!hides || seat === null) {
    overlay.hidden = true;
    $("board-wrap").classList.remove("hidden-board");
    return;
  }
  const show = seat !== state.passShownFor;
  overlay.hidden = !show;
  $("board-wrap").classList.toggle("hidden-board", show);
  if (show) $("pass-device-text").textContent = `Pass the device to ${seatName(seat)}.`;
}

function renderChatControls() {
  const select = $("chat-channel");
  const channels = chatChannels();
  if (select.dataset.key !== channels.join()) {
    select.dataset.key = channels.join();
    select.replaceChildren(...channels.map((c) => el("option", { value: c }, c)));
  }
  $("spectator-chat-label").hidden = !heldSeats().length;
}

// ---------------------------------------------------------------------------- set-up
function wire() {
  $("move-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const move = $("move-input").value.trim();
    if (!move) return;
    $("move-input").value = "";
    sendMove(move, { confirmed: true });
  });
  const confirm = $("confirm-moves");
  confirm.checked = localStorage.getItem(CONFIRM_KEY) === "1";
  confirm.addEventListener("change", () => localStorage.setItem(CONFIRM_KEY, confirm.checked ? "1" : "0"));
  document.addEventListener("keydown", (event) => {
    if (event.key === "Escape") {
      clearPicks();
      say("");
    }
  });
  $("back-to-live").addEventListener("click", backToLive);
  const current = () => (state.look ? state.look.at : (state.live.view.history || []).length);
  $("replay-first").addEventListener("click", () => lookAt(0));
  $("replay-prev").addEventListener("click", () => lookAt(current() - 1));
  $("replay-next").addEventListener("click", () => lookAt(current() + 1));
  $("replay-last").addEventListener("click", backToLive);

  const act = (type) => () => {
    const seat = actingSeat() ?? state.live.seat ?? heldSeats()[0];
    state.connection.act({ type, seat });
  };
  $("resign").addEventListener("click", () => {
    if (confirm.checked && !window.confirm("Resign this game?")) return;
    act("resign")();
  });
  $("undo").addEventListener("click", act("undo"));
  $("accept-draw").addEventListener("click", act("accept_draw"));
  const plain = (type) => () => state.connection.send({ type, seat: state.live.seat ?? heldSeats()[0] });
  $("offer-draw").addEventListener("click", plain("offer_draw"));
  $("decline-draw").addEventListener("click", plain("decline_draw"));
  $("rematch").addEventListener("click", () => state.connection.send({ type: "rematch" }));
  $("download-json").addEventListener("click", async () => {
    try {
      const record = await getRecord(state.id);
      download(`boardlab-${state.id}.json`, JSON.stringify(record, null, 2));
    } catch (error) {
      say(error.message);
    }
  });
  $("download-sgf").addEventListener("click", async () => {
    const response = await fetch(recordUrl(state.id, "sgf"));
    if (!response.ok) {
      say("the SGF record is not available");
      return;
    }
    download(`boardlab-${state.id}.sgf`, await response.text(), "application/x-go-sgf");
  });
  $("analyse").addEventListener("click", analyse);
  $("pass-device-ready").addEventListener("click", () => {
    state.passShownFor = actingSeat();
    render();
  });
  $("chat-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const text = $("chat-input").value.trim();
    if (!text) return;
    if (state.unsupported.has("chat")) return;
    const message = { type: "chat", channel: $("chat-channel").value, text };
    if (heldSeats().length) message.seat = state.live.seat ?? heldSeats()[0];
    sendSpecial(message);
    $("chat-input").value = "";
  });
  $("spectator-chat").addEventListener("change", (event) =>
    sendSpecial({ type: "spectator_chat", on: event.target.checked }));
  window.addEventListener("hashchange", () => location.reload());
}

function exposeState() {
  window.boardlab = {
    get view() { return shownView(); },
    get version() { return state.live ? state.live.version : null; },
    get seat() { return state.live ? state.live.seat : null; },
    get seats() { return heldSeats(); },
    picksFor(move) {
      const all = gestures.entries(state.facts.board, (state.live && state.live.view.legal) || []);
      return gestures.picksFor(all, move);
    },
    connection: () => state.connection,
  };
}

async function start() {
  wire();
  exposeState();
  try {
    state.game = await getGame(state.id);
  } catch (error) {
    $("status").textContent = error instanceof ApiError && error.status === 404
      ? "there is no such game" : `the game cannot be loaded: ${error.message}`;
    return;
  }
  state.facts = state.game.facts;
  document.title = `${state.facts.title || state.facts.game} — boardlab`;
  $("title").textContent = state.facts.title || state.facts.game;
  $("spec").textContent = state.game.spec;
  $("rules").textContent = state.facts.rules || "";
  $("notation").textContent = state.facts.notation || "";
  $("gesture-help").textContent = gestures.gestureHelp(state.facts.board);
  const renderer = renderers[state.facts.board.kind];
  if (!renderer) {
    $("board").textContent = `no renderer for boards of kind ${state.facts.board.kind}`;
    return;
  }
  state.board = renderer.createBoard($("board"), state.facts.board, { pick: onPick });
  state.connection = new Connection({ gameId: state.id, token: state.token, onMessage, banner: $("banner") });
  state.connection.open();
  setInterval(tickClocks, 200);
}

start();
