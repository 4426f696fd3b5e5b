/*
** Symbolic expressions of the model-language compiler: the hash-consed
** DAG with constant folding and 0/1 simplification, the built-in function
** table, reachability and substitution walks. All walks visit nodes in
** index order (operands before the node), never recursing.
**
** Sized for models of 10^6 equations: a node is 16 bytes; the hash table
** (open addressing, linear probing) keeps each node's hash beside its
** index, so a probe reads the node array only on a hash match; a walk
** reuses e's buffers and sorts without comparisons; the derivatives of
** one equation share its walk.
*/
#include "lang/expr.h"

#include "lang/strtab.h"
#include "core/core.h"

#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static const struct {
    const char *name;
    int arity;
} function_table[FN_N_FUNCTIONS] = {
#define HY_FUNCTION_ROW_(id, name, arity) [id] = { name, arity },
    HY_FUNCTION_LIST(HY_FUNCTION_ROW_)
#undef HY_FUNCTION_ROW_
};

hy_function hy_function_find(const char *name)
{
    for (int i = 0; i < FN_N_FUNCTIONS; i++)
        if (strcmp(function_table[i].name, name) == 0)
            return (hy_function)i;
    return FN_N_FUNCTIONS;
}

int hy_function_arity(hy_function fn)
{
    return fn < FN_N_FUNCTIONS ? function_table[fn].arity : 0;
}

const char *hy_function_name(hy_function fn)
{
    return fn < FN_N_FUNCTIONS ? function_table[fn].name : "?";
}

double hy_function_apply(hy_function fn, double a, double b)
{
    switch (fn) {
    case FN_SIN: return sin(a);
    case FN_COS: return cos(a);
    case FN_TAN: return tan(a);
    case FN_ASIN: return asin(a);
    case FN_ACOS: return acos(a);
    case FN_ATAN: return atan(a);
    case FN_SINH: return sinh(a);
    case FN_COSH: return cosh(a);
    case FN_TANH: return tanh(a);
    case FN_EXP: return exp(a);
    case FN_LOG: return log(a);
    case FN_LOG10: return log10(a);
    case FN_SQRT: return sqrt(a);
    case FN_ABS: return fabs(a);
    case FN_SIGN: return a > 0.0 ? 1.0 : a < 0.0 ? -1.0 : 0.0;
    case FN_FLOOR: return floor(a);
    case FN_CEIL: return ceil(a);
    case FN_ATAN2: return atan2(a, b);
    case FN_MIN: return a < b ? a : b;
    case FN_MAX: return a > b ? a : b;
    case FN_MOD: return a - floor(a / b) * b;  /* Modelica mod: sign of b */
    case FN_REM: return a - trunc(a / b) * b;  /* Modelica rem: sign of a */
    case FN_INTEGER: return floor(a);         /* Modelica integer: floor */
    case FN_DIV: return trunc(a / b);         /* Modelica div: toward zero */
    default: return NAN;
    }
}

void hy_expr_init(hy_expr *e)
{
    memset(e, 0, sizeof *e);
    e->epoch = 1;
}

void hy_expr_free(hy_expr *e)
{
    hy_free(e->node_array);
    hy_free(e->slots);
    hy_free(e->stamp);
    hy_free(e->scratch);
    hy_free(e->walk_list);
    hy_free(e->walk_stack);
    memset(e, 0, sizeof *e);
}

/* The node's hash: its fields packed into two words, then mixed by the
** MurmurHash3 64-bit finalizer (Appleby), so that neighbouring operand
** indices land in unrelated slots (linear probing needs that). */
static uint32_t hash_node(const hy_xnode *n)
{
    uint64_t operands; /* b and c, or the value */
    memcpy(&operands, &n->value, sizeof operands);
    uint64_t head = (uint64_t)n->op | (uint64_t)n->fn << 8 | (uint64_t)(uint32_t)n->a << 32;
    uint64_t h = head * 0x9e3779b97f4a7c15ull ^ operands;
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ull;
    h ^= h >> 33;
    return (uint32_t)h;
}

static int same_node(const hy_xnode *x, const hy_xnode *y)
{
    return x->op == y->op && x->fn == y->fn && x->a == y->a
           && memcmp(&x->value, &y->value, sizeof x->value) == 0;
}

/* Does a table of n_slots hold n_nodes at its highest load, 3/4? */
static int table_holds(int n_slots, int n_nodes)
{
    return (long)n_nodes * 4 <= (long)n_slots * 3;
}

