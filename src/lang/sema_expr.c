/*
** Semantic analysis, expressions: names resolved in their context (a
** mode's unknowns and outputs, globals, reads of an action), expressions
** lowered to nodes of the expression DAG with calls checked and constants
** folded, compile-time evaluation, relations inside equations turned into
** hidden discrete variables, and each mode's equations and outputs.
*/
#include "core/core.h"
#include "lang/sema_internal.h"

#include "lang/vm.h"

#include <math.h>
#include <string.h>

/* ---------------------------------------------------------------- */
/* Compile-time evaluation                                          */

/* Value of node with p = the globals' current values, y = y_values,
** in = in_values (either may be NULL if unused), time = t0. */
int sema_nomem(sema *s)
{
    hy_diag_nomem(s->diag);
    s->n_errors++;
    return -1;
}

double sema_evaluate(sema *s, int node, const double *y_values, int n_y, const double *in_values)
{
    hy_ir *ir = s->ir;
    if (node < 0)
        return NAN;
    if (hy_x_node(&ir->dag, node).op == X_NUM)
        return hy_x_node(&ir->dag, node).value;
    int out_index = 0;
    hy_program *prog = hy_program_build(&ir->dag, &node, &out_index, 1);
    /* The globals' values: copied once each, not at every call (a model of
    ** 10^4 components evaluates as many start values). */
    int have_p = !hy_grow((void **)&s->eval_p, &s->cap_eval_p, ir->n_globals + 1,
                          sizeof *s->eval_p);
    for (int i = s->n_eval_p; have_p && i < ir->n_globals; i++)
        s->eval_p[i] = ir->globals[i].value;
    if (have_p && ir->n_globals > s->n_eval_p)
        s->n_eval_p = ir->n_globals;
    double *zeros = hy_calloc((size_t)n_y + 1, sizeof *zeros);
    double result = NAN;
    hy_vm_input input = { s->t0, 0.0, y_values ? y_values : zeros, zeros, s->eval_p, in_values };
    if (!prog || !have_p || !zeros || hy_program_run(prog, &input, &result) != 0) {
        hy_diag_nomem(s->diag);
        s->n_errors++;
    }
    hy_program_free(prog);
    hy_free(zeros);
    return result;
}

/* ---------------------------------------------------------------- */
/* Names                                                            */

int sema_add_read(sema *s, hy_ir_transition *tr, int name)
{
    if (s->read_slot[name] >= 0)
        return s->read_slot[name];
    if (GROW(s, tr->reads, tr->n_reads, tr->cap_reads))
        return -1;
    tr->reads[tr->n_reads] = name;
    s->read_slot[name] = tr->n_reads;
    return tr->n_reads++;
}

void sema_clear_reads(sema *s, const hy_ir_transition *tr)
{
    for (int k = 0; k < tr->n_reads; k++)
        s->read_slot[tr->reads[k]] = -1;
}

static int is_mode_ctx(ctx_kind kind)
{
    return kind == CTX_EQUATION || kind == CTX_OUTPUT || kind == CTX_GUARD;
}

static int resolve_name(sema *s, ctx *c, int name, int line, int column)
{
    hy_ir *ir = s->ir;
    if (!valid_name(s, name))
        return -1;
    if (is_mode_ctx(c->kind)) {
        if (s->var_of[name] >= 0)
            return hy_x_leaf(&ir->dag, X_Y, s->var_of[name]);
        if (s->output_of[name] >= 0) {
            if (c->kind == CTX_EQUATION) {
                sema_error(s, c, line, column,
                           "'%s' is an output of mode '%s'; equations cannot use outputs "
                           "(declare it as a variable with an equation instead)",
                           NAME(s, name), NAME(s, ir->modes[c->mode].name));
                return -1;
            }
            return s->output_of[name];
        }
    }
    switch ((global_kind)s->gkind[name]) {
    case G_CONSTANT:
        return s->gref[name];
    case G_PARAMETER:
    case G_DISCRETE:
    case G_DERIVED:
        if (c->kind == CTX_CONST && !c->allow_params) {
            sema_error(s, c, line, column, "'%s' is a %s; %s is needed here", NAME(s, name),
                       s->gkind[name] == G_DISCRETE ? "discrete variable" : "parameter",
                       c->what ? c->what : "a constant expression (numbers and constants)");
            return -1;
        }
        c->uses_param = 1;
        return s->gkind[name] == G_DERIVED ? s->gref[name] : hy_x_leaf(&ir->dag, X_P, s->gref[name]);
    case G_INVALID:
        return -1;
    default:
        break;
    }
    int owner = s->owner_mode[name];
    if (c->kind == CTX_ACTION && owner >= 0) {
        int k = sema_add_read(s, c->tr, name);
        return k < 0 ? -1 : hy_x_leaf(&ir->dag, X_IN, k);
    }
    if (owner == c->mode && is_mode_ctx(c->kind)) {
        /* Not an unknown here: an output of this mode not yet defined. */
        if (c->kind == CTX_EQUATION)
            sema_error(s, c, line, column,
                       "'%s' is an output of mode '%s'; equations cannot use outputs "
                       "(declare it as a variable with an equation instead)",
                       NAME(s, name), NAME(s, ir->modes[c->mode].name));
        else
            sema_error(s, c, line, column, "output '%s' is used before its definition", NAME(s, name));
        return -1;
    }
    if (owner >= 0 && is_mode_ctx(c->kind)) {
        const hy_ir_mode *here = &ir->modes[c->mode], *there = &ir->modes[owner];
        if (there->chart != here->chart && there->syntax_index < 0)
            sema_error(s, c, line, column,
                       "'%s' is an output of the model level, which modes of other charts cannot "
                       "use (declare it as a variable with an equation instead)", NAME(s, name));
        else if (there->chart != here->chart)
            sema_error(s, c, line, column,
                       "'%s' is declared in mode '%s' of chart '%s' and used in mode '%s' of "
                       "chart '%s': a mode's own variables exist only while it is active; "
                       "declare '%s' outside the modes to share it between charts",
                       NAME(s, name), NAME(s, there->name), NAME(s, ir->charts[there->chart].name),
                       NAME(s, here->name), NAME(s, ir->charts[here->chart].name), NAME(s, name));
        else
            sema_error(s, c, line, column, "'%s' is not a variable of mode '%s' (it belongs to mode '%s')",
                       NAME(s, name), NAME(s, here->name), NAME(s, there->name));
        return -1;
    }
    if (owner >= 0 && c->kind == CTX_CONST) {
        sema_error(s, c, line, column, "'%s' is a variable; %s is needed here", NAME(s, name),
                   c->what ? c->what : "a constant expression");
        return -1;
    }
    sema_error(s, c, line, column, "undefined name '%s'", NAME(s, name));
    return -1;
}

