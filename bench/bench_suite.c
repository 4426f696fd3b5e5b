/*
** bench_suite: every hydae integrator against its SUNDIALS counterpart on
** the same right-hand sides, at rtol 1e-4, 1e-6, 1e-8 and 1e-10:
**
**   DSTIFF vs IDA          HIRES POLLU VDPOL OREGO ROBER E5 (residual form
**                          y' - f) and CHEMAKZO (index-1 DAE)
**   VSTIFF vs CVODE BDF    the six Test Set ODEs
**   MSTIFF vs CVODE BDF    the six Test Set ODEs
**   ABAM   vs CVODE Adams  ARENSTORF PLEIADES
**   RK45   vs ARKODE ERK   ARENSTORF PLEIADES (Dormand-Prince 5(4))
**   RADAU  vs IDA          as DSTIFF (Radau IIA, orders 5/9/13; bench_radau
**                          compares it with DSTIFF itself)
**   RADAU  vs CVODE BDF    the six Test Set ODEs
**
** The Test Set problems are those of tests/validation/testset.c (compiled
** into this program), CHEMAKZO is bench/problems.c's, the non-stiff ones
** bench/nonstiff.c's. A hydae integrator that hy_integrator_find() does
** not know (ABAM, RK45 until they are registered) gets a row "not
** available in this build"; its SUNDIALS counterpart still runs.
**
** Usage: bench_suite [--csv FILE] [--svg FILE] [--min-time SECONDS]
**                    [--pairing NAME] [--problem NAME]
** The table goes to stdout. Ratios are hydae / SUNDIALS; "at equal scd"
** interpolates SUNDIALS' log(work) vs scd over its tolerance points at the
** scd hydae reached (bench_curve_work_at).
*/
#include "bench.h"
#include "nonstiff.h"
#include "problems.h"
#include "sundials_solvers.h"
#include "wp_plot.h"

#include "testset_case.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SUITE_N_TOLS 4
static const double suite_rtols[SUITE_N_TOLS] = {1e-4, 1e-6, 1e-8, 1e-10};

#define SUITE_MAX_CASES 16
#define SUITE_MAX_PROBLEMS_PER_PAIRING 8

typedef struct pairing {
    const char *name;               /* "DSTIFF/IDA" */
    const char *hydae_name;         /* for hy_integrator_find */
    const bench_solver *sundials;
    int hydae_max_order;            /* 0: the method's own largest */
    int sundials_max_order;
    double cpu_target;              /* median CPU ratio at equal scd */
    const char *colour;
    const char *problems[SUITE_MAX_PROBLEMS_PER_PAIRING];
} pairing;

static const pairing pairings[] = {
    {"DSTIFF/IDA", "DSTIFF", &bench_ida, 5, 5, 0.7, "#1f77b4",
     {"HIRES", "POLLU", "VDPOL", "OREGO", "ROBER", "E5", "CHEMAKZO", NULL}},
    {"VSTIFF/CVODE-BDF", "VSTIFF", &bench_cvode_bdf, 5, 5, 0.7, "#d62728",
     {"HIRES", "POLLU", "VDPOL", "OREGO", "ROBER", "E5", NULL}},
    {"MSTIFF/CVODE-BDF", "MSTIFF", &bench_cvode_bdf, 0, 5, 1.0, "#ff7f0e",
     {"HIRES", "POLLU", "VDPOL", "OREGO", "ROBER", "E5", NULL}},
    {"ABAM/CVODE-Adams", "ABAM", &bench_cvode_adams, 0, 12, 1.0, "#2ca02c",
     {"ARENSTORF", "PLEIADES", NULL}},
    {"RK45/ARKODE-DP5", "RK45", &bench_arkode_dp5, 0, 0, 1.0, "#9467bd",
     {"ARENSTORF", "PLEIADES", NULL}},
    {"RADAU/IDA", "RADAU", &bench_ida, 0, 5, 0.7, "#8c564b",
     {"HIRES", "POLLU", "VDPOL", "OREGO", "ROBER", "E5", "CHEMAKZO", NULL}},
    {"RADAU/CVODE-BDF", "RADAU", &bench_cvode_bdf, 0, 5, 0.7, "#e377c2",
     {"HIRES", "POLLU", "VDPOL", "OREGO", "ROBER", "E5", NULL}},
};
#define N_PAIRINGS ((int)(sizeof pairings / sizeof pairings[0]))

