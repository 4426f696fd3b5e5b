/*
** bench_sparse: hydae's sparse and band linear algebra against SUNDIALS'
** (issue 12's benchmark).
**
** 1. The 1-D Brusselator (examples/brusselator.c) with M = 10^3 ... 10^6
**    grid points (2M unknowns), rtol = atol = 1e-6, t in [0, 10]:
**      DSTIFF (linear_solver klu, band, auto) vs IDA + KLU and IDA + band
**      VSTIFF (klu, band, auto)              vs CVODE BDF + KLU and + band
**    hydae runs the example through the public API (hydae_sim_*); SUNDIALS
**    the same equations written again (sparse_problems.c), with analytic
**    Jacobians on both sides. Every run is a child process of its own (this
**    program executed again with --child), so that its peak resident set
**    (ru_maxrss from wait4) is that configuration's alone; the child
**    measures the CPU time of its run (CLOCK_PROCESS_CPUTIME_ID) and sends
**    the counters and y(10) back through a pipe. Repetitions are
**    interleaved (every configuration once, then again) and the CPU time
**    reported is their median. Accuracy: the largest relative difference
**    of y(10) from a reference computed by CVODE + band at rtol = atol =
**    1e-10 (SUNDIALS, so independent of hydae).
** 2. Medical Akzo Nobel (MEDAKZO, Test Set for IVP Solvers, n = 400, band
**    half-width 2) in this process: DSTIFF vs IDA and VSTIFF vs CVODE, band
**    and KLU, at rtol = atol = 1e-4 ... 1e-10, hydae through its
**    integrators' descriptors with the pattern in hy_dae.pattern; mescd
**    against the test set's reference solution; CPU time the median over
**    interleaved batches of each run's mean over >= --mz-min-time.
**
** Ratios are hydae / SUNDIALS. "At equal accuracy" interpolates each
** SUNDIALS configuration's log(CPU) against its scd over the tolerances
** run, at the scd hydae reached, and takes the best; never extrapolated
** (n/a when hydae's scd is outside SUNDIALS' range).
**
** Usage: bench_sparse [--sizes LIST] [--reps LIST] [--rtols LIST]
**                     [--sundials-rtols LIST|none] [--ref-rtol X]
**                     [--configs LIST] [--csv FILE] [--no-medakzo]
**                     [--medakzo-only] [--mz-batches N] [--mz-min-time S]
** LISTs are comma-separated: --sizes 1e3,1e4 --reps 5,5 (one per size, or
** one for all; default 5 up to M = 10^4, 3 up to 10^5, 1 above)
** --configs DSTIFF/klu,IDA/KLU. Every configuration runs at --rtols
** (default 1e-6), the SUNDIALS ones also at --sundials-rtols (default
** 1e-5,1e-7) so that their CPU can be interpolated at hydae's accuracy;
** atol = rtol always.
*/
#define _POSIX_C_SOURCE 200809L
#define _DEFAULT_SOURCE

#include "bench.h"
#include "sparse_hydae.h"
#include "sparse_problems.h"
#include "sparse_sundials.h"
#include "sundials_solvers.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_SIZES 6
#define MAX_RTOLS 6
#define MAX_REPS 15

typedef enum side { SIDE_HYDAE, SIDE_SUNDIALS } side;
typedef enum family { FAM_DAE, FAM_ODE } family;

typedef struct config {
    const char *name;
    side side;
    family family;
    const char *integrator;     /* hydae */
    const char *linear_solver;  /* hydae: auto, band, klu */
    sp_method method;           /* SUNDIALS */
    sp_matrix matrix;
} config;

static const config configs[] = {
    {"DSTIFF/klu", SIDE_HYDAE, FAM_DAE, "DSTIFF", "klu", SP_IDA, SP_KLU},
    {"DSTIFF/band", SIDE_HYDAE, FAM_DAE, "DSTIFF", "band", SP_IDA, SP_BAND},
    {"DSTIFF/auto", SIDE_HYDAE, FAM_DAE, "DSTIFF", "auto", SP_IDA, SP_BAND},
    {"IDA/KLU", SIDE_SUNDIALS, FAM_DAE, NULL, NULL, SP_IDA, SP_KLU},
    {"IDA/band", SIDE_SUNDIALS, FAM_DAE, NULL, NULL, SP_IDA, SP_BAND},
    {"VSTIFF/klu", SIDE_HYDAE, FAM_ODE, "VSTIFF", "klu", SP_CVODE, SP_KLU},
    {"VSTIFF/band", SIDE_HYDAE, FAM_ODE, "VSTIFF", "band", SP_CVODE, SP_BAND},
    {"VSTIFF/auto", SIDE_HYDAE, FAM_ODE, "VSTIFF", "auto", SP_CVODE, SP_BAND},
    {"CVODE/KLU", SIDE_SUNDIALS, FAM_ODE, NULL, NULL, SP_CVODE, SP_KLU},
    {"CVODE/band", SIDE_SUNDIALS, FAM_ODE, NULL, NULL, SP_CVODE, SP_BAND},
};
#define N_CONFIGS ((int)(sizeof configs / sizeof configs[0]))
#define REFERENCE_CONFIG 9 /* CVODE/band */

static const config *find_config(const char *name)
{
    for (int c = 0; c < N_CONFIGS; c++)
        if (strcasecmp(configs[c].name, name) == 0)
            return &configs[c];
    return NULL;
}

static const char *family_name(family f)
{
    return f == FAM_DAE ? "DSTIFF vs IDA" : "VSTIFF vs CVODE";
}

/* ------------------------------------------------------------------------
** One Brusselator run in a child process
*/

