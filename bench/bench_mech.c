/*
** bench_mech: seed 002's Table 2 (relative merits of the I3, SI1 and ODE
** formulations of constrained mechanical systems) as measured numbers, with
** SUNDIALS IDA on the same residuals as the reference point.
**
** Usage: bench_mech [--csv FILE] [--min-time SECONDS] [--batches N]
**                   [--problem NAME] [--verbose]
**
** Problems (tests/validation/mech_problems.c, compiled in as the mechanics
** tests include it): Cash's index-3 pendulum (t in [0, 1]), Andrews'
** squeezing mechanism (Test Set II.13, t in [0, 0.03]), the car axis (Test
** Set II.17, t in [0, 3]), and the pendulum with a horizontal force
** stepping from 0 to 1/2 at t = 0.5 (no event location: every method
** integrates straight through it). integr_tol 1e-4, 1e-6, 1e-8, 1e-9,
** 1e-10; Table 1 defaults (vel_tol_factor = dae_alg_tol_factor = 1000,
** rel_abs_tol_ratio = 1, dae_vel_ctrl TRUE), dae_constr_tol 1e-10 for the
** ODE form.
**
** Methods:
**   I3, SI1     hydae DSTIFF on mech_residual (src/mech/mech.h) with
**               dae_index 3 or 1: tolerances from mech_tolerances, error
**               test on q (I3) or q and u (SI1), mech_var_index's Newton
**               scaling, finite-difference Jacobian, max order 5.
**   ODE/VSTIFF, ODE/ABAM
**               hydae's ODE form by coordinate partitioning (mech_ode),
**               re-partitioned at accepted points as the tests do.
**   IDA/SI1     IDA on the same SI1 residual (mech_residual, dae_index 1)
**               from the same consistent start (mech_consistent_start):
**               the same rtol/atol vectors through IDAWFtolerances (an
**               error-weight function 1/(rtol_i |y_i| + atol_i), hydae's
**               weights; IDASVtolerances would take one scalar rtol only),
**               IDASetId with lambda and mu algebraic and
**               IDASetSuppressAlg on (so the same components, q and u, are
**               in the error test), IDA's own difference-quotient Jacobian,
**               dense LU, max order 5.
**   IDA/I3      IDA on the I3 residual, error test on q only as hydae's I3:
**               IDA can drop a component from its error test only with
**               suppressalg and id = 0, so u gets id = 0 as well as lambda
**               (IDA documents id for that and for IDACalcIC only, which
**               is not called here).
**   IDA/I3+u    IDA on the I3 residual with id = 0 for lambda only: u in
**               the error test with its Table 1 tolerance (1000 integr_tol).
**   IDA has no counterpart of DSTIFF's var_index (the Newton norm of u
**   and lambda times h and h^2 in I3, of mu times h in SI1).
**
** Measured per run: scd(q) at t_end against the reference (the test set's
** -log10 max_i |q_i - qref_i| / |qref_i|; the pendulum with the force step
** against a reference computed here, see jump_reference), accepted steps,
** residual (DAE) or f (ODE form) evaluations including finite-difference
** ones, Jacobians, LU factorisations, rejected steps (error test plus
** convergence failures), and at every accepted point max |Phi|,
** max |Phi_q u + Phi_t| and max |Phi_q u' - gamma| (the constraint and its
** first and second time derivatives: seed 002's "consistency"), and CPU
** time. A first, tracked run gives the solution, counters and constraint
** residuals; then untracked runs (no constraint evaluations, IDA in
** IDA_NORMAL mode with the stop time) are timed in --batches batches of
** --min-time / batches seconds each, CPU_ms being the median of the batch
** means (bench_cpu_seconds: process CPU time). Each run is complete:
** formulation set-up, consistent start, solver creation, integration,
** destruction. The first untracked run's counters are checked against the
** tracked run's (tracking must not change the integration).
**
** Ratios are hydae / IDA: at equal integr_tol, and at equal scd(q) (IDA's
** log(work) vs scd(q) piecewise linear over its tolerance points,
** continued outside them with the fitted slope: bench_curve_work_at with
** BENCH_EXTRAP_FITTED_SLOPE, as bench_suite does).
*/
#include "bench.h"
#include "sundials_solvers.h"

#include <ida/ida.h>
#include <nvector/nvector_serial.h>
#include <sunlinsol/sunlinsol_dense.h>
#include <sunmatrix/sunmatrix_dense.h>

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "validation/mech_problems.c"

/* Seed 002's Table 1 defaults, and the ODE form's dae_constr_tol. */
#define VEL_TOL_FACTOR 1000.0
#define ALG_TOL_FACTOR 1000.0
#define REL_ABS_TOL_RATIO 1.0
#define ODE_CONSTR_TOL 1e-10

/* Accepted steps a run may take (every successful run here needs < 10^4). */
#define MECH_STEP_LIMIT 200000L

#define MAX_Y 32        /* largest formulation: Andrews SI1, 26 */
#define MAX_Q 8
#define MAX_BATCHES 16

#define N_TOLS 5
static const double integr_tols[N_TOLS] = {1e-4, 1e-6, 1e-8, 1e-9, 1e-10};

/* ------------------------------------------------------------------------
** Problems
*/

typedef struct mech_problem {
    const char *name;
    const mech_system *sys;
    double t_end;
    const double *q0, *u0;
    const double *published_ref;    /* (q, ...) of reference.json, or NULL */
    double q_ref[MAX_Q];            /* reference q(t_end) */
    const char *smooth_twin;        /* the jump problem's smooth version */
} mech_problem;

enum { PROBLEM_PENDULUM, PROBLEM_ANDREWS, PROBLEM_CARAXIS, PROBLEM_PENDULUM_JUMP, N_PROBLEMS };
static mech_problem problems[N_PROBLEMS];

static void setup_problems(void)
{
    problems[PROBLEM_PENDULUM] = (mech_problem){"pendulum", &pendulum, 1.0, pend_y0, pend_y0 + 2,
                                                pendulum_ref, {0}, NULL};
    problems[PROBLEM_ANDREWS] = (mech_problem){"andrews", &andrews, 0.03, andrews_y0,
                                               andrews_y0 + 7, andrews_ref, {0}, NULL};
    problems[PROBLEM_CARAXIS] = (mech_problem){"caraxis", &caraxis, 3.0, car_y0, car_y0 + 4,
                                               car_ref, {0}, NULL};
    problems[PROBLEM_PENDULUM_JUMP] = (mech_problem){"pendulum+jump", &pendulum_jump, 1.0,
                                                     pend_y0, pend_y0 + 2, NULL, {0}, "pendulum"};
    for (int k = 0; k < N_PROBLEMS; k++)
        if (problems[k].published_ref != NULL)
            memcpy(problems[k].q_ref, problems[k].published_ref,
                   (size_t)problems[k].sys->n_q * sizeof(double));
}

