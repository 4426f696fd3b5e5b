/*
** Consistent initial values: with the differential components of y fixed,
** solve F(t, y, y') = 0 for the algebraic components of y and for all of y'
** (Brown, Hindmarsh & Petzold, "Consistent initial condition calculation
** for differential-algebraic systems", SIAM J. Sci. Comput. 19, 1998: the
** YA_YDP_INIT case). Newton's method with a finite-difference Jacobian of
** the mixed unknowns and a backtracking line search on ||F||_2 (Dennis &
** Schnabel, Numerical Methods for Unconstrained Optimization, Alg. A6.3.1,
** Armijo constant 1e-4); when that stalls, homotopy continuation as in
** Enge-Rosenblatt et al. (sec. 4.4, Fig. 8).
*/
#include "sim.h"

#include "linalg/linsol.h"
#include "core/core.h"

#include <stdlib.h>

#include <float.h>
#include <math.h>
#include <string.h>

/* Unknown number i of the initialisation. */
static double *unknown(hydae_sim *s, int i)
{
    return s->init.unknowns[i];
}

/* Choose the n unknowns. After events: y'_i of differential components,
** y_i of algebraic ones. At t0 the model may say otherwise (Modelica's
** `fixed`): a differential variable whose start value is free adds y_i,
** one with a held start derivative drops y'_i (set to it); an algebraic
** variable whose start value is held drops y_i. The count must equal n. */
static int select_unknowns(hydae_sim *s, double t, int at_start)
{
    int n_unknowns = 0;
    for (int c = 0; c < s->model->n_charts; c++) {
        const hydae_mode *mode = s->active[c];
        if (s->blocks[c].ops->owns_state)
            continue; /* consistent by construction (block.h) */
        for (int v = 0; v < mode->n_vars; v++) {
            const hy_var *var = &mode->vars[v];
            int i = hy_unknown_of(s, s->var_offset[c] + v);
            if (hy_local_of(s, i) != s->var_offset[c] + v)
                continue; /* shared: taken with its first mode */
            int algebraic = s->is_algebraic[i]; /* of all its modes (assembly.c) */
            int value_held = algebraic ? 0 : 1, derivative_held = 0;
            if (at_start) {
                if (var->start_fixed >= 0)
                    value_held = var->start_fixed;
                if (var->has_start_derivative) {
                    derivative_held = 1;
                    s->yp[i] = hy_var_start_derivative(s->model, var);
                }
            }
            if (!value_held) {
                s->init.unknowns[n_unknowns] = &s->y[i];
                s->init.component[n_unknowns++] = i;
            }
            if (!algebraic && !derivative_held) {
                s->init.unknowns[n_unknowns] = &s->yp[i];
                s->init.component[n_unknowns++] = i;
            }
        }
    }
    if (n_unknowns != s->init.n) {
        hy_sim_fail(s, "consistent initial values at t = %.17g: the held start values and "
                    "derivatives leave %d unknowns for %d equations (free as many start "
                    "values as you hold; see hydae_mode_set_start_fixed)", t, n_unknowns,
                    s->init.n);
        return HYDAE_ERR_INIT;
    }
    return 0;
}

static double norm2(const double *v, int n)
{
    double sum = 0.0;
    for (int i = 0; i < n; i++)
        sum += v[i] * v[i];
    return sqrt(sum);
}

/* Weighted RMS norm of a change of the unknowns. */
static double weighted_norm(hydae_sim *s, const double *change)
{
    double sum = 0.0;
    for (int i = 0; i < s->init.n; i++) {
        int comp = s->init.component[i];
        double ratio = change[i] / (hy_component_rtol(s, comp) * fabs(*unknown(s, i))
                                    + hy_component_atol(s, comp));
        sum += ratio * ratio;
    }
    return sqrt(sum / s->init.n);
}

