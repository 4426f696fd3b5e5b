/*
** The configuration's Jacobian: its structure (the block-diagonal
** concatenation of the active modes' patterns, NULL when no mode gives
** one) and the analytic Jacobian assembled from the modes' own, dense or
** sparse, into the storage the linear solver chose (linalg/linsol.h).
*/
#include "sim.h"

#include "linalg/linsol.h"
#include "core/core.h"

#include <stdlib.h>
#include <string.h>

/* The block of chart c: its size, and its mode's pattern or NULL. */
static const hy_pattern *block_pattern(const hydae_sim *s, int c, size_t *size)
{
    const hydae_mode *mode = s->active[c];
    *size = (size_t)(s->var_offset[c + 1] - s->var_offset[c]);
    if (s->mech_blocks[c] || !mode->pattern || mode->pattern->n != *size)
        return NULL;
    return mode->pattern;
}

int hy_config_build_pattern(hydae_sim *s)
{
    int n_charts = s->model->n_charts, n_blocks = 0, any = 0;
    hy_pattern_unref(s->config_pattern);
    s->config_pattern = NULL;
    for (int c = 0; c < n_charts; c++) {
        size_t size;
        any |= block_pattern(s, c, &size) != NULL;
        n_blocks += size > 0;
    }
    if (!any)
        return 0;
    if (n_blocks == 1) {
        for (int c = 0; c < n_charts; c++) {
            size_t size;
            const hy_pattern *p = block_pattern(s, c, &size);
            if (p) /* one mode: its own pattern, the same object each time */
                s->config_pattern = hy_pattern_ref((hy_pattern *)p);
        }
        return 0;
    }
    hy_pattern **blocks = hy_calloc((size_t)n_charts, sizeof *blocks);
    if (!blocks)
        return HYDAE_ERR_NOMEM;
    int k = 0, status = 0;
    for (int c = 0; c < n_charts && status == 0; c++) {
        size_t size;
        const hy_pattern *p = block_pattern(s, c, &size);
        if (size == 0)
            continue;
        blocks[k] = p ? hy_pattern_ref((hy_pattern *)p) : hy_pattern_dense(size);
        if (!blocks[k++])
            status = HYDAE_ERR_NOMEM;
    }
    if (status == 0 && !(s->config_pattern = hy_pattern_block_diag(blocks, k)))
        status = HYDAE_ERR_NOMEM;
    for (int b = 0; b < k; b++)
        hy_pattern_unref(blocks[b]);
    hy_free(blocks);
    return status;
}

int hy_config_has_jacobian(const hydae_sim *s)
{
    for (int c = 0; c < s->model->n_charts; c++) {
        const hydae_mode *mode = s->active[c];
        if (s->var_offset[c + 1] > s->var_offset[c] && !mode->jacobian
            && !(mode->sparse_jacobian && mode->pattern))
            return 0;
    }
    return 1;
}

/* Entry (i, j) of a block at offset off: written, or dropped when the
** matrix has no place for it (outside the pattern: taken as zero). */
static void put(hy_matrix *jac, size_t off, size_t i, size_t j, double v)
{
    double *at = hy_matrix_at(jac, off + i, off + j);
    if (at)
        *at = v;
}

/* The value of entry (i, j) as the solver takes it: an explicit ODE's
** d(y' - f)/dy + cj I from df/dy, a residual's as it is. */
static double solver_value(const hydae_mode *mode, size_t i, size_t j, double cj, double v)
{
    return mode->rhs ? (i == j ? cj : 0.0) - v : v;
}

/* The one mode's sparse Jacobian written straight into the solver's
** storage, with no scratch of nnz values: possible when its pattern is the
** matrix' (entries in pattern order, no user entries to merge). CSC on the
** same pattern takes the values where they are; a band matrix of that
** pattern's bandwidths has room for them (nnz <= (ml + mu + 1) n <= ld n),
** and they move to their band places from the last one back: entry k of
** column j (row i) goes to j ld + top + mu + i - j >= k, since column j
** starts at or before j (ml + mu + 1) and row i is at most i - j + mu
** entries into it, so no value is overwritten before it has moved. The
** band places outside the pattern become 0. 1 if done this way (*status
** set), 0 if not possible. */
static int sparse_in_place(const hydae_mode *mode, double t, double cj, const double *y,
                           const double *yp, const double *p_values, hy_matrix *jac,
                           int *status)
{
    const hy_pattern *p = mode->pattern;
    int band = jac->kind == HY_MAT_BAND && jac->n == p->n && jac->ml == p->ml && jac->mu == p->mu;
    if (mode->pattern_map || !(band || (jac->kind == HY_MAT_CSC && jac->pattern == p)))
        return 0;
    *status = mode->sparse_jacobian(t, cj, y, yp, p_values, jac->values, mode->user);
    if (*status != 0)
        return 1;
    if (!band) {
        if (mode->rhs)
            for (size_t j = 0; j < p->n; j++)
                for (int64_t k = p->col_start[j]; k < p->col_start[j + 1]; k++)
                    jac->values[k] = solver_value(mode, (size_t)p->row[k], j, cj, jac->values[k]);
        return 1;
    }
    const size_t n = p->n, ld = jac->ld, mu = jac->mu;
    const size_t top = jac->without_fill ? 0 : jac->ml; /* row of the band's first entry */
    for (size_t j = n; j-- > 0;) {
        double *column = jac->values + j * ld;
        int64_t k = p->col_start[j + 1] - 1; /* the column's entries, last first */
        for (size_t r = ld; r-- > 0;) {
            /* Storage row r holds matrix row j + r - top - mu (when >= 0). */
            double v = 0.0;
            if (r >= top && j + r >= top + mu && k >= p->col_start[j]
                && (size_t)p->row[k] == j + r - top - mu) {
                v = solver_value(mode, (size_t)p->row[k], j, cj, jac->values[k]);
                k--;
            }
            column[r] = v;
        }
    }
    return 1;
}

