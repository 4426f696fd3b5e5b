/*
** The hybrid loop (Enge-Rosenblatt, Bastian, Clauss, Schwarz, "Numerical
** simulation of continuous systems with structural dynamics", sec. 4,
** Figs. 5-7): a discrete phase at frozen time fires transitions until no
** event is waiting; a continuous phase builds the active configuration's
** DAE, finds consistent initial values, and integrates it, checking the
** guards after every accepted step and locating the first crossing on the
** step's dense output, so that no step is ever accepted past an event.
*/
#define _POSIX_C_SOURCE 200809L /* clock_gettime */

#include "sim.h"

#include "linalg/linsol.h"
#include "core/core.h"


#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---- creation and settings ---- */

/* hydae_sim_create out of memory: the message goes on the model. */
static hydae_sim *create_nomem(hydae_model *m, int *status)
{
    hy_format(m->errmsg, sizeof m->errmsg, "model '%s': out of memory creating a simulation",
              m->name);
    if (status)
        *status = HYDAE_ERR_NOMEM;
    return NULL;
}

hydae_sim *hydae_sim_create(hydae_model *m, int *status)
{
    int st = m ? hydae_model_check(m) : HYDAE_ERR_ARG;
    if (status)
        *status = st;
    if (st)
        return NULL;
    hydae_sim *s = hy_calloc(1, sizeof *s);
    if (!s)
        return create_nomem(m, status);
    s->model = m;
    s->method = &hy_dstiff;
    s->t0 = 0.0;
    s->t_end = 10.0;
    s->dt_out = 0.0;
    s->rtol = 1e-6;
    s->atol = 1e-8;
    s->h_max = INFINITY;
    s->max_order = 0; /* the method's largest */
    s->cascade_limit = 100;
    s->rel_abs_tol_ratio = 1.0;
    s->vel_tol_factor = 1000.0;     /* seed 002, Table 1 */
    s->dae_alg_tol_factor = 1000.0; /* seed 002, Table 1 */
    s->vel_ctrl = 1;
    s->interpolation = 1;
    s->dae_index = 3;
    s->zeno_events = 100;
    s->guard_samples = 3;
    s->max_steps = 50000000;
    int n_charts = m->n_charts, n_slots = m->n_slots > 0 ? m->n_slots : 1;
    int n_cols = m->n_columns > 0 ? m->n_columns : 1;
    int n_events = m->n_events > 0 ? m->n_events : 1;
    s->store = hy_malloc(sizeof(double) * (size_t)n_slots);
    s->active = hy_calloc((size_t)n_charts, sizeof(hydae_mode *));
    s->var_offset = hy_calloc((size_t)n_charts + 1, sizeof(int));
    s->guard_offset = hy_calloc((size_t)n_charts + 1, sizeof(int));
    s->row = hy_malloc(sizeof(double) * (size_t)n_cols);
    s->row_left = hy_malloc(sizeof(double) * (size_t)n_cols);
    s->prev_active = hy_calloc((size_t)n_charts, sizeof(hydae_mode *));
    s->prev_guard_offset = hy_calloc((size_t)n_charts + 1, sizeof(int));
    s->prev_var_offset = hy_calloc((size_t)n_charts + 1, sizeof(int));
    s->chart_fired = hy_calloc((size_t)n_charts, 1);
    s->mech_blocks = hy_calloc((size_t)n_charts + 1, sizeof *s->mech_blocks);
    s->event_active = hy_calloc((size_t)n_events, 1);
    s->event_waiting = hy_calloc((size_t)n_events, 1);
    if (!s->store || !s->active || !s->var_offset || !s->guard_offset || !s->row
        || !s->row_left || !s->event_active || !s->event_waiting || !s->prev_active
        || !s->prev_guard_offset || !s->prev_var_offset || !s->chart_fired || !s->mech_blocks) {
        hydae_sim_free(s);
        return create_nomem(m, status);
    }
    return s;
}

static void free_run_arrays(hydae_sim *s)
{
    hy_free(s->y);
    hy_free(s->yp);
    hy_free(s->y_work);
    hy_free(s->yp_work);
    hy_free(s->is_algebraic);
    hy_free(s->rtol_vec);
    hy_free(s->prev_y);
    hy_free(s->atol_vec);
    hy_free(s->err_exclude);
    hy_free(s->var_index);
    hy_free(s->init_rows);
    hy_free(s->res_work);
    hy_init_free(s);
    hy_free(s->init_unknowns);
    hy_free(s->init_component);
    hy_free(s->init_work);
    hy_free(s->g_start);
    hy_free(s->g_end);
    hy_free(s->g_work);
    hy_free(s->g_root);
    hy_free(s->g_slope_start);
    hy_free(s->g_slope_end);
    hy_free(s->g_probe);
    hy_free(s->g_sign);
    hy_free(s->g_crossed);
    hy_free(s->prev_sign);
    hy_free(s->prev_crossed);
    s->y = s->yp = s->y_work = s->yp_work = s->res_work = NULL;
    s->rtol_vec = s->atol_vec = s->prev_y = NULL;
    s->err_exclude = s->var_index = NULL;
    s->init_rows = NULL;
    s->init_work = s->g_start = s->g_end = s->g_work = s->g_root = NULL;
    s->g_slope_start = s->g_slope_end = s->g_probe = NULL;
    s->is_algebraic = NULL;
    s->init_unknowns = NULL;
    s->init_component = NULL;
    s->g_sign = s->g_crossed = s->prev_sign = s->prev_crossed = NULL;
    s->cap_n = s->cap_guards = 0;
}

void hydae_sim_free(hydae_sim *s)
{
    if (!s)
        return;
    for (int i = 0; i < s->n_sinks; i++)
        if (s->sinks[i].release)
            s->sinks[i].release(s->sinks[i].user);
    hy_free(s->sinks);
    if (s->integ)
        s->integ_method->destroy(s->integ);
    if (s->model)
        hy_mech_free_all(s);
    hy_free(s->mech_blocks);
    free_run_arrays(s);
    hy_free(s->jac_block);
    hy_free(s->jac_values);
    hy_pattern_unref(s->config_pattern);
    hy_free(s->out_work);
    hy_free(s->store);
    hy_free(s->active);
    hy_free(s->var_offset);
    hy_free(s->guard_offset);
    hy_free(s->row);
    hy_free(s->row_left);
    hy_free(s->event_active);
    hy_free(s->event_waiting);
    hy_free(s->prev_active);
    hy_free(s->prev_guard_offset);
    hy_free(s->prev_var_offset);
    hy_free(s->chart_fired);
    hy_free(s->fired_log);
    hy_free(s);
}

const char *hydae_sim_errmsg(const hydae_sim *s)
{
    return s ? s->errmsg : "no simulation";
}

void hy_sim_fail(hydae_sim *s, const char *fmt, ...)
{
    va_list args;
    va_start(args, fmt);
    vsnprintf(s->errmsg, sizeof s->errmsg, fmt, args);
    va_end(args);
}

void hydae_sim_interrupt(hydae_sim *s)
{
    if (s)
        s->interrupt_requested = 1;
}

int hy_sim_interrupted(hydae_sim *s, double t)
{
    hy_sim_fail(s, "interrupted at t = %.17g (a signal, or hydae_sim_interrupt); the rows "
                "up to there are complete", t);
    return HYDAE_INTERRUPTED;
}

