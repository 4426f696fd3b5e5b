#!/usr/bin/env bash
# examples/embed/run_model.c, the example of loading a model file from C
# (linked with this build's libhydae.so): the bouncing ball dropped from
# h = 2 (NAME=VALUE on its command line) hits the ground first at
# t = sqrt(2 h / g) (g = 9.81); the run ends at the file's experiment
# t_end = 3.5; a model with an error exits 2 with file:line:column, and so
# does an unknown name. Usage: embed_run_model.sh RUN_MODEL SOURCE_DIR
set -u
run_model=$1
source_dir=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failed=0
fail() {
    echo "FAIL: $*"
    failed=$((failed + 1))
}

"$run_model" "$source_dir/examples/bouncing_ball.hym" h=2 >"$work/ball.csv" 2>"$work/err" \
    || fail "the bouncing ball: exit $? ($(head -2 "$work/err"))"
[ "$(head -1 "$work/ball.csv")" = "time,h,v" ] || fail "header $(head -1 "$work/ball.csv")"
impact=$(awk -F, 'NR > 1 && $1 > 0 && $2 + 0 <= 1e-9 { print $1; exit }' "$work/ball.csv")
awk -v t="$impact" 'BEGIN { want = sqrt(2 * 2 / 9.81); d = t - want; if (d < 0) d = -d;
                            printf "first impact at t = %s, sqrt(2 h / g) = %.15g\n", t, want;
                            exit !(t != "" && d < 1e-7) }' || fail "first impact at '$impact'"
last=$(tail -1 "$work/ball.csv" | cut -d, -f1)
[ "$last" = "3.5" ] || fail "the run ended at '$last', not the experiment's t_end 3.5"

printf 'model bad\n  Real x(start = 1);\nequation\n  der(x) = -k * x;\nend bad;\n' >"$work/bad.hym"
"$run_model" "$work/bad.hym" >/dev/null 2>"$work/err"
status=$?
[ "$status" = 2 ] || fail "a model with an error: exit $status, not 2"
grep -q "bad.hym:4:13: error: undefined name 'k'" "$work/err" || fail "diagnostic: $(head -1 "$work/err")"

"$run_model" "$source_dir/examples/bouncing_ball.hym" nope=1 >/dev/null 2>"$work/err"
status=$?
[ "$status" = 2 ] || fail "an unknown name: exit $status, not 2"
grep -q "nope" "$work/err" || fail "an unknown name: $(head -1 "$work/err")"

[ "$failed" -eq 0 ] || exit 1
echo "embed_run_model: all checks passed"
