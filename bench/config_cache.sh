#!/bin/bash
# The configuration cache's symbolic work (issue 15): instruction counts
# (callgrind; wall times on the shared 2-core machine are not stable) of
# bench/thermostat_rod.hym, a rod of 1000 points whose heater switches 20
# times between two configurations, with KLU. Prints the run's total, the
# part spent entering configurations after events (settle_after_event:
# building the configuration, consistent initialisation, the integrator's
# restart) and the KLU analyses in it, with the run's colourings and
# analyses from --stats. Usage: bash bench/config_cache.sh [HYDAE_BINARY]
# (default build/hydae; about 30 s).
set -e
hydae=${1:-build/hydae}
model="$(dirname "$0")/thermostat_rod.hym"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
valgrind --tool=callgrind --callgrind-out-file="$tmp/cg" "$hydae" run "$model" \
    -o "$tmp/out.csv" --linear_solver klu --vars 'T[1]' --quiet 2> "$tmp/valgrind.log"
"$hydae" run "$model" -o "$tmp/out.csv" --linear_solver klu --vars 'T[1]' --stats 2>&1 \
    | grep -E "mode switches|configurations entered|cache hits|colourings|analyses" || true
callgrind_annotate --inclusive=yes --threshold=100 "$tmp/cg" 2> /dev/null \
    | grep -E "PROGRAM TOTALS|:(hydae_sim_run|settle_after_event|klu_l_analyze) " \
    | sed 's/ *\[.*//'