#define HY_SETTING_ERROR(s, ...) (hy_sim_fail((s), __VA_ARGS__), HYDAE_ERR_ARG)

int hydae_sim_set_time(hydae_sim *s, double t0, double t_end)
{
    if (!s)
        return HYDAE_ERR_ARG;
    if (!isfinite(t0) || !isfinite(t_end) || !(t_end > t0))
        return HY_SETTING_ERROR(s, "t_end (%g) must be finite and greater than t0 (%g)",
                                t_end, t0);
    s->t0 = t0;
    s->t_end = t_end;
    return 0;
}

int hydae_sim_set_output_interval(hydae_sim *s, double dt)
{
    if (!s)
        return HYDAE_ERR_ARG;
    if (!(dt > 0.0) || !isfinite(dt))
        return HY_SETTING_ERROR(s, "output interval (%g) must be positive and finite", dt);
    s->dt_out = dt;
    return 0;
}

int hydae_sim_set_tolerances(hydae_sim *s, double rtol, double atol)
{
    if (!s)
        return HYDAE_ERR_ARG;
    if (!(rtol > 0.0) || !(rtol < 1.0))
        return HY_SETTING_ERROR(s, "rtol (%g) must be in (0, 1)", rtol);
    if (!(atol > 0.0) || !isfinite(atol))
        return HY_SETTING_ERROR(s, "atol (%g) must be positive and finite", atol);
    s->rtol = rtol;
    s->atol = atol;
    s->integr_tol = 0.0;
    return 0;
}

int hydae_sim_set_step_limits(hydae_sim *s, double h_min, double h_max, double h0)
{
    if (!s)
        return HYDAE_ERR_ARG;
    if (!(h_min >= 0.0) || !isfinite(h_min))
        return HY_SETTING_ERROR(s, "h_min (%g) must be >= 0 and finite", h_min);
    if (!(h_max > 0.0))
        return HY_SETTING_ERROR(s, "h_max (%g) must be positive", h_max);
    if (!(h_max >= h_min))
        return HY_SETTING_ERROR(s, "h_min (%g) is greater than h_max (%g): no step size "
                                "satisfies both", h_min, h_max);
    if (!(h0 >= 0.0) || !isfinite(h0))
        return HY_SETTING_ERROR(s, "h0 (%g) must be >= 0 (0: automatic)", h0);
    s->h_min = h_min;
    s->h_max = h_max;
    s->h0 = h0;
    return 0;
}

int hydae_sim_set_max_order(hydae_sim *s, int max_order)
{
    if (!s)
        return HYDAE_ERR_ARG;
    if (max_order < 1 || max_order > 12)
        return HY_SETTING_ERROR(s, "max_order (%d) must be 1 to 12 (BDF methods use at most 5)",
                                max_order);
    s->max_order = max_order;
    return 0;
}

int hydae_sim_set_integrator(hydae_sim *s, const char *name)
{
    if (!s)
        return HYDAE_ERR_ARG;
    const hy_integrator_ops *method = hy_integrator_find(name);
    if (!method) {
        char known[256] = "";
        size_t used = 0;
        for (int i = 0; hy_integrators[i] && used < sizeof known; i++)
            used += (size_t)snprintf(known + used, sizeof known - used, "%s%s", i ? ", " : "",
                                     hy_integrators[i]->name);
        return HY_SETTING_ERROR(s, "no integrator '%s' (available: %s)", name ? name : "(null)",
                                known);
    }
    if (s->integ && method != s->integ_method) {
        s->integ_method->destroy(s->integ);
        s->integ = NULL;
    }
    s->method = method;
    return 0;
}

int hydae_sim_set_cascade_limit(hydae_sim *s, int limit)
{
    if (!s)
        return HYDAE_ERR_ARG;
    if (limit < 1)
        return HY_SETTING_ERROR(s, "cascade limit (%d) must be at least 1", limit);
    s->cascade_limit = limit;
    return 0;
}

int hydae_sim_set_output_steps(hydae_sim *s, int every_step)
{
    if (!s || (every_step != 0 && every_step != 1))
        return HYDAE_ERR_ARG;
    s->output_steps = every_step;
    return 0;
}

int hydae_sim_set_max_steps(hydae_sim *s, long max_steps)
{
    if (!s)
        return HYDAE_ERR_ARG;
    if (max_steps < 1)
        return HY_SETTING_ERROR(s, "max_steps (%ld) must be at least 1", max_steps);
    s->max_steps = max_steps;
    return 0;
}

static int add_sink(hydae_sim *s, const hy_sink *sink)
{
    if (hy_reserve((void **)&s->sinks, &s->cap_sinks, s->n_sinks + 1, sizeof(hy_sink)))
        return HYDAE_ERR_NOMEM;
    s->sinks[s->n_sinks++] = *sink;
    return 0;
}

int hydae_sim_add_row_sink(hydae_sim *s, hydae_row_fn fn, void *user)
{
    if (!s || !fn)
        return HYDAE_ERR_ARG;
    hy_sink sink = { NULL, fn, NULL, NULL, user, 0 };
    if (add_sink(s, &sink)) {
        hy_sim_fail(s, "out of memory adding a row sink");
        return HYDAE_ERR_NOMEM;
    }
    return 0;
}

int hydae_sim_add_csv(hydae_sim *s, FILE *out)
{
    return hydae_sim_add_csv_vars(s, out, NULL, 0);
}

double hydae_sim_time(const hydae_sim *s)
{
    return s ? s->t : NAN;
}

const char *hydae_sim_mode_name(const hydae_sim *s, int chart)
{
    if (!s || chart < 0 || chart >= s->model->n_charts || !s->active[chart])
        return NULL;
    return s->active[chart]->name;
}

/* ---- the configuration's DAE ---- */

double hy_event_group_tol(double t)
{
    return 8.0 * (nextafter(fabs(t), INFINITY) - fabs(t));
}

const char *hy_component_name(const hydae_sim *s, int i, const hydae_mode **mode)
{
    const hydae_model *m = s->model;
    for (int c = 0; c < m->n_charts; c++) {
        int off = s->var_offset[c];
        if (i >= off && i < s->var_offset[c + 1]) {
            if (mode)
                *mode = s->active[c];
            if (s->mech_blocks[c])
                return hy_mech_component_name(s, c, i - off);
            return s->active[c]->vars[i - off].name;
        }
    }
    if (mode)
        *mode = NULL;
    return "?";
}

int hy_config_residual(double t, const double *y, const double *yp, double *res, void *ctx)
{
    hydae_sim *s = ctx;
    const double *p = s->store;
    for (int c = 0; c < s->model->n_charts; c++) {
        const hydae_mode *mode = s->active[c];
        int off = s->var_offset[c], n_vars = s->var_offset[c + 1] - off;
        if (n_vars == 0)
            continue;
        int status;
        if (s->mech_blocks[c]) {
            status = hy_mech_residual(s, c, t, y + off, yp + off, res + off);
        } else if (mode->residual) {
            status = mode->residual(t, y + off, yp + off, p, res + off, mode->user);
        } else {
            status = mode->rhs(t, y + off, p, res + off, mode->user);
            for (int i = 0; i < n_vars; i++)
                res[off + i] = yp[off + i] - res[off + i];
        }
        if (status != 0) {
            s->bad_chart = c;
            s->bad_equation = -1;
            s->bad_t = t;
            s->bad_is_nan = 0;
            return status;
        }
        for (int i = 0; i < n_vars; i++)
            if (!isfinite(res[off + i])) {
                s->bad_chart = c;
                s->bad_equation = i;
                s->bad_t = t;
                s->bad_is_nan = 1;
                return 1;
            }
    }
    return 0;
}

