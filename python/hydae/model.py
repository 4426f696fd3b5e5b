"""Models compiled from model files (.hym) by libhydae, and their runs."""
import collections
import collections.abc
import contextlib
import ctypes
import os
import re
import signal
import tempfile
import threading

import numpy as np

from . import _lib
from .readers import read_mat
from .result import Result, ROW_KINDS, stats_dict
from .sweep import run_sweep


class HydaeError(Exception):
    """Base of the errors of this package."""


class ModelError(HydaeError):
    """A model file that does not compile (or a model the library refuses).
    str(error) is the compiler's text ("file:line:column: error: message",
    the source line and a caret, as `hydae check` prints it);
    error.diagnostics the messages as Diagnostic tuples."""

    def __init__(self, text, diagnostics=()):
        super().__init__(text)
        self.text = text
        self.diagnostics = list(diagnostics)


class SettingsError(HydaeError, ValueError):
    """A setting or a name the library refuses; the message says which and why."""


class SimulationError(HydaeError):
    """A run that stopped before t_end. .status is the hydae_status code
    (negative), .message the library's message (time, mode, variable),
    .result the rows up to the failure (a Result with stopped_early set)."""

    def __init__(self, message, status, result):
        super().__init__(message)
        self.message = message
        self.status = status
        self.result = result


Diagnostic = collections.namedtuple("Diagnostic", "file line column severity message text")

_DIAG_LINE = re.compile(r"^(.*?):(\d+):(\d+): (error|warning|note): (.*)$")


def parse_diagnostics(text):
    """The compiler's text as Diagnostic tuples; text holds the message
    line and the quoted source line and caret that follow it."""
    found = []
    for line in (text or "").splitlines():
        match = _DIAG_LINE.match(line)
        if match:
            found.append([match.group(1), int(match.group(2)), int(match.group(3)),
                          match.group(4), match.group(5), line])
        elif found:
            found[-1][5] += "\n" + line
    return [Diagnostic(*d) for d in found]


def _take_string(pointer):
    """A char * the library gave us, as str, freed with hydae_string_free."""
    if not pointer.value:
        return ""
    text = ctypes.string_at(pointer.value).decode("utf-8", "replace")
    _lib.lib().hydae_string_free(pointer)
    return text


def _compile(source):
    """A model handle from ("file", path) or ("string", text, name);
    ModelError with the diagnostics on failure. Returns (handle, text of
    the warnings)."""
    lib = _lib.lib()
    diagnostics = ctypes.c_void_p()
    n_errors = ctypes.c_int(0)
    if source[0] == "file":
        handle = lib.hydae_model_load_file(os.fsencode(source[1]), ctypes.byref(diagnostics),
                                           ctypes.byref(n_errors))
    else:
        data = source[1].encode("utf-8")
        name = source[2].encode("utf-8") if source[2] else None
        handle = lib.hydae_model_load_string(data, len(data), name, ctypes.byref(diagnostics),
                                             ctypes.byref(n_errors))
    text = _take_string(diagnostics)
    if not handle:
        if not text:
            text = "%s: the model could not be loaded (%d errors)" % (
                source[1] if source[0] == "file" else source[2] or "<input>", n_errors.value)
        raise ModelError(text.rstrip("\n"), parse_diagnostics(text))
    return handle, text


def _number_text(value):
    """A setting's value as the library reads it: numbers with every digit
    (repr gives the shortest text that reads back to the same double)."""
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, (int, float, np.floating, np.integer)):
        return repr(float(value)) if isinstance(value, (float, np.floating)) else str(int(value))
    return str(value)


class _Sim:
    """A hydae_sim for one run, freed with the object (or at close())."""

    def __init__(self, handle):
        lib = _lib.lib()
        status = ctypes.c_int(0)
        self.ptr = lib.hydae_sim_create(handle, ctypes.byref(status))
        if not self.ptr:
            raise ModelError(_lib.text(lib.hydae_model_errmsg(handle))
                             or _lib.text(lib.hydae_status_string(status.value)))

    def errmsg(self):
        return _lib.text(_lib.lib().hydae_sim_errmsg(self.ptr))

    def option(self, name, value):
        if _lib.lib().hydae_sim_set_option(self.ptr, name.encode(), _number_text(value).encode()):
            raise SettingsError("%s = %s: %s" % (name, value, self.errmsg()))

    def close(self):
        if self.ptr:
            _lib.lib().hydae_sim_free(self.ptr)
            self.ptr = None

    def __del__(self):
        self.close()


