/*
** Semantic analysis, transitions: their endpoints, triggers (zero
** crossings, time and sample events, events), priorities, conditions and
** actions (with the modes' exit and entry actions); the initial action;
** the generated transitions that toggle hidden condition variables; and
** the checks on the result: unreachable modes, events nobody raises or
** waits for.
*/
#include "core/core.h"
#include "lang/sema_internal.h"

#include <math.h>
#include <string.h>

/* ---------------------------------------------------------------- */
/* Transitions: endpoints, triggers, guards                         */

static int find_mode(const sema *s, int chart, int name)
{
    for (int m = 0; m < s->ir->n_modes; m++)
        if (s->ir->modes[m].chart == chart && s->ir->modes[m].name == name)
            return m;
    return -1;
}

static int transition_chart(const sema *s, const hy_transition_syn *ts)
{
    if (ts->chart >= 0) {
        /* Explicit charts follow the implicit one (if any) in order. */
        return ts->chart + (s->implicit_chart >= 0 ? 1 : 0);
    }
    return s->implicit_chart;
}

/* Two transitions made from one `from * to M` (parse_model.c) or from one
** transition of a hierarchical chart (hierarchy.c) share its position. */
static int copies_of_one_any(const hy_transition_syn *a, const hy_transition_syn *b)
{
    return ((a->from_any && b->from_any) || (a->is_copy && b->is_copy)) && a->line == b->line
           && a->column == b->column;
}

/* `from * to M` that the parser left as it was: M is no mode of the chart,
** or the chart has no other. */
static void any_not_expanded(sema *s, const hy_transition_syn *ts, int chart)
{
    const hy_ir *ir = s->ir;
    int implicit = chart == s->implicit_chart;
    const char *chart_name = NAME(s, ir->charts[chart].name);
    if (find_mode(s, chart, ts->to) < 0)
        sema_error(s, NULL, ts->to_line, ts->to_column,
                   "transition '%s' enters unknown mode '%s'%s%s%s", NAME(s, ts->name),
                   NAME(s, ts->to), implicit ? "" : " (chart '", implicit ? "" : chart_name,
                   implicit ? "" : "')");
    else
        sema_error(s, NULL, ts->from_line, ts->from_column,
                   "transition '%s' from '*' leaves no mode: its chart has no mode but '%s'",
                   NAME(s, ts->name), NAME(s, ts->to));
}

void sema_resolve_transitions(sema *s)
{
    const hy_syntax *syn = s->syn;
    hy_ir *ir = s->ir;
    for (int i = 0; i < syn->n_transitions; i++) {
        const hy_transition_syn *ts = &syn->transitions[i];
        if (GROW(s, ir->transitions, ir->n_transitions, ir->cap_transitions))
            return;
        hy_ir_transition *tr = &ir->transitions[ir->n_transitions++];
        memset(tr, 0, sizeof *tr);
        tr->name = ts->name;
        tr->line = ts->line;
        tr->column = ts->column;
        tr->from = tr->to = -1;
        tr->condition = -1;
        tr->guard = -1;
        tr->chart = transition_chart(s, ts);
        for (int k = 0; k < i; k++)
            if (syn->transitions[k].name == ts->name && transition_chart(s, &syn->transitions[k]) == tr->chart
                && !copies_of_one_any(&syn->transitions[k], ts))
                sema_error(s, NULL, ts->line, ts->column,
                           "duplicate transition '%s' (first declared at %s)", NAME(s, ts->name),
                           sema_position(s, syn->transitions[k].line, syn->transitions[k].column).text);
        if (tr->chart < 0)
            continue;
        if (ts->from_any && ts->from < 0) {
            any_not_expanded(s, ts, tr->chart);
            continue;
        }
        if (ts->from < 0) {
            int n = 0, only = -1;
            for (int m = 0; m < ir->n_modes; m++)
                if (ir->modes[m].chart == tr->chart) {
                    n++;
                    only = m;
                }
            if (n != 1)
                sema_error(s, NULL, ts->line, ts->column,
                           "transition '%s' needs 'from MODE to MODE': its chart has %d modes",
                           NAME(s, ts->name), n);
            tr->from = tr->to = n == 1 ? only : -1;
            continue;
        }
        tr->from = find_mode(s, tr->chart, ts->from);
        tr->to = find_mode(s, tr->chart, ts->to);
        const char *chart_name = NAME(s, ir->charts[tr->chart].name);
        int implicit = tr->chart == s->implicit_chart; /* else: " (chart 'NAME')" */
        if (tr->from < 0)
            sema_error(s, NULL, ts->from_line, ts->from_column,
                       "transition '%s' leaves unknown mode '%s'%s%s%s", NAME(s, ts->name),
                       NAME(s, ts->from), implicit ? "" : " (chart '", implicit ? "" : chart_name,
                       implicit ? "" : "')");
        if (tr->to < 0)
            sema_error(s, NULL, ts->to_line, ts->to_column,
                       "transition '%s' enters unknown mode '%s'%s%s%s", NAME(s, ts->name),
                       NAME(s, ts->to), implicit ? "" : " (chart '", implicit ? "" : chart_name,
                       implicit ? "" : "')");
    }
}

