#!/usr/bin/env bash
# `hydae plot` of MAT files, sample-clock ticks and phase-plot labels:
#   - a MAT file plotted gives the SVG the run drew from its own rows (same
#     columns, modes and title), also from a big-endian copy made here with
#     Python's struct module; the CSV of the run with --csv-units the same;
#   - a run that stopped early: the MAT file's plot carries the red note;
#   - malformed MAT files (cut, a CSV named .mat, a wrong Aclass): exit 2
#     with the file named, no SVG left behind;
#   - a 1 ms sample clock over 1 s (sampled_pi.hym with Ts = 0.001): 1001
#     ticks (closed form: 1 + 1 / 0.001), drawn as at most one line per
#     16 px, all on the clock's grid; none with --no-clock-ticks; a clock of
#     0.1 s over 5 s keeps its 51 lines; a model without a clock draws its
#     events as before (4 for the string pendulum);
#   - phase plots: every event numbered, the numbers' boxes (0.6 em per
#     character, 10 px above the baseline to 3 px below) meeting no other
#     number and no event circle, also with 12 events at one point.
# Usage: cli_plot.sh PATH_TO_HYDAE
set -u
hydae=$1
src=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=lib/check.sh
. "$(dirname "$0")/lib/check.sh"
py=/usr/bin/python3
pendulum=$src/examples/string_pendulum.hym

check "run to MAT with a plot" \
    test "$(status_of "$hydae" run "$pendulum" -o sp.mat --modes --plot run.svg --title sp --quiet)" = 0
check "hydae plot sp.mat" test "$(status_of "$hydae" plot sp.mat -o mat.svg --title sp --quiet)" = 0
check "the MAT file's plot is the run's" cmp -s run.svg mat.svg
check "default output name FILE.svg" test "$(status_of "$hydae" plot sp.mat --quiet)" = 0
check "... sp.svg" test -s sp.svg
"$py" - sp.mat big.MAT <<'PY'
import struct, sys
data = open(sys.argv[1], 'rb').read()
out, i = b'', 0
while i < len(data):
    t, m, n, im, nl = struct.unpack_from('<5i', data, i); i += 20
    name = data[i:i + nl]; i += nl
    w = {0: 8, 2: 4, 5: 1}[(t // 10) % 10]; f = {8: 'd', 4: 'i', 1: 'B'}[w]
    vals = struct.unpack_from('<%d%s' % (m * n, f), data, i); i += m * n * w
    out += struct.pack('>5i', t + 1000, m, n, im, nl) + name + struct.pack('>%d%s' % (m * n, f), *vals)
open(sys.argv[2], 'wb').write(out)
PY
check "a big-endian MAT file (.MAT)" test "$(status_of "$hydae" plot big.MAT -o big.svg --title sp --quiet)" = 0
check "... the same plot" cmp -s run.svg big.svg
check "run to CSV with units and modes" \
    test "$(status_of "$hydae" run "$pendulum" -o sp.csv --csv-units --modes --quiet)" = 0
check "hydae plot sp.csv" test "$(status_of "$hydae" plot sp.csv -o csv.svg --title sp --quiet)" = 0
check "the CSV's plot is the MAT file's" cmp -s mat.svg csv.svg
check "--vars of a MAT file: one panel" \
    test "$(status_of "$hydae" plot sp.mat -o phi.svg --vars phi --quiet)" = 0
check "... one y label" test "$(grep -c 'rotate(-90' phi.svg)" = 1
check "an unknown name: exit 2" test "$(status_of "$hydae" plot sp.mat -o n.svg --vars nope --quiet)" = 2
check "... lists the columns" grep -q "sp.mat has no column 'nope' (columns: phi omega" "$work/err"

check "a failed run to MAT: exit 1" test "$(status_of "$hydae" run "$pendulum" -o bad.mat --set L=0 --quiet)" = 1
check "its plot" test "$(status_of "$hydae" plot bad.mat -o bad.svg --quiet)" = 0
check "... says the run stopped early" grep -q 'the run stopped early at t = 0: residual' bad.svg

head -c 700 sp.mat >cut.mat
check "a cut MAT file: exit 2" test "$(status_of "$hydae" plot cut.mat -o cut.svg)" = 2
check "... named" grep -q "cut.mat: the file ends inside matrix" "$work/err"
check "... no SVG" test ! -e cut.svg
cp sp.csv csv.mat
check "a CSV named .mat: exit 2" test "$(status_of "$hydae" plot csv.mat -o c.svg)" = 2
check "... not hydae's" grep -q "csv.mat: .*not a result file of hydae" "$work/err"
# Aclass (4 x 11 text, column after column) from 27 bytes on: row 4 "binNormal".
"$py" -c 'd = bytearray(open("sp.mat", "rb").read())
for i, c in enumerate(b"binNormal  "): d[27 + 4 * i + 3] = c
open("normal.mat", "wb").write(d)'
check "binNormal: exit 2" test "$(status_of "$hydae" plot normal.mat -o n.svg)" = 2
check "... named" grep -q "a layout other than binTrans" "$work/err"

# A 1 ms sample clock over 1 s.
sed 's/constant Real Ts = 0.1/constant Real Ts = 0.001/; s/experiment t_end = 5/experiment t_end = 1/' \
    "$src/examples/sampled_pi.hym" >pi1ms.hym
check "1 ms clock: run with a plot" \
    test "$(status_of "$hydae" run pi1ms.hym -o pi.mat --plot pi.svg --quiet)" = 0
check "1 ms clock: plot of the MAT file, --no-clock-ticks" \
    test "$(status_of "$hydae" plot pi.mat -o pi_none.svg --no-clock-ticks --quiet)" = 0
check "run --no-clock-ticks" \
    test "$(status_of "$hydae" run pi1ms.hym -o pi.csv --plot pi_none_run.svg --no-clock-ticks --quiet)" = 0
check "--no-clock-ticks without --plot: exit 2" \
    test "$(status_of "$hydae" run pi1ms.hym -o pi.csv --no-clock-ticks)" = 2
cat >"$work/ticks.py" <<'PY'
import sys, xml.etree.ElementTree as ET
svg, want_ticks, max_lines, min_gap, period = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4]), float(sys.argv[5])
ns = {"s": "http://www.w3.org/2000/svg"}
root = ET.parse(svg).getroot()
ticks = [l for l in root.iter("{http://www.w3.org/2000/svg}line") if l.get("class") == "tick"]
events = [l for l in root.iter("{http://www.w3.org/2000/svg}line") if l.get("class") == "event"]
bad = []
xs = sorted(float(l.get("x1")) for l in ticks)
if len(ticks) > max_lines:
    bad.append("%d tick lines, more than %d" % (len(ticks), max_lines))
