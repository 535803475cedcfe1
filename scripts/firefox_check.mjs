// A game played to the end by clicking, in Firefox (puppeteer-core over WebDriver BiDi).
// Run it through scripts/firefox_check.sh: node scripts/firefox_check.mjs BASE_URL SPEC
import puppeteer from "puppeteer-core";
const base = process.argv[2];
const browser = await puppeteer.launch({ browser: "firefox", executablePath: process.env.FIREFOX || "/usr/bin/firefox-esr", headless: true,
  args: ["--width=1280", "--height=800"] });
const t0 = Date.now();
const page = await browser.newPage();
await page.setViewport({ width: 1280, height: 800 });
await page.goto(base, { waitUntil: "load" });
await page.waitForSelector("#game-picker button[data-game]");
await page.screenshot({ path: process.env.SHOTS + "/firefox-lobby.png" });
const created = await (await fetch(base + "api/games", { method: "POST", headers: { "content-type": "application/json" },
  body: JSON.stringify({ spec: process.argv[3], seats: ["human", { ai: "random" }], seed: 3 }) })).json();
await page.goto(created.seats[0].page, { waitUntil: "load" });
await page.waitForFunction(() => window.boardlab && window.boardlab.view);
let moves = 0;
for (let i = 0; i < 400; i++) {
  const done = await page.evaluate(() => window.boardlab.view.terminal);
  if (done) break;
  await page.waitForFunction(() => window.boardlab.view.terminal || window.boardlab.view.legal.length > 0, { timeout: 30000 });
  const info = await page.evaluate(() => {
    const v = window.boardlab.view; if (v.terminal) return null;
    const legal = v.legal.filter((m) => !m.startsWith("side=") && m !== "pass");
    const move = legal.length ? legal[Math.floor(legal.length / 2)] : v.legal[0];
    return { move, picks: window.boardlab.picksFor(move), version: window.boardlab.version };
  });
  if (!info) break;
  if (info.picks && info.picks.length) {
    for (const p of info.picks) await page.click(`[data-pick-kind="${p.kind}"][data-pick="${p.value}"]`);
  } else {
    await page.click(`#buttons button[data-move="${info.move}"]`);
  }
  moves++;
  await page.waitForFunction((v) => window.boardlab.version > v, { timeout: 30000 }, info.version);
  if (i === 4) await page.screenshot({ path: process.env.SHOTS + "/firefox-mid.png" });
}
await page.waitForFunction(() => window.boardlab.view.terminal, { timeout: 60000 }).catch(() => {});
const result = await page.evaluate(() => { const r = document.querySelector("#result"); return r && !r.hidden ? r.textContent + " | winners=" + r.dataset.winners : "not over"; });
await page.screenshot({ path: process.env.SHOTS + "/firefox-end.png" });
const version = await browser.version();
console.log(JSON.stringify({ version, moves, result, seconds: (Date.now() - t0) / 1000 }));
await browser.close();
