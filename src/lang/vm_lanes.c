/*
** Programs of a mode with lane equations (a loop kept as a loop,
** unroll_lanes.c; vm.h, hy_program_build_lanes): the nodes that use a
** lane leaf run once per lane as strided instructions (lane j reads y[a +
** j] in place and the registers of its operands' lane j), every other
** node once, as a one-operation instruction, before them; a root that
** nothing else uses writes out[] directly, a strided instruction per run
** of its lanes whose out indices are an arithmetic progression (the
** interior of a Jacobian's columns), the other roots are stored. The
** program is an ordinary one (vm.c runs it, native/ compiles it): its
** operations are those hy_program_build makes of the unrolled model, so
** its results are the same to the bit (x^2 and x^3 become x*x and
** x*(x*x) alike; no multiplication is fused, which rounds the same).
*/
#include "lang/vm.h"

#include "lang/strtab.h" /* hy_grow */

#include "core/core.h"

#include <stdlib.h>
#include <string.h>

typedef struct lane_builder {
    hy_expr *e;
    hy_program_writer w;     /* w.prog: the program */
    const hy_lane_root *roots;
    int n_roots;
    const int *list;         /* the walk of every root (operands first) */
    int n;
    int *pos_of;             /* node -> position in list */
    unsigned char *varying;  /* per position: uses a lane leaf */
    int *reg;                /* per position: register of a node computed once */
    int *lane_reg;           /* per position: first register of its lanes (this group) */
    int *uses;               /* per position: operand uses by this group's nodes */
    int *root_count, *root_of; /* per position: roots of this group naming it, the last */
    unsigned char *needed;   /* per position: this group computes it */
    int cap_store_dst, cap_store_src;
    int d;                   /* the next result register */
} lane_builder;

static int store(lane_builder *b, int dst, int src)
{
    hy_moves *m = &b->w.prog->stores;
    if (hy_grow((void **)&m->dst, &b->cap_store_dst, m->n + 1, sizeof *m->dst)
        || hy_grow((void **)&m->src, &b->cap_store_src, m->n + 1, sizeof *m->src))
        return -1;
    m->dst[m->n] = dst;
    m->src[m->n] = src;
    m->n++;
    if (dst + 1 > b->w.prog->n_outputs)
        b->w.prog->n_outputs = dst + 1;
    return 0;
}

static int load_kind(const hy_xnode *node)
{
    switch ((hy_xop)node->op) {
    case X_Y: return HY_LOAD_Y;
    case X_YP: return HY_LOAD_YP;
    case X_P: return HY_LOAD_P;
    case X_IN: return HY_LOAD_IN;
    default: return -1;
    }
}

static int is_operation(const hy_xnode *node)
{
    return node->op != X_NUM && node->op != X_T && node->op != X_CJ && load_kind(node) < 0;
}

/* The operand nodes of node as operation op runs it (HY_OP_POWI: its
** base only; the exponent is a number). */
static int operands_of(const hy_xnode *node, int op, int *operand)
{
    operand[0] = node->a;
    operand[1] = node->b;
    operand[2] = node->c;
    return op == HY_OP_POWI ? 1 : hy_op_arity(op);
}

/* ---------------------------------------------------------------- */
/* Leaves, constants and the nodes computed once                    */