/* A name of a loop kept as a loop (hy_syn.lane): the unknown of its first
** lane, the others following it one by one (else refused: compile.c
** compiles the model unrolled). */
static int resolve_lane_name(sema *s, ctx *c, const hy_syn *node)
{
    int first = c->kind == CTX_EQUATION && c->lanes > 1 && valid_name(s, node->name)
                    ? s->var_of[node->name] : -1;
    int last = first >= 0 && valid_name(s, node->var) ? s->var_of[node->var] : -1;
    if (first < 0 || last - first != c->lanes - 1) {
        sema_error(s, c, node->line, node->column, "'%s' is not one of %d consecutive unknowns "
                   "(a loop kept as a loop)", NAME(s, node->name), c->lanes);
        return -1;
    }
    return hy_x_lane_leaf(&s->ir->dag, X_Y, first);
}

/* ---------------------------------------------------------------- */
/* Expressions                                                      */

static hy_xop relation_xop(hy_syn_op op)
{
    switch (op) {
    case SYN_LT: return X_LT;
    case SYN_LE: return X_LE;
    case SYN_GT: return X_GT;
    case SYN_GE: return X_GE;
    case SYN_EQ: return X_EQ;
    default: return X_NE;
    }
}

static int hidden_relation(sema *s, ctx *c, const hy_syn *node, int a, int b);

/* The hidden discrete variable "MODE.<kind>K" of the mode's next relation,
** its value at t0 that of live at the start values (as_truth: 1 or 0).
** Its global, or -1 after reporting. */
static int hidden_global(sema *s, hy_ir_mode *mode, const hy_syn *node, const char *kind,
                         int live, int as_truth)
{
    char hidden_name[300];
    snprintf(hidden_name, sizeof hidden_name, "%s.%s%d", NAME(s, mode->name), kind,
             mode->n_relations + 1);
    int name = sema_intern(s, hidden_name);
    if (name < 0)
        return -1;
    double *starts = hy_malloc(sizeof *starts * (size_t)(mode->n_vars + 1));
    if (!starts)
        return sema_nomem(s);
    for (int k = 0; k < mode->n_vars; k++)
        starts[k] = mode->vars[k].start;
    double initial = sema_evaluate(s, live, starts, mode->n_vars, NULL);
    hy_free(starts);
    double value = as_truth ? (initial != 0.0 && !isnan(initial)) : isfinite(initial) ? initial : 0.0;
    int global = sema_add_global(s, name, 1, value, node->line, node->column);
    if (global >= 0)
        s->ir->globals[global].is_hidden = 1;
    return global;
}

/* abs, sign, min and max of unknowns in an equation switch at events, as
** Modelica's do: each is an if-expression on hidden relations (held
** between events, toggled at the located crossing), so the residual
** never has a kink inside a step. noEvent(...) keeps the plain function. */
static int event_function(sema *s, ctx *c, const hy_syn *node, hy_function fn, int a, int b)
{
    hy_expr *dag = &s->ir->dag;
    hy_syn relation = *node;
    int zero = hy_x_num(dag, 0.0);
    switch (fn) {
    case FN_ABS: {
        relation.op = SYN_GE;
        int nonnegative = hidden_relation(s, c, &relation, a, zero);
        return nonnegative < 0 ? -1 : hy_x_if(dag, nonnegative, a, hy_x_unary(dag, X_NEG, a));
    }
    case FN_SIGN: {
        relation.op = SYN_GT;
        int positive = hidden_relation(s, c, &relation, a, zero);
        relation.op = SYN_LT;
        int negative = hidden_relation(s, c, &relation, a, zero);
        if (positive < 0 || negative < 0)
            return -1;
        return hy_x_if(dag, positive, hy_x_num(dag, 1.0),
                       hy_x_if(dag, negative, hy_x_num(dag, -1.0), zero));
    }
    default: { /* min: a <= b; max: a >= b */
        relation.op = fn == FN_MIN ? SYN_LE : SYN_GE;
        int first_wins = hidden_relation(s, c, &relation, a, b);
        return first_wins < 0 ? -1 : hy_x_if(dag, first_wins, a, b);
    }
    }
}

