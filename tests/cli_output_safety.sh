#!/usr/bin/env bash
# Output safety and clear failures of the `hydae` command (issue 13: D7, D9,
# D12, D13), each reproducer of tests/repro/ with its exact outcome:
#   - an output that names an input or another output is refused (exit 2,
#     both options named) and the files stay byte for byte as they were;
#   - /dev/null as an output works and is never removed;
#   - a run refused before it starts (bad --vars, t_end < t0) leaves an
#     existing output file as it was; no temporary file is left behind;
#   - contradicting settings (h_min > h_max, --max-order out of the
#     integrator's range) are usage errors naming the settings;
#   - a write error on standard output (/dev/full) is exit 1;
#   - a NaN start value and a singular Jacobian are named;
#   - huge times give an SVG whose every coordinate is a finite number;
#   - names that are not UTF-8 give a well-formed SVG (found by
#     tests/fuzz/fuzz_csv: bad bytes become U+FFFD, good characters stay).
# Signals (D8) are in cli_signals.sh. Usage: cli_output_safety.sh PATH_TO_HYDAE
set -u
hydae=$1
here=$(cd "$(dirname "$0")/.." && pwd)
repro=$here/tests/repro
. "$here/tests/lib/check.sh"

# ---- D7: hydae plot f.csv -o f.csv (tests/repro/plot_same_file_dataloss.sh) ----
printf 'time,x\n0,1\n1,2\n' >victim.csv
cp victim.csv victim.orig
check "plot f.csv -o f.csv: exit 2" test "$(status_of "$hydae" plot victim.csv -o victim.csv)" = 2
check "plot f.csv -o f.csv: the message names the input and -o" \
    err_has "the input 'victim.csv' and -o 'victim.csv' are the same file"
check "plot f.csv -o f.csv: f.csv intact" cmp -s victim.csv victim.orig
mkdir sub
check "plot f.csv -o sub/../f.csv: exit 2" \
    test "$(status_of "$hydae" plot victim.csv -o sub/../victim.csv)" = 2
ln -s victim.csv alias.csv
check "plot f.csv -o a link to f.csv: exit 2" \
    test "$(status_of "$hydae" plot victim.csv -o alias.csv)" = 2
check "after the refusals f.csv is intact" cmp -s victim.csv victim.orig

# A bad CSV plotted to /dev/null: refused, and /dev/null is not removed.
printf 'time,x\n0,1\n1,oops\n' >bad.csv
check "a bad CSV to -o /dev/null: exit 2" test "$(status_of "$hydae" plot bad.csv -o /dev/null)" = 2
check "/dev/null is still a character device" test -c /dev/null
# A bad CSV to an existing SVG: the SVG stays as it was.
echo "old plot" >old.svg
check "a bad CSV to an existing -o: exit 2" test "$(status_of "$hydae" plot bad.csv -o old.svg)" = 2
check "the existing -o file is unchanged" test "$(cat old.svg)" = "old plot"

# ---- D12: two outputs of one run in one file ----
check "-o a.csv --plot a.csv: exit 2" \
    test "$(status_of "$hydae" run --example bouncing_ball -o a.csv --plot a.csv)" = 2
check "-o a.csv --plot a.csv: both options named" \
    err_has "-o 'a.csv' and --plot 'a.csv' are the same file; two outputs cannot share a file"
check "-o a.csv --plot a.csv: nothing written" test ! -e a.csv
check "-o s.json --stats-json ./s.json: exit 2" \
    test "$(status_of "$hydae" run --example bouncing_ball -o s.json --stats-json ./s.json)" = 2
cp "$repro/singular_jacobian.hym" model.hym
cp model.hym model.orig
check "-o MODEL.hym (the model file): exit 2" \
    test "$(status_of "$hydae" run model.hym -o model.hym)" = 2
check "-o MODEL.hym: the message names the model file and -o" \
    err_has "the model file 'model.hym' and -o 'model.hym' are the same file"
check "-o MODEL.hym: the model is intact" cmp -s model.hym model.orig

check "-o /dev/null: exit 0" test "$(status_of "$hydae" run --example bouncing_ball -o /dev/null)" = 0
check "-o /dev/null: /dev/null is still a character device" test -c /dev/null
check "-o /dev/null --plot /dev/null: exit 0 (a device is not a shared file)" \
    test "$(status_of "$hydae" run --example bouncing_ball -o /dev/null --plot /dev/null)" = 0

