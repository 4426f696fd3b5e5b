/*
** The native backend's code generator: a compiled program (vm.h) as one C
** function that does what hy_program_exec does, instruction by
** instruction, in the same order, with the same C operations and the same
** libm calls, so that compiled without contraction (-ffp-contract=off)
** it gives the same results to the bit.
**
** A strided instruction stays a loop (an array equation stays a loop); a
** gathered instruction of at most GATHER_LOOP lanes becomes one statement
** per lane, a longer one a loop over its operand records, read at run time
** from the program's own operand stream (tab, hy_program.native_tables:
** the generated text stays small however long the lists, and compiles
** fast). Registers
** that a loop reads or writes live in the register file r (the thread's
** file, vm_regs.c, its constants in place); the others are local
** variables the C compiler keeps in machine registers, leaves are read
** from the inputs and constants are written as hexadecimal floating
** literals ("%a", exact). Nothing else reaches the text: no names, no
** strings, only numbers and indices of the program.
*/
#include "lang/native/native.h"

#include "core/core.h"
#include "lang/expr.h"

#include <math.h>
#include <string.h>

/* Gathered instructions of more lanes than loop_above (GATHER_LOOP; 0 in
** a program with more than MAX_STATEMENTS such lanes in all, whose one
** function would take the C compiler minutes) and lists of more stores
** or loads than GATHER_LOOP run as loops over the program's index lists. */
enum { GATHER_LOOP = 32, MAX_STATEMENTS = 4096 };

/* How the generated code reads a register. */
enum { REF_CONST, REF_T, REF_CJ, REF_LEAF, REF_RESULT };

typedef struct emitter {
    FILE *f;
    const hy_program *prog;
    unsigned char *kind;     /* per register: REF_* */
    unsigned char *leaf_of;  /* a leaf register's input (HY_LOAD_*) */
    int *leaf_index;         /* and index in it */
    unsigned char *in_array; /* read or written through r[] */
    int loop_above;          /* gathered instructions of more lanes are loops */
    int *reads;              /* per register: how often something reads it */
    int *temp_of;            /* per register: inside a fused loop, the local
                             ** w<k> of the member k that writes it (-1: none) */
} emitter;

static const char *const input_name[HY_N_LOADS] = { "y", "yp", "p", "in" };
static const char *const source_name[HY_N_SRC] = { "r", "y", "yp", "p", "in" };

/* The text that reads register reg (at most 40 characters). */
static void ref(const emitter *em, int reg, char *buf, size_t size)
{
    switch (em->kind[reg]) {
    case REF_T: snprintf(buf, size, "t"); return;
    case REF_CJ: snprintf(buf, size, "cj"); return;
    case REF_LEAF:
        snprintf(buf, size, "%s[%d]", input_name[em->leaf_of[reg]], em->leaf_index[reg]);
        return;
    case REF_CONST: {
        double value = em->prog->constants[reg];
        if (isfinite(value)) {
            snprintf(buf, size, value < 0 || signbit(value) ? "(%a)" : "%a", value);
            return;
        }
        break;               /* from the register file, where it is */
    }
    default:
        if (!em->in_array[reg]) {
            snprintf(buf, size, "v%d", reg);
            return;
        }
        break;
    }
    snprintf(buf, size, "r[%d]", reg);
}

