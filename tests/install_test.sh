#!/usr/bin/env bash
# hydae as a user gets it (issue 18; docs/install.md): `cmake --install`
# into a temporary prefix, then tests/install/consumer.c built four ways,
# through find_package(hydae) and through pkg-config, against the shared
# and the static library, each run on tests/install/rc_discharge.hym (an
# RC discharge from the installed component library against its closed
# form). Also: libhydae.so exports hydae_* symbols only, and every function
# hydae.h declares; its SONAME carries the version; the installed `hydae`
# command finds the installed component library and has a man page.
#
#   tests/install_test.sh BUILD_DIR [C_COMPILER] [SANITIZE(ON/OFF)]
set -euo pipefail

build_dir=$(cd "$1" && pwd)
cc=${2:-cc}
sanitize=${3:-OFF}
source_dir=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
prefix="$work/prefix"
n_failed=0

fail() {
    echo "install_test: FAILED: $*" >&2
    n_failed=$((n_failed + 1))
}

# A build with sanitizers: the consumer must load their runtime first.
cflags=""
case "$sanitize" in
    ON | on | 1 | TRUE | true) cflags="-fsanitize=address,undefined -fno-omit-frame-pointer" ;;
esac

cmake --install "$build_dir" --prefix "$prefix" >"$work/install.log"
libdir=$(dirname "$(find "$prefix" -name 'libhydae.a' | head -1)")
[ -f "$prefix/include/hydae.h" ] || fail "no include/hydae.h"
[ -x "$prefix/bin/hydae" ] || fail "no bin/hydae"
[ -f "$prefix/share/man/man1/hydae.1" ] || fail "no share/man/man1/hydae.1"
[ -f "$prefix/share/hydae/lib/Electrical.hym" ] || fail "no share/hydae/lib/Electrical.hym"
[ -f "$libdir/cmake/hydae/hydae-config.cmake" ] || fail "no hydae-config.cmake"
[ -f "$libdir/cmake/hydae/hydae-config-version.cmake" ] || fail "no hydae-config-version.cmake"
[ -f "$libdir/pkgconfig/hydae.pc" ] || fail "no hydae.pc"

# The shared library: SONAME libhydae.so.MAJOR[.MINOR], exports.
shared=$(find "$libdir" -name 'libhydae.so.*.*.*' | head -1)
[ -n "$shared" ] || fail "no libhydae.so.X.Y.Z"
soname=$(objdump -p "$shared" | awk '$1 == "SONAME" { print $2 }')
version=$("$prefix/bin/hydae" --version | awk '{ print $2 }')
case "$soname" in
    libhydae.so.0.*) [ "$soname" = "libhydae.so.${version%.*}" ] || fail "SONAME $soname for version $version" ;;
    libhydae.so.*) [ "$soname" = "libhydae.so.${version%%.*}" ] || fail "SONAME $soname for version $version" ;;
    *) fail "SONAME '$soname'" ;;
esac
[ -e "$libdir/$soname" ] || fail "no $soname link"
nm -D --defined-only "$shared" | awk '{ print $NF }' | sort >"$work/exported"
grep -v '^hydae_' "$work/exported" >"$work/not_hydae" || true
if [ -s "$work/not_hydae" ]; then
    fail "libhydae.so exports $(wc -l <"$work/not_hydae") symbols that are no hydae_ ones: $(head -5 "$work/not_hydae" | tr '\n' ' ')"
fi
# Every function hydae.h declares: a name followed by '(' on a line that
# declares (not a typedef, comment or macro).
sed -e 's|/\*.*\*/||' "$source_dir/include/hydae.h" \
    | grep -v '^\s*\*\|^\s*/\*\|^#\|typedef' \
    | grep -o '\bhydae_[a-z0-9_]*\s*(' | sed 's/\s*($//' | sort -u >"$work/declared"
missing=$(comm -23 "$work/declared" "$work/exported")
[ -z "$missing" ] || fail "declared in hydae.h but not exported: $missing"
echo "install_test: libhydae.so ($soname) exports $(wc -l <"$work/exported") symbols, all hydae_;" \
     "hydae.h declares $(wc -l <"$work/declared") functions, all exported"

# The model imports a library that is only in the installed tree (a copy
# of Electrical under another name), so that finding it proves the lookup
# of the installed component library: relative to bin/hydae and to
# libhydae.so. A program linked with libhydae.a outside the prefix finds
# it through HYDAE_PATH (or where the build meant to install it).
components="$prefix/share/hydae/lib"
cp "$components/Electrical.hym" "$components/InstalledOnly.hym"
sed 's/^import Electrical;/import InstalledOnly;/' "$source_dir/tests/install/rc_discharge.hym" \
    >"$work/model.hym"
