#!/usr/bin/env bash
# `mpirun -n 2 hydae sweep` (issue 19, src/cli/sweep_mpi.c): the string
# pendulum's 2-D grid and a Monte Carlo sample give, across two MPI ranks
# of two threads each, the table of one process on one thread, to the bit
# (all but the wall time). Skipped (77) without mpirun or in a build
# without MPI. Usage: cli_sweep_mpi.sh PATH_TO_HYDAE
set -u
hydae=$1
here=$(cd "$(dirname "$0")/.." && pwd)
command -v mpirun >/dev/null 2>&1 || { echo "no mpirun: skipped"; exit 77; }
ldd "$hydae" 2>/dev/null | grep -q libmpi || { echo "hydae built without MPI: skipped"; exit 77; }
. "$here/tests/lib/check.sh"
pendulum="$here/examples/string_pendulum.hym"
# Root in a container: Open MPI's own guard (CI runs as root).
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# Under AddressSanitizer: Open MPI's own memory at exit (its components,
# unloaded by then) shows as leaks; hydae sweep's own is leak-checked
# without MPI by cli_sweep.sh.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
without_wall() { awk -F, '!/^#/ { NF = NF - 1; print }' OFS=, "$1"; }

grid="--grid L=0.8:0.05:1.2 --grid kappa=0,0.02,0.05,0.1"
measures="count(stretch),first(unstretch),max(F),integral(F)"
"$hydae" sweep "$pendulum" $grid --measure "$measures" --threads 1 -o one.csv --quiet
check "grid over 2 ranks" timeout 120 mpirun --oversubscribe -n 2 "$hydae" sweep "$pendulum" \
    $grid --measure "$measures" --threads 2 -o mpi.csv --quiet
check "36 rows" test "$(grep -vc '^run' mpi.csv)" -eq 36
check "grid: the table of one process" cmp <(without_wall one.csv) <(without_wall mpi.csv)

sample="--sample 40 --dist kappa=normal(0.05,0.005) --dist L=uniform(0.9,1.1) --seed 7"
"$hydae" sweep "$pendulum" $sample --measure "count(stretch)" --threads 1 -o mc1.csv --quiet
check "sample over 2 ranks" timeout 120 mpirun --oversubscribe -n 2 "$hydae" sweep "$pendulum" \
    $sample --measure "count(stretch)" --threads 2 -o mcmpi.csv --quiet
check "sample: the table of one process" cmp <(without_wall mc1.csv) <(without_wall mcmpi.csv)
# Failed runs over ranks: a rank's rows travel packed with its next request,
# each status text at its own length. x' = a x^2 from 1 blows up at t = 1/a,
# inside t_end = 1 for a > 1: 600 runs (several chunks per rank), two thirds
# of them failing with a message, the rows equal to one process's.
cat >blowup.hym <<'EOF'
model blowup
  parameter Real a = 1;
  Real x(start = 1);
equation
  der(x) = a * x^2;
  experiment t_end = 1, dt = 0.5;
end blowup;
EOF
"$hydae" sweep blowup.hym --grid a=0.005:0.005:3 --measure "max(x)" --threads 1 -o fail1.csv --quiet
check "failures over 2 ranks: exit status 1" test "$(timeout 120 mpirun --oversubscribe -n 2 "$hydae" sweep \
    blowup.hym --grid a=0.005:0.005:3 --measure "max(x)" --threads 1 -o failmpi.csv --quiet; echo $?)" -eq 1
check "600 rows" test "$(grep -vc '^run' failmpi.csv)" -eq 600
check "the failures with their message" test "$(grep -c 'step size fell below' failmpi.csv)" -ge 390
check "failures: the table of one process" cmp <(without_wall fail1.csv) <(without_wall failmpi.csv)
finish
