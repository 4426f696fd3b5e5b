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
    free(prog->operands);
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

/* Operand registers per operation (HY_OP_POWI: the base and the exponent). */
static int op_arity(int op)
{
    switch (op) {
    case X_NEG: case X_NOT: case X_FN1: case HY_OP_SQR: case HY_OP_CUBE: return 1;
    case X_IF: case HY_OP_MULADD: case HY_OP_MULSUB: case HY_OP_ADDMUL: case HY_OP_SUBMUL:
        return 3;
    default: return 2;
    }
}

static int compare_int(const void *x, const void *y)
{
    int a = *(const int *)x, b = *(const int *)y;
    return (a > b) - (a < b);
}

/* An operation to schedule: by level, then order (opcode and function, or
** for the direct outputs the out index), then DAG order, so the schedule
** is deterministic. */
typedef struct sched {
    int level, order, pos, opfn;
} sched;

static int compare_sched(const void *x, const void *y)
{
    const sched *a = x, *b = y;
    if (a->level != b->level)
        return (a->level > b->level) - (a->level < b->level);
    if (a->order != b->order)
        return (a->order > b->order) - (a->order < b->order);
    return (a->pos > b->pos) - (a->pos < b->pos);
}

/* The opcode node runs as (whole powers become HY_OP_POWI, HY_OP_SQR or
** HY_OP_CUBE). */
static int run_op(const hy_expr *e, const hy_xnode *node)
{
    if (node->op != X_POW)
        return node->op;
    const hy_xnode *exponent = &e->nodes[node->b];
    if (exponent->op == X_NUM && exponent->value == floor(exponent->value)
        && fabs(exponent->value) <= HY_POWI_MAX)
        return exponent->value == 2.0 ? HY_OP_SQR : exponent->value == 3.0 ? HY_OP_CUBE : HY_OP_POWI;
    return X_POW;
}

enum { LEVEL_OUTPUTS = 1 << 30 };