/* `priority N` and `initial` of transition i. */
void sema_transition_options(sema *s, int i)
{
    const hy_transition_syn *ts = &s->syn->transitions[i];
    hy_ir_transition *tr = &s->ir->transitions[i];
    if (ts->priority_line > 0) {
        if (!(ts->priority >= 1.0 && ts->priority <= 1e6 && ts->priority == floor(ts->priority)))
            sema_error(s, NULL, ts->priority_line, ts->priority_column, "priority %g of "
                       "transition '%s': want a whole number from 1 (fires first) to 1e6",
                       ts->priority, NAME(s, ts->name));
        else
            tr->priority = (int)ts->priority;
    }
    if (ts->fires_at_start) {
        if (tr->trigger == HY_IR_GUARD && tr->direction == HYDAE_BOTH)
            sema_error(s, NULL, ts->initial_line, ts->initial_column, "'initial' of transition "
                       "'%s' needs a one-way trigger (a < b or a > b): crosses() has no side "
                       "that the guard could already be past at the start", NAME(s, ts->name));
        else if (tr->trigger != HY_IR_GUARD)
            sema_error(s, NULL, ts->initial_line, ts->initial_column, "'initial' of transition "
                       "'%s' needs a zero-crossing trigger (a < b): it makes the crossing fire at "
                       "the start when the guard is already past zero", NAME(s, ts->name));
        tr->fires_at_start = 1;
    }
}

/* A guard g (DAG node) of tr's from-mode that fires tr (written ts) when
** crossing zero in direction; reported at (line, column) if it can never
** cross. */
static void set_guard(sema *s, const hy_transition_syn *ts, hy_ir_transition *tr, int g,
                      int direction, int line, int column)
{
    hy_ir *ir = s->ir;
    if (!(hy_x_node(&ir->dag, g).deps & HY_DEP_STATE)) {
        sema_error(s, NULL, line, column,
                   "this trigger does not depend on the mode's unknowns or on time, so it never "
                   "crosses zero; use 'event NAME' or a condition after 'and'%s%s%s",
                   ts->from_any ? " (in mode '" : "",
                   ts->from_any ? NAME(s, ir->modes[tr->from].name) : "",
                   ts->from_any ? "', one of those 'from *' leaves)" : "");
        return;
    }
    tr->trigger = HY_IR_GUARD;
    tr->guard = sema_add_guard(s, &ir->modes[tr->from], g);
    tr->direction = direction;
}

/* `crosses(x)`: x crossing zero in either direction (HYDAE_BOTH). The
** argument is an expression, not a relation: crosses(a - b). */
static void compile_crossing(sema *s, const hy_transition_syn *ts, hy_ir_transition *tr,
                             const hy_syn *T, int first)
{
    const hy_syntax *syn = s->syn;
    if (T->n_args != 1) {
        sema_error(s, NULL, T->line, T->column, "crosses() takes 1 argument (the expression "
                   "whose zero crossings in either direction fire), got %d", T->n_args);
        return;
    }
    const hy_syn *arg = &syn->nodes[T->a];
    if ((arg->op >= SYN_LT && arg->op <= SYN_OR) || arg->op == SYN_NOT) {
        sema_error(s, NULL, arg->line, arg->column, "crosses() takes an expression that crosses "
                   "zero, not a relation: write crosses(a - b) for a = b crossed either way");
        return;
    }
    ctx c;
    memset(&c, 0, sizeof c);
    c.kind = CTX_GUARD;
    c.mode = tr->from;
    int g = sema_lower(s, &c, first, T->a);
    if (g >= 0)
        set_guard(s, ts, tr, g, HYDAE_BOTH, T->line, T->column);
}

