#!/usr/bin/env bash
# Regression tests for issue 13's event defects, with the repro files in
# tests/repro/: D10, a reset landing exactly on the other mode's guard
# threshold (ping-pong), stops with exit 1 and a message naming both
# transitions (it ran 5 million events with exit 0); D6, sample(0, 1e-300),
# is refused at file:line:col with exit 2 (it hung); a period that only the
# run's span makes too fine (--tend) is refused naming the transition.
# Usage: cli_events.sh PATH_TO_HYDAE
set -u
hydae=$1
repro=$(cd "$(dirname "$0")" && pwd)/repro
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
n_fail=0
# expect WHAT EXIT_CODE PATTERN -- COMMAND...: the command exits with
# EXIT_CODE within 60 s and its standard error matches PATTERN.
expect() {
    local what=$1 code=$2 pattern=$3
    shift 4
    timeout 60 "$@" >"$scratch/out" 2>"$scratch/err"
    local got=$?
    if [ "$got" != "$code" ] || ! grep -q -- "$pattern" "$scratch/err"; then
        n_fail=$((n_fail + 1))
        echo "FAIL: $what (exit $got, want $code)"
        cat "$scratch/err"
    fi
}
expect "ping-pong" 1 "chattering at t = .*'ba' (b -> a), 'ab' (a -> b) fire each other" -- \
    "$hydae" run "$repro/chatter_undetected_pingpong.hym" -o "$scratch/pp.csv"
expect "tiny sample period" 2 \
    "hang_sample_tiny_period.hym:6:24: error: sample() period 1e-300 is below the time resolution" -- \
    "$hydae" run "$repro/hang_sample_tiny_period.hym" -o "$scratch/st.csv"
sed 's/1e-300/1e-9/' "$repro/hang_sample_tiny_period.hym" >"$scratch/fine.hym"
expect "fine period over a long span" 1 \
    "transition 'tick' (st -> st): the sample period 1e-09 is below the time resolution" -- \
    "$hydae" run "$scratch/fine.hym" --tend 1e4 -o "$scratch/fine.csv"
echo "$n_fail failed"
test "$n_fail" = 0
