/*
** Arrays and for-loops expanded to scalars (unroll.h). The input syntax is
** read, a new one is written: expressions are copied node range by node
** range (operands before their node, as the parser leaves them), and the
** array constructs inside a range (an index, a reduction, a constructor)
** are met at their first node, evaluated or expanded, and skipped to
** their own node, so no pass recurses along an operator chain.
*/
#include "lang/unroll.h"

#include "core/core.h"

#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

typedef struct array_info {
    int name, mode;          /* mode -1: model level */
    long size;               /* -1: its size was refused */
    int *element_ids;        /* "name[k]" id + 1 by k - 1, made on first use */
} array_info;

typedef struct binding {
    int var;
    double value;
} binding;

typedef struct unroller {
    const hy_syntax *in;
    hy_syntax *out;
    hy_strtab *strings;
    hy_diag *diag;
    int mode;                /* scope of array names: this mode, then the model */
    long elem;               /* > 0: the element of an array equation being written
                                (whole arrays and slices stand for their elem-th) */
    binding *env;            /* loop variables, innermost last */
    int n_env, cap_env;
    array_info *arrays;
    int n_arrays, cap_arrays;
    unsigned char *is_array; /* by string id: some array has this name */
    int n_is_array;
    int *constant_decl;      /* by string id: model-level constant's decl + 1 */
    int n_constant_decl;
    int const_depth;         /* constants evaluated through constants */
    long n_items;
    int failed;              /* out of memory or over the limits: stop */
    /* Scratch stacks of copy_range and eval_constant (they nest through
    ** reductions and constants): a frame is [base, base + size), reached by
    ** index because a nested frame may move the array. */
    int *ints;
    int n_ints, cap_ints;
    double *reals;
    int n_reals, cap_reals;
} unroller;

static int error_at(unroller *u, int line, int column, const char *fmt, ...) HY_PRINTF(4, 5);

static int error_at(unroller *u, int line, int column, const char *fmt, ...)
{
    char message[512];
    va_list args;
    va_start(args, fmt);
    vsnprintf(message, sizeof message, fmt, args);
    va_end(args);
    hy_diag_error(u->diag, line, column, "%s", message);
    return -1;
}

static int nomem(unroller *u)
{
    if (!u->failed)
        hy_diag_nomem(u->diag);
    u->failed = 1;
    return -1;
}

static const char *name_of(const unroller *u, int id)
{
    return hy_strtab_get(u->strings, id);
}

long hy_unroll_max_items = HY_UNROLL_MAX_ITEMS;

static int count_item(unroller *u, int line, int column)
{
    if (++u->n_items <= hy_unroll_max_items
        && (long)u->out->n_nodes <= 32 * hy_unroll_max_items)
        return 0;
    if (!u->failed)
        error_at(u, line, column, "the model expands to more than %ld elements, equations, "
                 "statements and sum terms (or %ld expression nodes)", hy_unroll_max_items,
                 32 * hy_unroll_max_items);
    u->failed = 1;
    return -1;
}

/* ---------------------------------------------------------------- */
/* Names                                                            */

static array_info *find_array(const unroller *u, int name)
{
    if (name < 0 || name >= u->n_is_array || !u->is_array[name])
        return NULL;
    array_info *model_level = NULL, *any = NULL;
    for (int i = 0; i < u->n_arrays; i++) {
        array_info *a = &u->arrays[i];
        if (a->name != name)
            continue;
        if (a->mode == u->mode)
            return a;
        if (a->mode < 0)
            model_level = a;
        else if (!any)
            any = a;
    }
    return model_level ? model_level : any;
}

/* The id of "name[index]" of array a (1 <= index <= a->size), interned
** once and kept. */
static int element_name(unroller *u, array_info *a, long index)
{
    if (!a->element_ids) {
        a->element_ids = hy_calloc((size_t)a->size, sizeof *a->element_ids);
        if (!a->element_ids)
            return nomem(u);
    }
    int *cached = &a->element_ids[index - 1];
    if (*cached > 0)
        return *cached - 1;
    const char *base = name_of(u, a->name);
    size_t len = strlen(base);
    char *text = hy_malloc(len + 24);
    if (!text)
        return nomem(u);
    int n = snprintf(text, len + 24, "%s[%ld]", base, index);
    int id = hy_strtab_intern(u->strings, text, (size_t)n);
    hy_free(text);
    if (id < 0)
        return nomem(u);
    *cached = id + 1;
    return id;
}

