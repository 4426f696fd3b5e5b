#!/usr/bin/env bash
# `hydae sweep` (issue 19, docs/sweep.md): the string pendulum over a 2-D
# grid gives the same table (to the bit, all but the wall time) on 1 and 2
# threads; its count() and first() agree with single `hydae run`s of the
# same parameters (mode changes counted by awk in their --modes column) and
# integral(F) with the trapezoid rule computed by awk over that run's rows;
# a Monte Carlo sample with a seed is the same on 1 and 2 threads, inside
# its bounds, different with another seed, and --lhs puts one run in each
# stratum; a failing run is a row with its message and the others go on;
# SIGINT leaves a table ending in a comment line; the table as MAT holds
# the CSV's numbers; --runs-dir writes each run's result as `hydae run` does;
# `hydae plot` draws the table's measures over a parameter (CSV and MAT alike).
# Usage: cli_sweep.sh PATH_TO_HYDAE
set -u
hydae=$1
here=$(cd "$(dirname "$0")/.." && pwd)
. "$here/tests/lib/check.sh"
pendulum="$here/examples/string_pendulum.hym"

# Columns 1 .. NF-1: everything but the wall time.
without_wall() { awk -F, '!/^#/ { NF = NF - 1; print }' OFS=, "$1"; }

grid="--grid L=0.8:0.1:1.2 --grid kappa=0,0.02,0.05,0.1"
measures="count(stretch),count(unstretch),first(unstretch),max(F),integral(F),phi"
check "grid on 1 thread" "$hydae" sweep "$pendulum" $grid --measure "$measures" --threads 1 \
    -o one.csv --quiet
check "grid on 2 threads" "$hydae" sweep "$pendulum" $grid --measure "$measures" --threads 2 \
    -o two.csv --quiet
check "20 runs, in run order" test "$(awk -F, 'NR > 1 { printf "%s ", $1 }' two.csv)" \
    = "$(seq -s ' ' 0 19) "
check "the same rows on 1 and 2 threads" cmp <(without_wall one.csv) <(without_wall two.csv)
check "every run ok" test "$(awk -F, 'NR > 1 && $(NF - 2) != "ok"' two.csv | wc -l)" -eq 0
check "some runs go slack, some do not" \
    test "$(awk -F, 'NR > 1 && $4 > 0' two.csv | wc -l)" -gt 0 -a \
    "$(awk -F, 'NR > 1 && $4 == 0' two.csv | wc -l)" -gt 0

# Rows 3 (L = 0.8, kappa = 0.1: no slack), 4, 8 and 17: single runs with --modes.
for row in 3 4 8 17; do
    line=$(awk -F, -v r="$row" '$1 == r' two.csv)
    L=$(echo "$line" | cut -d, -f2)
    kappa=$(echo "$line" | cut -d, -f3)
    "$hydae" run "$pendulum" --set L="$L" --set kappa="$kappa" --modes -o single.csv --quiet
    # Entering bound / free after a row in the other mode: stretch / unstretch.
    single=$(awk -F, 'NR == 1 { for (c = 1; c <= NF; c++) if ($c == "F") f = c; next }
        { if (prev != "" && prev != $NF) { if ($NF == "bound") s++; else { u++; if (!first) first = $1 } }
          if (n++ > 0 && $f != "" && pf != "") area += 0.5 * ($1 - pt) * ($f + pf)
          prev = $NF; pt = $1; pf = $f }
        END { printf "%d %d %s %.12e", s, u, first, area }' single.csv)
    read -r s u first area <<<"$single"
    swept=$(echo "$line" | awk -F, '{ printf "%d %d %s %.12e", $4, $5, $6, $8 }')
    read -r s2 u2 first2 area2 <<<"$swept"
    check "row $row: count(stretch) $s2 = $s of hydae run" test "$s2" = "$s"
    check "row $row: count(unstretch) $u2 = $u of hydae run" test "$u2" = "$u"
    if [ "$u" -gt 0 ]; then
        check "row $row: first(unstretch) $first2 near $first (an event row's time)" \
            awk -v a="$first2" -v b="$first" 'BEGIN { exit !(a - b < 1e-12 && b - a < 1e-12) }'
    fi
    check "row $row: integral(F) $area2 = trapezoid $area" \
        awk -v a="$area2" -v b="$area" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= 1e-9 * (b < 0 ? -b : b)) }'
done

# Monte Carlo.
sample="--sample 12 --dist kappa=normal(0.05,0.005) --dist L=uniform(0.9,1.1)"
check "sample on 1 thread" "$hydae" sweep "$pendulum" $sample --seed 7 --measure "count(stretch)" \
    --threads 1 -o mc1.csv --quiet
