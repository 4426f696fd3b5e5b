/*
** Non-stiff test problems with closed-form or published solutions, and a
** small driver that runs an integrator descriptor over them; shared by
** tests/test_rk45.c, test_rk4.c, test_abam.c and
** tests/validation/test_nonstiff.c.
**
** Problems and their sources:
**   - Dahlquist y' = -y, y = e^-t; harmonic oscillator y1' = y2,
**     y2' = -y1, y = (cos t, -sin t); y' = -y^2, y = 1/(1+t);
**     y' = -y + sin t, y = 3/2 e^-t + (sin t - cos t)/2 (closed forms).
**   - Arenstorf orbit: E. Hairer, S.P. Norsett, G. Wanner, "Solving
**     Ordinary Differential Equations I", 2nd ed., Springer 1993, II.0,
**     eq. (0.1) with the initial values and period given there.
**   - Pleiades: HNW I, II.10, eqs. (10.3)-(10.4); also problem PLEI of
**     the Test Set for IVP Solvers (Mazzia & Magherini, release 2.4,
**     2008), whose component order (x, y, x', y') is used here.
**   - Kepler two-body problem q'' = -q/|q|^3 with eccentricity e from
**     pericentre, a = 1, period 2 pi; the closed form from Kepler's
**     equation E - e sin E = t (E. Hairer, C. Lubich, G. Wanner,
**     "Geometric Numerical Integration", 2nd ed., Springer 2006, I.2).
**
** Everything is static inline so that a test using only part of it
** compiles without unused-function warnings.
*/
#ifndef HY_NONSTIFF_PROBLEMS_H
#define HY_NONSTIFF_PROBLEMS_H

#include "integrators/integrator.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define NS_MAX_N 28
#define NS_PI 3.14159265358979323846

/* Context of every right-hand side here: counts calls; optionally
** returns NaN in component nan_component for t > nan_after, or the code
** fail_code for t > fail_after. */
typedef struct ns_ctx {
    long n_calls;
    double nan_after;       /* +inf: never */
    int nan_component;
    double fail_after;      /* +inf: never */
    int fail_code;
    double param;           /* problem parameter (Kepler: eccentricity) */
} ns_ctx;

static inline void ns_ctx_init(ns_ctx *c)
{
    memset(c, 0, sizeof *c);
    c->nan_after = INFINITY;
    c->fail_after = INFINITY;
}

/* Applies the context's failure injection; returns the code to return. */
static inline int ns_inject(ns_ctx *c, double t, double *ydot)
{
    c->n_calls++;
    if (t > c->nan_after)
        ydot[c->nan_component] = NAN;
    if (t > c->fail_after)
        return c->fail_code;
    return 0;
}

/* ---- Closed-form problems ---------------------------------------------- */

static inline int ns_dahlquist(double t, const double *y, double *ydot,
                               void *ctx)
{
    ydot[0] = -y[0];
    return ns_inject(ctx, t, ydot);
}

static inline void ns_dahlquist_exact(double t, double *y)
{
    y[0] = exp(-t);
}

static inline int ns_oscillator(double t, const double *y, double *ydot,
                                void *ctx)
{
    ydot[0] = y[1];
    ydot[1] = -y[0];
    return ns_inject(ctx, t, ydot);
}

static inline void ns_oscillator_exact(double t, double *y)
{
    y[0] = cos(t);
    y[1] = -sin(t);
}

static inline int ns_riccati(double t, const double *y, double *ydot,
                             void *ctx)
{
    ydot[0] = -y[0] * y[0];
    return ns_inject(ctx, t, ydot);
}

static inline void ns_riccati_exact(double t, double *y)
{
    y[0] = 1.0 / (1.0 + t);
}

static inline int ns_forced(double t, const double *y, double *ydot,
                            void *ctx)
{
    ydot[0] = -y[0] + sin(t);
    return ns_inject(ctx, t, ydot);
}

static inline void ns_forced_exact(double t, double *y)
{
    y[0] = 1.5 * exp(-t) + 0.5 * (sin(t) - cos(t));
}

/* ---- Arenstorf orbit (HNW I, II.0, eq. (0.1)) ------------------------- */

#define NS_ARENSTORF_MU 0.012277471
#define NS_ARENSTORF_PERIOD 17.0652165601579625588917206249

/* y = (y1, y2, y1', y2'). */
static inline int ns_arenstorf(double t, const double *y, double *ydot,
                               void *ctx)
{
    double mu = NS_ARENSTORF_MU, mu_p = 1.0 - mu;
    double d1 = pow((y[0] + mu) * (y[0] + mu) + y[1] * y[1], 1.5);
    double d2 = pow((y[0] - mu_p) * (y[0] - mu_p) + y[1] * y[1], 1.5);
    ydot[0] = y[2];
    ydot[1] = y[3];
    ydot[2] = y[0] + 2.0 * y[3] - mu_p * (y[0] + mu) / d1
              - mu * (y[0] - mu_p) / d2;
    ydot[3] = y[1] - 2.0 * y[2] - mu_p * y[1] / d1 - mu * y[1] / d2;
    return ns_inject(ctx, t, ydot);
}

