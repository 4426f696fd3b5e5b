#!/usr/bin/env bash
# `hydae plot` of a CSV with many distinct mode labels (issue 13, D11: the
# labels were looked up linearly, 20,000 labels took 2.35 s and 200,000
# more than 120 s). Writes a CSV of N rows, each with a new mode name, and
# times `hydae plot` of it to /dev/null (best of 3), beside the same rows
# with one mode name throughout: the difference is the cost of the labels
# (their lookup, and the SVG's one band per label):
#     bash bench/plot_labels.sh [PATH_TO_HYDAE] [N ...]
# Default: build/hydae, N = 20000 200000.
set -euo pipefail
hydae=${1:-build/hydae}
shift || true
sizes=("$@")
[ ${#sizes[@]} -eq 0 ] && sizes=(20000 200000)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# time_plot FILE: the best of 3 wall times of `hydae plot FILE`, in $best.
time_plot() {
    best=""
    for _ in 1 2 3; do
        start=$(date +%s.%N)
        "$hydae" plot "$1" -o /dev/null --quiet
        end=$(date +%s.%N)
        t=$(echo "$end - $start" | bc -l)
        if [ -z "$best" ] || [ "$(echo "$t < $best" | bc -l)" = 1 ]; then best=$t; fi
    done
}
for n in "${sizes[@]}"; do
    awk -v n="$n" 'BEGIN { print "time,x,mode(c)"; for (i = 0; i < n; i++) printf "%d,%d,m%d\n", i, i % 7, i }' >"$work/labels.csv"
    awk -v n="$n" 'BEGIN { print "time,x,mode(c)"; for (i = 0; i < n; i++) printf "%d,%d,m\n", i, i % 7 }' >"$work/one.csv"
    time_plot "$work/labels.csv"
    many=$best
    time_plot "$work/one.csv"
    printf "%7d rows: %7d labels %.3f s, one label %.3f s (hydae plot, best of 3)\n" "$n" "$n" \
        "$many" "$best"
done