/* The reference of the pendulum with the force step: the same motion as
** one angle, x = cos phi, y = sin phi (phi(0) = 0, phi'(0) = 1):
**     phi'' = -F_x sin phi - cos phi
** with F_x = 0 on [0, 0.5] and 1/2 on [0.5, 1], integrated as two legs
** (the second restarted at t = 0.5 exactly, so no step straddles the
** jump) by an explicit integrator at a tight tolerance. The smooth
** pendulum integrated the same way is checked against reference.json. */
typedef struct angle_ode {
    double force_x;
} angle_ode;

static int angle_rhs(double t, const double *y, double *ydot, void *ctx)
{
    (void)t;
    const angle_ode *a = ctx;
    ydot[0] = y[1];
    ydot[1] = -a->force_x * sin(y[0]) - cos(y[0]);
    return 0;
}

static int angle_res(double t, const double *y, const double *yp, double *res, void *ctx)
{
    double f[2];
    angle_rhs(t, y, f, ctx);
    res[0] = yp[0] - f[0];
    res[1] = yp[1] - f[1];
    return 0;
}

static int angle_reference(const hy_integrator_ops *ops, double tol, double force_x_after,
                           double q_end[2])
{
    double y[2] = {0.0, 1.0}, yp[2];
    const double leg_t[3] = {0.0, 0.5, 1.0};
    for (int leg = 0; leg < 2; leg++) {
        angle_ode a = {leg == 0 ? 0.0 : force_x_after};
        hy_dae dae;
        memset(&dae, 0, sizeof dae);
        dae.n = 2;
        dae.res = angle_res;
        dae.rhs = angle_rhs;
        dae.ctx = &a;
        hy_options opt;
        memset(&opt, 0, sizeof opt);
        opt.rtol = tol;
        opt.atol = tol;
        void *mem = ops->create(2);
        if (mem == NULL)
            return -1;
        double t = leg_t[leg];
        angle_rhs(t, y, yp, &a);
        int rc = ops->init(mem, &dae, t, y, yp, &opt);
        while (rc >= 0 && t < leg_t[leg + 1])
            rc = ops->step(mem, leg_t[leg + 1], &t);
        if (rc >= 0)
            rc = ops->dense(mem, leg_t[leg + 1], y, NULL);
        ops->destroy(mem);
        if (rc < 0)
            return rc;
    }
    q_end[0] = cos(y[0]);
    q_end[1] = sin(y[0]);
    return 0;
}

#define REFERENCE_TOL 1e-13

/* Fills the jump problem's reference; returns 0 and prints the checks. */
static int jump_reference(FILE *out)
{
    double smooth_rk45[2], smooth_abam[2], jump_rk45[2], jump_abam[2];
    if (angle_reference(&hy_rk45, REFERENCE_TOL, 0.0, smooth_rk45) != 0
        || angle_reference(&hy_abam, REFERENCE_TOL, 0.0, smooth_abam) != 0
        || angle_reference(&hy_rk45, REFERENCE_TOL, 0.5, jump_rk45) != 0
        || angle_reference(&hy_abam, REFERENCE_TOL, 0.5, jump_abam) != 0)
        return -1;
    memcpy(problems[PROBLEM_PENDULUM_JUMP].q_ref, jump_rk45, sizeof jump_rk45);
    fprintf(out,
            "Reference of pendulum+jump: the angle form phi'' = -F_x sin phi - cos phi in two "
            "legs split at t = 0.5, RK45 at rtol = atol = %g. Checks: the smooth pendulum the "
            "same way against reference.json, scd(q) %.2f (RK45), %.2f (ABAM); the jump "
            "reference by RK45 and by ABAM agree to scd %.2f.\n\n",
            REFERENCE_TOL, scd(smooth_rk45, pendulum_ref, 0, 2),
            scd(smooth_abam, pendulum_ref, 0, 2), scd(jump_abam, jump_rk45, 0, 2));
    return 0;
}

/* ------------------------------------------------------------------------
** Methods and one run
*/

typedef enum { DRIVER_HYDAE_DAE, DRIVER_HYDAE_ODE, DRIVER_IDA } driver_kind;

typedef struct method {
    const char *name;
    driver_kind driver;
    int dae_index;                  /* DAE forms: 3 (I3) or 1 (SI1) */
    const hy_integrator_ops *ops;   /* hydae */
    /* IDA: 1: id = 0 for exactly the components hydae keeps out of its
    ** error test (I3: u and lambda; SI1: lambda and mu); 0: id = 0 for
    ** the multipliers only (I3: lambda). */
    int ida_error_test_as_hydae;
} method;

enum { M_I3, M_SI1, M_ODE_VSTIFF, M_ODE_ABAM, M_IDA_SI1, M_IDA_I3, M_IDA_I3_U, N_METHODS };
static const method methods[N_METHODS] = {
    {"I3", DRIVER_HYDAE_DAE, 3, &hy_dstiff, 0},
    {"SI1", DRIVER_HYDAE_DAE, 1, &hy_dstiff, 0},
    {"ODE/VSTIFF", DRIVER_HYDAE_ODE, 0, &hy_vstiff, 0},
    {"ODE/ABAM", DRIVER_HYDAE_ODE, 0, &hy_abam, 0},
    {"IDA/SI1", DRIVER_IDA, 1, NULL, 1},
    {"IDA/I3", DRIVER_IDA, 3, NULL, 1},
    {"IDA/I3+u", DRIVER_IDA, 3, NULL, 0},
};

typedef struct run_outcome {
    int ok;                     /* reached t_end */
    char status[192];
    double q_end[MAX_Q];        /* q(t_end) (tracked runs) */
    /* Maxima over the accepted points, t0 included (tracked runs). */
    double max_phi;             /* max_i |Phi_i| */
    double max_vel_residual;    /* max_i |(Phi_q u + Phi_t)_i| */
    double max_acc_residual;    /* max_i |(Phi_q u' - gamma)_i| */
    long steps, evals, jacobians, lu_factorisations, err_fails, conv_fails;
} run_outcome;

static void track_point(const mech_system *sys, double t, const double *q, const double *u,
                        const double *up, run_outcome *o)
{
    double phi[MAX_Q];
    sys->constraint(t, q, phi, sys->user);
    for (int i = 0; i < sys->n_c; i++)
        o->max_phi = fmax(o->max_phi, fabs(phi[i]));
    o->max_vel_residual = fmax(o->max_vel_residual, vel_residual(sys, t, q, u));
    o->max_acc_residual = fmax(o->max_acc_residual, accel_residual(sys, t, q, u, up));
}

