"""hydae.read: result files as Result objects.

MAT: MATLAB level 4 files in the Modelica "trajectory" layout hydae,
Dymola and OpenModelica write (src/io/mat4.c; MATLAB "MAT-File Format",
level 4; OpenModelica User's Guide, "The MATv4 Result File Format"). Each
matrix is a header of five 32-bit integers (type, mrows, ncols, imagf,
namlen), the name with its NUL, then mrows * ncols elements column after
column; type = 1000 M + 100 O + 10 P + T with M the byte order (0 little,
1 big endian), P the element type and T the class (1: text). The matrices
Aclass, name, description, dataInfo, data_1, data_2 and, for a run that
stopped early, hydae_status. "binTrans" files store the name table and the
data transposed (one column per variable, one column per row of data_2);
"binNormal" ones do not. dataInfo gives each variable's block (0 time,
1 data_1, 2 data_2) and its 1-based row there, negative for a negated
alias.

CSV: hydae's CSV (docs/results.md): a header "time,name,...", numbers with
17 significant digits (they read back to the same double), empty cells for
no value, mode columns "mode(CHART)" holding mode names, and a last line
"# hydae: stopped early at t = T: reason" after a failed run.
"""
import csv
import re
import struct

import numpy as np

from .result import Result

# P digit of the type: element type and size.
_MAT_ELEMENT = {0: ("f8", 8), 1: ("f4", 4), 2: ("i4", 4), 3: ("i2", 2), 4: ("u2", 2),
                5: ("u1", 1)}
_MODE_COLUMN = re.compile(r"^mode\((.*)\)$")
_UNIT = re.compile(r"\[([^\[\]]+)\]\s*$")
_STOPPED = re.compile(r"^stopped early at t = (\S+): (.*)$", re.S)


class ResultFileError(ValueError):
    """A result file that cannot be read; the message names the file and
    what is wrong."""


def read(path):
    """A hydae result file (.mat or .csv, by its extension) as a Result."""
    path = str(path)
    lower = path.lower()
    if lower.endswith(".mat"):
        return read_mat(path)
    if lower.endswith(".csv"):
        return read_csv(path)
    raise ResultFileError("%s: not a .mat or .csv file" % path)


# ---- MAT v4 ----

