#!/usr/bin/env bash
# Regression tests for issue 13's defects of the model compiler and of
# model size, with the reproducers of tests/repro/ (each asserts the exit
# status and the message; .ci/run runs them again under ASan and UBSan):
#   D2  an `if` on unknowns (use after free in refresh_relations, now in sema_transitions.c)
#   D3  a nonlinear mechanical constraint (use after free in mechanics.c)
#   D4  a NUL byte in a string literal (read past the end in strtab.c)
#   D5  `output` inside an action or entry section (endless loop)
#   D13 literals out of range, 0/0 in a constant, CR-only line ends, a
#       directory as the model file
#   D14 NULL + 0 in the VM (every example model runs)
#   D1  one mode of 50,000 and 100,000 unknowns (int n*n overflow): runs,
#       on the sparse pattern the model file gives; `hydae check` quick
# Usage: cli_lang_robust.sh PATH_TO_HYDAE
set -u
hydae=$1
here=$(cd "$(dirname "$0")/.." && pwd)
repro=$here/tests/repro
. "$here/tests/lib/check.sh"

# status_of with a time limit: a hang is a failure (status 124), not a hung suite.
timed() { timeout 120 "$@"; }
# How often TEXT occurs in $work/err.
count_in_err() { grep -cF -- "$1" "$work/err"; }
# The last data row's column NAME of a CSV (comment lines skipped).
last_value() {
    python3 - "$1" "$2" <<'EOF'
import csv, sys
rows = [r for r in csv.reader(open(sys.argv[1])) if r and not r[0].startswith("#")]
print(rows[-1][rows[0].index(sys.argv[2])])
EOF
}
# |A - B| <= TOL
near() { python3 -c "import sys; a, b, t = map(float, sys.argv[1:]); sys.exit(abs(a - b) > t)" "$@"; }

# ---- D2: if on unknowns (uaf_sema_if_relation.hym) ----
f=$repro/uaf_sema_if_relation.hym
check "D2 check: exit 0" test "$(status_of timed "$hydae" check "$f")" = 0
check "D2 check: the hidden condition variable" \
    grep -qF "hidden discrete m.if1 = 1 (value of an if-condition)" "$work/out"
check "D2 check: 0 errors" grep -qF "0 errors, 0 warnings" "$work/out"
# x' = -1 while x + y z > y - z (y = 2 e^-t, z = 3 e^-t, x = 1 - t): true up to t = 1.5119.
check "D2 run to 1.5: exit 0" \
    test "$(status_of timed "$hydae" run "$f" --tend 1.5 -o if.csv)" = 0
check "D2 run to 1.5: x(1.5) = -0.5" near "$(last_value if.csv x)" -0.5 1e-9
check "D2 run to 1.5: the condition still holds" test "$(last_value if.csv m.if1)" = 1
# Then the condition slides on its surface: chattering, refused by name.
check "D2 full run: exit 1" test "$(status_of timed "$hydae" run "$f" -o if.csv)" = 1
check "D2 full run: chattering at the switching surface (t = 1.512)" \
    err_has "events accumulate at t = 1.51"
check "D2 full run: the transition named" err_has "the last transition fired was 'm.if1."

# ---- D3: nonlinear mechanical constraint (uaf_mechanics_nonlinear_constraint.hym) ----
f=$repro/uaf_mechanics_nonlinear_constraint.hym
check "D3 check: exit 0" test "$(status_of timed "$hydae" check "$f")" = 0
check "D3 check: the constraint's role" \
    grep -qF "sin(x*y) + exp(x) * cos(y) + x^3 = L^2;   [constraint, differentiated twice]" "$work/out"
check "D3 check: M, C, Phi_q" \
    grep -qF "M 2 non-zero entries of 4, C 2 of 2, Phi_q 2 of 2; Phi does not depend on time" "$work/out"
# The index-3 form (DSTIFF) and the ODE form (RK45) from the same symbolic
# Phi_q and gamma agree at t = 0.1.
for solver in DSTIFF RK45; do
    check "D3 run $solver to 0.1: exit 0" test "$(status_of timed "$hydae" run "$f" --solver $solver \
        --tend 0.1 --rtol 1e-10 --atol 1e-12 -o mech_$solver.csv)" = 0
    check "D3 run $solver: x(0.1) = 0.0218904" near "$(last_value mech_$solver.csv x)" 0.0218904 2e-6
    check "D3 run $solver: y(0.1) = -0.1880792" near "$(last_value mech_$solver.csv y)" -0.1880792 2e-6
