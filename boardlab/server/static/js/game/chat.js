// The game page's chat: the log (#chat-log, the last 200 lines), the channels a page may
// write to (players, team, or spectators), the spectators' chat switch and the notices
// (a server without chat, too many messages).

import { el } from "../api.js";
import { heldSeats, ownSeat, teamPlay } from "./model.js";
import { $ } from "./page.js";

const KEPT_LINES = 200;

function chatLine(message) {
  const when = message.at ? new Date(message.at) : null;
  const from = message.from + (message.channel !== "players" ? ` (${message.channel})` : "");
  return el("li", { "data-channel": message.channel },
    el("span", { class: "chat-from" }, from),
    " ", el("span", { class: "chat-text" }, message.text),
    when && !Number.isNaN(when.getTime())
      ? el("time", { datetime: message.at },
        " " + when.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" }))
      : null);
}

/** Replace the log with `messages` (a sync's chat). */
export function setChat(messages) {
  $("chat-log").replaceChildren(...messages.map(chatLine));
  $("chat-log").scrollTop = $("chat-log").scrollHeight;
}

/** Add one chat message at the end of the log. */
export function addChat(message) {
  const log = $("chat-log");
  log.append(chatLine(message));
  while (log.children.length > KEPT_LINES) log.firstChild.remove();
  log.scrollTop = log.scrollHeight;
}

/** Show a notice under the chat. */
export function chatNotice(text) {
  $("chat-notice").hidden = false;
  $("chat-notice").textContent = text;
}

/** Whether the page asks for the spectators' chat too (the box is ticked). */
export const wantsSpectatorChat = () => $("spectator-chat").checked;

function chatChannels(model) {
  if (!heldSeats(model).length) return ["spectators"];
  return teamPlay(model) ? ["players", "team"] : ["players"];
}

/** The channel choice and the spectators' chat switch (players only). */
export function renderChatControls(model) {
  const select = $("chat-channel");
  const channels = chatChannels(model);
  if (select.dataset.key !== channels.join()) {
    select.dataset.key = channels.join();
    select.replaceChildren(...channels.map((c) => el("option", { value: c }, c)));
  }
  $("spectator-chat-label").hidden = !heldSeats(model).length;
}

/** Send chat and the spectators' chat switch through `sendSpecial(message)`. */
export function wireChat(model, sendSpecial) {
  $("chat-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const text = $("chat-input").value.trim();
    if (!text) return;
    if (model.unsupported.has("chat")) return;
    const message = { type: "chat", channel: $("chat-channel").value, text };
    if (heldSeats(model).length) message.seat = ownSeat(model);
    sendSpecial(message);
    $("chat-input").value = "";
  });
  $("spectator-chat").addEventListener("change", (event) =>
    sendSpecial({ type: "spectator_chat", on: event.target.checked }));
}
