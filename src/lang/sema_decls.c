/*
** Semantic analysis, declarations: constants, parameters and discrete
** variables; the experiment's settings; the charts and their modes (the
** implicit chart, where the model-level equations go, the initial modes);
** each mode's unknowns, and the model-level unknowns shared by modes of
** several charts.
*/
#include "core/core.h"
#include "lang/sema_internal.h"

#include "integrators/integrator.h"

#include <math.h>
#include <string.h>

/* ---------------------------------------------------------------- */
/* Globals and the experiment                                       */

static int check_new_global(sema *s, int name, int line, int column)
{
    if (!valid_name(s, name))
        return 0;
    if (s->first_line[name]) {
        sema_error(s, NULL, line, column, "duplicate name '%s' (first declared at %s)", NAME(s, name),
                   sema_position(s, s->first_line[name], s->first_column[name]).text);
        return 0;
    }
    s->first_line[name] = line;
    s->first_column[name] = column;
    return 1;
}

void sema_declare_globals(sema *s)
{
    const hy_syntax *syn = s->syn;
    for (int i = 0; i < syn->n_decls; i++) {
        const hy_decl *d = &syn->decls[i];
        if (d->mode >= 0 || d->kind == DECL_VARIABLE)
            continue;
        if (!check_new_global(s, d->name, d->line, d->column))
            continue;
        int ok = 1;
        if (d->kind == DECL_CONSTANT || d->kind == DECL_PARAMETER) {
            const char *kind = d->kind == DECL_CONSTANT ? "constant" : "parameter";
            if (d->value.root < 0) {
                sema_error(s, NULL, d->line, d->column, "%s '%s' needs a value (%s Real %s = ...;)",
                           kind, NAME(s, d->name), kind, NAME(s, d->name));
                continue;
            }
            ctx c;
            memset(&c, 0, sizeof c);
            c.kind = CTX_CONST;
            c.allow_params = d->kind == DECL_PARAMETER;
            c.what = "a constant expression (numbers and constants)";
            int node = sema_lower_ref(s, &c, d->value);
            if (node < 0) {
                s->gkind[d->name] = G_INVALID;
                continue;
            }
            if (d->kind == DECL_CONSTANT || !c.uses_param) {
                double value = sema_evaluate(s, node, NULL, 0, NULL);
                if (d->kind == DECL_CONSTANT) {
                    s->gkind[d->name] = G_CONSTANT;
                    s->gref[d->name] = hy_x_num(&s->ir->dag, value);
                } else {
                    int g = sema_add_global(s, d->name, 0, value, d->line, d->column);
                    if (g < 0)
                        return;
                    s->ir->globals[g].unit = d->unit;
                    s->ir->globals[g].description = d->description;
                    s->gkind[d->name] = G_PARAMETER;
                    s->gref[d->name] = g;
                }
            } else if (d->fmu_kind) {
                /* An FMU's parameter computed from parameters: the FMU reads it
                ** by name, so it is a discrete variable computed at t0. */
                int start_node = -1;
                double start = sema_const_value_node(s, d->value, 1, NULL, &ok, &start_node);
                int g = ok ? sema_add_global(s, d->name, 1, start, d->line, d->column) : -1;
                if (g < 0) {
                    s->gkind[d->name] = G_INVALID;
                    continue;
                }
                s->ir->globals[g].start_node = start_node;
                s->gkind[d->name] = G_DISCRETE;
                s->gref[d->name] = g;
            } else {
                /* A parameter computed from parameters: inlined where used. */
                s->gkind[d->name] = G_DERIVED;
                s->gref[d->name] = node;
            }
        } else { /* discrete */
            double start = 0.0;
            int start_node = -1;
            if (d->value.root >= 0)
                start = sema_const_value_node(s, d->value, 1, NULL, &ok, &start_node);
            if (!ok) {
                s->gkind[d->name] = G_INVALID;
                continue;
            }
            int g = sema_add_global(s, d->name, 1, start, d->line, d->column);
            if (g < 0)
                return;
            s->ir->globals[g].start_node = start_node;
            s->ir->globals[g].unit = d->unit;
            s->ir->globals[g].description = d->description;
            s->ir->globals[g].is_input = d->is_input;
            s->gkind[d->name] = G_DISCRETE;
            s->gref[d->name] = g;
        }
    }
}

