// A tournament page (/tournament/ID): live standings (rank, score, tie-breaks, rating with
// its interval), the current round's pairings with links to watch each game, every round,
// a crosstable and a chart of scores over rounds; the director's start, pause and end; join
// and leave. A game of more than two sides (the answer's `sides`) shows its tables (every
// side's player in seat order), places (1st-mid-last), OpenSkill ratings and a crosstable
// of pairwise results (1: placed above). It reads GET /api/tournaments/ID every POLL_MS while the tournament is not over
// (docs/tournaments.md). Every name goes into the page as text, never as HTML.

import { api, el } from "./api.js";
import { profileUrl, showAccount, whoami } from "./account.js";

const POLL_MS = 2000;
const NS = "http://www.w3.org/2000/svg";
const COLOURS = ["#2563eb", "#dc2626", "#16a34a", "#9333ea", "#ea580c", "#0891b2", "#a16207", "#db2777"];
const $ = (id) => document.getElementById(id);
const id = decodeURIComponent(location.pathname.split("/").pop() || "");
const path = "/api/tournaments/" + encodeURIComponent(id);
let me = null;
let timer = null;

// A score: quarters, thirds and halves as ¼ ⅓ ½ ⅔ ¾ (tables of more sides), other
// fractions to two places (server/tournaments/view.py writes results the same way).
const FRACTIONS = [[1, 4, "¼"], [1, 3, "⅓"], [1, 2, "½"], [2, 3, "⅔"], [3, 4, "¾"]];
function points(value) {
  const whole = Math.trunc(value);
  if (value === whole) return String(whole);
  for (const [top, bottom, glyph] of FRACTIONS) {
    if (Math.abs((value - whole) * bottom - top) < 1e-9) return (whole || "") + glyph;
  }
  return String(Math.round(value * 100) / 100);
}
let sides = 2;
const number = (value) => (value === null || value === undefined ? "–" : String(value));

function player(name) {
  return name === null ? el("span", { class: "bye" }, "bye")
    : el("a", { href: profileUrl(name), class: "player-name" }, name);
}

// Elo to the unit; OpenSkill's mu (about 25) to a tenth.
const rated = (value) => (sides > 2 ? value.toFixed(1) : String(Math.round(value)));

function standingRow(line) {
  const interval = line.rating === null ? null
    : el("span", { class: "interval" }, ` [${rated(line.rating_low)}, ${rated(line.rating_high)}]`);
  return el("tr", { "data-player": line.player, "data-score": String(line.score),
    class: line.active ? null : "withdrawn" },
  el("td", {}, String(line.rank)),
  el("td", { class: "player" }, player(line.player), line.bot ? el("span", { class: "bot-badge" }, "BOT") : null),
  el("td", { class: "score" }, points(line.score)),
  el("td", {}, String(line.games)),
  el("td", {}, `${line.wins}-${line.draws}-${line.losses}`),
  el("td", {}, points(line.buchholz)),
  el("td", {}, points(line.sonneborn_berger)),
  el("td", { class: "rating" }, line.rating === null ? "–" : rated(line.rating), interval));
}

function pairingItem(pairing) {
  const watch = pairing.game
    ? el("a", { href: "/game/" + encodeURIComponent(pairing.game), class: "watch" },
      pairing.result === null ? "watch live" : "replay")
    : null;
  const bye = pairing.sides.length === 1;
  const table = pairing.sides.flatMap((name, seat) => (seat === 0 ? [player(name)] : [" – ", player(name)]));
  return el("li", { "data-game": pairing.game || "", "data-round": String(pairing.round),
    "data-sides": String(pairing.sides.length) },
  el("span", { class: "result" }, pairing.result || (pairing.game ? "…" : "")),
  ...table, bye ? " " : null, bye ? el("span", { class: "forfeit" }, "bye") : null,
  pairing.forfeit && !bye ? el("span", { class: "forfeit" }, pairing.forfeit) : null,
  watch);
}

function crosstable(cross) {
  const head = el("tr", {}, el("th", {}, ""), ...cross.players.map((_, j) => el("th", { scope: "col" }, String(j + 1))));
  const rows = cross.players.map((name, i) => el("tr", { "data-player": name },
    el("th", { scope: "row" }, `${i + 1}. `, player(name)),
    ...cross.cells[i].map((games, j) => el("td", { class: i === j ? "self" : null },
      games.map(points).join(" ")))));
  return [el("thead", {}, head), el("tbody", {}, ...rows)];
}

function svg(tag, attributes, ...children) {
  const node = document.createElementNS(NS, tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, String(value));
  node.append(...children);
  return node;
}

// A line per player: the running score after each round, its name at its end; null when
// no round has ended.
function scoreChart(series) {
  const entries = Object.entries(series).filter(([, scores]) => scores.length > 0);
  if (entries.length === 0) return null;
  const width = 600, height = 220, pad = 30;
  const longest = Math.max(...entries.map(([name]) => name.length));
  const right = Math.min(200, 12 + 7 * longest);      // room for the names at the ends
  const rounds = Math.max(...entries.map(([, scores]) => scores.length));
  const top = Math.max(1, ...entries.flatMap(([, scores]) => scores));
  const x = (round) => pad + (rounds === 1 ? 0 : round * (width - pad - right) / (rounds - 1));
  const y = (score) => height - pad - score * (height - 2 * pad) / top;
  const chart = svg("svg", { viewBox: `0 0 ${width} ${height}`, role: "img", class: "score-chart",
    "aria-label": "scores over rounds" },
  svg("text", { x: 2, y: pad, "font-size": 11 }, String(top)),
  svg("text", { x: 2, y: height - pad, "font-size": 11 }, "0"));
  const ends = entries.map(([name, scores], index) => {
    const colour = COLOURS[index % COLOURS.length];
    chart.append(svg("polyline", { fill: "none", stroke: colour, "stroke-width": 2,
      points: scores.map((score, round) => `${x(round)},${y(score)}`).join(" ") }));
    const last = scores.length - 1;
    chart.append(svg("circle", { cx: x(last), cy: y(scores[last]), r: 3, fill: colour }));
    return { name, colour, x: x(last) + 4, y: y(scores[last]) + 4 };
  });
  for (const end of apart(ends, 13, 12, height - 2)) {
    chart.append(svg("text", { x: end.x, y: end.at, "font-size": 11, fill: end.colour,
      class: "score-chart-name" }, end.name));
  }
  return chart;
}

