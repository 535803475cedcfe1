#!/usr/bin/env bash
# Install everything (first time) and run the whole test suite on 2 processes.
# Extra arguments go to pytest, e.g.  ./test.sh -k carteso
set -euo pipefail
cd "$(dirname "$0")"
bash scripts/setup-env.sh "[test]"
exec .venv/bin/python -m pytest -n 2 -q "$@" tests