/* Formulation set-up shared by DSTIFF and IDA: consistent start and Table
** 1's tolerances. 0 or a hydae code. */
typedef struct dae_setup {
    mech_dae md;
    double y0[MAX_Y], yp0[MAX_Y], rtol[MAX_Y], atol[MAX_Y];
    unsigned char err_test_exclude[MAX_Y], var_index[MAX_Y];
} dae_setup;

static int dae_setup_init(dae_setup *s, const mech_problem *p, int dae_index, double integr_tol)
{
    int rc = mech_dae_init(&s->md, p->sys, dae_index);
    if (rc != 0)
        return rc;
    rc = mech_consistent_start(&s->md, 0.0, p->q0, p->u0, s->y0, s->yp0);
    if (rc != 0) {
        mech_dae_free(&s->md);
        return rc;
    }
    mech_tolerances(&s->md, integr_tol, REL_ABS_TOL_RATIO, VEL_TOL_FACTOR, ALG_TOL_FACTOR, 1,
                    s->rtol, s->atol, s->err_test_exclude);
    mech_var_index(&s->md, s->var_index);
    return 0;
}

static int run_hydae_dae(const method *m, const mech_problem *p, double integr_tol, int track,
                         run_outcome *o)
{
    const mech_system *sys = p->sys;
    int n_q = sys->n_q;
    dae_setup s;
    int rc = dae_setup_init(&s, p, m->dae_index, integr_tol);
    if (rc != 0) {
        snprintf(o->status, sizeof o->status, "set-up failed: %s", bench_hydae_code_name(rc));
        return 0;
    }
    hy_options opt;
    memset(&opt, 0, sizeof opt);
    opt.rtol_vec = s.rtol;
    opt.atol_vec = s.atol;
    opt.err_test_exclude = s.err_test_exclude;
    opt.var_index = s.var_index;
    hy_dae dae = mech_dae_problem(&s.md);
    void *mem = m->ops->create(s.md.n);
    if (mem == NULL) {
        mech_dae_free(&s.md);
        snprintf(o->status, sizeof o->status, "create failed");
        return 0;
    }
    double t = 0.0, y[MAX_Y], yp[MAX_Y];
    rc = m->ops->init(mem, &dae, 0.0, s.y0, s.yp0, &opt);
    if (track && rc >= 0)
        track_point(sys, 0.0, s.y0, s.y0 + n_q, s.yp0 + n_q, o);
    long n_calls = 0;
    while (rc >= 0 && t < p->t_end && n_calls++ < MECH_STEP_LIMIT) {
        rc = m->ops->step(mem, p->t_end, &t);
        if (rc >= 0 && track) {
            m->ops->dense(mem, t, y, yp);
            track_point(sys, t, y, y + n_q, yp + n_q, o);
        }
    }
    o->ok = rc >= 0 && t == p->t_end;
    if (o->ok && track) {
        m->ops->dense(mem, p->t_end, y, NULL);
        memcpy(o->q_end, y, (size_t)n_q * sizeof(double));
    }
    if (!o->ok && rc >= 0)
        snprintf(o->status, sizeof o->status, "step limit at t=%.3g", t);
    else if (!o->ok)
        snprintf(o->status, sizeof o->status, "%s at t=%.3g (worst component y[%d])",
                 bench_hydae_code_name(rc), t, m->ops->worst_component(mem));
    hy_stats st;
    memset(&st, 0, sizeof st);
    m->ops->get_stats(mem, &st);
    o->steps = st.n_steps;
    o->evals = st.n_res_evals;
    o->jacobians = st.n_jac_evals;
    o->lu_factorisations = st.n_lu;
    o->err_fails = st.n_err_fails;
    o->conv_fails = st.n_conv_fails;
    m->ops->destroy(mem);
    mech_dae_free(&s.md);
    return o->ok;
}

static int run_hydae_ode(const method *m, const mech_problem *p, double integr_tol, int track,
                         run_outcome *o)
{
    const mech_system *sys = p->sys;
    mech_ode mo;
    if (mech_ode_init(&mo, sys, ODE_CONSTR_TOL) != 0) {
        snprintf(o->status, sizeof o->status, "mech_ode_init failed");
        return 0;
    }
    int n = mo.n;
    double y[MAX_Y], yp[MAX_Y], rtol[MAX_Y], atol[MAX_Y], q[MAX_Q], u[MAX_Q], up[MAX_Q];
    int rc = mech_ode_partition(&mo, 0.0, p->q0, p->u0, y);
    void *mem = rc == 0 ? m->ops->create(n) : NULL;
    if (mem == NULL) {
        mech_ode_free(&mo);
        snprintf(o->status, sizeof o->status, "partition or create failed");
        return 0;
    }
    mech_ode_tolerances(&mo, integr_tol, REL_ABS_TOL_RATIO, VEL_TOL_FACTOR, rtol, atol);
    hy_options opt;
    memset(&opt, 0, sizeof opt);
    opt.rtol_vec = rtol;
    opt.atol_vec = atol;
    hy_dae dae = mech_ode_problem(&mo);
    double t = 0.0;
    rc = mech_ode_rhs(0.0, y, yp, &mo);
    if (rc == 0)
        rc = m->ops->init(mem, &dae, 0.0, y, yp, &opt);
    else
        rc = HYDAE_ERR_RESIDUAL;
    if (track && rc >= 0) {
        if (mech_ode_complete(&mo, 0.0, y, q, u, up, NULL) == 0)
            track_point(sys, 0.0, q, u, up, o);
        else
            rc = HYDAE_ERR_RESIDUAL;
    }
    long n_calls = 0;
    while (rc >= 0 && t < p->t_end && n_calls++ < MECH_STEP_LIMIT) {
        rc = m->ops->step(mem, p->t_end, &t);
        if (rc < 0)
            break;
        m->ops->dense(mem, t, y, NULL);
        if (track) {
            /* The same q (Newton from the same start) as the partition
            ** check computes next, so tracking leaves the run unchanged. */
            if (mech_ode_complete(&mo, t, y, q, u, up, NULL) != 0) {
                rc = HYDAE_ERR_RESIDUAL;
                break;
            }
            track_point(sys, t, q, u, up, o);
        }
        int partition = mech_ode_check_partition(&mo, t, y);
        if (partition == 1) {
            rc = mech_ode_rhs(t, y, yp, &mo);
            if (rc == 0)
                rc = m->ops->init(mem, &dae, t, y, yp, &opt);
            else
                rc = HYDAE_ERR_RESIDUAL;
        } else if (partition < 0) {
            rc = partition;
        }
    }
    o->ok = rc >= 0 && t == p->t_end;
    if (o->ok && track) {
        m->ops->dense(mem, p->t_end, y, NULL);
        o->ok = mech_ode_complete(&mo, p->t_end, y, o->q_end, NULL, NULL, NULL) == 0;
    }
    if (!o->ok)
        snprintf(o->status, sizeof o->status, "%s at t=%.3g",
                 rc >= 0 ? "step limit" : bench_hydae_code_name(rc), t);
    hy_stats st;
    memset(&st, 0, sizeof st);
    m->ops->get_stats(mem, &st);
    o->steps = st.n_steps;
    o->evals = mo.n_evals;      /* every f, finite differences and restarts included */
    o->jacobians = st.n_jac_evals;
    o->lu_factorisations = st.n_lu;
    o->err_fails = st.n_err_fails;
    o->conv_fails = st.n_conv_fails;
    m->ops->destroy(mem);
    mech_ode_free(&mo);
    return o->ok;
}