/* The trigger of transition i (syntax), in its from-mode's context. */
void sema_compile_trigger(sema *s, int i)
{
    const hy_syntax *syn = s->syn;
    hy_ir *ir = s->ir;
    const hy_transition_syn *ts = &syn->transitions[i];
    hy_ir_transition *tr = &ir->transitions[i];
    int first = ts->when.first, t_node = ts->when.root;
    if (t_node < 0)
        return;
    while (syn->nodes[t_node].op == SYN_AND)
        t_node = syn->nodes[t_node].a;
    const hy_syn *T = &syn->nodes[t_node];
    ctx c;
    memset(&c, 0, sizeof c);
    c.kind = CTX_GUARD;
    c.mode = tr->from;
    if (T->op == SYN_EVENT) {
        tr->trigger = HY_IR_EVENT;
        tr->event = T->name;
        return;
    }
    if (T->op == SYN_CALL && strcmp(NAME(s, T->name), "sample") == 0) {
        if (T->n_args != 2) {
            sema_error(s, NULL, T->line, T->column, "sample() takes 2 arguments (start, period), got %d",
                       T->n_args);
            return;
        }
        ctx cc;
        memset(&cc, 0, sizeof cc);
        cc.kind = CTX_CONST;
        cc.what = "a constant (numbers and constants: a sample clock is fixed when the model is compiled)";
        int start = sema_lower(s, &cc, first, T->a);
        int period = sema_lower(s, &cc, T->a + 1, T->b);
        if (start < 0 || period < 0)
            return;
        tr->trigger = HY_IR_SAMPLE;
        tr->t_start = sema_evaluate(s, start, NULL, 0, NULL);
        tr->period = sema_evaluate(s, period, NULL, 0, NULL);
        if (!(tr->period > 0.0) || !isfinite(tr->t_start))
            sema_error(s, NULL, T->line, T->column, "sample() needs a finite start and a positive period");
        else if (!(tr->period > 2.0 * hy_time_tol(tr->t_start)))
            sema_error(s, NULL, T->line, T->column, "sample() period %g is below the time "
                       "resolution of event times near t = %g (%g): its ticks cannot be told "
                       "apart", tr->period, tr->t_start, 2.0 * hy_time_tol(tr->t_start));
        return;
    }
    if (T->op == SYN_CALL && strcmp(NAME(s, T->name), "crosses") == 0) {
        compile_crossing(s, ts, tr, T, first);
        return;
    }
    if (T->op == SYN_EQ || T->op == SYN_NE) {
        sema_error(s, NULL, T->line, T->column,
                   "a zero-crossing trigger needs <, <=, > or >= ('%s' is never met exactly)",
                   T->op == SYN_EQ ? "==" : "<>");
        return;
    }
    if (T->op != SYN_LT && T->op != SYN_LE && T->op != SYN_GT && T->op != SYN_GE) {
        sema_error(s, NULL, T->line, T->column,
                   "a transition trigger must be a relation (a < b), 'crosses(a - b)', "
                   "'time >= c', 'sample(start, period)' or 'event NAME'");
        return;
    }
    const hy_syn *lhs = &syn->nodes[T->a], *rhs = &syn->nodes[T->b];
    int is_time_event = (lhs->op == SYN_TIME && (T->op == SYN_GE || T->op == SYN_GT))
                        || (rhs->op == SYN_TIME && (T->op == SYN_LE || T->op == SYN_LT));
    if (is_time_event) {
        /* `time >= c` with c constant: a time event (else a guard). */
        ctx cc;
        memset(&cc, 0, sizeof cc);
        cc.kind = CTX_CONST;
        cc.allow_params = 1;
        int other = lhs->op == SYN_TIME ? sema_lower(s, &cc, T->a + 1, T->b) : sema_lower(s, &cc, first, T->a);
        if (other < 0)
            return;
        if (!cc.uses_param) {
            tr->trigger = HY_IR_TIME;
            tr->t_event = sema_evaluate(s, other, NULL, 0, NULL);
            return;
        }
    }
    int a = sema_lower(s, &c, first, T->a);
    int b = sema_lower(s, &c, T->a + 1, T->b);
    if (a < 0 || b < 0)
        return;
    int g = hy_x_binary(&ir->dag, X_SUB, a, b);
    if (g < 0)
        return;
    set_guard(s, ts, tr, g, (T->op == SYN_LT || T->op == SYN_LE) ? HYDAE_FALLING : HYDAE_RISING,
              T->line, T->column);
}

