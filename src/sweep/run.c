/*
** The runs of a parameter study on N threads. Each thread keeps one sim of
** the shared model (its own parameters through hydae_sim_set_param; docs/
** engine.md, "Threads") and reuses it from run to run: the sim, its
** experiment settings, its measure sink and fired hook are made once per
** thread, so a run costs its parameters and hydae_sim_run (a run starts
** from the model's start values whatever ran before; a sim whose run
** failed is replaced). Threads take the next run from one counter (dynamic
** balancing: runs differ in cost when events differ); measures are
** computed on the fly from a row sink and the fired-transition hook, no
** trajectory is kept; the calling thread hands the rows to the caller in
** run order as they complete. hydae_sweep_interrupt stops the runs going.
**
** integral(x) is the trapezoid rule over the output rows (grid, event and
** step rows, NaN segments skipped), so its accuracy is that of the
** output grid (dt), not of the integrator.
*/
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include "sweep.h"

#include "core/core.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double now_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int hy_sweep_fail(hydae_sweep *sw, int status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(sw->errmsg, sizeof sw->errmsg, fmt, ap);
    va_end(ap);
    return status;
}

/* A run's measures as they go. */
typedef struct run_measures {
    const sweep_plan *plan;
    double *value;
    int n_columns;
    double t_prev;
    double *prev_copy;       /* the previous row's values */
    long n_rows;
} run_measures;

static int measure_row(void *user, hydae_row_kind kind, double t, const double *values)
{
    (void)kind;
    run_measures *rm = user;
    for (int k = 0; k < rm->plan->n_measures; k++) {
        const sweep_measure *m = &rm->plan->measures[k];
        double x = m->column >= 0 ? values[m->column] : NAN, *v = &rm->value[k];
        switch (m->kind) {
        case SWEEP_FINAL: *v = x; break;
        case SWEEP_MAX: if (!isnan(x) && (isnan(*v) || x > *v)) *v = x; break;
        case SWEEP_MIN: if (!isnan(x) && (isnan(*v) || x < *v)) *v = x; break;
        case SWEEP_INTEGRAL: {
            double before = rm->n_rows > 0 ? rm->prev_copy[m->column] : NAN;
            if (rm->n_rows == 0)
                *v = 0.0;
            else if (!isnan(x) && !isnan(before))
                *v += 0.5 * (t - rm->t_prev) * (x + before);
            break;
        }
        default: break;
        }
    }
    memcpy(rm->prev_copy, values, sizeof *values * (size_t)rm->n_columns);
    rm->t_prev = t;
    rm->n_rows++;
    return 0;
}

static int measure_fired(void *user, double t, const char *chart, const char *transition)
{
    run_measures *rm = user;
    size_t n = strlen(chart);
    for (int k = 0; k < rm->plan->n_measures; k++) {
        const sweep_measure *m = &rm->plan->measures[k];
        if (m->kind != SWEEP_COUNT && m->kind != SWEEP_FIRST)
            continue;
        const char *own = strncmp(m->name, chart, n) == 0 && m->name[n] == '.' ? m->name + n + 1
                                                                                : m->name;
        if (strcmp(own, transition) != 0)
            continue;
        if (m->kind == SWEEP_COUNT)
            rm->value[k] += 1.0;
        else if (isnan(rm->value[k]))
            rm->value[k] = t;
    }
    return 0;
}

/* A thread's sim and measure state. Every output row of a run updates the
** measures, the previous row and the row count: they live in the worker's
** own block (new_worker), a cache line clear of any other thread's data,
** and the measures reach the table's row when the run ends (threads that
** write into one cache line slow each other down: false sharing). */
typedef struct worker {
    hydae_sweep *sw;
    int index;
    hydae_sim *sim;          /* reused while its runs succeed */
    run_measures rm;         /* rm.value: this run's measures as they go */
    FILE *run_file;          /* runs_dir: this run's result file */
    char *block;             /* the allocation holding the worker */
} worker;

enum { CACHE_LINE = 64 };

/* Worker `index` in one block: a cache line of padding, the worker, its
** measures and previous row, a cache line of padding. NULL if out of
** memory. */
static worker *new_worker(hydae_sweep *sw, int index)
{
    int n_columns = hydae_model_n_columns(sw->model), n_measures = sw->plan.n_measures;
    size_t n_doubles = (size_t)n_measures + (size_t)n_columns + 1;
    char *block = hy_calloc(1, 2 * CACHE_LINE + sizeof(worker) + sizeof(double) * n_doubles);
    if (!block)
        return NULL;
    worker *w = (worker *)(void *)(block + CACHE_LINE);
    double *doubles = (double *)(void *)(w + 1);
    *w = (worker){ sw, index, NULL, { &sw->plan, doubles, n_columns, 0.0, doubles + n_measures, 0 },
                   NULL, block };
    return w;
}

