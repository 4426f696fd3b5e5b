/*
** bench_dstiff_ida: hydae's DSTIFF (DASSL-style BDF) against SUNDIALS IDA on
** test-set problems, same residual and Jacobian functions for both.
**
** Usage: bench_dstiff_ida [--csv FILE] [--min-time SECONDS] [--problem NAME]
**
** For each problem and tolerance both solvers integrate from t0 to t_end
** (hydae one step at a time with step(mem, t_end, &t) until t == t_end; IDA
** one IDASolve call in IDA_NORMAL mode with tstop = t_end), with automatic
** initial step, maximum order 5 and a dense direct linear solver. The CPU
** time of one run (solver creation, integration and destruction; the
** SUNContext is created once) is the mean over enough repetitions to exceed
** --min-time (default 0.2 s); the counters come from the first run. The
** drivers, timing and statistics are the ones bench_suite uses
** (bench_common.c, sundials_solvers.c); this program adds the runs with
** finite-difference Jacobians and ROBER's extra absolute tolerance.
*/
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "problems.h"
#include "sundials_solvers.h"

/* ------------------------------------------------------------------------
** Run descriptions and results
*/

enum { SOLVER_HYDAE = 0, SOLVER_IDA = 1 };
static const char *const solver_names[2] = {"hydae", "IDA"};

typedef struct run_spec {
    const bench_problem *prob;
    double rtol, atol;
    int analytic_jac;   /* 1 analytic, 0 finite differences */
    int main_series;    /* 1: one of the 4 tolerance points of the WPD */
} run_spec;

typedef struct run_result {
    bench_result r;     /* solution, status, counters, CPU time */
    int worst;          /* 1-based component giving the scd, 0 if none */
} run_result;

/* The problems as bench_cases (the same residual and Jacobian functions,
** called with ctx NULL by both solvers). */
static bench_case problem_cases[BENCH_MAX_N];

static void make_problem_cases(void)
{
    for (int k = 0; k < bench_problem_count(); k++) {
        const bench_problem *p = bench_problem_get(k);
        bench_case *bc = &problem_cases[k];
        memset(bc, 0, sizeof *bc);
        bc->name = p->name;
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
        bc->score = bench_scd_relative;
    }
}

static double compute_scd(const bench_problem *p, const double *y,
                          int *worst)
{
    double max_rel = 0.0;
    *worst = 0;
    for (int i = 0; i < p->n; i++) {
        double e = fabs(y[i] - p->yref[i]) / fabs(p->yref[i]);
        if (!(e <= max_rel)) {  /* also catches NaN */
            max_rel = e;
            *worst = i + 1;
        }
    }
    if (isnan(max_rel))
        return NAN;
    if (max_rel == 0.0)
        return -log10(DBL_EPSILON / 2);
    return -log10(max_rel);
}

/* ------------------------------------------------------------------------
** Timing (bench_measure): a first run gives solution and counters; then
** repeat until the accumulated CPU time exceeds min_time and take the
** mean. hydae runs DSTIFF with step(mem, t_end, &t) until t == t_end, IDA
** one IDASolve call (bench_hydae_solve, sundials_solvers.c).
*/

static double min_time = 0.2;

static void measure(int solver, const run_spec *rs, run_result *out)
{
    int index = 0;
    while (bench_problem_get(index) != rs->prob)
        index++;
    const bench_solver hydae = bench_hydae_solver(&hy_dstiff);
    const bench_run run = {&problem_cases[index], rs->rtol, rs->atol,
                           rs->analytic_jac, 5};
    bench_measure(solver == SOLVER_HYDAE ? &hydae : &bench_ida, &run,
                  min_time, &out->r);
    out->worst = 0;
    if (out->r.ok)
        out->r.scd = compute_scd(rs->prob, out->r.y, &out->worst);
}

/* ------------------------------------------------------------------------
** Output
*/

