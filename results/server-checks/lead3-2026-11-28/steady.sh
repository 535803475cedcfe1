for i in 1 2; do for v in base main; do
  if [ $v = base ]; then P=/work/wt/base; else P=/work/main; fi
  cd /tmp && (PYTHONPATH=$P /work/main/.venv/bin/python -m boardlab soak load --games 200 --seconds 55 > /tmp/ab3-$v-$i.txt 2>&1 &)
  sleep 2
  while ! pgrep -f "checks.soak serve" >/dev/null; do sleep 0.5; done
  sleep 20
  pid=$(pgrep -f "checks.soak serve")
  perf stat -e instructions:u,instructions:k,cycles,task-clock -p $pid -o /tmp/ab3-$v-$i.perf -- sleep 25
  while pgrep -f "boardlab soak load" >/dev/null; do sleep 1; done
  echo "$v $i $(grep -h actions_per_second /tmp/ab3-$v-$i.txt) $(grep -E 'instructions|task-clock' /tmp/ab3-$v-$i.perf | awk '{printf "%s %s; ", $1, $2}')" >> /tmp/ab3.log
done; done
echo done >> /tmp/ab3.log
