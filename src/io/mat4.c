/*
** Modelica result files ("trajectory files") in MATLAB level 4 format, the
** layout Dymola and OpenModelica write, which both of them, DyMat, MATLAB,
** Octave and scipy.io.loadmat read.
**
** Sources: MATLAB "MAT-File Format" (level 4: each matrix is a header of
** five 32-bit integers type, mrows, ncols, imagf, namlen, then the name
** with its NUL, then mrows * ncols elements column after column; type =
** 1000 M + 100 O + 10 P + T with M the byte order (0 little-endian, 1
** big-endian), O = 0, P the element type (0 double, 2 int32, 5 uint8) and
** T the class (0 numeric, 1 text)); OpenModelica User's Guide, "Technical
** Details: The MATv4 Result File Format" (the six matrices below).
**
** Matrices, in this order, as stored (binTrans: each matrix is the
** transpose of the "one row per variable name" table):
**   Aclass       text 4 x 11, rows "Atrajectory", "1.1", "", "binTrans"
**                (this one is not transposed);
**   name         text L x n: column j is the name of variable j, padded
**                with spaces (as Dymola does); variable 1 is time;
**   description  text D x n, likewise;
**   dataInfo     int32 4 x n: column j is (block, row, interpolation,
**                extrapolation): block 0 for time (the abscissa), 1 for
**                data_1, 2 for data_2; row is 1-based in the block (time is
**                row 1 of both); interpolation 0 (linear); extrapolation
**                -1 (undefined outside the time range) for trajectories,
**                0 (hold) for parameters;
**   data_1       double n1 x 2: row 1 (t_first, t_last), then one row
**                (value, value) per constant parameter;
**   data_2       double n2 x n_rows: column k is output row k, time first;
**   hydae_status text 1 x L, only when the run stopped early (failed or
**                interrupted): "stopped early at t = T: reason", the mark
**                a reader checks without parsing descriptions (readers of
**                the six matrices above skip it).
** NaN stands where a variable has no value in the active mode. Two rows
** with the same time are the left and right limits at an event, which is
** how Dymola writes events too.
*/
#include "mat4.h"

#include "sinks.h"
#include "core/core.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum {
    MAT_DOUBLE = 0,      /* P = 0, T = 0 */
    MAT_INT32 = 20,      /* P = 2, T = 0 */
    MAT_TEXT_UINT8 = 51  /* P = 5, T = 1 */
};

static int host_is_big_endian(void)
{
    const uint16_t probe = 1;
    unsigned char first;
    memcpy(&first, &probe, 1);
    return first == 0;
}

static void write_header(FILE *out, int type, long mrows, long ncols, const char *name)
{
    int32_t header[5];
    header[0] = (int32_t)((host_is_big_endian() ? 1000 : 0) + type);
    header[1] = (int32_t)mrows;
    header[2] = (int32_t)ncols;
    header[3] = 0; /* no imaginary part */
    header[4] = (int32_t)(strlen(name) + 1);
    fwrite(header, sizeof header, 1, out);
    fwrite(name, 1, strlen(name) + 1, out);
}

void hy_mat4_write_header(FILE *out, int type, long mrows, long ncols, const char *name)
{
    write_header(out, type, mrows, ncols, name);
}

/* Time's description: noting a run that stopped early. */
static void time_description(const hy_results *r, char *buf, size_t size)
{
    if (r->stopped_early)
        hy_format(buf, size, "simulation time; the run stopped early at t = %.17g: %s",
                  r->t_stopped, r->stop_message);
    else
        hy_format(buf, size, "simulation time");
}

/* The name (which = 0) or description (which = 1) of variable j, time
** being variable 0. */
static const char *text_of(const hy_results *r, int which, int j, const char *time_text)
{
    if (j == 0)
        return which == 0 ? "time" : time_text;
    return which == 0 ? r->vars[j - 1].name : r->vars[j - 1].description;
}

/* A text matrix whose column j is variable j's name or description padded
** with spaces (the transposed layout), control characters as spaces. */
static void write_text_columns(FILE *out, const char *matrix, const hy_results *r, int which,
                               const char *time_text)
{
    int n = r->n_vars + 1;
    size_t width = 1;
    for (int j = 0; j < n; j++)
        if (strlen(text_of(r, which, j, time_text)) > width)
            width = strlen(text_of(r, which, j, time_text));
    write_header(out, MAT_TEXT_UINT8, (long)width, n, matrix);
    for (int j = 0; j < n; j++) {
        const char *text = text_of(r, which, j, time_text);
        size_t len = strlen(text);
        for (size_t i = 0; i < width; i++) {
            unsigned char c = i < len ? (unsigned char)text[i] : ' ';
            fputc(c < 32 || c == 127 ? ' ' : c, out);
        }
    }
}

/* Aclass: four strings as rows of a 4 x 11 text matrix (not transposed). */
static void write_aclass(FILE *out)
{
    static const char *const rows[4] = { "Atrajectory", "1.1", "", "binTrans" };
    enum { WIDTH = 11 };
    write_header(out, MAT_TEXT_UINT8, 4, WIDTH, "Aclass");
    for (int i = 0; i < WIDTH; i++)
        for (int row = 0; row < 4; row++)
            fputc(i < (int)strlen(rows[row]) ? rows[row][i] : ' ', out);
}