/* The integer part of x of unknowns or time in an equation, as Modelica's
** floor, integer, div and rem take it with events: a hidden integer k
** held between events and stepped by one when x leaves the interval on
** which the integer part is k. Rounding down (floor, integer) that is
** [k, k + 1): up when x rises through k + 1, down when it falls through k.
** Toward zero (div, rem) it is [k, k + 1) for k > 0, (k - 1, k] for k < 0
** and (-1, 1) for k = 0: up through k + 1 if k >= 0 else k, down through
** k if k > 0 else k - 1 (the offsets are if-expressions on k alone, a
** discrete variable, so the guards stay smooth between events). live is
** the plain function of x (shared by equal calls). Its DAG node k, or -1. */
static int event_integer(sema *s, ctx *c, const hy_syn *node, int x, int live, int toward_zero)
{
    hy_ir *ir = s->ir;
    hy_expr *dag = &ir->dag;
    hy_ir_mode *mode = &ir->modes[c->mode];
    for (int k = 0; k < mode->n_relations; k++)
        if (mode->relations[k].is_floor && mode->relations[k].relation_node == live)
            return hy_x_leaf(dag, X_P, mode->relations[k].global);
    if (live < 0 || GROW(s, mode->relations, mode->n_relations, mode->cap_relations))
        return -1;
    int global = hidden_global(s, mode, node, toward_zero ? "div" : "floor", live, 0);
    if (global < 0)
        return -1;
    int held = hy_x_leaf(dag, X_P, global), zero = hy_x_num(dag, 0), one = hy_x_num(dag, 1);
    int upper = hy_x_binary(dag, X_ADD, held, one), lower = held;
    if (toward_zero) {
        upper = hy_x_if(dag, hy_x_binary(dag, X_GE, held, zero), upper, held);
        lower = hy_x_if(dag, hy_x_binary(dag, X_GT, held, zero), held,
                        hy_x_binary(dag, X_SUB, held, one));
    }
    int up = hy_x_binary(dag, X_SUB, x, upper), down = hy_x_binary(dag, X_SUB, x, lower);
    int guard_up = up < 0 ? -1 : sema_add_guard(s, mode, up);
    int guard_down = down < 0 ? -1 : sema_add_guard(s, mode, down);
    if (guard_up < 0 || guard_down < 0)
        return -1;
    hy_ir_relation *rel = &mode->relations[mode->n_relations++];
    memset(rel, 0, sizeof *rel);
    rel->guard = guard_up;
    rel->guard_down = guard_down;
    rel->is_floor = 1;
    rel->global = global;
    rel->relation_node = live;
    return held;
}

/* floor, ceil, integer, mod, div and rem of unknowns or time in an
** equation (the divisor constant in time), through event_integer:
** ceil(x) = -floor(-x), integer = floor, mod(x, y) = x - y floor(x / y),
** div(x, y) = trunc(x / y), rem(x, y) = x - y div(x, y). Its DAG node,
** or -1. */
static int event_rounding(sema *s, ctx *c, const hy_syn *node, hy_function fn, int a, int b)
{
    hy_expr *dag = &s->ir->dag;
    switch (fn) {
    case FN_FLOOR: case FN_INTEGER:
        return event_integer(s, c, node, a, hy_x_fn(dag, FN_FLOOR, a, -1), 0);
    case FN_CEIL: {
        int minus_a = hy_x_unary(dag, X_NEG, a);
        int f = event_integer(s, c, node, minus_a, hy_x_fn(dag, FN_FLOOR, minus_a, -1), 0);
        return f < 0 ? -1 : hy_x_unary(dag, X_NEG, f);
    }
    default: { /* mod, div, rem */
        int quotient = hy_x_binary(dag, X_DIV, a, b);
        int q = fn == FN_MOD
                    ? event_integer(s, c, node, quotient, hy_x_fn(dag, FN_FLOOR, quotient, -1), 0)
                    : event_integer(s, c, node, quotient, hy_x_fn(dag, FN_DIV, a, b), 1);
        if (q < 0 || fn == FN_DIV)
            return q;
        return hy_x_binary(dag, X_SUB, a, hy_x_binary(dag, X_MUL, b, q));
    }
    }
}