typedef struct child_record {
    int32_t status;
    char why[200];
    double cpu_solve;           /* the run, s */
    sp_phases phases;           /* hydae: model building, memory by phase */
    sp_counters counters;
    int64_t n;                  /* values of y(t_end) that follow */
} child_record;

static int write_all(int fd, const void *data, size_t size)
{
    const char *p = data;
    while (size > 0) {
        ssize_t done = write(fd, p, size);
        if (done < 0 && errno == EINTR)
            continue;
        if (done <= 0)
            return -1;
        p += done;
        size -= (size_t)done;
    }
    return 0;
}

static int read_all(int fd, void *data, size_t size)
{
    char *p = data;
    while (size > 0) {
        ssize_t done = read(fd, p, size);
        if (done < 0 && errno == EINTR)
            continue;
        if (done <= 0)
            return -1;
        p += done;
        size -= (size_t)done;
    }
    return 0;
}

/* --child M CONFIG RTOL ATOL: the run, its record and y(10) to stdout.
** CONFIG "none" runs nothing (the process' own baseline). */
static int child_main(int argc, char **argv)
{
    if (argc != 6) {
        fprintf(stderr, "bench_sparse --child M CONFIG RTOL ATOL\n");
        return 2;
    }
    long m = (long)strtod(argv[2], NULL);
    double rtol = strtod(argv[4], NULL), atol = strtod(argv[5], NULL);
    child_record rec;
    memset(&rec, 0, sizeof rec);
    double *y = NULL;
    if (strcmp(argv[3], "none") != 0) {
        const config *cfg = find_config(argv[3]);
        if (!cfg || m < 1) {
            fprintf(stderr, "bench_sparse --child: bad configuration %s or M %s\n", argv[3],
                    argv[2]);
            return 2;
        }
        rec.n = 2 * (int64_t)m;
        y = calloc((size_t)rec.n, sizeof(double));
        if (!y)
            return 3;
        if (cfg->side == SIDE_HYDAE) {
            rec.status = sp_hydae_brusselator_solve(m, cfg->integrator, cfg->linear_solver,
                                                    rtol, atol, y, &rec.counters, &rec.phases,
                                                    rec.why, sizeof rec.why);
            rec.cpu_solve = rec.phases.cpu_solve;
        } else {
            sp_problem p;
            SUNContext ctx = NULL;
            if (sp_brusselator_create(&p, m) || SUNContext_Create(NULL, &ctx))
                return 3;
            double start = sp_cpu_seconds();
            rec.status = sp_sundials_solve(ctx, &p, cfg->method, cfg->matrix, rtol, atol, y,
                                           &rec.counters, rec.why, sizeof rec.why);
            rec.cpu_solve = sp_cpu_seconds() - start;
            SUNContext_Free(&ctx);
            sp_problem_free(&p);
        }
    }
    int failed = write_all(STDOUT_FILENO, &rec, sizeof rec)
                 || (rec.n > 0 && write_all(STDOUT_FILENO, y, (size_t)rec.n * sizeof(double)));
    free(y);
    return failed ? 4 : 0;
}

/* Run one configuration in a child; y (2m values) filled on success.
** *peak_kb: the child's ru_maxrss. 0, or -1 with rec->why set. */
static int spawn_run(long m, const char *cfg_name, double rtol, double atol, child_record *rec,
                     double *y, long *peak_kb)
{
    memset(rec, 0, sizeof *rec);
    *peak_kb = 0;
    int fds[2];
    if (pipe(fds) != 0) {
        snprintf(rec->why, sizeof rec->why, "pipe: %s", strerror(errno));
        return -1;
    }
    char arg_m[32], arg_rtol[32], arg_atol[32];
    snprintf(arg_m, sizeof arg_m, "%ld", m);
    snprintf(arg_rtol, sizeof arg_rtol, "%.17g", rtol);
    snprintf(arg_atol, sizeof arg_atol, "%.17g", atol);
    char *child_argv[] = {"bench_sparse", "--child", arg_m, (char *)cfg_name, arg_rtol,
                          arg_atol, NULL};
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        close(fds[0]);
        close(fds[1]);
        snprintf(rec->why, sizeof rec->why, "fork: %s", strerror(errno));
        return -1;
    }
    if (pid == 0) {
        close(fds[0]);
        if (dup2(fds[1], STDOUT_FILENO) < 0)
            _exit(126);
        close(fds[1]);
        execv("/proc/self/exe", child_argv);
        _exit(127);
    }
    close(fds[1]);
    int bad = read_all(fds[0], rec, sizeof *rec);
    if (!bad && rec->n > 0)
        bad = rec->n != 2 * (int64_t)m || read_all(fds[0], y, (size_t)rec->n * sizeof(double));
    close(fds[0]);
    int wstatus = 0;
    struct rusage ru;
    memset(&ru, 0, sizeof ru);
    while (wait4(pid, &wstatus, 0, &ru) < 0 && errno == EINTR)
        ;
    *peak_kb = ru.ru_maxrss;
    if (bad || !WIFEXITED(wstatus) || WEXITSTATUS(wstatus) != 0) {
        snprintf(rec->why, sizeof rec->why, "child %s failed (%s %d)", cfg_name,
                 WIFSIGNALED(wstatus) ? "signal" : "exit",
                 WIFSIGNALED(wstatus) ? WTERMSIG(wstatus) : WEXITSTATUS(wstatus));
        return -1;
    }
    return rec->status == 0 ? 0 : -1;
}

/* ------------------------------------------------------------------------
** Outcomes and the equal-accuracy comparison
*/