/* A mode's sparse Jacobian into its block: the user's entries summed into
** the normalised pattern's order, then placed. */
static int sparse_block(hydae_sim *s, const hydae_mode *mode, size_t off, double t, double cj,
                        const double *y, const double *yp, hy_matrix *jac)
{
    const hy_pattern *p = mode->pattern;
    int in_place_status;
    if (off == 0 && sparse_in_place(mode, t, cj, y, yp, s->store, jac, &in_place_status))
        return in_place_status;
    size_t need = mode->pattern_user_nnz + (mode->pattern_map ? p->nnz : 0);
    if (need > s->cap_jac_values) {
        double *grown = hy_realloc(s->jac_values, need * sizeof(double));
        if (!grown)
            return -1;
        s->jac_values = grown;
        s->cap_jac_values = need;
    }
    double *user_values = s->jac_values, *values = user_values;
    int status = mode->sparse_jacobian(t, cj, y, yp, s->store, user_values, mode->user);
    if (status != 0)
        return status;
    if (mode->pattern_map) {
        values = s->jac_values + mode->pattern_user_nnz;
        memset(values, 0, p->nnz * sizeof(double));
        for (size_t k = 0; k < mode->pattern_user_nnz; k++)
            values[mode->pattern_map[k]] += user_values[k];
    }
    /* The configuration's matrix on this very pattern (one mode): entry k
    ** is value k, with no search. */
    int same = jac->kind == HY_MAT_CSC && jac->pattern == p;
    for (size_t j = 0; j < p->n; j++)
        for (int64_t k = p->col_start[j]; k < p->col_start[j + 1]; k++) {
            size_t i = (size_t)p->row[k];
            double v = values[k];
            if (mode->rhs) /* d(y' - f)/dy + cj I */
                v = (i == j ? cj : 0.0) - v;
            if (same)
                jac->values[k] = v;
            else
                put(jac, off, i, j, v);
        }
    return 0;
}

/* A mode's dense Jacobian into its block. */
static int dense_block(hydae_sim *s, const hydae_mode *mode, size_t off, double t, double cj,
                       const double *y, const double *yp, hy_matrix *jac)
{
    size_t nb = (size_t)mode->n_vars;
    double *block = s->jac_block;
    int status = mode->jacobian(t, cj, y, yp, s->store, block, mode->user);
    if (status != 0)
        return status;
    for (size_t j = 0; j < nb; j++)
        for (size_t i = 0; i < nb; i++) {
            double v = block[i + j * nb];
            if (mode->rhs)
                v = (i == j ? cj : 0.0) - v;
            put(jac, off, i, j, v);
        }
    return 0;
}

int hy_config_jacobian(double t, double cj, const double *y, const double *yp, hy_matrix *jac,
                       void *ctx)
{
    hydae_sim *s = ctx;
    hy_matrix_zero(jac);
    for (int c = 0; c < s->model->n_charts; c++) {
        const hydae_mode *mode = s->active[c];
        size_t off = (size_t)s->var_offset[c];
        if (mode->n_vars == 0)
            continue;
        int status = mode->sparse_jacobian && mode->pattern
                         ? sparse_block(s, mode, off, t, cj, y + off, yp + off, jac)
                         : dense_block(s, mode, off, t, cj, y + off, yp + off, jac);
        if (status != 0)
            return status;
    }
    return 0;
}

hy_pattern *hy_init_pattern(hydae_sim *s)
{
    const hy_pattern *jp = s->config_pattern;
    size_t n = (size_t)s->n_init;
    int64_t *row_of = hy_malloc(((size_t)s->n > 0 ? (size_t)s->n : 1) * sizeof(int64_t));
    int64_t *col_start = hy_malloc((n + 1) * sizeof(int64_t));
    size_t cap = 0;
    for (size_t k = 0; k < n; k++) {
        size_t comp = (size_t)s->init_component[k];
        cap += (size_t)(jp->col_start[comp + 1] - jp->col_start[comp]);
    }
    int64_t *row = hy_malloc((cap > 0 ? cap : 1) * sizeof(int64_t));
    hy_pattern *p = NULL;
    if (row_of && col_start && row) {
        for (int i = 0; i < s->n; i++)
            row_of[i] = -1;
        for (int r = 0; r < s->n_init; r++)
            row_of[s->init_rows[r]] = r;
        size_t at = 0;
        for (size_t k = 0; k < n; k++) {
            size_t comp = (size_t)s->init_component[k];
            col_start[k] = (int64_t)at;
            for (int64_t q = jp->col_start[comp]; q < jp->col_start[comp + 1]; q++)
                if (row_of[jp->row[q]] >= 0)
                    row[at++] = row_of[jp->row[q]];
        }
        col_start[n] = (int64_t)at;
        p = hy_pattern_create(n, col_start, row, NULL);
    }
    hy_free(row_of);
    hy_free(col_start);
    hy_free(row);
    return p;
}
