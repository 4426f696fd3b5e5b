#!/usr/bin/env bash
# The manual page docs/hydae.1 against the command: every subcommand of
# `hydae --help` and every option its --help texts show (run, plot,
# converge) is described there; its title names the command's version;
# groff reads it without a warning; its examples run.
# Usage: cli_manpage.sh PATH_TO_HYDAE
set -u
hydae=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
source_dir=$(cd "$(dirname "$0")/.." && pwd)
page="$source_dir/docs/hydae.1"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failed=0
fail() {
    echo "FAIL: $*"
    failed=$((failed + 1))
}

# The page as text, roff's escaped dashes as dashes.
sed -e 's/\\-/-/g' -e 's/\\f[BIRP]//g' "$page" >"$work/page"
"$hydae" --help >"$work/help"
"$hydae" converge --help >>"$work/help"
"$hydae" plot --help >>"$work/help"

# Subcommands: the first word of each line of the "commands:" block.
commands=$(sed -n '/^commands:/,/^$/p' "$work/help" | awk 'NR > 1 && /^  [a-z]/ { print $1 }')
[ "$(echo "$commands" | wc -w)" -ge 8 ] || fail "found only $(echo "$commands" | wc -w) subcommands in --help"
for command in $commands; do
    grep -Eq "^\.(B|BI|BR|TP) .*\\b$command\\b|^\.B $command\$" "$work/page" \
        || fail "subcommand '$command' is not described in hydae.1"
done

# Options: every -x or --word the help texts show.
options=$(grep -oE '(^|[ ,(\[])(--[a-z][a-z0-9-]*|-[a-z])\b' "$work/help" | sed 's/^[ ,(\[]//' | sort -u)
[ "$(echo "$options" | wc -w)" -ge 30 ] || fail "found only $(echo "$options" | wc -w) options in --help"
for option in $options; do
    [ "$option" = "--SETTING" ] && continue
    grep -q -- "$option\\b" "$work/page" || fail "option '$option' is not in hydae.1"
done
echo "hydae.1 describes $(echo "$commands" | wc -w) subcommands and $(echo "$options" | wc -w) options"

# Its title line names the version the command says it is.
version=$("$hydae" --version | awk '{ print $2 }')
grep -q "^\.TH HYDAE 1 .* \"hydae $version\"" "$page" \
    || fail "the .TH line does not say hydae $version: $(grep '^\.TH' "$page")"

# groff reads it without a warning.
if command -v groff >/dev/null 2>&1; then
    warnings=$(groff -man -ww -z "$page" 2>&1)
    [ -z "$warnings" ] || fail "groff: $warnings"
fi

# The examples of the page run (from the source tree, in a scratch directory).
cd "$work" || exit 1
sed -n '/^\.SH EXAMPLES/,/^\.fi/p' "$page" | grep '^hydae ' | sed 's/\\-/-/g' >examples
[ "$(wc -l <examples)" -ge 4 ] || fail "fewer than 4 examples"
ln -s "$source_dir/examples" examples_dir
while read -r line; do
    # shellcheck disable=SC2086
    if ! "$hydae" ${line#hydae } --quiet >out 2>&1 </dev/null \
       && ! "$hydae" ${line#hydae } >out 2>&1 </dev/null; then
        fail "example '$line': $(head -3 out)"
    fi
done < <(sed 's|examples/|examples_dir/|g' examples)

[ "$failed" -eq 0 ] || exit 1
echo "cli_manpage: all checks passed"