/* SET_WORD: a number or a string (radau_order = 9 or "auto"). */
typedef enum setting_type { SET_NUMBER, SET_STRING, SET_BOOL, SET_WORD } setting_type;

static const struct {
    const char *name;
    setting_type type;
} known_settings[] = {
    { "t0", SET_NUMBER }, { "t_end", SET_NUMBER }, { "dt", SET_NUMBER },
    { "rtol", SET_NUMBER }, { "atol", SET_NUMBER }, { "integrator_type", SET_STRING },
    { "integr_tol", SET_NUMBER }, { "h_max", SET_NUMBER }, { "h_min", SET_NUMBER },
    { "h0", SET_NUMBER }, { "h0_max", SET_NUMBER }, { "max_order", SET_NUMBER },
    { "vel_tol_factor", SET_NUMBER }, { "dae_alg_tol_factor", SET_NUMBER },
    { "dae_index", SET_NUMBER }, { "dae_constr_tol", SET_NUMBER },
    { "dae_corrector_maxit", SET_NUMBER }, { "dae_corrector_minit", SET_NUMBER },
    { "dae_vel_ctrl", SET_BOOL }, { "dae_jacob_eval", SET_NUMBER },
    { "dae_eval_expiry", SET_NUMBER }, { "dae_jacob_init", SET_NUMBER },
    { "dae_interpolation", SET_BOOL },
    { "zeno_policy", SET_STRING }, { "zeno_events", SET_NUMBER }, { "zeno_window", SET_NUMBER },
    { "radau_order", SET_WORD },
};

/* The index of `name` in known_settings, or -1. */
static int find_known_setting(const char *name)
{
    int known = -1;
    for (size_t k = 0; k < sizeof known_settings / sizeof known_settings[0]; k++)
        if (strcmp(known_settings[k].name, name) == 0)
            known = (int)k;
    return known;
}

/* The value of setting st (called name) of the given type: a number in
** *value (NAN for a string) and, if written as a string, its text in
** *text. 0, or -1 after reporting. */
static int setting_value(sema *s, const hy_setting_syn *st, const char *name, setting_type type,
                         double *value, const char **text)
{
    *value = NAN;
    *text = NULL;
    if (st->string_value >= 0) {
        *text = NAME(s, st->string_value);
        if (type == SET_BOOL && (strcmp(*text, "TRUE") == 0 || strcmp(*text, "FALSE") == 0)) {
            *value = (*text)[0] == 'T';
        } else if (type != SET_STRING && type != SET_WORD) {
            sema_error(s, NULL, st->line, st->column, "experiment setting '%s' takes a %s, not a string",
                       name, type == SET_BOOL ? "truth value (true, false)" : "number");
            return -1;
        }
        return 0;
    }
    if (type == SET_STRING) {
        sema_error(s, NULL, st->line, st->column, "experiment setting '%s' takes a string", name);
        return -1;
    }
    int ok;
    *value = sema_const_value(s, st->value, 1, NULL, &ok);
    if (!ok)
        return -1;
    if (!isfinite(*value)) {
        sema_error(s, NULL, st->line, st->column, "experiment setting '%s' is not finite", name);
        return -1;
    }
    return 0;
}

/* Param_Transient's integr_tol: RTOL = ATOL = INTEGR_TOL where not given. */
typedef struct integr_tol_setting {
    int given;
    double value;
} integr_tol_setting;