/* ---------------------------------------------------------------- */
/* Actions                                                          */

static int target_ok(sema *s, const ctx *c, int target, int to_mode, int line, int column)
{
    hy_ir *ir = s->ir;
    if (!valid_name(s, target))
        return 0;
    switch ((global_kind)s->gkind[target]) {
    case G_PARAMETER:
    case G_DISCRETE:
        return 1;
    case G_CONSTANT:
        sema_error(s, c, line, column, "cannot assign to constant '%s'", NAME(s, target));
        return 0;
    case G_DERIVED:
        sema_error(s, c, line, column,
                   "cannot assign to '%s': it is computed from other parameters", NAME(s, target));
        return 0;
    case G_INVALID:
        return 0; /* its declaration was reported */
    default:
        break;
    }
    if (to_mode >= 0 && sema_find_var(&ir->modes[to_mode], target) >= 0)
        return 1;
    if (s->owner_mode[target] >= 0)
        sema_error(s, c, line, column,
                   "cannot assign to '%s': it is not a variable of mode '%s' (the mode entered), "
                   "a parameter or a discrete variable",
                   NAME(s, target), to_mode >= 0 ? NAME(s, ir->modes[to_mode].name) : "?");
    else
        sema_error(s, c, line, column, "cannot assign to undefined name '%s'", NAME(s, target));
    return 0;
}

/* Lower statements [range] into tr's statements (action context). */
static void lower_statements(sema *s, hy_ir_transition *tr, hy_stmt_range range, int to_mode,
                             int quiet)
{
    const hy_syntax *syn = s->syn;
    ctx c;
    memset(&c, 0, sizeof c);
    c.kind = CTX_ACTION;
    c.tr = tr;
    c.quiet = quiet;
    for (int i = range.first; i < range.first + range.count; i++) {
        const hy_stmt_syn *st = &syn->stmts[i];
        hy_ir_stmt out;
        memset(&out, 0, sizeof out);
        out.is_raise = st->is_raise;
        out.target = st->target;
        out.value = -1;
        if (!st->is_raise) {
            if (!target_ok(s, &c, st->target, to_mode, st->line, st->column))
                continue;
            out.value = sema_lower_ref(s, &c, st->value);
            if (out.value < 0)
                continue;
        }
        if (GROW(s, tr->stmts, tr->n_stmts, tr->cap_stmts))
            return;
        tr->stmts[tr->n_stmts++] = out;
    }
}