/* ------------------------------------------------------------------------
** The problems
*/

static bench_case cases[SUITE_MAX_CASES];
static int n_cases;
static double testset_yp0[SUITE_MAX_CASES][TESTSET_MAX_N];

static void add_cases(void)
{
    for (int k = 0; k < testset_n_problems; k++) {
        bench_testset_case(&cases[n_cases], &testset_problems[k], testset_yp0[n_cases]);
        n_cases++;
    }
    for (int k = 0; k < bench_problem_count(); k++) {
        const bench_problem *p = bench_problem_get(k);
        if (strcmp(p->name, "chemakzo") != 0)
            continue;
        bench_case *bc = &cases[n_cases++];
        memset(bc, 0, sizeof *bc);
        bc->name = "CHEMAKZO";
        bc->title = p->title;
        bc->dae.n = p->n;
        bc->dae.res = p->res;
        bc->dae.jac = p->jac;
        bc->dae.is_algebraic = p->is_algebraic;
        bc->t0 = p->t0;
        bc->t_end = p->t_end;
        bc->y0 = p->y0;
        bc->yp0 = p->yp0;
        bc->y_ref = p->yref;
        bc->atol_per_rtol = 1.0;
        bc->score = bench_scd_relative;
    }
    for (int k = 0; k < bench_nonstiff_n_cases; k++)
        cases[n_cases++] = bench_nonstiff_cases[k];
}

static const bench_case *find_case(const char *name)
{
    for (int k = 0; k < n_cases; k++)
        if (strcmp(cases[k].name, name) == 0)
            return &cases[k];
    return NULL;
}

/* ------------------------------------------------------------------------
** Runs. A SUNDIALS result is measured once per (solver, problem, rtol,
** max order) and shared (CVODE BDF serves VSTIFF and MSTIFF).
*/

typedef struct sundials_entry {
    const bench_solver *solver;
    bench_run run;
    bench_result result;
} sundials_entry;

#define SUITE_MAX_RUNS 256
static sundials_entry sundials_cache[SUITE_MAX_RUNS];
static int n_sundials_cache;

static double min_time = 0.2;

static const bench_result *sundials_result(const bench_solver *solver,
                                           const bench_run *run)
{
    for (int k = 0; k < n_sundials_cache; k++) {
        const sundials_entry *e = &sundials_cache[k];
        if (e->solver == solver && e->run.bc == run->bc
            && e->run.rtol == run->rtol && e->run.atol == run->atol
            && e->run.max_order == run->max_order)
            return &e->result;
    }
    sundials_entry *e = &sundials_cache[n_sundials_cache++];
    e->solver = solver;
    e->run = *run;
    bench_measure(solver, run, min_time, &e->result);
    return &e->result;
}

/* One (pairing, problem, rtol). */
typedef struct suite_point {
    const pairing *pr;
    const bench_case *bc;
    double rtol, atol;
    int hydae_available;
    bench_result hydae;
    const bench_result *sundials;
    /* hydae's work / SUNDIALS' work at hydae's scd (NaN if either failed):
    ** CPU, steps, f evaluations; extrapolated when outside SUNDIALS'
    ** scd range. */
    double equal_scd_ratio[3];
    int extrapolated;
} suite_point;

static suite_point points[SUITE_MAX_RUNS];
static int n_points;

static int both_ok(const suite_point *pt)
{
    return pt->hydae_available && pt->hydae.ok && pt->sundials->ok;
}

