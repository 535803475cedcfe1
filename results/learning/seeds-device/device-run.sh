#!/bin/bash
# device run: train the Carteso/Rumbo 9x9 recipe from the shipped samples with several seeds on
# the GPU, then duel every network against mcts(iterations=200) on the 16 cores.
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
[ -n "$LOCAL" ] || python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1 NUMBA_CACHE_DIR=/tmp/nc OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1
W=/tmp/w; R=$OUT/r; mkdir -p $W $R
el "start"; nproc; command -v nvidia-smi && nvidia-smi -L; python3 -c "import torch,numba,numpy;print(torch.__version__,numba.__version__,numpy.__version__,torch.cuda.is_available())"
git log -1 --format='%H %cI' 2>/dev/null
(python3 -c "from boardlab.warmup import warm_game; warm_game('carteso(size=9)')" > $R/warm-c.txt 2>&1 &)
(python3 -c "from boardlab.warmup import warm_game; warm_game('rumbo(size=9)')" > $R/warm-r.txt 2>&1 &)
CS=${CS:-"26300 26301 26302 26303 26304 26305 26306 26307"}; RS=${RS-"26310 26311 26312 26313"}; EP=${EP:-2}; NG=${NG:-60}
for s in $CS; do mkdir -p $W/c$s; cp .dev/c9-data.npz $W/c$s/data-000.npz
  python3 -m boardlab.cli train "carteso(size=9)" --out $W/c$s --generations 1 --games 1000 --expert "mcts(iterations=800)" --value-target search --epochs $EP --holdout 0.1 --workers 1 --seed $s > $R/train-c$s.txt 2>&1 & done
for s in $RS; do mkdir -p $W/r$s; cp .dev/r9-data.npz $W/r$s/data-000.npz
  python3 -m boardlab.cli train "rumbo(size=9)" --out $W/r$s --generations 1 --games 1000 --expert "mcts(iterations=800)" --value-target search --epochs $EP --holdout 0.1 --workers 1 --seed $s > $R/train-r$s.txt 2>&1 & done
wait; el "trained"; ls -la $W/*/net.npz; command -v nvidia-smi && nvidia-smi --query-gpu=memory.used --format=csv
cp .dev/c9-shipped.npz $W/c-shipped.npz; cp .dev/r9-shipped.npz $W/r-shipped.npz
duel() { # game net tag
  timeout $((440 - $(date +%s) + T0)) python3 -m boardlab.cli duel "$1" "mcts(evaluator=net,net=$2,priors=false,mix=0.5,iterations=200)" "mcts(iterations=200)" --games $NG --seed 47000 > $R/duel-$3.txt 2>&1; }
for s in $CS; do duel "carteso(size=9)" $W/c$s/net.npz c$s & done
duel "carteso(size=9)" $W/c-shipped.npz c-shipped &
for s in $RS; do duel "rumbo(size=9)" $W/r$s/net.npz r$s & done
duel "rumbo(size=9)" $W/r-shipped.npz r-shipped &
wait; el "duels ended"
for f in $R/duel-*.txt; do echo "$f: $(grep -c games $f) $(tail -1 $f)"; done
mkdir -p /tmp/nets; for d in $W/c* $W/r*; do [ -f $d/net.npz ] && cp $d/net.npz /tmp/nets/$(basename $d).npz; cp $d/log.jsonl /tmp/nets/$(basename $d).jsonl 2>/dev/null; done
tar czf $OUT/results.tgz -C $OUT r -C /tmp nets; rm -rf $R; el "done"
