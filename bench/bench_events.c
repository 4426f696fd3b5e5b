/*
** Events per second and phase error (issue 11): the bouncing ball with
** e = 1, h' = v, v' = -g, impact when h falls through 0 -> v := -v (h is
** left where the event put it), from h = 1, v = 0, g = 9.81, over
** t = 0 .. 1e4. Closed form: impacts at t1 (2k + 1), t1 = sqrt(2 / g),
** k = 0 .. floor((1e4 - t1) / (2 t1)): 11,074 impacts, the last at
** 9999.894076911.
**
** hydae with every integrator (the model through the C API, a transition
** on the guard h falling, its action v := -v by name; RK4 with h_max =
** 0.05) against SUNDIALS CVODE 6 Adams (fixed-point iteration) and BDF
** (dense Newton with the analytic Jacobian), each with its root finder
** (CVodeRootInit on g = h, CVodeSetRootDirection -1) and the reset done by
** CVodeReInit at the root with v negated: the usual way to write a hybrid
** model on CVODE. Same right-hand side, same tolerances (rtol, atol =
** rtol / 100), no output grid beyond the events.
**
** Measured per run: CPU time (CLOCK_PROCESS_CPUTIME_ID), impacts,
** impacts per CPU second, steps, and the phase error: the last impact's
** time against the closed form. Each (tolerance, solver) is run `--reps`
** times (default 5), the solvers interleaved within each repetition (a
** load change on the shared machine hits all of them alike); the table
** shows the medians. Usage: bench_events [--reps N] [--csv FILE] [--solver
** NAME] (one solver of the table only) [--guard-samples N] (hydae's
** interior guard samples per step; default 3).
*/
#include "sundials_solvers.h"

#include "hydae.h"

#include <cvode/cvode.h>
#include <math.h>
#include <nvector/nvector_serial.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sunlinsol/sunlinsol_dense.h>
#include <sunmatrix/sunmatrix_dense.h>
#include <sunnonlinsol/sunnonlinsol_fixedpoint.h>

#define G_ACCEL 9.81
#define H_START 1.0
#define T_END 1e4
#define MAX_REPS 31

typedef struct ball_run {
    int ok;
    char status[96];
    double cpu_s;
    long n_impacts;
    double t_last;              /* time of the last impact */
    long n_steps;
} ball_run;

/* ---- the closed form ---- */

static double first_impact(void)
{
    return sqrt(2.0 * H_START / G_ACCEL);
}

static long exact_impacts(void)
{
    return (long)floor((T_END - first_impact()) / (2.0 * first_impact())) + 1;
}

static double exact_last_impact(void)
{
    return first_impact() * (2.0 * (double)(exact_impacts() - 1) + 1.0);
}

/* ---- hydae ---- */

static int ball_rhs(double t, const double *y, const double *p, double *ydot, void *user)
{
    (void)t, (void)p, (void)user;
    ydot[0] = y[1];
    ydot[1] = -G_ACCEL;
    return 0;
}

static int ball_jac(double t, double cj, const double *y, const double *yp, const double *p,
                    double *jac, void *user)
{
    (void)t, (void)cj, (void)y, (void)yp, (void)p, (void)user;
    jac[0] = 0.0, jac[1] = 0.0;     /* d/dh */
    jac[2] = 1.0, jac[3] = 0.0;     /* d/dv */
    return 0;
}

static int ball_guard(double t, const double *y, const double *yp, const double *p, double *g,
                      void *user)
{
    (void)t, (void)yp, (void)p, (void)user;
    g[0] = y[0];
    return 0;
}

static int bounce(hydae_action *a, void *user)
{
    (void)user;
    return hydae_set(a, "v", -hydae_get(a, "v"));
}

static hydae_model *ball_model(void)
{
    hydae_model *m = hydae_model_create("ball");
    hydae_chart *c = hydae_model_add_chart(m, "ball");
    hydae_mode *fly = hydae_chart_add_mode(c, "flight");
    hydae_transition *tr = hydae_chart_add_transition(c, "bounce", fly, fly);
    int ok = hydae_mode_add_var(fly, "h", HYDAE_DIFFERENTIAL, H_START) == 0
             && hydae_mode_add_var(fly, "v", HYDAE_DIFFERENTIAL, 0.0) == 1
             && hydae_mode_set_rhs(fly, ball_rhs, NULL) == 0
             && hydae_mode_set_jacobian(fly, ball_jac) == 0
             && hydae_mode_set_guards(fly, 1, ball_guard) == 0 && tr
             && hydae_transition_on_guard(tr, 0, HYDAE_FALLING) == 0
             && hydae_transition_set_action(tr, bounce, NULL) == 0
             && hydae_model_check(m) == 0;
    if (!ok) {
        fprintf(stderr, "bench_events: the model: %s\n", hydae_model_errmsg(m));
        hydae_model_free(m);
        return NULL;
    }
    return m;
}