/* Equal-scd ratios of the points [first, first + count) of one pairing
** and problem. */
static void equal_scd_ratios(suite_point *first, int count)
{
    bench_curve curve[3];
    memset(curve, 0, sizeof curve);
    for (int k = 0; k < count; k++) {
        const bench_result *s = first[k].sundials;
        if (!s->ok)
            continue;
        bench_curve_add(&curve[0], s->scd, s->cpu_ms);
        bench_curve_add(&curve[1], s->scd, (double)s->n_steps);
        bench_curve_add(&curve[2], s->scd, (double)s->n_f_evals);
    }
    for (int k = 0; k < count; k++) {
        suite_point *pt = &first[k];
        const bench_result *h = &pt->hydae;
        const double hydae_work[3] = {h->cpu_ms, (double)h->n_steps,
                                      (double)h->n_f_evals};
        for (int q = 0; q < 3; q++) {
            pt->equal_scd_ratio[q] = NAN;
            if (!both_ok(pt) || !isfinite(h->scd))
                continue;
            int extrapolated = 0;
            double sundials_work = bench_curve_work_at(
                &curve[q], h->scd, BENCH_EXTRAP_FITTED_SLOPE, &extrapolated);
            pt->equal_scd_ratio[q] = bench_ratio(hydae_work[q], sundials_work);
            pt->extrapolated = extrapolated;
        }
    }
}

/* ------------------------------------------------------------------------
** Table and CSV
*/

static void print_header(void)
{
    printf("%-9s %-17s %-6s %-7s %-11s %6s %10s %6s %7s %8s %6s %6s %5s %5s"
           "  %s\n",
           "problem", "pairing", "rtol", "atol", "solver", "scd", "CPU_ms",
           "reps", "steps", "f_evals", "jac", "LU", "etf", "ncf", "status");
}

static void print_result(const suite_point *pt, const char *solver,
                         const bench_result *r)
{
    printf("%-9s %-17s %-6.0e %-7.1e %-11s %6.2f %10.4f %6ld %7ld %8ld %6ld "
           "%6ld %5ld %5ld  %s\n",
           pt->bc->name, pt->pr->name, pt->rtol, pt->atol, solver, r->scd,
           r->cpu_ms, r->reps, r->n_steps, r->n_f_evals, r->n_jac_evals,
           r->n_lu, r->n_err_fails, r->n_conv_fails, r->status);
}

/* A ratio for the table: "-" when undefined (e.g. no Jacobians). */
static const char *ratio_text(double ratio, char *buf, size_t size)
{
    if (isfinite(ratio))
        snprintf(buf, size, "%.3f", ratio);
    else
        snprintf(buf, size, "-");
    return buf;
}

static void print_point(const suite_point *pt)
{
    if (pt->hydae_available)
        print_result(pt, pt->pr->hydae_name, &pt->hydae);
    else
        printf("%-9s %-17s %-6.0e %-7.1e %-11s %s\n", pt->bc->name,
               pt->pr->name, pt->rtol, pt->atol, pt->pr->hydae_name,
               "not available in this build");
    print_result(pt, pt->pr->sundials->name, pt->sundials);
    if (!both_ok(pt))
        return;
    const bench_result *h = &pt->hydae, *s = pt->sundials;
    char text[6][16];
    printf("%-9s %-17s %-6.0e   ratio hydae/SUNDIALS: CPU %s  steps %s  "
           "f %s  jac %s  LU %s  (scd diff %+.2f)  at equal scd: CPU "
           "%s%s\n",
           pt->bc->name, pt->pr->name, pt->rtol,
           ratio_text(bench_ratio(h->cpu_ms, s->cpu_ms), text[0], 16),
           ratio_text(bench_ratio((double)h->n_steps, (double)s->n_steps),
                      text[1], 16),
           ratio_text(bench_ratio((double)h->n_f_evals, (double)s->n_f_evals),
                      text[2], 16),
           ratio_text(bench_ratio((double)h->n_jac_evals,
                                  (double)s->n_jac_evals), text[3], 16),
           ratio_text(bench_ratio((double)h->n_lu, (double)s->n_lu), text[4],
                      16),
           h->scd - s->scd,
           ratio_text(pt->equal_scd_ratio[0], text[5], 16),
           pt->extrapolated ? " (extrapolated)" : "");
}

