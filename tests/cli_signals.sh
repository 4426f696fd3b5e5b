#!/usr/bin/env bash
# SIGINT and SIGTERM during a long run (issue 13, D8; tests/repro/
# sigint_longrun.hym): the run stops at a step boundary with exit 130 /
# 143; the CSV ends with the "# hydae: stopped early" line after complete
# rows only, and `hydae plot` reads it; the MAT file is read by
# scipy.io.loadmat (the test FAILS without scipy) and carries the mark
# hydae_status; a CSV cut in the middle of a row (a process killed by
# SIGKILL) is plotted without its last row, with a note.
# Usage: cli_signals.sh PATH_TO_HYDAE
set -u
hydae=$1
here=$(cd "$(dirname "$0")/.." && pwd)
. "$here/tests/lib/check.sh"
cp "$here/tests/repro/sigint_longrun.hym" longrun.hym
py=""
for candidate in python3 /usr/bin/python3; do
    if command -v "$candidate" >/dev/null 2>&1 && "$candidate" -c "import scipy.io" 2>/dev/null; then
        py=$candidate
        break
    fi
done

# Wait (at most 60 s) until a file matching the glob has at least $2 bytes.
wait_for_bytes() {
    for _ in $(seq 600); do
        for f in $1; do
            [ -f "$f" ] && [ "$(wc -c <"$f")" -ge "$2" ] && return 0
        done
        sleep 0.1
    done
    return 1
}

# run_and_signal SIGNAL OUTPUT: run longrun.hym in the background with -o
# OUTPUT, signal it once rows are being written, the exit status in $code.
run_and_signal() {
    "$hydae" run longrun.hym --dt 0.01 --quiet -o "$2" 2>"$2.err" &
    local pid=$!
    case $2 in
    *.csv) wait_for_bytes ".$2.*" 20000 ;;
    *) wait_for_bytes ".$2.*" 0 && sleep 1 ;; # a MAT file is written at the end
    esac
    kill "-$1" "$pid"
    wait "$pid"
    code=$?
}

# The CSV: complete rows, then the mark as its last line.
csv_is_complete() {
    python3 - "$1" <<'EOF'
import csv, math, sys
lines = open(sys.argv[1]).read().split("\n")
assert lines[-1] == "", "no line end at the end of the file"
assert lines[-2].startswith("# hydae: stopped early at t = "), lines[-2]
assert "interrupted at t = " in lines[-2], lines[-2]
rows = list(csv.reader(lines[1:-2]))
header = lines[0].split(",")
assert header == ["time", "x", "v"], header
assert len(rows) > 100, len(rows)
for row in rows:
    assert len(row) == 3, row
    assert all(math.isfinite(float(c)) for c in row), row
t_stop = float(lines[-2].split("t = ")[1].split(":")[0])
assert float(rows[-1][0]) <= t_stop, (rows[-1][0], t_stop)
EOF
}

for signal in INT TERM; do
    want=$([ $signal = INT ] && echo 130 || echo 143)
    run_and_signal $signal run_$signal.csv
    check "SIG$signal, CSV: exit $want" test "$code" = "$want"
    check "SIG$signal, CSV: the message says interrupted" \
        grep -q "^hydae: SIG$signal: interrupted at t = " run_$signal.csv.err
    check "SIG$signal, CSV: complete rows and the stopped-early line" csv_is_complete run_$signal.csv
    check "SIG$signal, CSV: hydae plot reads it" \
        "$hydae" plot run_$signal.csv -o run_$signal.svg --quiet
    check "SIG$signal, CSV: the plot shows the stop" grep -q "stopped early" run_$signal.svg

    run_and_signal $signal run_$signal.mat
    check "SIG$signal, MAT: exit $want" test "$code" = "$want"
    if [ -z "$py" ]; then
        check "scipy is missing: the MAT file cannot be read (apt-get install python3-scipy)" false
        continue
    fi
    check "SIG$signal, MAT: scipy reads it and finds the mark" "$py" - run_$signal.mat <<'EOF'
import sys
import numpy as np
import scipy.io
m = scipy.io.loadmat(sys.argv[1], chars_as_strings=False)
status = "".join(m["hydae_status"][0])
assert status.startswith("stopped early at t = "), status
assert "interrupted" in status, status
t_stop = float(status.split("t = ")[1].split(":")[0])
data = m["data_2"]
assert data.shape[0] == 3 and data.shape[1] > 100, data.shape
assert np.all(np.isfinite(data)), "non-finite values"
assert data[0, -1] <= t_stop and t_stop > 0, (data[0, -1], t_stop)
names = ["".join(c).rstrip() for c in m["name"].T]
assert names == ["time", "x", "v"], names
description = "".join(m["description"].T[0]).rstrip()
assert "stopped early" in description, description
EOF
done

check "no temporary file left behind" test -z "$(ls -A | grep '^\.' || true)"

# A CSV cut in the middle of a row: the row is left out, with a note.
python3 - <<'EOF'
text = open("run_INT.csv").read()
body = text[: text.rindex("# hydae")]
open("cut.csv", "w").write(body[:-7])  # the last row loses its end
EOF
"$hydae" plot cut.csv -o cut.svg >/dev/null 2>cut.err
check "a cut last row: hydae plot exits 0" test $? = 0
check "a cut last row: the note says so" grep -q "cut.csv:[0-9]*: the last row is incomplete" cut.err
check "a cut last row: the plot marks the file as stopped early" \
    grep -q "the file ends in an incomplete row" cut.svg

finish
