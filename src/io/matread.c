/*
** Reading hydae's Modelica result files (MAT v4, binTrans; the layout is
** described in mat4.c, after the MATLAB "MAT-File Format" and the
** OpenModelica User's Guide, "The MATv4 Result File Format") into a result
** table; also a sweep's table (hydae sweep -o T.mat).
*/
#include "matread.h"
#include "core/core.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct matrix {
    char name[64];
    int precision;          /* P of the type: 0 double, 2 int32, 5 uint8 */
    int is_text;
    long mrows, ncols;
    unsigned char *bytes;   /* the elements, column after column, host order */
} matrix;

typedef struct reader {
    FILE *in;
    const char *file;
    char *err;
    size_t err_size;
} reader;

static int fail(const reader *rd, const char *what, const char *matrix_name)
{
    hy_format(rd->err, rd->err_size, "%s: %s%s%s: not a result file of hydae", rd->file, what,
              matrix_name ? " " : "", matrix_name ? matrix_name : "");
    return HYDAE_ERR_ARG;
}

static uint32_t swap32(uint32_t v)
{
    return v >> 24 | (v >> 8 & 0xff00u) | (v << 8 & 0xff0000u) | v << 24;
}

static int host_is_big_endian(void)
{
    const uint16_t probe = 1;
    unsigned char first;
    memcpy(&first, &probe, 1);
    return first == 0;
}

/* n bytes into a buffer grown as they arrive (a header may lie about the
** size): 0, 1 if the stream ends first, -1 out of memory. */
static int read_bytes(FILE *in, size_t n, unsigned char **out)
{
    size_t cap = n < 65536 ? (n ? n : 1) : 65536, got = 0;
    unsigned char *buf = hy_malloc(cap);
    while (buf && got < n) {
        if (got == cap) {
            size_t grown = cap * 2 < n ? cap * 2 : n;
            unsigned char *bigger = hy_realloc(buf, grown);
            if (!bigger)
                break;
            buf = bigger;
            cap = grown;
        }
        size_t chunk = fread(buf + got, 1, cap - got, in);
        if (chunk == 0) {
            hy_free(buf);
            return 1;
        }
        got += chunk;
    }
    if (!buf || got < n) {
        hy_free(buf);
        return -1;
    }
    *out = buf;
    return 0;
}

/* Swap every element of a matrix from the other byte order. */
static void swap_elements(matrix *mx, size_t n)
{
    size_t width = mx->precision == 0 ? 8 : mx->precision == 2 ? 4 : 1;
    for (size_t i = 0; i < n && width > 1; i++) {
        unsigned char *e = mx->bytes + i * width;
        for (size_t a = 0, b = width - 1; a < b; a++, b--) {
            unsigned char t = e[a];
            e[a] = e[b];
            e[b] = t;
        }
    }
}

/* The next matrix: 1, 0 at the end of the stream, or a negative status. */
static int read_matrix(const reader *rd, matrix *mx)
{
    uint32_t header[5];
    memset(mx, 0, sizeof *mx);
    size_t got = fread(header, sizeof header[0], 5, rd->in);
    if (got == 0 && feof(rd->in))
        return 0;
    if (got != 5)
        return fail(rd, "a matrix header is cut", NULL);
    int swapped = header[0] > 4052 && swap32(header[0]) <= 4052;
    for (int i = 0; swapped && i < 5; i++)
        header[i] = swap32(header[i]);
    uint32_t type = header[0];
    int byte_order = (int)(type / 1000), o = (int)(type / 100 % 10);
    mx->precision = (int)(type / 10 % 10);
    mx->is_text = type % 10 == 1;
    if (type > 4052 || byte_order > 1 || byte_order != (host_is_big_endian() != swapped) || o
        || (type % 10 > 1) || (mx->precision != 0 && mx->precision != 2 && mx->precision != 5)
        || header[3] != 0 || header[4] < 2 || header[4] > sizeof mx->name
        || header[1] > INT32_MAX || header[2] > INT32_MAX)
        return fail(rd, "a matrix header that hydae does not write", NULL);
    if (fread(mx->name, 1, header[4], rd->in) != header[4] || mx->name[header[4] - 1] != '\0'
        || strlen(mx->name) != header[4] - 1)
        return fail(rd, "a matrix name is cut or malformed", NULL);
    mx->mrows = (long)header[1];
    mx->ncols = (long)header[2];
    size_t n = (size_t)mx->mrows * (size_t)mx->ncols;
    size_t width = mx->precision == 0 ? 8 : mx->precision == 2 ? 4 : 1;
    if (n > SIZE_MAX / 8)
        return fail(rd, "an impossible size of matrix", mx->name);
    int status = read_bytes(rd->in, n * width, &mx->bytes);
    if (status > 0)
        return fail(rd, "the file ends inside matrix", mx->name);
    if (status < 0)
        return HYDAE_ERR_NOMEM;
    if (swapped)
        swap_elements(mx, n);
    return 1;
}