static inline void ns_arenstorf_initial(double *y)
{
    y[0] = 0.994;
    y[1] = 0.0;
    y[2] = 0.0;
    y[3] = -2.00158510637908252240537862224;
}

/* ---- Pleiades (HNW I, II.10, (10.3)-(10.4); test set PLEI) ------------ */

/* y = (x_1..7, y_1..7, x'_1..7, y'_1..7), masses m_j = j. */
static inline int ns_pleiades(double t, const double *y, double *ydot,
                              void *ctx)
{
    const double *x = y, *yy = y + 7;
    for (int i = 0; i < 14; i++)
        ydot[i] = y[14 + i];
    for (int i = 0; i < 7; i++) {
        double ax = 0.0, ay = 0.0;
        for (int j = 0; j < 7; j++) {
            if (j == i)
                continue;
            double dx = x[j] - x[i], dy = yy[j] - yy[i];
            double r2 = dx * dx + dy * dy;
            double r3 = r2 * sqrt(r2);
            double m_j = j + 1;
            ax += m_j * dx / r3;
            ay += m_j * dy / r3;
        }
        ydot[14 + i] = ax;
        ydot[21 + i] = ay;
    }
    return ns_inject(ctx, t, ydot);
}

static inline void ns_pleiades_initial(double *y)
{
    static const double x0[7] = { 3, 3, -1, -3, 2, -2, 2 };
    static const double y0[7] = { 3, -3, 2, 0, 0, -4, 4 };
    static const double xp0[7] = { 0, 0, 0, 0, 0, 1.75, -1.5 };
    static const double yp0[7] = { 0, 0, 0, -1.25, 1, 0, 0 };
    for (int i = 0; i < 7; i++) {
        y[i] = x0[i];
        y[7 + i] = y0[i];
        y[14 + i] = xp0[i];
        y[21 + i] = yp0[i];
    }
}

/* y(3) of PLEI: /work/shared/testset/reference.json, key "pleiades",
** copied digit for digit; source rforge/bvpsolve:pkg/deTestSet/src/
** Ex_pleiades.f (pleiasoln)@78c711b7fff5, computed by PSIDE with
** rtol = atol = 1e-16. */
static inline void ns_pleiades_reference(double *y)
{
    static const double y_ref[28] = {
        0.3706139143970502, 3.237284092057233, -3.222559032418324,
        0.659709145577531, 0.3425581707156584, 1.562172101400631,
        -0.7003092922212495, -3.943437585517392, -3.27138097397255,
        5.225081843456543, -2.59061243497747, 1.198213693392275,
        -0.2429682344935824, 1.09144924042898, 3.417003806314313,
        1.354584501625501, -2.590065597810775, 2.025053734714242,
        -1.155815100160448, -0.8072988170223021, 0.595239635420871,
        -3.74124496123401, 0.377345968575063, 0.9386858869551074,
        0.3667922227200571, -0.347404635380849, 2.344915448180937,
        -1.947020434263292
    };
    memcpy(y, y_ref, sizeof y_ref);
}

/* ---- Kepler two-body problem ------------------------------------------- */

/* y = (q1, q2, p1, p2). */
static inline int ns_kepler(double t, const double *y, double *ydot,
                            void *ctx)
{
    double r2 = y[0] * y[0] + y[1] * y[1];
    double r3 = r2 * sqrt(r2);
    ydot[0] = y[2];
    ydot[1] = y[3];
    ydot[2] = -y[0] / r3;
    ydot[3] = -y[1] / r3;
    return ns_inject(ctx, t, ydot);
}

/* The orbit of eccentricity e, a = 1, at pericentre at t = 0: with
** E - e sin E = t (solved by Newton's method),
** q = (cos E - e, sqrt(1-e^2) sin E),
** p = (-sin E, sqrt(1-e^2) cos E) / (1 - e cos E). */
static inline void ns_kepler_exact(double e, double t, double *y)
{
    double mean = fmod(t, 2.0 * NS_PI);
    double ecc_anomaly = e < 0.8 ? mean : NS_PI;
    for (int iter = 0; iter < 50; iter++) {
        double delta = (ecc_anomaly - e * sin(ecc_anomaly) - mean)
                       / (1.0 - e * cos(ecc_anomaly));
        ecc_anomaly -= delta;
        if (fabs(delta) < 1e-16)
            break;
    }
    double c = cos(ecc_anomaly), s = sin(ecc_anomaly);
    double root = sqrt(1.0 - e * e);
    y[0] = c - e;
    y[1] = root * s;
    y[2] = -s / (1.0 - e * c);
    y[3] = root * c / (1.0 - e * c);
}

