#!/usr/bin/env bash
# The one command for the hydae vs SUNDIALS benchmarks, from anywhere:
#     bash bench/run.sh [bench_suite options]
# Installs libsundials-dev if missing, configures a Release build in
# build-bench/ with -DHYDAE_BENCH=ON, builds bench_suite, bench_dstiff_ida,
# bench_mech and bench_lang and runs them. Results in bench/results/:
#   suite.txt, suite.csv, work_precision.svg   every integrator vs SUNDIALS
#   dstiff_ida.txt, dstiff_ida.csv             DSTIFF vs IDA with FD Jacobians
#   mech.txt, mech.csv                         seed 002's Table 2 (bench_mech)
#   events.txt, events.csv                     events per second (bench_events)
#   lang.txt                                   the model language (bench_lang)
#   sparse.txt, sparse.csv                     sparse/band Jacobians (bench_sparse)
# Options (--min-time S, --pairing NAME, --problem NAME) go to bench_suite;
# --min-time also to bench_dstiff_ida and bench_mech.
#     bash bench/run.sh --lang
# runs only bench_lang (bytecode vs C, compile time), which needs no
# SUNDIALS: a Release build in build-bench-lang/.
#     bash bench/run.sh --mech [bench_mech options]
# runs only bench_mech (constrained mechanics: I3, SI1, ODE form vs IDA),
# e.g. --problem andrews, --min-time 0.5, --batches 7.
#     bash bench/run.sh --events [bench_events options]
# runs only bench_events (the bouncing ball e = 1 over 1e4 s: events per
# second and phase error, every integrator vs CVODE with its root finder),
# e.g. --reps 9; results in events.txt, events.csv.
#     bash bench/run.sh --sparse [bench_sparse options]
# runs only bench_sparse (Brusselator M = 1e3..1e6 and MEDAKZO, hydae's
# band/KLU solvers vs IDA/CVODE with band/KLU; about an hour on the loaded
# 2-core machine), e.g. --sizes 1e3,1e4 --reps 3 for a quick look.
#     bash bench/run.sh --sundials-O3 [any of the above]
# the same against SUNDIALS 6.4.1 built with optimisation from Debian's
# source package (bench/sundials_O3.sh: Debian's binaries are -O0), in
# build-bench-sunO3/; results in NAME_sundials_O3.txt / .csv (e.g.
# suite_sundials_O3.txt). --sparse-O3 is --sundials-O3 --sparse.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

if [ "${1:-}" = "--lang" ]; then
    build="$root/build-bench-lang"
    cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DHYDAE_BENCH=ON \
        -DHYDAE_BENCH_LANG_ONLY=ON
    cmake --build "$build" --target bench_lang -j "$(nproc 2>/dev/null || echo 2)"
    mkdir -p "$root/bench/results"
    "$build/bench/bench_lang" | tee "$root/bench/results/lang.txt"
    exit 0
fi

have_sundials() {
    [ -f /usr/include/ida/ida.h ] || return 1
    [ -f /usr/include/cvode/cvode.h ] || return 1
    [ -f /usr/include/arkode/arkode_erkstep.h ] || return 1
    local lib
    for lib in sundials_ida sundials_cvode sundials_arkode sundials_nvecserial \
               sundials_sunmatrixdense sundials_sunlinsoldense \
               sundials_sunnonlinsolfixedpoint sundials_sunmatrixband \
               sundials_sunlinsolband sundials_sunmatrixsparse sundials_sunlinsolklu; do
        compgen -G "/usr/lib/*/lib${lib}.so" >/dev/null \
            || compgen -G "/usr/lib/lib${lib}.so" >/dev/null \
            || compgen -G "/usr/local/lib/lib${lib}.so" >/dev/null \
            || return 1
    done
    # sunlinsol_klu.h includes SuiteSparse's klu.h (bench_sparse)
    [ -f /usr/include/suitesparse/klu.h ] || [ -f /usr/include/klu.h ] || return 1
}