/* Registers of the leaves (a list load each; a lane leaf that is a root
** one per lane), the constants, t and cj. 0 or -1. */
static int place_leaves(lane_builder *b)
{
    hy_program *prog = b->w.prog;
    int count[HY_N_LOADS] = { 0 }, n_consts = 0;
    for (int k = 0; k < b->n; k++) {
        const hy_xnode node = hy_x_node(b->e, b->list[k]);
        int kind = load_kind(&node);
        if (node.op == X_NUM)
            n_consts++;
        else if (kind >= 0 && !b->varying[k])
            count[kind]++;
    }
    for (int r = 0; r < b->n_roots; r++) {
        const hy_xnode node = hy_x_node(b->e, b->roots[r].node);
        if (hy_x_is_lane_leaf((hy_xop)node.op, node.fn))
            count[load_kind(&node)] += b->roots[r].lanes;
    }
    int next = HY_N_FIXED_REGS;
    for (int kind = 0; kind < HY_N_LOADS; kind++) {
        hy_moves *m = &prog->loads[kind];
        m->block_dst = next;
        if (count[kind] > 0) {
            m->dst = hy_malloc(sizeof *m->dst * (size_t)count[kind]);
            m->src = hy_malloc(sizeof *m->src * (size_t)count[kind]);
            if (!m->dst || !m->src)
                return -1;
        }
        next += count[kind];
    }
    int first_const = next;
    prog->first_result = b->d = first_const + n_consts;
    prog->n_regs = prog->first_result;
    int n_const = 0, cap_p = 0, cap_in = 0;
    for (int k = 0; k < b->n; k++) {
        const hy_xnode node = hy_x_node(b->e, b->list[k]);
        int kind = load_kind(&node);
        b->reg[k] = node.op == X_T ? HY_REG_T : node.op == X_CJ ? HY_REG_CJ : -1;
        if (node.op == X_NUM) {
            b->reg[k] = first_const + n_const++;
        } else if (kind >= 0 && !b->varying[k]) {
            hy_moves *m = &prog->loads[kind];
            b->reg[k] = m->dst[m->n] = m->block_dst + m->n;
            m->src[m->n++] = node.a;
            int **used = kind == HY_LOAD_P ? &prog->p_used : kind == HY_LOAD_IN ? &prog->in_used
                                                                                 : NULL;
            int *n_used = kind == HY_LOAD_P ? &prog->n_p_used : &prog->n_in_used;
            if (used && hy_grow((void **)used, kind == HY_LOAD_P ? &cap_p : &cap_in,
                                *n_used + 1, sizeof **used))
                return -1;
            if (used)
                (*used)[(*n_used)++] = node.a;
        }
    }
    return 0;
}

/* The nodes free of lane leaves, once each, in walk order. */
static int emit_once(lane_builder *b)
{
    for (int k = 0; k < b->n; k++) {
        const hy_xnode node = hy_x_node(b->e, b->list[k]);
        if (b->varying[k] || !is_operation(&node))
            continue;
        int op = hy_program_run_op(b->e, node), operand[3], rec[3];
        int arity = operands_of(&node, op, operand);
        for (int a = 0; a < arity; a++)
            rec[a] = b->reg[b->pos_of[operand[a]]];
        if (op == HY_OP_POWI)
            rec[arity++] = (int)hy_x_node(b->e, node.b).value;
        if (hy_program_begin_instr(&b->w, op, node.fn, 0, 1)
            || hy_program_push(&b->w, rec, arity))
            return -1;
        b->reg[k] = b->d++;
    }
    return 0;
}

/* Roots computed once (or lane leaves): stored, lane by lane. */
static int store_plain_roots(lane_builder *b)
{
    for (int r = 0; r < b->n_roots; r++) {
        const hy_lane_root *root = &b->roots[r];
        int k = b->pos_of[root->node];
        const hy_xnode node = hy_x_node(b->e, root->node);
        int is_leaf = hy_x_is_lane_leaf((hy_xop)node.op, node.fn);
        if (b->varying[k] && !is_leaf)
            continue;
        for (int j = 0; j < root->lanes; j++) {
            int src = b->reg[k];
            if (is_leaf) { /* y[a + j] into a register of its own */
                hy_moves *m = &b->w.prog->loads[load_kind(&node)];
                src = m->dst[m->n] = m->block_dst + m->n;
                m->src[m->n++] = node.a + j;
            }
            if (store(b, root->out[j], src))
                return -1;
        }
    }
    return 0;
}

/* ---------------------------------------------------------------- */
/* The nodes of lane leaves, a group per number of lanes            */

/* Operand position p of a strided instruction from lane j0 on. */
static void strided_source(const lane_builder *b, int p, int j0, int *s)
{
    const hy_xnode node = hy_x_node(b->e, b->list[p]);
    if (!b->varying[p]) {
        s[0] = HY_SRC_REGS;
        s[1] = b->reg[p];
        s[2] = 0;
    } else if (hy_x_is_lane_leaf((hy_xop)node.op, node.fn)) {
        s[0] = node.op == X_Y ? HY_SRC_Y : HY_SRC_YP;
        s[1] = node.a + j0;
        s[2] = 1;
    } else {
        s[0] = HY_SRC_REGS;
        s[1] = b->lane_reg[p] + j0;
        s[2] = 1;
    }
}