static void place(hy_xslot *slots, uint32_t mask, hy_xslot entry)
{
    uint32_t h = entry.hash & mask;
    while (slots[h].node_plus1)
        h = (h + 1) & mask;
    slots[h] = entry;
}

/* Grow the table (or make it) to hold at least `need` nodes; the stored
** hashes place every node again without touching the node array. A
** dropped table (hy_expr_drop_table) is rebuilt from the nodes. */
static int rehash(hy_expr *e, int need)
{
    int n_slots = e->n_slots ? 2 * e->n_slots : 256;
    while (!table_holds(n_slots, need)) {
        if (n_slots > INT_MAX / 2)
            return -1;
        n_slots *= 2;
    }
    hy_xslot *slots = hy_calloc((size_t)n_slots, sizeof *slots);
    if (!slots)
        return -1;
    uint32_t mask = (uint32_t)n_slots - 1;
    if (e->slots) {
        for (int s = 0; s < e->n_slots; s++)
            if (e->slots[s].node_plus1)
                place(slots, mask, e->slots[s]);
    } else {
        for (int i = 0; i < e->n_nodes; i++) {
            hy_xslot entry = { hash_node(&e->node_array[i]), i + 1 };
            place(slots, mask, entry);
        }
    }
    hy_free(e->slots);
    e->slots = slots;
    e->n_slots = n_slots;
    return 0;
}

void hy_expr_drop_table(hy_expr *e)
{
    hy_free(e->slots);
    e->slots = NULL;
    e->n_slots = 0;
}

/* Room for n_nodes nodes in all (and their stamps and scratch); -1 when
** out of memory. */
static int reserve_nodes(hy_expr *e, int n_nodes)
{
    if (n_nodes <= e->cap_nodes)
        return 0;
    /* by half again, not double: the node array is the compiler's
    ** largest, and 1.5 wastes a quarter on average where 2 wastes a third */
    int old_cap = e->cap_nodes;
    long cap = (long)old_cap + old_cap / 2;
    if (cap < n_nodes)
        cap = n_nodes;
    if (cap < 1024)
        cap = 1024;
    if (cap > INT_MAX / 2)
        return -1;
    hy_xnode *nodes = hy_realloc(e->node_array, sizeof *nodes * (size_t)cap);
    if (!nodes)
        return -1;
    e->node_array = nodes;
    e->cap_nodes = (int)cap;
    unsigned *stamp = hy_realloc(e->stamp, sizeof *stamp * (size_t)e->cap_nodes);
    if (stamp)
        e->stamp = stamp;
    int *scratch = hy_realloc(e->scratch, sizeof *scratch * (size_t)e->cap_nodes);
    if (scratch)
        e->scratch = scratch;
    if (!stamp || !scratch)
        return -1;
    memset(e->stamp + old_cap, 0, sizeof *stamp * (size_t)(e->cap_nodes - old_cap));
    return 0;
}

/* The node equal to *proto, added if new. */
static int intern(hy_expr *e, hy_xnode *proto)
{
    if (e->failed)
        return -1;
    proto->deps = 0;
    switch ((hy_xop)proto->op) {
    case X_Y: case X_T: proto->deps = HY_DEP_STATE; break;
    case X_YP: proto->deps = HY_DEP_STATE | HY_DEP_YP; break;
    case X_P: proto->deps = HY_DEP_P; break;
    case X_IN: proto->deps = HY_DEP_IN; break;
    case X_NUM: case X_CJ: break;
    default:
        if (proto->a >= 0) proto->deps |= e->node_array[proto->a].deps;
        if (proto->b >= 0) proto->deps |= e->node_array[proto->b].deps;
        if (proto->c >= 0) proto->deps |= e->node_array[proto->c].deps;
        break;
    }
    if (!table_holds(e->n_slots, e->n_nodes + 1) && rehash(e, e->n_nodes + 1) != 0) {
        e->failed = 1;
        return -1;
    }
    uint32_t hash = hash_node(proto), mask = (uint32_t)e->n_slots - 1, h = hash & mask;
    while (e->slots[h].node_plus1) {
        if (e->slots[h].hash == hash) {
            int i = e->slots[h].node_plus1 - 1;
            if (same_node(&e->node_array[i], proto))
                return i;
        }
        h = (h + 1) & mask;
    }
    if (e->n_nodes == e->cap_nodes && reserve_nodes(e, e->n_nodes + 1) != 0) {
        e->failed = 1;
        return -1;
    }
    e->node_array[e->n_nodes] = *proto;
    e->slots[h].hash = hash;
    e->slots[h].node_plus1 = e->n_nodes + 1;
    return e->n_nodes++;
}

