#!/usr/bin/env bash
# `hydae run X.fmu`: the reference FMUs run, and damaged FMUs (made here
# from them with python3's zipfile, in a temporary directory) are refused
# with exit 2, a message naming the FMU and the piece at fault, and no
# temporary directory left behind. Skipped (77) without ../shared/fmus.
# Failures during a run come from tests/fmi/failing_fmu.c, zipped here.
#   cli_fmi.sh HYDAE FMU_DIR FAILING_SO
set -u
hydae=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
fmus=$2
failing_so=$3
here=$(cd "$(dirname "$0")/../.." && pwd)
[ -f "$fmus/2.0/BouncingBall.fmu" ] || { echo "no test FMUs in $fmus: skipped"; exit 77; }
command -v python3 >/dev/null || { echo "python3 missing: skipped"; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir "$work/tmp"
export TMPDIR="$work/tmp"
cd "$work"
failed=0
fail() { echo "FAIL: $*"; failed=1; }

# rezip SRC DST PYTHON_EXPR: copy the archive, each entry (name, data)
# through the expression, which gives (name, data) or None to drop it.
rezip() {
    python3 - "$1" "$2" "$3" <<'PY'
import sys, zipfile
src, dst, expr = sys.argv[1:4]
with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w", zipfile.ZIP_DEFLATED) as zout:
    extra = []
    for info in zin.infolist():
        name, data = info.filename, zin.read(info)
        got = eval(expr, {"name": name, "data": data, "extra": extra, "src": src})
        if got is not None:
            zout.writestr(got[0], got[1])
    for name, data in extra:
        zout.writestr(name, data)
PY
}

# refused NAME.fmu PATTERN: exit 2, the message matches, no directory left.
refused() {
    "$hydae" run "$1" -o out.csv >stdout.txt 2>stderr.txt
    local status=$? before=$failed
    [ $status -eq 2 ] || fail "$1: exit $status, want 2 ($(cat stderr.txt))"
    grep -q -- "$2" stderr.txt || fail "$1: message '$(cat stderr.txt)' lacks '$2'"
    grep -q "$1" stderr.txt || fail "$1: the message does not name the FMU"
    [ -z "$(ls -A "$TMPDIR")" ] || fail "$1: left $(ls "$TMPDIR") in TMPDIR"
    [ -e out.csv ] && fail "$1: wrote results"
    [ $failed -ne $before ] || echo "refused as it should: $(head -1 stderr.txt)"
}

bb2="$fmus/2.0/BouncingBall.fmu"
bb3="$fmus/3.0/BouncingBall.fmu"
refused missing.fmu "No such file"
echo "not a zip" >notzip.fmu
refused notzip.fmu "not a ZIP archive"
rezip "$bb2" nodesc.fmu 'None if name == "modelDescription.xml" else (name, data)'
refused nodesc.fmu "modelDescription.xml: missing"
rezip "$bb2" malformed.fmu '(name, data[:900]) if name == "modelDescription.xml" else (name, data)'
refused malformed.fmu "modelDescription.xml:[0-9]*:[0-9]*:"
rezip "$bb2" version.fmu '(name, data.replace(b"fmiVersion=\"2.0\"", b"fmiVersion=\"1.0\"")) if name == "modelDescription.xml" else (name, data)'
refused version.fmu 'fmiVersion "1.0" is not supported'
rezip "$bb2" noplatform.fmu 'None if name.startswith("binaries/linux64") else (name, data)'
refused noplatform.fmu "no binary for this platform: binaries/linux64/BouncingBall.so"
rezip "$bb2" guid.fmu '(name, data.replace(b"{1AE5E10D", b"{0AE5E10D")) if name == "modelDescription.xml" else (name, data)'
refused guid.fmu "fmi2Instantiate returned NULL"
# A 2.0 description over the 3.0 binary: no fmi2* functions at all.
python3 -c "import zipfile; open('bb3.so','wb').write(zipfile.ZipFile('$bb3').read('binaries/x86_64-linux/BouncingBall.so'))"
rezip "$bb2" nosymbol.fmu '(name, open("bb3.so","rb").read()) if name.endswith(".so") else (name, data)'
refused nosymbol.fmu "does not export fmi2Instantiate"
rezip "$bb2" slip.fmu '(name, data) if name != "modelDescription.xml" or not extra.append(("../escaped.txt", b"x")) else None'
refused slip.fmu "outside its directory"
[ ! -e "$work/escaped.txt" ] && [ ! -e "$TMPDIR/../escaped.txt" ] || fail "slip.fmu: a file escaped"
python3 - "$bb2" <<'PY'
import re, sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as zin, zipfile.ZipFile("no_interface.fmu", "w") as zout:
    for info in zin.infolist():
        data = zin.read(info)
        if info.filename == "modelDescription.xml":
            data = re.sub(rb"<(ModelExchange|CoSimulation).*?</\1>", b"", data, flags=re.S)
        zout.writestr(info.filename, data)
PY
refused no_interface.fmu "the FMU has no interface"

# Our own failing FMU: fmi2Instantiate returning NULL is a load error;
# fmi2GetDerivatives returning fmi2Error past t = 1 fails the run (exit 1)
# with the FMU's message and the results marked as stopped early.
failing_fmu() {
    python3 - "$failing_so" "$1" "$2" <<'PY'
import sys, zipfile
so, guid, out = sys.argv[1:4]
desc = f"""<?xml version="1.0" encoding="UTF-8"?>
<fmiModelDescription fmiVersion="2.0" modelName="Failing" guid="{guid}">
  <ModelExchange modelIdentifier="Failing"/>
  <DefaultExperiment startTime="0" stopTime="2" stepSize="0.1"/>
  <ModelVariables>
    <ScalarVariable name="x" valueReference="0" causality="output" initial="exact"><Real start="1"/></ScalarVariable>
    <ScalarVariable name="der(x)" valueReference="1"><Real derivative="1"/></ScalarVariable>
    <ScalarVariable name="t_fail" valueReference="2" causality="parameter" variability="fixed"><Real start="1"/></ScalarVariable>
    <ScalarVariable name="t_step" valueReference="3" causality="parameter" variability="fixed"><Real start="1e300"/></ScalarVariable>
    <ScalarVariable name="t_stop" valueReference="4" causality="parameter" variability="fixed"><Real start="1e300"/></ScalarVariable>
  </ModelVariables>
  <ModelStructure><Derivatives><Unknown index="2"/></Derivatives></ModelStructure>
</fmiModelDescription>
"""
with zipfile.ZipFile(out, "w") as z:
    z.writestr("modelDescription.xml", desc)
    z.write(so, "binaries/linux64/Failing.so")
PY
}
failing_fmu "{null}" null_instance.fmu
refused null_instance.fmu "fmi2Instantiate returned NULL"
failing_fmu "{ok}" failing.fmu
"$hydae" run failing.fmu -o failing.csv >stdout.txt 2>stderr.txt
status=$?
[ $status -eq 1 ] || fail "failing.fmu: exit $status, want 1 ($(cat stderr.txt))"
grep -q "fmi2GetDerivatives returned fmi2Error: logStatusError: failing on purpose past t = 1" \
    stderr.txt || fail "failing.fmu: message $(cat stderr.txt)"
# The run stops at its last accepted step before t = 1.
stopped=$(tail -1 failing.csv | sed -n 's/^# hydae: stopped early at t = \([0-9.e-]*\):.*/\1/p')
awk -v t="$stopped" 'BEGIN { exit !(t > 0.5 && t <= 1) }' \
    || fail "failing.fmu: results not marked as stopped near t = 1: $(tail -1 failing.csv)"
[ "$(grep -c '^[0-9]' failing.csv)" -ge 6 ] || fail "failing.fmu: rows before the failure missing"
[ -z "$(ls -A "$TMPDIR")" ] || fail "failing.fmu: left $(ls "$TMPDIR") in TMPDIR"
# The same FMU with t_fail = 5 (a parameter, --set) runs to its end: x(2) = exp(-2).
"$hydae" run failing.fmu -o passing.csv --quiet --set t_fail=5 --rtol 1e-8 \
    || fail "failing.fmu with t_fail = 5: exit $?"
awk -F, 'END { d = $2 - exp(-2); if (d < 0) d = -d; exit !($1 == 2 && d < 1e-6) }' passing.csv \
    || fail "failing.fmu with t_fail = 5: last row $(tail -1 passing.csv), want x(2) = exp(-2)"

# Step events: fmi2CompletedIntegratorStep asks for event mode at the first
# step past t_step = 0.5, where x changes sign: x(2) = -exp(-2), and the
# event's two rows (left x > 0, right x < 0) at one time t_e >= 0.5.
"$hydae" run failing.fmu -o step.csv --quiet --set t_fail=5 --set t_step=0.5 --rtol 1e-8 \
    || fail "step event: exit $?"
awk -F, 'END { d = $2 + exp(-2); if (d < 0) d = -d; exit !($1 == 2 && d < 1e-6) }' step.csv \
    || fail "step event: last row $(tail -1 step.csv), want x(2) = -exp(-2)"
awk -F, 'NR > 2 && $1 == t && p > 0 && $2 < 0 { d = p + $2; if (d < 0) d = -d;
    found = ($1 >= 0.5 && d < 1e-12) } NR > 1 { t = $1; p = $2 } END { exit !found }' step.csv \
    || fail "step event: no sign change at one time past 0.5: $(head -12 step.csv)"