static void print_header(void)
{
    printf("%-9s %-4s %-7s %-7s %-6s %6s %2s %10s %6s %7s %8s %6s %6s %5s %5s "
           "%7s  %s\n",
           "problem", "jac", "rtol", "atol", "solver", "scd", "wc", "CPU_ms",
           "reps",
           "steps", "res", "jac", "LU", "etf", "ncf", "newton", "status");
}

static void print_row(const run_spec *rs, int solver, const run_result *r)
{
    printf("%-9s %-4s %-7.0e %-7.0e %-6s %6.2f %2d %10.4f %6ld %7ld %8ld %6ld "
           "%6ld %5ld %5ld %7ld  %s\n",
           rs->prob->name, rs->analytic_jac ? "an" : "fd", rs->rtol, rs->atol,
           solver_names[solver], r->r.scd, r->worst, r->r.cpu_ms, r->r.reps,
           r->r.n_steps, r->r.n_f_evals, r->r.n_jac_evals, r->r.n_lu,
           r->r.n_err_fails, r->r.n_conv_fails, r->r.n_nl_iters, r->r.status);
}

static void csv_row(FILE *f, const run_spec *rs, int solver,
                    const run_result *r, const run_result *ida)
{
    fprintf(f, "%s,%s,%.3g,%.3g,%s,%s,%.4f,%d,%.6g,%ld,%ld,%ld,%ld,%ld,%ld,%ld,"
               "%ld",
            rs->prob->name, rs->analytic_jac ? "analytic" : "fd", rs->rtol,
            rs->atol, solver_names[solver], r->r.ok ? "ok" : "fail", r->r.scd,
            r->worst, r->r.cpu_ms, r->r.reps, r->r.n_steps, r->r.n_f_evals,
            r->r.n_jac_evals, r->r.n_lu, r->r.n_err_fails, r->r.n_conv_fails,
            r->r.n_nl_iters);
    if (ida != NULL)
        fprintf(f, ",%.4f,%.4f,%.4f\n",
                bench_ratio(r->r.cpu_ms, ida->r.cpu_ms),
                bench_ratio((double)r->r.n_steps, (double)ida->r.n_steps),
                bench_ratio((double)r->r.n_f_evals, (double)ida->r.n_f_evals));
    else
        fprintf(f, ",,,\n");
}

/* ------------------------------------------------------------------------ */

#define MAX_RUNS 64

static void usage(FILE *f)
{
    fprintf(f, "usage: bench_dstiff_ida [--csv FILE] [--min-time SECONDS] "
               "[--problem NAME]\n");
}

