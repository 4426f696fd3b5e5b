/*
** `hydae sweep MODEL.hym`: many runs of one compiled model over a grid or a
** sample of its parameters (sweep_plan.c), on N threads, each run a sim of
** the shared model with its own parameters (hydae_sim_set_param; docs/
** engine.md, "Threads"). Threads take the next run from one counter
** (dynamic balancing: runs differ in cost when events differ); measures
** are computed on the fly from a row sink and the fired-transition hook,
** no trajectory is kept; the main thread writes the table's rows in run
** order as they complete, with a progress line on a terminal. A failed run
** is a row with its message. SIGINT / SIGTERM: the runs going are
** interrupted, the rows done are written, then a final comment line.
**
** integral(x) is the trapezoid rule over the output rows (grid, event and
** step rows, NaN segments skipped), so its accuracy is that of the
** output grid (dt), not of the integrator.
*/
#define _POSIX_C_SOURCE 200809L /* clock_gettime, sigaction */
#include "cli.h"
#include "sweep.h"
#include "io/columns.h"

#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t caught_signal;

static void on_signal(int signal_number)
{
    caught_signal = signal_number;
}

static double now_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
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

/* Run i into row: a sim of the shared model, its parameters its own. */
static void run_one(sweep *sw, int worker, long i, sweep_row *row)
{
    const sweep_plan *plan = &sw->plan;
    int n_columns = hydae_model_n_columns(sw->model);
    double params[SWEEP_MAX_PARAMS];
    sweep_run_values(plan, i, params);
    run_measures rm = { plan, row->measures, n_columns, 0.0, NULL, 0 };
    rm.prev_copy = malloc(sizeof(double) * (size_t)(n_columns + 1));
    for (int k = 0; k < plan->n_measures; k++)
        row->measures[k] = plan->measures[k].kind == SWEEP_COUNT ? 0.0 : NAN;
    double started = now_seconds();
    int status = 0, ran = 0;
    hydae_sim *sim = hydae_sim_create(sw->model, &status);
    if (sim) {
        pthread_mutex_lock(&sw->lock);
        sw->running[worker] = sim;
        pthread_mutex_unlock(&sw->lock);
        status = rm.prev_copy ? hydae_sim_apply_experiment(sim) : HYDAE_ERR_NOMEM;
        for (int k = 0; k < plan->n_params && status == 0; k++)
            status = hydae_sim_set_param(sim, plan->params[k].name, params[k]);
        if (status == 0)
            status = hydae_sim_add_row_sink(sim, measure_row, &rm);
        if (status == 0)
            status = hydae_sim_set_fired_hook(sim, measure_fired, &rm);
        if (status == 0 && !atomic_load(&sw->stopping)) {
            status = hydae_sim_run(sim);
            ran = 1;
        }
    }
    hydae_stats stats;
    memset(&stats, 0, sizeof stats);
    if (sim)
        hydae_sim_get_stats(sim, &stats);
    row->steps = stats.n_steps;
    row->wall = now_seconds() - started;
    row->failed = status < 0;
    snprintf(row->status, sizeof row->status, "%s",
             status >= 0 ? "ok" : sim ? hydae_sim_errmsg(sim) : hydae_model_errmsg(sw->model));
    for (char *c = row->status; *c; c++) /* on one line: a row per run */
        *c = *c == '\n' || *c == '\r' ? ' ' : *c;
    pthread_mutex_lock(&sw->lock);
    sw->running[worker] = NULL;
    hydae_sim_free(sim);
    /* A run stopped by a signal (or not started) is not in the table. */
    int interrupted = status == HYDAE_INTERRUPTED || atomic_load(&sw->stopping);
    row->done = status < 0 ? !interrupted : ran;
    sw->n_done += row->done;
    sw->n_failed += row->done && row->failed;
    /* The writer wakes every 64 runs (and 10 times a second): waking it
    ** on every run of a tiny model costs more than the run. */
    if (sw->n_done % 64 == 0 || sw->n_done == sw->plan.n_runs)
        pthread_cond_signal(&sw->finished);
    pthread_mutex_unlock(&sw->lock);
    free(rm.prev_copy);
}

