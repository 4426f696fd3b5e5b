/*
** Plots of results: the sink that plots a run when it ends
** (hydae_sim_add_plot), the plot of a result file (`hydae plot`) and of a
** sweep's table (each measure over a parameter). All choose the panels (or
** the phase plot's two columns) by name and draw with svgplot.c.
*/
#include "plot.h"

#include "csvread.h"
#include "matread.h"
#include "sinks.h"
#include "svgplot.h"
#include "core/core.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- the plot of a run ---- */

typedef struct plot_sink {
    hy_recorder rec;
    FILE *out;
    int n_panels;
    int *panel_vars;
    int phase_x, phase_y;
    char *title;
    int no_clock_ticks;
} plot_sink;

static int plot_begin(void *user, const hydae_model *m)
{
    (void)m;
    plot_sink *sink = user;
    return hy_recorder_begin(&sink->rec);
}

static int plot_row(void *user, hydae_row_kind kind, double t, const double *values)
{
    plot_sink *sink = user;
    return hy_recorder_row(&sink->rec, kind, t, values);
}

static int plot_finish(void *user, int status, double t, const char *message)
{
    plot_sink *sink = user;
    hy_recorder_finish(&sink->rec, status, t, message);
    hy_plot_spec spec = { sink->n_panels, sink->panel_vars, sink->phase_x, sink->phase_y,
                          sink->title, sink->no_clock_ticks, NULL, 0, NULL, NULL, 0 };
    int written = hy_svg_plot(sink->out, &sink->rec.res, &spec);
    return fflush(sink->out) != 0 || ferror(sink->out) || written != 0;
}

static void plot_release(void *user)
{
    plot_sink *sink = user;
    hy_recorder_free(&sink->rec);
    hy_free(sink->panel_vars);
    hy_free(sink->title);
    hy_free(sink);
}

/* The columns to record: the phase plot's two, or the panels' (every
** result column by default); then every chart's mode for the bands. */
static int choose_columns(plot_sink *sink, hydae_sim *s, const hydae_plot_options *opt)
{
    hy_columns *cols = &sink->rec.cols;
    int status = 0;
    if (opt && opt->phase_x && opt->phase_y) {
        sink->phase_x = hy_columns_add_name(cols, s, opt->phase_x);
        if (sink->phase_x < 0)
            return sink->phase_x;
        sink->phase_y = hy_columns_add_name(cols, s, opt->phase_y);
        if (sink->phase_y < 0)
            return sink->phase_y;
    } else if (opt && opt->vars) {
        status = hy_columns_add_list(cols, s, opt->vars);
    } else {
        status = hy_columns_add_results(cols);
    }
    if (status)
        return status;
    sink->panel_vars = hy_malloc(sizeof(int) * (size_t)(cols->n > 0 ? cols->n : 1));
    if (!sink->panel_vars)
        return HYDAE_ERR_NOMEM;
    for (int i = 0; i < cols->n && sink->phase_x < 0; i++)
        if (cols->items[i].kind != HY_COLUMN_MODE)
            sink->panel_vars[sink->n_panels++] = i;
    return hy_columns_add_modes(cols);
}

int hydae_sim_add_plot(hydae_sim *s, FILE *out, const hydae_plot_options *opt)
{
    if (!s || !out)
        return HYDAE_ERR_ARG;
    if (opt && (!opt->phase_x) != (!opt->phase_y)) {
        hy_sim_fail(s, "a phase plot needs both phase_x and phase_y");
        return HYDAE_ERR_ARG;
    }
    plot_sink *sink = hy_calloc(1, sizeof *sink);
    if (!sink)
        return hy_sink_status(s, HYDAE_ERR_NOMEM, "the plot");
    sink->out = out;
    sink->phase_x = sink->phase_y = -1;
    sink->no_clock_ticks = opt ? opt->no_clock_ticks : 0;
    hy_recorder_init(&sink->rec, s);
    int status = choose_columns(sink, s, opt);
    if (!status && opt && opt->title && !(sink->title = hy_strdup(opt->title)))
        status = HYDAE_ERR_NOMEM;
    if (!status)
        status = hy_recorder_prepare(&sink->rec);
    hy_sink desc = { plot_begin, plot_row, plot_finish, plot_release, sink, 1 };
    if (!status)
        status = hy_sim_add_sink(s, &desc);
    if (status)
        plot_release(sink);
    return hy_sink_status(s, status, "the plot");
}

