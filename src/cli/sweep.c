/*
** `hydae sweep MODEL.hym`: the command line over the library's parameter
** studies (hydae_sweep_*, src/sweep/): the options into a sweep, the table
** written as the rows come (CSV, in run order) or at the end (MAT, by the
** extension of -o), each run's result in a folder (--runs-dir), a
** progress line on a terminal, and MPI between processes (sweep_mpi.c).
** SIGINT / SIGTERM: the runs going are interrupted, the rows done are
** written, then (CSV) a final comment line.
*/
#define _POSIX_C_SOURCE 200809L /* sigaction */
#include "cli.h"
#include "sweep.h"

#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t caught_signal;
static hydae_sweep *signalled_sweep; /* the one sweep of the process */

static void on_signal(int signal_number)
{
    caught_signal = signal_number;
    hydae_sweep_interrupt(signalled_sweep);
}

static double now_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

typedef struct sweep_options {
    const char *out_path;
    int quiet, mat, lhs, sampled;
    long n_samples;
    uint64_t seed;
    const char *runs_dir, *runs_format;
} sweep_options;

/* The table as the rows come. */
typedef struct table_writer {
    hydae_sweep *sw;
    FILE *out;               /* CSV rows, NULL for MAT */
    int progress;
    double started;
    long n_written;
} table_writer;

static void show_progress(const table_writer *tw)
{
    const hydae_sweep *sw = tw->sw;
    double elapsed = now_seconds() - tw->started;
    double left = sw->n_done > 0 ? elapsed * (double)(sw->plan.n_runs - sw->n_done)
                                       / (double)sw->n_done
                                 : NAN;
    fprintf(stderr, "\rhydae sweep: %ld/%ld runs, %ld failed, ETA %.0f s   ", tw->n_written,
            sw->plan.n_runs, sw->n_failed, isnan(left) ? 0.0 : left);
}

static int on_row(void *user, const hydae_sweep_row *row)
{
    table_writer *tw = user;
    if (tw->out)
        hy_sweep_csv_row(tw->sw, row, tw->out);
    tw->n_written++;
    if (tw->progress)
        show_progress(tw);
    return 0;
}

static void usage(FILE *out)
{
    fputs("usage: hydae sweep MODEL.hym (--grid NAME=START:STEP:STOP | --grid NAME=V1,V2,...)...\n"
          "       hydae sweep MODEL.hym --sample N (--dist NAME=normal(MEAN,SD) |\n"
          "                   --dist NAME=uniform(LOW,HIGH))... [--seed S] [--lhs]\n"
          "options: --measure M[,M...] (NAME or final(NAME), max(NAME), min(NAME),\n"
          "         integral(NAME), count(TRANSITION), first(TRANSITION); default: the\n"
          "         final value of every result column), -o TABLE.csv or TABLE.mat\n"
          "         (default: CSV on standard output), --threads N (default: every\n"
          "         core), --runs-dir DIR (each run's result there, run_N.csv) with\n"
          "         --runs-format csv|mat, --quiet. docs/sweep.md\n",
          out);
}

/* One option of the plan into sw: 0, or -1 with the message printed. */
static int plan_option(hydae_sweep *sw, const char *a, const char *value)
{
    int status = 0;
    if (strcmp(a, "--grid") == 0)
        status = hydae_sweep_add_grid_spec(sw, value);
    else if (strcmp(a, "--dist") == 0)
        status = hydae_sweep_add_dist(sw, value);
    else if (strcmp(a, "--measure") == 0)
        status = hydae_sweep_add_measures(sw, value);
    if (status)
        fprintf(stderr, "hydae sweep: %s\n", hydae_sweep_errmsg(sw));
    return status ? -1 : 0;
}

/* The options into sw and opt (the model loaded first: measures name its
** columns). 0, or the exit status. */
static int parse_options(hydae_sweep *sw, int argc, char **argv, sweep_options *opt)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *value = i + 1 < argc ? argv[i + 1] : NULL;
        int takes_value = strcmp(a, "--lhs") != 0 && strcmp(a, "--quiet") != 0;
        if (takes_value && !value) {
            fprintf(stderr, "hydae sweep: %s needs a value\n", a);
            return 2;
        }
        char *end = NULL;
        int bad = 0, n_threads = 0;
        if (strcmp(a, "--grid") == 0 || strcmp(a, "--dist") == 0 || strcmp(a, "--measure") == 0)
            bad = plan_option(sw, a, value);
        else if (strcmp(a, "-o") == 0)
            opt->out_path = value;
        else if (strcmp(a, "--sample") == 0)
            bad = (opt->n_samples = strtol(value, &end, 10)) <= 0 || *end, opt->sampled = 1;
        else if (strcmp(a, "--seed") == 0)
            opt->seed = strtoull(value, &end, 10), bad = *end != '\0' || *value == '-';
        else if (strcmp(a, "--threads") == 0)
            bad = (n_threads = (int)strtol(value, &end, 10)) <= 0 || *end
                  || hydae_sweep_set_threads(sw, n_threads) != 0;
        else if (strcmp(a, "--runs-dir") == 0)
            opt->runs_dir = value;
        else if (strcmp(a, "--runs-format") == 0)
            opt->runs_format = value;
        else if (strcmp(a, "--lhs") == 0)
            opt->lhs = 1;
        else if (strcmp(a, "--quiet") == 0)
            opt->quiet = 1;
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
    int status = 0;
    if (opt->sampled)
        status = hydae_sweep_set_samples(sw, opt->n_samples, opt->seed, opt->lhs);
    else
        sw->plan.lhs = opt->lhs; /* refused by the plan: --lhs goes with --sample */
    if (!status && (opt->runs_dir || opt->runs_format))
        status = opt->runs_dir ? hydae_sweep_set_runs_dir(sw, opt->runs_dir,
                                                          opt->runs_format ? opt->runs_format
                                                                           : "csv")
                               : hy_sweep_fail(sw, HYDAE_ERR_ARG, "--runs-format goes with "
                                               "--runs-dir");
    if (!status)
        status = hydae_sweep_prepare(sw);
    if (status)
        fprintf(stderr, "hydae sweep: %s\n", hydae_sweep_errmsg(sw));
    const char *dot = opt->out_path ? strrchr(opt->out_path, '.') : NULL;
    opt->mat = dot && strcmp(dot, ".mat") == 0;
    return status ? 2 : 0;
}

