/*
** Semantic analysis of the model language: resolves names, evaluates
** constants, parameters and start values, builds each mode's unknowns,
** residual equations, outputs and guards as nodes of the expression DAG,
** turns relations inside equations into hidden discrete variables toggled
** by generated transitions, and compiles the transitions' triggers,
** conditions and actions (with the modes' exit and entry actions). The
** semantics are those of docs/language.md.
*/
#include "core/core.h"
#include "lang/sema.h"

#include "integrators/integrator.h"
#include "lang/vm.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

typedef enum global_kind {
    G_NONE, G_PARAMETER, G_DISCRETE, G_CONSTANT, G_DERIVED,
    G_INVALID  /* declared, but its value was refused (reported): uses are silent */
} global_kind;

typedef enum ctx_kind {
    CTX_CONST,      /* values of constants, parameters, starts, settings */
    CTX_EQUATION,   /* a mode's equations: names are its unknowns */
    CTX_OUTPUT,     /* a mode's output equations */
    CTX_GUARD,      /* a transition trigger, in its from-mode */
    CTX_ACTION      /* conditions and actions: names read with hydae_get */
} ctx_kind;

typedef struct ctx {
    ctx_kind kind;
    int allow_params;        /* CTX_CONST: parameters allowed */
    int mode;                /* mode contexts */
    hy_ir_transition *tr;    /* CTX_ACTION: where reads are collected */
    int quiet;               /* do not report (already reported once) */
    int uses_param;          /* out */
    const char *what;        /* for messages: "a constant expression" */
} ctx;

typedef struct sema {
    const hy_syntax *syn;
    hy_strtab *strings;
    hy_diag *diag;
    hy_ir *ir;
    int n_names;
    unsigned char *gkind;    /* per name: global_kind */
    int *gref;               /* per name: p index or DAG node */
    int *var_of;             /* per name: unknown index in the current mode */
    int *output_of;          /* per name: output node in the current mode */
    int *owner_mode;         /* per name: first mode with it as variable/output */
    int *read_slot;          /* per name: in[] index in the current action */
    int *first_line, *first_column; /* per name: first declaration as global */
    double t0;
    int shared_mode_chart;   /* chart receiving the model-level equations, -1 */
    int implicit_chart;      /* chart of top-level modes, -1 */
    unsigned char *entry_checked, *exit_checked; /* per mode */
    unsigned *mark;          /* per name: == mark_stamp when in the current set */
    unsigned mark_stamp;
    int n_errors;
} sema;

#define NAME(s, id) hy_strtab_get((s)->strings, (id))

/* A position for a message: "line:column", "file:line:column" in an
** imported library. */
typedef struct position_text {
    char text[300];
} position_text;

static position_text position(const sema *s, int line, int column)
{
    position_text p;
    hy_diag_position(s->diag, line, column, p.text, sizeof p.text);
    return p;
}

static void error_at(sema *s, const ctx *c, int line, int column, const char *fmt, ...)
    HY_PRINTF(5, 6);

static void error_at(sema *s, const ctx *c, int line, int column, const char *fmt, ...)
{
    if (c && c->quiet)
        return;
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    hy_diag_error(s->diag, line, column, "%s", msg);
    s->n_errors++;
}

static int grow(sema *s, void **array, int *cap, int need, size_t size)
{
    if (hy_grow(array, cap, need, size)) {
        hy_diag_nomem(s->diag);
        s->n_errors++;
        return -1;
    }
    return 0;
}

#define GROW(s, arr, n, cap) grow((s), (void **)&(arr), &(cap), (n) + 1, sizeof *(arr))

static int valid_name(const sema *s, int name)
{
    return name >= 0 && name < s->n_names;
}

/* ---------------------------------------------------------------- */
/* Compile-time evaluation                                          */

/* Value of node with p = the globals' current values, y = y_values,
** in = in_values (either may be NULL if unused), time = t0. */
static double evaluate(sema *s, int node, const double *y_values, int n_y, const double *in_values)
{
    hy_ir *ir = s->ir;
    if (node < 0)
        return NAN;
    if (hy_x_node(&ir->dag, node).op == X_NUM)
        return hy_x_node(&ir->dag, node).value;
    int out_index = 0;
    hy_program *prog = hy_program_build(&ir->dag, &node, &out_index, 1);
    double *p = hy_malloc(sizeof *p * (size_t)(ir->n_globals + 1));
    double *zeros = hy_calloc((size_t)n_y + 1, sizeof *zeros);
    double result = NAN;
    if (prog && p && zeros) {
        for (int i = 0; i < ir->n_globals; i++)
            p[i] = ir->globals[i].value;
        hy_vm_input input = { s->t0, 0.0, y_values ? y_values : zeros, zeros, p, in_values };
        hy_program_run(prog, &input, &result);
    } else {
        hy_diag_nomem(s->diag);
        s->n_errors++;
    }
    hy_program_free(prog);
    hy_free(p);
    hy_free(zeros);
    return result;
}

/* ---------------------------------------------------------------- */
/* Names                                                            */

/* A new, empty set of marked names. */
static unsigned next_mark(sema *s)
{
    if (++s->mark_stamp == 0) {
        memset(s->mark, 0, sizeof *s->mark * ((size_t)s->n_names + 1));
        s->mark_stamp = 1;
    }
    return s->mark_stamp;
}

static int add_read(sema *s, hy_ir_transition *tr, int name)
{
    if (s->read_slot[name] >= 0)
        return s->read_slot[name];
    if (GROW(s, tr->reads, tr->n_reads, tr->cap_reads))
        return -1;
    tr->reads[tr->n_reads] = name;
    s->read_slot[name] = tr->n_reads;
    return tr->n_reads++;
}