/* The residual's rows of the components of blocks that do not own their
** state. */
static int residual(hydae_sim *s, double t, double *res)
{
    if (s->init.n == s->n)
        return hy_config_residual(t, s->y, s->yp, res, s);
    int status = hy_config_residual(t, s->y, s->yp, s->res_work, s);
    for (int i = 0; i < s->init.n; i++)
        res[i] = s->res_work[s->init.rows[i]];
    return status;
}

static int init_failure(hydae_sim *s, double t, const char *why, int component)
{
    const hydae_mode *mode = NULL;
    const char *name = component >= 0 ? hy_component_name(s, component, &mode) : NULL;
    if (name)
        hy_sim_fail(s, "no consistent initial values at t = %.17g in mode '%s': %s "
                    "(equation %d, variable '%s')", t, mode ? mode->name : "?", why,
                    hy_local_of(s, component) - (mode ? s->var_offset[mode->chart->index] : 0),
                    name);
    else
        hy_sim_fail(s, "no consistent initial values at t = %.17g: %s", t, why);
    return HYDAE_ERR_INIT;
}

static int residual_failure(hydae_sim *s, double t)
{
    if (s->bad_chart >= 0 && s->bad_is_nan) {
        char equation[300];
        hy_describe_equation(s, s->bad_chart, s->bad_equation, equation, sizeof equation);
        hy_sim_fail(s, "residual %s is not finite at t = %.17g", equation, t);
        return HYDAE_ERR_RESIDUAL;
    }
    if (s->bad_chart >= 0) {
        const hydae_mode *mode = s->active[s->bad_chart];
        hy_sim_fail(s, "the residual of mode '%s' returned an error at t = %.17g%s%s",
                    mode->name, t, hy_mode_error_sep(mode), hy_mode_error_text(mode));
        return HYDAE_ERR_RESIDUAL;
    }
    return init_failure(s, t, "the residual failed", -1);
}

/* The LU factorisation found no pivot in column `column` of the Jacobian
** (0-based): that unknown (a variable or its derivative) is, to rounding,
** a combination of the ones before it, so the equations do not determine
** it. Names it. */
static int singular_failure(hydae_sim *s, double t, int column)
{
    int component = s->init.component[column];
    const hydae_mode *mode = NULL;
    const char *name = hy_component_name(s, component, &mode);
    int is_value = s->init.unknowns[column] == &s->y[component];
    hy_sim_fail(s, "no consistent initial values at t = %.17g in mode '%s': singular Jacobian: "
                "the equations do not determine %s%s%s (its column of the Jacobian with "
                "respect to the algebraic variables and the derivatives depends linearly on "
                "the others: two equations say the same, an unknown is missing from every "
                "equation, or the DAE has index higher than 1)", t, mode ? mode->name : "?",
                is_value ? "variable '" : "der(", name, is_value ? "'" : ")");
    return HYDAE_ERR_SINGULAR;
}

/* The Newton matrix of the mixed unknowns: dense, or on the pattern the
** configuration's gives (hy_init_pattern, kept with the configuration:
** hy_config_init_pattern), with its column groups for finite differences
** (Curtis, Powell & Reid 1974). */
struct hy_init_matrix {
    size_t n;
    hy_pattern *from;               /* the configuration's pattern it was built for
                                    ** (a reference: no other takes its address) */
    hy_pattern *pattern;            /* NULL: dense */
    hy_linsol *ls;
    hy_coloring groups;
    int64_t *unknown_of;            /* 2 component + (1 for a value, 0 a derivative) */
    double *del;                    /* increments of one group */
    double *saved;                  /* the group's unperturbed unknowns */
};

static void init_matrix_free(hy_init_work *w)
{
    struct hy_init_matrix *im = w->matrix;
    if (!im)
        return;
    hy_linsol_free(im->ls);
    hy_pattern_unref(im->from);
    hy_pattern_unref(im->pattern);
    hy_coloring_free(&im->groups);
    hy_free(im->unknown_of);
    hy_free(im->del);
    hy_free(im->saved);
    hy_free(im);
    w->matrix = NULL;
}

