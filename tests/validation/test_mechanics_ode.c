/*
** Seed 002's ODE formulation of constrained mechanics (src/mech/mech_ode.c,
** generalized coordinate partitioning after Wehage & Haug 1982) with the
** explicit-ODE integrators VSTIFF, ABAM (and MSTIFF, RK45 in the sweep),
** against published references (/work/shared/testset/reference.json):
**
**   PENDULUM  Cash's index-3 pendulum (MEBDFDAE driver pendul3.f), t in
**             [0, 1]; the same mech_system as tests/validation/
**             test_mechanics.c (q = (x, y), M = I, F = (0, -1), Phi = (x^2 +
**             y^2 - 1)/2); reference yref_highprec.
**   CARAXIS   The car axis, test set report section II.17, t in [0, 3]; the
**             same mech_system as tests/validation/test_mechanics_testset.c;
**             reference yref (its lambda is minus ours).
**
** Both definitions are repeated here (each test is its own program).
** Scored as the test set does: scd = -log10(max_i |y_i - yref_i| /
** |yref_i|); floors = measured less about half a digit (docs/mechanics.md
** has the measured table; "test_mechanics_ode sweep" prints it). Drift:
** max |Phi_i| at the full q rebuilt from every accepted state - at most
** dae_constr_tol by construction (the Newton solve stops there), checked.
** A longer pendulum run (t in [0, 5], through the bottom of the swing
** where x, the dependent coordinate chosen at t = 0, has a zero
** derivative) exercises the re-partition; scored by the energy, which the
** exact solution conserves.
*/
#include "check.h"
#include "mech/mech.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "validation/mech_problems.c"
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
            rc = HY_ERR_RES;
            break;
        }
        if (sys == &pendulum) {
            mech_ode_complete(&mo, t, y, q, u, NULL, NULL);
            r.max_energy_err = fmax(r.max_energy_err, fabs(pend_energy(q, u) - e0));
        }
        int p = mech_ode_check_partition(&mo, t, y);
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
    r.max_drift = mo.max_drift;
    if (!r.ok)
        fprintf(stderr, "%s stopped at t = %g (rc %d)\n", ops->name, t, rc);
    ops->destroy(mem);
    mech_ode_free(&mo);
    r.seconds = (double)(clock() - c0) / CLOCKS_PER_SEC;
    return r;
}


/* ------------------------------------------------------------------------
** Tests
*/

/* The partition by complete pivoting: the pendulum at (1, 0) has Phi_q =
** (1, 0), so x is dependent and y independent; the car axis at t = 0 has
** Phi_q = [1 0 0 0; -2 0 2 0]: xl and xr dependent, yl and yr
** independent. The rebuilt full state matches y0, and Phi_q u = 0. */
static void test_partition(void)
{
    mech_ode mo;
    double y[8], q[4], u[4], up[4], lambda[2];
    CHECK(mech_ode_init(&mo, &pendulum, 1e-12) == 0, "init");
    CHECK(mech_ode_partition(&mo, 0.0, pend_y0, pend_y0 + 2, y) == 0, "partition");
    CHECK(mo.n == 2 && mo.dep[0] == 0 && mo.indep[0] == 1, "pendulum partition");
    CHECK(mech_ode_complete(&mo, 0.0, y, q, u, up, lambda) == 0, "complete");
    for (int i = 0; i < 2; i++) {
        CHECK_NEAR(q[i], pend_y0[i], 1e-15, "pendulum q0");
        CHECK_NEAR(u[i], pend_y0[2 + i], 1e-15, "pendulum u0");
    }
    /* u' = (-x lambda, -y lambda - 1) = (-1, -1), lambda(0) = 1 (driver y0). */
    CHECK_NEAR(up[0], -1.0, 1e-15, "pendulum u'(0)");
    CHECK_NEAR(up[1], -1.0, 1e-15, "pendulum v'(0)");
    CHECK_NEAR(lambda[0], 1.0, 1e-15, "pendulum lambda(0)");
    mech_ode_free(&mo);

    CHECK(mech_ode_init(&mo, &caraxis, 1e-12) == 0, "init");
    CHECK(mech_ode_partition(&mo, 0.0, car_y0, car_y0 + 4, y) == 0, "partition");
    CHECK(mo.n == 4 && mo.dep[0] == 0 && mo.dep[1] == 2 && mo.indep[0] == 1
              && mo.indep[1] == 3,
          "car axis partition");
    /* A perturbed independent state: the rebuilt q satisfies Phi = 0 to
    ** the Newton tolerance and u the velocity constraint. */
    y[0] += 0.01, y[1] -= 0.02, y[2] += 0.1;
    CHECK(mech_ode_complete(&mo, 0.1, y, q, u, NULL, NULL) == 0, "complete");
    double phi[2], g[8], phi_t[2];
    car_phi(0.1, q, phi, NULL);
    car_g(0.1, q, g, NULL);
    car_phi_t(0.1, q, phi_t, NULL);
    for (int i = 0; i < 2; i++) {
        CHECK(fabs(phi[i]) <= 1e-12, "car axis Phi %g", phi[i]);
        double v = phi_t[i];
        for (int j = 0; j < 4; j++)
            v += g[i + 2 * j] * u[j];
        CHECK(fabs(v) <= 1e-13, "car axis Phi_q u + Phi_t %g", v);
    }
    CHECK_NEAR(q[1], 0.51, 0.0, "independent yl kept");
    mech_ode_free(&mo);
}