/* The file of run i in runs_dir, opened: 0 or a negative status with the
** reason in message. */
static int open_run_file(worker *w, long i, char *message, size_t size)
{
    const hydae_sweep *sw = w->sw;
    int digits = snprintf(NULL, 0, "%ld", sw->plan.n_runs - 1);
    char path[4096];
    snprintf(path, sizeof path, "%s/run_%0*ld.%s", sw->runs_dir, digits, i,
             sw->runs_mat ? "mat" : "csv");
    w->run_file = fopen(path, sw->runs_mat ? "wb" : "w");
    if (!w->run_file) {
        snprintf(message, size, "cannot write run %ld's result file in '%.300s'", i,
                 sw->runs_dir);
        return HYDAE_ERR_IO;
    }
    return 0;
}

/* The worker's sim made ready for runs (experiment, settings, sinks). */
static int make_sim(worker *w, char *message, size_t size)
{
    hydae_sweep *sw = w->sw;
    int status = 0;
    w->sim = hydae_sim_create(sw->model, &status);
    if (!w->sim) {
        snprintf(message, size, "%s", hydae_model_errmsg(sw->model));
        return status < 0 ? status : HYDAE_ERR_NOMEM;
    }
    status = hydae_sim_apply_experiment(w->sim);
    for (int k = 0; k < sw->n_options && status == 0; k++)
        status = hydae_sim_set_option(w->sim, sw->option_names[k], sw->option_values[k]);
    if (status == 0)
        status = hydae_sim_add_row_sink(w->sim, measure_row, &w->rm);
    if (status == 0)
        status = hydae_sim_set_fired_hook(w->sim, measure_fired, &w->rm);
    if (status == 0 && w->run_file)
        status = sw->runs_mat ? hydae_sim_add_mat(w->sim, w->run_file, NULL, 0)
                              : hydae_sim_add_csv(w->sim, w->run_file);
    if (status)
        snprintf(message, size, "%s", hydae_sim_errmsg(w->sim));
    return status;
}

/* Run i's parameters set and the run made: its status. */
static int run_with_params(worker *w, long i, char *message, size_t size, int *ran)
{
    hydae_sweep *sw = w->sw;
    const sweep_plan *plan = &sw->plan;
    double params[SWEEP_MAX_PARAMS];
    hy_sweep_run_values(plan, i, params);
    int status = 0;
    for (int k = 0; k < plan->n_params && status == 0; k++)
        status = hydae_sim_set_param(w->sim, plan->params[k].name, params[k]);
    if (status == 0 && !atomic_load(&sw->stopping)) {
        status = hydae_sim_run(w->sim);
        *ran = 1;
    }
    if (status < 0)
        snprintf(message, size, "%s", hydae_sim_errmsg(w->sim));
    return status;
}

/* The sim out of the list an interrupt reaches, then freed when it is not
** to be reused (after a failure, or with a result file per run) and the
** run's file closed: the run's status, HYDAE_ERR_IO if the file failed. */
static int release_run(worker *w, long i, int status, char *message, size_t size)
{
    hydae_sweep *sw = w->sw;
    pthread_mutex_lock(&sw->lock);
    sw->running[w->index] = NULL;
    pthread_mutex_unlock(&sw->lock);
    if (status < 0 || w->run_file) {
        hydae_sim_free(w->sim);
        w->sim = NULL;
    }
    if (w->run_file && fclose(w->run_file) != 0 && status >= 0) {
        snprintf(message, size, "error writing run %ld's result file", i);
        status = HYDAE_ERR_IO;
    }
    w->run_file = NULL;
    return status;
}

