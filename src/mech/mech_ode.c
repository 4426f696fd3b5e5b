/*
** Constrained mechanical systems: seed 002's ODE formulation by generalized
** coordinate partitioning (R.A. Wehage, E.J. Haug, J. Mech. Des. 104
** (1982) 247-255). The independent coordinates come from Gaussian
** elimination with complete pivoting of Phi_q; the dependent positions
** are recovered from Phi = 0 by Newton's method, the dependent velocities
** from the velocity constraint, and the accelerations from the index-1
** saddle-point system. See mech.h for the algorithm and the re-partition
** rule.
*/
#include "mech/mech.h"

#include "linalg/dense.h"
#include "core/core.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

int mech_ode_init(mech_ode *mo, const mech_system *sys, double constr_tol)
{
    memset(mo, 0, sizeof *mo);
    if (sys == NULL || sys->n_q <= 0 || sys->n_c < 0 || sys->n_c >= sys->n_q
        || sys->mass == NULL || sys->force == NULL
        || (sys->n_c > 0 && (sys->constraint == NULL || sys->constraint_jac == NULL
                             || sys->accel_rhs == NULL))
        || !(constr_tol > 0.0) || !isfinite(constr_tol))
        return HYDAE_ERR_ARG;
    int n_q = sys->n_q, n_c = sys->n_c;
    size_t nq = (size_t)n_q, nc = (size_t)n_c;
    mo->sys = sys;
    mo->n_i = n_q - n_c;
    mo->n = 2 * mo->n_i;
    mo->constr_tol = constr_tol;
    mo->newton_maxit = 10;
    mo->pivot_drop = 0.3;
    mo->indep = hy_malloc((size_t)mo->n_i * sizeof(int));
    mo->dep = hy_malloc((nc + 1) * sizeof(int));
    mo->q = hy_malloc(nq * sizeof(double));
    mo->u = hy_malloc(nq * sizeof(double));
    mo->q_try = hy_malloc(nq * sizeof(double));
    mo->q_accepted = hy_malloc(nq * sizeof(double));
    mo->tangent = hy_malloc((nc * (size_t)mo->n_i + 1) * sizeof(double));
    mo->tangent_t = hy_malloc((nc + 1) * sizeof(double));
    mo->up = hy_malloc(nq * sizeof(double));
    mo->lambda = hy_malloc((nc + 1) * sizeof(double));
    mo->g = hy_malloc((nc * nq + 1) * sizeof(double));
    mo->phi = hy_malloc((nc + 1) * sizeof(double));
    mo->phi_t = hy_malloc((nc + 1) * sizeof(double));
    mo->gd = hy_malloc((nc * nc + 1) * sizeof(double));
    mo->rhs_c = hy_malloc((nc + 1) * sizeof(double));
    mo->piv_c = hy_malloc((nc + 1) * sizeof(int));
    mo->accel_work = hy_malloc(mech_accel_work_len(sys) * sizeof(double));
    mo->accel_iwork = hy_malloc((nq + nc) * sizeof(int));
    mo->f_work = hy_malloc((size_t)mo->n * sizeof(double));
    if (!mo->indep || !mo->dep || !mo->q || !mo->u || !mo->q_try || !mo->q_accepted
        || !mo->tangent || !mo->tangent_t || !mo->up
        || !mo->lambda || !mo->g || !mo->phi || !mo->phi_t || !mo->gd || !mo->rhs_c || !mo->piv_c
        || !mo->accel_work || !mo->accel_iwork || !mo->f_work) {
        mech_ode_free(mo);
        return HYDAE_ERR_NOMEM;
    }
    return 0;
}

void mech_ode_free(mech_ode *mo)
{
    if (mo == NULL)
        return;
    hy_free(mo->indep);
    hy_free(mo->dep);
    hy_free(mo->q);
    hy_free(mo->u);
    hy_free(mo->q_try);
    hy_free(mo->q_accepted);
    hy_free(mo->tangent);
    hy_free(mo->tangent_t);
    hy_free(mo->up);
    hy_free(mo->lambda);
    hy_free(mo->g);
    hy_free(mo->phi);
    hy_free(mo->phi_t);
    hy_free(mo->gd);
    hy_free(mo->rhs_c);
    hy_free(mo->piv_c);
    hy_free(mo->accel_work);
    hy_free(mo->accel_iwork);
    hy_free(mo->f_work);
    memset(mo, 0, sizeof *mo);
}

