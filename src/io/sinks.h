/*
** Result sinks: the writers of io/ (CSV, MAT files, plots, the progress
** bar) and the user's row callbacks behind one contract; the list of them
** a run sends its rows to (sinks.c); and the little of the simulator the
** writers see, so that io/ needs nothing of sim/'s internals (those
** functions are defined by sim/output.c).
*/
#ifndef HY_SINKS_H
#define HY_SINKS_H

#include "hydae.h"
#include "core/core.h"

typedef struct hy_sink {
    /* At the start of a run (optional): 0, or non-zero when writing the
    ** header failed. */
    int (*begin)(void *user, const hydae_model *m);
    /* One row (required): 0, or non-zero to stop the run. */
    hydae_row_fn row;
    /* At the end of a run (optional), with its status, its last time and
    ** its message: 0, or non-zero when writing what the sink holds failed. */
    int (*finish)(void *user, int status, double t, const char *message);
    void (*release)(void *user);    /* optional: free user */
    void *user;
    int writes_file;            /* a failure is an I/O error, not a user stop
                                ** (HYDAE_ERR_NOMEM from begin or row: out of
                                ** memory) */
} hy_sink;

/* The sinks of a simulator, in the order they were added. */
typedef struct hy_sink_set {
    int n, cap;
    hy_sink *items;
} hy_sink_set;

/* Append a sink. 0, or HYDAE_ERR_NOMEM (the caller keeps ownership of
** sink->user and releases it). */
int hy_sink_set_add(hy_sink_set *set, const hy_sink *sink);
/* Release every sink and the list. */
void hy_sink_set_free(hy_sink_set *set);
/* Every sink's begin: 0, or HYDAE_ERR_IO at the first that fails. */
int hy_sink_set_begin(hy_sink_set *set, const hydae_model *m);
/* The row to every sink: 0, HYDAE_ERR_IO (a sink that writes a file
** failed) or HYDAE_ERR_CALLBACK (a callback stopped the run). */
int hy_sink_set_row(hy_sink_set *set, hydae_row_kind kind, double t, const double *row);
/* Every sink's finish: 0, or 1 if any failed. */
int hy_sink_set_finish(hy_sink_set *set, int status, double t, const char *message);

/* ---- the simulator as the writers see it (sim/output.c) ---- */

/* Append a sink to the sim's list; as hy_sink_set_add. */
int hy_sim_add_sink(hydae_sim *s, const hy_sink *sink);
const hydae_model *hy_sim_model(const hydae_sim *s);
/* The value store by slot (parameters and discrete variables first), as
** of the row being delivered. */
const double *hy_sim_values(const hydae_sim *s);
/* The active mode of a chart, or NULL before a run. */
const hydae_mode *hy_sim_active_mode(const hydae_sim *s, int chart);
/* The run's span [t0, t_end] as set. */
void hy_sim_span(const hydae_sim *s, double *t0, double *t_end);
/* The message hydae_sim_errmsg returns. */
void hy_sim_fail(hydae_sim *s, const char *fmt, ...) HY_PRINTF(2, 3);

#endif