int hy_init_reserve(hy_init_work *w, int n)
{
    if (n <= w->cap && w->rows)
        return 0;
    size_t n_alloc = (size_t)(n > 0 ? n : 1), work_bytes;
    if (hy_mul3_size(n_alloc, 6, sizeof(double), &work_bytes))
        return HYDAE_ERR_NOMEM;
    double *work = hy_realloc(w->work, work_bytes);
    if (work)
        w->work = work;
    double **unknowns = hy_realloc(w->unknowns, sizeof(double *) * 2 * n_alloc);
    if (unknowns)
        w->unknowns = unknowns;
    int *component = hy_realloc(w->component, sizeof(int) * 2 * n_alloc);
    if (component)
        w->component = component;
    int *rows = hy_realloc(w->rows, sizeof(int) * n_alloc);
    if (rows)
        w->rows = rows;
    if (!work || !unknowns || !component || !rows)
        return HYDAE_ERR_NOMEM;
    w->cap = n;
    return 0;
}

void hy_init_work_free(hy_init_work *w)
{
    init_matrix_free(w);
    hy_free(w->rows);
    hy_free(w->unknowns);
    hy_free(w->component);
    hy_free(w->work);
    w->rows = w->component = NULL;
    w->unknowns = NULL;
    w->work = NULL;
    w->cap = w->n = 0;
}

static int64_t unknown_code(hydae_sim *s, int k)
{
    int comp = s->init.component[k];
    return 2 * (int64_t)comp + (s->init.unknowns[k] == &s->y[comp]);
}

/* The matrix for the unknowns chosen now: kept when they and the
** configuration's pattern are those it was built for. 0, HYDAE_ERR_NOMEM,
** or HYDAE_ERR_ARG with the message (a solver that cannot serve). */
static int init_matrix_setup(hydae_sim *s, double t)
{
    size_t n = (size_t)s->init.n;
    struct hy_init_matrix *im = s->init.matrix;
    if (im && im->n == n && im->from == s->jac.pattern) {
        size_t k = 0;
        while (k < n && im->unknown_of[k] == unknown_code(s, (int)k))
            k++;
        if (k == n)
            return 0;
    }
    init_matrix_free(&s->init);
    im = s->init.matrix = hy_calloc(1, sizeof *im);
    if (!im)
        return HYDAE_ERR_NOMEM;
    im->n = n;
    im->from = hy_pattern_ref(s->jac.pattern);
    size_t len = n > 0 ? n : 1;
    im->unknown_of = hy_malloc(len * sizeof(int64_t));
    im->del = hy_malloc(len * sizeof(double));
    im->saved = hy_malloc(len * sizeof(double));
    if (!im->unknown_of || !im->del || !im->saved)
        goto nomem;
    for (size_t k = 0; k < n; k++)
        im->unknown_of[k] = unknown_code(s, (int)k);
    if (s->jac.pattern && !(im->pattern = hy_config_init_pattern(s, im->unknown_of, n)))
        goto nomem;
    hy_ls_kind kind;
    char why[256];
    hy_symbolic_mark mark = hy_symbolic_mark_of(im->pattern); /* the choice may order its band */
    if (hy_linsol_choose((hy_ls_kind)s->set.linear_solver, n, im->pattern, &kind, why, sizeof why)) {
        init_matrix_free(&s->init);
        hy_sim_fail(s, "no consistent initial values at t = %.17g: %s", t, why);
        return HYDAE_ERR_ARG;
    }
    int made = (im->ls = hy_linsol_create(kind, n, im->pattern)) != NULL
               && !(im->pattern ? hy_coloring_create(&im->groups, im->pattern)
                                : hy_coloring_identity(&im->groups, n));
    hy_symbolic_count(s, mark);
    if (!made)
        goto nomem;
    return 0;
nomem:
    init_matrix_free(&s->init);
    return HYDAE_ERR_NOMEM;
}