static int count_impact(void *user, hydae_row_kind kind, double t, const double *values)
{
    (void)values;
    ball_run *r = user;
    if (kind == HYDAE_ROW_EVENT_RIGHT) {
        r->n_impacts++;
        r->t_last = t;
    }
    return 0;
}

static const char *guard_samples = NULL;    /* --guard-samples N, or the default */

static void run_hydae(hydae_model *m, const char *solver, double rtol, ball_run *r)
{
    memset(r, 0, sizeof *r);
    int status;
    hydae_sim *s = hydae_sim_create(m, &status);
    int ok = s && hydae_sim_set_integrator(s, solver) == 0
             && hydae_sim_set_time(s, 0.0, T_END) == 0
             && hydae_sim_set_output_interval(s, T_END) == 0
             && hydae_sim_set_tolerances(s, rtol, 1e-2 * rtol) == 0
             && hydae_sim_set_max_steps(s, 100000000L) == 0
             && hydae_sim_add_row_sink(s, count_impact, r) == 0
             && (strcmp(solver, "RK4") != 0 || hydae_sim_set_step_limits(s, 0.0, 0.05, 0.0) == 0)
             && (!guard_samples || hydae_sim_set_option(s, "guard_samples", guard_samples) == 0);
    double start = bench_cpu_seconds();
    status = ok ? hydae_sim_run(s) : -1;
    r->cpu_s = bench_cpu_seconds() - start;
    r->ok = status == 0;
    snprintf(r->status, sizeof r->status, "%s", status == 0 ? "ok" : s ? hydae_sim_errmsg(s) : "?");
    hydae_stats st;
    hydae_sim_get_stats(s, &st);
    r->n_steps = st.n_steps;
    hydae_sim_free(s);
}

/* ---- CVODE with its root finder ---- */

static int cv_rhs(sunrealtype t, N_Vector y, N_Vector ydot, void *user)
{
    (void)user;
    return ball_rhs(t, N_VGetArrayPointer(y), NULL, N_VGetArrayPointer(ydot), NULL);
}

static int cv_jac(sunrealtype t, N_Vector y, N_Vector fy, SUNMatrix jac, void *user,
                  N_Vector tmp1, N_Vector tmp2, N_Vector tmp3)
{
    (void)fy, (void)user, (void)tmp1, (void)tmp2, (void)tmp3;
    return ball_jac(t, 0.0, N_VGetArrayPointer(y), NULL, NULL, SUNDenseMatrix_Data(jac), NULL);
}

static int cv_root(sunrealtype t, N_Vector y, sunrealtype *g, void *user)
{
    (void)user;
    return ball_guard(t, N_VGetArrayPointer(y), NULL, NULL, g, NULL);
}

/* CVODE (lmm CV_ADAMS or CV_BDF) over [0, T_END]: at each root the ball
** bounces (v := -v) and CVODE is reinitialised there. */
static void run_cvode(int lmm, double rtol, ball_run *r)
{
    SUNContext ctx = bench_sundials_context();
    memset(r, 0, sizeof *r);
    double start = bench_cpu_seconds();
    N_Vector y = N_VNew_Serial(2, ctx);
    void *mem = CVodeCreate(lmm, ctx);
    SUNMatrix mat = NULL;
    SUNLinearSolver lin = NULL;
    SUNNonlinearSolver fixed_point = NULL;
    double *yv = N_VGetArrayPointer(y);
    yv[0] = H_START, yv[1] = 0.0;
    int direction = -1;
    int flag = CVodeInit(mem, cv_rhs, 0.0, y);
    flag = flag ? flag : CVodeSStolerances(mem, rtol, 1e-2 * rtol);
    if (lmm == CV_BDF) {
        mat = SUNDenseMatrix(2, 2, ctx);
        lin = SUNLinSol_Dense(y, mat, ctx);
        flag = flag ? flag : CVodeSetLinearSolver(mem, lin, mat);
        flag = flag ? flag : CVodeSetJacFn(mem, cv_jac);
    } else {
        fixed_point = SUNNonlinSol_FixedPoint(y, 0, ctx);
        flag = flag ? flag : CVodeSetNonlinearSolver(mem, fixed_point);
    }
    flag = flag ? flag : CVodeSetMaxNumSteps(mem, 100000000L);
    flag = flag ? flag : CVodeRootInit(mem, 1, cv_root);
    flag = flag ? flag : CVodeSetRootDirection(mem, &direction);
    flag = flag ? flag : CVodeSetStopTime(mem, T_END);
    double t = 0.0;
    long n_steps = 0;
    while (flag == 0 && t < T_END) {
        flag = CVode(mem, T_END, y, &t, CV_NORMAL);
        long segment_steps = 0;
        CVodeGetNumSteps(mem, &segment_steps);
        if (flag == CV_ROOT_RETURN) {
            n_steps += segment_steps;
            r->n_impacts++;
            r->t_last = t;
            yv[1] = -yv[1];
            flag = CVodeReInit(mem, t, y);
        } else if (flag >= 0) {
            n_steps += segment_steps;
            flag = t >= T_END ? 0 : flag;
        }
    }
    r->cpu_s = bench_cpu_seconds() - start;
    r->ok = flag == 0 && t >= T_END;
    snprintf(r->status, sizeof r->status, r->ok ? "ok" : "CVODE flag %d at t = %.17g", flag, t);
    r->n_steps = n_steps;
    CVodeFree(&mem);
    SUNNonlinSolFree(fixed_point);
    SUNLinSolFree(lin);
    SUNMatDestroy(mat);
    N_VDestroy(y);
}