static void clear_reads(sema *s, const hy_ir_transition *tr)
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
                error_at(s, c, line, column,
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
            error_at(s, c, line, column, "'%s' is a %s; %s is needed here", NAME(s, name),
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
        int k = add_read(s, c->tr, name);
        return k < 0 ? -1 : hy_x_leaf(&ir->dag, X_IN, k);
    }
    if (owner == c->mode && is_mode_ctx(c->kind)) {
        /* Not an unknown here: an output of this mode not yet defined. */
        if (c->kind == CTX_EQUATION)
            error_at(s, c, line, column,
                     "'%s' is an output of mode '%s'; equations cannot use outputs "
                     "(declare it as a variable with an equation instead)",
                     NAME(s, name), NAME(s, ir->modes[c->mode].name));
        else
            error_at(s, c, line, column, "output '%s' is used before its definition", NAME(s, name));
        return -1;
    }
    if (owner >= 0 && is_mode_ctx(c->kind)) {
        const hy_ir_mode *here = &ir->modes[c->mode], *there = &ir->modes[owner];
        if (there->chart != here->chart && there->syntax_index < 0)
            error_at(s, c, line, column,
                     "'%s' is an output of the model level, which modes of other charts cannot "
                     "use (declare it as a variable with an equation instead)", NAME(s, name));
        else if (there->chart != here->chart)
            error_at(s, c, line, column,
                     "'%s' is declared in mode '%s' of chart '%s' and used in mode '%s' of "
                     "chart '%s': a mode's own variables exist only while it is active; "
                     "declare '%s' outside the modes to share it between charts",
                     NAME(s, name), NAME(s, there->name), NAME(s, ir->charts[there->chart].name),
                     NAME(s, here->name), NAME(s, ir->charts[here->chart].name), NAME(s, name));
        else
            error_at(s, c, line, column, "'%s' is not a variable of mode '%s' (it belongs to mode '%s')",
                     NAME(s, name), NAME(s, here->name), NAME(s, there->name));
        return -1;
    }
    if (owner >= 0 && c->kind == CTX_CONST) {
        error_at(s, c, line, column, "'%s' is a variable; %s is needed here", NAME(s, name),
                 c->what ? c->what : "a constant expression");
        return -1;
    }
    error_at(s, c, line, column, "undefined name '%s'", NAME(s, name));
    return -1;
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

static int lower_call(sema *s, ctx *c, const hy_syn *node, int first, const int *val)
{
    hy_ir *ir = s->ir;
    const char *fname = NAME(s, node->name);
    int a = node->a >= first ? val[node->a - first] : -1;
    int b = node->b >= first ? val[node->b - first] : -1;
    if (strcmp(fname, "der") == 0) {
        if (node->n_args != 1) {
            error_at(s, c, node->line, node->column, "der() takes 1 argument, got %d", node->n_args);
            return -1;
        }
        const hy_syn *arg = &s->syn->nodes[node->a];
        if (!is_mode_ctx(c->kind)) {
            error_at(s, c, node->line, node->column, "der() is allowed in equations, outputs and "
                     "guards of a mode, not %s",
                     c->kind == CTX_ACTION ? "in actions and conditions" : "here");
            return -1;
        }
        if (arg->op != SYN_NAME) {
            error_at(s, c, node->line, node->column,
                     "der() needs a variable: write der(x) for an unknown x of the mode");
            return -1;
        }
        if (a < 0)
            return -1; /* the name was reported */
        int k = valid_name(s, arg->name) ? s->var_of[arg->name] : -1;
        if (k < 0) {
            error_at(s, c, arg->line, arg->column, "der() of '%s', which is not a variable of mode '%s'",
                     NAME(s, arg->name), NAME(s, ir->modes[c->mode].name));
            return -1;
        }
        hy_ir_var *var = &ir->modes[c->mode].vars[k];
        if (c->kind == CTX_EQUATION) {
            var->is_differential = 1;
        } else if (!var->is_differential) {
            error_at(s, c, node->line, node->column,
                     "der(%s) outside the equations needs '%s' to be a state of mode '%s' "
                     "(der(%s) in one of its equations)",
                     NAME(s, arg->name), NAME(s, arg->name), NAME(s, ir->modes[c->mode].name),
                     NAME(s, arg->name));
            return -1;
        }
        return hy_x_leaf(&ir->dag, X_YP, k);
    }
    if (strcmp(fname, "sample") == 0) {
        error_at(s, c, node->line, node->column,
                 "sample() is only allowed as the trigger of a transition (when sample(start, period))");
        return -1;
    }
    hy_function fn = hy_function_find(fname);
    if (fn == FN_N_FUNCTIONS) {
        error_at(s, c, node->line, node->column, "unknown function '%s'", fname);
        return -1;
    }
    int arity = hy_function_arity(fn);
    if (node->n_args != arity) {
        error_at(s, c, node->line, node->column, "function '%s' takes %d argument%s, got %d", fname,
                 arity, arity == 1 ? "" : "s", node->n_args);
        return -1;
    }
    if (a < 0 || (arity == 2 && b < 0))
        return -1;
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
    error_at(s, c, node->line, node->column, "the constant expression %s is %s", text,
             isnan(value) ? "not a number (NaN)"
             : value > 0  ? "infinite (inf)"
                          : "infinite (-inf)");
    return -1;
}

/* Lower the expression [first, root] of the syntax in context c: its DAG
** node, or -1 after reporting. Walks the range in index order. */
static int lower(sema *s, ctx *c, int first, int root)
{
    if (root < 0)
        return -1;
    hy_ir *ir = s->ir;
    int n = root - first + 1;
    int *val = hy_malloc(sizeof *val * (size_t)n);
    if (!val) {
        hy_diag_nomem(s->diag);
        s->n_errors++;
        return -1;
    }
    for (int i = first; i <= root; i++) {
        const hy_syn *node = &s->syn->nodes[i];
        int a = node->a >= first ? val[node->a - first] : -1;
        int b = node->b >= first ? val[node->b - first] : -1;
        int cc = node->c >= first ? val[node->c - first] : -1;
        int r = -1;
        switch ((hy_syn_op)node->op) {
        case SYN_NUM:
            r = hy_x_num(&ir->dag, node->value);
            break;
        case SYN_NAME:
            r = resolve_name(s, c, node->name, node->line, node->column);
            break;
        case SYN_TIME:
            if (c->kind == CTX_CONST)
                error_at(s, c, node->line, node->column, "'time' is not constant; %s is needed here",
                         c->what ? c->what : "a constant expression");
            else
                r = hy_x_leaf(&ir->dag, X_T, 0);
            break;
        case SYN_EVENT:
            error_at(s, c, node->line, node->column,
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
            if (c->kind == CTX_EQUATION
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
    int result = val[n - 1];
    hy_free(val);
    if (ir->dag.failed && !s->diag->out_of_memory) {
        hy_diag_nomem(s->diag);
        s->n_errors++;
    }
    return result;
}

static int lower_ref(sema *s, ctx *c, hy_expr_ref ref)
{
    return lower(s, c, ref.first, ref.root);
}

/* A constant (allow_params: or parameter) expression's value with the
** parameters' default values; NAN and *ok = 0 after reporting. *param_node
** (may be NULL) gets its DAG node when it uses parameters, else -1. */
static double const_value_node(sema *s, hy_expr_ref ref, int allow_params, const char *what,
                               int *ok, int *param_node)
{
    ctx c;
    memset(&c, 0, sizeof c);
    c.kind = CTX_CONST;
    c.allow_params = allow_params;
    c.what = what;
    int node = lower_ref(s, &c, ref);
    if (param_node)
        *param_node = node >= 0 && c.uses_param ? node : -1;
    if (node < 0) {
        *ok = 0;
        return NAN;
    }
    *ok = 1;
    return evaluate(s, node, NULL, 0, NULL);
}

static double const_value(sema *s, hy_expr_ref ref, int allow_params, const char *what, int *ok)
{
    return const_value_node(s, ref, allow_params, what, ok, NULL);
}

/* ---------------------------------------------------------------- */
/* Hidden condition variables                                       */

static int add_global(sema *s, int name, int is_discrete, double value, int line, int column)
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

static int add_guard(sema *s, hy_ir_mode *mode, int node)
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
        error_at(s, c, node->line, node->column,
                 "'%s' compares values that change continuously, which are never exactly equal "
                 "during integration; use <, <=, > or >=",
                 node->op == SYN_EQ ? "==" : "<>");
        return -1;
    }
    hy_ir_mode *mode = &ir->modes[c->mode];
    int guard_node = hy_x_binary(&ir->dag, X_SUB, a, b);
    int guard = guard_node < 0 ? -1 : add_guard(s, mode, guard_node);
    if (guard < 0)
        return -1;
    int rising = node->op == SYN_GT || node->op == SYN_GE;
    for (int k = 0; k < mode->n_relations; k++)
        if (mode->relations[k].guard == guard && mode->relations[k].true_when_rising == rising)
            return hy_x_leaf(&ir->dag, X_P, mode->relations[k].global);
    if (GROW(s, mode->relations, mode->n_relations, mode->cap_relations))
        return -1;
    char hidden_name[300];
    snprintf(hidden_name, sizeof hidden_name, "%s.if%d", NAME(s, mode->name), mode->n_relations + 1);
    int name = hy_strtab_intern(s->strings, hidden_name, strlen(hidden_name));
    int live = hy_x_binary(&ir->dag, relation_xop((hy_syn_op)node->op), a, b);
    if (name < 0 || live < 0)
        return -1;
    /* The value at t0 from the start values. */
    double *starts = hy_malloc(sizeof *starts * (size_t)(mode->n_vars + 1));
    if (!starts)
        return -1;
    for (int k = 0; k < mode->n_vars; k++)
        starts[k] = mode->vars[k].start;
    double initial = evaluate(s, live, starts, mode->n_vars, NULL);
    hy_free(starts);
    int global = add_global(s, name, 1, initial != 0.0 && !isnan(initial), node->line, node->column);
    if (global < 0)
        return -1;
    ir->globals[global].is_hidden = 1;
    hy_ir_relation *rel = &mode->relations[mode->n_relations++];
    rel->guard = guard;
    rel->true_when_rising = rising;
    rel->global = global;
    rel->relation_node = live;
    return hy_x_leaf(&ir->dag, X_P, global);
}

/* ---------------------------------------------------------------- */
/* Globals and the experiment                                       */

static int check_new_global(sema *s, int name, int line, int column)
{
    if (!valid_name(s, name))
        return 0;
    if (s->first_line[name]) {
        error_at(s, NULL, line, column, "duplicate name '%s' (first declared at %s)", NAME(s, name),
                 position(s, s->first_line[name], s->first_column[name]).text);
        return 0;
    }
    s->first_line[name] = line;
    s->first_column[name] = column;
    return 1;
}

static void declare_globals(sema *s)
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
                error_at(s, NULL, d->line, d->column, "%s '%s' needs a value (%s Real %s = ...;)",
                         kind, NAME(s, d->name), kind, NAME(s, d->name));
                continue;
            }
            ctx c;
            memset(&c, 0, sizeof c);
            c.kind = CTX_CONST;
            c.allow_params = d->kind == DECL_PARAMETER;
            c.what = "a constant expression (numbers and constants)";
            int node = lower_ref(s, &c, d->value);
            if (node < 0) {
                s->gkind[d->name] = G_INVALID;
                continue;
            }
            if (d->kind == DECL_CONSTANT || !c.uses_param) {
                double value = evaluate(s, node, NULL, 0, NULL);
                if (d->kind == DECL_CONSTANT) {
                    s->gkind[d->name] = G_CONSTANT;
                    s->gref[d->name] = hy_x_num(&s->ir->dag, value);
                } else {
                    int g = add_global(s, d->name, 0, value, d->line, d->column);
                    if (g < 0)
                        return;
                    s->ir->globals[g].unit = d->unit;
                    s->ir->globals[g].description = d->description;
                    s->gkind[d->name] = G_PARAMETER;
                    s->gref[d->name] = g;
                }
            } else {
                /* A parameter computed from parameters: inlined where used. */
                s->gkind[d->name] = G_DERIVED;
                s->gref[d->name] = node;
            }
        } else { /* discrete */
            double start = 0.0;
            int start_node = -1;
            if (d->value.root >= 0)
                start = const_value_node(s, d->value, 1, NULL, &ok, &start_node);
            if (!ok) {
                s->gkind[d->name] = G_INVALID;
                continue;
            }
            int g = add_global(s, d->name, 1, start, d->line, d->column);
            if (g < 0)
                return;
            s->ir->globals[g].start_node = start_node;
            s->ir->globals[g].unit = d->unit;
            s->ir->globals[g].description = d->description;
            s->gkind[d->name] = G_DISCRETE;
            s->gref[d->name] = g;
        }
    }
}