/* y' = f(t, y) of the configuration, when every active mode with unknowns
** is an explicit ODE. */
static int config_rhs(double t, const double *y, double *ydot, void *ctx)
{
    hydae_sim *s = ctx;
    for (int c = 0; c < s->model->n_charts; c++) {
        const hydae_mode *mode = s->active[c];
        int off = s->var_offset[c], n_block = s->var_offset[c + 1] - off;
        if (n_block == 0)
            continue;
        int status = s->mech_blocks[c] ? hy_mech_rhs(s, c, t, y + off, ydot + off)
                                       : mode->rhs(t, y + off, s->store, ydot + off, mode->user);
        if (status != 0) {
            s->bad_chart = c;
            s->bad_equation = -1;
            s->bad_t = t;
            s->bad_is_nan = 0;
            return status;
        }
        for (int i = 0; i < n_block; i++)
            if (!isfinite(ydot[off + i])) {
                s->bad_chart = c;
                s->bad_equation = i;
                s->bad_t = t;
                s->bad_is_nan = 1;
                return 1;
            }
    }
    return 0;
}

/* The first active mode with unknowns written as a residual, or NULL. */
static const hydae_mode *first_implicit_mode(const hydae_sim *s)
{
    for (int c = 0; c < s->model->n_charts; c++)
        if (s->active[c]->n_vars > 0 && !s->active[c]->rhs && !hy_mech_is_explicit(s, c))
            return s->active[c];
    return NULL;
}

/* Room for n_rows * n_cols doubles in *p (at least one); -1 when out of
** memory or when the size does not fit in a size_t. */
static int grow_doubles2(double **p, size_t n_rows, size_t n_cols)
{
    size_t bytes;
    if (hy_mul3_size(n_rows, n_cols, sizeof(double), &bytes))
        return -1;
    double *grown = hy_realloc(*p, bytes > 0 ? bytes : sizeof(double));
    if (!grown)
        return -1;
    *p = grown;
    return 0;
}

static int grow_doubles(double **p, int n)
{
    return grow_doubles2(p, (size_t)(n > 0 ? n : 0), 1);
}

/* Size the work arrays for the current configuration. */
static int reserve_config(hydae_sim *s)
{
    int n = s->n, ng = s->n_guards;
    if (n > s->cap_n || !s->y) {
        double **vecs[] = { &s->y, &s->yp, &s->y_work, &s->yp_work, &s->res_work,
                            &s->rtol_vec, &s->atol_vec, &s->prev_y };
        for (size_t i = 0; i < sizeof vecs / sizeof vecs[0]; i++)
            if (grow_doubles(vecs[i], n))
                return HYDAE_ERR_NOMEM;
        if (grow_doubles2(&s->init_work, (size_t)n, 6))
            return HYDAE_ERR_NOMEM;
        size_t n_alloc = (size_t)(n > 0 ? n : 1);
        double **unknowns = hy_realloc(s->init_unknowns, sizeof(double *) * 2 * n_alloc);
        if (unknowns)
            s->init_unknowns = unknowns;
        int *component = hy_realloc(s->init_component, sizeof(int) * 2 * n_alloc);
        if (component)
            s->init_component = component;
        if (!unknowns || !component)
            return HYDAE_ERR_NOMEM;
        unsigned char *alg = hy_realloc(s->is_algebraic, n_alloc);
        if (alg)
            s->is_algebraic = alg;
        unsigned char *exclude = hy_realloc(s->err_exclude, n_alloc);
        if (exclude)
            s->err_exclude = exclude;
        unsigned char *index = hy_realloc(s->var_index, n_alloc);
        if (index)
            s->var_index = index;
        int *rows = hy_realloc(s->init_rows, sizeof(int) * n_alloc);
        if (rows)
            s->init_rows = rows;
        if (!alg || !exclude || !index || !rows)
            return HYDAE_ERR_NOMEM;
        s->cap_n = n;
    }
    if (ng > s->cap_guards || !s->g_sign) {
        if (grow_doubles(&s->g_start, ng) || grow_doubles(&s->g_end, ng)
            || grow_doubles(&s->g_work, ng) || grow_doubles(&s->g_root, ng)
            || grow_doubles(&s->g_slope_start, ng) || grow_doubles(&s->g_slope_end, ng)
            || grow_doubles(&s->g_probe, ng))
            return HYDAE_ERR_NOMEM;
        size_t ng_alloc = (size_t)(ng > 0 ? ng : 1);
        signed char *sign = hy_realloc(s->g_sign, ng_alloc);
        if (sign)
            s->g_sign = sign;
        signed char *crossed = hy_realloc(s->g_crossed, ng_alloc);
        if (crossed)
            s->g_crossed = crossed;
        signed char *prev_sign = hy_realloc(s->prev_sign, ng_alloc);
        if (prev_sign)
            s->prev_sign = prev_sign;
        signed char *prev_crossed = hy_realloc(s->prev_crossed, ng_alloc);
        if (prev_crossed)
            s->prev_crossed = prev_crossed;
        if (!sign || !crossed || !prev_sign || !prev_crossed)
            return HYDAE_ERR_NOMEM;
        s->cap_guards = ng;
    }
    size_t max_block = 0, max_sparse = 0;
    int max_out = 0;
    for (int c = 0; c < s->model->n_charts; c++) {
        const hydae_mode *mode = s->active[c];
        if (mode->jacobian && (size_t)mode->n_vars > max_block)
            max_block = (size_t)mode->n_vars; /* a dense Jacobian of its own */
        size_t sparse_values = mode->sparse_jacobian && mode->pattern
                                   ? mode->pattern_user_nnz
                                         + (mode->pattern_map ? mode->pattern->nnz : 0)
                                   : 0; /* what sparse_block (jacobian.c) needs */
        if (sparse_values > max_sparse)
            max_sparse = sparse_values;
        if (mode->n_outputs > max_out)
            max_out = mode->n_outputs;
    }
    size_t block_values, block_bytes;
    if (hy_mul_size(max_block, max_block, &block_values)
        || hy_mul_size(block_values, sizeof(double), &block_bytes))
        return HYDAE_ERR_NOMEM;
    if (block_values > s->cap_jac_block) {
        double *grown = hy_realloc(s->jac_block, block_bytes);
        if (!grown)
            return HYDAE_ERR_NOMEM;
        s->jac_block = grown;
        s->cap_jac_block = block_values;
    }
    if (max_sparse > s->cap_jac_values) {
        double *grown = hy_alloc_array(max_sparse, sizeof(double));
        if (!grown)
            return HYDAE_ERR_NOMEM;
        hy_free(s->jac_values);
        s->jac_values = grown;
        s->cap_jac_values = max_sparse;
    }
    if (max_out > s->cap_out_work) {
        if (grow_doubles(&s->out_work, max_out))
            return HYDAE_ERR_NOMEM;
        s->cap_out_work = max_out;
    }
    return 0;
}