/* One operation on operand texts a, b, c (powi: HY_OP_POWI's exponent), as
** vm.c's run_code computes it. */
static void emit_op(FILE *f, int op, int fn, const char *a, const char *b, const char *c,
                    int powi)
{
    switch (op) {
    case X_NEG: fprintf(f, "-%s", a); return;
    case X_NOT: fprintf(f, "(double)(%s == 0.0)", a); return;
    case HY_OP_SQR: fprintf(f, "%s * %s", a, a); return;
    case HY_OP_CUBE: fprintf(f, "%s * (%s * %s)", a, a, a); return;
    case X_ADD: fprintf(f, "%s + %s", a, b); return;
    case X_SUB: fprintf(f, "%s - %s", a, b); return;
    case X_MUL: fprintf(f, "%s * %s", a, b); return;
    case X_DIV: fprintf(f, "%s / %s", a, b); return;
    case X_POW: fprintf(f, "(%s == 2.0 ? %s * %s : pow(%s, %s))", b, a, a, a, b); return;
    case X_LT: fprintf(f, "(double)(%s < %s)", a, b); return;
    case X_LE: fprintf(f, "(double)(%s <= %s)", a, b); return;
    case X_GT: fprintf(f, "(double)(%s > %s)", a, b); return;
    case X_GE: fprintf(f, "(double)(%s >= %s)", a, b); return;
    case X_EQ: fprintf(f, "(double)(%s == %s)", a, b); return;
    case X_NE: fprintf(f, "(double)(%s != %s)", a, b); return;
    case X_AND: fprintf(f, "(double)(%s != 0.0 && %s != 0.0)", a, b); return;
    case X_OR: fprintf(f, "(double)(%s != 0.0 || %s != 0.0)", a, b); return;
    case HY_OP_MULADD: fprintf(f, "%s * %s + %s", a, b, c); return;
    case HY_OP_MULSUB: fprintf(f, "%s * %s - %s", a, b, c); return;
    case HY_OP_ADDMUL: fprintf(f, "%s + %s * %s", a, b, c); return;
    case HY_OP_SUBMUL: fprintf(f, "%s - %s * %s", a, b, c); return;
    case X_IF: fprintf(f, "(%s != 0.0 ? %s : %s)", a, b, c); return;
    case HY_OP_POWI: fprintf(f, "hy_powi(%s, %d)", a, powi); return;
    case X_FN1: case X_FN2: break;
    default: fprintf(f, "NAN"); return;
    }
    /* hy_function_apply (expr.c), function by function */
    switch ((hy_function)fn) {
    case FN_SIN: fprintf(f, "sin(%s)", a); return;
    case FN_COS: fprintf(f, "cos(%s)", a); return;
    case FN_TAN: fprintf(f, "tan(%s)", a); return;
    case FN_ASIN: fprintf(f, "asin(%s)", a); return;
    case FN_ACOS: fprintf(f, "acos(%s)", a); return;
    case FN_ATAN: fprintf(f, "atan(%s)", a); return;
    case FN_SINH: fprintf(f, "sinh(%s)", a); return;
    case FN_COSH: fprintf(f, "cosh(%s)", a); return;
    case FN_TANH: fprintf(f, "tanh(%s)", a); return;
    case FN_EXP: fprintf(f, "exp(%s)", a); return;
    case FN_LOG: fprintf(f, "log(%s)", a); return;
    case FN_LOG10: fprintf(f, "log10(%s)", a); return;
    case FN_SQRT: fprintf(f, "sqrt(%s)", a); return;
    case FN_ABS: fprintf(f, "fabs(%s)", a); return;
    case FN_SIGN: fprintf(f, "(%s > 0.0 ? 1.0 : %s < 0.0 ? -1.0 : 0.0)", a, a); return;
    case FN_FLOOR: case FN_INTEGER: fprintf(f, "floor(%s)", a); return;
    case FN_CEIL: fprintf(f, "ceil(%s)", a); return;
    case FN_ATAN2: fprintf(f, "atan2(%s, %s)", a, b); return;
    case FN_MIN: fprintf(f, "(%s < %s ? %s : %s)", a, b, a, b); return;
    case FN_MAX: fprintf(f, "(%s > %s ? %s : %s)", a, b, a, b); return;
    case FN_MOD: fprintf(f, "(%s - floor(%s / %s) * %s)", a, a, b, b); return;
    case FN_REM: fprintf(f, "(%s - trunc(%s / %s) * %s)", a, a, b, b); return;
    case FN_DIV: fprintf(f, "trunc(%s / %s)", a, b); return;
    default: fprintf(f, "NAN"); return;
    }
}