typedef enum setting_type { SET_NUMBER, SET_STRING, SET_BOOL } setting_type;

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
};

static void read_experiment(sema *s, hy_lang_experiment *ex)
{
    const hy_syntax *syn = s->syn;
    hy_lang_experiment local;
    if (!ex)
        ex = &local;
    memset(ex, 0, sizeof *ex);
    int has_integr_tol = 0;
    double integr_tol = 0.0;
    for (int i = 0; i < syn->n_settings; i++) {
        const hy_setting_syn *st = &syn->settings[i];
        const char *name = NAME(s, st->name);
        int known = -1;
        for (size_t k = 0; k < sizeof known_settings / sizeof known_settings[0]; k++)
            if (strcmp(known_settings[k].name, name) == 0)
                known = (int)k;
        if (known < 0) {
            error_at(s, NULL, st->line, st->column,
                     "unknown experiment setting '%s' (known: t0, t_end, dt, rtol, atol, "
                     "integrator_type, integr_tol, h_max, h_min, h0, h0_max, max_order, and the "
                     "Param_Transient dae_* settings)", name);
            continue;
        }
        int duplicate = 0;
        for (int k = 0; k < ex->n_settings; k++)
            if (strcmp(ex->settings[k].name, name) == 0)
                duplicate = 1;
        if (duplicate) {
            error_at(s, NULL, st->line, st->column, "experiment setting '%s' is given twice", name);
            continue;
        }
        if (ex->n_settings >= HY_LANG_MAX_SETTINGS)
            continue;
        setting_type type = known_settings[known].type;
        double value = NAN;
        const char *text = NULL;
        if (st->string_value >= 0) {
            text = NAME(s, st->string_value);
            if (type == SET_BOOL && (strcmp(text, "TRUE") == 0 || strcmp(text, "FALSE") == 0)) {
                value = text[0] == 'T';
            } else if (type != SET_STRING) {
                error_at(s, NULL, st->line, st->column, "experiment setting '%s' takes a %s, not a string",
                         name, type == SET_BOOL ? "truth value (true, false)" : "number");
                continue;
            }
        } else {
            if (type == SET_STRING) {
                error_at(s, NULL, st->line, st->column, "experiment setting '%s' takes a string", name);
                continue;
            }
            int ok;
            value = const_value(s, st->value, 1, NULL, &ok);
            if (!ok)
                continue;
            if (!isfinite(value)) {
                error_at(s, NULL, st->line, st->column, "experiment setting '%s' is not finite", name);
                continue;
            }
        }
        hy_lang_setting *out = &ex->settings[ex->n_settings++];
        snprintf(out->name, sizeof out->name, "%s", name);
        if (text && type == SET_STRING)
            snprintf(out->value, sizeof out->value, "%s", text);
        else
            snprintf(out->value, sizeof out->value, "%.17g", value);
        out->is_string = type == SET_STRING;
        out->line = st->line;
        out->column = st->column;
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
            integr_tol = value;
            has_integr_tol = 1;
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
                error_at(s, NULL, st->line, st->column, "max_order must be an integer from 1 to 12");
                continue;
            }
            ex->max_order = (int)value;
            ex->has_max_order = 1;
        } else if (strcmp(name, "integrator_type") == 0) {
            snprintf(ex->integrator_type, sizeof ex->integrator_type, "%s", text ? text : "");
            ex->has_integrator_type = 1;
        }
        if (!positive)
            error_at(s, NULL, st->line, st->column, "experiment setting '%s' must be positive", name);
    }
    if (has_integr_tol) { /* Param_Transient: RTOL = ATOL = INTEGR_TOL */
        if (!ex->has_rtol) {
            ex->rtol = integr_tol;
            ex->has_rtol = 1;
        }
        if (!ex->has_atol) {
            ex->atol = integr_tol;
            ex->has_atol = 1;
        }
    }
    if (ex->has_t_end && ex->t_end <= (ex->has_t0 ? ex->t0 : 0.0))
        error_at(s, NULL, syn->line, syn->column, "the experiment's t_end must be after t0");
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
    }
    return ir->n_modes++;
}