/* The setting `name` = value (text for a string) into the field of ex it
** sets, with its range checked (reported). */
static void apply_setting(sema *s, hy_lang_experiment *ex, const hy_setting_syn *st, const char *name,
                          double value, const char *text, integr_tol_setting *integr_tol)
{
    int positive = 1;
    if (strcmp(name, "t0") == 0) {
        ex->t0 = value;
        ex->has_t0 = 1;
    } else if (strcmp(name, "t_end") == 0) {
        ex->t_end = value;
        ex->has_t_end = 1;
    } else if (strcmp(name, "dt") == 0) {
        ex->dt = value;
        ex->has_dt = 1;
        positive = value > 0;
    } else if (strcmp(name, "rtol") == 0) {
        ex->rtol = value;
        ex->has_rtol = 1;
        positive = value > 0;
    } else if (strcmp(name, "atol") == 0) {
        ex->atol = value;
        ex->has_atol = 1;
        positive = value > 0;
    } else if (strcmp(name, "integr_tol") == 0) {
        integr_tol->value = value;
        integr_tol->given = 1;
        positive = value > 0;
    } else if (strcmp(name, "h_max") == 0) {
        ex->h_max = value;
        ex->has_h_max = 1;
        positive = value > 0;
    } else if (strcmp(name, "h_min") == 0) {
        ex->h_min = value;
        ex->has_h_min = 1;
        positive = value >= 0;
    } else if (strcmp(name, "h0") == 0 || strcmp(name, "h0_max") == 0) {
        ex->h0 = value;
        ex->has_h0 = 1;
        positive = value > 0;
    } else if (strcmp(name, "max_order") == 0) {
        if (value != floor(value) || value < 1 || value > 12) {
            sema_error(s, NULL, st->line, st->column, "max_order must be an integer from 1 to 12");
            return;
        }
        ex->max_order = (int)value;
        ex->has_max_order = 1;
    } else if (strcmp(name, "integrator_type") == 0) {
        snprintf(ex->integrator_type, sizeof ex->integrator_type, "%s", text ? text : "");
        ex->has_integrator_type = 1;
    }
    if (!positive)
        sema_error(s, NULL, st->line, st->column, "experiment setting '%s' must be positive", name);
}

void sema_read_experiment(sema *s, hy_lang_experiment *ex)
{
    const hy_syntax *syn = s->syn;
    hy_lang_experiment local;
    if (!ex)
        ex = &local;
    memset(ex, 0, sizeof *ex);
    integr_tol_setting integr_tol = { 0, 0.0 };
    for (int i = 0; i < syn->n_settings; i++) {
        const hy_setting_syn *st = &syn->settings[i];
        const char *name = NAME(s, st->name);
        int known = find_known_setting(name);
        if (known < 0) {
            sema_error(s, NULL, st->line, st->column,
                       "unknown experiment setting '%s' (known: t0, t_end, dt, rtol, atol, "
                       "integrator_type, integr_tol, h_max, h_min, h0, h0_max, max_order, radau_order, "
                       "zeno_policy, zeno_events, zeno_window, and the Param_Transient dae_* settings)",
                       name);
            continue;
        }
        int duplicate = 0;
        for (int k = 0; k < ex->n_settings; k++)
            if (strcmp(ex->settings[k].name, name) == 0)
                duplicate = 1;
        if (duplicate) {
            sema_error(s, NULL, st->line, st->column, "experiment setting '%s' is given twice", name);
            continue;
        }
        if (ex->n_settings >= HY_LANG_MAX_SETTINGS)
            continue;
        setting_type type = known_settings[known].type;
        double value;
        const char *text;
        if (setting_value(s, st, name, type, &value, &text) != 0)
            continue;
        hy_lang_setting *out = &ex->settings[ex->n_settings++];
        snprintf(out->name, sizeof out->name, "%s", name);
        if (text && (type == SET_STRING || type == SET_WORD))
            snprintf(out->value, sizeof out->value, "%s", text);
        else
            snprintf(out->value, sizeof out->value, "%.17g", value);
        out->is_string = type == SET_STRING || (type == SET_WORD && text);
        out->line = st->line;
        out->column = st->column;
        apply_setting(s, ex, st, name, value, text, &integr_tol);
    }
    if (integr_tol.given) {
        if (!ex->has_rtol) {
            ex->rtol = integr_tol.value;
            ex->has_rtol = 1;
        }
        if (!ex->has_atol) {
            ex->atol = integr_tol.value;
            ex->has_atol = 1;
        }
    }
    if (ex->has_t_end && ex->t_end <= (ex->has_t0 ? ex->t0 : 0.0))
        sema_error(s, NULL, syn->line, syn->column, "the experiment's t_end must be after t0");
    s->t0 = ex->has_t0 ? ex->t0 : 0.0;
}

