#!/usr/bin/env bash
# The `hydae` command: help, version, exit codes 0 / 1 / 2, the CSV it
# writes, --stats, --set, and a failure that leaves a CSV marked as stopped
# early. Usage: cli_basic.sh PATH_TO_HYDAE
set -u
hydae=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
passed=0
failed=0
check() { # check DESCRIPTION COMMAND...: the command must succeed
    local what=$1
    shift
    if "$@"; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "FAIL: $what"; fi
}
status_of() { "$@" >"$work/out" 2>"$work/err"; echo $?; }

check "--version prints the version" grep -q '^hydae [0-9]' <("$hydae" --version)
check "--help exits 0" test "$(status_of "$hydae" --help)" = 0
check "--help shows usage" grep -q 'usage: hydae' "$work/out"
check "no arguments: exit 2" test "$(status_of "$hydae")" = 2
check "unknown command: exit 2" test "$(status_of "$hydae" frobnicate)" = 2
check "unknown example: exit 2" test "$(status_of "$hydae" run --example nope)" = 2
check "unknown example: message" grep -q "no built-in example 'nope'" "$work/err"
check "bad number: exit 2" test "$(status_of "$hydae" run --example relay --tend abc)" = 2
check "bad number: message" grep -q -- "--tend needs a finite number, not 'abc'" "$work/err"
check "unknown parameter: exit 2" test "$(status_of "$hydae" run --example relay --set nope=1)" = 2
check "bad rtol: exit 2" test "$(status_of "$hydae" run --example relay --rtol -1)" = 2
check "solvers lists DSTIFF" grep -q '^DSTIFF' <("$hydae" solvers)
check "unknown solver: exit 2" test "$(status_of "$hydae" run --example relay --solver nope)" = 2
check "unknown solver: lists the available" grep -q "no integrator 'nope' (available: DSTIFF" "$work/err"
check "VSTIFF runs an ODE model" test "$(status_of "$hydae" run --example bouncing_ball --solver VSTIFF -o vb.csv --stats)" = 0
check "VSTIFF: the 9 impacts" grep -Eq '^events +9$' "$work/err"
check "MSTIFF refuses a residual mode before the run: exit 2" test "$(status_of "$hydae" run --example string_pendulum --solver MSTIFF -o pm.csv)" = 2
check "MSTIFF refuses a residual mode: message" grep -q "MSTIFF solves explicit ODEs y' = f(t, y) only, but mode 'bound'" "$work/err"
check "examples lists the pendulum" grep -q '^string_pendulum' <("$hydae" examples)

# A successful run: default output file, header, results path printed, stats.
check "pendulum: exit 0" test "$(status_of "$hydae" run --example string_pendulum --stats)" = 0
check "pendulum: says where the results are" grep -q "results in $work/string_pendulum.csv" "$work/out"
check "pendulum: CSV header" grep -q '^time,phi,omega,x,y,F,r,vx,vy$' string_pendulum.csv
check "pendulum: 4 mode switches in --stats" grep -Eq '^mode switches +4$' "$work/err"
check "pendulum: rows up to t_end" grep -q '^12,' string_pendulum.csv
check "pendulum: no stop marker" test -z "$(grep '^#' string_pendulum.csv)"
check "-o - writes CSV to stdout" grep -q '^time,h,v$' <("$hydae" run --example bouncing_ball -o - --tend 0.1)

# The Cartesian string pendulum: a mechanical mode in SI1 and the ODE form.
check "Cartesian pendulum SI1: exit 0" test "$(status_of "$hydae" run --example string_pendulum_cartesian --dae_index 1 --stats -o cart.csv)" = 0
check "Cartesian pendulum SI1: 4 mode switches" grep -Eq '^mode switches +4$' "$work/err"
check "Cartesian pendulum SI1: constraint violation in --stats" grep -Eq '^max constraint violation +[0-9.]+e-(09|1[0-9])$' "$work/err"
check "Cartesian pendulum ABAM: exit 0" test "$(status_of "$hydae" run --example string_pendulum_cartesian --integrator_type ABAM --stats-json cart.json -o cart.csv)" = 0
check "Cartesian pendulum ABAM: partitions in --stats-json" grep -Eq '"coordinate_partitions": [1-9][0-9]*,' cart.json

# A failing run: L = 0 makes g/L infinite, the residual NaN.
check "failure: exit 1" test "$(status_of "$hydae" run --example string_pendulum --set L=0 -o bad.csv)" = 1
check "failure: names mode, variable and time" grep -q "mode 'bound' (paired with variable 'omega') is not finite at t = 0" "$work/err"
check "failure: CSV marked stopped early" grep -q '^# hydae: stopped early at t = 0' bad.csv

# Writing to a full device is a failure, not a success.
check "full device: exit 1" test "$(status_of "$hydae" run --example relay --tend 0.01 -o /dev/full)" = 1
check "full device: message" grep -q "error writing the results to '/dev/full'" "$work/err"
check "full device, long run: exit 1" test "$(status_of "$hydae" run --example relay --tend 100 --dt 0.001 -o /dev/full)" = 1
# An output grid too large to write is refused, not silently shortened.
check "huge grid: exit 1" test "$(status_of "$hydae" run --example algebraic_loop --tend 1e7 --dt 1e-4 -o big.csv)" = 1
check "huge grid: message" grep -q "asks for 1e+11 rows" "$work/err"
# Past the bouncing ball's Zeno point the run stops with a clear message.
check "Zeno: exit 1" test "$(status_of "$hydae" run --example bouncing_ball --tend 5 -o zeno.csv)" = 1
check "Zeno: message" grep -q "events accumulate" "$work/err"

# Settings by their Param_Transient names, from the command line and XML.
check "settings lists integr_tol" grep -q '^integr_tol ' <("$hydae" settings)
check "a setting as an option: exit 0" test "$(status_of "$hydae" run --example relay --integr-tol 1e-5 --dae_jacob_eval 1 --debug-newton -o s.csv)" = 0
check "--debug-newton: every iteration forms a Jacobian with dae_jacob_eval 1" test -z "$(grep '^newton' "$work/err" | grep -v 'jacobian=new')"
check "--debug-newton prints iterations" grep -q '^newton t=.* iter=0 ' "$work/err"
check "a bad setting: exit 2" test "$(status_of "$hydae" run --example relay --integr_tol -1)" = 2
check "a bad setting: message" grep -q "setting integr_tol: '-1' is not a number > 0" "$work/err"
printf '<Model>\n  <Param_Transient integr_tol="1e-6"\n     h_max="abc"/>\n</Model>\n' > bad.xml
check "bad XML settings: exit 2" test "$(status_of "$hydae" run --example relay --settings bad.xml)" = 2
check "bad XML settings: file:line:col" grep -q "bad.xml:2:.*h_max: 'abc'" "$work/err"
printf '<Param_Transient integrator_type="VSTIFF" integr_tol="1e-6"/>\n' > good.xml
check "XML settings: exit 0" test "$(status_of "$hydae" run --example bouncing_ball --settings good.xml --stats -o x.csv)" = 0
check "XML settings: the 9 impacts" grep -Eq '^events +9$' "$work/err"
# The convergence study.
check "converge: exit 0" test "$(status_of "$hydae" converge --example algebraic_loop --channels x,y --from 1e-3 --to 1e-8)" = 0
check "converge: recommends a tolerance" grep -q "the largest integr_tol whose channels agree to 3 digits" "$work/out"
check "converge: unknown channel exit 2" test "$(status_of "$hydae" converge --example algebraic_loop --channels nope)" = 2

echo "$passed passed, $failed failed"
test "$failed" = 0
