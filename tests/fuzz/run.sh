#!/usr/bin/env bash
# Fuzz hydae for a bounded time (see tests/fuzz/README.md).
#
#   tests/fuzz/run.sh TARGET SECONDS [LIBFUZZER_FLAG...]   one target
#   tests/fuzz/run.sh all SECONDS [LIBFUZZER_FLAG...]      each target in turn
#   tests/fuzz/run.sh repro TARGET FILE...                 run inputs once
#   tests/fuzz/run.sh minimize TARGET FILE                 shrink a crash
#
# TARGET: fuzz_model, fuzz_settings_xml, fuzz_csv, fuzz_mat or fuzz_fmi_description
# (only in a build with FMI import: libzip and expat). Builds them first if
# needed (clang, HYDAE_FUZZ=ON) in $HYDAE_FUZZ_BUILD (default build-fuzz).
# One fuzzer process at a time, each with -max_total_time=SECONDS,
# -rss_limit_mb=2048 and -timeout=10. New inputs go to
# $HYDAE_FUZZ_BUILD/fuzz-corpus/TARGET (the seeds in corpus/TARGET are only
# read), findings to $HYDAE_FUZZ_BUILD/fuzz-findings/TARGET/, logs to
# $HYDAE_FUZZ_BUILD/fuzz-logs/TARGET.log. Exit status 0 when no target
# found anything, 1 after any finding (its file is named at the end), 2 for
# a usage or build error.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${HYDAE_FUZZ_BUILD:-$root/build-fuzz}
targets="fuzz_model fuzz_settings_xml fuzz_csv fuzz_mat fuzz_fmi_description"

usage() {
    sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//' >&2
    exit 2
}

dict_of() {
    case $1 in
    fuzz_model) echo "$here/model.dict" ;;
    fuzz_settings_xml) echo "$here/xml.dict" ;;
    fuzz_csv) echo "$here/csv.dict" ;;
    fuzz_mat) echo "$here/mat.dict" ;;
    fuzz_fmi_description) echo "$here/fmi.dict" ;;
    esac
}

is_target() {
    case " $targets " in *" $1 "*) return 0 ;; esac
    return 1
}

build_targets() {
    if [ ! -f "$build/CMakeCache.txt" ]; then
        command -v clang >/dev/null 2>&1 || {
            echo "run.sh: clang is missing (Debian: clang libclang-rt-14-dev; ./setup.sh installs them)" >&2
            exit 2
        }
        cmake -S "$root" -B "$build" -DCMAKE_C_COMPILER=clang -DHYDAE_FUZZ=ON \
            -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null || exit 2
    fi
    cmake --build "$build" -j "${HYDAE_JOBS:-2}" --target "$@" >/dev/null || {
        echo "run.sh: the build failed: cmake --build $build --target $*" >&2
        exit 2
    }
}

binary() {
    echo "$build/tests/fuzz/$1"
}

# fuzz TARGET SECONDS [FLAG...]: 0, or 1 with the finding named.
fuzz() {
    local target=$1 seconds=$2
    shift 2
    local work="$build/fuzz-corpus/$target" findings="$build/fuzz-findings/$target"
    local log="$build/fuzz-logs/$target.log"
    mkdir -p "$work" "$findings" "$(dirname "$log")"
    echo "== $target: $seconds s (log: $log)"
    local stamp="$build/fuzz-logs/$target.started"
    touch "$stamp"
    "$(binary "$target")" -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=10 \
        -print_final_stats=1 -dict="$(dict_of "$target")" \
        -artifact_prefix="$findings/" "$@" "$work" "$here/corpus/$target" >"$log" 2>&1
    local status=$?
    # The final statistics; with -fork=N the last progress line instead
    # ("#366464: cov: ... time: 615s").
    local execs speed
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    speed=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
    if [ -z "$execs" ]; then
        local last
        last=$(grep -E '^#[0-9]+: cov:' "$log" | tail -1)
        execs=$(echo "$last" | sed -n 's/^#\([0-9]*\):.*/\1/p')
        local time
        time=$(echo "$last" | sed -n 's/.* time: \([0-9]*\)s.*/\1/p')
        [ -n "$execs" ] && [ -n "$time" ] && [ "$time" -gt 0 ] && speed=$((execs / time))
    fi
    echo "   ${execs:-?} executions, ${speed:-?} per second, corpus $(ls "$work" | wc -l) inputs"
    # Every file libFuzzer wrote in this run (crash-, timeout-, leak-,
    # oom-, slow-unit-...), also those of -fork's workers.
    local written
    written=$(find "$findings" -type f -newer "$stamp" | sort)
    if [ $status -ne 0 ] || [ -n "$written" ]; then
        grep -E '^(==[0-9]+==ERROR|SUMMARY|.*runtime error|fuzz_[a-z_]*: )' "$log" | sort | uniq -c \
            | sort -rn | head -5 | sed 's/^/   /'
        for file in $written; do
            echo "   FINDING: $file"
        done
        [ -z "$written" ] || echo "   reproduce one: $0 repro $target FILE"
        [ -n "$written" ] || echo "   FAILED (status $status) without a finding file: see $log"
        return 1
    fi
    return 0
}

[ $# -ge 2 ] || usage
case $1 in
repro)
    is_target "$2" || usage
    [ $# -ge 3 ] || usage
    build_targets "$2"
    target=$2
    shift 2
    exec "$(binary "$target")" -timeout=10 -rss_limit_mb=2048 "$@"
    ;;
minimize)
    is_target "$2" || usage
    [ $# -eq 3 ] || usage
    build_targets "$2"
    out="$3.min"
    "$(binary "$2")" -minimize_crash=1 -max_total_time=120 -timeout=10 -rss_limit_mb=2048 \
        -exact_artifact_path="$out" "$3"
    [ -f "$out" ] || { echo "run.sh: no smaller input found; $3 stays as it is" >&2; exit 1; }
    echo "minimised: $out ($(wc -c <"$out") bytes, from $(wc -c <"$3"))"
    exit 0
    ;;
esac

selected=$1
seconds=$2
shift 2
case $seconds in '' | *[!0-9]*) usage ;; esac
if [ "$selected" = all ]; then
    selected=$targets
else
    is_target "$selected" || usage
fi
# shellcheck disable=SC2086 # the list of targets
build_targets $selected
failed=0
for target in $selected; do
    fuzz "$target" "$seconds" "$@" || failed=1
done
exit $failed
