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
** --min-time (default 0.2 s); the counters come from the first run.
*/
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <ida/ida.h>
#include <nvector/nvector_serial.h>
#include <sundials/sundials_context.h>
#include <sunlinsol/sunlinsol_dense.h>
#include <sunmatrix/sunmatrix_dense.h>

#include "integrators/integrator.h"
#include "problems.h"

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
    int ok;             /* 1 if t_end was reached */
    char status[48];
    double y[BENCH_MAX_N];
    double scd;
    int worst;          /* 1-based component giving the scd, 0 if none */
    double cpu_ms;      /* mean CPU time of one run */
    long reps;
    long steps, res_evals, jac_evals, lu, err_fails, conv_fails, nl_iters;
} run_result;

static double cpu_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
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
** hydae DSTIFF
*/

static const char *hy_code_name(int rc)
{
    switch (rc) {
    case HY_OK: return "ok";
    case HY_TSTOP: return "tstop";
    case HY_ERR_NOMEM: return "HY_ERR_NOMEM";
    case HY_ERR_ARG: return "HY_ERR_ARG";
    case HY_ERR_RES: return "HY_ERR_RES";
    case HY_ERR_CONV: return "HY_ERR_CONV";
    case HY_ERR_ERRTEST: return "HY_ERR_ERRTEST";
    case HY_ERR_HMIN: return "HY_ERR_HMIN";
    case HY_ERR_SINGULAR: return "HY_ERR_SINGULAR";
    case HY_ERR_JAC: return "HY_ERR_JAC";
    default: return "HY_ERR_?";
    }
}

#define HYDAE_STEP_LIMIT 50000000L

/* One complete hydae run; with out != NULL the solution and counters are
** stored. Returns 1 if t_end was reached. */
static int hydae_solve(const run_spec *rs, run_result *out)
{
    const bench_problem *p = rs->prob;
    const hy_integrator_ops *ops = &hy_dstiff;
    int ok = 0;
    void *mem = ops->create(p->n);
    if (mem == NULL) {
        if (out)
            snprintf(out->status, sizeof out->status, "create failed");
        return 0;
    }
    hy_dae dae;
    memset(&dae, 0, sizeof dae);
    dae.n = p->n;
    dae.res = p->res;
    dae.jac = rs->analytic_jac ? p->jac : NULL;
    dae.ctx = NULL;
    dae.is_algebraic = p->is_algebraic;

    hy_options opt;
    memset(&opt, 0, sizeof opt);
    opt.rtol = rs->rtol;
    opt.atol = rs->atol;
    opt.atol_vec = NULL;
    opt.h0 = 0.0;           /* automatic */
    opt.h_min = 0.0;
    opt.h_max = 0.0;
    opt.max_order = 5;
    opt.max_steps = 0;
    opt.suppress_alg = 0;   /* every component in the error test, as IDA */

    int rc = ops->init(mem, &dae, p->t0, p->y0, p->yp0, &opt);
    double t = p->t0;
    long nstep = 0;
    if (rc == HY_OK) {
        while (t != p->t_end && nstep < HYDAE_STEP_LIMIT) {
            rc = ops->step(mem, p->t_end, &t);
            nstep++;
            if (rc < 0 || rc == HY_TSTOP)
                break;
        }
    }
    if (rc >= 0 && t == p->t_end) {
        ok = 1;
        if (out)
            snprintf(out->status, sizeof out->status, "ok");
    } else if (out) {
        if (rc < 0)
            snprintf(out->status, sizeof out->status, "%s at t=%.3g",
                     hy_code_name(rc), t);
        else
            snprintf(out->status, sizeof out->status, "step limit at t=%.3g",
                     t);
    }
    if (out) {
        if (ok) {
            if (ops->dense(mem, p->t_end, out->y, NULL) != 0) {
                ok = 0;
                snprintf(out->status, sizeof out->status, "dense failed");
            }
        }
        hy_stats st;
        memset(&st, 0, sizeof st);
        ops->get_stats(mem, &st);
        out->steps = st.n_steps;
        out->res_evals = st.n_res_evals;
        out->jac_evals = st.n_jac_evals;
        out->lu = st.n_lu;
        out->err_fails = st.n_err_fails;
        out->conv_fails = st.n_conv_fails;
        out->nl_iters = st.n_newton_iters;
    }
    ops->destroy(mem);
    return ok;
}

/* ------------------------------------------------------------------------
** SUNDIALS IDA: thin adapters around the same problem functions
*/

