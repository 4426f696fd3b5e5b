/*
** Constrained mechanical systems: the I3 and SI1 residuals of seed 002's
** equations (2.1)-(2.3), Table 1's tolerances and error-test exclusion,
** a consistent start and the constraint drift. See mech.h for the
** formulations and their sources.
*/
#include "mech/mech.h"

#include "linalg/dense.h"
#include "core/core.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

int mech_dae_init(mech_dae *md, const mech_system *sys, int dae_index)
{
    memset(md, 0, sizeof *md);
    if (sys == NULL || sys->n_q <= 0 || sys->n_c < 0 || sys->mass == NULL
        || sys->force == NULL || (sys->n_c > 0 && (sys->constraint == NULL
                                                   || sys->constraint_jac == NULL))
        || (dae_index != 3 && dae_index != 1))
        return HYDAE_ERR_ARG;
    int n_q = sys->n_q, n_c = sys->n_c;
    md->sys = sys;
    md->dae_index = dae_index;
    md->n = 2 * n_q + (dae_index == 1 ? 2 : 1) * n_c;
    size_t n = (size_t)md->n, nq = (size_t)n_q, nc = (size_t)n_c;
    md->kind = hy_malloc(n);
    md->is_algebraic = hy_malloc(n);
    md->mass = hy_malloc(nq * nq * sizeof(double));
    md->force = hy_malloc(nq * sizeof(double));
    md->g = hy_malloc((nc * nq + 1) * sizeof(double));
    md->phi = hy_malloc((nc + 1) * sizeof(double));
    md->phi_t = hy_malloc((nc + 1) * sizeof(double));
    md->gt_lambda = hy_malloc(nq * sizeof(double));
    md->gt_mu = hy_malloc(nq * sizeof(double));
    md->c = hy_malloc((nq * nc + 1) * sizeof(double));
    md->jac_y = hy_malloc(n * sizeof(double));
    md->jac_res0 = hy_malloc(n * sizeof(double));
    md->jac_res1 = hy_malloc(n * sizeof(double));
    if (!md->c || !md->kind || !md->is_algebraic || !md->mass || !md->force || !md->g || !md->phi
        || !md->phi_t || !md->gt_lambda || !md->gt_mu || !md->jac_y || !md->jac_res0
        || !md->jac_res1) {
        mech_dae_free(md);
        return HYDAE_ERR_NOMEM;
    }
    for (int i = 0; i < md->n; i++) {
        md->kind[i] = i < n_q ? MECH_POSITION : i < 2 * n_q ? MECH_VELOCITY : MECH_MULTIPLIER;
        md->is_algebraic[i] = md->kind[i] == MECH_MULTIPLIER;
    }
    return 0;
}

void mech_dae_free(mech_dae *md)
{
    if (md == NULL)
        return;
    hy_free(md->kind);
    hy_free(md->is_algebraic);
    hy_free(md->mass);
    hy_free(md->force);
    hy_free(md->g);
    hy_free(md->phi);
    hy_free(md->phi_t);
    hy_free(md->gt_lambda);
    hy_free(md->gt_mu);
    hy_free(md->c);
    hy_free(md->jac_y);
    hy_free(md->jac_res0);
    hy_free(md->jac_res1);
    memset(md, 0, sizeof *md);
}

hy_dae mech_dae_problem(mech_dae *md)
{
    hy_dae dae;
    memset(&dae, 0, sizeof dae);
    dae.n = md->n;
    dae.res = mech_residual;
    dae.ctx = md;
    dae.is_algebraic = md->is_algebraic;
    return dae;
}

/* out = A x, A rows x cols column-major. */
static void mat_vec(int rows, int cols, const double *a, const double *x, double *out)
{
    for (int i = 0; i < rows; i++) {
        double sum = 0.0;
        for (int j = 0; j < cols; j++)
            sum += a[i + (size_t)j * (size_t)rows] * x[j];
        out[i] = sum;
    }
}

/* out = G^T v, G n_c x n_q column-major. */
static void mul_gt(int n_q, int n_c, const double *g, const double *v, double *out)
{
    for (int j = 0; j < n_q; j++) {
        double sum = 0.0;
        for (int i = 0; i < n_c; i++)
            sum += g[i + (size_t)j * (size_t)n_c] * v[i];
        out[j] = sum;
    }
}