static const binding *find_binding(const unroller *u, int var)
{
    for (int i = u->n_env - 1; i >= 0; i--)
        if (u->env[i].var == var)
            return &u->env[i];
    return NULL;
}

static int bind(unroller *u, int var, double value)
{
    if (hy_grow((void **)&u->env, &u->cap_env, u->n_env + 1, sizeof *u->env))
        return nomem(u);
    u->env[u->n_env].var = var;
    u->env[u->n_env].value = value;
    u->n_env++;
    return 0;
}

/* The base of a new frame of `size` ints or doubles, or -1. */
static int push_ints(unroller *u, size_t size)
{
    if (size > (size_t)(INT_MAX - u->n_ints)
        || hy_grow((void **)&u->ints, &u->cap_ints, u->n_ints + (int)size, sizeof *u->ints))
        return nomem(u);
    int base = u->n_ints;
    u->n_ints += (int)size;
    return base;
}

static int push_reals(unroller *u, size_t size)
{
    if (size > (size_t)(INT_MAX - u->n_reals)
        || hy_grow((void **)&u->reals, &u->cap_reals, u->n_reals + (int)size, sizeof *u->reals))
        return nomem(u);
    int base = u->n_reals;
    u->n_reals += (int)size;
    return base;
}

/* ---------------------------------------------------------------- */
/* Constant expressions: sizes, ranges, indices                     */

static int eval_constant(unroller *u, int first, int root, double *value);

static int constant_name(unroller *u, const hy_syn *n, double *value)
{
    const binding *b = find_binding(u, n->name);
    if (b) {
        *value = b->value;
        return 0;
    }
    int decl = n->name < u->n_constant_decl ? u->constant_decl[n->name] - 1 : -1;
    if (decl < 0)
        return error_at(u, n->line, n->column, "'%s' is neither a constant, a parameter nor "
                        "the variable of an enclosing loop: sizes, loop ranges and indices are "
                        "fixed when the model is compiled", name_of(u, n->name));
    const hy_decl *d = &u->in->decls[decl];
    if (d->value.root < 0)
        return error_at(u, n->line, n->column, "%s '%s' has no value",
                        d->kind == DECL_PARAMETER ? "parameter" : "constant", name_of(u, n->name));
    if (d->kind == DECL_PARAMETER && hy_syntax_note_structural(u->out, n->name))
        return nomem(u);
    if (u->const_depth >= 64)
        return error_at(u, n->line, n->column, "constant '%s' is defined through too many "
                        "others (a cycle?)", name_of(u, n->name));
    u->const_depth++;
    int rc = eval_constant(u, d->value.first, d->value.root, value);
    u->const_depth--;
    return rc;
}

static int constant_call(unroller *u, const hy_syn *n, const double *arg, double *value)
{
    const char *f = name_of(u, n->name);
    int arity = strcmp(f, "min") == 0 || strcmp(f, "max") == 0 || strcmp(f, "mod") == 0 ? 2 : 1;
    if (strcmp(f, "floor") && strcmp(f, "ceil") && strcmp(f, "abs") && arity == 1)
        return error_at(u, n->line, n->column, "'%s' in a size, range or index (constant "
                        "expressions call min, max, mod, floor, ceil, abs)", f);
    if (n->n_args != arity)
        return error_at(u, n->line, n->column, "%s() takes %d argument%s, got %d", f, arity,
                        arity == 1 ? "" : "s", n->n_args);
    double a = arg[0], b = arg[1];
    if (f[0] == 'f')
        *value = floor(a);
    else if (f[0] == 'c')
        *value = ceil(a);
    else if (f[0] == 'a')
        *value = fabs(a);
    else if (strcmp(f, "min") == 0)
        *value = fmin(a, b);
    else if (strcmp(f, "max") == 0)
        *value = fmax(a, b);
    else
        *value = a - floor(a / b) * b;
    return 0;
}

