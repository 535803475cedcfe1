// The game page's controller: turns what happens (a server message, a pick on the board, a
// click) into the model's updates (model.js), sends what the player does through the
// connection, and redraws (render.js). The only module that both changes the model and
// talks to the server.

import { api } from "../api.js";
import { addChat, chatNotice, setChat, wantsSpectatorChat } from "./chat.js";
import * as m from "./model.js";
import { offerMessage } from "./offers.js";
import { $, say } from "./page.js";
import { rememberGame } from "../my-games.js";
import { render } from "./render.js";
import { soundsOf } from "./sounds.js";

const NOT_LIVE = "you are looking at a past position: go back to live to play";
/** What a chat or look message that the server does not support was for, in words. */
const SPECIAL_WORDS = { look: "showing past positions", chat: "chat",
  spectator_chat: "the spectators' chat" };

/** The controller of `model`; `attach(board, connection)` once both exist. */
export function createController(model) {
  let board = null;
  let connection = null;
  let refused = null;      // the last refused click: {picks, version}
  const redraw = () => render(model, { board, actions });

  function sendMove(move, { confirmed = false } = {}) {
    const seat = m.actingSeat(model);
    if (!move) return;
    if (seat === null || model.look) {
      say(model.look ? NOT_LIVE : "it is not your turn");
      return;
    }
    if (!confirmed && $("confirm-moves").checked) {
      m.confirmAsked(model, move);
      redraw();
      $("confirm-move")?.focus();
      return;
    }
    m.moveSent(model);
    say("");
    connection.act({ type: "action", seat, move, version: model.live.version });
    redraw();
  }

  /** Send a chat, look or spectator-chat message (unless the server said it lacks them). */
  function sendSpecial(message) {
    if (m.specialSent(model, message.type)) connection.send(message);
  }

  function backToLive() {
    m.backToLive(model);
    redraw();
  }

  /** Show the position after `at` moves (the live one: back to live). */
  function lookAt(at) {
    if (at >= (model.live.view.history || []).length) {
      backToLive();
      return;
    }
    if (model.unsupported.has("look")) {
      say("this server cannot show past positions yet", "notice");
      return;
    }
    m.lookWanted(model, at);
    sendSpecial({ type: "look", at: model.lookWanted });
  }

  function clearPicks() {
    m.clearGesture(model);
    redraw();
  }

  /** Take an open seat (POST /api/games/{id}/join) and go to its page. */
  async function join(seat) {
    const id = encodeURIComponent(model.id);
    try {
      const answer = await api(`/api/games/${id}/join`, { method: "POST", body: { seat } });
      location.assign(answer.page || `/game/${id}#token=${encodeURIComponent(answer.token)}`);
    } catch (error) {
      say(error.message);
    }
  }

  /** Why the board takes no clicks now, in words. */
  function whyNot() {
    if (model.look) return NOT_LIVE;
    if (model.sending) return "wait: the last move is on its way";
    if (model.live && model.live.view.terminal) return "the game is over";
    if (!m.heldSeats(model).length) return "you are watching this game";
    return "it is not your turn";
  }

  /** A click on the board (the renderer's `handlers.pick`): a legal continuation is
   *  added to the picks; another is refused, with the game's reason (asked from the server:
   *  the rules are the game's, never the page's). */
  function onPick(pick) {
    if (!m.interactive(model)) {
      say(whyNot(), "notice");
      return;
    }
    const picks = [...model.gesture.picks, pick];
    const result = m.picked(model, pick);
    if (result.refused) {
      explain(picks);
      redraw();
      return;
    }
    say("");
    if (result.move) {
      sendMove(result.move);
      return;
    }
    redraw();
  }

  /** Ask the server why `picks` begin no legal move (the answer: an "explanation"); a
   *  server without "explain": the page's own words. */
  function explain(picks) {
    refused = { picks, version: model.live.version };
    if (model.unsupported.has("explain")) {
      say(refusedWords());
      return;
    }
    sendSpecial({ type: "explain", seat: m.actingSeat(model),
      picks: picks.map(({ kind, value }) => ({ kind, value })) });
  }

  /** The page's own words for the refused click (no reason from the server). */
  function refusedWords() {
    const pick = refused.picks[refused.picks.length - 1];
    return refused.picks.length > 1 ? `${pick.value}: not a legal continuation`
      : `${pick.value}: not a legal start`;
  }

  function onExplanation(message) {
    if (!refused || message.version !== refused.version) return;
    say(message.reason || refusedWords());
  }

  function onView(message) {
    const before = model.live;
    const mineBefore = m.actingSeat(model) !== null;
    const first = m.viewReceived(model, message);
    soundsOf(before, model.live, m.actingSeat(model) !== null, mineBefore);
    if (message.type === "sync" && Array.isArray(message.chat)) setChat(message.chat);
    // A new connection starts with the spectators' chat off: ask again if the box says on.
    if (message.type === "sync" && first && wantsSpectatorChat() && message.seats.length) {
      sendSpecial({ type: "spectator_chat", on: true });
    }
    if (message.type === "sync" && first && model.token && message.seats.length) {
      rememberGame(model.id, model.token, message.seats.map((s) => m.seatName(model, s)),
        model.game.spec, model.facts.title || model.facts.game);
    }
    const seat = m.seatToSwitchTo(model);     // hotseat: another held seat acts
    if (seat !== null) connection.sync(seat);
    redraw();
    // When each version was on screen (scripts/web_timing.py reads these marks).
    performance.mark("boardlab:shown",
      { detail: { version: message.version, type: message.type } });
  }

  function onError(message) {
    const unsupported = m.errorReceived(model, message);
    switch (message.code) {
      case "bad_message":
        if (unsupported) {
          const what = SPECIAL_WORDS[unsupported] || unsupported;
          const words = `this server does not offer ${what} yet`;
          if (unsupported === "chat" || unsupported === "spectator_chat") chatNotice(words);
          else if (unsupported === "explain") say(refused ? refusedWords() : "");
          else say(words, "notice");
        } else say(message.message || "the server did not understand that");
        break;
      case "no_draw":
        say("no draw offer is possible now", "notice");
        break;
      case "stale_version":
        say("the game moved on: choose again", "notice");
        connection.sync();
        break;
      case "rate_limited":
        chatNotice("too many messages: wait a moment");
        break;
      case "not_found":
        $("status").textContent = "there is no such game";
        break;
      case "forbidden":
        say(model.token ? "this link holds no seat of the game (given up, or mistyped)"
          : message.message);
        break;
      default:
        say(message.message || message.code);
    }
    redraw();
  }

  /** Every message of the connection, in order (docs/server-protocol.md). */
  function onMessage(message) {
    switch (message.type) {
      case "sync":
      case "update":
        onView(message);
        break;
      case "ack":
        m.acknowledged(model);
        redraw();
        break;
      case "error":
        onError(message);
        break;
      case "position":
        if (m.positionReceived(model, message)) redraw();
        break;
      case "draw":
        m.drawOfferChanged(model, message.draw_offer);
        say(message.event === "offered" ? `${message.by} offers a draw`
          : `${message.by} declined the draw`, "notice");
        redraw();
        break;
      case "left":
        m.seatsLeft(model, message.seats);
        redraw();
        break;
      case "seats":
        m.seatKindsChanged(model, message.seats);
        redraw();
        break;
      case "rematch":
        if (message.token) {
          location.assign(`/game/${encodeURIComponent(message.id)}` +
            `#token=${encodeURIComponent(message.token)}`);
          return;
        }
        m.rematchCreated(model, message.id);
        redraw();
        break;
      case "chat":
        addChat(message);
        break;
      case "explanation":
        onExplanation(message);
        break;
      case "rematch_offer":
      case "declined":
        if (offerMessage(model, message)) redraw();
        break;
      default:
        break;
    }
  }

  const actions = { sendMove, clearPicks, lookAt, join };
  return {
    ...actions,
    sendSpecial,
    backToLive,
    onPick,
    onMessage,
    redraw,
    /** The board (the renderer's {update, destroy}) and the connection, once made. */
    attach(boardHandle, connectionHandle) {
      board = boardHandle;
      connection = connectionHandle;
    },
    connection: () => connection,
  };
}