int mech_residual(double t, const double *y, const double *yp, double *res, void *ctx)
{
    mech_dae *md = ctx;
    const mech_system *sys = md->sys;
    int n_q = sys->n_q, n_c = sys->n_c;
    const double *q = y, *u = y + n_q, *lambda = y + 2 * n_q;
    const double *qp = yp, *up = yp + n_q;
    int status = sys->mass(t, q, md->mass, sys->user);
    if (status == 0)
        status = sys->force(t, q, u, md->force, sys->user);
    if (status == 0 && n_c > 0) {
        status = sys->constraint(t, q, md->phi, sys->user);
        if (status == 0)
            status = sys->constraint_jac(t, q, md->g, sys->user);
    }
    if (status == 0 && n_c > 0 && sys->multiplier_matrix != NULL)
        status = sys->multiplier_matrix(t, q, md->c, sys->user);
    if (status != 0)
        return status;
    if (n_c > 0 && sys->multiplier_matrix != NULL)
        mat_vec(n_q, n_c, md->c, lambda, md->gt_lambda);
    else
        mul_gt(n_q, n_c, md->g, lambda, md->gt_lambda);
    if (md->dae_index == 1)
        mul_gt(n_q, n_c, md->g, lambda + n_c, md->gt_mu);
    /* Kinematics q' - u (+ G^T mu for GGL). */
    for (int i = 0; i < n_q; i++)
        res[i] = qp[i] - u[i] + (md->dae_index == 1 ? md->gt_mu[i] : 0.0);
    /* Dynamics M u' - F + C lambda (C = G^T by default). */
    for (int i = 0; i < n_q; i++) {
        double sum = 0.0;
        for (int j = 0; j < n_q; j++)
            sum += md->mass[i + (size_t)j * (size_t)n_q] * up[j];
        res[n_q + i] = sum - md->force[i] + md->gt_lambda[i];
    }
    /* Position constraints. */
    for (int i = 0; i < n_c; i++)
        res[2 * n_q + i] = md->phi[i];
    if (md->dae_index == 1) {
        /* Velocity constraints Phi_q u + Phi_t. */
        if (sys->constraint_t != NULL) {
            status = sys->constraint_t(t, q, md->phi_t, sys->user);
            if (status != 0)
                return status;
        } else {
            memset(md->phi_t, 0, (size_t)n_c * sizeof(double));
        }
        for (int i = 0; i < n_c; i++) {
            double sum = md->phi_t[i];
            for (int j = 0; j < n_q; j++)
                sum += md->g[i + (size_t)j * (size_t)n_c] * u[j];
            res[2 * n_q + n_c + i] = sum;
        }
    }
    return 0;
}

/* sqrt(uround) times the largest |x_k| of n (1 when all are 0): the
** difference increment's floor for a block of like coordinates. */
static double increment_floor(const double *x, int n)
{
    double scale = 0.0;
    for (int k = 0; k < n; k++)
        scale = fmax(scale, fabs(x[k]));
    return sqrt(DBL_EPSILON) * (scale > 0.0 ? scale : 1.0);
}

/* Columns [from, from + count) of J = dF/dy (y' fixed) by forward
** differences around res0 = F(t, y, y'). */
static int difference_columns(mech_dae *md, double t, const double *y, const double *yp,
                              int from, int count, double *jac)
{
    int n = md->n;
    double floor_inc = increment_floor(y + from, count);
    memcpy(md->jac_y, y, (size_t)n * sizeof(double));
    for (int j = from; j < from + count; j++) {
        double inc = fmax(sqrt(DBL_EPSILON) * fabs(y[j]), floor_inc);
        md->jac_y[j] = y[j] + inc;
        inc = md->jac_y[j] - y[j];
        int status = mech_residual(t, md->jac_y, yp, md->jac_res1, md);
        md->jac_y[j] = y[j];
        if (status != 0)
            return status;
        double *col = jac + (size_t)j * (size_t)n;
        for (int i = 0; i < n; i++)
            col[i] = (md->jac_res1[i] - md->jac_res0[i]) / inc;
    }
    return 0;
}