typedef struct outcome {
    int ran;                    /* configuration selected */
    int ok;                     /* every repetition reached t_end */
    char why[200];
    double cpu[MAX_REPS];
    int n_cpu;
    double cpu_median, cpu_min, cpu_max;
    sp_phases phases;           /* hydae: model building, memory by phase */
    long peak_kb;               /* largest over the repetitions */
    sp_counters c;
    double err;                 /* max_i |y_i - ref_i| / |ref_i| */
    double scd;                 /* -log10(err) */
} outcome;

static void finish_outcome(outcome *o)
{
    if (o->n_cpu == 0) {
        o->cpu_median = o->cpu_min = o->cpu_max = NAN;
        return;
    }
    double sorted[MAX_REPS];
    memcpy(sorted, o->cpu, (size_t)o->n_cpu * sizeof(double));
    o->cpu_median = bench_median(sorted, o->n_cpu);
    o->cpu_min = sorted[0];
    o->cpu_max = sorted[o->n_cpu - 1];
}

/* The SUNDIALS configuration of family f with the least CPU at the same
** tolerance (index), or -1. */
static int best_sundials(const outcome *row, family f)
{
    int best = -1;
    for (int c = 0; c < N_CONFIGS; c++)
        if (configs[c].side == SIDE_SUNDIALS && configs[c].family == f && row[c].ok
            && (best < 0 || row[c].cpu_median < row[best].cpu_median))
            best = c;
    return best;
}

/* The least CPU any SUNDIALS configuration of family f needs for scd x,
** interpolated over its tolerances (out[n_rtols][N_CONFIGS]); NaN when x
** is outside every configuration's range. *which: that configuration. */
static double sundials_cpu_at(const outcome (*out)[N_CONFIGS], int n_rtols, family f,
                              double x, int *which)
{
    double best = NAN;
    *which = -1;
    for (int c = 0; c < N_CONFIGS; c++) {
        if (configs[c].side != SIDE_SUNDIALS || configs[c].family != f)
            continue;
        bench_curve curve = {0};
        for (int r = 0; r < n_rtols; r++)
            if (out[r][c].ok)
                bench_curve_add(&curve, out[r][c].scd, out[r][c].cpu_median);
        int extrapolated = 1;
        double cpu = NAN;
        if (curve.n == 1 && x == curve.scd[0]) {
            cpu = exp(curve.log_work[0]);
            extrapolated = 0;
        } else if (curve.n >= 2) {
            cpu = bench_curve_work_at(&curve, x, BENCH_EXTRAP_END_SEGMENT, &extrapolated);
        }
        if (!extrapolated && isfinite(cpu) && (isnan(best) || cpu < best)) {
            best = cpu;
            *which = c;
        }
    }
    return best;
}

/* ------------------------------------------------------------------------
** Settings
*/

typedef struct settings {
    long sizes[MAX_SIZES];
    int n_sizes;
    int reps[MAX_SIZES];
    double rtols[MAX_RTOLS];    /* --rtols, then --sundials-rtols */
    int sundials_only[MAX_RTOLS];
    int n_rtols;
    double ref_rtol;
    int selected[N_CONFIGS];
    const char *csv_path;
    int brusselator, medakzo;
    int mz_batches;
    double mz_min_time;
} settings;

/* Split a comma-separated list of numbers; the count, or -1. */
static int parse_numbers(const char *text, double *out, int max)
{
    int count = 0;
    const char *p = text;
    while (*p) {
        char *end;
        errno = 0;
        double v = strtod(p, &end);
        if (end == p || errno || count >= max || !(v > 0.0))
            return -1;
        out[count++] = v;
        if (*end == ',')
            end++;
        else if (*end)
            return -1;
        p = end;
    }
    return count;
}

