/*
** Settings that are each valid but contradict each other or the chosen
** integrator (t_end <= t0, h_min > h_max, max_order beyond the method's
** range, ...): refused before a run with a message naming the settings,
** instead of an integrator's bare status code later. And a model too large
** for the dense linear algebra: refused before the run, naming the mode,
** its size and the memory its n x n matrix would take, not an allocation
** that overflows or exhausts the machine.
*/
#include "sim.h"

#include <math.h>
#include <stdio.h>

#define HY_CONFLICT(s, ...) (hy_sim_fail((s), __VA_ARGS__), HYDAE_ERR_ARG)

static int check_times(hydae_sim *s)
{
    if (!isfinite(s->set.t0) || !isfinite(s->set.t_end))
        return HY_CONFLICT(s, "t0 (%g) and t_end (%g) must be finite", s->set.t0, s->set.t_end);
    if (!(s->set.t_end > s->set.t0))
        return HY_CONFLICT(s, "t_end (%.17g) must be greater than t0 (%.17g)", s->set.t_end, s->set.t0);
    return 0;
}

static int check_steps(hydae_sim *s)
{
    if (s->set.h_min > s->set.h_max)
        return HY_CONFLICT(s, "h_min (%g) is greater than h_max (%g): no step size satisfies "
                           "both", s->set.h_min, s->set.h_max);
    if (s->set.h0 > 0.0 && s->set.h0 > s->set.h_max)
        return HY_CONFLICT(s, "h0 (%g), the first step, is greater than h_max (%g)", s->set.h0,
                           s->set.h_max);
    if (s->set.h0 > 0.0 && s->set.h0 < s->set.h_min)
        return HY_CONFLICT(s, "h0 (%g), the first step, is smaller than h_min (%g)", s->set.h0,
                           s->set.h_min);
    if (s->set.corrector_minit > 0 && s->set.corrector_maxit > 0
        && s->set.corrector_minit > s->set.corrector_maxit)
        return HY_CONFLICT(s, "dae_corrector_minit (%d) is greater than dae_corrector_maxit "
                           "(%d)", s->set.corrector_minit, s->set.corrector_maxit);
    return 0;
}

/* max_order and h_max against what the integrator can do. */
static int check_method(hydae_sim *s)
{
    const hy_integrator_ops *method = s->set.method;
    if (s->set.max_order > 0 && method->max_order == 0)
        return HY_CONFLICT(s, "max_order (%d) does not apply to %s, a method of fixed order; "
                           "leave max_order out", s->set.max_order, method->name);
    if (s->set.max_order > method->max_order && method->max_order > 0)
        return HY_CONFLICT(s, "max_order (%d) is out of range for %s: 1 to %d", s->set.max_order,
                           method->name, method->max_order);
    if (method->fixed_step && !isfinite(s->set.h_max))
        return HY_CONFLICT(s, "%s takes fixed steps of length h_max: set h_max", method->name);
    return 0;
}

/* 1 if the mode is a DAE F(t, y, y') = 0 with something to integrate: a
** residual (not a right-hand side, not a mechanical system, which takes the
** ODE form with such methods) and a differential variable (a mode whose
** unknowns are all algebraic is solved without an integrator). */
static int is_dae_mode(const hydae_mode *mode)
{
    if (mode->rhs || mode->is_mechanical || !mode->residual)
        return 0;
    for (int v = 0; v < mode->n_vars; v++)
        if (!hy_var_is_algebraic((hydae_var_kind)mode->vars[v].kind))
            return 1;
    return 0;
}

/* An integrator for explicit ODEs only (RK45, ...) chosen for a model with
** a DAE mode: a usage error found before the run, naming both, instead of
** a failure when the mode is entered. A mode with a preferred integrator
** (hydae_mode_set_integrator) is judged by it. */
static int check_mode_kinds(hydae_sim *s)
{
    const hydae_model *m = s->model;
    for (int c = 0; c < m->n_charts; c++)
        for (int k = 0; k < m->charts[c]->n_modes; k++) {
            const hydae_mode *mode = m->charts[c]->modes[k];
            const hy_integrator_ops *method = mode->integrator ? mode->integrator : s->set.method;
            if (method->needs_rhs && is_dae_mode(mode))
                return HY_CONFLICT(s, "%s solves explicit ODEs y' = f(t, y) only, but mode '%s' "
                                   "is written as a residual F(t, y, y') = 0 (a DAE); use "
                                   "DSTIFF for it", method->name, mode->name);
        }
    return 0;
}