done

# ---- D4: a NUL byte in a string literal (heap_overflow_strtab_nul_in_string.hym) ----
f=$repro/heap_overflow_strtab_nul_in_string.hym
want="heap_overflow_strtab_nul_in_string.hym:3:27: error: NUL byte (0x00) in a string literal: a model file is text"
check "D4 check: exit 2" test "$(status_of timed "$hydae" check "$f")" = 2
check "D4 check: the NUL byte's place" grep -qF "$want" "$work/out"
check "D4 run: exit 2" test "$(status_of timed "$hydae" run "$f" -o nul.csv)" = 2
check "D4 run: the NUL byte's place" err_has "$want"
check "D4 run: one error" err_has "1 error; nothing was simulated"
check "D4 run: nothing written" test ! -e nul.csv

# ---- D5: output in an action, in an entry section (hang_parse_output_in_*.hym) ----
for where in action:6 entry:7; do
    f=$repro/hang_parse_output_in_${where%%:*}.hym
    want="hang_parse_output_in_${where%%:*}.hym:${where##*:}:5: error: 'output' is not an action"
    check "D5 ${where%%:*}: run exits 2 (no hang)" \
        test "$(status_of timed "$hydae" run "$f" -o out.csv)" = 2
    check "D5 ${where%%:*}: the message" err_has "$want"
    check "D5 ${where%%:*}: said once" test "$(count_in_err "$want")" = 1
    check "D5 ${where%%:*}: check exits 2" test "$(status_of timed "$hydae" check "$f")" = 2
done

# ---- D13: literals, constants, line ends, a directory ----
f=$repro/nonfinite_literal_1e999.hym
check "D13 1e999: exit 2" test "$(status_of timed "$hydae" run "$f" -o lit.csv)" = 2
check "D13 1e999: too large, at 2:22" err_has \
    "nonfinite_literal_1e999.hym:2:22: error: number '1e999' is too large: the largest double is 1.79769e+308"
sed 's/1e999/1e-400/' "$f" >under.hym
check "D13 1e-400: exit 2" test "$(status_of timed "$hydae" run under.hym -o lit.csv)" = 2
check "D13 1e-400: too small, at 2:22" err_has \
    "under.hym:2:22: error: number '1e-400' is too small: below the smallest normal double 2.22507e-308 it would be rounded to 0"
sed 's/1e999/4e-320/' "$f" >denormal.hym
check "D13 4e-320: exit 2" test "$(status_of timed "$hydae" run denormal.hym -o lit.csv)" = 2
check "D13 4e-320: a denormal, at 2:22" err_has \
    "denormal.hym:2:22: error: number '4e-320' is too small: below the smallest normal double 2.22507e-308 it would lose precision"
f=$repro/nan_start_unclear.hym
check "D13 start = 0/0: exit 2" test "$(status_of timed "$hydae" run "$f" -o lit.csv)" = 2
check "D13 start = 0/0: at the '/'" \
    err_has "nan_start_unclear.hym:3:19: error: the constant expression 0 / 0 is not a number (NaN)"
check "D13 start = 0/0: the variable is not also undefined" test "$(count_in_err "error:")" = 1
check "D13 nothing written" test ! -e lit.csv
# CR alone ends lines: the error of line 5 is on line 5.
printf 'model m\r  Real x(start = 1);\requation\r  der(x) = -x;\r  der(x) = $;\rend m;\r' >cr.hym
check "D13 CR-only file: exit 2" test "$(status_of timed "$hydae" check cr.hym)" = 2
check "D13 CR-only file: line 5" grep -qF "cr.hym:5:12: error: unexpected character '\$'" "$work/out"
mkdir -p model_dir.hym
check "D13 check DIR: exit 2" test "$(status_of timed "$hydae" check model_dir.hym)" = 2
check "D13 check DIR: said" grep -qF "model_dir.hym: error: is a directory, not a model file" "$work/out"
check "D13 run DIR: exit 2" test "$(status_of timed "$hydae" run model_dir.hym -o dir.csv)" = 2
check "D13 run DIR: said" err_has "model_dir.hym: error: is a directory, not a model file"