/* Largest |G_ij| over Phi_q (n_c x n_q, in mo->g). */
static double g_max(const mech_ode *mo)
{
    size_t len = (size_t)mo->sys->n_c * (size_t)mo->sys->n_q;
    double big = 0.0;
    for (size_t k = 0; k < len; k++)
        big = fmax(big, fabs(mo->g[k]));
    return big;
}

/* Phi_qd (columns dep of mo->g) into mo->gd and its LU with partial
** pivoting; the quality (smallest |U_kk| over the largest |G_ij|) into
** *quality. 0, or -1 if exactly singular. */
static int factor_dependent(mech_ode *mo, double *quality)
{
    int n_c = mo->sys->n_c;
    size_t nc = (size_t)n_c;
    for (int j = 0; j < n_c; j++)
        for (int i = 0; i < n_c; i++)
            mo->gd[(size_t)i + (size_t)j * nc] = mo->g[(size_t)i + (size_t)mo->dep[j] * nc];
    if (hy_lu_factor(n_c, mo->gd, mo->piv_c) != 0) {
        *quality = 0.0;
        return -1;
    }
    double smallest = INFINITY, big = g_max(mo);
    for (int k = 0; k < n_c; k++)
        smallest = fmin(smallest, fabs(mo->gd[(size_t)k + (size_t)k * nc]));
    *quality = big > 0.0 ? smallest / big : 0.0;
    return 0;
}

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* The partition from Phi_q in mo->g: Gaussian elimination with complete
** pivoting (Wehage & Haug 1982); the pivot columns are dependent. 0, or
** HYDAE_ERR_SINGULAR when a pivot falls to roundoff (rank deficient). */
static int choose_partition(mech_ode *mo)
{
    int n_q = mo->sys->n_q, n_c = mo->sys->n_c;
    size_t nc = (size_t)n_c;
    double *a = hy_malloc((nc * (size_t)n_q + 1) * sizeof(double));
    int *col = hy_malloc((size_t)n_q * sizeof(int));
    if (!a || !col) {
        hy_free(a);
        hy_free(col);
        return HYDAE_ERR_NOMEM;
    }
    memcpy(a, mo->g, nc * (size_t)n_q * sizeof(double));
    for (int j = 0; j < n_q; j++)
        col[j] = j;
    double big = g_max(mo);
    int rc = 0;
#define A_(i, j) a[(size_t)(i) + (size_t)(j) * nc]
    for (int k = 0; k < n_c && rc == 0; k++) {
        int pr = k, pc = k;
        double best = -1.0;
        for (int j = k; j < n_q; j++)
            for (int i = k; i < n_c; i++)
                if (fabs(A_(i, j)) > best) {
                    best = fabs(A_(i, j));
                    pr = i;
                    pc = j;
                }
        if (!(best > 100.0 * DBL_EPSILON * big)) {
            rc = HYDAE_ERR_SINGULAR;
            break;
        }
        if (pr != k)
            for (int j = 0; j < n_q; j++) {
                double tmp = A_(k, j);
                A_(k, j) = A_(pr, j);
                A_(pr, j) = tmp;
            }
        if (pc != k) {
            for (int i = 0; i < n_c; i++) {
                double tmp = A_(i, k);
                A_(i, k) = A_(i, pc);
                A_(i, pc) = tmp;
            }
            int tmp = col[k];
            col[k] = col[pc];
            col[pc] = tmp;
        }
        for (int i = k + 1; i < n_c; i++) {
            double l = A_(i, k) / A_(k, k);
            for (int j = k; j < n_q; j++)
                A_(i, j) -= l * A_(k, j);
        }
    }
#undef A_
    if (rc == 0) {
        memcpy(mo->dep, col, nc * sizeof(int));
        memcpy(mo->indep, col + n_c, (size_t)mo->n_i * sizeof(int));
        qsort(mo->dep, nc, sizeof(int), cmp_int);
        qsort(mo->indep, (size_t)mo->n_i, sizeof(int), cmp_int);
    }
    hy_free(a);
    hy_free(col);
    return rc;
}

