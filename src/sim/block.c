/*
** The block kinds whose y is the mode's own variables: a residual DAE
** F(t, y, y') = 0 (hydae_mode_set_residual) and an explicit ODE y' = f(t,
** y) (hydae_mode_set_rhs, taken as the residual y' - f); their Jacobians,
** dense or on the mode's pattern; and what every kind shares: the mode's
** guards and value store through the kind's expand. The mechanical kind is
** in mechanics.c.
*/
#include "block.h"
#include "sim.h"

#include "linalg/linsol.h"
#include "core/core.h"

#include <math.h>
#include <string.h>

const hy_block_ops *hy_block_ops_for(const hydae_mode *mode)
{
    if (mode->is_mechanical)
        return &hy_block_mechanical;
    return mode->rhs ? &hy_block_ode : &hy_block_residual;
}

hy_block hy_block_probe(hydae_sim *s, const hydae_mode *mode)
{
    hy_block b;
    memset(&b, 0, sizeof b);
    b.ops = hy_block_ops_for(mode);
    b.sim = s;
    b.mode = mode;
    return b;
}

void hy_block_leave(hy_block *b)
{
    if (b->ops && b->ops->free)
        b->ops->free(b);
    b->ops = NULL;
    b->data = NULL;
    b->mode = NULL;
    b->is_explicit = 0;
    b->uses_var_index = 0;
}

/* ---- shared by the kinds ---- */

int hy_block_mode_guards(hy_block *b, double t, const double *y, const double *yp, double *g)
{
    const hydae_mode *mode = b->mode;
    const double *y_mode, *yp_mode;
    int status = b->ops->expand(b, t, y, yp, &y_mode, &yp_mode);
    if (status)
        return status;
    status = mode->guards(t, y_mode, yp_mode, b->sim->store, g, mode->user);
    if (status != 0) {
        hy_sim_fail(b->sim, "the guard function of mode '%s' returned %d at t = %.17g%s%s",
                    mode->name, status, t, hy_mode_error_sep(mode), hy_mode_error_text(mode));
        return HYDAE_ERR_GUARD;
    }
    return 0;
}

int hy_block_mode_store(hy_block *b, double t, const double *y, const double *yp)
{
    hydae_sim *s = b->sim;
    const hydae_mode *mode = b->mode;
    const double *y_mode, *yp_mode;
    int status = b->ops->expand(b, t, y, yp, &y_mode, &yp_mode);
    if (status)
        return status;
    for (int i = 0; i < mode->n_vars; i++)
        s->store[mode->vars[i].slot] = y_mode[i];
    if (mode->n_outputs == 0)
        return 0;
    status = mode->outputs(t, y_mode, yp_mode, s->store, s->out_work, mode->user);
    if (status != 0) {
        hy_sim_fail(s, "output equations of mode '%s' failed (status %d) at t = %.17g",
                    mode->name, status, t);
        return HYDAE_ERR_CALLBACK;
    }
    for (int o = 0; o < mode->n_outputs; o++)
        s->store[mode->out_vars[o].slot] = s->out_work[o];
    return 0;
}

/* ---- residual and explicit ODE: y is the mode's variables ---- */

static int mode_size(const hy_block *b, const hy_integrator_ops *method)
{
    (void)method;
    return b->mode->n_vars;
}

/* y from the store by name (a variable with no value there takes its start
** value), y' = 0, and the flags and tolerances of each variable. */
static int mode_enter(hy_block *b, int off, const hy_integrator_ops *method)
{
    (void)method;
    hydae_sim *s = b->sim;
    const hydae_mode *mode = b->mode;
    b->is_explicit = mode->rhs != NULL;
    b->uses_var_index = 0;
    for (int i = 0; i < mode->n_vars; i++) {
        s->var_index[off + i] = 1;
        double v = s->store[mode->vars[i].slot];
        s->y[off + i] = isnan(v) ? mode->vars[i].start : v;
        s->yp[off + i] = 0.0;
        s->is_algebraic[off + i] = (unsigned char)hy_var_is_algebraic(mode->vars[i].kind);
        hy_set_component_tolerances(s, &mode->vars[i], off + i);
    }
    return 0;
}