/* The value of nodes [first, root] of the input, evaluated in index order. */
static int eval_constant(unroller *u, int first, int root, double *value)
{
    const hy_syn *nodes = u->in->nodes;
    int base = push_reals(u, (size_t)(root - first + 1));
    if (base < 0)
        return -1;
#define VALUE(j) u->reals[base + (j) - first]
    int rc = 0;
    for (int j = first; j <= root && rc == 0; j++) {
        const hy_syn *n = &nodes[j];
        double a = n->a >= first ? VALUE(n->a) : 0;
        double b = n->b >= first ? VALUE(n->b) : 0;
        double v = 0.0;
        switch (n->op) {
        case SYN_NUM: v = n->value; break;
        case SYN_NAME: rc = constant_name(u, n, &v); break;
        case SYN_NEG: case SYN_ADD: case SYN_SUB: case SYN_MUL: case SYN_DIV: case SYN_POW:
            hy_syn_arith((hy_syn_op)n->op, a, b, &v);
            break;
        case SYN_CALL: {
            double args[2] = { a, b };
            rc = constant_call(u, n, args, &v);
            break;
        }
        default:
            rc = error_at(u, n->line, n->column, "a size, loop range or index must be a "
                          "constant expression (numbers, constants, loop variables, + - * / ^, "
                          "min max mod floor ceil abs)");
        }
        VALUE(j) = v;
    }
    if (rc == 0)
        *value = VALUE(root);
#undef VALUE
    u->n_reals = base;
    return rc;
}

/* A whole number in [lo, hi] (what names it: "index", "size", ...). */
static int eval_integer(unroller *u, hy_expr_ref e, int line, int column, const char *what,
                        long lo, long hi, long *out)
{
    double value;
    if (eval_constant(u, e.first, e.root, &value))
        return -1;
    if (!(value == floor(value)))
        return error_at(u, line, column, "the %s is %.17g, not a whole number", what, value);
    if (value < (double)lo || value > (double)hi)
        return error_at(u, line, column, "the %s is %.17g, outside %ld .. %ld", what, value, lo,
                        hi);
    *out = (long)value;
    return 0;
}

/* ---------------------------------------------------------------- */
/* Copying expressions                                              */

static int add_out(unroller *u, const hy_syn *like, hy_syn_op op, int a, int b, int c)
{
    int node = hy_syntax_add_node(u->out, op, like->line, like->column, a, b, c);
    return node < 0 ? nomem(u) : node;
}

static int copy_range(unroller *u, int first, int root);

/* The bounds of slice n (name[a:b]) of array a: 1 <= lo <= hi <= size. */
static int slice_bounds(unroller *u, const hy_syn *n, const array_info *a, long *lo, long *hi)
{
    hy_expr_ref from = { n->first, n->a }, to = { n->a + 1, n->b };
    char what[160];
    snprintf(what, sizeof what, "start of the slice of '%s'", name_of(u, n->name));
    if (eval_integer(u, from, n->line, n->column, what, 1, a->size, lo))
        return -1;
    snprintf(what, sizeof what, "end of the slice of '%s'", name_of(u, n->name));
    if (eval_integer(u, to, n->line, n->column, what, *lo, a->size, hi))
        return -1;
    return 0;
}

static int copy_index(unroller *u, const hy_syn *n)
{
    array_info *a = find_array(u, n->name);
    if (!a)
        return error_at(u, n->line, n->column, "'%s' is not an array", name_of(u, n->name));
    if (a->size < 0)
        return -1; /* its size was refused */
    long k = 0;
    if (n->b >= 0) {
        long lo, hi;
        if (slice_bounds(u, n, a, &lo, &hi))
            return -1;
        if (u->elem <= 0 || u->elem > hi - lo + 1)
            return error_at(u, n->line, n->column, "the slice '%s[%ld:%ld]' stands for %ld "
                            "values: use it in an equation between arrays of that length, or "
                            "in sum(...)", name_of(u, n->name), lo, hi, hi - lo + 1);
        k = lo + u->elem - 1;
    } else {
        hy_expr_ref index = { n->first, n->a };
        const hy_syn *at = &u->in->nodes[n->first];
        char what[160];
        snprintf(what, sizeof what, "index of '%s'", name_of(u, n->name));
        if (eval_integer(u, index, at->line, at->column, what, 1, a->size, &k))
            return -1;
    }
    int node = add_out(u, n, SYN_NAME, -1, -1, -1);
    if (node < 0)
        return -1;
    int id = element_name(u, a, k);
    if (id >= 0 && n->var >= 0) { /* J[k].w: a variable of a component array's element */
        id = hy_strtab_intern_join(u->strings, name_of(u, id), ".", name_of(u, n->var));
        if (id < 0)
            return nomem(u);
    }
    if (id < 0)
        return -1;
    u->out->nodes[node].name = id;
    return node;
}

