#!/usr/bin/env bash
# examples/embed/sweep_model.c, the example of a sweep from C (linked with
# this build's libhydae.so): the bouncing ball dropped from h = 1 under
# g = 4 .. 12 (e = 0.7, 0.8) first bounces at t1 = sqrt(2 h / g), whatever
# e, and its bounces accumulate at t1 (1 + e) / (1 - e) (the geometric
# series of the flight times 2 e^k t1): the runs where that is before the
# experiment's t_end = 3.5 fail (exit 1) with a message naming that time,
# the others are ok; the table has the 10 runs in order, the last grid
# varying fastest; a bad grid exits 2 with the library's message.
# Usage: embed_sweep_model.sh SWEEP_MODEL SOURCE_DIR
set -u
sweep_model=$1
source_dir=$2
. "$source_dir/tests/lib/check.sh"

"$sweep_model" "$source_dir/examples/bouncing_ball.hym" 'count(bounce),first(bounce)' \
    g=4:2:12 e=0.7,0.8 >table.csv 2>"$work/err"
check "the sweep with failed runs: exit 1" test $? -eq 1
check "header" test "$(head -1 table.csv)" = \
    "run,g,e,count(bounce),first(bounce),status,steps,wall_s"
check "runs and parameters, the last grid fastest" \
    test "$(awk -F, 'NR > 1 { printf "%s:%s:%s ", $1, $2, $3 }' table.csv)" = \
  "0:4:0.69999999999999996 1:4:0.80000000000000004 2:6:0.69999999999999996 3:6:0.80000000000000004 4:8:0.69999999999999996 5:8:0.80000000000000004 6:10:0.69999999999999996 7:10:0.80000000000000004 8:12:0.69999999999999996 9:12:0.80000000000000004 "
check "first(bounce) and the accumulation times" awk -F, 'NR > 1 { t1 = sqrt(2 * 1 / $2); d = $5 - t1; if (d < 0) d = -d
                  if (d > 1e-7) bad = bad " " $1 " (first bounce)"
                  t_zeno = t1 * (1 + $3) / (1 - $3)
                  if (t_zeno > 3.5 && $6 != "ok") bad = bad " " $1 " (failed)"
                  if (t_zeno < 3.5) {
                      if (!match($6, /accumulate at t = [0-9.]+/)) bad = bad " " $1 " (not failed)"
                      t = substr($6, RSTART + 18, RLENGTH - 18); d = t - t_zeno; if (d < 0) d = -d
                      if (d > 1e-6 * t_zeno) bad = bad " " $1 " (accumulation at " t ")"
                  }
                  n_failed += t_zeno < 3.5 }
         END { if (bad || n_failed != 4) { print "runs off the closed form:" bad; exit 1 } }' \
    table.csv
check "10 rows shown on stderr" test "$(grep -c '^run [0-9]*: g = ' "$work/err")" -eq 10
check "a bad grid: exit 2" test "$(status_of "$sweep_model" "$source_dir/examples/bouncing_ball.hym" \
    'count(bounce)' g=1:-1:2)" -eq 2
check "  the library's message" err_has "START:STEP:STOP"
finish
