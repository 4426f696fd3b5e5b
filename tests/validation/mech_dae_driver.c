/*
** The mechanics tests' driver of the DAE formulations (I3, SI1) with DSTIFF
** (included by test_mechanics.c and test_mechanics_testset.c after check.h
** and validation/mech_problems.c; not a test itself). External linkage, as
** in mech_problems.c.
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

