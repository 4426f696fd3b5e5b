/*
** Mechanical test problems shared by the mechanics tests (included by
** test_mechanics.c, test_mechanics_ode.c and test_mechanics_testset.c; not
** a test itself): Cash's index-3 pendulum (MEBDFDAE driver pendul3.f) and
** the car axis of the Test Set for IVP Solvers (report II.17), as
** mech_systems with their initial values and references from
** /work/shared/testset/reference.json; the DSTIFF driver of the I3 and SI1
** formulations, and scd as the test set computes it. External linkage, so
** that a test using only some of them compiles without unused-definition
** warnings. Include after check.h.
*/
#include "mech/mech.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------
** The pendulum
*/

static int pend_mass(double t, const double *q, double *mass, void *user)
{
    (void)t, (void)q, (void)user;
    mass[0] = 1.0, mass[1] = 0.0, mass[2] = 0.0, mass[3] = 1.0;
    return 0;
}

static int pend_force(double t, const double *q, const double *u, double *f, void *user)
{
    (void)t, (void)q, (void)u, (void)user;
    f[0] = 0.0;
    f[1] = -1.0;
    return 0;
}

static int pend_phi(double t, const double *q, double *phi, void *user)
{
    (void)t, (void)user;
    phi[0] = 0.5 * (q[0] * q[0] + q[1] * q[1] - 1.0);
    return 0;
}

static int pend_g(double t, const double *q, double *g, void *user)
{
    (void)t, (void)user;
    g[0] = q[0];
    g[1] = q[1];
    return 0;
}

/* d/dt (x u + y v) = x u' + y v' + u^2 + v^2 = 0. */
static int pend_gamma(double t, const double *q, const double *u, double *gamma, void *user)
{
    (void)t, (void)q, (void)user;
    gamma[0] = -(u[0] * u[0] + u[1] * u[1]);
    return 0;
}

const mech_system pendulum = {
    .n_q = 2, .n_c = 1, .user = NULL,
    .mass = pend_mass, .force = pend_force, .constraint = pend_phi,
    .constraint_jac = pend_g, .constraint_t = NULL, .accel_rhs = pend_gamma,
};

/* reference.json, pendulum_index3: y0 and yref_highprec (x, y, u, v, lambda). */
const double pend_y0[4] = { 1.0, 0.0, 0.0, 1.0 };
const double pendulum_ref[5] = {
    0.8673486406004394, 0.49770105047967295, -0.03374801806095452,
    0.05881301146525001, -0.4931031514390188,
};


/* ------------------------------------------------------------------------
** Car axis (report II.17)
*/

#define CAR_EPS 1e-2
#define CAR_M 10.0
#define CAR_L 1.0
#define CAR_L0 0.5
#define CAR_R 0.1
#define CAR_W 10.0
#define CAR_G 1.0
#define CAR_K (CAR_M * CAR_EPS * CAR_EPS / 2.0)

/* The right wheel's excitation (xb, yb) and its first two derivatives. */
static void car_wheel(double t, double xb[3], double yb[3])
{
    yb[0] = CAR_R * sin(CAR_W * t);
    yb[1] = CAR_R * CAR_W * cos(CAR_W * t);
    yb[2] = -CAR_R * CAR_W * CAR_W * sin(CAR_W * t);
    xb[0] = sqrt(CAR_L * CAR_L - yb[0] * yb[0]);
    xb[1] = -yb[0] * yb[1] / xb[0];
    xb[2] = -(yb[1] * yb[1] + yb[0] * yb[2]) / xb[0] - xb[1] * xb[1] / xb[0];
}

static int car_mass(double t, const double *q, double *m, void *user)
{
    (void)t, (void)q, (void)user;
    memset(m, 0, 16 * sizeof(double));
    for (int i = 0; i < 4; i++)
        m[i + 4 * i] = CAR_K;
    return 0;
}

static int car_force(double t, const double *q, const double *v, double *f, void *user)
{
    (void)v, (void)user;
    double xb[3], yb[3];
    car_wheel(t, xb, yb);
    double ll = sqrt(q[0] * q[0] + q[1] * q[1]);
    double lr = sqrt((q[2] - xb[0]) * (q[2] - xb[0]) + (q[3] - yb[0]) * (q[3] - yb[0]));
    f[0] = (CAR_L0 - ll) * q[0] / ll;
    f[1] = (CAR_L0 - ll) * q[1] / ll - CAR_K * CAR_G;
    f[2] = (CAR_L0 - lr) * (q[2] - xb[0]) / lr;
    f[3] = (CAR_L0 - lr) * (q[3] - yb[0]) / lr - CAR_K * CAR_G;
    return 0;
}

static int car_phi(double t, const double *q, double *phi, void *user)
{
    (void)user;
    double xb[3], yb[3];
    car_wheel(t, xb, yb);
    phi[0] = xb[0] * q[0] + yb[0] * q[1];
    phi[1] = (q[0] - q[2]) * (q[0] - q[2]) + (q[1] - q[3]) * (q[1] - q[3]) - CAR_L * CAR_L;
    return 0;
}

static int car_g(double t, const double *q, double *g, void *user)
{
    (void)user;
    double xb[3], yb[3];
    car_wheel(t, xb, yb);
    double dx = q[0] - q[2], dy = q[1] - q[3];
    /* g[i + 2 j] */
    g[0] = xb[0], g[2] = yb[0], g[4] = 0.0, g[6] = 0.0;
    g[1] = 2.0 * dx, g[3] = 2.0 * dy, g[5] = -2.0 * dx, g[7] = -2.0 * dy;
    return 0;
}