static hy_xnode make(hy_xop op, int fn, int a, int b, int c)
{
    hy_xnode n;
    memset(&n, 0, sizeof n);
    n.op = (unsigned char)op;
    n.fn = (unsigned char)fn;
    n.a = a;
    n.b = b;
    n.c = c;
    return n;
}

int hy_x_num(hy_expr *e, double value)
{
    /* 0 and 1, which every derivative asks for, without a hash probe */
    if (value == 0.0 && e->zero_plus1 && !e->failed)
        return e->zero_plus1 - 1;
    if (value == 1.0 && e->one_plus1 && !e->failed)
        return e->one_plus1 - 1;
    hy_xnode n = make(X_NUM, 0, -1, -1, -1);
    n.value = value == 0.0 ? 0.0 : value; /* one zero: -0 and +0 fold together */
    int i = intern(e, &n);
    if (i >= 0 && value == 0.0)
        e->zero_plus1 = i + 1;
    else if (i >= 0 && value == 1.0)
        e->one_plus1 = i + 1;
    return i;
}

int hy_x_leaf(hy_expr *e, hy_xop op, int index)
{
    hy_xnode n = make(op, 0, index, -1, -1);
    return intern(e, &n);
}

int hy_x_lane_leaf(hy_expr *e, hy_xop op, int index)
{
    hy_xnode n = make(op, HY_LANE_LEAF, index, -1, -1);
    return intern(e, &n);
}

static int is_num(const hy_expr *e, int i)
{
    return e->node_array[i].op == X_NUM;
}

static double num(const hy_expr *e, int i)
{
    return e->node_array[i].value;
}

int hy_x_unary(hy_expr *e, hy_xop op, int a)
{
    if (a < 0)
        return -1;
    if (is_num(e, a))
        return hy_x_num(e, op == X_NEG ? -num(e, a) : (double)(num(e, a) == 0.0));
    if (op == X_NEG && e->node_array[a].op == X_NEG)
        return e->node_array[a].a;
    if (op == X_NEG && e->node_array[a].op == X_SUB) /* -(x - y) = y - x */
        return hy_x_binary(e, X_SUB, e->node_array[a].b, e->node_array[a].a);
    hy_xnode n = make(op, 0, a, -1, -1);
    return intern(e, &n);
}

double hy_x_fold(hy_xop op, double x, double y)
{
    switch (op) {
    case X_ADD: return x + y;
    case X_SUB: return x - y;
    case X_MUL: return x * y;
    case X_DIV: return x / y;
    case X_POW: return pow(x, y);
    case X_LT: return x < y;
    case X_LE: return x <= y;
    case X_GT: return x > y;
    case X_GE: return x >= y;
    case X_EQ: return x == y;
    case X_NE: return x != y;
    case X_AND: return x != 0.0 && y != 0.0;
    case X_OR: return x != 0.0 || y != 0.0;
    default: return NAN;
    }
}