# terminateSimulation from fmi2CompletedIntegratorStep ends the run there, exit 0.
"$hydae" run failing.fmu -o stop.csv --quiet --set t_fail=5 --set t_stop=1.25 2>stderr.txt \
    || fail "step terminate: exit $?"
grep -q "terminateSimulation" stderr.txt || fail "step terminate: not reported: $(cat stderr.txt)"
grep -q "stopped early" stop.csv && fail "step terminate: marked as stopped early"
awk -F, 'END { exit !($1 >= 1.25 && $1 < 2) }' stop.csv \
    || fail "step terminate: last row $(tail -1 stop.csv), want the first step past 1.25"

# Co-Simulation (--fmi-cs): Dahlquist's own Euler steps of 0.1, x(10) = 0.9^100.
"$hydae" run "$fmus/2.0/Dahlquist.fmu" --fmi-cs -o cs.csv --quiet || fail "--fmi-cs: exit $?"
awk -F, 'END { d = $2 - 0.9^100; if (d < 0) d = -d; exit !($1 == 10 && d < 1e-15) }' cs.csv \
    || fail "--fmi-cs: last row $(tail -1 cs.csv), want x(10) = 0.9^100"
# An FMU with only <CoSimulation> is imported through it without the option.
python3 - "$fmus/2.0/Dahlquist.fmu" cs_only.fmu <<'PY'
import re, sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as src, zipfile.ZipFile(sys.argv[2], "w") as dst:
    for item in src.infolist():
        data = src.read(item.filename)
        if item.filename == "modelDescription.xml":
            data = re.sub(rb"<ModelExchange.*?</ModelExchange>", b"", data, flags=re.S)
        dst.writestr(item, data)
