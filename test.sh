#!/usr/bin/env bash
# Install everything (first time: Python packages into .venv and, as root, the Debian
# packages the tests use), lint (ruff and mypy: scripts/lint.sh) and run the whole test suite,
# browser tests included, on 3 processes (on 2 cores too: the server, browser and soak tests
# spend much of their time waiting).
# Extra arguments go to pytest, e.g.  ./test.sh -k carteso
set -euo pipefail
cd "$(dirname "$0")"
bash scripts/system-packages.sh
bash scripts/setup-env.sh "[test]"
bash scripts/lint.sh || { echo "test.sh: lint failed (see above); the tests did not run" >&2; exit 1; }
# the engines changed since the install are compiled once here, not in every test process
.venv/bin/python -m boardlab.warmup || echo "test.sh: the warm-up failed (see above)" >&2
exec .venv/bin/python -m pytest -n 3 --dist loadgroup -q "$@" tests
