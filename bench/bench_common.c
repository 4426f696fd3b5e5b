/*
** Shared pieces of the benchmark programs (see bench.h): the hydae driver,
** CPU timing with repetitions, scd scoring, median and the interpolation
** of work-precision curves.
*/
#define _POSIX_C_SOURCE 200809L

#include "bench.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

double bench_case_atol(const bench_case *bc, double rtol)
{
    return bc->atol_fixed > 0.0 ? bc->atol_fixed : bc->atol_per_rtol * rtol;
}

/* -log10 of the largest |y_i - yref_i| / (floor + |yref_i|). */
static double digits_correct(const bench_case *bc, const double *y,
                             double floor)
{
    double worst = 0.0;
    for (int i = 0; i < bc->dae.n; i++) {
        double rel_err =
            fabs(y[i] - bc->y_ref[i]) / (floor + fabs(bc->y_ref[i]));
        if (isnan(rel_err))
            return -INFINITY;
        if (rel_err > worst)
            worst = rel_err;
    }
    return -log10(worst);
}

double bench_scd_relative(const bench_case *bc, const double *y, double rtol,
                          double atol)
{
    (void)rtol;
    (void)atol;
    return digits_correct(bc, y, 0.0);
}

double bench_scd_mixed(const bench_case *bc, const double *y, double rtol,
                       double atol)
{
    return digits_correct(bc, y, atol / rtol);
}

/* ------------------------------------------------------------------------
** hydae
*/

const char *bench_hydae_code_name(int rc)
{
    return rc == HY_TSTOP ? "tstop" : hydae_status_string(rc);
}

bench_solver bench_hydae_solver(const hy_integrator_ops *ops)
{
    bench_solver solver = {ops->name, bench_hydae_solve, ops};
    return solver;
}

int bench_hydae_solve(const bench_solver *solver, const bench_run *run,
                      bench_result *out)
{
    const bench_case *bc = run->bc;
    const hy_integrator_ops *ops = solver->ops;
    void *mem = ops->create(bc->dae.n);
    if (mem == NULL) {
        if (out)
            snprintf(out->status, sizeof out->status, "create failed");
        return 0;
    }
    hy_dae dae = bc->dae;
    if (!run->analytic_jac)
        dae.jac = NULL;

    hy_options opt;
    memset(&opt, 0, sizeof opt);
    opt.rtol = run->rtol;
    opt.atol = run->atol;
    opt.h0 = 0.0;               /* automatic */
    opt.max_order = run->max_order;
    opt.suppress_alg = 0;       /* every component in the error test */
    opt.no_interpolation = 1;   /* dense() only at t_end, a step's end */

    int rc = ops->init(mem, &dae, bc->t0, bc->y0, bc->yp0, &opt);
    double t = bc->t0;
    long n_calls = 0;
    while (rc == HYDAE_OK && t != bc->t_end && n_calls < BENCH_STEP_LIMIT) {
        rc = ops->step(mem, bc->t_end, &t);
        n_calls++;
    }
    int ok = rc >= 0 && t == bc->t_end;
    if (out) {
        if (ok && ops->dense(mem, bc->t_end, out->y, NULL) != 0)
            ok = 0;
        if (ok)
            snprintf(out->status, sizeof out->status, "ok");
        else if (rc < 0)
            snprintf(out->status, sizeof out->status, "%s at t=%.3g",
                     bench_hydae_code_name(rc), t);
        else
            snprintf(out->status, sizeof out->status, "%s at t=%.3g",
                     t == bc->t_end ? "dense failed" : "step limit", t);
        hy_stats st;
        memset(&st, 0, sizeof st);
        ops->get_stats(mem, &st);
        out->n_steps = st.n_steps;
        out->n_f_evals = st.n_res_evals;    /* FD evaluations included */
        out->n_jac_evals = st.n_jac_evals;
        out->n_lu = st.n_lu;
        out->n_err_fails = st.n_err_fails;
        out->n_conv_fails = st.n_conv_fails;
        out->n_nl_iters = st.n_newton_iters;
    }
    ops->destroy(mem);
    return ok;
}

/* ------------------------------------------------------------------------
** Timing
*/

double bench_cpu_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void bench_measure(const bench_solver *solver, const bench_run *run,
                   double min_time, bench_result *out)
{
    memset(out, 0, sizeof *out);
    double start = bench_cpu_seconds();
    out->ok = solver->solve(solver, run, out);
    double first = bench_cpu_seconds() - start;
    out->scd = out->ok ? run->bc->score(run->bc, out->y, run->rtol, run->atol)
                       : NAN;
    if (!out->ok || first >= min_time) {
        out->reps = 1;
        out->cpu_ms = 1e3 * first;
        return;
    }
    long reps = 0;
    double elapsed;
    start = bench_cpu_seconds();
    do {
        solver->solve(solver, run, NULL);
        reps++;
        elapsed = bench_cpu_seconds() - start;
    } while (elapsed < min_time);
    out->reps = reps;
    out->cpu_ms = 1e3 * elapsed / (double)reps;
}

/* ------------------------------------------------------------------------
** Statistics
*/

double bench_ratio(double a, double b)
{
    return b > 0.0 ? a / b : NAN;
}

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double bench_median(double *v, int n)
{
    if (n <= 0)
        return NAN;
    qsort(v, (size_t)n, sizeof *v, compare_doubles);
    return (n % 2) ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

void bench_curve_add(bench_curve *c, double scd, double work)
{
    if (!isfinite(scd) || !(work > 0.0) || !isfinite(work)
        || c->n >= BENCH_CURVE_MAX)
        return;
    int k = c->n++;
    while (k > 0 && c->scd[k - 1] > scd) {
        c->scd[k] = c->scd[k - 1];
        c->log_work[k] = c->log_work[k - 1];
        k--;
    }
    c->scd[k] = scd;
    c->log_work[k] = log(work);
}

/* Least-squares slope of log(work) vs scd, at least 0. */
static double fitted_slope(const bench_curve *c)
{
    double mean_scd = 0.0, mean_log_work = 0.0;
    for (int k = 0; k < c->n; k++) {
        mean_scd += c->scd[k] / c->n;
        mean_log_work += c->log_work[k] / c->n;
    }
    double covariance = 0.0, variance = 0.0;
    for (int k = 0; k < c->n; k++) {
        covariance += (c->scd[k] - mean_scd) * (c->log_work[k] - mean_log_work);
        variance += (c->scd[k] - mean_scd) * (c->scd[k] - mean_scd);
    }
    return variance > 0.0 && covariance > 0.0 ? covariance / variance : 0.0;
}

double bench_curve_work_at(const bench_curve *c, double x,
                           bench_extrapolation how, int *extrapolated)
{
    *extrapolated = c->n < 2 || x < c->scd[0] || x > c->scd[c->n - 1];
    if (c->n == 0)
        return NAN;
    if (c->n == 1)
        return exp(c->log_work[0]);
    if (*extrapolated && how == BENCH_EXTRAP_FITTED_SLOPE) {
        int end = x < c->scd[0] ? 0 : c->n - 1;
        return exp(c->log_work[end] + fitted_slope(c) * (x - c->scd[end]));
    }
    int k = 0;      /* segment [k, k+1] containing x, or the end one */
    while (k < c->n - 2 && x > c->scd[k + 1])
        k++;
    double scd_span = c->scd[k + 1] - c->scd[k];
    if (scd_span == 0.0)
        return exp(0.5 * (c->log_work[k] + c->log_work[k + 1]));
    double w = (x - c->scd[k]) / scd_span;
    return exp(c->log_work[k] + w * (c->log_work[k + 1] - c->log_work[k]));
}
