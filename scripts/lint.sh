#!/usr/bin/env bash
# Lint: ruff on every Python file, then mypy on the modules [tool.mypy] lists (both configured in
# pyproject.toml). Stops at the first that fails, naming it. Run by test.sh; alone:
#   bash scripts/lint.sh          (PYTHON=/path/to/python to use another environment)
set -uo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-.venv/bin/python}
if ! "$PYTHON" -m ruff check --quiet .; then
  echo "lint: ruff found the problems above (see [tool.ruff] in pyproject.toml;" \
       "'$PYTHON -m ruff check --fix .' fixes the ones marked [*])" >&2
  exit 1
fi
if ! "$PYTHON" -m mypy; then
  echo "lint: mypy found the type errors above (see [tool.mypy] in pyproject.toml)" >&2
  exit 1
fi