static SUNContext sun_ctx;

static int ida_res_adapter(sunrealtype t, N_Vector yy, N_Vector yp,
                           N_Vector rr, void *user_data)
{
    const bench_problem *p = user_data;
    return p->res(t, N_VGetArrayPointer(yy), N_VGetArrayPointer(yp),
                  N_VGetArrayPointer(rr), NULL);
}

static int ida_jac_adapter(sunrealtype t, sunrealtype cj, N_Vector yy,
                           N_Vector yp, N_Vector rr, SUNMatrix J,
                           void *user_data, N_Vector tmp1, N_Vector tmp2,
                           N_Vector tmp3)
{
    (void)rr;
    (void)tmp1;
    (void)tmp2;
    (void)tmp3;
    const bench_problem *p = user_data;
    /* SUNDenseMatrix data is column-major with leading dimension n, the
    ** layout of hy_jac_fn. */
    return p->jac(t, cj, N_VGetArrayPointer(yy), N_VGetArrayPointer(yp),
                  SUNDenseMatrix_Data(J), NULL);
}

static int ida_solve(const run_spec *rs, run_result *out)
{
    const bench_problem *p = rs->prob;
    int ok = 0, flag = 0;
    const char *where = "";
    void *mem = NULL;
    N_Vector y = NULL, yp = NULL, id = NULL;
    SUNMatrix A = NULL;
    SUNLinearSolver LS = NULL;
    sunrealtype tret = p->t0;

    y = N_VNew_Serial(p->n, sun_ctx);
    yp = N_VNew_Serial(p->n, sun_ctx);
    id = N_VNew_Serial(p->n, sun_ctx);
    A = SUNDenseMatrix(p->n, p->n, sun_ctx);
    mem = IDACreate(sun_ctx);
    if (!y || !yp || !id || !A || !mem) {
        where = "allocation";
        flag = -1;
        goto done;
    }
    for (int i = 0; i < p->n; i++) {
        NV_Ith_S(y, i) = p->y0[i];
        NV_Ith_S(yp, i) = p->yp0[i];
        NV_Ith_S(id, i) = p->is_algebraic[i] ? 0.0 : 1.0;
    }
    LS = SUNLinSol_Dense(y, A, sun_ctx);
    if (!LS) {
        where = "SUNLinSol_Dense";
        flag = -1;
        goto done;
    }
#define IDA_CALL(call)             \
    do {                           \
        flag = (call);             \
        if (flag < 0) {            \
            where = #call;         \
            goto done;             \
        }                          \
    } while (0)
    IDA_CALL(IDAInit(mem, ida_res_adapter, p->t0, y, yp));
    IDA_CALL(IDASStolerances(mem, rs->rtol, rs->atol));
    IDA_CALL(IDASetUserData(mem, (void *)p));
    IDA_CALL(IDASetLinearSolver(mem, LS, A));
    if (rs->analytic_jac)
        IDA_CALL(IDASetJacFn(mem, ida_jac_adapter));
    IDA_CALL(IDASetMaxOrd(mem, 5));
    IDA_CALL(IDASetMaxNumSteps(mem, HYDAE_STEP_LIMIT));
    IDA_CALL(IDASetStopTime(mem, p->t_end));
    /* Informs IDA which components are algebraic (the error test still
    ** includes them: suppressalg stays off, as in hydae). */
    IDA_CALL(IDASetId(mem, id));
    IDA_CALL(IDASolve(mem, p->t_end, &tret, y, yp, IDA_NORMAL));
#undef IDA_CALL
    ok = (tret == p->t_end);
    if (!ok)
        where = "IDASolve stopped short";

done:
    if (out) {
        if (ok) {
            snprintf(out->status, sizeof out->status, "ok");
            for (int i = 0; i < p->n; i++)
                out->y[i] = NV_Ith_S(y, i);
        } else {
            snprintf(out->status, sizeof out->status, "IDA flag %d at t=%.3g",
                     flag, (double)tret);
            (void)where;
        }
        if (mem) {
            long v = 0, lr = 0;
            IDAGetNumSteps(mem, &v);
            out->steps = v;
            IDAGetNumResEvals(mem, &v);
            IDAGetNumLinResEvals(mem, &lr);
            out->res_evals = v + lr;   /* FD Jacobian's evaluations included */
            IDAGetNumJacEvals(mem, &v);
            out->jac_evals = v;
            /* dense solver: every setup is one Jacobian + one LU */
            IDAGetNumLinSolvSetups(mem, &v);
            out->lu = v;
            IDAGetNumErrTestFails(mem, &v);
            out->err_fails = v;
            IDAGetNumNonlinSolvConvFails(mem, &v);
            out->conv_fails = v;
            IDAGetNumNonlinSolvIters(mem, &v);
            out->nl_iters = v;
        }
    }
    if (mem)
        IDAFree(&mem);
    if (LS)
        SUNLinSolFree(LS);
    if (A)
        SUNMatDestroy(A);
    if (id)
        N_VDestroy(id);
    if (yp)
        N_VDestroy(yp);
    if (y)
        N_VDestroy(y);
    return ok;
}

