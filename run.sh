#!/usr/bin/env bash
# Install everything (first time) and start boardlab.
# With no arguments: play Carteso 9x9 against the random agent in this terminal.
# Otherwise the arguments go to the boardlab command, e.g.  ./run.sh play rumbo --size 7
set -euo pipefail
cd "$(dirname "$0")"
bash scripts/setup-env.sh
if [ $# -eq 0 ]; then
  set -- play carteso --size 9 --vs random
fi
exec .venv/bin/boardlab "$@"
