// The lobby for a signed-in person (docs/accounts.md): the "rated" box of the New game form,
// challenges (to a person or to a house bot ai-N: made, received, answered), seeks (posted,
// accepted, cancelled) and the "your turn" list. The game, options and clock are the New game
// form's (lobby.js hands them over). Every name and reason goes into the page as text.

import { api, el } from "./api.js";
import { profileUrl, whoami } from "./account.js";

const $ = (id) => document.getElementById(id);
const REFRESH_MS = 4000;

let current = () => ({ spec: null, valid: false, clock: null });
let me = null;

/** Whether the New game form asks for a rated game (only a signed-in person can). */
export const ratedRequested = () => Boolean(me && $("rated") && $("rated").checked);

const gamePage = (id) => "/game/" + encodeURIComponent(id);

/** A name with its BOT mark, as text (a link to the profile). */
function who(player) {
  return el("span", { class: "player" }, el("a", { href: profileUrl(player.username) }, player.username),
    player.bot ? el("span", { class: "bot-badge" }, "BOT") : null);
}

function clockText(clock) {
  if (!clock) return "no clock";
  if (clock.days) return `${clock.days} day${clock.days === 1 ? "" : "s"} per move`;
  const minutes = clock.base / 60;
  return `${Number.isInteger(minutes) ? minutes : minutes.toFixed(2)}+${clock.increment}`;
}

const terms = (item) => `${item.spec} · ${clockText(item.clock)} · ` +
  (item.rated ? `rated${item.pool ? ` (${item.pool})` : ""}` : "casual");

function showError(text) {
  $("find-error").hidden = !text;
  $("find-error").textContent = text || "";
}

/** POST `path` and, when the answer names a game, go to its page; refresh otherwise. */
async function act(path, body = {}) {
  try {
    const answer = await api(path, { method: "POST", body });
    showError(null);
    if (answer && answer.game) {
      location.assign(gamePage(answer.game));
      return;
    }
  } catch (error) {
    showError(error.message);
  }
  refresh();
}

/** The New game form's game and clock, or null (with the reason shown) when it is invalid. */
function formTerms() {
  const chosen = current();
  if (!chosen.valid || !chosen.spec) {
    showError("pick a valid game first");
    return null;
  }
  return { spec: chosen.spec, clock: chosen.clock, rated: $("rated").checked };
}

function challenge() {
  const to = $("challenge-to").value.trim();
  const base = formTerms();
  if (!base) return;
  if (!to) {
    showError("whom to challenge? a name, or a house bot ai-1 … ai-5");
    return;
  }
  act("/api/challenges", { ...base, to });
}

function seek() {
  const base = formTerms();
  if (!base) return;
  const low = $("seek-min").value.trim();
  const high = $("seek-max").value.trim();
  const request = { ...base };
  if (base.rated && (low || high)) request.rating_range = [Number(low || 0), Number(high || 4000)];
  act("/api/seeks", request);
}

// ---------------------------------------------------------------------------- lists
function fill(list, items, empty) {
  list.replaceChildren(...(items.length ? items : [el("li", { class: "notice" }, empty)]));
}

function challengeItem(item, incoming) {
  const id = encodeURIComponent(item.id);
  if (!incoming) {
    return el("li", { "data-challenge": item.id }, "to ", who(item.to), ` · ${terms(item)} `,
      el("button", { type: "button", class: "cancel", onclick: () => act(`/api/challenges/${id}/cancel`) }, "cancel"));
  }
  const reason = el("input", { type: "text", class: "reason", maxlength: "200", placeholder: "reason (optional)",
    "aria-label": `reason to decline ${item.from.username}'s challenge` });
  return el("li", { "data-challenge": item.id }, "from ", who(item.from), ` · ${terms(item)} `,
    el("button", { type: "button", class: "accept primary", onclick: () => act(`/api/challenges/${id}/accept`) }, "accept"),
    reason,
    el("button", { type: "button", class: "decline", onclick: () => {
      const text = reason.value.trim();
      act(`/api/challenges/${id}/decline`, text ? { reason: text } : {});
    } }, "decline"));
}

function seekItem(item) {
  const id = encodeURIComponent(item.id);
  const mine = item.user.username.toLowerCase() === me.username.toLowerCase();
  const range = item.rating_range ? ` · ${item.rating_range[0]}–${item.rating_range[1]}` : "";
  return el("li", { "data-seek": item.id, "data-mine": String(mine) }, who(item.user), ` · ${terms(item)}${range} `,
    mine ? el("button", { type: "button", class: "cancel", onclick: () => act(`/api/seeks/${id}/cancel`) }, "cancel")
      : el("button", { type: "button", class: "accept primary", onclick: () => act(`/api/seeks/${id}/accept`) }, "accept"));
}

function playingItem(game) {
  const others = Object.entries(game.players || {}).filter(([seat]) => !game.seats.includes(Number(seat)))
    .map(([, player]) => player);
  return el("li", { "data-game": game.id, "data-your-turn": String(game.your_turn) },
    el("a", { class: "game-link", href: gamePage(game.id) }, game.spec),
    others.length ? el("span", {}, " vs ", ...others.map(who)) : null,
    el("span", { class: "status-tag" + (game.your_turn ? " yours" : "") }, game.your_turn ? "your turn" : "waiting"));
}

async function refresh() {
  const [challenges, seeks, playing] = await Promise.all([
    api("/api/challenges").catch(() => null), api("/api/seeks").catch(() => null),
    api("/api/account/playing").catch(() => null)]);
  if (challenges) {
    fill($("challenges-in"), challenges.in.map((item) => challengeItem(item, true)), "none received");
    fill($("challenges-out"), challenges.out.map((item) => challengeItem(item, false)), "none sent");
  }
  if (seeks) fill($("seeks"), seeks.seeks.map(seekItem), "no open seeks");
  if (playing) fill($("playing"), playing.games.map(playingItem), "no running games");
}

// ---------------------------------------------------------------------------- rated box
/** A rated game: one seat "me", the others "open" (the server's rule), set in the seat rows. */
function seatsForRated() {
  if (!$("rated").checked) return;
  document.querySelectorAll("#seats select[data-seat]").forEach((select, index) => {
    const kind = index === 0 ? "me" : "open";
    if (select.value === kind) return;
    select.value = kind;
    select.dispatchEvent(new Event("change"));
  });
}

/** Start the signed-in lobby: `chosen()` gives the New game form's {spec, valid, clock}. */
export async function startAccountsLobby(chosen, catalog) {
  current = chosen;
  try {
    const answer = await whoami();
    if (!answer.signed_in) return;
    me = answer;
  } catch (error) {
    return;
  }
  $("rated-label").hidden = false;
  $("rated").addEventListener("change", seatsForRated);
  new MutationObserver(seatsForRated).observe($("seats"), { childList: true });
  $("house-bots").replaceChildren(...(catalog.levels || []).map((entry) =>
    el("option", { value: `ai-${entry.level}` }, `house AI, level ${entry.level}`)));
  $("challenge-send").addEventListener("click", challenge);
  $("seek-create").addEventListener("click", seek);
  $("accounts-lobby").hidden = false;
  await refresh();
  $("accounts-lobby").dataset.ready = "true";
  setInterval(refresh, REFRESH_MS);
}
