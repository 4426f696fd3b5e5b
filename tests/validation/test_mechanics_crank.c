/*
** The flexible slider crank (Test Set for IVP Solvers, report section
** II.19; tests/validation/mech_crank.c has the mech_system and its
** sources) in seed 002's I3 and SI1 formulations with DSTIFF and in the ODE
** formulation by coordinate partitioning with VSTIFF and ABAM (MSTIFF and
** RK45 in the sweep), t in [0, 0.1], against yref of
** /work/shared/testset/reference.json (MEBDFI at 1e-14).
**
** Components compared: the reference y = (q[7], u[7], u'[7], lambda[3])
** (1-based 1-7, 8-14, 15-21, 22-24); our I3, SI1 and ODE results give q,
** u and lambda, compared with 1-7, 8-14 and 22-24 (u' is not compared).
** scd as the test set computes it, -log10 of the largest relative error:
**   scd(q)       over 1-7 (positions: angles, slider, elastic modes);
**   scd(u)       over 8-14;
**   scd(lambda)  over 22-24;
**   scd(test set) over 1-7 and 22-24, reference.json's scd_components.
** The elastic q1 .. q4 are ~1e-5 .. 2e-4 and an absolute integr_tol
** leaves them little relative accuracy at loose tolerances, so scd(q) is
** set by them. Floors = measured less about half a digit
** (docs/mechanics.md; "test_mechanics_crank sweep" prints the table).
** Drift: max |Phi_i| over the accepted steps.
**
** Independent checks of the equations written in mech_crank.c: the
** consistent start (mech_accelerations at t = 0) against the report's u'(0)
** and lambda(0); Phi_q and gamma against finite differences of Phi and of
** Phi_q u; Phi_t against a finite difference in t.
*/
#include "check.h"
#include "mech/mech.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "validation/mech_problems.c"
#include "validation/mech_dae_driver.c"
#include "validation/mech_crank.c"
#include "validation/mech_ode_driver.c"

#define CRANK_T_END 0.1
/* dae_constr_tol of the ODE form. */
#define CONSTR_TOL 1e-10

/* A generic state away from y0 (where phi1 = phi2 = 0 and q = 0 make
** many terms vanish). */
static void crank_test_state(double *q, double *u)
{
    static const double q_test[7] = { 0.7, -0.3, 0.42, 1e-4, -2e-5, 3e-6, 5e-5 };
    static const double u_test[7] = { 150.0, -60.0, 8.0, 0.03, -0.005, 5e-4, 1e-3 };
    memcpy(q, q_test, sizeof q_test);
    memcpy(u, u_test, sizeof u_test);
}

/* Phi_q against central differences of Phi (step 1e-6 in each q_j), Phi_t
** against a central difference in t, gamma = -(Phi_q u)_q u against a
** central difference of Phi_q(q + s u) u in s. */
static void test_crank_derivatives(void)
{
    double q[7], u[7], g[21], gp[21], gm[21], phi_p[3], phi_m[3], phi_t[3], gamma[3];
    crank_test_state(q, u);
    const double t = 0.013, s = 1e-6;
    crank_g(t, q, g, NULL);
    for (int j = 0; j < 7; j++) {
        double qp[7], qm[7];
        memcpy(qp, q, sizeof qp);
        memcpy(qm, q, sizeof qm);
        qp[j] += s, qm[j] -= s;
        crank_phi(t, qp, phi_p, NULL);
        crank_phi(t, qm, phi_m, NULL);
        for (int i = 0; i < 3; i++)
            CHECK_NEAR(g[i + 3 * j], (phi_p[i] - phi_m[i]) / (2.0 * s), 1e-8,
                       "crank Phi_q against finite differences");
    }
    crank_phi_t(t, q, phi_t, NULL);
    crank_phi(t + s, q, phi_p, NULL);
    crank_phi(t - s, q, phi_m, NULL);
    for (int i = 0; i < 3; i++)
        CHECK_NEAR(phi_t[i], (phi_p[i] - phi_m[i]) / (2.0 * s), 1e-6 * crank.omega,
                   "crank Phi_t against a finite difference");
    crank_gamma(t, q, u, gamma, NULL);
    const double ds = 1e-7; /* u is O(100): s u is O(1e-5) */
    double qp[7], qm[7];
    for (int j = 0; j < 7; j++)
        qp[j] = q[j] + ds * u[j], qm[j] = q[j] - ds * u[j];
    crank_g(t, qp, gp, NULL);
    crank_g(t, qm, gm, NULL);
    for (int i = 0; i < 3; i++) {
        double d = 0.0;
        for (int j = 0; j < 7; j++)
            d += (gp[i + 3 * j] - gm[i + 3 * j]) * u[j];
        d /= 2.0 * ds;
        CHECK_NEAR(gamma[i], -d, 1e-6 * fmax(1.0, fabs(d)), "crank gamma against (Phi_q u)_q u");
    }
}

