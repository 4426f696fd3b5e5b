#!/bin/bash
# The crossover of linsol.c's automatic choice between band and KLU
# (issue 12): instruction counts (callgrind; wall times on the shared
# 2-core machine are not stable) of one refactorisation and of one solve,
# band LU against KLU, on banded shapes over the bandwidth w and n:
#   kind 0  1-D reaction-diffusion, w species interleaved (k + 2 a column)
#   kind 1  the same, only the first species diffuses (Medical Akzo: w = 2)
#   kind 2  a full band, ml = mu = w
# Usage: bash bench/rule.sh BUILD_DIR [OUT.csv]   (needs valgrind and a
# build with -DHYDAE_BENCH=ON; about 7 minutes). Columns: kind, n, w, nnz,
# and instructions per factorisation and per solve of each solver.
set -e
build=${1:?usage: rule.sh BUILD_DIR [OUT.csv]}
out=${2:-/dev/stdout}
bench="$build/bench/bench_linsol"
rounds=2 solves=5
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
count() { # solver kind n w op -> instructions per operation
    valgrind --tool=callgrind --collect-atstart=no --callgrind-out-file="$tmp/cg" \
        "$bench" rule "$1" "$2" "$3" "$4" $rounds $solves "$5" > "$tmp/line" 2>/dev/null
    local total
    total=$(sed -n 's/^summary: //p; s/^totals: //p' "$tmp/cg" | head -1)
    if [ "$5" = factor ]; then echo $((total / rounds)); else echo $((total / (rounds * solves))); fi
}
echo "kind,n,w,nnz,band_factor,band_solve,klu_factor,klu_solve" > "$out"
for n in 400 4000 40000; do
    for kw in "0 1" "0 2" "0 3" "0 4" "0 6" "0 8" "0 12" "0 16" \
              "1 2" "1 3" "1 4" "1 6" "1 8" \
              "2 1" "2 2" "2 4" "2 8" "2 16" "2 32"; do
        set -- $kw
        kind=$1 w=$2
        bf=$(count band $kind $n $w factor)
        bs=$(count band $kind $n $w solve)
        kf=$(count klu $kind $n $w factor)
        ks=$(count klu $kind $n $w solve)
        nnz=$(sed -n 's/.* nnz \([0-9]*\) .*/\1/p' "$tmp/line")
        echo "$kind,$n,$w,$nnz,$bf,$bs,$kf,$ks" >> "$out"
    done
done