/* Node of mode `mode` (its unknowns as X_Y leaves) as tr's actions see it
** after their assignments: an unknown tr assigns is the value assigned,
** another one a read of it (X_IN). -2 if the node uses a derivative (an
** action has none), -1 when out of memory. */
static int after_assignments(sema *s, hy_ir_transition *tr, const hy_ir_mode *mode, int node)
{
    hy_ir *ir = s->ir;
    int *leaves = NULL, n = hy_x_reachable(&ir->dag, &node, 1, &leaves);
    int *subst = n < 0 ? NULL : hy_malloc(sizeof *subst * (size_t)(mode->n_vars + 1));
    int result = subst ? 0 : -1;
    for (int k = 0; subst && k < mode->n_vars; k++)
        subst[k] = -1;
    for (int k = 0; result == 0 && k < n; k++) {
        const hy_xnode leaf = hy_x_node(&ir->dag, leaves[k]);
        if (leaf.op == X_YP)
            result = -2;
        if (leaf.op != X_Y)
            continue;
        int name = mode->vars[leaf.a].name, assigned = -1;
        for (int st = 0; st < tr->n_stmts; st++)
            if (!tr->stmts[st].is_raise && tr->stmts[st].target == name)
                assigned = tr->stmts[st].value;
        if (assigned < 0) {
            int slot = sema_add_read(s, tr, name);
            assigned = slot < 0 ? -1 : hy_x_leaf(&ir->dag, X_IN, slot);
        }
        subst[leaf.a] = assigned;
        if (assigned < 0)
            result = -1;
    }
    if (result == 0)
        result = hy_x_substitute(&ir->dag, node, X_Y, subst, mode->n_vars);
    hy_free(leaves);
    hy_free(subst);
    return result;
}

/* Statements resetting the hidden condition variables of mode `to` from
** the values after this transition's assignments. */
static void refresh_relations(sema *s, hy_ir_transition *tr, int to)
{
    hy_ir *ir = s->ir;
    hy_ir_mode *mode = &ir->modes[to];
    for (int r = 0; r < mode->n_relations; r++) {
        int value = after_assignments(s, tr, mode, mode->relations[r].relation_node);
        if (value == -2)
            continue; /* keeps its value; see docs/language.md */
        if (value < 0) { /* out of memory: not a relation left as it was */
            hy_diag_nomem(s->diag);
            s->n_errors++;
            break;
        }
        if (GROW(s, tr->stmts, tr->n_stmts, tr->cap_stmts))
            break;
        hy_ir_stmt *st = &tr->stmts[tr->n_stmts++];
        st->is_raise = 0;
        st->target = ir->globals[mode->relations[r].global].name;
        st->value = value;
    }
}

/* Variables of mode `to` whose start value uses parameters and that take
** it on entering (not set by tr's statements, not carried over from mode
** `from`, -1 for none): a statement setting it from the parameters' values
** of the moment. */
static void add_start_statements(sema *s, hy_ir_transition *tr, int from, int to)
{
    hy_ir *ir = s->ir;
    /* Marked: the names carried over from `from` or assigned by tr. */
    unsigned stamp = sema_next_mark(s);
    for (int k = 0; from >= 0 && k < ir->modes[from].n_vars; k++)
        s->mark[ir->modes[from].vars[k].name] = stamp;
    for (int st = 0; st < tr->n_stmts; st++)
        if (!tr->stmts[st].is_raise && valid_name(s, tr->stmts[st].target))
            s->mark[tr->stmts[st].target] = stamp;
    for (int k = 0; k < ir->modes[to].n_vars; k++) {
        const hy_ir_var *v = &ir->modes[to].vars[k];
        if (v->start_node < 0 || s->mark[v->name] == stamp)
            continue;
        if (GROW(s, tr->stmts, tr->n_stmts, tr->cap_stmts))
            return;
        hy_ir_stmt *st = &tr->stmts[tr->n_stmts++];
        st->is_raise = 0;
        st->target = v->name;
        st->value = v->start_node;
    }
}