typedef struct ode_case {
    const char *name;
    const mech_system *sys;
    const hy_integrator_ops *ops;
    double t_end;
    const double *y0, *ref;
    double lambda_sign;
    double tol;
    double floor;               /* scd(q) */
} ode_case;

/* dae_constr_tol of the runs, and Table 1's vel_tol_factor default. */
#define CONSTR_TOL 1e-10
#define VEL_TOL_FACTOR 1000.0

static void run_case(const ode_case *c)
{
    int n_q = c->sys->n_q, n_all = 2 * n_q + c->sys->n_c;
    run_result r = run_ode(c->sys, c->ops, 0.0, c->t_end, c->y0, c->y0 + n_q, c->tol,
                           VEL_TOL_FACTOR, CONSTR_TOL);
    CHECK(r.ok, "%s %s integr_tol %g failed", c->name, c->ops->name, c->tol);
    if (!r.ok)
        return;
    for (int i = 2 * n_q; i < n_all; i++)
        r.y[i] *= c->lambda_sign;
    double scd_q = scd(r.y, c->ref, 0, n_q), scd_all = scd(r.y, c->ref, 0, n_all);
    printf("%-8s ODE/%-6s integr_tol %-6g scd(q) %5.2f scd(all) %5.2f drift %.2e steps %5ld "
           "err fails %3ld conv fails %3ld f evals %6ld Newton iterations %6ld restarts %ld\n",
           c->name, c->ops->name, c->tol, scd_q, scd_all, r.max_drift, r.steps, r.err_fails,
           r.conv_fails, r.evals, r.newton_iters, r.restarts);
    CHECK(scd_q >= c->floor, "%s %s integr_tol %g: scd(q) %.2f below %.2f", c->name,
          c->ops->name, c->tol, scd_q, c->floor);
    CHECK(r.max_drift <= CONSTR_TOL, "%s %s integr_tol %g: drift %.2e above dae_constr_tol",
          c->name, c->ops->name, c->tol, r.max_drift);
}

/* Through the bottom of the swing: x (dependent at t = 0) has Phi_x = x =
** 0 at the bottom, so the partition switches to y dependent there, and
** back to x when the pendulum passes y = 0 on the other side (it rises to
** y = 1/2): two re-partitions in [0, 5]. The energy E = (u^2 + v^2)/2 + y
** = 1/2 is conserved by the exact solution; the bounds are about 3 times
** the measured max |E - E0| (VSTIFF 1.1e-6, ABAM 3.6e-7 at integr_tol
** 1e-8, vel_tol_factor 1). */
static void test_repartition(void)
{
    static const struct {
        const hy_integrator_ops *ops;
        double tol, energy_bound;
    } cases[] = {
        { &hy_vstiff, 1e-8, 4e-6 },
        { &hy_abam, 1e-8, 1.2e-6 },
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        run_result r = run_ode(&pendulum, cases[k].ops, 0.0, 5.0, pend_y0, pend_y0 + 2,
                               cases[k].tol, 1.0, CONSTR_TOL);
        CHECK(r.ok, "pendulum [0, 5] %s failed", cases[k].ops->name);
        printf("pendulum [0, 5] ODE/%-6s integr_tol %g vel_tol_factor 1: restarts %ld "
               "max |E - E0| %.2e drift %.2e steps %ld\n",
               cases[k].ops->name, cases[k].tol, r.restarts, r.max_energy_err, r.max_drift,
               r.steps);
        CHECK(r.restarts == 2, "pendulum [0, 5] %s: %ld re-partitions", cases[k].ops->name,
              r.restarts);
        CHECK(r.max_energy_err <= cases[k].energy_bound, "pendulum [0, 5] %s: energy error %.2e",
              cases[k].ops->name, r.max_energy_err);
        CHECK(r.max_drift <= CONSTR_TOL, "pendulum [0, 5] %s: drift %.2e", cases[k].ops->name,
              r.max_drift);
    }
}