// The labels' baselines (`at`), each as near its own `y` as can be with at least `gap`
// between two of them (players level on points share a height), within [low, high].
function apart(labels, gap, low, high) {
  const sorted = [...labels].sort((a, b) => a.y - b.y || a.name.localeCompare(b.name));
  sorted.forEach((label, i) => {
    label.at = Math.max(label.y, low, i > 0 ? sorted[i - 1].at + gap : low);
  });
  for (let i = sorted.length - 1; i >= 0; i -= 1) {
    const limit = i === sorted.length - 1 ? high : sorted[i + 1].at - gap;
    sorted[i].at = Math.min(sorted[i].at, limit);
  }
  return sorted;
}

function controls(shown) {
  const director = me && me.signed_in && me.username.toLowerCase() === (shown.director || "").toLowerCase();
  const mine = me && me.signed_in && shown.players.some((p) => p.active && p.player.toLowerCase() === me.username.toLowerCase());
  const open = shown.status === "created" || (shown.format === "ladder" && shown.status !== "over");
  $("start").hidden = !(director && (shown.status === "created" || shown.status === "paused"));
  $("start").textContent = shown.status === "paused" ? "Resume" : "Start";
  $("pause").hidden = !(director && shown.status === "running");
  $("end").hidden = !(director && shown.status !== "over");
  $("join").hidden = !(me && me.signed_in && open && !mine);
  $("leave").hidden = !(mine && shown.status !== "over");
}

function render(shown) {
  document.title = `boardlab — ${shown.name}`;
  sides = shown.sides;
  $("places-head").textContent = sides > 2 ? "1st-mid-last" : "W-D-L";
  $("rating-head").title = `${shown.rating_kind}, 95% interval`;
  $("crosstable-note").hidden = sides === 2;
  $("tournament-name").textContent = shown.name;
  const clock = !shown.clock ? "no clock" : shown.clock.days ? `${shown.clock.days} days per move`
    : `${shown.clock.base / 60} min + ${shown.clock.increment} s`;
  $("tournament-facts").textContent = [shown.game_name, shown.spec, `${shown.sides} sides`, shown.format, clock,
    shown.rated ? "rated" : "casual", `directed by ${shown.director}`,
    shown.no_show ? `no-shows forfeit after ${shown.no_show} s` : null,
    shown.ends ? `ends ${new Date(shown.ends).toLocaleString()}` : null].filter(Boolean).join(" · ");
  $("tournament-status").textContent = shown.status;
  $("tournament-status").dataset.status = shown.status;
  $("tournament-round").textContent = shown.format === "ladder"
    ? `${shown.games.length} games`
    : `round ${shown.round} of ${shown.total_rounds || "?"}`;
  $("standings").tBodies[0].replaceChildren(...shown.standings.map(standingRow));
  const current = shown.format === "ladder"
    ? shown.pairings.filter((p) => p.result === null)
    : shown.pairings.filter((p) => p.round === shown.round);
  $("pairings").replaceChildren(...current.map(pairingItem));
  const rounds = [...new Set(shown.pairings.map((p) => p.round))].reverse().slice(0, 50);
  $("rounds").replaceChildren(...rounds.map((round) => el("div", { class: "round" },
    el("h3", {}, `round ${round}`),
    el("ul", { class: "pairings" }, ...shown.pairings.filter((p) => p.round === round).map(pairingItem)))));
  $("crosstable").replaceChildren(...crosstable(shown.crosstable));
  const chart = shown.format === "ladder" ? null : scoreChart(shown.scores_by_round);
  $("score-chart").replaceChildren(...(chart ? [chart] : []));
  $("csv").href = path + "/standings.csv";
  $("records").href = path + "/records.zip";
  controls(shown);
  document.body.dataset.status = shown.status;
  document.body.dataset.games = String(shown.games.length);
}

async function refresh() {
  clearTimeout(timer);
  try {
    const shown = await api(path);
    render(shown);
    $("tournament-error").hidden = true;
    if (shown.status !== "over") timer = setTimeout(refresh, POLL_MS);
  } catch (error) {
    $("tournament-error").textContent = error.message;
    $("tournament-error").hidden = false;
    if (error.status !== 404) timer = setTimeout(refresh, POLL_MS);
  }
  document.body.dataset.loaded = "true";
}

async function act(action) {
  $("action-error").hidden = true;
  try {
    await api(path + "/" + action, { method: "POST", body: {} });
  } catch (error) {
    $("action-error").textContent = error.message;
    $("action-error").hidden = false;
  }
  await refresh();
}

for (const action of ["start", "pause", "end", "join", "leave"]) {
  $(action).addEventListener("click", () => act(action));
}
showAccount($("account"));
whoami().then((who) => { me = who; }).catch(() => { me = null; }).finally(refresh);
