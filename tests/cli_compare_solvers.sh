#!/usr/bin/env bash
# `hydae converge --compare-solvers`: the work-precision table of every
# integrator that can run a model. On the Brusselator (an explicit ODE)
# every tolerance-controlled integrator is listed at 3 tolerances, each one's
# error falls as the tolerance is tightened, an error of the table agrees
# with one computed here from two `hydae run` CSVs, and the recommendation
# is the least CPU among the rows reaching --digits. On a DAE model the
# methods for explicit ODEs are skipped with the reason.
# Usage: cli_compare_solvers.sh PATH_TO_HYDAE
set -u
hydae=$1
here=$(cd "$(dirname "$0")/.." && pwd)
. "$here/tests/lib/check.sh"
model=$here/examples/brusselator.hym
span=(--tend 2 --dt 0.1)

check "compare-solvers on the Brusselator: exit 0" \
    test "$(status_of "$hydae" converge "$model" --compare-solvers "${span[@]}" \
            --channels 'u[1],v[1]' --digits 5)" = 0
cp "$work/out" table.txt
for solver in DSTIFF RK45 RK853 ABAM VSTIFF MSTIFF RADAU; do
    check "$solver has 3 rows (1e-4, 1e-6, 1e-8)" \
        test "$(awk -v s=$solver '$1 == s && $2 ~ /^1e-0[468]$/ && NF == 9' table.txt | wc -l)" = 3
    # Columns: solver tol cpu steps f-evals jacs lus error digits.
    check "$solver: error falls with the tolerance" \
        awk -v s=$solver '$1 == s && NF == 9 { e[n++] = $8 } END { exit !(n == 3 && e[1] < e[0] && e[2] < e[1]) }' table.txt
done
check "RK4 skipped with its reason" grep -q '^RK4 *skipped: a fixed step' table.txt

# The error of DSTIFF at 1e-6 computed from the CSVs of two runs: max over
# the channels of max|x - x_ref| / max|x_ref|, within 1% of the table's.
"$hydae" run "$model" "${span[@]}" --solver DSTIFF --integr_tol 1e-6 --vars 'u[1],v[1]' -o run.csv >/dev/null
"$hydae" run "$model" "${span[@]}" --solver RADAU --integr_tol 1e-11 --vars 'u[1],v[1]' -o ref.csv >/dev/null
error_here=$(paste -d, run.csv ref.csv | awk -F, 'NR > 1 {
        for (c = 2; c <= 3; c++) {
            d = $c - $(c + 3); if (d < 0) d = -d; r = $(c + 3); if (r < 0) r = -r
            if (d > dmax[c]) dmax[c] = d; if (r > rmax[c]) rmax[c] = r } }
    END { e = 0; for (c = 2; c <= 3; c++) if (dmax[c] / rmax[c] > e) e = dmax[c] / rmax[c]; printf "%.6e", e }')
error_table=$(awk '$1 == "DSTIFF" && $2 == "1e-06" { print $8 }' table.txt)
check "DSTIFF's error at 1e-6: table $error_table, from the CSVs $error_here" \
    awk -v a="$error_table" -v b="$error_here" 'BEGIN { exit !(b > 0 && a / b > 0.99 && a / b < 1.01) }'

recommended=$(awk '$1 == "recommended:" { print $2 }' table.txt)
check "the recommendation names a listed integrator: '$recommended'" \
    grep -q "^$recommended .*1e-0" table.txt
cheapest=$(awk 'NF == 9 && $9 >= 5 && ($3 < best || best == "") { best = $3; name = $1 } END { print name }' table.txt)
check "it is the least CPU of the rows with >= 5 digits ($cheapest)" test "$recommended" = "$cheapest"

# A DAE model: the methods for explicit ODEs cannot run it.
check "compare-solvers on a DAE model: exit 0" \
    test "$(status_of "$hydae" converge "$here/examples/rlc_circuit.hym" --compare-solvers)" = 0
for solver in RK45 RK853 ABAM VSTIFF MSTIFF; do
    check "$solver skipped on the DAE, naming it" grep -q "^$solver *skipped: .*(a DAE)" "$work/out"
done
check "DSTIFF and RADAU run the DAE" \
    test "$(awk '($1 == "DSTIFF" || $1 == "RADAU") && NF == 9' "$work/out" | wc -l)" = 6
check "--from too close to --to: exit 2" \
    test "$(status_of "$hydae" converge "$model" --compare-solvers --from 1e-4 --to 1e-7)" = 2
check "--compare-solvers with --h-max-study: exit 2" \
    test "$(status_of "$hydae" converge "$model" --compare-solvers --h-max-study 0.1)" = 2
finish