static int parse_settings(int argc, char **argv, settings *s)
{
    memset(s, 0, sizeof *s);
    static const long default_sizes[] = {1000, 10000, 100000, 1000000};
    static const int default_reps[] = {5, 5, 3, 1};
    s->n_sizes = 4;
    for (int k = 0; k < 4; k++) {
        s->sizes[k] = default_sizes[k];
        s->reps[k] = default_reps[k];
    }
    /* hydae at 1e-6; SUNDIALS at 1e-5 and 1e-7 too, for the comparison at
    ** equal accuracy */
    s->n_rtols = 3;
    s->rtols[0] = 1e-6;
    s->rtols[1] = 1e-5;
    s->rtols[2] = 1e-7;
    s->sundials_only[1] = s->sundials_only[2] = 1;
    s->ref_rtol = 1e-10;
    for (int c = 0; c < N_CONFIGS; c++)
        s->selected[c] = 1;
    s->brusselator = s->medakzo = 1;
    s->mz_batches = 5;
    s->mz_min_time = 0.1;
    double values[MAX_SIZES > MAX_RTOLS ? MAX_SIZES : MAX_RTOLS];
    int reps_given = 0, n_reps = 0, reps[MAX_SIZES];
    double main_rtols[MAX_RTOLS], extra_rtols[MAX_RTOLS];
    int n_main = 1, n_extra = 2;
    main_rtols[0] = 1e-6;
    extra_rtols[0] = 1e-5;
    extra_rtols[1] = 1e-7;
    for (int i = 1; i < argc; i++) {
        const char *opt = argv[i], *arg = i + 1 < argc ? argv[i + 1] : NULL;
        int n;
        if (strcmp(opt, "--no-medakzo") == 0) {
            s->medakzo = 0;
            continue;
        }
        if (strcmp(opt, "--medakzo-only") == 0) {
            s->brusselator = 0;
            continue;
        }
        if (!arg) {
            fprintf(stderr, "bench_sparse: %s needs a value (or is unknown)\n", opt);
            return -1;
        }
        i++;
        if (strcmp(opt, "--sizes") == 0) {
            if ((n = parse_numbers(arg, values, MAX_SIZES)) < 1)
                goto bad;
            s->n_sizes = n;
            for (int k = 0; k < n; k++)
                s->sizes[k] = (long)values[k];
        } else if (strcmp(opt, "--reps") == 0) {
            if ((n = parse_numbers(arg, values, MAX_SIZES)) < 1)
                goto bad;
            reps_given = 1;
            n_reps = n;
            for (int k = 0; k < n; k++) {
                reps[k] = (int)values[k];
                if (reps[k] < 1 || reps[k] > MAX_REPS)
                    goto bad;
            }
        } else if (strcmp(opt, "--rtols") == 0) {
            if ((n_main = parse_numbers(arg, main_rtols, MAX_RTOLS)) < 1)
                goto bad;
        } else if (strcmp(opt, "--sundials-rtols") == 0) {
            if (strcmp(arg, "none") == 0)
                n_extra = 0;
            else if ((n_extra = parse_numbers(arg, extra_rtols, MAX_RTOLS)) < 1)
                goto bad;
        } else if (strcmp(opt, "--ref-rtol") == 0) {
            if (parse_numbers(arg, values, 1) != 1)
                goto bad;
            s->ref_rtol = values[0];
        } else if (strcmp(opt, "--configs") == 0) {
            memset(s->selected, 0, sizeof s->selected);
            char list[512];
            snprintf(list, sizeof list, "%s", arg);
            for (char *save = NULL, *name = strtok_r(list, ",", &save); name;
                 name = strtok_r(NULL, ",", &save)) {
                const config *cfg = find_config(name);
                if (!cfg)
                    goto bad;
                s->selected[cfg - configs] = 1;
            }
        } else if (strcmp(opt, "--csv") == 0) {
            s->csv_path = arg;
        } else if (strcmp(opt, "--mz-batches") == 0) {
            if (parse_numbers(arg, values, 1) != 1 || values[0] > MAX_REPS)
                goto bad;
            s->mz_batches = (int)values[0];
        } else if (strcmp(opt, "--mz-min-time") == 0) {
            if (parse_numbers(arg, values, 1) != 1)
                goto bad;
            s->mz_min_time = values[0];
        } else {
            fprintf(stderr, "bench_sparse: unknown option %s\n", opt);
            return -1;
        }
        continue;
    bad:
        fprintf(stderr, "bench_sparse: bad value for %s: %s\n", opt, arg);
        return -1;
    }
    if (n_main + n_extra > MAX_RTOLS) {
        fprintf(stderr, "bench_sparse: at most %d tolerances in all\n", MAX_RTOLS);
        return -1;
    }
    s->n_rtols = n_main + n_extra;
    for (int r = 0; r < s->n_rtols; r++) {
        s->rtols[r] = r < n_main ? main_rtols[r] : extra_rtols[r - n_main];
        s->sundials_only[r] = r >= n_main;
    }
    if (reps_given) {
        if (n_reps != 1 && n_reps != s->n_sizes) {
            fprintf(stderr, "bench_sparse: --reps needs one value or one per size\n");
            return -1;
        }
        for (int k = 0; k < s->n_sizes; k++)
            s->reps[k] = reps[n_reps == 1 ? 0 : k];
    } else {
        for (int k = 0; k < s->n_sizes; k++)
            s->reps[k] = s->sizes[k] <= 10000 ? 5 : s->sizes[k] <= 100000 ? 3 : 1;
    }
    return 0;
}

/* ------------------------------------------------------------------------
** The Brusselator
*/

typedef struct size_result {
    long m;
    int reps;
    outcome out[MAX_RTOLS][N_CONFIGS];
    double ref_cpu;
    long ref_steps;
    long baseline_kb;
} size_result;

static double max_rel_diff(const double *y, const double *ref, size_t n)
{
    double worst = 0.0;
    for (size_t i = 0; i < n; i++) {
        double d = fabs(y[i] - ref[i]) / fabs(ref[i]);
        if (isnan(d))
            return INFINITY;
        if (d > worst)
            worst = d;
    }
    return worst;
}

static void print_counter(long v)
{
    if (v < 0)
        printf(" %7s", "-");
    else
        printf(" %7ld", v);
}

static void print_size_table(const settings *s, const size_result *sr)
{
    printf("\nM = %ld (n = %ld), %d repetition%s; accuracy against CVODE/band at rtol = atol = "
           "%.0e (%.2f s, %ld steps)\n",
           sr->m, 2 * sr->m, sr->reps, sr->reps == 1 ? "" : "s", s->ref_rtol, sr->ref_cpu,
           sr->ref_steps);
    printf("%-12s %6s %9s %17s %7s %7s %7s %7s %7s %7s %8s %9s %5s %7s %8s %8s\n", "config",
           "rtol", "CPU_s", "(min-max)", "steps", "f_evals", "jac", "LU", "newton", "rejects",
           "peak_MB", "max_rel", "scd", "build_s", "model_MB", "sim_MB");
    for (int r = 0; r < s->n_rtols; r++)
        for (int c = 0; c < N_CONFIGS; c++) {
            const outcome *o = &sr->out[r][c];
            if (!o->ran)
                continue;
            printf("%-12s %6.0e", configs[c].name, s->rtols[r]);
            if (!o->ok) {
                printf("  FAILED: %s\n", o->why);
                continue;
            }
            char range[40];
            snprintf(range, sizeof range, "(%.3g-%.3g)", o->cpu_min, o->cpu_max);
            printf(" %9.4g %17s", o->cpu_median, range);
            print_counter(o->c.n_steps);
            print_counter(o->c.n_f_evals);
            print_counter(o->c.n_jac_evals);
            print_counter(o->c.n_lu);
            print_counter(o->c.n_nl_iters);
            print_counter(o->c.n_rejected);
            printf(" %8.1f %9.2e %5.2f", (double)o->peak_kb / 1024.0, o->err, o->scd);
            if (configs[c].side == SIDE_HYDAE)
                printf(" %7.3f %8.1f %8.1f", o->phases.cpu_build,
                       (double)o->phases.rss_build_kb / 1024.0,
                       (double)o->phases.rss_create_kb / 1024.0);
            printf("\n");
        }
    printf("(empty child process: %.1f MB peak)\n", (double)sr->baseline_kb / 1024.0);
}

