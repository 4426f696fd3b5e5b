#!/bin/sh
# Installs the Debian packages hydae's build and tests use, if missing:
# cmake and gcc (the core), libexpat1-dev (XML settings files, FMI import),
# libzip-dev (FMI import: unpacking FMUs),
# libsuitesparse-dev (KLU, sparse iteration matrices), liblapack-dev (LAPACK,
# large dense and band iteration matrices),
# python3-scipy (the independent reader of MAT result files in the tests),
# python3-numpy (the Python package in python/ and its tests, docs/python.md),
# pkgconf and binutils (pkg-config, nm and objdump: tests/install_test.sh
# builds a program against the installed tree and reads libhydae.so's
# symbols),
# openmpi-bin and libopenmpi-dev (`mpirun -n P hydae sweep`, optional at
# build time: tests/cli_sweep_mpi.sh),
# clang and libclang-rt-14-dev (libFuzzer, for the fuzz targets of
# tests/fuzz; the plain build never needs them).
# Idempotent: does nothing when everything is there. Needs root for apt-get.
set -e
missing=""
command -v cmake >/dev/null 2>&1 || missing="$missing cmake"
command -v gcc >/dev/null 2>&1 || missing="$missing gcc"
command -v make >/dev/null 2>&1 || missing="$missing make"
[ -f /usr/include/expat.h ] || missing="$missing libexpat1-dev"
[ -f /usr/include/zip.h ] || missing="$missing libzip-dev"
[ -f /usr/include/suitesparse/klu.h ] || missing="$missing libsuitesparse-dev"
have_lapack=""
for lib in /usr/lib/liblapack.so /usr/lib/*/liblapack.so; do
    [ -e "$lib" ] && have_lapack=yes
done
[ -n "$have_lapack" ] || missing="$missing liblapack-dev"
/usr/bin/python3 -c 'import scipy.io' >/dev/null 2>&1 || missing="$missing python3-scipy"
/usr/bin/python3 -c 'import numpy' >/dev/null 2>&1 || missing="$missing python3-numpy"
command -v pkg-config >/dev/null 2>&1 || missing="$missing pkgconf"
command -v nm >/dev/null 2>&1 || missing="$missing binutils"
command -v mpirun >/dev/null 2>&1 || missing="$missing openmpi-bin"
command -v mpicc >/dev/null 2>&1 || missing="$missing libopenmpi-dev"
if [ -n "$missing" ]; then
    echo "setup.sh: installing$missing"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing >/dev/null
fi
# Fuzzing only: a failure here leaves the plain build as it is (.ci/run
# then says the fuzz step cannot run).
fuzz_missing=""
command -v clang >/dev/null 2>&1 || fuzz_missing="$fuzz_missing clang"
ls /usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a >/dev/null 2>&1 \
    || fuzz_missing="$fuzz_missing libclang-rt-14-dev"
if [ -n "$fuzz_missing" ]; then
    echo "setup.sh: installing$fuzz_missing (fuzzing, tests/fuzz)"
    { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $fuzz_missing >/dev/null; } \
        || echo "setup.sh: could not install$fuzz_missing; the fuzz targets will not build" >&2
fi