static void gather_state(const mech_ode *mo, const double *q, const double *u, double *y)
{
    for (int k = 0; k < mo->n_i; k++) {
        y[k] = q[mo->indep[k]];
        y[mo->n_i + k] = u[mo->indep[k]];
    }
}

/* The start of Newton's method at (t, q_i): the tangent predictor from
** the last accepted point, q_d = q_d* + T (q_i - q_i*) + T_t (t - t*),
** with T = -Phi_qd^-1 Phi_qi and T_t = -Phi_qd^-1 Phi_t there (set by
** set_accepted); q_i already in q. 1 if it moved q_d, else 0. */
static int predict_dependent(const mech_ode *mo, double t, double *q)
{
    int n_c = mo->sys->n_c, n_i = mo->n_i, moved = 0;
    size_t nc = (size_t)n_c;
    for (int j = 0; j < n_c; j++) {
        double dq = mo->tangent_t[j] * (t - mo->t_accepted);
        for (int k = 0; k < n_i; k++)
            dq += mo->tangent[(size_t)j + (size_t)k * nc]
                  * (q[mo->indep[k]] - mo->q_accepted[mo->indep[k]]);
        q[mo->dep[j]] = mo->q_accepted[mo->dep[j]] + dq;
        moved |= dq != 0.0;
    }
    return moved;
}

/* q at an accepted point t: mo->q_accepted = q, and the predictor's T and
** T_t from mo->g = Phi_q(q) with its dependent block factored in mo->gd
** (as mech_ode_partition and solve_dependent leave them). */
static void set_accepted(mech_ode *mo, double t, const double *q)
{
    const mech_system *sys = mo->sys;
    int n_c = sys->n_c, n_i = mo->n_i;
    size_t nc = (size_t)n_c;
    memcpy(mo->q_accepted, q, (size_t)sys->n_q * sizeof(double));
    mo->t_accepted = t;
    if (n_c == 0)
        return;
    for (int k = 0; k < n_i; k++) {
        double *col = mo->tangent + (size_t)k * nc;
        for (int i = 0; i < n_c; i++)
            col[i] = -mo->g[(size_t)i + (size_t)mo->indep[k] * nc];
        hy_lu_solve(n_c, mo->gd, mo->piv_c, col);
    }
    /* A failing Phi_t leaves T_t = 0: only the predictor is poorer, and
    ** the next evaluation reports the failure. */
    if (sys->constraint_t == NULL || sys->constraint_t(t, q, mo->tangent_t, sys->user) != 0) {
        memset(mo->tangent_t, 0, nc * sizeof(double));
        return;
    }
    for (int i = 0; i < n_c; i++)
        mo->tangent_t[i] = -mo->tangent_t[i];
    hy_lu_solve(n_c, mo->gd, mo->piv_c, mo->tangent_t);
}

int mech_ode_partition(mech_ode *mo, double t, const double *q, const double *u, double *y)
{
    const mech_system *sys = mo->sys;
    size_t nq = (size_t)sys->n_q;
    if (sys->n_c > 0) {
        if (sys->constraint_jac(t, q, mo->g, sys->user) != 0)
            return HYDAE_ERR_RESIDUAL;
        int rc = choose_partition(mo);
        if (rc != 0)
            return rc;
        if (factor_dependent(mo, &mo->pivot_ref) != 0)
            return HYDAE_ERR_SINGULAR;
        mo->pivot_last = mo->pivot_ref;
    } else {
        for (int k = 0; k < mo->n_i; k++)
            mo->indep[k] = k;
        mo->pivot_ref = mo->pivot_last = 1.0;
    }
    memcpy(mo->q, q, nq * sizeof(double));
    memcpy(mo->u, u, nq * sizeof(double));
    set_accepted(mo, t, q);
    mo->n_partitions++;
    gather_state(mo, q, u, y);
    return 0;
}