/* Per hydae configuration: CPU and memory against the best SUNDIALS
** configuration of its pairing, at the same tolerance and at equal scd. */
static void print_size_ratios(const settings *s, const size_result *sr)
{
    printf("ratios hydae / SUNDIALS (best of the pairing's SUNDIALS configurations):\n");
    printf("  %-12s %6s %-10s %9s %9s %-10s %12s %10s %12s %14s\n", "hydae", "rtol", "best_same",
           "CPU_same", "err_ratio", "best_eqacc", "CPU_eq_acc", "peak_best", "peak_same_LS",
           "same_LS_no_model");
    for (int r = 0; r < s->n_rtols; r++)
        for (int c = 0; c < N_CONFIGS; c++) {
            const outcome *o = &sr->out[r][c];
            if (configs[c].side != SIDE_HYDAE || !o->ok)
                continue;
            family f = configs[c].family;
            int b = best_sundials(sr->out[r], f);
            if (b < 0)
                continue;
            const outcome *ob = &sr->out[r][b];
            int which;
            double cpu_eq = sundials_cpu_at((const outcome(*)[N_CONFIGS])sr->out, s->n_rtols, f,
                                            o->scd, &which);
            /* the SUNDIALS configuration with the same matrix */
            const outcome *os = NULL;
            for (int k = 0; k < N_CONFIGS; k++)
                if (configs[k].side == SIDE_SUNDIALS && configs[k].family == f
                    && configs[k].matrix == configs[c].matrix && sr->out[r][k].ok)
                    os = &sr->out[r][k];
            printf("  %-12s %6.0e %-10s %9.3f %9.3g %-10s", configs[c].name, s->rtols[r],
                   configs[b].name, bench_ratio(o->cpu_median, ob->cpu_median),
                   bench_ratio(o->err, ob->err), which >= 0 ? configs[which].name : "n/a");
            if (which >= 0)
                printf(" %12.3f", bench_ratio(o->cpu_median, cpu_eq));
            else
                printf(" %12s", "n/a");
            /* without what building the model added to the process */
            double no_model = (double)(o->peak_kb - (o->phases.rss_build_kb - sr->baseline_kb));
            printf(" %10.2f %12.2f %14.2f\n",
                   bench_ratio((double)o->peak_kb, (double)ob->peak_kb),
                   os ? bench_ratio((double)o->peak_kb, (double)os->peak_kb) : NAN,
                   os ? bench_ratio(no_model, (double)os->peak_kb) : NAN);
        }
}

static void write_csv_rows(FILE *csv, const settings *s, const size_result *sr)
{
    for (int r = 0; r < s->n_rtols; r++)
        for (int c = 0; c < N_CONFIGS; c++) {
            const outcome *o = &sr->out[r][c];
            if (!o->ran)
                continue;
            fprintf(csv,
                    "BRUSS,%ld,%ld,%.0e,%s,%d,%.6g,%.6g,%.6g,%d,%.6g,%ld,%ld,%ld,%ld,%ld,%ld,%.3f,"
                    "%.6g,%.4f\n",
                    sr->m, 2 * sr->m, s->rtols[r], configs[c].name, o->ok, o->cpu_median,
                    o->cpu_min, o->cpu_max, o->n_cpu, o->phases.cpu_build, o->c.n_steps, o->c.n_f_evals,
                    o->c.n_jac_evals, o->c.n_lu, o->c.n_nl_iters, o->c.n_rejected,
                    (double)o->peak_kb / 1024.0, o->err, o->scd);
        }
}

