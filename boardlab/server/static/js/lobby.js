// The lobby (/): pick a game from the catalog, set its declared options (the form is made
// from the options, never per game), choose who sits where and the clock, create the game
// and hand out the seat links; list the live and finished games (a finished one with its
// result in the server's words; the server leaves abandoned games out).

import { copyText, createGame, el, getCatalog, getFacts, listGames } from "./api.js";
import { profileUrl } from "./account.js";
import { ratedRequested, startAccountsLobby } from "./lobby-accounts.js";
import { startMyGames } from "./my-games.js";

const $ = (id) => document.getElementById(id);

const state = {
  catalog: null,
  game: null,        // the catalog entry picked
  facts: null,       // the facts of the configured spec (null while invalid)
  seatChoices: [],   // per seat: {kind: "me"|"friend"|"ai"|"open", level, agent}
  factsRequest: 0,
};

// ---------------------------------------------------------------------------- options
function optionInput(option) {
  const id = `option-${option.name}`;
  const common = { id, name: option.name, title: option.help || option.name, "data-option": option.name };
  if (option.choices) {
    const select = el("select", common, ...option.choices.map((choice) =>
      el("option", { value: String(choice), selected: String(choice) === String(option.default) }, String(choice))));
    return select;
  }
  if (option.type === "bool") return el("input", { ...common, type: "checkbox", checked: Boolean(option.default) });
  if (option.type === "int" || option.type === "float") {
    return el("input", {
      ...common, type: "number", value: option.default ?? "",
      step: option.type === "int" ? "1" : "any",
      min: option.minimum ?? undefined, max: option.maximum ?? undefined,
    });
  }
  return el("input", { ...common, type: "text", value: option.default ?? "" });
}

const MAIN_OPTIONS = 4;       // with no option declared common: the first ones show, the rest fold

function renderOptions() {
  const options = state.game.options;
  const rows = options.map((option) => {
    const input = optionInput(option);
    if (option.type === "bool") {
      return el("label", { class: "option bool", for: input.id }, input, el("span", { class: "name" }, option.name),
        option.help ? el("span", { class: "help" }, option.help) : null);
    }
    return el("label", { class: "option", for: input.id }, el("span", { class: "name" }, option.name), input,
      option.help ? el("span", { class: "help" }, option.help) : null);
  });
  const declared = options.some((option) => option.common);
  const main = options.map((option, index) => (declared ? Boolean(option.common) : index < MAIN_OPTIONS));
  const more = main.filter((shown) => !shown).length;
  $("options-main").replaceChildren(...rows.filter((_, index) => main[index]));
  $("options-more").replaceChildren(...rows.filter((_, index) => !main[index]));
  $("options-summary").textContent = `more options (${Math.max(more, 0)})`;
  $("options-box").hidden = more <= 0;
  $("options-box").open = false;
}

/** The value of an option's input, as it goes into a spec. */
function optionValue(option) {
  const input = $(`option-${option.name}`);
  if (option.type === "bool") return input.checked;
  if (option.type === "int" || option.type === "float") return input.value.trim() === "" ? null : Number(input.value);
  return input.value;
}

/** `name(option=value,...)` with the options that differ from their defaults. */
function currentSpec() {
  const parts = [];
  for (const option of state.game.options) {
    const value = optionValue(option);
    if (value === null || value === undefined) continue;
    if (String(value) === String(option.default)) continue;
    parts.push(`${option.name}=${value}`);
  }
  return parts.length ? `${state.game.name}(${parts.join(",")})` : state.game.name;
}

// ---------------------------------------------------------------------------- seats
function defaultChoice(index) {
  return index === 0 ? { kind: "me", level: 2, agent: "" } : { kind: "ai", level: 2, agent: "" };
}

function seatRow(name, index) {
  const choice = state.seatChoices[index];
  const kind = el("select", { "aria-label": `who plays ${name}`, "data-seat": index },
    ...[["me", "me"], ["friend", "a friend (link)"], ["ai", "AI"], ["open", "open"]].map(([value, label]) =>
      el("option", { value, selected: choice.kind === value }, label)));
  const levels = state.catalog.levels || [];
  const level = el("select", { "aria-label": `AI level for ${name}`, "data-seat-level": index },
    ...levels.map((entry) => el("option", { value: entry.level, selected: Number(choice.level) === entry.level }, `level ${entry.level}`)),
    el("option", { value: "custom", selected: choice.level === "custom" }, "agent spec…"));
  const agent = el("input", { type: "text", list: "agent-names", placeholder: "e.g. random or mcts(iterations=400)",
    value: choice.agent, "aria-label": `agent spec for ${name}`, "data-seat-agent": index });
  const sync = () => {
    level.hidden = choice.kind !== "ai";
    agent.hidden = choice.kind !== "ai" || choice.level !== "custom";
  };
  kind.addEventListener("change", () => { choice.kind = kind.value; sync(); renderHotseat(); });
  level.addEventListener("change", () => { choice.level = level.value === "custom" ? "custom" : Number(level.value); sync(); });
  agent.addEventListener("input", () => { choice.agent = agent.value.trim(); });
  sync();
  return el("div", { class: "seat-row" }, el("span", { class: "seat-label" }, name), kind, level, agent);
}

