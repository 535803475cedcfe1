// A profile page (/user/NAME): the account's ratings per pool (a "?" marks a provisional
// one) and its newest games. Every user-written text goes in as text, never as HTML.

import { api, el } from "./api.js";
import { profileUrl, showAccount } from "./account.js";
import { ratingChart } from "./rating-chart.js";

const $ = (id) => document.getElementById(id);
const name = decodeURIComponent(location.pathname.split("/").pop() || "");

function ratingRow(pool, rating) {
  return el("tr", { "data-pool": pool },
    el("td", {}, el("a", { href: "/api/leaderboard/" + encodeURIComponent(pool) }, pool)),
    el("td", { class: "rating" }, String(rating.rating) + (rating.provisional ? "?" : "")),
    el("td", {}, "±" + rating.deviation),
    el("td", {}, String(rating.games)));
}

function gameItem(game) {
  const players = Object.entries(game.players).map(([seat, player]) =>
    player ? el("a", { href: profileUrl(player), "data-seat": seat }, player) : el("span", {}, "(deleted)"));
  const change = game.rating
    ? el("span", { class: "rating-change" }, ` ${game.rating.before} → ${game.rating.after}`)
    : null;
  return el("li", { "data-game": game.id },
    el("a", { href: "/game/" + encodeURIComponent(game.id) }, game.spec),
    el("span", { class: "game-status" }, ` ${game.status}${game.rated ? `, rated (${game.pool})` : ""} `),
    ...players.flatMap((player, index) => (index ? [" – ", player] : [player])),
    change);
}

async function show() {
  try {
    const profile = await api("/api/users/" + encodeURIComponent(name));
    document.title = `boardlab — ${profile.username}`;
    $("profile-name").replaceChildren(profile.username,
      profile.bot ? el("span", { class: "bot-badge" }, "BOT") : "");
    const pools = Object.entries(profile.ratings);
    $("ratings").tBodies[0].replaceChildren(...pools.map(([pool, rating]) => ratingRow(pool, rating)));
    $("no-ratings").hidden = pools.length > 0;
    const chart = ratingChart(profile.history || {});
    $("rating-history").replaceChildren(...(chart ? [chart] : []));
    $("profile-games").replaceChildren(...profile.games.map(gameItem));
  } catch (error) {
    $("profile-error").textContent = error.message;
    $("profile-error").hidden = false;
  }
  document.body.dataset.loaded = "true";
}

showAccount($("account"));
show();
