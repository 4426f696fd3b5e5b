"""Shared by the tests: the repository's package first on the path, the
paths of the repository, the hydae command and a scratch directory."""
import os
import subprocess
import sys
import tempfile
import unittest

import numpy as np

TESTS = os.path.dirname(os.path.abspath(__file__))
PYTHON_DIR = os.path.dirname(TESTS)
REPO = os.path.dirname(PYTHON_DIR)
sys.path.insert(0, PYTHON_DIR)

import hydae  # noqa: E402  (the repository's package, not an installed one)

PENDULUM = os.path.join(REPO, "examples", "string_pendulum.hym")


def hydae_command():
    """The hydae command: $HYDAE_CLI (ctest sets it), else the build tree's."""
    cli = os.environ.get("HYDAE_CLI") or os.path.join(REPO, "build", "hydae")
    if not os.path.isfile(cli):
        raise unittest.SkipTest("no hydae command (set HYDAE_CLI): %s" % cli)
    return cli


def run_cli(*args, expect=0):
    """Run `hydae ARGS`; the exit status must be `expect`."""
    done = subprocess.run([hydae_command()] + list(args), capture_output=True, text=True)
    if done.returncode != expect:
        raise AssertionError("hydae %s exited %d, not %d:\n%s" % (
            " ".join(args), done.returncode, expect, done.stderr))
    return done


class ScratchTestCase(unittest.TestCase):
    """A test case with a scratch directory, self.scratch."""

    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory(prefix="hydae-pytest-")
        self.scratch = self._tmp.name

    def tearDown(self):
        self._tmp.cleanup()

    def path(self, name):
        return os.path.join(self.scratch, name)

    def assertBitsEqual(self, actual, expected, what=""):
        """Same length, and every double the same bits (NaN where the other
        has NaN)."""
        actual = np.asarray(actual, dtype=np.float64)
        expected = np.asarray(expected, dtype=np.float64)
        self.assertEqual(actual.shape, expected.shape, what)
        nan = np.isnan(expected)
        self.assertTrue(np.array_equal(np.isnan(actual), nan), "%s: NaN at other rows" % what)
        differ = np.flatnonzero(actual[~nan].view(np.uint64) != expected[~nan].view(np.uint64))
        if len(differ):
            k = differ[0]
            self.fail("%s: %d values differ, first %r != %r" % (
                what, len(differ), actual[~nan][k], expected[~nan][k]))


def csv_table(path):
    """A CSV file parsed with the standard library only (independent of
    hydae.read): the header and the rows of cells, comment lines dropped."""
    import csv
    with open(path, newline="") as f:
        rows = [row for row in csv.reader(f) if row and not row[0].startswith("#")]
    return rows[0], rows[1:]
