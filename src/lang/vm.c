/*
** The bytecode register machine of the model-language compiler: building
** a program from DAG roots (one instruction per reachable node, operands
** first) and running it.
*/
#include "lang/vm.h"

#include "lang/strtab.h"
#include "core/core.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

void hy_program_free(hy_program *prog)
{
    if (!prog)
        return;
    hy_free(prog->code);
    hy_free(prog->operands);
    hy_free(prog->constants);
    for (int k = 0; k < HY_N_LOADS; k++) {
        hy_free(prog->loads[k].dst);
        hy_free(prog->loads[k].src);
    }
    hy_free(prog->stores.dst);
    hy_free(prog->stores.src);
    hy_free(prog->p_used);
    hy_free(prog->in_used);
    hy_free(prog);
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

int hy_op_arity(int op)
{
    return op_arity(op);
}

static int compare_int(const void *x, const void *y)
{
    int a = *(const int *)x, b = *(const int *)y;
    return (a > b) - (a < b);
}

/* A direct output to schedule (the other operations are scheduled by
** level, opcode and function, and position: schedule_inner): sorted by
** opcode, the regions of its operands (sig), out index (order) and
** position, so the schedule is deterministic. */
typedef struct sched {
    int order, pos, opfn;
    int sig[3];
} sched;

static int compare_direct(const void *x, const void *y)
{
    const sched *a = x, *b = y;
    if (a->opfn != b->opfn)
        return (a->opfn > b->opfn) - (a->opfn < b->opfn);
    for (int k = 0; k < 3; k++)
        if (a->sig[k] != b->sig[k])
            return (a->sig[k] > b->sig[k]) - (a->sig[k] < b->sig[k]);
    if (a->order != b->order)
        return (a->order > b->order) - (a->order < b->order);
    return (a->pos > b->pos) - (a->pos < b->pos);
}

/* The leftover direct outputs: by out index (order), or by opcode first. */
static int compare_out(const void *x, const void *y)
{
    const sched *a = x, *b = y;
    if (a->order != b->order)
        return (a->order > b->order) - (a->order < b->order);
    return (a->pos > b->pos) - (a->pos < b->pos);
}

static int compare_opfn_out(const void *x, const void *y)
{
    const sched *a = x, *b = y;
    if (a->opfn != b->opfn)
        return (a->opfn > b->opfn) - (a->opfn < b->opfn);
    return compare_out(x, y);
}

/* The opcode node runs as (whole powers become HY_OP_POWI, HY_OP_SQR or
** HY_OP_CUBE). */
int hy_program_run_op(const hy_expr *e, hy_xnode node)
{
    if (node.op != X_POW)
        return node.op;
    const hy_xnode exponent = hy_x_node(e, node.b);
    if (exponent.op == X_NUM && exponent.value == floor(exponent.value)
        && fabs(exponent.value) <= HY_POWI_MAX)
        return exponent.value == 2.0 ? HY_OP_SQR : exponent.value == 3.0 ? HY_OP_CUBE : HY_OP_POWI;
    return X_POW;
}


/* Per position of the reachable list, while building. */
typedef struct slot {
    short op;                /* the opcode it runs as; -1: not an operation */
    unsigned char absorbed;  /* a multiplication fused into its one user */
    unsigned char written;   /* a direct output: written to out[] by its instruction */
    int uses;                /* operand uses by operations, and roots */
    int roots;               /* how often it is a root */
    int out;                 /* its out index (the last root naming it) */
    int level;
    int operand[3];          /* positions (HY_OP_POWI: the exponent second) */
} slot;

/* The opcode and function of the operation at position pos, a key of
** the schedule. */
static int opfn_at(const hy_expr *e, const int *list, const slot *sl, int pos)
{
    return sl[pos].op * 256 + hy_x_node(e, list[pos]).fn;
}

/* Order inner[0..n_inner), the positions of the operations that are not
** direct outputs (ascending on entry), by level, then opcode and
** function, then position: two stable counting sorts (LSD radix sort,
** Knuth TAOCP vol. 3, 5.2), linear where a comparison sort of 10^7
** records is not, and of positions (4 bytes each) rather than records;
** a short list by a comparison sort. 0, or -1 out of memory. */
typedef struct keyed_pos {
    long long key;           /* level * 65536 + opcode and function */
    int pos;
} keyed_pos;

static int compare_keyed(const void *x, const void *y)
{
    const keyed_pos *a = x, *b = y;
    if (a->key != b->key)
        return (a->key > b->key) - (a->key < b->key);
    return (a->pos > b->pos) - (a->pos < b->pos);
}

static int schedule_inner(int *inner, int n_inner, const slot *sl, const hy_expr *e,
                          const int *list)
{
    if (n_inner < 4096) {
        /* a small program (a transition's, a guard's): a comparison sort,
        ** not the counting sorts' 65536 counters */
        keyed_pos *keyed = hy_malloc(sizeof *keyed * (size_t)(n_inner + 1));
        if (!keyed)
            return -1;
        for (int i = 0; i < n_inner; i++) {
            keyed[i].key = (long long)sl[inner[i]].level * 65536 + opfn_at(e, list, sl, inner[i]);
            keyed[i].pos = inner[i];
        }
        qsort(keyed, (size_t)n_inner, sizeof *keyed, compare_keyed);
        for (int i = 0; i < n_inner; i++)
            inner[i] = keyed[i].pos;
        hy_free(keyed);
        return 0;
    }
    int max_level = 0;
    for (int i = 0; i < n_inner; i++)
        if (sl[inner[i]].level > max_level)
            max_level = sl[inner[i]].level;
    int n_counts = 65536 > max_level + 1 ? 65536 : max_level + 1;
    int *tmp = hy_malloc(sizeof *tmp * (size_t)(n_inner + 1));
    int *count = hy_malloc(sizeof *count * (size_t)(n_counts + 1));
    if (!tmp || !count) {
        hy_free(tmp);
        hy_free(count);
        return -1;
    }
    for (int pass = 0; pass < 2; pass++) {
        const int *from = pass == 0 ? inner : tmp;
        int *to = pass == 0 ? tmp : inner;
        int range = pass == 0 ? 65536 : max_level + 1;
        memset(count, 0, sizeof *count * (size_t)(range + 1));
        for (int i = 0; i < n_inner; i++)
            count[(pass == 0 ? opfn_at(e, list, sl, from[i]) : sl[from[i]].level) + 1]++;
        for (int k = 0; k < range; k++)
            count[k + 1] += count[k];
        for (int i = 0; i < n_inner; i++)
            to[count[pass == 0 ? opfn_at(e, list, sl, from[i]) : sl[from[i]].level]++] = from[i];
    }
    hy_free(tmp);
    hy_free(count);
    return 0;
}

/* The instruction stream while it is written. A lane is LANE_INTS ints:
** its destination (register or out index), then its operand registers
** (HY_OP_POWI: the exponent second). */
enum { LANE_INTS = 4 };

typedef hy_program_writer builder;

int hy_program_begin_instr(hy_program_writer *w, int op, int fn, int strided, int count)
{
    hy_program *prog = w->prog;
    if (hy_grow((void **)&prog->code, &w->cap_code, prog->n_instr + 1, sizeof *prog->code))
        return -1;
    hy_instr *in = &prog->code[prog->n_instr++];
    in->op = (unsigned char)op;
    in->fn = (unsigned char)fn;
    in->strided = (unsigned char)strided;
    in->count = count;
    return 0;
}

int hy_program_push(hy_program_writer *w, const int *v, int n)
{
    if (hy_grow((void **)&w->prog->operands, &w->cap_operands, w->n_operands + n,
                sizeof *w->prog->operands))
        return -1;
    memcpy(w->prog->operands + w->n_operands, v, sizeof *v * (size_t)n);
    w->n_operands += n;
    return 0;
}

static int begin_instr(builder *b, int op, int fn, int strided)
{
    return hy_program_begin_instr(b, op, fn, strided, 0);
}

static int push_ints(builder *b, const int *v, int n)
{
    return hy_program_push(b, v, n);
}

/* Where registers lo..hi (either order) can be read from: the input block
** they mirror (HY_SRC_Y...), with *index the input index of lo, or the
** registers. */
static int source_of(const hy_program *prog, int lo, int hi, int *index)
{
    for (int kind = 0; kind < HY_N_LOADS; kind++) {
        const hy_moves *m = &prog->loads[kind];
        if (m->dst || m->n == 0)
            continue;
        if (lo >= m->block_dst && lo < m->block_dst + m->n && hi >= m->block_dst
            && hi < m->block_dst + m->n) {
            *index = lo - m->block_dst + m->block_src;
            return HY_SRC_Y + kind;
        }
    }
    *index = lo;
    return HY_SRC_REGS;
}

/* Can lane k (> j) join the strided run starting at lane j (whose stride
** lane j + 1 gives)? Every field an arithmetic progression; HY_OP_POWI's
** exponent the same in every lane. */
static int lane_fits(const int *v, int op, int arity, int j, int k)
{
    const int *first = v + (size_t)j * LANE_INTS, *second = first + LANE_INTS;
    const int *lane = v + (size_t)k * LANE_INTS;
    for (int f = 0; f <= arity; f++) {
        if (op == HY_OP_POWI && f == 2) {
            if (lane[f] != first[f])
                return 0;
            continue;
        }
        long long stride = (long long)second[f] - first[f];
        if ((long long)lane[f] - first[f] != stride * (k - j))
            return 0;
    }
    return 1;
}

/* Write the m lanes v of one opcode (and function) as instructions: runs
** of at least HY_MIN_RUN lanes affine in every field as strided
** instructions (destination dst_kind), the others gathered, in order
** (left == NULL), or their lane numbers appended to left[*n_left]. */
static int emit_lanes(builder *b, const int *v, int m, int op, int fn, int dst_kind, int *left,
                      int *n_left)
{
    const int arity = op_arity(op);
    int j = 0, gathered_open = 0;
    while (j < m) {
        int k = j + 1;
        if (m - j >= HY_MIN_RUN)
            while (k < m && lane_fits(v, op, arity, j, k))
                k++;
        if (k - j >= HY_MIN_RUN) {
            const int *first = v + (size_t)j * LANE_INTS, *second = first + LANE_INTS;
            const int *last = v + (size_t)(k - 1) * LANE_INTS;
            int rec[3 + 3 * 3];
            rec[0] = dst_kind;
            rec[1] = first[0];
            rec[2] = second[0] - first[0];
            for (int a = 0; a < arity; a++) {
                int *s = rec + 3 + 3 * a;
                if (op == HY_OP_POWI && a == 1) {
                    s[0] = HY_SRC_REGS;
                    s[1] = first[2];
                    s[2] = 0;
                    continue;
                }
                s[0] = source_of(b->prog, first[1 + a], last[1 + a], &s[1]);
                s[2] = second[1 + a] - first[1 + a];
            }
            if (begin_instr(b, op, fn, 1) || push_ints(b, rec, 3 + 3 * arity))
                return -1;
            b->prog->code[b->prog->n_instr - 1].count = k - j;
            gathered_open = 0;
            j = k;
            continue;
        }
        if (left) {
            left[(*n_left)++] = j;
        } else {
            if (!gathered_open && begin_instr(b, op, fn, 0))
                return -1;
            gathered_open = 1;
            b->prog->code[b->prog->n_instr - 1].count++;
            if (push_ints(b, v + (size_t)j * LANE_INTS + 1, arity))
                return -1;
        }
        j++;
    }
    return 0;
}

/* A lane of the operation in slot s: destination dst, then its operands. */
static void make_lane(int *lane, const slot *s, const int *reg, int dst)
{
    lane[0] = dst;
    for (int a = 0; a < 3; a++)
        lane[1 + a] = a >= op_arity(s->op) ? 0
                      : s->op == HY_OP_POWI && a == 1 ? s->operand[1] : reg[s->operand[a]];
}

/* The region a register lies in (the fixed registers, a kind of leaf, the
** constants, or the results of one instruction group of grp), for sorting
** the direct outputs by shape. */
static int region_of(const hy_program *prog, int first_const, const int *grp, int r)
{
    if (r < HY_N_FIXED_REGS)
        return r;
    if (r < first_const) {
        for (int kind = 0; kind < HY_N_LOADS; kind++) {
            const hy_moves *m = &prog->loads[kind];
            if (r >= m->block_dst && r < m->block_dst + m->n)
                return HY_N_FIXED_REGS + kind;
        }
        return HY_N_FIXED_REGS + HY_N_LOADS;
    }
    if (r < prog->first_result)
        return HY_N_FIXED_REGS + HY_N_LOADS + 1;
    return HY_N_FIXED_REGS + HY_N_LOADS + 2 + grp[r - prog->first_result];
}

/* Load only the registers of each leaf block that something reads from
** the registers (gathered operands, strided operands in the registers,
** stores); strided operands read the rest from the input in place. */
static int trim_loads(hy_program *prog)
{
    unsigned char *needed = hy_calloc((size_t)prog->n_regs + 1, 1);
    if (!needed)
        return -1;
    const int *o = prog->operands;
    for (int i = 0; i < prog->n_instr; i++) {
        const hy_instr *in = &prog->code[i];
        int arity = op_arity(in->op);
        if (in->strided) {
            for (int a = 0; a < arity; a++) {
                const int *s = o + 3 + 3 * a;
                if (s[0] != HY_SRC_REGS || (in->op == HY_OP_POWI && a == 1))
                    continue;
                for (int j = 0; j < in->count; j++)
                    needed[s[1] + (long)j * s[2]] = 1;
            }
            o += 3 + 3 * arity;
        } else {
            for (int j = 0; j < in->count; j++, o += arity)
                for (int a = 0; a < arity; a++)
                    if (!(in->op == HY_OP_POWI && a == 1))
                        needed[o[a]] = 1;
        }
    }
    for (int k = 0; k < prog->stores.n; k++)
        needed[prog->stores.src[k]] = 1;
    for (int kind = 0; kind < HY_N_LOADS; kind++) {
        hy_moves *m = &prog->loads[kind];
        if (m->dst || m->n == 0)
            continue;
        int count = 0;
        for (int k = 0; k < m->n; k++)
            count += needed[m->block_dst + k];
        if (count > m->n / 2)
            continue;        /* the block copy is as cheap */
        if (count > 0) {
            m->dst = hy_malloc(sizeof *m->dst * (size_t)count);
            m->src = hy_malloc(sizeof *m->src * (size_t)count);
            if (!m->dst || !m->src) {
                hy_free(needed);
                return -1;
            }
        }
        int c = 0;
        for (int k = 0; k < m->n; k++)
            if (needed[m->block_dst + k]) {
                m->dst[c] = m->block_dst + k;
                m->src[c] = m->block_src + k;
                c++;
            }
        m->n = c;
    }
    hy_free(needed);
    return 0;
}

hy_program *hy_program_build(hy_expr *e, const int *roots, const int *out_index, int n_roots)
{
    hy_program *prog = hy_calloc(1, sizeof *prog);
    if (!prog)
        return NULL;
    /* The walk's buffer: nothing below walks again or adds nodes. */
    const int *list = NULL;
    int n = hy_x_walk(e, roots, n_roots, &list);
    if (n < 0) {
        hy_free(prog);
        return NULL;
    }
    builder b = { prog, 0, 0, 0 };
    int cap_p = 0, cap_in = 0, cap_store_dst = 0, cap_store_src = 0;
    int *reg = hy_malloc(sizeof *reg * (size_t)(n + 1));
    slot *sl = hy_calloc((size_t)n + 1, sizeof *sl);
    int *inner = hy_malloc(sizeof *inner * (size_t)(n + 1)); /* positions, scheduled */
    int *grp = hy_malloc(sizeof *grp * (size_t)(n + 1));
    int *lanes = NULL, *left = NULL; /* sized once the schedule is known */
    sched *direct = NULL, *leftover = NULL;
    if (!reg || !sl || !inner || !grp)
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
        const hy_xnode node = hy_x_node(e, list[k]);
        int kind = load_kind((hy_xop)node.op);
        sl[k].op = -1;
        if (node.op == X_NUM) {
            n_consts++;
        } else if (kind >= 0) {
            if (count[kind] == 0 || node.a < lo[kind])
                lo[kind] = node.a;
            if (count[kind] == 0 || node.a > hi[kind])
                hi[kind] = node.a;
            count[kind]++;
            if (node.op == X_P && add_used(&prog->p_used, &prog->n_p_used, &cap_p, node.a))
                goto nomem;
            if (node.op == X_IN && add_used(&prog->in_used, &prog->n_in_used, &cap_in, node.a))
                goto nomem;
        } else if (node.op != X_T && node.op != X_CJ) {
            sl[k].op = hy_program_run_op(e, node);
            const int operand[3] = { node.a, node.b, node.c };
            for (int j = 0; j < 3; j++) {
                sl[k].operand[j] = operand[j] >= 0 ? e->scratch[operand[j]] : -1;
                if (operand[j] >= 0)
                    sl[sl[k].operand[j]].uses++;
            }
            if (sl[k].op == HY_OP_POWI)
                sl[k].operand[1] = (int)hy_x_node(e, node.b).value;
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
    ** nothing else; they run last. */
    int n_inner = 0, n_direct = 0;
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
        if (s->roots == 1 && s->uses == 1)
            n_direct++;
        else
            inner[n_inner++] = k;
    }
    direct = hy_malloc(sizeof *direct * (size_t)(n_direct + 1));
    if (!direct)
        goto nomem;
    for (int k = 0, d = 0; k < n; k++) {
        const slot *s = &sl[k];
        if (s->op < 0 || s->absorbed || s->roots != 1 || s->uses != 1)
            continue;
        direct[d].opfn = opfn_at(e, list, sl, k);
        direct[d].order = s->out;
        direct[d].pos = k;
        d++;
    }
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
            m->dst = hy_malloc(sizeof *m->dst * (size_t)count[kind]);
            m->src = hy_malloc(sizeof *m->src * (size_t)count[kind]);
            if (!m->dst || !m->src)
                goto nomem;
            m->block_dst = next;
            next += count[kind];
        }
    }
    int first_const = next;
    next += n_consts;
    prog->first_result = next;
    int n_const = 0;
    for (int k = 0; k < n; k++) {
        const hy_xnode node = hy_x_node(e, list[k]);
        int kind = load_kind((hy_xop)node.op);
        reg[k] = -1;
        if (node.op == X_NUM) {
            reg[k] = first_const + n_const++;
        } else if (node.op == X_T) {
            reg[k] = HY_REG_T;
        } else if (node.op == X_CJ) {
            reg[k] = HY_REG_CJ;
        } else if (kind >= 0) {
            hy_moves *m = &prog->loads[kind];
            if (m->dst) {
                reg[k] = m->block_dst + used[kind];
                m->dst[used[kind]] = reg[k];
                m->src[used[kind]] = node.a;
                used[kind]++;
                m->n = used[kind];
            } else {
                reg[k] = m->block_dst + (node.a - m->block_src);
            }
        }
    }
    if (schedule_inner(inner, n_inner, sl, e, list))
        goto nomem;
    int longest_group = n_direct;
    for (int j = 0, end; j < n_inner; j = end) {
        int group_opfn = opfn_at(e, list, sl, inner[j]);
        for (end = j; end < n_inner && opfn_at(e, list, sl, inner[end]) == group_opfn; end++)
            ;
        if (end - j > longest_group)
            longest_group = end - j;
    }
    lanes = hy_malloc(sizeof *lanes * LANE_INTS * (size_t)(longest_group + 1));
    left = hy_malloc(sizeof *left * (size_t)(n_direct + 1));
    leftover = hy_malloc(sizeof *leftover * (size_t)(n_direct + 1));
    if (!lanes || !left || !leftover)
        goto nomem;
    for (int j = 0; j < n_inner; j++)
        reg[inner[j]] = prog->first_result + j;
    /* The inner operations: a group per run of one opcode, as strided and
    ** gathered instructions; results in schedule order. */
    int n_groups = 0;
    for (int j = 0, end; j < n_inner; j = end) {
        int group_opfn = opfn_at(e, list, sl, inner[j]);
        for (end = j; end < n_inner && opfn_at(e, list, sl, inner[end]) == group_opfn; end++) {
            grp[end] = n_groups;
            make_lane(lanes + (size_t)(end - j) * LANE_INTS, &sl[inner[end]], reg,
                      prog->first_result + end);
        }
        n_groups++;
        const slot *s = &sl[inner[j]];
        if (emit_lanes(&b, lanes, end - j, s->op, hy_x_node(e, list[inner[j]]).fn, HY_DST_REGS,
                       NULL, NULL))
            goto nomem;
    }
    /* The direct outputs, sorted by opcode, the regions of their operands
    ** and out index, so outputs of one shape (every x' - v of a chain) are
    ** together: the strided runs write out[] directly; the others, if
    ** their out indices are one contiguous range, run last in out order
    ** writing out[] directly, else into registers and are stored. */
    for (int j = 0; j < n_direct; j++) {
        const slot *s = &sl[direct[j].pos];
        for (int a = 0; a < 3; a++)
            direct[j].sig[a] = a >= op_arity(s->op) ? 0
                               : s->op == HY_OP_POWI && a == 1
                                   ? s->operand[1]
                                   : region_of(prog, first_const, grp, reg[s->operand[a]]);
    }
    if (n_direct > 1)
        qsort(direct, (size_t)n_direct, sizeof *direct, compare_direct);
    int n_left = 0;
    for (int j = 0, end; j < n_direct; j = end) {
        for (end = j; end < n_direct && direct[end].opfn == direct[j].opfn; end++)
            make_lane(lanes + (size_t)(end - j) * LANE_INTS, &sl[direct[end].pos], reg,
                      direct[end].order);
        const slot *s = &sl[direct[j].pos];
        int from = n_left;
        if (emit_lanes(&b, lanes, end - j, s->op, hy_x_node(e, list[direct[j].pos]).fn, HY_DST_OUT,
                       left, &n_left))
            goto nomem;
        /* Lanes not in left were written directly. */
        for (int t = j, q = from; t < end; t++) {
            if (q < n_left && left[q] == t - j) {
                leftover[q++] = direct[t];
                continue;
            }
            sl[direct[t].pos].written = 1;
            if (direct[t].order + 1 > prog->n_outputs)
                prog->n_outputs = direct[t].order + 1;
        }
    }
    int contiguous = n_left > 0;
    if (n_left > 1) {
        qsort(leftover, (size_t)n_left, sizeof *leftover, compare_out);
        for (int j = 1; j < n_left; j++)
            if (leftover[j].order != leftover[j - 1].order + 1)
                contiguous = 0;
        if (!contiguous)
            qsort(leftover, (size_t)n_left, sizeof *leftover, compare_opfn_out);
    }
    int n_reg_left = contiguous ? 0 : n_left;
    for (int j = 0; j < n_reg_left; j++)
        reg[leftover[j].pos] = prog->first_result + n_inner + j;
    prog->first_direct = -1;
    for (int j = 0; j < n_left; j++) {
        const slot *s = &sl[leftover[j].pos];
        if (contiguous && j == 0) {
            prog->first_direct = prog->n_instr;
            prog->direct_out = leftover[0].order;
        }
        if (j == 0 || leftover[j].opfn != leftover[j - 1].opfn) {
            if (begin_instr(&b, s->op, hy_x_node(e, list[leftover[j].pos]).fn, 0))
                goto nomem;
        }
        prog->code[prog->n_instr - 1].count++;
        int lane[LANE_INTS];
        make_lane(lane, s, reg, 0);
        if (push_ints(&b, lane + 1, op_arity(s->op)))
            goto nomem;
        if (contiguous) {
            sl[leftover[j].pos].written = 1;
            if (leftover[j].order + 1 > prog->n_outputs)
                prog->n_outputs = leftover[j].order + 1;
        }
    }
    if (prog->first_direct < 0)
        prog->first_direct = prog->n_instr;
    prog->n_regs = prog->first_result + n_inner + n_reg_left;
    prog->constants = hy_calloc((size_t)prog->first_result + 1, sizeof *prog->constants);
    if (!prog->constants)
        goto nomem;
    prog->id = hy_program_new_id();
    for (int k = 0; k < n; k++)
        if (hy_x_node(e, list[k]).op == X_NUM)
            prog->constants[reg[k]] = hy_x_node(e, list[k]).value;
    for (int r = 0; r < n_roots; r++) {
        if (roots[r] < 0)
            continue;
        const slot *s = &sl[e->scratch[roots[r]]];
        if (s->written)
            continue;        /* written directly */
        int dst = out_index ? out_index[r] : r;
        if (add_move(&prog->stores, &cap_store_dst, &cap_store_src, dst, reg[e->scratch[roots[r]]]))
            goto nomem;
        if (dst + 1 > prog->n_outputs)
            prog->n_outputs = dst + 1;
    }
    if (trim_loads(prog))
        goto nomem;
    if (prog->n_p_used > 1)
        qsort(prog->p_used, (size_t)prog->n_p_used, sizeof *prog->p_used, compare_int);
    if (prog->n_in_used > 1)
        qsort(prog->in_used, (size_t)prog->n_in_used, sizeof *prog->in_used, compare_int);
    hy_free(reg);
    hy_free(sl);
    hy_free(inner);
    hy_free(direct);
    hy_free(lanes);
    hy_free(grp);
    hy_free(left);
    hy_free(leftover);
    return prog;
