#!/bin/bash
# hydae sweep's throughput and overhead (issue 19, docs/sweep.md).
#
# Throughput: the string pendulum over a 400-run grid on 1 thread, 2
# threads and (in a build with MPI) 2 MPI ranks of 1 thread, REPS times
# each, the three interleaved (1, 2, mpi, 1, 2, mpi, ...) so that a change
# of the shared machine's load falls on all of them; the medians, the
# speed-ups of the medians, and the load average before and after. The
# tables must be equal but for the wall-time column.
#
# Overhead (callgrind instruction counts, not time): a tiny model (one
# ODE, 11 output rows), N runs through hydae_sweep_run on 1 thread against
# the same N runs made by hand in one process (one sim, hydae_sim_set_param
# and hydae_sim_run per run), both from bench/sweep_overhead.c linked with
# libhydae.so; the same runs with a new sim each (as the sweep made them
# before it reused each thread's sim); and `hydae sweep` (which also
# formats a CSV row per run: about 10,000 instructions of printf's %.17g).
# Each figure is (count at N + 1 runs - count at 1 run) / N.
#
# Usage: bash bench/sweep.sh [BUILD_DIR [REPS]]   (default build, 5; ~1 min)
# SWEEP_BENCH_GRID="--grid ... --grid ..." replaces the 400-run grid (a
# longer study shows MPI's speed-up past its start, about 0.4 s).
set -e
build=${1:-build}
reps=${2:-5}
hydae="$build/hydae"
here="$(cd "$(dirname "$0")/.." && pwd)"
pendulum="$here/examples/string_pendulum.hym"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
now() { date +%s.%N; }
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
strip() { awk -F, '!/^#/ { NF = NF - 1; print }' OFS=, "$1"; }
grid=${SWEEP_BENCH_GRID:-"--grid L=0.5:0.05:1.45 --grid kappa=0:0.01:0.19"}
measures='count(stretch),first(unstretch),max(F)'
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
have_mpi=0
if command -v mpirun >/dev/null 2>&1 && ldd "$hydae" | grep -q libmpi; then have_mpi=1; fi
kinds="1 2"
[ "$have_mpi" = 1 ] && kinds="1 2 mpi"

echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
for rep in $(seq "$reps"); do
    for kind in $kinds; do
        start=$(now)
        if [ "$kind" = mpi ]; then
            mpirun --oversubscribe -n 2 "$hydae" sweep "$pendulum" $grid --measure "$measures" \
                --threads 1 -o "$tmp/t$kind.csv" --quiet
        else
            "$hydae" sweep "$pendulum" $grid --measure "$measures" --threads "$kind" \
                -o "$tmp/t$kind.csv" --quiet
        fi
        echo "$(now) - $start" | bc -l >>"$tmp/times_$kind"
    done
done
echo "load average after:  $(cut -d' ' -f1-3 /proc/loadavg)"
n_runs=$(grep -vc '^[r#]' "$tmp/t1.csv")
for kind in $kinds; do
    cmp <(strip "$tmp/t1.csv") <(strip "$tmp/t$kind.csv") || { echo "table of $kind differs"; exit 1; }
    m=$(median <"$tmp/times_$kind")
    eval "median_$kind=$m"
    printf "string pendulum, %d runs, %-28s median of %d: %.3f s, %.0f runs/s (all: %s)\n" \
        "$n_runs" "$([ "$kind" = mpi ] && echo "mpirun -n 2, 1 thread each:" || echo "$kind thread(s):")" \
        "$reps" "$m" "$(echo "$n_runs / $m" | bc -l)" \
        "$(xargs printf '%.3f ' <"$tmp/times_$kind")"
done
echo "tables equal on every kind (all but wall_s)"
printf "speed-up of the medians, 2 threads: %.2f\n" "$(echo "$median_1 / $median_2" | bc -l)"
[ "$have_mpi" = 1 ] && printf "speed-up of the medians, 2 MPI ranks (MPI's start included): %.2f\n" \
    "$(echo "$median_1 / $median_mpi" | bc -l)"

command -v valgrind >/dev/null 2>&1 || { echo "no valgrind: no overhead figures"; exit 0; }
[ -e "$build/libhydae.so" ] || { echo "no $build/libhydae.so (build the target hydae): no overhead figures"; exit 0; }
cat > "$tmp/tiny.hym" <<'HYM'
model tiny
  parameter Real a = 1;
  Real x(start = 1);
equation
  der(x) = -a * x;
  experiment t_end = 1, dt = 0.1;
end tiny;
HYM
cc -O2 -I"$here/include" "$here/bench/sweep_overhead.c" -L"$build" -lhydae \
    -Wl,-rpath,"$(cd "$build" && pwd)" -o "$tmp/sweep_overhead"
instructions() { valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" 2>&1 \
    | awk '/Collected/ { print $NF }'; }
n=1000
per_run() { # command (its last argument the number of runs) -> instructions per run
    local one many
    one=$(instructions "$@" 1)
    many=$(instructions "$@" $((n + 1)))
    echo $(((many - one) / n))
}
runs=$(per_run "$tmp/sweep_overhead" "$tmp/tiny.hym" runs)
fresh=$(per_run "$tmp/sweep_overhead" "$tmp/tiny.hym" fresh)
swept=$(per_run "$tmp/sweep_overhead" "$tmp/tiny.hym" sweep)
cli_one=$(instructions "$hydae" sweep "$tmp/tiny.hym" --grid a=1 --measure x --threads 1 -o /dev/null --quiet)
cli_many=$(instructions "$hydae" sweep "$tmp/tiny.hym" --grid a=0.5:0.001:1.5 --measure x --threads 1 \
    -o /dev/null --quiet)
cli=$(((cli_many - cli_one) / n))
printf "tiny model, instructions per run: by hand %d; a new sim per run %d (+%d, %.1f%%); " \
    "$runs" "$fresh" $((fresh - runs)) "$(echo "100 * ($fresh - $runs) / $runs" | bc -l)"
printf "hydae_sweep_run %d (+%d, %.1f%%); " \
    "$swept" $((swept - runs)) "$(echo "100 * ($swept - $runs) / $runs" | bc -l)"
printf "hydae sweep -o CSV %d (+%d, %.1f%%)\n" "$cli" $((cli - runs)) \
    "$(echo "100 * ($cli - $runs) / $runs" | bc -l)"