int main(int argc, char **argv)
{
    const char *csv_path = "bench_dstiff_ida.csv";
    const char *only = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--csv") == 0 && i + 1 < argc) {
            csv_path = argv[++i];
        } else if (strcmp(argv[i], "--min-time") == 0 && i + 1 < argc) {
            char *end;
            errno = 0;
            min_time = strtod(argv[++i], &end);
            if (errno || *end || !(min_time >= 0.0)) {
                usage(stderr);
                return 2;
            }
        } else if (strcmp(argv[i], "--problem") == 0 && i + 1 < argc) {
            only = argv[++i];
        } else if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            usage(stdout);
            return 0;
        } else {
            usage(stderr);
            return 2;
        }
    }

    make_problem_cases();

    /* The runs. rtol in {1e-4, 1e-6, 1e-8, 1e-10}; ROBER with
    ** atol = 1e-4 * rtol (the test set report's WPD practice) plus one
    ** run at rtol = 1e-10, atol = 1e-16; CHEMAKZO with atol = rtol; and for
    ** each problem one finite-difference-Jacobian run at rtol = 1e-6. */
    static run_spec runs[MAX_RUNS];
    int nruns = 0;
    const double rtols[4] = {1e-4, 1e-6, 1e-8, 1e-10};
    for (int ip = 0; ip < bench_problem_count(); ip++) {
        const bench_problem *p = bench_problem_get(ip);
        if (only && strcmp(only, p->name) != 0)
            continue;
        int is_rober = strcmp(p->name, "rober") == 0;
        double atol_fac = is_rober ? 1e-4 : 1.0;
        for (int k = 0; k < 4; k++)
            runs[nruns++] = (run_spec){p, rtols[k], atol_fac * rtols[k], 1, 1};
        if (is_rober)
            runs[nruns++] = (run_spec){p, 1e-10, 1e-16, 1, 0};
        runs[nruns++] = (run_spec){p, 1e-6, atol_fac * 1e-6, 0, 0};
    }
    if (nruns == 0) {
        fprintf(stderr, "bench_dstiff_ida: no problem named '%s'\n", only);
        return 2;
    }

    FILE *csv = fopen(csv_path, "w");
    if (csv == NULL) {
        fprintf(stderr, "bench_dstiff_ida: cannot write %s: %s\n", csv_path,
                strerror(errno));
        return 1;
    }
    fprintf(csv, "problem,jacobian,rtol,atol,solver,status,scd,worst_comp,"
                 "cpu_ms,reps,"
                 "steps,res_evals,jac_evals,lu,err_fails,conv_fails,"
                 "newton_iters,cpu_ratio,steps_ratio,res_ratio\n");

    if (bench_sundials_open() != 0) {
        fprintf(stderr, "bench_dstiff_ida: SUNContext_Create failed\n");
        fclose(csv);
        return 1;
    }

    printf("hydae DSTIFF vs SUNDIALS IDA %s (dense LU, max order 5, automatic "
           "h0, min timing %.2g s per run)\n",
           bench_sundials_version(), min_time);
    printf("columns: scd = -log10 max_i |y_i-yref_i|/|yref_i|, wc = that i; "
           "CPU_ms mean of reps runs; res incl. FD-Jacobian evals; LU = factorisations "
           "(IDA: linear solver setups); etf/ncf = error-test/convergence "
           "failures\n\n");
    print_header();

    static run_result res_h[MAX_RUNS], res_i[MAX_RUNS];
    int failures = 0;
    for (int k = 0; k < nruns; k++) {
        const run_spec *rs = &runs[k];
        measure(SOLVER_HYDAE, rs, &res_h[k]);
        measure(SOLVER_IDA, rs, &res_i[k]);
        print_row(rs, SOLVER_HYDAE, &res_h[k]);
        print_row(rs, SOLVER_IDA, &res_i[k]);
        printf("%-9s %-4s %-7.0e %-7.0e ratio hydae/IDA: CPU %.3f  steps %.3f"
               "  res %.3f  CPU/step %.3f  (scd diff %+.2f)\n",
               rs->prob->name, rs->analytic_jac ? "an" : "fd", rs->rtol,
               rs->atol, bench_ratio(res_h[k].r.cpu_ms, res_i[k].r.cpu_ms),
               bench_ratio((double)res_h[k].r.n_steps,
                           (double)res_i[k].r.n_steps),
               bench_ratio((double)res_h[k].r.n_f_evals,
                           (double)res_i[k].r.n_f_evals),
               bench_ratio(res_h[k].r.cpu_ms / (double)res_h[k].r.n_steps,
                     res_i[k].r.cpu_ms / (double)res_i[k].r.n_steps),
               res_h[k].r.scd - res_i[k].r.scd);
        fflush(stdout);
        csv_row(csv, rs, SOLVER_HYDAE, &res_h[k], &res_i[k]);
        csv_row(csv, rs, SOLVER_IDA, &res_i[k], NULL);
        failures += !res_h[k].r.ok + !res_i[k].r.ok;
    }
    fclose(csv);

    /* Summary: median CPU ratios over all paired runs where both reached
    ** t_end, per problem and overall. */
    printf("\nmedian CPU ratio hydae/IDA over all paired runs (both solvers "
           "reached t_end):\n");
    double all[MAX_RUNS];
    int nall = 0;
    for (int ip = 0; ip < bench_problem_count(); ip++) {
        const bench_problem *p = bench_problem_get(ip);
        double v[MAX_RUNS];
        int nv = 0;
        for (int k = 0; k < nruns; k++) {
            if (runs[k].prob != p || !res_h[k].r.ok || !res_i[k].r.ok)
                continue;
            v[nv++] = bench_ratio(res_h[k].r.cpu_ms, res_i[k].r.cpu_ms);
            all[nall++] = v[nv - 1];
        }
        if (nv > 0)
            printf("  %-9s %.3f  (%d runs)\n", p->name, bench_median(v, nv),
                   nv);
    }
    printf("  %-9s %.3f  (%d runs)\n", "overall", bench_median(all, nall),
           nall);

    /* Equal accuracy: IDA's log(CPU), log(steps) and log(res) vs scd,
    ** piecewise linear over its main-series points (analytic Jacobian,
    ** 4 tolerances), evaluated at the scd of each hydae main-series point. */
    printf("\nequal-accuracy ratios hydae/IDA (IDA's log CPU, log steps, "
           "log res interpolated at hydae's scd; main series, analytic "
           "Jacobian):\n");
    double eq_all[MAX_RUNS];
    int neq_all = 0;
    for (int ip = 0; ip < bench_problem_count(); ip++) {
        const bench_problem *p = bench_problem_get(ip);
        bench_curve ida_curve[3];   /* CPU, steps, res */
        memset(ida_curve, 0, sizeof ida_curve);
        for (int k = 0; k < nruns; k++) {
            if (runs[k].prob != p || !runs[k].main_series || !res_i[k].r.ok)
                continue;
            bench_curve_add(&ida_curve[0], res_i[k].r.scd, res_i[k].r.cpu_ms);
            bench_curve_add(&ida_curve[1], res_i[k].r.scd,
                            (double)res_i[k].r.n_steps);
            bench_curve_add(&ida_curve[2], res_i[k].r.scd,
                            (double)res_i[k].r.n_f_evals);
        }
        if (ida_curve[0].n == 0)
            continue;
        double v_in[3][8], v_any[3][8];
        int n_in = 0, n_any = 0;
        for (int k = 0; k < nruns; k++) {
            if (runs[k].prob != p || !runs[k].main_series || !res_h[k].r.ok ||
                !isfinite(res_h[k].r.scd))
                continue;
            int extrap = 0;
            double ida_w[3], r[3];
            const double hy_w[3] = {res_h[k].r.cpu_ms,
                                    (double)res_h[k].r.n_steps,
                                    (double)res_h[k].r.n_f_evals};
            for (int q = 0; q < 3; q++) {
                ida_w[q] = bench_curve_work_at(&ida_curve[q], res_h[k].r.scd,
                                               BENCH_EXTRAP_END_SEGMENT,
                                               &extrap);
                r[q] = hy_w[q] / ida_w[q];
                v_any[q][n_any] = r[q];
                if (!extrap)
                    v_in[q][n_in] = r[q];
            }
            printf("  %-9s rtol %-7.0e hydae scd %5.2f: CPU %8.4f ms vs IDA "
                   "%8.4f ms -> CPU %.3f  steps %.3f  res %.3f%s\n",
                   p->name, runs[k].rtol, res_h[k].r.scd, res_h[k].r.cpu_ms,
                   ida_w[0], r[0], r[1], r[2],
                   extrap ? "  (extrapolated)" : "");
            eq_all[neq_all++] = r[0];
            n_any++;
            if (!extrap)
                n_in++;
        }
        printf("  %-9s median over %d points:   CPU %.3f  steps %.3f  res "
               "%.3f\n",
               p->name, n_any, bench_median(v_any[0], n_any),
               bench_median(v_any[1], n_any), bench_median(v_any[2], n_any));
        printf("  %-9s median over the %d inside IDA's scd range: CPU %.3f  "
               "steps %.3f  res %.3f\n",
               p->name, n_in, bench_median(v_in[0], n_in),
               bench_median(v_in[1], n_in),
               bench_median(v_in[2], n_in));
    }
    printf("  %-9s median CPU ratio at equal scd %.3f over %d points\n",
           "overall", bench_median(eq_all, neq_all), neq_all);

    printf("\nCSV written to %s\n", csv_path);
    if (failures)
        printf("%d run(s) did not reach t_end (see status column)\n", failures);
    bench_sundials_close();
    return 0;
}