typedef struct worker_arg {
    sweep *sw;
    int index;
} worker_arg;

static void *work(void *arg)
{
    worker_arg *w = arg;
    sweep *sw = w->sw;
    for (;;) {
        if (atomic_load(&sw->stopping))
            break;
        long i = sw->rank == 0 ? atomic_fetch_add(&sw->next_run, 1) : sweep_mpi_take(sw);
        if (i < 0 || i >= sw->plan.n_runs)
            break;
        run_one(sw, w->index, i, &sw->rows[i]);
        if (sw->rank > 0 && sw->rows[i].done)
            sweep_mpi_send_row(sw, i);
    }
    return NULL;
}

static void write_header(const sweep *sw, FILE *out)
{
    fputs("run", out);
    for (int k = 0; k < sw->plan.n_params; k++) {
        fputc(',', out);
        hy_csv_write_text(out, sw->plan.params[k].name);
    }
    for (int k = 0; k < sw->plan.n_measures; k++) {
        fputc(',', out);
        hy_csv_write_text(out, sw->plan.measures[k].label);
    }
    fputs(",status,steps,wall_s\n", out);
}

/* Numbers with 17 significant digits: the table holds the doubles exactly. */
static void write_row(const sweep *sw, long i, FILE *out)
{
    const sweep_row *row = &sw->rows[i];
    double params[SWEEP_MAX_PARAMS];
    sweep_run_values(&sw->plan, i, params);
    fprintf(out, "%ld", i);
    for (int k = 0; k < sw->plan.n_params; k++)
        fprintf(out, ",%.17g", params[k]);
    for (int k = 0; k < sw->plan.n_measures; k++)
        fprintf(out, isnan(row->measures[k]) ? "," : ",%.17g", row->measures[k]);
    fputc(',', out);
    hy_csv_write_text(out, row->status);
    fprintf(out, ",%ld,%.6f\n", row->steps, row->wall);
}

static void show_progress(const sweep *sw, double started, long written)
{
    double elapsed = now_seconds() - started;
    double left = sw->n_done > 0 ? elapsed * (double)(sw->plan.n_runs - sw->n_done)
                                       / (double)sw->n_done
                                 : NAN;
    fprintf(stderr, "\rhydae sweep: %ld/%ld runs, %ld failed, ETA %.0f s   ", written,
            sw->plan.n_runs, sw->n_failed, isnan(left) ? 0.0 : left);
}

/* The main thread of rank 0: rows in run order as they complete (and, under
** MPI, the other ranks' requests and rows until each has been told there
** are no runs left); a signal stops the runs. The number of rows written. */
static long write_in_order(sweep *sw, FILE *out, int progress)
{
    long written = 0, wait_ns = sw->n_ranks > 1 ? 1000000L : 100000000L;
    int n_told = 0;
    double started = now_seconds();
    pthread_mutex_lock(&sw->lock);
    while (written < sw->plan.n_runs || (n_told < sw->n_ranks - 1 && !sw->stopping)) {
        if (sw->n_ranks > 1)
            n_told += sweep_mpi_serve(sw);
        if (caught_signal && !atomic_load(&sw->stopping)) {
            atomic_store(&sw->stopping, 1);
            for (int w = 0; w < sw->n_threads; w++)
                if (sw->running[w])
                    hydae_sim_interrupt(sw->running[w]);
        }
        if (written < sw->plan.n_runs && sw->rows[written].done) {
            write_row(sw, written++, out);
            if (progress)
                show_progress(sw, started, written);
            continue;
        }
        if (atomic_load(&sw->stopping))
            break;
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_nsec += wait_ns; /* the signal flag 10 times a second, MPI 1000 */
        if (until.tv_nsec >= 1000000000L) {
            until.tv_sec++;
            until.tv_nsec -= 1000000000L;
        }
        pthread_cond_timedwait(&sw->finished, &sw->lock, &until);
    }
    pthread_mutex_unlock(&sw->lock);
    return written;
}

