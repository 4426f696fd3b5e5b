#!/usr/bin/env bash
# Results of `hydae run` and `hydae plot`, read back by independent readers:
#   - MAT files with scipy.io.loadmat (Debian: python3-scipy; the test FAILS
#     if scipy is missing), every value compared with the CSV of the same
#     run, parameters with the values examples/string_pendulum.c documents;
#   - SVG plots parsed as XML: one panel per variable, mode bands in the
#     order bound, free, bound, free, bound, event lines and phase-plot
#     event markers mapped back through the axis ticks to the event times
#     and positions in the CSV; `hydae plot` of the CSV gives the same SVG;
#   - --stats-json with Python's json module, against the --stats table;
#   - --vars, --output grid|steps, the progress bar on a terminal (script(1)
#     gives one) and none otherwise, exit codes of write and usage errors.
# Usage: cli_results.sh PATH_TO_HYDAE
set -u
hydae=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
passed=0
failed=0
check() { # check DESCRIPTION COMMAND...: the command must succeed
    local what=$1
    shift
    if "$@"; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "FAIL: $what"; fi
}
status_of() { "$@" >"$work/out" 2>"$work/err"; echo $?; }

# A Python 3 that can import the given module: python3 first, then Debian's.
python_with() {
    for candidate in python3 /usr/bin/python3; do
        if command -v "$candidate" >/dev/null 2>&1 && "$candidate" -c "import $1" 2>/dev/null; then
            echo "$candidate"
            return 0
        fi
    done
    return 1
}
py=$(python_with json) || { echo "FAIL: no python3 (needed to read JSON and SVG)"; exit 1; }
scipy_py=$(python_with scipy.io) || scipy_py=""

run() { "$hydae" run --example string_pendulum --quiet "$@"; }

# ---- the runs read below: one scenario, several outputs ----
check "pendulum to MAT" run -o sp.mat --modes
check "pendulum to CSV" run -o sp.csv --modes
check "time plot" run -o sp2.csv --plot sp.svg --plot-vars x,y,phi,F,r --title pendulum
check "phase plot" run -o sp3.csv --plot phase.svg --phase x,y --title pendulum
check "stats" run -o sp4.csv --stats --stats-json stats.json 2>stats.txt

# ---- MAT with scipy ----
if [ -z "$scipy_py" ]; then
    failed=$((failed + 1))
    echo "FAIL: scipy is missing: the MAT files cannot be read back (apt-get install python3-scipy)"
else
    check "MAT read by scipy.io.loadmat equals the CSV" "$scipy_py" - <<'EOF'
import csv, math, sys
import scipy.io
m = scipy.io.loadmat("sp.mat", chars_as_strings=False)
def rows_of(chars):      # binTrans: one string per column
    return ["".join(c).rstrip() for c in chars.T]
aclass = ["".join(r).rstrip() for r in m["Aclass"]]
assert aclass == ["Atrajectory", "1.1", "", "binTrans"], aclass
names, descriptions = rows_of(m["name"]), rows_of(m["description"])
info = m["dataInfo"]
assert info.shape == (4, len(names)), info.shape
data_1, data_2 = m["data_1"], m["data_2"]
with open("sp.csv") as f:
    table = list(csv.reader(f))
header, body = table[0], table[1:]
assert names[0] == "time" and list(info[:, 0]) == [0, 1, 0, -1], (names[0], info[:, 0])
assert data_2.shape[1] == len(body), (data_2.shape, len(body))
assert list(data_2[0]) == [float(r[0]) for r in body], "time differs"
assert list(data_1[0]) == [0.0, 12.0], data_1[0]
def trajectory(name):
    j = names.index(name)
    assert info[0, j] == 2 and info[3, j] == -1, (name, info[:, j])
    return data_2[info[1, j] - 1]
n_values = 0
for c, name in enumerate(header[1:], start=1):
    values = trajectory(name)
    if name == "mode(thread)":
        j = names.index(name)
        assert "1 bound" in descriptions[j] and "2 free" in descriptions[j], descriptions[j]
        numbers = {"bound": 1.0, "free": 2.0}
        want = [numbers[r[c]] for r in body]
        assert list(values) == want, "mode numbers differ"
        continue
    for k, r in enumerate(body):
        got = values[k]
        if r[c] == "":
            assert math.isnan(got), (name, k, got)
        else:
            assert got == float(r[c]), (name, k, got, r[c])
        n_values += 1
documented = {"m": 1.0, "L": 1.0, "g": 9.81, "kappa": 0.1, "k": 0.0}
for name, value in documented.items():
    j = names.index(name)
    assert info[0, j] == 1 and descriptions[j] == "parameter", (name, info[:, j])
    assert list(data_1[info[1, j] - 1]) == [value, value], (name, data_1[info[1, j] - 1])