/* The mass matrix is symmetric and the start consistent: Phi(q0) and
** Phi_q u0 + Phi_t at the 9 digits of y0. u' and lambda at t = 0 from the
** index-1 saddle-point system reproduce the report's u'(0), lambda(0)
** (reference.json y0[14..24)): measured relative differences 1.6e-16
** (phi2''), 5e-11 (x3'', lambda2), 5e-8 and 1.3e-6 (q3'', q4''); the tiny
** components (q1'' ~ 7e-5, q2'' ~ 1e-8, lambda1 ~ 6e-8, lambda3 ~ 4e-9,
** which the report's release 2.4 revises: |q2''(0)| = 1.8e-20, |lambda1| =
** 6.552727e-8, |lambda3| = 4.635909e-9) agree to 1e-11 of their group's
** largest. The release 2.4 magnitudes quoted in reference.json's y0_note
** are matched too: ours 6.552747e-8 and 4.635938e-9 (3e-6 and 6e-6
** relative), |x3''| 5062.1949234 (2e-10), q2'' = 0. */
static void test_crank_start(void)
{
    double m[49], phi[3], g[21], phi_t[3], up[7], lambda[3];
    crank_mass(0.0, crank_y0, m, NULL);
    for (int i = 0; i < 7; i++)
        for (int j = 0; j < 7; j++)
            CHECK(m[i + 7 * j] == m[j + 7 * i], "crank M symmetric (%d, %d)", i, j);
    crank_phi(0.0, crank_y0, phi, NULL);
    crank_g(0.0, crank_y0, g, NULL);
    crank_phi_t(0.0, crank_y0, phi_t, NULL);
    for (int i = 0; i < 3; i++) {
        double v = phi_t[i];
        for (int j = 0; j < 7; j++)
            v += g[i + 3 * j] * crank_y0[7 + j];
        CHECK(fabs(phi[i]) <= 1e-9, "crank Phi(q0)[%d] = %g", i, phi[i]);
        CHECK(fabs(v) <= 1e-7, "crank Phi_q u0 + Phi_t [%d] = %g", i, v);
    }
    double *work = malloc(mech_accel_work_len(&slider_crank) * sizeof(double));
    int iwork[10];
    CHECK(mech_accelerations(&slider_crank, 0.0, crank_y0, crank_y0 + 7, work, iwork, up, lambda)
              == 0,
          "crank accelerations at t = 0");
    free(work);
    double up_scale = 0.0, lambda_scale = 0.0;
    for (int i = 0; i < 7; i++)
        up_scale = fmax(up_scale, fabs(crank_y0[14 + i]));
    for (int i = 0; i < 3; i++)
        lambda_scale = fmax(lambda_scale, fabs(crank_y0[21 + i]));
    for (int i = 0; i < 7; i++)
        CHECK_NEAR(up[i], crank_y0[14 + i], 2e-6 * fabs(crank_y0[14 + i]) + 1e-11 * up_scale,
                   "crank u'(0)");
    for (int i = 0; i < 3; i++)
        CHECK_NEAR(lambda[i], crank_y0[21 + i],
                   2e-6 * fabs(crank_y0[21 + i]) + 1e-11 * lambda_scale, "crank lambda(0)");
    /* Release 2.4's refined magnitudes (reference.json y0_note). */
    CHECK_NEAR(fabs(up[1]), 1.344541576709835e-3, 1e-9 * 1.344541576709835e-3, "|phi2''(0)|");
    CHECK_NEAR(fabs(up[2]), 5.062194924490193e3, 1e-9 * 5.062194924490193e3, "|x3''(0)|");
    CHECK_NEAR(fabs(up[4]), 1.813207639590617e-20, 1e-19, "|q2''(0)|");
    CHECK_NEAR(fabs(lambda[0]), 6.552727150584648e-8, 2e-5 * 6.552727150584648e-8,
               "|lambda1(0)|");
    CHECK_NEAR(fabs(lambda[2]), 4.635908708561371e-9, 2e-5 * 4.635908708561371e-9,
               "|lambda3(0)|");
}

/* The ODE form's partition at t = 0: Phi_q = [L1 (L2 + q4) 0 0 0 0 0;
** 0 0 1 0 0 0 -1; 1 0 0 0 0 0 0], so complete pivoting makes phi1, x3
** and phi2 dependent and the four elastic coordinates independent. */
static void test_crank_partition(void)
{
    mech_ode mo;
    double y[8];
    CHECK(mech_ode_init(&mo, &slider_crank, CONSTR_TOL) == 0, "init");
    CHECK(mech_ode_partition(&mo, 0.0, crank_y0, crank_y0 + 7, y) == 0, "partition");
    CHECK(mo.n == 8 && mo.dep[0] == CR_PHI1 && mo.dep[1] == CR_PHI2 && mo.dep[2] == CR_X3,
          "crank partition: dependent %d %d %d", mo.dep[0], mo.dep[1], mo.dep[2]);
    mech_ode_free(&mo);
}