/* Node at position k for lanes [j0, j0 + count): into registers
** (dst_kind HY_DST_REGS, from dst_base on) or out[dst_base + j
** dst_stride]. */
static int emit_strided(lane_builder *b, int k, int j0, int count, int dst_kind, int dst_base,
                        int dst_stride)
{
    const hy_xnode node = hy_x_node(b->e, b->list[k]);
    int op = hy_program_run_op(b->e, node), operand[3];
    int arity = operands_of(&node, op, operand);
    int rec[3 + 3 * 3] = { dst_kind, dst_base, dst_stride };
    for (int a = 0; a < arity; a++)
        strided_source(b, b->pos_of[operand[a]], j0, rec + 3 + 3 * a);
    if (op == HY_OP_POWI) {
        int *s = rec + 3 + 3 * arity++;
        s[0] = HY_SRC_REGS;
        s[1] = (int)hy_x_node(b->e, node.b).value;
        s[2] = 0;
    }
    if (hy_program_begin_instr(&b->w, op, node.fn, 1, count)
        || hy_program_push(&b->w, rec, 3 + 3 * arity))
        return -1;
    return 0;
}

/* A root nothing else uses, straight into out[]: a strided instruction per
** run of lanes whose out indices step evenly. */
static int emit_direct(lane_builder *b, int k, const hy_lane_root *root)
{
    for (int j0 = 0, j1; j0 < root->lanes; j0 = j1) {
        int stride = j0 + 1 < root->lanes ? root->out[j0 + 1] - root->out[j0] : 0;
        for (j1 = j0 + 1; j1 < root->lanes && root->out[j1] - root->out[j1 - 1] == stride; j1++)
            ;
        if (emit_strided(b, k, j0, j1 - j0, HY_DST_OUT, root->out[j0], stride))
            return -1;
        if (root->out[j1 - 1] + 1 > b->w.prog->n_outputs)
            b->w.prog->n_outputs = root->out[j1 - 1] + 1;
        if (root->out[j0] + 1 > b->w.prog->n_outputs)
            b->w.prog->n_outputs = root->out[j0] + 1;
    }
    return 0;
}

/* The nodes the roots of `lanes` lanes need, then those roots. */
static int emit_group(lane_builder *b, int lanes)
{
    memset(b->needed, 0, (size_t)b->n);
    memset(b->uses, 0, sizeof *b->uses * (size_t)b->n);
    memset(b->root_count, 0, sizeof *b->root_count * (size_t)b->n);
    for (int r = 0; r < b->n_roots; r++) {
        int k = b->pos_of[b->roots[r].node];
        const hy_xnode node = hy_x_node(b->e, b->roots[r].node);
        if (b->roots[r].lanes != lanes || !b->varying[k] || !is_operation(&node))
            continue;
        b->needed[k] = 1;
        b->root_count[k]++;
        b->root_of[k] = r;
    }
    for (int k = b->n - 1; k >= 0; k--) {
        if (!b->needed[k])
            continue;
        const hy_xnode node = hy_x_node(b->e, b->list[k]);
        int op = hy_program_run_op(b->e, node), operand[3];
        int arity = operands_of(&node, op, operand);
        for (int a = 0; a < arity; a++) {
            int p = b->pos_of[operand[a]];
            const hy_xnode o = hy_x_node(b->e, operand[a]);
            if (b->varying[p] && is_operation(&o)) {
                b->needed[p] = 1;
                b->uses[p]++;
            }
        }
    }
    for (int k = 0; k < b->n; k++) {
        if (!b->needed[k])
            continue;
        if (b->root_count[k] == 1 && b->uses[k] == 0) {
            if (emit_direct(b, k, &b->roots[b->root_of[k]]))
                return -1;
            continue;
        }
        b->lane_reg[k] = b->d;
        if (emit_strided(b, k, 0, lanes, HY_DST_REGS, b->d, 1))
            return -1;
        b->d += lanes;
        for (int r = 0; r < b->n_roots && b->root_count[k] > 0; r++) {
            if (b->roots[r].node != b->list[k] || b->roots[r].lanes != lanes)
                continue;
            for (int j = 0; j < lanes; j++)
                if (store(b, b->roots[r].out[j], b->lane_reg[k] + j))
                    return -1;
        }
    }
    return 0;
}