static void usage(FILE *out)
{
    fputs("usage: hydae sweep MODEL.hym (--grid NAME=START:STEP:STOP | --grid NAME=V1,V2,...)...\n"
          "       hydae sweep MODEL.hym --sample N (--dist NAME=normal(MEAN,SD) |\n"
          "                   --dist NAME=uniform(LOW,HIGH))... [--seed S] [--lhs]\n"
          "options: --measure M[,M...] (NAME or final(NAME), max(NAME), min(NAME),\n"
          "         integral(NAME), count(TRANSITION), first(TRANSITION); default: the\n"
          "         final value of every result column), -o TABLE.csv (default: standard\n"
          "         output), --threads N (default: every core), --quiet. docs/sweep.md\n",
          out);
}

/* The options into sw (the model loaded first: measures name its
** columns). 0, or the exit status. */
static int parse_options(sweep *sw, int argc, char **argv, const char **out_path, int *quiet)
{
    const char *measures = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *value = i + 1 < argc ? argv[i + 1] : NULL;
        int takes_value = strcmp(a, "--lhs") != 0 && strcmp(a, "--quiet") != 0;
        if (takes_value && !value) {
            fprintf(stderr, "hydae sweep: %s needs a value\n", a);
            return 2;
        }
        char *end = NULL;
        int bad = 0;
        if (strcmp(a, "--grid") == 0)
            bad = sweep_add_grid(&sw->plan, value);
        else if (strcmp(a, "--dist") == 0)
            bad = sweep_add_dist(&sw->plan, value);
        else if (strcmp(a, "--measure") == 0)
            bad = (measures = value) == NULL || sweep_add_measures(&sw->plan, sw->model, value);
        else if (strcmp(a, "-o") == 0)
            *out_path = value;
        else if (strcmp(a, "--sample") == 0)
            bad = (sw->plan.n_runs = strtol(value, &end, 10)) <= 0 || *end;
        else if (strcmp(a, "--seed") == 0)
            sw->plan.seed = strtoull(value, &end, 10), bad = *end != '\0' || *value == '-';
        else if (strcmp(a, "--threads") == 0)
            bad = (sw->n_threads = (int)strtol(value, &end, 10)) <= 0 || *end
                  || sw->n_threads > SWEEP_MAX_THREADS;
        else if (strcmp(a, "--lhs") == 0)
            sw->plan.lhs = 1;
        else if (strcmp(a, "--quiet") == 0)
            *quiet = 1;
        else {
            fprintf(stderr, "hydae sweep: unknown option '%s'\n", a);
            usage(stderr);
            return 2;
        }
        if (bad) {
            if (end)
                fprintf(stderr, "hydae sweep: %s %s: not a valid value\n", a, value);
            return 2;
        }
        i += takes_value;
    }
    if (!measures && sweep_default_measures(&sw->plan, sw->model))
        return 2;
    return sweep_plan_finish(&sw->plan) ? 2 : 0;
}

/* Every parameter is one the sim takes (a message naming it otherwise). */
static int check_params(sweep *sw)
{
    hydae_sim *probe = hydae_sim_create(sw->model, NULL);
    int status = probe ? 0 : 2;
    for (int k = 0; k < sw->plan.n_params && status == 0; k++)
        if (hydae_sim_set_param(probe, sw->plan.params[k].name, 0.0)) {
            fprintf(stderr, "hydae sweep: %s\n", hydae_sim_errmsg(probe));
            status = 2;
        }
    if (!probe)
        fprintf(stderr, "hydae sweep: %s\n", hydae_model_errmsg(sw->model));
    hydae_sim_free(probe);
    return status;
}

