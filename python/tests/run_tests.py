"""The Python tests as ctest runs them: `python3 -m unittest discover
python/tests`, or exit 77 (skipped) when numpy is missing (Debian's
python3-numpy; setup.sh installs it)."""
import os
import sys
import unittest

try:
    import numpy  # noqa: F401
except ImportError:
    print("numpy is not installed for %s (Debian: python3-numpy): the Python tests are "
          "skipped" % sys.executable)
    sys.exit(77)

here = os.path.dirname(os.path.abspath(__file__))
unittest.main(module=None, argv=[sys.argv[0], "discover", "-s", here, "-t", here])
