/*
** The bytecode register machine of the model-language compiler: building
** a program from DAG roots (one instruction per reachable node, operands
** first) and running it.
*/
#include "lang/vm.h"

#include "lang/strtab.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void hy_program_free(hy_program *prog)
{
    if (!prog)
        return;
    free(prog->code);
    free(prog->regs);
    for (int k = 0; k < HY_N_LOADS; k++) {
        free(prog->loads[k].dst);
        free(prog->loads[k].src);
    }
    free(prog->stores.dst);
    free(prog->stores.src);
    free(prog->p_used);
    free(prog->in_used);
    free(prog);
}

/* Leaves are hash-consed: each p[k] or in[k] node is met once. */
static int add_used(int **list, int *n, int *cap, int index)
{
    if (hy_grow((void **)list, cap, *n + 1, sizeof **list))
        return -1;
    (*list)[(*n)++] = index;
    return 0;
}

static int add_move(hy_moves *moves, int *cap_dst, int *cap_src, int dst, int src)
{
    if (hy_grow((void **)&moves->dst, cap_dst, moves->n + 1, sizeof *moves->dst)
        || hy_grow((void **)&moves->src, cap_src, moves->n + 1, sizeof *moves->src))
        return -1;
    moves->dst[moves->n] = dst;
    moves->src[moves->n] = src;
    moves->n++;
    return 0;
}

static int load_kind(hy_xop op)
{
    switch (op) {
    case X_Y: return HY_LOAD_Y;
    case X_YP: return HY_LOAD_YP;
    case X_P: return HY_LOAD_P;
    case X_IN: return HY_LOAD_IN;
    default: return -1;
    }
}

static int compare_int(const void *x, const void *y)
{
    int a = *(const int *)x, b = *(const int *)y;
    return (a > b) - (a < b);
}

hy_program *hy_program_build(hy_expr *e, const int *roots, const int *out_index, int n_roots)
{
    hy_program *prog = calloc(1, sizeof *prog);
    if (!prog)
        return NULL;
    int *list = NULL;
    int n = hy_x_reachable(e, roots, n_roots, &list);
    if (n < 0) {
        free(prog);
        return NULL;
    }
    int cap_p = 0, cap_in = 0, cap_store_dst = 0, cap_store_src = 0;
    int cap_load_dst[HY_N_LOADS] = { 0 }, cap_load_src[HY_N_LOADS] = { 0 };
    prog->n_regs = n;
    prog->regs = calloc((size_t)(n > 0 ? n : 1), sizeof *prog->regs);
    prog->code = malloc(sizeof *prog->code * (size_t)(n + n_roots + 1));
    if (!prog->regs || !prog->code)
        goto nomem;
    /* Register of node list[k] is k; scratch maps node -> register. */
    for (int k = 0; k < n; k++)
        e->scratch[list[k]] = k;
    for (int k = 0; k < n; k++) {
        const hy_xnode *node = &e->nodes[list[k]];
        if (node->op == X_NUM) {
            prog->regs[k] = node->value;
            continue;
        }
        int kind = load_kind((hy_xop)node->op);
        if (kind >= 0) {
            if (add_move(&prog->loads[kind], &cap_load_dst[kind], &cap_load_src[kind], k, node->a))
                goto nomem;
            if (node->op == X_P && add_used(&prog->p_used, &prog->n_p_used, &cap_p, node->a))
                goto nomem;
            if (node->op == X_IN && add_used(&prog->in_used, &prog->n_in_used, &cap_in, node->a))
                goto nomem;
            continue;
        }
        hy_instr *in = &prog->code[prog->n_instr++];
        in->op = node->op;
        in->fn = node->fn;
        in->dst = k;
        in->a = in->b = in->c = -1;
        if (node->op < X_NEG) {
            in->a = node->a;
            if (node->op == X_P && add_used(&prog->p_used, &prog->n_p_used, &cap_p, node->a))
                goto nomem;
            if (node->op == X_IN && add_used(&prog->in_used, &prog->n_in_used, &cap_in, node->a))
                goto nomem;
        } else {
            in->a = node->a >= 0 ? e->scratch[node->a] : -1;
            in->b = node->b >= 0 ? e->scratch[node->b] : -1;
            in->c = node->c >= 0 ? e->scratch[node->c] : -1;
            const hy_xnode *exponent = node->op == X_POW ? &e->nodes[node->b] : NULL;
            if (exponent && exponent->op == X_NUM && exponent->value == floor(exponent->value)
                && fabs(exponent->value) <= HY_POWI_MAX) {
                in->op = HY_OP_POWI;
                in->b = (int)exponent->value;
            }
        }
    }
    for (int r = 0; r < n_roots; r++) {
        if (roots[r] < 0)
            continue;
        int dst = out_index ? out_index[r] : r;
        if (add_move(&prog->stores, &cap_store_dst, &cap_store_src, dst, e->scratch[roots[r]]))
            goto nomem;
        if (dst + 1 > prog->n_outputs)
            prog->n_outputs = dst + 1;
    }
    if (prog->n_p_used > 1)
        qsort(prog->p_used, (size_t)prog->n_p_used, sizeof *prog->p_used, compare_int);
    if (prog->n_in_used > 1)
        qsort(prog->in_used, (size_t)prog->n_in_used, sizeof *prog->in_used, compare_int);
    free(list);
    return prog;
nomem:
    free(list);
    hy_program_free(prog);
    return NULL;
}

