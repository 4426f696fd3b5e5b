#!/usr/bin/env bash
# Units from a model file (`unit = "..."`) to the results, read back by
# independent readers; the units expected are taken from the model file
# itself with a regular expression (not from hydae):
#   - the MAT file's description column as OpenModelica writes it,
#     "comment [unit]", read with scipy.io.loadmat (phi: "... [rad]");
#   - --csv-units: the line "#unit,..." after the header, one cell a column;
#     Python's csv module reads the file with that line skipped as a comment;
#   - the SVG plot's axis labels "phi [rad]", from the run and from
#     `hydae plot` of the CSV (the same SVG);
#   - refusals: --csv-units with a .mat, a units line of the wrong length.
# Usage: cli_units.sh PATH_TO_HYDAE
set -u
hydae=$1
src=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=lib/check.sh
. "$(dirname "$0")/lib/check.sh"
py=/usr/bin/python3
model=$src/examples/string_pendulum.hym

# name -> unit, and name -> description, from the model file's declarations.
cat >"$work/units.py" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
units, comments = {}, {}
for m in re.finditer(r'(?:parameter\s+)?Real\s+(\w+)\(([^)]*)\)[^;"]*(?:"([^"]*)")?;', text):
    name, mods, comment = m.group(1), m.group(2), m.group(3)
    u = re.search(r'unit\s*=\s*"([^"]*)"', mods)
    if u and name not in units:
        units[name] = u.group(1)
    if comment and name not in comments:
        comments[name] = comment
PY

check "run to MAT" test "$(status_of "$hydae" run "$model" -o sp.mat --quiet)" = 0
cat >"$work/read_mat.py" <<'PY'
import sys
exec(open(sys.argv[1]).read().replace("sys.argv[1]", "sys.argv[2]"))
import scipy.io
m = scipy.io.loadmat(sys.argv[3], chars_as_strings=False)
names = ["".join(c).rstrip() for c in m["name"].T]
desc = dict(zip(names, ["".join(c).rstrip() for c in m["description"].T]))
bad = []
if not desc["phi"].endswith("[rad]"):
    bad.append("phi: %r does not end in [rad]" % desc["phi"])
for name in names[1:]:
    want_unit = units.get(name)
    d = desc[name]
    if want_unit:
        want = (comments[name] + " " if name in comments else "")
        if name in comments and d != want + "[" + want_unit + "]":
            bad.append("%s: %r, want %r" % (name, d, want + "[" + want_unit + "]"))
        if not d.endswith(" [" + want_unit + "]"):
            bad.append("%s: %r lacks [%s]" % (name, d, want_unit))
    elif "[" in d:
        bad.append("%s: %r has a unit, the model gives none" % (name, d))
if bad: print("\n".join(bad))
sys.exit(1 if bad else 0)
PY
check "MAT description column: comment [unit], phi [rad]" \
    "$py" "$work/read_mat.py" "$work/units.py" "$model" sp.mat

check "run to CSV with units" \
    test "$(status_of "$hydae" run "$model" -o sp.csv --csv-units --modes --quiet \
            --plot run.svg --title sp)" = 0
cat >"$work/read_csv.py" <<'PY'
import csv, sys
exec(open(sys.argv[1]).read().replace("sys.argv[1]", "sys.argv[2]"))
lines = open(sys.argv[3]).read().splitlines()
header = next(csv.reader([lines[0]]))
unit_cells = next(csv.reader([lines[1]]))
bad = []
if unit_cells[0] != "#unit" or len(unit_cells) != len(header):
    bad.append("units line %r for header %r" % (lines[1], lines[0]))
for name, unit in zip(header[1:], unit_cells[1:]):
    if unit != units.get(name, ""):
        bad.append("%s: %r, want %r" % (name, unit, units.get(name, "")))
# A reader that skips '#' lines sees the header and numbers only.
rows = [r for r in csv.reader(l for l in lines if not l.startswith("#"))]
float(rows[1][1])
if bad: print("\n".join(bad))
sys.exit(1 if bad else 0)
PY
check "CSV units line: one cell a column, the model's units" \
    "$py" "$work/read_csv.py" "$work/units.py" "$model" sp.csv
check "run plot: axis label phi [rad]" grep -q '>phi \[rad\]</text>' run.svg
check "run plot: axis label omega [rad/s]" grep -q '>omega \[rad/s\]</text>' run.svg
check "hydae plot of the CSV with units" \
    test "$(status_of "$hydae" plot sp.csv -o csv.svg --title sp --quiet)" = 0
check "hydae plot of the CSV: the run's SVG, units included" cmp -s run.svg csv.svg
check "phase plot: both axes with units" \
    test "$(status_of "$hydae" plot sp.csv -o phase.svg --phase x,vx --quiet)" = 0
check "phase plot labels" grep -q '>x \[m\]</text>' phase.svg
check "phase plot labels" grep -q '>vx \[m/s\]</text>' phase.svg

check "--csv-units with a .mat: usage error" \
    test "$(status_of "$hydae" run "$model" -o x.mat --csv-units --quiet)" = 2
check "... no file" test ! -e x.mat
printf 'time,a,b\n#unit,m\n0,1,2\n' >short.csv
check "a short units line: refused" test "$(status_of "$hydae" plot short.csv --quiet)" = 2
check "... with file:line" grep -q 'short.csv:2: the units line has fewer cells' "$work/err"
printf 'time,a,b\n#unit,m,"s,1",x\n0,1,2\n' >long.csv
check "a long units line: refused" test "$(status_of "$hydae" plot long.csv --quiet)" = 2
printf 'time,a,b\n#unit,m,"s,1"\n0,1,2\n1,2,3\n' >quoted.csv
check "a quoted unit" test "$(status_of "$hydae" plot quoted.csv -o quoted.svg --quiet)" = 0
check "... shown on its axis" grep -q '>b \[s,1\]</text>' quoted.svg

finish