@contextlib.contextmanager
def interrupt_on_sigint(interrupt):
    """Ctrl-C during a library call: interrupt() (hydae_sim_interrupt: the
    run ends at the next step boundary, outputs marked as stopped early;
    hydae_sweep_interrupt: the runs going stop), then KeyboardInterrupt
    when the library has returned. Python runs the handler in a callback
    (rows); only Python's default SIGINT handler is replaced, and only on
    the main thread. Yields the list that records the signal."""
    interrupted = []

    def on_sigint(signum, frame):
        interrupted.append(signum)
        interrupt()

    replace = (threading.current_thread() is threading.main_thread()
               and signal.getsignal(signal.SIGINT) is signal.default_int_handler)
    if replace:
        signal.signal(signal.SIGINT, on_sigint)
    try:
        yield interrupted
    finally:
        if replace:
            signal.signal(signal.SIGINT, signal.default_int_handler)


class Parameters(collections.abc.MutableMapping):
    """The model's parameters' values by name, in the order of the model;
    setting one changes it for every later run (hydae_model_set_param).
    Discrete variables are result columns; set= sets their start values."""

    def __init__(self, model, values):
        self._model = model
        self._values = collections.OrderedDict(values)

    def __getitem__(self, name):
        return self._values[name]

    def __setitem__(self, name, value):
        if name not in self._values:
            raise KeyError("no parameter '%s'; the parameters are: %s"
                           % (name, ", ".join(self._values)))
        if _lib.lib().hydae_model_set_param(self._model._handle, name.encode(), float(value)):
            raise SettingsError(_lib.text(_lib.lib().hydae_model_errmsg(self._model._handle)))
        self._values[name] = float(value)

    def __delitem__(self, name):
        raise TypeError("parameters cannot be removed from a model")

    def __iter__(self):
        return iter(self._values)

    def __len__(self):
        return len(self._values)

    def __repr__(self):
        return "Parameters(%s)" % dict(self._values)