static int residual_residual(hy_block *b, double t, const double *y, const double *yp,
                             double *res)
{
    const hydae_mode *mode = b->mode;
    return mode->residual(t, y, yp, b->sim->store, res, mode->user);
}

static int ode_rhs(hy_block *b, double t, const double *y, double *ydot)
{
    const hydae_mode *mode = b->mode;
    return mode->rhs(t, y, b->sim->store, ydot, mode->user);
}

static int ode_residual(hy_block *b, double t, const double *y, const double *yp, double *res)
{
    int status = ode_rhs(b, t, y, res);
    for (int i = 0; i < b->mode->n_vars; i++)
        res[i] = yp[i] - res[i];
    return status;
}

static const hy_pattern *mode_pattern(const hy_block *b)
{
    const hydae_mode *mode = b->mode;
    if (!mode->pattern || mode->pattern->n != (size_t)mode->n_vars)
        return NULL;
    return hy_mode_pattern(b->sim, mode); /* the sim's copy: see sim.h */
}

static int mode_has_jacobian(const hy_block *b)
{
    const hydae_mode *mode = b->mode;
    return (mode->jacobian && mode->n_equations == mode->n_vars)
           || (mode->sparse_jacobian && mode->pattern);
}

/* Where a block's entries go in the configuration's matrix: its equation i
** in row row0 + i, its variable j in column col[j] (shared unknowns,
** assembly.c) or col0 + j; entries past its equations or variables (the
** diagonal of a mode's non-square pattern) are none of its own. */
typedef struct placement {
    size_t row0, col0, n_rows, n_cols;
    const int *col;
} placement;

static placement block_placement(const hy_block *b, size_t off)
{
    const hydae_sim *s = b->sim;
    const hydae_mode *mode = b->mode;
    placement at = { off, off, (size_t)mode->n_vars, (size_t)mode->n_vars, NULL };
    if (s->assembly.shared) {
        int c = mode->chart->index;
        at.row0 = (size_t)s->assembly.row_offset[c];
        at.n_rows = (size_t)(s->assembly.row_offset[c + 1] - s->assembly.row_offset[c]);
        at.col = s->assembly.local_unknown + off;
    }
    return at;
}

/* Entry (i, j) of the block: written, or dropped when the matrix has no
** place for it (outside the pattern: taken as zero). */
static void put(hy_matrix *jac, const placement *at, size_t i, size_t j, double v)
{
    if (i >= at->n_rows || j >= at->n_cols)
        return;
    double *place = hy_matrix_at(jac, at->row0 + i, at->col ? (size_t)at->col[j] : at->col0 + j);
    if (place)
        *place = v;
}

/* The value of entry (i, j) as the solver takes it: an explicit ODE's
** d(y' - f)/dy + cj I from df/dy, a residual's as it is. */
static double solver_value(const hydae_mode *mode, size_t i, size_t j, double cj, double v)
{
    return mode->rhs ? (i == j ? cj : 0.0) - v : v;
}

