# Shared by the tests/cli_*.sh scripts (sourced, not run): a scratch
# directory as the working directory, removed at exit, and the counters.
#   check DESCRIPTION COMMAND...   the command must succeed
#   status_of COMMAND...           its exit status; stdout, stderr in $work/out, $work/err
#   err_has TEXT                   $work/err holds TEXT (else it is shown)
#   finish                         the summary line; exit status 1 on any failure
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
passed=0
failed=0
check() {
    local what=$1
    shift
    if "$@"; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "FAIL: $what"; fi
}
status_of() { "$@" >"$work/out" 2>"$work/err"; echo $?; }
err_has() { grep -qF -- "$1" "$work/err" || { echo "stderr was:"; cat "$work/err"; return 1; }; }
finish() {
    echo "$passed passed, $failed failed"
    [ "$failed" -eq 0 ]
}