void sema_compile_actions(sema *s)
{
    const hy_syntax *syn = s->syn;
    hy_ir *ir = s->ir;
    for (int i = 0; i < syn->n_transitions; i++) {
        const hy_transition_syn *ts = &syn->transitions[i];
        hy_ir_transition *tr = &ir->transitions[i];
        if (tr->from < 0 || tr->to < 0)
            continue;
        /* Condition: the conjuncts after the trigger. */
        int node = ts->when.root, prev = -1;
        int n_chain = 0;
        while (node >= 0 && syn->nodes[node].op == SYN_AND) {
            n_chain++;
            node = syn->nodes[node].a;
        }
        prev = node; /* the trigger */
        ctx c;
        memset(&c, 0, sizeof c);
        c.kind = CTX_ACTION;
        c.tr = tr;
        for (int k = n_chain; k >= 1; k--) {
            /* The k-th AND above the trigger (from the bottom: k = n_chain). */
            int and_node = ts->when.root;
            for (int up = 1; up < k; up++)
                and_node = syn->nodes[and_node].a;
            int conjunct = syn->nodes[and_node].b;
            int value = sema_lower(s, &c, prev + 1, conjunct);
            prev = and_node;
            if (value < 0)
                continue;
            tr->condition = tr->condition < 0 ? value : hy_x_binary(&ir->dag, X_AND, tr->condition, value);
        }
        const hy_ir_mode *from = &ir->modes[tr->from];
        const hy_ir_mode *to = &ir->modes[tr->to];
        lower_statements(s, tr, from->exit, tr->to, s->exit_checked[tr->from]);
        s->exit_checked[tr->from] = 1;
        lower_statements(s, tr, ts->actions, tr->to, 0);
        lower_statements(s, tr, to->entry, tr->to, s->entry_checked[tr->to]);
        s->entry_checked[tr->to] = 1;
        add_start_statements(s, tr, tr->from, tr->to);
        refresh_relations(s, tr, tr->to);
        sema_clear_reads(s, tr);
    }
}

/* The initial action: run at t0 of every run after the parameters are
** final (--set), so what depends on parameters follows them. In order:
** discrete starts and the initial modes' start values that use parameters;
** the initial modes' entry actions (reading the values before, where a
** start value just computed replaces the one compiled); the initial truth
** of the initial modes' hidden condition variables. */
void sema_build_initial_action(sema *s)
{
    hy_ir *ir = s->ir;
    hy_ir_transition *init = &ir->initial;
    memset(init, 0, sizeof *init);
    init->name = sema_intern(s, "initial");
    init->chart = init->from = init->to = -1;
    init->condition = init->guard = -1;
    for (int g = 0; g < ir->n_globals; g++) {
        if (ir->globals[g].start_node < 0)
            continue;
        if (GROW(s, init->stmts, init->n_stmts, init->cap_stmts))
            return;
        hy_ir_stmt *st = &init->stmts[init->n_stmts++];
        st->is_raise = 0;
        st->target = ir->globals[g].name;
        st->value = ir->globals[g].start_node;
    }
    for (int ch = 0; ch < ir->n_charts; ch++)
        if (ir->charts[ch].initial >= 0)
            add_start_statements(s, init, -1, ir->charts[ch].initial);
    int n_starts = init->n_stmts;
    for (int ch = 0; ch < ir->n_charts; ch++) {
        int m = ir->charts[ch].initial;
        if (m < 0 || ir->modes[m].entry.count + ir->modes[m].start_entry.count == 0)
            continue;
        int first = init->n_stmts;
        lower_statements(s, init, ir->modes[m].start_entry, m, 0);
        lower_statements(s, init, ir->modes[m].entry, m, s->entry_checked[m]);
        s->entry_checked[m] = 1;
        int kept = first;
        for (int k = first; k < init->n_stmts; k++) {
            if (init->stmts[k].is_raise) {
                hy_stmt_range at = k - first < ir->modes[m].start_entry.count
                                   ? ir->modes[m].start_entry : ir->modes[m].entry;
                hy_diag_warning(s->diag, at.line, at.column,
                                "'raise %s' in the entry actions of initial mode '%s' does "
                                "nothing at the start", NAME(s, init->stmts[k].target),
                                NAME(s, ir->modes[m].name));
                continue;
            }
            init->stmts[kept++] = init->stmts[k];
        }
        init->n_stmts = kept;
    }
    if (n_starts > 0 && init->n_reads > 0 && init->n_stmts > n_starts) {
        int *subst = hy_malloc(sizeof *subst * (size_t)init->n_reads);
        if (!subst) {
            hy_diag_nomem(s->diag);
            s->n_errors++;
            return;
        }
        for (int slot = 0; slot < init->n_reads; slot++) {
            subst[slot] = -1;
            for (int k = 0; k < n_starts; k++)
                if (init->stmts[k].target == init->reads[slot])
                    subst[slot] = init->stmts[k].value;
        }
        for (int k = n_starts; k < init->n_stmts; k++)
            init->stmts[k].value = hy_x_substitute(&ir->dag, init->stmts[k].value, X_IN, subst,
                                                   init->n_reads);
        hy_free(subst);
    }
    for (int ch = 0; ch < ir->n_charts; ch++)
        if (ir->charts[ch].initial >= 0)
            refresh_relations(s, init, ir->charts[ch].initial);
    sema_clear_reads(s, init);
}