/* ------------------------------------------------------------------------
** Timing: a first run gives solution and counters; then repeat until the
** accumulated CPU time exceeds min_time and take the mean.
*/

static double min_time = 0.2;

static void measure(int solver, const run_spec *rs, run_result *r)
{
    int (*solve)(const run_spec *, run_result *) =
        solver == SOLVER_HYDAE ? hydae_solve : ida_solve;
    memset(r, 0, sizeof *r);
    double t0 = cpu_seconds();
    r->ok = solve(rs, r);
    double first = cpu_seconds() - t0;
    r->scd = r->ok ? compute_scd(rs->prob, r->y, &r->worst) : NAN;
    if (!r->ok || first >= min_time) {
        r->reps = 1;
        r->cpu_ms = 1e3 * first;
        return;
    }
    long reps = 0;
    t0 = cpu_seconds();
    double elapsed;
    do {
        solve(rs, NULL);
        reps++;
        elapsed = cpu_seconds() - t0;
    } while (elapsed < min_time);
    r->reps = reps;
    r->cpu_ms = 1e3 * elapsed / (double)reps;
}

/* ------------------------------------------------------------------------
** Output
*/

static double ratio(double a, double b)
{
    return (b > 0.0) ? a / b : NAN;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    if (n <= 0)
        return NAN;
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return (n % 2) ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

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
           solver_names[solver], r->scd, r->worst, r->cpu_ms, r->reps, r->steps,
           r->res_evals, r->jac_evals, r->lu, r->err_fails, r->conv_fails,
           r->nl_iters, r->status);
}

static void csv_row(FILE *f, const run_spec *rs, int solver,
                    const run_result *r, const run_result *ida)
{
    fprintf(f, "%s,%s,%.3g,%.3g,%s,%s,%.4f,%d,%.6g,%ld,%ld,%ld,%ld,%ld,%ld,%ld,"
               "%ld",
            rs->prob->name, rs->analytic_jac ? "analytic" : "fd", rs->rtol,
            rs->atol, solver_names[solver], r->ok ? "ok" : "fail", r->scd,
            r->worst, r->cpu_ms, r->reps, r->steps, r->res_evals, r->jac_evals, r->lu,
            r->err_fails, r->conv_fails, r->nl_iters);
    if (ida != NULL)
        fprintf(f, ",%.4f,%.4f,%.4f\n", ratio(r->cpu_ms, ida->cpu_ms),
                ratio((double)r->steps, (double)ida->steps),
                ratio((double)r->res_evals, (double)ida->res_evals));
    else
        fprintf(f, ",,,\n");
}

