/*
** Arrays and for-loops expanded to scalars (unroll.h). The input syntax is
** read, a new one is written: expressions are copied node range by node
** range (operands before their node, as the parser leaves them), and the
** array constructs inside a range (an index, a reduction, a constructor)
** are met at their first node, evaluated or expanded, and skipped to
** their own node, so no pass recurses along an operator chain.
**
** This file: the shared helpers, declarations (an array's elements with
** their values), equations and statements repeated by for-loops, the
** lists copied as they are, and the entry. Names and constant expressions
** are in unroll_eval.c, copying expressions in unroll_expr.c
** (unroll_internal.h).
*/
#include "lang/unroll_internal.h"

#include "core/core.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* ---------------------------------------------------------------- */
/* Shared helpers                                                   */

int unroll_error_at(unroller *u, int line, int column, const char *fmt, ...)
{
    char message[512];
    va_list args;
    va_start(args, fmt);
    vsnprintf(message, sizeof message, fmt, args);
    va_end(args);
    hy_diag_error(u->diag, line, column, "%s", message);
    return -1;
}

int unroll_nomem(unroller *u)
{
    if (!u->failed)
        hy_diag_nomem(u->diag);
    u->failed = 1;
    return -1;
}

long hy_unroll_max_items = HY_UNROLL_MAX_ITEMS;

int unroll_count_item(unroller *u, int line, int column)
{
    if (++u->n_items <= hy_unroll_max_items
        && (long)u->out->n_nodes <= 32 * hy_unroll_max_items)
        return 0;
    if (!u->failed)
        unroll_error_at(u, line, column, "the model expands to more than %ld elements, equations, "
                        "statements and sum terms (or %ld expression nodes)", hy_unroll_max_items,
                        32 * hy_unroll_max_items);
    u->failed = 1;
    return -1;
}

/* ---------------------------------------------------------------- */
/* Declarations                                                     */

static int register_arrays(unroller *u)
{
    const hy_syntax *in = u->in;
    int n_ids = u->strings->n_strings;
    u->is_array = hy_calloc((size_t)n_ids + 1, 1);
    u->constant_decl = hy_calloc((size_t)n_ids + 1, sizeof *u->constant_decl);
    if (!u->is_array || !u->constant_decl)
        return unroll_nomem(u);
    u->n_is_array = u->n_constant_decl = n_ids;
    for (int i = 0; i < in->n_decls; i++) {
        const hy_decl *d = &in->decls[i];
        if ((d->kind == DECL_CONSTANT || d->kind == DECL_PARAMETER) && d->mode < 0
            && d->size.root < 0)
            u->constant_decl[d->name] = i + 1; /* a parameter used here becomes structural */
    }
    for (int i = 0; i < in->n_decls; i++) {
        const hy_decl *d = &in->decls[i];
        if (d->size.root < 0)
            continue;
        u->mode = d->mode;
        char what[160];
        snprintf(what, sizeof what, "size of '%s'", name_of(u, d->name));
        const hy_syn *at = &in->nodes[d->size.first];
        long size = 0;
        if (unroll_eval_integer(u, d->size, at->line, at->column, what, 1, HY_UNROLL_MAX_ITEMS,
                                &size))
            size = -1; /* refused: its uses are not reported again */
        if (hy_grow((void **)&u->arrays, &u->cap_arrays, u->n_arrays + 1, sizeof *u->arrays))
            return unroll_nomem(u);
        u->arrays[u->n_arrays++] = (array_info){ d->name, d->mode, size, NULL };
        u->is_array[d->name] = 1;
    }
    return 0;
}

