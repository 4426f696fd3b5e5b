/*
** From the IR to a hydae_model: parameters and discrete variables, charts,
** modes with their variables, residual, Jacobian, guards and outputs, and
** transitions with triggers, conditions and actions, and the initial
** action. An explicit mode (der(x) = f for every unknown) is given as a
** right-hand side with df/dy, so the ODE integrators run it; a mechanical
** mode (mechanics.c) through hydae_mode_set_mechanics, its unknowns
** positions, velocities and multipliers in that order; the others as
** residuals. Every callback is a trampoline into the evaluation backend
** (eval.h) with the mode's or transition's code as user data.
*/
#include "lang/build.h"
#include "model/model.h"
#include "core/core.h"

#include <stdlib.h>
#include <string.h>

static int residual_trampoline(double t, const double *y, const double *yp, const double *p,
                               double *res, void *user)
{
    const hy_binding *b = user;
    return b->ops->residual(b->code, t, y, yp, p, res);
}

static int sparse_jacobian_trampoline(double t, double cj, const double *y, const double *yp,
                                      const double *p, double *values, void *user)
{
    const hy_binding *b = user;
    return b->ops->sparse_jacobian(b->code, t, cj, y, yp, p, values);
}

static int rhs_trampoline(double t, const double *y, const double *p, double *ydot, void *user)
{
    const hy_binding *b = user;
    return b->ops->rhs(b->code, t, y, p, ydot);
}

/* For an explicit mode the engine asks for df/dy (cj and y' unused). */
static int rhs_sparse_jacobian_trampoline(double t, double cj, const double *y, const double *yp,
                                          const double *p, double *values, void *user)
{
    (void)cj;
    (void)yp;
    const hy_binding *b = user;
    return b->ops->rhs_sparse_jacobian(b->code, t, y, p, values);
}

/* The mode's Jacobian as its compiled pattern and values: a large mode is
** then solved with a band or sparse solver and no n x n matrix. */
static int set_sparse_jacobian(hydae_mode *hm, const hy_binding *b, int of_rhs)
{
    const hy_csc *pattern = b->ops->jacobian_pattern(b->code, of_rhs);
    if (hydae_mode_set_jacobian_pattern(hm, pattern->col_start, pattern->row))
        return -1;
    return hydae_mode_set_sparse_jacobian(hm, of_rhs ? rhs_sparse_jacobian_trampoline
                                                     : sparse_jacobian_trampoline);
}

static int guards_trampoline(double t, const double *y, const double *yp, const double *p,
                             double *g, void *user)
{
    const hy_binding *b = user;
    return b->ops->guards(b->code, t, y, yp, p, g);
}

static int outputs_trampoline(double t, const double *y, const double *yp, const double *p,
                              double *out, void *user)
{
    const hy_binding *b = user;
    return b->ops->outputs(b->code, t, y, yp, p, out);
}

/* A mechanical mode's callbacks (hydae_mechanics), each one quantity. */
static int mass_trampoline(double t, const double *q, const double *p, double *mass, void *user)
{
    const hy_binding *b = user;
    return b->ops->mechanics(b->code, HY_MECH_MASS, t, q, NULL, p, mass);
}

static int force_trampoline(double t, const double *q, const double *u, const double *p,
                            double *force, void *user)
{
    const hy_binding *b = user;
    return b->ops->mechanics(b->code, HY_MECH_FORCE, t, q, u, p, force);
}

static int constraint_trampoline(double t, const double *q, const double *p, double *phi,
                                 void *user)
{
    const hy_binding *b = user;
    return b->ops->mechanics(b->code, HY_MECH_CONSTRAINT, t, q, NULL, p, phi);
}

static int constraint_jac_trampoline(double t, const double *q, const double *p, double *phi_q,
                                     void *user)
{
    const hy_binding *b = user;
    return b->ops->mechanics(b->code, HY_MECH_CONSTRAINT_JAC, t, q, NULL, p, phi_q);
}

