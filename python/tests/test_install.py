"""`pip install ./python` offline (no index: the build backend needs
nothing from the network), and the installed package finding libhydae.so
in its prefix without HYDAE_LIBRARY."""
import os
import subprocess
import sys
import unittest

import support

SCRIPT = """
import hydae, sys
print(hydae.__file__)
print(hydae.find_library())
m = hydae.load(sys.argv[1])
print(len(m.simulate().events))
"""


class Install(support.ScratchTestCase):

    def test_pip_install_offline_and_find_the_library_in_the_prefix(self):
        library = os.environ.get("HYDAE_LIBRARY") or support.hydae.find_library()
        prefix = self.path("prefix")
        site = os.path.join(prefix, "lib", "python3", "dist-packages")
        done = subprocess.run([sys.executable, "-m", "pip", "install", "--no-index", "--no-deps",
                               "--no-cache-dir", "--target", site, support.PYTHON_DIR],
                              capture_output=True, text=True)
        if done.returncode != 0 and "No module named pip" in done.stderr:
            self.skipTest("pip is not installed (Debian: python3-pip)")
        self.assertEqual(done.returncode, 0, done.stderr)
        # The library where `cmake --install --prefix PREFIX` puts it.
        os.symlink(os.path.abspath(library), os.path.join(prefix, "lib", "libhydae.so.0.1"))
        env = {k: v for k, v in os.environ.items() if k != "HYDAE_LIBRARY"}
        env["PYTHONPATH"] = site
        env["PATH"] = "/usr/bin:/bin"  # no hydae command of a build tree on it
        run = subprocess.run([sys.executable, "-c", SCRIPT, support.PENDULUM], cwd=self.scratch,
                             capture_output=True, text=True, env=env)
        self.assertEqual(run.returncode, 0, run.stderr)
        package, found, n_events = run.stdout.split("\n")[:3]
        self.assertTrue(package.startswith(site), package)
        self.assertEqual(found, os.path.join(prefix, "lib", "libhydae.so.0.1"))
        self.assertEqual(n_events, "4")


if __name__ == "__main__":
    unittest.main()
