/*
** RADAU's matrices (radau.c): J_y = dF/dy and J_yp = dF/dy' at (t_n, y_n,
** y'_n), analytic or by forward differences, and the factored E1 =
** gamma/h J_yp + J_y and E_k = (alpha_k + i beta_k)/h J_yp + J_y of the
** transformed Newton iteration (Hairer & Wanner, Solving ODEs II, IV.8;
** see radau.c), through itmat.h and linalg/zlinsol.h.
*/
#include "integrators/radau_impl.h"

#include <float.h>
#include <math.h>
#include <string.h>

/* out = m x for a matrix without fill-in rows (dense, band or csc). */
void hy_radau_matrix_times(const hy_matrix *m, const double *x, double *out)
{
    size_t n = m->n;
    memset(out, 0, n * sizeof(double));
    for (size_t j = 0; j < n; j++) {
        double xj = x[j];
        if (xj == 0.0)
            continue;
        if (m->kind == HY_MAT_DENSE) {
            const double *col = m->values + j * n;
            for (size_t i = 0; i < n; i++)
                out[i] += col[i] * xj;
        } else if (m->kind == HY_MAT_BAND) {
            size_t i_lo = j > m->mu ? j - m->mu : 0, i_hi = j + m->ml < n - 1 ? j + m->ml : n - 1;
            const double *col = m->values + j * m->ld + m->mu - j;
            for (size_t i = i_lo; i <= i_hi; i++)
                out[i] += col[i] * xj;
        } else {
            const hy_pattern *p = m->pattern;
            for (int64_t k = p->col_start[j]; k < p->col_start[j + 1]; k++)
                out[p->row[k]] += m->values[k] * xj;
        }
    }
}

/* Forward differences by column groups (itmat.h), in y for J_y and in y'
** for J_yp, around res0 = F(t, y, y'): increments sqrt(uround) max(|y_j|,
** 1/w_j) and sqrt(uround) max(|y'_j|, 1/(w_j |h|)). */
static int fd_jacobian(radau_mem *d, double h)
{
    double sqrt_uround = sqrt(DBL_EPSILON);
    hy_itmat *it = &d->iter;
    hy_matrix_zero(&it->jac);
    hy_matrix_zero(&d->jac_yp);
    int n_parts = d->dae.rhs != NULL ? 1 : 2;
    for (int part = 0; part < n_parts; part++) {
        double *x = part == 0 ? d->y : d->yp;
        hy_matrix *target = part == 0 ? &it->jac : &d->jac_yp;
        for (size_t g = 0; g < hy_itmat_n_groups(it); g++) {
            size_t count;
            const int64_t *cols = hy_itmat_group(it, g, &count);
            for (size_t c = 0; c < count; c++) {
                int64_t j = cols[c];
                double scale = part == 0 ? 1.0 / d->ewt[j] : 1.0 / (d->ewt[j] * fabs(h));
                double inc = sqrt_uround * fmax(fabs(x[j]), scale);
                inc = (x[j] + inc) - x[j];
                if (inc == 0.0)
                    inc = sqrt_uround;
                it->del[c] = inc;
                it->saved[c] = x[j];
                x[j] += inc;
            }
            int status = hy_eval_res(&d->dae, &d->head, d->t, d->y, d->yp, d->res_pert);
            for (size_t c = 0; c < count; c++)
                x[cols[c]] = it->saved[c];
            if (status != HY_EVAL_OK)
                return status;
            for (size_t c = 0; c < count; c++)
                hy_matrix_set_column_diff(target, it->pattern, (size_t)cols[c], d->res_pert,
                                          d->res0, 1.0 / it->del[c]);
        }
    }
    if (d->dae.rhs != NULL)
        hy_matrix_axpi(&d->jac_yp, 0.0, &it->jac, 1.0);
    return HY_EVAL_OK;
}