static double number_at(const matrix *mx, size_t i)
{
    if (mx->precision == 2) {
        int32_t v;
        memcpy(&v, mx->bytes + 4 * i, 4);
        return v;
    }
    if (mx->precision == 5)
        return mx->bytes[i];
    double v;
    memcpy(&v, mx->bytes + 8 * i, 8);
    return v;
}

/* Column j of a text matrix (binTrans: one string per column), trailing
** spaces and NULs removed, into buf. */
static void text_column(const matrix *mx, long j, char *buf, size_t size)
{
    size_t len = (size_t)mx->mrows < size - 1 ? (size_t)mx->mrows : size - 1;
    memcpy(buf, mx->bytes + (size_t)j * (size_t)mx->mrows, len);
    buf[len] = '\0';
    for (size_t i = 0; i < len; i++)
        if (buf[i] == '\0')
            buf[i] = ' ';
    while (len > 0 && buf[len - 1] == ' ')
        buf[--len] = '\0';
}

/* The matrices hydae writes, in order; hydae_status is optional. */
enum { M_ACLASS, M_NAME, M_DESCRIPTION, M_DATAINFO, M_DATA_1, M_DATA_2, M_STATUS, N_MATRICES };
static const char *const matrix_names[N_MATRICES] = { "Aclass", "name", "description",
                                                      "dataInfo", "data_1", "data_2",
                                                      "hydae_status" };

static int check_shapes(const reader *rd, const matrix *m)
{
    char row[16];
    if (!m[M_ACLASS].is_text || m[M_ACLASS].mrows != 4 || m[M_ACLASS].ncols < 8)
        return fail(rd, "an Aclass other than hydae's", NULL);
    /* Row 4 of Aclass (not transposed): "binTrans". */
    size_t k = 0;
    for (long i = 0; i < m[M_ACLASS].ncols && k + 1 < sizeof row; i++)
        row[k++] = (char)m[M_ACLASS].bytes[(size_t)i * 4 + 3];
    row[k] = '\0';
    if (strncmp(row, "binTrans", 8) != 0)
        return fail(rd, "a layout other than binTrans in", "Aclass");
    long n = m[M_NAME].ncols;
    if (!m[M_NAME].is_text || !m[M_DESCRIPTION].is_text || m[M_DESCRIPTION].ncols != n || n < 1
        || m[M_DATAINFO].is_text || m[M_DATAINFO].precision != 2 || m[M_DATAINFO].mrows != 4
        || m[M_DATAINFO].ncols != n)
        return fail(rd, "name, description and dataInfo of different widths", NULL);
    if (m[M_DATA_1].is_text || m[M_DATA_1].precision != 0 || m[M_DATA_1].ncols != 2
        || m[M_DATA_1].mrows < 1 || m[M_DATA_2].is_text || m[M_DATA_2].precision != 0
        || m[M_DATA_2].mrows < 1)
        return fail(rd, "data_1 or data_2 of the wrong shape", NULL);
    return 0;
}

/* "active mode of chart 'c': 1 a, 2 b": the mode names in order as labels
** of column var (labels k = mode number k + 1). A description of another
** form gives the numbers as labels. */
static int mode_labels(hy_results *r, int var, const char *description, int n_modes)
{
    const char *list = strstr(description, "': ");
    char label[256];
    for (int k = 1; k <= n_modes; k++) {
        hy_format(label, sizeof label, "%d", k);
        if (list) {
            char want[24];
            hy_format(want, sizeof want, "%s%d ", k == 1 ? "': " : ", ", k);
            const char *at = strstr(list, want);
            if (at) {
                at += strlen(want);
                size_t len = strcspn(at, ",");
                hy_format(label, sizeof label, "%.*s", (int)len, at);
            }
        }
        if (hy_results_label(r, var, label) != k - 1)
            return HYDAE_ERR_NOMEM;
    }
    return 0;
}

/* The unit at the end of a description, "comment [unit]": split off. */
static void split_unit(char *description, char *unit, size_t size)
{
    size_t len = strlen(description);
    unit[0] = '\0';
    char *open = len > 2 && description[len - 1] == ']' ? strrchr(description, '[') : NULL;
    if (!open)
        return;
    hy_format(unit, size, "%.*s", (int)(description + len - 1 - open - 1), open + 1);
    while (open > description && open[-1] == ' ')
        open--;
    *open = '\0';
}