grep -q '^import InstalledOnly;' "$work/model.hym" || fail "the model does not import InstalledOnly"
unset HYDAE_PATH
if ! (cd "$work" && "$prefix/bin/hydae" run model.hym -o run.csv --quiet); then
    fail "the installed hydae did not find the installed component library"
fi

# An FMI build installs the runtime of `hydae export` beside libhydae.so;
# the installed hydae packs that one (not the build tree's) into the FMU.
if [ -e "$prefix/lib/hydae_fmu_runtime.so" ]; then
    if ! (cd "$work" && unset HYDAE_FMU_RUNTIME && "$prefix/bin/hydae" export model.hym \
            -o "$work/model.fmu" 2>"$work/export.err"); then
        cat "$work/export.err" >&2
        fail "the installed hydae could not export a model"
    fi
    /usr/bin/python3 - "$work/model.fmu" "$prefix/lib/hydae_fmu_runtime.so" <<'PY' \
        || fail "the FMU does not hold the installed runtime"
import sys, zipfile
fmu = zipfile.ZipFile(sys.argv[1])
packed = [n for n in fmu.namelist() if n.startswith("binaries/") and n.endswith(".so")]
sys.exit(not (len(packed) == 1 and fmu.read(packed[0]) == open(sys.argv[2], "rb").read()))
PY
    echo "install_test: hydae export packs the installed runtime"
fi

run_consumer() { # label executable
    local search=""
    case "$1" in *static*) search="$components" ;; esac
    if HYDAE_PATH="$search" "$2" "$work/model.hym" >"$work/$1.out" 2>&1; then
        echo "install_test: $1: $(head -1 "$work/$1.out")"
    else
        cat "$work/$1.out" >&2
        fail "$1: the consumer failed"
    fi
}

# find_package(hydae): shared (hydae::hydae), then static.
for kind in shared static; do
    static=OFF
    [ "$kind" = static ] && static=ON
    if cmake -S "$source_dir/tests/install" -B "$work/cmake-$kind" -DCMAKE_C_COMPILER="$cc" \
             -DCMAKE_PREFIX_PATH="$prefix" -DCONSUMER_STATIC=$static -DCMAKE_C_FLAGS="$cflags" \
             >"$work/cmake-$kind.log" 2>&1 \
       && cmake --build "$work/cmake-$kind" >>"$work/cmake-$kind.log" 2>&1; then
        run_consumer "find_package, $kind" "$work/cmake-$kind/consumer"
    else
        cat "$work/cmake-$kind.log" >&2
        fail "find_package, $kind: the consumer did not build"
    fi
done

# pkg-config: the shared library, then the static one (its path, and the
# libraries it needs from --static).
export PKG_CONFIG_PATH="$libdir/pkgconfig"
pc_cflags=$(pkg-config --cflags hydae)
pc_libdir=$(pkg-config --variable=libdir hydae)
# shellcheck disable=SC2086
if $cc $cflags $pc_cflags -o "$work/pc-shared" "$source_dir/tests/install/consumer.c" \
       $(pkg-config --libs hydae) -Wl,-rpath,"$pc_libdir" -lm 2>"$work/pc-shared.log"; then
    run_consumer "pkg-config, shared" "$work/pc-shared"
else
    cat "$work/pc-shared.log" >&2
    fail "pkg-config, shared: the consumer did not build"
fi
static_deps=$(pkg-config --static --libs hydae | tr ' ' '\n' | grep -v '^-lhydae$' | tr '\n' ' ')
# shellcheck disable=SC2086
if $cc $cflags $pc_cflags -o "$work/pc-static" "$source_dir/tests/install/consumer.c" \
       "$pc_libdir/libhydae.a" $static_deps 2>"$work/pc-static.log"; then
    run_consumer "pkg-config, static" "$work/pc-static"
else
    cat "$work/pc-static.log" >&2
    fail "pkg-config, static: the consumer did not build"
fi

# The shared builds load libhydae.so, the static ones do not.
for kind in shared static; do
    for exe in "$work/cmake-$kind/consumer" "$work/pc-$kind"; do
        [ -x "$exe" ] || continue
        libraries=$(ldd "$exe")
        case "$libraries" in *libhydae.so*) linked=shared ;; *) linked=static ;; esac
        [ "$linked" = "$kind" ] || fail "$exe should link hydae $kind, links it $linked"
    done
done

if [ "$n_failed" -gt 0 ]; then
    echo "install_test: $n_failed check(s) failed" >&2
    exit 1
fi
echo "install_test: all checks passed"