/* Newton's method on Phi(q_i, q_d, t) = 0 for q_d, starting from q (q_i
** already set), Phi_qd refactored each iteration; q updated in place.
** It stops one update after max |Phi_i| <= constr_tol, not at it: the
** error of q_d is then O(constr_tol^2) (Newton's quadratic convergence),
** i.e. roundoff, instead of anything up to constr_tol / |Phi_qd| depending
** on where the iteration started and how many updates it took. f (see
** solve_dependent) is thereby a smooth function of y and not of the
** evaluation's history. Returns 1 when converged (mo->g = Phi_q at the
** final q), 0 when not within newton_maxit + 1 updates or when a callback
** failed (its nonzero status in *status, 0 otherwise). */
static int newton_dependent(mech_ode *mo, double t, double *q, int *status)
{
    const mech_system *sys = mo->sys;
    int n_c = sys->n_c;
    size_t nc = (size_t)n_c;
    int polished = 0; /* the last update started within constr_tol */
    *status = 0;
    for (int it = 0;; it++) {
        *status = sys->constraint(t, q, mo->phi, sys->user);
        if (*status == 0)
            *status = sys->constraint_jac(t, q, mo->g, sys->user);
        if (*status != 0)
            return 0;
        double worst = 0.0;
        for (int i = 0; i < n_c; i++)
            worst = fmax(worst, fabs(mo->phi[i]));
        if (!isfinite(worst))
            return 0;
        if (worst <= mo->constr_tol && polished)
            return 1;
        if (it > mo->newton_maxit)
            return 0;
        polished = worst <= mo->constr_tol;
        double quality;
        if (factor_dependent(mo, &quality) != 0)
            return 0;
        memcpy(mo->rhs_c, mo->phi, nc * sizeof(double));
        hy_lu_solve(n_c, mo->gd, mo->piv_c, mo->rhs_c);
        for (int j = 0; j < n_c; j++)
            q[mo->dep[j]] -= mo->rhs_c[j];
        mo->n_newton_iters++;
    }
}