static int intern(sema *s, const char *text)
{
    int id = hy_strtab_intern(s->strings, text, strlen(text));
    if (id < 0) {
        hy_diag_nomem(s->diag);
        s->n_errors++;
    }
    return id;
}

/* Does the syntax scope `scope` (a syntax mode index, -1 model level)
** contribute to IR mode m? */
static int scope_in_mode(const sema *s, int scope, int m)
{
    const hy_ir_mode *mode = &s->ir->modes[m];
    if (scope >= 0)
        return mode->syntax_index == scope;
    return mode->chart == s->shared_mode_chart;
}

static void build_charts(sema *s)
{
    const hy_syntax *syn = s->syn;
    hy_ir *ir = s->ir;
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
    /* Explicit charts keep their order; the implicit chart comes first. */
    int model_name = syn->model_name;
    int need_implicit = has_top_modes || has_top_transitions || syn->n_charts == 0;
    s->implicit_chart = -1;
    if (need_implicit) {
        s->implicit_chart = add_chart(s, intern(s, "main"), syn->line, syn->column);
        if (s->implicit_chart < 0)
            return;
    }
    int *chart_of_syntax = hy_calloc((size_t)syn->n_charts + 1, sizeof *chart_of_syntax);
    if (!chart_of_syntax) {
        hy_diag_nomem(s->diag);
        s->n_errors++;
        return;
    }
    for (int i = 0; i < syn->n_charts; i++) {
        const hy_chart_syn *c = &syn->charts[i];
        for (int k = 0; k < i; k++)
            if (syn->charts[k].name == c->name)
                error_at(s, NULL, c->line, c->column, "duplicate chart '%s' (first declared at %s)",
                         NAME(s, c->name), position(s, syn->charts[k].line, syn->charts[k].column).text);
        chart_of_syntax[i] = add_chart(s, c->name, c->line, c->column);
    }
    for (int i = 0; i < syn->n_modes; i++) {
        const hy_mode_syn *ms = &syn->modes[i];
        int chart = ms->chart < 0 ? s->implicit_chart : chart_of_syntax[ms->chart];
        for (int m = 0; m < ir->n_modes; m++)
            if (ir->modes[m].chart == chart && ir->modes[m].name == ms->name)
                error_at(s, NULL, ms->line, ms->column, "duplicate mode '%s' (first declared at %s)",
                         NAME(s, ms->name), position(s, ir->modes[m].line, ir->modes[m].column).text);
        if (add_mode(s, ms->name, ms->line, ms->column, chart, i) < 0)
            break;
    }
    hy_free(chart_of_syntax);
    if (s->diag->out_of_memory) /* a chart or mode missing: modes may have chart -1 */
        return;
    /* Where the model-level variables and equations go. */
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
                                           : add_chart(s, intern(s, "main"), syn->line, syn->column);
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
    /* Charts without modes (an empty explicit chart) are refused. */
    for (int c = 0; c < ir->n_charts; c++) {
        int has = 0;
        for (int m = 0; m < ir->n_modes; m++)
            has |= ir->modes[m].chart == c;
        if (!has && c != s->implicit_chart)
            error_at(s, NULL, ir->charts[c].line, ir->charts[c].column, "chart '%s' has no modes",
                     NAME(s, ir->charts[c].name));
    }
    /* Initial modes. */
    for (int m = 0; m < ir->n_modes; m++) {
        hy_ir_mode *mode = &ir->modes[m];
        hy_ir_chart *chart = &ir->charts[mode->chart];
        int marked = mode->syntax_index >= 0 && syn->modes[mode->syntax_index].is_initial;
        if (marked) {
            if (chart->initial >= 0 && ir->modes[chart->initial].syntax_index >= 0
                && syn->modes[ir->modes[chart->initial].syntax_index].is_initial)
                error_at(s, NULL, mode->line, mode->column,
                         "chart '%s' has two initial modes ('%s' and '%s')", NAME(s, chart->name),
                         NAME(s, ir->modes[chart->initial].name), NAME(s, mode->name));
            else
                chart->initial = m;
        } else if (chart->initial < 0) {
            chart->initial = m;
        }
    }
}