/* ---- the plot of a CSV file ---- */

/* The column called name; "time" and unknown names are errors. */
static int find_column(const hy_results *r, const char *name, const char *file, char *err,
                       size_t err_size)
{
    int var = hy_results_find(r, name);
    if (var >= 0)
        return var;
    size_t used = (size_t)snprintf(err, err_size, "%s has no column '%s' (columns:", file, name);
    for (int i = 0; i < r->n_vars && used < err_size; i++)
        used += (size_t)snprintf(err + used, err_size - used, " %s", r->vars[i].name);
    if (used < err_size)
        snprintf(err + used, err_size - used, ")");
    return HYDAE_ERR_ARG;
}

/* Panels from a comma-separated list of names ("time" and mode columns
** left out, a name given twice shown once). */
static int panels_from_list(const hy_results *r, const char *list, int *panels, int *n_panels,
                            const char *file, char *err, size_t err_size)
{
    const char *start = list;
    for (;;) {
        const char *end = strchr(start, ',');
        if (!end)
            end = start + strlen(start);
        while (start < end && *start == ' ')
            start++;
        const char *stop = end;
        while (stop > start && stop[-1] == ' ')
            stop--;
        char name[256];
        size_t len = (size_t)(stop - start);
        if (len == 0 || len >= sizeof name) {
            hy_format(err, err_size, "%s name in the list '%s'", len ? "too long a" : "an empty",
                      list);
            return HYDAE_ERR_ARG;
        }
        memcpy(name, start, len);
        name[len] = '\0';
        if (strcmp(name, "time") != 0) {
            int var = find_column(r, name, file, err, err_size);
            if (var < 0)
                return var;
            int seen = 0;
            for (int i = 0; i < *n_panels; i++)
                seen |= panels[i] == var;
            if (!seen && !r->vars[var].is_mode)
                panels[(*n_panels)++] = var;
        }
        if (*end == '\0')
            return 0;
        start = end + 1;
    }
}

typedef int (*table_reader)(hy_results *r, FILE *in, const char *name, char *err,
                            size_t err_size);

static int plot_sweep_table(const hy_results *table, const char *file, FILE *out,
                            const hydae_plot_options *opt, const hy_plot_axes *axes, char *err,
                            size_t err_size);

static int plot_file(table_reader read, FILE *in, const char *name, FILE *out,
                     const hydae_plot_options *opt, const hy_plot_axes *axes, char *err,
                     size_t err_size)
{
    hy_results r;
    hy_results_init(&r);
    int *panels = NULL;
    int status = read(&r, in, name, err, err_size);
    if (!status && r.is_sweep_table) {
        status = plot_sweep_table(&r, name, out, opt, axes, err, err_size);
        hy_results_free(&r);
        return status;
    }
    if (!status && axes && (axes->x || axes->by)) {
        hy_format(err, err_size, "--x and --by plot a sweep's table (hydae sweep -o T.csv); %s "
                  "is a run's results", name);
        status = HYDAE_ERR_ARG;
    }
    if (!status)
        status = hy_results_set_title(&r, name);
    hy_plot_spec spec = { 0, NULL, -1, -1, opt ? opt->title : NULL,
                          opt ? opt->no_clock_ticks : 0, NULL, 0, NULL, NULL, 0 };
    if (!status) {
        panels = hy_malloc(sizeof(int) * (size_t)(r.n_vars > 0 ? r.n_vars : 1));
        if (!panels)
            status = HYDAE_ERR_NOMEM;
    }
    if (!status && opt && opt->phase_x && opt->phase_y) {
        spec.phase_x = find_column(&r, opt->phase_x, name, err, err_size);
        spec.phase_y = spec.phase_x < 0 ? -1 : find_column(&r, opt->phase_y, name, err, err_size);
        if (spec.phase_x < 0 || spec.phase_y < 0)
            status = HYDAE_ERR_ARG;
    } else if (!status && opt && opt->vars) {
        status = panels_from_list(&r, opt->vars, panels, &spec.n_panels, name, err, err_size);
    } else if (!status) {
        for (int v = 0; v < r.n_vars; v++) /* a MAT file's constant parameters: no panel */
            if (!r.vars[v].is_mode && !r.vars[v].is_param)
                panels[spec.n_panels++] = v;
    }
    spec.panel_vars = panels;
    if (!status && hy_svg_plot(out, &r, &spec) != 0) {
        hy_format(err, err_size, "writing the plot failed");
        status = HYDAE_ERR_IO;
    }
    hy_free(panels);
    hy_results_free(&r);
    return status;
}

