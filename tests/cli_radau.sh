#!/usr/bin/env bash
# RADAU from the command line: listed by `hydae solvers`, chosen with
# --solver (any case) and by a model's `integrator_type = "RADAU"`, the
# bouncing ball's last impact of the run at the same time as DSTIFF's, the
# pendulum in constrained mechanics' I3 form (dae_index 3) keeping its
# constraint and energy, simultaneous events located exactly, and
# max_order refused (radau_order instead: 5, 9, 13 or auto). Usage:
# cli_radau.sh PATH_TO_HYDAE
set -u
hydae=$1
here=$(cd "$(dirname "$0")/.." && pwd)
. "$here/tests/lib/check.sh"
# The time of the last event row (the CSV's rows at an event repeat t).
last_event() { awk -F, 'NR > 1 && $1 == prev { t = $1 } { prev = $1 } END { print t }' "$1"; }

check "solvers lists RADAU" grep -q '^RADAU' <("$hydae" solvers)
check "--solver RADAU runs the bouncing ball" \
    test "$(status_of "$hydae" run --example bouncing_ball --solver RADAU --rtol 1e-8 -o radau.csv)" = 0
check "--solver radau (lower case) is the same" \
    test "$(status_of "$hydae" run --example bouncing_ball --solver radau --rtol 1e-8 -o lower.csv)" = 0
check "the same results whatever the case" cmp -s radau.csv lower.csv
"$hydae" run --example bouncing_ball --rtol 1e-8 -o dstiff.csv >/dev/null 2>&1
t_radau=$(last_event radau.csv)
t_dstiff=$(last_event dstiff.csv)
check "an event row in the CSV" test -n "$t_radau"
check "last impact at DSTIFF's time (|dt| <= 1e-7): $t_radau vs $t_dstiff" \
    awk -v a="$t_radau" -v b="$t_dstiff" 'BEGIN { d = a - b; exit !(a != "" && d * d <= 1e-14) }'
sed 's/integrator_type = "DSTIFF"/integrator_type = "RADAU"/' "$here/examples/pendulum_cartesian.hym" \
    >pendulum_radau.hym
check "integrator_type = \"RADAU\" with dae_index 3 runs to t_end" \
    test "$(status_of "$hydae" run pendulum_radau.hym -o pendulum.csv --stats)" = 0
# The last row: t = 10, on the circle x^2 + y^2 = 1 and with the energy
# 1/2 (it starts at 1/2 and is conserved) to 1e-6.
check "pendulum at t_end on the constraint with its energy kept" \
    awk -F, 'END { c = $2 * $2 + $3 * $3 - 1; e = $9 - 0.5
                   exit !($1 == 10 && c * c <= 1e-12 && e * e <= 1e-12) }' pendulum.csv
# examples/simultaneous_events.hym: x = t - 2 and w = t^3 - 8 cross 0 at
# t = 2 with the time event. Collocation at 3 stages is exact on solutions
# of degree <= 3, so the three events coincide and all fire (the model's
# comment): k = 1, then in mode b x = -10 - (t - 2), w = -100 + t^3 - 8,
# so at t = 3: k = 1, x = -11, w = -81 (to 1e-9).
check "simultaneous events: runs" \
    test "$(status_of "$hydae" run "$here/examples/simultaneous_events.hym" --solver RADAU -o sim.csv)" = 0
check "simultaneous events: all three fired at t = 2 (closed form at t = 3)" \
    awk -F, 'END { dx = $3 + 11; dw = $4 + 81
                   exit !($1 == 3 && $2 == 1 && dx * dx <= 1e-18 && dw * dw <= 1e-18) }' sim.csv
check "--max-order refused for RADAU: exit 2" \
    test "$(status_of "$hydae" run --example bouncing_ball --solver RADAU --max-order 3)" = 2
# radau_order: 5, 9, 13 or auto (the default); order 13 throughout finds
# the last impact at DSTIFF's time too; another order is refused.
check "settings lists radau_order" grep -q '^radau_order ' <("$hydae" settings)
check "--radau_order 13 runs the bouncing ball" \
    test "$(status_of "$hydae" run --example bouncing_ball --solver RADAU --radau_order 13 --rtol 1e-8 -o r13.csv)" = 0
t_r13=$(last_event r13.csv)
check "order 13: last impact at DSTIFF's time (|dt| <= 1e-7): $t_r13 vs $t_dstiff" \
    awk -v a="$t_r13" -v b="$t_dstiff" 'BEGIN { d = a - b; exit !(a != "" && d * d <= 1e-14) }'
check "--radau_order 7 refused: exit 2" \
    test "$(status_of "$hydae" run --example bouncing_ball --solver RADAU --radau_order 7)" = 2
check "--radau_order 7: the allowed values named" err_has "radau_order: '7' is not auto, 5, 9 or 13"
# In a model's experiment block: radau_order = 9 (a number) or "auto" (a
# string) gives the rows of the command-line option; 7 is refused at its
# line and column.
sed 's/integrator_type = "RADAU";/integrator_type = "RADAU", radau_order = 9;/' \
    "$here/examples/vdpol_radau.hym" >vdp9.hym
sed 's/integrator_type = "RADAU";/integrator_type = "RADAU", radau_order = "auto";/' \
    "$here/examples/vdpol_radau.hym" >vdp_auto.hym
sed 's/integrator_type = "RADAU";/integrator_type = "RADAU", radau_order = 7;/' \
    "$here/examples/vdpol_radau.hym" >vdp7.hym
check "experiment radau_order = 9" "$hydae" run vdp9.hym -o vdp9.csv --quiet
check "  = --radau_order 9" "$hydae" run "$here/examples/vdpol_radau.hym" --radau_order 9 -o opt9.csv --quiet
check "  the same rows" cmp vdp9.csv opt9.csv
check "experiment radau_order = \"auto\"" "$hydae" run vdp_auto.hym -o vdp_auto.csv --quiet
check "  = the default" "$hydae" run "$here/examples/vdpol_radau.hym" -o default.csv --quiet
check "  the same rows" cmp vdp_auto.csv default.csv
check "  order 9 is not auto's run" test -n "$(cmp vdp9.csv vdp_auto.csv 2>&1)"
check "experiment radau_order = 7: exit 2" test "$(status_of "$hydae" run vdp7.hym)" = 2
check "  at its line" err_has "line 15, column"
finish