/* ---------------------------------------------------------------- */
/* Variables                                                        */

static int find_var(const hy_ir_mode *mode, int name)
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
        v->start = const_value_node(s, d->value, 1, NULL, &ok, &v->start_node);
        if (!ok)
            v->start = NAN;
    }
    if (ok && d->rtol.root >= 0)
        v->rtol = const_value(s, d->rtol, 1, NULL, &ok);
    if (ok && d->atol.root >= 0)
        v->atol = const_value(s, d->atol, 1, NULL, &ok);
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
            error_at(s, NULL, d->line, d->column, "duplicate name '%s' (first declared at %s)",
                     NAME(s, d->name), position(s, s->first_line[d->name], s->first_column[d->name]).text);
        return 0;
    }
    int previous = ix->cur[d->name];
    if (previous >= 0) {
        error_at(s, NULL, d->line, d->column, "duplicate name '%s' (first declared at %s)",
                 NAME(s, d->name), position(s, mode->vars[previous].line, mode->vars[previous].column).text);
        return 0;
    }
    int owner = s->owner_mode[d->name];
    if (owner >= 0 && ir->modes[owner].chart != mode->chart) {
        if (!quiet)
            error_at(s, NULL, d->line, d->column,
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

static void declare_variables(sema *s)
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
                    || !scope_in_mode(s, d->mode, m) || !valid_name(s, d->name))
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
            if (eq->output_name < 0 || !scope_in_mode(s, eq->mode, m) || !valid_name(s, eq->output_name))
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
        if (find_var(mode, node->name) >= 0)
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
static void share_model_variables(sema *s)
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
        unsigned stamp = next_mark(s);
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
static void check_integrator(sema *s)
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
            error_at(s, NULL, st->line, st->column,
                     "integrator_type \"%s\" solves explicit ODEs y' = f(t, y) only, but the "
                     "modes of chart '%s' share unknowns with other charts (their equations "
                     "join one DAE): use DSTIFF, the default",
                     NAME(s, st->string_value),
                     NAME(s, s->ir->charts[s->ir->modes[shared].chart].name));
    }
}

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

static void resolve_transitions(sema *s)
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
            if (syn->transitions[k].name == ts->name && transition_chart(s, &syn->transitions[k]) == tr->chart)
                error_at(s, NULL, ts->line, ts->column,
                         "duplicate transition '%s' (first declared at %s)", NAME(s, ts->name),
                         position(s, syn->transitions[k].line, syn->transitions[k].column).text);
        if (tr->chart < 0)
            continue;
        if (ts->from < 0) {
            int n = 0, only = -1;
            for (int m = 0; m < ir->n_modes; m++)
                if (ir->modes[m].chart == tr->chart) {
                    n++;
                    only = m;
                }
            if (n != 1)
                error_at(s, NULL, ts->line, ts->column,
                         "transition '%s' needs 'from MODE to MODE': its chart has %d modes",
                         NAME(s, ts->name), n);
            tr->from = tr->to = n == 1 ? only : -1;
            continue;
        }
        tr->from = find_mode(s, tr->chart, ts->from);
        tr->to = find_mode(s, tr->chart, ts->to);
        const char *chart_name = NAME(s, ir->charts[tr->chart].name);
        if (tr->from < 0)
            error_at(s, NULL, ts->from_line, ts->from_column, "transition '%s' leaves unknown mode '%s'%s%s%s",
                     NAME(s, ts->name), NAME(s, ts->from), tr->chart == s->implicit_chart ? "" : " (chart '",
                     tr->chart == s->implicit_chart ? "" : chart_name, tr->chart == s->implicit_chart ? "" : "')");
        if (tr->to < 0)
            error_at(s, NULL, ts->to_line, ts->to_column, "transition '%s' enters unknown mode '%s'%s%s%s",
                     NAME(s, ts->name), NAME(s, ts->to), tr->chart == s->implicit_chart ? "" : " (chart '",
                     tr->chart == s->implicit_chart ? "" : chart_name, tr->chart == s->implicit_chart ? "" : "')");
    }
}

/* `priority N` and `initial` of transition i. */
static void transition_options(sema *s, int i)
{
    const hy_transition_syn *ts = &s->syn->transitions[i];
    hy_ir_transition *tr = &s->ir->transitions[i];
    if (ts->priority_line > 0) {
        if (!(ts->priority >= 1.0 && ts->priority <= 1e6 && ts->priority == floor(ts->priority)))
            error_at(s, NULL, ts->priority_line, ts->priority_column, "priority %g of "
                     "transition '%s': want a whole number from 1 (fires first) to 1e6",
                     ts->priority, NAME(s, ts->name));
        else
            tr->priority = (int)ts->priority;
    }
    if (ts->fires_at_start) {
        if (tr->trigger != HY_IR_GUARD)
            error_at(s, NULL, ts->initial_line, ts->initial_column, "'initial' of transition "
                     "'%s' needs a zero-crossing trigger (a < b): it makes the crossing fire at "
                     "the start when the guard is already past zero", NAME(s, ts->name));
        tr->fires_at_start = 1;
    }
}