/* Per register: how it is read (leaves from the loads, t, cj, constants
** below the first result). */
static void classify(emitter *em)
{
    const hy_program *prog = em->prog;
    for (int r = 0; r < prog->n_regs; r++)
        em->kind[r] = r >= prog->first_result ? REF_RESULT : REF_CONST;
    em->kind[HY_REG_T] = REF_T;
    em->kind[HY_REG_CJ] = REF_CJ;
    for (int kind = 0; kind < HY_N_LOADS; kind++) {
        const hy_moves *m = &prog->loads[kind];
        for (int k = 0; k < m->n; k++) {
            int r = m->dst ? m->dst[k] : m->block_dst + k;
            em->kind[r] = REF_LEAF;
            em->leaf_of[r] = (unsigned char)kind;
            em->leaf_index[r] = m->dst ? m->src[k] : m->block_src + k;
        }
    }
}

/* The registers that loops read or write go to the register file. */
static void mark_arrays(emitter *em)
{
    const hy_program *prog = em->prog;
    const int *o = prog->operands;
    int d = prog->first_result;
    for (int i = 0; i < prog->n_instr; i++) {
        const hy_instr *in = &prog->code[i];
        int arity = hy_op_arity(in->op), n = in->count;
        if (in->strided) {
            if (o[0] == HY_DST_REGS)
                for (int j = 0; j < n; j++)
                    em->in_array[o[1] + j * o[2]] = 1;
            for (int a = 0; a < arity; a++) {
                const int *s = o + 3 + 3 * a;
                if (s[0] == HY_SRC_REGS && s[2] != 0 && !(in->op == HY_OP_POWI && a == 1))
                    for (int j = 0; j < n; j++)
                        em->in_array[s[1] + j * s[2]] = 1;
            }
            if (o[0] == HY_DST_REGS)
                d += n;
            o += 3 + 3 * arity;
            continue;
        }
        if (n > em->loop_above) {
            for (int j = 0; j < n * arity; j++)
                if (!(in->op == HY_OP_POWI && j % 2 == 1))
                    em->in_array[o[j]] = 1;
            if (i < prog->first_direct)
                for (int j = 0; j < n; j++)
                    em->in_array[d + j] = 1;
        }
        if (i < prog->first_direct)
            d += n;
        o += n * arity;
    }
    if (prog->stores.n > GATHER_LOOP)
        for (int k = 0; k < prog->stores.n; k++)
            em->in_array[prog->stores.src[k]] = 1;
}

/* How often each register is read (every lane of every operand, stores). */
static void count_reads(emitter *em)
{
    const hy_program *prog = em->prog;
    const int *o = prog->operands;
    for (int i = 0; i < prog->n_instr; i++) {
        const hy_instr *in = &prog->code[i];
        int arity = hy_op_arity(in->op), n = in->count;
        for (int a = 0; a < arity; a++) {
            if (in->op == HY_OP_POWI && a == 1)
                continue;
            if (in->strided) {
                const int *s = o + 3 + 3 * a;
                if (s[0] == HY_SRC_REGS)
                    for (int j = 0; j < n; j++)
                        em->reads[s[1] + j * s[2]]++;
            } else {
                for (int j = 0; j < n; j++)
                    em->reads[o[j * arity + a]]++;
            }
        }
        o += in->strided ? 3 + 3 * arity : n * arity;
    }
    for (int k = 0; k < prog->stores.n; k++)
        em->reads[prog->stores.src[k]]++;
}

/* The limit above which gathered instructions are loops: GATHER_LOOP, or 0
** when statements would be too many. */
static int loop_limit(const hy_program *prog)
{
    long n_statements = 0;
    for (int i = 0; i < prog->n_instr; i++) {
        const hy_instr *in = &prog->code[i];
        if (!in->strided && in->count <= GATHER_LOOP)
            n_statements += in->count;
    }
    return n_statements > MAX_STATEMENTS ? 0 : GATHER_LOOP;
}