/* A sweep for docs/mechanics.md (no floors): test_mechanics_ode sweep. */
static void sweep(void)
{
    static const double tols[] = { 1e-4, 1e-5, 1e-6, 1e-7, 1e-8, 1e-9, 1e-10 };
    const hy_integrator_ops *ops[] = { &hy_vstiff, &hy_mstiff, &hy_abam, &hy_rk45 };
    for (int p = 0; p < 2; p++)
        for (int v = 0; v < 2; v++)
            for (int m = 0; m < 4; m++)
                for (int k = 0; k < 7; k++) {
                    const mech_system *sys = p == 0 ? &pendulum : &caraxis;
                    const double *y0 = p == 0 ? pend_y0 : car_y0;
                    const double *ref = p == 0 ? pendulum_ref : car_ref;
                    double t_end = p == 0 ? 1.0 : 3.0, vf = v == 0 ? 1000.0 : 1.0;
                    int n_q = sys->n_q, n_all = 2 * n_q + sys->n_c;
                    run_result r = run_ode(sys, ops[m], 0.0, t_end, y0, y0 + n_q, tols[k], vf,
                                           CONSTR_TOL);
                    if (p == 1)
                        for (int i = 8; i < 10; i++)
                            r.y[i] = -r.y[i];
                    printf("| %s | %s | %g | %g | %s | %.2f | %.2f | %.1e | %ld | %ld | %ld | "
                           "%.3f |\n",
                           p == 0 ? "pendulum" : "caraxis", ops[m]->name, vf, tols[k],
                           r.ok ? "ok" : "FAIL", r.ok ? scd(r.y, ref, 0, n_q) : 0.0,
                           r.ok ? scd(r.y, ref, 0, n_all) : 0.0, r.max_drift, r.steps,
                           r.evals, r.restarts, r.seconds);
                }
}

/* ------------------------------------------------------------------------
** Seed 002's Table 2 measured (test_mechanics_ode table2; no floors):
** I3 and SI1 with DSTIFF (as in test_mechanics.c) against the ODE form with
** VSTIFF and ABAM, Table 1 defaults, on the pendulum and the car axis:
** accuracy (scd), speed (steps, evaluations, CPU time), consistency (max
** |Phi| and max |Phi_q u + Phi_t| at accepted points) and a discontinuity
** (the pendulum with a horizontal force stepping from 0 to 1/2 at t =
** 0.5: steps, rejected steps and evaluations to reach t = 1).
*/

typedef struct t2_result {
    int ok;
    double y[32], drift, vel_drift, seconds;
    long steps, rejected, evals;
} t2_result;

static t2_result run_dae_t2(const mech_system *sys, int dae_index, double t_end,
                            const double *q0, const double *u0, double tol)
{
    t2_result r;
    memset(&r, 0, sizeof r);
    mech_dae md;
    mech_dae_init(&md, sys, dae_index);
    int n = md.n, n_q = sys->n_q;
    double y0[32], yp0[32], y[32], rtol[32], atol[32];
    unsigned char excl[32], var_index[32];
    mech_consistent_start(&md, 0.0, q0, u0, y0, yp0);
    mech_tolerances(&md, tol, 1.0, 1000.0, 1000.0, 1, rtol, atol, excl);
    mech_var_index(&md, var_index);
    hy_options opt;
    memset(&opt, 0, sizeof opt);
    opt.rtol_vec = rtol, opt.atol_vec = atol, opt.err_test_exclude = excl;
    opt.var_index = var_index;
    hy_dae dae = mech_dae_problem(&md);
    void *mem = hy_dstiff.create(n);
    double t = 0.0;
    int rc = hy_dstiff.init(mem, &dae, 0.0, y0, yp0, &opt);
    while (rc >= 0 && t < t_end) {
        rc = hy_dstiff.step(mem, t_end, &t);
        if (rc >= 0) {
            hy_dstiff.dense(mem, t, y, NULL);
            mech_track_drift(&md, t, y);
            r.vel_drift = fmax(r.vel_drift, vel_residual(sys, t, y, y + n_q));
        }
    }
    r.ok = rc >= 0 && t == t_end;
    memcpy(r.y, y, (size_t)n * sizeof(double));
    hy_stats st;
    hy_dstiff.get_stats(mem, &st);
    r.steps = st.n_steps, r.rejected = st.n_err_fails + st.n_conv_fails;
    r.evals = st.n_res_evals, r.drift = md.max_drift;
    hy_dstiff.destroy(mem);
    mech_dae_free(&md);
    return r;
}