double hy_base_atol(const hydae_sim *s)
{
    return s->integr_tol > 0.0 ? s->integr_tol : s->atol;
}

/* Tolerances of component i: the variable's own if set; else rtol/atol; or,
** when integr_tol is set, RTOL = rel_abs_tol_ratio integr_tol scale and
** ATOL = integr_tol scale with scale 1 for positions and differential
** states, vel_tol_factor for velocities, dae_alg_tol_factor for algebraic
** states and multipliers (seed 002, Table 1). */
void hy_set_component_tolerances(hydae_sim *s, const hy_var *var, int i)
{
    double rtol = s->rtol, atol = s->atol;
    if (s->integr_tol > 0.0) {
        double scale = var->kind == HYDAE_VELOCITY       ? s->vel_tol_factor
                       : hy_var_is_algebraic(var->kind) ? s->dae_alg_tol_factor
                                                        : 1.0;
        rtol = s->rel_abs_tol_ratio * s->integr_tol * scale;
        atol = s->integr_tol * scale;
    }
    s->rtol_vec[i] = var->rtol > 0.0 ? var->rtol : rtol;
    s->atol_vec[i] = var->atol > 0.0 ? var->atol : atol;
    s->err_exclude[i] = (unsigned char)(var->kind == HYDAE_VELOCITY && !s->vel_ctrl);
}

/* Lay out the active configuration and load y from the store by name (a
** variable with no value there takes its start value). Slots of names that
** are not in the configuration are cleared to NaN afterwards. */
static const hy_integrator_ops *configuration_method(const hydae_sim *s);

static int build_config(hydae_sim *s)
{
    const hydae_model *m = s->model;
    const hy_integrator_ops *method = configuration_method(s);
    int status = hy_check_dense_size(s, method);
    if (status)
        return status;
    int n = 0, ng = 0;
    for (int c = 0; c < m->n_charts; c++) {
        const hydae_mode *mode = s->active[c];
        s->var_offset[c] = n;
        s->guard_offset[c] = ng;
        n += mode->is_mechanical ? hy_mech_size(s, mode, method) : mode->n_vars;
        ng += mode->n_guards;
    }
    s->var_offset[m->n_charts] = n;
    s->guard_offset[m->n_charts] = ng;
    s->n = n;
    s->n_guards = ng;
    status = reserve_config(s);
    if (status)
        return status;
    s->has_var_index = 0;
    s->n_init = 0;
    for (int c = 0; c < m->n_charts; c++) {
        const hydae_mode *mode = s->active[c];
        if (mode->is_mechanical) {
            status = hy_mech_enter(s, c, method);
            if (status)
                return status;
            s->has_var_index |= !hy_mech_is_explicit(s, c);
            continue;
        }
        hy_mech_leave(s, c);
        for (int i = 0; i < mode->n_vars; i++) {
            s->var_index[s->var_offset[c] + i] = 1;
            s->init_rows[s->n_init++] = s->var_offset[c] + i;
            double v = s->store[mode->vars[i].slot];
            s->y[s->var_offset[c] + i] = isnan(v) ? mode->vars[i].start : v;
            s->yp[s->var_offset[c] + i] = 0.0;
            s->is_algebraic[s->var_offset[c] + i] = (unsigned char)hy_var_is_algebraic(
                mode->vars[i].kind);
            hy_set_component_tolerances(s, &mode->vars[i], s->var_offset[c] + i);
        }
    }
    for (int i = m->n_globals; i < m->n_slots; i++)
        s->store[i] = NAN;
    return hy_config_build_pattern(s);
}

int hy_store_state(hydae_sim *s, double t, const double *y, const double *yp)
{
    const hydae_model *m = s->model;
    for (int c = 0; c < m->n_charts; c++) {
        const hydae_mode *mode = s->active[c];
        int off = s->var_offset[c];
        const double *y_mode = y + off, *yp_mode = yp + off;
        if (s->mech_blocks[c]) {
            int status = hy_mech_expand(s, c, t, y + off, yp + off, &y_mode, &yp_mode);
            if (status)
                return status;
        }
        for (int i = 0; i < mode->n_vars; i++)
            s->store[mode->vars[i].slot] = y_mode[i];
        if (mode->n_outputs == 0)
            continue;
        int status = mode->outputs(t, y_mode, yp_mode, s->store, s->out_work, mode->user);
        if (status != 0) {
            hy_sim_fail(s, "output equations of mode '%s' failed (status %d) at t = %.17g",
                        mode->name, status, t);
            return HYDAE_ERR_CALLBACK;
        }
        for (int o = 0; o < mode->n_outputs; o++)
            s->store[mode->out_vars[o].slot] = s->out_work[o];
    }
    return 0;
}

/* ---- result rows ---- */

static void gather_row(const hydae_sim *s, double *row)
{
    const hydae_model *m = s->model;
    for (int c = 0; c < m->n_columns; c++)
        row[c] = s->store[m->column_slot[c]];
}

static int send_row(hydae_sim *s, hydae_row_kind kind, double t, const double *row)
{
    for (int i = 0; i < s->n_sinks; i++) {
        int failed = s->sinks[i].row(s->sinks[i].user, kind, t, row);
        if (failed == HYDAE_ERR_NOMEM && s->sinks[i].writes_file) {
            hy_sim_fail(s, "out of memory keeping the results at t = %.17g", t);
            return HYDAE_ERR_NOMEM;
        }
        if (failed) {
            if (s->sinks[i].writes_file) {
                hy_sim_fail(s, "writing the results failed at t = %.17g", t);
                return HYDAE_ERR_IO;
            }
            hy_sim_fail(s, "a result sink stopped the run at t = %.17g", t);
            return HYDAE_ERR_CALLBACK;
        }
    }
    return 0;
}

static int emit_state_row(hydae_sim *s, hydae_row_kind kind, double t, const double *y,
                          const double *yp)
{
    int status = hy_store_state(s, t, y, yp);
    if (status)
        return status;
    gather_row(s, s->row);
    return send_row(s, kind, t, s->row);
}

static double grid_time(const hydae_sim *s, long k)
{
    return k >= s->n_out ? s->t_end : s->t0 + (double)k * s->dt_grid;
}

/* Grid rows with t_grid < t_limit (or <= t_limit when inclusive) from the
** last step's dense output. */
static int emit_grid_until(hydae_sim *s, double t_limit, int inclusive)
{
    while (s->k_out <= s->n_out) {
        double tg = grid_time(s, s->k_out);
        if (inclusive ? tg > t_limit : tg >= t_limit)
            break;
        int status = hy_interpolate(s, tg, s->y_work, s->yp_work);
        if (status)
            return status;
        status = emit_state_row(s, HYDAE_ROW_GRID, tg, s->y_work, s->yp_work);
        if (status)
            return status;
        s->k_out++;
    }
    return 0;
}

/* Grid rows that fall on the current time, from the current state. */
static int emit_grid_at_current(hydae_sim *s)
{
    while (s->k_out <= s->n_out && grid_time(s, s->k_out) <= s->t + hy_time_tol(s->t)) {
        int status = emit_state_row(s, HYDAE_ROW_GRID, s->t, s->y, s->yp);
        if (status)
            return status;
        s->k_out++;
    }
    return 0;
}