/* Copy the leaves and t, cj that loops read into the register file. */
static void emit_loads(emitter *em)
{
    const hy_program *prog = em->prog;
    if (em->in_array[HY_REG_T])
        fprintf(em->f, "    r[%d] = t;\n", HY_REG_T);
    if (em->in_array[HY_REG_CJ])
        fprintf(em->f, "    r[%d] = cj;\n", HY_REG_CJ);
    for (int kind = 0; kind < HY_N_LOADS; kind++) {
        const hy_moves *m = &prog->loads[kind];
        int needed = 0;
        for (int k = 0; k < m->n; k++)
            needed += em->in_array[m->dst ? m->dst[k] : m->block_dst + k];
        if (needed == 0)
            continue;
        if (!m->dst) {
            fprintf(em->f, "    for (int j = 0; j < %d; j++)\n        r[%d + j] = %s[%d + j];\n",
                    m->n, m->block_dst, input_name[kind], m->block_src);
        } else if (m->n <= GATHER_LOOP) {
            for (int k = 0; k < m->n; k++)
                fprintf(em->f, "    r[%d] = %s[%d];\n", m->dst[k], input_name[kind], m->src[k]);
        } else {
            fprintf(em->f, "    for (int j = 0; j < %d; j++)\n"
                           "        r[tab[%d][j]] = %s[tab[%d][j]];\n",
                    m->n, HY_TAB_LOAD_DST + kind, input_name[kind], HY_TAB_LOAD_SRC + kind);
        }
    }
}

/* Lane j of a strided instruction (vm.c's run_strided):
** DEST[base + stride * j] = op(operands), or into the local w<k> of a
** member k of a fused loop (temp >= 0) whose every reader is in that loop
** at the same lane, its operands from such locals (in_loop). */
static void emit_lane(emitter *em, const hy_instr *in, const int *o, const char *indent,
                      int in_loop, int temp)
{
    int arity = hy_op_arity(in->op);
    char operand[3][64] = { "", "", "" };
    for (int a = 0; a < arity; a++) {
        const int *s = o + 3 + 3 * a;
        if (in->op == HY_OP_POWI && a == 1)
            continue;
        if (s[0] == HY_SRC_REGS && s[2] == 0)
            ref(em, s[1], operand[a], sizeof operand[a]);
        else if (in_loop && s[0] == HY_SRC_REGS && em->temp_of[s[1]] >= 0)
            snprintf(operand[a], sizeof operand[a], "w%d", em->temp_of[s[1]]);
        else
            snprintf(operand[a], sizeof operand[a], "%s[%d + %d * j]", source_name[s[0]], s[1],
                     s[2]);
    }
    if (temp >= 0)
        fprintf(em->f, "%sdouble w%d = ", indent, temp);
    else
        fprintf(em->f, "%s%s[%d + %d * j] = ", indent, o[0] == HY_DST_OUT ? "out" : "r", o[1],
                o[2]);
    emit_op(em->f, in->op, in->fn, operand[0], operand[1], operand[2], o[3 + 3 + 1]);
    fprintf(em->f, ";\n");
}

/* A gathered instruction of n lanes writing register d (to_out 0) or
** out[d] (to_out 1) on: a statement per lane, or a loop over its operands. */
static void emit_gathered(emitter *em, const hy_instr *in, const int *o, int d, int to_out)
{
    int arity = hy_op_arity(in->op), n = in->count;
    char operand[3][64] = { "", "", "" };
    if (n > em->loop_above) {
        /* the lanes' operand records, read from the program's own stream */
        long at = (long)(o - em->prog->operands);
        fprintf(em->f, "    for (ptrdiff_t j = 0; j < %d; j++) {\n"
                       "        const int *o = tab[%d] + %ld + %d * j;\n",
                n, HY_TAB_OPERANDS, at, arity);
        for (int a = 0; a < arity; a++)
            if (!(in->op == HY_OP_POWI && a == 1))
                snprintf(operand[a], sizeof operand[a], "r[o[%d]]", a);
        fprintf(em->f, "        %s[%d + j] = ", to_out ? "out" : "r", d);
        /* a POWI loop's exponent is each lane's: its record's second entry */
        if (in->op == HY_OP_POWI)
            fprintf(em->f, "hy_powi(%s, o[1])", operand[0]);
        else
            emit_op(em->f, in->op, in->fn, operand[0], operand[1], operand[2], 0);
        fprintf(em->f, ";\n    }\n");
        return;
    }
    for (int j = 0; j < n; j++, o += arity) {
        for (int a = 0; a < arity; a++)
            if (!(in->op == HY_OP_POWI && a == 1))
                ref(em, o[a], operand[a], sizeof operand[a]);
        if (to_out)
            fprintf(em->f, "    out[%d] = ", d + j);
        else if (em->in_array[d + j])
            fprintf(em->f, "    r[%d] = ", d + j);
        else
            fprintf(em->f, "    double v%d = ", d + j);
        emit_op(em->f, in->op, in->fn, operand[0], operand[1], operand[2],
                in->op == HY_OP_POWI ? o[1] : 0);
        fprintf(em->f, ";\n");
    }
}

