#!/bin/bash
# Issue 29's load test: the README's test command three times in a row, each from a fresh clone
# of REPO (default: this checkout), while bench/load/burner.py keeps the load around 8.
#   bash bench/load/runs.sh [REPO] [WORKDIR]   -> WORKDIR/runs.log, WORKDIR/run<N>.out
repo=$(cd "${1:-$(dirname "$0")/../..}" && pwd)
work=${2:-/tmp/streamlint-load}
mkdir -p "$work" && cd "$work" || exit 2
python3 "$repo/bench/load/burner.py" 8 "$work/load.log" & burner=$!
trap 'kill $burner' EXIT
for i in 1 2 3; do
  rm -rf "fresh$i"; git clone -q "$repo" "fresh$i"; cd "fresh$i" || exit 2
  cmd=$(bash .ci/readme-test-command)
  start=$(date +%s)
  echo "run $i start $(date +%T) load $(cut -d' ' -f1-3 /proc/loadavg) commit $(git log --oneline -1 | cut -c1-7)" >> ../runs.log
  bash -c "$cmd" > "../run$i.out" 2>&1; rc=$?
  echo "run $i rc=$rc $(( $(date +%s) - start ))s end $(date +%T) load $(cut -d' ' -f1-3 /proc/loadavg) :: $(tail -1 "../run$i.out")" >> ../runs.log
  cd .. && rm -rf "fresh$i"
done