/* Per position of the reachable list, while building. */
typedef struct slot {
    int op;                  /* the opcode it runs as; -1: not an operation */
    int uses;                /* operand uses by operations, and roots */
    int roots;               /* how often it is a root */
    int out;                 /* its out index (the last root naming it) */
    int level;
    int absorbed;            /* a multiplication fused into its one user */
    int operand[3];          /* positions (HY_OP_POWI: the exponent second) */
} slot;

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
    int *reg = malloc(sizeof *reg * (size_t)(n + 1));
    slot *sl = calloc((size_t)n + 1, sizeof *sl);
    sched *ops = malloc(sizeof *ops * (size_t)(n + 1));
    if (!reg || !sl || !ops)
        goto nomem;
    /* Position of node list[k] is k; scratch maps node -> position. */
    for (int k = 0; k < n; k++)
        e->scratch[list[k]] = k;
    for (int r = 0; r < n_roots; r++)
        if (roots[r] >= 0) {
            slot *root = &sl[e->scratch[roots[r]]];
            root->uses++;
            root->roots++;
            root->out = out_index ? out_index[r] : r;
        }
    int lo[HY_N_LOADS], hi[HY_N_LOADS], count[HY_N_LOADS] = { 0 };
    int n_consts = 0;
    for (int k = 0; k < n; k++) {
        const hy_xnode *node = &e->nodes[list[k]];
        int kind = load_kind((hy_xop)node->op);
        sl[k].op = -1;
        if (node->op == X_NUM) {
            n_consts++;
        } else if (kind >= 0) {
            if (count[kind] == 0 || node->a < lo[kind])
                lo[kind] = node->a;
            if (count[kind] == 0 || node->a > hi[kind])
                hi[kind] = node->a;
            count[kind]++;
            if (node->op == X_P && add_used(&prog->p_used, &prog->n_p_used, &cap_p, node->a))
                goto nomem;
            if (node->op == X_IN && add_used(&prog->in_used, &prog->n_in_used, &cap_in, node->a))
                goto nomem;
        } else if (node->op != X_T && node->op != X_CJ) {
            sl[k].op = run_op(e, node);
            const int operand[3] = { node->a, node->b, node->c };
            for (int j = 0; j < 3; j++) {
                sl[k].operand[j] = operand[j] >= 0 ? e->scratch[operand[j]] : -1;
                if (operand[j] >= 0)
                    sl[sl[k].operand[j]].uses++;
            }
            if (sl[k].op == HY_OP_POWI)
                sl[k].operand[1] = (int)e->nodes[node->b].value;
        }
    }
    /* Superinstructions: a multiplication whose one use is an operand of
    ** + or - is fused into it (a*b + c, a*b - c, a + b*c, a - b*c, in the
    ** same order of operations, so the same result). */
    for (int k = 0; k < n; k++) {
        slot *s = &sl[k];
        if (s->op != X_ADD && s->op != X_SUB)
            continue;
        for (int j = 0; j < 2; j++) {
            slot *m = &sl[s->operand[j]];
            if (m->op != X_MUL || m->uses != 1 || m->roots != 0)
                continue;
            m->absorbed = 1;
            int other = s->operand[1 - j];
            s->operand[0] = j == 0 ? m->operand[0] : other;
            s->operand[1] = j == 0 ? m->operand[1] : m->operand[0];
            s->operand[2] = j == 0 ? other : m->operand[1];
            s->op = j == 0 ? (s->op == X_ADD ? HY_OP_MULADD : HY_OP_MULSUB)
                           : (s->op == X_ADD ? HY_OP_ADDMUL : HY_OP_SUBMUL);
            break;
        }
    }
    /* The direct outputs: operations that are one root each and used by
    ** nothing else, when their out indices are one contiguous range, run
    ** last, in out order, writing out[] directly. */
    int n_direct = 0, out_lo = 0, out_hi = -1;
    for (int k = 0; k < n; k++)
        if (sl[k].op >= 0 && sl[k].roots == 1 && sl[k].uses == 1) {
            if (n_direct == 0 || sl[k].out < out_lo)
                out_lo = sl[k].out;
            if (n_direct == 0 || sl[k].out > out_hi)
                out_hi = sl[k].out;
            n_direct++;
        }
    if (n_direct > 0 && (long)out_hi - out_lo + 1 != n_direct)
        n_direct = 0;        /* not contiguous, or an out index twice */
    int n_ops = 0, n_operands = 0;
    for (int k = 0; k < n; k++) {
        slot *s = &sl[k];
        s->level = 0;
        if (s->op < 0 || s->absorbed)
            continue;
        int arity = op_arity(s->op), top = 0;
        for (int j = 0; j < arity; j++)
            if (!(s->op == HY_OP_POWI && j == 1) && sl[s->operand[j]].level > top)
                top = sl[s->operand[j]].level;
        s->level = top + 1;
        int direct = n_direct > 0 && s->roots == 1 && s->uses == 1;
        ops[n_ops].level = direct ? LEVEL_OUTPUTS : s->level;
        ops[n_ops].opfn = s->op * 256 + e->nodes[list[k]].fn;
        ops[n_ops].order = direct ? s->out : ops[n_ops].opfn;
        ops[n_ops].pos = k;
        n_ops++;
        n_operands += arity;
    }
    if (n_direct > 0 && out_hi + 1 > prog->n_outputs)
        prog->n_outputs = out_hi + 1;
    /* Registers: t, cj, the leaves, the constants, the results. */
    int next = HY_N_FIXED_REGS, used[HY_N_LOADS] = { 0 };
    for (int kind = 0; kind < HY_N_LOADS; kind++) {
        hy_moves *m = &prog->loads[kind];
        if (count[kind] == 0)
            continue;
        long range = (long)hi[kind] - lo[kind] + 1;
        if (range <= 2L * count[kind] + 16) {
            m->n = (int)range;
            m->block_dst = next;
            m->block_src = lo[kind];
            next += (int)range;
        } else {
            m->dst = malloc(sizeof *m->dst * (size_t)count[kind]);
            m->src = malloc(sizeof *m->src * (size_t)count[kind]);
            if (!m->dst || !m->src)
                goto nomem;
            m->block_dst = next;
            next += count[kind];
        }
    }
    int first_const = next;
    next += n_consts;
    prog->first_result = next;
    prog->n_regs = next + n_ops - n_direct;
    prog->direct_out = out_lo;
    prog->regs = calloc((size_t)prog->n_regs, sizeof *prog->regs);
    prog->code = malloc(sizeof *prog->code * (size_t)(n_ops + 1));
    prog->operands = malloc(sizeof *prog->operands * (size_t)(n_operands + 1));
    if (!prog->regs || !prog->code || !prog->operands)
        goto nomem;
    int n_const = 0;
    for (int k = 0; k < n; k++) {
        const hy_xnode *node = &e->nodes[list[k]];
        int kind = load_kind((hy_xop)node->op);
        reg[k] = -1;
        if (node->op == X_NUM) {
            reg[k] = first_const + n_const++;
            prog->regs[reg[k]] = node->value;
        } else if (node->op == X_T) {
            reg[k] = HY_REG_T;
        } else if (node->op == X_CJ) {
            reg[k] = HY_REG_CJ;
        } else if (kind >= 0) {
            hy_moves *m = &prog->loads[kind];
            if (m->dst) {
                reg[k] = m->block_dst + used[kind];
                m->dst[used[kind]] = reg[k];
                m->src[used[kind]] = node->a;
                used[kind]++;
                m->n = used[kind];
            } else {
                reg[k] = m->block_dst + (node->a - m->block_src);
            }
        }
    }
    qsort(ops, (size_t)n_ops, sizeof *ops, compare_sched);
    for (int j = 0; j < n_ops - n_direct; j++)
        reg[ops[j].pos] = prog->first_result + j;
    int *operand_out = prog->operands;
    for (int j = 0; j < n_ops; j++) {
        const slot *s = &sl[ops[j].pos];
        if (prog->n_instr == 0 || ops[j].opfn != ops[j - 1].opfn || j == n_ops - n_direct) {
            if (j == n_ops - n_direct)
                prog->first_direct = prog->n_instr;
            hy_instr *in = &prog->code[prog->n_instr++];
            in->op = (unsigned char)s->op;
            in->fn = e->nodes[list[ops[j].pos]].fn;
            in->count = 0;
        }
        prog->code[prog->n_instr - 1].count++;
        for (int a = 0; a < op_arity(s->op); a++)
            *operand_out++ = s->op == HY_OP_POWI && a == 1 ? s->operand[1] : reg[s->operand[a]];
    }
    if (n_direct == 0)
        prog->first_direct = prog->n_instr;
    for (int r = 0; r < n_roots; r++) {
        if (roots[r] < 0)
            continue;
        const slot *s = &sl[e->scratch[roots[r]]];
        if (n_direct > 0 && s->op >= 0 && s->roots == 1 && s->uses == 1)
            continue;        /* written directly */
        int dst = out_index ? out_index[r] : r;
        if (add_move(&prog->stores, &cap_store_dst, &cap_store_src, dst, reg[e->scratch[roots[r]]]))
            goto nomem;
        if (dst + 1 > prog->n_outputs)
            prog->n_outputs = dst + 1;
    }
    if (prog->n_p_used > 1)
        qsort(prog->p_used, (size_t)prog->n_p_used, sizeof *prog->p_used, compare_int);
    if (prog->n_in_used > 1)
        qsort(prog->in_used, (size_t)prog->n_in_used, sizeof *prog->in_used, compare_int);
    free(list);
    free(reg);
    free(sl);
    free(ops);
    return prog;