int hy_plot_csv_axes(FILE *in, const char *name, FILE *out, const hydae_plot_options *opt,
                     const hy_plot_axes *axes, char *err, size_t err_size)
{
    return plot_file(hy_csv_read, in, name, out, opt, axes, err, err_size);
}

int hy_plot_mat_axes(FILE *in, const char *name, FILE *out, const hydae_plot_options *opt,
                     const hy_plot_axes *axes, char *err, size_t err_size)
{
    return plot_file(hy_mat_read, in, name, out, opt, axes, err, err_size);
}

int hy_plot_csv(FILE *in, const char *name, FILE *out, const hydae_plot_options *opt, char *err,
                size_t err_size)
{
    return hy_plot_csv_axes(in, name, out, opt, NULL, err, err_size);
}

int hy_plot_mat(FILE *in, const char *name, FILE *out, const hydae_plot_options *opt, char *err,
                size_t err_size)
{
    return hy_plot_mat_axes(in, name, out, opt, NULL, err, err_size);
}

/* ---- the plot of a sweep's table ---- */

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Sorted distinct finite values of column var over the rows where keep[k]. */
static int distinct_values(const hy_results *r, int var, const unsigned char *keep, double **values,
                           long *n_values)
{
    *n_values = 0;
    *values = hy_malloc(sizeof(double) * (size_t)(r->n_rows > 0 ? r->n_rows : 1));
    if (!*values)
        return HYDAE_ERR_NOMEM;
    for (long k = 0; k < r->n_rows; k++) {
        double v = var < 0 ? 0.0 : hy_results_value(r, k, var);
        if (keep[k] && isfinite(v))
            (*values)[(*n_values)++] = v;
    }
    qsort(*values, (size_t)*n_values, sizeof(double), compare_doubles);
    long n_distinct = 0;
    for (long i = 0; i < *n_values; i++)
        if (n_distinct == 0 || (*values)[i] != (*values)[n_distinct - 1])
            (*values)[n_distinct++] = (*values)[i];
    *n_values = n_distinct;
    return 0;
}

static long index_of(const double *sorted, long n, double value)
{
    if (!isfinite(value)) /* compare_doubles would call NaN equal to anything */
        return -1;
    const double *hit = bsearch(&value, sorted, (size_t)n, sizeof(double), compare_doubles);
    return hit ? (long)(hit - sorted) : -1;
}

typedef struct sweep_plot {
    const hy_results *table;
    int x_var, by_var;       /* columns of the table (by_var -1: one curve) */
    int *y_vars, n_y;        /* the measures, a panel each */
    unsigned char *keep;     /* the runs that ended well */
    long n_failed;
    double *xs, *bys;        /* distinct values: the rows and the curves */
    long n_x, n_by;
    hy_results over;         /* rows: xs; columns: y_vars x bys */
    char **labels;           /* n_by curve labels, then n_y panel labels */
} sweep_plot;

/* The columns named by opt->vars, else every number column but the run's
** statistics; never x or by. */
static int choose_measures(sweep_plot *sp, const hydae_plot_options *opt, const char *file,
                           char *err, size_t err_size)
{
    const hy_results *r = sp->table;
    int *listed = hy_malloc(sizeof(int) * (size_t)(r->n_vars + 1));
    sp->y_vars = hy_malloc(sizeof(int) * (size_t)(r->n_vars + 1));
    int n_listed = 0, status = listed && sp->y_vars ? 0 : HYDAE_ERR_NOMEM;
    if (!status && opt && opt->vars)
        status = panels_from_list(r, opt->vars, listed, &n_listed, file, err, err_size);
    else if (!status)
        for (int v = 0; v < r->n_vars; v++)
            if (!r->vars[v].is_mode && strcmp(r->vars[v].name, "steps") != 0
                && strcmp(r->vars[v].name, "wall_s") != 0)
                listed[n_listed++] = v;
    for (int i = 0; !status && i < n_listed; i++)
        if (listed[i] != sp->x_var && listed[i] != sp->by_var)
            sp->y_vars[sp->n_y++] = listed[i];
    if (!status && sp->n_y == 0) {
        hy_format(err, err_size, "%s: nothing to plot over '%s' (--vars names the measures)", file,
                  r->vars[sp->x_var].name);
        status = HYDAE_ERR_ARG;
    }
    hy_free(listed);
    return status;
}