check "sample on 2 threads" "$hydae" sweep "$pendulum" $sample --seed 7 --measure "count(stretch)" \
    --threads 2 -o mc2.csv --quiet
check "the same sample on 1 and 2 threads" cmp <(without_wall mc1.csv) <(without_wall mc2.csv)
check "L inside uniform(0.9, 1.1), kappa within 6 sd" \
    awk -F, 'NR > 1 && ($3 <= 0.9 || $3 >= 1.1 || $2 < 0.02 || $2 > 0.08) { bad = 1 } END { exit bad }' mc2.csv
"$hydae" sweep "$pendulum" $sample --seed 8 --measure "count(stretch)" -o mc3.csv --quiet
check "another seed, other values" test "$(cut -d, -f2 mc3.csv)" != "$(cut -d, -f2 mc2.csv)"
check "lhs" "$hydae" sweep "$pendulum" --sample 10 --dist "L=uniform(0.9,1.1)" --lhs --seed 3 \
    --measure "count(stretch)" -o lhs.csv --quiet
check "lhs: one run in each tenth of (0.9, 1.1)" test "$(awk -F, 'NR > 1 { print int(($2 - 0.9) / 0.02) }' lhs.csv \
    | sort -n | tr '\n' ' ')" = "0 1 2 3 4 5 6 7 8 9 "

# A failing run: x' = a x^2 from 1 blows up at t = 1/a, inside t_end = 1 for a = 2.
cat >blowup.hym <<'EOF'
model blowup
  parameter Real a = 1 "growth (1/s)";
  Real x(start = 1);
equation
  der(x) = a * x^2;
  experiment t_end = 1, dt = 0.1;
end blowup;
EOF
check "a failed run gives exit status 1" test "$(status_of "$hydae" sweep blowup.hym \
    --grid a=0.5,2,0.25 --threads 2 -o fail.csv)" -eq 1
check "its row says why, the others ran" test "$(awk -F, 'NR > 1 { print $1, ($4 == "ok") }' fail.csv \
    | tr '\n' ' ')" = "0 1 1 0 2 1 "
check "the message names the failure" grep -q "step size fell below its minimum" fail.csv
check "x(1) = 1/(1 - a) for a = 0.5 (closed form)" awk -F, 'NR == 2 { d = $3 - 2; exit !(d < 1e-4 && d > -1e-4) }' fail.csv

# Bad input.
check "an unknown parameter" test "$(status_of "$hydae" sweep "$pendulum" --grid nope=1,2)" -eq 2
check "  named" err_has "nope"
check "an unreachable grid stop" test "$(status_of "$hydae" sweep "$pendulum" --grid L=1:-0.1:2)" -eq 2
check "an unknown transition" test "$(status_of "$hydae" sweep "$pendulum" --grid L=1 \
    --measure "count(jump)")" -eq 2
check "  named" err_has "no transition 'jump'"

# The table as MAT v4 (by -o's extension), read back here from the format's
# definition (five int32 header words, the name, the elements column after
# column) with Python's struct: the doubles and texts of the CSV table.
check "the same grid to a .mat" "$hydae" sweep "$pendulum" $grid --measure "$measures" \
    --threads 2 -o two.mat --quiet
check "MAT table = CSV table" python3 - two.mat two.csv <<'PY'
import csv, math, struct, sys
def matrices(path):
    data = open(path, "rb").read()
    at, out = 0, {}
    while at < len(data):
        kind, rows, cols, imag, namelen = struct.unpack_from("<5i", data, at)
        at += 20
        name = data[at:at + namelen - 1].decode()
        at += namelen
        size = 8 if kind == 0 else 1
        raw = data[at:at + rows * cols * size]
        at += rows * cols * size
        if kind == 0:
            flat = struct.unpack("<%dd" % (rows * cols), raw)
            out[name] = [[flat[c * rows + r] for c in range(cols)] for r in range(rows)]
        else:
            out[name] = ["".join(chr(raw[c * rows + r]) for c in range(cols)).rstrip() for r in range(rows)]
    return out
m = matrices(sys.argv[1])
rows = [r for r in csv.reader(open(sys.argv[2])) if not r[0].startswith("#")]
header, body = rows[0], rows[1:]
assert m["names"] == [h for h in header if h != "status"], (m["names"], header)
assert len(m["table"]) == len(body) == 20 and m["status"] == [r[header.index("status")] for r in body]
for mat_row, csv_row in zip(m["table"], body):
    cells = [c for h, c in zip(header, csv_row) if h not in ("status", "wall_s")]
    for x, c in zip(mat_row, cells):
        assert (math.isnan(x) and c == "") or x == float(c), (x, c)
PY