/* The stopped-early mark: one row of text (control characters as spaces). */
static void write_status(FILE *out, const hy_results *r)
{
    char text[1400];
    hy_format(text, sizeof text, "stopped early at t = %.17g: %s", r->t_stopped,
              r->stop_message);
    size_t len = strlen(text);
    write_header(out, MAT_TEXT_UINT8, 1, (long)len, "hydae_status");
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)text[i];
        fputc(c < 32 || c == 127 ? ' ' : c, out);
    }
}

/* 1 if column var is a parameter with the same value in every row. */
static int in_data_1(const hy_results *r, int var)
{
    return r->vars[var].is_param && !r->vars[var].varies;
}

/* Where the rows come from: the table itself, or the spool file a sink
** wrote them to as they arrived. */
typedef struct row_source {
    long n_rows;
    double t_first, t_last;
    const double *first;     /* the first row's values (n_vars), or NULL */
    /* The next row into *t and values: 0, or -1 if it cannot be read. */
    int (*next)(void *ctx, double *t, double *values);
    void *ctx;
} row_source;

/* A value as written: mode numbers are 1-based. */
static void write_value(FILE *out, const hy_results *r, int var, double value)
{
    if (r->vars[var].is_mode)
        value += 1.0;
    fwrite(&value, sizeof value, 1, out);
}

/* The file from the table's columns and the rows of src (values: room for
** one row). Without rows, data_1 gets t_empty as time and the parameters'
** values from empty_values (NULL: NaN). */
static int write_file(FILE *out, const hy_results *r, const row_source *src, double t_empty,
                      const double *empty_values, double *values)
{
    if (src->n_rows > INT32_MAX - 1 || r->n_vars > INT32_MAX / 8)
        return HYDAE_ERR_ARG;
    char time_text[1400];
    time_description(r, time_text, sizeof time_text);
    write_aclass(out);
    write_text_columns(out, "name", r, 0, time_text);
    write_text_columns(out, "description", r, 1, time_text);

    int32_t rows_1 = 1, rows_2 = 1; /* time is row 1 of both blocks */
    write_header(out, MAT_INT32, 4, r->n_vars + 1, "dataInfo");
    const int32_t time_info[4] = { 0, 1, 0, -1 };
    fwrite(time_info, sizeof time_info, 1, out);
    for (int v = 0; v < r->n_vars; v++) {
        int constant = in_data_1(r, v);
        int32_t info[4] = { constant ? 1 : 2, constant ? ++rows_1 : ++rows_2, 0,
                            constant ? 0 : -1 };
        fwrite(info, sizeof info, 1, out);
    }

    /* data_1: the first column holds the values at the start, the second
    ** those at the end. */
    write_header(out, MAT_DOUBLE, rows_1, 2, "data_1");
    for (int end = 0; end < 2; end++) {
        double t = src->n_rows > 0 ? (end ? src->t_last : src->t_first) : t_empty;
        fwrite(&t, sizeof t, 1, out);
        for (int v = 0; v < r->n_vars; v++)
            if (in_data_1(r, v))
                write_value(out, r, v, src->n_rows > 0 ? src->first[v]
                                       : empty_values   ? empty_values[v]
                                                        : NAN);
    }

    /* data_2: one column per output row. */
    write_header(out, MAT_DOUBLE, rows_2, src->n_rows, "data_2");
    for (long k = 0; k < src->n_rows; k++) {
        double t;
        if (src->next(src->ctx, &t, values))
            return HYDAE_ERR_IO;
        fwrite(&t, sizeof t, 1, out);
        for (int v = 0; v < r->n_vars; v++)
            if (!in_data_1(r, v))
                write_value(out, r, v, values[v]);
    }
    if (r->stopped_early)
        write_status(out, r);
    return ferror(out) ? HYDAE_ERR_IO : 0;
}

typedef struct table_rows {
    const hy_results *r;
    long next_row;
} table_rows;

static int next_table_row(void *ctx, double *t, double *values)
{
    table_rows *rows = ctx;
    const hy_results *r = rows->r;
    *t = r->t[rows->next_row];
    if (r->n_vars > 0)
        memcpy(values, r->values + rows->next_row * r->n_vars, sizeof *values * (size_t)r->n_vars);
    rows->next_row++;
    return 0;
}

/* Nothing here allocates: the only failures are the stream's. */
int hy_mat4_write(FILE *out, const hy_results *r, double t_empty, const double *empty_values,
                  double *row_buffer)
{
    table_rows rows = { r, 0 };
    row_source src = { r->n_rows, r->n_rows > 0 ? r->t[0] : 0.0,
                       r->n_rows > 0 ? r->t[r->n_rows - 1] : 0.0, r->values, next_table_row,
                       &rows };
    return write_file(out, r, &src, t_empty, empty_values, row_buffer);
}