assert n_values == 8 * len(body), n_values
EOF
fi

# ---- CSV columns and rows ----
check "--vars: header" test "$("$hydae" run --example string_pendulum --vars x,y -o - | head -1)" = "time,x,y"
check "--vars mode: header" test "$("$hydae" run --example string_pendulum --vars 'kappa, mode(thread)' -o - | head -1)" = "time,kappa,mode(thread)"
check "--vars unknown: exit 2" test "$(status_of "$hydae" run --example string_pendulum --vars x,nope -o nope.csv)" = 2
check "--vars unknown: message" grep -q "no result, parameter or mode named 'nope'" "$work/err"
check "--vars unknown: no file" test ! -e nope.csv
check "grid rows on k dt, the others in event pairs" "$py" - <<'EOF'
import csv
rows = list(csv.reader(open("sp.csv")))[1:]
times = [float(r[0]) for r in rows]
paired = set()
for k in range(1, len(times)):
    if times[k] == times[k - 1]:
        paired.update((k - 1, k))
events = [times[k] for k in sorted(paired)]
assert len(events) == 8, events                    # 4 events, left and right rows
for k, t in enumerate(times):
    if k not in paired:
        assert abs(t / 0.01 - round(t / 0.01)) < 1e-9, t
EOF
check "--output steps" run -o steps.csv --output steps --stats-json steps.json
check "--output steps: a row per step" "$py" - <<'EOF'
import csv, json
rows = list(csv.reader(open("steps.csv")))[1:]
stats = json.load(open("steps.json"))
times = [float(r[0]) for r in rows]
off_grid = [t for t in times if abs(t / 0.01 - round(t / 0.01)) > 1e-6]
assert len(off_grid) > 0.5 * stats["steps"], (len(off_grid), stats["steps"])
assert len(rows) <= stats["steps"] + 2 * stats["events"] + 2, (len(rows), stats)
EOF
check "--output: bad value exit 2" test "$(status_of "$hydae" run --example relay --output every)" = 2

# ---- SVG time plot ----
check "time plot: bands, events and panels where the CSV says" "$py" - <<'EOF'
import csv, re
import xml.etree.ElementTree as ET
ns = "{http://www.w3.org/2000/svg}"
svg = ET.parse("sp.svg").getroot()
def of_class(tag, cls):
    return [e for e in svg.iter(ns + tag) if e.get("class") == cls]
panels = of_class("rect", "panel")
assert len(panels) == 5, len(panels)
ticks = [(float(e.get("x")), float(e.text)) for e in of_class("text", "xtick")]
(x0, t0), (x1, t1) = ticks[0], ticks[-1]
to_time = lambda x: t0 + (x - x0) * (t1 - t0) / (x1 - x0)
pixel = (t1 - t0) / (x1 - x0)                     # seconds per pixel
rows = list(csv.reader(open("sp.csv")))[1:]
times = [float(r[0]) for r in rows]
events = [times[k] for k in range(1, len(times)) if times[k] == times[k - 1] and
          (k < 2 or times[k - 2] != times[k])]
lines = of_class("line", "event")
assert len(lines) == 4, len(lines)
for line, t in zip(lines, events):
    assert abs(to_time(float(line.get("x1"))) - t) < 0.5 * pixel, (line.get("x1"), t)
bands = of_class("rect", "band")
modes = [b.find(ns + "title").text.split()[0] for b in bands]
assert modes == ["bound", "free", "bound", "free", "bound"], modes
edges = [float(b.get("x")) + float(b.get("width")) for b in bands[:-1]]
for edge, line in zip(edges, lines):
    assert abs(edge - float(line.get("x1"))) < 0.01, (edge, line.get("x1"))
assert abs(to_time(float(bands[-1].get("x")) + float(bands[-1].get("width"))) - 12) < 0.5 * pixel
EOF
check "hydae plot of the CSV: the same SVG" "$hydae" plot sp.csv -o again.svg --vars x,y,phi,F,r --title pendulum --quiet
check "hydae plot of the CSV: identical bytes" cmp -s sp.svg again.svg
check "hydae plot: default output name" "$hydae" plot sp.csv --quiet
check "hydae plot: sp.svg replaced by every column" grep -q 'vy</text>' sp.svg

# ---- SVG phase plot ----
check "phase plot: events numbered at their x, y" "$py" - <<'EOF'
import csv
import xml.etree.ElementTree as ET
ns = "{http://www.w3.org/2000/svg}"
svg = ET.parse("phase.svg").getroot()
def of_class(tag, cls):
    return [e for e in svg.iter(ns + tag) if e.get("class") == cls]