/* The trigger of transition i (syntax), in its from-mode's context. */
static void compile_trigger(sema *s, int i)
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
            error_at(s, NULL, T->line, T->column, "sample() takes 2 arguments (start, period), got %d",
                     T->n_args);
            return;
        }
        ctx cc;
        memset(&cc, 0, sizeof cc);
        cc.kind = CTX_CONST;
        cc.what = "a constant (numbers and constants: a sample clock is fixed when the model is compiled)";
        int start = lower(s, &cc, first, T->a);
        int period = lower(s, &cc, T->a + 1, T->b);
        if (start < 0 || period < 0)
            return;
        tr->trigger = HY_IR_SAMPLE;
        tr->t_start = evaluate(s, start, NULL, 0, NULL);
        tr->period = evaluate(s, period, NULL, 0, NULL);
        if (!(tr->period > 0.0) || !isfinite(tr->t_start))
            error_at(s, NULL, T->line, T->column, "sample() needs a finite start and a positive period");
        else if (!(tr->period > 2.0 * hy_time_tol(tr->t_start)))
            error_at(s, NULL, T->line, T->column, "sample() period %g is below the time "
                     "resolution of event times near t = %g (%g): its ticks cannot be told "
                     "apart", tr->period, tr->t_start, 2.0 * hy_time_tol(tr->t_start));
        return;
    }
    if (T->op == SYN_EQ || T->op == SYN_NE) {
        error_at(s, NULL, T->line, T->column,
                 "a zero-crossing trigger needs <, <=, > or >= ('%s' is never met exactly)",
                 T->op == SYN_EQ ? "==" : "<>");
        return;
    }
    if (T->op != SYN_LT && T->op != SYN_LE && T->op != SYN_GT && T->op != SYN_GE) {
        error_at(s, NULL, T->line, T->column,
                 "a transition trigger must be a relation (a < b), 'time >= c', "
                 "'sample(start, period)' or 'event NAME'");
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
        int other = lhs->op == SYN_TIME ? lower(s, &cc, T->a + 1, T->b) : lower(s, &cc, first, T->a);
        if (other < 0)
            return;
        if (!cc.uses_param) {
            tr->trigger = HY_IR_TIME;
            tr->t_event = evaluate(s, other, NULL, 0, NULL);
            return;
        }
    }
    int a = lower(s, &c, first, T->a);
    int b = lower(s, &c, T->a + 1, T->b);
    if (a < 0 || b < 0)
        return;
    int g = hy_x_binary(&ir->dag, X_SUB, a, b);
    if (g < 0)
        return;
    if (!(hy_x_node(&ir->dag, g).deps & HY_DEP_STATE)) {
        error_at(s, NULL, T->line, T->column,
                 "this trigger does not depend on the mode's unknowns or on time, so it never "
                 "crosses zero; use 'event NAME' or a condition after 'and'");
        return;
    }
    tr->trigger = HY_IR_GUARD;
    tr->guard = add_guard(s, &ir->modes[tr->from], g);
    tr->direction = (T->op == SYN_LT || T->op == SYN_LE) ? HYDAE_FALLING : HYDAE_RISING;
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

static void compile_mode(sema *s, int m)
{
    const hy_syntax *syn = s->syn;
    hy_ir *ir = s->ir;
    hy_ir_mode *mode = &ir->modes[m];
    for (int k = 0; k < mode->n_vars; k++)
        s->var_of[mode->vars[k].name] = k;
    ctx c;
    memset(&c, 0, sizeof c);
    c.mode = m;
    int equation_errors = 0;
    for (int i = 0; i < syn->n_equations; i++) {
        const hy_equation_syn *eq = &syn->equations[i];
        if (eq->output_name >= 0 || !scope_in_mode(s, eq->mode, m))
            continue;
        c.kind = CTX_EQUATION;
        int before = s->n_errors;
        int lhs = lower_ref(s, &c, eq->lhs);
        int rhs = lower_ref(s, &c, eq->rhs);
        int residual = hy_x_binary(&ir->dag, X_SUB, lhs, rhs);
        mode = &ir->modes[m];
        if (residual < 0 || s->n_errors > before) {
            equation_errors = 1;
            continue;
        }
        /* der(x) = f or f = der(x), f free of der(): explicit. */
        int explicit_state = der_of_unknown(s, eq->lhs), explicit_rhs = rhs;
        if (explicit_state < 0) {
            explicit_state = der_of_unknown(s, eq->rhs);
            explicit_rhs = lhs;
        }
        if (explicit_state >= 0 && uses_derivative(s, explicit_rhs) != 0)
            explicit_state = -1;
        if (GROW(s, mode->equations, mode->n_equations, mode->cap_equations))
            return;
        mode->equations[mode->n_equations].explicit_state = explicit_state;
        mode->equations[mode->n_equations].explicit_rhs = explicit_state >= 0 ? explicit_rhs : -1;
        mode->equations[mode->n_equations].residual = residual;
        mode->equations[mode->n_equations].line = eq->line;
        mode->equations[mode->n_equations].column = eq->column;
        mode->n_equations++;
    }
    mode = &ir->modes[m];
    if (!equation_errors && mode->n_equations != mode->n_vars && mode->n_shared == 0) {
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
                             ? hy_mechanics_position_constraint(ir, mode) : -1;
        if (constraint >= 0)
            snprintf(hint, sizeof hint,
                     "; the equation at %d:%d constrains the positions and needs a multiplier: "
                     "declare one and write it into the dynamics (M der(u) = F - C lambda)",
                     mode->equations[constraint].line, mode->equations[constraint].column);
        error_at(s, NULL, mode->line, mode->column,
                 "mode '%s' has %d equation%s for %d unknown%s%s%s%s: the system is %s%s",
                 NAME(s, mode->name), mode->n_equations, mode->n_equations == 1 ? "" : "s",
                 mode->n_vars, mode->n_vars == 1 ? "" : "s", mode->n_vars ? " (" : "", list,
                 mode->n_vars ? ")" : "",
                 mode->n_equations < mode->n_vars ? "underdetermined" : "overdetermined", hint);
    }
    if (!equation_errors)
        find_explicit_form(s, mode);
    /* Outputs, in order; each may use the ones before it. */
    for (int i = 0; i < syn->n_equations; i++) {
        const hy_equation_syn *eq = &syn->equations[i];
        if (eq->output_name < 0 || !scope_in_mode(s, eq->mode, m) || !valid_name(s, eq->output_name))
            continue;
        int name = eq->output_name;
        if (s->var_of[name] >= 0) {
            error_at(s, NULL, eq->line, eq->column,
                     "'%s' is a variable of mode '%s' and cannot also be one of its outputs",
                     NAME(s, name), NAME(s, mode->name));
            continue;
        }
        if (s->output_of[name] >= 0 || s->first_line[name]) {
            error_at(s, NULL, eq->line, eq->column, "duplicate name '%s'%s", NAME(s, name),
                     s->output_of[name] >= 0 ? " (an output of this mode already)" : "");
            continue;
        }
        c.kind = CTX_OUTPUT;
        int node = lower_ref(s, &c, eq->rhs);
        mode = &ir->modes[m];
        if (node < 0)
            continue;
        if (GROW(s, mode->outputs, mode->n_outputs, mode->cap_outputs))
            return;
        hy_ir_output *out = &mode->outputs[mode->n_outputs++];
        out->name = name;
        out->node = node;
        out->line = eq->line;
        out->column = eq->column;
        s->output_of[name] = node;
    }
    /* The triggers of the transitions leaving this mode. */
    for (int i = 0; i < syn->n_transitions; i++)
        if (ir->transitions[i].from == m) {
            compile_trigger(s, i);
            transition_options(s, i);
        }
    mode = &ir->modes[m];
    for (int k = 0; k < mode->n_vars; k++)
        s->var_of[mode->vars[k].name] = -1;
    for (int k = 0; k < mode->n_outputs; k++)
        s->output_of[mode->outputs[k].name] = -1;
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
        error_at(s, c, line, column, "cannot assign to constant '%s'", NAME(s, target));
        return 0;
    case G_DERIVED:
        error_at(s, c, line, column,
                 "cannot assign to '%s': it is computed from other parameters", NAME(s, target));
        return 0;
    case G_INVALID:
        return 0; /* its declaration was reported */
    default:
        break;
    }
    if (to_mode >= 0 && find_var(&ir->modes[to_mode], target) >= 0)
        return 1;
    if (s->owner_mode[target] >= 0)
        error_at(s, c, line, column,
                 "cannot assign to '%s': it is not a variable of mode '%s' (the mode entered), "
                 "a parameter or a discrete variable",
                 NAME(s, target), to_mode >= 0 ? NAME(s, ir->modes[to_mode].name) : "?");
    else
        error_at(s, c, line, column, "cannot assign to undefined name '%s'", NAME(s, target));
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
            out.value = lower_ref(s, &c, st->value);
            if (out.value < 0)
                continue;
        }
        if (GROW(s, tr->stmts, tr->n_stmts, tr->cap_stmts))
            return;
        tr->stmts[tr->n_stmts++] = out;
    }
}