/* ---- integrator management ---- */

static void accumulate_stats(hy_stats *into, const hy_stats *from)
{
    into->n_steps += from->n_steps;
    into->n_err_fails += from->n_err_fails;
    into->n_conv_fails += from->n_conv_fails;
    into->n_res_evals += from->n_res_evals;
    into->n_jac_evals += from->n_jac_evals;
    into->n_lu += from->n_lu;
    into->n_newton_iters += from->n_newton_iters;
}

static void current_integ_stats(const hydae_sim *s, hy_stats *out)
{
    *out = s->integ_base;
    if (s->integ) {
        hy_stats now;
        s->integ_method->get_stats(s->integ, &now);
        accumulate_stats(out, &now);
        out->h_last = now.h_last;
        out->order_last = now.order_last;
    }
}

static hy_dae config_dae(hydae_sim *s)
{
    hy_dae dae;
    dae.n = s->n;
    dae.res = hy_config_residual;
    dae.jac = NULL;
    dae.jac_matrix = hy_config_has_jacobian(s) ? hy_config_jacobian : NULL;
    dae.pattern = s->config_pattern;
    dae.ctx = s;
    dae.is_algebraic = s->is_algebraic;
    dae.rhs = first_implicit_mode(s) ? NULL : config_rhs;
    return dae;
}

/* --debug-newton: one line per corrector iteration (seed 002's
** DebugOutput). */
static void print_newton_iteration(void *ctx, const hy_newton_info *info)
{
    const hydae_sim *s = ctx;
    fprintf(s->newton_debug, "newton t=%.10g h=%.4g order=%d iter=%d |dy|=%.4g rate=%.4g "
            "jacobian=%s%s\n", info->t, info->h, info->order, info->iteration,
            info->update_norm, info->rate, info->jacobian_refreshed ? "new" : "reused",
            info->converged ? " converged" : "");
}

int hydae_sim_set_debug_newton(hydae_sim *s, FILE *out)
{
    if (!s)
        return HYDAE_ERR_ARG;
    s->newton_debug = out;
    return 0;
}

/* The method for the active configuration: the one its modes prefer
** (hydae_mode_set_integrator), if they agree, else the run's. */
static const hy_integrator_ops *configuration_method(const hydae_sim *s)
{
    const hy_integrator_ops *chosen = NULL;
    for (int c = 0; c < s->model->n_charts; c++) {
        const hydae_mode *mode = s->active[c];
        if (mode->n_vars == 0 || !mode->integrator)
            continue;
        if (chosen && chosen != mode->integrator)
            return s->method; /* the modes disagree: the run's choice */
        chosen = mode->integrator;
    }
    return chosen ? chosen : s->method;
}

/* Why the integrator refused to start: a value that is not finite, by
** name, else the settings it was given. */
static void start_failure(hydae_sim *s, int status)
{
    for (int i = 0; i < s->n; i++)
        if (!isfinite(s->y[i]) || !isfinite(s->yp[i])) {
            const hydae_mode *mode = NULL;
            const char *name = hy_component_name(s, i, &mode);
            hy_sim_fail(s, "%s could not start at t = %.17g: %s'%s' of mode '%s' is not finite",
                        s->integ_method->name, s->t, isfinite(s->y[i]) ? "the derivative of " : "",
                        name, mode ? mode->name : "?");
            return;
        }
    hy_sim_fail(s, "%s could not start at t = %.17g (status %d): it refused the tolerances or "
                "step limits", s->integ_method->name, s->t, status);
}

/* 1 if the configuration has unknowns and none of them is differential
** (and no mechanical block): there is nothing to integrate, and
** hy_algebraic solves F(t, y) = 0 wherever a value is needed. */
static int configuration_is_algebraic(const hydae_sim *s)
{
    if (s->n == 0)
        return 0;
    for (int c = 0; c < s->model->n_charts; c++)
        if (s->mech_blocks[c])
            return 0;
    for (int i = 0; i < s->n; i++)
        if (!s->is_algebraic[i])
            return 0;
    return 1;
}

static int restart_integrator(hydae_sim *s)
{
    s->stats.n_restarts++;
    s->integ_started = 0;
    if (s->n == 0)
        return 0;
    int algebraic = configuration_is_algebraic(s);
    const hy_integrator_ops *method = algebraic ? &hy_algebraic : configuration_method(s);
    const hydae_mode *implicit = first_implicit_mode(s);
    if (method->needs_rhs && implicit) {
        hy_sim_fail(s, "%s solves explicit ODEs y' = f(t, y) only, but mode '%s' is written "
                    "as a residual F(t, y, y') = 0 (at t = %.17g); use DSTIFF for it",
                    method->name, implicit->name, s->t);
        return HYDAE_ERR_ARG;
    }
    if (method->fixed_step && !isfinite(s->h_max)) {
        hy_sim_fail(s, "%s takes fixed steps of length h_max: set h_max", method->name);
        return HYDAE_ERR_ARG;
    }
    hy_ls_kind ls_kind;
    char why[256];
    if (method->uses_matrix && hy_linsol_choose((hy_ls_kind)s->linear_solver, (size_t)s->n,
                                                s->config_pattern, &ls_kind, why, sizeof why)) {
        hy_sim_fail(s, "%s cannot solve the configuration of mode '%s' at t = %.17g: %s",
                    method->name, s->active[0]->name, s->t, why);
        return HYDAE_ERR_ARG;
    }
    if (s->integ && (s->integ_n != s->n || s->integ_method != method)) {
        hy_stats old;
        s->integ_method->get_stats(s->integ, &old);
        accumulate_stats(&s->integ_base, &old);
        s->integ_method->destroy(s->integ);
        s->integ = NULL;
    }
    if (!s->integ) {
        s->integ = method->create(s->n);
        if (!s->integ)
            return HYDAE_ERR_NOMEM;
        s->integ_n = s->n;
        s->integ_method = method;
    }
    hy_options opt;
    memset(&opt, 0, sizeof opt);
    opt.rtol = s->rtol;
    opt.atol = s->atol;
    opt.rtol_vec = s->rtol_vec;
    opt.atol_vec = s->atol_vec;
    opt.err_test_exclude = s->err_exclude;
    opt.h0_max = s->h0_max;
    opt.corrector_maxit = s->corrector_maxit;
    opt.corrector_minit = s->corrector_minit;
    opt.constr_tol = s->constr_tol;
    opt.jacob_eval = s->jacob_eval;
    opt.jacob_init = s->jacob_init;
    opt.eval_expiry = s->eval_expiry;
    opt.var_index = s->has_var_index ? s->var_index : NULL;
    opt.linear_solver = s->linear_solver;
    if (s->newton_debug) {
        opt.newton_debug = print_newton_iteration;
        opt.debug_ctx = s;
    }
    opt.h0 = s->h0;
    /* With dt_min, a step below it is a jump to restart over (see run). */
    opt.h_min = fmax(s->h_min, s->dt_min);
    opt.h_max = s->h_max;
    opt.max_order = s->max_order;
    hy_dae dae = config_dae(s);
    int status = s->integ_method->init(s->integ, &dae, s->t, s->y, s->yp, &opt);
    if (status == HYDAE_ERR_NOMEM) {
        hy_sim_fail(s, "%s could not start at t = %.17g: out of memory", s->integ_method->name,
                    s->t);
        return HYDAE_ERR_NOMEM;
    }
    if (status) {
        start_failure(s, status);
        return HYDAE_ERR_ARG;
    }
    return 0;
}