/* IDA's user data: the formulation, the tolerance vectors, and the last
** error message (IDA's own handler would print it to stderr). */
typedef struct ida_user {
    mech_dae *md;
    const double *rtol, *atol;
    char message[160];
} ida_user;

static int ida_residual(sunrealtype t, N_Vector y, N_Vector yp, N_Vector res, void *user_data)
{
    ida_user *user = user_data;
    return mech_residual(t, N_VGetArrayPointer(y), N_VGetArrayPointer(yp),
                         N_VGetArrayPointer(res), user->md);
}

/* ewt_i = 1 / (rtol_i |y_i| + atol_i): hydae's weights (hy_set_weights). */
static int ida_error_weights(N_Vector y, N_Vector ewt, void *user_data)
{
    const ida_user *user = user_data;
    const double *yv = N_VGetArrayPointer(y);
    double *w = N_VGetArrayPointer(ewt);
    for (int i = 0; i < user->md->n; i++) {
        double tol_i = user->rtol[i] * fabs(yv[i]) + user->atol[i];
        if (!(tol_i > 0.0) || !isfinite(tol_i))
            return -1;
        w[i] = 1.0 / tol_i;
    }
    return 0;
}

static void ida_error_message(int error_code, const char *module, const char *function,
                              char *msg, void *user_data)
{
    (void)module;
    (void)function;
    ida_user *user = user_data;
    if (error_code < 0)
        snprintf(user->message, sizeof user->message, "%s", msg);
}

#define IDA_CALL(call)          \
    do {                        \
        flag = (call);          \
        if (flag < 0)           \
            goto done;          \
    } while (0)

static int run_ida(const method *m, const mech_problem *p, double integr_tol, int track,
                   run_outcome *o)
{
    const mech_system *sys = p->sys;
    int n_q = sys->n_q;
    dae_setup s;
    int rc = dae_setup_init(&s, p, m->dae_index, integr_tol);
    if (rc != 0) {
        snprintf(o->status, sizeof o->status, "set-up failed: %s", bench_hydae_code_name(rc));
        return 0;
    }
    int n = s.md.n, flag = -1;
    SUNContext ctx = bench_sundials_context();
    ida_user user = {&s.md, s.rtol, s.atol, ""};
    sunrealtype t = 0.0;
    void *mem = NULL;
    N_Vector y = N_VNew_Serial(n, ctx), yp = N_VNew_Serial(n, ctx), id = N_VNew_Serial(n, ctx);
    SUNMatrix mat = SUNDenseMatrix(n, n, ctx);
    SUNLinearSolver lin_solver = NULL;
    if (!y || !yp || !id || !mat)
        goto done;
    for (int i = 0; i < n; i++) {
        NV_Ith_S(y, i) = s.y0[i];
        NV_Ith_S(yp, i) = s.yp0[i];
        int out_of_error_test =
            m->ida_error_test_as_hydae ? s.err_test_exclude[i] : s.md.is_algebraic[i];
        NV_Ith_S(id, i) = out_of_error_test ? 0.0 : 1.0;
    }
    lin_solver = SUNLinSol_Dense(y, mat, ctx);
    mem = IDACreate(ctx);
    if (!lin_solver || !mem)
        goto done;
    IDA_CALL(IDAInit(mem, ida_residual, 0.0, y, yp));
    IDA_CALL(IDAWFtolerances(mem, ida_error_weights));
    IDA_CALL(IDASetUserData(mem, &user));
    IDA_CALL(IDASetErrHandlerFn(mem, ida_error_message, &user));
    IDA_CALL(IDASetLinearSolver(mem, lin_solver, mat));   /* no IDASetJacFn: DQ Jacobian */
    IDA_CALL(IDASetMaxOrd(mem, 5));
    IDA_CALL(IDASetMaxNumSteps(mem, MECH_STEP_LIMIT));
    IDA_CALL(IDASetStopTime(mem, p->t_end));
    IDA_CALL(IDASetId(mem, id));
    IDA_CALL(IDASetSuppressAlg(mem, SUNTRUE));
    if (track) {
        track_point(sys, 0.0, s.y0, s.y0 + n_q, s.yp0 + n_q, o);
        long n_calls = 0;
        while (t < p->t_end && n_calls++ < MECH_STEP_LIMIT) {
            IDA_CALL(IDASolve(mem, p->t_end, &t, y, yp, IDA_ONE_STEP));
            const double *yv = N_VGetArrayPointer(y), *ypv = N_VGetArrayPointer(yp);
            track_point(sys, t, yv, yv + n_q, ypv + n_q, o);
        }
    } else {
        IDA_CALL(IDASolve(mem, p->t_end, &t, y, yp, IDA_NORMAL));
    }
done:
    o->ok = flag >= 0 && t == p->t_end;
    if (o->ok && track)
        memcpy(o->q_end, N_VGetArrayPointer(y), (size_t)n_q * sizeof(double));
    if (!o->ok && flag >= 0) {
        snprintf(o->status, sizeof o->status, "step limit at t=%.3g", (double)t);
    } else if (!o->ok) {
        char *flag_name = IDAGetReturnFlagName(flag);
        snprintf(o->status, sizeof o->status, "%s at t=%.3g: %s",
                 flag_name ? flag_name : "IDA error", (double)t, user.message);
        free(flag_name);
    }
    if (mem) {
        long count = 0, dq_evals = 0;
        IDAGetNumSteps(mem, &count);
        o->steps = count;
        IDAGetNumResEvals(mem, &count);
        IDAGetNumLinResEvals(mem, &dq_evals);
        o->evals = count + dq_evals;
        IDAGetNumJacEvals(mem, &count);
        o->jacobians = count;
        IDAGetNumLinSolvSetups(mem, &count);   /* dense: one LU per setup */
        o->lu_factorisations = count;
        IDAGetNumErrTestFails(mem, &count);
        o->err_fails = count;
        IDAGetNumNonlinSolvConvFails(mem, &count);
        o->conv_fails = count;
        IDAFree(&mem);
    }
    if (lin_solver)
        SUNLinSolFree(lin_solver);
    if (mat)
        SUNMatDestroy(mat);
    if (id)
        N_VDestroy(id);
    if (yp)
        N_VDestroy(yp);
    if (y)
        N_VDestroy(y);
    mech_dae_free(&s.md);
    return o->ok;
}

