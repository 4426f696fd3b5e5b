/*
** Shared unknowns: the DAE of a configuration is assembled from the
** active modes of all charts (seed 000, section 4), a variable of several
** of them being one unknown. The blocks keep their own layout, "local":
** var_offset, the components of each block one after another, as when
** nothing is shared. The configuration's unknowns are the distinct
** variables in order of first appearance (local_unknown, unknown_local);
** the blocks' equations follow one another (row_offset), each block
** having as many as its mode says. Blocks are evaluated on local copies
** gathered from the configuration's y and y' (hy_config_local).
**
** When no two active modes share a variable, every map is the identity
** and nothing here costs anything at run time (s->shared = 0).
*/
#include "sim.h"

#include "linalg/linsol.h"
#include "core/core.h"

#include <stdio.h>
#include <string.h>

int hy_assembly_reserve(hy_assembly *a, int n_charts, int n_slots)
{
    a->row_offset = hy_calloc((size_t)n_charts + 1, sizeof(int));
    a->slot_unknown = hy_malloc(sizeof(int) * (size_t)(n_slots > 0 ? n_slots : 1));
    if (!a->row_offset || !a->slot_unknown)
        return HYDAE_ERR_NOMEM;
    for (int i = 0; i < n_slots; i++)
        a->slot_unknown[i] = -1;
    return 0;
}

void hy_assembly_free(hy_assembly *a)
{
    void *arrays[] = { a->row_offset, a->slot_unknown, a->local_unknown, a->unknown_local,
                       a->y_local, a->yp_local };
    for (size_t i = 0; i < sizeof arrays / sizeof arrays[0]; i++)
        hy_free(arrays[i]);
    memset(a, 0, sizeof *a);
}

/* Room for n_local local components. */
static int reserve_local(hy_assembly *a, int n_local)
{
    if (n_local <= a->cap_local)
        return 0;
    int *lu = hy_realloc(a->local_unknown, sizeof(int) * (size_t)n_local);
    if (lu)
        a->local_unknown = lu;
    int *ul = hy_realloc(a->unknown_local, sizeof(int) * (size_t)n_local);
    if (ul)
        a->unknown_local = ul;
    double *yl = hy_realloc(a->y_local, sizeof(double) * (size_t)n_local);
    if (yl)
        a->y_local = yl;
    double *ypl = hy_realloc(a->yp_local, sizeof(double) * (size_t)n_local);
    if (ypl)
        a->yp_local = ypl;
    if (!lu || !ul || !yl || !ypl)
        return HYDAE_ERR_NOMEM;
    a->cap_local = n_local;
    return 0;
}

/* Equations of chart c's block of `size` components. */
static int block_rows(const hydae_sim *s, int c, int size)
{
    const hydae_mode *mode = s->active[c];
    return mode->has_shared ? mode->n_equations : size;
}

/* "chart 'a': mode 'x', chart 'b': mode 'y'" for the active modes that share
** unknowns (the others add as many equations as unknowns). */
static void describe_shared_modes(const hydae_sim *s, char *out, size_t size)
{
    size_t used = 0;
    out[0] = '\0';
    for (int c = 0; c < s->model->n_charts && used + 4 < size; c++) {
        const hydae_mode *mode = s->active[c];
        if (!mode->has_shared)
            continue;
        int wrote = snprintf(out + used, size - used, "%s'%s' of chart '%s' (%d equations)",
                             used ? ", " : "", mode->name, s->model->charts[c]->name,
                             mode->n_equations);
        if (wrote < 0)
            break;
        used += (size_t)wrote;
    }
    if (used + 4 >= size && size > 4)
        memcpy(out + size - 4, "...", 4);
}

