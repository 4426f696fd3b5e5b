#!/bin/bash
# RK45 before and after issue 17 on PLEIADES: CPU at equal scd, medians of
# interleaved repetitions (bench/rk45_cpu.c). Builds the commit before
# issue 17's RK45 changes (7e47d64, the parent of d145add) in a temporary
# worktree, compiles rk45_cpu.c against it and against BUILD_DIR (this
# tree's bench build), runs the old curve at rtol 1e-3 .. 1e-12 and the
# new one at 1e-4, 1e-6, 1e-8, 1e-10, REPS times interleaved, and writes
# bench/results/rk45_before_after.txt.
#
# Usage: bash bench/rk45_before_after.sh BUILD_DIR [REPS] [MIN_TIME]
#        (BUILD_DIR configured with -DHYDAE_BENCH=ON, bench_explicit built)
set -euo pipefail
build=$(cd "${1:?usage: rk45_before_after.sh BUILD_DIR [REPS] [MIN_TIME]}" && pwd)
reps=${2:-11}
min_time=${3:-0.3}
root=$(cd "$(dirname "$0")/.." && pwd)
out=$root/bench/results/rk45_before_after.txt
work=$(mktemp -d)
old_tree=$work/old
trap 'git -C "$root" worktree remove --force "$old_tree" 2>/dev/null; rm -rf "$work"' EXIT
git -C "$root" worktree add --detach "$old_tree" d145add~1 >/dev/null 2>&1
cmake -S "$old_tree" -B "$old_tree/build" -DCMAKE_BUILD_TYPE=Release \
  -DHYDAE_BENCH=ON >/dev/null
cmake --build "$old_tree/build" -j2 --target hydae_bench_common >/dev/null
# The link line of a bench program (libraries after libhydae.a).
libs=$(sed 's/.*libhydae\.a//' "$build/bench/CMakeFiles/bench_explicit.dir/link.txt")
compile() {  # TREE BUILD OUT
  cc -O3 -DNDEBUG -std=c11 -I"$1/include" -I"$1/src" -I"$1/bench" \
    "$root/bench/rk45_cpu.c" "$1/bench/nonstiff.c" -o "$3" \
    "$2/bench/libhydae_bench_common.a" "$2/libhydae.a" $libs
}
compile "$old_tree" "$old_tree/build" "$work/rk45_old"
compile "$root" "$build" "$work/rk45_new"
runs=$work/runs.txt
for _ in $(seq "$reps"); do
  "$work/rk45_old" "$min_time" 1e-3 1e-4 1e-5 1e-6 1e-7 1e-8 1e-9 1e-10 1e-11 1e-12 \
    | sed 's/^/old /' >> "$runs"
  "$work/rk45_new" "$min_time" 1e-4 1e-6 1e-8 1e-10 | sed 's/^/new /' >> "$runs"
done
{
  echo "# RK45 on PLEIADES, $(git -C "$root" rev-parse --short HEAD) vs d145add~1, $reps interleaved repetitions of >= $min_time s"
  "$work/rk45_new" --ratios "$runs"
  echo "# runs: old|new rtol scd f CPU[us]"
  cat "$runs"
} > "$out"
head -7 "$out"