def _mat_matrices(path, data):
    """name -> (matrix as an mrows x ncols numpy array, is_text)."""
    matrices = {}
    pos = 0
    while pos < len(data):
        if len(data) - pos < 20:
            raise ResultFileError("%s: truncated matrix header at byte %d" % (path, pos))
        little = struct.unpack_from("<5i", data, pos)
        big = struct.unpack_from(">5i", data, pos)
        # The byte order is the thousands digit of the type (0 little, 1 big
        # endian): read the header both ways and keep the one that agrees.
        if 0 <= little[0] < 1000:
            header, order = little, "<"
        elif 1000 <= big[0] < 2000:
            header, order = big, ">"
        else:
            raise ResultFileError("%s: not a MAT v4 file (bad matrix type at byte %d)"
                                  % (path, pos))
        mtype, mrows, ncols, imagf, namlen = header
        mtype %= 1000
        element = (mtype // 10) % 10
        text = mtype % 10 == 1
        if element not in _MAT_ELEMENT or mrows < 0 or ncols < 0 or namlen < 1 or imagf:
            raise ResultFileError("%s: unsupported matrix (type %d, %d x %d, imagf %d) at byte %d"
                                  % (path, mtype, mrows, ncols, imagf, pos))
        pos += 20
        name = data[pos:pos + namlen].split(b"\0", 1)[0].decode("ascii", "replace")
        pos += namlen
        code, size = _MAT_ELEMENT[element]
        n_bytes = mrows * ncols * size
        if pos + n_bytes > len(data):
            raise ResultFileError("%s: matrix '%s' (%d x %d) is truncated" % (path, name, mrows,
                                                                              ncols))
        values = np.frombuffer(data, dtype=order + code, count=mrows * ncols, offset=pos)
        # Stored column after column: as Fortran order.
        matrices[name] = (values.reshape((ncols, mrows)).T, text)
        pos += n_bytes
    return matrices


def _mat_strings(matrix, transposed):
    """The strings of a text matrix: its columns (transposed) or its rows."""
    table = np.asarray(matrix.T if transposed else matrix).astype(np.uint8)
    return [row.tobytes().decode("utf-8", "replace").rstrip(" \0") for row in table]


def read_mat(path):
    """A Modelica MAT v4 result file as a Result."""
    with open(path, "rb") as f:
        data = f.read()
    matrices = _mat_matrices(path, data)
    for needed in ("Aclass", "name", "dataInfo", "data_2"):
        if needed not in matrices:
            raise ResultFileError("%s: no matrix '%s': not a Modelica result file" % (path, needed))
    aclass = _mat_strings(matrices["Aclass"][0], False)
    transposed = len(aclass) > 3 and aclass[3] == "binTrans"
    names = _mat_strings(matrices["name"][0], transposed)
    descriptions = (_mat_strings(matrices["description"][0], transposed)
                    if "description" in matrices else [""] * len(names))
    info = matrices["dataInfo"][0]
    info = info if transposed else info.T  # 4 x n: column j for variable j
    units = {}  # from descriptions "comment [unit]", as OpenModelica writes them
    blocks = {}
    for block in (1, 2):
        key = "data_%d" % block
        if key in matrices:
            # One row per variable (its values along the row).
            blocks[block] = matrices[key][0] if transposed else matrices[key][0].T
    if 2 not in blocks:
        raise ResultFileError("%s: no data_2" % path)
    data_2 = blocks[2]
    time = np.array(data_2[0], dtype=np.float64)
    n_rows = len(time)
    columns, modes, parameters, chart_modes = [], {}, {}, {}
    for j, name in enumerate(names):
        block, row = int(info[0, j]), int(info[1, j])
        if block == 0 or name == "time":
            continue
        if block not in blocks or not 1 <= abs(row) <= blocks[block].shape[0]:
            raise ResultFileError("%s: variable '%s' points to row %d of data_%d, which is not "
                                  "there" % (path, name, row, block))
        values = np.array(blocks[block][abs(row) - 1], dtype=np.float64)
        if row < 0:
            values = -values
        description = descriptions[j] if j < len(descriptions) else ""
        unit_match = _UNIT.search(description)
        if unit_match:
            units[name] = unit_match.group(1)
        if block == 1:
            values = np.full(n_rows, values[0])
        mode_match = _MODE_COLUMN.match(name)
        if mode_match and description.startswith("active mode of chart"):
            listing = _mode_listing(description)
            chart_modes[mode_match.group(1)] = [listing[k] for k in sorted(listing)]
            modes[mode_match.group(1)] = np.array(
                [listing.get(int(k), str(int(k))) if k == k else None for k in values],
                dtype=object)
        elif description == "parameter" or block == 1:
            parameters[name] = float(values[0]) if n_rows else float("nan")
            if block == 2:  # changed by actions during the run: keep the trajectory
                columns.append((name, values))
        else:
            columns.append((name, values))
    stopped, message, t_reached = False, "", None
    if "hydae_status" in matrices:
        status = _mat_strings(matrices["hydae_status"][0], False)[0]
        match = _STOPPED.match(status)
        stopped, message = True, (match.group(2) if match else status)
        t_reached = float(match.group(1)) if match else None
    result = Result(time, columns, modes=modes, parameters=parameters, stopped_early=stopped,
                    message=message, t_reached=t_reached, source=path, chart_modes=chart_modes)
    result.units = units
    return result


def _mode_listing(description):
    """Mode number (1-based) -> name, from the description
    "active mode of chart 'C': 1 bound, 2 free"."""
    listing = description.split(":", 1)[1] if ":" in description else ""
    names = {}
    for item in listing.split(","):
        parts = item.strip().split(" ", 1)
        if len(parts) == 2 and parts[0].isdigit():
            names[int(parts[0])] = parts[1]
    return names


# ---- CSV ----

def read_csv(path):
    """A hydae CSV result file as a Result."""
    with open(path, newline="") as f:
        lines = f.read().split("\n")
    stopped, message, t_reached = False, "", None
    body, unit_cells = [], None
    for line in lines:
        if line.startswith("#unit,") and unit_cells is None:  # hydae run --csv-units
            unit_cells = next(csv.reader([line]))
        elif line.startswith("# hydae: "):
            match = _STOPPED.match(line[len("# hydae: "):])
            if match:
                stopped, message, t_reached = True, match.group(2), float(match.group(1))
        elif line.startswith("#"):
            continue
        elif line:
            body.append(line)
    rows = list(csv.reader(body))
    if not rows or not rows[0] or rows[0][0] != "time":
        raise ResultFileError("%s: not a hydae CSV file (the header must start with 'time')"
                              % path)
    header = rows[0]
    for k, row in enumerate(rows[1:], start=2):
        if len(row) != len(header):
            raise ResultFileError("%s: row %d has %d cells, the header %d"
                                  % (path, k, len(row), len(header)))
    cells = list(zip(*rows[1:])) if len(rows) > 1 else [()] * len(header)
    time = _numbers(cells[0])
    columns, modes = [], {}
    for name, column in zip(header[1:], cells[1:]):
        mode_match = _MODE_COLUMN.match(name)
        if mode_match:
            modes[mode_match.group(1)] = np.array([c if c else None for c in column],
                                                  dtype=object)
        else:
            columns.append((name, _numbers(column)))
    result = Result(time, columns, modes=modes, stopped_early=stopped, message=message,
                    t_reached=t_reached, source=path)
    if unit_cells is not None:
        result.units = {name: unit for name, unit in zip(header[1:], unit_cells[1:]) if unit}
    return result


def _numbers(cells):
    """Cells as doubles: float() reads a 17-digit number back to the very
    double written; an empty cell is NaN."""
    return np.array([float(c) if c else np.nan for c in cells], dtype=np.float64)