int hy_x_binary(hy_expr *e, hy_xop op, int a, int b)
{
    if (a < 0 || b < 0)
        return -1;
    if (is_num(e, a) && is_num(e, b))
        return hy_x_num(e, hy_x_fold(op, num(e, a), num(e, b)));
    switch (op) {
    case X_ADD:
        if (hy_x_is_num(e, a, 0.0))
            return b;
        if (hy_x_is_num(e, b, 0.0))
            return a;
        if (e->node_array[b].op == X_NEG)
            return hy_x_binary(e, X_SUB, a, e->node_array[b].a);
        if (e->node_array[a].op == X_NEG)
            return hy_x_binary(e, X_SUB, b, e->node_array[a].a);
        if (a > b) {
            int t = a;
            a = b;
            b = t;
        }
        break;
    case X_SUB:
        if (hy_x_is_num(e, b, 0.0))
            return a;
        if (hy_x_is_num(e, a, 0.0))
            return hy_x_unary(e, X_NEG, b);
        if (a == b)
            return hy_x_num(e, 0.0);
        if (e->node_array[b].op == X_NEG)
            return hy_x_binary(e, X_ADD, a, e->node_array[b].a);
        break;
    case X_MUL:
        if (hy_x_is_num(e, a, 0.0) || hy_x_is_num(e, b, 0.0))
            return hy_x_num(e, 0.0);
        if (hy_x_is_num(e, a, 1.0))
            return b;
        if (hy_x_is_num(e, b, 1.0))
            return a;
        if (hy_x_is_num(e, a, -1.0))
            return hy_x_unary(e, X_NEG, b);
        if (hy_x_is_num(e, b, -1.0))
            return hy_x_unary(e, X_NEG, a);
        if (e->node_array[a].op == X_NEG && e->node_array[b].op == X_NEG)
            return hy_x_binary(e, X_MUL, e->node_array[a].a, e->node_array[b].a);
        if (a > b) {
            int t = a;
            a = b;
            b = t;
        }
        break;
    case X_DIV:
        if (hy_x_is_num(e, a, 0.0))
            return hy_x_num(e, 0.0);
        if (hy_x_is_num(e, b, 1.0))
            return a;
        if (hy_x_is_num(e, b, -1.0))
            return hy_x_unary(e, X_NEG, a);
        break;
    case X_POW:
        if (hy_x_is_num(e, b, 1.0))
            return a;
        if (hy_x_is_num(e, b, 0.0))
            return hy_x_num(e, 1.0);
        break;
    case X_AND:
        if ((is_num(e, a) && num(e, a) == 0.0) || (is_num(e, b) && num(e, b) == 0.0))
            return hy_x_num(e, 0.0);
        break;
    case X_OR:
        if ((is_num(e, a) && num(e, a) != 0.0) || (is_num(e, b) && num(e, b) != 0.0))
            return hy_x_num(e, 1.0);
        break;
    default:
        break;
    }
    hy_xnode n = make(op, 0, a, b, -1);
    return intern(e, &n);
}

int hy_x_fn(hy_expr *e, hy_function fn, int a, int b)
{
    int binary = hy_function_arity(fn) == 2;
    if (a < 0 || (binary && b < 0))
        return -1;
    if (is_num(e, a) && (!binary || is_num(e, b)))
        return hy_x_num(e, hy_function_apply(fn, num(e, a), binary ? num(e, b) : 0.0));
    hy_xnode n = make(binary ? X_FN2 : X_FN1, fn, a, binary ? b : -1, -1);
    return intern(e, &n);
}

int hy_x_if(hy_expr *e, int cond, int then_value, int else_value)
{
    if (cond < 0 || then_value < 0 || else_value < 0)
        return -1;
    if (is_num(e, cond))
        return num(e, cond) != 0.0 ? then_value : else_value;
    if (then_value == else_value)
        return then_value;
    hy_xnode n = make(X_IF, 0, cond, then_value, else_value);
    return intern(e, &n);
}

static void next_epoch(hy_expr *e)
{
    if (++e->epoch == 0) {
        memset(e->stamp, 0, sizeof *e->stamp * (size_t)e->cap_nodes);
        e->epoch = 1;
    }
}

/* Sort v[0..n) ascending: insertion sort for the short (and nearly
** sorted) lists of one equation, else an LSD radix sort by 11-bit digits (Knuth, TAOCP vol. 3,
** 5.2.5) over the digits the largest value has, through tmp (n long). */
static void sort_indices(int *v, int n, int *tmp)
{
    if (n <= 32) {
        for (int i = 1; i < n; i++) {
            int x = v[i], j = i;
            for (; j > 0 && v[j - 1] > x; j--)
                v[j] = v[j - 1];
            v[j] = x;
        }
        return;
    }
    unsigned largest = 0;
    for (int i = 0; i < n; i++)
        largest |= (unsigned)v[i];
    int *from = v, *to = tmp;
    for (int shift = 0; shift < 32 && (largest >> shift) != 0; shift += 11) {
        int count[2048 + 1] = { 0 };
        for (int i = 0; i < n; i++)
            count[(((unsigned)from[i] >> shift) & 2047u) + 1]++;
        for (int d = 0; d < 2048; d++)
            count[d + 1] += count[d];
        for (int i = 0; i < n; i++)
            to[count[((unsigned)from[i] >> shift) & 2047u]++] = from[i];
        int *t = from;
        from = to;
        to = t;
    }
    if (from != v)
        memcpy(v, from, sizeof *v * (size_t)n);
}