int mech_jacobian(double t, double cj, const double *y, const double *yp, double *jac,
                  void *ctx)
{
    mech_dae *md = ctx;
    const mech_system *sys = md->sys;
    int n = md->n, n_q = sys->n_q, n_c = sys->n_c;
    size_t ld = (size_t)n;
    int status = mech_residual(t, y, yp, md->jac_res0, md);
    if (status == 0)
        status = difference_columns(md, t, y, yp, 0, n_q, jac);
    if (status == 0)
        status = difference_columns(md, t, y, yp, n_q, n_q, jac);
    /* M, Phi_q and C at (t, q) itself (the differences moved them). */
    if (status == 0)
        status = mech_residual(t, y, yp, md->jac_res0, md);
    if (status != 0)
        return status;
    memset(jac + 2 * (size_t)n_q * ld, 0, (size_t)(n - 2 * n_q) * ld * sizeof(double));
    /* Rows of Phi and (SI1) of Phi_q u + Phi_t; columns of lambda and mu. */
    int pos = 2 * n_q, vel = 2 * n_q + n_c, mu = 2 * n_q + n_c;
    for (int j = 0; j < n_q; j++) {
        double *col_q = jac + (size_t)j * ld, *col_u = jac + (size_t)(n_q + j) * ld;
        for (int i = 0; i < n_q; i++) {
            col_q[i] += i == j ? cj : 0.0;                       /* q' - u */
            col_u[i] = i == j ? -1.0 : 0.0;
            col_u[n_q + i] += cj * md->mass[i + (size_t)j * (size_t)n_q]; /* M u' */
        }
        for (int k = 0; k < n_c; k++) {
            double g_kj = md->g[k + (size_t)j * (size_t)n_c];
            col_q[pos + k] = g_kj;                               /* Phi */
            if (md->dae_index == 1)
                col_u[vel + k] = g_kj;                           /* Phi_q u + Phi_t */
        }
    }
    for (int k = 0; k < n_c; k++) {
        double *col_lambda = jac + (size_t)(pos + k) * ld;
        for (int i = 0; i < n_q; i++) {
            double g_ki = md->g[k + (size_t)i * (size_t)n_c];
            col_lambda[n_q + i] = sys->multiplier_matrix != NULL
                                      ? md->c[i + (size_t)k * (size_t)n_q]
                                      : g_ki;                    /* C lambda */
            if (md->dae_index == 1)
                jac[(size_t)i + (size_t)(mu + k) * ld] = g_ki;   /* Phi_q^T mu */
        }
    }
    return 0;
}

void mech_tolerances(const mech_dae *md, double integr_tol, double rel_abs_tol_ratio,
                     double vel_tol_factor, double alg_tol_factor, int vel_ctrl,
                     double *rtol, double *atol, unsigned char *err_test_exclude)
{
    for (int i = 0; i < md->n; i++) {
        double scale = md->kind[i] == MECH_VELOCITY     ? vel_tol_factor
                       : md->kind[i] == MECH_MULTIPLIER ? alg_tol_factor
                                                        : 1.0;
        rtol[i] = rel_abs_tol_ratio * integr_tol * scale;
        atol[i] = integr_tol * scale;
        int in_test = md->kind[i] == MECH_POSITION
                      || (md->kind[i] == MECH_VELOCITY && md->dae_index == 1 && vel_ctrl);
        err_test_exclude[i] = (unsigned char)!in_test;
    }
}

void mech_var_index(const mech_dae *md, unsigned char *var_index)
{
    int mu_start = 2 * md->sys->n_q + md->sys->n_c; /* SI1: mu from here */
    for (int i = 0; i < md->n; i++) {
        int kind = md->kind[i];
        if (md->dae_index == 3)
            var_index[i] = (unsigned char)(kind + 1);
        else
            var_index[i] = (unsigned char)(i >= mu_start ? 2 : 1);
    }
}

void mech_var_index_hessenberg(const mech_dae *md, unsigned char *var_index)
{
    for (int i = 0; i < md->n; i++)
        var_index[i] = md->dae_index == 3 ? (unsigned char)(md->kind[i] + 1)
                       : md->kind[i] == MECH_MULTIPLIER ? 2 : 1;
}