/* The one mode's sparse Jacobian written straight into the solver's
** storage, with no scratch of nnz values touched: possible when its
** pattern is the matrix' (entries in pattern order, no user entries to
** merge). CSC on the same pattern takes the values where they are; a band
** matrix of that pattern's bandwidths has room for them (nnz <= (ml + mu +
** 1) n <= ld n), and they move to their band places from the last one back:
** entry k of column j (row i) goes to j ld + top + mu + i - j >= k, since
** column j starts at or before j (ml + mu + 1) and row i is at most i - j +
** mu entries into it, so no value is overwritten before it has moved. The
** band places outside the pattern become 0. 1 if done this way (*status
** set), 0 if not possible. */
static int sparse_in_place(const hydae_sim *s, const hydae_mode *mode, double t, double cj,
                           const double *y, const double *yp, const double *p_values,
                           hy_matrix *jac, int *status)
{
    const hy_pattern *p = hy_mode_pattern(s, mode);
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
** the normalised pattern's order, then placed. (The scratch reserved by
** hy_jac_work_reserve is not touched when the values go straight into the
** solver's storage: its pages never become resident.) */
static int sparse_block(hydae_sim *s, const hydae_mode *mode, const placement *at, size_t off,
                        double t, double cj, const double *y, const double *yp, hy_matrix *jac)
{
    const hy_pattern *p = mode->pattern;
    int in_place_status;
    if (off == 0 && !s->assembly.shared
        && sparse_in_place(s, mode, t, cj, y, yp, s->store, jac, &in_place_status))
        return in_place_status;
    size_t need = mode->pattern_user_nnz + (mode->pattern_map ? p->nnz : 0);
    if (need > s->jac.cap_values) {
        double *grown = hy_realloc(s->jac.values, need * sizeof(double));
        if (!grown)
            return -1;
        s->jac.values = grown;
        s->jac.cap_values = need;
    }
    double *user_values = s->jac.values, *values = user_values;
    int status = mode->sparse_jacobian(t, cj, y, yp, s->store, user_values, mode->user);
    if (status != 0)
        return status;
    if (mode->pattern_map) {
        values = s->jac.values + mode->pattern_user_nnz;
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
                put(jac, at, i, j, v);
        }
    return 0;
}

/* A mode's dense Jacobian into its block. */
static int dense_block(hydae_sim *s, const hydae_mode *mode, const placement *at, double t,
                       double cj, const double *y, const double *yp, hy_matrix *jac)
{
    size_t nb = (size_t)mode->n_vars;
    double *block = s->jac.block;
    int status = mode->jacobian(t, cj, y, yp, s->store, block, mode->user);
    if (status != 0)
        return status;
    for (size_t j = 0; j < nb; j++)
        for (size_t i = 0; i < nb; i++) {
            double v = block[i + j * nb];
            if (mode->rhs)
                v = (i == j ? cj : 0.0) - v;
            put(jac, at, i, j, v);
        }
    return 0;
}

static int mode_jacobian(hy_block *b, size_t off, double t, double cj, const double *y,
                         const double *yp, hy_matrix *jac)
{
    const hydae_mode *mode = b->mode;
    placement at = block_placement(b, off);
    return mode->sparse_jacobian && mode->pattern
               ? sparse_block(b->sim, mode, &at, off, t, cj, y, yp, jac)
               : dense_block(b->sim, mode, &at, t, cj, y, yp, jac);
}

static int mode_expand(hy_block *b, double t, const double *y, const double *yp,
                       const double **y_mode, const double **yp_mode)
{
    (void)b;
    (void)t;
    *y_mode = y;
    *yp_mode = yp;
    return 0;
}

static const char *mode_component_name(const hy_block *b, int i)
{
    return b->mode->vars[i].name;
}

const hy_block_ops hy_block_residual = {
    "residual",
    0,
    mode_size,
    mode_enter,
    residual_residual,
    NULL,
    mode_pattern,
    mode_has_jacobian,
    mode_jacobian,
    mode_expand,
    hy_block_mode_guards,
    hy_block_mode_store,
    mode_component_name,
    NULL,
    NULL,
};

const hy_block_ops hy_block_ode = {
    "ode",
    0,
    mode_size,
    mode_enter,
    ode_residual,
    ode_rhs,
    mode_pattern,
    mode_has_jacobian,
    mode_jacobian,
    mode_expand,
    hy_block_mode_guards,
    hy_block_mode_store,
    mode_component_name,
    NULL,
    NULL,
};