static int run_size(const settings *s, int k, size_result *sr)
{
    const long m = s->sizes[k];
    const size_t n = 2 * (size_t)m;
    memset(sr, 0, sizeof *sr);
    sr->m = m;
    sr->reps = s->reps[k];
    double *ref = malloc(n * sizeof(double)), *y = malloc(n * sizeof(double));
    if (!ref || !y) {
        free(ref);
        free(y);
        return -1;
    }
    child_record rec;
    long peak_kb;
    spawn_run(m, "none", 1.0, 1.0, &rec, y, &sr->baseline_kb);
    fprintf(stderr, "M = %ld: reference (CVODE/band, rtol %.0e) ...\n", m, s->ref_rtol);
    if (spawn_run(m, configs[REFERENCE_CONFIG].name, s->ref_rtol, s->ref_rtol, &rec, ref,
                  &peak_kb)) {
        fprintf(stderr, "bench_sparse: the reference run failed at M = %ld: %s\n", m, rec.why);
        free(ref);
        free(y);
        return -1;
    }
    sr->ref_cpu = rec.cpu_solve;
    sr->ref_steps = rec.counters.n_steps;
    for (int r = 0; r < s->n_rtols; r++)
        for (int c = 0; c < N_CONFIGS; c++) {
            sr->out[r][c].ran = s->selected[c]
                                && (configs[c].side == SIDE_SUNDIALS || !s->sundials_only[r]);
            sr->out[r][c].ok = sr->out[r][c].ran;
        }
    for (int rep = 0; rep < sr->reps; rep++)
        for (int r = 0; r < s->n_rtols; r++)
            for (int c = 0; c < N_CONFIGS; c++) {
                outcome *o = &sr->out[r][c];
                if (!o->ran || !o->ok)
                    continue;
                fprintf(stderr, "M = %ld rep %d/%d: %s rtol %.0e ...", m, rep + 1, sr->reps,
                        configs[c].name, s->rtols[r]);
                int failed = spawn_run(m, configs[c].name, s->rtols[r], s->rtols[r], &rec, y,
                                       &peak_kb);
                fprintf(stderr, " %.3f s, %.1f MB\n", rec.cpu_solve, (double)peak_kb / 1024.0);
                if (failed) {
                    o->ok = 0;
                    snprintf(o->why, sizeof o->why, "%s", rec.why);
                    continue;
                }
                o->cpu[o->n_cpu++] = rec.cpu_solve;
                if (peak_kb > o->peak_kb)
                    o->peak_kb = peak_kb;
                if (rep == 0) {
                    o->c = rec.counters;
                    o->phases = rec.phases;
                    o->err = max_rel_diff(y, ref, n);
                    o->scd = -log10(o->err);
                } else if (rec.counters.n_steps != o->c.n_steps) {
                    fprintf(stderr, "bench_sparse: %s at M = %ld: %ld steps, first run %ld\n",
                            configs[c].name, m, rec.counters.n_steps, o->c.n_steps);
                }
            }
    for (int r = 0; r < s->n_rtols; r++)
        for (int c = 0; c < N_CONFIGS; c++)
            finish_outcome(&sr->out[r][c]);
    free(ref);
    free(y);
    return 0;
}

/* Across sizes: the best of each side per pairing, the targets, and the
** growth from the largest size but one to the largest. */
static void print_summary(const settings *s, const size_result *results, int n_done)
{
    printf("\nSummary (first tolerance, rtol = %.0e; the fastest hydae configuration of each "
           "pairing against the fastest SUNDIALS one; CPU_ratio at the same rtol, eq_acc at "
           "hydae's accuracy; SUN_MB: the SUNDIALS configuration with the same matrix, "
           "peak_min against the smallest SUNDIALS peak; targets: CPU <= 1.0 at equal "
           "accuracy, peak <= 1.5, CPU(10^6)/CPU(10^5) <= 12)\n",
           s->rtols[0]);
    printf("%-16s %8s %-12s %9s %9s %-11s %9s %9s %9s %10s %8s %8s %9s %9s\n", "pairing", "M",
           "best_hydae", "CPU_s", "err", "best_SUN", "CPU_s", "err", "CPU_ratio", "eq_acc",
           "peak_MB", "SUN_MB", "peak_same", "peak_min");
    for (int f = FAM_DAE; f <= FAM_ODE; f++)
        for (int k = 0; k < n_done; k++) {
            const outcome *row = results[k].out[0];
            int h = -1;
            for (int c = 0; c < N_CONFIGS; c++)
                if (configs[c].side == SIDE_HYDAE && configs[c].family == (family)f && row[c].ok
                    && (h < 0 || row[c].cpu_median < row[h].cpu_median))
                    h = c;
            int b = best_sundials(row, (family)f);
            if (h < 0 || b < 0)
                continue;
            int which;
            double cpu_eq = sundials_cpu_at((const outcome(*)[N_CONFIGS])results[k].out,
                                            s->n_rtols, (family)f, row[h].scd, &which);
            printf("%-16s %8ld %-12s %9.4g %9.2e %-11s %9.4g %9.2e %9.3f", family_name((family)f),
                   results[k].m, configs[h].name, row[h].cpu_median, row[h].err,
                   configs[b].name, row[b].cpu_median, row[b].err,
                   bench_ratio(row[h].cpu_median, row[b].cpu_median));
            if (which >= 0)
                printf(" %10.3f", bench_ratio(row[h].cpu_median, cpu_eq));
            else
                printf(" %10s", "n/a");
            /* peak against the pairing's SUNDIALS configuration with the same
            ** matrix, and against its smallest */
            long same_kb = 0, min_kb = 0;
            for (int c = 0; c < N_CONFIGS; c++) {
                if (configs[c].side != SIDE_SUNDIALS || configs[c].family != (family)f
                    || !row[c].ok)
                    continue;
                if (configs[c].matrix == configs[h].matrix)
                    same_kb = row[c].peak_kb;
                if (min_kb == 0 || row[c].peak_kb < min_kb)
                    min_kb = row[c].peak_kb;
            }
            printf(" %8.1f %8.1f %9.2f %9.2f\n", (double)row[h].peak_kb / 1024.0,
                   (double)same_kb / 1024.0, bench_ratio((double)row[h].peak_kb, (double)same_kb),
                   bench_ratio((double)row[h].peak_kb, (double)min_kb));
        }
    if (n_done < 2)
        return;
    const size_result *lo = &results[n_done - 2], *hi = &results[n_done - 1];
    printf("\nGrowth CPU(M = %ld) / CPU(M = %ld) (x%.0f unknowns), rtol = %.0e:\n", hi->m, lo->m,
           (double)hi->m / (double)lo->m, s->rtols[0]);
    for (int c = 0; c < N_CONFIGS; c++) {
        const outcome *a = &lo->out[0][c], *b = &hi->out[0][c];
        if (!a->ok || !b->ok)
            continue;
        printf("  %-12s %7.2f   (steps %ld -> %ld, peak %.0f -> %.0f MB)\n", configs[c].name,
               bench_ratio(b->cpu_median, a->cpu_median), a->c.n_steps, b->c.n_steps,
               (double)a->peak_kb / 1024.0, (double)b->peak_kb / 1024.0);
    }
}

