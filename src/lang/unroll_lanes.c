/*
** A for-loop of equations kept as a loop (unroll.h,
** hy_unroll_keep_loops): instead of one copy of its body per value of the
** loop variable i, each body equation is written once, for the first
** value, and marked as standing for every value (hy_equation_syn.lanes);
** the names its subscripts make ("u[2]" for u[i + 1] at i = 1) are marked
** as moving with i (hy_syn.lane). The checker then lowers the body once,
** the Jacobian is derived once, and the programs run it as strided loops
** (sema_expr.c, jacobian_lanes.c, vm_lanes.c) where the unrolled model
** would have made 10^6 copies of every node on the way.
**
** Only where that is the same model: no modes, transitions or components
** (nothing that aliases or re-numbers the unknowns), the loop not nested,
** both sides of every body equation made of numbers, time, scalar names,
** array elements A[i + c] or A[k] (k free of i, and not of an array also
** subscripted with i in the same equation: the two could be one unknown
** for some i), der() of those, + - * / ^ and smooth functions. Whatever
** else (a relation, an if, abs, i as a value, a slice, ...) unrolls as
** before. The checker refuses the lanes where its own rules differ (an
** element that is not an unknown, unknowns not consecutive, a structure
** that is singular or of index > 1, structure.c); compile.c then compiles
** the model again unrolled.
*/
#include "lang/unroll_internal.h"

#include <string.h>

int unroll_range_uses(const unroller *u, int first, int root, int var)
{
    for (int j = first; j <= root; j++)
        if (u->in->nodes[j].op == SYN_NAME && u->in->nodes[j].name == var)
            return 1;
    return 0;
}

/* The functions a body may call: smooth, no events. */
static int is_smooth_function(const char *name)
{
    static const char *const names[] = { "sin", "cos", "tan", "asin", "acos", "atan", "sinh",
                                         "cosh", "tanh", "exp", "log", "log10", "sqrt", "atan2" };
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++)
        if (strcmp(name, names[k]) == 0)
            return 1;
    return 0;
}

/* A subscript [first, root] that uses var: exactly i, i + E, E + i or
** i - E (E free of i)? */
static int is_shifted_var(const unroller *u, int first, int root, int var)
{
    int uses = 0, at = -1;
    for (int j = first; j <= root; j++)
        if (u->in->nodes[j].op == SYN_NAME && u->in->nodes[j].name == var) {
            uses++;
            at = j;
        }
    if (uses != 1)
        return 0;
    const hy_syn *n = &u->in->nodes[root];
    return root == at || (n->op == SYN_ADD && (n->a == at || n->b == at))
           || (n->op == SYN_SUB && n->a == at);
}

/* Per equation: the arrays it subscripts with i and those it subscripts
** with a constant (by name: 1 and 2 bits), on u->ints from base. */
typedef struct subscripts {
    int base, n;
} subscripts;

static int note_array(unroller *u, subscripts *seen, int name, int how)
{
    for (int k = 0; k < seen->n; k++)
        if (u->ints[seen->base + 2 * k] == name) {
            u->ints[seen->base + 2 * k + 1] |= how;
            return u->ints[seen->base + 2 * k + 1] == 3 ? -1 : 0;
        }
    if (unroll_push_ints(u, 2) < 0)
        return -1;
    u->ints[seen->base + 2 * seen->n] = name;
    u->ints[seen->base + 2 * seen->n + 1] = how;
    seen->n++;
    return 0;
}

/* der(x) of one unknown: an element or a scalar name. */
static int is_der_of_name(const unroller *u, const hy_syn *n)
{
    if (n->n_args != 1 || n->a < 0 || strcmp(name_of(u, n->name), "der") != 0)
        return 0;
    const hy_syn *arg = &u->in->nodes[n->a];
    return arg->op == SYN_INDEX || arg->op == SYN_NAME;
}

