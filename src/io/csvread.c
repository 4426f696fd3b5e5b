/*
** Reading hydae's CSV results back (RFC 4180 quoting: a quoted cell may
** hold commas, doubled quotes and line breaks) into a result table.
*/
#include "csvread.h"
#include "core/core.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* One record's cells, NUL-terminated, one after the other in text. */
typedef struct record {
    char *text;
    size_t used, cap;
    size_t *starts;
    int n_cells, cap_cells;
    long line;       /* line number of the record's start */
    long next_line;  /* line number after it */
    int is_comment;  /* starts with '#' (text holds the whole line) */
    int complete;    /* ended by a line break (not cut by the end of the file) */
} record;

static int put_char(record *rec, char c)
{
    if (rec->used == rec->cap) {
        size_t cap = rec->cap ? 2 * rec->cap : 256;
        char *grown = hy_realloc(rec->text, cap);
        if (!grown)
            return -1;
        rec->text = grown;
        rec->cap = cap;
    }
    rec->text[rec->used++] = c;
    return 0;
}

static int start_cell(record *rec)
{
    if (rec->n_cells == rec->cap_cells) {
        int cap = rec->cap_cells ? 2 * rec->cap_cells : 16;
        size_t *grown = hy_realloc(rec->starts, sizeof(size_t) * (size_t)cap);
        if (!grown)
            return -1;
        rec->starts = grown;
        rec->cap_cells = cap;
    }
    rec->starts[rec->n_cells++] = rec->used;
    return 0;
}

static const char *cell(const record *rec, int i)
{
    return rec->text + rec->starts[i];
}

/* The next record that is not an empty line: 1, 0 at the end of the
** stream, -1 if out of memory. */
static int read_record(FILE *in, record *rec)
{
    int c;
    do {
        rec->line = rec->next_line;
        c = getc(in);
        if (c == '\n')
            rec->next_line++;
    } while (c == '\n' || c == '\r');
    if (c == EOF)
        return 0;
    rec->used = 0;
    rec->n_cells = 0;
    rec->is_comment = c == '#';
    rec->complete = 0;
    if (start_cell(rec))
        return -1;
    int quoted = 0;
    for (; c != EOF; c = getc(in)) {
        if (quoted) {
            if (c == '"') {
                int next = getc(in);
                if (next != '"') {
                    quoted = 0;
                    ungetc(next, in);
                    continue;
                }
            } else if (c == '\n') {
                rec->next_line++;
            }
        } else if (c == '\n') {
            rec->next_line++;
            rec->complete = 1;
            break;
        } else if (c == '\r') {
            continue;
        } else if (c == '"' && !rec->is_comment) {
            quoted = 1;
            continue;
        } else if (c == ',' && !rec->is_comment) {
            if (put_char(rec, '\0') || start_cell(rec))
                return -1;
            continue;
        }
        if (put_char(rec, (char)c))
            return -1;
    }
    return put_char(rec, '\0') ? -1 : 1;
}

static int is_mode_column(const char *name)
{
    size_t len = strlen(name);
    return len > 6 && strncmp(name, "mode(", 5) == 0 && name[len - 1] == ')';
}

/* "# hydae: stopped early at t = T: reason" */
static int read_stop_note(hy_results *r, const char *line)
{
    static const char prefix[] = "# hydae: stopped early at t = ";
    if (strncmp(line, prefix, sizeof prefix - 1) != 0)
        return 0;
    char *end = NULL;
    double t = strtod(line + sizeof prefix - 1, &end);
    const char *reason = end;
    if (reason[0] == ':')
        reason++;
    if (reason[0] == ' ')
        reason++;
    hy_results_set_stop(r, t, reason);
    return 0;
}

/* The units line "#unit,U1,U2,..." (hydae_sim_add_csv_units) after the
** header: one cell per column, quoted as the header (the line was read as
** a comment, so its quotes are still in the text). */
static int is_units_line(const char *line)
{
    return strncmp(line, "#unit", 5) == 0 && (line[5] == ',' || line[5] == '\0');
}

static int read_units(hy_results *r, const record *rec, const char *name, char *err,
                      size_t err_size)
{
    const char *c = rec->text + 5;
    int var = 0;
    char unit[256];
    while (*c == ',') {
        c++;
        size_t len = 0;
        int quoted = 0;
        for (; *c && (quoted || *c != ','); c++) {
            if (*c == '"' && quoted && c[1] == '"')
                c++;
            else if (*c == '"') {
                quoted = !quoted;
                continue;
            }
            if (len + 1 < sizeof unit)
                unit[len++] = *c;
        }
        unit[len] = '\0';
        if (var < r->n_vars && hy_results_set_unit(r, var, unit))
            return HYDAE_ERR_NOMEM;
        var++;
    }
    if (var != r->n_vars) {
        hy_format(err, err_size, "%s:%ld: the units line has %s cells than the header", name,
                  rec->line, var < r->n_vars ? "fewer" : "more");
        return HYDAE_ERR_ARG;
    }
    return 0;
}