/* The Jacobian of F - offset with respect to the mixed unknowns by forward
** differences, one residual per group of columns, factored. 0, 1 + the
** column without a pivot, or INIT_RESIDUAL_FAILED / INIT_NOMEM. */
enum { INIT_RESIDUAL_FAILED = -1, INIT_NOMEM = -2 };
static int init_jacobian(hydae_sim *s, double t, const double *offset, const double *res,
                         double *res_trial)
{
    struct hy_init_matrix *im = s->init.matrix;
    double sqrt_eps = sqrt(DBL_EPSILON);
    hy_matrix_zero(hy_linsol_matrix(im->ls));
    for (size_t g = 0; g < im->groups.n_colors; g++) {
        const int64_t *cols = im->groups.column + im->groups.color_start[g];
        size_t count = (size_t)(im->groups.color_start[g + 1] - im->groups.color_start[g]);
        for (size_t c = 0; c < count; c++) {
            double *z = unknown(s, (int)cols[c]);
            double saved = *z;
            double del = sqrt_eps
                * fmax(fabs(saved), fmax(fabs(s->y[s->init.component[cols[c]]]), 1.0));
            im->saved[c] = saved;
            *z = saved + del;
            im->del[c] = *z - saved;
        }
        int status = residual(s, t, res_trial);
        for (size_t c = 0; c < count; c++)
            *unknown(s, (int)cols[c]) = im->saved[c];
        if (status)
            return INIT_RESIDUAL_FAILED;
        if (offset)
            for (int i = 0; i < s->init.n; i++)
                res_trial[i] -= offset[i];
        for (size_t c = 0; c < count; c++)
            hy_matrix_set_column_diff(hy_linsol_matrix(im->ls), im->pattern, (size_t)cols[c],
                                      res_trial, res, 1.0 / im->del[c]);
        s->stats.n_res_evals++;
    }
    int factor = hy_linsol_factor(im->ls);
    return factor >= 0 ? factor : INIT_NOMEM;
}

/* Damped Newton on F(t, y, y') - offset = 0 in the mixed unknowns (offset
** NULL: zero). 0 converged; 1 not converged (res holds the last residual);
** < 0 a residual error, or HYDAE_ERR_SINGULAR (message set). */
enum { NEWTON_CONVERGED = 0, NEWTON_STALLED = 1 };

static int damped_newton(hydae_sim *s, double t, const double *offset, int max_iter,
                         double *res)
{
    int n = s->init.n;
    double *step = s->init.work + n, *res_trial = s->init.work + 2 * n;
    int setup = init_matrix_setup(s, t);
    if (setup)
        return setup;
    if (residual(s, t, res))
        return residual_failure(s, t);
    if (offset)
        for (int i = 0; i < n; i++)
            res[i] -= offset[i];
    double res_norm = norm2(res, n);
    if (res_norm == 0.0)
        return NEWTON_CONVERGED;
    for (int iter = 0; iter < max_iter; iter++) {
        int factored = init_jacobian(s, t, offset, res, res_trial);
        if (factored == INIT_RESIDUAL_FAILED)
            return residual_failure(s, t);
        if (factored == INIT_NOMEM)
            return HYDAE_ERR_NOMEM;
        if (factored > 0)
            return singular_failure(s, t, factored - 1);
        for (int i = 0; i < n; i++)
            step[i] = -res[i];
        hy_linsol_solve(s->init.matrix->ls, step);
        /* Converged when the full Newton step is small in the error weights
        ** (then the error after taking it is of the order of its square). */
        if (weighted_norm(s, step) <= 1e-3) {
            for (int i = 0; i < n; i++)
                *unknown(s, i) += step[i];
            return NEWTON_CONVERGED;
        }
        /* Backtracking: accept the first lambda with sufficient decrease. */
        double lambda = 1.0, new_norm = res_norm;
        int accepted = 0;
        for (int k = 0; k < 30; k++) {
            for (int i = 0; i < n; i++)
                *unknown(s, i) += lambda * step[i];
            int status = residual(s, t, res_trial);
            if (status == 0) {
                if (offset)
                    for (int i = 0; i < n; i++)
                        res_trial[i] -= offset[i];
                new_norm = norm2(res_trial, n);
                if (new_norm <= (1.0 - 1e-4 * lambda) * res_norm) {
                    accepted = 1;
                    break;
                }
            } else if (status < 0) {
                return residual_failure(s, t);
            }
            for (int i = 0; i < n; i++)
                *unknown(s, i) -= lambda * step[i];
            lambda *= 0.5;
        }
        if (!accepted)
            return NEWTON_STALLED;
        memcpy(res, res_trial, sizeof(double) * (size_t)n);
        res_norm = new_norm;
        if (res_norm == 0.0)
            return NEWTON_CONVERGED;
    }
    return NEWTON_STALLED;
}

