/*
** The driver of seed 002's ODE formulation (src/mech/mech_ode.c) shared by
** test_mechanics_ode.c and test_mechanics_crank.c; not a test itself.
** Include after check.h and validation/mech_problems.c (the pendulum's
** energy is tracked when sys is &pendulum).
*/
#include "mech/mech.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

/* ------------------------------------------------------------------------
** Driver: partition at t0, integrate the ODE in (q_i, u_i), check the
** partition at every accepted point and restart the integrator when it
** changes (docs/mechanics.md, "Use").
*/

typedef struct run_result {
    int ok;
    double y[32];               /* full (q, u, lambda) at t_end */
    double max_drift;
    double max_energy_err;      /* pendulum only: max |E - E0| over accepted points */
    long steps, err_fails, conv_fails, evals, newton_iters, restarts;
    long newton_fallbacks;      /* Newton restarted from the last accepted q_d (mech_ode.c) */
    double min_quality_ratio;   /* min over accepted points of quality / its reference */
    double seconds;
} run_result;

static double pend_energy(const double *q, const double *u)
{
    return 0.5 * (u[0] * u[0] + u[1] * u[1]) + q[1];
}

static run_result run_ode(const mech_system *sys, const hy_integrator_ops *ops, double t0,
                          double t_end, const double *q0, const double *u0, double integr_tol,
                          double vel_tol_factor, double constr_tol)
{
    run_result r;
    memset(&r, 0, sizeof r);
    clock_t c0 = clock();
    r.min_quality_ratio = INFINITY;
    mech_ode mo;
    CHECK(mech_ode_init(&mo, sys, constr_tol) == 0, "mech_ode_init");
    int n = mo.n, n_q = sys->n_q;
    double y[16], yp[16], rtol[16], atol[16], q[16], u[16];
    CHECK(mech_ode_partition(&mo, t0, q0, u0, y) == 0, "partition");
    mech_ode_tolerances(&mo, integr_tol, 1.0, vel_tol_factor, rtol, atol);
    hy_options opt;
    memset(&opt, 0, sizeof opt);
    opt.rtol_vec = rtol;
    opt.atol_vec = atol;
    hy_dae dae = mech_ode_problem(&mo);
    void *mem = ops->create(n);
    double t = t0;
    int rc = mech_ode_rhs(t0, y, yp, &mo);
    if (rc == 0)
        rc = ops->init(mem, &dae, t0, y, yp, &opt);
    mech_ode_track_drift(&mo, t0, y);
    double e0 = pend_energy(q0, u0);
    while (rc >= 0 && t < t_end) {
        rc = ops->step(mem, t_end, &t);
        if (rc < 0)
            break;
        ops->dense(mem, t, y, NULL);
        if (mech_ode_track_drift(&mo, t, y) < 0.0) {
            rc = HYDAE_ERR_RESIDUAL;
            break;
        }
        if (sys == &pendulum) {
            mech_ode_complete(&mo, t, y, q, u, NULL, NULL);
            r.max_energy_err = fmax(r.max_energy_err, fabs(pend_energy(q, u) - e0));
        }
        int p = mech_ode_check_partition(&mo, t, y);
        if (p == 0)
            r.min_quality_ratio = fmin(r.min_quality_ratio, mo.pivot_last / mo.pivot_ref);
        if (p == 1) {
            rc = mech_ode_rhs(t, y, yp, &mo);
            if (rc == 0)
                rc = ops->init(mem, &dae, t, y, yp, &opt);
        } else if (p < 0) {
            rc = p;
        }
    }
    r.ok = rc >= 0 && t == t_end;
    if (r.ok)
        r.ok = mech_ode_complete(&mo, t, y, r.y, r.y + n_q, NULL, r.y + 2 * n_q) == 0;
    hy_stats st;
    ops->get_stats(mem, &st);
    r.steps = st.n_steps;
    r.err_fails = st.n_err_fails;
    r.conv_fails = st.n_conv_fails;
    r.evals = mo.n_evals;
    r.newton_iters = mo.n_newton_iters;
    r.restarts = mo.n_restarts;
    r.newton_fallbacks = mo.n_newton_fallbacks;
    r.max_drift = mo.max_drift;
    if (!r.ok)
        fprintf(stderr, "%s stopped at t = %g (rc %d)\n", ops->name, t, rc);
    ops->destroy(mem);
    mech_ode_free(&mo);
    r.seconds = (double)(clock() - c0) / CLOCKS_PER_SEC;
    return r;
}
