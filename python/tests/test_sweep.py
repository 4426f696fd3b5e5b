"""A parameter sweep of 20 runs in a loop against the closed form: x' =
-a x from x(0) = 1 until x falls below c, then held. x(t) = exp(-a t)
before the event at t* = ln(1/c) / a, x = c after it. The same through
Model.sweep (the C API's hydae_sweep_*): against that closed form, and
its table against `hydae sweep`'s CSV of the same grid or sample (the
same doubles, statuses and step counts)."""
import csv
import math
import unittest

import numpy as np

import support
from support import hydae

DECAY = """model decay
  parameter Real a = 1 "rate (1/s)";
  parameter Real c = 0.25 "threshold";
  chart main
    initial mode falling
      Real x(start = 1);
    equation
      der(x) = -a * x;
    end falling;
    mode held
      Real x(start = 0);
    equation
      der(x) = 0;
    end held;
    transition reach from falling to held when x < c do
      x := x;
    end;
  end main;
  experiment t_end = 4, dt = 0.05, rtol = 1e-10, atol = 1e-12;
end decay;
"""


class Sweep(unittest.TestCase):

    def test_twenty_rates(self):
        m = hydae.load_string(DECAY, name="decay.hym")
        c = m.parameters["c"]
        rates = np.linspace(0.5, 5.0, 20)
        worst_x, worst_t = 0.0, 0.0
        for a in rates:
            r = m.simulate(set={"a": a})
            self.assertEqual(r.parameters["a"], a)
            self.assertEqual(len(r.events), 1, "a = %g" % a)
            event = r.events[0]
            self.assertEqual((event.from_mode, event.to_mode), ("falling", "held"))
            t_star = math.log(1.0 / c) / a
            worst_t = max(worst_t, abs(event.time - t_star) / t_star)
            before = r.time <= event.time
            before[event.row + 1:] = False
            exact = np.exp(-a * r.time[before])
            worst_x = max(worst_x, float(np.max(np.abs(r["x"][before] - exact))))
            after = r["x"][event.row + 1:]
            self.assertTrue(np.all(np.abs(after - c) < 1e-8), "a = %g" % a)
            self.assertEqual(r.modes["main"][-1], "held")
        self.assertLess(worst_t, 1e-8)
        self.assertLess(worst_x, 1e-8)
        self.assertEqual(m.parameters["a"], 1.0)  # set= was for each run only



def read_table(path):
    """`hydae sweep`'s CSV: header and rows (the comment lines dropped)."""
    with open(path) as f:
        rows = [r for r in csv.reader(f) if r and not r[0].startswith("#")]
    return rows[0], rows[1:]


def csv_numbers(rows, column):
    return np.array([float(r[column]) if r[column] else math.nan for r in rows])


class ModelSweep(support.ScratchTestCase):

    MEASURES = ["count(stretch)", "count(unstretch)", "first(unstretch)", "max(F)",
                "integral(F)", "phi"]

    def assertTableIsCli(self, table, path):
        header, rows = read_table(path)
        self.assertEqual(table.columns, header)
        self.assertEqual(len(table), len(rows))
        self.assertEqual(list(table.runs), [int(r[0]) for r in rows])
        for c, name in enumerate(header):
            if name in ("run", "status", "steps", "wall_s"):
                continue
            self.assertBitsEqual(table[name], csv_numbers(rows, c), name)
        self.assertEqual(list(table.status), [r[header.index("status")] for r in rows])
        self.assertEqual(list(table.steps), [int(r[header.index("steps")]) for r in rows])

    def test_grid_equals_cli(self):
        m = hydae.load(support.PENDULUM)
        table = m.sweep(grid={"L": [0.8, 0.9, 1.0, 1.1, 1.2], "kappa": "0:0.05:0.1"},
                        measures=self.MEASURES, threads=2)
        self.assertEqual(len(table), 15)
        self.assertEqual(table.n_failed, 0)
        self.assertEqual(list(table["L"][::3]), [0.8, 0.9, 1.0, 1.1, 1.2])
        support.run_cli("sweep", support.PENDULUM, "--grid", "L=0.8,0.9,1.0,1.1,1.2",
                        "--grid", "kappa=0:0.05:0.1", "--measure", ",".join(self.MEASURES),
                        "--threads", "1", "-o", self.path("grid.csv"), "--quiet")
        self.assertTableIsCli(table, self.path("grid.csv"))
        slack = table["count(unstretch)"] > 0
        self.assertTrue(slack.any() and not slack.all())
        self.assertTrue(np.all(np.isnan(table["first(unstretch)"][~slack])))

    def test_sample_equals_cli(self):
        m = hydae.load(support.PENDULUM)
        table = m.sweep(samples=16, dist={"kappa": "normal(0.05,0.005)",
                                          "L": ("uniform", 0.9, 1.1)},
                        seed=11, lhs=True, measures="count(stretch),max(F)", threads=3)
        support.run_cli("sweep", support.PENDULUM, "--sample", "16", "--dist",
                        "kappa=normal(0.05,0.005)", "--dist", "L=uniform(0.9,1.1)",
                        "--seed", "11", "--lhs", "--measure", "count(stretch),max(F)",
                        "--threads", "2", "-o", self.path("sample.csv"), "--quiet")
        self.assertTableIsCli(table, self.path("sample.csv"))
        # Latin hypercube: one run in each sixteenth of (0.9, 1.1).
        strata = np.floor((table["L"] - 0.9) / (0.2 / 16)).astype(int)
        self.assertEqual(sorted(strata), list(range(16)))

    def test_decay_closed_form(self):
        m = hydae.load_string(DECAY, name="decay.hym")
        rates = np.linspace(0.5, 5.0, 20)
        table = m.sweep(grid={"a": rates}, measures=["first(reach)", "count(reach)", "x",
                                                      "max(x)"], threads=2)
        c = m.parameters["c"]
        self.assertBitsEqual(table["a"], rates, "a")
        t_star = np.log(1.0 / c) / rates
        self.assertLess(float(np.max(np.abs(table["first(reach)"] - t_star) / t_star)), 1e-8)
        self.assertTrue(np.all(table["count(reach)"] == 1))
        self.assertLess(float(np.max(np.abs(table["x"] - c))), 1e-8)
        self.assertTrue(np.all(table["max(x)"] == 1.0))  # x(0) = 1, then falling

    def test_failed_run_is_a_row(self):
        blowup = ("model blowup\n  parameter Real a = 1;\n  Real x(start = 1);\nequation\n"
                  "  der(x) = a * x^2;\n  experiment t_end = 1, dt = 0.1;\nend blowup;\n")
        m = hydae.load_string(blowup, name="blowup.hym")
        table = m.sweep(grid={"a": [0.5, 2.0]}, measures=["x"], threads=1)
        self.assertEqual(list(table.failed), [False, True])
        self.assertIn("t = ", table.status[1])
        self.assertAlmostEqual(table["x"][0], 2.0, delta=1e-4)  # 1 / (1 - a)

    def test_bad_arguments(self):
        m = hydae.load(support.PENDULUM)
        with self.assertRaises(hydae.SettingsError) as caught:
            m.sweep(grid={"L": [1]}, measures=["count(jump)"])
        self.assertIn("no transition 'jump'", str(caught.exception))
        with self.assertRaises(hydae.SettingsError):
            m.sweep(grid={"L": [1]}, samples=3, dist={"kappa": "normal(0,1)"})


if __name__ == "__main__":
    unittest.main()