static void save_unknowns(hydae_sim *s, double *z)
{
    for (int i = 0; i < s->init.n; i++)
        z[i] = *unknown(s, i);
}

static void load_unknowns(hydae_sim *s, const double *z)
{
    for (int i = 0; i < s->init.n; i++)
        *unknown(s, i) = z[i];
}

/* The equations still unsatisfied, largest residuals first (up to 3). */
static int report_unsatisfied(hydae_sim *s, double t, const double *res, double lambda)
{
    int n = s->init.n, shown[3] = { -1, -1, -1 };
    for (int k = 0; k < 3 && k < n; k++) {
        int best = -1;
        for (int i = 0; i < n; i++) {
            int taken = 0;
            for (int j = 0; j < k; j++)
                taken |= shown[j] == i;
            if (!taken && (best < 0 || fabs(res[i]) > fabs(res[best])))
                best = i;
        }
        shown[k] = best;
    }
    char list[600] = "";
    size_t used = 0;
    for (int k = 0; k < 3 && shown[k] >= 0 && used < sizeof list; k++) {
        char equation[300];
        hy_describe_row(s, s->init.rows[shown[k]], equation, sizeof equation);
        used += (size_t)snprintf(list + used, sizeof list - used, "%s%s: residual %.3g",
                                 k ? "; " : "", equation, res[shown[k]]);
    }
    hy_sim_fail(s, "no consistent initial values at t = %.17g: Newton's method stalled, and "
                "the homotopy H(z) - (1 - lambda) H(z0) = 0 got to lambda = %.4g only; "
                "unsatisfied: %s", t, lambda, list);
    return HYDAE_ERR_INIT;
}

/* Homotopy continuation (Enge-Rosenblatt et al., sec. 4.4, eq. (3) and
** Fig. 8): solve H(z) - (1 - lambda) H(z0) = 0 for lambda rising from 0,
** where z0, the start values, solves the trivial problem at lambda = 0
** (eq. (3) read with that sign, so that lambda = 0 is trivial). Each solve
** starts from the last solution; after a success the increment doubles,
** after a failure it halves and the step is retried, down to 1e-4. */
static int homotopy(hydae_sim *s, double t, double *res)
{
    int n = s->init.n;
    double *offset = s->init.work + 3 * n, *z_last = s->init.work + 4 * n;
    double *h_start = s->init.work + 5 * n;
    if (residual(s, t, h_start))
        return residual_failure(s, t);
    save_unknowns(s, z_last);
    double lambda = 0.0, increment = 0.25;
    while (lambda < 1.0) {
        double lambda_try = fmin(1.0, lambda + increment);
        for (int i = 0; i < n; i++)
            offset[i] = (1.0 - lambda_try) * h_start[i];
        load_unknowns(s, z_last);
        int status = damped_newton(s, t, lambda_try < 1.0 ? offset : NULL, 20, res);
        if (status == NEWTON_CONVERGED) {
            s->stats.n_homotopy_steps++;
            save_unknowns(s, z_last);
            lambda = lambda_try;
            increment *= 2.0;
            continue;
        }
        if (status < 0 && status != HYDAE_ERR_SINGULAR && status != HYDAE_ERR_INIT)
            return status; /* a residual that cannot be evaluated */
        increment *= 0.5;
        if (increment < 1e-4) {
            load_unknowns(s, z_last);
            return report_unsatisfied(s, t, res, lambda);
        }
    }
    return 0;
}

