/*
** Shared by the tests of nominal values set at an event
** (tests/test_action_nominal.c, tests/fmi/test_fmi_nominal.c): a model of
** x' = -x, x(0) = 1e-5 whose event at t = 1 sets x's nominal value to 1e-6
** when the sim's parameter `param` is 1 (and leaves it when 0), run from
** 0 to 4 with rtol 1e-6, atol 1e-3 (the absolute tolerance decides the
** steps: atol * nominal is 1e-3 before the event, 1e-9 after), rows at
** every step. Four sims: "changed" (1) and "kept" (0) one after the
** other, then the same pair at once on two threads. Include after check.h
** and rows.h.
*/
#ifndef HY_TEST_NOMINAL_RUNS_H
#define HY_TEST_NOMINAL_RUNS_H

#include <math.h>
#include <pthread.h>
#include <string.h>

typedef struct nominal_run {
    hydae_sim *sim;
    const char *param;
    double value;
    test_rows rows;
    int status;
} nominal_run;

typedef struct nominal_runs {
    nominal_run changed, kept, par_changed, par_kept;
} nominal_runs;

static inline int nominal_run_setup(nominal_run *r, hydae_model *m, const char *integrator,
                                    const char *param, double value)
{
    memset(r, 0, sizeof *r);
    r->param = param;
    r->value = value;
    test_rows_init(&r->rows, m);
    r->sim = hydae_sim_create(m, &r->status);
    if (!r->sim)
        return -1;
    r->status = hydae_sim_set_time(r->sim, 0.0, 4.0);
    if (!r->status)
        r->status = hydae_sim_set_tolerances(r->sim, 1e-6, 1e-3);
    if (!r->status && integrator)
        r->status = hydae_sim_set_integrator(r->sim, integrator);
    if (!r->status)
        r->status = hydae_sim_set_output_steps(r->sim, 1);
    if (!r->status)
        r->status = hydae_sim_add_row_sink(r->sim, test_rows_sink, &r->rows);
    return r->status;
}

/* A run of r's sim with its parameter (a thread's function). */
static inline void *nominal_run_execute(void *arg)
{
    nominal_run *r = arg;
    r->rows.n_rows = 0;
    r->status = hydae_sim_set_param(r->sim, r->param, r->value);
    if (!r->status)
        r->status = hydae_sim_run(r->sim);
    if (r->status)
        fprintf(stderr, "run: %s\n", hydae_sim_errmsg(r->sim));
    return NULL;
}

/* Rows [0, n) of a and b the same, bit for bit (n < 0: all, and as many). */
static inline int nominal_same_rows(const nominal_run *a, const nominal_run *b, int n)
{
    if (n < 0 && a->rows.n_rows != b->rows.n_rows)
        return 0;
    n = n < 0 ? a->rows.n_rows : n;
    if (n > a->rows.n_rows || n > b->rows.n_rows)
        return 0;
    size_t width = (size_t)a->rows.n_columns;
    return memcmp(a->rows.t, b->rows.t, sizeof(double) * (size_t)n) == 0
           && memcmp(a->rows.values, b->rows.values, sizeof(double) * width * (size_t)n) == 0;
}

/* Rows up to the left limit of the event. */
static inline int nominal_rows_before_event(const nominal_run *r)
{
    int i = 0;
    while (i < r->rows.n_rows && r->rows.kind[i] != HYDAE_ROW_EVENT_RIGHT)
        i++;
    return i;
}

/* Largest |x - x(1) exp(1 - t)| over the rows after t = 1 (x(1) the right
** limit at the event: the closed form from there), their count. */
static inline double nominal_error_after_event(const nominal_run *r, int x, int *n_rows)
{
    double worst = 0.0, x1 = NAN;
    *n_rows = 0;
    for (int i = 0; i < r->rows.n_rows; i++) {
        if (r->rows.kind[i] == HYDAE_ROW_EVENT_RIGHT && r->rows.t[i] == 1.0)
            x1 = test_value(&r->rows, i, x);
        if (!(r->rows.t[i] > 1.0))
            continue;
        (*n_rows)++;
        worst = fmax(worst, fabs(test_value(&r->rows, i, x) - x1 * exp(1.0 - r->rows.t[i])));
    }
    return isnan(x1) ? INFINITY : worst;
}

/* The four runs of m (integrator NULL: the default); 0 when all ran. */
static inline int nominal_runs_start(nominal_runs *r, hydae_model *m, const char *integrator,
                                     const char *param)
{
    memset(r, 0, sizeof *r);
    if (nominal_run_setup(&r->changed, m, integrator, param, 1.0)
        || nominal_run_setup(&r->kept, m, integrator, param, 0.0)
        || nominal_run_setup(&r->par_changed, m, integrator, param, 1.0)
        || nominal_run_setup(&r->par_kept, m, integrator, param, 0.0))
        return -1;
    nominal_run_execute(&r->changed);
    nominal_run_execute(&r->kept);
    pthread_t th[2];
    int started0 = pthread_create(&th[0], NULL, nominal_run_execute, &r->par_changed) == 0;
    int started1 = pthread_create(&th[1], NULL, nominal_run_execute, &r->par_kept) == 0;
    if (started0)
        pthread_join(th[0], NULL);
    if (started1)
        pthread_join(th[1], NULL);
    return started0 && started1 && !r->changed.status && !r->kept.status
                   && !r->par_changed.status && !r->par_kept.status && r->changed.rows.n_rows
                   && r->kept.rows.n_rows
               ? 0
               : -1;
}

/* Up to the event the runs are the same, bit for bit; after it the
** changed run errs by less than 1e-8 (ten times the tighter atol: room for
** the local errors adding up), the kept one by ten times more, with fewer
** than half the steps; the threaded pair has the same rows as the other. */
static inline void nominal_runs_check(const nominal_runs *r, int x, const char *what)
{
    int n_before = nominal_rows_before_event(&r->changed);
    CHECK(n_before >= 2 && n_before == nominal_rows_before_event(&r->kept)
              && nominal_same_rows(&r->changed, &r->kept, n_before),
          "%s: the runs differ before the event (%d rows)", what, n_before);
    int n_changed, n_kept;
    double err_changed = nominal_error_after_event(&r->changed, x, &n_changed);
    double err_kept = nominal_error_after_event(&r->kept, x, &n_kept);
    printf("%s: after t = 1: nominal 1e-6: %d steps, max error %.3g; nominal kept: %d steps, "
           "max error %.3g\n", what, n_changed, err_changed, n_kept, err_kept);
    CHECK(err_changed < 1e-8, "%s: error with atol 1e-9 after t = 1: %.3g", what, err_changed);
    CHECK(err_kept > 10.0 * err_changed, "%s: the kept run is as accurate (%.3g, %.3g)", what,
          err_kept, err_changed);
    CHECK(n_changed > 2 * n_kept, "%s: steps after t = 1: %d with nominal 1e-6, %d without",
          what, n_changed, n_kept);
    CHECK(nominal_same_rows(&r->par_changed, &r->changed, -1)
              && nominal_same_rows(&r->par_kept, &r->kept, -1),
          "%s: a sim on another thread sees the other's nominal value", what);
}

static inline void nominal_runs_free(nominal_runs *r)
{
    nominal_run *runs[] = { &r->changed, &r->kept, &r->par_changed, &r->par_kept };
    for (int i = 0; i < 4; i++) {
        hydae_sim_free(runs[i]->sim);
        test_rows_free(&runs[i]->rows);
    }
}

#endif