/* Where a variable's values are: its block (1, 2) and 0-based row, and
** the sign (Dymola writes negative rows for negated aliases). */
typedef struct source {
    int block;
    long row;
    double sign;
} source;

static int add_columns(const reader *rd, hy_results *r, const matrix *m, source *sources)
{
    long n = m[M_NAME].ncols;
    char name[512], description[1024], unit[256];
    for (long j = 1; j < n; j++) {
        text_column(&m[M_NAME], j, name, sizeof name);
        text_column(&m[M_DESCRIPTION], j, description, sizeof description);
        double block = number_at(&m[M_DATAINFO], (size_t)j * 4);
        double row = number_at(&m[M_DATAINFO], (size_t)j * 4 + 1);
        const matrix *data = block == 1 ? &m[M_DATA_1] : &m[M_DATA_2];
        if ((block != 1 && block != 2) || row == 0 || fabs(row) > (double)data->mrows
            || !name[0])
            return fail(rd, "a dataInfo column pointing outside data_1 and data_2 for", name);
        sources[j - 1] = (source){ (int)block, (long)fabs(row) - 1, row < 0 ? -1.0 : 1.0 };
        size_t len = strlen(name);
        int is_mode = len > 6 && strncmp(name, "mode(", 5) == 0 && name[len - 1] == ')';
        split_unit(description, unit, sizeof unit);
        int var = hy_results_add_var(r, name, description, block == 1, is_mode);
        if (var < 0 || hy_results_set_unit(r, var, unit))
            return HYDAE_ERR_NOMEM;
        /* The largest mode number in the column gives the number of modes. */
        double n_modes = 0;
        for (long k = 0; is_mode && k < (block == 1 ? 1 : data->ncols); k++)
            n_modes = fmax(n_modes, number_at(data, (size_t)k * (size_t)data->mrows
                                                        + (size_t)sources[j - 1].row));
        if (is_mode && mode_labels(r, var, description, n_modes < 1000 ? (int)n_modes : 1000))
            return HYDAE_ERR_NOMEM;
    }
    return 0;
}

/* One value of variable var at output row k. */
static double value_of(const matrix *m, const hy_results *r, const source *src, int var, long k)
{
    const matrix *data = src->block == 1 ? &m[M_DATA_1] : &m[M_DATA_2];
    double v = src->sign * number_at(data, (size_t)(src->block == 1 ? 0 : k)
                                               * (size_t)data->mrows + (size_t)src->row);
    if (r->vars[var].is_mode) /* 1-based mode numbers to label indices */
        v = v >= 1 && v <= r->vars[var].n_labels && v == floor(v) ? v - 1 : NAN;
    return v;
}

static int add_rows(const reader *rd, hy_results *r, const matrix *m, const source *sources)
{
    const matrix *d2 = &m[M_DATA_2];
    double *values = hy_malloc(sizeof(double) * (size_t)(r->n_vars > 0 ? r->n_vars : 1));
    if (!values)
        return HYDAE_ERR_NOMEM;
    int status = 0;
    for (long k = 0; k < d2->ncols && !status; k++) {
        double t = number_at(d2, (size_t)k * (size_t)d2->mrows);
        if (!isfinite(t) || (r->n_rows > 0 && t < r->t[r->n_rows - 1])) {
            hy_format(rd->err, rd->err_size, "%s: data_2 column %ld: time %.17g %s", rd->file,
                      k + 1, t, isfinite(t) ? "goes back" : "is not finite");
            status = HYDAE_ERR_ARG;
            break;
        }
        for (int v = 0; v < r->n_vars; v++)
            values[v] = value_of(m, r, &sources[v], v, k);
        status = hy_results_append(r, HYDAE_ROW_GRID, t, values);
    }
    hy_free(values);
    return status;
}

/* hydae_status: "stopped early at t = T: reason". */
static void read_status(hy_results *r, const matrix *mx)
{
    char text[1400];
    size_t len = (size_t)mx->ncols < sizeof text - 1 ? (size_t)mx->ncols : sizeof text - 1;
    if (!mx->is_text || mx->mrows != 1)
        return;
    memcpy(text, mx->bytes, len);
    text[len] = '\0';
    static const char prefix[] = "stopped early at t = ";
    if (strncmp(text, prefix, sizeof prefix - 1) != 0)
        return;
    char *end = NULL;
    double t = strtod(text + sizeof prefix - 1, &end);
    const char *reason = end;
    reason += reason[0] == ':';
    reason += reason[0] == ' ';
    hy_results_set_stop(r, t, reason);
}

