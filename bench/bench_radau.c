/*
** bench_radau: RADAU against DSTIFF at equal accuracy on the Test Set
** problems ROBER, HIRES, OREGO and E5 (tests/validation/testset.c, as
** bench_suite has them: residual form, analytic Jacobian, the report's
** tolerances, scd or mescd at t_end), and E5I, E5 with its invariant kept
** in floating point (e5i_rhs below): RADAU at rtol = 1e-4 .. 1e-10,
** DSTIFF at 1e-4 .. 1e-14 (by decades), so that DSTIFF's curve covers the
** accuracy RADAU reaches at its tight tolerances.
**
** For each RADAU point the work DSTIFF needs for the same scd is read off
** DSTIFF's curve (bench_curve_work_at, piecewise linear in log(work) vs
** scd), only inside DSTIFF's measured scd range (no extrapolation: points
** outside are marked "-"); beside it, the ratio of least-squares lines
** log(work) vs scd fitted to each solver's points, which noisy curves
** (E5) do not throw off. Two measures of work:
**
**   bench_radau [--min-time S] [--problem NAME]
**       CPU time (bench_measure: repetitions for at least S seconds).
**   bench_radau --one PROBLEM SOLVER RTOL
**       one run, printing "PROBLEM SOLVER RTOL scd": for
**       bench/radau_callgrind.sh, which counts its instructions with
**       callgrind (collection only inside radau_bench_run, so start-up is
**       not counted) and writes one line "PROBLEM SOLVER RTOL scd Ir" per
**       run; with BENCH_RADAU_STATS set in the environment, the run's
**       counters on stderr too;
**   bench_radau --ratios FILE [SOLVER BASE]
**       the equal-scd ratios RADAU/DSTIFF (or SOLVER/BASE: MSTIFF/VSTIFF)
**       from such a file.
*/
#include "bench.h"
#include "testset_case.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N_TOLS 11
/* Tolerances 1e-4 .. 1e-(4 + n_tols[s] - 1) for DSTIFF, RADAU. */
static const int n_tols[2] = {11, 7};
#define N_PROBLEMS 5
#define MAX_LINES 320
static const char *const problem_names[N_PROBLEMS] = {"ROBER", "HIRES", "OREGO", "E5", "E5I"};
static const char *const solver_names[2] = {"DSTIFF", "RADAU"};
/* The pair of the ratios: measured, base. */
static const char *const default_pair[2] = {"RADAU", "DSTIFF"};

static double case_yp0[N_PROBLEMS][TESTSET_MAX_N];
static bench_case cases[N_PROBLEMS];

/* E5I: E5 with y3' evaluated as y2' - y4', the same ODE in exact
** arithmetic. E5 conserves y2 - y3 - y4 (= 0: the rows of f sum to 0),
** and y2 = y3 ~ 1/(M C t) at t_end depends on that invariant holding to
** better than 1e-22 (past it, y2 -> 0 and y3 -> the drift). testset.c's
** y3' = A y1 - B y1 y3 - M C y2 y3 + C y4 cancels terms of ~2e-7 to
** ~1e-12, so its rounding, ~2e-23 per evaluation times the step, moves the
** invariant by up to eps y1(0) ~ 2e-19 over the run: at rtol <= 1e-7 E5's
** mescd measures that rounding, not the integration error (docs/solver.md,
** RADAU). Here the invariant holds to the rounding of y2' - y4' itself. */
static int e5i_rhs(double t, const double *y, double *f, void *ctx)
{
    const testset_problem *e5 = ctx;
    int status = e5->rhs(t, y, f, NULL);
    f[2] = f[1] - f[3];
    return status;
}

static int e5i_res(double t, const double *y, const double *yp, double *res, void *ctx)
{
    int status = e5i_rhs(t, y, res, ctx);
    for (int i = 0; i < 4; i++)
        res[i] = yp[i] - res[i];
    return status;
}

