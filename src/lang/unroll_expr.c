/*
** Arrays and for-loops expanded to scalars, expressions (unroll.h): input
** ranges copied to the output node by node, indices turned into element
** names, reductions over a range or over an array or a slice expanded to
** chains, loop variables replaced by their values, and whole arrays and
** slices standing for one element of an equation between arrays.
*/
#include "lang/unroll_internal.h"

#include "core/core.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

/* ---------------------------------------------------------------- */
/* Copying expressions                                              */

static int add_out(unroller *u, const hy_syn *like, hy_syn_op op, int a, int b, int c)
{
    int node = hy_syntax_add_node(u->out, op, like->line, like->column, a, b, c);
    return node < 0 ? unroll_nomem(u) : node;
}

static int copy_range(unroller *u, int first, int root);

/* The bounds of slice n (name[a:b]) of array a: 1 <= lo <= hi <= size. */
static int slice_bounds(unroller *u, const hy_syn *n, const array_info *a, long *lo, long *hi)
{
    hy_expr_ref from = { n->first, n->a }, to = { n->a + 1, n->b };
    if (unroll_eval_integer_of(u, from, n->line, n->column, "start of the slice of", n->name, 1,
                               a->size, lo))
        return -1;
    if (unroll_eval_integer_of(u, to, n->line, n->column, "end of the slice of", n->name, *lo,
                               a->size, hi))
        return -1;
    return 0;
}

static int copy_index(unroller *u, const hy_syn *n)
{
    array_info *a = unroll_find_array(u, n->name);
    if (!a)
        return unroll_error_at(u, n->line, n->column, "'%s' is not an array", name_of(u, n->name));
    if (a->size < 0)
        return -1; /* its size was refused */
    long k = 0;
    if (n->b >= 0) {
        long lo, hi;
        if (slice_bounds(u, n, a, &lo, &hi))
            return -1;
        if (u->elem <= 0 || u->elem > hi - lo + 1)
            return unroll_error_at(u, n->line, n->column, "the slice '%s[%ld:%ld]' stands for %ld "
                                   "values: use it in an equation between arrays of that length, "
                                   "or in sum(...)", name_of(u, n->name), lo, hi, hi - lo + 1);
        k = lo + u->elem - 1;
    } else {
        hy_expr_ref index = { n->first, n->a };
        const hy_syn *at = &u->in->nodes[n->first];
        if (unroll_eval_integer_of(u, index, at->line, at->column, "index of", n->name, 1,
                                   a->size, &k))
            return -1;
    }
    int node = add_out(u, n, SYN_NAME, -1, -1, -1);
    if (node < 0)
        return -1;
    int id = unroll_element_name(u, a, k);
    if (id >= 0 && n->var >= 0) { /* J[k].w: a variable of a component array's element */
        id = hy_strtab_intern_join(u->strings, name_of(u, id), ".", name_of(u, n->var));
        if (id < 0)
            return unroll_nomem(u);
    }
    if (id < 0)
        return -1;
    u->out->nodes[node].name = id;
    if (u->lane_var >= 0 && n->b < 0 && unroll_range_uses(u, n->first, n->a, u->lane_var)) {
        /* a loop kept as a loop (unroll_lanes.c): the element moves with i */
        long last = k + u->lane_n - 1;
        if (last > a->size)
            return unroll_error_at(u, n->line, n->column, "index %ld of '%s' out of range 1..%ld",
                                   last, name_of(u, n->name), a->size);
        int last_id = unroll_element_name(u, a, last);
        if (last_id < 0)
            return -1;
        u->out->nodes[node].lane = 1;
        u->out->nodes[node].var = last_id;
    }
    return node;
}