/* Run i into its row. */
static void run_one(worker *w, long i)
{
    hydae_sweep *sw = w->sw;
    const sweep_plan *plan = &sw->plan;
    sweep_row *row = &sw->rows[i];
    w->rm.n_rows = 0;
    w->rm.t_prev = 0.0;
    for (int k = 0; k < plan->n_measures; k++)
        w->rm.value[k] = plan->measures[k].kind == SWEEP_COUNT ? 0.0 : NAN;
    double started = now_seconds();
    int status = 0, ran = 0;
    row->status[0] = '\0';
    if (sw->runs_dir)
        status = open_run_file(w, i, row->status, sizeof row->status);
    if (status == 0 && !w->sim)
        status = make_sim(w, row->status, sizeof row->status);
    if (status == 0) {
        pthread_mutex_lock(&sw->lock);
        sw->running[w->index] = w->sim;
        pthread_mutex_unlock(&sw->lock);
        status = run_with_params(w, i, row->status, sizeof row->status, &ran);
    }
    hydae_stats stats;
    memset(&stats, 0, sizeof stats);
    if (w->sim)
        hydae_sim_get_stats(w->sim, &stats);
    status = release_run(w, i, status, row->status, sizeof row->status);
    memcpy(row->measures, w->rm.value, sizeof(double) * (size_t)plan->n_measures);
    row->steps = stats.n_steps;
    row->wall = now_seconds() - started;
    row->failed = status < 0;
    if (status >= 0)
        snprintf(row->status, sizeof row->status, "ok");
    for (char *c = row->status; *c; c++) /* on one line: a row per run */
        *c = *c == '\n' || *c == '\r' ? ' ' : *c;
    pthread_mutex_lock(&sw->lock);
    /* A run stopped by an interrupt (or not started) is not in the table. */
    int interrupted = status == HYDAE_INTERRUPTED || atomic_load(&sw->stopping);
    row->done = status < 0 ? !interrupted : ran;
    sw->n_done += row->done;
    sw->n_failed += row->done && row->failed;
    /* The caller's thread wakes every 64 runs (and 10 times a second):
    ** waking it on every run of a tiny model costs more than the run. */
    if (sw->n_done % 64 == 0 || sw->n_done == plan->n_runs)
        pthread_cond_signal(&sw->finished);
    pthread_mutex_unlock(&sw->lock);
}

static void *work(void *arg)
{
    worker *w = arg;
    hydae_sweep *sw = w->sw;
    for (;;) {
        if (atomic_load(&sw->stopping))
            break;
        long i = sw->hooks.take ? sw->hooks.take(sw) : atomic_fetch_add(&sw->next_run, 1);
        if (i < 0 || i >= sw->plan.n_runs)
            break;
        run_one(w, i);
        if (sw->hooks.row_done && sw->rows[i].done)
            sw->hooks.row_done(sw, i);
    }
    hydae_sim_free(w->sim);
    w->sim = NULL;
    return NULL;
}

/* Every parameter is one the sim takes (a message naming it otherwise). */
static int check_params(hydae_sweep *sw)
{
    int status = 0;
    hydae_sim *probe = hydae_sim_create(sw->model, &status);
    if (!probe)
        return hy_sweep_fail(sw, status < 0 ? status : HYDAE_ERR_NOMEM, "%s",
                             hydae_model_errmsg(sw->model));
    for (int k = 0; k < sw->plan.n_params && status == 0; k++)
        if ((status = hydae_sim_set_param(probe, sw->plan.params[k].name, 0.0)) != 0)
            hy_sweep_fail(sw, status, "%s", hydae_sim_errmsg(probe));
    hydae_sim_free(probe);
    return status;
}

int hy_sweep_prepare(hydae_sweep *sw)
{
    if (sw->prepared)
        return 0;
    sweep_plan *plan = &sw->plan;
    if ((plan->n_measures == 0 && hy_sweep_default_measures(plan, sw->model))
        || hy_sweep_plan_finish(plan))
        return hy_sweep_fail(sw, HYDAE_ERR_ARG, "%s", plan->errmsg);
    int status = check_params(sw);
    if (status)
        return status;
    long n = plan->n_runs, n_measures = plan->n_measures;
    sw->rows = hy_calloc((size_t)n, sizeof *sw->rows);
    sw->measure_values = hy_calloc((size_t)(n * n_measures + 1), sizeof *sw->measure_values);
    if (!sw->rows || !sw->measure_values)
        return hy_sweep_fail(sw, HYDAE_ERR_NOMEM, "out of memory for %ld runs", n);
    for (long i = 0; i < n; i++)
        sw->rows[i].measures = sw->measure_values + i * n_measures;
    if (sw->n_threads == 0) {
        long cores = sysconf(_SC_NPROCESSORS_ONLN);
        sw->n_threads = cores > 0 ? (int)(cores < SWEEP_MAX_THREADS ? cores : SWEEP_MAX_THREADS)
                                  : 1;
    }
    sw->prepared = 1;
    return 0;
}

