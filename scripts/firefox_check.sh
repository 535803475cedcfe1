#!/usr/bin/env bash
# A manual check that the web app works in Firefox (the browser tests drive Chromium):
# starts `boardlab serve` on a throw-away database, then plays a game of each of the four
# games to the end by clicking, in Firefox ESR through puppeteer-core (WebDriver BiDi, no
# geckodriver). Needs Debian's firefox-esr and node/npm (puppeteer-core goes into a temporary
# folder; it downloads no browser). Screenshots land in $SHOTS (default /tmp/boardlab-firefox).
set -euo pipefail
here="$(CDPATH= cd -- "$(dirname -- "$0")/.." >/dev/null && pwd)"
work="$(mktemp -d)"; export SHOTS="${SHOTS:-/tmp/boardlab-firefox}"; mkdir -p "$SHOTS"
trap 'kill "$server" 2>/dev/null || true; rm -rf "$work"' EXIT
(cd "$work" && npm init -y >/dev/null && npm install --silent puppeteer-core@23 >/dev/null)
"$here/.venv/bin/boardlab" serve --port 0 --db "$work/firefox.db" > "$work/serve.txt" &
server=$!
until grep -q "open http" "$work/serve.txt" 2>/dev/null; do sleep 0.2; done
url="$(grep -o 'http://[^ ]*' "$work/serve.txt" | head -1)"
cp "$here/scripts/firefox_check.mjs" "$work/"
for spec in "carteso(size=5)" "rumbo(size=5)" "cartagena(tokens=2,symbols=3,spaces_per_symbol=2,max_turns=40)" "ctor(size=8,max_turns=6)"; do
  printf '%s: ' "$spec"
  (cd "$work" && node firefox_check.mjs "$url" "$spec")
done