/* Entry and exit actions never used by a transition are still checked. */
void sema_check_unused_actions(sema *s)
{
    hy_ir *ir = s->ir;
    for (int m = 0; m < ir->n_modes; m++) {
        for (int which = 0; which < 2; which++) {
            unsigned char *checked = which ? s->exit_checked : s->entry_checked;
            hy_stmt_range range = which ? ir->modes[m].exit : ir->modes[m].entry;
            if (checked[m] || range.count == 0)
                continue;
            hy_ir_transition pseudo;
            memset(&pseudo, 0, sizeof pseudo);
            lower_statements(s, &pseudo, range, m, 0);
            sema_clear_reads(s, &pseudo);
            hy_free(pseudo.reads);
            hy_free(pseudo.stmts);
        }
    }
}

/* A generated self-transition of mode m on guard (direction dir) that
** sets the hidden global to value; the transitions array has room. */
static void add_hidden_transition(sema *s, int m, int global, const char *suffix, int guard,
                                  hydae_direction dir, int value)
{
    hy_ir *ir = s->ir;
    hy_ir_transition *tr = &ir->transitions[ir->n_transitions++];
    memset(tr, 0, sizeof *tr);
    char name[320];
    snprintf(name, sizeof name, "%s.%s", NAME(s, ir->globals[global].name), suffix);
    tr->name = sema_intern(s, name);
    tr->line = ir->globals[global].line;
    tr->column = ir->globals[global].column;
    tr->chart = ir->modes[m].chart;
    tr->from = tr->to = m;
    tr->trigger = HY_IR_GUARD;
    tr->guard = guard;
    tr->direction = dir;
    tr->condition = -1;
    tr->is_hidden = 1;
    if (GROW(s, tr->stmts, tr->n_stmts, tr->cap_stmts))
        return;
    tr->stmts[0].is_raise = 0;
    tr->stmts[0].target = ir->globals[global].name;
    tr->stmts[0].value = value;
    tr->n_stmts = 1;
}

/* The generated transitions that keep the hidden variables consistent
** with their relations (sema_expr.c), level tests as well as crossings
** (build.c: hydae_transition_set_level), so that the values after the
** consistent initialisation at t0 or after an event correct them:
** a condition's truth k becomes 1 when its guard lhs - rhs crosses to the
** side where the relation holds, if k is 0, and 0 on the other side, if k
** is 1 (the condition keeps a level test from firing when k is right);
** the integer k of floor and div goes up on guard rising,
** k := max(k + 1, live), and down on guard_down falling, min(k - 1, live)
** (one step at a located crossing, where live may still be k, and the
** whole way at once when a (re)initialisation finds k wrong). */
void sema_add_relation_transitions(sema *s)
{
    hy_ir *ir = s->ir;
    hy_expr *dag = &ir->dag;
    for (int m = 0; m < ir->n_modes; m++) {
        for (int r = 0; r < ir->modes[m].n_relations; r++) {
            const hy_ir_relation *rel = &ir->modes[m].relations[r];
            int held = hy_x_leaf(dag, X_P, rel->global);
            for (int on = 1; on >= 0; on--) {
                if (GROW(s, ir->transitions, ir->n_transitions, ir->cap_transitions))
                    return;
                rel = &ir->modes[m].relations[r];
                if (rel->is_floor) {
                    int step = hy_x_binary(dag, on ? X_ADD : X_SUB, held, hy_x_num(dag, 1));
                    add_hidden_transition(s, m, rel->global, on ? "up" : "down",
                                          on ? rel->guard : rel->guard_down,
                                          on ? HYDAE_RISING : HYDAE_FALLING, step);
                    /* the whole way at once where the integer part can be read */
                    hy_ir_transition *tr = &ir->transitions[ir->n_transitions - 1];
                    int live = after_assignments(s, tr, &ir->modes[m], rel->relation_node);
                    if (live == -1) {
                        hy_diag_nomem(s->diag);
                        s->n_errors++;
                    }
                    if (live >= 0 && tr->n_stmts == 1)
                        tr->stmts[0].value = hy_x_fn(dag, on ? FN_MAX : FN_MIN, step, live);
                    sema_clear_reads(s, tr);
                } else {
                    add_hidden_transition(s, m, rel->global, on ? "true" : "false", rel->guard,
                                          on == rel->true_when_rising ? HYDAE_RISING
                                                                      : HYDAE_FALLING,
                                          hy_x_num(dag, on));
                    ir->transitions[ir->n_transitions - 1].condition =
                        hy_x_binary(dag, X_EQ, held, hy_x_num(dag, 1 - on));
                }
            }
        }
    }
}