PY
"$hydae" run cs_only.fmu -o cs_only.csv --quiet || fail "Co-Simulation only: exit $?"
cmp -s cs.csv cs_only.csv || fail "Co-Simulation only: differs from --fmi-cs"
# --fmi-cs of an FMU without Co-Simulation is refused.
"$hydae" run failing.fmu --fmi-cs -o x.csv >stdout.txt 2>stderr.txt
status=$?
[ $status -eq 2 ] && grep -q "has no Co-Simulation interface (only Model Exchange)" stderr.txt \
    || fail "--fmi-cs without Co-Simulation: exit $status, $(cat stderr.txt)"

# Runs: the default experiment, then options over it.
"$hydae" run "$bb2" -o bb.csv --quiet || fail "BouncingBall 2.0: exit $?"
[ "$(head -1 bb.csv)" = "time,h,v" ] || fail "BouncingBall: header $(head -1 bb.csv)"
[ "$(tail -1 bb.csv | cut -d, -f1)" = "3" ] || fail "BouncingBall: stopTime 3 not reached"
"$hydae" run "$bb3" -o bb3.csv --quiet --tend 1.5 --dt 0.5 || fail "BouncingBall 3.0: exit $?"
[ "$(cut -d, -f1 bb3.csv | grep -c '^[0-9.]*$')" -ge 4 ] || fail "--dt 0.5: $(cat bb3.csv)"
[ "$(tail -1 bb3.csv | cut -d, -f1)" = "1.5" ] || fail "--tend 1.5: $(tail -1 bb3.csv)"
# --set reaches the FMU's parameters: with e = 0.5 the ball rises to
# e^2 h0 = 0.25 after its first impact (0.49 with the default e = 0.7).
"$hydae" run "$bb2" -o e.csv --quiet --set e=0.5 --dt 0.001 --tend 1.2 || fail "--set e=0.5: exit $?"
peak=$(awk -F, 'NR > 1 && $1 > 0.5 && $1 < 1.2 && $2 > m { m = $2 } END { print m }' e.csv)
awk -v p="$peak" 'BEGIN { exit !(p > 0.2499 && p < 0.2501) }' || fail "--set e=0.5: peak $peak, want 0.25"
"$hydae" run "$fmus/2.0/Stair.fmu" -o stair.csv --quiet 2>stderr.txt || fail "Stair: exit $?"
grep -q "terminateSimulation" stderr.txt || fail "Stair: the FMU's end is not reported"
# It ends the run successfully at t = 9: the right limit (counter 10) last, unmarked.
[ "$(tail -1 stair.csv)" = "9,10" ] || fail "Stair: last line $(tail -1 stair.csv), want 9,10"
grep -q "stopped early" stair.csv && fail "Stair: marked as stopped early"
"$hydae" run "$fmus/2.0/Resource.fmu" -o res.csv --quiet || fail "Resource: exit $?"
# resources/y.txt begins with 'a': y = 97.
[ "$(sed -n 2p res.csv)" = "0,97" ] || fail "Resource: $(sed -n 2p res.csv), want 0,97"
# Integer and Boolean inputs take integers in their type's range.
"$hydae" run "$fmus/3.0/Feedthrough.fmu" -o ft.csv --quiet --set UInt8_input=300 2>stderr.txt
status=$?
[ $status -eq 1 ] && grep -q "UInt8_input cannot take the value 300" stderr.txt \
    || fail "UInt8_input=300: exit $status, $(cat stderr.txt)"