class Model:
    """A compiled model file. m.parameters (settable), m.columns (the result
    columns after time), m.charts (chart name -> its modes' names),
    m.experiment (the file's experiment block), m.warnings (the compiler's
    warnings, Diagnostic tuples); m.simulate(...) runs it."""

    def __init__(self, source):
        self._source = source
        self._handle = None
        self._handle, warnings_text = _compile(source)
        self.name = source[1] if source[0] == "file" else (source[2] or "<input>")
        self.warnings = parse_diagnostics(warnings_text)
        lib = _lib.lib()
        self.columns = [_lib.text(lib.hydae_model_column_name(self._handle, c))
                        for c in range(lib.hydae_model_n_columns(self._handle))]
        # a result column's unit (unit = "..." in the model file), where it has one
        self.units = {}
        for c, name in enumerate(self.columns):
            unit = _lib.text(lib.hydae_model_column_unit(self._handle, c))
            if unit:
                self.units[name] = unit
        self.experiment = self._experiment_settings()
        parameters, self.charts = self._probe()
        self.parameters = Parameters(self, parameters)

    def __del__(self):
        if getattr(self, "_handle", None):
            _lib.lib().hydae_model_free(self._handle)
            self._handle = None

    def __repr__(self):
        return "<hydae.Model %s: %d columns, %d parameters, charts %s>" % (
            self.name, len(self.columns), len(self.parameters), list(self.charts))

    def _experiment_settings(self):
        lib = _lib.lib()
        settings = collections.OrderedDict()
        value = ctypes.c_char_p()
        i = 0
        while True:
            name = lib.hydae_model_experiment_setting(self._handle, i, ctypes.byref(value))
            if name is None:
                return settings
            settings[_lib.text(name)] = _lib.text(value.value)
            i += 1

    def _probe(self):
        """The parameters' values and the charts' modes. The C API has no
        list of them (docs/python.md, "What the C API lacks"); a MAT sink
        with every parameter and mode column writes both, so a run stopped
        at its start (hydae_sim_interrupt before hydae_sim_run: the
        consistent initial values only) gives them."""
        lib, libc = _lib.lib(), _lib.libc()
        sim = _Sim(self._handle)
        fd, path = tempfile.mkstemp(suffix=".mat", prefix="hydae-probe-")
        os.close(fd)
        try:
            lib.hydae_sim_apply_experiment(sim.ptr)  # an error shows in simulate()
            stream = libc.fopen(os.fsencode(path), b"wb")
            if not stream:
                raise OSError("cannot write the temporary file %s" % path)
            added = lib.hydae_sim_add_mat(sim.ptr, stream, None, 1)
            if added == 0:
                lib.hydae_sim_interrupt(sim.ptr)
                lib.hydae_sim_run(sim.ptr)
            libc.fclose(stream)
            if added:
                raise ModelError(sim.errmsg())
            layout = read_mat(path)
        finally:
            sim.close()
            os.unlink(path)
        parameters = layout.parameters
        if len(layout.time) == 0:
            # No consistent initial values at t0 with these values: the
            # file names the parameters without their values.
            parameters = {name: None for name in parameters}
        return parameters, layout.chart_modes

    def _handle_for(self, assignments):
        """The handle to run with assignments applied: this model's, its
        parameters set for the run (restore() puts them back), or a fresh
        compilation when start values are set (the C API cannot read them
        back to restore them)."""
        lib = _lib.lib()
        if all(self.parameters.get(name) is not None for name in assignments):
            handle, own = self._handle, True
        else:
            handle, _ = _compile(self._source)
            own = False
            for name, value in self.parameters.items():
                if value is not None:
                    lib.hydae_model_set_param(handle, name.encode(), value)
        for name, value in assignments.items():
            # As --set: a parameter or discrete variable, else a start value.
            if (lib.hydae_model_set_param(handle, name.encode(), float(value))
                    and lib.hydae_model_set_start(handle, name.encode(), float(value))):
                message = _lib.text(lib.hydae_model_errmsg(handle))
                self._release(handle, own, assignments)
                raise SettingsError("set %s = %s: %s" % (name, value, message))
        return handle, own

    def _release(self, handle, own, assignments):
        """Undo _handle_for: the parameters set back, or the copy freed."""
        lib = _lib.lib()
        if own:
            for name in assignments:
                lib.hydae_model_set_param(handle, name.encode(), self.parameters[name])
        else:
            lib.hydae_model_free(handle)

    def simulate(self, t_end=None, dt=None, rtol=None, atol=None, t0=None, set=None,
                 solver=None, options=None, experiment=True, output_steps=False, check=True):
        """Run the model and return a Result.

        t0, t_end, dt (output interval), rtol, atol: as `hydae run`'s
        options (rtol alone sets atol = rtol / 100); solver: the integrator
        ("DSTIFF", "RADAU", ...); options: any other setting of
        `hydae settings` by name ({"h_max": 0.01}); set: parameters,
        discrete and continuous variables' start values for this run only
        ({"L": 2, "phi": 0.1}, as --set); experiment: apply the file's
        experiment block first (the arguments override it), as `hydae run`
        does; output_steps: a row at every accepted step instead of the
        grid. A run that stops before t_end raises SimulationError, whose
        .result holds the rows up to there; with check=False the Result is
        returned instead, r.stopped_early and r.message saying why."""
        assignments = dict(set or {})
        handle, own = self._handle_for(assignments)
        parameters = dict(self.parameters)
        parameters.update((name, float(value)) for name, value in assignments.items()
                          if name in parameters)
        try:
            sim = _Sim(handle)
            try:
                self._configure(sim, t0, t_end, dt, rtol, atol, solver, options, experiment,
                                output_steps)
                return self._run(sim, parameters, check)
            finally:
                sim.close()
        finally:
            self._release(handle, own, assignments)

    def sweep(self, grid=None, samples=None, dist=None, seed=0, lhs=False, measures=None,
              threads=0, options=None):
        """Many runs over the parameters (hydae_sweep_*, docs/sweep.md), on
        `threads` threads (0: every core); a SweepTable, a row per run.

        grid: {name: values} (a sequence, or a text "START:STEP:STOP" or
        "V1,V2,..."), their full product, the last name varying fastest; or
        samples=N with dist: {name: "normal(MEAN,SD)" or "uniform(LOW,HIGH)"
        or a tuple ("normal", MEAN, SD)}, seed, lhs (Latin hypercube).
        measures: a list (or comma-separated text) of NAME, final(NAME),
        max(NAME), min(NAME), integral(NAME), count(TRANSITION),
        first(TRANSITION); default: every column's final value. options:
        settings of every run ({"rtol": 1e-8}), after the file's experiment
        block. The model's parameters (m.parameters) are the values not
        swept. A failed run is a row with its message (t.status, t.failed);
        bad arguments raise SettingsError."""
        return run_sweep(self._handle, grid=grid, samples=samples, dist=dist, seed=seed,
                         lhs=lhs, measures=measures, threads=threads, options=options)

    def _configure(self, sim, t0, t_end, dt, rtol, atol, solver, options, experiment,
                   output_steps):
        lib = _lib.lib()
        if experiment and lib.hydae_sim_apply_experiment(sim.ptr):
            raise SettingsError("experiment: " + sim.errmsg())
        if rtol is not None and atol is None:
            atol = rtol * 1e-2
        for name, value in (("t0", t0), ("t_end", t_end), ("dt", dt), ("rtol", rtol),
                            ("atol", atol)):
            if value is not None:
                sim.option(name, value)
        if solver is not None and lib.hydae_sim_set_integrator(sim.ptr, solver.encode()):
            raise SettingsError("solver %s: %s" % (solver, sim.errmsg()))
        for name, value in (options or {}).items():
            sim.option(name, value)
        if output_steps:
            sim.option("output", "steps")
        if lib.hydae_sim_validate(sim.ptr):  # settings that disagree: before any row
            raise SettingsError(sim.errmsg())

    def _run(self, sim, parameters, check):
        lib = _lib.lib()
        n_columns = len(self.columns)
        n_charts = len(self.charts)
        chart_names = list(self.charts)
        row_bytes = 8 * n_columns
        times, kinds, chunks = [], [], []
        modes = [[] for _ in range(n_charts)]
        caught = []

        def on_row(user, kind, t, values):
            try:
                times.append(t)
                kinds.append(kind)
                chunks.append(ctypes.string_at(values, row_bytes) if row_bytes else b"")
                for c in range(n_charts):
                    if kind == _lib.ROW_EVENT_LEFT and modes[c]:
                        # The left limit: the mode before the event (the
                        # engine may have switched already, as the C sinks know).
                        modes[c].append(modes[c][-1])
                    else:
                        modes[c].append(_lib.text(lib.hydae_sim_mode_name(sim.ptr, c)))
                return 0
            except BaseException as err:  # KeyboardInterrupt too: stop the run cleanly
                caught.append(err)
                return 1

        fired = []  # (t, chart, transition) of every transition fired

        def on_fired(user, t, chart, transition):
            fired.append((t, _lib.text(chart), _lib.text(transition)))
            return 0

        callback = _lib.ROW_FN(on_row)
        fired_callback = _lib.FIRED_FN(on_fired)
        if (lib.hydae_sim_add_row_sink(sim.ptr, callback, None)
                or lib.hydae_sim_set_fired_hook(sim.ptr, fired_callback, None)):
            raise HydaeError(sim.errmsg())
        with interrupt_on_sigint(lambda: lib.hydae_sim_interrupt(sim.ptr)) as interrupted:
            status = lib.hydae_sim_run(sim.ptr)
        if caught:
            raise caught[0]
        if interrupted:
            raise KeyboardInterrupt
        raw = _lib.Stats()
        lib.hydae_sim_get_stats(sim.ptr, ctypes.byref(raw))
        values = np.frombuffer(b"".join(chunks), dtype=np.float64).reshape(len(times), n_columns)
        columns = [(name, values[:, c].copy()) for c, name in enumerate(self.columns)]
        message = sim.errmsg() if status else ""
        result = Result(
            times, columns,
            modes={chart_names[c]: np.array(modes[c], dtype=object) for c in range(n_charts)},
            row_kinds=[ROW_KINDS[k] for k in kinds], parameters=parameters,
            stats=stats_dict(raw), stopped_early=status != 0, message=message,
            t_reached=lib.hydae_sim_time(sim.ptr), source=self.name, chart_modes=self.charts)
        result.units = dict(self.units)
        result.set_fired(fired)
        reason = lib.hydae_sim_stop_reason(sim.ptr)
        result.stop_reason = _lib.text(reason) if reason else None
        if status and check:
            raise SimulationError(message, status, result)
        return result


def load(path):
    """Compile a model file (.hym): a Model, or ModelError with the
    diagnostics. Imports are found next to the file, in $HYDAE_PATH, then
    in hydae's component library."""
    return Model(("file", os.fspath(path)))


def load_string(text, name=None):
    """Compile a model from text; name is the file name the diagnostics
    show (its directory, if any, is where imports are looked up first)."""
    return Model(("string", text, name))