/* Loop fusion: consecutive strided instructions run as one loop over
** their common lanes (then each one's remaining lanes in order), so that
** a chain's or a grid's equations are one pass over the arrays, as one
** would write them by hand. A member may join the group if each lane j
** below the common count reads only lanes j' <= j of the members before
** it (written earlier in the same pass); a member that reads nothing of
** the group (a leaf) and that a later one reads ahead of its lane is
** hoisted: it runs alone before the group's loop. A statement (a gathered
** instruction) that reads nothing of the group runs before the group's
** loop; one that does is deferred to after it, and a strided instruction
** that reads a deferred one ends the group. Each operation still computes
** what it computed alone: the results do not change. */
enum { MAX_FUSED = 64 };

typedef struct fused {
    const hy_instr *in[MAX_FUSED];
    const int *o[MAX_FUSED];
    int n_members, n_common;
    unsigned char leaf[MAX_FUSED], hoisted[MAX_FUSED];
    int *member, *lane;      /* per register: the member writing it (-1), its lane */
    unsigned char *deferred; /* per register: written by a deferred statement */
    const hy_instr **d_in;   /* the deferred statements: instruction, operands, */
    const int **d_o;         /* destination, and whether it is out[] */
    int *d_dst, *d_to_out, n_deferred;
} fused;

static void emit_gathered(emitter *em, const hy_instr *in, const int *o, int d, int to_out);

/* Hoisting member k: it no longer counts as the group's. */
static void hoist(fused *g, int k)
{
    const int *o = g->o[k];
    g->hoisted[k] = 1;
    if (o[0] == HY_DST_REGS)
        for (int j = 0; j < g->in[k]->count; j++)
            g->member[o[1] + j * o[2]] = -1;
}

/* May strided instruction in join the group? Its REGS operands checked
** lane by lane: 0 (leaf members it reads ahead of its lane hoisted) or -1. */
static int may_join(fused *g, const hy_instr *in, const int *o)
{
    if (g->n_members == MAX_FUSED)
        return -1;
    int common = g->n_members == 0 || in->count < g->n_common ? in->count : g->n_common;
    unsigned char ahead[MAX_FUSED] = { 0 };
    for (int a = 0; a < hy_op_arity(in->op); a++) {
        const int *s = o + 3 + 3 * a;
        if (s[0] != HY_SRC_REGS || (in->op == HY_OP_POWI && a == 1))
            continue;
        for (int j = 0; j < in->count; j++) {
            int reg = s[1] + j * s[2], m = g->member[reg];
            if (g->deferred[reg])
                return -1;
            if (j < common && m >= 0 && g->lane[reg] > j) {
                if (!g->leaf[m])
                    return -1;
                ahead[m] = 1;
            }
        }
    }
    for (int m = 0; m < g->n_members; m++)
        if (ahead[m])
            hoist(g, m);
    return 0;
}