static const bench_case *find_case(const char *name)
{
    int invariant_form = strcmp(name, "E5I") == 0;
    const char *source = invariant_form ? "E5" : name;
    for (int k = 0; k < N_PROBLEMS; k++) {
        if (strcmp(problem_names[k], name) != 0)
            continue;
        for (int j = 0; j < testset_n_problems; j++)
            if (strcmp(testset_problems[j].name, source) == 0) {
                const testset_problem *p = &testset_problems[j];
                bench_testset_case(&cases[k], p, case_yp0[k]);
                if (invariant_form) {
                    cases[k].name = "E5I";
                    cases[k].dae.rhs = e5i_rhs;
                    cases[k].dae.res = e5i_res;
                    cases[k].dae.ctx = (void *)p;
                    e5i_rhs(p->t0, p->y0, case_yp0[k], (void *)p);
                }
                return &cases[k];
            }
    }
    return NULL;
}

/* The run callgrind counts (not static, not inlined: --toggle-collect). */
__attribute__((noinline)) int radau_bench_run(const bench_solver *solver, const bench_run *run,
                                              bench_result *out);
int radau_bench_run(const bench_solver *solver, const bench_run *run, bench_result *out)
{
    return bench_hydae_solve(solver, run, out);
}

/* RADAU5, RADAU9, RADAU13: RADAU with radau_order fixed (hy_options
** radau_order), through a copy of its descriptor whose init sets it;
** RADAU chooses its order. */
static int fixed_radau_order;
static hy_integrator_ops radau_fixed;

static int radau_fixed_init(void *mem, const hy_dae *dae, double t0, const double *y0,
                            const double *yp0, const hy_options *opt)
{
    hy_options at_order = *opt;
    at_order.radau_order = fixed_radau_order;
    return hy_radau.init(mem, dae, t0, y0, yp0, &at_order);
}

static const hy_integrator_ops *find_solver(const char *name)
{
    if (strncmp(name, "RADAU", 5) != 0 || name[5] == '\0')
        return hy_integrator_find(name);
    fixed_radau_order = atoi(name + 5);
    radau_fixed = hy_radau;
    radau_fixed.name = name;
    radau_fixed.init = radau_fixed_init;
    return &radau_fixed;
}

static int one_run(const char *problem, const char *solver_name, double rtol)
{
    const bench_case *bc = find_case(problem);
    const hy_integrator_ops *ops = find_solver(solver_name);
    if (!bc || !ops) {
        fprintf(stderr, "bench_radau: unknown problem %s or solver %s\n", problem, solver_name);
        return 1;
    }
    bench_solver solver = bench_hydae_solver(ops);
    bench_run run = {bc, rtol, bench_case_atol(bc, rtol), 1, 0};
    bench_result r;
    memset(&r, 0, sizeof r);
    int ok = radau_bench_run(&solver, &run, &r);
    double scd = ok ? bc->score(bc, r.y, rtol, run.atol) : NAN;
    printf("%s %s %g %.4f\n", problem, solver_name, rtol, scd);
    if (getenv("BENCH_RADAU_STATS"))
        fprintf(stderr, "steps %ld f %ld jac %ld lu %ld newton %ld err_fails %ld conv_fails %ld\n",
                r.n_steps, r.n_f_evals, r.n_jac_evals, r.n_lu, r.n_nl_iters, r.n_err_fails,
                r.n_conv_fails);
    return ok ? 0 : 1;
}

/* One measured point of a solver's curve. */
typedef struct point {
    char problem[16], solver[16];
    double rtol, scd, work;
} point;

/* The least-squares line log(work) = a + b scd through a solver's points
** of one problem: robust where scd is not monotone in rtol (E5: DSTIFF's
** scd is 6.66 at 1e-7 and 3.98 at 1e-8), where the piecewise-linear curve
** through the points is not. */
typedef struct line_fit {
    double a, b;
} line_fit;

