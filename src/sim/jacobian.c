/*
** The configuration's Jacobian: its structure (the block-diagonal
** concatenation of the active blocks' patterns, NULL when no block gives
** one) and the analytic Jacobian assembled from the blocks' own, dense or
** sparse, into the storage the linear solver chose (linalg/linsol.h).
*/
#include "sim.h"

#include "linalg/linsol.h"
#include "core/core.h"

#include <stdlib.h>
#include <string.h>

/* The block of chart c: its size, and its pattern or NULL (dense). */
static const hy_pattern *block_pattern(const hydae_sim *s, int c, size_t *size)
{
    const hy_block *b = &s->blocks[c];
    *size = (size_t)(s->var_offset[c + 1] - s->var_offset[c]);
    return b->ops->pattern(b);
}

int hy_jac_work_reserve(hy_jac_work *jw, size_t max_block, size_t max_sparse_values)
{
    if (max_sparse_values > jw->cap_values) { /* reserved here, not mid-step */
        double *grown = hy_alloc_array(max_sparse_values, sizeof(double));
        if (!grown)
            return HYDAE_ERR_NOMEM;
        hy_free(jw->values);
        jw->values = grown;
        jw->cap_values = max_sparse_values;
    }
    size_t block_values, block_bytes;
    if (hy_mul_size(max_block, max_block, &block_values)
        || hy_mul_size(block_values, sizeof(double), &block_bytes))
        return HYDAE_ERR_NOMEM;
    if (block_values > jw->cap_block) {
        double *grown = hy_realloc(jw->block, block_bytes);
        if (!grown)
            return HYDAE_ERR_NOMEM;
        jw->block = grown;
        jw->cap_block = block_values;
    }
    return 0;
}

void hy_jac_work_free(hy_jac_work *jw)
{
    hy_free(jw->block);
    hy_free(jw->values);
    hy_pattern_unref(jw->pattern);
    memset(jw, 0, sizeof *jw);
}

int hy_mode_patterns_copy(hydae_sim *s)
{
    const hydae_model *m = s->model;
    s->mode_pattern_base = hy_calloc((size_t)m->n_charts + 1, sizeof *s->mode_pattern_base);
    if (!s->mode_pattern_base)
        return HYDAE_ERR_NOMEM;
    for (int c = 0; c < m->n_charts; c++)
        s->mode_pattern_base[c + 1] = s->mode_pattern_base[c] + m->charts[c]->n_modes;
    s->mode_patterns = hy_calloc((size_t)s->mode_pattern_base[m->n_charts] + 1,
                                 sizeof *s->mode_patterns);
    if (!s->mode_patterns)
        return HYDAE_ERR_NOMEM;
    for (int c = 0; c < m->n_charts; c++)
        for (int k = 0; k < m->charts[c]->n_modes; k++) {
            const hy_pattern *p = m->charts[c]->modes[k]->pattern;
            hy_pattern **copy = &s->mode_patterns[s->mode_pattern_base[c] + k];
            if (p && !(*copy = hy_pattern_copy(p)))
                return HYDAE_ERR_NOMEM;
        }
    return 0;
}

void hy_mode_patterns_free(hydae_sim *s)
{
    if (s->mode_patterns)
        for (int k = 0; k < s->mode_pattern_base[s->model->n_charts]; k++)
            hy_pattern_unref(s->mode_patterns[k]);
    hy_free(s->mode_patterns);
    hy_free(s->mode_pattern_base);
    s->mode_patterns = NULL;
    s->mode_pattern_base = NULL;
}

const hy_pattern *hy_mode_pattern(const hydae_sim *s, const hydae_mode *mode)
{
    return s->mode_patterns[s->mode_pattern_base[mode->chart->index] + mode->index];
}

int hy_config_build_pattern(hydae_sim *s)
{
    int n_charts = s->model->n_charts, n_blocks = 0, any = 0;
    hy_pattern_unref(s->jac.pattern);
    s->jac.pattern = NULL;
    if (s->assembly.shared)
        return hy_assembly_pattern(s, &s->jac.pattern);
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
                s->jac.pattern = hy_pattern_ref((hy_pattern *)p);
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
    if (status == 0 && !(s->jac.pattern = hy_pattern_block_diag(blocks, k)))
        status = HYDAE_ERR_NOMEM;
    for (int b = 0; b < k; b++)
        hy_pattern_unref(blocks[b]);
    hy_free(blocks);
    return status;
}

int hy_config_has_jacobian(const hydae_sim *s)
{
    for (int c = 0; c < s->model->n_charts; c++) {
        const hy_block *b = &s->blocks[c];
        int has_entries = s->var_offset[c + 1] > s->var_offset[c]
                          || s->assembly.row_offset[c + 1] > s->assembly.row_offset[c];
        if (!has_entries)
            continue;
        /* With shared unknowns a block places its entries by the assembly's
        ** maps (block.c), which a block that owns its state does not. */
        if (!b->ops->has_jacobian(b) || (s->assembly.shared && b->ops->owns_state))
            return 0;
    }
    return 1;
}

int hy_config_jacobian(double t, double cj, const double *y, const double *yp, hy_matrix *jac,
                       void *ctx)
{
    hydae_sim *s = ctx;
    hy_matrix_zero(jac);
    hy_config_local(s, y, yp, &y, &yp);
    for (int c = 0; c < s->model->n_charts; c++) {
        hy_block *b = &s->blocks[c];
        size_t off = (size_t)s->var_offset[c];
        if (s->active[c]->n_vars == 0)
            continue;
        int status = b->ops->jacobian(b, off, t, cj, y + off, yp + off, jac);
        if (status != 0)
            return status;
    }
    return 0;
}

hy_pattern *hy_init_pattern(hydae_sim *s)
{
    const hy_pattern *jp = s->jac.pattern;
    size_t n = (size_t)s->init.n;
    int64_t *row_of = hy_malloc(((size_t)s->n > 0 ? (size_t)s->n : 1) * sizeof(int64_t));
    int64_t *col_start = hy_malloc((n + 1) * sizeof(int64_t));
    size_t cap = 0;
    for (size_t k = 0; k < n; k++) {
        size_t comp = (size_t)s->init.component[k];
        cap += (size_t)(jp->col_start[comp + 1] - jp->col_start[comp]);
    }
    int64_t *row = hy_malloc((cap > 0 ? cap : 1) * sizeof(int64_t));
    hy_pattern *p = NULL;
    if (row_of && col_start && row) {
        for (int i = 0; i < s->n; i++)
            row_of[i] = -1;
        for (int r = 0; r < s->init.n; r++)
            row_of[s->init.rows[r]] = r;
        size_t at = 0;
        for (size_t k = 0; k < n; k++) {
            size_t comp = (size_t)s->init.component[k];
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