/* ------------------------------------------------------------------------
** Medical Akzo Nobel
*/

typedef struct mz_config {
    const char *name;
    side side;
    family family;
    const char *integrator, *linear_solver;
    sp_method method;
    sp_matrix matrix;
} mz_config;

static const mz_config mz_configs[] = {
    {"DSTIFF/band", SIDE_HYDAE, FAM_DAE, "DSTIFF", "band", SP_IDA, SP_BAND},
    {"DSTIFF/klu", SIDE_HYDAE, FAM_DAE, "DSTIFF", "klu", SP_IDA, SP_KLU},
    {"IDA/band", SIDE_SUNDIALS, FAM_DAE, NULL, NULL, SP_IDA, SP_BAND},
    {"IDA/KLU", SIDE_SUNDIALS, FAM_DAE, NULL, NULL, SP_IDA, SP_KLU},
    {"VSTIFF/band", SIDE_HYDAE, FAM_ODE, "VSTIFF", "band", SP_CVODE, SP_BAND},
    {"VSTIFF/klu", SIDE_HYDAE, FAM_ODE, "VSTIFF", "klu", SP_CVODE, SP_KLU},
    {"CVODE/band", SIDE_SUNDIALS, FAM_ODE, NULL, NULL, SP_CVODE, SP_BAND},
    {"CVODE/KLU", SIDE_SUNDIALS, FAM_ODE, NULL, NULL, SP_CVODE, SP_KLU},
};
#define N_MZ ((int)(sizeof mz_configs / sizeof mz_configs[0]))
#define N_MZ_TOLS 7
static const double mz_rtols[N_MZ_TOLS] = {1e-4, 1e-5, 1e-6, 1e-7, 1e-8, 1e-9, 1e-10};

typedef struct mz_outcome {
    int ok;
    char why[200];
    sp_counters c;
    double mescd;
    double batch_cpu[MAX_REPS];
    double cpu_ms;              /* median of the batch means */
} mz_outcome;

static int mz_solve(const mz_config *cfg, const sp_problem *p, SUNContext ctx, double rtol,
                    double *y, sp_counters *c, char *why, size_t why_size)
{
    if (cfg->side == SIDE_HYDAE)
        return sp_hydae_ops_solve(hy_integrator_find(cfg->integrator), p, cfg->linear_solver,
                                  rtol, rtol, y, c, why, why_size);
    return sp_sundials_solve(ctx, p, cfg->method, cfg->matrix, rtol, rtol, y, c, why,
                             why_size);
}

/* The test set's mixed error with atol / rtol = 1 (every run here has
** atol = rtol): -log10 max_i |y_i - yref_i| / (1 + |yref_i|). */
static double mz_mescd(const double *y)
{
    double worst = 0.0;
    for (int i = 0; i < SP_MEDAKZO_N; i++) {
        double e = fabs(y[i] - sp_medakzo_reference[i]) / (1.0 + fabs(sp_medakzo_reference[i]));
        if (isnan(e))
            return -INFINITY;
        worst = fmax(worst, e);
    }
    return -log10(worst);
}