int mech_dae_problem_for(mech_dae *md, const hy_integrator_ops *method, hy_dae *dae,
                         unsigned char *var_index)
{
    if (method == NULL || method->needs_rhs)
        return HYDAE_ERR_ARG;
    *dae = mech_dae_problem(md);
    if (method == &hy_dstiff) {
        mech_var_index(md, var_index);
        return 0;
    }
    mech_var_index_hessenberg(md, var_index);
    dae->jac = mech_jacobian;
    return 0;
}

size_t mech_accel_work_len(const mech_system *sys)
{
    size_t nq = (size_t)sys->n_q, nc = (size_t)sys->n_c, nk = nq + nc;
    return nq * nq + nq + 2 * nc * nq + 2 + nk * nk + nk;
}

/* The work areas of mech_accel_work_len. */
typedef struct kkt_work {
    double *mass, *force, *g, *c, *kkt, *rhs;
} kkt_work;

static kkt_work split_work(const mech_system *sys, double *work)
{
    size_t nq = (size_t)sys->n_q, nc = (size_t)sys->n_c, nk = nq + nc;
    kkt_work w;
    w.mass = work;
    w.force = w.mass + nq * nq;
    w.g = w.force + nq;
    w.c = w.g + nc * nq + 1;
    w.kkt = w.c + nc * nq + 1;
    w.rhs = w.kkt + nk * nk;
    return w;
}

/* Factor [M C; G 0] at (t, q) from w.mass and w.g (and C, evaluated here
** when the system has its own, else G^T). */
static int factor_kkt(const mech_system *sys, double t, const double *q, kkt_work *w,
                      int *iwork)
{
    int n_q = sys->n_q, n_c = sys->n_c, n_kkt = n_q + n_c;
    size_t nq = (size_t)n_q, nc = (size_t)n_c, nk = (size_t)n_kkt;
    if (n_c > 0 && sys->multiplier_matrix != NULL) {
        int status = sys->multiplier_matrix(t, q, w->c, sys->user);
        if (status != 0)
            return status;
    }
    memset(w->kkt, 0, nk * nk * sizeof(double));
    for (int j = 0; j < n_q; j++)
        for (int i = 0; i < n_q; i++)
            w->kkt[i + (size_t)j * nk] = w->mass[i + (size_t)j * nq];
    for (int i = 0; i < n_c; i++)
        for (int j = 0; j < n_q; j++) {
            double gij = w->g[i + (size_t)j * nc];
            double cji = sys->multiplier_matrix != NULL ? w->c[j + (size_t)i * nq] : gij;
            w->kkt[(size_t)(n_q + i) + (size_t)j * nk] = gij;
            w->kkt[(size_t)j + (size_t)(n_q + i) * nk] = cji;
        }
    return hy_lu_factor(n_kkt, w->kkt, iwork) != 0 ? HYDAE_ERR_SINGULAR : 0;
}

int mech_accelerations(const mech_system *sys, double t, const double *q, const double *u,
                       double *work, int *iwork, double *up, double *lambda)
{
    int n_q = sys->n_q, n_c = sys->n_c;
    size_t nq = (size_t)n_q, nc = (size_t)n_c;
    kkt_work w = split_work(sys, work);
    int status = sys->mass(t, q, w.mass, sys->user);
    if (status == 0)
        status = sys->force(t, q, u, w.force, sys->user);
    if (status == 0 && n_c > 0) {
        status = sys->constraint_jac(t, q, w.g, sys->user);
        if (status == 0)
            status = sys->accel_rhs(t, q, u, w.rhs + n_q, sys->user);
    }
    if (status == 0)
        status = factor_kkt(sys, t, q, &w, iwork);
    if (status != 0)
        return status;
    memcpy(w.rhs, w.force, nq * sizeof(double));
    hy_lu_solve(n_q + n_c, w.kkt, iwork, w.rhs);
    if (up != NULL)
        memcpy(up, w.rhs, nq * sizeof(double));
    if (lambda != NULL)
        memcpy(lambda, w.rhs + n_q, nc * sizeof(double));
    return 0;
}