/* A message for an integrator failure: time, step, order, mode and the
** worst variable by name. */
static int integrator_failure(hydae_sim *s, int code)
{
    static const struct { int status; const char *what; } table[] = {
        { HYDAE_ERR_NOMEM, "out of memory" },
        { HYDAE_ERR_RESIDUAL, "the residual could not be evaluated" },
        { HYDAE_ERR_CONV, "the corrector failed to converge repeatedly" },
        { HYDAE_ERR_ERRTEST, "the local error test failed repeatedly" },
        { HYDAE_ERR_HMIN, "the step size fell below its minimum" },
        { HYDAE_ERR_SINGULAR, "the iteration matrix is singular" },
        { HYDAE_ERR_JACOBIAN, "the Jacobian function failed" },
    };
    int status = HYDAE_ERR_CONV;
    const char *what = "unknown failure";
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
        if (table[i].status == code) {
            status = code;
            what = table[i].what;
        }
    hy_stats st;
    current_integ_stats(s, &st);
    char detail[512] = "";
    if (s->bad_chart >= 0) {
        const hydae_mode *mode = s->active[s->bad_chart];
        if (s->bad_is_nan)
            hy_format(detail, sizeof detail,
                      "; residual equation %d of mode '%s' (paired with variable '%s') was "
                      "not finite at t = %.17g", s->bad_equation, mode->name,
                      hy_component_name(s, s->var_offset[s->bad_chart] + s->bad_equation, NULL),
                      s->bad_t);
        else
            hy_format(detail, sizeof detail, "; the residual of mode '%s' returned an error "
                      "at t = %.17g", mode->name, s->bad_t);
        if (s->bad_is_nan)
            status = HYDAE_ERR_RESIDUAL;
    } else {
        int worst = s->integ_method->worst_component(s->integ);
        if (worst >= 0 && code == HYDAE_ERR_SINGULAR) {
            const hydae_mode *mode = NULL;
            const char *name = hy_component_name(s, worst, &mode);
            hy_format(detail, sizeof detail, "; no pivot in the column of variable '%s' of "
                      "mode '%s': it depends linearly on the others (two equations say the "
                      "same, or the DAE has index higher than 1)", name, mode ? mode->name : "?");
        } else if (worst >= 0) {
            const hydae_mode *mode = NULL;
            const char *name = hy_component_name(s, worst, &mode);
            hy_format(detail, sizeof detail, "; worst variable '%s' of mode '%s' (= %.10g at "
                      "the last accepted step)", name, mode ? mode->name : "?", s->y[worst]);
        }
    }
    char modes[256] = "";
    size_t used = 0;
    for (int c = 0; c < s->model->n_charts && used < sizeof modes; c++)
        used += (size_t)snprintf(modes + used, sizeof modes - used, "%s'%s'", c ? ", " : "",
                                 s->active[c]->name);
    hy_sim_fail(s, "%s failed at t = %.17g (h = %.3g, order %d) in mode %s: %s%s",
                s->integ_method->name, s->t, st.h_last, st.order_last, modes, what, detail);
    return status;
}

/* ---- the run ---- */

static int begin_sinks(hydae_sim *s)
{
    for (int i = 0; i < s->n_sinks; i++)
        if (s->sinks[i].begin && s->sinks[i].begin(s->sinks[i].user, s->model) != 0) {
            hy_sim_fail(s, "could not write the results header");
            return HYDAE_ERR_IO;
        }
    return 0;
}

/* Let every sink complete its output; a failed write turns a successful
** run into HYDAE_ERR_IO. */
static int finish_sinks(hydae_sim *s, int status)
{
    int failed = 0;
    for (int i = 0; i < s->n_sinks; i++)
        if (s->sinks[i].finish && s->sinks[i].finish(s->sinks[i].user, status, s->t, s->errmsg))
            failed = 1;
    if (failed && status == 0) {
        hy_sim_fail(s, "writing the results failed after the run reached t = %.17g", s->t);
        return HYDAE_ERR_IO;
    }
    return status;
}

/* After transitions fired at s->t: snapshot the left limit, rebuild the
** configuration, find consistent values, emit both rows, restart. */
static int settle_after_event(hydae_sim *s, const double *left_row, int config_changed)
{
    if (config_changed)
        s->stats.n_mode_switches++;
    int status = send_row(s, HYDAE_ROW_EVENT_LEFT, s->t, left_row);
    if (status)
        return status;
    status = build_config(s);
    if (status)
        return status;
    status = hy_consistent_init(s, s->t, 0);
    if (status)
        return status;
    status = emit_state_row(s, HYDAE_ROW_EVENT_RIGHT, s->t, s->y, s->yp);
    if (status)
        return status;
    status = emit_grid_at_current(s);
    if (status)
        return status;
    status = restart_integrator(s);
    if (status)
        return status;
    return hy_guards_arm(s);
}

/* Discrete phase at s->t with the state (s->y, s->yp) as left limit. The
** layout and guard signs before it are kept for re-arming (events.c). */
static int event_instant(hydae_sim *s, int *n_fired)
{
    const hydae_model *m = s->model;
    int status = hy_store_state(s, s->t, s->y, s->yp);
    if (status)
        return status;
    gather_row(s, s->row_left);
    memcpy(s->prev_active, s->active, sizeof(hydae_mode *) * (size_t)m->n_charts);
    memcpy(s->prev_guard_offset, s->guard_offset, sizeof(int) * ((size_t)m->n_charts + 1));
    memcpy(s->prev_var_offset, s->var_offset, sizeof(int) * ((size_t)m->n_charts + 1));
    if (s->n > 0)
        memcpy(s->prev_y, s->y, sizeof(double) * (size_t)s->n);
    memcpy(s->prev_sign, s->g_sign, (size_t)s->n_guards);
    memcpy(s->prev_crossed, s->g_crossed, (size_t)s->n_guards);
    s->have_prev = s->guards_armed;
    memset(s->chart_fired, 0, (size_t)m->n_charts);
    status = hy_discrete_phase(s, s->t, n_fired);
    if (status || *n_fired == 0)
        return status;
    int changed = 0;
    for (int c = 0; c < m->n_charts; c++)
        changed |= s->active[c] != s->prev_active[c];
    s->stats.n_events++;
    return settle_after_event(s, s->row_left, changed);
}

static int setup_grid(hydae_sim *s)
{
    if (!isfinite(s->t0) || !isfinite(s->t_end) || !(s->t_end > s->t0)) {
        hy_sim_fail(s, "t_end (%g) must be finite and greater than t0 (%g)", s->t_end, s->t0);
        return HYDAE_ERR_ARG;
    }
    s->dt_grid = s->dt_out > 0.0 ? s->dt_out : (s->t_end - s->t0) / 500.0;
    double n_intervals = ceil((s->t_end - s->t0) / s->dt_grid - 1e-9);
    if (!(n_intervals <= 1e9)) {
        hy_sim_fail(s, "the output interval %g over [%g, %g] asks for %.3g rows; at most 1e9",
                    s->dt_grid, s->t0, s->t_end, n_intervals);
        return HYDAE_ERR_ARG;
    }
    s->n_out = n_intervals < 1.0 || s->output_steps ? 1 : (long)n_intervals;
    s->k_out = 0;
    return 0;
}