nomem:
    free(list);
    free(reg);
    free(sl);
    free(ops);
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

static inline void load(double *r, const hy_moves *moves, const double *source)
{
    if (!moves->dst) {
        /* memcpy's call costs more than a short model's whole copy. */
        double *to = r + moves->block_dst;
        const double *from = source + moves->block_src;
        if (moves->n > 16)
            memcpy(to, from, sizeof *r * (size_t)moves->n);
        else
            for (int k = 0; k < moves->n; k++)
                to[k] = from[k];
        return;
    }
    for (int k = 0; k < moves->n; k++)
        r[moves->dst[k]] = source[moves->src[k]];
}

/* One instruction: n operations, d[j] = f(operands o[arity j ...]). */
#define HY_RUN1(expr)                                                        \
    for (int j = 0; j < n; j++, o += 1) {                                    \
        double a = r[o[0]];                                                  \
        d[j] = (expr);                                                       \
    }                                                                        \
    break
#define HY_RUN2(expr)                                                        \
    for (int j = 0; j < n; j++, o += 2) {                                    \
        double a = r[o[0]], b = r[o[1]];                                     \
        d[j] = (expr);                                                       \
    }                                                                        \
    break
#define HY_RUN3(expr)                                                        \
    for (int j = 0; j < n; j++, o += 3) {                                    \
        double a = r[o[0]], b = r[o[1]], c = r[o[2]];                        \
        d[j] = (expr);                                                       \
    }                                                                        \
    break