static inline double ns_kepler_energy(const double *y)
{
    return 0.5 * (y[2] * y[2] + y[3] * y[3])
           - 1.0 / sqrt(y[0] * y[0] + y[1] * y[1]);
}

static inline double ns_kepler_momentum(const double *y)
{
    return y[0] * y[3] - y[1] * y[2];
}

/* ---- Driver ------------------------------------------------------------ */

/* Called after every accepted step with the step's interval. */
typedef void (*ns_step_fn)(void *user, const hy_integrator_ops *ops,
                           void *mem, double t_old, double t_new);

typedef struct ns_run {
    int status;             /* last code of step(): HY_TSTOP on success */
    double t_reached;
    double y[NS_MAX_N];     /* solution at t_reached */
    long n_calls;           /* f evaluations counted by the rhs */
    hy_stats stats;
    double h_max_seen;      /* largest t_new - t_old */
    int passed_t_stop;      /* some step went past t_end */
} ns_run;

static inline hy_options ns_options(double rtol, double atol)
{
    hy_options opt;
    memset(&opt, 0, sizeof opt);
    opt.rtol = rtol;
    opt.atol = atol;
    return opt;
}

/* Integrates y' = rhs from (t0, y0) to t_end with one fresh integrator;
** at most max_steps steps. */
static inline ns_run ns_integrate(const hy_integrator_ops *ops, int n,
                                  hy_rhs_fn rhs, ns_ctx *ctx, double t0,
                                  const double *y0, double t_end,
                                  const hy_options *opt, long max_steps,
                                  ns_step_fn on_step, void *user)
{
    ns_run run;
    memset(&run, 0, sizeof run);
    run.status = HYDAE_ERR_ARG;
    run.t_reached = t0;
    void *mem = ops->create(n);
    if (mem == NULL)
        return run;
    hy_dae dae;
    memset(&dae, 0, sizeof dae);
    dae.n = n;
    dae.rhs = rhs;
    dae.ctx = ctx;
    double yp0[NS_MAX_N];
    rhs(t0, y0, yp0, ctx);
    ctx->n_calls = 0;
    run.status = ops->init(mem, &dae, t0, y0, yp0, opt);
    double t = t0;
    for (long s = 0; run.status == HYDAE_OK && s < max_steps; s++) {
        double t_new = t;
        run.status = ops->step(mem, t_end, &t_new);
        if (run.status < 0)
            break;
        if (t_new > t_end)
            run.passed_t_stop = 1;
        if (t_new - t > run.h_max_seen)
            run.h_max_seen = t_new - t;
        if (on_step)
            on_step(user, ops, mem, t, t_new);
        t = t_new;
    }
    run.t_reached = t;
    ops->dense(mem, t, run.y, NULL);
    ops->get_stats(mem, &run.stats);
    run.n_calls = ctx->n_calls;
    ops->destroy(mem);
    return run;
}

/* Dense output check: after every step, the largest |y_dense - y_exact|
** and |y'_dense - f(y_exact)| (any component) at n_points interior points
** of the step, and the same at the step's end points. */
typedef struct ns_dense_check {
    int n;
    void (*exact)(double t, double *y);
    hy_rhs_fn rhs;
    int n_points;
    double max_err_y;
    double max_err_yp;
    double max_err_ends;    /* dense at t_new vs exact (= solution error) */
    int n_dense_fail;
} ns_dense_check;

static inline void ns_check_dense(void *user, const hy_integrator_ops *ops,
                                  void *mem, double t_old, double t_new)
{
    ns_dense_check *c = user;
    double y[NS_MAX_N], yp[NS_MAX_N], y_ex[NS_MAX_N], yp_ex[NS_MAX_N];
    ns_ctx quiet;
    ns_ctx_init(&quiet);
    for (int j = 0; j <= c->n_points + 1; j++) {
        double t = j == c->n_points + 1
                       ? t_new
                       : t_old + (t_new - t_old) * j / (c->n_points + 1);
        if (ops->dense(mem, t, y, yp) != HYDAE_OK) {
            c->n_dense_fail++;
            continue;
        }
        c->exact(t, y_ex);
        c->rhs(t, y_ex, yp_ex, &quiet);
        for (int i = 0; i < c->n; i++) {
            double err_y = fabs(y[i] - y_ex[i]);
            double err_yp = fabs(yp[i] - yp_ex[i]);
            if (j == 0 || j == c->n_points + 1) {
                if (err_y > c->max_err_ends)
                    c->max_err_ends = err_y;
            } else {
                if (err_y > c->max_err_y)
                    c->max_err_y = err_y;
                if (err_yp > c->max_err_yp)
                    c->max_err_yp = err_yp;
            }
        }
    }
}

#endif