/* Signals caught, the runs made, the table written: the exit status. */
static int run_sweep(hydae_sweep *sw, FILE *out, const sweep_options *opt)
{
    table_writer tw = { sw, opt->mat ? NULL : out, 0, now_seconds(), 0 };
    tw.progress = sw->rank == 0 && !opt->quiet && isatty(fileno(stderr));
    if (sw->rank == 0 && !opt->mat)
        hy_sweep_csv_header(sw, out);
    struct sigaction action, old[2];
    memset(&action, 0, sizeof action);
    action.sa_handler = on_signal;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESETHAND;
    signalled_sweep = sw;
    sigaction(SIGINT, &action, &old[0]);
    sigaction(SIGTERM, &action, &old[1]);
    int status = hydae_sweep_run(sw, on_row, &tw);
    sigaction(SIGINT, &old[0], NULL);
    sigaction(SIGTERM, &old[1], NULL);
    if (status < 0 && status != HYDAE_INTERRUPTED) {
        fprintf(stderr, "hydae sweep: %s\n", hydae_sweep_errmsg(sw));
        return 2;
    }
    if (sw->rank > 0) /* its rows went to rank 0 */
        return caught_signal ? 130 : 0;
    if (tw.progress)
        fputc('\n', stderr);
    if (opt->mat && hydae_sweep_write_mat(sw, out) != 0)
        return 2; /* the caller's fclose says so */
    if (caught_signal && !opt->mat)
        fprintf(out, "# hydae sweep: stopped by signal %d: %ld of %ld runs in the table\n",
                (int)caught_signal, tw.n_written, sw->plan.n_runs);
    if (!opt->quiet)
        fprintf(stderr, "hydae sweep: %ld runs, %ld failed, %d threads%s\n", tw.n_written,
                sw->n_failed, sw->n_started_threads,
                sw->n_ranks > 1 ? " on rank 0 (and MPI ranks)" : "");
    return caught_signal == SIGINT ? 130 : caught_signal ? 143 : sw->n_failed > 0;
}

int hy_cli_sweep(int argc, char **argv)
{
    if (argc < 1 || argv[0][0] == '-') {
        usage(argc >= 1 && strcmp(argv[0], "--help") == 0 ? stdout : stderr);
        return argc >= 1 && strcmp(argv[0], "--help") == 0 ? 0 : 2;
    }
    char *diagnostics = NULL;
    hydae_model *model = hydae_model_load_file(argv[0], &diagnostics, NULL);
    if (diagnostics)
        fputs(diagnostics, stderr);
    hydae_string_free(diagnostics);
    if (!model)
        return 2;
    hydae_sweep *sw = hydae_sweep_create(model);
    sweep_options opt = { 0 };
    int status = sw ? parse_options(sw, argc, argv, &opt) : 2;
    if (status == 0 && sweep_mpi_start(sw) != 0)
        status = 2;
    int to_stdout = !opt.out_path || strcmp(opt.out_path, "-") == 0;
    FILE *out = status || sw->rank > 0 || to_stdout ? stdout
                                                    : fopen(opt.out_path, opt.mat ? "wb" : "w");
    if (status == 0 && !out) {
        fprintf(stderr, "hydae sweep: cannot write '%s'\n", opt.out_path);
        status = 2;
    }
    if (status == 0)
        status = run_sweep(sw, out, &opt);
    if (out && out != stdout && fclose(out) != 0 && status == 0) {
        fprintf(stderr, "hydae sweep: error writing '%s'\n", opt.out_path);
        status = 2;
    }
    if (sw)
        sweep_mpi_end(sw, caught_signal != 0);
    signalled_sweep = NULL;
    hydae_sweep_free(sw);
    hydae_model_free(model);
    return status;
}