/* A value that is not finite (a NaN or infinite start value, or one an
** action set) cannot start Newton's method or an integrator: name it. */
static int check_finite_values(hydae_sim *s, double t, int at_start)
{
    for (int local = 0; local < s->var_offset[s->model->n_charts]; local++) {
        int i = hy_unknown_of(s, local);
        if (isfinite(s->y[i]) && isfinite(s->yp[i]))
            continue;
        const hydae_mode *mode = NULL;
        const char *name = hy_component_name(s, i, &mode);
        if (!mode || s->blocks[mode->chart->index].ops->owns_state)
            continue; /* consistent by construction (block.h) */
        const char *which = !isfinite(s->y[i]) ? "" : "the derivative of ";
        double value = !isfinite(s->y[i]) ? s->y[i] : s->yp[i];
        const char *shown = isnan(value) ? "NaN" : value > 0 ? "+inf" : "-inf";
        if (at_start)
            hy_sim_fail(s, "the start value of %svariable '%s' of mode '%s' is not finite (%s); "
                        "give it a finite start value", which, name, mode ? mode->name : "?",
                        shown);
        else
            hy_sim_fail(s, "%svariable '%s' of mode '%s' is not finite (%s) on entering the mode "
                        "at t = %.17g (a start value or a transition's action)", which, name,
                        mode ? mode->name : "?", shown, t);
        return HYDAE_ERR_INIT;
    }
    return 0;
}

/* Explicit ODE modes only, and the unknowns their derivatives: F = y' -
** f(t, y), so y' = f(t, y) = -F(t, y, 0), with no Newton matrix at all. */
static int explicit_init(hydae_sim *s, double t, double *res)
{
    for (int c = 0; c < s->model->n_charts; c++)
        if (s->active[c]->n_vars > 0 && (!s->blocks[c].is_explicit || s->blocks[c].ops->owns_state))
            return 1;
    for (int k = 0; k < s->init.n; k++)
        if (s->init.unknowns[k] != &s->yp[s->init.component[k]])
            return 1;
    for (int k = 0; k < s->init.n; k++)
        *s->init.unknowns[k] = 0.0;
    if (residual(s, t, res))
        return residual_failure(s, t);
    for (int k = 0; k < s->init.n; k++)
        *s->init.unknowns[k] = -res[s->init.component[k]];
    return 0;
}

int hy_consistent_init(hydae_sim *s, double t, int at_start)
{
    int n = s->init.n;
    if (n == 0)
        return 0;
    int selected = select_unknowns(s, t, at_start);
    if (selected)
        return selected;
    int not_finite = check_finite_values(s, t, at_start);
    if (not_finite)
        return not_finite;
    double *res = s->init.work;
    s->bad_chart = -1;
    if (s->init.n == s->n) {
        int explicit_status = explicit_init(s, t, res);
        if (explicit_status <= 0)
            return explicit_status;
    }
    double *z_start = s->init.work + 4 * n;
    save_unknowns(s, z_start);
    int status = damped_newton(s, t, NULL, 50, res);
    if (status == NEWTON_CONVERGED)
        return 0;
    if (status < 0 && status != HYDAE_ERR_SINGULAR && status != HYDAE_ERR_INIT)
        return status;
    /* Newton stalled or met a singular matrix: continue from the start.
    ** If that fails too, a singular matrix is the cause to report. */
    char singular_message[sizeof s->errmsg];
    memcpy(singular_message, s->errmsg, sizeof singular_message);
    load_unknowns(s, z_start);
    int continued = homotopy(s, t, res);
    if (continued && status == HYDAE_ERR_SINGULAR) {
        memcpy(s->errmsg, singular_message, sizeof s->errmsg);
        return HYDAE_ERR_INIT;
    }
    return continued;
}