/* ------------------------------------------------------------------------
** Runs
*/

/* The model against the reference at a tight tolerance: the ODE form with
** RK45, integr_tol 1e-12, vel_tol_factor 1, dae_constr_tol 1e-14. Measured
** scd(q) 7.52, scd(lambda) 7.69; the same at 1e-13 and 1e-14 (our
** solution has converged, and perturbing any of y0's elastic positions or
** velocities by 5e-10 relative - half a unit of their 9th digit - leaves
** it unchanged), so this is the agreement of the equations of
** mech_crank.c with the test set's. With pi in full precision in place of
** RESMBS's 3.1415927 it falls to 6.64 (measured): the floors 7.2 tell the
** two apart. */
static void test_crank_reference(void)
{
    run_result r = run_ode(&slider_crank, &hy_rk45, 0.0, CRANK_T_END, crank_y0, crank_y0 + 7,
                           1e-12, 1.0, 1e-14);
    CHECK(r.ok, "crank RK45 1e-12 failed");
    if (!r.ok)
        return;
    double scd_q = scd(r.y, crank_ref, 0, 7), scd_lambda = scd(r.y + 14, crank_ref + 21, 0, 3);
    printf("crank ODE/RK45 integr_tol 1e-12 dae_constr_tol 1e-14: scd(q) %.2f scd(lambda) %.2f "
           "steps %ld\n",
           scd_q, scd_lambda, r.steps);
    CHECK(scd_q >= 7.2, "crank RK45 1e-12: scd(q) %.2f", scd_q);
    CHECK(scd_lambda >= 7.2, "crank RK45 1e-12: scd(lambda) %.2f", scd_lambda);
}

enum { FORM_I3, FORM_SI1, FORM_VSTIFF, FORM_MSTIFF, FORM_ABAM, FORM_RK45, N_FORMS };
static const char *const form_names[N_FORMS] = {
    "I3", "SI1", "ODE/VSTIFF", "ODE/MSTIFF", "ODE/ABAM", "ODE/RK45",
};

typedef struct crank_run {
    int ok;
    double scd_q, scd_u, scd_lambda, scd_testset;
    double drift;
    long steps, rejected, evals;
    long restarts;              /* ODE form: re-partitions that changed the columns */
    double seconds;
} crank_run;

/* -log10 of the largest relative error of (q, u, lambda) (ours, in
** y[0..7), y[7..14), y[14..17)) against the reference's 1-7, 8-14, 22-24. */
static void crank_score(const double *y, crank_run *r)
{
    r->scd_q = scd(y, crank_ref, 0, 7);
    r->scd_u = scd(y + 7, crank_ref + 7, 0, 7);
    r->scd_lambda = scd(y + 14, crank_ref + 21, 0, 3);
    r->scd_testset = fmin(r->scd_q, r->scd_lambda);
}

static crank_run run_crank(int form, double integr_tol, double vel_tol_factor)
{
    crank_run r;
    memset(&r, 0, sizeof r);
    clock_t c0 = clock();
    if (form == FORM_I3 || form == FORM_SI1) {
        dae_run_result d = run_dae_formulation(&slider_crank, form == FORM_I3 ? 3 : 1, 0.0,
                                               CRANK_T_END, crank_y0, crank_y0 + 7, integr_tol,
                                               vel_tol_factor, 1);
        r.ok = d.ok;
        if (d.ok)
            crank_score(d.y, &r);
        r.drift = d.max_drift;
        r.steps = d.steps;
        r.rejected = d.err_fails + d.conv_fails;
        r.evals = d.res_evals;
    } else {
        const hy_integrator_ops *ops = form == FORM_VSTIFF   ? &hy_vstiff
                                       : form == FORM_MSTIFF ? &hy_mstiff
                                       : form == FORM_ABAM   ? &hy_abam
                                                             : &hy_rk45;
        run_result o = run_ode(&slider_crank, ops, 0.0, CRANK_T_END, crank_y0, crank_y0 + 7,
                               integr_tol, vel_tol_factor, CONSTR_TOL);
        r.ok = o.ok;
        if (o.ok)
            crank_score(o.y, &r);
        r.drift = o.max_drift;
        r.steps = o.steps;
        r.rejected = o.err_fails + o.conv_fails;
        r.evals = o.evals;
        r.restarts = o.restarts;
    }
    r.seconds = (double)(clock() - c0) / CLOCKS_PER_SEC;
    return r;
}

typedef struct crank_case {
    int form;
    double vel_tol_factor;
    double tol;
    double floor;               /* scd(test set): q and lambda */
} crank_case;