/* x^n for a whole n by repeated squaring. */
static double power_whole(double x, int n)
{
    unsigned m = n < 0 ? (unsigned)(-n) : (unsigned)n;
    double result = 1.0, square = x;
    while (m) {
        if (m & 1u)
            result *= square;
        m >>= 1;
        if (m)
            square *= square;
    }
    return n < 0 ? 1.0 / result : result;
}

static void load(double *r, const hy_moves *moves, const double *source)
{
    for (int k = 0; k < moves->n; k++)
        r[moves->dst[k]] = source[moves->src[k]];
}

void hy_program_run(hy_program *prog, const hy_vm_input *input, double *out)
{
    double *r = prog->regs;
    const hy_instr *code = prog->code;
    load(r, &prog->loads[HY_LOAD_Y], input->y);
    load(r, &prog->loads[HY_LOAD_YP], input->yp);
    load(r, &prog->loads[HY_LOAD_P], input->p);
    load(r, &prog->loads[HY_LOAD_IN], input->in);
    for (int i = 0; i < prog->n_instr; i++) {
        const hy_instr *in = &code[i];
        double *d = &r[in->dst];
        switch (in->op) {
        case X_T: *d = input->t; break;
        case X_CJ: *d = input->cj; break;
        case X_NEG: *d = -r[in->a]; break;
        case X_NOT: *d = r[in->a] == 0.0; break;
        case X_FN1: *d = hy_function_apply((hy_function)in->fn, r[in->a], 0.0); break;
        case X_ADD: *d = r[in->a] + r[in->b]; break;
        case X_SUB: *d = r[in->a] - r[in->b]; break;
        case X_MUL: *d = r[in->a] * r[in->b]; break;
        case X_DIV: *d = r[in->a] / r[in->b]; break;
        case X_POW: {
            double base = r[in->a], exponent = r[in->b];
            *d = exponent == 2.0 ? base * base : pow(base, exponent);
            break;
        }
        case X_LT: *d = r[in->a] < r[in->b]; break;
        case X_LE: *d = r[in->a] <= r[in->b]; break;
        case X_GT: *d = r[in->a] > r[in->b]; break;
        case X_GE: *d = r[in->a] >= r[in->b]; break;
        case X_EQ: *d = r[in->a] == r[in->b]; break;
        case X_NE: *d = r[in->a] != r[in->b]; break;
        case X_AND: *d = r[in->a] != 0.0 && r[in->b] != 0.0; break;
        case X_OR: *d = r[in->a] != 0.0 || r[in->b] != 0.0; break;
        case X_FN2: *d = hy_function_apply((hy_function)in->fn, r[in->a], r[in->b]); break;
        case X_IF: *d = r[in->a] != 0.0 ? r[in->b] : r[in->c]; break;
        case HY_OP_POWI: *d = in->b == 2 ? r[in->a] * r[in->a] : power_whole(r[in->a], in->b); break;
        default: *d = NAN; break;
        }
    }
    const hy_moves *stores = &prog->stores;
    for (int k = 0; k < stores->n; k++)
        out[stores->dst[k]] = r[stores->src[k]];
}
