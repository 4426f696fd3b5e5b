"""hydae from Python: load a model file, simulate it, read result files.

    import hydae
    m = hydae.load("examples/string_pendulum.hym")
    r = m.simulate(t_end=12)
    r.time, r["phi"], r.modes["thread"], r.events, r.stats
    t = m.sweep(grid={"L": [0.8, 1, 1.2]}, measures=["count(stretch)"], threads=2)

A thin layer over libhydae.so (ctypes; docs/python.md): HYDAE_LIBRARY
names the library, else it is looked for where hydae is installed, then in
the build tree of the checkout this package is in.
"""
from ._lib import LibraryNotFoundError, find_library
from .model import (Diagnostic, HydaeError, Model, ModelError, Parameters, SettingsError,
                    SimulationError, load, load_string)
from .readers import ResultFileError, read
from .result import Event, Result
from .sweep import SweepTable

__version__ = "0.1.0"

__all__ = ["load", "load_string", "read", "library_version", "Model", "Parameters", "Result",
           "Event", "SweepTable", "Diagnostic", "HydaeError", "ModelError", "SettingsError", "SimulationError",
           "ResultFileError", "LibraryNotFoundError", "find_library"]


def library_version():
    """The version of the loaded libhydae.so (hydae_version())."""
    from . import _lib
    return _lib.text(_lib.lib().hydae_version())