/* ---- the table ---- */

typedef struct solver_entry {
    const char *name;
    int cvode_lmm;              /* 0: hydae with integrator `name` */
} solver_entry;

static const solver_entry solvers[] = {
    { "DSTIFF", 0 }, { "VSTIFF", 0 }, { "MSTIFF", 0 }, { "ABAM", 0 }, { "RK45", 0 },
    { "RK4", 0 },    { "CVODE Adams", CV_ADAMS }, { "CVODE BDF", CV_BDF },
};
enum { N_SOLVERS = sizeof solvers / sizeof solvers[0] };

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, compare_doubles);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

int main(int argc, char **argv)
{
    int reps = 5;
    const char *csv_path = NULL, *only = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc)
            reps = atoi(argv[++i]);
        else if (strcmp(argv[i], "--csv") == 0 && i + 1 < argc)
            csv_path = argv[++i];
        else if (strcmp(argv[i], "--solver") == 0 && i + 1 < argc)
            only = argv[++i];
        else if (strcmp(argv[i], "--guard-samples") == 0 && i + 1 < argc)
            guard_samples = argv[++i];
        else {
            fprintf(stderr, "usage: bench_events [--reps N] [--csv FILE] [--solver NAME] "
                            "[--guard-samples N]\n");
            return 2;
        }
    }
    if (reps < 1 || reps > MAX_REPS || bench_sundials_open() != 0) {
        fprintf(stderr, "bench_events: --reps 1..%d, and a SUNDIALS context\n", MAX_REPS);
        return 2;
    }
    hydae_model *model = ball_model();
    if (!model)
        return 1;
    FILE *csv = csv_path ? fopen(csv_path, "w") : NULL;
    if (csv)
        fprintf(csv, "rtol,solver,ok,impacts,impacts_exact,last_impact_error,steps,cpu_s_median,"
                     "impacts_per_cpu_s\n");
    printf("bouncing ball e = 1 over [0, %g]: %ld impacts, the last at %.13g (closed form); "
           "SUNDIALS %s; medians of %d interleaved repetitions\n\n", T_END, exact_impacts(),
           exact_last_impact(), bench_sundials_version(), reps);
    printf("| rtol | solver | impacts | last impact - closed form [s] | steps | CPU [ms] | "
           "impacts per CPU s |\n|---|---|---|---|---|---|---|\n");
    static const double rtols[] = { 1e-6, 1e-8, 1e-10 };
    for (size_t k = 0; k < sizeof rtols / sizeof rtols[0]; k++) {
        double cpu[N_SOLVERS][MAX_REPS];
        ball_run first[N_SOLVERS];
        for (int rep = 0; rep < reps; rep++)
            for (int s = 0; s < N_SOLVERS; s++) {
                ball_run r;
                if (only && strcmp(only, solvers[s].name) != 0) {
                    memset(&r, 0, sizeof r);
                    cpu[s][rep] = 0.0;
                    first[s] = r;
                    continue;
                }
                if (solvers[s].cvode_lmm)
                    run_cvode(solvers[s].cvode_lmm, rtols[k], &r);
                else
                    run_hydae(model, solvers[s].name, rtols[k], &r);
                cpu[s][rep] = r.cpu_s;
                if (rep == 0)
                    first[s] = r;
            }
        for (int s = 0; s < N_SOLVERS; s++) {
            const ball_run *r = &first[s];
            if (only && strcmp(only, solvers[s].name) != 0)
                continue;
            double cpu_median = median(cpu[s], reps);
            double phase = r->t_last - exact_last_impact();
            if (!r->ok)
                printf("| %g | %s | FAIL: %s | | | | |\n", rtols[k], solvers[s].name, r->status);
            else
                printf("| %g | %s | %ld | %+.2e | %ld | %.1f | %.0f |\n", rtols[k],
                       solvers[s].name, r->n_impacts, r->n_impacts == exact_impacts() ? phase
                                                                                : NAN,
                       r->n_steps, 1e3 * cpu_median, (double)r->n_impacts / cpu_median);
            if (csv)
                fprintf(csv, "%g,%s,%d,%ld,%ld,%.17g,%ld,%.17g,%.17g\n", rtols[k],
                        solvers[s].name, r->ok, r->n_impacts, exact_impacts(), phase,
                        r->n_steps, cpu_median, (double)r->n_impacts / cpu_median);
        }
    }
    if (csv)
        fclose(csv);
    hydae_model_free(model);
    bench_sundials_close();
    return 0;
}
