#!/usr/bin/env bash
# Issue 26's target runs, many games at once (a machine with many cores, e.g. the lent
# 16-core device machine): each run is a `boardlab duel` of JOBS games in parallel,
# stopped after LIMIT seconds, its output (a line per game) kept in OUT/NAME.txt.
#
#   scripts/target_runs.sh OUT LIMIT JOBS NAME 'SPEC|A|B|SEED' [NAME 'SPEC|A|B|SEED' ...]
#
# The kernels and the compiled search are compiled first (numba caches them on disk), so
# that no game's first move pays for it.
set -u
out=$1 limit=$2 jobs=$3
shift 3
PY=${PY:-python3}
export PYTHONPATH=${PYTHONPATH:-$PWD} PYTHONUNBUFFERED=1
mkdir -p "$out"
specs=()
args=("$@")
for ((i = 1; i < ${#args[@]}; i += 2)); do
  IFS='|' read -r spec _ _ _ <<<"${args[i]}"
  specs+=("$spec")
done
for spec in $(printf '%s\n' "${specs[@]}" | sort -u); do
  "$PY" - "$spec" <<'PY' &
import sys
import boardlab
from boardlab.agents import make_agent
game = boardlab.make(sys.argv[1])
for spec in ("mcts(iterations=40)", "mcts(iterations=40,compiled=false)"):
    state = game.new_initial_state(seed=1)
    for _ in range(6):
        seat = state.acting_seats()[0]
        state.apply(make_agent(spec, game, seat, seed=1).act(state.view(seat)), seat=seat)
print("warm:", game.spec, flush=True)
PY
done
wait
while [ $# -ge 2 ]; do
  name=$1
  IFS='|' read -r spec a b seed <<<"$2"
  shift 2
  {
    echo "\$ boardlab duel \"$spec\" \"$a\" \"$b\" --games 400 --jobs $jobs --seed $seed"
    echo "# from commit ${COMMIT:-$(git rev-parse --short HEAD 2>/dev/null || echo unknown)}, $(date -u +%FT%TZ), $(nproc) cores, $jobs games at a time, stopped after $limit s"
    timeout -k 10 "$limit" "$PY" -m boardlab.cli duel "$spec" "$a" "$b" --games 400 --jobs "$jobs" --seed "$seed" 2>&1
    echo "# ended $(date -u +%FT%TZ)"
  } > "$out/$name.txt" &
done
wait
