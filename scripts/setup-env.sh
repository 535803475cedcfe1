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