int hy_assembly_layout(hydae_sim *s, int n_local)
{
    hy_assembly *a = &s->assembly;
    const hydae_model *m = s->model;
    int any_shared = 0;
    for (int c = 0; c < m->n_charts; c++)
        any_shared |= s->active[c]->has_shared;
    a->shared = 0;
    a->n_local = n_local;
    a->n_unknowns = n_local;
    if (!any_shared) {
        memcpy(a->row_offset, s->var_offset, sizeof(int) * ((size_t)m->n_charts + 1));
        return 0;
    }
    if (reserve_local(a, n_local))
        return HYDAE_ERR_NOMEM;
    int n = 0, rows = 0;
    for (int c = 0; c < m->n_charts; c++) {
        const hydae_mode *mode = s->active[c];
        int off = s->var_offset[c], size = s->var_offset[c + 1] - off;
        a->row_offset[c] = rows;
        rows += block_rows(s, c, size);
        for (int v = 0; v < size; v++) {
            /* A block that owns its state shares nothing (model check). */
            int slot = hy_block_ops_for(mode)->owns_state ? -1 : mode->vars[v].slot;
            if (slot >= 0 && a->slot_unknown[slot] >= 0) {
                a->local_unknown[off + v] = a->slot_unknown[slot];
                continue;
            }
            if (slot >= 0)
                a->slot_unknown[slot] = n;
            a->unknown_local[n] = off + v;
            a->local_unknown[off + v] = n++;
        }
    }
    a->row_offset[m->n_charts] = rows;
    for (int c = 0; c < m->n_charts; c++) { /* the scratch back to -1 */
        const hydae_mode *mode = s->active[c];
        for (int v = 0; v < mode->n_vars; v++)
            a->slot_unknown[mode->vars[v].slot] = -1;
    }
    if (rows != n) {
        char modes[600];
        describe_shared_modes(s, modes, sizeof modes);
        hy_sim_fail(s, "the configuration at t = %.17g has %d equations for %d unknowns (it is "
                    "%s): the modes that share unknowns are %s; every configuration of "
                    "charts that share unknowns must have as many equations as unknowns",
                    s->t, rows, n, rows < n ? "underdetermined" : "overdetermined", modes);
        return HYDAE_ERR_MODEL;
    }
    a->n_unknowns = n;
    a->shared = n != n_local || rows != n_local;
    if (!a->shared)
        memcpy(a->row_offset, s->var_offset, sizeof(int) * ((size_t)m->n_charts + 1));
    return 0;
}

void hy_assembly_fold(hydae_sim *s)
{
    const hy_assembly *a = &s->assembly;
    s->n = a->n_unknowns;
    if (!a->shared)
        return;
    /* In place: unknown g <= local j, and j is read before any g >= j is
    ** written. A shared unknown is differential, in the error test and of
    ** the highest index if any of its modes says so; its value and
    ** tolerances are its first mode's. */
    for (int j = 0; j < a->n_local; j++) {
        int g = a->local_unknown[j];
        if (a->unknown_local[g] == j) {
            s->y[g] = s->y[j];
            s->yp[g] = s->yp[j];
            s->is_algebraic[g] = s->is_algebraic[j];
            s->err_exclude[g] = s->err_exclude[j];
            s->var_index[g] = s->var_index[j];
            if (!s->tol_uniform) {
                s->rtol_vec[g] = s->rtol_vec[j];
                s->atol_vec[g] = s->atol_vec[j];
            }
            continue;
        }
        s->is_algebraic[g] &= s->is_algebraic[j];
        s->err_exclude[g] &= s->err_exclude[j];
        if (s->var_index[j] > s->var_index[g])
            s->var_index[g] = s->var_index[j];
    }
}

void hy_config_local(hydae_sim *s, const double *y, const double *yp, const double **y_local,
                     const double **yp_local)
{
    hy_assembly *a = &s->assembly;
    if (!a->shared) {
        *y_local = y;
        if (yp_local)
            *yp_local = yp;
        return;
    }
    for (int j = 0; j < a->n_local; j++)
        a->y_local[j] = y[a->local_unknown[j]];
    *y_local = a->y_local;
    if (yp_local) {
        for (int j = 0; j < a->n_local; j++)
            a->yp_local[j] = yp[a->local_unknown[j]];
        *yp_local = a->yp_local;
    }
}

int hy_unknown_of(const hydae_sim *s, int local)
{
    return s->assembly.shared ? s->assembly.local_unknown[local] : local;
}

int hy_local_of(const hydae_sim *s, int unknown)
{
    return s->assembly.shared ? s->assembly.unknown_local[unknown] : unknown;
}

void hy_describe_equation(const hydae_sim *s, int c, int eq, char *out, size_t size)
{
    const hydae_mode *mode = s->active[c];
    if (s->assembly.shared)
        hy_format(out, size, "equation %d of mode '%s'", eq, mode->name);
    else
        hy_format(out, size, "equation %d of mode '%s' (paired with variable '%s')", eq,
                  mode->name, hy_component_name(s, s->var_offset[c] + eq, NULL));
}