/* ---------------------------------------------------------------- */
/* Charts and modes                                                 */

static int add_chart(sema *s, int name, int line, int column)
{
    hy_ir *ir = s->ir;
    if (GROW(s, ir->charts, ir->n_charts, ir->cap_charts))
        return -1;
    hy_ir_chart *ch = &ir->charts[ir->n_charts];
    ch->name = name;
    ch->line = line;
    ch->column = column;
    ch->initial = -1;
    ch->resting = -1;
    return ir->n_charts++;
}

static int add_mode(sema *s, int name, int line, int column, int chart, int syntax_index)
{
    hy_ir *ir = s->ir;
    if (GROW(s, ir->modes, ir->n_modes, ir->cap_modes))
        return -1;
    hy_ir_mode *m = &ir->modes[ir->n_modes];
    memset(m, 0, sizeof *m);
    m->name = name;
    m->line = line;
    m->column = column;
    m->chart = chart;
    m->syntax_index = syntax_index;
    if (syntax_index >= 0) {
        m->entry = s->syn->modes[syntax_index].entry;
        m->exit = s->syn->modes[syntax_index].exit;
        m->start_entry = s->syn->modes[syntax_index].start_entry;
    }
    return ir->n_modes++;
}

/* Does the syntax scope `scope` (a syntax mode index, -1 model level)
** contribute to IR mode m? */
int sema_scope_in_mode(const sema *s, int scope, int m)
{
    const hy_ir_mode *mode = &s->ir->modes[m];
    if (scope >= 0)
        return mode->syntax_index == scope;
    return mode->chart == s->shared_mode_chart;
}

/* The implicit chart (if needed: it comes first) and the declared charts
** and modes, in their order, with duplicates reported. 0, or -1 when out
** of memory. */
static int add_declared_charts(sema *s, int need_implicit)
{
    const hy_syntax *syn = s->syn;
    hy_ir *ir = s->ir;
    s->implicit_chart = -1;
    if (need_implicit) {
        s->implicit_chart = add_chart(s, sema_intern(s, "main"), syn->line, syn->column);
        if (s->implicit_chart < 0)
            return -1;
    }
    int *chart_of_syntax = hy_calloc((size_t)syn->n_charts + 1, sizeof *chart_of_syntax);
    if (!chart_of_syntax) {
        hy_diag_nomem(s->diag);
        s->n_errors++;
        return -1;
    }
    for (int i = 0; i < syn->n_charts; i++) {
        const hy_chart_syn *c = &syn->charts[i];
        for (int k = 0; k < i; k++)
            if (syn->charts[k].name == c->name)
                sema_error(s, NULL, c->line, c->column, "duplicate chart '%s' (first declared at %s)",
                           NAME(s, c->name), sema_position(s, syn->charts[k].line, syn->charts[k].column).text);
        chart_of_syntax[i] = add_chart(s, c->name, c->line, c->column);
    }
    for (int i = 0; i < syn->n_modes; i++) {
        const hy_mode_syn *ms = &syn->modes[i];
        int chart = ms->chart < 0 ? s->implicit_chart : chart_of_syntax[ms->chart];
        for (int m = 0; m < ir->n_modes; m++)
            if (ir->modes[m].chart == chart && ir->modes[m].name == ms->name)
                sema_error(s, NULL, ms->line, ms->column, "duplicate mode '%s' (first declared at %s)",
                           NAME(s, ms->name), sema_position(s, ir->modes[m].line, ir->modes[m].column).text);
        if (add_mode(s, ms->name, ms->line, ms->column, chart, i) < 0)
            break;
    }
    hy_free(chart_of_syntax);
    if (s->diag->out_of_memory) /* a chart or mode missing: modes may have chart -1 */
        return -1;
    return 0;
}

