"""The result of a run: time, variables as numpy arrays, the mode of each
chart per row, the events, the statistics and the stop status. Made by
Model.simulate and by hydae.read (readers.py) alike."""
import collections

import numpy as np

from . import _lib

# One mode change at an event instant. transition is None: the C API does
# not say which transition fired (docs/python.md, "Events").
Event = collections.namedtuple("Event", "time chart from_mode to_mode transition row")

ROW_KINDS = ("grid", "event_left", "event_right", "step")


class Result:
    """Rows of a run. r.time and r[name] are numpy float64 arrays of one
    length (NaN where a variable has no value in the active mode);
    r.modes[chart] an array of mode names per row; r.row_kinds per row
    ("grid", "event_left", "event_right", "step"); r.events the mode changes
    at events; r.stats the run's statistics (a dict, empty for a file);
    r.chart_modes[chart] the chart's modes; r.parameters the parameters'
    values at the start; r.stopped_early and
    r.message say whether and why the run ended before t_end (a failure); a
    run that an action ended on purpose (hydae_action_stop) is complete, with
    r.stop_reason its reason and r.t_reached < t_end. r.units maps a
    column's name to its unit (from the model, or read from a MAT file's
    description "comment [unit]" or a CSV's #unit line)."""

    def __init__(self, time, columns, modes=None, row_kinds=None, parameters=None,
                 stats=None, stopped_early=False, message="", t_reached=None, source=None,
                 chart_modes=None):
        self.time = np.asarray(time, dtype=np.float64)
        self._columns = collections.OrderedDict(columns)
        self.variables = [name for name in self._columns]
        self.modes = collections.OrderedDict(modes or {})
        if chart_modes is None:  # the modes seen, in order of appearance
            chart_modes = {chart: tuple(dict.fromkeys(m for m in names if m is not None))
                           for chart, names in self.modes.items()}
        self.chart_modes = collections.OrderedDict(
            (chart, tuple(names)) for chart, names in chart_modes.items())
        if row_kinds is None:
            row_kinds = _infer_row_kinds(self.time)
        self.row_kinds = np.asarray(row_kinds, dtype=object)
        self.parameters = dict(parameters or {})
        self.stats = dict(stats or {})
        self.stopped_early = bool(stopped_early)
        self.message = message or ""
        if t_reached is None:
            t_reached = float(self.time[-1]) if len(self.time) else float("nan")
        self.t_reached = t_reached
        self.source = source
        self.units = {}
        self.stop_reason = None
        self.events = _events(self.time, self.row_kinds, self.modes)

    def set_fired(self, fired):
        """The transitions fired during the run ((t, chart, transition), as
        hydae_sim_set_fired_hook reports them): the events get their names."""
        self.fired = list(fired)
        self.events = _events(self.time, self.row_kinds, self.modes, self.fired)

    def __getitem__(self, name):
        if name == "time":
            return self.time
        if name in self._columns:
            return self._columns[name]
        if name in self.parameters:
            return np.full(len(self.time), self.parameters[name])
        raise KeyError("no variable '%s' in the result; its variables are: %s"
                       % (name, ", ".join(self.variables)))

    def __contains__(self, name):
        return name == "time" or name in self._columns or name in self.parameters

    def __len__(self):
        return len(self.time)

    def __repr__(self):
        status = "stopped early: %s" % self.message if self.stopped_early else "complete"
        return "<hydae.Result %d rows, t = %g .. %g, %d variables, %d events, %s>" % (
            len(self.time), self.time[0] if len(self.time) else float("nan"),
            self.t_reached, len(self.variables), len(self.events), status)

    @property
    def event_times(self):
        """The distinct event instants (the times of the left-limit rows)."""
        return self.time[self.row_kinds == "event_left"]


def _infer_row_kinds(time):
    """For rows read from a file, which does not store them: two rows with
    the same time are the left and right limits at an event (how hydae,
    like Dymola, writes events); every other row a grid row."""
    kinds = ["grid"] * len(time)
    i = 0
    while i + 1 < len(time):
        if time[i + 1] == time[i]:
            kinds[i], kinds[i + 1] = "event_left", "event_right"
            i += 2
        else:
            i += 1
    return kinds


def _events(time, row_kinds, modes, fired=None):
    """With the transitions fired (a run's): one Event per transition
    fired, its chart's mode in the left and right rows of its instant as
    from_mode and to_mode. Without (a file read back): one Event per chart
    whose mode changes between an event's left and right rows; an instant
    where no mode changes (a self-loop, a change of discrete variables only)
    gives one Event with chart, from_mode, to_mode None, or the single
    chart's mode twice in a model of one chart; transition None."""
    if fired is not None:
        return _fired_events(time, row_kinds, modes, fired)
    events = []
    charts = list(modes)
    for left in np.flatnonzero(row_kinds == "event_left"):
        right = left + 1
        if right >= len(time) or row_kinds[right] != "event_right":
            continue
        changed = [c for c in charts if modes[c][left] != modes[c][right]]
        if changed:
            for chart in changed:
                events.append(Event(float(time[left]), chart, modes[chart][left],
                                    modes[chart][right], None, int(left)))
        elif len(charts) == 1:
            chart = charts[0]
            events.append(Event(float(time[left]), chart, modes[chart][left],
                                modes[chart][right], None, int(left)))
        else:
            events.append(Event(float(time[left]), None, None, None, None, int(left)))
    return events


def _fired_events(time, row_kinds, modes, fired):
    lefts = np.flatnonzero(row_kinds == "event_left")
    events = []
    for t, chart, transition in fired:
        # the first left row at t (an instant may repeat rounds of events)
        at = [int(k) for k in lefts if time[k] == t]
        row = at[0] if at else None
        right = row + 1 if row is not None and row + 1 < len(time) else None
        before = modes[chart][row] if row is not None and chart in modes else None
        after = modes[chart][at[-1] + 1] if right is not None and chart in modes else None
        events.append(Event(float(t), chart, before, after, transition, row))
    return events


def stats_dict(raw):
    """A hydae_stats struct as a dict: counts as int, times as float."""
    return {name: getattr(raw, name) for name, _ in _lib.Stats._fields_}