/* sum / product / min / max of a over var in b:c. */
static int copy_reduce(unroller *u, const hy_syn *n)
{
    const char *f = name_of(u, n->name);
    int is_sum = strcmp(f, "sum") == 0, is_product = strcmp(f, "product") == 0;
    if (!is_sum && !is_product && strcmp(f, "min") && strcmp(f, "max"))
        return unroll_error_at(u, n->line, n->column, "'%s' cannot run over a range (sum, product, "
                               "min and max can)", f);
    hy_expr_ref from = { n->a + 1, n->b }, to = { n->b + 1, n->c };
    long lo = 0, hi = -1;
    if (unroll_eval_integer(u, from, n->line, n->column, "start of the range", -HY_UNROLL_MAX_ITEMS,
                            HY_UNROLL_MAX_ITEMS, &lo)
        || unroll_eval_integer(u, to, n->line, n->column, "end of the range", -HY_UNROLL_MAX_ITEMS,
                               HY_UNROLL_MAX_ITEMS, &hi))
        return -1;
    if (hi < lo && !is_sum && !is_product)
        return unroll_error_at(u, n->line, n->column, "%s() over the empty range %ld:%ld", f, lo,
                               hi);
    int acc = -1;
    for (long v = lo; v <= hi; v++) {
        if (unroll_count_item(u, n->line, n->column) || unroll_bind(u, n->var, (double)v))
            return -1;
        int term = copy_range(u, n->first, n->a);
        u->n_env--;
        if (term < 0)
            return -1;
        if (acc < 0) {
            acc = term;
        } else if (is_sum || is_product) {
            acc = add_out(u, n, is_sum ? SYN_ADD : SYN_MUL, acc, term, -1);
        } else {
            acc = add_out(u, n, SYN_CALL, acc, term, -1);
            if (acc >= 0) {
                u->out->nodes[acc].name = n->name;
                u->out->nodes[acc].n_args = 2;
            }
        }
        if (acc < 0)
            return -1;
    }
    if (acc < 0) { /* empty sum or product */
        acc = add_out(u, n, SYN_NUM, -1, -1, -1);
        if (acc >= 0)
            u->out->nodes[acc].value = is_sum ? 0.0 : 1.0;
    }
    return acc;
}

/* The reductions that take a whole array or a slice: sum(x), sum(x[2:n]),
** product, and min / max of one argument. */
static int is_array_reduction(const unroller *u, const hy_syn *n)
{
    if (n->op != SYN_CALL || n->n_args != 1 || n->a < 0)
        return 0;
    const char *f = name_of(u, n->name);
    if (strcmp(f, "sum") && strcmp(f, "product") && strcmp(f, "min") && strcmp(f, "max"))
        return 0;
    const hy_syn *arg = &u->in->nodes[n->a];
    return (arg->op == SYN_NAME && !unroll_find_binding(u, arg->name)
            && unroll_find_array(u, arg->name))
           || (arg->op == SYN_INDEX && arg->b >= 0);
}

/* The first node of the range node j stands for as a whole (an array
** construct, an array reduction), or -1. */
static int construct_start(const unroller *u, int j)
{
    const hy_syn *n = &u->in->nodes[j];
    if (n->op >= SYN_INDEX)
        return n->first;
    if (!is_array_reduction(u, n))
        return -1;
    const hy_syn *arg = &u->in->nodes[n->a];
    return arg->op == SYN_INDEX ? arg->first : n->a;
}