/* Where the model-level variables and equations go (s->shared_mode_chart):
** the one mode of a model without modes, the only chart with modes, or,
** with several such charts, a chart of their own. */
static void place_model_level(sema *s, int has_shared)
{
    const hy_syntax *syn = s->syn;
    hy_ir *ir = s->ir;
    int model_name = syn->model_name;
    int n_charts_with_modes = 0, only_chart = -1;
    for (int c = 0; c < ir->n_charts; c++) {
        int has = 0;
        for (int m = 0; m < ir->n_modes; m++)
            has |= ir->modes[m].chart == c;
        if (has) {
            n_charts_with_modes++;
            only_chart = c;
        }
    }
    s->shared_mode_chart = -1;
    if (n_charts_with_modes == 0) {
        /* No modes: the model's equations are its one mode. */
        int chart = s->implicit_chart >= 0 ? s->implicit_chart
                                           : add_chart(s, sema_intern(s, "main"), syn->line, syn->column);
        if (chart >= 0 && add_mode(s, model_name, syn->line, syn->column, chart, -1) >= 0)
            s->shared_mode_chart = chart;
    } else if (n_charts_with_modes == 1) {
        s->shared_mode_chart = only_chart;
    } else if (has_shared) {
        /* Several charts: the model-level equations form a chart of their own. */
        int chart = add_chart(s, model_name, syn->line, syn->column);
        if (chart >= 0 && add_mode(s, model_name, syn->line, syn->column, chart, -1) >= 0)
            s->shared_mode_chart = chart;
    }
}

/* Charts without modes (an empty explicit chart) are refused. */
static void check_empty_charts(sema *s)
{
    hy_ir *ir = s->ir;
    for (int c = 0; c < ir->n_charts; c++) {
        int has = 0;
        for (int m = 0; m < ir->n_modes; m++)
            has |= ir->modes[m].chart == c;
        if (!has && c != s->implicit_chart)
            sema_error(s, NULL, ir->charts[c].line, ir->charts[c].column, "chart '%s' has no modes",
                       NAME(s, ir->charts[c].name));
    }
}

/* Each chart's resting mode: the one marked `resting`, at most one. */
static void choose_resting_modes(sema *s)
{
    const hy_syntax *syn = s->syn;
    hy_ir *ir = s->ir;
    for (int m = 0; m < ir->n_modes; m++) {
        const hy_ir_mode *mode = &ir->modes[m];
        hy_ir_chart *chart = &ir->charts[mode->chart];
        if (mode->syntax_index < 0 || !syn->modes[mode->syntax_index].is_resting)
            continue;
        const hy_mode_syn *ms = &syn->modes[mode->syntax_index];
        if (chart->resting >= 0)
            sema_error(s, NULL, ms->resting_line, ms->resting_column,
                       "chart '%s' has two resting modes ('%s' and '%s'): the one entered when "
                       "events accumulate must be unique", NAME(s, chart->name),
                       NAME(s, ir->modes[chart->resting].name), NAME(s, mode->name));
        else
            chart->resting = m;
        if (ms->entry.line > 0)
            hy_diag_warning(s->diag, ms->entry.line, ms->entry.column,
                            "the entry actions of resting mode '%s' run only when a transition "
                            "enters it, not when events accumulate (zeno_policy = \"rest\")",
                            NAME(s, mode->name));
    }
}

/* Each chart's initial mode: the one marked `initial`, else its first. */
static void choose_initial_modes(sema *s)
{
    const hy_syntax *syn = s->syn;
    hy_ir *ir = s->ir;
    for (int m = 0; m < ir->n_modes; m++) {
        hy_ir_mode *mode = &ir->modes[m];
        hy_ir_chart *chart = &ir->charts[mode->chart];
        int marked = mode->syntax_index >= 0 && syn->modes[mode->syntax_index].is_initial;
        if (marked) {
            if (chart->initial >= 0 && ir->modes[chart->initial].syntax_index >= 0
                && syn->modes[ir->modes[chart->initial].syntax_index].is_initial)
                sema_error(s, NULL, mode->line, mode->column,
                           "chart '%s' has two initial modes ('%s' and '%s')", NAME(s, chart->name),
                           NAME(s, ir->modes[chart->initial].name), NAME(s, mode->name));
            else
                chart->initial = m;
        } else if (chart->initial < 0) {
            chart->initial = m;
        }
    }
}