static int run_method(const method *m, const mech_problem *p, double integr_tol, int track,
                      run_outcome *o)
{
    memset(o, 0, sizeof *o);
    switch (m->driver) {
    case DRIVER_HYDAE_DAE: return run_hydae_dae(m, p, integr_tol, track, o);
    case DRIVER_HYDAE_ODE: return run_hydae_ode(m, p, integr_tol, track, o);
    case DRIVER_IDA: return run_ida(m, p, integr_tol, track, o);
    }
    return 0;
}

/* ------------------------------------------------------------------------
** Measurement
*/

typedef struct measurement {
    int done;                   /* measured (not filtered out) */
    run_outcome run;            /* the tracked run */
    double scd_q;
    double cpu_ms;              /* median over the batches of the mean per run */
    double cpu_ms_lowest, cpu_ms_highest;   /* the extreme batch means */
    long reps;                  /* timed runs over all batches */
    int counters_match;         /* untracked run's counters == tracked run's */
} measurement;

static double min_time = 0.25;
static int n_batches = 5;
static int verbose = 0;         /* --verbose: one line per measurement on stderr */

static void measure(const method *m, const mech_problem *p, double integr_tol, measurement *out)
{
    memset(out, 0, sizeof *out);
    if (verbose)
        fprintf(stderr, "bench_mech: %s integr_tol %g %s\n", p->name, integr_tol, m->name);
    out->done = 1;
    out->scd_q = NAN;
    out->cpu_ms = out->cpu_ms_lowest = out->cpu_ms_highest = NAN;
    if (!run_method(m, p, integr_tol, 1, &out->run))
        return;
    out->scd_q = scd(out->run.q_end, p->q_ref, 0, p->sys->n_q);
    double batch_ms[MAX_BATCHES];
    double batch_seconds = min_time / n_batches;
    run_outcome timed;
    for (int b = 0; b < n_batches; b++) {
        long reps = 0;
        double start = bench_cpu_seconds(), elapsed;
        do {
            run_method(m, p, integr_tol, 0, &timed);
            if (b == 0 && reps == 0)
                out->counters_match =
                    timed.ok && timed.steps == out->run.steps && timed.evals == out->run.evals
                    && timed.jacobians == out->run.jacobians
                    && timed.lu_factorisations == out->run.lu_factorisations
                    && timed.err_fails == out->run.err_fails
                    && timed.conv_fails == out->run.conv_fails;
            reps++;
            elapsed = bench_cpu_seconds() - start;
        } while (elapsed < batch_seconds);
        batch_ms[b] = 1e3 * elapsed / (double)reps;
        out->reps += reps;
        if (b == 0 || batch_ms[b] < out->cpu_ms_lowest)
            out->cpu_ms_lowest = batch_ms[b];
        if (b == 0 || batch_ms[b] > out->cpu_ms_highest)
            out->cpu_ms_highest = batch_ms[b];
    }
    out->cpu_ms = bench_median(batch_ms, n_batches);
}

static measurement results[N_PROBLEMS][N_TOLS][N_METHODS];

/* ------------------------------------------------------------------------
** Ratios: hydae method / IDA method
*/

typedef struct pairing {
    int hydae, ida;
} pairing;

/* Every hydae form against IDA on the SI1 residual (the reference point),
** and I3 against IDA on the same I3 residual. */
static const pairing pairings[] = {
    {M_SI1, M_IDA_SI1}, {M_I3, M_IDA_SI1}, {M_ODE_VSTIFF, M_IDA_SI1},
    {M_ODE_ABAM, M_IDA_SI1}, {M_I3, M_IDA_I3},
};
#define N_PAIRINGS ((int)(sizeof pairings / sizeof pairings[0]))

static int usable(const measurement *r)
{
    return r->done && r->run.ok && isfinite(r->scd_q) && r->cpu_ms > 0.0;
}

/* The work measures compared: CPU, steps, evaluations. */
#define N_WORK 3
static void work_of(const measurement *r, double work[N_WORK])
{
    work[0] = r->cpu_ms;
    work[1] = (double)r->run.steps;
    work[2] = (double)r->run.evals;
}

typedef struct pair_point {
    int valid_tol, valid_scd, extrapolated;
    double at_tol[N_WORK];      /* hydae / IDA at the same integr_tol */
    double at_scd[N_WORK];      /* hydae / IDA at hydae's scd(q) */
} pair_point;

static pair_point pair_points[N_PAIRINGS][N_PROBLEMS][N_TOLS];

static void compute_ratios(void)
{
    for (int pi = 0; pi < N_PAIRINGS; pi++)
        for (int p = 0; p < N_PROBLEMS; p++) {
            bench_curve curve[N_WORK];
            memset(curve, 0, sizeof curve);
            for (int k = 0; k < N_TOLS; k++) {
                const measurement *ida = &results[p][k][pairings[pi].ida];
                if (!usable(ida))
                    continue;
                double work[N_WORK];
                work_of(ida, work);
                for (int w = 0; w < N_WORK; w++)
                    bench_curve_add(&curve[w], ida->scd_q, work[w]);
            }
            for (int k = 0; k < N_TOLS; k++) {
                pair_point *pt = &pair_points[pi][p][k];
                memset(pt, 0, sizeof *pt);
                const measurement *hy = &results[p][k][pairings[pi].hydae];
                const measurement *ida = &results[p][k][pairings[pi].ida];
                if (!usable(hy))
                    continue;
                double hy_work[N_WORK], ida_work[N_WORK];
                work_of(hy, hy_work);
                if (usable(ida)) {
                    work_of(ida, ida_work);
                    pt->valid_tol = 1;
                    for (int w = 0; w < N_WORK; w++)
                        pt->at_tol[w] = bench_ratio(hy_work[w], ida_work[w]);
                }
                if (curve[0].n >= 2) {
                    pt->valid_scd = 1;
                    for (int w = 0; w < N_WORK; w++) {
                        int extrapolated = 0;
                        double ida_equal = bench_curve_work_at(&curve[w], hy->scd_q,
                                                               BENCH_EXTRAP_FITTED_SLOPE,
                                                               &extrapolated);
                        pt->at_scd[w] = bench_ratio(hy_work[w], ida_equal);
                        pt->extrapolated = extrapolated;
                    }
                }
            }
        }
}

/* ------------------------------------------------------------------------
** Output
*/

static const char *fmt_value(char *buf, size_t size, const char *format, double v)
{
    if (!isfinite(v))
        snprintf(buf, size, "-");
    else
        snprintf(buf, size, format, v);
    return buf;
}