static int lower_call(sema *s, ctx *c, const hy_syn *node, int first, const int *val)
{
    hy_ir *ir = s->ir;
    const char *fname = NAME(s, node->name);
    int a = node->a >= first ? val[node->a - first] : -1;
    int b = node->b >= first ? val[node->b - first] : -1;
    if (strcmp(fname, "der") == 0) {
        if (node->n_args != 1) {
            sema_error(s, c, node->line, node->column, "der() takes 1 argument, got %d", node->n_args);
            return -1;
        }
        const hy_syn *arg = &s->syn->nodes[node->a];
        if (!is_mode_ctx(c->kind)) {
            sema_error(s, c, node->line, node->column, "der() is allowed in equations, outputs and "
                       "guards of a mode, not %s",
                       c->kind == CTX_ACTION ? "in actions and conditions" : "here");
            return -1;
        }
        if (arg->op != SYN_NAME) {
            sema_error(s, c, node->line, node->column,
                       "der() needs a variable: write der(x) for an unknown x of the mode");
            return -1;
        }
        if (a < 0)
            return -1; /* the name was reported */
        int k = valid_name(s, arg->name) ? s->var_of[arg->name] : -1;
        if (k < 0) {
            sema_error(s, c, arg->line, arg->column, "der() of '%s', which is not a variable of mode '%s'",
                       NAME(s, arg->name), NAME(s, ir->modes[c->mode].name));
            return -1;
        }
        hy_ir_var *var = &ir->modes[c->mode].vars[k];
        if (c->kind == CTX_EQUATION) {
            for (int j = 1; arg->lane && j < c->lanes; j++) /* a's check: k + j are unknowns */
                var[j].is_differential = 1;
            var->is_differential = 1;
        } else if (!var->is_differential) {
            sema_error(s, c, node->line, node->column,
                       "der(%s) outside the equations needs '%s' to be a state of mode '%s' "
                       "(der(%s) in one of its equations)",
                       NAME(s, arg->name), NAME(s, arg->name), NAME(s, ir->modes[c->mode].name),
                       NAME(s, arg->name));
            return -1;
        }
        if (arg->lane)
            return hy_x_lane_leaf(&ir->dag, X_YP, k);
        return hy_x_leaf(&ir->dag, X_YP, k);
    }
    if (strcmp(fname, "sample") == 0) {
        sema_error(s, c, node->line, node->column,
                   "sample() is only allowed as the trigger of a transition (when sample(start, period))");
        return -1;
    }
    if (strcmp(fname, "crosses") == 0) {
        sema_error(s, c, node->line, node->column,
                   "crosses() is only allowed as the trigger of a transition (when crosses(x - c))");
        return -1;
    }
    if (strcmp(fname, "noEvent") == 0) {
        if (node->n_args != 1) {
            sema_error(s, c, node->line, node->column, "noEvent() takes 1 argument, got %d",
                       node->n_args);
            return -1;
        }
        return a; /* its argument, lowered without events (sema_lower) */
    }
    hy_function fn = hy_function_find(fname);
    if (fn == FN_N_FUNCTIONS) {
        sema_error(s, c, node->line, node->column, "unknown function '%s'", fname);
        return -1;
    }
    int arity = hy_function_arity(fn);
    if (node->n_args != arity) {
        sema_error(s, c, node->line, node->column, "function '%s' takes %d argument%s, got %d", fname,
                   arity, arity == 1 ? "" : "s", node->n_args);
        return -1;
    }
    if (a < 0 || (arity == 2 && b < 0))
        return -1;
    int moves = (hy_x_node(&ir->dag, a).deps | (b >= 0 ? hy_x_node(&ir->dag, b).deps : 0))
                & HY_DEP_STATE;
    if (c->kind == CTX_EQUATION && !c->no_event && moves
        && (fn == FN_ABS || fn == FN_SIGN || fn == FN_MIN || fn == FN_MAX))
        return event_function(s, c, node, fn, a, b);
    int rounds = fn == FN_FLOOR || fn == FN_CEIL || fn == FN_INTEGER
                 || ((fn == FN_MOD || fn == FN_DIV || fn == FN_REM)
                     && !(hy_x_node(&ir->dag, b).deps & HY_DEP_STATE));
    if (c->kind == CTX_EQUATION && !c->no_event && moves && rounds)
        return event_rounding(s, c, node, fn, a, b);
    return hy_x_fn(&ir->dag, fn, a, arity == 2 ? b : -1);
}

static int is_nonfinite_num(const hy_expr *e, int node)
{
    if (node < 0)
        return 0;
    const hy_xnode x = hy_x_node(e, node);
    return x.op == X_NUM && !isfinite(x.value);
}

static const char *binary_symbol(hy_syn_op op)
{
    switch (op) {
    case SYN_ADD: return "+";
    case SYN_SUB: return "-";
    case SYN_MUL: return "*";
    case SYN_DIV: return "/";
    default: return "^";
    }
}

/* The node r of syntax node `node` folded to a number that is not finite
** (0/0, 1/0, log(0), sqrt(-1), exp(1000)) from finite operands a, b:
** reported at the operator as a literal out of range is, and -1; else r.
** (An operand that is not finite was reported where it arose.) */
static int check_folded(sema *s, ctx *c, const hy_syn *node, int r, int a, int b)
{
    const hy_expr *e = &s->ir->dag;
    if (!is_nonfinite_num(e, r) || is_nonfinite_num(e, a) || is_nonfinite_num(e, b))
        return r;
    double value = hy_x_node(e, r).value, x = a >= 0 ? hy_x_node(e, a).value : NAN;
    double y = b >= 0 ? hy_x_node(e, b).value : NAN;
    char text[200];
    if (node->op == SYN_CALL && b >= 0)
        snprintf(text, sizeof text, "%s(%g, %g)", NAME(s, node->name), x, y);
    else if (node->op == SYN_CALL)
        snprintf(text, sizeof text, "%s(%g)", NAME(s, node->name), x);
    else
        snprintf(text, sizeof text, "%g %s %g", x, binary_symbol((hy_syn_op)node->op), y);
    sema_error(s, c, node->line, node->column, "the constant expression %s is %s", text,
               isnan(value) ? "not a number (NaN)"
               : value > 0  ? "infinite (inf)"
                            : "infinite (-inf)");
    return -1;
}