/* The x and by columns (axes may be NULL: x is the first parameter). */
static int choose_axes(sweep_plot *sp, const hy_plot_axes *axes, const char *file, char *err,
                       size_t err_size)
{
    const hy_results *r = sp->table;
    sp->by_var = -1;
    if (axes && axes->x)
        sp->x_var = find_column(r, axes->x, file, err, err_size);
    else
        sp->x_var = r->n_vars > 0 && !r->vars[0].is_mode ? 0 : -1;
    if (sp->x_var < 0 && !(axes && axes->x))
        hy_format(err, err_size, "%s: the table has no parameter column", file);
    if (sp->x_var >= 0 && axes && axes->by)
        sp->by_var = find_column(r, axes->by, file, err, err_size);
    if (sp->x_var < 0 || (axes && axes->by && sp->by_var < 0))
        return HYDAE_ERR_ARG;
    if (r->vars[sp->x_var].is_mode || (sp->by_var >= 0 && r->vars[sp->by_var].is_mode)
        || sp->by_var == sp->x_var) {
        hy_format(err, err_size, "%s: --x and --by need two different number columns", file);
        return HYDAE_ERR_ARG;
    }
    return 0;
}

enum { MAX_CURVES = 8 }; /* one colour each */

/* The runs kept (status "ok"), the rows and the curves. */
static int choose_runs(sweep_plot *sp, const char *file, char *err, size_t err_size)
{
    const hy_results *r = sp->table;
    sp->keep = hy_malloc((size_t)(r->n_rows > 0 ? r->n_rows : 1));
    if (!sp->keep)
        return HYDAE_ERR_NOMEM;
    int status_var = hy_results_find(r, "status");
    for (long k = 0; k < r->n_rows; k++) {
        double label = status_var >= 0 ? hy_results_value(r, k, status_var) : 0.0;
        sp->keep[k] = status_var < 0
                      || (label >= 0.0 && strcmp(r->vars[status_var].labels[(int)label], "ok") == 0);
        sp->n_failed += !sp->keep[k];
    }
    int status = distinct_values(r, sp->x_var, sp->keep, &sp->xs, &sp->n_x);
    if (!status)
        status = distinct_values(r, sp->by_var, sp->keep, &sp->bys, &sp->n_by);
    if (!status && sp->n_by == 0) { /* no run ended well: one empty curve */
        sp->bys[0] = 0.0;
        sp->n_by = 1;
    }
    if (!status && sp->n_by > MAX_CURVES) {
        hy_format(err, err_size, "%s: '%s' takes %ld values: at most %d curves (--by)", file,
                  r->vars[sp->by_var].name, sp->n_by, MAX_CURVES);
        status = HYDAE_ERR_ARG;
    }
    return status;
}

/* The table over x: a row per x value, a column per measure and curve; two
** runs in one cell are an error (another parameter varies: --by). */
static int fill_over(sweep_plot *sp, const char *file, char *err, size_t err_size)
{
    const hy_results *r = sp->table;
    long n_cols = (long)sp->n_y * sp->n_by, n_cells = sp->n_x * n_cols;
    double *cells = hy_malloc(sizeof(double) * (size_t)(n_cells > 0 ? n_cells : 1));
    long *run_of = hy_malloc(sizeof(long) * (size_t)(n_cells > 0 ? n_cells : 1));
    int status = cells && run_of ? 0 : HYDAE_ERR_NOMEM;
    for (long c = 0; !status && c < n_cells; c++) {
        cells[c] = NAN;
        run_of[c] = -1;
    }
    for (long k = 0; !status && k < r->n_rows; k++) {
        long row = index_of(sp->xs, sp->n_x, hy_results_value(r, k, sp->x_var));
        long curve = sp->by_var < 0 ? 0 : index_of(sp->bys, sp->n_by, hy_results_value(r, k, sp->by_var));
        if (!sp->keep[k] || row < 0 || curve < 0)
            continue;
        long first = row * n_cols + curve;
        if (run_of[first] >= 0) {
            hy_format(err, err_size, "%s: runs %.17g and %.17g both have %s = %.17g%s: another "
                      "parameter varies, plot its values apart with --by NAME", file,
                      r->t[run_of[first]], r->t[k], r->vars[sp->x_var].name, sp->xs[row],
                      sp->by_var >= 0 ? " (and the same --by value)" : "");
            status = HYDAE_ERR_ARG;
            break;
        }
        run_of[first] = k;
        for (int y = 0; y < sp->n_y; y++)
            cells[first + (long)y * sp->n_by] = hy_results_value(r, k, sp->y_vars[y]);
    }
    for (long c = 0; !status && c < n_cols; c++)
        if (hy_results_add_var(&sp->over, "", "", 0, 0) < 0)
            status = HYDAE_ERR_NOMEM;
    for (long row = 0; !status && row < sp->n_x; row++)
        status = hy_results_append(&sp->over, HYDAE_ROW_GRID, sp->xs[row], cells + row * n_cols);
    hy_free(cells);
    hy_free(run_of);
    return status;
}