int hy_describe_row(const hydae_sim *s, int row, char *out, size_t size)
{
    for (int c = 0; c < s->model->n_charts; c++)
        if (row >= s->assembly.row_offset[c] && row < s->assembly.row_offset[c + 1]) {
            hy_describe_equation(s, c, row - s->assembly.row_offset[c], out, size);
            return c;
        }
    hy_format(out, size, "equation %d", row);
    return -1;
}

/* ---- the assembled pattern ---- */

/* Chart c's block as (row, column) pairs of the configuration, into rows
** and cols from *count (NULL: only counted). Its mode's pattern when it
** has one covering its equations (with the diagonal every hy_pattern has:
** the structural check below may take such an entry for a real one),
** else every pair. */
static void block_entries(const hydae_sim *s, int c, int64_t *rows, int64_t *cols, size_t *count)
{
    const hy_assembly *a = &s->assembly;
    const hydae_mode *mode = s->active[c];
    int off = s->var_offset[c], size = s->var_offset[c + 1] - off;
    int row0 = a->row_offset[c], n_rows = a->row_offset[c + 1] - row0;
    const hy_pattern *p = mode->pattern;
    int usable = p && p->n >= (size_t)size && p->n >= (size_t)n_rows;
    for (int k = 0; k < size; k++) {
        int64_t col = a->local_unknown[off + k];
        if (usable) {
            for (int64_t q = p->col_start[k]; q < p->col_start[k + 1]; q++)
                if (p->row[q] < n_rows) {
                    if (rows) {
                        rows[*count] = row0 + p->row[q];
                        cols[*count] = col;
                    }
                    ++*count;
                }
            continue;
        }
        for (int r = 0; r < n_rows; r++) {
            if (rows) {
                rows[*count] = row0 + r;
                cols[*count] = col;
            }
            ++*count;
        }
    }
}

/* The blocks' entries by column of the configuration (rows of column j:
** rows[col_start[j] .. col_start[j+1]), unsorted, no diagonal added). 0 or
** HYDAE_ERR_NOMEM; the caller frees both. */
static int assembled_columns(hydae_sim *s, int64_t **col_start_out, int64_t **rows_out)
{
    int n = s->n, n_charts = s->model->n_charts;
    size_t nnz = 0;
    for (int c = 0; c < n_charts; c++)
        block_entries(s, c, NULL, NULL, &nnz);
    int64_t *rows = hy_malloc(sizeof(int64_t) * (nnz + 1));
    int64_t *cols = hy_malloc(sizeof(int64_t) * (nnz + 1));
    int64_t *col_start = hy_calloc((size_t)n + 2, sizeof(int64_t));
    int64_t *sorted = hy_malloc(sizeof(int64_t) * (nnz + 1));
    int status = HYDAE_ERR_NOMEM;
    if (rows && cols && col_start && sorted) {
        size_t count = 0;
        for (int c = 0; c < n_charts; c++)
            block_entries(s, c, rows, cols, &count);
        /* Counting sort by column. */
        for (size_t k = 0; k < count; k++)
            col_start[cols[k] + 2]++;
        for (int j = 0; j < n; j++)
            col_start[j + 2] += col_start[j + 1];
        for (size_t k = 0; k < count; k++)
            sorted[col_start[cols[k] + 1]++] = rows[k];
        status = 0;
    }
    hy_free(rows);
    hy_free(cols);
    if (status) {
        hy_free(col_start);
        hy_free(sorted);
        col_start = sorted = NULL;
    }
    *col_start_out = col_start;
    *rows_out = sorted;
    return status;
}

int hy_assembly_pattern(hydae_sim *s, hy_pattern **out)
{
    int64_t *col_start, *rows;
    *out = NULL;
    if (assembled_columns(s, &col_start, &rows))
        return HYDAE_ERR_NOMEM;
    *out = hy_pattern_create((size_t)s->n, col_start, rows, NULL);
    hy_free(col_start);
    hy_free(rows);
    return *out ? 0 : HYDAE_ERR_NOMEM;
}

/* ---- structural check ---- */