/* Threads started, rows written, threads joined: the exit status. */
static int run_sweep(sweep *sw, FILE *out, int quiet)
{
    long n = sw->plan.n_runs, n_measures = sw->plan.n_measures;
    sw->rows = calloc((size_t)n, sizeof *sw->rows);
    sw->measure_values = calloc((size_t)(n * n_measures + 1), sizeof *sw->measure_values);
    if (!sw->rows || !sw->measure_values) {
        fprintf(stderr, "hydae sweep: out of memory for %ld runs\n", n);
        return 2;
    }
    for (long i = 0; i < n; i++)
        sw->rows[i].measures = sw->measure_values + i * n_measures;
    if (sw->rank == 0)
        write_header(sw, out);
    struct sigaction action, old[2];
    memset(&action, 0, sizeof action);
    action.sa_handler = on_signal;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESETHAND;
    sigaction(SIGINT, &action, &old[0]);
    sigaction(SIGTERM, &action, &old[1]);
    pthread_t threads[SWEEP_MAX_THREADS];
    worker_arg args[SWEEP_MAX_THREADS];
    int n_started = 0;
    for (int w = 0; w < sw->n_threads && w < n; w++) {
        args[w] = (worker_arg){ sw, w };
        if (pthread_create(&threads[w], NULL, work, &args[w]) != 0)
            break;
        n_started++;
    }
    if (n_started == 0) {
        fprintf(stderr, "hydae sweep: no thread could be started\n");
        return 2;
    }
    int progress = sw->rank == 0 && !quiet && isatty(fileno(stderr));
    long written = sw->rank == 0 ? write_in_order(sw, out, progress) : 0;
    for (int w = 0; w < n_started; w++)
        pthread_join(threads[w], NULL);
    if (sw->rank > 0) { /* its rows went to rank 0 */
        sigaction(SIGINT, &old[0], NULL);
        sigaction(SIGTERM, &old[1], NULL);
        return caught_signal ? 130 : 0;
    }
    for (long i = written; i < n; i++) /* stopped: the rows done after a gap */
        if (sw->rows[i].done)
            write_row(sw, i, out), written++;
    sigaction(SIGINT, &old[0], NULL);
    sigaction(SIGTERM, &old[1], NULL);
    if (progress)
        fputc('\n', stderr);
    if (caught_signal)
        fprintf(out, "# hydae sweep: stopped by signal %d: %ld of %ld runs in the table\n",
                (int)caught_signal, written, n);
    if (!quiet)
        fprintf(stderr, "hydae sweep: %ld runs, %ld failed, %d threads%s\n", written,
                sw->n_failed, n_started, sw->n_ranks > 1 ? " on rank 0 (and MPI ranks)" : "");
    return caught_signal == SIGINT ? 130 : caught_signal ? 143 : sw->n_failed > 0;
}

int hy_cli_sweep(int argc, char **argv)
{
    if (argc < 1 || argv[0][0] == '-') {
        usage(argc >= 1 && strcmp(argv[0], "--help") == 0 ? stdout : stderr);
        return argc >= 1 && strcmp(argv[0], "--help") == 0 ? 0 : 2;
    }
    static sweep sw; /* large (the running sims); one sweep per process */
    memset(&sw, 0, sizeof sw);
    char *diagnostics = NULL;
    sw.model = hydae_model_load_file(argv[0], &diagnostics, NULL);
    if (diagnostics)
        fputs(diagnostics, stderr);
    hydae_string_free(diagnostics);
    if (!sw.model)
        return 2;
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    sw.n_threads = cores > 0 ? (int)(cores < SWEEP_MAX_THREADS ? cores : SWEEP_MAX_THREADS) : 1;
    const char *out_path = NULL;
    int quiet = 0;
    int status = parse_options(&sw, argc, argv, &out_path, &quiet);
    if (status == 0)
        status = check_params(&sw);
    if (status == 0 && sweep_mpi_start(&sw) != 0)
        status = 2;
    FILE *out = status || sw.rank > 0 || !out_path || strcmp(out_path, "-") == 0 ? stdout
                                                                 : fopen(out_path, "w");
    if (status == 0 && !out) {
        fprintf(stderr, "hydae sweep: cannot write '%s'\n", out_path);
        status = 2;
    }
    if (status == 0) {
        pthread_mutex_init(&sw.lock, NULL);
        pthread_cond_init(&sw.finished, NULL);
        status = run_sweep(&sw, out, quiet);
        pthread_cond_destroy(&sw.finished);
        pthread_mutex_destroy(&sw.lock);
    }
    if (out && out != stdout && fclose(out) != 0 && status == 0) {
        fprintf(stderr, "hydae sweep: error writing '%s'\n", out_path);
        status = 2;
    }
    sweep_mpi_end(&sw, caught_signal != 0);
    free(sw.rows);
    free(sw.measure_values);
    sweep_plan_free(&sw.plan);
    hydae_model_free(sw.model);
    return status;
}