function renderSeats() {
  const box = $("seats");
  const facts = state.facts;
  if (!facts) {
    box.replaceChildren();
    return;
  }
  const count = facts.seats.length;
  while (state.seatChoices.length < count) state.seatChoices.push(defaultChoice(state.seatChoices.length));
  state.seatChoices.length = count;
  const rowOf = new Map(facts.seats.map((name, index) => [name, seatRow(name, index)]));
  const groups = (facts.teams || []).filter((team) => team.seats.length > 1);
  if (groups.length) {
    box.replaceChildren(...facts.teams.map((team) =>
      el("div", { class: "team-group" }, el("h3", {}, `team ${team.name}`), ...team.seats.map((name) => rowOf.get(name)))));
  } else box.replaceChildren(...facts.seats.map((name) => rowOf.get(name)));
  renderHotseat();
}

function renderHotseat() {
  const mine = state.seatChoices.filter((choice) => choice.kind === "me").length;
  $("hotseat-label").hidden = mine < 2;
}

function agentOf(choice) {
  if (choice.level === "custom") return choice.agent;
  const level = (state.catalog.levels || []).find((entry) => entry.level === Number(choice.level));
  return level ? level.agent : `mcts(level=${choice.level})`;
}

// ---------------------------------------------------------------------------- facts
let factsTimer = null;
function specChanged() {
  clearTimeout(factsTimer);
  factsTimer = setTimeout(loadFacts, 200);
}

async function loadFacts() {
  const spec = currentSpec();
  $("spec-line").textContent = spec;
  const request = ++state.factsRequest;
  try {
    const facts = await getFacts(spec);
    if (request !== state.factsRequest) return;
    state.facts = facts;
    state.factsSpec = spec;
    $("spec-error").hidden = true;
    $("create").disabled = false;
  } catch (error) {
    if (request !== state.factsRequest) return;
    state.facts = null;
    $("spec-error").hidden = false;
    $("spec-error").textContent = error.message;
    $("create").disabled = true;
  }
  renderSeats();
}

function pickGame(name) {
  state.game = state.catalog.games.find((game) => game.name === name);
  state.seatChoices = [];
  for (const button of $("game-picker").children) button.setAttribute("aria-pressed", String(button.dataset.game === name));
  $("game-title").textContent = `${state.game.title || state.game.name}: the rules`;
  $("game-blurb").textContent = state.game.rules || "";
  renderOptions();
  $("created").hidden = true;
  return loadFacts();
}

// ---------------------------------------------------------------------------- create
function clockRequest() {
  const kind = $("clock-kind").value;
  if (kind === "none") return null;
  if (kind === "days") return { days: Number($("clock-days").value) };
  return { base: Number($("clock-base").value) * 60, increment: Number($("clock-increment").value) };
}

/** Show the fields of the chosen clock: Fischer's base and increment, or the days per move. */
function clockKindChanged() {
  const kind = $("clock-kind").value;
  $("clock-fields").hidden = kind !== "fischer";
  $("clock-days-field").hidden = kind !== "days";
}

async function create() {
  if (!state.facts) return;
  const choices = state.seatChoices;
  const mine = choices.filter((choice) => choice.kind === "me").length;
  const hotseat = mine >= 2 && $("hotseat").checked;
  const seats = choices.map((choice) => {
    if (choice.kind === "me" || choice.kind === "friend") return "human";
    if (choice.kind === "open") return "open";
    return { ai: agentOf(choice) };
  });
  if (hotseat && choices.some((choice) => choice.kind === "friend")) {
    showCreateError("in a hotseat game every person's seat is played on this device: make the friends' seats 'me', 'AI' or 'open'");
    return;
  }
  const request = { spec: state.factsSpec, seats, clock: clockRequest() };
  if (hotseat) request.hotseat = true;
  if (ratedRequested()) request.rated = true;
  $("create").disabled = true;
  try {
    const created = await createGame(request);
    $("create-error").hidden = true;
    showCreated(created, choices, hotseat);
    refreshGames();
  } catch (error) {
    showCreateError(error.message);
  } finally {
    $("create").disabled = false;
  }
}

function showCreateError(text) {
  $("create-error").hidden = false;
  $("create-error").textContent = text;
}

function linkRow(label, url) {
  const input = el("input", { type: "text", readonly: true, value: url, "aria-label": `link for ${label}` });
  const copy = el("button", { type: "button", class: "copy" }, "copy");
  copy.addEventListener("click", async () => {
    await copyText(url);
    copy.textContent = "copied";
    setTimeout(() => { copy.textContent = "copy"; }, 1500);
  });
  return el("div", { class: "link-row" }, el("span", { class: "seat-label" }, label), input, copy);
}