/* Maximum matching of the pattern's columns (unknowns) to rows
** (equations) by augmenting paths (Kuhn's algorithm, depth first with an
** explicit stack; Duff, "On algorithms for obtaining a maximum
** transversal", ACM TOMS 7, 1981). match_row[r]: the column of row r, or
** -1; the number matched, or -1 out of memory. */
static int match_columns(int n, const int64_t *col_start, const int64_t *rows, int *match_row,
                         int *match_col)
{
    int matched = 0;
    int *stamp = hy_malloc(sizeof(int) * (size_t)(n > 0 ? n : 1));
    int *stack_col = hy_malloc(sizeof(int) * (size_t)(n > 0 ? n : 1));
    int64_t *next = hy_malloc(sizeof(int64_t) * (size_t)(n > 0 ? n : 1));
    if (!stamp || !stack_col || !next) {
        matched = -1;
        goto done;
    }
    for (int i = 0; i < n; i++)
        match_row[i] = match_col[i] = stamp[i] = -1;
    for (int root = 0; root < n; root++) {
        int depth = 0;
        stack_col[0] = root;
        next[root] = col_start[root];
        stamp[root] = root;
        while (depth >= 0) {
            int j = stack_col[depth];
            if (next[j] == col_start[j + 1]) {
                depth--; /* no path from j */
                continue;
            }
            int r = (int)rows[next[j]++];
            int owner = match_row[r];
            if (owner < 0) { /* augment along the stack */
                for (int k = depth; k >= 0; k--) {
                    int col = stack_col[k], taken = match_col[col];
                    match_col[col] = r;
                    match_row[r] = col;
                    r = taken;
                }
                matched++;
                break;
            }
            if (stamp[owner] != root) {
                stamp[owner] = root;
                next[owner] = col_start[owner];
                stack_col[++depth] = owner;
            }
        }
    }
done:
    hy_free(stamp);
    hy_free(stack_col);
    hy_free(next);
    return matched;
}

int hy_assembly_check_structure(hydae_sim *s)
{
    if (!s->assembly.shared || s->n == 0)
        return 0;
    int n = s->n;
    int64_t *col_start = NULL, *rows = NULL;
    int *match_row = hy_malloc(sizeof(int) * (size_t)n);
    int *match_col = hy_malloc(sizeof(int) * (size_t)n);
    int status = 0;
    int matched = match_row && match_col && !assembled_columns(s, &col_start, &rows)
                      ? match_columns(n, col_start, rows, match_row, match_col)
                      : -1;
    if (matched < 0) {
        status = HYDAE_ERR_NOMEM;
    } else if (matched < n) {
        char equations[500] = "", unknowns[400] = "";
        size_t used = 0;
        for (int r = 0, shown = 0; r < n && shown < 3; r++)
            if (match_row[r] < 0) {
                char one[300];
                hy_describe_row(s, r, one, sizeof one);
                used += (size_t)snprintf(equations + used, sizeof equations - used, "%s%s",
                                         shown++ ? "; " : "", one);
                if (used >= sizeof equations)
                    break;
            }
        used = 0;
        for (int j = 0, shown = 0; j < n && shown < 6; j++)
            if (match_col[j] < 0) {
                used += (size_t)snprintf(unknowns + used, sizeof unknowns - used, "%s'%s'",
                                         shown++ ? ", " : "", hy_component_name(s, j, NULL));
                if (used >= sizeof unknowns)
                    break;
            }
        hy_sim_fail(s, "the configuration at t = %.17g is structurally singular: %d of its %d "
                    "equations can be matched to distinct unknowns; left over: %s; not "
                    "determined: %s (an equation said twice across charts, or an unknown no "
                    "active mode's equation contains)", s->t, matched, n, equations, unknowns);
        status = HYDAE_ERR_MODEL;
    }
    hy_free(match_row);
    hy_free(match_col);
    hy_free(col_start);
    hy_free(rows);
    return status;
}

/* ---- the configuration cache ---- */

static int same_configuration(const hydae_sim *s, const hy_config_entry *e,
                              const hy_integrator_ops *method)
{
    if (!e->modes || e->method != method)
        return 0;
    for (int c = 0; c < s->model->n_charts; c++)
        if (e->modes[c] != s->active[c])
            return 0;
    return 1;
}