/* q, u (full) at (t, y) into mo->q, mo->u, and mo->g = Phi_q(q) with its
** dependent block factored (quality in mo->pivot_last).
**
** f must be a function of (t, y) alone, to the last bit, not of the
** history of evaluations: an implicit integrator's finite-difference
** Jacobian divides differences of f by increments that can lie far below
** constr_tol (VSTIFF's sqrt(uround) max(|y_j|, |h f_j|, 1/w_j) is 1.5e-20
** for a velocity 0 at atol 1e-12), and the increment must exceed the
** noise of f (J.E. Dennis, R.B. Schnabel, "Numerical Methods for
** Unconstrained Optimization and Nonlinear Equations", 1983, sec. 5.4).
** A Newton solve that started from the q_d of the previous evaluation
** and stopped at max |Phi_i| <= constr_tol (the code until this change)
** left q_d anywhere within ~constr_tol / |Phi_qd| of the root, depending
** on that history and on the number of updates. Measured on
** tests/repro/uaf_mechanics_nonlinear_constraint.hym (rtol 1e-10, atol
** 1e-12): VSTIFF's first Jacobian had d(u_y')/du_y = -3.7e11 (two q_d
** 1.6e-11 apart over an increment of 1.5e-20; exact value 0), kept for
** the whole run, so the corrector's updates of u_y were divided by
** 1 + (h / l_1) 3.7e11 (> 1e9 once h passed 1e-2), the iteration
** "converged" at once on the prediction, and x(0.1) came out 0.02396
** instead of 0.02189, with no failure; MSTIFF ended 10% off at rtol 1e-6
** and 32% at 1e-8. And a perturbation of q_i
** that changed Phi by less than constr_tol did not move q_d at all (no
** update): Andrews' d(beta'')/d(beta) came out 0.002 instead of 2.2e5.
**
** So Newton starts from a deterministic point, the tangent predictor from
** the last accepted point (predict_dependent), and is polished to
** roundoff (newton_dependent). If it does not converge from there, once
** more from the q_d of the last accepted point itself, also a function of
** (t, y) (a predictor along a tangent can overshoot where the partition
** is poor). 0, 1 (Newton did not converge from either: mo->q unchanged)
** or a callback's status. */
static int solve_dependent(mech_ode *mo, double t, const double *y)
{
    const mech_system *sys = mo->sys;
    int n_c = sys->n_c, n_i = mo->n_i;
    size_t nq = (size_t)sys->n_q, nc = (size_t)n_c;
    double *q = mo->q_try;
    memcpy(q, mo->q_accepted, nq * sizeof(double));
    for (int k = 0; k < n_i; k++)
        q[mo->indep[k]] = y[k];
    if (n_c == 0) {
        memcpy(mo->q, q, nq * sizeof(double));
        for (int k = 0; k < n_i; k++)
            mo->u[mo->indep[k]] = y[n_i + k];
        mo->pivot_last = 1.0;
        return 0;
    }
    int predicted = predict_dependent(mo, t, q);
    int status;
    int converged = newton_dependent(mo, t, q, &status);
    if (status != 0)
        return status;
    if (!converged && predicted) {
        mo->n_newton_fallbacks++;
        memcpy(q, mo->q_accepted, nq * sizeof(double));
        for (int k = 0; k < n_i; k++)
            q[mo->indep[k]] = y[k];
        converged = newton_dependent(mo, t, q, &status);
        if (status != 0)
            return status;
    }
    double quality;
    if (!converged || factor_dependent(mo, &quality) != 0) {
        mo->n_newton_fails++;
        return 1;
    }
    mo->pivot_last = quality;
    memcpy(mo->q, q, nq * sizeof(double));
    /* u_d from Phi_qd u_d = -(Phi_qi u_i + Phi_t). */
    for (int k = 0; k < n_i; k++)
        mo->u[mo->indep[k]] = y[n_i + k];
    if (sys->constraint_t != NULL) {
        status = sys->constraint_t(t, q, mo->phi_t, sys->user);
        if (status != 0)
            return status;
    } else {
        memset(mo->phi_t, 0, nc * sizeof(double));
    }
    for (int i = 0; i < n_c; i++) {
        double sum = mo->phi_t[i];
        for (int k = 0; k < n_i; k++)
            sum += mo->g[(size_t)i + (size_t)mo->indep[k] * nc] * y[n_i + k];
        mo->rhs_c[i] = -sum;
    }
    hy_lu_solve(n_c, mo->gd, mo->piv_c, mo->rhs_c);
    for (int j = 0; j < n_c; j++)
        mo->u[mo->dep[j]] = mo->rhs_c[j];
    return 0;
}

int mech_ode_complete(mech_ode *mo, double t, const double *y, double *q, double *u,
                      double *up, double *lambda)
{
    const mech_system *sys = mo->sys;
    size_t nq = (size_t)sys->n_q;
    int status = solve_dependent(mo, t, y);
    if (status != 0)
        return status;
    if (up != NULL || lambda != NULL) {
        status = mech_accelerations(sys, t, mo->q, mo->u, mo->accel_work, mo->accel_iwork,
                                    mo->up, mo->lambda);
        if (status != 0)
            return status;
        if (up != NULL)
            memcpy(up, mo->up, nq * sizeof(double));
        if (lambda != NULL)
            memcpy(lambda, mo->lambda, (size_t)sys->n_c * sizeof(double));
    }
    if (q != NULL)
        memcpy(q, mo->q, nq * sizeof(double));
    if (u != NULL)
        memcpy(u, mo->u, nq * sizeof(double));
    return 0;
}