/* Element k (1-based) of an array declaration's value e: the k-th of a
** constructor, the comprehension at its k-th value, or e itself. */
static hy_expr_ref element_value(unroller *u, const hy_decl *d, hy_expr_ref e, long k, long size)
{
    hy_expr_ref none = { u->out->n_nodes, -1 };
    if (e.root < 0)
        return none;
    const hy_syn *n = &u->in->nodes[e.root];
    if (n->op == SYN_ARRAY) {
        long count = n->var; /* the k-th link is k - 1 nodes before the first */
        if (count != size) {
            if (k == 1)
                unroll_error_at(u, n->line, n->column, "'%s' has %ld elements, its value has %ld",
                                name_of(u, d->name), size, count);
            return none;
        }
        const hy_syn *pick = &u->in->nodes[e.root - (k - 1)];
        hy_expr_ref element = { pick->first, pick->a };
        return unroll_copy_expr(u, element);
    }
    if (n->op == SYN_COMPREH) {
        hy_expr_ref from = { n->a + 1, n->b }, to = { n->b + 1, n->c };
        long lo = 0, hi = -1;
        if (unroll_eval_integer(u, from, n->line, n->column, "start of the range",
                                -HY_UNROLL_MAX_ITEMS, HY_UNROLL_MAX_ITEMS, &lo)
            || unroll_eval_integer(u, to, n->line, n->column, "end of the range",
                                   -HY_UNROLL_MAX_ITEMS, HY_UNROLL_MAX_ITEMS, &hi))
            return none;
        if (hi - lo + 1 != size) {
            if (k == 1)
                unroll_error_at(u, n->line, n->column, "'%s' has %ld elements, the range %ld:%ld "
                                "gives %ld", name_of(u, d->name), size, lo, hi,
                                hi >= lo ? hi - lo + 1 : 0);
            return none;
        }
        if (unroll_bind(u, n->var, (double)(lo + k - 1)))
            return none;
        hy_expr_ref body = { n->first, n->a };
        hy_expr_ref out = unroll_copy_expr(u, body);
        u->n_env--;
        return out;
    }
    return unroll_copy_expr(u, e);
}

static int push_decl(unroller *u, const hy_decl *d)
{
    hy_syntax *s = u->out;
    if (unroll_count_item(u, d->line, d->column)
        || hy_grow((void **)&s->decls, &s->cap_decls, s->n_decls + 1, sizeof *s->decls))
        return u->failed ? -1 : unroll_nomem(u);
    s->decls[s->n_decls++] = *d;
    return 0;
}

static int scalar_value_only(unroller *u, const hy_decl *d, hy_expr_ref e)
{
    if (e.root < 0)
        return 0;
    const hy_syn *n = &u->in->nodes[e.root];
    if (n->op == SYN_ARRAY || n->op == SYN_COMPREH)
        return unroll_error_at(u, n->line, n->column, "'%s' is not an array: its value cannot be "
                               "{...}", name_of(u, d->name));
    return 0;
}

static void unroll_decls(unroller *u)
{
    const hy_syntax *in = u->in;
    for (int i = 0; i < in->n_decls && !u->failed; i++) {
        const hy_decl *d = &in->decls[i];
        u->mode = d->mode;
        hy_decl out = *d;
        out.size.root = -1;
        if (d->size.root < 0) {
            if (scalar_value_only(u, d, d->value) || scalar_value_only(u, d, d->rtol)
                || scalar_value_only(u, d, d->atol))
                continue;
            out.value = unroll_copy_expr(u, d->value);
            out.rtol = unroll_copy_expr(u, d->rtol);
            out.atol = unroll_copy_expr(u, d->atol);
            push_decl(u, &out);
            continue;
        }
        array_info *a = unroll_find_array(u, d->name);
        if (!a || a->mode != d->mode || a->size < 0 || d->kind == DECL_COMPONENT)
            continue; /* its size was refused; a component array's elements are flat already */
        long size = a->size;
        for (long k = 1; k <= size && !u->failed; k++) {
            out.name = unroll_element_name(u, a, k);
            if (out.name < 0)
                return;
            int n_errors = u->diag->n_errors;
            out.value = element_value(u, d, d->value, k, size);
            out.rtol = element_value(u, d, d->rtol, k, size);
            out.atol = element_value(u, d, d->atol, k, size);
            if (u->diag->n_errors > n_errors)
                break;
            push_decl(u, &out);
        }
    }
}

/* ---------------------------------------------------------------- */
/* Equations and statements inside for-loops                        */

typedef struct item_list {
    int is_equation;
    int first, count;        /* input items */
} item_list;

static int item_loop(const unroller *u, const item_list *list, int i)
{
    return list->is_equation ? u->in->equations[i].loop : u->in->stmts[i].loop;
}