static int car_phi_t(double t, const double *q, double *phi_t, void *user)
{
    (void)user;
    double xb[3], yb[3];
    car_wheel(t, xb, yb);
    phi_t[0] = xb[1] * q[0] + yb[1] * q[1];
    phi_t[1] = 0.0;
    return 0;
}

/* gamma = -((Phi_q u)_q u + 2 Phi_qt u + Phi_tt). */
static int car_gamma(double t, const double *q, const double *v, double *gamma, void *user)
{
    (void)user;
    double xb[3], yb[3];
    car_wheel(t, xb, yb);
    gamma[0] = -(2.0 * (xb[1] * v[0] + yb[1] * v[1]) + xb[2] * q[0] + yb[2] * q[1]);
    double du = v[0] - v[2], dv = v[1] - v[3];
    gamma[1] = -2.0 * (du * du + dv * dv);
    return 0;
}

const mech_system caraxis = {
    .n_q = 4, .n_c = 2, .user = NULL,
    .mass = car_mass, .force = car_force, .constraint = car_phi,
    .constraint_jac = car_g, .constraint_t = car_phi_t, .accel_rhs = car_gamma,
};

/* reference.json, caraxis: y0 (q, u, lambda) and yref; lambda of the test
** set is minus ours (see above). */
const double car_y0[10] = { 0, 0.5, 1, 0.5, -0.5, 0, -0.5, 0, 0, 0 };
const double car_ref[10] = {
    0.04934557842754028, 0.49698946023017115, 1.0417425248854215, 0.37391102726536124,
    -0.07705836840409723, 0.007446866587237785, 0.017556815753723223, 0.7703410437792519,
    -0.004736886590848933, -0.0011046803312573436,
};


/* ------------------------------------------------------------------------
** Driver of the DAE formulations (I3, SI1) with DSTIFF
*/

typedef struct dae_run_result {
    int ok;
    double y[64];
    double max_drift;
    long steps, err_fails, conv_fails, res_evals;
} dae_run_result;

dae_run_result run_dae_formulation(const mech_system *sys, int dae_index, double t0, double t_end,
                                   const double *q0, const double *u0, double integr_tol,
                                   double vel_tol_factor, int vel_ctrl)
{
    dae_run_result r;
    memset(&r, 0, sizeof r);
    mech_dae md;
    CHECK(mech_dae_init(&md, sys, dae_index) == 0, "mech_dae_init");
    int n = md.n;
    double *y0 = malloc(sizeof(double) * (size_t)n), *yp0 = malloc(sizeof(double) * (size_t)n);
    double *rtol = malloc(sizeof(double) * (size_t)n), *atol = malloc(sizeof(double) * (size_t)n);
    unsigned char *excl = malloc((size_t)n), *var_index = malloc((size_t)n);
    double *y = malloc(sizeof(double) * (size_t)n);
    CHECK(mech_consistent_start(&md, t0, q0, u0, y0, yp0) == 0, "consistent start");
    /* Seed 002, Table 1 (default vel_tol_factor 1000): dae_alg_tol_factor =
    ** 1000, rel_abs_tol_ratio = 1. */
    mech_tolerances(&md, integr_tol, 1.0, vel_tol_factor, 1000.0, vel_ctrl, rtol, atol, excl);
    mech_var_index(&md, var_index);
    hy_options opt;
    memset(&opt, 0, sizeof opt);
    opt.rtol_vec = rtol;
    opt.atol_vec = atol;
    opt.err_test_exclude = excl;
    opt.var_index = var_index;
    hy_dae dae = mech_dae_problem(&md);
    void *mem = hy_dstiff.create(n);
    double t = t0;
    int rc = hy_dstiff.init(mem, &dae, t0, y0, yp0, &opt);
    mech_track_drift(&md, t0, y0);
    while (rc >= 0 && t < t_end) {
        rc = hy_dstiff.step(mem, t_end, &t);
        if (rc >= 0) {
            hy_dstiff.dense(mem, t, y, NULL);
            mech_track_drift(&md, t, y);
        }
    }
    r.ok = rc >= 0 && t == t_end;
    if (r.ok)
        memcpy(r.y, y, sizeof(double) * (size_t)n);
    hy_stats st;
    hy_dstiff.get_stats(mem, &st);
    r.steps = st.n_steps;
    r.err_fails = st.n_err_fails;
    r.conv_fails = st.n_conv_fails;
    r.res_evals = st.n_res_evals;
    r.max_drift = md.max_drift;
    if (!r.ok)
        fprintf(stderr, "stopped at t = %g (rc %d), worst component %d\n", t, rc,
                hy_dstiff.worst_component(mem));
    hy_dstiff.destroy(mem);
    mech_dae_free(&md);
    free(y0), free(yp0), free(rtol), free(atol), free(excl), free(var_index), free(y);
    return r;
}

/* scd = -log10(max_i |y_i - ref_i| / |ref_i|) over [from, to). */
double scd(const double *y, const double *ref, int from, int to)
{
    double worst = 0.0;
    for (int i = from; i < to; i++)
        worst = fmax(worst, fabs(y[i] - ref[i]) / fabs(ref[i]));
    return -log10(worst);
}
