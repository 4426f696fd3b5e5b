"""hydae.read: MAT and CSV files written by `hydae run` read back to the
very doubles simulate() returns; the MAT reader also against scipy's
(an independent reader) and a big-endian file written here by hand."""
import struct
import unittest

import numpy as np

import support
from support import hydae

try:
    import scipy.io
except ImportError:  # scipy is optional (Debian's python3-scipy)
    scipy = None


class ReadBack(support.ScratchTestCase):

    @classmethod
    def setUpClass(cls):
        cls.model = hydae.load(support.PENDULUM)
        cls.result = cls.model.simulate()

    def assertSameRun(self, read, simulated, with_modes=True):
        self.assertBitsEqual(read.time, simulated.time, "time")
        self.assertEqual(read.variables, simulated.variables)
        for name in simulated.variables:
            self.assertBitsEqual(read[name], simulated[name], name)
        if with_modes:
            self.assertEqual(list(read.modes), list(simulated.modes))
            self.assertEqual(list(read.modes["thread"]), list(simulated.modes["thread"]))
            # a file has the modes but not the names of the transitions fired
            self.assertEqual(read.events,
                             [e._replace(transition=None) for e in simulated.events])
        self.assertEqual(list(read.row_kinds), list(simulated.row_kinds))

    def test_mat(self):
        path = self.path("run.mat")
        support.run_cli("run", support.PENDULUM, "-o", path, "--modes", "--quiet")
        r = hydae.read(path)
        self.assertSameRun(r, self.result)
        self.assertEqual(r.parameters, dict(self.model.parameters))
        self.assertEqual(r.chart_modes["thread"], ("bound", "free"))
        self.assertFalse(r.stopped_early)

    @unittest.skipIf(scipy is None, "scipy (python3-scipy) not installed")
    def test_mat_against_scipy(self):
        path = self.path("run.mat")
        support.run_cli("run", support.PENDULUM, "-o", path, "--quiet")
        r = hydae.read(path)
        mat = scipy.io.loadmat(path, chars_as_strings=False)  # name: L x n characters
        names = ["".join(column).rstrip() for column in mat["name"].T]
        info = mat["dataInfo"]
        checked = 0
        for j, name in enumerate(names):
            block, row = int(info[0, j]), int(info[1, j])
            if block == 2:
                self.assertBitsEqual(r[name], mat["data_2"][row - 1], name)
            elif block == 1:
                self.assertEqual(r.parameters[name], mat["data_1"][row - 1, 0])
            checked += block != 0
        self.assertEqual(checked, len(r.variables) + len(r.parameters))

    def test_csv(self):
        path = self.path("run.csv")
        support.run_cli("run", support.PENDULUM, "-o", path, "--modes", "--quiet")
        self.assertSameRun(hydae.read(path), self.result)
        plain = self.path("plain.csv")
        support.run_cli("run", support.PENDULUM, "-o", plain, "--quiet")
        r = hydae.read(plain)
        self.assertSameRun(r, self.result, with_modes=False)
        self.assertEqual(r.modes, {})

    def test_units(self):
        # unit = "rad" on phi in examples/string_pendulum.hym: from the model,
        # from the MAT description "comment [unit]" and from --csv-units
        self.assertEqual(self.result.units.get("phi"), "rad")
        self.assertEqual(self.result.units.get("vx"), "m/s")
        mat, csv_path = self.path("units.mat"), self.path("units.csv")
        support.run_cli("run", support.PENDULUM, "-o", mat, "--quiet")
        support.run_cli("run", support.PENDULUM, "-o", csv_path, "--csv-units", "--quiet")
        for path in (mat, csv_path):
            read = hydae.read(path)
            for name, unit in self.result.units.items():
                self.assertEqual(read.units.get(name), unit, "%s: %s" % (path, name))

    def test_stopped_early(self):
        for ext in ("csv", "mat"):
            path = self.path("stopped." + ext)
            support.run_cli("run", support.PENDULUM, "-o", path, "--max_steps", "10",
                            "--quiet", expect=1)
            r = hydae.read(path)
            failed = self.model.simulate(options={"max_steps": 10}, check=False)
            self.assertTrue(r.stopped_early, ext)
            self.assertEqual(r.message, failed.message, ext)
            self.assertEqual(r.t_reached, failed.t_reached, ext)
            self.assertBitsEqual(r["phi"], failed["phi"], ext)

    def test_big_endian_binnormal(self):
        """A file written here with struct, big endian and not transposed
        (binNormal), with a negated alias and a constant in data_1."""
        def matrix(name, mtype, rows, cols, data, fmt):
            header = struct.pack(">5i", 1000 + mtype, rows, cols, 0, len(name) + 1)
            return header + name.encode() + b"\0" + struct.pack(">%d%s" % (len(data), fmt), *data)

        def text(name, strings):
            width = max(len(s) for s in strings)
            padded = [s.ljust(width) for s in strings]
            # rows x width, column after column
            data = [ord(padded[i][k]) for k in range(width) for i in range(len(strings))]
            return matrix(name, 51, len(strings), width, data, "B")

        times, values = [0.0, 0.5, 1.0], [2.0, 3.0, 5.0]
        blob = (text("Aclass", ["Atrajectory", "1.1", "", "binNormal"])
                + text("name", ["time", "v", "minus_v", "k"])
                + text("description", ["time", "a value", "", "a constant"])
                # dataInfo: n x 4 (binNormal), column after column
                + matrix("dataInfo", 20, 4, 4, [0, 2, 2, 1, 1, 2, -2, 2, 0, 0, 0, 0,
                                               -1, -1, -1, 0], "i")
                + matrix("data_1", 0, 2, 2, [0.0, 1.0, 7.0, 7.0], "d")
                + matrix("data_2", 0, 3, 2, times + values, "d"))
        path = self.path("normal.mat")
        with open(path, "wb") as f:
            f.write(blob)
        r = hydae.read(path)
        self.assertEqual(list(r.time), times)
        self.assertEqual(list(r["v"]), values)
        self.assertEqual(list(r["minus_v"]), [-v for v in values])
        self.assertEqual(r.parameters, {"k": 7.0})

    def test_bad_files(self):
        path = self.path("junk.mat")
        with open(path, "wb") as f:
            f.write(b"\xff" * 30)
        with self.assertRaises(hydae.ResultFileError) as caught:
            hydae.read(path)
        self.assertIn("junk.mat", str(caught.exception))
        path = self.path("junk.csv")
        with open(path, "w") as f:
            f.write("t,x\n1,2\n")
        with self.assertRaises(hydae.ResultFileError):
            hydae.read(path)


if __name__ == "__main__":
    unittest.main()