static int make_labels(sweep_plot *sp)
{
    sp->labels = hy_calloc((size_t)(sp->n_by + sp->n_y), sizeof(char *));
    if (!sp->labels)
        return HYDAE_ERR_NOMEM;
    char text[512];
    for (long c = 0; c < sp->n_by; c++) {
        if (sp->by_var >= 0)
            hy_format(text, sizeof text, "%s = %.6g", sp->table->vars[sp->by_var].name, sp->bys[c]);
        else
            text[0] = '\0';
        if (!(sp->labels[c] = hy_strdup(text)))
            return HYDAE_ERR_NOMEM;
    }
    for (int y = 0; y < sp->n_y; y++)
        if (!(sp->labels[sp->n_by + y] = hy_strdup(sp->table->vars[sp->y_vars[y]].name)))
            return HYDAE_ERR_NOMEM;
    return 0;
}

static int draw_sweep(sweep_plot *sp, FILE *out, const hydae_plot_options *opt, const char *file,
                      char *err, size_t err_size)
{
    int n_cols = sp->n_y * (int)sp->n_by;
    int *columns = hy_malloc(sizeof(int) * (size_t)(n_cols > 0 ? n_cols : 1));
    if (!columns)
        return HYDAE_ERR_NOMEM;
    for (int c = 0; c < n_cols; c++)
        columns[c] = c;
    char title[1100];
    if (sp->n_failed)
        hy_format(title, sizeof title, "%s (%ld failed run%s left out)",
                  opt && opt->title ? opt->title : file, sp->n_failed, sp->n_failed > 1 ? "s" : "");
    else
        hy_format(title, sizeof title, "%s", opt && opt->title ? opt->title : file);
    hy_plot_spec spec = { sp->n_y, columns, -1, -1, title, 1, sp->table->vars[sp->x_var].name,
                          (int)sp->n_by, (const char *const *)sp->labels,
                          (const char *const *)sp->labels + sp->n_by, 1 };
    int status = 0;
    if (hy_svg_plot(out, &sp->over, &spec) != 0) {
        hy_format(err, err_size, "writing the plot failed");
        status = HYDAE_ERR_IO;
    }
    hy_free(columns);
    return status;
}

/* Each measure over one parameter (axes->x, default the first column
** after the run's number), a curve per value of axes->by, a dot per run;
** the runs that failed left out (and counted in the title). */
static int plot_sweep_table(const hy_results *table, const char *file, FILE *out,
                            const hydae_plot_options *opt, const hy_plot_axes *axes, char *err,
                            size_t err_size)
{
    if (opt && opt->phase_x) {
        hy_format(err, err_size, "%s is a sweep's table: plot its measures with --x NAME "
                  "[--by NAME], not --phase", file);
        return HYDAE_ERR_ARG;
    }
    sweep_plot sp;
    memset(&sp, 0, sizeof sp);
    sp.table = table;
    hy_results_init(&sp.over);
    int status = choose_axes(&sp, axes, file, err, err_size);
    if (!status)
        status = choose_measures(&sp, opt, file, err, err_size);
    if (!status)
        status = choose_runs(&sp, file, err, err_size);
    if (!status)
        status = fill_over(&sp, file, err, err_size);
    if (!status)
        status = make_labels(&sp);
    if (!status)
        status = draw_sweep(&sp, out, opt, file, err, err_size);
    for (long i = 0; sp.labels && i < sp.n_by + sp.n_y; i++)
        hy_free(sp.labels[i]);
    hy_free(sp.labels);
    hy_results_free(&sp.over);
    hy_free(sp.y_vars);
    hy_free(sp.keep);
    hy_free(sp.xs);
    hy_free(sp.bys);
    return status;
}
