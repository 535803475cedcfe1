// The game page's model: plain data, changed only by the update functions of this module
// (the shape of chessground's state or boardgame.io's client: one small object, explicit
// updates, everything else reads). Each update is named for what happened (a sync came, a
// pick was made, an answer arrived); the queries below derive what the page shows. No DOM.

import * as gestures from "../gestures.js";

/** How long after a chat or look message an error `bad_message` is taken as its answer. */
const SPECIAL_ANSWER_MS = 10000;

/** A fresh model of game `id`, seen with seat token `token` (null: a spectator). */
export function createModel(id, token) {
  return {
    id,
    token,
    game: null,          // GET /api/games/{id}: seats (kinds), facts
    facts: null,
    live: null,          // the last sync/update: {version, seat, seats, view, draw_offer, rematch,
                         // clock, elapsed, lines, movers, at}
    look: null,          // {at, view, lines} while showing a past position
    lookWanted: null,    // the position asked for last (a "look" on its way or shown)
    gesture: { entries: [], picks: [], chooser: [], confirm: null },
    // entries: the ways to make the live view's legal moves; picks: made so far; chooser:
    // complete moves to choose from (an ambiguous click); confirm: a move awaiting confirmation
    sending: false,      // an action is on its way (until its ack or error)
    passShownFor: null,  // hotseat with hidden information: the seat the device was passed to
    switchAsked: null,   // hotseat: the version at which a sync of another held seat was asked
    announcements: [],   // [{text, version}], the last six
    unsupported: new Set(),   // message types this server answered bad_message for
    lastSpecial: null,        // {type, at}: the last chat/look message sent
    analysis: null,           // the last analysis answer ({at, seat, estimate, moves})
    review: null,             // where the game's review stands ({status, done, total, review})
  };
}

// ---------------------------------------------------------------------------- queries
export const seatName = (model, seat) => (model.facts ? model.facts.seats[seat] : String(seat));
export const heldSeats = (model) => (model.live ? model.live.seats || [] : []);
export const teamOf = (model, name) =>
  (model.facts.teams || []).find((team) => team.seats.includes(name));
/** Whether some team has more than one seat (team chat, team results). */
export const teamPlay = (model) => (model.facts.teams || []).some((team) => team.seats.length > 1);
/** The view on screen: a past position while looking, else the live one. */
export const shownView = (model) => (model.look ? model.look.view : model.live && model.live.view);
/** How many moves into the game the shown position is. */
export const shownAt = (model) =>
  (model.look ? model.look.at : (model.live.view.history || []).length);

/** The held seat that acts now in the live view (the one the page plays for), or null. */
export function actingSeat(model) {
  const live = model.live;
  if (!live || live.view.terminal) return null;
  const acting = live.view.acting || [];
  const held = heldSeats(model);
  if (held.includes(live.seat) && acting.includes(seatName(model, live.seat))) return live.seat;
  return held.find((seat) => acting.includes(seatName(model, seat))) ?? null;
}

/** Whether the board takes clicks now: a live position where the viewed seat acts. */
export function interactive(model) {
  const seat = actingSeat(model);
  return !model.look && !model.sending && seat !== null && seat === model.live.seat;
}

/** The seat the page speaks for in offers and chat: the viewed one, else the first held. */
export const ownSeat = (model) => model.live.seat ?? heldSeats(model)[0];

// ---------------------------------------------------------------------------- updates
/** The game's description arrived (GET /api/games/{id}). */
export function gameLoaded(model, game) {
  model.game = game;
  model.facts = game.facts;
}

/** A sync or update arrived: the new live position; returns whether it is the page's first. */
export function viewReceived(model, message) {
  const previous = model.live;
  const sync = message.type === "sync";
  model.live = {
    version: message.version,
    seat: message.seat,
    seats: sync ? message.seats : previous ? previous.seats : [],
    view: message.view,
    draw_offer: message.draw_offer ?? null,
    rematch: message.rematch ?? null,
    rematch_offer: message.rematch_offer ?? null,   // the team whose rematch offer stands
    clock: sync ? message.clock : previous && previous.clock,
    elapsed: message.elapsed || {},
    lines: Array.isArray(message.lines) ? message.lines : null,   // the game's own status lines
    movers: Array.isArray(message.movers) ? message.movers : null,  // the seat of each entry
    at: performance.now(),
  };
  if (message.announcements && message.announcements.length) {
    model.announcements.push(...message.announcements.map((text) =>
      ({ text, version: message.version })));
    model.announcements = model.announcements.slice(-6);
  }
  if (!previous || previous.version !== message.version || previous.seat !== message.seat) {
    clearGesture(model);
  }
  model.gesture.entries = gestures.entries(model.facts.board, message.view.legal || []);
  return !previous;
}