function showCreated(created, choices, hotseat) {
  const box = $("created");
  const rows = [];
  let myPage = null;
  created.seats.forEach((seat, index) => {
    if (seat.kind !== "human" || !seat.page) return;
    const kind = choices[index].kind;
    if (kind === "me") {
      myPage = myPage || seat.page;
      if (hotseat && rows.some((row) => row.dataset.hotseat)) return;
      const row = linkRow(hotseat ? "my seats" : `${seat.name} (me)`, seat.page);
      if (hotseat) row.dataset.hotseat = "1";
      rows.push(row);
    } else rows.push(linkRow(`${seat.name} (friend)`, seat.page));
  });
  rows.push(linkRow("watch", created.watch_page));
  const play = myPage ? el("a", { class: "button primary", href: myPage, id: "play" }, "play") : null;
  box.replaceChildren(el("h3", {}, `Game ${created.id}: ${created.spec}`),
    el("p", { class: "notice" }, "Send each friend their own link: whoever holds a seat link plays that seat."),
    ...rows, play);
  box.hidden = false;
}

// ---------------------------------------------------------------------------- games list
/** One seat of a listed game, as text and elements (never markup): the account holding it
 *  (a link to its profile, BOT for a bot, its rating in a rated game's pool; "?" while
 *  provisional), else its kind or AI. */
function seatText(seat) {
  const account = seat.account;
  if (!account) return [`${seat.name}: ${seat.kind === "ai" ? seat.agent : seat.kind}`];
  const rating = account.rating === undefined ? null
    : el("span", { class: "rating" }, ` (${account.rating}${account.provisional ? "?" : ""})`);
  return [`${seat.name}: `, el("span", { class: "player", "data-seat": String(seat.seat) },
    el("a", { href: profileUrl(account.username) }, account.username),
    account.bot ? el("span", { class: "bot-badge" }, "BOT") : null, rating)];
}

async function refreshGames() {
  let games;
  try {
    games = (await listGames(50)).games;
  } catch (error) {
    return;
  }
  if (!games.length) {
    $("games").replaceChildren(el("li", { class: "notice" }, "no games yet"));
    return;
  }
  $("games").replaceChildren(...games.map((game) => {
    const over = game.status !== "active";
    const who = game.seats.flatMap((seat, index) => [...(index ? [", "] : []), ...seatText(seat)]);
    const updated = game.updated ? new Date(game.updated + (game.updated.endsWith("Z") ? "" : "Z")) : null;
    const result = game.result || null;       // a finished game's: winners, scores, words
    return el("li", { "data-game": game.id, "data-status": game.status },
      el("span", { class: "game-spec" }, game.spec),
      el("span", { class: "status-tag" + (over ? " over" : "") }, game.status),
      result ? el("span", { class: "game-result", "data-winners": (result.winners || []).join(","),
        "data-draw": String(Boolean(result.draw)) }, result.summary || "") : null,
      el("span", { class: "game-meta" }, ...who, `${game.rated ? ` · rated (${game.pool})` : ""} · ${game.version} moves` +
        (updated && !Number.isNaN(updated.getTime()) ? ` · ${updated.toLocaleString()}` : "")),
      el("a", { href: `/game/${encodeURIComponent(game.id)}` }, over ? "replay" : "watch"));
  }));
}

// ---------------------------------------------------------------------------- start
async function start() {
  try {
    state.catalog = await getCatalog();
  } catch (error) {
    $("game-blurb").textContent = `the catalog cannot be loaded: ${error.message}`;
    return;
  }
  const datalist = el("datalist", { id: "agent-names" },
    ...(state.catalog.agents || []).map((agent) => el("option", { value: agent.name }, agent.description || "")));
  document.body.append(datalist);
  $("game-picker").replaceChildren(...state.catalog.games.map((game) =>
    el("button", { type: "button", "data-game": game.name, "aria-pressed": "false", onclick: () => pickGame(game.name) },
      game.title || game.name)));
  $("options-form").addEventListener("input", specChanged);
  $("options-form").addEventListener("change", specChanged);
  $("options-form").addEventListener("submit", (event) => event.preventDefault());
  $("clock-kind").addEventListener("change", clockKindChanged);
  $("create").addEventListener("click", create);
  startMyGames();
  startAccountsLobby(() => ({ spec: state.factsSpec, valid: Boolean(state.facts), clock: clockRequest() }), state.catalog);
  await Promise.all([pickGame(state.catalog.games[0].name), refreshGames()]);
  performance.mark("boardlab:lobby-ready");     // the form and the games list are drawn
  setInterval(refreshGames, 4000);
}

start();
