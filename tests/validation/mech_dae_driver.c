/*
** The mechanics tests' driver of the DAE formulations (I3, SI1) with any
** integrator of the F(t, y, y') = 0 form (DSTIFF, RADAU; included by
** test_mechanics.c, test_mechanics_testset.c, test_mechanics_crank.c and
** test_radau_mech.c after check.h and validation/mech_problems.c; not a
** test itself). External linkage, as in mech_problems.c.
*/
#include "mech/mech.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct dae_run_result {
    int ok;
    double y[64];
    double max_drift;
    long steps, err_fails, conv_fails, res_evals;
} dae_run_result;

/* A run's settings beyond the problem: seed 002's Table 1 (rtol =
** rel_abs_tol_ratio atol, scale 1 for q, vel_tol_factor for u,
** alg_tol_factor for lambda and mu) and dae_vel_ctrl. */
typedef struct dae_run_settings {
    const hy_integrator_ops *method;
    int dae_index;              /* 3 (I3) or 1 (SI1) */
    double integr_tol;
    double vel_tol_factor, alg_tol_factor;
    int vel_ctrl;
    double rel_abs_tol_ratio;   /* 0 taken as 1 */
} dae_run_settings;

dae_run_result run_dae_settings(const mech_system *sys, const dae_run_settings *set, double t0,
                                double t_end, const double *q0, const double *u0)
{
    const hy_integrator_ops *m = set->method;
    dae_run_result r;
    memset(&r, 0, sizeof r);
    mech_dae md;
    CHECK(mech_dae_init(&md, sys, set->dae_index) == 0, "mech_dae_init");
    int n = md.n;
    double *y0 = malloc(sizeof(double) * (size_t)n), *yp0 = malloc(sizeof(double) * (size_t)n);
    double *rtol = malloc(sizeof(double) * (size_t)n), *atol = malloc(sizeof(double) * (size_t)n);
    unsigned char *excl = malloc((size_t)n), *var_index = malloc((size_t)n);
    double *y = malloc(sizeof(double) * (size_t)n);
    CHECK(mech_consistent_start(&md, t0, q0, u0, y0, yp0) == 0, "consistent start");
    double ratio = set->rel_abs_tol_ratio > 0.0 ? set->rel_abs_tol_ratio : 1.0;
    mech_tolerances(&md, set->integr_tol, ratio, set->vel_tol_factor, set->alg_tol_factor,
                    set->vel_ctrl, rtol, atol, excl);
    hy_dae dae;
    CHECK(mech_dae_problem_for(&md, m, &dae, var_index) == 0, "mech_dae_problem_for");
    hy_options opt;
    memset(&opt, 0, sizeof opt);
    opt.rtol_vec = rtol;
    opt.atol_vec = atol;
    opt.err_test_exclude = excl;
    opt.var_index = var_index;
    void *mem = m->create(n);
    double t = t0;
    int rc = m->init(mem, &dae, t0, y0, yp0, &opt);
    mech_track_drift(&md, t0, y0);
    while (rc >= 0 && t < t_end) {
        rc = m->step(mem, t_end, &t);
        if (rc >= 0) {
            m->dense(mem, t, y, NULL);
            mech_track_drift(&md, t, y);
        }
    }
    r.ok = rc >= 0 && t == t_end;
    if (r.ok)
        memcpy(r.y, y, sizeof(double) * (size_t)n);
    hy_stats st;
    m->get_stats(mem, &st);
    r.steps = st.n_steps;
    r.err_fails = st.n_err_fails;
    r.conv_fails = st.n_conv_fails;
    r.res_evals = st.n_res_evals;
    r.max_drift = md.max_drift;
    if (!r.ok)
        fprintf(stderr, "%s: stopped at t = %g (rc %d), worst component %d\n", m->name, t, rc,
                m->worst_component(mem));
    m->destroy(mem);
    mech_dae_free(&md);
    free(y0), free(yp0), free(rtol), free(atol), free(excl), free(var_index), free(y);
    return r;
}

/* DSTIFF with Table 1's dae_alg_tol_factor 1000 and rel_abs_tol_ratio 1. */
dae_run_result run_dae_formulation(const mech_system *sys, int dae_index, double t0, double t_end,
                                   const double *q0, const double *u0, double integr_tol,
                                   double vel_tol_factor, int vel_ctrl)
{
    dae_run_settings set = { &hy_dstiff, dae_index, integr_tol, vel_tol_factor, 1000.0,
                             vel_ctrl, 1.0 };
    return run_dae_settings(sys, &set, t0, t_end, q0, u0);
}