/** Hotseat: the held seat whose view to ask for, when another than the viewed one acts (once
 *  a version), else null. */
export function seatToSwitchTo(model) {
  const seat = actingSeat(model);
  if (seat === null || seat === model.live.seat) return null;
  if (model.switchAsked === model.live.version) return null;
  model.switchAsked = model.live.version;
  return seat;
}

/** The server acknowledged the action on its way. */
export function acknowledged(model) {
  model.sending = false;
}

/** A past position arrived; returns false when it is not the one waited for (ignored). */
export function positionReceived(model, message) {
  if (message.at !== model.lookWanted) return false;
  model.look = { at: message.at, view: message.view,
    lines: Array.isArray(message.lines) ? message.lines : null };
  return true;
}

export function drawOfferChanged(model, offer) {
  model.live.draw_offer = offer;
}

/** The held seats changed (one was given up). */
export function seatsLeft(model, seats) {
  model.live.seats = seats;
}

/** The game's seats (their kinds) changed: a seat was taken. */
export function seatKindsChanged(model, seats) {
  model.game.seats = seats;
}

/** A rematch offer was made (`offer`: the offering team's name), or ended (null). */
export function rematchOfferChanged(model, offer) {
  model.live.rematch_offer = offer;
}

export function rematchCreated(model, id) {
  model.live.rematch = id;
}

/** An error arrived: returns the chat/look message type this server turned out not to
 *  support (a `bad_message` without a key soon after one was sent), else null. */
export function errorReceived(model, message) {
  if (message.key !== undefined) model.sending = false;
  const last = model.lastSpecial;
  const special = last && Date.now() - last.at < SPECIAL_ANSWER_MS ? last.type : null;
  if (message.code !== "bad_message" || message.key !== undefined || !special) return null;
  model.unsupported.add(special);
  model.lastSpecial = null;
  return special;
}

/** A chat, look or spectator-chat message is about to be sent; returns false (send nothing)
 *  when this server does not support it. */
export function specialSent(model, type) {
  if (model.unsupported.has(type)) return false;
  model.lastSpecial = { type, at: Date.now() };
  return true;
}

/** Ask for the position after `at` moves (the answer comes as a "position"). */
export function lookWanted(model, at) {
  model.lookWanted = Math.max(0, at);
}

export function backToLive(model) {
  model.look = null;
  model.lookWanted = null;
}

/** A pick on the board, with the page interactive: `{refused}` when it continues no legal
 *  move, else `{move}` when it completes exactly one (nothing longer), else `{}`. */
export function picked(model, pick) {
  const gesture = model.gesture;
  const result = gestures.addPick(gesture.entries, gesture.picks, pick);
  gesture.confirm = null;
  gesture.chooser = [];
  if (result.refused) return { refused: true };
  gesture.picks = result.picks;
  const where = gestures.status(gesture.entries, gesture.picks);
  if (where.complete.length === 1 && where.continuing.length === 0) {
    return { move: where.complete[0] };
  }
  if (where.complete.length >= 1) gesture.chooser = where.complete;
  return {};
}

/** Drop the picks, the choice and the move awaiting confirmation. */
export function clearGesture(model) {
  model.gesture.picks = [];
  model.gesture.chooser = [];
  model.gesture.confirm = null;
}

/** A built move waits for the player's confirmation. */
export function confirmAsked(model, move) {
  model.gesture.confirm = move;
}

/** A move went to the server: the gesture is done, the board waits for the answer. */
export function moveSent(model) {
  clearGesture(model);
  model.sending = true;
}

/** Hotseat: the device was passed to `seat` (its player said they are ready). */
export function devicePassed(model, seat) {
  model.passShownFor = seat;
}

/** An answer about the game's review arrived (review.js). */
export function reviewReceived(model, answer) {
  model.review = answer;
}

/** An analysis answer arrived (or failed: null). */
export function analysisReceived(model, answer) {
  model.analysis = answer;
}