static int constraint_t_trampoline(double t, const double *q, const double *p, double *phi_t,
                                   void *user)
{
    const hy_binding *b = user;
    return b->ops->mechanics(b->code, HY_MECH_CONSTRAINT_T, t, q, NULL, p, phi_t);
}

static int accel_rhs_trampoline(double t, const double *q, const double *u, const double *p,
                                double *gamma, void *user)
{
    const hy_binding *b = user;
    return b->ops->mechanics(b->code, HY_MECH_ACCEL_RHS, t, q, u, p, gamma);
}

static int multiplier_matrix_trampoline(double t, const double *q, const double *p, double *c,
                                        void *user)
{
    const hy_binding *b = user;
    return b->ops->mechanics(b->code, HY_MECH_MULTIPLIER_MATRIX, t, q, NULL, p, c);
}

/* The kind of unknown k of a mode: a mechanical mode's are n_q positions,
** n_q velocities, then the multipliers. */
static hydae_var_kind var_kind(const hy_ir_mode *mode, int k)
{
    if (mode->is_mechanical)
        return k < mode->mech.n_q       ? HYDAE_DIFFERENTIAL
               : k < 2 * mode->mech.n_q ? HYDAE_VELOCITY
                                        : HYDAE_MULTIPLIER;
    return mode->vars[k].is_differential ? HYDAE_DIFFERENTIAL : HYDAE_ALGEBRAIC;
}

static int condition_trampoline(const hydae_action *a, void *user)
{
    const hy_binding *b = user;
    return b->ops->condition(b->code, a);
}

static int action_trampoline(hydae_action *a, void *user)
{
    const hy_binding *b = user;
    return b->ops->action(b->code, a);
}

#define NAME(ir, id) hy_strtab_get((ir)->strings, (id))

static int fail(hydae_model *m, hy_diag *diag, const char *what)
{
    hy_diag_error(diag, 0, 0, "building the model failed (%s): %s", what,
                  m ? hydae_model_errmsg(m) : "out of memory");
    return -1;
}

/* An allocation of the build itself failed (the model has no message). */
static int fail_nomem(hy_diag *diag)
{
    hy_diag_nomem(diag);
    return -1;
}

/* A string of the IR, NULL for none (-1). */
static const char *text_of(const hy_ir *ir, int id)
{
    return id >= 0 ? NAME(ir, id) : NULL;
}

/* The unit and description of parameter or discrete variable g. */
static int set_global_info(hydae_model *m, const hy_ir *ir, int g)
{
    const hy_ir_global *gl = &ir->globals[g];
    if (gl->unit < 0 && gl->description < 0)
        return 0;
    return hydae_model_set_global_info(m, g, text_of(ir, gl->unit), text_of(ir, gl->description));
}