if any(b - a < min_gap for a, b in zip(xs, xs[1:])):
    bad.append("tick lines closer than %g px" % min_gap)
times = [float(l.find("s:title", ns).text.split("t = ")[1]) for l in ticks]
if any(abs(t / period - round(t / period)) > 1e-6 for t in times):
    bad.append("a tick line off the clock's grid")
legend = "".join(t.text or "" for t in root.iter("{http://www.w3.org/2000/svg}text"))
if want_ticks and ("%d" % want_ticks) not in legend:
    bad.append("the legend does not count %d ticks" % want_ticks)
if events:
    bad.append("%d event lines besides the ticks" % len(events))
print("\n".join(bad)) if bad else None
print(len(ticks))
sys.exit(1 if bad else 0)
PY
# 848 px of time axis: at most 848 / 16 + 1 lines 16 px apart.
check "1 ms clock: at most 54 tick lines, 16 px apart, on the grid" \
    "$py" "$work/ticks.py" pi.svg 1001 54 15.99 0.001
n_lines=$("$py" "$work/ticks.py" pi.svg 1001 54 15.99 0.001 | tail -n 1)
check "1 ms clock: at least 20 tick lines ($n_lines)" test "$n_lines" -ge 20
check "--no-clock-ticks: no tick line (MAT plot)" test "$(grep -c 'class="tick"' pi_none.svg)" = 0
check "--no-clock-ticks: no tick line (run plot)" test "$(grep -c 'class="tick"' pi_none_run.svg)" = 0
check "--no-clock-ticks: said in the legend" grep -q '1001 ticks every 0.001, not drawn' pi_none.svg
check "0.1 s clock over 5 s: all 51 ticks" \
    test "$(status_of "$hydae" run "$src/examples/sampled_pi.hym" -o pi5.csv --plot pi5.svg --quiet)" = 0
n_lines=$("$py" "$work/ticks.py" pi5.svg 51 51 15.99 0.1 | tail -n 1)
check "0.1 s clock over 5 s: 51 tick lines ($n_lines)" test "$n_lines" = 51
check "no clock: the pendulum's 4 event lines" test "$(grep -c 'class="event"' run.svg)" = 4
check "no clock: no tick line" test "$(grep -c 'class="tick"' run.svg)" = 0

cat >"$work/labels.py" <<'PY'
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
S = "{http://www.w3.org/2000/svg}"
circles = [c for c in root.iter(S + "circle") if c.get("class") == "event"]
labels = [t for t in root.iter(S + "text") if t.get("class") == "elabel"]
boxes = []
for t in labels:
    x, y, w = float(t.get("x")), float(t.get("y")), 0.6 * 12 * len(t.text)
    boxes.append((x, y - 10, x + w, y + 3, "label " + t.text))
circle_boxes = [(float(c.get("cx")) - 4, float(c.get("cy")) - 4, float(c.get("cx")) + 4,
                 float(c.get("cy")) + 4, "circle") for c in circles]
meet = lambda a, b: a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]
bad = []
if len(labels) != int(sys.argv[2]) or sorted(int(t.text) for t in labels) != list(range(1, len(labels) + 1)):
    bad.append("%d labels, want 1..%s" % (len(labels), sys.argv[2]))
for i, a in enumerate(boxes):
    bad += ["%s meets %s" % (a[4], b[4]) for b in boxes[i + 1:] + circle_boxes if meet(a, b)]
if bad: print("\n".join(bad))
sys.exit(1 if bad else 0)
PY
check "pendulum phase plot" test "$(status_of "$hydae" plot sp.mat -o phase.svg --phase x,y --quiet)" = 0
check "pendulum phase plot: 4 numbers, none meeting another or a circle" "$py" "$work/labels.py" phase.svg 4
{
    echo "time,x,y"
    echo "0,-1,-1"
    for k in 1 2 3 4 5 6 7 8 9 10 11 12; do echo "$k,0,0"; echo "$k,0,0"; done
    echo "13,1,1"
} >same_point.csv
check "12 events at one point" \
    test "$(status_of "$hydae" plot same_point.csv -o same.svg --phase x,y --quiet)" = 0
check "12 events at one point: 12 numbers, none meeting" "$py" "$work/labels.py" same.svg 12

finish
