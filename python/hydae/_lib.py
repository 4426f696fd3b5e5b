"""Finding libhydae.so and declaring the C functions of include/hydae.h
that the package calls (ctypes prototypes).

The library is looked up, in this order:
  1. the environment variable HYDAE_LIBRARY (a path to libhydae.so);
  2. an installed tree: lib/ (or lib/<multiarch>/) of the prefixes above
     the package's directory, of the prefix of the `hydae` command on PATH
     (PREFIX/bin/hydae) and of sys.prefix, then the system's linker path
     (ctypes.util.find_library);
  3. the build tree of the repository the package sits in
     (<repo>/build*/libhydae.so), for the tests and for running from a
     checkout.
"""
import ctypes
import ctypes.util
import glob
import os
import shutil
import sys
import sysconfig

# The ABI this package is written for: the SONAME's version (docs/install.md).
SONAME_VERSION = "0.1"
_NAMES = ("libhydae.so." + SONAME_VERSION, "libhydae.so")


class LibraryNotFoundError(OSError):
    """libhydae.so was not found (or could not be loaded)."""


def _prefixes():
    """Directories that may be the installation prefix: the ancestors of this
    package (PREFIX/lib/python3.X/site-packages/hydae), the prefix of the
    hydae command on PATH, and sys.prefix."""
    here = os.path.dirname(os.path.abspath(__file__))
    seen = []
    parent = here
    for _ in range(4):  # PREFIX/lib/python3.X/site-packages/hydae
        parent = os.path.dirname(parent)
        seen.append(parent)
    command = shutil.which("hydae")
    command_prefix = os.path.dirname(os.path.dirname(os.path.realpath(command))) if command else None
    for prefix in (command_prefix, sys.prefix, sys.base_prefix):
        if prefix is None:
            continue
        if prefix not in seen:
            seen.append(prefix)
    return seen


def _installed_candidates():
    multiarch = sysconfig.get_config_var("MULTIARCH") or ""
    for prefix in _prefixes():
        for libdir in ("lib", os.path.join("lib", multiarch) if multiarch else None, "lib64"):
            if libdir:
                for name in _NAMES:
                    yield os.path.join(prefix, libdir, name)


def _build_tree_candidates():
    """<repo>/build/libhydae.so, then any <repo>/build*/ when the package is
    <repo>/python/hydae of a hydae checkout."""
    repo = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    if not os.path.isfile(os.path.join(repo, "include", "hydae.h")):
        return []
    found = [os.path.join(repo, "build", name) for name in _NAMES]
    for build in sorted(glob.glob(os.path.join(repo, "build*"))):
        found += [os.path.join(build, name) for name in _NAMES]
    return found


def find_library():
    """The path of the libhydae.so to load; LibraryNotFoundError if none."""
    env = os.environ.get("HYDAE_LIBRARY")
    if env:
        if not os.path.isfile(env):
            raise LibraryNotFoundError(
                "HYDAE_LIBRARY is set to '%s', which is not a file" % env)
        return env
    tried = []
    for path in _installed_candidates():
        if os.path.isfile(path):
            return path
        tried.append(path)
    system = ctypes.util.find_library("hydae")
    if system:
        return system
    for path in _build_tree_candidates():
        if os.path.isfile(path):
            return path
        tried.append(path)
    raise LibraryNotFoundError(
        "libhydae.so not found; set HYDAE_LIBRARY to its path, or install hydae "
        "(cmake --install build --prefix DIR, docs/install.md) into the prefix "
        "this package is installed in, or put its bin/ on PATH. Looked in (and on the "
        "linker's path):\n  " + "\n  ".join(dict.fromkeys(os.path.dirname(p) for p in tried)))


# ---- prototypes ----

c_double = ctypes.c_double
c_int = ctypes.c_int
c_long = ctypes.c_long
c_char_p = ctypes.c_char_p
c_void_p = ctypes.c_void_p
c_size_t = ctypes.c_size_t

ROW_GRID, ROW_EVENT_LEFT, ROW_EVENT_RIGHT, ROW_STEP = 0, 1, 2, 3
INTERRUPTED = -17

# hydae_row_fn: int (*)(void *user, hydae_row_kind kind, double t, const double *values)
ROW_FN = ctypes.CFUNCTYPE(c_int, c_void_p, c_int, c_double, ctypes.POINTER(c_double))
# hydae_fired_fn: (user, t, chart, transition), each transition fired
FIRED_FN = ctypes.CFUNCTYPE(c_int, c_void_p, c_double, c_char_p, c_char_p)


class Stats(ctypes.Structure):
    """struct hydae_stats, field for field."""
    _fields_ = [(name, c_long) for name in (
        "n_steps", "n_rejected", "n_res_evals", "n_jac_evals", "n_lu", "n_events",
        "n_triggers", "n_priority_conflicts", "n_transitions", "n_mode_switches",
        "n_restarts", "n_homotopy_steps", "n_jump_restarts", "n_zeno_rests",
        "n_configurations", "n_config_cache_hits", "n_colorings",
        "n_symbolic_analyses")] + [
        ("max_constraint_violation", c_double),
        ("n_partitions", c_long),
        ("wall_seconds", c_double),
        ("n_stiff_detections", c_long),
        ("t_first_stiff", c_double)]


class SweepRow(ctypes.Structure):
    """struct hydae_sweep_row, field for field."""
    _fields_ = [("run", c_long), ("failed", c_int), ("params", ctypes.POINTER(c_double)),
                ("measures", ctypes.POINTER(c_double)), ("status", c_char_p),
                ("steps", c_long), ("wall_seconds", c_double)]


# hydae_sweep_row_fn: int (*)(void *user, const hydae_sweep_row *row)
SWEEP_ROW_FN = ctypes.CFUNCTYPE(c_int, c_void_p, ctypes.POINTER(SweepRow))