static void print_run_table(FILE *f, int only_problem)
{
    fprintf(f, "| problem | integr_tol | method | scd(q) | steps | evals | Jac | LU | rej "
               "(etf+ncf) | max \\|Phi\\| | max \\|Phi_q u + Phi_t\\| | max \\|Phi_q u' - "
               "gamma\\| | CPU ms | status |\n");
    fprintf(f, "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    for (int p = 0; p < N_PROBLEMS; p++) {
        if (only_problem >= 0 && p != only_problem)
            continue;
        for (int k = 0; k < N_TOLS; k++)
            for (int mi = 0; mi < N_METHODS; mi++) {
                const measurement *r = &results[p][k][mi];
                if (!r->done)
                    continue;
                char s1[32], s2[32];
                if (r->run.ok) {
                    fprintf(f,
                            "| %s | %g | %s | %s | %ld | %ld | %ld | %ld | %ld (%ld+%ld) | "
                            "%.1e | %.1e | %.1e | %s | ok%s |\n",
                            problems[p].name, integr_tols[k], methods[mi].name,
                            fmt_value(s1, sizeof s1, "%.2f", r->scd_q), r->run.steps,
                            r->run.evals, r->run.jacobians, r->run.lu_factorisations,
                            r->run.err_fails + r->run.conv_fails, r->run.err_fails,
                            r->run.conv_fails, r->run.max_phi, r->run.max_vel_residual,
                            r->run.max_acc_residual,
                            fmt_value(s2, sizeof s2, "%.3f", r->cpu_ms),
                            r->counters_match ? "" : " (timed run's counters differ!)");
                } else {
                    fprintf(f,
                            "| %s | %g | %s | - | %ld | %ld | %ld | %ld | %ld (%ld+%ld) | - | "
                            "- | - | - | FAIL: %s |\n",
                            problems[p].name, integr_tols[k], methods[mi].name, r->run.steps,
                            r->run.evals, r->run.jacobians, r->run.lu_factorisations,
                            r->run.err_fails + r->run.conv_fails, r->run.err_fails,
                            r->run.conv_fails, r->run.status);
                }
            }
    }
    fprintf(f, "\n");
}

static void print_ratio_tables(FILE *f)
{
    char b[4][32];
    fprintf(f, "### hydae / IDA at equal integr_tol and at equal scd(q)\n\n");
    fprintf(f, "Per point: CPU, steps and evaluations of the hydae method over IDA's at the "
               "same integr_tol (\"@tol\"), and over IDA's interpolated at hydae's scd(q) "
               "(\"@scd\"; \"x\" = outside IDA's scd range, extrapolated with the fitted "
               "slope).\n\n");
    fprintf(f, "| problem | integr_tol | hydae / IDA | scd(q) hydae - IDA | CPU @tol | steps "
               "@tol | evals @tol | CPU @scd | steps @scd | evals @scd |\n");
    fprintf(f, "|---|---|---|---|---|---|---|---|---|---|\n");
    for (int pi = 0; pi < N_PAIRINGS; pi++)
        for (int p = 0; p < N_PROBLEMS; p++)
            for (int k = 0; k < N_TOLS; k++) {
                const pair_point *pt = &pair_points[pi][p][k];
                if (!pt->valid_tol && !pt->valid_scd)
                    continue;
                const measurement *hy = &results[p][k][pairings[pi].hydae];
                const measurement *ida = &results[p][k][pairings[pi].ida];
                double scd_diff = pt->valid_tol ? hy->scd_q - ida->scd_q : NAN;
                fprintf(f, "| %s | %g | %s / %s | %s | %s | %s | %s |", problems[p].name,
                        integr_tols[k], methods[pairings[pi].hydae].name,
                        methods[pairings[pi].ida].name,
                        fmt_value(b[0], sizeof b[0], "%+.2f", scd_diff),
                        fmt_value(b[1], sizeof b[1], "%.3f", pt->valid_tol ? pt->at_tol[0] : NAN),
                        fmt_value(b[2], sizeof b[2], "%.2f", pt->valid_tol ? pt->at_tol[1] : NAN),
                        fmt_value(b[3], sizeof b[3], "%.2f", pt->valid_tol ? pt->at_tol[2] : NAN));
                const char *mark = pt->valid_scd && pt->extrapolated ? " x" : "";
                fprintf(f, " %s%s | %s%s | %s%s |\n",
                        fmt_value(b[0], sizeof b[0], "%.3f", pt->valid_scd ? pt->at_scd[0] : NAN),
                        mark,
                        fmt_value(b[1], sizeof b[1], "%.2f", pt->valid_scd ? pt->at_scd[1] : NAN),
                        mark,
                        fmt_value(b[2], sizeof b[2], "%.2f", pt->valid_scd ? pt->at_scd[2] : NAN),
                        mark);
            }
    fprintf(f, "\n");
}

/* Median of the ratio `which` (0 at tol, 1 at scd) of work w over the
** points of pairing pi and problem p (p < 0: all problems). */
static double median_ratio(int pi, int p, int which, int w, int interpolated_only, int *count)
{
    double v[N_PROBLEMS * N_TOLS];
    int n = 0;
    for (int pp = 0; pp < N_PROBLEMS; pp++) {
        if (p >= 0 && pp != p)
            continue;
        for (int k = 0; k < N_TOLS; k++) {
            const pair_point *pt = &pair_points[pi][pp][k];
            if (which == 0 && pt->valid_tol)
                v[n++] = pt->at_tol[w];
            else if (which == 1 && pt->valid_scd && !(interpolated_only && pt->extrapolated))
                v[n++] = pt->at_scd[w];
        }
    }
    *count = n;
    return bench_median(v, n);
}

static void print_summary(FILE *f)
{
    char b[8][32];
    fprintf(f, "### Medians of hydae / IDA\n\n");
    fprintf(f, "| hydae / IDA | problem | points @tol | CPU @tol | steps @tol | evals @tol | "
               "points @scd | CPU @scd | (interpolated only) | steps @scd | evals @scd |\n");
    fprintf(f, "|---|---|---|---|---|---|---|---|---|---|---|\n");
    for (int pi = 0; pi < N_PAIRINGS; pi++)
        for (int p = -1; p < N_PROBLEMS; p++) {
            int n_tol, n_scd, n_interp, unused;
            double cpu_tol = median_ratio(pi, p, 0, 0, 0, &n_tol);
            double steps_tol = median_ratio(pi, p, 0, 1, 0, &unused);
            double evals_tol = median_ratio(pi, p, 0, 2, 0, &unused);
            double cpu_scd = median_ratio(pi, p, 1, 0, 0, &n_scd);
            double cpu_interp = median_ratio(pi, p, 1, 0, 1, &n_interp);
            double steps_scd = median_ratio(pi, p, 1, 1, 0, &unused);
            double evals_scd = median_ratio(pi, p, 1, 2, 0, &unused);
            if (n_tol == 0 && n_scd == 0)
                continue;
            fprintf(f, "| %s / %s | %s | %d | %s | %s | %s | %d | %s | %s (%d) | %s | %s |\n",
                    methods[pairings[pi].hydae].name, methods[pairings[pi].ida].name,
                    p < 0 ? "**all**" : problems[p].name, n_tol,
                    fmt_value(b[0], sizeof b[0], "%.3f", cpu_tol),
                    fmt_value(b[1], sizeof b[1], "%.2f", steps_tol),
                    fmt_value(b[2], sizeof b[2], "%.2f", evals_tol), n_scd,
                    fmt_value(b[3], sizeof b[3], "%.3f", cpu_scd),
                    fmt_value(b[4], sizeof b[4], "%.3f", cpu_interp), n_interp,
                    fmt_value(b[5], sizeof b[5], "%.2f", steps_scd),
                    fmt_value(b[6], sizeof b[6], "%.2f", evals_scd));
        }
    fprintf(f, "\n");
}