/* Statements resetting the hidden condition variables of mode `to` from
** the values after this transition's assignments. */
static void refresh_relations(sema *s, hy_ir_transition *tr, int to)
{
    hy_ir *ir = s->ir;
    hy_ir_mode *mode = &ir->modes[to];
    if (mode->n_relations == 0)
        return;
    int *subst = hy_malloc(sizeof *subst * (size_t)(mode->n_vars + 1));
    if (!subst) {
        hy_diag_nomem(s->diag);
        s->n_errors++;
        return;
    }
    for (int r = 0; r < mode->n_relations; r++) {
        int live = mode->relations[r].relation_node;
        int *leaves = NULL;
        int n = hy_x_reachable(&ir->dag, &live, 1, &leaves);
        int has_derivative = 0;
        for (int k = 0; k < mode->n_vars; k++)
            subst[k] = -1;
        for (int k = 0; k < n; k++) {
            const hy_xnode leaf = hy_x_node(&ir->dag, leaves[k]);
            if (leaf.op == X_YP)
                has_derivative = 1;
            if (leaf.op != X_Y)
                continue;
            int name = mode->vars[leaf.a].name, assigned = -1;
            for (int st = 0; st < tr->n_stmts; st++)
                if (!tr->stmts[st].is_raise && tr->stmts[st].target == name)
                    assigned = tr->stmts[st].value;
            if (assigned < 0) {
                int slot = add_read(s, tr, name);
                assigned = slot < 0 ? -1 : hy_x_leaf(&ir->dag, X_IN, slot);
            }
            subst[leaf.a] = assigned;
        }
        hy_free(leaves);
        if (has_derivative && n >= 0)
            continue; /* keeps its value; see docs/language.md */
        int value = n < 0 ? -1 : hy_x_substitute(&ir->dag, live, X_Y, subst, mode->n_vars);
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
    hy_free(subst);
}

/* Variables of mode `to` whose start value uses parameters and that take
** it on entering (not set by tr's statements, not carried over from mode
** `from`, -1 for none): a statement setting it from the parameters' values
** of the moment. */
static void add_start_statements(sema *s, hy_ir_transition *tr, int from, int to)
{
    hy_ir *ir = s->ir;
    /* Marked: the names carried over from `from` or assigned by tr. */
    unsigned stamp = next_mark(s);
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

static void compile_actions(sema *s)
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
            int value = lower(s, &c, prev + 1, conjunct);
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
        clear_reads(s, tr);
    }
}

/* The initial action: run at t0 of every run after the parameters are
** final (--set), so what depends on parameters follows them. In order:
** discrete starts and the initial modes' start values that use parameters;
** the initial modes' entry actions (reading the values before, where a
** start value just computed replaces the one compiled); the initial truth
** of the initial modes' hidden condition variables. */
static void build_initial_action(sema *s)
{
    hy_ir *ir = s->ir;
    hy_ir_transition *init = &ir->initial;
    memset(init, 0, sizeof *init);
    init->name = intern(s, "initial");
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
        if (m < 0 || ir->modes[m].entry.count == 0)
            continue;
        int first = init->n_stmts;
        lower_statements(s, init, ir->modes[m].entry, m, s->entry_checked[m]);
        s->entry_checked[m] = 1;
        int kept = first;
        for (int k = first; k < init->n_stmts; k++) {
            if (init->stmts[k].is_raise) {
                hy_diag_warning(s->diag, ir->modes[m].entry.line, ir->modes[m].entry.column,
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
    clear_reads(s, init);
}

/* Entry and exit actions never used by a transition are still checked. */
static void check_unused_actions(sema *s)
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
            clear_reads(s, &pseudo);
            hy_free(pseudo.reads);
            hy_free(pseudo.stmts);
        }
    }
}

/* The generated transitions that toggle hidden condition variables. */
static void add_relation_transitions(sema *s)
{
    hy_ir *ir = s->ir;
    for (int m = 0; m < ir->n_modes; m++) {
        for (int r = 0; r < ir->modes[m].n_relations; r++) {
            for (int on = 1; on >= 0; on--) {
                if (GROW(s, ir->transitions, ir->n_transitions, ir->cap_transitions))
                    return;
                const hy_ir_relation *rel = &ir->modes[m].relations[r];
                hy_ir_transition *tr = &ir->transitions[ir->n_transitions++];
                memset(tr, 0, sizeof *tr);
                char name[320];
                snprintf(name, sizeof name, "%s.%s", NAME(s, ir->globals[rel->global].name),
                         on ? "true" : "false");
                tr->name = intern(s, name);
                tr->line = ir->globals[rel->global].line;
                tr->column = ir->globals[rel->global].column;
                tr->chart = ir->modes[m].chart;
                tr->from = tr->to = m;
                tr->trigger = HY_IR_GUARD;
                tr->guard = rel->guard;
                tr->direction = (on == rel->true_when_rising) ? HYDAE_RISING : HYDAE_FALLING;
                tr->condition = -1;
                tr->is_hidden = 1;
                if (GROW(s, tr->stmts, tr->n_stmts, tr->cap_stmts))
                    return;
                tr->stmts[0].is_raise = 0;
                tr->stmts[0].target = ir->globals[rel->global].name;
                tr->stmts[0].value = hy_x_num(&ir->dag, on);
                tr->n_stmts = 1;
            }
        }
    }
}