/* sum / product / min / max over the elements of an array or a slice. */
static int copy_array_reduction(unroller *u, const hy_syn *n)
{
    const hy_syn *arg = &u->in->nodes[n->a];
    array_info *a = unroll_find_array(u, arg->name);
    if (!a)
        return unroll_error_at(u, arg->line, arg->column, "'%s' is not an array",
                               name_of(u, arg->name));
    if (a->size < 0)
        return -1;
    long lo = 1, hi = a->size;
    if (arg->op == SYN_INDEX && slice_bounds(u, arg, a, &lo, &hi))
        return -1;
    const char *f = name_of(u, n->name);
    int is_sum = strcmp(f, "sum") == 0, is_product = strcmp(f, "product") == 0;
    int acc = -1;
    for (long k = lo; k <= hi; k++) {
        int id = unroll_count_item(u, n->line, n->column) ? -1 : unroll_element_name(u, a, k);
        int term = id < 0 ? -1 : add_out(u, arg, SYN_NAME, -1, -1, -1);
        if (term < 0)
            return -1;
        u->out->nodes[term].name = id;
        if (acc < 0) {
            acc = term;
            continue;
        }
        acc = add_out(u, n, is_sum ? SYN_ADD : is_product ? SYN_MUL : SYN_CALL, acc, term, -1);
        if (acc < 0)
            return -1;
        if (!is_sum && !is_product) {
            u->out->nodes[acc].name = n->name;
            u->out->nodes[acc].n_args = 2;
        }
    }
    return acc;
}

static int copy_construct(unroller *u, const hy_syn *n)
{
    switch (n->op) {
    case SYN_CALL:
        return copy_array_reduction(u, n);
    case SYN_INDEX:
        return copy_index(u, n);
    case SYN_REDUCE:
        return copy_reduce(u, n);
    default:
        return unroll_error_at(u, n->line, n->column, "an array constructor {...} is only allowed "
                               "as the start or value of an array declaration");
    }
}

static int copy_name(unroller *u, const hy_syn *n)
{
    const binding *b = unroll_find_binding(u, n->name);
    int node = add_out(u, n, b ? SYN_NUM : SYN_NAME, -1, -1, -1);
    if (node < 0)
        return -1;
    if (b) {
        u->out->nodes[node].value = b->value;
        return node;
    }
    array_info *a = unroll_find_array(u, n->name);
    if (a && a->size < 0)
        return -1;
    if (a && u->elem > 0 && u->elem <= a->size) {
        int id = unroll_element_name(u, a, u->elem);
        if (id < 0)
            return -1;
        u->out->nodes[node].name = id;
        return node;
    }
    if (a)
        return unroll_error_at(u, n->line, n->column, "'%s' is an array of %ld elements: use one "
                               "('%s[i]'), sum(...) over them, or write an equation between arrays "
                               "of the same length", name_of(u, n->name), a->size,
                               name_of(u, n->name));
    u->out->nodes[node].name = n->name;
    return node;
}

/* Copy input nodes [first, root] to the output; the output root, or -1. */
static int copy_range(unroller *u, int first, int root)
{
    if (u->failed)
        return -1;
    const hy_syn *nodes = u->in->nodes;
    size_t n = (size_t)(root - first + 1);
    int base = n <= INT_MAX / 2 ? unroll_push_ints(u, 2 * n) : unroll_nomem(u);
    if (base < 0)
        return -1;
    /* MAP(j): the output node of input node j; OWNER(j): the construct
    ** (index, reduction, constructor) whose range starts at j, or -1. */
#define MAP(j) u->ints[base + (j) - first]
#define OWNER(j) u->ints[base + (int)n + (j) - first]
    for (int j = first; j <= root; j++)
        OWNER(j) = -1;
    for (int j = first; j <= root; j++) {
        int start = construct_start(u, j);
        if (start >= first && OWNER(start) < j)
            OWNER(start) = j; /* the outermost of those starting there */
    }
    int result = -1;
    for (int j = first; j <= root; j++) {
        const hy_syn *s = &nodes[j];
        int node;
        if (OWNER(j) >= 0) {
            j = OWNER(j);
            node = copy_construct(u, &nodes[j]);
        } else if (s->op >= SYN_INDEX) {
            node = copy_construct(u, s);
        } else if (s->op == SYN_NAME) {
            node = copy_name(u, s);
        } else {
            node = add_out(u, s, (hy_syn_op)s->op, s->a >= first ? MAP(s->a) : -1,
                           s->b >= first ? MAP(s->b) : -1, s->c >= first ? MAP(s->c) : -1);
            if (node >= 0) {
                hy_syn *d = &u->out->nodes[node];
                d->name = s->name;
                d->value = s->value;
                d->n_args = s->n_args;
            }
        }
        if (node < 0)
            break;
        MAP(j) = node;
        if (j == root)
            result = node;
    }
#undef MAP
#undef OWNER
    u->n_ints = base;
    return result;
}

