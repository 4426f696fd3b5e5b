/*
** The integrator of the active configuration: the method its modes prefer
** (or the run's), its DAE (the configuration's residual, Jacobian, pattern
** and, when every block has one, the explicit form y' = f), its options
** from the settings, (re)starting it after every event and restart, its
** statistics accumulated over restarts, and the messages of its failures
** with their true category (a residual, out of memory, the settings).
*/
#include "sim.h"

#include "linalg/linsol.h"
#include "core/core.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* y' = f(t, y) of the configuration, when every block with unknowns has
** an explicit form (b->is_explicit). */
static int config_rhs(double t, const double *y, double *ydot, void *ctx)
{
    hydae_sim *s = ctx;
    for (int c = 0; c < s->model->n_charts; c++) {
        hy_block *b = &s->blocks[c];
        int off = s->var_offset[c], n_block = s->var_offset[c + 1] - off;
        if (n_block == 0)
            continue;
        int status = b->ops->rhs(b, t, y + off, ydot + off);
        status = hy_block_outcome(s, c, t, status, ydot + off, n_block);
        if (status != 0)
            return status;
    }
    return 0;
}

/* The first active mode with unknowns written as a residual, or NULL. */
static const hydae_mode *first_implicit_mode(const hydae_sim *s)
{
    for (int c = 0; c < s->model->n_charts; c++)
        if (s->active[c]->n_vars > 0 && !s->blocks[c].is_explicit)
            return s->active[c];
    return NULL;
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
    if (from->n_stiff_detections > 0 && into->n_stiff_detections == 0)
        into->t_first_stiff = from->t_first_stiff;
    into->n_stiff_detections += from->n_stiff_detections;
}

void hy_integ_stats(const hydae_sim *s, hy_stats *out)
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
    dae.pattern = s->jac.pattern;
    dae.ctx = s;
    dae.is_algebraic = s->is_algebraic;
    dae.rhs = first_implicit_mode(s) || s->assembly.shared ? NULL : config_rhs;
    return dae;
}

/* --debug-newton: one line per corrector iteration (seed 002's
** DebugOutput). */
static void print_newton_iteration(void *ctx, const hy_newton_info *info)
{
    const hydae_sim *s = ctx;
    fprintf(s->set.newton_debug, "newton t=%.10g h=%.4g order=%d iter=%d |dy|=%.4g rate=%.4g "
            "jacobian=%s%s\n", info->t, info->h, info->order, info->iteration,
            info->update_norm, info->rate, info->jacobian_refreshed ? "new" : "reused",
            info->converged ? " converged" : "");
}

/* The method for the active configuration: the one its modes prefer
** (hydae_mode_set_integrator), if they agree, else the run's. */
const hy_integrator_ops *hy_configuration_method(const hydae_sim *s)
{
    const hy_integrator_ops *chosen = NULL;
    for (int c = 0; c < s->model->n_charts; c++) {
        const hydae_mode *mode = s->active[c];
        if (mode->n_vars == 0 || !mode->integrator)
            continue;
        if (chosen && chosen != mode->integrator)
            return s->set.method; /* the modes disagree: the run's choice */
        chosen = mode->integrator;
    }
    return chosen ? chosen : s->set.method;
}

/* "; residual equation 2 of mode 'm' (paired with variable 'x') was not
** finite at t = ..." for the last bad residual seen, or "". */
static void residual_detail(const hydae_sim *s, char *detail, size_t size)
{
    detail[0] = '\0';
    if (s->bad_chart < 0)
        return;
    const hydae_mode *mode = s->active[s->bad_chart];
    if (s->bad_is_nan) {
        char equation[300];
        hy_describe_equation(s, s->bad_chart, s->bad_equation, equation, sizeof equation);
        hy_format(detail, size, "; residual %s was not finite at t = %.17g", equation, s->bad_t);
    } else
        hy_format(detail, size, "; the residual of mode '%s' returned an error at t = %.17g%s%s",
                  mode->name, s->bad_t, hy_mode_error_sep(mode), hy_mode_error_text(mode));
}

/* Why the integrator could not start, with the category init() gave: a
** residual or Jacobian that failed (its first-step estimate evaluates
** them), out of memory, or HYDAE_ERR_ARG: a value that is not finite, by
** name, else the settings it was given. Returns the status. */
static int start_failure(hydae_sim *s, int status)
{
    if (status >= 0)
        status = HYDAE_ERR_ARG; /* not a status init() may return */
    /* A residual that failed during init() is the cause; HYDAE_ERR_ARG
    ** is what an integrator gives when its start-up solve fails. */
    if (s->bad_chart >= 0 && (s->bad_is_nan || status == HYDAE_ERR_ARG))
        status = HYDAE_ERR_RESIDUAL;
    if (status != HYDAE_ERR_ARG) {
        char detail[512];
        residual_detail(s, detail, sizeof detail);
        hy_sim_fail(s, "%s could not start at t = %.17g: %s%s", s->integ_method->name, s->t,
                    hydae_status_string(status), detail);
        return status;
    }
    for (int i = 0; i < s->n; i++)
        if (!isfinite(s->y[i]) || !isfinite(s->yp[i])) {
            const hydae_mode *mode = NULL;
            const char *name = hy_component_name(s, i, &mode);
            hy_sim_fail(s, "%s could not start at t = %.17g: %s'%s' of mode '%s' is not finite",
                        s->integ_method->name, s->t, isfinite(s->y[i]) ? "the derivative of " : "",
                        name, mode ? mode->name : "?");
            return status;
        }
    hy_sim_fail(s, "%s could not start at t = %.17g: it refused the tolerances or step limits",
                s->integ_method->name, s->t);
    return status;
}

