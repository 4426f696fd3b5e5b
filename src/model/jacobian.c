/*
** A mode's sparse Jacobian (hydae_mode_set_jacobian_pattern and
** hydae_mode_set_sparse_jacobian): the user's pattern normalised by
** linalg (sorted, duplicates merged, diagonal added), and where each of
** the user's entries lands in it.
*/
#include "model.h"

#include "linalg/linsol.h"
#include "core/core.h"

#include <stdlib.h>
#include <string.h>

void hy_mode_free_jacobian_pattern(hydae_mode *mode)
{
    hy_pattern_unref(mode->pattern);
    hy_free(mode->pattern_map);
    mode->pattern = NULL;
    mode->pattern_map = NULL;
    mode->pattern_user_nnz = 0;
}

int hydae_mode_set_jacobian_pattern(hydae_mode *mode, const int64_t *col_start,
                                    const int64_t *row)
{
    if (!mode)
        return HYDAE_ERR_ARG;
    hydae_model *m = MODE_MODEL(mode);
    size_t n = (size_t)mode->n_vars;
    if (!col_start || (!row && n > 0 && col_start[n] > 0))
        return HY_ARG_ERROR(m, "mode '%s': a Jacobian pattern needs col_start and row",
                            mode->name);
    if (n == 0)
        return HY_ARG_ERROR(m, "mode '%s': add the variables before the Jacobian pattern",
                            mode->name);
    if (m->checked) /* its sims copied the patterns when they were made */
        return HY_ARG_ERROR(m, "mode '%s': set the Jacobian pattern before the model is "
                            "checked (hydae_model_check, hydae_sim_create)", mode->name);
    /* A mode that shares unknowns with other charts may have more equations
    ** than variables: its pattern is then square of the larger size, the
    ** columns past its variables empty (assembly.c reads its rows). */
    size_t size = mode->n_equations > mode->n_vars ? (size_t)mode->n_equations : n;
    int64_t *extended = NULL;
    if (size > n) {
        if (!(extended = hy_malloc((size + 1) * sizeof *extended)))
            return hy_model_fail(m, HYDAE_ERR_NOMEM, "mode '%s': out of memory for the "
                                 "Jacobian pattern", mode->name);
        memcpy(extended, col_start, (n + 1) * sizeof *extended);
        for (size_t j = n + 1; j <= size; j++)
            extended[j] = col_start[n];
    }
    size_t bad = SIZE_MAX - 1; /* left so when out of memory */
    hy_pattern *pattern = hy_pattern_create(size, extended ? extended : col_start, row, &bad);
    hy_free(extended);
    if (!pattern) {
        if (bad == SIZE_MAX)
            return HY_ARG_ERROR(m, "mode '%s': Jacobian pattern: col_start must start at 0 "
                                "and never decrease", mode->name);
        if (bad < (size_t)col_start[n])
            return HY_ARG_ERROR(m, "mode '%s': Jacobian pattern entry %zu has row %lld, "
                                "outside 0..%zu", mode->name, bad, (long long)row[bad],
                                size - 1);
        return hy_model_fail(m, HYDAE_ERR_NOMEM, "mode '%s': out of memory for the Jacobian "
                             "pattern", mode->name);
    }
    size_t user_nnz = (size_t)col_start[n];
    int64_t *map = hy_malloc((user_nnz > 0 ? user_nnz : 1) * sizeof *map);
    if (!map) {
        hy_pattern_unref(pattern);
        return hy_model_fail(m, HYDAE_ERR_NOMEM, "mode '%s': out of memory for the Jacobian "
                             "pattern", mode->name);
    }
    int identity = user_nnz == pattern->nnz;
    for (size_t j = 0; j < n; j++)
        for (int64_t k = col_start[j]; k < col_start[j + 1]; k++) {
            map[k] = hy_pattern_find(pattern, (size_t)row[k], j);
            identity &= map[k] == k;
        }
    if (identity) { /* already sorted, no duplicates, the diagonal given */
        hy_free(map);
        map = NULL;
    }
    hy_mode_free_jacobian_pattern(mode);
    mode->pattern = pattern;
    mode->pattern_map = map;
    mode->pattern_user_nnz = user_nnz;
    return 0;
}

int hydae_mode_set_sparse_jacobian(hydae_mode *mode, hydae_sparse_jacobian_fn jac)
{
    if (!mode)
        return HYDAE_ERR_ARG;
    if (!jac)
        return HY_ARG_ERROR(MODE_MODEL(mode), "mode '%s': no Jacobian function", mode->name);
    mode->sparse_jacobian = jac;
    return 0;
}