nomem:
    hy_free(reg);
    hy_free(sl);
    hy_free(inner);
    hy_free(direct);
    hy_free(lanes);
    hy_free(grp);
    hy_free(left);
    hy_free(leftover);
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
    if (moves->n == 0)
        return; /* source may be NULL (no y', no in[]): no arithmetic on it */
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

/* One gathered instruction: n operations, d[j] = f(operands o[arity j ...]). */
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

#if defined(__GNUC__) && !defined(__clang__)
#define HY_UNROLL _Pragma("GCC unroll 4")
#else
#define HY_UNROLL
#endif

/* One strided instruction: lane j reads pa[j sa] (pb[j sb], pc[j sc])
** and writes pd[j sd]; no index loads. */
#define HY_STRIDED1(expr)                                                    \
    HY_UNROLL                                                                \
    for (ptrdiff_t j = 0; j < n; j++) {                                      \
        double a = pa[j * sa];                                               \
        pd[j * sd] = (expr);                                                 \
    }                                                                        \
    break
#define HY_STRIDED2(expr)                                                    \
    HY_UNROLL                                                                \
    for (ptrdiff_t j = 0; j < n; j++) {                                      \
        double a = pa[j * sa], b = pb[j * sb];                               \
        pd[j * sd] = (expr);                                                 \
    }                                                                        \
    break