"$hydae" run "$fmus/3.0/Feedthrough.fmu" -o ft.csv --quiet --set UInt8_input=255 --set Boolean_input=1 \
    || fail "UInt8_input=255: exit $?"
head -2 ft.csv | awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i }
    NR == 2 { exit !($col["UInt8_output"] == 255 && $col["Boolean_output"] == 1) }' \
    || fail "Feedthrough outputs: $(head -2 ft.csv)"

# The resource URI percent-encodes the unpacked directory's path.
mkdir "$work/tmp dir%"
TMPDIR="$work/tmp dir%" "$hydae" run "$fmus/2.0/Resource.fmu" -o res2.csv --quiet \
    || fail "Resource under a TMPDIR with a space: exit $?"
[ "$(sed -n 2p res2.csv)" = "0,97" ] || fail "Resource with a space: $(sed -n 2p res2.csv)"
[ -z "$(ls -A "$work/tmp dir%")" ] || fail "Resource left a directory"
# An FMU as a component of a model file (examples/fmi/vanderpol_switch.hym
# beside the FMU): exit 0, the FMU's columns; a missing FMU and an unknown
# modifier: exit 2 at file:line:column.
mkdir comp && cp "$here/examples/fmi/vanderpol_switch.hym" comp/ \
    && ln -s "$fmus/2.0/VanDerPol.fmu" comp/VanDerPol.fmu || fail "set up comp/"
"$hydae" run comp/vanderpol_switch.hym -o comp.csv --quiet || fail "vanderpol_switch.hym: exit $?"
[ "$(head -1 comp.csv)" = "time,vdp.mu,vdp.x0,vdp.x1,x0,x1" ] || fail "columns: $(head -1 comp.csv)"
"$hydae" check comp/vanderpol_switch.hym >check.out || fail "check vanderpol_switch.hym: exit $?"
grep -q "unknown vdp.x0 .*state.*shared with other charts" check.out || fail "check: $(cat check.out)"
printf 'model bad\n  Fmu p(file = "nope.fmu");\nend bad;\n' >comp/bad.hym
"$hydae" run comp/bad.hym 2>err.txt; status=$?
[ $status -eq 2 ] && grep -q "comp/bad.hym:2:7: error: FMU component 'p': comp/nope.fmu: " err.txt \
    || fail "a missing FMU component: exit $status, $(cat err.txt)"
printf 'model bad\n  Fmu p(file = "VanDerPol.fmu", k = 1);\nend bad;\n' >comp/bad.hym
"$hydae" run comp/bad.hym 2>err.txt; status=$?
[ $status -eq 2 ] && grep -q "comp/bad.hym:2:33: error: FMU component 'p' has no parameter, state or input 'k'" err.txt \
    || fail "an unknown modifier: exit $status, $(cat err.txt)"
# Our failing FMU as a component: exit 1, its own message, rows marked.
printf 'model fails\n  Fmu f(file = "../failing.fmu");\nend fails;\n' >comp/fails.hym
"$hydae" run comp/fails.hym -o fails.csv 2>err.txt; status=$?
[ $status -eq 1 ] && grep -q "failing.fmu: fmi2GetDerivatives returned fmi2Error: logStatusError: failing on purpose past t = 1" err.txt \
    || fail "a failing FMU component: exit $status, $(cat err.txt)"
grep -q "^# hydae: stopped early" fails.csv || fail "a failing FMU component: $(tail -1 fails.csv)"
[ -z "$(ls -A "$TMPDIR")" ] || fail "runs left $(ls "$TMPDIR") in TMPDIR"
[ $failed -eq 0 ] && echo "cli_fmi: all passed"
exit $failed