/* ---- the sink: rows spooled to a temporary file as they arrive (memory
** stays that of two rows, however long the run), the result file written
** from it when the run ends; kept in memory if no temporary file can be
** made ---- */

typedef struct mat_sink {
    hy_recorder rec;         /* the columns; the rows too when there is no spool */
    FILE *out;
    double t0;
    FILE *spool;             /* (t, values) per row, or NULL */
    long n_rows;             /* rows spooled */
    double t_first, t_last;
    double *first;           /* the first spooled row's values */
    int spool_failed;        /* a write to the spool failed */
} mat_sink;

static int next_spooled_row(void *ctx, double *t, double *values)
{
    mat_sink *sink = ctx;
    size_t n = (size_t)sink->rec.res.n_vars;
    if (fread(t, sizeof *t, 1, sink->spool) != 1
        || (n > 0 && fread(values, sizeof *values, n, sink->spool) != n))
        return -1;
    return 0;
}

static int mat_begin(void *user, const hydae_model *m)
{
    (void)m;
    mat_sink *sink = user;
    double t_end;
    hy_sim_span(sink->rec.cols.sim, &sink->t0, &t_end);
    if (sink->spool)
        fclose(sink->spool); /* a second run of the sim: start over */
    sink->spool = tmpfile();
    sink->n_rows = 0;
    sink->spool_failed = 0;
    return hy_recorder_begin(&sink->rec);
}

static int mat_row(void *user, hydae_row_kind kind, double t, const double *values)
{
    mat_sink *sink = user;
    if (!sink->spool)
        return hy_recorder_row(&sink->rec, kind, t, values);
    hy_results *r = &sink->rec.res;
    double *row = sink->rec.row;
    hy_columns_extract(&sink->rec.cols, kind, values, row);
    size_t n = (size_t)r->n_vars;
    if (fwrite(&t, sizeof t, 1, sink->spool) != 1
        || (n > 0 && fwrite(row, sizeof *row, n, sink->spool) != n)) {
        sink->spool_failed = 1;
        return HYDAE_ERR_IO;
    }
    if (sink->n_rows == 0) {
        sink->t_first = t;
        if (n > 0)
            memcpy(sink->first, row, sizeof *row * n);
    }
    for (int i = 0; sink->n_rows > 0 && i < r->n_vars; i++)
        if (!(row[i] == sink->first[i]) && !(isnan(row[i]) && isnan(sink->first[i])))
            r->vars[i].varies = 1;
    sink->t_last = t;
    sink->n_rows++;
    return 0;
}

static int mat_finish(void *user, int status, double t, const char *message)
{
    mat_sink *sink = user;
    hy_recorder_finish(&sink->rec, status, t, message);
    /* Without rows, the parameters' values are those the run started with
    ** (kept by the column selection for left limits). */
    int written;
    if (sink->spool) {
        row_source src = { sink->n_rows, sink->t_first, sink->t_last, sink->first,
                           next_spooled_row, sink };
        written = sink->spool_failed || fflush(sink->spool) != 0 || fseek(sink->spool, 0, SEEK_SET)
                      ? HYDAE_ERR_IO
                      : write_file(sink->out, &sink->rec.res, &src, sink->t0, sink->rec.cols.last,
                                   sink->rec.row);
    } else {
        written = hy_mat4_write(sink->out, &sink->rec.res, sink->t0, sink->rec.cols.last,
                                sink->rec.row);
    }
    return fflush(sink->out) != 0 || ferror(sink->out) || written != 0;
}

static void mat_release(void *user)
{
    mat_sink *sink = user;
    if (sink->spool)
        fclose(sink->spool);
    hy_free(sink->first);
    hy_recorder_free(&sink->rec);
    hy_free(sink);
}

int hydae_sim_add_mat(hydae_sim *s, FILE *out, const char *vars, int with_modes)
{
    if (!s || !out)
        return HYDAE_ERR_ARG;
    mat_sink *sink = hy_calloc(1, sizeof *sink);
    if (!sink)
        return hy_sink_status(s, HYDAE_ERR_NOMEM, "the MAT output");
    sink->out = out;
    hy_recorder_init(&sink->rec, s);
    int status = vars ? hy_columns_add_list(&sink->rec.cols, s, vars)
                      : (hy_columns_add_results(&sink->rec.cols)
                             ? HYDAE_ERR_NOMEM
                             : hy_columns_add_params(&sink->rec.cols));
    if (!status && with_modes)
        status = hy_columns_add_modes(&sink->rec.cols);
    if (!status)
        status = hy_recorder_prepare(&sink->rec);
    if (!status) {
        sink->first = hy_malloc(sizeof *sink->first * (size_t)(sink->rec.cols.n > 0
                                                                    ? sink->rec.cols.n : 1));
        status = sink->first ? 0 : HYDAE_ERR_NOMEM;
    }
    hy_sink desc = { mat_begin, mat_row, mat_finish, mat_release, sink, 1 };
    if (!status)
        status = hy_sim_add_sink(s, &desc);
    if (status)
        mat_release(sink);
    return hy_sink_status(s, status, "the MAT output");
}