void sema_build_charts(sema *s)
{
    const hy_syntax *syn = s->syn;
    int has_top_modes = 0, has_shared = 0, has_top_transitions = 0;
    for (int i = 0; i < syn->n_modes; i++)
        if (syn->modes[i].chart < 0)
            has_top_modes = 1;
    for (int i = 0; i < syn->n_decls; i++)
        if (syn->decls[i].mode < 0 && syn->decls[i].kind == DECL_VARIABLE)
            has_shared = 1;
    for (int i = 0; i < syn->n_equations; i++)
        if (syn->equations[i].mode < 0)
            has_shared = 1;
    for (int i = 0; i < syn->n_transitions; i++)
        if (syn->transitions[i].chart < 0)
            has_top_transitions = 1;
    int need_implicit = has_top_modes || has_top_transitions || syn->n_charts == 0;
    if (add_declared_charts(s, need_implicit) != 0)
        return;
    place_model_level(s, has_shared);
    check_empty_charts(s);
    choose_initial_modes(s);
    choose_resting_modes(s);
}

/* ---------------------------------------------------------------- */
/* Variables                                                        */

int sema_find_var(const hy_ir_mode *mode, int name)
{
    for (int k = 0; k < mode->n_vars; k++)
        if (mode->vars[k].name == name)
            return k;
    return -1;
}

/* Per name, the index of the unknown of that name in the mode being
** declared (cur) and in the mode before it (prev), else -1: duplicate
** checks and copies in O(1), so a mode of 10^5 unknowns declares in
** linear time. */
typedef struct var_index {
    int *cur, *prev;
} var_index;

/* Start value, start node and tolerances of v from declaration d (those
** of the same model-level variable in the previous mode when quiet).
** 0, or -1 after reporting (v's start is then NaN). */
static int variable_values(sema *s, const hy_decl *d, int m, int quiet, const var_index *ix,
                           hy_ir_var *v)
{
    int ok = 1;
    int previous = quiet ? ix->prev[d->name] : -1;
    if (d->value.root >= 0 && previous >= 0) {
        const hy_ir_var *first = &s->ir->modes[m - 1].vars[previous];
        v->start = first->start;
        v->start_node = first->start_node;
    } else if (d->value.root >= 0) {
        v->start = sema_const_value_node(s, d->value, 1, NULL, &ok, &v->start_node);
        if (!ok)
            v->start = NAN;
    }
    if (ok && d->rtol.root >= 0)
        v->rtol = sema_const_value(s, d->rtol, 1, NULL, &ok);
    if (ok && d->atol.root >= 0)
        v->atol = sema_const_value(s, d->atol, 1, NULL, &ok);
    return ok ? 0 : -1;
}

/* Declaration d as an unknown of mode m, unless it is refused (reported
** unless quiet: the model-level variable was already reported in the
** previous mode of the chart). -1 only when out of memory. */
static int declare_variable(sema *s, int m, const hy_decl *d, int quiet, var_index *ix)
{
    hy_ir *ir = s->ir;
    hy_ir_mode *mode = &ir->modes[m];
    if (s->first_line[d->name]) {
        if (!quiet)
            sema_error(s, NULL, d->line, d->column, "duplicate name '%s' (first declared at %s)",
                       NAME(s, d->name), sema_position(s, s->first_line[d->name], s->first_column[d->name]).text);
        return 0;
    }
    int previous = ix->cur[d->name];
    if (previous >= 0) {
        sema_error(s, NULL, d->line, d->column, "duplicate name '%s' (first declared at %s)",
                   NAME(s, d->name),
                   sema_position(s, mode->vars[previous].line, mode->vars[previous].column).text);
        return 0;
    }
    int owner = s->owner_mode[d->name];
    if (owner >= 0 && ir->modes[owner].chart != mode->chart) {
        if (!quiet)
            sema_error(s, NULL, d->line, d->column,
                       "'%s' is declared in modes of two charts ('%s' of chart '%s' "
                       "and '%s' of chart '%s'); values move between modes by name, "
                       "so each name belongs to one chart",
                       NAME(s, d->name), NAME(s, ir->modes[owner].name),
                       NAME(s, ir->charts[ir->modes[owner].chart].name),
                       NAME(s, mode->name), NAME(s, ir->charts[mode->chart].name));
        return 0;
    }
    if (GROW(s, mode->vars, mode->n_vars, mode->cap_vars))
        return -1;
    hy_ir_var *v = &mode->vars[mode->n_vars];
    memset(v, 0, sizeof *v);
    v->name = d->name;
    v->unit = d->unit;
    v->description = d->description;
    v->line = d->line;
    v->column = d->column;
    v->start_node = -1;
    /* A refused value was reported; the unknown is declared all the same,
    ** so its uses do not report it again as undefined. */
    (void)variable_values(s, d, m, quiet, ix, v);
    if (d->fmu_kind) { /* an FMU gives its equations (fmu_component.c) */
        v->is_shared = 1;
        v->is_external = 1;
        v->is_differential = d->fmu_kind == HY_FMU_STATE;
        mode->n_shared++;
    }
    ix->cur[d->name] = mode->n_vars++;
    if (owner < 0)
        s->owner_mode[d->name] = m;
    return 0;
}