static void check_reachability(sema *s)
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
        int init = ir->charts[ch].initial;
        if (init < 0)
            continue;
        int head = 0, tail = 0;
        reached[init] = 1;
        queue[tail++] = init;
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
            error_at(s, NULL, ir->modes[m].line, ir->modes[m].column,
                     "mode '%s' is unreachable: no transitions lead to it from the initial mode '%s'",
                     NAME(s, ir->modes[m].name),
                     ir->charts[ir->modes[m].chart].initial >= 0
                         ? NAME(s, ir->modes[ir->charts[ir->modes[m].chart].initial].name) : "?");
    hy_free(reached);
    hy_free(queue);
}

/* Raised events nobody waits for, and event triggers nobody raises. */
static void check_events(sema *s)
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

/* ---------------------------------------------------------------- */

/* Has an allocation failed (a failed expression node included)? */
static int out_of_memory(sema *s)
{
    if (s->ir->dag.failed && !s->diag->out_of_memory) {
        hy_diag_nomem(s->diag);
        s->n_errors++;
    }
    return s->diag->out_of_memory;
}

static void compile_modes(sema *s)
{
    for (int m = 0; m < s->ir->n_modes && !out_of_memory(s); m++)
        compile_mode(s, m);
}

int hy_sema(const hy_syntax *syntax, hy_strtab *strings, hy_diag *diag, hy_ir *ir,
            hy_lang_experiment *experiment)
{
    memset(ir, 0, sizeof *ir);
    ir->strings = strings;
    ir->model_name = syntax->model_name;
    hy_expr_init(&ir->dag);
    sema s;
    memset(&s, 0, sizeof s);
    s.syn = syntax;
    s.strings = strings;
    s.diag = diag;
    s.ir = ir;
    s.n_names = strings->n_strings;
    size_t n = (size_t)s.n_names + 1;
    s.gkind = hy_calloc(n, 1);
    s.gref = hy_malloc(n * sizeof(int));
    s.var_of = hy_malloc(n * sizeof(int));
    s.output_of = hy_malloc(n * sizeof(int));
    s.owner_mode = hy_malloc(n * sizeof(int));
    s.read_slot = hy_malloc(n * sizeof(int));
    s.first_line = hy_calloc(n, sizeof(int));
    s.first_column = hy_calloc(n, sizeof(int));
    s.mark = hy_calloc(n, sizeof *s.mark);
    if (!s.gkind || !s.gref || !s.var_of || !s.output_of || !s.owner_mode || !s.read_slot
        || !s.first_line || !s.first_column || !s.mark) {
        hy_diag_nomem(diag);
        s.n_errors++;
        goto done;
    }
    for (size_t i = 0; i < n; i++)
        s.gref[i] = s.var_of[i] = s.output_of[i] = s.owner_mode[i] = s.read_slot[i] = -1;
    declare_globals(&s);
    read_experiment(&s, experiment);
    build_charts(&s);
    if (out_of_memory(&s))
        goto done;
    s.entry_checked = hy_calloc((size_t)ir->n_modes + 1, 1);
    s.exit_checked = hy_calloc((size_t)ir->n_modes + 1, 1);
    if (!s.entry_checked || !s.exit_checked) {
        hy_diag_nomem(diag);
        s.n_errors++;
        goto done;
    }
    /* The phases go on after a model error, to report more of them; after
    ** running out of memory they stop: what a phase left half built is no
    ** ground for the next one. */
    static void (*const phases[])(sema *) = {
        declare_variables, resolve_transitions, share_model_variables, compile_modes,
        check_integrator, check_reachability,
        compile_actions, build_initial_action, check_unused_actions,
        add_relation_transitions, check_events,
    };
    for (size_t p = 0; p < sizeof phases / sizeof phases[0] && !out_of_memory(&s); p++)
        phases[p](&s);
done:
    hy_free(s.gkind);
    hy_free(s.gref);
    hy_free(s.var_of);
    hy_free(s.output_of);
    hy_free(s.owner_mode);
    hy_free(s.read_slot);
    hy_free(s.first_line);
    hy_free(s.first_column);
    hy_free(s.mark);
    hy_free(s.entry_checked);
    hy_free(s.exit_checked);
    if (ir->dag.failed && !diag->out_of_memory) {
        hy_diag_nomem(diag);
        s.n_errors++;
    }
    return s.n_errors;
}

void hy_ir_free(hy_ir *ir)
{
    for (int m = 0; m < ir->n_modes; m++) {
        hy_ir_mode *mode = &ir->modes[m];
        hy_free(mode->vars);
        hy_free(mode->equations);
        hy_free(mode->outputs);
        hy_free(mode->guards);
        hy_free(mode->relations);
        hy_free(mode->structure.unmatched);
        hy_free(mode->structure.index_eqs);
        hy_free(mode->structure.block_start);
        hy_free(mode->structure.block_eqs);
        hy_free(mode->structure.eq_unknown);
        hy_free(mode->structure.differentiations);
        hy_ir_mechanics_free(&mode->mech);
        hy_free(mode->jac_rows);
        hy_free(mode->jac_cols);
        hy_free(mode->jac_nodes);
        hy_free(mode->rhs_nodes);
        hy_free(mode->rhs_jac_rows);
        hy_free(mode->rhs_jac_cols);
        hy_free(mode->rhs_jac_nodes);
    }
    hy_free(ir->initial.reads);
    hy_free(ir->initial.stmts);
    for (int t = 0; t < ir->n_transitions; t++) {
        hy_free(ir->transitions[t].reads);
        hy_free(ir->transitions[t].stmts);
    }
    hy_free(ir->modes);
    hy_free(ir->transitions);
    hy_free(ir->globals);
    hy_free(ir->charts);
    hy_expr_free(&ir->dag);
    memset(ir, 0, sizeof *ir);
}