/* The enclosing loop of `loop` at `depth`, or -1. */
static int loop_at_depth(const unroller *u, int loop, int depth)
{
    while (loop >= 0 && u->in->loops[loop].depth > depth)
        loop = u->in->loops[loop].parent;
    return loop >= 0 && u->in->loops[loop].depth == depth ? loop : -1;
}

/* "name[index]" for an indexed output or assignment target. */
static int indexed_name(unroller *u, int name, hy_expr_ref index, int line, int column)
{
    if (index.root < 0)
        return name;
    array_info *a = unroll_find_array(u, name);
    if (!a)
        return unroll_error_at(u, line, column, "'%s' is not an array", name_of(u, name));
    if (a->size < 0)
        return -1;
    char what[160];
    snprintf(what, sizeof what, "index of '%s'", name_of(u, name));
    long k = 0;
    if (unroll_eval_integer(u, index, line, column, what, 1, a->size, &k))
        return -1;
    return unroll_element_name(u, a, k);
}

void unroll_push_equation(unroller *u, const hy_equation_syn *out)
{
    hy_syntax *s = u->out;
    if (hy_grow((void **)&s->equations, &s->cap_equations, s->n_equations + 1,
                sizeof *s->equations)) {
        unroll_nomem(u);
        return;
    }
    s->equations[s->n_equations++] = *out;
}

/* lhs = rhs between arrays of `length` elements: one equation per element. */
static void emit_array_equation(unroller *u, const hy_equation_syn *eq, long length)
{
    hy_equation_syn out = *eq;
    out.loop = -1;
    out.output_index.root = -1;
    int n_errors = u->diag->n_errors;
    for (long k = 1; k <= length && !u->failed && u->diag->n_errors == n_errors; k++) {
        u->elem = k;
        out.lhs = unroll_copy_expr(u, eq->lhs);
        out.rhs = unroll_copy_expr(u, eq->rhs);
        u->elem = 0;
        if (u->diag->n_errors > n_errors || u->failed || unroll_count_item(u, eq->line, eq->column))
            return;
        unroll_push_equation(u, &out);
    }
    u->elem = 0;
}

static void emit_equation(unroller *u, const hy_equation_syn *eq)
{
    u->mode = eq->mode;
    long lhs_length = unroll_expr_length(u, eq->lhs), rhs_length = unroll_expr_length(u, eq->rhs);
    if (lhs_length < 0 || rhs_length < 0)
        return;
    if (lhs_length > 0 || rhs_length > 0) {
        if (eq->output_name >= 0)
            unroll_error_at(u, eq->line, eq->column, "output '%s' is one value but its expression "
                            "has %ld elements (declare outputs element by element in a for-loop)",
                            name_of(u, eq->output_name), lhs_length + rhs_length);
        else if (lhs_length == 0 || rhs_length == 0)
            unroll_error_at(u, eq->line, eq->column, "the %s side is one value but the %s side has "
                            "%ld elements: an equation between arrays needs arrays of the same "
                            "length on both sides", lhs_length ? "right" : "left",
                            lhs_length ? "left" : "right", lhs_length + rhs_length);
        else if (lhs_length != rhs_length)
            unroll_error_at(u, eq->line, eq->column, "the left side has %ld elements and the right "
                            "side %ld: an equation between arrays needs the same length on both "
                            "sides", lhs_length, rhs_length);
        else
            emit_array_equation(u, eq, lhs_length);
        return;
    }
    hy_equation_syn out = *eq;
    out.loop = -1;
    out.output_index.root = -1;
    if (eq->output_name >= 0) {
        out.output_name = indexed_name(u, eq->output_name, eq->output_index, eq->line,
                                       eq->column);
        if (out.output_name < 0)
            return;
    }
    int n_errors = u->diag->n_errors;
    out.lhs = unroll_copy_expr(u, eq->lhs);
    out.rhs = unroll_copy_expr(u, eq->rhs);
    if (u->diag->n_errors > n_errors || u->failed || unroll_count_item(u, eq->line, eq->column))
        return;
    unroll_push_equation(u, &out);
}

static void push_statement(unroller *u, const hy_stmt_syn *out)
{
    hy_syntax *s = u->out;
    if (hy_grow((void **)&s->stmts, &s->cap_stmts, s->n_stmts + 1, sizeof *s->stmts)) {
        unroll_nomem(u);
        return;
    }
    s->stmts[s->n_stmts++] = *out;
}

