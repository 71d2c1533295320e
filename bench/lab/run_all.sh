#!/usr/bin/env bash
# Runs the named labs (default: every bench/lab/*.py but lab.py) one after another on the GPU machine,
# each under a time limit, its output in $OUT/lab-<name>.log and its rows in $OUT/lab-<name>.json.
cd "$(dirname "$0")"
labs=("$@")
[ ${#labs[@]} -eq 0 ] && labs=($(ls *.py | grep -v '^lab.py$' | sed 's/\.py$//'))
for lab in "${labs[@]}"; do
  start=$(date +%s)
  PYTHONUNBUFFERED=1 timeout ${LAB_TIMEOUT_S:-150} python3 "$lab.py" > "${OUT:-/tmp}/lab-$lab.log" 2>&1
  echo "$lab: exit $? in $(( $(date +%s) - start )) s"
done
