#!/bin/sh
# Installs the Debian packages hydae's build and tests use, if missing:
# cmake and gcc (the core), libexpat1-dev (XML settings files),
# python3-scipy (the independent reader of MAT result files in the tests).
# Idempotent: does nothing when everything is there. Needs root for apt-get.
set -e
missing=""
command -v cmake >/dev/null 2>&1 || missing="$missing cmake"
command -v gcc >/dev/null 2>&1 || missing="$missing gcc"
command -v make >/dev/null 2>&1 || missing="$missing make"
[ -f /usr/include/expat.h ] || missing="$missing libexpat1-dev"
/usr/bin/python3 -c 'import scipy.io' >/dev/null 2>&1 || missing="$missing python3-scipy"
if [ -n "$missing" ]; then
    echo "setup.sh: installing$missing"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing >/dev/null
fi