/* Lower the expression [first, root] of the syntax in context c: its DAG
** node, or -1 after reporting. Walks the range in index order. */
int sema_lower(sema *s, ctx *c, int first, int root)
{
    if (root < 0)
        return -1;
    hy_ir *ir = s->ir;
    int n = root - first + 1;
    int *val = hy_malloc(sizeof *val * (size_t)n);
    unsigned char *quiet = NULL; /* inside noEvent(...) */
    if (!val) {
        hy_diag_nomem(s->diag);
        s->n_errors++;
        return -1;
    }
    int outer_no_event = c->no_event, wants_quiet = 0;
    for (int i = first; i <= root && !wants_quiet; i++) {
        const hy_syn *node = &s->syn->nodes[i];
        wants_quiet = node->op == SYN_CALL && node->a >= first
                      && strcmp(NAME(s, node->name), "noEvent") == 0;
    }
    if (wants_quiet && !(quiet = hy_calloc((size_t)n, 1))) {
        hy_free(val);
        return sema_nomem(s);
    }
    if (quiet) { /* val holds, for now, where each node's range starts */
        for (int i = first; i <= root; i++) {
            const hy_syn *node = &s->syn->nodes[i];
            int start = i, ops[3] = { node->a, node->b, node->c };
            for (int o = 0; o < 3; o++)
                if (ops[o] >= first && val[ops[o] - first] < start)
                    start = val[ops[o] - first];
            val[i - first] = start;
            if (node->op == SYN_CALL && node->a >= first
                && strcmp(NAME(s, node->name), "noEvent") == 0)
                for (int j = val[node->a - first]; j <= node->a; j++)
                    quiet[j - first] = 1;
        }
    }
    for (int i = first; i <= root; i++) {
        const hy_syn *node = &s->syn->nodes[i];
        c->no_event = outer_no_event || (quiet && quiet[i - first]);
        int a = node->a >= first ? val[node->a - first] : -1;
        int b = node->b >= first ? val[node->b - first] : -1;
        int cc = node->c >= first ? val[node->c - first] : -1;
        int r = -1;
        switch ((hy_syn_op)node->op) {
        case SYN_NUM:
            r = hy_x_num(&ir->dag, node->value);
            break;
        case SYN_NAME:
            r = node->lane ? resolve_lane_name(s, c, node)
                           : resolve_name(s, c, node->name, node->line, node->column);
            break;
        case SYN_TIME:
            if (c->kind == CTX_CONST)
                sema_error(s, c, node->line, node->column, "'time' is not constant; %s is needed here",
                           c->what ? c->what : "a constant expression");
            else
                r = hy_x_leaf(&ir->dag, X_T, 0);
            break;
        case SYN_EVENT:
            sema_error(s, c, node->line, node->column,
                       "'event %s' is only allowed as the trigger of a transition", NAME(s, node->name));
            break;
        case SYN_NEG:
            r = hy_x_unary(&ir->dag, X_NEG, a);
            break;
        case SYN_NOT:
            r = hy_x_unary(&ir->dag, X_NOT, a);
            break;
        case SYN_ADD: case SYN_SUB: case SYN_MUL: case SYN_DIV: case SYN_POW: {
            static const hy_xop xop[] = { [SYN_ADD] = X_ADD, [SYN_SUB] = X_SUB, [SYN_MUL] = X_MUL,
                                          [SYN_DIV] = X_DIV, [SYN_POW] = X_POW };
            r = check_folded(s, c, node, hy_x_binary(&ir->dag, xop[node->op], a, b), a, b);
            break;
        }
        case SYN_AND: r = hy_x_binary(&ir->dag, X_AND, a, b); break;
        case SYN_OR: r = hy_x_binary(&ir->dag, X_OR, a, b); break;
        case SYN_LT: case SYN_LE: case SYN_GT: case SYN_GE: case SYN_EQ: case SYN_NE:
            if (a < 0 || b < 0)
                break;
            if (c->kind == CTX_EQUATION && !c->no_event
                && ((hy_x_node(&ir->dag, a).deps | hy_x_node(&ir->dag, b).deps) & HY_DEP_STATE))
                r = hidden_relation(s, c, node, a, b);
            else
                r = hy_x_binary(&ir->dag, relation_xop((hy_syn_op)node->op), a, b);
            break;
        case SYN_IF:
            r = hy_x_if(&ir->dag, a, b, cc);
            break;
        case SYN_CALL:
            r = check_folded(s, c, node, lower_call(s, c, node, first, val), a, b);
            break;
        case SYN_INDEX: case SYN_REDUCE: case SYN_ARRAY: case SYN_COMPREH:
            break; /* expanded by hy_unroll before the checker runs */
        }
        val[i - first] = r;
    }
    c->no_event = outer_no_event;
    int result = val[n - 1];
    hy_free(val);
    hy_free(quiet);
    if (ir->dag.failed && !s->diag->out_of_memory) {
        hy_diag_nomem(s->diag);
        s->n_errors++;
    }
    return result;
}

