#!/usr/bin/env bash
# Lint: ruff on every Python file, then mypy on the modules [tool.mypy] lists (both configured in
# pyproject.toml). Runs both, names each that failed, and exits non-zero if either did. Run by
# test.sh before the tests; alone:
#   bash scripts/lint.sh          (PYTHON=/path/to/python to use another environment)
set -uo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-.venv/bin/python}
failed=()
if ! "$PYTHON" -m ruff check --quiet --output-format concise .; then
  echo "lint: ruff found the problems above (see [tool.ruff] in pyproject.toml;" \
       "'$PYTHON -m ruff check --fix .' fixes the ones marked [*])" >&2
  failed+=(ruff)
fi
if ! "$PYTHON" -m mypy; then
  echo "lint: mypy found the type errors above (see [tool.mypy] in pyproject.toml)" >&2
  failed+=(mypy)
fi
if [ ${#failed[@]} -gt 0 ]; then
  echo "lint failed: ${failed[*]}" >&2
  exit 1
fi
