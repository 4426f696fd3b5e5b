/*
** Components and connections flattened into one model (flatten.h),
** constants: the sizes of component arrays, the indices in connect() and
** the ranges of the loops around it, evaluated when the model is compiled
** from numbers, the class's constants and parameters (a parameter met
** here becomes structural) and the values of enclosing loops.
*/
#include "lang/flatten_internal.h"

#include "core/core.h"

#include <math.h>
#include <stdio.h>

/* ---------------------------------------------------------------- */
/* Constants: sizes of component arrays, indices in connect()       */

static int eval_in_class(flattener *f, int cls, hy_expr_ref e, int depth, double *out);

static int constant_name(flattener *f, int cls, const hy_syn *n, int depth, double *out)
{
    for (int i = f->n_values - 1; i >= 0; i--)
        if (f->values[i].var == n->name) {
            *out = f->values[i].value;
            return 0;
        }
    int decl = flatten_find_decl(f, cls, n->name);
    const hy_decl *d = decl >= 0 ? &f->in->decls[decl] : NULL;
    if (!d || (d->kind != DECL_CONSTANT && d->kind != DECL_PARAMETER) || d->size.root >= 0
        || d->value.root < 0 || d->mode >= 0) {
        flatten_error_at(f, n->line, n->column, "'%s' is not a constant or parameter of class "
                         "'%s' or the variable of an enclosing loop: component array sizes and "
                         "connect() indices are fixed when the model is compiled",
                         text(f, n->name), text(f, f->in->classes[cls].name));
        return -1;
    }
    if (d->kind == DECL_PARAMETER) { /* structural: frozen (hy_syntax_freeze_structural) */
        int name = flatten_prefixed(f, f->eval_prefix, n->name);
        if (name < 0 || hy_syntax_note_structural(f->out, name))
            return flatten_nomem(f);
    }
    if (depth >= 32) {
        flatten_error_at(f, n->line, n->column, "constant '%s' is defined through too many "
                         "others (a cycle?)", text(f, n->name));
        return -1;
    }
    return eval_in_class(f, cls, d->value, depth + 1, out);
}

/* The value of the constant expression e of class cls (numbers, its
** constants, loop variables, + - * / ^). 0, or -1 after reporting. */
static int eval_in_class(flattener *f, int cls, hy_expr_ref e, int depth, double *out)
{
    const hy_syn *nodes = f->in->nodes;
    int n = e.root - e.first + 1;
    double *value = hy_alloc_array((size_t)(n > 0 ? n : 1), sizeof *value);
    if (!value)
        return flatten_nomem(f);
    int rc = 0;
    for (int j = e.first; j <= e.root && rc == 0; j++) {
        const hy_syn *node = &nodes[j];
        double a = node->a >= e.first ? value[node->a - e.first] : 0.0;
        double b = node->b >= e.first ? value[node->b - e.first] : 0.0;
        double v = 0.0;
        switch (node->op) {
        case SYN_NUM: v = node->value; break;
        case SYN_NAME: rc = constant_name(f, cls, node, depth, &v); break;
        case SYN_NEG: case SYN_ADD: case SYN_SUB: case SYN_MUL: case SYN_DIV: case SYN_POW:
            hy_syn_arith((hy_syn_op)node->op, a, b, &v);
            break;
        default:
            flatten_error_at(f, node->line, node->column, "a component array's size or a "
                             "connect() index must be a constant expression (numbers, "
                             "constants, loop variables, + - * / ^)");
            rc = -1;
        }
        value[j - e.first] = v;
    }
    if (rc == 0)
        *out = value[n - 1];
    hy_free(value);
    return rc;
}

/* A whole number in [lo, hi] from e of class cls; what names it. */
int flatten_integer_in_class(flattener *f, int cls, hy_expr_ref e, const char *what, long lo,
                             long hi, long *out)
{
    double v;
    if (eval_in_class(f, cls, e, 0, &v))
        return -1;
    const hy_syn *at = &f->in->nodes[e.first];
    if (!(v == floor(v)) || v < (double)lo || v > (double)hi) {
        flatten_error_at(f, at->line, at->column,
                         "the %s is %.17g, not a whole number in %ld .. %ld", what, v, lo, hi);
        return -1;
    }
    *out = (long)v;
    return 0;
}

/* The number of elements of component array d. */
int flatten_array_size(flattener *f, const hy_decl *d, long *size)
{
    char what[200];
    snprintf(what, sizeof what, "size of component array '%s'", text(f, d->name));
    return flatten_integer_in_class(f, d->cls, d->size, what, 1, HY_FLATTEN_MAX_ARRAY, size);
}