_PROTOTYPES = {
    # name: (restype, argtypes)
    "hydae_version": (c_char_p, []),
    "hydae_status_string": (c_char_p, [c_int]),
    "hydae_model_load_file": (c_void_p, [c_char_p, ctypes.POINTER(c_void_p),
                                         ctypes.POINTER(c_int)]),
    "hydae_model_load_string": (c_void_p, [c_char_p, c_size_t, c_char_p,
                                           ctypes.POINTER(c_void_p), ctypes.POINTER(c_int)]),
    "hydae_string_free": (None, [c_void_p]),
    "hydae_model_free": (None, [c_void_p]),
    "hydae_model_errmsg": (c_char_p, [c_void_p]),
    "hydae_model_set_param": (c_int, [c_void_p, c_char_p, c_double]),
    "hydae_model_set_start": (c_int, [c_void_p, c_char_p, c_double]),
    "hydae_model_n_columns": (c_int, [c_void_p]),
    "hydae_model_column_name": (c_char_p, [c_void_p, c_int]),
    "hydae_model_column_unit": (c_char_p, [c_void_p, c_int]),
    "hydae_sim_stop_reason": (c_char_p, [c_void_p]),
    "hydae_model_experiment_setting": (c_char_p, [c_void_p, c_int, ctypes.POINTER(c_char_p)]),
    "hydae_sim_create": (c_void_p, [c_void_p, ctypes.POINTER(c_int)]),
    "hydae_sim_free": (None, [c_void_p]),
    "hydae_sim_errmsg": (c_char_p, [c_void_p]),
    "hydae_sim_apply_experiment": (c_int, [c_void_p]),
    "hydae_sim_set_option": (c_int, [c_void_p, c_char_p, c_char_p]),
    "hydae_sim_set_integrator": (c_int, [c_void_p, c_char_p]),
    "hydae_sim_add_row_sink": (c_int, [c_void_p, ROW_FN, c_void_p]),
    "hydae_sim_set_fired_hook": (c_int, [c_void_p, FIRED_FN, c_void_p]),
    "hydae_sim_add_mat": (c_int, [c_void_p, c_void_p, c_char_p, c_int]),
    "hydae_sim_interrupt": (None, [c_void_p]),
    "hydae_sim_validate": (c_int, [c_void_p]),
    "hydae_sim_run": (c_int, [c_void_p]),
    "hydae_sim_get_stats": (None, [c_void_p, ctypes.POINTER(Stats)]),
    "hydae_sim_time": (c_double, [c_void_p]),
    "hydae_sim_mode_name": (c_char_p, [c_void_p, c_int]),
    "hydae_sweep_create": (c_void_p, [c_void_p]),
    "hydae_sweep_free": (None, [c_void_p]),
    "hydae_sweep_errmsg": (c_char_p, [c_void_p]),
    "hydae_sweep_add_grid": (c_int, [c_void_p, c_char_p, ctypes.POINTER(c_double), c_int]),
    "hydae_sweep_add_grid_spec": (c_int, [c_void_p, c_char_p]),
    "hydae_sweep_add_dist": (c_int, [c_void_p, c_char_p]),
    "hydae_sweep_set_samples": (c_int, [c_void_p, c_long, ctypes.c_uint64, c_int]),
    "hydae_sweep_add_measures": (c_int, [c_void_p, c_char_p]),
    "hydae_sweep_set_threads": (c_int, [c_void_p, c_int]),
    "hydae_sweep_set_option": (c_int, [c_void_p, c_char_p, c_char_p]),
    "hydae_sweep_prepare": (c_int, [c_void_p]),
    "hydae_sweep_n_runs": (c_long, [c_void_p]),
    "hydae_sweep_n_params": (c_int, [c_void_p]),
    "hydae_sweep_param_name": (c_char_p, [c_void_p, c_int]),
    "hydae_sweep_n_measures": (c_int, [c_void_p]),
    "hydae_sweep_measure_name": (c_char_p, [c_void_p, c_int]),
    "hydae_sweep_run": (c_int, [c_void_p, SWEEP_ROW_FN, c_void_p]),
    "hydae_sweep_interrupt": (None, [c_void_p]),
    "hydae_sweep_n_failed": (c_long, [c_void_p]),
    "hydae_sweep_get_row": (c_int, [c_void_p, c_long, ctypes.POINTER(SweepRow)]),
}

_lib = None
_libc = None


def lib():
    """The loaded library, its prototypes declared (loaded on first use)."""
    global _lib
    if _lib is None:
        path = find_library()
        try:
            loaded = ctypes.CDLL(path)
        except OSError as err:
            raise LibraryNotFoundError("cannot load %s: %s" % (path, err)) from err
        for name, (restype, argtypes) in _PROTOTYPES.items():
            try:
                fn = getattr(loaded, name)
            except AttributeError as err:
                raise LibraryNotFoundError(
                    "%s has no %s: a libhydae.so older than this package (%s)"
                    % (path, name, SONAME_VERSION)) from err
            fn.restype = restype
            fn.argtypes = argtypes
        loaded.path = path
        _lib = loaded
    return _lib


def libc():
    """The C library's fopen and fclose, for the FILE * of hydae_sim_add_mat."""
    global _libc
    if _libc is None:
        loaded = ctypes.CDLL(ctypes.util.find_library("c") or None)
        loaded.fopen.restype = c_void_p
        loaded.fopen.argtypes = [c_char_p, c_char_p]
        loaded.fclose.restype = c_int
        loaded.fclose.argtypes = [c_void_p]
        _libc = loaded
    return _libc


def text(value):
    """bytes from the library as str (None stays None)."""
    return None if value is None else value.decode("utf-8", "replace")