def axis(cls, coordinate):
    ticks = [(float(e.get(coordinate)) + (-4 if cls == "ytick" else 0), float(e.text))
             for e in of_class("text", cls)]
    (p0, v0), (p1, v1) = ticks[0], ticks[-1]
    return lambda p: v0 + (p - p0) * (v1 - v0) / (p1 - p0), abs((v1 - v0) / (p1 - p0))
to_x, x_pixel = axis("xtick", "x")
to_y, y_pixel = axis("ytick", "y")
rows = list(csv.reader(open("sp3.csv")))
header, body = rows[0], rows[1:]
cx, cy = header.index("x"), header.index("y")
lefts = [r for k, r in enumerate(body) if k + 1 < len(body) and body[k + 1][0] == r[0] and
         (k == 0 or body[k - 1][0] != r[0])]
markers = of_class("circle", "event")
assert len(markers) == 4 and len(lefts) == 4, (len(markers), len(lefts))
for m, r in zip(markers, lefts):
    assert abs(to_x(float(m.get("cx"))) - float(r[cx])) < x_pixel, (m.get("cx"), r)
    assert abs(to_y(float(m.get("cy"))) - float(r[cy])) < y_pixel, (m.get("cy"), r)
numbers = [e.text for e in svg.iter(ns + "text") if e.get("font-weight") == "bold"][1:]
assert numbers == ["1", "2", "3", "4"], numbers
EOF

# ---- statistics ----
check "--stats-json equals the --stats table" "$py" - <<'EOF'
import json, re
stats = json.load(open("stats.json"))
table = {}
for line in open("stats.txt"):
    m = re.match(r"^(\D+?)\s+(-?[0-9.]+)$", line.strip())
    if m:
        table[m.group(1)] = float(m.group(2))
pairs = {"steps": "steps", "rejected steps": "rejected_steps",
         "residual evaluations": "residual_evaluations", "Jacobian evaluations": "jacobian_evaluations",
         "LU factorisations": "lu_factorisations", "events": "events",
         "transitions fired": "transitions_fired", "mode switches": "mode_switches",
         "integrator restarts": "integrator_restarts"}
for words, key in pairs.items():
    assert table[words] == stats[key], (words, table.get(words), stats[key])
assert stats["mode_switches"] == 4 and stats["t_reached"] == 12 and stats["error"] is None, stats
EOF
check "--stats-json of a failed run: exit 1" test "$(status_of "$hydae" run --example string_pendulum --set L=0 -o bad.csv --stats-json bad.json)" = 1
check "--stats-json of a failed run names the failure" "$py" -c '
import json; s = json.load(open("bad.json"))
assert "not finite" in s["error"] and s["t_reached"] == 0, s'
check "--stats-json to /dev/full: exit 1" test "$(status_of "$hydae" run --example relay --stats-json /dev/full -o r.csv)" = 1
check "--plot to /dev/full: exit 1" test "$(status_of "$hydae" run --example relay --plot /dev/full -o r.csv)" = 1
check "--phase without --plot: exit 2" test "$(status_of "$hydae" run --example relay --phase x,v)" = 2
check "--phase with one name: exit 2" test "$(status_of "$hydae" run --example relay --plot p.svg --phase x)" = 2

# ---- progress bar: on a terminal only ----
if ! command -v script >/dev/null; then
    failed=$((failed + 1))
    echo "FAIL: script(1) (util-linux/bsdutils) is missing: no terminal for the progress bar"
else
    script -qec "$hydae run --example string_pendulum -o tty.csv" /dev/null >tty.out 2>&1
    check "progress on a terminal: percentage" grep -q '100%\|[0-9]%' tty.out
    check "progress on a terminal: events counted" grep -q 'events [0-9]' tty.out
    check "progress on a terminal: then the results line" grep -q 'results in' tty.out
    script -qec "$hydae run --example string_pendulum -o tty.csv --quiet" /dev/null >quiet.out 2>&1
    check "--quiet on a terminal: no progress" test ! -s quiet.out
fi
"$hydae" run --example string_pendulum -o notty.csv 2>notty.err >/dev/null
check "no terminal: no progress" test ! -s notty.err

# ---- hydae plot: errors ----
check "plot: missing file exit 2" test "$(status_of "$hydae" plot missing.csv)" = 2
check "plot: unknown column exit 2" test "$(status_of "$hydae" plot sp.csv --vars nope -o nope.svg)" = 2
check "plot: unknown column message" grep -q "sp.csv has no column 'nope'" "$work/err"
check "plot: unknown column leaves no file" test ! -e nope.svg
printf 'time,a\n0,1\n1,x\n' >broken.csv
check "plot: malformed CSV exit 2" test "$(status_of "$hydae" plot broken.csv)" = 2
check "plot: malformed CSV names file and line" grep -q "broken.csv:3: 'x' in column 'a'" "$work/err"

echo "$passed passed, $failed failed"
test "$failed" = 0