/* Every number of lanes a root that uses lane leaves has, a group each,
** in the order the roots first have it. */
static int emit_groups(lane_builder *b)
{
    int *counts = NULL, n_counts = 0, cap_counts = 0, status = 0;
    for (int r = 0; r < b->n_roots && status == 0; r++) {
        int k = b->pos_of[b->roots[r].node], lanes = b->roots[r].lanes;
        const hy_xnode node = hy_x_node(b->e, b->roots[r].node);
        if (!b->varying[k] || !is_operation(&node))
            continue;
        int seen = 0;
        for (int q = 0; q < n_counts && !seen; q++)
            seen = counts[q] == lanes;
        if (seen)
            continue;
        status = hy_grow((void **)&counts, &cap_counts, n_counts + 1, sizeof *counts);
        if (status == 0)
            counts[n_counts++] = lanes;
    }
    for (int q = 0; q < n_counts && status == 0; q++)
        status = emit_group(b, counts[q]);
    hy_free(counts);
    return status;
}

/* ---------------------------------------------------------------- */

static void free_builder(lane_builder *b)
{
    hy_free(b->pos_of);
    hy_free(b->varying);
    hy_free(b->reg);
    hy_free(b->lane_reg);
    hy_free(b->uses);
    hy_free(b->root_count);
    hy_free(b->root_of);
    hy_free(b->needed);
}

static int compare_int(const void *x, const void *y)
{
    int a = *(const int *)x, b = *(const int *)y;
    return (a > b) - (a < b);
}

static int build(lane_builder *b)
{
    hy_expr *e = b->e;
    int *nodes = hy_malloc(sizeof *nodes * ((size_t)b->n_roots + 1));
    if (!nodes)
        return -1;
    for (int r = 0; r < b->n_roots; r++)
        nodes[r] = b->roots[r].node;
    b->n = hy_x_walk(e, nodes, b->n_roots, &b->list);
    hy_free(nodes);
    if (b->n < 0)
        return -1;
    size_t n = (size_t)b->n + 1;
    b->pos_of = hy_malloc(sizeof *b->pos_of * ((size_t)e->n_nodes + 1));
    b->varying = hy_calloc(n, 1);
    b->needed = hy_calloc(n, 1);
    b->reg = hy_malloc(sizeof *b->reg * n);
    b->lane_reg = hy_malloc(sizeof *b->lane_reg * n);
    b->uses = hy_malloc(sizeof *b->uses * n);
    b->root_count = hy_malloc(sizeof *b->root_count * n);
    b->root_of = hy_malloc(sizeof *b->root_of * n);
    if (!b->pos_of || !b->varying || !b->needed || !b->reg || !b->lane_reg || !b->uses
        || !b->root_count || !b->root_of)
        return -1;
    for (int k = 0; k < b->n; k++) {
        const hy_xnode node = hy_x_node(e, b->list[k]);
        b->pos_of[b->list[k]] = k;
        b->varying[k] = (unsigned char)hy_x_is_lane_leaf((hy_xop)node.op, node.fn);
        if (is_operation(&node)) {
            int operand[3];
            int arity = operands_of(&node, hy_program_run_op(e, node), operand);
            for (int a = 0; a < arity; a++)
                b->varying[k] |= b->varying[b->pos_of[operand[a]]];
        }
    }
    if (place_leaves(b) || emit_once(b) || store_plain_roots(b) || emit_groups(b))
        return -1;
    hy_program *prog = b->w.prog;
    prog->first_direct = prog->n_instr;
    prog->direct_out = 0;
    prog->n_regs = b->d;
    prog->constants = hy_calloc((size_t)prog->first_result + 1, sizeof *prog->constants);
    if (!prog->constants)
        return -1;
    for (int k = 0; k < b->n; k++)
        if (hy_x_node(e, b->list[k]).op == X_NUM)
            prog->constants[b->reg[k]] = hy_x_node(e, b->list[k]).value;
    if (prog->n_p_used > 1)
        qsort(prog->p_used, (size_t)prog->n_p_used, sizeof *prog->p_used, compare_int);
    if (prog->n_in_used > 1)
        qsort(prog->in_used, (size_t)prog->n_in_used, sizeof *prog->in_used, compare_int);
    prog->id = hy_program_new_id();
    return 0;
}

hy_program *hy_program_build_lanes(hy_expr *e, const hy_lane_root *roots, int n_roots)
{
    lane_builder b;
    memset(&b, 0, sizeof b);
    b.e = e;
    b.roots = roots;
    b.n_roots = n_roots;
    b.w.prog = hy_calloc(1, sizeof *b.w.prog);
    if (!b.w.prog)
        return NULL;
    int status = build(&b);
    free_builder(&b);
    if (status != 0) {
        hy_program_free(b.w.prog);
        return NULL;
    }
    return b.w.prog;
}