static line_fit fit_line(const point *pts, int n, const char *problem, const char *solver)
{
    double s1 = 0, sx = 0, sy = 0, sxx = 0, sxy = 0;
    for (int i = 0; i < n; i++) {
        if (strcmp(pts[i].problem, problem) != 0 || strcmp(pts[i].solver, solver) != 0
            || !isfinite(pts[i].scd) || !(pts[i].work > 0.0))
            continue;
        double x = pts[i].scd, y = log(pts[i].work);
        s1 += 1;
        sx += x;
        sy += y;
        sxx += x * x;
        sxy += x * y;
    }
    line_fit f = {NAN, NAN};
    double det = s1 * sxx - sx * sx;
    if (s1 >= 2 && det > 0) {
        f.b = (s1 * sxy - sx * sy) / det;
        f.a = (sy - f.b * sx) / s1;
    }
    return f;
}

/* The equal-scd ratios of RADAU to DSTIFF over the points of one problem,
** printed: on DSTIFF's piecewise-linear curve, and between the two fitted
** lines; the medians of those at rtol <= 1e-8 into median[0], median[1]
** (NaN if none). */
static void print_ratios(const point *pts, int n, const char *problem, const char *unit,
                         const char *const pair[2], double median[2])
{
    bench_curve dstiff;
    memset(&dstiff, 0, sizeof dstiff);
    double scd_lo = INFINITY, scd_hi = -INFINITY;
    for (int i = 0; i < n; i++)
        if (strcmp(pts[i].problem, problem) == 0 && strcmp(pts[i].solver, pair[1]) == 0) {
            bench_curve_add(&dstiff, pts[i].scd, pts[i].work);
            scd_lo = fmin(scd_lo, pts[i].scd);
            scd_hi = fmax(scd_hi, pts[i].scd);
        }
    line_fit fit_d = fit_line(pts, n, problem, pair[1]), fit_r = fit_line(pts, n, problem, pair[0]);
    double tight[N_TOLS], tight_fit[N_TOLS];
    int n_tight = 0;
    for (int i = 0; i < n; i++) {
        if (strcmp(pts[i].problem, problem) != 0 || strcmp(pts[i].solver, pair[0]) != 0)
            continue;
        int extrapolated = 0;
        double at = bench_curve_work_at(&dstiff, pts[i].scd, BENCH_EXTRAP_END_SEGMENT,
                                        &extrapolated);
        double ratio = extrapolated ? NAN : bench_ratio(pts[i].work, at);
        int inside = pts[i].scd >= scd_lo && pts[i].scd <= scd_hi;
        double fitted = inside ? exp(fit_r.a - fit_d.a + (fit_r.b - fit_d.b) * pts[i].scd) : NAN;
        char ratio_text[32] = "-", fitted_text[32] = "-";
        if (isfinite(ratio))
            snprintf(ratio_text, sizeof ratio_text, "%.3f", ratio);
        if (isfinite(fitted))
            snprintf(fitted_text, sizeof fitted_text, "%.3f", fitted);
        printf("%-6s rtol %6.0e  %s scd %6.2f %s %11.4g  %s at that scd %11.4g  "
               "ratio %-6s fitted %s\n", problem, pts[i].rtol, pair[0], pts[i].scd, unit,
               pts[i].work, pair[1], at, ratio_text, fitted_text);
        if (pts[i].rtol <= 1e-8 && isfinite(ratio) && n_tight < N_TOLS) {
            tight_fit[n_tight] = fitted;
            tight[n_tight++] = ratio;
        }
    }
    median[0] = bench_median(tight, n_tight);
    median[1] = bench_median(tight_fit, n_tight);
}

