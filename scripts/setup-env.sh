#!/usr/bin/env bash
# Create .venv (if needed) and install boardlab into it; $1 = pip extras, e.g. "[test]".
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
if ! "$PYTHON" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
  echo "boardlab needs Python 3.11 or newer (set PYTHON=/path/to/python3.11)" >&2
  exit 1
fi
if [ ! -x .venv/bin/python ]; then
  echo "creating .venv ..." >&2
  "$PYTHON" -m venv .venv
fi
stamp=".venv/.installed${1:-}"
if [ ! -f "$stamp" ] || [ pyproject.toml -nt "$stamp" ]; then
  echo "installing boardlab${1:-} and its dependencies into .venv ..." >&2
  .venv/bin/python -m pip install --quiet --disable-pip-version-check -e ".${1:-}"
  .venv/bin/python -m boardlab.warmup       # compile the game engines once, not at first use
  touch "$stamp"
fi
# The browser tests' accessibility checker (axe-core, an npm package) into
# tests/browser/node_modules (ignored by git), from its lock file; without npm the
# accessibility tests skip.
if [[ "${1:-}" == *test* ]]; then
  axe=tests/browser/node_modules/axe-core/axe.min.js
  if [ ! -f "$axe" ] || [ tests/browser/package-lock.json -nt "$axe" ]; then
    if command -v npm >/dev/null; then
      echo "installing axe-core into tests/browser/node_modules ..." >&2
      npm ci --prefix tests/browser --no-audit --no-fund --silent || \
        echo "setup-env: npm could not install axe-core: the accessibility tests will skip" >&2
    else
      echo "setup-env: no npm: the accessibility tests will skip (apt-get install npm)" >&2
    fi
  fi
fi