/* log(work) of the IDA curve at scd x, piecewise linear in the (scd sorted)
** points; outside the range, linear extrapolation from the end segment and
** *extrap set. */
static double interp_log_work(const double *scd, const double *lw, int n,
                              double x, int *extrap)
{
    *extrap = (x < scd[0] || x > scd[n - 1]);
    if (n == 1)
        return lw[0];
    int k = 0;
    while (k < n - 2 && x > scd[k + 1])
        k++;
    double dx = scd[k + 1] - scd[k];
    if (dx == 0.0)
        return 0.5 * (lw[k] + lw[k + 1]);
    double w = (x - scd[k]) / dx;
    return lw[k] + w * (lw[k + 1] - lw[k]);
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

    if (SUNContext_Create(NULL, &sun_ctx) != 0) {
        fprintf(stderr, "bench_dstiff_ida: SUNContext_Create failed\n");
        fclose(csv);
        return 1;
    }

    printf("hydae DSTIFF vs SUNDIALS IDA %s (dense LU, max order 5, automatic "
           "h0, min timing %.2g s per run)\n",
           SUNDIALS_VERSION, min_time);
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
               rs->atol, ratio(res_h[k].cpu_ms, res_i[k].cpu_ms),
               ratio((double)res_h[k].steps, (double)res_i[k].steps),
               ratio((double)res_h[k].res_evals, (double)res_i[k].res_evals),
               ratio(res_h[k].cpu_ms / (double)res_h[k].steps,
                     res_i[k].cpu_ms / (double)res_i[k].steps),
               res_h[k].scd - res_i[k].scd);
        fflush(stdout);
        csv_row(csv, rs, SOLVER_HYDAE, &res_h[k], &res_i[k]);
        csv_row(csv, rs, SOLVER_IDA, &res_i[k], NULL);
        failures += !res_h[k].ok + !res_i[k].ok;
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
            if (runs[k].prob != p || !res_h[k].ok || !res_i[k].ok)
                continue;
            v[nv++] = ratio(res_h[k].cpu_ms, res_i[k].cpu_ms);
            all[nall++] = v[nv - 1];
        }
        if (nv > 0)
            printf("  %-9s %.3f  (%d runs)\n", p->name, median(v, nv), nv);
    }
    printf("  %-9s %.3f  (%d runs)\n", "overall", median(all, nall), nall);

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
        double scd[8], lw[3][8];    /* log CPU, log steps, log res */
        int m = 0;
        for (int k = 0; k < nruns; k++) {
            if (runs[k].prob != p || !runs[k].main_series || !res_i[k].ok ||
                !isfinite(res_i[k].scd) || m >= 8)
                continue;
            scd[m] = res_i[k].scd;
            lw[0][m] = log(res_i[k].cpu_ms);
            lw[1][m] = log((double)res_i[k].steps);
            lw[2][m] = log((double)res_i[k].res_evals);
            m++;
        }
        if (m == 0)
            continue;
        for (int a = 1; a < m; a++)     /* insertion sort by scd */
            for (int b = a; b > 0 && scd[b] < scd[b - 1]; b--) {
                double sw = scd[b];
                scd[b] = scd[b - 1];
                scd[b - 1] = sw;
                for (int q = 0; q < 3; q++) {
                    sw = lw[q][b];
                    lw[q][b] = lw[q][b - 1];
                    lw[q][b - 1] = sw;
                }
            }
        double v_in[3][8], v_any[3][8];
        int n_in = 0, n_any = 0;
        for (int k = 0; k < nruns; k++) {
            if (runs[k].prob != p || !runs[k].main_series || !res_h[k].ok ||
                !isfinite(res_h[k].scd))
                continue;
            int extrap = 0;
            double ida_w[3], r[3];
            const double hy_w[3] = {res_h[k].cpu_ms, (double)res_h[k].steps,
                                    (double)res_h[k].res_evals};
            for (int q = 0; q < 3; q++) {
                ida_w[q] = exp(interp_log_work(scd, lw[q], m, res_h[k].scd,
                                              &extrap));
                r[q] = hy_w[q] / ida_w[q];
                v_any[q][n_any] = r[q];
                if (!extrap)
                    v_in[q][n_in] = r[q];
            }
            printf("  %-9s rtol %-7.0e hydae scd %5.2f: CPU %8.4f ms vs IDA "
                   "%8.4f ms -> CPU %.3f  steps %.3f  res %.3f%s\n",
                   p->name, runs[k].rtol, res_h[k].scd, res_h[k].cpu_ms,
                   ida_w[0], r[0], r[1], r[2],
                   extrap ? "  (extrapolated)" : "");
            eq_all[neq_all++] = r[0];
            n_any++;
            if (!extrap)
                n_in++;
        }
        printf("  %-9s median over %d points:   CPU %.3f  steps %.3f  res "
               "%.3f\n",
               p->name, n_any, median(v_any[0], n_any),
               median(v_any[1], n_any), median(v_any[2], n_any));
        printf("  %-9s median over the %d inside IDA's scd range: CPU %.3f  "
               "steps %.3f  res %.3f\n",
               p->name, n_in, median(v_in[0], n_in), median(v_in[1], n_in),
               median(v_in[2], n_in));
    }
    printf("  %-9s median CPU ratio at equal scd %.3f over %d points\n",
           "overall", median(eq_all, neq_all), neq_all);

    printf("\nCSV written to %s\n", csv_path);
    if (failures)
        printf("%d run(s) did not reach t_end (see status column)\n", failures);
    SUNContext_Free(&sun_ctx);
    return 0;
}