#define HY_STRIDED3(expr)                                                    \
    HY_UNROLL                                                                \
    for (ptrdiff_t j = 0; j < n; j++) {                                      \
        double a = pa[j * sa], b = pb[j * sb], c = pc[j * sc];               \
        pd[j * sd] = (expr);                                                 \
    }                                                                        \
    break

/* Returns the operands that follow. The record: destination (kind, base,
** stride), then per operand (source, base, stride). */
#if defined(__GNUC__)
__attribute__((noinline))
#endif
static const int *run_strided(const hy_instr *in, const int *o, double *r,
                              const hy_vm_input *input, double *out)
{
    const double *const src[HY_N_SRC] = { r, input->y, input->yp, input->p, input->in };
    double *const dst[2] = { r, out };
    const ptrdiff_t n = in->count;
    const hy_function fn = (hy_function)in->fn;
    const int arity = op_arity(in->op);
    double *pd = dst[o[0]] + o[1];
    const ptrdiff_t sd = o[2];
    const double *pa = src[o[3]] + o[4], *pb = NULL, *pc = NULL;
    const ptrdiff_t sa = o[5];
    ptrdiff_t sb = 0, sc = 0;
    if (arity >= 2 && in->op != HY_OP_POWI) {
        pb = src[o[6]] + o[7];
        sb = o[8];
    }
    if (arity >= 3) {
        pc = src[o[9]] + o[10];
        sc = o[11];
    }
    switch (in->op) {
    case X_NEG: HY_STRIDED1(-a);
    case X_NOT: HY_STRIDED1(a == 0.0);
    case X_FN1: HY_STRIDED1(hy_function_apply(fn, a, 0.0));
    case HY_OP_SQR: HY_STRIDED1(a * a);
    case HY_OP_CUBE: HY_STRIDED1(a * (a * a));
    case X_ADD: HY_STRIDED2(a + b);
    case X_SUB: HY_STRIDED2(a - b);
    case X_MUL: HY_STRIDED2(a * b);
    case X_DIV: HY_STRIDED2(a / b);
    case X_POW: HY_STRIDED2(b == 2.0 ? a * a : pow(a, b));
    case X_LT: HY_STRIDED2(a < b);
    case X_LE: HY_STRIDED2(a <= b);
    case X_GT: HY_STRIDED2(a > b);
    case X_GE: HY_STRIDED2(a >= b);
    case X_EQ: HY_STRIDED2(a == b);
    case X_NE: HY_STRIDED2(a != b);
    case X_AND: HY_STRIDED2(a != 0.0 && b != 0.0);
    case X_OR: HY_STRIDED2(a != 0.0 || b != 0.0);
    case X_FN2: HY_STRIDED2(hy_function_apply(fn, a, b));
    case HY_OP_MULADD: HY_STRIDED3(a * b + c);
    case HY_OP_MULSUB: HY_STRIDED3(a * b - c);
    case HY_OP_ADDMUL: HY_STRIDED3(a + b * c);
    case HY_OP_SUBMUL: HY_STRIDED3(a - b * c);
    case X_IF: HY_STRIDED3(a != 0.0 ? b : c);
    case HY_OP_POWI:
        for (ptrdiff_t j = 0; j < n; j++)
            pd[j * sd] = power_whole(pa[j * sa], o[7]);
        break;
    default:
        for (ptrdiff_t j = 0; j < n; j++)
            pd[j * sd] = NAN;
        break;
    }
    return o + 3 + 3 * arity;
}

