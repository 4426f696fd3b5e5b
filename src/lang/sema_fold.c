/*
** Constant expressions evaluated straight from the syntax: a start value
** of each of 10^6 array elements (`start = {1 + sin(2 * pi * i / (M +
** 1)) for i in 1:M}`) would otherwise put every intermediate number into
** the expression DAG's hash table. The operations are the ones the DAG's
** constructors fold with (hy_x_fold, hy_function_apply, negation), in the
** same order, so the value is the same to the bit; anything else
** (parameters, a value that is not finite, which is reported) goes the
** general way (sema_lower).
*/
#include "lang/sema_internal.h"

#include <math.h>

enum { FOLD_MAX_NODES = 64 };

static int fold_node(const sema *s, const hy_syn *node, double a, double b, double *value)
{
    switch ((hy_syn_op)node->op) {
    case SYN_NUM:
        *value = node->value;
        return 1;
    case SYN_NAME: {
        if (node->lane || !valid_name(s, node->name) || s->gkind[node->name] != G_CONSTANT
            || s->gref[node->name] < 0)
            return 0;
        const hy_xnode x = hy_x_node(&s->ir->dag, s->gref[node->name]);
        *value = x.value;
        return x.op == X_NUM;
    }
    case SYN_NEG:
        *value = -a;
        return 1;
    case SYN_ADD: case SYN_SUB: case SYN_MUL: case SYN_DIV: case SYN_POW: {
        static const hy_xop xop[] = { [SYN_ADD] = X_ADD, [SYN_SUB] = X_SUB, [SYN_MUL] = X_MUL,
                                      [SYN_DIV] = X_DIV, [SYN_POW] = X_POW };
        *value = hy_x_fold(xop[node->op], a, b);
        return 1;
    }
    case SYN_CALL: {
        hy_function fn = valid_name(s, node->name) ? hy_function_find(NAME(s, node->name))
                                                   : FN_N_FUNCTIONS;
        if (fn == FN_N_FUNCTIONS || node->n_args != hy_function_arity(fn))
            return 0;
        *value = hy_function_apply(fn, a, node->n_args == 2 ? b : 0.0);
        return 1;
    }
    default:
        return 0;
    }
}

int sema_fold_constant(const sema *s, hy_expr_ref ref, double *value)
{
    int first = ref.first, n = ref.root - first + 1;
    if (ref.root < 0 || n > FOLD_MAX_NODES)
        return 0;
    double values[FOLD_MAX_NODES];
    for (int j = 0; j < n; j++) {
        const hy_syn *node = &s->syn->nodes[first + j];
        int operands[2] = { node->a, node->b };
        double x[2] = { 0.0, 0.0 };
        for (int k = 0; k < 2; k++) {
            if (operands[k] < 0)
                continue;
            if (operands[k] < first || operands[k] >= first + j)
                return 0;
            x[k] = values[operands[k] - first];
        }
        if (node->c >= 0 || !fold_node(s, node, x[0], x[1], &values[j]) || !isfinite(values[j]))
            return 0;
    }
    *value = values[n - 1];
    return 1;
}
