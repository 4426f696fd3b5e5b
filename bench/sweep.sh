#!/bin/bash
# hydae sweep's throughput (issue 19): the string pendulum over a 400-run
# grid on 1 and 2 threads (wall time, runs per second, speed-up; the two
# tables must be equal but for the wall-time column), and the overhead of
# the sweep around the runs on one thread: elapsed time minus the sum of
# the runs' own wall times (the table's wall_s), per run, for a tiny model
# (one ODE, 11 output rows) where it matters most. Wall times on the shared
# 2-core machine vary with its load: run it on an idle machine.
# Usage: bash bench/sweep.sh [HYDAE_BINARY]   (default build/hydae; ~5 s)
set -e
hydae=${1:-build/hydae}
pendulum="$(dirname "$0")/../examples/string_pendulum.hym"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
now() { date +%s.%N; }
grid="--grid L=0.5:0.05:1.45 --grid kappa=0:0.01:0.19"
declare -A elapsed
for threads in 1 2; do
    start=$(now)
    "$hydae" sweep "$pendulum" $grid --measure 'count(stretch),first(unstretch),max(F)' \
        --threads "$threads" -o "$tmp/t$threads.csv" --quiet
    elapsed[$threads]=$(echo "$(now) - $start" | bc -l)
    printf "string pendulum, 400 runs, %d thread(s): %.3f s, %.0f runs/s\n" "$threads" \
        "${elapsed[$threads]}" "$(echo "400 / ${elapsed[$threads]}" | bc -l)"
done
strip() { awk -F, '!/^#/ { NF = NF - 1; print }' OFS=, "$1"; }
cmp <(strip "$tmp/t1.csv") <(strip "$tmp/t2.csv") && echo "tables on 1 and 2 threads: equal"
printf "speed-up at 2 threads: %.2f (load average now: %s)\n" \
    "$(echo "${elapsed[1]} / ${elapsed[2]}" | bc -l)" "$(cut -d' ' -f1 /proc/loadavg)"
cat > "$tmp/tiny.hym" <<'HYM'
model tiny
  parameter Real a = 1;
  Real x(start = 1);
equation
  der(x) = -a * x;
  experiment t_end = 1, dt = 0.1;
end tiny;
HYM
start=$(now)
"$hydae" sweep "$tmp/tiny.hym" --grid a=1 --threads 1 -o "$tmp/one.csv" --quiet
fixed=$(echo "$(now) - $start" | bc -l) # process start, compilation, one run
start=$(now)
"$hydae" sweep "$tmp/tiny.hym" --grid a=0.5:0.0005:1.4995 --threads 1 -o "$tmp/tiny.csv" --quiet
total=$(echo "$(now) - $start" | bc -l)
awk -F, -v total="$total" -v fixed="$fixed" 'NR > 1 && !/^#/ { runs += $NF; n++ }
    END { over = total - fixed - runs
          printf "tiny model, %d runs on 1 thread: %.3f s (%.3f s of it process start and compilation), ", n, total, fixed
          printf "the runs %.3f s: overhead %.1f us a run, %.0f%% of a run\n", runs, 1e6 * over / n, 100 * over / runs }' "$tmp/tiny.csv"
if command -v mpirun >/dev/null 2>&1 && ldd "$hydae" | grep -q libmpi; then
    start=$(now)
    OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 mpirun --oversubscribe -n 2 \
        "$hydae" sweep "$pendulum" $grid --measure 'count(stretch),first(unstretch),max(F)' \
        --threads 1 -o "$tmp/mpi.csv" --quiet
    mpi=$(echo "$(now) - $start" | bc -l)
    cmp <(strip "$tmp/t1.csv") <(strip "$tmp/mpi.csv") && \
        printf "mpirun -n 2, 1 thread each: %.3f s (MPI's start included), table equal\n" "$mpi"
fi
