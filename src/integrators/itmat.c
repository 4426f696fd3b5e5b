/*
** The iteration matrix of the implicit integrators in any storage (see
** itmat.h). Finite differences perturb the columns of one group together:
** columns without a common row (Curtis, Powell & Reid, "On the estimation
** of sparse Jacobian matrices", J. Inst. Math. Appl. 13 (1974) 117-119),
** so a band of width w costs w evaluations and a sparse pattern its
** number of colours, not n.
*/
#include "integrators/itmat.h"
#include "core/core.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

void hy_itmat_free(hy_itmat *m)
{
    hy_linsol_free(m->ls);
    hy_matrix_free(&m->jac);
    hy_coloring_free(&m->groups);
    hy_pattern_unref(m->pattern);
    hy_free(m->del);
    hy_free(m->saved);
    memset(m, 0, sizeof *m);
}

/* The column groups and their scratch, for finite differences only (an
** analytic Jacobian needs neither). 0 or -1. */
static int make_groups(hy_itmat *m)
{
    size_t n = m->n;
    if (m->pattern ? hy_coloring_create(&m->groups, m->pattern)
                   : hy_coloring_identity(&m->groups, n))
        return -1;
    if (!(m->del = hy_malloc((n > 0 ? n : 1) * sizeof(double)))
        || !(m->saved = hy_malloc((n > 0 ? n : 1) * sizeof(double))))
        return -1;
    return 0;
}

int hy_itmat_setup(hy_itmat *m, const hy_dae *dae, int kind, int keeps_jac)
{
    size_t n = (size_t)dae->n;
    hy_pattern *pattern = (hy_pattern *)dae->pattern;
    hy_ls_kind chosen;
    char why[256];
    if (hy_linsol_choose((hy_ls_kind)kind, n, pattern, &chosen, why, sizeof why))
        return HYDAE_ERR_ARG;
    if (chosen != HY_LS_DENSE && !dae->jac_matrix && dae->jac)
        return HYDAE_ERR_ARG; /* a dense-only analytic Jacobian */
    int needs_groups = !dae->jac && !dae->jac_matrix;
    if (m->ls && m->n == n && m->pattern == pattern && m->kind == chosen
        && (m->jac.values != NULL) == (keeps_jac != 0)) {
        if (needs_groups && !m->groups.column && make_groups(m))
            goto nomem;
        return 0;
    }
    hy_itmat_free(m);
    m->n = n;
    m->kind = chosen;
    m->pattern = hy_pattern_ref(pattern);
    m->ls = hy_linsol_create(chosen, n, pattern);
    if (!m->ls)
        goto nomem;
    const hy_matrix *a = hy_linsol_matrix(m->ls);
    if (keeps_jac && hy_matrix_alloc(&m->jac, a->kind, n, a->ml, a->mu, a->pattern))
        goto nomem;
    if (needs_groups && make_groups(m))
        goto nomem;
    return 0;
nomem:
    hy_itmat_free(m);
    return HYDAE_ERR_NOMEM;
}

/* The analytic Jacobian into a, checked; negate for df/dy = -(J at cj 0). */
static int analytic(const hy_dae *dae, hy_matrix *a, double t, double cj, const double *y,
                    const double *yp, int negate)
{
    int status = dae->jac_matrix ? dae->jac_matrix(t, cj, y, yp, a, dae->ctx)
                                 : dae->jac(t, cj, y, yp, a->values, dae->ctx);
    if (status < 0)
        return HY_EVAL_JAC_FATAL;
    if (status > 0)
        return HY_EVAL_JAC_FAIL;
    if (negate) {
        size_t count = hy_matrix_n_values(a);
        for (size_t k = 0; k < count; k++)
            a->values[k] = -a->values[k];
    }
    return hy_matrix_first_nonfinite(a) >= 0 ? HY_EVAL_JAC_FAIL : HY_EVAL_OK;
}

int hy_itmat_eval_jac(hy_itmat *m, const hy_dae *dae, double t, double cj, const double *y,
                      const double *yp)
{
    return analytic(dae, hy_linsol_matrix(m->ls), t, cj, y, yp, 0);
}

void hy_itmat_begin_fd(hy_itmat *m)
{
    hy_matrix_zero(hy_linsol_matrix(m->ls));
}

size_t hy_itmat_n_groups(const hy_itmat *m)
{
    return m->groups.n_colors;
}

const int64_t *hy_itmat_group(const hy_itmat *m, size_t g, size_t *count)
{
    *count = (size_t)(m->groups.color_start[g + 1] - m->groups.color_start[g]);
    return m->groups.column + m->groups.color_start[g];
}

void hy_itmat_store_column(hy_itmat *m, size_t j, const double *f_pert, const double *f0,
                           double scale)
{
    hy_matrix_set_column_diff(hy_linsol_matrix(m->ls), m->pattern, j, f_pert, f0, scale);
}

int hy_itmat_dfdy(hy_itmat *m, const hy_dae *dae, hy_mem_head *head, double t, double h,
                  double *y, const double *f, const double *w, double *f_pert)
{
    head->stats.n_jac_evals++;
    if (dae->jac || dae->jac_matrix)
        return analytic(dae, &m->jac, t, 0.0, y, f, 1);
    double sqrt_uround = sqrt(DBL_EPSILON);
    hy_matrix_zero(&m->jac);
    for (size_t g = 0; g < m->groups.n_colors; g++) {
        size_t count;
        const int64_t *cols = hy_itmat_group(m, g, &count);
        for (size_t c = 0; c < count; c++) {
            size_t j = (size_t)cols[c];
            double inc = sqrt_uround * fmax(fmax(fabs(y[j]), fabs(h * f[j])), 1.0 / w[j]);
            inc = (y[j] + inc) - y[j];
            if (inc == 0.0)
                inc = sqrt_uround;
            m->del[c] = inc;
            m->saved[c] = y[j];
            y[j] += inc;
        }
        int status = hy_eval_rhs(dae, head, t, y, f_pert);
        for (size_t c = 0; c < count; c++)
            y[cols[c]] = m->saved[c];
        if (status != HY_EVAL_OK)
            return status;
        for (size_t c = 0; c < count; c++)
            hy_matrix_set_column_diff(&m->jac, m->pattern, (size_t)cols[c], f_pert, f, 1.0 / m->del[c]);
    }
    return HY_EVAL_OK;
}

int hy_itmat_factor(hy_itmat *m, hy_mem_head *head)
{
    head->stats.n_lu++;
    int zero_pivot_column = hy_linsol_factor(m->ls);
    if (zero_pivot_column == 0)
        return HY_EVAL_OK;
    if (zero_pivot_column < 0) /* KLU out of memory */
        return HY_EVAL_NOMEM;
    head->worst = zero_pivot_column - 1;
    return HY_EVAL_SINGULAR;
}

int hy_itmat_form(hy_itmat *m, hy_mem_head *head, double gamma)
{
    hy_matrix_axpi(hy_linsol_matrix(m->ls), -gamma, &m->jac, 1.0);
    return hy_itmat_factor(m, head);
}

void hy_itmat_solve(hy_itmat *m, double *b)
{
    hy_linsol_solve(m->ls, b);
}
