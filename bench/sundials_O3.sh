#!/usr/bin/env bash
# An optimised build of the SUNDIALS the benchmarks compare against.
#
# Debian's libsundials-dev 6.4.1+dfsg1-3 is compiled without optimisation:
# its debian/rules passes -DCMAKE_C_FLAGS=-fcommon, which replaces the
# -O2 of dpkg-buildflags, and no CMAKE_BUILD_TYPE, so the libraries are
# -O0 code (every argument spilled to the stack: objdump -d
# libsundials_ida.so.6, N_VWSqrSumLocal_Serial). This script fetches the
# same source package with apt-get source (through a private sources list
# and private state directories: the system's apt configuration is not
# touched), builds CVODE, IDA, ARKODE, the serial vector and the dense, band,
# sparse and KLU matrices and solvers with CMAKE_BUILD_TYPE=Release (-O3,
# as hydae's Release build) and installs them in build-sundials-O3/install.
#
#     bash bench/sundials_O3.sh            prints the install prefix
#
# bash bench/run.sh --sparse-O3 runs bench_sparse against it.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
work="$root/build-sundials-O3"
prefix="$work/install"
if [ -f "$prefix/include/ida/ida.h" ] && [ -f "$prefix/lib/libsundials_sunlinsolklu.so" ]; then
    echo "$prefix"
    exit 0
fi
version="6.4.1+dfsg1-3"
mkdir -p "$work/apt/lists/partial" "$work/apt/etc" "$work/apt/cache/archives/partial" \
    "$work/src"
cat > "$work/apt/etc/debian-src.sources" <<'EOF'
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: bookworm
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
apt_options=(-o "Dir::Etc::SourceList=/dev/null" -o "Dir::Etc::SourceParts=$work/apt/etc"
             -o "Dir::State::Lists=$work/apt/lists" -o "Dir::Cache=$work/apt/cache")
apt-get "${apt_options[@]}" update >&2
(cd "$work/src" && apt-get "${apt_options[@]}" source --download-only "sundials=$version" >&2)
tar xJf "$work/src/sundials_6.4.1+dfsg1.orig.tar.xz" -C "$work/src"
cmake -S "$work/src/sundials-6.4.1" -B "$work/build" -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_INSTALL_PREFIX="$prefix" -DBUILD_SHARED_LIBS=ON -DBUILD_STATIC_LIBS=OFF \
    -DBUILD_ARKODE=ON -DBUILD_CVODE=ON -DBUILD_IDA=ON -DBUILD_CVODES=OFF -DBUILD_IDAS=OFF \
    -DBUILD_KINSOL=OFF -DENABLE_KLU=ON -DKLU_INCLUDE_DIR=/usr/include/suitesparse \
    -DKLU_LIBRARY_DIR="/usr/lib/$(gcc -print-multiarch)" -DEXAMPLES_ENABLE_C=OFF \
    -DEXAMPLES_ENABLE_CXX=OFF -DEXAMPLES_INSTALL=OFF -DSUNDIALS_INDEX_SIZE=64 \
    -DCMAKE_C_FLAGS=-fcommon >&2
cmake --build "$work/build" -j "$(nproc 2>/dev/null || echo 2)" >&2
cmake --install "$work/build" >&2
echo "$prefix"