# Every run's result in a folder: a run's file is `hydae run` of its parameters.
mkdir runs runs_mat
check "--runs-dir" "$hydae" sweep "$pendulum" --grid L=0.9,1.1 --grid kappa=0,0.05 \
    --measure "count(stretch)" --runs-dir runs -o rd.csv --quiet
check "4 files, named by the run" test "$(ls runs | tr '\n' ' ')" = "run_0.csv run_1.csv run_2.csv run_3.csv "
"$hydae" run "$pendulum" --set L=1.1 --set kappa=0 -o single_2.csv --quiet
check "run 2's file = hydae run --set L=1.1 --set kappa=0" cmp runs/run_2.csv single_2.csv
check "--runs-format mat" "$hydae" sweep "$pendulum" --grid L=0.9:0.05:1.4 --runs-dir runs_mat \
    --runs-format mat -o /dev/null --quiet
check "zero-padded names" test -f runs_mat/run_10.mat -a -f runs_mat/run_03.mat
"$hydae" run "$pendulum" --set L=1.05 -o single_3.mat --quiet
check "run 3's file = hydae run --set L=1.05 -o X.mat" cmp runs_mat/run_03.mat single_3.mat
check "a bad --runs-format" test "$(status_of "$hydae" sweep "$pendulum" --grid L=1 \
    --runs-dir runs --runs-format xls)" -eq 2
check "  named" err_has "format 'xls'"
check "a --runs-dir that is not a folder" test "$(status_of "$hydae" sweep "$pendulum" --grid L=1 \
    --runs-dir nowhere)" -eq 2
check "  named" err_has "'nowhere' is not a folder"

# hydae plot of the table: each measure over L, a curve per kappa, a dot per
# finite cell of the table (the runs' values, counted here by awk), the
# dots of a panel at the 5 values of L only; the MAT table draws the same
# SVG; without --by, two runs at one L are an error naming them; failed
# runs are left out and counted in the title.
check "plot the table over L by kappa" "$hydae" plot two.csv --x L --by kappa \
    --vars 'count(stretch),first(unstretch),max(F)' -o table.svg --title t --quiet
cells=$(awk -F, 'NR > 1 { for (c = 4; c <= 7; c++) if (c != 5 && $c != "" && $c != "nan") n++ }
                 END { print n }' two.csv)
check "a dot per finite cell ($cells)" test "$(grep -c 'class="point"' table.svg)" -eq "$cells"
check "the dots at 5 x positions (L = 0.8 .. 1.2)" test "$(grep 'class="point"' table.svg \
    | sed 's/.*cx="\([^"]*\)".*/\1/' | sort -u | wc -l)" -eq 5
for k in 0 0.02 0.05 0.1; do
    check "a curve kappa = $k in the legend" grep -q ">kappa = $k<" table.svg
done
check "the MAT table's plot is the CSV's" "$hydae" plot two.mat --x L --by kappa \
    --vars 'count(stretch),first(unstretch),max(F)' -o table_mat.svg --title t --quiet
check "  the same SVG" cmp table.svg table_mat.svg
check "without --by: exit 2" test "$(status_of "$hydae" plot two.csv -o nope.svg)" -eq 2
check "  two runs at one L named" err_has "runs 0 and 1 both have L = 0.8"
check "  no SVG left" test ! -e nope.svg
check "an unknown --x" test "$(status_of "$hydae" plot two.csv --x Q -o nope.svg)" -eq 2
check "  named" err_has "has no column 'Q'"
check "a failed run left out" "$hydae" plot fail.csv -o fail.svg --quiet
check "  counted in the title" grep -q "(1 failed run left out)" fail.svg
check "  a dot per run that ended well" test "$(grep -c 'class="point"' fail.svg)" -eq 2
awk -F, 'NR == 1 || $4 != "ok"' fail.csv >only_failed.csv
check "a table whose runs all failed: a plot without dots" "$hydae" plot only_failed.csv \
    -o only_failed.svg --quiet
check "  no dot" test "$(grep -c 'class="point"' only_failed.svg)" -eq 0

# SIGINT: the runs going stop, the table ends with a comment line.
cat >long.hym <<'EOF'
model long
  parameter Real w = 1000;
  Real x(start = 1), v(start = 0);
equation
  der(x) = v;
  der(v) = -w * x;
  experiment t_end = 1e5, dt = 0.001, rtol = 1e-10, atol = 1e-12;
end long;
EOF
"$hydae" sweep long.hym --grid w=1000,1001,1002 --threads 2 -o long.csv --quiet &
pid=$!
sleep 1
kill -INT "$pid"
wait "$pid"
check "SIGINT: exit 130" test $? -eq 130
check "SIGINT: header, then the comment line" test "$(head -1 long.csv | cut -c1-6)" = "run,w," -a \
    "$(tail -1 long.csv | cut -c1-31)" = "# hydae sweep: stopped by signa"
finish