/* Instructions [begin, end) with operands from o, the results of the
** gathered ones (and the strided ones into registers) from d on; returns
** the operands that follow. (No vectorization: the operands are gathered,
** and its set-up costs more than short instructions gain.) */
#if defined(__GNUC__) && !defined(__clang__)
__attribute__((optimize("no-tree-vectorize")))
#endif
static const int *run_code(double *r, const hy_instr *code, int begin, int end, const int *o,
                           double *d, const hy_vm_input *input, double *out)
{
    for (int i = begin; i < end; i++) {
        const int n = code[i].count;
        const hy_function fn = (hy_function)code[i].fn;
        if (code[i].strided) {
            if (o[0] == HY_DST_REGS)
                d += n;
            o = run_strided(&code[i], o, r, input, out);
            continue;
        }
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

static inline void program_exec(const hy_program *prog, double *r, const hy_vm_input *input,
                                double *out)
{
    if (prog->native) {
        prog->native(r, input->t, input->cj, input->y, input->yp, input->p, input->in,
                     prog->native_tables, out);
        return;
    }
    r[HY_REG_T] = input->t;
    r[HY_REG_CJ] = input->cj;
    load(r, &prog->loads[HY_LOAD_Y], input->y);
    load(r, &prog->loads[HY_LOAD_YP], input->yp);
    load(r, &prog->loads[HY_LOAD_P], input->p);
    load(r, &prog->loads[HY_LOAD_IN], input->in);
    const int *o = run_code(r, prog->code, 0, prog->first_direct, prog->operands,
                            r + prog->first_result, input, out);
    /* out is NULL for a program without outputs: no arithmetic on it. */
    double *direct = out ? out + prog->direct_out : NULL;
    run_code(r, prog->code, prog->first_direct, prog->n_instr, o, direct, input, out);
    const hy_moves *stores = &prog->stores;
    for (int k = 0; k < stores->n; k++)
        out[stores->dst[k]] = r[stores->src[k]];
}

void hy_program_exec(const hy_program *prog, double *regs, const hy_vm_input *input, double *out)
{
    program_exec(prog, regs, input, out);
}

int hy_program_run_regs(const hy_program *prog, const hy_vm_input *input, double *out)
{
    double *regs = hy_program_regs(prog);
    if (!regs)
        return -1;
    program_exec(prog, regs, input, out);
    return 0;
}
