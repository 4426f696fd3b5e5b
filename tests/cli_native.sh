#!/usr/bin/env bash
# The native backend on the command line (docs/language.md, "Backends"):
# every example .hym gives the same result rows, byte for byte, with
# --backend native as with --backend vm; a second run loads the cached code
# (--stats says so) and `hydae cache clean` removes it; --no-cache leaves
# nothing; a missing compiler (HYDAE_CC) is an error with exit 2 for
# native and the bytecode with a note for auto; a bad --backend is a usage
# error. Runs in a private cache (XDG_CACHE_HOME); skipped (77) without cc.
# Usage: cli_native.sh PATH_TO_HYDAE
set -u
hydae=$1
here=$(cd "$(dirname "$0")/.." && pwd)
source "$here/tests/lib/check.sh"
export XDG_CACHE_HOME="$work/cache"
unset HYDAE_CC HYDAE_CFLAGS HYDAE_BACKEND HYDAE_NO_CACHE
command -v cc >/dev/null || { echo "no cc: skipped"; exit 77; }

for model in "$here"/examples/*.hym; do
    name=$(basename "$model" .hym)
    check "$name.hym runs on the VM" test "$(status_of "$hydae" run "$model" --backend vm -o "$name.vm.csv" --quiet)" = 0
    check "$name.hym runs natively" test "$(status_of "$hydae" run "$model" --backend native -o "$name.native.csv" --quiet --stats)" = 0
    check "$name.hym: native code used" grep -q "^backend: native" "$work/err"
    check "$name.hym: the same rows" cmp -s "$name.vm.csv" "$name.native.csv"
done
pendulum="$here/examples/string_pendulum.hym"
check "cache clean" test "$(status_of "$hydae" cache clean)" = 0
check "cache clean: files removed" grep -q "removed [1-9][0-9]* cached files" "$work/out"
check "first run" test "$(status_of "$hydae" run "$pendulum" --backend native --stats -o p.csv)" = 0
check "first run compiles" grep -q "^backend: native.* compiled in" "$work/err"
check "second run" test "$(status_of "$hydae" run "$pendulum" --backend native --stats -o p.csv)" = 0
check "second run from the cache" grep -q "^backend: native.* loaded from the cache" "$work/err"
# --stats-json: the backend, the compile time (the --stats line's, to
# its 0.1 ms), whether the cache had it.
check "stats-json, cached run" test "$(status_of "$hydae" run "$pendulum" --backend native --stats --stats-json s.json -o p.csv)" = 0
check "stats-json: backend native from the cache" python3 -c '
import json, re, sys
j = json.load(open("s.json"))
ms = float(re.search(r"loaded from the cache in ([0-9.]+) ms", open(sys.argv[1]).read()).group(1))
assert j["backend"] == "native" and j["native_cache_hit"] is True and j["native_compiler_runs"] == 0, j
assert abs(1e3 * j["native_compile_seconds"] - ms) <= 0.051, (j, ms)
assert j["native_compiler"].startswith("cc ") and j["native_programs"] > 0 and j["native_source_bytes"] > 0, j
' "$work/err"
check "stats-json, fresh compile" test "$(status_of "$hydae" run "$pendulum" --backend native --no-cache --stats-json s.json -o p.csv)" = 0
check "stats-json: compiled, not cached" python3 -c '
import json
j = json.load(open("s.json"))
assert j["backend"] == "native" and j["native_cache_hit"] is False and j["native_compiler_runs"] == 1, j
assert j["native_compile_seconds"] > 0, j
'
check "stats-json, the VM" test "$(status_of "$hydae" run "$pendulum" --backend vm --stats-json s.json -o p.csv)" = 0
check "stats-json: backend bytecode" python3 -c '
import json
j = json.load(open("s.json"))
assert j["backend"] == "bytecode" and "native_compile_seconds" not in j, j
'
check "stats-json, a built-in example" test "$(status_of "$hydae" run --example bouncing_ball --stats-json s.json -o p.csv)" = 0
check "stats-json: no backend" python3 -c 'import json; assert json.load(open("s.json"))["backend"] is None'
check "the environment chooses too" test "$(HYDAE_BACKEND=native status_of "$hydae" run "$pendulum" --stats -o p.csv)" = 0
check "HYDAE_BACKEND=native" grep -q "^backend: native" "$work/err"
check "the VM by default" test "$(status_of "$hydae" run "$pendulum" --stats -o p.csv)" = 0
check "the VM by default: said" grep -q "^backend: bytecode" "$work/err"
check "check --backend native" test "$(status_of "$hydae" check --backend native "$pendulum")" = 0
check "check --backend native: said" grep -q "^backend: native" "$work/out"
"$hydae" cache clean >/dev/null
check "--no-cache runs" test "$(status_of "$hydae" run "$pendulum" --backend native --no-cache -o p.csv --quiet)" = 0
check "--no-cache keeps nothing" test -z "$(ls "$XDG_CACHE_HOME/hydae")"
check "the cache directory is private" test "$(stat -c %a "$XDG_CACHE_HOME/hydae")" = 700
check "no compiler, native: exit 2" test "$(HYDAE_CC=/nonexistent status_of "$hydae" run "$pendulum" --backend native -o q.csv)" = 2
check "no compiler, native: said" grep -q "error: native backend: no C compiler '/nonexistent'" "$work/err"
check "no compiler, auto: runs" test "$(HYDAE_CC=/nonexistent status_of "$hydae" run "$pendulum" --backend auto -o q.csv --stats)" = 0
check "no compiler, auto: a note" grep -q "note: native backend unavailable" "$work/err"
check "no compiler, auto: the bytecode" grep -q "^backend: bytecode" "$work/err"
check "a failing compiler, native: exit 2" test "$(HYDAE_CC=false status_of "$hydae" run "$pendulum" --backend native -o q.csv)" = 2
check "a failing compiler: said" grep -q "error: native backend: the C compiler failed" "$work/err"
check "bad --backend: exit 2" test "$(status_of "$hydae" run "$pendulum" --backend fast)" = 2
check "bad --backend: said" grep -q "backend is native, vm or auto, not 'fast'" "$work/err"
check "bad HYDAE_BACKEND: exit 2" test "$(HYDAE_BACKEND=fast status_of "$hydae" run "$pendulum" -o q.csv)" = 2

finish