static void join(fused *g, const hy_instr *in, const int *o)
{
    int k = g->n_members++;
    g->in[k] = in;
    g->o[k] = o;
    g->hoisted[k] = 0;
    g->leaf[k] = 1;
    for (int a = 0; a < hy_op_arity(in->op); a++) {
        const int *s = o + 3 + 3 * a;
        if (s[0] != HY_SRC_REGS || (in->op == HY_OP_POWI && a == 1))
            continue;
        for (int j = 0; j < in->count && g->leaf[k]; j++)
            g->leaf[k] = g->member[s[1] + j * s[2]] < 0;
    }
    if (k == 0 || in->count < g->n_common)
        g->n_common = in->count;
    if (o[0] == HY_DST_REGS)
        for (int j = 0; j < in->count; j++) {
            g->member[o[1] + j * o[2]] = k;
            g->lane[o[1] + j * o[2]] = j;
        }
}

/* Does the statement (gathered instruction) read the group or a deferred one? */
static int reads_pending(const fused *g, const hy_instr *in, const int *o)
{
    int arity = hy_op_arity(in->op);
    for (int j = 0; j < in->count * arity; j++)
        if (!(in->op == HY_OP_POWI && j % 2 == 1) && (g->member[o[j]] >= 0 || g->deferred[o[j]]))
            return 1;
    return 0;
}

static void defer(fused *g, const hy_instr *in, const int *o, int d, int to_out)
{
    int k = g->n_deferred++;
    g->d_in[k] = in;
    g->d_o[k] = o;
    g->d_dst[k] = d;
    g->d_to_out[k] = to_out;
    if (!to_out)
        for (int j = 0; j < in->count; j++)
            g->deferred[d + j] = 1;
}

/* The members of the group's loop whose results only later members read,
** at the same lane, in the loop: each one's local (temps[k] = k, else
** -1), marked in em->temp_of. The counts of such reads go to g->lane,
** free by then (the group takes no more members). */
static int *find_temps(emitter *em, fused *g)
{
    static int temps[MAX_FUSED];
    for (int k = 0; k < g->n_members; k++) {
        const int *o = g->o[k];
        if (g->hoisted[k])
            continue;
        if (o[0] == HY_DST_REGS)
            for (int j = 0; j < g->n_common; j++)
                g->lane[o[1] + j * o[2]] = 0;
        for (int a = 0; a < hy_op_arity(g->in[k]->op); a++) {
            const int *s = o + 3 + 3 * a;
            if (s[0] != HY_SRC_REGS || s[2] == 0 || (g->in[k]->op == HY_OP_POWI && a == 1))
                continue;
            for (int j = 0; j < g->n_common; j++) {
                int reg = s[1] + j * s[2], m = g->member[reg];
                /* same lane: m's lane j, which m wrote as its register j */
                if (m >= 0 && m < k && !g->hoisted[m] && g->o[m][1] + j * g->o[m][2] == reg)
                    g->lane[reg]++;
            }
        }
    }
    for (int k = 0; k < g->n_members; k++) {
        const int *o = g->o[k];
        temps[k] = -1;
        if (g->hoisted[k] || o[0] != HY_DST_REGS || g->in[k]->count != g->n_common)
            continue;
        int all_in_loop = 1;
        for (int j = 0; j < g->n_common && all_in_loop; j++)
            all_in_loop = em->reads[o[1] + j * o[2]] == g->lane[o[1] + j * o[2]];
        if (!all_in_loop)
            continue;
        temps[k] = k;
        for (int j = 0; j < g->n_common; j++)
            em->temp_of[o[1] + j * o[2]] = k;
    }
    return temps;
}

static void clear_temps(emitter *em, const fused *g, const int *temps)
{
    for (int k = 0; k < g->n_members; k++)
        if (temps[k] >= 0)
            for (int j = 0; j < g->n_common; j++)
                em->temp_of[g->o[k][1] + j * g->o[k][2]] = -1;
}

