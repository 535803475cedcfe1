#!/usr/bin/env bash
# Install everything (first time) and start boardlab.
# With no arguments: the web app on http://127.0.0.1:8000/ (games kept in the SQLite file
# boardlab-server.db here); it prints the URL to open. Ctrl-C stops it.
# Otherwise the arguments go to the boardlab command, e.g.  ./run.sh play rumbo --size 7
# (a game in this terminal) or  ./run.sh serve --port 8080
# Paths in the arguments (--save, --agents-from, records) are relative to where you are.
set -euo pipefail
here="$(CDPATH= cd -- "$(dirname -- "$0")" >/dev/null && pwd)"
bash "$here/scripts/setup-env.sh"
if [ $# -eq 0 ]; then
  set -- serve
fi
exec "$here/.venv/bin/boardlab" "$@"