static void csv_result(FILE *f, const suite_point *pt, const char *side,
                       const char *solver, const bench_result *r)
{
    fprintf(f, "%s,%s,%.3g,%.3g,%s,%s,%s,%.4f,%.6g,%ld,%ld,%ld,%ld,%ld,%ld,"
               "%ld,%ld",
            pt->bc->name, pt->pr->name, pt->rtol, pt->atol, side, solver,
            r->ok ? "ok" : "fail", r->scd, r->cpu_ms, r->reps, r->n_steps,
            r->n_f_evals, r->n_jac_evals, r->n_lu, r->n_err_fails,
            r->n_conv_fails, r->n_nl_iters);
}

/* ",value", or "," alone when the ratio is undefined. */
static void csv_ratio(FILE *f, double ratio)
{
    if (isfinite(ratio))
        fprintf(f, ",%.4f", ratio);
    else
        fprintf(f, ",");
}

static void csv_point(FILE *f, const suite_point *pt)
{
    const bench_result *h = &pt->hydae, *s = pt->sundials;
    if (pt->hydae_available) {
        csv_result(f, pt, "hydae", pt->pr->hydae_name, h);
        if (both_ok(pt)) {
            csv_ratio(f, bench_ratio(h->cpu_ms, s->cpu_ms));
            csv_ratio(f, bench_ratio((double)h->n_steps, (double)s->n_steps));
            csv_ratio(f, bench_ratio((double)h->n_f_evals,
                                     (double)s->n_f_evals));
            csv_ratio(f, bench_ratio((double)h->n_jac_evals,
                                     (double)s->n_jac_evals));
            csv_ratio(f, bench_ratio((double)h->n_lu, (double)s->n_lu));
            csv_ratio(f, pt->equal_scd_ratio[0]);
            fprintf(f, ",%d\n", pt->extrapolated);
        } else {
            fprintf(f, ",,,,,,,\n");
        }
    } else {
        /* 7 fields, then 10 empty counters and 7 empty ratios */
        fprintf(f, "%s,%s,%.3g,%.3g,hydae,%s,not available in this build"
                   ",,,,,,,,,,,,,,,,,\n",
                pt->bc->name, pt->pr->name, pt->rtol, pt->atol,
                pt->pr->hydae_name);
    }
    csv_result(f, pt, "sundials", pt->pr->sundials->name, s);
    fprintf(f, ",,,,,,,\n");
}

/* ------------------------------------------------------------------------
** Summary per pairing
*/

typedef struct ratio_set {
    int n;
    double v[SUITE_MAX_RUNS];
} ratio_set;

static void ratio_set_add(ratio_set *s, double v)
{
    if (isfinite(v) && s->n < SUITE_MAX_RUNS)
        s->v[s->n++] = v;
}

static double ratio_set_median(ratio_set *s)
{
    return bench_median(s->v, s->n);
}

