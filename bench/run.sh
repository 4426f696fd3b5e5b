#!/usr/bin/env bash
# The one command for the DSTIFF vs SUNDIALS IDA benchmark, from the
# repository root:   bash bench/run.sh [extra bench_dstiff_ida options]
# Installs libsundials-dev if missing, configures a Release build in
# build-bench/ with -DHYDAE_BENCH=ON, builds bench_dstiff_ida and runs it;
# table to stdout and bench/results/dstiff_ida.txt, CSV to
# bench/results/dstiff_ida.csv.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

have_sundials() {
    [ -f /usr/include/ida/ida.h ] || return 1
    local lib
    for lib in sundials_ida sundials_nvecserial sundials_sunmatrixdense sundials_sunlinsoldense; do
        compgen -G "/usr/lib/*/lib${lib}.so" >/dev/null \
            || compgen -G "/usr/lib/lib${lib}.so" >/dev/null \
            || compgen -G "/usr/local/lib/lib${lib}.so" >/dev/null \
            || return 1
    done
}

if ! have_sundials; then
    echo "run.sh: SUNDIALS IDA not found, installing libsundials-dev" >&2
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
    if ! $sudo apt-get install -y libsundials-dev; then
        $sudo apt-get update
        $sudo apt-get install -y libsundials-dev
    fi
fi

build="$root/build-bench"
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DHYDAE_BENCH=ON
cmake --build "$build" --target bench_dstiff_ida -j "$(nproc 2>/dev/null || echo 2)"

mkdir -p "$root/bench/results"
"$build/bench/bench_dstiff_ida" --csv "$root/bench/results/dstiff_ida.csv" "$@" \
    | tee "$root/bench/results/dstiff_ida.txt"