static void print_discontinuity(FILE *f)
{
    const int jump = PROBLEM_PENDULUM_JUMP, smooth = PROBLEM_PENDULUM;
    char b[4][32];
    fprintf(f, "### The force step: pendulum+jump against the smooth pendulum\n\n");
    fprintf(f, "| integr_tol | method | scd(q) jump (smooth) | steps jump (smooth) | rej jump "
               "(smooth) | evals jump (smooth) | CPU ms jump (smooth) | extra steps | CPU "
               "jump / smooth |\n");
    fprintf(f, "|---|---|---|---|---|---|---|---|---|\n");
    for (int k = 0; k < N_TOLS; k++)
        for (int mi = 0; mi < N_METHODS; mi++) {
            const measurement *j = &results[jump][k][mi], *s = &results[smooth][k][mi];
            if (!j->done || !s->done)
                continue;
            if (!j->run.ok || !s->run.ok) {
                fprintf(f, "| %g | %s | %s | - | - | - | - | - | - |\n", integr_tols[k],
                        methods[mi].name, !j->run.ok ? "jump FAIL" : "smooth FAIL");
                continue;
            }
            fprintf(f, "| %g | %s | %s (%s) | %ld (%ld) | %ld (%ld) | %ld (%ld) | %s (%s) | %+ld "
                       "| %.2f |\n",
                    integr_tols[k], methods[mi].name,
                    fmt_value(b[0], sizeof b[0], "%.2f", j->scd_q),
                    fmt_value(b[1], sizeof b[1], "%.2f", s->scd_q), j->run.steps, s->run.steps,
                    j->run.err_fails + j->run.conv_fails, s->run.err_fails + s->run.conv_fails,
                    j->run.evals, s->run.evals,
                    fmt_value(b[2], sizeof b[2], "%.3f", j->cpu_ms),
                    fmt_value(b[3], sizeof b[3], "%.3f", s->cpu_ms),
                    j->run.steps - s->run.steps, bench_ratio(j->cpu_ms, s->cpu_ms));
        }
    fprintf(f, "\n");
}

/* Seed 002's Table 2 criteria as grids over the sweep: accuracy (scd(q)),
** speed (CPU ms, steps), consistency (the three constraint levels at two
** tolerances) and robustness (runs that reached t_end). */
typedef double (*grid_value_fn)(const measurement *r);
static double grid_scd(const measurement *r) { return r->scd_q; }
static double grid_cpu(const measurement *r) { return r->cpu_ms; }
static double grid_steps(const measurement *r) { return (double)r->run.steps; }

static void print_grid(FILE *f, const char *title, grid_value_fn value, const char *format)
{
    char b[32];
    fprintf(f, "%s\n\n| problem | method |", title);
    for (int k = 0; k < N_TOLS; k++)
        fprintf(f, " %g |", integr_tols[k]);
    fprintf(f, "\n|---|---|");
    for (int k = 0; k < N_TOLS; k++)
        fprintf(f, "---|");
    fprintf(f, "\n");
    for (int p = 0; p < N_PROBLEMS; p++)
        for (int mi = 0; mi < N_METHODS; mi++) {
            if (!results[p][0][mi].done)
                continue;
            fprintf(f, "| %s | %s |", problems[p].name, methods[mi].name);
            for (int k = 0; k < N_TOLS; k++) {
                const measurement *r = &results[p][k][mi];
                fprintf(f, " %s |", r->run.ok ? fmt_value(b, sizeof b, format, value(r)) : "FAIL");
            }
            fprintf(f, "\n");
        }
    fprintf(f, "\n");
}

static void print_grids(FILE *f)
{
    fprintf(f, "### Seed 002's Table 2 criteria over the sweep\n\n");
    print_grid(f, "Accuracy: scd(q) at t_end", grid_scd, "%.2f");
    print_grid(f, "Speed: CPU ms per run", grid_cpu, "%.3f");
    print_grid(f, "Speed: accepted steps", grid_steps, "%.0f");
    static const int consistency_tols[2] = {1, 3};  /* 1e-6, 1e-9 */
    fprintf(f, "Consistency: max |Phi|, max |Phi_q u + Phi_t|, max |Phi_q u' - gamma| over the "
               "accepted points\n\n| problem | method |");
    for (int c = 0; c < 2; c++)
        fprintf(f, " \\|Phi\\| %g | vel. %g | acc. %g |", integr_tols[consistency_tols[c]],
                integr_tols[consistency_tols[c]], integr_tols[consistency_tols[c]]);
    fprintf(f, "\n|---|---|---|---|---|---|---|---|\n");
    for (int p = 0; p < N_PROBLEMS; p++)
        for (int mi = 0; mi < N_METHODS; mi++) {
            if (!results[p][0][mi].done)
                continue;
            fprintf(f, "| %s | %s |", problems[p].name, methods[mi].name);
            for (int c = 0; c < 2; c++) {
                const measurement *r = &results[p][consistency_tols[c]][mi];
                if (r->run.ok)
                    fprintf(f, " %.1e | %.1e | %.1e |", r->run.max_phi, r->run.max_vel_residual,
                            r->run.max_acc_residual);
                else
                    fprintf(f, " FAIL | FAIL | FAIL |");
            }
            fprintf(f, "\n");
        }
    fprintf(f, "\nRobustness: runs that reached t_end\n\n| method | runs ok | failed "
               "(problem integr_tol) |\n|---|---|---|\n");
    for (int mi = 0; mi < N_METHODS; mi++) {
        int n_ok = 0, n_all = 0;
        char failed[512] = "";
        size_t used = 0;
        for (int p = 0; p < N_PROBLEMS; p++)
            for (int k = 0; k < N_TOLS; k++) {
                const measurement *r = &results[p][k][mi];
                if (!r->done)
                    continue;
                n_all++;
                if (r->run.ok) {
                    n_ok++;
                } else if (used < sizeof failed) {
                    int w = snprintf(failed + used, sizeof failed - used, "%s%s %g",
                                     used ? ", " : "", problems[p].name, integr_tols[k]);
                    if (w > 0)
                        used += (size_t)w;
                }
            }
        fprintf(f, "| %s | %d / %d | %s |\n", methods[mi].name, n_ok, n_all,
                used ? failed : "-");
    }
    fprintf(f, "\n");
}

