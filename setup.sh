#!/bin/sh
# Installs the Debian packages hydae's build and tests use, if missing:
# cmake and gcc (the core), libexpat1-dev (XML settings files),
# libsuitesparse-dev (KLU, sparse iteration matrices), liblapack-dev (LAPACK,
# large dense and band iteration matrices),
# python3-scipy (the independent reader of MAT result files in the tests).
# Idempotent: does nothing when everything is there. Needs root for apt-get.
set -e
missing=""
command -v cmake >/dev/null 2>&1 || missing="$missing cmake"
command -v gcc >/dev/null 2>&1 || missing="$missing gcc"
command -v make >/dev/null 2>&1 || missing="$missing make"
[ -f /usr/include/expat.h ] || missing="$missing libexpat1-dev"
[ -f /usr/include/suitesparse/klu.h ] || missing="$missing libsuitesparse-dev"
have_lapack=""
for lib in /usr/lib/liblapack.so /usr/lib/*/liblapack.so; do
    [ -e "$lib" ] && have_lapack=yes
done
[ -n "$have_lapack" ] || missing="$missing liblapack-dev"
/usr/bin/python3 -c 'import scipy.io' >/dev/null 2>&1 || missing="$missing python3-scipy"
if [ -n "$missing" ]; then
    echo "setup.sh: installing$missing"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing >/dev/null
fi