/* After mode m: its indices become the previous mode's. */
static void shift_var_index(const hy_ir *ir, int m, var_index *ix)
{
    if (m > 0)
        for (int k = 0; k < ir->modes[m - 1].n_vars; k++)
            ix->prev[ir->modes[m - 1].vars[k].name] = -1;
    for (int k = 0; k < ir->modes[m].n_vars; k++) {
        int name = ir->modes[m].vars[k].name;
        ix->prev[name] = ix->cur[name];
        ix->cur[name] = -1;
    }
}

void sema_declare_variables(sema *s)
{
    const hy_syntax *syn = s->syn;
    hy_ir *ir = s->ir;
    var_index ix;
    ix.cur = hy_malloc(sizeof *ix.cur * 2 * ((size_t)s->n_names + 1));
    if (!ix.cur) {
        hy_diag_nomem(s->diag);
        s->n_errors++;
        return;
    }
    ix.prev = ix.cur + s->n_names + 1;
    for (int i = 0; i < 2 * (s->n_names + 1); i++)
        ix.cur[i] = -1;
    for (int m = 0; m < ir->n_modes; m++) {
        /* Model-level variables first, then the mode's own. */
        for (int pass = 0; pass < 2; pass++) {
            for (int i = 0; i < syn->n_decls; i++) {
                const hy_decl *d = &syn->decls[i];
                if (d->kind != DECL_VARIABLE || (pass == 0) != (d->mode < 0)
                    || !sema_scope_in_mode(s, d->mode, m) || !valid_name(s, d->name))
                    continue;
                int quiet = d->mode < 0 && m > 0 && ir->modes[m - 1].chart == ir->modes[m].chart;
                if (declare_variable(s, m, d, quiet, &ix) != 0) {
                    hy_free(ix.cur);
                    return;
                }
            }
        }
        shift_var_index(ir, m, &ix);
        /* Output names: known as belonging to the mode. */
        for (int i = 0; i < syn->n_equations; i++) {
            const hy_equation_syn *eq = &syn->equations[i];
            if (eq->output_name < 0 || !sema_scope_in_mode(s, eq->mode, m) || !valid_name(s, eq->output_name))
                continue;
            if (s->owner_mode[eq->output_name] < 0)
                s->owner_mode[eq->output_name] = m;
        }
    }
    hy_free(ix.cur);
}

/* Mark the names of nodes [first, root] that are variables of the model
** chart's mode (model_var[name] >= 0) and not yet in mode m: add them. */
static int share_names_in(sema *s, int m, hy_expr_ref e, const int *model_var, int model_mode,
                          unsigned stamp)
{
    hy_ir *ir = s->ir;
    for (int j = e.root >= 0 ? e.first : 0; e.root >= 0 && j <= e.root; j++) {
        const hy_syn *node = &s->syn->nodes[j];
        if (node->op != SYN_NAME || !valid_name(s, node->name) || model_var[node->name] < 0
            || s->mark[node->name] == stamp)
            continue;
        s->mark[node->name] = stamp;
        hy_ir_mode *mode = &ir->modes[m];
        if (sema_find_var(mode, node->name) >= 0)
            continue; /* a mode-local of the same name: reported as a duplicate */
        if (GROW(s, mode->vars, mode->n_vars, mode->cap_vars))
            return -1;
        hy_ir_var *model_copy = &ir->modes[model_mode].vars[model_var[node->name]];
        model_copy->is_shared = 1;
        mode->vars[mode->n_vars] = *model_copy;
        mode->n_vars++;
        mode->n_shared++;
    }
    return 0;
}

