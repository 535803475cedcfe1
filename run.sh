#!/usr/bin/env bash
# Install everything (first time) and start boardlab.
# With no arguments: play Carteso 9x9 against the random agent in this terminal.
# Otherwise the arguments go to the boardlab command, e.g.  ./run.sh play rumbo --size 7
# Paths in the arguments (--save, --agents-from, records) are relative to where you are.
set -euo pipefail
here="$(CDPATH= cd -- "$(dirname -- "$0")" >/dev/null && pwd)"
bash "$here/scripts/setup-env.sh"
if [ $# -eq 0 ]; then
  set -- play carteso --size 9 --vs random
fi
exec "$here/.venv/bin/boardlab" "$@"