int sema_lower_ref(sema *s, ctx *c, hy_expr_ref ref)
{
    return sema_lower(s, c, ref.first, ref.root);
}

/* A constant (allow_params: or parameter) expression's value with the
** parameters' default values; NAN and *ok = 0 after reporting. *param_node
** (may be NULL) gets its DAG node when it uses parameters, else -1. */
double sema_const_value_node(sema *s, hy_expr_ref ref, int allow_params, const char *what,
                             int *ok, int *param_node)
{
    double folded;
    if (sema_fold_constant(s, ref, &folded)) { /* no DAG nodes for a plain number */
        if (param_node)
            *param_node = -1;
        *ok = 1;
        return folded;
    }
    ctx c;
    memset(&c, 0, sizeof c);
    c.kind = CTX_CONST;
    c.allow_params = allow_params;
    c.what = what;
    int node = sema_lower_ref(s, &c, ref);
    if (param_node)
        *param_node = node >= 0 && c.uses_param ? node : -1;
    if (node < 0) {
        *ok = 0;
        return NAN;
    }
    *ok = 1;
    return sema_evaluate(s, node, NULL, 0, NULL);
}

double sema_const_value(sema *s, hy_expr_ref ref, int allow_params, const char *what, int *ok)
{
    return sema_const_value_node(s, ref, allow_params, what, ok, NULL);
}

/* ---------------------------------------------------------------- */
/* Hidden condition variables                                       */

int sema_add_global(sema *s, int name, int is_discrete, double value, int line, int column)
{
    hy_ir *ir = s->ir;
    if (GROW(s, ir->globals, ir->n_globals, ir->cap_globals))
        return -1;
    hy_ir_global *g = &ir->globals[ir->n_globals];
    memset(g, 0, sizeof *g);
    g->name = name;
    g->is_discrete = is_discrete;
    g->value = value;
    g->start_node = -1;
    g->unit = g->description = -1;
    g->line = line;
    g->column = column;
    return ir->n_globals++;
}

int sema_add_guard(sema *s, hy_ir_mode *mode, int node)
{
    for (int k = 0; k < mode->n_guards; k++)
        if (mode->guards[k] == node)
            return k;
    if (GROW(s, mode->guards, mode->n_guards, mode->cap_guards))
        return -1;
    mode->guards[mode->n_guards] = node;
    return mode->n_guards++;
}

static int hidden_relation(sema *s, ctx *c, const hy_syn *node, int a, int b)
{
    hy_ir *ir = s->ir;
    if (node->op == SYN_EQ || node->op == SYN_NE) {
        sema_error(s, c, node->line, node->column,
                   "'%s' compares values that change continuously, which are never exactly equal "
                   "during integration; use <, <=, > or >=",
                   node->op == SYN_EQ ? "==" : "<>");
        return -1;
    }
    hy_ir_mode *mode = &ir->modes[c->mode];
    hy_expr *dag = &ir->dag;
    int difference = hy_x_binary(dag, X_SUB, a, b);
    if (difference < 0)
        return -1;
    int rising = node->op == SYN_GT || node->op == SYN_GE;
    for (int k = 0; k < mode->n_relations; k++)
        if (!mode->relations[k].is_floor && mode->relations[k].difference == difference
            && mode->relations[k].true_when_rising == rising)
            return hy_x_leaf(dag, X_P, mode->relations[k].global);
    if (GROW(s, mode->relations, mode->n_relations, mode->cap_relations))
        return -1;
    int live = hy_x_binary(dag, relation_xop((hy_syn_op)node->op), a, b);
    int global = live < 0 ? -1 : hidden_global(s, mode, node, "if", live, 1);
    if (global < 0)
        return -1; /* said, or the DAG's failure is */
    int guard = sema_add_guard(s, mode, difference);
    if (guard < 0)
        return -1;
    hy_ir_relation *rel = &mode->relations[mode->n_relations++];
    memset(rel, 0, sizeof *rel);
    rel->guard = guard;
    rel->difference = difference;
    rel->true_when_rising = rising;
    rel->global = global;
    rel->relation_node = live;
    return hy_x_leaf(&ir->dag, X_P, global);
}

/* ---------------------------------------------------------------- */
/* Modes: equations and outputs                                     */

/* If the syntax expression `side` is der(NAME) of an unknown of the mode
** being compiled: that unknown's index, else -1. */
static int der_of_unknown(const sema *s, hy_expr_ref side)
{
    if (side.root < 0)
        return -1;
    const hy_syn *node = &s->syn->nodes[side.root];
    if (node->op != SYN_CALL || node->n_args != 1 || strcmp(NAME(s, node->name), "der") != 0)
        return -1;
    const hy_syn *arg = &s->syn->nodes[node->a];
    return arg->op == SYN_NAME && valid_name(s, arg->name) ? s->var_of[arg->name] : -1;
}

/* Does node (a DAG node) use any y'? (Its dependency flags say.) */
static int uses_derivative(sema *s, int node)
{
    return node >= 0 && (hy_x_node(&s->ir->dag, node).deps & HY_DEP_YP) != 0;
}

