"""The string pendulum (examples/string_pendulum.hym; Enge-Rosenblatt et
al., sec. 5) from Python: its four events at the very times of the C run,
the physics at each switch, modes, parameters and statistics."""
import math
import unittest

import numpy as np

import support
from support import hydae


class StringPendulum(support.ScratchTestCase):

    @classmethod
    def setUpClass(cls):
        cls.model = hydae.load(support.PENDULUM)
        cls.result = cls.model.simulate()

    def c_event_times(self, *args):
        """Event times of `hydae run` (the C path: the CLI's own sinks):
        rows whose time repeats in its CSV, parsed independently."""
        out = self.path("c.csv")
        support.run_cli("run", support.PENDULUM, "-o", out, "--quiet", *args)
        header, rows = support.csv_table(out)
        times = [float(row[0]) for row in rows]
        return [t for t, t_next in zip(times, times[1:]) if t == t_next]

    def test_model(self):
        m = self.model
        # The values written in the model file.
        self.assertEqual(dict(m.parameters), {"m": 1.0, "L": 1.0, "g": 9.81, "kappa": 0.1,
                                              "k": 0.0})
        self.assertEqual(list(m.charts), ["thread"])
        self.assertEqual(m.charts["thread"], ("bound", "free"))
        self.assertEqual(set(m.columns), {"phi", "omega", "x", "y", "F", "r", "vx", "vy"})
        self.assertEqual(m.experiment["t_end"], "12")

    def test_four_events_at_the_c_run_times(self):
        r = self.result
        self.assertFalse(r.stopped_early)
        self.assertEqual(r.time[0], 0.0)
        self.assertEqual(r.time[-1], 12.0)  # the experiment block's t_end
        self.assertEqual(len(r.events), 4)
        self.assertEqual([(e.from_mode, e.to_mode) for e in r.events],
                         [("bound", "free"), ("free", "bound")] * 2)
        c_times = self.c_event_times()
        self.assertEqual(len(c_times), 4)
        self.assertEqual([e.time for e in r.events], c_times)  # to the last bit
        # the transitions of examples/string_pendulum.hym that fired
        self.assertEqual([e.transition for e in r.events],
                         ["unstretch", "stretch", "unstretch", "stretch"])
        self.assertEqual(r.stats["n_events"], 4)
        self.assertEqual(r.stats["n_transitions"], 4)
        self.assertEqual(r.stats["n_mode_switches"], 4)
        self.assertGreater(r.stats["n_steps"], 100)

    def test_switches_obey_the_guards(self):
        """At each slack event the thread force F = m (L omega^2 + g cos phi)
        is zero; at each catch the radius sqrt(x^2 + y^2) is L."""
        r, p = self.result, self.model.parameters
        for e in r.events:
            k = e.row  # the left limit
            self.assertEqual(r.row_kinds[k], "event_left")
            self.assertEqual(r.row_kinds[k + 1], "event_right")
            self.assertEqual(r.time[k], r.time[k + 1])
            if e.from_mode == "bound":
                force = p["m"] * (p["L"] * r["omega"][k] ** 2 + p["g"] * math.cos(r["phi"][k]))
                self.assertLess(abs(force), 1e-5)
            else:
                radius = math.hypot(r["x"][k], r["y"][k])
                self.assertLess(abs(radius - p["L"]), 1e-7)

    def test_modes_per_row(self):
        r = self.result
        modes = r.modes["thread"]
        self.assertEqual(len(modes), len(r.time))
        first = r.events[0].row
        self.assertTrue(all(mode == "bound" for mode in modes[:first + 1]))
        self.assertEqual(modes[first + 1], "free")
        # Variables of the free mode (vx, vy) have no value while bound.
        bound = modes == "bound"
        self.assertTrue(np.all(np.isnan(r["vx"][bound])))
        self.assertFalse(np.any(np.isnan(r["vx"][~bound])))
        # While bound, the outputs are the closed-form positions.
        # (L = 1; the C library's sin, as the model's VM calls it.)
        self.assertBitsEqual(r["x"][bound], [math.sin(phi) for phi in r["phi"][bound]], "x")

    def test_set_is_for_one_run_and_parameters_persist(self):
        m = hydae.load(support.PENDULUM)
        longer = m.simulate(t_end=3, set={"L": 1.5})
        self.assertEqual(m.parameters["L"], 1.0)
        self.assertEqual(longer.parameters["L"], 1.5)
        self.assertEqual([e.time for e in longer.events],
                         self.c_event_times("--tend", "3", "--set", "L=1.5"))
        m.parameters["L"] = 1.5
        again = m.simulate(t_end=3)
        self.assertEqual([e.time for e in again.events], [e.time for e in longer.events])
        # A start value: phi(0) = 0.3 (the C run with --set phi=0.3).
        tilted = m.simulate(t_end=3, set={"phi": 0.3})
        self.assertEqual(tilted["phi"][0], 0.3)
        self.assertEqual([e.time for e in tilted.events],
                         self.c_event_times("--tend", "3", "--set", "L=1.5", "--set", "phi=0.3"))
        self.assertEqual(m.simulate(t_end=1)["phi"][0], 0.0)  # not kept

    def test_settings(self):
        m = self.model
        r = m.simulate(t_end=2, dt=0.5, rtol=1e-6, solver="RADAU")
        grid = r.time[r.row_kinds == "grid"]
        self.assertEqual(list(grid), [0.0, 0.5, 1.0, 1.5, 2.0])
        self.assertEqual([e.time for e in r.events],
                         self.c_event_times("--tend", "2", "--dt", "0.5", "--rtol", "1e-6",
                                            "--solver", "RADAU"))
        steps = m.simulate(t_end=1, output_steps=True)
        self.assertEqual(list(steps.time[steps.row_kinds == "grid"]), [0.0, 1.0])
        n_step_rows = np.count_nonzero(steps.row_kinds == "step")
        self.assertGreater(n_step_rows, 100)
        self.assertLessEqual(n_step_rows, steps.stats["n_steps"])
        self.assertTrue(np.all(np.diff(steps.time) >= 0))


if __name__ == "__main__":
    unittest.main()