int hy_config_cache_find(hydae_sim *s, const hy_integrator_ops *method)
{
    s->config_active = -1;
    for (int k = 0; k < s->config_cache_capacity; k++) {
        hy_config_entry *e = &s->config_cache[k];
        if (!same_configuration(s, e, method))
            continue;
        e->last_used = ++s->config_clock;
        hy_pattern_unref(s->jac.pattern);
        s->jac.pattern = e->pattern ? hy_pattern_ref(e->pattern) : NULL;
        s->config_active = k;
        return 1;
    }
    return 0;
}

/* The entry's patterns go (their solvers may still hold them). */
static void entry_release(hy_config_entry *e)
{
    hy_pattern_unref(e->pattern);
    hy_pattern_unref(e->init_pattern);
    hy_free(e->init_unknowns);
    e->pattern = e->init_pattern = NULL;
    e->init_unknowns = NULL;
    e->init_n = 0;
}

int hy_config_cache_add(hydae_sim *s, const hy_integrator_ops *method)
{
    s->config_active = -1;
    if (s->config_cache_capacity <= 0)
        return 0;
    int chosen = 0;
    for (int k = 0; k < s->config_cache_capacity; k++) {
        hy_config_entry *e = &s->config_cache[k];
        if (!e->modes) {
            chosen = k;
            break;
        }
        if (e->last_used < s->config_cache[chosen].last_used)
            chosen = k;
    }
    hy_config_entry *slot = &s->config_cache[chosen];
    int n_charts = s->model->n_charts;
    if (!slot->modes) {
        slot->modes = hy_malloc(sizeof *slot->modes * (size_t)(n_charts > 0 ? n_charts : 1));
        if (!slot->modes)
            return HYDAE_ERR_NOMEM;
    }
    entry_release(slot);
    if (s->jac.pattern && hy_pattern_keep_symbolic(s->jac.pattern)) {
        hy_free(slot->modes);
        slot->modes = NULL;
        return HYDAE_ERR_NOMEM;
    }
    for (int c = 0; c < n_charts; c++)
        slot->modes[c] = s->active[c];
    slot->method = method;
    slot->pattern = s->jac.pattern ? hy_pattern_ref(s->jac.pattern) : NULL;
    slot->last_used = ++s->config_clock;
    s->config_active = chosen;
    return 0;
}

void hy_config_cache_free(hydae_sim *s)
{
    for (int k = 0; k < HY_CONFIG_CACHE_SIZE; k++) {
        hy_free(s->config_cache[k].modes);
        entry_release(&s->config_cache[k]);
    }
    memset(s->config_cache, 0, sizeof s->config_cache);
    s->config_active = -1;
}

hy_pattern *hy_config_init_pattern(hydae_sim *s, const int64_t *unknowns, size_t n)
{
    hy_config_entry *e = s->config_active >= 0 ? &s->config_cache[s->config_active] : NULL;
    if (e && e->init_pattern && e->init_n == n
        && memcmp(e->init_unknowns, unknowns, n * sizeof *unknowns) == 0)
        return hy_pattern_ref(e->init_pattern);
    hy_pattern *p = hy_init_pattern(s);
    if (!p || !e)
        return p;
    int64_t *kept = hy_malloc((n > 0 ? n : 1) * sizeof *kept);
    if (!kept || hy_pattern_keep_symbolic(p)) {
        hy_free(kept);
        hy_pattern_unref(p);
        return NULL;
    }
    memcpy(kept, unknowns, n * sizeof *unknowns);
    hy_pattern_unref(e->init_pattern);
    hy_free(e->init_unknowns);
    e->init_pattern = hy_pattern_ref(p);
    e->init_unknowns = kept;
    e->init_n = n;
    return p;
}

hy_symbolic_mark hy_symbolic_mark_of(const hy_pattern *p)
{
    hy_symbolic_mark mark = { p, p ? p->n_colorings : 0, p ? p->n_analyses : 0,
                              p ? p->n_band_orderings : 0 };
    return mark;
}

void hy_symbolic_count(hydae_sim *s, hy_symbolic_mark mark)
{
    if (!mark.pattern)
        return;
    s->stats.n_colorings += mark.pattern->n_colorings - mark.n_colorings;
    s->stats.n_symbolic_analyses += mark.pattern->n_analyses - mark.n_analyses;
    s->stats.n_band_orderings += mark.pattern->n_band_orderings - mark.n_band_orderings;
}
