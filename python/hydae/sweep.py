"""Parameter studies through the C API (hydae_sweep_*, docs/sweep.md):
Model.sweep(...) runs a grid or a random sample of a model's parameters on
several threads and returns a SweepTable, a row per run."""
import collections
import ctypes

import numpy as np

from . import _lib


class SweepTable:
    """The table of a sweep, a row per run done, in run order.

    t.runs (int array), t.parameters and t.measures (name -> float64 array;
    a measure's name as given, "max(F)"; NaN where a measure has no value),
    t.status (str per run: "ok" or the run's message), t.failed (bool
    array), t.steps, t.wall_s; t[name] any of these columns by name ("run",
    a parameter, a measure, "status", "steps", "wall_s"), t.columns their
    names in the order of `hydae sweep`'s CSV; t.n_failed; t.stopped_early
    when the sweep was interrupted (the rows done are in the table)."""

    def __init__(self, runs, parameters, measures, status, steps, wall, stopped_early=False):
        self.runs = np.asarray(runs, dtype=np.int64)
        self.parameters = collections.OrderedDict(
            (name, np.asarray(v, dtype=np.float64)) for name, v in parameters.items())
        self.measures = collections.OrderedDict(
            (name, np.asarray(v, dtype=np.float64)) for name, v in measures.items())
        self.status = np.array(status, dtype=object)
        self.failed = np.array([s != "ok" for s in status], dtype=bool)
        self.steps = np.asarray(steps, dtype=np.int64)
        self.wall_s = np.asarray(wall, dtype=np.float64)
        self.stopped_early = stopped_early
        self.columns = (["run"] + list(self.parameters) + list(self.measures)
                        + ["status", "steps", "wall_s"])

    @property
    def n_failed(self):
        return int(np.count_nonzero(self.failed))

    def __len__(self):
        return len(self.runs)

    def __getitem__(self, name):
        fixed = {"run": self.runs, "status": self.status, "steps": self.steps,
                 "wall_s": self.wall_s}
        if name in fixed:
            return fixed[name]
        if name in self.parameters:
            return self.parameters[name]
        if name in self.measures:
            return self.measures[name]
        raise KeyError("%r: not a column of the table (%s)" % (name, ", ".join(self.columns)))

    def __repr__(self):
        return "<hydae.SweepTable: %d runs, %d failed, columns %s>" % (
            len(self), self.n_failed, self.columns)


class _Sweep:
    """A hydae_sweep, freed with the object."""

    def __init__(self, model_handle):
        self.ptr = _lib.lib().hydae_sweep_create(model_handle)
        if not self.ptr:
            raise MemoryError("hydae_sweep_create: out of memory")

    def check(self, status, what):
        if status:
            from .model import SettingsError
            raise SettingsError("%s: %s" % (what, _lib.text(
                _lib.lib().hydae_sweep_errmsg(self.ptr))))

    def close(self):
        if self.ptr:
            _lib.lib().hydae_sweep_free(self.ptr)
            self.ptr = None

    def __del__(self):
        self.close()


def _configure(sw, grid, samples, dist, seed, lhs, measures, threads, options):
    lib = _lib.lib()
    for name, values in (grid or {}).items():
        if isinstance(values, str):  # "START:STEP:STOP" or "V1,V2,..."
            sw.check(lib.hydae_sweep_add_grid_spec(sw.ptr, ("%s=%s" % (name, values)).encode()),
                     "grid %s" % name)
            continue
        array = np.ascontiguousarray(np.atleast_1d(np.asarray(values, dtype=np.float64)))
        pointer = array.ctypes.data_as(ctypes.POINTER(ctypes.c_double))
        sw.check(lib.hydae_sweep_add_grid(sw.ptr, name.encode(), pointer, len(array)),
                 "grid %s" % name)
    for name, law in (dist or {}).items():
        if not isinstance(law, str):  # ("normal", mean, sd) or ("uniform", low, high)
            law = "%s(%r,%r)" % (law[0], float(law[1]), float(law[2]))
        sw.check(lib.hydae_sweep_add_dist(sw.ptr, ("%s=%s" % (name, law)).encode()),
                 "dist %s" % name)
    if samples is not None:
        sw.check(lib.hydae_sweep_set_samples(sw.ptr, int(samples), int(seed), 1 if lhs else 0),
                 "samples")
    if measures:
        text = measures if isinstance(measures, str) else ",".join(measures)
        sw.check(lib.hydae_sweep_add_measures(sw.ptr, text.encode()), "measures")
    sw.check(lib.hydae_sweep_set_threads(sw.ptr, int(threads or 0)), "threads")
    from .model import _number_text
    for name, value in (options or {}).items():
        sw.check(lib.hydae_sweep_set_option(sw.ptr, name.encode(), _number_text(value).encode()),
                 "option %s" % name)
    sw.check(lib.hydae_sweep_prepare(sw.ptr), "sweep")


def run_sweep(model_handle, grid=None, samples=None, dist=None, seed=0, lhs=False,
              measures=None, threads=0, options=None):
    """Model.sweep's work: the sweep configured, run, its rows read."""
    lib = _lib.lib()
    sw = _Sweep(model_handle)
    try:
        _configure(sw, grid, samples, dist, seed, lhs, measures, threads, options)
        n_params = lib.hydae_sweep_n_params(sw.ptr)
        n_measures = lib.hydae_sweep_n_measures(sw.ptr)
        names = [_lib.text(lib.hydae_sweep_param_name(sw.ptr, k)) for k in range(n_params)]
        labels = [_lib.text(lib.hydae_sweep_measure_name(sw.ptr, k)) for k in range(n_measures)]
        rows = []
        caught = []

        def on_row(user, row_pointer):
            try:
                row = row_pointer.contents
                rows.append((row.run, row.params[:n_params], row.measures[:n_measures],
                             _lib.text(row.status), row.steps, row.wall_seconds))
                return 0
            except BaseException as err:  # stop the sweep cleanly
                caught.append(err)
                return 1

        callback = _lib.SWEEP_ROW_FN(on_row)
        from .model import interrupt_on_sigint
        with interrupt_on_sigint(lambda: lib.hydae_sweep_interrupt(sw.ptr)) as interrupted:
            status = lib.hydae_sweep_run(sw.ptr, callback, None)
        if caught:
            raise caught[0]
        if interrupted:
            raise KeyboardInterrupt
        if status and status != _lib.INTERRUPTED:  # interrupted: the rows done
            sw.check(status, "sweep")
    finally:
        sw.close()
    columns = list(zip(*rows)) if rows else [[], [], [], [], [], []]
    params = np.array(columns[1], dtype=np.float64).reshape(len(rows), n_params)
    values = np.array(columns[2], dtype=np.float64).reshape(len(rows), n_measures)
    return SweepTable(columns[0],
                      collections.OrderedDict((n, params[:, k]) for k, n in enumerate(names)),
                      collections.OrderedDict((n, values[:, k]) for k, n in enumerate(labels)),
                      list(columns[3]), columns[4], columns[5], stopped_early=status != 0)