/* Medians over the points of pairing pr, problem name (NULL: all). Returns
** the number of points where both solvers reached t_end. */
static int pairing_medians(const pairing *pr, const char *problem,
                           double *cpu_equal_tol, double equal_scd[3],
                           double *cpu_equal_scd_interp, int *n_interp)
{
    ratio_set tol_cpu = {0}, scd_work[3], scd_interp = {0};
    memset(scd_work, 0, sizeof scd_work);
    int n_both = 0;
    for (int k = 0; k < n_points; k++) {
        const suite_point *pt = &points[k];
        if (pt->pr != pr || (problem && strcmp(pt->bc->name, problem) != 0)
            || !both_ok(pt))
            continue;
        n_both++;
        ratio_set_add(&tol_cpu, bench_ratio(pt->hydae.cpu_ms,
                                            pt->sundials->cpu_ms));
        for (int q = 0; q < 3; q++)
            ratio_set_add(&scd_work[q], pt->equal_scd_ratio[q]);
        if (!pt->extrapolated)
            ratio_set_add(&scd_interp, pt->equal_scd_ratio[0]);
    }
    *cpu_equal_tol = ratio_set_median(&tol_cpu);
    for (int q = 0; q < 3; q++)
        equal_scd[q] = ratio_set_median(&scd_work[q]);
    *cpu_equal_scd_interp = ratio_set_median(&scd_interp);
    *n_interp = scd_interp.n;
    return n_both;
}

static void print_summary(void)
{
    printf("\nmedian ratios hydae/SUNDIALS per pairing and problem (points "
           "where both reached t_end; 'equal scd': SUNDIALS' log work "
           "interpolated at hydae's scd)\n");
    printf("%-17s %-9s %3s %9s | %9s %9s %9s | %9s %s\n", "pairing",
           "problem", "pts", "CPU@tol", "CPU@scd", "steps@scd", "f@scd",
           "CPU@scd", "(interpolated points only)");
    for (int p = 0; p < N_PAIRINGS; p++) {
        const pairing *pr = &pairings[p];
        for (int k = 0; pr->problems[k]; k++) {
            double at_tol, at_scd[3], interp;
            int n_interp;
            int n_both = pairing_medians(pr, pr->problems[k], &at_tol, at_scd,
                                         &interp, &n_interp);
            if (n_both == 0)
                continue;
            printf("%-17s %-9s %3d %9.3f | %9.3f %9.3f %9.3f | %9.3f (%d)\n",
                   pr->name, pr->problems[k], n_both, at_tol, at_scd[0],
                   at_scd[1], at_scd[2], interp, n_interp);
        }
    }

    printf("\nper pairing: median CPU ratio hydae/SUNDIALS and the target "
           "(at equal scd, all points)\n");
    printf("%-17s %4s %9s %9s %9s %9s %9s  %s\n", "pairing", "pts",
           "CPU@tol", "CPU@scd", "interp.", "steps@scd", "f@scd",
           "target");
    for (int p = 0; p < N_PAIRINGS; p++) {
        const pairing *pr = &pairings[p];
        if (hy_integrator_find(pr->hydae_name) == NULL) {
            printf("%-17s %s not available in this build (target <= %.1f "
                   "not assessed)\n",
                   pr->name, pr->hydae_name, pr->cpu_target);
            continue;
        }
        double at_tol, at_scd[3], interp;
        int n_interp;
        int n_both =
            pairing_medians(pr, NULL, &at_tol, at_scd, &interp, &n_interp);
        if (n_both == 0) {
            int n_run = 0;
            for (int k = 0; k < n_points; k++)
                n_run += points[k].pr == pr;
            printf("%-17s %s\n", pr->name,
                   n_run ? "no point where both solvers reached t_end"
                         : "not run (--pairing/--problem)");
            continue;
        }
        printf("%-17s %4d %9.3f %9.3f %9.3f %9.3f %9.3f  <= %.1f %s\n",
               pr->name, n_both, at_tol, at_scd[0], interp, at_scd[1],
               at_scd[2], pr->cpu_target,
               at_scd[0] <= pr->cpu_target ? "met" : "MISSED");
    }
}

/* ------------------------------------------------------------------------
** Plot
*/

