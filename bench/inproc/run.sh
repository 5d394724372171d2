#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# create + exec + close on the fake backend, in-process through the public
# API (cycle.c): instructions per cycle counted by callgrind (repeatable on
# a noisy machine), and wall time per cycle over many cycles (the median
# of 5 runs). Nobody listening (no audit sink, callback or tracer), then
# with an audit callback (every event built, serialised and redacted).
# usage: bench/inproc/run.sh [BUILD_DIR]
# shellcheck source=../lib/common.sh
. "$(dirname "$0")/../lib/common.sh"
need valgrind
cc -O2 -Wall -Wextra -I"$src_root/core/include" -I"$build/include" "$bench_root/inproc/cycle.c" \
  -o "$scratch/cycle" -L"$build/lib" -lsandboxio -Wl,-rpath,"$build/lib"
counted=$(runs 2 20)
timed=$(runs 100 20000)
instructions() {
  valgrind --tool=callgrind --toggle-collect=sbio_bench_cycles --callgrind-out-file="$scratch/cg.out" \
    "$scratch/cycle" -n "$counted" "$@" 2>&1 >/dev/null | sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
}
wall_us() {
  for _ in 1 2 3 4 5; do "$scratch/cycle" -n "$timed" "$@"; done |
    /usr/bin/python3 -c 'import json,statistics,sys; print("%.2f" % statistics.median(json.loads(l)["us_per_cycle"] for l in sys.stdin))'
}
echo "| what | instructions per cycle (callgrind) | wall per cycle (median of 5 x $timed) |"
echo "|---|---|---|"
for mode in quiet listening; do
  args=()
  [ "$mode" = listening ] && args=(--audit-callback)
  total=$(instructions "${args[@]}")
  label="create + exec + close, fake, nobody listening"
  [ "$mode" = listening ] && label="create + exec + close, fake, an audit callback"
  echo "| $label | $((total / counted)) | $(wall_us "${args[@]}") us |"
done