int hy_x_walk(hy_expr *e, const int *roots, int n_roots, const int **list)
{
    *list = NULL;
    if (e->failed)
        return -1;
    next_epoch(e);
    int n = 0, n_stack = 0;
    for (int r = 0; r < n_roots; r++) {
        if (roots[r] < 0 || e->stamp[roots[r]] == e->epoch)
            continue;
        if (hy_grow((void **)&e->walk_stack, &e->cap_walk_stack, n + 1, sizeof(int)))
            goto nomem;
        e->walk_stack[n_stack++] = roots[r];
        e->stamp[roots[r]] = e->epoch;
        while (n_stack > 0) {
            int i = e->walk_stack[--n_stack];
            /* room for the children, and the stack at least as long as
            ** the list: the radix sort borrows it */
            if (hy_grow((void **)&e->walk_list, &e->cap_walk_list, n + 1, sizeof(int))
                || hy_grow((void **)&e->walk_stack, &e->cap_walk_stack, n_stack + n + 4,
                           sizeof(int)))
                goto nomem;
            e->walk_list[n++] = i;
            const hy_xnode *node = &e->node_array[i];
            if (node->op < X_NEG)
                continue;
            int children[3] = { node->a, node->b, node->c };
            for (int k = 0; k < 3; k++) {
                int ch = children[k];
                if (ch < 0 || e->stamp[ch] == e->epoch)
                    continue;
                e->stamp[ch] = e->epoch;
                e->walk_stack[n_stack++] = ch;
            }
        }
    }
    /* a node comes before its operands (preorder), whose indices are
    ** smaller: reversed, the list is nearly ascending already */
    for (int lo = 0, hi = n - 1; lo < hi; lo++, hi--) {
        int t = e->walk_list[lo];
        e->walk_list[lo] = e->walk_list[hi];
        e->walk_list[hi] = t;
    }
    sort_indices(e->walk_list, n, e->walk_stack); /* the stack is free, >= n long */
    *list = e->walk_list;
    return n;
nomem:
    e->failed = 1;
    return -1;
}

int hy_x_reachable(hy_expr *e, const int *roots, int n_roots, int **out)
{
    *out = NULL;
    const int *walked = NULL;
    int n = hy_x_walk(e, roots, n_roots, &walked);
    if (n < 0)
        return -1;
    int *list = hy_malloc(sizeof *list * (size_t)(n + 1));
    if (!list) {
        e->failed = 1;
        return -1;
    }
    if (n > 0) /* walked is NULL before the first node is walked */
        memcpy(list, walked, sizeof *list * (size_t)n);
    *out = list;
    return n;
}

/* Does x * 0 fold to 0 (x no number, or a finite one)? */
static int times_zero_vanishes(const hy_expr *e, int x)
{
    return !is_num(e, x) || isfinite(num(e, x));
}

