#!/usr/bin/env bash
# Help and usage errors of the `hydae` command (issue 18):
#   - `hydae help COMMAND`, `hydae COMMAND --help` and `-h` exit 0 with that
#     command's usage on standard output, for every command; an unknown one
#     exits 2;
#   - `--stats-json -` ends with a line end (the JSON parsed by Python);
#   - an integrator for explicit ODEs on a model with a DAE mode is a usage
#     error found before the run: exit 2 naming the integrator and the mode,
#     no result file and no row computed; a mode written as an ODE, or a DAE
#     mode whose unknowns are all algebraic, still runs with RK45.
# Usage: cli_usage.sh PATH_TO_HYDAE
set -u
hydae=$1
# shellcheck source=lib/check.sh
. "$(dirname "$0")/lib/check.sh"

for command in run check plot examples solvers settings converge help; do
    check "hydae help $command: exit 0" test "$(status_of "$hydae" help "$command")" = 0
    check "hydae help $command: its usage" grep -q "usage: hydae $command" "$work/out"
    check "hydae help $command: nothing on stderr" test ! -s "$work/err"
    check "hydae $command --help: exit 0" test "$(status_of "$hydae" "$command" --help)" = 0
    check "hydae $command --help: its usage" grep -q "usage: hydae $command" "$work/out"
    check "hydae $command -h: exit 0" test "$(status_of "$hydae" "$command" -h)" = 0
done
check "check --help after a file: exit 0" test "$(status_of "$hydae" check x.hym --help)" = 0
check "help of an unknown command: exit 2" test "$(status_of "$hydae" help frobnicate)" = 2
check "... named" grep -q "no command 'frobnicate'" "$work/err"
check "unknown command --help: exit 2" test "$(status_of "$hydae" frobnicate --help)" = 2
check "run --help lists --csv-units" grep -q -- '--csv-units' <("$hydae" run --help)

check "--stats-json -: exit 0" \
    test "$(status_of "$hydae" run --example bouncing_ball --stats-json - -o b.csv --quiet)" = 0
check "--stats-json -: the last byte is a line end" test "$(tail -c 1 "$work/out" | od -An -c | tr -d ' ')" = '\n'
check "--stats-json -: JSON" /usr/bin/python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$work/out"

cat >dae.hym <<'HYM'
model dae
  chart c
    mode m
      Real x(start = 1);
      Real z(start = 1);
    equation
      der(x) = -z;
      z = x;
    end m;
  end c;
end dae;
HYM
cat >ode.hym <<'HYM'
model ode
  chart c
    mode m
      Real x(start = 1);
    equation
      der(x) = -x;
    end m;
  end c;
end ode;
HYM
cat >algebraic.hym <<'HYM'
model algebraic
  chart c
    mode m
      Real z(start = 0);
    equation
      z^3 + z = time;
    end m;
  end c;
end algebraic;
HYM
for solver in RK45 RK4 ABAM VSTIFF MSTIFF; do
    extra=""
    [ "$solver" = RK4 ] && extra="--h-max 0.01"
    # shellcheck disable=SC2086
    check "$solver on a DAE mode: exit 2" \
        test "$(status_of "$hydae" run dae.hym --solver "$solver" $extra -o d.csv)" = 2
    check "$solver on a DAE mode: named" \
        grep -q "$solver solves explicit ODEs y' = f(t, y) only, but mode 'm' is written as a residual" "$work/err"
    check "$solver on a DAE mode: before the run (no time in the message)" \
        bash -c '! grep -q "t = " "$0"' "$work/err"
    check "$solver on a DAE mode: no result file" test ! -e d.csv
done
check "RK45 via --integrator_type: exit 2" \
    test "$(status_of "$hydae" run dae.hym --integrator_type RK45 -o d.csv)" = 2
check "DSTIFF on the DAE: exit 0" test "$(status_of "$hydae" run dae.hym -o d.csv --quiet)" = 0
check "RK45 on the ODE: exit 0" test "$(status_of "$hydae" run ode.hym --solver RK45 -o o.csv --quiet)" = 0
check "RK45 on an algebraic mode: exit 0" \
    test "$(status_of "$hydae" run algebraic.hym --solver RK45 -o a.csv --quiet)" = 0

# An explicit method on a stiff problem (van der Pol, mu = 1000, where the
# limit cycle is stiff): warned once, naming the stiff methods; not under
# --quiet, not with VSTIFF.
cat >vdp.hym <<'MODEL'
model vdp
  parameter Real mu = 1000;
  Real x(start = 2), v(start = 0);
equation
  der(x) = v;
  der(v) = mu * (1 - x^2) * v - x;
  experiment t_end = 20, dt = 0.1;
end vdp;
MODEL
check "RK45 on a stiff problem: exit 0" test "$(status_of "$hydae" run vdp.hym --solver RK45 -o v.csv)" = 0
check "... warned that it is stiff, once" test "$(grep -c "found the problem stiff" "$work/err")" = 1
check "... naming the stiff methods" grep -q "VSTIFF, DSTIFF or RADAU" "$work/err"
check "... not under --quiet" test "$(status_of "$hydae" run vdp.hym --solver RK45 -o v.csv --quiet)" = 0
check "... (nothing on stderr)" test ! -s "$work/err"
check "VSTIFF on it: no warning" test "$(status_of "$hydae" run vdp.hym --solver VSTIFF -o v.csv)" = 0
check "... (none)" test "$(grep -c "found the problem stiff" "$work/err")" = 0

finish