static void run_medakzo(const settings *s, FILE *csv)
{
    static mz_outcome out[N_MZ_TOLS][N_MZ];
    sp_problem p;
    if (sp_medakzo_create(&p)) {
        fprintf(stderr, "bench_sparse: out of memory (MEDAKZO)\n");
        return;
    }
    SUNContext ctx = bench_sundials_context();
    double y[SP_MEDAKZO_N];
    sp_counters scratch;
    char why[200];
    for (int r = 0; r < N_MZ_TOLS; r++)
        for (int c = 0; c < N_MZ; c++) {
            mz_outcome *o = &out[r][c];
            memset(o, 0, sizeof *o);
            o->ok = mz_solve(&mz_configs[c], &p, ctx, mz_rtols[r], y, &o->c, o->why,
                             sizeof o->why) == 0;
            o->mescd = o->ok ? mz_mescd(y) : NAN;
        }
    fprintf(stderr, "MEDAKZO: %d timing batches of >= %.2f s per run ...\n", s->mz_batches,
            s->mz_min_time);
    for (int b = 0; b < s->mz_batches; b++)
        for (int r = 0; r < N_MZ_TOLS; r++)
            for (int c = 0; c < N_MZ; c++) {
                mz_outcome *o = &out[r][c];
                if (!o->ok)
                    continue;
                long runs = 0;
                double start = sp_cpu_seconds(), elapsed;
                do {
                    mz_solve(&mz_configs[c], &p, ctx, mz_rtols[r], y, &scratch, why, sizeof why);
                    runs++;
                    elapsed = sp_cpu_seconds() - start;
                } while (elapsed < s->mz_min_time);
                o->batch_cpu[b] = 1e3 * elapsed / (double)runs;
            }
    for (int r = 0; r < N_MZ_TOLS; r++)
        for (int c = 0; c < N_MZ; c++)
            out[r][c].cpu_ms = out[r][c].ok ? bench_median(out[r][c].batch_cpu, s->mz_batches)
                                            : NAN;

    printf("\nMEDAKZO (Medical Akzo Nobel, Test Set for IVP Solvers, n = 400, ml = mu = 2, "
           "t in [0, 20]), rtol = atol;\nmescd against the test set's reference (atol/rtol = 1); "
           "CPU: median of %d interleaved batch means, each >= %.2f s of runs\n",
           s->mz_batches, s->mz_min_time);
    printf("%-12s %6s %9s %7s %7s %7s %7s %7s %7s %7s %6s\n", "config", "rtol", "CPU_ms",
           "steps", "f_evals", "jac", "LU", "newton", "etf", "ncf", "mescd");
    for (int r = 0; r < N_MZ_TOLS; r++)
        for (int c = 0; c < N_MZ; c++) {
            const mz_outcome *o = &out[r][c];
            printf("%-12s %6.0e", mz_configs[c].name, mz_rtols[r]);
            if (!o->ok) {
                printf("  FAILED: %s\n", o->why);
                continue;
            }
            printf(" %9.3f", o->cpu_ms);
            print_counter(o->c.n_steps);
            print_counter(o->c.n_f_evals);
            print_counter(o->c.n_jac_evals);
            print_counter(o->c.n_lu);
            print_counter(o->c.n_nl_iters);
            print_counter(o->c.n_err_fails);
            print_counter(o->c.n_conv_fails);
            printf(" %6.2f\n", o->mescd);
            if (csv)
                fprintf(csv, "MEDAKZO,200,400,%.0e,%s,1,%.6g,,,%d,,%ld,%ld,%ld,%ld,%ld,%ld,,,%.4f\n",
                        mz_rtols[r], mz_configs[c].name, o->cpu_ms / 1e3, s->mz_batches,
                        o->c.n_steps, o->c.n_f_evals, o->c.n_jac_evals, o->c.n_lu,
                        o->c.n_nl_iters, o->c.n_err_fails + o->c.n_conv_fails, o->mescd);
        }

    printf("MEDAKZO ratios hydae / SUNDIALS: at the same rtol against the best of the "
           "pairing, and at equal mescd (interpolated, never extrapolated)\n");
    for (int c = 0; c < N_MZ; c++) {
        if (mz_configs[c].side != SIDE_HYDAE)
            continue;
        double same[N_MZ_TOLS], equal[N_MZ_TOLS];
        int n_same = 0, n_equal = 0;
        printf("  %-12s", mz_configs[c].name);
        for (int r = 0; r < N_MZ_TOLS; r++) {
            const mz_outcome *o = &out[r][c];
            double best_same = NAN, best_equal = NAN;
            for (int k = 0; k < N_MZ; k++) {
                if (mz_configs[k].side != SIDE_SUNDIALS
                    || mz_configs[k].family != mz_configs[c].family)
                    continue;
                if (out[r][k].ok && (isnan(best_same) || out[r][k].cpu_ms < best_same))
                    best_same = out[r][k].cpu_ms;
                bench_curve curve = {0};
                for (int q = 0; q < N_MZ_TOLS; q++)
                    if (out[q][k].ok)
                        bench_curve_add(&curve, out[q][k].mescd, out[q][k].cpu_ms);
                int extrapolated;
                double cpu = bench_curve_work_at(&curve, o->mescd, BENCH_EXTRAP_END_SEGMENT,
                                                 &extrapolated);
                if (!extrapolated && (isnan(best_equal) || cpu < best_equal))
                    best_equal = cpu;
            }
            if (o->ok && !isnan(best_same))
                same[n_same++] = o->cpu_ms / best_same;
            if (o->ok && !isnan(best_equal))
                equal[n_equal++] = o->cpu_ms / best_equal;
            printf("  %.0e: %.2f", mz_rtols[r], o->ok ? o->cpu_ms / best_same : NAN);
            if (o->ok && !isnan(best_equal))
                printf(" (eq %.2f)", o->cpu_ms / best_equal);
        }
        printf("\n  %-12s median same rtol %.3f over %d, at equal mescd %.3f over %d\n", "",
               bench_median(same, n_same), n_same, bench_median(equal, n_equal), n_equal);
    }
    sp_problem_free(&p);
}

/* ------------------------------------------------------------------------
*/

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "--child") == 0)
        return child_main(argc, argv);
    settings s;
    if (parse_settings(argc, argv, &s))
        return 2;
    if (bench_sundials_open()) {
        fprintf(stderr, "bench_sparse: SUNContext_Create failed\n");
        return 1;
    }
    FILE *csv = NULL;
    if (s.csv_path && !(csv = fopen(s.csv_path, "w"))) {
        fprintf(stderr, "bench_sparse: cannot open %s: %s\n", s.csv_path, strerror(errno));
        return 1;
    }
    if (csv)
        fprintf(csv, "problem,M,n,rtol,config,ok,cpu_s,cpu_min_s,cpu_max_s,reps,build_s,steps,"
                     "f_evals,jac,lu,newton,rejected,peak_mb,max_rel_err,scd\n");
    printf("bench_sparse: hydae vs SUNDIALS %s on sparse and band Jacobians (issue 12)\n",
           bench_sundials_version());
    printf("CPU time = CLOCK_PROCESS_CPUTIME_ID of the run in its own process (hydae: "
           "hydae_sim_create .. hydae_sim_free; SUNDIALS: creation .. free; building the "
           "hydae model is build_s, not included); peak = that process' ru_maxrss\n");
    int status = 0;
    if (s.brusselator) {
        size_result *results = calloc((size_t)s.n_sizes, sizeof *results);
        int n_done = 0;
        if (!results)
            return 1;
        printf("\nBrusselator (examples/brusselator.c), t in [0, 10], rtol = atol\n");
        for (int k = 0; k < s.n_sizes; k++) {
            if (run_size(&s, k, &results[k])) {
                status = 1;
                break;
            }
            n_done++;
            print_size_table(&s, &results[k]);
            print_size_ratios(&s, &results[k]);
            if (csv)
                write_csv_rows(csv, &s, &results[k]);
            fflush(stdout);
        }
        print_summary(&s, results, n_done);
        free(results);
    }
    if (s.medakzo)
        run_medakzo(&s, csv);
    if (csv)
        fclose(csv);
    bench_sundials_close();
    return status;
}