/* The model's initial action at t0; a start value set by
** hydae_model_set_start (--set) that the action then replaces (an initial
** mode's entry action assigning it) would be ignored without a word: that
** is an error naming it. */
static int initial_action_keeping_set_starts(hydae_sim *s)
{
    const hydae_model *m = s->model;
    int status = hy_initial_action(s, s->t);
    for (int c = 0; c < m->n_charts && !status; c++) {
        const hydae_mode *mode = s->active[c];
        for (int i = 0; i < mode->n_vars; i++) {
            const hy_var *var = &mode->vars[i];
            double now = s->store[var->slot];
            if (!var->start_set || now == s->y[s->var_offset[c] + i] || s->mech_blocks[c])
                continue;
            hy_sim_fail(s, "the start value %.17g set for '%s' of mode '%s' is replaced at "
                        "t0 by the model's initial action (now %.17g: the mode's entry "
                        "actions assign it)", var->start, var->name, mode->name, now);
            return HYDAE_ERR_ARG;
        }
    }
    return status;
}

static int start_run(hydae_sim *s)
{
    const hydae_model *m = s->model;
    s->t = s->t0;
    s->bad_chart = -1;
    s->n_fired_log = 0;
    s->guards_armed = 0;
    s->have_prev = 0;
    s->t_time_instant = -INFINITY;
    memset(&s->integ_base, 0, sizeof s->integ_base);
    if (s->integ) {
        s->integ_method->destroy(s->integ);
        s->integ = NULL;
    }
    for (int i = 0; i < m->n_globals; i++)
        s->store[i] = m->globals[i].value;
    for (int i = m->n_globals; i < m->n_slots; i++)
        s->store[i] = NAN;
    for (int c = 0; c < m->n_charts; c++)
        s->active[c] = m->charts[c]->initial;
    int status = setup_grid(s);
    if (!status)
        status = hy_check_sample_periods(s);
    if (!status)
        status = begin_sinks(s);
    if (!status)
        status = build_config(s);
    if (!status && m->initial_action) {
        /* The initial action sees the start values and the parameters as
        ** they are now (after hydae_model_set_param); what it sets is the
        ** start of the run. */
        for (int i = 0; i < s->n; i++)
            s->yp[i] = 0.0;
        status = hy_store_state(s, s->t, s->y, s->yp);
        if (!status)
            status = initial_action_keeping_set_starts(s);
        if (!status)
            status = build_config(s);
    }
    if (!status)
        status = hy_consistent_init(s, s->t, 1);
    if (status)
        return status;
    status = hy_guards_mark_at_start(s);
    if (status)
        return status;
    int n_fired = 0;
    status = event_instant(s, &n_fired);
    if (status || n_fired > 0)
        return status;
    status = emit_grid_at_current(s);
    if (!status)
        status = restart_integrator(s);
    if (!status)
        status = hy_guards_arm(s);
    return status;
}

/* Zeno policy "rest": chart c goes to its resting mode now, values moving
** by name as on a transition. */
static int enter_resting_mode(hydae_sim *s, int c)
{
    int status = hy_store_state(s, s->t, s->y, s->yp);
    if (status)
        return status;
    gather_row(s, s->row_left);
    s->active[c] = s->model->charts[c]->resting;
    s->have_prev = 0;
    s->stats.n_zeno_rests++;
    s->stats.n_events++;
    return settle_after_event(s, s->row_left, 1);
}

/* Chattering and Zeno behaviour (chatter.c). Policy "stop" (default) ends
** the run with a message; "rest" sends the chart of the last transition to
** its resting mode. */
static int check_accumulation(hydae_sim *s)
{
    const hydae_transition *last = s->n_fired_log > 0 ? s->fired_log[s->n_fired_log - 1] : NULL;
    hy_chatter_kind kind = hy_chatter_note(s, s->event_from_band,
                                           s->n_fired_log > 0 ? s->fired_log[0] : NULL);
    if (kind == HY_CHATTER_NONE)
        return 0;
    if (kind == HY_CHATTER_PINGPONG)
        return hy_chatter_pingpong_failure(s);
    const hydae_chart *chart = last ? last->chart : NULL;
    if (s->zeno_rest && chart && chart->resting && s->active[chart->index] != chart->resting) {
        hy_chatter_reset(&s->chatter);
        return enter_resting_mode(s, chart->index);
    }
    hy_sim_fail(s, "events accumulate at t = %.17g (chattering or Zeno behaviour: %s); the "
                "last transition fired was '%s' of chart '%s'%s", s->t,
                s->chatter.n_in_window > s->zeno_events ? "too many event instants within the "
                "zeno_window" : "the gaps between event instants shrink geometrically towards "
                "this point", last ? last->name : "?", chart ? chart->name : "?",
                s->zeno_rest && chart && !chart->resting ? ", which declares no resting mode"
                                                         : "");
    return HYDAE_ERR_ZENO;
}

/* A jump of a variable that is not an event variable (Enge-Rosenblatt et
** al., sec. 4.3): the step would have to shrink below dt_min, so restart
** at t + dt_min with the differential states held and new consistent
** values. Output points inside the gap show the values before it; a guard
** that crossed inside the gap fires at the restart time. */
static int jump_restart(hydae_sim *s, double t_stop)
{
    double t_restart = fmin(s->t + s->dt_min, t_stop);
    if (!(t_restart > s->t)) {
        hy_sim_fail(s, "cannot restart past a jump at t = %.17g (dt_min = %g)", s->t,
                    s->dt_min);
        return HYDAE_ERR_HMIN;
    }
    s->integ_started = 0;       /* rows in the gap from the state at s->t */
    while (s->k_out <= s->n_out && grid_time(s, s->k_out) < t_restart) {
        int status = emit_state_row(s, HYDAE_ROW_GRID, grid_time(s, s->k_out), s->y, s->yp);
        if (status)
            return status;
        s->k_out++;
    }
    s->stats.n_jump_restarts++;
    s->t = t_restart;
    int status = hy_consistent_init(s, s->t, 0);
    if (status)
        return status;
    /* Guards across the gap: crossings fire here. */
    memset(s->g_crossed, 0, (size_t)s->n_guards);
    int crossed = 0;
    if (s->n_guards > 0) {
        status = hy_guards_eval(s, s->t, s->y, s->yp, s->g_end);
        if (status)
            return status;
        crossed = hy_guards_mark_crossings(s, s->g_end);
    }
    if (crossed) {
        int n_fired = 0;
        status = event_instant(s, &n_fired);
        if (status || n_fired > 0)
            return status;
    }
    status = emit_grid_at_current(s);
    if (!status)
        status = restart_integrator(s);
    if (!status)
        status = hy_guards_arm(s);
    return status;
}

