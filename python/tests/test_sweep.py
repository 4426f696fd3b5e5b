"""A parameter sweep of 20 runs in a loop against the closed form: x' =
-a x from x(0) = 1 until x falls below c, then held. x(t) = exp(-a t)
before the event at t* = ln(1/c) / a, x = c after it."""
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


if __name__ == "__main__":
    unittest.main()
