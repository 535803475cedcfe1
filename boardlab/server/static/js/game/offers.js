// The game page's rematch offer and the answers to offers (docs/server-protocol.md,
// "Leave and rematch"): a finished game's seat holder offers a rematch (#rematch), the
// other side accepts or declines it (#accept-rematch, #decline-rematch), the offering
// side may withdraw it (#withdraw-rematch). A declined draw or rematch offer is said to
// the side that offered it.

import { el } from "../api.js";
import { heldSeats, rematchOfferChanged, seatName, teamOf } from "./model.js";
import { $, say } from "./page.js";

/** The answer buttons, made once beside #rematch: id → [words, message type]. */
const BUTTONS = {
  "accept-rematch": ["accept the rematch", "accept_rematch"],
  "decline-rematch": ["decline the rematch", "decline_rematch"],
  "withdraw-rematch": ["withdraw the rematch offer", "withdraw_rematch"],
};

/** What an offer of each kind is called in a notice. */
const OFFER_WORDS = { draw: "draw offer", rematch: "rematch offer" };

/** Wire #rematch and make the answer buttons; `send(message)` goes to the server. */
export function wireOffers(send) {
  const anchor = $("rematch");
  anchor.addEventListener("click", () => send({ type: "rematch" }));
  let last = anchor;
  for (const [id, [words, type]] of Object.entries(BUTTONS)) {
    let button = $(id);
    if (!button) {
      button = el("button", { type: "button", id, hidden: true }, words);
      last.after(button);
    }
    button.addEventListener("click", () => send({ type }));
    last = button;
  }
}

/** The team names of the seats this page holds. */
function myTeams(model) {
  return heldSeats(model).map((seat) => teamOf(model, seatName(model, seat))?.name);
}

/** Show the rematch buttons that fit: offer (nothing stands), accept and decline (the
 *  other side's offer), withdraw (ours); none once the rematch exists. */
export function renderOffers(model) {
  const live = model.live;
  const over = Boolean(live.view.terminal);
  const offer = live.rematch_offer || null;
  const holder = over && heldSeats(model).length > 0 && !live.rematch;
  const ours = Boolean(offer) && myTeams(model).includes(offer);
  $("rematch").hidden = !holder || Boolean(offer);
  $("accept-rematch").hidden = !holder || !offer || ours;
  $("decline-rematch").hidden = !holder || !offer || ours;
  $("withdraw-rematch").hidden = !holder || !ours;
}

/** A server message about offers: `rematch_offer` (made, declined, withdrawn) or
 *  `declined` (to the offering side). Returns whether it was one (then redraw). */
export function offerMessage(model, message) {
  if (message.type === "rematch_offer") {
    rematchOfferChanged(model, message.rematch_offer ?? null);
    const words = { offered: "offers a rematch", declined: "declined the rematch",
      withdrawn: "withdrew the rematch offer" }[message.event] || message.event;
    say(`${message.by} ${words}`, "notice");
    return true;
  }
  if (message.type === "declined") {
    say(`${message.by} declined your ${OFFER_WORDS[message.offer] || message.offer}`,
      "notice");
    return true;
  }
  return false;
}
