#!/usr/bin/env bash
# RADAU with the dense, band and KLU solvers (its complex stage systems
# through zlinsol.h: complex dense, complex band on the reverse
# Cuthill-McKee ordering, KLU's complex LU) gives the same trajectory on
# the Brusselator of examples/brusselator.hym (u and v numbered apart, so
# the band is M wide until reordered): every value at every output time
# within 1e-9 relative (the factorisations differ in rounding only; the
# tolerance is 1e-6), and the same number of steps. M = 100 with all three
# solvers, M = 500 band against KLU (dense takes minutes there). Usage:
# cli_radau_linsol.sh PATH_TO_HYDAE
set -u
hydae=$1
here=$(cd "$(dirname "$0")/.." && pwd)
. "$here/tests/lib/check.sh"

# The largest |a - b| / (|a| + 1e-6) over two CSVs of the same shape.
largest_difference() {
    paste -d, "$1" "$2" | awk -F, 'NR > 1 { n = NF / 2; for (i = 2; i <= n; i++) {
        d = $i - $(i + n); if (d < 0) d = -d; s = ($i < 0 ? -$i : $i) + 1e-6;
        if (d / s > w) w = d / s } } END { printf "%.3g\n", w + 0 }'
}
steps_of() { sed -n 's/^ *"steps": \([0-9]*\),.*/\1/p' "$1"; }

# KLU is optional at build time: without it the klu runs are skipped.
have_klu=1
"$hydae" run --example bouncing_ball --linear_solver klu -o /dev/null >/dev/null 2>klu.err \
    || { grep -q "without SuiteSparse KLU" klu.err && have_klu=0; }
for m in 100 500; do
    sed "s/M = 100;/M = $m;/" "$here/examples/brusselator.hym" >b$m.hym
    solvers="band"
    [ "$m" = 100 ] && solvers="dense band"
    [ $have_klu = 1 ] && solvers="$solvers klu"
    for ls in $solvers; do
        check "M = $m, RADAU with linear_solver $ls runs" \
            test "$(status_of "$hydae" run b$m.hym --solver RADAU --linear_solver $ls \
                    -o $ls$m.csv --stats-json $ls$m.json)" = 0
    done
done
pairs="dense100 band100"
[ $have_klu = 1 ] && pairs="$pairs dense100 klu100 band500 klu500"
set -- $pairs
while [ $# -ge 2 ]; do
    diff=$(largest_difference "$1.csv" "$2.csv")
    check "$2 against $1: largest relative difference $diff <= 1e-9" \
        awk -v d="$diff" 'BEGIN { exit !(d <= 1e-9) }'
    check "$2 against $1: the same steps ($(steps_of "$1.json"), $(steps_of "$2.json"))" \
        test -n "$(steps_of "$1.json")" -a "$(steps_of "$1.json")" = "$(steps_of "$2.json")"
    shift 2
done
finish