static int write_plot(const char *path)
{
    static wp_series series[2 * SUITE_MAX_RUNS / SUITE_N_TOLS];
    int n_series = 0;
    const char *panels[SUITE_MAX_CASES];
    int n_panels = 0;
    for (int c = 0; c < n_cases; c++)
        panels[n_panels++] = cases[c].name;

    /* hydae: one series per pairing and problem. */
    for (int k = 0; k < n_points; k += SUITE_N_TOLS) {
        const suite_point *pt = &points[k];
        if (!pt->hydae_available)
            continue;
        wp_series *s = &series[n_series++];
        memset(s, 0, sizeof *s);
        s->panel = pt->bc->name;
        s->label = pt->pr->hydae_name;
        s->colour = pt->pr->colour;
        for (int t = 0; t < SUITE_N_TOLS; t++) {
            const bench_result *r = &pt[t].hydae;
            s->scd[s->n] = r->ok ? r->scd : NAN;
            s->cpu_ms[s->n++] = r->cpu_ms;
        }
    }
    /* SUNDIALS: one series per solver and problem, in the colours of the
    ** pairings using it (at most two). */
    for (int k = 0; k < n_points; k += SUITE_N_TOLS) {
        const suite_point *pt = &points[k];
        int seen = -1;
        for (int j = 0; j < n_series; j++)
            if (series[j].dashed && strcmp(series[j].panel, pt->bc->name) == 0
                && strcmp(series[j].label, pt->pr->sundials->name) == 0)
                seen = j;
        if (seen >= 0) {
            if (series[seen].colour_alt == NULL
                && strcmp(series[seen].colour, pt->pr->colour) != 0)
                series[seen].colour_alt = pt->pr->colour;
            continue;
        }
        wp_series *s = &series[n_series++];
        memset(s, 0, sizeof *s);
        s->panel = pt->bc->name;
        s->label = pt->pr->sundials->name;
        s->colour = pt->pr->colour;
        s->dashed = 1;
        for (int t = 0; t < SUITE_N_TOLS; t++) {
            const bench_result *r = pt[t].sundials;
            s->scd[s->n] = r->ok ? r->scd : NAN;
            s->cpu_ms[s->n++] = r->cpu_ms;
        }
    }
    static char legend_text[N_PAIRINGS][96];
    wp_legend_entry legend[N_PAIRINGS];
    for (int p = 0; p < N_PAIRINGS; p++) {
        const pairing *pr = &pairings[p];
        snprintf(legend_text[p], sizeof legend_text[p], "%s vs %s%s",
                 pr->hydae_name, pr->sundials->name,
                 hy_integrator_find(pr->hydae_name) ? ""
                                                    : " (hydae n/a)");
        legend[p].colour = pr->colour;
        legend[p].label = legend_text[p];
    }
    char title[160];
    snprintf(title, sizeof title,
             "hydae vs SUNDIALS %s: work-precision, rtol 1e-4 .. 1e-10",
             bench_sundials_version());
    return wp_plot_write_svg(path, title, panels, n_panels, series, n_series,
                             legend, N_PAIRINGS);
}

/* ------------------------------------------------------------------------ */

static void usage(FILE *f)
{
    fprintf(f, "usage: bench_suite [--csv FILE] [--svg FILE] [--min-time "
               "SECONDS] [--pairing NAME] [--problem NAME]\n");
}

