/*
** Plots of results: the sink that plots a run when it ends
** (hydae_sim_add_plot) and the plot of a CSV file (`hydae plot`). Both
** choose the panels (or the phase plot's two columns) by name and draw
** with svgplot.c.
*/
#include "plot.h"

#include "csvread.h"
#include "matread.h"
#include "sinks.h"
#include "svgplot.h"
#include "core/core.h"

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
                          sink->title, sink->no_clock_ticks };
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

static int plot_file(table_reader read, FILE *in, const char *name, FILE *out,
                     const hydae_plot_options *opt, char *err, size_t err_size)
{
    hy_results r;
    hy_results_init(&r);
    int *panels = NULL;
    int status = read(&r, in, name, err, err_size);
    if (!status)
        status = hy_results_set_title(&r, name);
    hy_plot_spec spec = { 0, NULL, -1, -1, opt ? opt->title : NULL,
                          opt ? opt->no_clock_ticks : 0 };
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

int hy_plot_csv(FILE *in, const char *name, FILE *out, const hydae_plot_options *opt, char *err,
                size_t err_size)
{
    return plot_file(hy_csv_read, in, name, out, opt, err, err_size);
}

int hy_plot_mat(FILE *in, const char *name, FILE *out, const hydae_plot_options *opt, char *err,
                size_t err_size)
{
    return plot_file(hy_mat_read, in, name, out, opt, err, err_size);
}