/* Examine the step that ended at t_new for events, from s->t on. A crossing
** that no transition takes moves the scan to it, and the rest of the step
** is examined again, so a later crossing or a time event at the step's end
** is not lost. Sets *restarted when transitions fired (the integrator was
** restarted at the event). */
static int scan_step(hydae_sim *s, double t_new, double t_stop, int *restarted)
{
    *restarted = 0;
    for (;;) {
        double t_event = t_new;
        memset(s->g_crossed, 0, (size_t)s->n_guards);
        int found = hy_guards_locate(s, t_new, &t_event);
        if (found < 0)
            return found;
        /* A crossing within tolerance of a time event the step reached is
        ** that instant. */
        if (found && t_new == t_stop && fabs(t_event - t_stop) <= 2.0 * hy_time_tol(t_stop))
            t_event = t_stop;
        double t_reached = found ? t_event : t_new;
        int at_time_event = t_reached == t_stop && t_new == t_stop
                            && hy_time_event_pending(s, t_stop);
        int status = emit_grid_until(s, t_reached, !(found || at_time_event));
        if (!status)
            status = hy_interpolate(s, t_reached, s->y, s->yp);
        if (status)
            return status;
        s->t = t_reached;
        if (!found && !at_time_event) {
            hy_guards_advance(s);
            if (s->output_steps && s->t < s->t_end)
                return emit_state_row(s, HYDAE_ROW_STEP, s->t, s->y, s->yp);
            return 0;
        }
        status = hy_guards_join_instant(s);
        if (status)
            return status;
        int n_fired = 0;
        status = event_instant(s, &n_fired);
        if (status)
            return status;
        if (n_fired > 0) {
            *restarted = 1;
            return 0;
        }
        status = emit_grid_at_current(s);
        if (status)
            return status;
        if (t_reached == t_new) {
            hy_guards_advance(s);
            return 0;
        }
        status = hy_guards_restart_scan(s);
        if (status)
            return status;
    }
}

static int run(hydae_sim *s)
{
    int status = start_run(s);
    if (status)
        return status;
    long n_steps_run = 0;
    hy_chatter_reset(&s->chatter);
    while (s->t < s->t_end) {
        if (s->interrupt_requested)
            return hy_sim_interrupted(s, s->t);
        if (++n_steps_run > s->max_steps) {
            hy_sim_fail(s, "more than max_steps = %ld steps before t_end; stopped at t = %.17g",
                        s->max_steps, s->t);
            return HYDAE_ERR_MAXSTEPS;
        }
        double t_stop = hy_next_time_event(s, s->t);
        if (!s->interpolation) {
            /* dae_interpolation = FALSE: step exactly onto the output points. */
            double t_grid = grid_time(s, s->k_out);
            if (t_grid > s->t && t_grid < t_stop)
                t_stop = t_grid;
        }
        double t_new = t_stop;
        if (s->n > 0) {
            int code = s->integ_method->step(s->integ, t_stop, &t_new);
            if (code < 0 && s->dt_min > 0.0
                && (code == HYDAE_ERR_HMIN || code == HYDAE_ERR_CONV || code == HYDAE_ERR_ERRTEST)) {
                status = jump_restart(s, t_stop);
                if (status)
                    return status;
                continue;
            }
            if (code < 0)
                return integrator_failure(s, code);
            s->bad_chart = -1;
            if (code == HY_TSTOP)
                t_new = t_stop;
        }
        s->integ_started = 1;
        int restarted = 0;
        status = scan_step(s, t_new, t_stop, &restarted);
        if (!status && restarted)
            status = check_accumulation(s);
        if (!status && !restarted && s->n > 0) {
            /* Mechanical modes: constraint violation, and the ODE form's
            ** new partition, which restarts the integrator. */
            status = hy_mech_after_step(s);
            if (status == 1)
                status = restart_integrator(s);
        }
        if (status)
            return status;
    }
    return emit_grid_at_current(s);
}

int hydae_sim_run(hydae_sim *s)
{
    if (!s)
        return HYDAE_ERR_ARG;
    struct timespec start, end;
    clock_gettime(CLOCK_MONOTONIC, &start);
    memset(&s->stats, 0, sizeof s->stats);
    s->errmsg[0] = '\0';
    int status = hydae_sim_validate(s);
    if (!status)
        status = run(s);
    clock_gettime(CLOCK_MONOTONIC, &end);
    hy_stats st;
    current_integ_stats(s, &st);
    s->stats.n_steps = st.n_steps;
    s->stats.n_rejected = st.n_err_fails + st.n_conv_fails;
    s->stats.n_res_evals += st.n_res_evals;
    s->stats.n_jac_evals = st.n_jac_evals;
    s->stats.n_lu = st.n_lu;
    s->stats.wall_seconds = (double)(end.tv_sec - start.tv_sec)
                            + 1e-9 * (double)(end.tv_nsec - start.tv_nsec);
    if (status && s->errmsg[0] == '\0')
        hy_sim_fail(s, "%s at t = %.17g", hydae_status_string(status), s->t);
    status = finish_sinks(s, status);
    s->interrupt_requested = 0;
    return status;
}

void hydae_sim_get_stats(const hydae_sim *s, hydae_stats *out)
{
    if (s && out)
        *out = s->stats;
}

static int model_has_mechanics(const hydae_model *m)
{
    for (int c = 0; c < m->n_charts; c++)
        for (int i = 0; i < m->charts[c]->n_modes; i++)
            if (m->charts[c]->modes[i]->is_mechanical)
                return 1;
    return 0;
}

void hydae_sim_print_stats(const hydae_sim *s, FILE *out)
{
    if (!s || !out)
        return;
    const hydae_stats *st = &s->stats;
    fprintf(out, "%-24s %12ld\n", "steps", st->n_steps);
    fprintf(out, "%-24s %12ld\n", "rejected steps", st->n_rejected);
    fprintf(out, "%-24s %12ld\n", "residual evaluations", st->n_res_evals);
    fprintf(out, "%-24s %12ld\n", "Jacobian evaluations", st->n_jac_evals);
    fprintf(out, "%-24s %12ld\n", "LU factorisations", st->n_lu);
    fprintf(out, "%-24s %12ld\n", "events", st->n_events);
    fprintf(out, "%-24s %12ld\n", "event triggers", st->n_triggers);
    fprintf(out, "%-24s %12ld\n", "priority conflicts", st->n_priority_conflicts);
    fprintf(out, "%-24s %12ld\n", "transitions fired", st->n_transitions);
    fprintf(out, "%-24s %12ld\n", "mode switches", st->n_mode_switches);
    fprintf(out, "%-24s %12ld\n", "integrator restarts", st->n_restarts);
    fprintf(out, "%-24s %12ld\n", "homotopy steps", st->n_homotopy_steps);
    fprintf(out, "%-24s %12ld\n", "restarts after jumps", st->n_jump_restarts);
    fprintf(out, "%-24s %12ld\n", "resting modes entered", st->n_zeno_rests);
    if (model_has_mechanics(s->model)) {
        fprintf(out, "%-24s %12.3e\n", "max constraint violation", st->max_constraint_violation);
        fprintf(out, "%-24s %12ld\n", "coordinate partitions", st->n_partitions);
    }
    fprintf(out, "%-24s %12.6f\n", "wall time [s]", st->wall_seconds);
}
