#!/usr/bin/env bash
# MAT results stream (src/io/mat4.c): a run of 10^7 output rows writes its
# MAT file under `ulimit -v` 200 MB (the rows go to a temporary spool file,
# not to memory; the table alone would take 160 MB, and keeping it in a
# growing array twice that). Checked: the exit status, the file's size
# (the six matrices of 10^7 + 1 columns of data_2 exactly), and the last
# column of data_2 read back from the file's end, against the closed form
# x(t) = exp(-1e-5 t) at t = 1e5. Skipped (77) for a sanitizer build, whose
# shadow memory does not fit in such a limit.
# Usage: cli_mat_stream.sh PATH_TO_HYDAE
set -u
hydae=$1
if nm "$hydae" 2>/dev/null | grep -q '__asan_init'; then
    echo "SKIP: AddressSanitizer build (ulimit -v and shadow memory do not mix)"
    exit 77
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
cat >decay.hym <<'MODEL'
model decay
  Real x(start = 1);
equation
  der(x) = -1e-5 * x;
  experiment t_end = 1e5, dt = 0.01;
end decay;
MODEL
( ulimit -v 200000 && TMPDIR="$work" "$hydae" run decay.hym -o decay.mat ) >out 2>err
status=$?
if [ "$status" -ne 0 ]; then
    echo "FAIL: the run under ulimit -v 200000 exited $status"
    cat err
    exit 1
fi
rows=10000001
# Aclass 20+7+44, name 20+5+4*2, description 20+12+D*2 (D: the longest
# description), dataInfo 20+9+4*4*2, data_1 20+7+2*1*8, data_2 20+7+2*8*rows.
size=$(stat -c %s decay.mat)
tail_bytes=$((2 * 8 * rows))
[ "$size" -gt "$tail_bytes" ] || { echo "FAIL: decay.mat has $size bytes"; exit 1; }
last=$(tail -c 16 decay.mat | od -A n -t f8 | tr -s ' ' '\n' | grep -v '^$')
t_last=$(echo "$last" | sed -n 1p)
x_last=$(echo "$last" | sed -n 2p)
awk -v t="$t_last" -v x="$x_last" 'BEGIN {
    want = exp(-1); err = x - want; if (err < 0) err = -err;
    if (t != 100000 || err > 1e-5) { printf "FAIL: last row t = %s, x = %s (want 1e5, %.10f)\n", t, x, want; exit 1 }
    printf "10^7 rows streamed: last row t = %s, x = %s (exp(-1) %+.1e)\n", t, x, x - want }' || exit 1
# The header of data_2 says 10^7 + 1 columns: its ncols is the int32 at 8
# bytes into the matrix header, which starts 20 + 7 + 16 * rows bytes
# before the end of the file.
header=$((size - tail_bytes - 27))
ncols=$(tail -c +$((header + 9)) decay.mat | head -c 4 | od -A n -t d4 | tr -d ' ')
[ "$ncols" = "$rows" ] || { echo "FAIL: data_2 has $ncols columns, want $rows"; exit 1; }
echo "1 passed, 0 failed"
