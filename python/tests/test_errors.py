"""Errors a user meets: a model that does not compile (its file:line:col
diagnostic), a missing file, unknown names, refused settings, a run that
fails or hits max_steps (SimulationError or r.stopped_early)."""
import os
import signal
import threading
import time
import unittest

import support
from support import hydae

UNDEFINED = """model bad
  Real x(start = 1);
equation
  der(x) = -y;
end bad;
"""

BLOW_UP = """model blow
  Real x(start = 1);
equation
  der(x) = x^2;
end blow;
"""

NO_START = """model nostart
  parameter Real c = -1;
  Real x(start = 1);
  Real z(start = 1);
equation
  der(x) = -x;
  0 = z^2 - c;
end nostart;
"""


class Errors(support.ScratchTestCase):

    def test_diagnostic_of_a_model_string(self):
        with self.assertRaises(hydae.ModelError) as caught:
            hydae.load_string(UNDEFINED, name="bad.hym")
        err = caught.exception
        self.assertEqual(len(err.diagnostics), 1)
        d = err.diagnostics[0]
        # Line 4, column 13: the 'y' of "  der(x) = -y;".
        self.assertEqual((d.file, d.line, d.column, d.severity), ("bad.hym", 4, 13, "error"))
        self.assertIn("'y'", d.message)
        self.assertEqual(UNDEFINED.splitlines()[d.line - 1][d.column - 1], "y")
        self.assertTrue(str(err).startswith("bad.hym:4:13: error:"))
        self.assertIn("\n" + " " * 12 + " ^", "\n" + d.text.split("\n", 1)[1])

    def test_diagnostic_of_a_file(self):
        path = self.path("bad.hym")
        with open(path, "w") as f:
            f.write(UNDEFINED)
        with self.assertRaises(hydae.ModelError) as caught:
            hydae.load(path)
        self.assertEqual(caught.exception.diagnostics[0][:3], (path, 4, 13))
        with self.assertRaises(hydae.ModelError) as caught:
            hydae.load(self.path("missing.hym"))
        self.assertIn("missing.hym", str(caught.exception))

    def test_unknown_names_and_settings(self):
        m = hydae.load(support.PENDULUM)
        with self.assertRaises(KeyError):
            m.parameters["nope"] = 1.0
        with self.assertRaises(hydae.SettingsError) as caught:
            m.simulate(set={"nope": 1.0})
        self.assertIn("'nope'", str(caught.exception))
        with self.assertRaises(hydae.SettingsError) as caught:
            m.simulate(options={"max_order": 9})
        self.assertIn("max_order", str(caught.exception))
        with self.assertRaises(hydae.SettingsError):
            m.simulate(solver="NO_SUCH_METHOD")
        self.assertEqual(m.parameters["L"], 1.0)

    def test_failed_run(self):
        """x' = x^2, x(0) = 1 has x = 1 / (1 - t): the run cannot pass t = 1."""
        m = hydae.load_string(BLOW_UP, name="blow.hym")
        with self.assertRaises(hydae.SimulationError) as caught:
            m.simulate(t_end=2)
        err = caught.exception
        self.assertLess(err.status, 0)
        self.assertIn("blow", err.message)  # names the mode
        partial = err.result
        self.assertTrue(partial.stopped_early)
        self.assertLess(partial.t_reached, 1.0)
        self.assertGreater(partial.t_reached, 0.99)
        self.assertEqual(partial.time[-1], max(partial.time))
        # The rows up to there follow the closed form.
        grid = partial.time < 0.5
        exact = 1.0 / (1.0 - partial.time[grid])
        self.assertLess(max(abs(partial["x"][grid] - exact) / exact), 1e-4)
        r = m.simulate(t_end=2, check=False)
        self.assertTrue(r.stopped_early)
        self.assertEqual(r.message, err.message)

    def test_no_initial_values_with_the_defaults(self):
        """0 = z^2 - c has no solution for c = -1 (the default): the model
        loads, its parameter has no known value, and runs with c = 4 give
        z = 2 without changing the model."""
        m = hydae.load_string(NO_START, name="nostart.hym")
        self.assertEqual(dict(m.parameters), {"c": None})
        self.assertEqual(m.simulate(t_end=1, set={"c": 4.0})["z"][0], 2.0)
        with self.assertRaises(hydae.SimulationError) as caught:
            m.simulate(t_end=1)
        self.assertEqual(caught.exception.status, -9)  # HYDAE_ERR_INIT
        self.assertEqual(len(caught.exception.result), 0)
        m.parameters["c"] = 9.0
        self.assertEqual(m.simulate(t_end=1)["z"][-1], 3.0)

    def test_max_steps(self):
        m = hydae.load(support.PENDULUM)
        with self.assertRaises(hydae.SimulationError) as caught:
            m.simulate(options={"max_steps": 10})
        self.assertEqual(caught.exception.status, -15)  # HYDAE_ERR_MAXSTEPS
        self.assertIn("max_steps", caught.exception.message)

    def test_exception_in_a_row_callback_stops_the_run(self):
        """An exception raised in Python while the run is calling back stops
        the run and comes out of simulate()."""
        m = hydae.load(support.PENDULUM)
        import hydae.model as model_module
        original, calls = model_module._lib.text, []

        def failing_text(value):
            calls.append(value)
            if len(calls) == 50:
                raise RuntimeError("from Python")
            return original(value)

        model_module._lib.text = failing_text
        try:
            with self.assertRaisesRegex(RuntimeError, "from Python"):
                m.simulate()
        finally:
            model_module._lib.text = original
        self.assertEqual(len(calls), 50)  # no row after it
        self.assertEqual(len(m.simulate(t_end=0.1).events), 0)

    def test_ctrl_c(self):
        """SIGINT during a long run: KeyboardInterrupt soon after, and the
        model runs again."""
        m = hydae.load(support.PENDULUM)
        timer = threading.Timer(0.3, os.kill, (os.getpid(), signal.SIGINT))
        start = time.monotonic()
        timer.start()
        try:
            with self.assertRaises(KeyboardInterrupt):
                m.simulate(t_end=1e4, dt=1e-4)  # 10^8 rows: minutes
        finally:
            timer.cancel()
        self.assertLess(time.monotonic() - start, 30.0)
        self.assertIs(signal.getsignal(signal.SIGINT), signal.default_int_handler)
        self.assertEqual(len(m.simulate(t_end=1).events), 2)


class Library(unittest.TestCase):

    def test_missing_library_is_named(self):
        import subprocess
        import sys
        env = dict(os.environ, HYDAE_LIBRARY="/nonexistent/libhydae.so",
                   PYTHONPATH=support.PYTHON_DIR)
        done = subprocess.run([sys.executable, "-c", "import hydae; hydae.load('x.hym')"],
                              capture_output=True, text=True, env=env)
        self.assertNotEqual(done.returncode, 0)
        self.assertIn("HYDAE_LIBRARY is set to '/nonexistent/libhydae.so'", done.stderr)
        self.assertIn("LibraryNotFoundError", done.stderr)


if __name__ == "__main__":
    unittest.main()