static void run_case(const crank_case *c)
{
    crank_run r = run_crank(c->form, c->tol, c->vel_tol_factor);
    CHECK(r.ok, "crank %s integr_tol %g failed", form_names[c->form], c->tol);
    if (!r.ok)
        return;
    printf("crank %-10s vel_tol_factor %-4g integr_tol %-6g scd(q) %5.2f scd(u) %5.2f "
           "scd(lambda) %5.2f scd(test set) %5.2f drift %.2e steps %5ld rejected %3ld "
           "evals %6ld restarts %ld\n",
           form_names[c->form], c->vel_tol_factor, c->tol, r.scd_q, r.scd_u, r.scd_lambda,
           r.scd_testset, r.drift, r.steps, r.rejected, r.evals, r.restarts);
    CHECK(r.scd_testset >= c->floor, "crank %s integr_tol %g: scd %.2f below %.2f",
          form_names[c->form], c->tol, r.scd_testset, c->floor);
    /* Drift: the ODE form holds Phi to dae_constr_tol by construction; the
    ** DAE forms to the corrector's tolerance (a few integr_tol). */
    double drift_bound = c->form == FORM_I3 || c->form == FORM_SI1 ? 10.0 * c->tol : CONSTR_TOL;
    CHECK(r.drift <= drift_bound, "crank %s integr_tol %g: drift %.2e above %.2e",
          form_names[c->form], c->tol, r.drift, drift_bound);
    /* The dependent block (phi1, phi2, x3) has determinant (L2 + q4) cos
    ** phi2, and |phi2| <= asin(L1 / L2) = 30 degrees: never a re-partition. */
    CHECK(r.restarts == 0, "crank %s integr_tol %g: %ld re-partitions", form_names[c->form],
          c->tol, r.restarts);
}

/* The table of docs/mechanics.md: test_mechanics_crank sweep. */
static void sweep(void)
{
    static const double tols[] = { 1e-4, 1e-5, 1e-6, 1e-7, 1e-8, 1e-9, 1e-10 };
    for (int v = 0; v < 2; v++)
        for (int f = 0; f < N_FORMS; f++)
            for (int k = 0; k < 7; k++) {
                double vf = v == 0 ? 1000.0 : 1.0;
                crank_run r = run_crank(f, tols[k], vf);
                printf("| %s | %g | %g | %s | %.2f | %.2f | %.2f | %.2f | %.1e | %ld | %ld | %ld "
                       "| %ld | %.3f |\n",
                       form_names[f], vf, tols[k], r.ok ? "ok" : "FAIL", r.scd_q, r.scd_u,
                       r.scd_lambda, r.scd_testset, r.drift, r.steps, r.rejected, r.evals,
                       r.restarts, r.seconds);
                fflush(stdout);
            }
}

int main(int argc, char **argv)
{
    test_crank_derivatives();
    test_crank_start();
    test_crank_partition();
    if (argc > 1 && strcmp(argv[1], "sweep") == 0) {
        sweep();
        return CHECK_DONE();
    }
    /* Floors: measured scd(test set) (docs/mechanics.md) less about half a
    ** digit. Table 1's vel_tol_factor 1000, and 1 for SI1 and the ODE form
    ** (the crank's velocities are O(100), the elastic ones O(1e-3 .. 0.4)). */
    static const crank_case cases[] = {
        { FORM_I3, 1000.0, 1e-9, 0.35 },     /* 0.85 */
        { FORM_I3, 1000.0, 1e-10, 1.5 },     /* 2.01 */
        { FORM_SI1, 1000.0, 1e-8, 1.3 },     /* 1.80 */
        { FORM_SI1, 1000.0, 1e-9, 2.2 },     /* 2.71 */
        { FORM_SI1, 1.0, 1e-6, 1.35 },       /* 1.86 */
        { FORM_SI1, 1.0, 1e-8, 2.0 },        /* 2.50 */
        { FORM_VSTIFF, 1000.0, 1e-9, 1.85 }, /* 2.30 */
        { FORM_VSTIFF, 1000.0, 1e-10, 2.55 },/* 3.02 */
        { FORM_VSTIFF, 1.0, 1e-7, 2.6 },     /* 3.05 */
        { FORM_VSTIFF, 1.0, 1e-10, 3.8 },    /* 4.29 */
        { FORM_ABAM, 1000.0, 1e-9, 1.7 },    /* 1.97 */
        { FORM_ABAM, 1000.0, 1e-10, 2.1 },   /* 2.57 */
        { FORM_ABAM, 1.0, 1e-8, 2.9 },       /* 3.41 */
        { FORM_ABAM, 1.0, 1e-10, 5.25 },     /* 5.79 */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        run_case(&cases[i]);
    test_crank_reference();
    return CHECK_DONE();
}
