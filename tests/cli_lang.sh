#!/usr/bin/env bash
# The command with model files: every example .hym runs; `hydae check`
# shows the structure; a malformed file gives file:line:col, a caret and
# exit 2; --set reaches the model's parameters; the experiment block's
# transient-solver settings reach the engine (dae_jacob_eval = 1 makes
# every corrector iteration form a Jacobian, seen with --debug-newton).
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

check "check: exit 0" test "$(status_of "$hydae" check "$here/examples/algebraic_loop.hym")" = 0
check "check: shows the algebraic loop" grep -q "algebraic loop of 2 equations" "$work/out"

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

echo "$passed passed, $failed failed"
test "$failed" = 0