int main(int argc, char **argv)
{
    const char *csv_path = "suite.csv";
    const char *svg_path = "work_precision.svg";
    const char *only_pairing = NULL, *only_problem = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--csv") == 0 && i + 1 < argc) {
            csv_path = argv[++i];
        } else if (strcmp(argv[i], "--svg") == 0 && i + 1 < argc) {
            svg_path = argv[++i];
        } else if (strcmp(argv[i], "--min-time") == 0 && i + 1 < argc) {
            char *end;
            errno = 0;
            min_time = strtod(argv[++i], &end);
            if (errno || *end || !(min_time >= 0.0)) {
                usage(stderr);
                return 2;
            }
        } else if (strcmp(argv[i], "--pairing") == 0 && i + 1 < argc) {
            only_pairing = argv[++i];
        } else if (strcmp(argv[i], "--problem") == 0 && i + 1 < argc) {
            only_problem = argv[++i];
        } else if (strcmp(argv[i], "-h") == 0
                   || strcmp(argv[i], "--help") == 0) {
            usage(stdout);
            return 0;
        } else {
            usage(stderr);
            return 2;
        }
    }

    add_cases();
    FILE *csv = fopen(csv_path, "w");
    if (csv == NULL) {
        fprintf(stderr, "bench_suite: cannot write %s: %s\n", csv_path,
                strerror(errno));
        return 1;
    }
    fprintf(csv, "problem,pairing,rtol,atol,side,solver,status,scd,cpu_ms,"
                 "reps,steps,f_evals,jac_evals,lu,err_fails,conv_fails,"
                 "nl_iters,cpu_ratio,steps_ratio,f_evals_ratio,jac_ratio,"
                 "lu_ratio,cpu_ratio_equal_scd,equal_scd_extrapolated\n");
    if (bench_sundials_open() != 0) {
        fprintf(stderr, "bench_suite: SUNContext_Create failed\n");
        fclose(csv);
        return 1;
    }

    printf("hydae vs SUNDIALS %s: every integrator against its counterpart, "
           "same right-hand sides, rtol 1e-4 .. 1e-10, CPU time = mean of "
           "repetitions >= %.2g s\n",
           bench_sundials_version(), min_time);
    printf("scd = significant correct digits at t_end (E5, ARENSTORF: "
           "mixed error, mescd); f_evals include FD-Jacobian evaluations; "
           "LU = factorisations (CVODE/IDA: linear solver setups); etf/ncf "
           "= error-test/convergence failures\n\n");
    print_header();

    int n_failed = 0;
    for (int p = 0; p < N_PAIRINGS; p++) {
        const pairing *pr = &pairings[p];
        if (only_pairing && strcmp(only_pairing, pr->name) != 0
            && strcmp(only_pairing, pr->hydae_name) != 0)
            continue;
        const hy_integrator_ops *ops = hy_integrator_find(pr->hydae_name);
        bench_solver hydae = {pr->hydae_name, bench_hydae_solve, ops};
        for (int k = 0; pr->problems[k]; k++) {
            if (only_problem && strcmp(only_problem, pr->problems[k]) != 0)
                continue;
            const bench_case *bc = find_case(pr->problems[k]);
            if (bc == NULL) {
                fprintf(stderr, "bench_suite: no problem %s\n",
                        pr->problems[k]);
                return 1;
            }
            suite_point *first = &points[n_points];
            for (int t = 0; t < SUITE_N_TOLS; t++) {
                suite_point *pt = &points[n_points++];
                memset(pt, 0, sizeof *pt);
                pt->pr = pr;
                pt->bc = bc;
                pt->rtol = suite_rtols[t];
                pt->atol = bench_case_atol(bc, pt->rtol);
                bench_run run = {bc, pt->rtol, pt->atol, 1, 0};
                run.max_order = pr->sundials_max_order;
                pt->sundials = sundials_result(pr->sundials, &run);
                pt->hydae_available = ops != NULL;
                if (ops) {
                    run.max_order = pr->hydae_max_order;
                    bench_measure(&hydae, &run, min_time, &pt->hydae);
                    n_failed += !pt->hydae.ok;
                }
            }
            equal_scd_ratios(first, SUITE_N_TOLS);
            for (int t = 0; t < SUITE_N_TOLS; t++) {
                print_point(&first[t]);
                csv_point(csv, &first[t]);
            }
            fflush(stdout);
        }
    }
    fclose(csv);
    for (int k = 0; k < n_sundials_cache; k++)
        n_failed += !sundials_cache[k].result.ok;
    print_summary();
    if (write_plot(svg_path) != 0)
        fprintf(stderr, "bench_suite: cannot write %s\n", svg_path);
    printf("\nCSV written to %s, plot to %s\n", csv_path, svg_path);
    if (n_failed)
        printf("%d run(s) did not reach t_end (see the status column)\n",
               n_failed);
    bench_sundials_close();
    return 0;
}