if ! have_sundials; then
    echo "run.sh: SUNDIALS (IDA, CVODE, ARKODE, band/KLU modules) or KLU not found, installing libsundials-dev libsuitesparse-dev" >&2
    sudo=""
    if [ "$(id -u)" -ne 0 ]; then
        if command -v sudo >/dev/null 2>&1; then
            sudo="sudo"
        else
            echo "run.sh: not root and no sudo; install libsundials-dev yourself" >&2
            exit 1
        fi
    fi
    export DEBIAN_FRONTEND=noninteractive
    if ! $sudo apt-get install -y libsundials-dev libsuitesparse-dev; then
        $sudo apt-get update
        $sudo apt-get install -y libsundials-dev libsuitesparse-dev
    fi
fi

build="$root/build-bench"
results="$root/bench/results"
# --sundials-O3 first: every benchmark below against SUNDIALS built with
# optimisation (bench/sundials_O3.sh), results named *_sundials_O3.*.
cmake_prefix=()
suffix=""
if [ "${1:-}" = "--sparse-O3" ]; then
    set -- --sundials-O3 --sparse "${@:2}"
fi
if [ "${1:-}" = "--sundials-O3" ]; then
    shift
    cmake_prefix=(-DCMAKE_PREFIX_PATH="$(bash "$root/bench/sundials_O3.sh")")
    build="$root/build-bench-sunO3"
    suffix="_sundials_O3"
fi
configure() {
    cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DHYDAE_BENCH=ON \
        ${cmake_prefix[@]+"${cmake_prefix[@]}"}
}

if [ "${1:-}" = "--events" ]; then
    shift
    configure
    cmake --build "$build" --target bench_events -j "$(nproc 2>/dev/null || echo 2)"
    mkdir -p "$results"
    "$build/bench/bench_events" --csv "$results/events$suffix.csv" "$@" | tee "$results/events$suffix.txt"
    exit 0
fi

mech_only=0
if [ "${1:-}" = "--mech" ]; then
    mech_only=1
    shift
fi
sparse_only=0
if [ "${1:-}" = "--sparse" ]; then
    sparse_only=1
    shift
fi


if [ "$mech_only" = 1 ]; then
    configure
    cmake --build "$build" --target bench_mech -j "$(nproc 2>/dev/null || echo 2)"
    mkdir -p "$results"
    "$build/bench/bench_mech" --csv "$results/mech$suffix.csv" "$@" | tee "$results/mech$suffix.txt"
    exit 0
fi

if [ "$sparse_only" = 1 ]; then
    configure
    cmake --build "$build" --target bench_sparse -j "$(nproc 2>/dev/null || echo 2)"
    mkdir -p "$results"
    "$build/bench/bench_sparse" --csv "$results/sparse$suffix.csv" "$@" | tee "$results/sparse$suffix.txt"
    exit 0
fi

# --min-time applies to all three SUNDIALS programs.
dstiff_ida_options=()
args=("$@")
for ((i = 0; i < ${#args[@]}; i++)); do
    if [ "${args[i]}" = "--min-time" ] && [ $((i + 1)) -lt ${#args[@]} ]; then
        dstiff_ida_options=(--min-time "${args[i + 1]}")
    fi
done

configure
cmake --build "$build" --target bench_suite bench_dstiff_ida bench_mech bench_events \
    bench_lang bench_sparse -j "$(nproc 2>/dev/null || echo 2)"

mkdir -p "$results"
"$build/bench/bench_suite" --csv "$results/suite$suffix.csv" \
    --svg "$results/work_precision$suffix.svg" "$@" | tee "$results/suite$suffix.txt"
echo
"$build/bench/bench_dstiff_ida" --csv "$results/dstiff_ida$suffix.csv" \
    ${dstiff_ida_options[@]+"${dstiff_ida_options[@]}"} | tee "$results/dstiff_ida$suffix.txt"
echo
"$build/bench/bench_mech" --csv "$results/mech$suffix.csv" \
    ${dstiff_ida_options[@]+"${dstiff_ida_options[@]}"} | tee "$results/mech$suffix.txt"
echo
"$build/bench/bench_events" --csv "$results/events$suffix.csv" | tee "$results/events$suffix.txt"
echo
"$build/bench/bench_lang" | tee "$results/lang$suffix.txt"
echo
"$build/bench/bench_sparse" --csv "$results/sparse$suffix.csv" | tee "$results/sparse$suffix.txt"