/* Derivative of node i given the derivatives of its operands (not all 0). */
static int derive_node(hy_expr *e, int i, int da, int db, int dc)
{
    hy_xnode n = e->node_array[i];
    int a = n.a, b = n.b, zero = hy_x_num(e, 0.0);
    /* The shortcuts where an operand's derivative is 0 build the nodes the
    ** general rule would (its other terms fold away), without the calls. */
    switch ((hy_xop)n.op) {
    case X_NEG: return hy_x_unary(e, X_NEG, da);
    case X_ADD:
        if (da == zero || db == zero)
            return da == zero ? db : da;
        return hy_x_binary(e, X_ADD, da, db);
    case X_SUB:
        if (db == zero)
            return da;
        if (da == zero)
            return hy_x_unary(e, X_NEG, db);
        return hy_x_binary(e, X_SUB, da, db);
    case X_MUL:
        if (db == zero && times_zero_vanishes(e, a))
            return hy_x_binary(e, X_MUL, da, b);
        if (da == zero && times_zero_vanishes(e, b))
            return hy_x_binary(e, X_MUL, a, db);
        return hy_x_binary(e, X_ADD, hy_x_binary(e, X_MUL, da, b), hy_x_binary(e, X_MUL, a, db));
    case X_DIV: /* (da - (a/b) db) / b */
        if (db == zero)
            return hy_x_binary(e, X_DIV, da, b);
        return hy_x_binary(e, X_DIV, hy_x_binary(e, X_SUB, da, hy_x_binary(e, X_MUL, i, db)), b);
    case X_POW:
        if (db == zero) { /* b a^(b-1) da */
            int b_minus_1 = hy_x_binary(e, X_SUB, b, hy_x_num(e, 1.0));
            return hy_x_binary(e, X_MUL,
                               hy_x_binary(e, X_MUL, b, hy_x_binary(e, X_POW, a, b_minus_1)), da);
        }
        /* a^b (db log a + b da / a) */
        return hy_x_binary(e, X_MUL, i,
                           hy_x_binary(e, X_ADD,
                                       hy_x_binary(e, X_MUL, db, hy_x_fn(e, FN_LOG, a, -1)),
                                       hy_x_binary(e, X_DIV, hy_x_binary(e, X_MUL, b, da), a)));
    case X_IF: return hy_x_if(e, a, db, dc);
    case X_FN1: {
        int one = hy_x_num(e, 1.0), factor;
        switch ((hy_function)n.fn) {
        case FN_SIN: factor = hy_x_fn(e, FN_COS, a, -1); break;
        case FN_COS: factor = hy_x_unary(e, X_NEG, hy_x_fn(e, FN_SIN, a, -1)); break;
        case FN_TAN: factor = hy_x_binary(e, X_ADD, one, hy_x_binary(e, X_MUL, i, i)); break;
        case FN_ASIN: case FN_ACOS: {
            int root = hy_x_fn(e, FN_SQRT, hy_x_binary(e, X_SUB, one, hy_x_binary(e, X_MUL, a, a)), -1);
            factor = hy_x_binary(e, X_DIV, hy_x_num(e, n.fn == FN_ASIN ? 1.0 : -1.0), root);
            break;
        }
        case FN_ATAN:
            factor = hy_x_binary(e, X_DIV, one, hy_x_binary(e, X_ADD, one, hy_x_binary(e, X_MUL, a, a)));
            break;
        case FN_SINH: factor = hy_x_fn(e, FN_COSH, a, -1); break;
        case FN_COSH: factor = hy_x_fn(e, FN_SINH, a, -1); break;
        case FN_TANH: factor = hy_x_binary(e, X_SUB, one, hy_x_binary(e, X_MUL, i, i)); break;
        case FN_EXP: factor = i; break;
        case FN_LOG: return hy_x_binary(e, X_DIV, da, a);
        case FN_LOG10:
            return hy_x_binary(e, X_DIV, da, hy_x_binary(e, X_MUL, a, hy_x_num(e, log(10.0))));
        case FN_SQRT: return hy_x_binary(e, X_DIV, da, hy_x_binary(e, X_MUL, hy_x_num(e, 2.0), i));
        case FN_ABS: factor = hy_x_fn(e, FN_SIGN, a, -1); break;
        default: return zero; /* sign, floor, ceil, integer: piecewise constant */
        }
        return hy_x_binary(e, X_MUL, factor, da);
    }
    case X_FN2:
        switch ((hy_function)n.fn) {
        case FN_ATAN2: /* (b da - a db) / (a^2 + b^2) */
            return hy_x_binary(e, X_DIV,
                               hy_x_binary(e, X_SUB, hy_x_binary(e, X_MUL, b, da),
                                           hy_x_binary(e, X_MUL, a, db)),
                               hy_x_binary(e, X_ADD, hy_x_binary(e, X_MUL, a, a),
                                           hy_x_binary(e, X_MUL, b, b)));
        case FN_MIN: return hy_x_if(e, hy_x_binary(e, X_LE, a, b), da, db);
        case FN_MAX: return hy_x_if(e, hy_x_binary(e, X_GE, a, b), da, db);
        case FN_MOD: case FN_REM: /* a - q b with q = (a - node)/b piecewise constant */
            return hy_x_binary(e, X_SUB, da,
                               hy_x_binary(e, X_MUL,
                                           hy_x_binary(e, X_DIV, hy_x_binary(e, X_SUB, a, i), b),
                                           db));
        default: return zero; /* div: piecewise constant */
        }
    default:
        return zero; /* relations and logic are piecewise constant */
    }
}

