#!/usr/bin/env bash
# The agents' strength runs (issue 5): 200 games each, seats alternating, 95% intervals.
#
#   scripts/strength.sh list          print the runs
#   scripts/strength.sh NAME [...]    play the named runs (records and summary in
#                                     strength-runs/NAME/, NAME.txt); JOBS=2 by default;
#                                     a run whose folder exists is resumed
#   scripts/strength.sh report NAME   the summary of a run's records so far (plays nothing;
#                                     fine while the run is playing)
#   scripts/strength.sh save NAME     pack the run's records into results/strength/NAME.tar.gz,
#                                     a file to commit: a run that a session could not finish
#                                     is unpacked from it and resumed by the next one, and the
#                                     figures in docs/agents.md can be checked against it
#
# Each run takes from ten minutes to a few hours on two cores; none is part of the tests.
set -euo pipefail
cd "$(dirname "$0")/.."
JOBS=${JOBS:-2}
GAMES=${GAMES:-200}
OUT=${OUT:-strength-runs}
declare -A RUNS=(
  [carteso9-random]='carteso(size=9)|mcts(time=1)|random|912'
  [carteso9-greedy]='carteso(size=9)|mcts(time=1)|greedy|900'
  [carteso9-scaling]='carteso(size=9)|mcts(time=1)|mcts(time=0.1)|915'
  [rumbo9-random]='rumbo(size=9)|mcts(time=1)|random|914'
  [rumbo9-greedy]='rumbo(size=9)|mcts(time=1)|greedy|913'
  [cartagena-random]='cartagena|mcts(time=1)|random|910'
  [cartagena-greedy]='cartagena|mcts(time=1)|greedy|911'
  [cartagena-ismcts]='cartagena|ismcts(time=0.2)|mcts(time=0.2)|920'
  [cartagena-ismcts-1s]='cartagena|ismcts(time=1)|mcts(time=1)|921'
  [cartagena-ismcts-1s-b]='cartagena|ismcts(time=1)|mcts(time=1)|922'   # the same, fresh seeds
  [cartagena-ismcts-det8]='cartagena|ismcts(time=0.2)|mcts(time=0.2,determinizations=8)|5401'
  [cartagena-ismcts-reuse-x]='cartagena|ismcts(time=0.2,reuse=true)|mcts(time=0.2)|5501'  # exploratory
  [cartagena-ismcts-reuse]='cartagena|ismcts(time=0.2,reuse=true)|mcts(time=0.2)|924'    # confirms it
  [cartagena-ismcts-reuse-1s]='cartagena|ismcts(time=1,reuse=true)|mcts(time=1)|925'
  [ctor8-random]='ctor(size=8)|mcts(time=1)|random|916'
  [ctor8-greedy]='ctor(size=8)|mcts(time=1)|greedy|917'
)
if [ $# -eq 0 ] || [ "$1" = list ]; then
  for name in $(printf '%s\n' "${!RUNS[@]}" | sort); do
    IFS='|' read -r spec a b seed <<<"${RUNS[$name]}"
    echo "$name: boardlab match '$spec' '$a' '$b' --games $GAMES --seed $seed --deals duplicate"
  done
  exit 0
fi
mode=play
case "$1" in report|save) mode=$1; shift ;; esac
for name in "$@"; do
  if [ -z "${RUNS[$name]:-}" ]; then
    echo "unknown run '$name' (scripts/strength.sh list shows them)" >&2
    exit 2
  fi
done
ARCHIVE=${ARCHIVE:-results/strength}
mkdir -p "$OUT"
if [ "$mode" = save ]; then
  mkdir -p "$ARCHIVE"
  for name in "$@"; do
    if ! ls "$OUT/$name"/game-*.json >/dev/null 2>&1; then
      echo "no records in $OUT/$name to save" >&2
      exit 1
    fi
    # records only (not the match's lock); sorted names and fixed metadata, so that the
    # same records always pack into the same bytes
    (cd "$OUT" && find "$name" -name 'game-*.json' | sort |
      tar -c --no-recursion --owner=0 --group=0 --numeric-owner --mtime=@0 -T - |
      gzip -n -9) > "$ARCHIVE/$name.tar.gz"
    echo "$ARCHIVE/$name.tar.gz: $(ls "$OUT/$name"/game-*.json | wc -l) records" >&2
  done
  exit 0
fi
bash scripts/setup-env.sh
for name in "$@"; do
  IFS='|' read -r spec a b seed <<<"${RUNS[$name]}"
  if [ ! -d "$OUT/$name" ] && [ -f "$ARCHIVE/$name.tar.gz" ]; then
    echo "== $name: unpacking the records saved in $ARCHIVE/$name.tar.gz" >&2
    tar -xzf "$ARCHIVE/$name.tar.gz" -C "$OUT"
  fi
  if [ "$mode" = report ]; then
    .venv/bin/boardlab match "$spec" "$a" "$b" --games "$GAMES" --seed "$seed" --deals duplicate \
      --out "$OUT/$name" --report
    continue
  fi
  resume=()
  if [ -d "$OUT/$name" ]; then resume=(--resume); fi     # an interrupted run goes on
  echo "== $name: $spec, $a against $b, $GAMES games ${resume[*]}" >&2
  .venv/bin/boardlab match "$spec" "$a" "$b" --games "$GAMES" --jobs "$JOBS" --seed "$seed" --deals duplicate \
    --out "$OUT/$name" "${resume[@]}" | tee "$OUT/$name.txt"
done