static int read_header(hy_results *r, const record *rec, const char *name, char *err,
                       size_t err_size)
{
    r->is_sweep_table = strcmp(cell(rec, 0), "run") == 0;
    if (strcmp(cell(rec, 0), "time") != 0 && !r->is_sweep_table) {
        hy_format(err, err_size, "%s:%ld: the first column is '%s', not 'time' (or 'run'): not a "
                  "hydae result file (or sweep table)", name, rec->line, cell(rec, 0));
        return HYDAE_ERR_ARG;
    }
    for (int i = 1; i < rec->n_cells; i++) {
        /* a sweep table's status column: "ok" or the message, as labels */
        int is_labels = is_mode_column(cell(rec, i))
                        || (r->is_sweep_table && strcmp(cell(rec, i), "status") == 0);
        if (hy_results_add_var(r, cell(rec, i), "", 0, is_labels) < 0)
            return HYDAE_ERR_NOMEM;
    }
    return 0;
}

static int read_row(hy_results *r, const record *rec, double *values, const char *name,
                    char *err, size_t err_size)
{
    if (rec->n_cells != r->n_vars + 1) {
        hy_format(err, err_size, "%s:%ld: %d cells, but the header has %d", name, rec->line,
                  rec->n_cells, r->n_vars + 1);
        return HYDAE_ERR_ARG;
    }
    double t = NAN;
    for (int i = 0; i < rec->n_cells; i++) {
        const char *text = cell(rec, i);
        double value = NAN;
        if (i > 0 && r->vars[i - 1].is_mode) {
            if (text[0]) {
                int label = hy_results_label(r, i - 1, text);
                if (label < 0)
                    return HYDAE_ERR_NOMEM;
                value = label;
            }
        } else if (text[0] || i == 0) {
            char *end = NULL;
            errno = 0;
            value = strtod(text, &end);
            if (!text[0] || *end != '\0' || (i == 0 && !isfinite(value))) {
                hy_format(err, err_size, "%s:%ld: '%s' in column '%s' is not a number", name,
                          rec->line, text,
                          i > 0 ? r->vars[i - 1].name : r->is_sweep_table ? "run" : "time");
                return HYDAE_ERR_ARG;
            }
        }
        if (i == 0)
            t = value;
        else
            values[i - 1] = value;
    }
    if (r->n_rows > 0 && t < r->t[r->n_rows - 1]) {
        hy_format(err, err_size, "%s:%ld: time %.17g goes back (the row before has %.17g)", name,
                  rec->line, t, r->t[r->n_rows - 1]);
        return HYDAE_ERR_ARG;
    }
    return hy_results_append(r, HYDAE_ROW_GRID, t, values);
}

/* The last row has no line end: the file was cut while a run wrote it
** (killed, a full disk). The row is left out, the table marked as
** stopped early after the last complete row, and a note put in err. */
static int drop_cut_row(hy_results *r, const record *rec, const char *name, char *err,
                        size_t err_size)
{
    hy_format(err, err_size, "%s:%ld: the last row is incomplete (no line end: the file was "
              "cut while being written); it is left out", name, rec->line);
    if (r->stopped_early || r->n_rows == 0)
        return 0;
    hy_results_set_stop(r, r->t[r->n_rows - 1], "the file ends in an incomplete row");
    return 0;
}

int hy_csv_read(hy_results *r, FILE *in, const char *name, char *err, size_t err_size)
{
    record rec;
    memset(&rec, 0, sizeof rec);
    rec.next_line = 1;
    double *values = NULL;
    int have_header = 0, units_read = 0, status = 0;
    err[0] = '\0';
    for (;;) {
        int got = read_record(in, &rec);
        if (got < 0)
            status = HYDAE_ERR_NOMEM;
        if (got <= 0)
            break;
        if (rec.is_comment && have_header && r->n_rows == 0 && !units_read
            && is_units_line(rec.text)) {
            status = read_units(r, &rec, name, err, err_size);
            units_read = 1;
        } else if (rec.is_comment) {
            status = read_stop_note(r, rec.text);
        } else if (!have_header) {
            status = read_header(r, &rec, name, err, err_size);
            have_header = 1;
            values = hy_malloc(sizeof(double) * (size_t)(r->n_vars > 0 ? r->n_vars : 1));
            if (!status && !values)
                status = HYDAE_ERR_NOMEM;
        } else if (!rec.complete) {
            status = drop_cut_row(r, &rec, name, err, err_size);
        } else {
            status = read_row(r, &rec, values, name, err, err_size);
        }
        if (status)
            break;
    }
    if (!status && ferror(in)) {
        hy_format(err, err_size, "%s: read error", name);
        status = HYDAE_ERR_ARG;
    } else if (!status && !have_header) {
        hy_format(err, err_size, "%s: empty, no header", name);
        status = HYDAE_ERR_ARG;
    }
    if (status == HYDAE_ERR_NOMEM)
        hy_format(err, err_size, "%s: out of memory", name);
    if (!status)
        hy_results_infer_kinds(r);
    hy_free(values);
    hy_free(rec.text);
    hy_free(rec.starts);
    return status;
}