# A FIFO as -o is written directly (a reader gets the CSV) and stays a FIFO.
mkfifo pipe.csv
cat pipe.csv >from_pipe.csv &
reader=$!
check "-o FIFO: exit 0" test "$(status_of "$hydae" run --example bouncing_ball -o pipe.csv)" = 0
wait "$reader"
check "-o FIFO: the reader got the CSV" test "$(head -c 5 from_pipe.csv)" = "time,"
check "-o FIFO: still a FIFO" test -p pipe.csv
rm -f pipe.csv

# A symbolic link as -o: the file it points to gets the results, the link stays.
mkdir target
echo old >target/real.csv
ln -s target/real.csv link.csv
check "-o a link: exit 0" test "$(status_of "$hydae" run --example bouncing_ball -o link.csv)" = 0
check "-o a link: still a link" test -L link.csv
check "-o a link: the target has the results" test "$(head -c 5 target/real.csv)" = "time,"
check "-o a link: no temporary file beside the target" \
    test -z "$(ls -A target | grep '^\.' || true)"
# A name as long as a file name may be: the temporary file has a short name.
long=$(printf 'n%.0s' $(seq 250)).csv
check "-o a 254-character name: exit 0" \
    test "$(status_of "$hydae" run --example bouncing_ball -o "$long")" = 0
check "-o a 254-character name: written" test "$(head -c 5 "$long")" = "time,"

# ---- refused runs leave existing outputs alone ----
echo keep >kept.csv
check "--vars with an unknown name: exit 2" \
    test "$(status_of "$hydae" run --example bouncing_ball -o kept.csv --vars nosuch)" = 2
check "--vars refused: the existing CSV is unchanged" test "$(cat kept.csv)" = keep
# The repro's start value 0/0 is refused when compiled (cli_lang_literals.sh);
# sqrt(-g) is NaN only when the run evaluates it (g is a parameter).
sed 's|start = 0/0|start = sqrt(-g)|' "$repro/nan_start_unclear.hym" >fall.hym
check "t_end < t0 (model file): exit 2" \
    test "$(status_of "$hydae" run fall.hym --tend -1 -o kept.csv)" = 2
check "t_end < t0: the message names t_end and t0" \
    err_has "t_end (-1) must be greater than t0 (0)"
check "t_end < t0: the existing CSV is unchanged" test "$(cat kept.csv)" = keep
check "--t0 after the experiment's t_end: exit 2" \
    test "$(status_of "$hydae" run fall.hym --t0 5 -o kept.csv)" = 2
check "t_end < t0 (example): exit 2" \
    test "$(status_of "$hydae" run --example bouncing_ball --tend -1 -o kept.csv)" = 2
check "the existing CSV is still unchanged" test "$(cat kept.csv)" = keep

# A successful run replaces an existing file whole.
check "a run over an existing CSV: exit 0" \
    test "$(status_of "$hydae" run --example bouncing_ball --quiet -o kept.csv)" = 0
check "the CSV is the run's (header first)" test "$(head -c 5 kept.csv)" = "time,"

# ---- D13: contradicting settings ----
check "h_min > h_max: exit 2" \
    test "$(status_of "$hydae" run --example bouncing_ball -o x.csv --h-min 1 --h-max 0.1)" = 2
check "h_min > h_max: both settings named" err_has "h_min (1) is greater than h_max (0.1)"
check "h_min > h_max (model file): exit 2" \
    test "$(status_of "$hydae" run fall.hym -o x.csv --h_min 1 --h_max 0.1)" = 2
check "--max-order 12 with DSTIFF: exit 2" \
    test "$(status_of "$hydae" run --example bouncing_ball -o x.csv --max-order 12)" = 2
check "--max-order 12 with DSTIFF: the allowed range" \
    err_has "max_order (12) is out of range for DSTIFF: 1 to 5"
check "--max-order 6 with VSTIFF: exit 2" \
    test "$(status_of "$hydae" run --example bouncing_ball -o x.csv --solver VSTIFF --max-order 6)" = 2
check "--max-order 6 with VSTIFF: the allowed range" err_has "out of range for VSTIFF: 1 to 5"
check "--max-order 3 with RK45: exit 2" \
    test "$(status_of "$hydae" run --example bouncing_ball -o x.csv --solver RK45 --max-order 3)" = 2
check "--max-order 3 with RK45: a fixed order" err_has "does not apply to RK45"
check "--max-order 12 with ABAM: exit 0" \
    test "$(status_of "$hydae" run --example bouncing_ball -o x.csv --solver ABAM --max-order 12)" = 0

# ---- D13: standard output that cannot be written ----
if [ -w /dev/full ]; then
    check "check > /dev/full: exit 1" \
        test "$("$hydae" check fall.hym >/dev/full 2>err; echo $?)" = 1
    check "check > /dev/full: the message" err_has "error writing standard output"
    check "examples > /dev/full: exit 1" test "$("$hydae" examples >/dev/full 2>err; echo $?)" = 1
    check "run -o - > /dev/full: exit 1" \
        test "$("$hydae" run --example bouncing_ball -o - >/dev/full 2>err; echo $?)" = 1