/* The unknowns mode brings to a configuration solved with `method`, as
** far as a dense matrix is concerned: none when it gives its Jacobian's
** pattern (then a band or sparse solver takes it, and hy_linsol_choose
** refuses at run time only what no solver can hold). */
static int mode_size(const hydae_sim *s, const hydae_mode *mode, const hy_integrator_ops *method)
{
    hy_block probe = hy_block_probe((hydae_sim *)s, mode);
    if (probe.ops->pattern(&probe))
        return 0;
    return probe.ops->size(&probe, method);
}

/* "80 GB", "2.1 GB", "512 MB": bytes of an n x n matrix of doubles. */
static void format_matrix_bytes(double n, char *buf, size_t size)
{
    double bytes = n * n * (double)sizeof(double);
    if (bytes >= 1e9)
        snprintf(buf, size, "%.2g GB", bytes / 1e9);
    else
        snprintf(buf, size, "%.3g MB", bytes / 1e6);
}

/* what: "mode 'm' has" (whose: "its") or "the modes ... have" ("their"). */
static int too_large(hydae_sim *s, const char *what, const char *whose, long n)
{
    char need[32], limit[32];
    format_matrix_bytes((double)n, need, sizeof need);
    format_matrix_bytes(HY_DENSE_MAX_N, limit, sizeof limit);
    hy_sim_fail(s, "%s %ld unknowns: %s dense n x n Jacobian would need %s; a dense matrix "
                "takes at most %d unknowns (%s); give the Jacobian's sparsity pattern "
                "(hydae_mode_set_jacobian_pattern; model files give it themselves) so a band "
                "or sparse solver is used", what, n, whose, need, HY_DENSE_MAX_N, limit);
    return HYDAE_ERR_ARG;
}

/* The modes mode_of(s, c) of every chart c, solved together with
** `method`, against HY_DENSE_MAX_N; `when` says which configuration. */
static int check_configuration(hydae_sim *s, const hydae_mode *(*mode_of)(const hydae_sim *, int),
                               const hy_integrator_ops *method, const char *when)
{
    long total = 0;
    const hydae_mode *largest = NULL;
    for (int c = 0; c < s->model->n_charts; c++) {
        const hydae_mode *mode = mode_of(s, c);
        if (!mode)
            continue;
        total += mode_size(s, mode, method);
        if (!largest || mode_size(s, mode, method) > mode_size(s, largest, method))
            largest = mode;
    }
    if (total <= HY_DENSE_MAX_N)
        return 0;
    char what[400];
    int one_mode = largest && mode_size(s, largest, method) == total;
    if (one_mode)
        snprintf(what, sizeof what, "mode '%s' has", largest->name);
    else
        snprintf(what, sizeof what, "the modes active %s (the largest '%s' with %d) have", when,
                 largest ? largest->name : "?", largest ? mode_size(s, largest, method) : 0);
    return too_large(s, what, one_mode ? "its" : "their", total);
}

static const hydae_mode *active_mode(const hydae_sim *s, int c)
{
    return s->active[c];
}

static const hydae_mode *initial_mode(const hydae_sim *s, int c)
{
    return s->model->charts[c]->initial;
}

int hy_check_dense_size(hydae_sim *s, const hy_integrator_ops *method)
{
    char when[64];
    snprintf(when, sizeof when, "at t = %.17g", s->t);
    return check_configuration(s, active_mode, method, when);
}

/* Every mode on its own must fit, and the initial modes together (later
** configurations of several charts are checked as they arise). */
static int check_sizes(hydae_sim *s)
{
    const hydae_model *m = s->model;
    for (int c = 0; c < m->n_charts; c++)
        for (int k = 0; k < m->charts[c]->n_modes; k++) {
            const hydae_mode *mode = m->charts[c]->modes[k];
            int n = mode_size(s, mode, mode->integrator ? mode->integrator : s->set.method);
            if (n > HY_DENSE_MAX_N) {
                char what[300];
                snprintf(what, sizeof what, "mode '%s' has", mode->name);
                return too_large(s, what, "its", n);
            }
        }
    return check_configuration(s, initial_mode, s->set.method, "at the start");
}

int hydae_sim_validate(hydae_sim *s)
{
    if (!s)
        return HYDAE_ERR_ARG;
    int status = check_times(s);
    if (!status)
        status = check_steps(s);
    if (!status)
        status = check_method(s);
    if (!status)
        status = check_mode_kinds(s);
    if (!status)
        status = check_sizes(s);
    return status;
}