/* Row i of a text matrix written a row per string (a sweep's table),
** trailing spaces removed, into buf. */
static void text_row(const matrix *mx, long i, char *buf, size_t size)
{
    size_t len = 0;
    for (long c = 0; c < mx->ncols && len + 1 < size; c++) {
        double code = number_at(mx, (size_t)c * (size_t)mx->mrows + (size_t)i);
        buf[len++] = code >= 1.0 && code <= 255.0 ? (char)(unsigned char)code : ' ';
    }
    buf[len] = '\0';
    while (len > 0 && buf[len - 1] == ' ')
        buf[--len] = '\0';
}

/* A sweep's table (src/sweep/table.c): "table" (a row per run: run,
** parameters, measures, steps, wall_s), "names" (a row per column),
** "status" (a row per run); the status becomes a label column. m[0] holds
** "table", m[1] and m[2] are read here. */
static int read_sweep_table(const reader *rd, hy_results *r, matrix *m)
{
    for (int i = 1; i <= 2; i++) {
        int got = read_matrix(rd, &m[i]);
        if (got < 0)
            return got;
        if (got == 0 || strcmp(m[i].name, i == 1 ? "names" : "status") != 0)
            return fail(rd, "a sweep's table without", i == 1 ? "names" : "status");
    }
    long n_runs = m[0].mrows, n_cols = m[0].ncols;
    if (m[0].is_text || n_cols < 1 || !m[1].is_text || m[1].mrows != n_cols || !m[2].is_text
        || m[2].mrows != n_runs)
        return fail(rd, "a sweep's table whose matrices do not match", "table");
    r->is_sweep_table = 1;
    char text[1400];
    for (long j = 1; j < n_cols; j++) {
        text_row(&m[1], j, text, sizeof text);
        if (hy_results_add_var(r, text, "", 0, 0) < 0)
            return HYDAE_ERR_NOMEM;
    }
    int status_var = hy_results_add_var(r, "status", "", 0, 1);
    if (status_var < 0)
        return HYDAE_ERR_NOMEM;
    double *values = hy_malloc(sizeof(double) * (size_t)n_cols);
    int status = values ? 0 : HYDAE_ERR_NOMEM;
    for (long k = 0; !status && k < n_runs; k++) {
        for (long j = 1; j < n_cols; j++)
            values[j - 1] = number_at(&m[0], (size_t)j * (size_t)n_runs + (size_t)k);
        text_row(&m[2], k, text, sizeof text);
        int label = hy_results_label(r, status_var, text);
        values[status_var] = label;
        status = label < 0 ? HYDAE_ERR_NOMEM
                           : hy_results_append(r, HYDAE_ROW_GRID, number_at(&m[0], (size_t)k), values);
    }
    hy_free(values);
    return status;
}

static int read_table(const reader *rd, hy_results *r, matrix *m)
{
    for (int i = 0; i < N_MATRICES; i++) {
        int got = read_matrix(rd, &m[i]);
        if (got < 0)
            return got;
        if (i == 0 && got && strcmp(m[0].name, "table") == 0)
            return read_sweep_table(rd, r, m);
        if (got == 0 && i == M_STATUS)
            break;
        if (got == 0 || strcmp(m[i].name, matrix_names[i]) != 0)
            return fail(rd, got ? "an unexpected matrix where hydae writes" : "no matrix",
                        matrix_names[i]);
    }
    int status = check_shapes(rd, m);
    if (status)
        return status;
    source *sources = hy_malloc(sizeof(source) * (size_t)m[M_NAME].ncols);
    if (!sources)
        return HYDAE_ERR_NOMEM;
    status = add_columns(rd, r, m, sources);
    if (!status)
        status = add_rows(rd, r, m, sources);
    hy_free(sources);
    if (!status && m[M_STATUS].bytes)
        read_status(r, &m[M_STATUS]);
    return status;
}

int hy_mat_read(hy_results *r, FILE *in, const char *name, char *err, size_t err_size)
{
    reader rd = { in, name, err, err_size };
    matrix m[N_MATRICES];
    memset(m, 0, sizeof m);
    err[0] = '\0';
    int status = read_table(&rd, r, m);
    for (int i = 0; i < N_MATRICES; i++)
        hy_free(m[i].bytes);
    if (status == HYDAE_ERR_NOMEM)
        hy_format(err, err_size, "%s: out of memory", name);
    if (!status)
        hy_results_infer_kinds(r);
    return status;
}