fi

# ---- D13: a NaN start value, a singular Jacobian ----
check "NaN start value: exit 1" test "$(status_of "$hydae" run fall.hym -o nan.csv)" = 1
check "NaN start value: the variable and mode named" \
    err_has "the start value of variable 'h' of mode 'ok' is not finite (NaN)"
check "NaN start value: the CSV marked as stopped early" \
    grep -q "^# hydae: stopped early at t = 0: the start value of variable 'h'" nan.csv
check "singular Jacobian: exit 1" \
    test "$(status_of "$hydae" run model.hym -o singular.csv)" = 1
check "singular Jacobian: said, and the undetermined variable named" \
    err_has "singular Jacobian: the equations do not determine variable 'z'"

# ---- D9: huge times in hydae plot; values at the ends of the doubles ----
# (tiny_value, huge_value: found by tests/fuzz/fuzz_csv, in its corpus as
# svg_value_*.csv: one value of 4e-324 gave a value axis of span 0.)
finite_coordinates() {
    python3 - "$1" <<'EOF'
import math, re, sys
import xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
n = 0
for el in root.iter():
    for key in ("x", "y", "x1", "y1", "x2", "y2", "cx", "cy", "width", "height"):
        if key in el.attrib:
            assert math.isfinite(float(el.attrib[key])), (el.tag, key, el.attrib[key])
            n += 1
    if "points" in el.attrib:
        for number in re.split(r"[ ,]+", el.attrib["points"].strip()):
            assert math.isfinite(float(number)), (el.tag, number)
            n += 1
assert n > 20, n
EOF
}
printf 'time,x,y\n0,4e-324,1.7976931348623157e308\n' >tiny_value.csv
printf 'time,x,y\n0,1.7976931348623157e308,-4e-324\n1,1.7976931348623157e308,-4e-324\n' >huge_value.csv
for csv in "$repro/svg_nan_coords_bigtime.csv" "$repro/ub_svgplot67_time_range_overflow.csv" \
    tiny_value.csv huge_value.csv; do
    name=$(basename "$csv" .csv)
    check "$name: exit 0" test "$(status_of "$hydae" plot "$csv" -o "$name.svg")" = 0
    check "$name: every coordinate finite" finite_coordinates "$name.svg"
done
for name in tiny_value huge_value; do
    check "$name, phase plot: exit 0" \
        test "$(status_of "$hydae" plot "$name.csv" -o "$name-xy.svg" --phase x,y)" = 0
    check "$name, phase plot: every coordinate finite" finite_coordinates "$name-xy.svg"
done
# The two times of svg_nan_coords_bigtime are one double: an event line in
# the middle of the axis.
check "1e300 twice: an event at the middle of the time axis" python3 - <<'EOF'
import xml.etree.ElementTree as ET
root = ET.parse("svg_nan_coords_bigtime.svg").getroot()
events = [el for el in root.iter() if el.get("class") == "event"]
assert len(events) == 1, len(events)
frame = [float(el.get("x1")) for el in root.iter() if el.tag.endswith("line") and el.get("stroke") == "#e4e4e4"]
x = float(events[0].get("x1"))
assert abs(x - (min(frame) + max(frame)) / 2) < 1.0, (x, min(frame), max(frame))
EOF

# ---- names that are not UTF-8 (tests/fuzz/corpus/fuzz_csv/svg_name_not_utf8.csv) ----
printf 'time,x\xff,caf\xc3\xa9,mode(m\xe4\xb8)\n0,1,2,\xc0\xaf\n1,2,3,\xe4\xb8\xad\n' >utf8.csv
check "names not UTF-8: exit 0" \
    test "$(status_of "$hydae" plot utf8.csv -o utf8.svg --title $'t\xed\xa0\x80')" = 0
check "names not UTF-8: a well-formed SVG, bad bytes replaced, good ones kept" python3 - <<'EOF'
import xml.etree.ElementTree as ET
root = ET.parse("utf8.svg").getroot()
text = " ".join(el.text or "" for el in root.iter())
assert "x\ufffd" in text, text
assert "caf\u00e9" in text, text
assert "\u4e2d" in text, text                 # a mode label, whole
assert "\ufffd\ufffd" in text, text           # the overlong label: two bad bytes
assert "t\ufffd\ufffd\ufffd" in text, text    # the title's surrogate: three bad bytes
EOF

check "no temporary file left behind" test -z "$(ls -A | grep '^\.' || true)"

finish
