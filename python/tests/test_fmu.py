"""A model file with an FMU component (examples/fmi/vanderpol_switch.hym
beside the Reference FMU VanDerPol, ../shared/fmus) loaded from Python:
simulate() against the same oscillator written by hand (its states within
100 rtol max|x| at every row), and Model.sweep on 2 threads against the
same grid on 1 thread (equal bit for bit) and against `hydae sweep`'s CSV.
Skipped when the library has no FMI support or the FMUs are absent."""
import os
import shutil

import numpy as np

import support
from support import hydae

FMU = os.path.join(support.REPO, "..", "shared", "fmus", "3.0", "VanDerPol.fmu")
EXAMPLE = os.path.join(support.REPO, "examples", "fmi", "vanderpol_switch.hym")

HAND = """model hand
  parameter Real mu = 1;
  initial mode one
    Real x0(start = 2), x1(start = 0);
  equation
    der(x0) = x1;
    der(x1) = mu * (1 - x0^2) * x1 - x0;
  end one;
  mode two
    Real x0(start = 2), x1(start = 0);
  equation
    der(x0) = x1;
    der(x1) = mu * (1 - x0^2) * x1 - x0;
  end two;
  transition a from one to two when time >= 5 end;
  transition b from two to one when time >= 12 end;
  experiment t_end = 20, dt = 0.1, rtol = 1e-8, atol = 1e-10;
end hand;
"""


class FmuComponent(support.ScratchTestCase):

    def setUp(self):
        super().setUp()
        if not os.path.isfile(FMU):
            self.skipTest("no test FMUs: %s" % FMU)
        os.symlink(os.path.abspath(FMU), self.path("VanDerPol.fmu"))
        shutil.copy(EXAMPLE, self.path("vanderpol_switch.hym"))
        try:
            self.model = hydae.load(self.path("vanderpol_switch.hym"))
        except hydae.HydaeError as e:
            if "FMI support" in str(e):
                self.skipTest("a build without FMI support")
            raise

    def test_simulate_matches_hand_written(self):
        r = self.model.simulate(set={"mu": 2.0})
        ref = hydae.load_string(HAND, name="hand.hym").simulate(set={"mu": 2.0})
        self.assertBitsEqual(r.time, ref.time, "time")
        worst = 0.0
        for k in ("x0", "x1"):
            mine = np.where(np.isnan(r[k]), r["vdp." + k], r[k])
            worst = max(worst, float(np.max(np.abs(mine - ref[k]))))
        self.assertLess(worst, 100 * 1e-8 * 2.1)
        with_fmu = ~np.isnan(r["vdp.x0"])
        self.assertTrue(with_fmu.any() and not with_fmu.all())

    def test_sweep_threads_and_cli(self):
        grid = {"mu": [0.5, 1.0, 1.5, 2.0]}
        measures = ["vdp.x0", "vdp.x1", "max(x0)"]
        one = self.model.sweep(grid=grid, measures=measures, threads=1)
        two = self.model.sweep(grid=grid, measures=measures, threads=2)
        self.assertEqual(one.n_failed, 0)
        for name in measures:
            self.assertBitsEqual(two[name], one[name], name)
        support.run_cli("sweep", self.path("vanderpol_switch.hym"), "--grid",
                        "mu=0.5,1.0,1.5,2.0", "--measure", ",".join(measures),
                        "--threads", "2", "-o", self.path("table.csv"), "--quiet")
        header, rows = support.csv_table(self.path("table.csv"))
        for name in measures:
            column = np.array([float(row[header.index(name)]) for row in rows])
            self.assertBitsEqual(column, one[name], "hydae sweep " + name)