hy_expr_ref unroll_copy_expr(unroller *u, hy_expr_ref e)
{
    hy_expr_ref out = { u->out->n_nodes, -1 };
    if (e.root >= 0)
        out.root = copy_range(u, e.first, e.root);
    return out;
}

/* ---------------------------------------------------------------- */
/* Lengths of array expressions                                     */

/* The number of elements expression e stands for: 0 for one value, n
** when it holds whole arrays or slices of n elements (combined element by
** element: + - and functions of arrays of one length, * / ^ of an array
** and a value). Node by node in index order, a construct's range (an
** index, a reduction) counting as one value. -1 after reporting. */
long unroll_expr_length(unroller *u, hy_expr_ref e)
{
    if (e.root < 0)
        return 0;
    const hy_syn *nodes = u->in->nodes;
    int first = e.first, n = e.root - first + 1;
    int base = unroll_push_ints(u, 2 * (size_t)n);
    if (base < 0)
        return -1;
#define LEN(j) u->ints[base + (j) - first]
#define OWNER(j) u->ints[base + n + (j) - first]
    for (int j = first; j <= e.root; j++)
        OWNER(j) = -1;
    for (int j = first; j <= e.root; j++) {
        int start = construct_start(u, j);
        if (start >= first && OWNER(start) < j)
            OWNER(start) = j;
    }
    long result = 0;
    for (int j = first; j <= e.root && result >= 0; j++) {
        const hy_syn *node = &nodes[j];
        long len = 0;
        if (OWNER(j) >= 0) {
            j = OWNER(j);
            node = &nodes[j];
            if (node->op == SYN_INDEX && node->b >= 0) {
                array_info *a = unroll_find_array(u, node->name);
                long lo, hi;
                if (!a)
                    len = unroll_error_at(u, node->line, node->column, "'%s' is not an array",
                                          name_of(u, node->name));
                else
                    len = a->size < 0 || slice_bounds(u, node, a, &lo, &hi) ? -1 : hi - lo + 1;
            }
        } else if (node->op == SYN_NAME && !unroll_find_binding(u, node->name)) {
            array_info *a = unroll_find_array(u, node->name);
            len = a ? a->size : 0;
        } else if (node->op < SYN_INDEX) {
            int operands[3] = { node->a, node->b, node->c };
            for (int k = 0; k < 3 && len >= 0; k++) {
                if (operands[k] < first)
                    continue;
                long other = LEN(operands[k]);
                if (other < 0 || other == 0 || other == len) {
                    len = other < 0 ? -1 : (other ? other : len);
                    continue;
                }
                if (len > 0)
                    len = unroll_error_at(u, node->line, node->column, "arrays of %ld and %ld "
                                          "elements combined", len, other);
                else
                    len = other;
            }
            int product = node->op == SYN_MUL || node->op == SYN_DIV || node->op == SYN_POW;
            if (len > 0 && product && node->a >= first && node->b >= first
                && LEN(node->a) > 0 && LEN(node->b) > 0)
                len = unroll_error_at(u, node->line, node->column, "'%s' between two arrays: hydae "
                                      "multiplies arrays only element by element in a loop "
                                      "('x[i] * y[i]'), or sum(x[i] * y[i] for i in 1:n)",
                                      node->op == SYN_MUL ? "*" : node->op == SYN_DIV ? "/" : "^");
        }
        LEN(j) = (int)(len < 0 ? -1 : len);
        if (len < 0)
            result = -1;
        else if (j == e.root)
            result = len;
    }
#undef LEN
#undef OWNER
    u->n_ints = base;
    return result;
}
