/*
** bench_explicit: hydae's explicit integrators against each other (issue
** 17): RK853 (Dormand-Prince 8(5,3)), RK45 (Dormand-Prince 5(4)) and ABAM
** (Adams PECE), with ARKODE's Dormand-Prince 5(4) for scale, on the
** non-stiff problems of nonstiff.c (ARENSTORF, PLEIADES) at rtol = atol =
** 1e-4 .. 1e-12. For every solver and problem: scd, steps, f evaluations
** and CPU time per tolerance; then the work of each solver relative to
** RK45 at equal scd (RK45's log(work) vs scd interpolated at the other's
** scd, bench_curve_work_at; "(x)" marks an extrapolated point), and of
** RK853 relative to ABAM.
**
** Usage: bench_explicit [--min-time SECONDS] [--problem NAME]
**        bench_explicit --once SOLVER PROBLEM RTOL
** --once makes a single run (no repetitions, for valgrind --tool=callgrind,
** whose instruction counts are steady where CPU times are not) and prints
** its line.
*/
#include "bench.h"
#include "nonstiff.h"
#include "sundials_solvers.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N_TOLS 5
static const double rtols[N_TOLS] = {1e-4, 1e-6, 1e-8, 1e-10, 1e-12};
#define N_SOLVERS 4
static const char *const solver_names[N_SOLVERS] = {
    "RK45", "RK853", "ABAM", "ARKODE-DP5"
};

static int solver_by_name(const char *name, bench_solver *out)
{
    if (strcmp(name, "ARKODE-DP5") == 0) {
        *out = bench_arkode_dp5;
        return 0;
    }
    const hy_integrator_ops *ops = hy_integrator_find(name);
    if (ops == NULL)
        return -1;
    *out = bench_hydae_solver(ops);
    return 0;
}

static const bench_case *case_by_name(const char *name)
{
    for (int k = 0; k < bench_nonstiff_n_cases; k++)
        if (strcmp(bench_nonstiff_cases[k].name, name) == 0)
            return &bench_nonstiff_cases[k];
    return NULL;
}

static void print_result(const char *problem, const char *solver, double rtol,
                         const bench_result *r)
{
    printf("%-9s %-10s %5.0e  %6.2f %9.4f %7ld %8ld %5ld  %s\n", problem,
           solver, rtol, r->scd, r->cpu_ms, r->n_steps, r->n_f_evals,
           r->n_err_fails, r->ok ? "ok" : r->status);
}

static bench_run make_run(const bench_case *bc, double rtol)
{
    bench_run run;
    memset(&run, 0, sizeof run);
    run.bc = bc;
    run.rtol = rtol;
    run.atol = bench_case_atol(bc, rtol);
    run.analytic_jac = 1;
    return run;
}

static int run_once(const char *solver_name, const char *problem, double rtol)
{
    bench_solver solver;
    const bench_case *bc = case_by_name(problem);
    if (solver_by_name(solver_name, &solver) != 0 || bc == NULL) {
        fprintf(stderr, "bench_explicit: unknown solver or problem\n");
        return 2;
    }
    bench_run run = make_run(bc, rtol);
    bench_result r;
    memset(&r, 0, sizeof r);
    bench_measure(&solver, &run, 0.0, &r);
    print_result(problem, solver_name, rtol, &r);
    return r.ok ? 0 : 1;
}

/* Work of solver s relative to solver ref at equal scd, per point. */
static void print_ratio(const char *problem, bench_result res[N_SOLVERS][N_TOLS],
                        int s, int ref)
{
    bench_curve cpu_ref = {0}, f_ref = {0};
    for (int k = 0; k < N_TOLS; k++)
        if (res[ref][k].ok) {
            bench_curve_add(&cpu_ref, res[ref][k].scd, res[ref][k].cpu_ms);
            bench_curve_add(&f_ref, res[ref][k].scd, (double)res[ref][k].n_f_evals);
        }
    printf("%-9s %-10s / %-5s at equal scd: CPU", problem, solver_names[s],
           solver_names[ref]);
    for (int k = 0; k < N_TOLS; k++) {
        int extrap = 0;
        double w = bench_curve_work_at(&cpu_ref, res[s][k].scd,
                                       BENCH_EXTRAP_FITTED_SLOPE, &extrap);
        printf(" %.2f%s", bench_ratio(res[s][k].cpu_ms, w), extrap ? "(x)" : "");
    }
    printf("   f");
    for (int k = 0; k < N_TOLS; k++) {
        int extrap = 0;
        double w = bench_curve_work_at(&f_ref, res[s][k].scd,
                                       BENCH_EXTRAP_FITTED_SLOPE, &extrap);
        printf(" %.2f%s", bench_ratio((double)res[s][k].n_f_evals, w),
               extrap ? "(x)" : "");
    }
    printf("\n");
}

static int run_table(double min_time, const char *only_problem);

int main(int argc, char **argv)
{
    if (bench_sundials_open() != 0) {
        fprintf(stderr, "bench_explicit: no SUNDIALS context\n");
        return 1;
    }
    int status = 2;
    double min_time = 0.2;
    const char *only_problem = NULL;
    for (int a = 1; a < argc; a++) {
        if (strcmp(argv[a], "--once") == 0 && a + 3 < argc) {
            status = run_once(argv[a + 1], argv[a + 2], atof(argv[a + 3]));
            bench_sundials_close();
            return status;
        }
        if (strcmp(argv[a], "--min-time") == 0 && a + 1 < argc)
            min_time = atof(argv[++a]);
        else if (strcmp(argv[a], "--problem") == 0 && a + 1 < argc)
            only_problem = argv[++a];
        else {
            fprintf(stderr, "usage: bench_explicit [--min-time S] [--problem NAME]"
                            " | --once SOLVER PROBLEM RTOL\n");
            bench_sundials_close();
            return 2;
        }
    }
    status = run_table(min_time, only_problem);
    bench_sundials_close();
    return status;
}

static int run_table(double min_time, const char *only_problem)
{
    printf("problem   solver      rtol     scd    CPU_ms   steps  f_evals   etf  status\n");
    for (int p = 0; p < bench_nonstiff_n_cases; p++) {
        const bench_case *bc = &bench_nonstiff_cases[p];
        if (only_problem && strcmp(only_problem, bc->name) != 0)
            continue;
        static bench_result res[N_SOLVERS][N_TOLS];
        memset(res, 0, sizeof res);
        for (int s = 0; s < N_SOLVERS; s++) {
            bench_solver solver;
            if (solver_by_name(solver_names[s], &solver) != 0)
                continue;
            for (int k = 0; k < N_TOLS; k++) {
                bench_run run = make_run(bc, rtols[k]);
                bench_measure(&solver, &run, min_time, &res[s][k]);
                print_result(bc->name, solver_names[s], rtols[k], &res[s][k]);
            }
        }
        for (int s = 1; s < N_SOLVERS; s++)
            print_ratio(bc->name, res, s, 0);
        print_ratio(bc->name, res, 1, 2);   /* RK853 / ABAM (issue 17) */
    }
    return 0;
}