int hy_x_derivative_over(hy_expr *e, const int *list, int n_list, int leaf)
{
    if (e->failed || n_list <= 0)
        return -1;
    int zero = hy_x_num(e, 0.0), one = hy_x_num(e, 1.0), root = list[n_list - 1];
    /* Nodes below the leaf's index cannot contain it (operands come
    ** first): start at the leaf's place, found by bisection. */
    int lo = 0, hi = n_list;
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (list[mid] < leaf)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == n_list || list[lo] != leaf)
        return zero;
    e->scratch[leaf] = one;
    int result = leaf == root ? one : zero;
    for (int k = lo + 1; k < n_list && !e->failed; k++) {
        int i = list[k];
        hy_xnode node = e->node_array[i];
        if (node.op < X_NEG) {
            e->scratch[i] = zero;
            continue;
        }
        int da = node.a >= 0 && node.a >= leaf ? e->scratch[node.a] : zero;
        int db = node.b >= 0 && node.b >= leaf ? e->scratch[node.b] : zero;
        int dc = node.c >= 0 && node.c >= leaf ? e->scratch[node.c] : zero;
        int d = da == zero && db == zero && dc == zero ? zero : derive_node(e, i, da, db, dc);
        if (d < 0)
            break;
        e->scratch[i] = d;
        if (i == root)
            result = d;
    }
    return e->failed ? -1 : result;
}

int hy_x_adjoints_over(hy_expr *e, const int *list, int n_list)
{
    if (e->failed || n_list <= 0)
        return -1;
    int zero = hy_x_num(e, 0.0), one = hy_x_num(e, 1.0);
    for (int k = 0; k < n_list; k++)
        e->scratch[list[k]] = zero;
    e->scratch[list[n_list - 1]] = one;
    /* Reverse accumulation (Griewank & Walther, "Evaluating Derivatives",
    ** 2nd ed., ch. 3): a node's adjoint is complete once every node above
    ** it, which comes later in the list, has passed its share down. The
    ** partial derivative by an operand is the forward rule with that
    ** operand's derivative 1 and the others' 0. */
    for (int k = n_list - 1; k >= 0 && !e->failed; k--) {
        int i = list[k], adjoint = e->scratch[i];
        hy_xnode node = e->node_array[i];
        if (node.op < X_NEG || adjoint == zero)
            continue;
        int operand[3] = { node.a, node.b, node.c };
        for (int j = 0; j < 3; j++) {
            int x = operand[j];
            if (x < 0 || !(e->node_array[x].deps & HY_DEP_STATE))
                continue; /* nothing below it is a y or y' */
            int partial = derive_node(e, i, j == 0 ? one : zero, j == 1 ? one : zero,
                                      j == 2 ? one : zero);
            int share = hy_x_binary(e, X_MUL, adjoint, partial);
            /* a local first: a constructor may move e->scratch */
            int sum = hy_x_binary(e, X_ADD, e->scratch[x], share);
            if (sum < 0)
                return -1;
            e->scratch[x] = sum;
        }
    }
    return e->failed ? -1 : 0;
}

int hy_x_derivative(hy_expr *e, int root, int leaf)
{
    const int *list = NULL;
    int n = hy_x_walk(e, &root, 1, &list);
    if (n < 0)
        return -1;
    return hy_x_derivative_over(e, list, n, leaf);
}

int hy_x_substitute(hy_expr *e, int root, hy_xop leaf_op, const int *subst, int n_subst)
{
    const int *list = NULL;
    int n = hy_x_walk(e, &root, 1, &list);
    if (n < 0)
        return -1;
    int result = root;
    for (int k = 0; k < n && !e->failed; k++) {
        int i = list[k];
        hy_xnode node = e->node_array[i];
        int r;
        if (node.op == leaf_op && node.a < n_subst && subst[node.a] >= 0) {
            r = subst[node.a];
        } else if (node.op < X_NEG) {
            r = i;
        } else {
            int a = node.a >= 0 ? e->scratch[node.a] : -1;
            int b = node.b >= 0 ? e->scratch[node.b] : -1;
            int c = node.c >= 0 ? e->scratch[node.c] : -1;
            switch ((hy_xop)node.op) {
            case X_NEG: case X_NOT: r = hy_x_unary(e, (hy_xop)node.op, a); break;
            case X_FN1: case X_FN2: r = hy_x_fn(e, (hy_function)node.fn, a, b); break;
            case X_IF: r = hy_x_if(e, a, b, c); break;
            default: r = hy_x_binary(e, (hy_xop)node.op, a, b); break;
            }
        }
        if (r < 0)
            break;
        e->scratch[i] = r;
        if (i == root)
            result = r;
    }
    return e->failed ? -1 : result;
}
