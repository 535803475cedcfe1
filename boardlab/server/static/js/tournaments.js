// The tournaments page (/tournaments): the newest tournaments and ladders, and a form that
// directs a new one (POST /api/tournaments, docs/tournaments.md). Names go in as text. The
// game's sides (from its declared facts, GET /api/facts) show under its spec: an entrant
// fills a side, a whole team in a game of teams.

import { api, el, getFacts } from "./api.js";
import { showAccount, whoami } from "./account.js";

const $ = (id) => document.getElementById(id);

function item(tournament) {
  return el("li", { "data-tournament": tournament.id },
    el("a", { href: "/tournament/" + encodeURIComponent(tournament.id) }, tournament.name),
    el("span", { class: "status-tag" + (tournament.status === "over" ? " over" : "") }, tournament.status),
    el("span", { class: "game-meta" },
      `${tournament.format} · ${tournament.spec} · ${tournament.players_count} players · ` +
      `directed by ${tournament.director}`));
}

async function list() {
  try {
    const { tournaments } = await api("/api/tournaments");
    $("tournaments").replaceChildren(...tournaments.map(item));
    $("no-tournaments").hidden = tournaments.length > 0;
  } catch (error) {
    $("no-tournaments").textContent = error.message;
    $("no-tournaments").hidden = false;
  }
  document.body.dataset.loaded = "true";
}

const numberOf = (input) => (input.value.trim() === "" ? null : Number(input.value));

/** The form's clock: Fischer (base minutes + increment), correspondence ({days}), or none;
 *  both given are sent as they are, for the server to refuse with its reason. */
function clockOf(base, days) {
  const fischer = base ? { base: base * 60, increment: numberOf($("t-increment")) || 0 } : {};
  const clock = { ...(days ? { days } : {}), ...fischer };
  return Object.keys(clock).length ? clock : null;
}

function request() {
  const format = $("t-format").value;
  const base = numberOf($("t-base"));
  const duration = numberOf($("t-duration"));
  return {
    name: $("t-name").value, spec: $("t-spec").value, format,
    players: $("t-players").value.split(/[\s,]+/).filter(Boolean),
    clock: clockOf(base, numberOf($("t-days"))),
    rated: $("t-rated").checked,
    rounds: format === "ladder" ? null : numberOf($("t-rounds")),
    no_show: numberOf($("t-no-show")),
    ...(format === "ladder" ? { duration: duration ? duration * 60 : null } : {}),
  };
}

/** What an entrant plays in the spec's game: its sides, and a team's seats. */
async function showSides() {
  const spec = $("t-spec").value.trim();
  try {
    const facts = await getFacts(spec);
    const largest = Math.max(...facts.teams.map((team) => team.seats.length));
    $("t-sides").textContent = `${facts.teams.length} sides a game` +
      (largest > 1 ? `; an entrant plays a whole team (${facts.teams.map((t) => t.seats.length).join(" v ")} seats)` : "");
  } catch (error) {
    $("t-sides").textContent = spec ? error.message : "";
  }
  $("t-sides").dataset.spec = spec;
}

let typing = null;
$("t-spec").addEventListener("input", () => {
  clearTimeout(typing);
  typing = setTimeout(showSides, 300);
});

$("direct").addEventListener("submit", async (event) => {
  event.preventDefault();
  $("direct-error").hidden = true;
  try {
    const made = await api("/api/tournaments", { method: "POST", body: request() });
    location.assign("/tournament/" + encodeURIComponent(made.id));
  } catch (error) {
    $("direct-error").textContent = error.message;
    $("direct-error").hidden = false;
  }
});

showAccount($("account"));
whoami().then((me) => {
  $("sign-in-first").hidden = me.signed_in;
  $("direct").hidden = !me.signed_in;
}).catch(() => {});
list();
showSides();