/* Instructions [begin, end) with operands from o, results from d on; the
** operands that follow. (No vectorization: the operands are gathered,
** and its set-up costs more than short instructions gain.) */
#if defined(__GNUC__) && !defined(__clang__)
__attribute__((optimize("no-tree-vectorize")))
#endif
static const int *run_code(const double *r, const hy_instr *code, int begin, int end,
                           const int *o, double *d)
{
    for (int i = begin; i < end; i++) {
        const int n = code[i].count;
        const hy_function fn = (hy_function)code[i].fn;
        switch (code[i].op) {
        case X_NEG: HY_RUN1(-a);
        case X_NOT: HY_RUN1(a == 0.0);
        case X_FN1: HY_RUN1(hy_function_apply(fn, a, 0.0));
        case HY_OP_SQR: HY_RUN1(a * a);
        case HY_OP_CUBE: HY_RUN1(a * (a * a)); /* as power_whole(a, 3) */
        case X_ADD: HY_RUN2(a + b);
        case X_SUB: HY_RUN2(a - b);
        case X_MUL: HY_RUN2(a * b);
        case X_DIV: HY_RUN2(a / b);
        case X_POW: HY_RUN2(b == 2.0 ? a * a : pow(a, b));
        case X_LT: HY_RUN2(a < b);
        case X_LE: HY_RUN2(a <= b);
        case X_GT: HY_RUN2(a > b);
        case X_GE: HY_RUN2(a >= b);
        case X_EQ: HY_RUN2(a == b);
        case X_NE: HY_RUN2(a != b);
        case X_AND: HY_RUN2(a != 0.0 && b != 0.0);
        case X_OR: HY_RUN2(a != 0.0 || b != 0.0);
        case X_FN2: HY_RUN2(hy_function_apply(fn, a, b));
        case HY_OP_MULADD: HY_RUN3(a * b + c);
        case HY_OP_MULSUB: HY_RUN3(a * b - c);
        case HY_OP_ADDMUL: HY_RUN3(a + b * c);
        case HY_OP_SUBMUL: HY_RUN3(a - b * c);
        case X_IF: HY_RUN3(a != 0.0 ? b : c);
        case HY_OP_POWI:
            for (int j = 0; j < n; j++, o += 2)
                d[j] = power_whole(r[o[0]], o[1]);
            break;
        default:
            for (int j = 0; j < n; j++, o += op_arity(code[i].op))
                d[j] = NAN;
            break;
        }
        d += n;
    }
    return o;
}

void hy_program_run(hy_program *prog, const hy_vm_input *input, double *out)
{
    double *r = prog->regs;
    r[HY_REG_T] = input->t;
    r[HY_REG_CJ] = input->cj;
    load(r, &prog->loads[HY_LOAD_Y], input->y);
    load(r, &prog->loads[HY_LOAD_YP], input->yp);
    load(r, &prog->loads[HY_LOAD_P], input->p);
    load(r, &prog->loads[HY_LOAD_IN], input->in);
    const int *o = run_code(r, prog->code, 0, prog->first_direct, prog->operands,
                            r + prog->first_result);
    run_code(r, prog->code, prog->first_direct, prog->n_instr, o, out + prog->direct_out);
    const hy_moves *stores = &prog->stores;
    for (int k = 0; k < stores->n; k++)
        out[stores->dst[k]] = r[stores->src[k]];
}