void sema_check_reachability(sema *s)
{
    hy_ir *ir = s->ir;
    unsigned char *reached = hy_calloc((size_t)ir->n_modes + 1, 1);
    int *queue = hy_malloc(sizeof *queue * (size_t)(ir->n_modes + 1));
    if (!reached || !queue) { /* not a silent pass of the check */
        hy_free(reached);
        hy_free(queue);
        hy_diag_nomem(s->diag);
        s->n_errors++;
        return;
    }
    for (int ch = 0; ch < ir->n_charts; ch++) {
        /* From the initial mode, and from the modes marked resting
        ** (entered when events accumulate, with no transition; a second
        ** one was reported). */
        int head = 0, tail = 0;
        for (int m = 0; m < ir->n_modes; m++) {
            const hy_ir_mode *mode = &ir->modes[m];
            int resting = mode->syntax_index >= 0 && s->syn->modes[mode->syntax_index].is_resting;
            if (mode->chart == ch && (m == ir->charts[ch].initial || resting) && !reached[m]) {
                reached[m] = 1;
                queue[tail++] = m;
            }
        }
        while (head < tail) {
            int m = queue[head++];
            for (int t = 0; t < ir->n_transitions; t++) {
                const hy_ir_transition *tr = &ir->transitions[t];
                if (tr->from == m && tr->to >= 0 && !reached[tr->to]) {
                    reached[tr->to] = 1;
                    queue[tail++] = tr->to;
                }
            }
        }
    }
    for (int m = 0; m < ir->n_modes; m++)
        if (!reached[m])
            sema_error(s, NULL, ir->modes[m].line, ir->modes[m].column,
                       "mode '%s' is unreachable: no transitions lead to it from the initial mode '%s'",
                       NAME(s, ir->modes[m].name),
                       ir->charts[ir->modes[m].chart].initial >= 0
                           ? NAME(s, ir->modes[ir->charts[ir->modes[m].chart].initial].name) : "?");
    hy_free(reached);
    hy_free(queue);
}

/* Raised events nobody waits for, and event triggers nobody raises. */
void sema_check_events(sema *s)
{
    const hy_syntax *syn = s->syn;
    hy_ir *ir = s->ir;
    for (int i = 0; i < syn->n_stmts; i++) {
        const hy_stmt_syn *st = &syn->stmts[i];
        if (!st->is_raise)
            continue;
        int waited = 0;
        for (int t = 0; t < ir->n_transitions; t++)
            waited |= ir->transitions[t].trigger == HY_IR_EVENT && ir->transitions[t].event == st->target;
        if (!waited)
            hy_diag_warning(s->diag, st->line, st->column,
                            "event '%s' is raised but no transition waits for it", NAME(s, st->target));
    }
    for (int t = 0; t < syn->n_transitions; t++) {
        const hy_ir_transition *tr = &ir->transitions[t];
        if (tr->trigger != HY_IR_EVENT)
            continue;
        int raised = 0;
        for (int i = 0; i < syn->n_stmts; i++)
            raised |= syn->stmts[i].is_raise && syn->stmts[i].target == tr->event;
        if (!raised)
            hy_diag_warning(s->diag, tr->line, tr->column,
                            "transition '%s' waits for event '%s', which nothing raises",
                            NAME(s, tr->name), NAME(s, tr->event));
    }
}