static void print_all_ratios(const point *pts, int n, const char *unit,
                             const char *const pair[2])
{
    double medians[N_PROBLEMS][2];
    for (int k = 0; k < N_PROBLEMS; k++)
        print_ratios(pts, n, problem_names[k], unit, pair, medians[k]);
    printf("\nmedian %s/%s %s at equal scd, %s points at rtol <= 1e-8 inside "
           "%s's scd range (interpolated on %s's points; between fitted lines):\n", pair[0],
           pair[1], unit, pair[0], pair[1], pair[1]);
    for (int k = 0; k < N_PROBLEMS; k++)
        printf("  %-6s %.3f  %.3f\n", problem_names[k], medians[k][0], medians[k][1]);
}

static int ratios_from_file(const char *path, const char *const pair[2])
{
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "bench_radau: cannot open %s\n", path);
        return 1;
    }
    static point pts[MAX_LINES];
    int n = 0;
    while (n < MAX_LINES && fscanf(f, "%15s %15s %lf %lf %lf", pts[n].problem, pts[n].solver,
                                   &pts[n].rtol, &pts[n].scd, &pts[n].work) == 5)
        n++;
    fclose(f);
    print_all_ratios(pts, n, "Ir", pair);
    return 0;
}

static int cpu_table(double min_time, const char *only)
{
    static point pts[N_PROBLEMS * 2 * N_TOLS];
    int n = 0;
    printf("%-6s %-6s %6s %6s %10s %6s %7s %5s %5s\n", "problem", "solver", "rtol", "scd",
           "CPU_ms", "steps", "F", "J", "LU");
    for (int k = 0; k < N_PROBLEMS; k++) {
        if (only && strcmp(only, problem_names[k]) != 0)
            continue;
        const bench_case *bc = find_case(problem_names[k]);
        for (int s = 0; s < 2; s++) {
            bench_solver solver = bench_hydae_solver(hy_integrator_find(solver_names[s]));
            for (int t = 0; t < n_tols[s]; t++) {
                double rtol = pow(10.0, -4.0 - t);
                bench_run run = {bc, rtol, bench_case_atol(bc, rtol), 1, 0};
                bench_result r;
                memset(&r, 0, sizeof r);
                bench_measure(&solver, &run, min_time, &r);
                printf("%-6s %-6s %6.0e %6.2f %10.4f %6ld %7ld %5ld %5ld\n", bc->name,
                       solver.name, rtol, r.scd, r.cpu_ms, r.n_steps, r.n_f_evals,
                       r.n_jac_evals, r.n_lu);
                point *pt = &pts[n++];
                snprintf(pt->problem, sizeof pt->problem, "%s", bc->name);
                snprintf(pt->solver, sizeof pt->solver, "%s", solver.name);
                pt->rtol = rtol;
                pt->scd = r.ok ? r.scd : NAN;
                pt->work = r.cpu_ms;
            }
        }
    }
    printf("\n");
    print_all_ratios(pts, n, "CPU_ms", default_pair);
    return 0;
}

int main(int argc, char **argv)
{
    double min_time = 0.2;
    const char *only = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--one") == 0 && i + 3 < argc)
            return one_run(argv[i + 1], argv[i + 2], atof(argv[i + 3]));
        if (strcmp(argv[i], "--ratios") == 0 && i + 3 < argc)
            return ratios_from_file(argv[i + 1], (const char *const *)&argv[i + 2]);
        if (strcmp(argv[i], "--ratios") == 0 && i + 1 < argc)
            return ratios_from_file(argv[i + 1], default_pair);
        if (strcmp(argv[i], "--min-time") == 0 && i + 1 < argc)
            min_time = atof(argv[++i]);
        else if (strcmp(argv[i], "--problem") == 0 && i + 1 < argc)
            only = argv[++i];
        else {
            fprintf(stderr, "usage: bench_radau [--min-time S] [--problem NAME] | --one PROBLEM "
                            "SOLVER RTOL | --ratios FILE [SOLVER BASE]\n");
            return 2;
        }
    }
    return cpu_table(min_time, only);
}