/* Is node j (outside subscripts) of a body equation allowed? */
static int node_allowed(unroller *u, const hy_syn *n, int var)
{
    switch ((hy_syn_op)n->op) {
    case SYN_NUM: case SYN_TIME:
    case SYN_NEG: case SYN_ADD: case SYN_SUB: case SYN_MUL: case SYN_DIV: case SYN_POW:
        return 1;
    case SYN_NAME:
        return n->name != var && !unroll_find_array(u, n->name);
    case SYN_CALL:
        return is_der_of_name(u, n) || is_smooth_function(name_of(u, n->name));
    case SYN_INDEX:
        return n->b < 0 && n->var < 0 && unroll_find_array(u, n->name) != NULL;
    default:
        return 0;
    }
}

/* Expression e of a body equation: allowed, its subscripts noted. */
static int expr_allowed(unroller *u, hy_expr_ref e, int var, subscripts *seen)
{
    int first = e.first, root = e.root;
    if (root < 0)
        return 0;
    /* the subscripts' nodes come before their SYN_INDEX: skip them */
    for (int j = first; j <= root; j++) {
        const hy_syn *n = &u->in->nodes[j];
        if (n->op == SYN_INDEX) {
            int with_var = unroll_range_uses(u, n->first, n->a, var);
            if (with_var && !is_shifted_var(u, n->first, n->a, var))
                return 0;
            if (note_array(u, seen, n->name, with_var ? 1 : 2) != 0)
                return 0;
        }
    }
    for (int j = first; j <= root; j++) {
        const hy_syn *n = &u->in->nodes[j];
        int in_subscript = 0;
        for (int k = j + 1; k <= root && !in_subscript; k++)
            in_subscript = u->in->nodes[k].op == SYN_INDEX && u->in->nodes[k].first <= j
                           && j <= u->in->nodes[k].a;
        if (in_subscript)
            continue;
        if (!node_allowed(u, n, var))
            return 0;
    }
    return 1;
}

static int model_allows_lanes(const unroller *u)
{
    const hy_syntax *in = u->in;
    return u->keep_loops && in->n_modes == 0 && in->n_charts == 0 && in->n_transitions == 0
           && !in->flattened && !in->hierarchical;
}

static int body_allowed(unroller *u, int first, int end, int loop)
{
    const hy_loop_syn *l = &u->in->loops[loop];
    if (l->depth != 0 || !model_allows_lanes(u))
        return 0;
    for (int i = first; i < end; i++) {
        const hy_equation_syn *eq = &u->in->equations[i];
        if (eq->loop != loop || eq->output_name >= 0 || eq->connect_a >= 0 || eq->mode >= 0)
            return 0;
        int base = u->n_ints;
        subscripts seen = { base, 0 };
        u->mode = -1;
        int ok = expr_allowed(u, eq->lhs, l->var, &seen) && expr_allowed(u, eq->rhs, l->var, &seen);
        u->n_ints = base;
        if (!ok)
            return 0;
    }
    return 1;
}

int unroll_keep_loop(unroller *u, int first, int end, int loop, long lo, long hi)
{
    if (hi - lo + 1 < 2 || !body_allowed(u, first, end, loop))
        return 0;
    const hy_loop_syn *l = &u->in->loops[loop];
    if (unroll_bind(u, l->var, (double)lo))
        return 1;
    u->lane_var = l->var;
    u->lane_n = hi - lo + 1;
    u->out->n_kept_loops++;
    int n_errors = u->diag->n_errors;
    for (int i = first; i < end && !u->failed && u->diag->n_errors == n_errors; i++) {
        const hy_equation_syn *eq = &u->in->equations[i];
        hy_equation_syn out = *eq;
        out.loop = -1;
        out.output_index.root = -1;
        out.lanes = (int)u->lane_n;
        out.lane_body = end - first;
        out.lane_pos = i - first;
        out.lhs = unroll_copy_expr(u, eq->lhs);
        out.rhs = unroll_copy_expr(u, eq->rhs);
        /* as many items as the unrolled loop: the same limit */
        u->n_items += u->lane_n - 1;
        if (u->diag->n_errors > n_errors || u->failed
            || unroll_count_item(u, eq->line, eq->column))
            break;
        unroll_push_equation(u, &out);
    }
    u->lane_var = -1;
    u->n_env--;
    return 1;
}