static t2_result run_ode_t2(const mech_system *sys, const hy_integrator_ops *ops,
                            double t_end, const double *q0, const double *u0, double tol)
{
    t2_result r;
    memset(&r, 0, sizeof r);
    run_result rr = run_ode(sys, ops, 0.0, t_end, q0, u0, tol, 1000.0, CONSTR_TOL);
    r.ok = rr.ok;
    memcpy(r.y, rr.y, sizeof r.y);
    r.drift = rr.max_drift, r.steps = rr.steps, r.rejected = rr.err_fails + rr.conv_fails;
    r.evals = rr.evals;
    /* u_d solves the velocity constraint: its residual at the end. */
    r.vel_drift = vel_residual(sys, t_end, rr.y, rr.y + sys->n_q);
    return r;
}

static void table2(void)
{
    static const double tols[2] = { 1e-6, 1e-9 };
    const char *forms[4] = { "I3", "SI1", "ODE/VSTIFF", "ODE/ABAM" };
    for (int p = 0; p < 3; p++)
        for (int k = 0; k < 2; k++)
            for (int f = 0; f < 4; f++) {
                const mech_system *sys = p == 0 ? &pendulum : p == 1 ? &caraxis : &pendulum_jump;
                const double *y0 = p == 1 ? car_y0 : pend_y0;
                const double *ref = p == 1 ? car_ref : pendulum_ref;
                double t_end = p == 1 ? 3.0 : 1.0;
                int n_q = sys->n_q, n_all = 2 * n_q + sys->n_c, reps = 20;
                t2_result r;
                clock_t c0 = clock();
                for (int rep = 0; rep < reps; rep++)
                    r = f < 2 ? run_dae_t2(sys, f == 0 ? 3 : 1, t_end, y0, y0 + n_q, tols[k])
                              : run_ode_t2(sys, f == 2 ? &hy_vstiff : &hy_abam, t_end, y0,
                                           y0 + n_q, tols[k]);
                r.seconds = (double)(clock() - c0) / CLOCKS_PER_SEC / reps;
                if (p == 1)
                    for (int i = 8; i < 10; i++)
                        r.y[i] = -r.y[i];
                double s_q = p == 2 || !r.ok ? NAN : scd(r.y, ref, 0, n_q);
                double s_all = p == 2 || !r.ok ? NAN : scd(r.y, ref, 0, n_all);
                printf("| %s | %g | %s | %s | %.2f | %.2f | %.1e | %.1e | %ld | %ld | %ld | "
                       "%.0f |\n",
                       p == 0 ? "pendulum" : p == 1 ? "caraxis" : "pendulum+jump", tols[k],
                       forms[f], r.ok ? "ok" : "FAIL", s_q, s_all, r.drift, r.vel_drift,
                       r.steps, r.rejected, r.evals, r.seconds * 1e6);
            }
}

int main(int argc, char **argv)
{
    test_partition();
    if (argc > 1 && strcmp(argv[1], "sweep") == 0) {
        sweep();
        return CHECK_DONE();
    }
    if (argc > 1 && strcmp(argv[1], "table2") == 0) {
        table2();
        return CHECK_DONE();
    }
    /* Floors: measured scd(q) (docs/mechanics.md) less about half a digit. */
    static const ode_case cases[] = {
        { "pendulum", &pendulum, &hy_vstiff, 1.0, pend_y0, pendulum_ref, 1.0, 1e-6, 3.6 },  /* 4.08 */
        { "pendulum", &pendulum, &hy_vstiff, 1.0, pend_y0, pendulum_ref, 1.0, 1e-9, 6.7 },  /* 7.20 */
        { "pendulum", &pendulum, &hy_abam, 1.0, pend_y0, pendulum_ref, 1.0, 1e-6, 4.5 },    /* 4.99 */
        { "pendulum", &pendulum, &hy_abam, 1.0, pend_y0, pendulum_ref, 1.0, 1e-9, 8.2 },    /* 8.71 */
        { "caraxis", &caraxis, &hy_vstiff, 3.0, car_y0, car_ref, -1.0, 1e-6, 2.0 },     /* 2.55 */
        { "caraxis", &caraxis, &hy_vstiff, 3.0, car_y0, car_ref, -1.0, 1e-9, 4.3 },     /* 4.85 */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        run_case(&cases[i]);
    test_repartition();
    return CHECK_DONE();
}