/* An explicit ODE: one der(x_k) = f_k per unknown, every f_k free of der(). */
static void find_explicit_form(sema *s, hy_ir_mode *mode)
{
    mode->is_explicit = 0;
    if (mode->n_vars == 0 || mode->n_equations != mode->n_vars || mode->n_shared > 0)
        return; /* shared unknowns: the configuration's system is the DAE */
    int *rhs = hy_malloc(sizeof *rhs * (size_t)mode->n_vars);
    if (!rhs) { /* not "no explicit form": that would refuse VSTIFF ... */
        hy_diag_nomem(s->diag);
        s->n_errors++;
        return;
    }
    for (int k = 0; k < mode->n_vars; k++)
        rhs[k] = -1;
    int ok = 1;
    for (int i = 0; i < mode->n_equations && ok; i++) {
        int k = mode->equations[i].explicit_state;
        ok = k >= 0 && rhs[k] < 0;
        if (ok)
            rhs[k] = mode->equations[i].explicit_rhs;
    }
    if (ok) {
        mode->rhs_nodes = rhs;
        mode->is_explicit = 1;
    } else {
        hy_free(rhs);
    }
}

/* The explicit form of a mode with lane equations, as find_explicit_form
** finds it in the unrolled mode: every row der(x_k) = f_k, each unknown the
** state of one row. A count of rows that is not the unknowns' is refused
** (compiled unrolled, which says so). */
static void find_explicit_lanes(sema *s, hy_ir_mode *mode)
{
    mode->is_explicit = 0;
    if (mode->n_rows != mode->n_vars || mode->n_shared > 0) {
        sema_error(s, NULL, mode->line, mode->column,
                   "%d rows for %d unknowns (a loop kept as a loop)", mode->n_rows, mode->n_vars);
        return;
    }
    unsigned char *taken = hy_calloc((size_t)mode->n_vars + 1, 1);
    if (!taken) {
        sema_nomem(s);
        return;
    }
    int ok = mode->n_vars > 0;
    for (int i = 0; i < mode->n_equations && ok; i++) {
        const hy_ir_equation *eq = &mode->equations[i];
        ok = eq->explicit_state >= 0 && eq->explicit_state + eq->lanes <= mode->n_vars;
        for (int j = 0; ok && j < eq->lanes; j++) {
            ok = !taken[eq->explicit_state + j];
            taken[eq->explicit_state + j] = 1;
        }
    }
    hy_free(taken);
    mode->is_explicit = ok;
}

/* An empty context of kind `kind` in mode m. */
static ctx mode_ctx(int m, ctx_kind kind)
{
    ctx c;
    memset(&c, 0, sizeof c);
    c.kind = kind;
    c.mode = m;
    return c;
}

/* Mode m's equations (not its outputs) as residuals, each marked explicit
** when it is der(x) = f with f free of der(). 1 if one was refused
** (reported), else 0; -1 when out of memory. */
static int compile_equations(sema *s, int m)
{
    const hy_syntax *syn = s->syn;
    hy_ir *ir = s->ir;
    hy_ir_mode *mode = &ir->modes[m];
    ctx c = mode_ctx(m, CTX_EQUATION);
    int equation_errors = 0, next_row = 0, run_row = 0;
    for (int i = 0; i < syn->n_equations; i++) {
        const hy_equation_syn *eq = &syn->equations[i];
        if (eq->output_name >= 0 || !sema_scope_in_mode(s, eq->mode, m))
            continue;
        int before = s->n_errors;
        c.lanes = eq->lanes > 1 ? eq->lanes : 0;
        int lhs = sema_lower_ref(s, &c, eq->lhs);
        int rhs = sema_lower_ref(s, &c, eq->rhs);
        int residual = hy_x_binary(&ir->dag, X_SUB, lhs, rhs);
        mode = &ir->modes[m];
        if (residual < 0 || s->n_errors > before) {
            equation_errors = 1;
            continue;
        }
        /* der(x) = f or f = der(x), f free of der(): explicit. */
        hy_expr_ref der_side = eq->lhs;
        int explicit_state = der_of_unknown(s, eq->lhs), explicit_rhs = rhs;
        if (explicit_state < 0) {
            der_side = eq->rhs;
            explicit_state = der_of_unknown(s, eq->rhs);
            explicit_rhs = lhs;
        }
        if (explicit_state >= 0 && uses_derivative(s, explicit_rhs) != 0)
            explicit_state = -1;
        /* a lane equation of one state in every lane is not explicit, as
        ** its unrolled copies are not (one state, many equations) */
        if (explicit_state >= 0 && eq->lanes > 1
            && !s->syn->nodes[s->syn->nodes[der_side.root].a].lane)
            explicit_state = -1;
        if (GROW(s, mode->equations, mode->n_equations, mode->cap_equations))
            return -1;
        mode->equations[mode->n_equations].explicit_state = explicit_state;
        mode->equations[mode->n_equations].explicit_rhs = explicit_state >= 0 ? explicit_rhs : -1;
        mode->equations[mode->n_equations].residual = residual;
        mode->equations[mode->n_equations].line = eq->line;
        mode->equations[mode->n_equations].column = eq->column;
        if (eq->lanes > 1) {
            /* rows as the unrolled loop's: body by body */
            if (eq->lane_pos == 0) {
                run_row = next_row;
                next_row += eq->lanes * eq->lane_body;
            }
            mode->n_lane_equations++;
        }
        hy_ir_equation *added = &mode->equations[mode->n_equations];
        added->lanes = eq->lanes > 1 ? eq->lanes : 1;
        added->row = eq->lanes > 1 ? run_row + eq->lane_pos : next_row++;
        added->row_stride = eq->lanes > 1 ? eq->lane_body : 0;
        mode->n_equations++;
    }
    mode->n_rows = next_row;
    return equation_errors;
}