/* sum / product / min / max of a over var in b:c. */
static int copy_reduce(unroller *u, const hy_syn *n)
{
    const char *f = name_of(u, n->name);
    int is_sum = strcmp(f, "sum") == 0, is_product = strcmp(f, "product") == 0;
    if (!is_sum && !is_product && strcmp(f, "min") && strcmp(f, "max"))
        return error_at(u, n->line, n->column, "'%s' cannot run over a range (sum, product, "
                        "min and max can)", f);
    hy_expr_ref from = { n->a + 1, n->b }, to = { n->b + 1, n->c };
    long lo = 0, hi = -1;
    if (eval_integer(u, from, n->line, n->column, "start of the range", -HY_UNROLL_MAX_ITEMS,
                     HY_UNROLL_MAX_ITEMS, &lo)
        || eval_integer(u, to, n->line, n->column, "end of the range", -HY_UNROLL_MAX_ITEMS,
                        HY_UNROLL_MAX_ITEMS, &hi))
        return -1;
    if (hi < lo && !is_sum && !is_product)
        return error_at(u, n->line, n->column, "%s() over the empty range %ld:%ld", f, lo, hi);
    int acc = -1;
    for (long v = lo; v <= hi; v++) {
        if (count_item(u, n->line, n->column) || bind(u, n->var, (double)v))
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
    return (arg->op == SYN_NAME && !find_binding(u, arg->name) && find_array(u, arg->name))
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
    array_info *a = find_array(u, arg->name);
    if (!a)
        return error_at(u, arg->line, arg->column, "'%s' is not an array",
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
        int id = count_item(u, n->line, n->column) ? -1 : element_name(u, a, k);
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
        return error_at(u, n->line, n->column, "an array constructor {...} is only allowed as "
                        "the start or value of an array declaration");
    }
}

static int copy_name(unroller *u, const hy_syn *n)
{
    const binding *b = find_binding(u, n->name);
    int node = add_out(u, n, b ? SYN_NUM : SYN_NAME, -1, -1, -1);
    if (node < 0)
        return -1;
    if (b) {
        u->out->nodes[node].value = b->value;
        return node;
    }
    array_info *a = find_array(u, n->name);
    if (a && a->size < 0)
        return -1;
    if (a && u->elem > 0 && u->elem <= a->size) {
        int id = element_name(u, a, u->elem);
        if (id < 0)
            return -1;
        u->out->nodes[node].name = id;
        return node;
    }
    if (a)
        return error_at(u, n->line, n->column, "'%s' is an array of %ld elements: use one "
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
    int base = n <= INT_MAX / 2 ? push_ints(u, 2 * n) : nomem(u);
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

static hy_expr_ref copy_expr(unroller *u, hy_expr_ref e)
{
    hy_expr_ref out = { u->out->n_nodes, -1 };
    if (e.root >= 0)
        out.root = copy_range(u, e.first, e.root);
    return out;
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
        return nomem(u);
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
        if (eval_integer(u, d->size, at->line, at->column, what, 1, HY_UNROLL_MAX_ITEMS, &size))
            size = -1; /* refused: its uses are not reported again */
        if (hy_grow((void **)&u->arrays, &u->cap_arrays, u->n_arrays + 1, sizeof *u->arrays))
            return nomem(u);
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
                error_at(u, n->line, n->column, "'%s' has %ld elements, its value has %ld",
                         name_of(u, d->name), size, count);
            return none;
        }
        const hy_syn *pick = &u->in->nodes[e.root - (k - 1)];
        hy_expr_ref element = { pick->first, pick->a };
        return copy_expr(u, element);
    }
    if (n->op == SYN_COMPREH) {
        hy_expr_ref from = { n->a + 1, n->b }, to = { n->b + 1, n->c };
        long lo = 0, hi = -1;
        if (eval_integer(u, from, n->line, n->column, "start of the range",
                         -HY_UNROLL_MAX_ITEMS, HY_UNROLL_MAX_ITEMS, &lo)
            || eval_integer(u, to, n->line, n->column, "end of the range",
                            -HY_UNROLL_MAX_ITEMS, HY_UNROLL_MAX_ITEMS, &hi))
            return none;
        if (hi - lo + 1 != size) {
            if (k == 1)
                error_at(u, n->line, n->column, "'%s' has %ld elements, the range %ld:%ld "
                         "gives %ld", name_of(u, d->name), size, lo, hi,
                         hi >= lo ? hi - lo + 1 : 0);
            return none;
        }
        if (bind(u, n->var, (double)(lo + k - 1)))
            return none;
        hy_expr_ref body = { n->first, n->a };
        hy_expr_ref out = copy_expr(u, body);
        u->n_env--;
        return out;
    }
    return copy_expr(u, e);
}

static int push_decl(unroller *u, const hy_decl *d)
{
    hy_syntax *s = u->out;
    if (count_item(u, d->line, d->column)
        || hy_grow((void **)&s->decls, &s->cap_decls, s->n_decls + 1, sizeof *s->decls))
        return u->failed ? -1 : nomem(u);
    s->decls[s->n_decls++] = *d;
    return 0;
}

static int scalar_value_only(unroller *u, const hy_decl *d, hy_expr_ref e)
{
    if (e.root < 0)
        return 0;
    const hy_syn *n = &u->in->nodes[e.root];
    if (n->op == SYN_ARRAY || n->op == SYN_COMPREH)
        return error_at(u, n->line, n->column, "'%s' is not an array: its value cannot be "
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
            out.value = copy_expr(u, d->value);
            out.rtol = copy_expr(u, d->rtol);
            out.atol = copy_expr(u, d->atol);
            push_decl(u, &out);
            continue;
        }
        array_info *a = find_array(u, d->name);
        if (!a || a->mode != d->mode || a->size < 0 || d->kind == DECL_COMPONENT)
            continue; /* its size was refused; a component array's elements are flat already */
        long size = a->size;
        for (long k = 1; k <= size && !u->failed; k++) {
            out.name = element_name(u, a, k);
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
    array_info *a = find_array(u, name);
    if (!a)
        return error_at(u, line, column, "'%s' is not an array", name_of(u, name));
    if (a->size < 0)
        return -1;
    char what[160];
    snprintf(what, sizeof what, "index of '%s'", name_of(u, name));
    long k = 0;
    if (eval_integer(u, index, line, column, what, 1, a->size, &k))
        return -1;
    return element_name(u, a, k);
}

/* The number of elements expression e stands for: 0 for one value, n
** when it holds whole arrays or slices of n elements (combined element by
** element: + - and functions of arrays of one length, * / ^ of an array
** and a value). Node by node in index order, a construct's range (an
** index, a reduction) counting as one value. -1 after reporting. */
static long expr_length(unroller *u, hy_expr_ref e)
{
    if (e.root < 0)
        return 0;
    const hy_syn *nodes = u->in->nodes;
    int first = e.first, n = e.root - first + 1;
    int base = push_ints(u, 2 * (size_t)n);
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
                array_info *a = find_array(u, node->name);
                long lo, hi;
                if (!a)
                    len = error_at(u, node->line, node->column, "'%s' is not an array",
                                   name_of(u, node->name));
                else
                    len = a->size < 0 || slice_bounds(u, node, a, &lo, &hi) ? -1 : hi - lo + 1;
            }
        } else if (node->op == SYN_NAME && !find_binding(u, node->name)) {
            array_info *a = find_array(u, node->name);
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
                    len = error_at(u, node->line, node->column, "arrays of %ld and %ld elements "
                                   "combined", len, other);
                else
                    len = other;
            }
            int product = node->op == SYN_MUL || node->op == SYN_DIV || node->op == SYN_POW;
            if (len > 0 && product && node->a >= first && node->b >= first
                && LEN(node->a) > 0 && LEN(node->b) > 0)
                len = error_at(u, node->line, node->column, "'%s' between two arrays: hydae "
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

static void push_equation(unroller *u, const hy_equation_syn *out)
{
    hy_syntax *s = u->out;
    if (hy_grow((void **)&s->equations, &s->cap_equations, s->n_equations + 1,
                sizeof *s->equations)) {
        nomem(u);
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
        out.lhs = copy_expr(u, eq->lhs);
        out.rhs = copy_expr(u, eq->rhs);
        u->elem = 0;
        if (u->diag->n_errors > n_errors || u->failed || count_item(u, eq->line, eq->column))
            return;
        push_equation(u, &out);
    }
    u->elem = 0;
}

static void emit_equation(unroller *u, const hy_equation_syn *eq)
{
    u->mode = eq->mode;
    long lhs_length = expr_length(u, eq->lhs), rhs_length = expr_length(u, eq->rhs);
    if (lhs_length < 0 || rhs_length < 0)
        return;
    if (lhs_length > 0 || rhs_length > 0) {
        if (eq->output_name >= 0)
            error_at(u, eq->line, eq->column, "output '%s' is one value but its expression has "
                     "%ld elements (declare outputs element by element in a for-loop)",
                     name_of(u, eq->output_name), lhs_length + rhs_length);
        else if (lhs_length == 0 || rhs_length == 0)
            error_at(u, eq->line, eq->column, "the %s side is one value but the %s side has "
                     "%ld elements: an equation between arrays needs arrays of the same length "
                     "on both sides", lhs_length ? "right" : "left", lhs_length ? "left" : "right",
                     lhs_length + rhs_length);
        else if (lhs_length != rhs_length)
            error_at(u, eq->line, eq->column, "the left side has %ld elements and the right "
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
    out.lhs = copy_expr(u, eq->lhs);
    out.rhs = copy_expr(u, eq->rhs);
    if (u->diag->n_errors > n_errors || u->failed || count_item(u, eq->line, eq->column))
        return;
    push_equation(u, &out);
}

static void push_statement(unroller *u, const hy_stmt_syn *out)
{
    hy_syntax *s = u->out;
    if (hy_grow((void **)&s->stmts, &s->cap_stmts, s->n_stmts + 1, sizeof *s->stmts)) {
        nomem(u);
        return;
    }
    s->stmts[s->n_stmts++] = *out;
}

/* x := value for a whole array x: one assignment per element, the value
** one for all or an array expression of x's length. 1 if st was one. */
static int emit_array_assignment(unroller *u, const hy_stmt_syn *st)
{
    array_info *a = st->is_raise || st->target_index.root >= 0 ? NULL
                                                                : find_array(u, st->target);
    if (!a)
        return 0;
    if (a->size < 0)
        return 1;
    long length = expr_length(u, st->value);
    if (length < 0)
        return 1;
    if (length > 0 && length != a->size) {
        error_at(u, st->line, st->column, "'%s' has %ld elements but the value %ld",
                 name_of(u, st->target), a->size, length);
        return 1;
    }
    hy_stmt_syn out = *st;
    out.loop = -1;
    int n_errors = u->diag->n_errors;
    for (long k = 1; k <= a->size && !u->failed && u->diag->n_errors == n_errors; k++) {
        out.target = element_name(u, a, k);
        if (out.target < 0)
            return 1;
        u->elem = length > 0 ? k : 0;
        out.value = copy_expr(u, st->value);
        u->elem = 0;
        if (u->diag->n_errors > n_errors || u->failed || count_item(u, st->line, st->column))
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
    out.value = copy_expr(u, st->value);
    if (u->diag->n_errors > n_errors || u->failed || count_item(u, st->line, st->column))
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
        if (eval_integer(u, l->from, l->line, l->column, "start of the loop range",
                         -HY_UNROLL_MAX_ITEMS, HY_UNROLL_MAX_ITEMS, &lo) == 0
            && eval_integer(u, l->to, l->line, l->column, "end of the loop range",
                            -HY_UNROLL_MAX_ITEMS, HY_UNROLL_MAX_ITEMS, &hi) == 0) {
            for (long v = lo; v <= hi && !u->failed; v++) {
                int n_errors = u->diag->n_errors;
                if (bind(u, l->var, (double)v))
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
            return nomem(u);
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
            return nomem(u);
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
    }
    for (int i = 0; i < out->n_transitions; i++) {
        hy_transition_syn *tr = &out->transitions[i];
        u->mode = -1;
        tr->when = copy_expr(u, tr->when);
        unroll_stmt_range(u, &tr->actions);
    }
    u->mode = -1;
    for (int i = 0; i < out->n_settings; i++)
        out->settings[i].value = copy_expr(u, out->settings[i].value);
    return u->failed ? -1 : 0;
}

int hy_unroll(hy_syntax *syntax, hy_strtab *strings, hy_diag *diag)
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