int mech_ode_rhs(double t, const double *y, double *ydot, void *ctx)
{
    mech_ode *mo = ctx;
    mo->n_evals++;
    int status = solve_dependent(mo, t, y);
    /* A stage where the partition has become poor (below pivot_drop^2
    ** times its reference, while accepted points re-partition below
    ** pivot_drop times it): the error test on q_i, u_i would not see the
    ** amplified error of q_d (see mech.h), so the step is cut until its
    ** end is a point where the partition can be re-chosen. */
    if (status == 0 && mo->pivot_last < mo->pivot_drop * mo->pivot_drop * mo->pivot_ref)
        status = 1;
    if (status == 0)
        status = mech_accelerations(mo->sys, t, mo->q, mo->u, mo->accel_work,
                                    mo->accel_iwork, mo->up, mo->lambda);
    if (status == HYDAE_ERR_SINGULAR)
        status = 1; /* let the integrator try a smaller step */
    if (status != 0)
        return status;
    for (int k = 0; k < mo->n_i; k++) {
        ydot[k] = mo->u[mo->indep[k]];
        ydot[mo->n_i + k] = mo->up[mo->indep[k]];
    }
    return 0;
}

int mech_ode_residual(double t, const double *y, const double *yp, double *res, void *ctx)
{
    mech_ode *mo = ctx;
    int status = mech_ode_rhs(t, y, mo->f_work, ctx);
    if (status != 0)
        return status;
    for (int k = 0; k < mo->n; k++)
        res[k] = yp[k] - mo->f_work[k];
    return 0;
}

hy_dae mech_ode_problem(mech_ode *mo)
{
    hy_dae dae;
    memset(&dae, 0, sizeof dae);
    dae.n = mo->n;
    dae.res = mech_ode_residual;
    dae.rhs = mech_ode_rhs;
    dae.ctx = mo;
    return dae;
}

void mech_ode_tolerances(const mech_ode *mo, double integr_tol, double rel_abs_tol_ratio,
                         double vel_tol_factor, double *rtol, double *atol)
{
    for (int k = 0; k < mo->n; k++) {
        double scale = k < mo->n_i ? 1.0 : vel_tol_factor;
        atol[k] = integr_tol * scale;
        rtol[k] = rel_abs_tol_ratio * integr_tol * scale;
    }
}

int mech_ode_check_partition(mech_ode *mo, double t, double *y)
{
    const mech_system *sys = mo->sys;
    if (sys->n_c == 0)
        return 0;
    int status = solve_dependent(mo, t, y);
    if (status < 0)
        return status;
    if (status == 0)
        set_accepted(mo, t, mo->q);
    if (status == 0 && mo->pivot_last >= mo->pivot_drop * mo->pivot_ref)
        return 0;
    if (status > 0)
        return HYDAE_ERR_CONV; /* no q at an accepted point: should not happen */
    int n_c = sys->n_c;
    int *old_dep = hy_malloc((size_t)n_c * sizeof(int));
    if (old_dep == NULL)
        return HYDAE_ERR_NOMEM;
    memcpy(old_dep, mo->dep, (size_t)n_c * sizeof(int));
    size_t nq = (size_t)sys->n_q;
    double *q = hy_malloc(2 * nq * sizeof(double));
    if (q == NULL) {
        hy_free(old_dep);
        return HYDAE_ERR_NOMEM;
    }
    memcpy(q, mo->q, nq * sizeof(double));
    memcpy(q + nq, mo->u, nq * sizeof(double));
    int rc = mech_ode_partition(mo, t, q, q + nq, y);
    if (rc == 0) {
        rc = memcmp(old_dep, mo->dep, (size_t)n_c * sizeof(int)) != 0;
        if (rc == 1)
            mo->n_restarts++;
    }
    hy_free(old_dep);
    hy_free(q);
    return rc;
}

double mech_ode_track_drift(mech_ode *mo, double t, const double *y)
{
    const mech_system *sys = mo->sys;
    if (sys->n_c == 0)
        return 0.0;
    if (solve_dependent(mo, t, y) != 0 || sys->constraint(t, mo->q, mo->phi, sys->user) != 0)
        return -1.0;
    double worst = 0.0;
    for (int i = 0; i < sys->n_c; i++)
        worst = fmax(worst, fabs(mo->phi[i]));
    if (worst > mo->max_drift)
        mo->max_drift = worst;
    return worst;
}
