#!/bin/bash
# RADAU vs DSTIFF at equal scd by callgrind instruction counts (stable
# where wall and CPU times are not): every (problem, solver, rtol) of
# bench_radau runs once under callgrind, counting only radau_bench_run;
# the counts go to bench/results/radau_callgrind.txt and bench_radau
# --ratios prints the equal-scd ratios (no extrapolation).
#
# With SOLVER BASE (e.g. MSTIFF VSTIFF) the same for that pair, into
# bench/results/SOLVER_BASE_callgrind.txt (lower case). RADAU5, RADAU9 and
# RADAU13 are RADAU at that fixed order (radau_order), RADAU its automatic
# order: `RADAU RADAU5` measures the order selection. The measured solver
# runs rtol 1e-4 .. 1e-12, the base down to 1e-14 to cover its accuracy.
#
# Usage: bash bench/radau_callgrind.sh BUILD_DIR [SOLVER BASE]
#        (BUILD_DIR configured with -DHYDAE_BENCH=ON)
set -euo pipefail
build=${1:?usage: radau_callgrind.sh BUILD_DIR [SOLVER BASE]}
solver_a=${2:-RADAU}
solver_b=${3:-DSTIFF}
bin=$build/bench/bench_radau
out=$(dirname "$0")/results/radau_callgrind.txt
if [ "$solver_a/$solver_b" != RADAU/DSTIFF ]; then
  out=$(dirname "$0")/results/$(echo "${solver_a}_$solver_b" | tr A-Z a-z)_callgrind.txt
fi
: > "$out"
for problem in ROBER HIRES OREGO E5 E5I; do
  for solver in $solver_b $solver_a; do
    rtols="1e-4 1e-5 1e-6 1e-7 1e-8 1e-9 1e-10 1e-11 1e-12"
    [ $solver = $solver_b ] && rtols="$rtols 1e-13 1e-14"
    for rtol in $rtols; do
      log=$(valgrind --tool=callgrind --callgrind-out-file=/dev/null \
              --toggle-collect=radau_bench_run "$bin" --one $problem $solver $rtol 2>&1)
      line=$(echo "$log" | grep -v '^==' | tail -1)
      ir=$(echo "$log" | sed -n 's/.*Collected : \([0-9]*\).*/\1/p')
      echo "$line $ir" | tee -a "$out"
    done
  done
done
"$bin" --ratios "$out" "$solver_a" "$solver_b"