/* 1 if the configuration has unknowns and none of them is differential
** (and no block that owns its state): there is nothing to integrate, and
** hy_algebraic solves F(t, y) = 0 wherever a value is needed. */
static int configuration_is_algebraic(const hydae_sim *s)
{
    if (s->n == 0)
        return 0;
    for (int c = 0; c < s->model->n_charts; c++)
        if (s->blocks[c].ops->owns_state)
            return 0;
    for (int i = 0; i < s->n; i++)
        if (!s->is_algebraic[i])
            return 0;
    return 1;
}

int hy_restart_integrator(hydae_sim *s)
{
    s->stats.n_restarts++;
    s->integ_started = 0;
    if (s->n == 0)
        return 0;
    int algebraic = configuration_is_algebraic(s);
    const hy_integrator_ops *method = algebraic ? &hy_algebraic : hy_configuration_method(s);
    const hydae_mode *implicit = first_implicit_mode(s);
    if (method->needs_rhs && implicit) {
        hy_sim_fail(s, "%s solves explicit ODEs y' = f(t, y) only, but mode '%s' is written "
                    "as a residual F(t, y, y') = 0 (at t = %.17g); use DSTIFF for it",
                    method->name, implicit->name, s->t);
        return HYDAE_ERR_ARG;
    }
    if (method->needs_rhs && s->assembly.shared) {
        hy_sim_fail(s, "%s solves explicit ODEs y' = f(t, y) only, but the configuration at t = "
                    "%.17g is assembled from modes of several charts that share unknowns (a "
                    "DAE); use DSTIFF for it", method->name, s->t);
        return HYDAE_ERR_ARG;
    }
    if (method->fixed_step && !isfinite(s->set.h_max)) {
        hy_sim_fail(s, "%s takes fixed steps of length h_max: set h_max", method->name);
        return HYDAE_ERR_ARG;
    }
    hy_ls_kind ls_kind;
    char why[256];
    hy_symbolic_mark mark = hy_symbolic_mark_of(s->jac.pattern); /* the choice may order its band */
    if (method->uses_matrix && hy_linsol_choose((hy_ls_kind)s->set.linear_solver, (size_t)s->n,
                                                s->jac.pattern, &ls_kind, why, sizeof why)) {
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
    /* Uniform tolerances go as the two scalars (options.c). */
    opt.rtol = s->tol_uniform == 1 ? s->uniform_rtol : s->set.rtol;
    opt.atol = s->tol_uniform == 1 ? s->uniform_atol : s->set.atol;
    opt.rtol_vec = s->tol_uniform == 1 ? NULL : s->rtol_vec;
    opt.atol_vec = s->tol_uniform == 1 ? NULL : s->atol_vec;
    opt.err_test_exclude = s->err_exclude;
    opt.h0_max = s->set.h0_max;
    opt.corrector_maxit = s->set.corrector_maxit;
    opt.corrector_minit = s->set.corrector_minit;
    opt.constr_tol = s->set.constr_tol;
    opt.jacob_eval = s->set.jacob_eval;
    opt.jacob_init = s->set.jacob_init;
    opt.eval_expiry = s->set.eval_expiry;
    opt.var_index = s->has_var_index ? s->var_index : NULL;
    opt.linear_solver = s->set.linear_solver;
    opt.radau_order = s->set.radau_order;
    if (s->set.newton_debug) {
        opt.newton_debug = print_newton_iteration;
        opt.debug_ctx = s;
    }
    opt.h0 = s->set.h0;
    /* With dt_min, a step below it is a jump to restart over (see run). */
    opt.h_min = fmax(s->set.h_min, s->set.dt_min);
    opt.h_max = s->set.h_max;
    opt.max_order = s->set.max_order;
    hy_dae dae = config_dae(s);
    s->bad_chart = -1;
    int status = s->integ_method->init(s->integ, &dae, s->t, s->y, s->yp, &opt);
    hy_symbolic_count(s, mark);
    return status ? start_failure(s, status) : 0;
}

/* A message for an integrator failure: time, step, order, mode and the
** worst variable by name. */
int hy_integrator_failure(hydae_sim *s, int code)
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
    /* A code outside the table keeps its own category. */
    int status = code;
    const char *what = hydae_status_string(code);
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
        if (table[i].status == code)
            what = table[i].what;
    hy_stats st;
    hy_integ_stats(s, &st);
    char detail[512] = "";
    if (s->bad_chart >= 0) {
        residual_detail(s, detail, sizeof detail);
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