/* x := value for a whole array x: one assignment per element, the value
** one for all or an array expression of x's length. 1 if st was one. */
static int emit_array_assignment(unroller *u, const hy_stmt_syn *st)
{
    array_info *a = st->is_raise || st->target_index.root >= 0 ? NULL
                                                                : unroll_find_array(u, st->target);
    if (!a)
        return 0;
    if (a->size < 0)
        return 1;
    long length = unroll_expr_length(u, st->value);
    if (length < 0)
        return 1;
    if (length > 0 && length != a->size) {
        unroll_error_at(u, st->line, st->column, "'%s' has %ld elements but the value %ld",
                        name_of(u, st->target), a->size, length);
        return 1;
    }
    hy_stmt_syn out = *st;
    out.loop = -1;
    int n_errors = u->diag->n_errors;
    for (long k = 1; k <= a->size && !u->failed && u->diag->n_errors == n_errors; k++) {
        out.target = unroll_element_name(u, a, k);
        if (out.target < 0)
            return 1;
        u->elem = length > 0 ? k : 0;
        out.value = unroll_copy_expr(u, st->value);
        u->elem = 0;
        if (u->diag->n_errors > n_errors || u->failed || unroll_count_item(u, st->line, st->column))
            return 1;
        push_statement(u, &out);
    }
    return 1;
}

static void emit_statement(unroller *u, const hy_stmt_syn *st)
{
    if (emit_array_assignment(u, st))
        return;
    hy_stmt_syn out = *st;
    out.loop = -1;
    out.target_index.root = -1;
    out.target = st->is_raise ? st->target
                              : indexed_name(u, st->target, st->target_index, st->line,
                                             st->column);
    if (out.target < 0)
        return;
    int n_errors = u->diag->n_errors;
    out.value = unroll_copy_expr(u, st->value);
    if (u->diag->n_errors > n_errors || u->failed || unroll_count_item(u, st->line, st->column))
        return;
    push_statement(u, &out);
}

/* Items [first, first + count) whose loops at depths below `depth` are
** bound: each run of items inside one loop of this depth is repeated for
** every value of its variable, items outside loops are emitted. */
static void unroll_items(unroller *u, const item_list *list, int first, int count, int depth)
{
    int end = first + count;
    for (int i = first; i < end && !u->failed;) {
        int loop = loop_at_depth(u, item_loop(u, list, i), depth);
        if (loop < 0) {
            if (list->is_equation)
                emit_equation(u, &u->in->equations[i]);
            else
                emit_statement(u, &u->in->stmts[i]);
            i++;
            continue;
        }
        int run_end = i + 1;
        while (run_end < end && loop_at_depth(u, item_loop(u, list, run_end), depth) == loop)
            run_end++;
        const hy_loop_syn *l = &u->in->loops[loop];
        long lo = 0, hi = -1;
        if (unroll_eval_integer(u, l->from, l->line, l->column, "start of the loop range",
                                -HY_UNROLL_MAX_ITEMS, HY_UNROLL_MAX_ITEMS, &lo) == 0
            && unroll_eval_integer(u, l->to, l->line, l->column, "end of the loop range",
                                   -HY_UNROLL_MAX_ITEMS, HY_UNROLL_MAX_ITEMS, &hi) == 0
            && !(list->is_equation && unroll_keep_loop(u, i, run_end, loop, lo, hi))) {
            for (long v = lo; v <= hi && !u->failed; v++) {
                int n_errors = u->diag->n_errors;
                if (unroll_bind(u, l->var, (double)v))
                    return;
                unroll_items(u, list, i, run_end - i, depth + 1);
                u->n_env--;
                if (u->diag->n_errors > n_errors)
                    break; /* one report per loop, not one per value */
            }
        }
        i = run_end;
    }
}

static void unroll_stmt_range(unroller *u, hy_stmt_range *range)
{
    item_list list = { 0, range->first, range->count };
    range->first = u->out->n_stmts;
    unroll_items(u, &list, list.first, list.count, 0);
    range->count = u->out->n_stmts - range->first;
}

/* ---------------------------------------------------------------- */