int hy_build_model(hy_lang_unit *unit, hy_ir *ir, const hy_eval_ops *ops, hy_diag *diag)
{
    hy_expr_drop_table(&ir->dag); /* the programs only walk the DAG */
    hydae_model *m = hydae_model_create(NAME(ir, ir->model_name));
    unit->model = m;
    if (!m)
        return fail(NULL, diag, "model");
    if (hydae_model_attach(m, unit, hy_lang_unit_free_code) != 0) {
        fail(m, diag, "attach");
        hydae_model_free(m);
        unit->model = NULL;
        return -1;
    }
    for (int g = 0; g < ir->n_globals; g++) {
        const hy_ir_global *gl = &ir->globals[g];
        int index = gl->is_discrete ? hydae_model_add_discrete(m, NAME(ir, gl->name), gl->value)
                                    : hydae_model_add_param(m, NAME(ir, gl->name), gl->value);
        if (index != g || set_global_info(m, ir, g) != 0)
            return fail(m, diag, "parameters");
        if (gl->is_input)
            hy_model_mark_input(m, g);
    }
    unit->global_values = hy_calloc((size_t)ir->n_globals + 1, sizeof *unit->global_values);
    if (!unit->global_values)
        return fail_nomem(diag);
    unit->n_globals = ir->n_globals;
    for (int g = 0; g < ir->n_globals; g++)
        unit->global_values[g] = ir->globals[g].value;
    unit->modes = hy_calloc((size_t)ir->n_modes + 1, sizeof *unit->modes);
    unit->transitions = hy_calloc((size_t)ir->n_transitions + 1, sizeof *unit->transitions);
    hydae_mode **modes = hy_calloc((size_t)ir->n_modes + 1, sizeof *modes);
    hydae_chart **charts = hy_calloc((size_t)ir->n_charts + 1, sizeof *charts);
    int status = -1;
    if (!unit->modes || !unit->transitions || !modes || !charts) {
        fail_nomem(diag);
        goto done;
    }
    for (int c = 0; c < ir->n_charts; c++) {
        charts[c] = hydae_model_add_chart(m, NAME(ir, ir->charts[c].name));
        if (!charts[c]) {
            fail(m, diag, "charts");
            goto done;
        }
    }
    for (int i = 0; i < ir->n_modes; i++) {
        const hy_ir_mode *mode = &ir->modes[i];
        hydae_mode *hm = hydae_chart_add_mode(charts[mode->chart], NAME(ir, mode->name));
        modes[i] = hm;
        if (!hm) {
            fail(m, diag, "modes");
            goto done;
        }
        hy_binding *b = &unit->modes[i];
        b->ops = ops;
        b->code = ops->compile_mode(ir, i);
        b->n_unknowns = mode->n_vars;
        b->is_explicit = mode->is_explicit;
        unit->n_modes = i + 1;
        if (!b->code) {
            fail_nomem(diag);
            goto done;
        }
        int ok = 1;
        for (int k = 0; k < mode->n_vars && ok; k++) {
            const hy_ir_var *v = &mode->vars[k];
            ok = hydae_mode_add_var(hm, NAME(ir, v->name), var_kind(mode, k), v->start) == k;
            if (ok && v->start_node >= 0)
                hy_mode_set_start_computed(hm, k);  /* --set refuses it */
            if (ok && (v->rtol > 0 || v->atol > 0))
                ok = hydae_mode_set_tolerances(hm, k, v->rtol, v->atol) == 0;
            if (ok && (v->unit >= 0 || v->description >= 0))
                ok = hydae_mode_set_var_info(hm, k, text_of(ir, v->unit),
                                             text_of(ir, v->description)) == 0;
        }
        for (int k = 0; k < mode->n_outputs && ok; k++)
            ok = hydae_mode_add_output(hm, NAME(ir, mode->outputs[k].name)) == k;
        if (ok && mode->is_mechanical) {
            hydae_mechanics mech;
            memset(&mech, 0, sizeof mech);
            mech.n_q = mode->mech.n_q;
            mech.n_c = mode->mech.n_c;
            mech.mass = mass_trampoline;
            mech.force = force_trampoline;
            mech.constraint = constraint_trampoline;
            mech.constraint_jac = constraint_jac_trampoline;
            mech.constraint_t = mode->mech.constraint_t ? constraint_t_trampoline : NULL;
            mech.accel_rhs = accel_rhs_trampoline;
            mech.multiplier_matrix = multiplier_matrix_trampoline;
            ok = hydae_mode_set_mechanics(hm, &mech, b) == 0;
        } else if (ok && mode->is_explicit)
            ok = hydae_mode_set_rhs(hm, rhs_trampoline, b) == 0
                 && set_sparse_jacobian(hm, b, 1) == 0;
        else if (ok && mode->n_vars > 0)
            ok = hydae_mode_set_residual(hm, mode->n_lane_equations ? mode->n_rows
                                                                     : mode->n_equations,
                                         residual_trampoline, b) == 0
                 && set_sparse_jacobian(hm, b, 0) == 0;
        else if (ok && mode->n_equations == 0)
            ok = hydae_mode_set_residual(hm, 0, residual_trampoline, b) == 0;
        if (ok && mode->n_guards > 0)
            ok = hydae_mode_set_guards(hm, mode->n_guards, guards_trampoline) == 0;
        if (ok && mode->n_outputs > 0)
            ok = hydae_mode_set_outputs(hm, outputs_trampoline) == 0;
        if (!ok) {
            fail(m, diag, NAME(ir, mode->name));
            goto done;
        }
    }
    for (int c = 0; c < ir->n_charts; c++)
        if (ir->charts[c].initial >= 0
            && hydae_chart_set_initial(charts[c], modes[ir->charts[c].initial]) != 0) {
            fail(m, diag, "initial modes");
            goto done;
        }
    for (int c = 0; c < ir->n_charts; c++)
        if (ir->charts[c].resting >= 0
            && hydae_chart_set_resting_mode(charts[c], modes[ir->charts[c].resting]) != 0) {
            fail(m, diag, "resting modes");
            goto done;
        }
    for (int t = 0; t < ir->n_transitions; t++) {
        const hy_ir_transition *tr = &ir->transitions[t];
        hydae_transition *ht = hydae_chart_add_transition(charts[tr->chart], NAME(ir, tr->name),
                                                          modes[tr->from], modes[tr->to]);
        hy_binding *b = &unit->transitions[t];
        b->ops = ops;
        b->code = ht ? ops->compile_transition(ir, tr) : NULL;
        unit->n_transitions = t + 1;
        if (ht && !b->code) {
            fail_nomem(diag);
            goto done;
        }
        int ok = ht != NULL;
        if (ok) {
            switch (tr->trigger) {
            case HY_IR_GUARD:
                ok = hydae_transition_on_guard(ht, tr->guard, (hydae_direction)tr->direction) == 0;
                break;
            case HY_IR_TIME:
                ok = hydae_transition_on_time(ht, tr->t_event) == 0;
                break;
            case HY_IR_SAMPLE:
                ok = hydae_transition_on_sample(ht, tr->t_start, tr->period) == 0;
                break;
            case HY_IR_EVENT:
                ok = hydae_transition_on_event(ht, NAME(ir, tr->event)) == 0;
                break;
            }
        }
        if (ok && tr->priority > 0)
            ok = hydae_transition_set_priority(ht, tr->priority) == 0;
        if (ok && tr->fires_at_start)
            ok = hydae_transition_set_fires_at_start(ht, 1) == 0;
        if (ok && tr->is_hidden) /* relations kept consistent after every (re)initialisation */
            ok = hydae_transition_set_level(ht, 1) == 0;
        if (ok && tr->condition >= 0)
            ok = hydae_transition_set_condition(ht, condition_trampoline, b) == 0;
        if (ok && tr->n_stmts > 0)
            ok = hydae_transition_set_action(ht, action_trampoline, b) == 0;
        if (!ok) {
            fail(m, diag, NAME(ir, tr->name));
            goto done;
        }
    }
    if (ir->initial.n_stmts > 0) {
        unit->initial.ops = ops;
        unit->initial.code = ops->compile_transition(ir, &ir->initial);
        if (!unit->initial.code) {
            fail_nomem(diag);
            goto done;
        }
        if (hydae_model_set_initial_action(m, action_trampoline, &unit->initial) != 0) {
            fail(m, diag, "initial action");
            goto done;
        }
    }
    if (hy_lang_fmus_build(&unit->fmus, ir, m, modes, diag) != 0) /* FMU components */
        goto done;
    if (hydae_model_check(m) != 0) {
        fail(m, diag, "check");
        goto done;
    }
    status = 0;
done:
    hy_free(modes);
    hy_free(charts);
    return status;
}