/* The hoisted members, the group's loop, each member's remaining lanes,
** the deferred statements. */
static void flush(emitter *em, fused *g)
{
    int n_looped = 0;
    for (int k = 0; k < g->n_members; k++) {
        if (!g->hoisted[k]) {
            n_looped++;
            continue;
        }
        fprintf(em->f, "    for (ptrdiff_t j = 0; j < %d; j++)\n", g->in[k]->count);
        emit_lane(em, g->in[k], g->o[k], "        ", 0, -1);
    }
    if (n_looped > 0) {
        int *temps = find_temps(em, g);
        fprintf(em->f, "    for (ptrdiff_t j = 0; j < %d; j++) {\n", g->n_common);
        for (int k = 0; k < g->n_members; k++)
            if (!g->hoisted[k])
                emit_lane(em, g->in[k], g->o[k], "        ", 1, temps[k]);
        fprintf(em->f, "    }\n");
        clear_temps(em, g, temps);
        for (int k = 0; k < g->n_members; k++)
            if (!g->hoisted[k] && g->in[k]->count > g->n_common) {
                fprintf(em->f, "    for (ptrdiff_t j = %d; j < %d; j++)\n", g->n_common,
                        g->in[k]->count);
                emit_lane(em, g->in[k], g->o[k], "        ", 0, -1);
            }
    }
    for (int k = 0; k < g->n_members; k++)
        if (!g->hoisted[k] && g->o[k][0] == HY_DST_REGS)
            for (int j = 0; j < g->in[k]->count; j++)
                g->member[g->o[k][1] + j * g->o[k][2]] = -1;
    for (int k = 0; k < g->n_deferred; k++) {
        emit_gathered(em, g->d_in[k], g->d_o[k], g->d_dst[k], g->d_to_out[k]);
        if (!g->d_to_out[k])
            for (int j = 0; j < g->d_in[k]->count; j++)
                g->deferred[g->d_dst[k] + j] = 0;
    }
    g->n_members = g->n_deferred = 0;
}

/* The instructions, as vm.c's program_exec runs them (results to the
** registers from first_result, the gathered instructions from
** first_direct on to out[direct_out...]), strided ones fused; then the
** stores. */
static void emit_instructions(emitter *em, fused *g)
{
    const hy_program *prog = em->prog;
    const int *o = prog->operands;
    int d = prog->first_result, direct = prog->direct_out;
    for (int i = 0; i < prog->n_instr; i++) {
        const hy_instr *in = &prog->code[i];
        int arity = hy_op_arity(in->op);
        if (in->strided) {
            if (may_join(g, in, o) != 0)
                flush(em, g);
            join(g, in, o);
            if (o[0] == HY_DST_REGS)
                d += in->count;
            o += 3 + 3 * arity;
            continue;
        }
        int to_out = i >= prog->first_direct, dst = to_out ? direct : d;
        if (in->count > em->loop_above) {
            flush(em, g);
            emit_gathered(em, in, o, dst, to_out);
        } else if (reads_pending(g, in, o)) {
            defer(g, in, o, dst, to_out);
        } else {
            emit_gathered(em, in, o, dst, to_out);
        }
        if (to_out)
            direct += in->count;
        else
            d += in->count;
        o += in->count * arity;
    }
    flush(em, g);
}

/* The stores: a statement each, or a loop over tables. */
static void emit_stores(emitter *em)
{
    const hy_program *prog = em->prog;
    char value[64];
    if (prog->stores.n > GATHER_LOOP) {
        fprintf(em->f, "    for (ptrdiff_t j = 0; j < %d; j++)\n"
                       "        out[tab[%d][j]] = r[tab[%d][j]];\n",
                prog->stores.n, HY_TAB_STORE_DST, HY_TAB_STORE_SRC);
        return;
    }
    for (int k = 0; k < prog->stores.n; k++) {
        ref(em, prog->stores.src[k], value, sizeof value);
        fprintf(em->f, "    out[%d] = %s;\n", prog->stores.dst[k], value);
    }
}