static int has_arrays(const hy_syntax *s)
{
    if (s->n_loops > 0)
        return 1;
    for (int i = 0; i < s->n_decls; i++)
        if (s->decls[i].size.root >= 0)
            return 1;
    for (int i = 0; i < s->n_equations; i++)
        if (s->equations[i].output_index.root >= 0)
            return 1;
    for (int i = 0; i < s->n_stmts; i++)
        if (s->stmts[i].target_index.root >= 0)
            return 1;
    for (int i = 0; i < s->n_nodes; i++)
        if (s->nodes[i].op >= SYN_INDEX)
            return 1;
    return 0;
}

/* Copy the lists the expansion does not touch, with their expressions. */
static int copy_rest(unroller *u)
{
    const hy_syntax *in = u->in;
    hy_syntax *out = u->out;
    out->model_name = in->model_name;
    out->line = in->line;
    out->column = in->column;
    out->flattened = in->flattened; /* alias elimination follows */
    for (int i = 0; i < in->n_structural; i++)
        if (hy_syntax_note_structural(out, in->structural[i]))
            return unroll_nomem(u);
    size_t sizes[] = { sizeof *in->modes, sizeof *in->charts, sizeof *in->transitions,
                       sizeof *in->settings };
    const void *from[] = { in->modes, in->charts, in->transitions, in->settings };
    void **to[] = { (void **)&out->modes, (void **)&out->charts, (void **)&out->transitions,
                    (void **)&out->settings };
    int counts[] = { in->n_modes, in->n_charts, in->n_transitions, in->n_settings };
    int *caps[] = { &out->cap_modes, &out->cap_charts, &out->cap_transitions,
                    &out->cap_settings };
    for (int k = 0; k < 4; k++) {
        if (counts[k] == 0)
            continue;
        if (hy_grow(to[k], caps[k], counts[k], sizes[k]))
            return unroll_nomem(u);
        memcpy(*to[k], from[k], (size_t)counts[k] * sizes[k]);
    }
    out->n_modes = in->n_modes;
    out->n_charts = in->n_charts;
    out->n_transitions = in->n_transitions;
    out->n_settings = in->n_settings;
    for (int i = 0; i < out->n_modes; i++) {
        u->mode = i;
        unroll_stmt_range(u, &out->modes[i].entry);
        unroll_stmt_range(u, &out->modes[i].exit);
        unroll_stmt_range(u, &out->modes[i].start_entry);
    }
    for (int i = 0; i < out->n_transitions; i++) {
        hy_transition_syn *tr = &out->transitions[i];
        u->mode = -1;
        tr->when = unroll_copy_expr(u, tr->when);
        unroll_stmt_range(u, &tr->actions);
    }
    u->mode = -1;
    for (int i = 0; i < out->n_settings; i++)
        out->settings[i].value = unroll_copy_expr(u, out->settings[i].value);
    return u->failed ? -1 : 0;
}

int hy_unroll(hy_syntax *syntax, hy_strtab *strings, hy_diag *diag)
{
    return hy_unroll_keep_loops(syntax, strings, diag, 0);
}

int hy_unroll_keep_loops(hy_syntax *syntax, hy_strtab *strings, hy_diag *diag, int keep_loops)
{
    if (!has_arrays(syntax))
        return 0;
    hy_syntax out;
    memset(&out, 0, sizeof out);
    unroller u;
    memset(&u, 0, sizeof u);
    u.in = syntax;
    u.out = &out;
    u.strings = strings;
    u.diag = diag;
    u.mode = -1;
    u.keep_loops = keep_loops;
    u.lane_var = -1;
    int n_errors = diag->n_errors;
    if (register_arrays(&u) == 0) {
        unroll_decls(&u);
        item_list equations = { 1, 0, syntax->n_equations };
        if (!u.failed)
            unroll_items(&u, &equations, 0, syntax->n_equations, 0);
        if (!u.failed)
            copy_rest(&u);
    }
    hy_free(u.env);
    hy_free(u.ints);
    hy_free(u.reals);
    for (int i = 0; i < u.n_arrays; i++)
        hy_free(u.arrays[i].element_ids);
    hy_free(u.arrays);
    hy_free(u.is_array);
    hy_free(u.constant_decl);
    if (u.failed && diag->n_errors == n_errors)
        hy_diag_nomem(diag);
    hy_syntax_free(syntax);
    *syntax = out;
    return diag->n_errors - n_errors;
}