/* Several charts with modes: the model-level variables a mode of another
** chart uses (in its equations, outputs and the triggers of the
** transitions leaving it) become its variables too, shared with the model
** chart's mode (one unknown of every configuration, seed 000 section 4). */
void sema_share_model_variables(sema *s)
{
    const hy_syntax *syn = s->syn;
    hy_ir *ir = s->ir;
    int model_mode = -1, n_in_chart = 0;
    for (int m = 0; m < ir->n_modes; m++)
        if (ir->modes[m].chart == s->shared_mode_chart) {
            model_mode = m;
            n_in_chart++;
        }
    if (model_mode < 0 || n_in_chart != 1 || ir->n_charts < 2)
        return;
    if (ir->modes[model_mode].syntax_index >= 0)
        return; /* one chart of modes receives the model level: nothing is shared */
    int *model_var = hy_malloc(sizeof *model_var * ((size_t)s->n_names + 1));
    if (!model_var) {
        hy_diag_nomem(s->diag);
        s->n_errors++;
        return;
    }
    for (int i = 0; i <= s->n_names; i++)
        model_var[i] = -1;
    for (int k = 0; k < ir->modes[model_mode].n_vars; k++)
        model_var[ir->modes[model_mode].vars[k].name] = k;
    for (int m = 0; m < ir->n_modes; m++) {
        const hy_ir_mode *mode = &ir->modes[m];
        if (mode->chart == s->shared_mode_chart || mode->syntax_index < 0)
            continue;
        unsigned stamp = sema_next_mark(s);
        int failed = 0;
        for (int i = 0; i < syn->n_equations && !failed; i++) {
            const hy_equation_syn *eq = &syn->equations[i];
            if (eq->mode != mode->syntax_index)
                continue;
            failed = share_names_in(s, m, eq->lhs, model_var, model_mode, stamp) != 0
                     || share_names_in(s, m, eq->rhs, model_var, model_mode, stamp) != 0;
        }
        for (int i = 0; i < ir->n_transitions && !failed; i++)
            if (ir->transitions[i].from == m)
                failed = share_names_in(s, m, syn->transitions[i].when, model_var, model_mode,
                                        stamp) != 0;
        if (failed)
            break;
    }
    for (int k = 0; k < ir->modes[model_mode].n_vars; k++)
        ir->modes[model_mode].n_shared += ir->modes[model_mode].vars[k].is_shared;
    hy_free(model_var);
}

/* Modes sharing unknowns are residuals of their configuration's DAE:
** an experiment naming an integrator of explicit ODEs only is refused
** here, where the setting can be pointed at (DSTIFF, the default, runs
** them). */
void sema_check_integrator(sema *s)
{
    const hy_syntax *syn = s->syn;
    int shared = -1;
    for (int m = 0; m < s->ir->n_modes && shared < 0; m++)
        if (s->ir->modes[m].n_shared > 0 && s->ir->modes[m].syntax_index >= 0)
            shared = m;
    if (shared < 0)
        return;
    for (int i = 0; i < syn->n_settings; i++) {
        const hy_setting_syn *st = &syn->settings[i];
        if (st->string_value < 0 || strcmp(NAME(s, st->name), "integrator_type") != 0)
            continue;
        const hy_integrator_ops *method = hy_integrator_find(NAME(s, st->string_value));
        if (method && method->needs_rhs)
            sema_error(s, NULL, st->line, st->column,
                       "integrator_type \"%s\" solves explicit ODEs y' = f(t, y) only, but the "
                       "modes of chart '%s' share unknowns with other charts (their equations "
                       "join one DAE): use DSTIFF, the default",
                       NAME(s, st->string_value),
                       NAME(s, s->ir->charts[s->ir->modes[shared].chart].name));
    }
}