int mech_project(const mech_system *sys, double t, double constr_tol, double *q, double *u,
                 double *work, int *iwork)
{
    int n_q = sys->n_q, n_c = sys->n_c;
    size_t nq = (size_t)n_q, nc = (size_t)n_c;
    if (n_c == 0)
        return 0;
    kkt_work w = split_work(sys, work);
    double *phi = w.rhs, *ggt = w.kkt; /* n_c and n_c x n_c, before the KKT use */
    int converged = 0;
    for (int iter = 0; iter <= 20 && !converged; iter++) {
        int status = sys->constraint(t, q, phi, sys->user);
        if (status != 0)
            return status;
        double worst = 0.0;
        for (int i = 0; i < n_c; i++)
            worst = fmax(worst, fabs(phi[i]));
        if (!isfinite(worst))
            return HYDAE_ERR_CONV;
        converged = worst <= constr_tol;
        if (converged || iter == 20)
            break;
        status = sys->constraint_jac(t, q, w.g, sys->user);
        if (status != 0)
            return status;
        for (int i = 0; i < n_c; i++)
            for (int k = 0; k < n_c; k++) {
                double sum = 0.0;
                for (int j = 0; j < n_q; j++)
                    sum += w.g[i + (size_t)j * nc] * w.g[k + (size_t)j * nc];
                ggt[i + (size_t)k * nc] = sum;
            }
        if (hy_lu_factor(n_c, ggt, iwork) != 0)
            return HYDAE_ERR_SINGULAR;
        hy_lu_solve(n_c, ggt, iwork, phi);
        for (int j = 0; j < n_q; j++)
            for (int i = 0; i < n_c; i++)
                q[j] -= w.g[i + (size_t)j * nc] * phi[i];
    }
    if (!converged)
        return HYDAE_ERR_CONV;
    int status = sys->mass(t, q, w.mass, sys->user);
    if (status == 0)
        status = sys->constraint_jac(t, q, w.g, sys->user);
    if (status == 0 && sys->constraint_t != NULL)
        status = sys->constraint_t(t, q, w.rhs + n_q, sys->user);
    else if (status == 0)
        memset(w.rhs + n_q, 0, nc * sizeof(double));
    if (status != 0)
        return status;
    for (int i = 0; i < n_c; i++)
        w.rhs[n_q + i] = -w.rhs[n_q + i];
    mat_vec(n_q, n_q, w.mass, u, w.rhs);
    status = factor_kkt(sys, t, q, &w, iwork);
    if (status != 0)
        return status;
    hy_lu_solve(n_q + n_c, w.kkt, iwork, w.rhs);
    memcpy(u, w.rhs, nq * sizeof(double));
    return 0;
}

int mech_consistent_start(mech_dae *md, double t0, const double *q0, const double *u0,
                          double *y0, double *yp0)
{
    const mech_system *sys = md->sys;
    int n_q = sys->n_q, n_c = sys->n_c;
    if (n_c > 0 && sys->accel_rhs == NULL)
        return HYDAE_ERR_ARG;
    double *work = hy_malloc(mech_accel_work_len(sys) * sizeof(double));
    int *iwork = hy_malloc((size_t)(n_q + n_c) * sizeof(int));
    int rc = 0;
    if (!work || !iwork) {
        rc = HYDAE_ERR_NOMEM;
        goto done;
    }
    memset(y0, 0, (size_t)md->n * sizeof(double));
    memset(yp0, 0, (size_t)md->n * sizeof(double));
    rc = mech_accelerations(sys, t0, q0, u0, work, iwork, yp0 + n_q, y0 + 2 * n_q);
    if (rc != 0) {
        rc = rc == HYDAE_ERR_SINGULAR ? rc : HYDAE_ERR_RESIDUAL;
        goto done;
    }
    memcpy(y0, q0, (size_t)n_q * sizeof(double));
    memcpy(y0 + n_q, u0, (size_t)n_q * sizeof(double));
    memcpy(yp0, u0, (size_t)n_q * sizeof(double));
done:
    hy_free(work);
    hy_free(iwork);
    return rc;
}

double mech_track_drift(mech_dae *md, double t, const double *y)
{
    const mech_system *sys = md->sys;
    if (sys->n_c == 0)
        return 0.0;
    if (sys->constraint(t, y, md->phi, sys->user) != 0)
        return -1.0;
    double worst = 0.0;
    for (int i = 0; i < sys->n_c; i++)
        worst = fmax(worst, fabs(md->phi[i]));
    if (worst > md->max_drift)
        md->max_drift = worst;
    return worst;
}