/* A mode whose equations and unknowns differ in number: reported with its
** unknowns and, for a mechanical system written without its multiplier,
** the position constraint that needs one. */
static void report_equation_count(sema *s, const hy_ir_mode *mode)
{
    char list[400] = "";
    size_t used = 0;
    for (int k = 0; k < mode->n_vars && used + 40 < sizeof list; k++)
        used += (size_t)snprintf(list + used, sizeof list - used, "%s%s", k ? ", " : "",
                                 NAME(s, mode->vars[k].name));
    if (used + 40 >= sizeof list)
        snprintf(list + used, sizeof list - used, ", ...");
    /* A mechanical system written without its multiplier. */
    char hint[300] = "";
    int constraint = mode->n_equations > mode->n_vars
                         ? hy_mechanics_position_constraint(s->ir, mode) : -1;
    if (constraint >= 0)
        snprintf(hint, sizeof hint,
                 "; the equation at %d:%d constrains the positions and needs a multiplier: "
                 "declare one and write it into the dynamics (M der(u) = F - C lambda)",
                 mode->equations[constraint].line, mode->equations[constraint].column);
    sema_error(s, NULL, mode->line, mode->column,
               "mode '%s' has %d equation%s for %d unknown%s%s%s%s: the system is %s%s",
               NAME(s, mode->name), mode->n_equations, mode->n_equations == 1 ? "" : "s",
               mode->n_vars, mode->n_vars == 1 ? "" : "s", mode->n_vars ? " (" : "", list,
               mode->n_vars ? ")" : "",
               mode->n_equations < mode->n_vars ? "underdetermined" : "overdetermined", hint);
}

/* Mode m's outputs, in order; each may use the ones before it. 0, or -1
** when out of memory. */
static int compile_outputs(sema *s, int m)
{
    const hy_syntax *syn = s->syn;
    hy_ir *ir = s->ir;
    hy_ir_mode *mode = &ir->modes[m];
    ctx c = mode_ctx(m, CTX_OUTPUT);
    for (int i = 0; i < syn->n_equations; i++) {
        const hy_equation_syn *eq = &syn->equations[i];
        if (eq->output_name < 0 || !sema_scope_in_mode(s, eq->mode, m) || !valid_name(s, eq->output_name))
            continue;
        int name = eq->output_name;
        if (s->var_of[name] >= 0) {
            sema_error(s, NULL, eq->line, eq->column,
                       "'%s' is a variable of mode '%s' and cannot also be one of its outputs",
                       NAME(s, name), NAME(s, mode->name));
            continue;
        }
        if (s->output_of[name] >= 0 || s->first_line[name]) {
            sema_error(s, NULL, eq->line, eq->column, "duplicate name '%s'%s", NAME(s, name),
                       s->output_of[name] >= 0 ? " (an output of this mode already)" : "");
            continue;
        }
        int node = sema_lower_ref(s, &c, eq->rhs);
        mode = &ir->modes[m];
        if (node < 0)
            continue;
        if (GROW(s, mode->outputs, mode->n_outputs, mode->cap_outputs))
            return -1;
        hy_ir_output *out = &mode->outputs[mode->n_outputs++];
        out->name = name;
        out->node = node;
        out->line = eq->line;
        out->column = eq->column;
        s->output_of[name] = node;
    }
    return 0;
}

void sema_compile_mode(sema *s, int m)
{
    const hy_syntax *syn = s->syn;
    hy_ir *ir = s->ir;
    hy_ir_mode *mode = &ir->modes[m];
    for (int k = 0; k < mode->n_vars; k++)
        s->var_of[mode->vars[k].name] = k;
    int equation_errors = compile_equations(s, m);
    if (equation_errors < 0)
        return;
    mode = &ir->modes[m];
    if (mode->n_lane_equations > 0) {
        if (!equation_errors)
            find_explicit_lanes(s, mode);
    } else {
        if (!equation_errors && mode->n_equations != mode->n_vars && mode->n_shared == 0)
            report_equation_count(s, mode);
        if (!equation_errors)
            find_explicit_form(s, mode);
    }
    if (compile_outputs(s, m) != 0)
        return;
    /* The triggers of the transitions leaving this mode. */
    for (int i = 0; i < syn->n_transitions; i++)
        if (ir->transitions[i].from == m) {
            sema_compile_trigger(s, i);
            sema_transition_options(s, i);
        }
    mode = &ir->modes[m];
    for (int k = 0; k < mode->n_vars; k++)
        s->var_of[mode->vars[k].name] = -1;
    for (int k = 0; k < mode->n_outputs; k++)
        s->output_of[mode->outputs[k].name] = -1;
}
