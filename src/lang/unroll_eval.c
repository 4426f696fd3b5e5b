/*
** Arrays and for-loops expanded to scalars, evaluation (unroll.h): the
** arrays' element names ("u[3]", made once), the bindings of loop
** variables, the scratch stacks, and the constant expressions that give
** sizes, ranges and indices (a parameter met there becomes structural).
*/
#include "lang/unroll_internal.h"

#include "core/core.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* ---------------------------------------------------------------- */
/* Names                                                            */

array_info *unroll_find_array(const unroller *u, int name)
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
int unroll_element_name(unroller *u, array_info *a, long index)
{
    if (!a->element_ids) {
        a->element_ids = hy_calloc((size_t)a->size, sizeof *a->element_ids);
        if (!a->element_ids)
            return unroll_nomem(u);
    }
    int *cached = &a->element_ids[index - 1];
    if (*cached > 0)
        return *cached - 1;
    const char *base = name_of(u, a->name);
    size_t len = strlen(base);
    char local[128]; /* a short name (10^6 of them) without an allocation */
    char *text = len + 24 <= sizeof local ? local : hy_malloc(len + 24);
    if (!text)
        return unroll_nomem(u);
    /* "%s[%ld]" by hand: snprintf costs 1,600 instructions a name */
    char digits[24];
    int n_digits = 0;
    for (unsigned long v = (unsigned long)index; n_digits == 0 || v > 0; v /= 10)
        digits[n_digits++] = (char)('0' + v % 10);
    memcpy(text, base, len);
    size_t n = len;
    text[n++] = '[';
    while (n_digits > 0)
        text[n++] = digits[--n_digits];
    text[n++] = ']';
    int id = hy_strtab_intern(u->strings, text, n);
    if (text != local)
        hy_free(text);
    if (id < 0)
        return unroll_nomem(u);
    *cached = id + 1;
    return id;
}

const binding *unroll_find_binding(const unroller *u, int var)
{
    for (int i = u->n_env - 1; i >= 0; i--)
        if (u->env[i].var == var)
            return &u->env[i];
    return NULL;
}

int unroll_bind(unroller *u, int var, double value)
{
    if (hy_grow((void **)&u->env, &u->cap_env, u->n_env + 1, sizeof *u->env))
        return unroll_nomem(u);
    u->env[u->n_env].var = var;
    u->env[u->n_env].value = value;
    u->n_env++;
    return 0;
}

/* The base of a new frame of `size` ints or doubles, or -1. */
int unroll_push_ints(unroller *u, size_t size)
{
    if (size > (size_t)(INT_MAX - u->n_ints)
        || hy_grow((void **)&u->ints, &u->cap_ints, u->n_ints + (int)size, sizeof *u->ints))
        return unroll_nomem(u);
    int base = u->n_ints;
    u->n_ints += (int)size;
    return base;
}

static int push_reals(unroller *u, size_t size)
{
    if (size > (size_t)(INT_MAX - u->n_reals)
        || hy_grow((void **)&u->reals, &u->cap_reals, u->n_reals + (int)size, sizeof *u->reals))
        return unroll_nomem(u);
    int base = u->n_reals;
    u->n_reals += (int)size;
    return base;
}

/* ---------------------------------------------------------------- */
/* Constant expressions: sizes, ranges, indices                     */

static int eval_constant(unroller *u, int first, int root, double *value);

static int constant_name(unroller *u, const hy_syn *n, double *value)
{
    const binding *b = unroll_find_binding(u, n->name);
    if (b) {
        *value = b->value;
        return 0;
    }
    int decl = n->name < u->n_constant_decl ? u->constant_decl[n->name] - 1 : -1;
    if (decl < 0)
        return unroll_error_at(u, n->line, n->column, "'%s' is neither a constant, a parameter nor "
                               "the variable of an enclosing loop: sizes, loop ranges and indices "
                               "are fixed when the model is compiled", name_of(u, n->name));
    const hy_decl *d = &u->in->decls[decl];
    if (d->value.root < 0)
        return unroll_error_at(u, n->line, n->column, "%s '%s' has no value",
                               d->kind == DECL_PARAMETER ? "parameter" : "constant",
                               name_of(u, n->name));
    if (d->kind == DECL_PARAMETER && hy_syntax_note_structural(u->out, n->name))
        return unroll_nomem(u);
    if (u->const_depth >= 64)
        return unroll_error_at(u, n->line, n->column, "constant '%s' is defined through too many "
                               "others (a cycle?)", name_of(u, n->name));
    u->const_depth++;
    int rc = eval_constant(u, d->value.first, d->value.root, value);
    u->const_depth--;
    return rc;
}

static int constant_call(unroller *u, const hy_syn *n, const double *arg, double *value)
{
    /* Modelica's meanings: integer(x) = floor(x); div(x, y) = x / y truncated
    ** toward zero; rem(x, y) = x - div(x, y) y; mod(x, y) = x - floor(x / y) y. */
    static const char *const names[] = { "floor", "ceil", "abs", "integer", "min", "max", "mod",
                                         "div", "rem" };
    const char *f = name_of(u, n->name);
    int which = -1;
    for (int k = 0; k < (int)(sizeof names / sizeof *names) && which < 0; k++)
        if (strcmp(f, names[k]) == 0)
            which = k;
    if (which < 0)
        return unroll_error_at(u, n->line, n->column, "'%s' in a size, range or index (constant "
                               "expressions call min, max, mod, div, rem, floor, ceil, integer, "
                               "abs)", f);
    int arity = which < 4 ? 1 : 2;
    if (n->n_args != arity)
        return unroll_error_at(u, n->line, n->column, "%s() takes %d argument%s, got %d", f, arity,
                               arity == 1 ? "" : "s", n->n_args);
    double a = arg[0], b = arg[1];
    switch (which) {
    case 0: case 3: *value = floor(a); break;
    case 1: *value = ceil(a); break;
    case 2: *value = fabs(a); break;
    case 4: *value = fmin(a, b); break;
    case 5: *value = fmax(a, b); break;
    case 6: *value = a - floor(a / b) * b; break;
    case 7: *value = trunc(a / b); break;
    default: *value = a - trunc(a / b) * b; break;
    }
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
            rc = unroll_error_at(u, n->line, n->column, "a size, loop range or index must be a "
                                 "constant expression (numbers, constants, loop variables, + - * / "
                                 "^, min max mod div rem floor ceil integer abs)");
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
int unroll_eval_integer(unroller *u, hy_expr_ref e, int line, int column, const char *what,
                        long lo, long hi, long *out)
{
    return unroll_eval_integer_of(u, e, line, column, what, -1, lo, hi, out);
}

int unroll_eval_integer_of(unroller *u, hy_expr_ref e, int line, int column, const char *what,
                           int name, long lo, long hi, long *out)
{
    double value;
    if (eval_constant(u, e.first, e.root, &value))
        return -1;
    if (value == floor(value) && value >= (double)lo && value <= (double)hi) {
        *out = (long)value;
        return 0;
    }
    /* the message is composed only here: an index is evaluated once per
    ** element of a big model */
    char named[160]; /* as long as the messages were before */
    if (name >= 0) {
        snprintf(named, sizeof named, "%s '%s'", what, name_of(u, name));
        what = named;
    }
    if (!(value == floor(value)))
        return unroll_error_at(u, line, column, "the %s is %.17g, not a whole number", what, value);
    return unroll_error_at(u, line, column, "the %s is %.17g, outside %ld .. %ld", what, value,
                           lo, hi);
}