/* J_y and J_yp at (t_n, y_n, y'_n): analytic (J with cj = 0 and 1) or by
** differences. res0 must hold F(t_n, y_n, y'_n). */
int hy_radau_eval_jacobian(radau_mem *d, double h)
{
    d->head.stats.n_jac_evals++;
    d->jac_current = 1;
    d->jac_valid = 1;
    d->h_lu = 0.0;
    if (d->dae.jac == NULL && d->dae.jac_matrix == NULL)
        return fd_jacobian(d, h);
    hy_matrix *a = hy_linsol_matrix(d->iter.ls);
    int status = hy_itmat_eval_jac(&d->iter, &d->dae, d->t, 0.0, d->y, d->yp);
    if (status != HY_EVAL_OK)
        return status;
    hy_matrix_axpi(&d->iter.jac, 1.0, a, 0.0);
    if (d->dae.rhs != NULL) {
        hy_matrix_axpi(&d->jac_yp, 0.0, &d->iter.jac, 1.0);
        return HY_EVAL_OK;
    }
    status = hy_itmat_eval_jac(&d->iter, &d->dae, d->t, 1.0, d->y, d->yp);
    if (status != HY_EVAL_OK)
        return status;
    hy_matrix_axpi(&d->jac_yp, 1.0, a, 0.0);
    size_t count = hy_matrix_n_values(&d->jac_yp);
    for (size_t k = 0; k < count; k++)
        d->jac_yp.values[k] -= d->iter.jac.values[k];
    return HY_EVAL_OK;
}

/* E1 = gamma/h J_yp + J_y and E2.. = (alpha_k + i beta_k)/h J_yp + J_y,
** one per complex pair of the method d->k, for step h, factored.
** HY_EVAL_OK, HY_EVAL_SINGULAR or HY_EVAL_NOMEM. */
int hy_radau_factor_matrices(radau_mem *d, double h)
{
    size_t count = hy_matrix_n_values(&d->jac_yp);
    const double *jy = d->iter.jac.values, *jyp = d->jac_yp.values;
    double c1 = d->k->gamma / h;
    hy_matrix *e1 = hy_linsol_matrix(d->iter.ls);
    /* Dense and csc share the layout of J's copies; a band LU has fill-in
    ** rows on top, so E1 goes through e1_values. */
    double *to = e1->kind == HY_MAT_BAND ? d->e1_values.values : e1->values;
    for (size_t k = 0; k < count; k++)
        to[k] = jy[k] + c1 * jyp[k];
    if (e1->kind == HY_MAT_BAND)
        hy_matrix_axpi(e1, 1.0, &d->e1_values, 0.0);
    d->h_lu = 0.0;
    int status = hy_itmat_factor(&d->iter, &d->head);
    if (status != HY_EVAL_OK)
        return status;
    for (int p = 0; p < d->k->n_pairs; p++) {
        int col = hy_zlinsol_factor(d->e2[p], &d->iter.jac, &d->jac_yp, d->k->alpha[p] / h,
                                    d->k->beta[p] / h);
        if (col < 0)
            return HY_EVAL_NOMEM;
        if (col > 0) {
            d->head.worst = col - 1;
            return HY_EVAL_SINGULAR;
        }
    }
    d->h_lu = h;
    return HY_EVAL_OK;
}

/* The storage of J_yp, E1's values and E2.. (one per complex pair of the
** largest method of the run) for the solver itmat chose; kept across
** init() when nothing changed. 0 or HYDAE_ERR_NOMEM. */
int hy_radau_setup_matrices(radau_mem *d)
{
    const hy_matrix *jy = &d->iter.jac;
    hy_matrix *old = &d->jac_yp;
    if (!old->values || old->kind != jy->kind || old->ml != jy->ml || old->mu != jy->mu
        || old->pattern != jy->pattern) {
        hy_matrix_free(&d->jac_yp);
        hy_matrix_free(&d->e1_values);
        if (hy_matrix_alloc(&d->jac_yp, jy->kind, jy->n, jy->ml, jy->mu, jy->pattern)
            || hy_matrix_alloc(&d->e1_values, jy->kind, jy->n, jy->ml, jy->mu, jy->pattern))
            return HYDAE_ERR_NOMEM;
    }
    size_t n = (size_t)d->n;
    for (int p = 0; p < (d->ns_max - 1) / 2; p++) {
        if (hy_zlinsol_fits(d->e2[p], d->iter.kind, n, d->iter.pattern))
            continue;
        hy_zlinsol_free(d->e2[p]);
        d->e2[p] = hy_zlinsol_create(d->iter.kind, n, d->iter.pattern);
        if (d->e2[p] == NULL)
            return HYDAE_ERR_NOMEM;
    }
    return 0;
}
