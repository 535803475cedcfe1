#!/usr/bin/env bash
# The Ray cluster tests (tests/ray): a head and a worker node started on this machine, on
# 127.0.0.1 only; a tournament spread over both, the `tournament --ray ADDRESS` command, and
# a node killed mid-tournament; `boardlab train`'s self-play over both (the same samples as
# local processes, `train --ray ADDRESS`) and a node killed mid-self-play. The default
# suite skips them (each cluster takes ten seconds or more to start); .ci/run runs this
# after test.sh. Extra arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
BOARDLAB_RAY_CLUSTER=1 exec .venv/bin/python -m pytest -q -p no:cacheprovider tests/ray "$@"