void hy_sweep_row_view(const hydae_sweep *sw, long i, double *params, hydae_sweep_row *out)
{
    const sweep_row *row = &sw->rows[i];
    hy_sweep_run_values(&sw->plan, i, params);
    *out = (hydae_sweep_row){ i, row->failed, params, row->measures, row->status, row->steps,
                              row->wall };
}

/* Stop the runs going (under sw->lock). */
static void stop_runs(hydae_sweep *sw)
{
    atomic_store(&sw->stopping, 1);
    for (int w = 0; w < sw->n_started_threads; w++)
        if (sw->running[w])
            hydae_sim_interrupt(sw->running[w]);
}

/* Row sw->n_delivered to fn, outside the lock: 0, or fn's non-zero. */
static int deliver(hydae_sweep *sw, hydae_sweep_row_fn fn, void *user)
{
    long i = sw->n_delivered++;
    if (!fn)
        return 0;
    double params[SWEEP_MAX_PARAMS];
    hydae_sweep_row view;
    hy_sweep_row_view(sw, i, params, &view);
    pthread_mutex_unlock(&sw->lock);
    int stop = fn(user, &view);
    pthread_mutex_lock(&sw->lock);
    return stop;
}

/* The calling thread of rank 0: rows in run order as they complete (and
** the other ranks served until each has been told there are no runs
** left); an interrupt or fn stops the runs. 0, or HYDAE_ERR_CALLBACK. */
static int deliver_in_order(hydae_sweep *sw, hydae_sweep_row_fn fn, void *user)
{
    long wait_ns = sw->hooks.serve ? 1000000L : 100000000L;
    int n_told = 0, status = 0;
    pthread_mutex_lock(&sw->lock);
    while (sw->n_delivered < sw->plan.n_runs
           || (n_told < sw->n_ranks - 1 && !atomic_load(&sw->stopping))) {
        if (sw->hooks.serve)
            n_told += sw->hooks.serve(sw);
        if (atomic_load(&sw->interrupt_requested) && !atomic_load(&sw->stopping))
            stop_runs(sw);
        if (sw->n_delivered < sw->plan.n_runs && sw->rows[sw->n_delivered].done) {
            if (deliver(sw, fn, user) != 0 && !atomic_load(&sw->stopping)) {
                status = HYDAE_ERR_CALLBACK;
                stop_runs(sw);
            }
            continue;
        }
        if (atomic_load(&sw->stopping))
            break;
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_nsec += wait_ns; /* the interrupt flag 10 times a second, MPI 1000 */
        if (until.tv_nsec >= 1000000000L) {
            until.tv_sec++;
            until.tv_nsec -= 1000000000L;
        }
        pthread_cond_timedwait(&sw->finished, &sw->lock, &until);
    }
    pthread_mutex_unlock(&sw->lock);
    return status;
}

int hy_sweep_execute(hydae_sweep *sw, hydae_sweep_row_fn fn, void *user)
{
    long n = sw->plan.n_runs;
    pthread_t threads[SWEEP_MAX_THREADS];
    worker *workers[SWEEP_MAX_THREADS];
    int n_started = 0;
    for (int w = 0; w < sw->n_threads && w < n; w++) {
        workers[w] = new_worker(sw, w);
        if (!workers[w] || pthread_create(&threads[w], NULL, work, workers[w]) != 0) {
            hy_free(workers[w] ? workers[w]->block : NULL);
            break;
        }
        sw->n_started_threads = ++n_started;
    }
    int status = 0;
    if (n_started == 0)
        status = hy_sweep_fail(sw, HYDAE_ERR_NOMEM, "no thread could be started");
    else if (sw->rank == 0)
        status = deliver_in_order(sw, fn, user);
    for (int w = 0; w < n_started; w++) {
        pthread_join(threads[w], NULL);
        hy_free(workers[w]->block);
    }
    /* Stopped: the rows done after a gap. */
    pthread_mutex_lock(&sw->lock);
    for (long i = sw->n_delivered; sw->rank == 0 && n_started > 0 && i < n; i++) {
        sw->n_delivered = i;
        if (sw->rows[i].done && deliver(sw, fn, user) != 0 && status == 0)
            status = HYDAE_ERR_CALLBACK;
    }
    pthread_mutex_unlock(&sw->lock);
    sw->stopped = atomic_load(&sw->stopping);
    if (status == 0 && sw->stopped)
        status = HYDAE_INTERRUPTED;
    return status;
}
