#!/bin/bash
# The Brusselator with 2M unknowns as a model file against the same model
# through the C API with hand-written residual and Jacobian (issue 20's
# target: the .hym run within 1.2x). examples/brusselator.hym with its
# constant M edited, run by `hydae run --backend native --vars 'u[1]'`
# (one column written), against bench/brusselator_capi.c (the equations of
# examples/brusselator.c, no rows written); both DSTIFF, t in [0, 10],
# output every 1, rtol = atol = 1e-6, linear_solver auto. Whole processes
# under /usr/bin/time: loading and compiling the model file counts. One
# cold .hym run first (native code generated and compiled into an empty
# cache), then REPS pairs interleaved (C API, .hym with its code cached);
# medians of wall and user time, peak RSS, and the ratios.
#
# Usage: bash bench/brusselator_hym.sh [BUILD_DIR [M [REPS]]]
#        (default build, 100000, 3; M = 1000000 takes about 3 minutes a pair)
set -e
build=${1:-build}
m=${2:-100000}
reps=${3:-3}
here="$(cd "$(dirname "$0")/.." && pwd)"
build="$(cd "$build" && pwd)"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cc -O2 -I"$here/include" -I"$here/examples" "$here/bench/brusselator_capi.c" \
    "$here/examples/brusselator.c" -L"$build" -lhydae -lm -Wl,-rpath,"$build" -o "$tmp/capi"
sed "s/constant Real M = 100;/constant Real M = $m;/" "$here/examples/brusselator.hym" >"$tmp/bruss.hym"
grep -q "constant Real M = $m;" "$tmp/bruss.hym" || { echo "could not set M in the model" >&2; exit 1; }
export XDG_CACHE_HOME="$tmp/cache"
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
timed() { # label command... -> "label wall user rss_kb" appended to $tmp/times
    local label=$1
    shift
    /usr/bin/time -f "$label %e %U %M" -o "$tmp/one" "$@" >"$tmp/out_$label" 2>"$tmp/err_$label" \
        || { echo "$label failed:" >&2; cat "$tmp/err_$label" >&2; exit 1; }
    cat "$tmp/one" >>"$tmp/times"
}
hym_run=("$build/hydae" run "$tmp/bruss.hym" --backend native --vars 'u[1]' -o "$tmp/u1.csv" --stats)
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
timed cold "${hym_run[@]}"
for rep in $(seq "$reps"); do
    timed capi "$tmp/capi" "$m"
    timed hym "${hym_run[@]}"
done
echo "load average after:  $(cut -d' ' -f1-3 /proc/loadavg)"
steps_capi=$(awk '/^steps/ { print $2 }' "$tmp/out_capi")
steps_hym=$(awk '$1 == "steps" { print $2; exit }' "$tmp/out_hym" "$tmp/err_hym")
printf "Brusselator, 2M = %d unknowns; steps: C API %s, .hym %s\n" $((2 * m)) "$steps_capi" "$steps_hym"
awk '$1 == "cold" { printf "  .hym, cold cache (generates and compiles its C): %.2f s wall, %.2f s user, %.0f MB\n", $2, $3, $4 / 1024 }' "$tmp/times"
for k in capi hym; do
    w=$(awk -v k=$k '$1 == k { print $2 }' "$tmp/times" | median)
    u=$(awk -v k=$k '$1 == k { print $3 }' "$tmp/times" | median)
    r=$(awk -v k=$k '$1 == k { print $4 }' "$tmp/times" | median)
    eval "wall_$k=$w user_$k=$u"
    printf "  %-5s median of %d: %.2f s wall, %.2f s user, %.0f MB peak (wall: %s)\n" "$k" "$reps" "$w" "$u" \
        "$(echo "$r / 1024" | bc -l)" "$(awk -v k=$k '$1 == k { printf "%s ", $2 }' "$tmp/times")"
done
printf "  .hym / C API: wall %.3f, user %.3f\n" "$(echo "$wall_hym / $wall_capi" | bc -l)" \
    "$(echo "$user_hym / $user_capi" | bc -l)"