# ---- D14: every model file runs (UBSan halts on NULL + 0 in CI) ----
check "D14 ub_vm683_null_offset: exit 0" \
    test "$(status_of timed "$hydae" run "$repro/ub_vm683_null_offset.hym" -o ub.csv)" = 0
check "D14 ub_vm683_null_offset: to t = 2" grep -qF "simulated to t = 2;" "$work/out"
for f in "$here"/examples/*.hym; do
    name=$(basename "$f" .hym)
    check "D14 examples/$name.hym: exit 0" test "$(status_of timed "$hydae" run "$f" -o ex.csv)" = 0
done

# ---- D1: one mode of 50,000 and of 100,000 unknowns (int n*n overflowed) ----
# der(xI) = -xI, I = 1..n, in one mode (chart c, mode m).
big_model() {
    awk -v n="$1" 'BEGIN {
        print "model big\n  chart c\n  mode m"
        for (i = 1; i <= n; i++) printf "    Real x%d(start = 1);\n", i
        print "  equation"
        for (i = 1; i <= n; i++) printf "    der(x%d) = -x%d;\n", i, i
        print "  end m;\n  end c;\nend big;"
    }' >"$2"
}
# A model file gives its modes' Jacobian patterns: the diagonal here, so
# the iteration matrix is a band of width 1 and nothing is n x n.
for n in 50000 100000; do
    big_model $n big$n.hym
    check "D1 $n: run exits 0" \
        test "$(status_of timed "$hydae" run big$n.hym --tend 1 --dt 0.5 -o big.csv)" = 0
    # x_n(1) = e^-1 = 0.36787944117144233, to the default tolerance.
    check "D1 $n: x$n(1) = e^-1" awk -F, -v n=$n 'END { d = $(n + 1) - 0.36787944117144233;
        exit !(d < 1e-5 && d > -1e-5) }' big.csv
done
check "D1 100000: RK45 runs too" \
    test "$(status_of timed "$hydae" run big100000.hym --solver RK45 --tend 0.1 --dt 0.1 -o big.csv)" = 0
# hydae check of 10^5 equations: linear work (it was quadratic), here 60 s at most.
start=$(date +%s)
check "D1 check 100000: exit 0" test "$(status_of timed "$hydae" check big100000.hym)" = 0
check "D1 check 100000: 10^5 unknowns" grep -qF "mode m: 100000 unknowns, 100000 equations, index <= 1" "$work/out"
check "D1 check 100000: Jacobian size without overflow" \
    grep -qF "Jacobian: 100000 non-zero entries of 10000000000" "$work/out"
check "D1 check 100000: within 60 s" test $(($(date +%s) - start)) -le 60
# A configuration grows past the limit at a mode switch: 1 + 1000 unknowns
# at the start, 16000 + 1000 after t = 0.01 (each mode fits on its own).
awk 'BEGIN {
    print "model grow\n  chart a\n  mode a1\n    Real s(start = 1);\n  equation\n    der(s) = -s;\n  end a1;"
    print "  mode a2"
    for (i = 1; i <= 16000; i++) printf "    Real p%d(start = 1);\n", i
    print "  equation"
    for (i = 1; i <= 16000; i++) printf "    der(p%d) = -p%d;\n", i, i
    print "  end a2;\n  transition go from a1 to a2 when time >= 0.01 do end;\n  end a;"
    print "  chart b\n  mode b1"
    for (i = 1; i <= 1000; i++) printf "    Real q%d(start = 1);\n", i
    print "  equation"
    for (i = 1; i <= 1000; i++) printf "    der(q%d) = -q%d;\n", i, i
    print "  end b1;\n  end b;\n  experiment t_end = 0.02;\nend grow;"
}' >grow.hym
check "D1 growing configuration: exit 0 (block-diagonal pattern of 17,000)" \
    test "$(status_of timed "$hydae" run grow.hym -o grow.csv)" = 0
# p1(0.02) = exp(-0.01): a2 entered at t = 0.01 with p1 = 1.
check "D1 growing configuration: p1(0.02) = e^-0.01" awk -F, 'NR == 1 { for (c = 1; c <= NF; c++)
    if ($c == "p1") col = c } END { d = $col - exp(-0.01); exit !(col && d < 1e-5 && d > -1e-5) }' grow.csv

finish