static int emit_body(emitter *em)
{
    size_t n_regs = (size_t)em->prog->n_regs + 1, n_instr = (size_t)em->prog->n_instr + 1;
    fused g;
    memset(&g, 0, sizeof g);
    g.member = hy_malloc(n_regs * sizeof *g.member);
    g.lane = hy_malloc(n_regs * sizeof *g.lane);
    g.deferred = hy_calloc(n_regs, 1);
    g.d_in = hy_malloc(n_instr * sizeof *g.d_in);
    g.d_o = hy_malloc(n_instr * sizeof *g.d_o);
    g.d_dst = hy_malloc(n_instr * sizeof *g.d_dst);
    g.d_to_out = hy_malloc(n_instr * sizeof *g.d_to_out);
    int ok = g.member && g.lane && g.deferred && g.d_in && g.d_o && g.d_dst && g.d_to_out;
    if (ok) {
        memset(g.member, 0xff, n_regs * sizeof *g.member); /* -1 */
        emit_instructions(em, &g);
        emit_stores(em);
    }
    hy_free(g.member);
    hy_free(g.lane);
    hy_free(g.deferred);
    hy_free(g.d_in);
    hy_free(g.d_o);
    hy_free(g.d_dst);
    hy_free(g.d_to_out);
    return ok ? 0 : -1;
}

void hy_native_emit_prelude(FILE *f)
{
    fprintf(f, "/* Generated by hydae from a compiled model: do not edit. */\n"
               "#include <math.h>\n#include <stddef.h>\n\n"
               "/* x^n for a whole n by repeated squaring, as the bytecode does it. */\n"
               "static inline double hy_powi(double x, int n)\n{\n"
               "    unsigned m = n < 0 ? (unsigned)(-n) : (unsigned)n;\n"
               "    double result = 1.0, square = x;\n"
               "    while (m) {\n        if (m & 1u)\n            result *= square;\n"
               "        m >>= 1;\n        if (m)\n            square *= square;\n    }\n"
               "    return n < 0 ? 1.0 / result : result;\n}\n");
}

/* Does the generated function use the register file? Loops and tables
** do, and constants that no literal writes (inf, nan). */
static int uses_regs(const emitter *em)
{
    for (int r = 0; r < em->prog->n_regs; r++)
        if (em->in_array[r] || (r < em->prog->first_result && !isfinite(em->prog->constants[r])))
            return 1;
    return 0;
}

static void emitter_free(emitter *em)
{
    hy_free(em->reads);
    hy_free(em->temp_of);
    hy_free(em->kind);
    hy_free(em->leaf_of);
    hy_free(em->leaf_index);
    hy_free(em->in_array);
}

int hy_native_emit_program(FILE *f, const hy_program *prog, int name, int *needs_regs)
{
    size_t n = (size_t)prog->n_regs + 1;
    emitter em = { f, prog, hy_calloc(n, 1), hy_calloc(n, 1), hy_calloc(n, sizeof(int)),
                   hy_calloc(n, 1), loop_limit(prog), hy_calloc(n, sizeof(int)),
                   hy_malloc(n * sizeof(int)) };
    if (!em.kind || !em.leaf_of || !em.leaf_index || !em.in_array || !em.reads || !em.temp_of) {
        emitter_free(&em);
        return -1;
    }
    memset(em.temp_of, 0xff, n * sizeof *em.temp_of); /* -1 */
    count_reads(&em);
    classify(&em);
    mark_arrays(&em);
    fprintf(f, "\nvoid hy_f%d(double *restrict r, double t, double cj, const double *restrict y,\n"
               "    const double *restrict yp, const double *restrict p,\n"
               "    const double *restrict in,\n"
               "    const int *const *tab, double *restrict out)\n{\n"
               "    (void)r; (void)t; (void)cj; (void)y; (void)yp; (void)p; (void)in; (void)tab;\n"
               "    (void)out;\n",
            name);
    *needs_regs = uses_regs(&em);
    emit_loads(&em);
    int status = emit_body(&em);
    fprintf(f, "}\n");
    emitter_free(&em);
    return status != 0 || ferror(f) ? -1 : 0;
}
