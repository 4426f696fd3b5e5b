#!/usr/bin/env bash
# The command with model files: every example .hym runs; `hydae check`
# shows the structure (algebraic loops, a mechanical mode's Pantelides
# counts, the message for a high-index mode that is not mechanical); a malformed file gives file:line:col, a caret and
# exit 2; --set reaches the model's parameters; the experiment block's
# transient-solver settings reach the engine (dae_jacob_eval = 1 makes
# every corrector iteration form a Jacobian, seen with --debug-newton);
# --set moves a start value that uses a parameter; explicit-ODE model files
# run with every integrator and an algebraic mode is refused by RK45 with
# its name; `hydae converge MODEL.hym` gives the same study as the C
# example it mirrors.
# Usage: cli_lang.sh PATH_TO_HYDAE
set -u
hydae=$1
here=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
passed=0
failed=0
check() {
    local what=$1
    shift
    if "$@"; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "FAIL: $what"; fi
}
status_of() { "$@" >"$work/out" 2>"$work/err"; echo $?; }

for model in "$here"/examples/*.hym; do
    name=$(basename "$model" .hym)
    check "$name.hym runs" test "$(status_of "$hydae" run "$model" -o "$name.csv" --quiet)" = 0
    check "$name.hym: CSV written" test -s "$name.csv"
    check "$name.hym: no stop marker" test -z "$(grep '^#' "$name.csv")"
done
check "the pendulum file: 4 switches" test "$(status_of "$hydae" run "$here/examples/string_pendulum.hym" --stats -o p.csv)" = 0
check "the pendulum file: 4 switches in --stats" grep -Eq '^mode switches +4$' "$work/err"

check "check of the RLC from components: exit 0" test "$(status_of "$hydae" check "$here/examples/rlc_circuit.hym")" = 0
check "check of the RLC: aliases and trivial equations removed, 8 unknowns left" grep -q "mode rlc_circuit: 8 unknowns, 8 equations" "$work/out"
check "check of the RLC: the ground's and the source's trivial equations" grep -q "^trivial equations: 2 equations" "$work/out"
check "check: exit 0" test "$(status_of "$hydae" check "$here/examples/algebraic_loop.hym")" = 0
check "check: shows the algebraic loop" grep -q "algebraic loop of 2 equations" "$work/out"
check "check of a mechanical mode: exit 0" test "$(status_of "$hydae" check "$here/examples/pendulum_cartesian.hym")" = 0
check "check of a mechanical mode: Pantelides' counts" grep -q "x^2 + y^2 = L^2;   \[constraint, differentiated twice\]" "$work/out"
check "a high-index mode that is not mechanical: exit 2" test "$(status_of "$hydae" check "$here/tests/lang/malformed/high_index.hym")" = 2
check "a high-index mode that is not mechanical: what to change" grep -q "high_index.hym:6:5: error: mode 'm' has index 2: Pantelides' algorithm differentiates the equation at 6:5 once; hydae reduces the index of mechanical systems only: differentiate by hand" "$work/out"

malformed=$here/tests/lang/malformed/arity_atan2.hym
check "malformed: exit 2" test "$(status_of "$hydae" run "$malformed")" = 2
check "malformed: file:line:col" grep -q "arity_atan2.hym:5:12: error: function 'atan2' takes 2 arguments" "$work/err"
check "malformed: caret line" grep -q '^ *\^$' "$work/err"
check "check of a malformed file: exit 2" test "$(status_of "$hydae" check "$malformed")" = 2

cat > decay.hym <<'HYM'
// x' = -a x with the solver settings in the experiment block.
model decay
  parameter Real a = 1;
  Real x(start = 1);
equation
  der(x) = -a * x;
  experiment t_end = 1, dt = 0.5, integr_tol = 1e-6, dae_jacob_eval = 1;
end decay;
HYM
check "settings block: exit 0" test "$(status_of "$hydae" run decay.hym --debug-newton -o d.csv)" = 0
check "settings block: corrector iterations printed" grep -q '^newton .* iter=0 ' "$work/err"
check "settings block: dae_jacob_eval 1 reached the engine" test -z "$(grep '^newton' "$work/err" | grep -v 'jacobian=new')"
check "--set on a model file: exit 0" test "$(status_of "$hydae" run decay.hym --set a=2 -o d2.csv)" = 0
check "--set: x(1) = exp(-2)" awk -F, '$1 == 1 { d = $2 - exp(-2); exit !(d < 1e-5 && d > -1e-5) }' d2.csv
check "--set of an unknown name: exit 2" test "$(status_of "$hydae" run decay.hym --set b=2)" = 2
sed 's/dae_jacob_eval = 1/dae_jacob_eval = -1/' decay.hym > bad_setting.hym
check "a bad experiment setting: exit 2" test "$(status_of "$hydae" run bad_setting.hym)" = 2
check "a bad experiment setting: message" grep -q "dae_jacob_eval" "$work/err"

cat > start.hym <<'HYM'
// x(0) = 2 a, x' = 1: x(1) = 2 a + 1.
model start
  parameter Real a = 1;
  Real x(start = 2 * a);
equation
  der(x) = 1;
  experiment t_end = 1, dt = 0.5;
end start;
HYM
check "--set moves a start value: exit 0" test "$(status_of "$hydae" run start.hym --set a=3 -o s.csv)" = 0
check "--set moves a start value: x(0) = 6" awk -F, '$1 == 0 { d = $2 - 6; exit !(d < 1e-9 && d > -1e-9) }' s.csv
check "--set moves a start value: x(1) = 7" awk -F, '$1 == 1 { d = $2 - 7; exit !(d < 1e-6 && d > -1e-6) }' s.csv

# --set of a continuous variable's start value (issue 11): the ball from
# h = 5 m meets the floor at sqrt(2 5 / 9.81) = 1.0096375546923044 s.
check "--set h=5 (a start value): exit 0" test "$(status_of "$hydae" run "$here/examples/bouncing_ball.hym" --set h=5 -o b5.csv)" = 0
check "--set h=5: h(0) = 5" awk -F, 'NR == 2 { exit !($1 == 0 && $2 == 5) }' b5.csv
check "--set h=5: the first impact" awk -F, -v t1=1.0096375546923044 \
    'NR > 1 && $1 > 0.9 && $1 < 1.1 && $2 < 1e-9 { d = $1 - t1; found = d < 1e-9 && d > -1e-9; exit }
     END { exit !found }' b5.csv
check "--set flight.h=5: exit 0" test "$(status_of "$hydae" run "$here/examples/bouncing_ball.hym" --set flight.h=5 -o b5q.csv)" = 0
check "--set flight.h=5: the same run" cmp -s b5.csv b5q.csv
check "--set of an unknown name: exit 2" test "$(status_of "$hydae" run "$here/examples/bouncing_ball.hym" --set hh=5)" = 2
check "--set of an unknown name: lists the names" grep -q "no parameter, discrete variable or variable named 'hh'; its names are: g, e, h, v" "$work/err"
check "--set of a computed start value: exit 2" test "$(status_of "$hydae" run start.hym --set x=4)" = 2
check "--set of a computed start value: message" grep -q "start value of 'x' in mode 'start' is computed from parameters" "$work/err"
cat > two_modes.hym <<'HYM'
model two_modes
  parameter Real p01 = 1, p02 = 2, p03 = 3, p04 = 4, p05 = 5, p06 = 6, p07 = 7;
  parameter Real p08 = 8, p09 = 9, p10 = 10, p11 = 11, p12 = 12, p13 = 13;
  initial mode up
    Real y(start = 1);
  equation
    der(y) = 1;
  entry
    p01 := 1;
  end up;
  mode down
    Real y(start = 2);
  equation
    der(y) = -1;
  end down;
  transition turn from up to down when y > 3 end;
  experiment t_end = 4, dt = 1;
end two_modes;
HYM
check "--set of an ambiguous name: exit 2" test "$(status_of "$hydae" run two_modes.hym --set y=0)" = 2
check "--set of an ambiguous name: lists MODE.NAME" grep -q "'y' is a variable of several modes with different start values: up.y (start 1), down.y (start 2); say which, as MODE.y" "$work/err"
check "--set up.y=0: exit 0" test "$(status_of "$hydae" run two_modes.hym --set up.y=0 -o tm.csv)" = 0
check "--set up.y=0: y(0) = 0, turns at 3" awk -F, '$1 == 0 { a = ($2 == 0) } $1 == 4 { b = ($2 > 1.99 && $2 < 2.01) } END { exit !(a && b) }' tm.csv
check "--set of a name among many: exit 2" test "$(status_of "$hydae" run two_modes.hym --set p1=0)" = 2
check "--set of a name among many: the nearest" grep -q "named 'p1'; the nearest of its names: p01, p10, p11, p12, p13, p02, p03, p04 (7 more)" "$work/err"
sed 's/    p01 := 1;/    y := 5;/' two_modes.hym > entry_sets.hym
check "--set of a start value an entry action replaces: exit 1" test "$(status_of "$hydae" run entry_sets.hym --set up.y=0 -o es.csv)" = 1
check "--set of a start value an entry action replaces: message" grep -q "start value 0 set for 'y' of mode 'up' is replaced at t0 by the model's initial action" "$work/err"

for solver in DSTIFF VSTIFF MSTIFF ABAM RK45 RK4; do
    check "bouncing_ball.hym with $solver: exit 0" \
        test "$(status_of "$hydae" run "$here/examples/bouncing_ball.hym" --solver "$solver" --h-max 1e-3 -o "ball_$solver.csv")" = 0
    # The first impact at sqrt(2 h0 / g) = 0.4515236409857309 s.
    check "bouncing_ball.hym with $solver: first impact" awk -F, -v t1=0.4515236409857309 \
        'NR > 1 && $1 > 0.3 && $1 < 0.6 && $2 < 1e-9 { d = $1 - t1; found = d < 1e-6 && d > -1e-6; exit }
         END { exit !found }' "ball_$solver.csv"
done
check "an algebraic mode with RK45: exit 2 (before the run)" test "$(status_of "$hydae" run "$here/examples/algebraic_loop.hym" --solver RK45 -o a.csv)" = 2
check "an algebraic mode with RK45: names the mode" grep -q "RK45 .* mode 'closed_loop'" "$work/err"

check "converge on a model file: exit 0" test "$(status_of "$hydae" converge "$here/examples/string_pendulum.hym" --channels x,y --from 1e-3 --to 1e-6 --tend 2)" = 0
cp "$work/out" converge_file.txt
check "converge on a model file: a verdict" grep -q "^the largest integr_tol whose channels agree" converge_file.txt
check "converge on the C example: exit 0" test "$(status_of "$hydae" converge --example string_pendulum --channels x,y --from 1e-3 --to 1e-6 --tend 2)" = 0
# The same steps and digits (the time column aside) as the C model.
check "converge: the model file agrees with the C example" \
    test "$(awk '{ $3 = ""; print }' converge_file.txt)" = "$(awk '{ $3 = ""; print }' "$work/out")"
check "converge on a model file: an unknown channel, exit 2" \
    test "$(status_of "$hydae" converge "$here/examples/string_pendulum.hym" --channels nope)" = 2
check "converge on a model file: names the channel" grep -q "no channel 'nope'" "$work/err"
check "converge on a malformed model file: exit 2" test "$(status_of "$hydae" converge "$malformed" --channels x)" = 2

echo "$passed passed, $failed failed"
test "$failed" = 0