static void write_csv(FILE *f)
{
    fprintf(f, "problem,integr_tol,method,status,scd_q,steps,evals,jacobians,lu,err_fails,"
               "conv_fails,max_phi,max_vel_residual,max_acc_residual,cpu_ms,cpu_ms_lowest_batch,"
               "cpu_ms_highest_batch,reps,counters_match,cpu_ratio_tol_vs_ida_si1,"
               "steps_ratio_tol_vs_ida_si1,evals_ratio_tol_vs_ida_si1,cpu_ratio_scd_vs_ida_si1,"
               "steps_ratio_scd_vs_ida_si1,evals_ratio_scd_vs_ida_si1,scd_extrapolated\n");
    for (int p = 0; p < N_PROBLEMS; p++)
        for (int k = 0; k < N_TOLS; k++)
            for (int mi = 0; mi < N_METHODS; mi++) {
                const measurement *r = &results[p][k][mi];
                if (!r->done)
                    continue;
                char status[sizeof r->run.status];
                snprintf(status, sizeof status, "%s", r->run.ok ? "ok" : r->run.status);
                for (char *c = status; *c; c++)
                    if (*c == ',' || *c == '"' || *c == '\n')
                        *c = ';';
                fprintf(f, "%s,%g,%s,%s,%.4f,%ld,%ld,%ld,%ld,%ld,%ld,%.3e,%.3e,%.3e,%.6g,%.6g,"
                           "%.6g,%ld,%d",
                        problems[p].name, integr_tols[k], methods[mi].name, status, r->scd_q,
                        r->run.steps, r->run.evals, r->run.jacobians, r->run.lu_factorisations,
                        r->run.err_fails, r->run.conv_fails, r->run.max_phi,
                        r->run.max_vel_residual, r->run.max_acc_residual, r->cpu_ms,
                        r->cpu_ms_lowest, r->cpu_ms_highest, r->reps, r->counters_match);
                /* Ratios against IDA/SI1 for the hydae forms. */
                int pi_found = -1;
                for (int pi = 0; pi < N_PAIRINGS; pi++)
                    if (pairings[pi].hydae == mi && pairings[pi].ida == M_IDA_SI1)
                        pi_found = pi;
                if (pi_found >= 0) {
                    const pair_point *pt = &pair_points[pi_found][p][k];
                    for (int w = 0; w < N_WORK; w++)
                        fprintf(f, ",%.4f", pt->valid_tol ? pt->at_tol[w] : NAN);
                    for (int w = 0; w < N_WORK; w++)
                        fprintf(f, ",%.4f", pt->valid_scd ? pt->at_scd[w] : NAN);
                    fprintf(f, ",%d\n", pt->valid_scd ? pt->extrapolated : 0);
                } else {
                    fprintf(f, ",,,,,,,\n");
                }
            }
}

/* ------------------------------------------------------------------------ */

static void usage(FILE *f)
{
    fprintf(f, "usage: bench_mech [--csv FILE] [--min-time SECONDS] [--batches N] "
               "[--problem pendulum|andrews|caraxis|pendulum+jump] [--verbose]\n");
}

int main(int argc, char **argv)
{
    const char *csv_path = "bench_mech.csv";
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
        } else if (strcmp(argv[i], "--batches") == 0 && i + 1 < argc) {
            n_batches = atoi(argv[++i]);
            if (n_batches < 1 || n_batches > MAX_BATCHES) {
                usage(stderr);
                return 2;
            }
        } else if (strcmp(argv[i], "--verbose") == 0) {
            verbose = 1;
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
    setup_problems();
    int only_problem = -1;
    if (only != NULL) {
        for (int p = 0; p < N_PROBLEMS; p++)
            if (strcmp(only, problems[p].name) == 0)
                only_problem = p;
        if (only_problem < 0) {
            usage(stderr);
            return 2;
        }
    }
    if (bench_sundials_open() != 0) {
        fprintf(stderr, "bench_mech: SUNContext_Create failed\n");
        return 1;
    }
    double wall_start = bench_cpu_seconds();

    printf("## bench_mech: seed 002's Table 2 measured (hydae vs SUNDIALS IDA %s)\n\n",
           bench_sundials_version());
    printf("Table 1 defaults (vel_tol_factor = dae_alg_tol_factor = 1000, rel_abs_tol_ratio = "
           "1, dae_vel_ctrl TRUE), dae_constr_tol %g (ODE form); FD Jacobians everywhere; "
           "CPU ms = median of %d batch means, >= %.3g s of runs per measurement.\n\n",
           ODE_CONSTR_TOL, n_batches, min_time);
    if (jump_reference(stdout) != 0) {
        fprintf(stderr, "bench_mech: the reference of pendulum+jump failed\n");
        return 1;
    }
    /* The jump problem is compared with the smooth pendulum: measure both. */
    for (int p = 0; p < N_PROBLEMS; p++) {
        if (only_problem >= 0 && p != only_problem
            && !(only_problem == PROBLEM_PENDULUM_JUMP && p == PROBLEM_PENDULUM))
            continue;
        for (int k = 0; k < N_TOLS; k++)
            for (int mi = 0; mi < N_METHODS; mi++)
                measure(&methods[mi], &problems[p], integr_tols[k], &results[p][k][mi]);
    }
    compute_ratios();

    printf("### Runs\n\n");
    printf("evals: residuals (DAE forms) or f (ODE form; each f is a Newton solve for q_d "
           "and a saddle-point solve), finite differences included; Phi residuals: maxima "
           "over the accepted points.\n\n");
    print_run_table(stdout, -1);
    print_grids(stdout);
    print_ratio_tables(stdout);
    print_summary(stdout);
    if (results[PROBLEM_PENDULUM_JUMP][0][0].done && results[PROBLEM_PENDULUM][0][0].done)
        print_discontinuity(stdout);

    FILE *csv = fopen(csv_path, "w");
    if (csv == NULL) {
        fprintf(stderr, "bench_mech: cannot write %s: %s\n", csv_path, strerror(errno));
        bench_sundials_close();
        return 1;
    }
    write_csv(csv);
    fclose(csv);
    printf("CSV written to %s; bench_mech took %.1f s of CPU time.\n", csv_path,
           bench_cpu_seconds() - wall_start);
    bench_sundials_close();
    return 0;
}
