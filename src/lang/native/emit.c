/*
** The native backend's code generator: a compiled program (vm.h) as one C
** function that does what hy_program_exec does, instruction by
** instruction, in the same order, with the same C operations and the same
** libm calls, so that compiled without contraction (-ffp-contract=off)
** it gives the same results to the bit.
**
** A strided instruction stays a loop (an array equation stays a loop); a
** gathered instruction of at most GATHER_LOOP lanes becomes one statement
** per lane, a longer one a loop over a static table of its operand
** registers (code of the size of the bytecode, compiled fast). Registers
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
** than GATHER_LOOP run as loops over tables. */
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
    int n_tables;
    int loop_above;          /* gathered instructions of more lanes are loops */
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

/* The limit above which gathered instructions are loops: GATHER_LOOP, or 0
** when statements would be too many. */
static int loop_limit(const hy_program *prog)
{
    const int *o = prog->operands;
    long n_statements = 0;
    for (int i = 0; i < prog->n_instr; i++) {
        const hy_instr *in = &prog->code[i];
        int arity = hy_op_arity(in->op);
        if (in->strided) {
            o += 3 + 3 * arity;
            continue;
        }
        if (in->count <= GATHER_LOOP)
            n_statements += in->count;
        o += in->count * arity;
    }
    return n_statements > MAX_STATEMENTS ? 0 : GATHER_LOOP;
}

/* The decimal digits of v at p; returns the end. */
static char *put_int(char *p, int v)
{
    char digits[12];
    unsigned u = v < 0 ? 0u - (unsigned)v : (unsigned)v;
    int n = 0;
    do {
        digits[n++] = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    if (v < 0)
        *p++ = '-';
    while (n)
        *p++ = digits[--n];
    return p;
}

/* int hy_t<k>[] = { v... } (a static table), returning k. The numbers
** are formatted here, 16 a line: a big model's tables are most of its
** text, and a cached run generates it again to find the cache entry. */
static int emit_table(emitter *em, const int *v, int n)
{
    int k = em->n_tables++;
    fprintf(em->f, "    static const int hy_t%d[%d] = {", k, n > 0 ? n : 1);
    char line[16 * 13 + 16];
    for (int j = 0; j < n; j += 16) {
        char *p = line;
        memcpy(p, "\n        ", 9);
        p += 9;
        for (int i = j; i < n && i < j + 16; i++) {
            p = put_int(p, v[i]);
            if (i + 1 < n) {
                *p++ = ',';
                if (i + 1 < j + 16)
                    *p++ = ' ';
            }
        }
        fwrite(line, 1, (size_t)(p - line), em->f);
    }
    fprintf(em->f, "%s};\n", n > 0 ? "\n    " : "0");
    return k;
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
            fprintf(em->f, "    {\n");
            int dst = emit_table(em, m->dst, m->n), src = emit_table(em, m->src, m->n);
            fprintf(em->f, "    for (int j = 0; j < %d; j++)\n        r[hy_t%d[j]] = %s[hy_t%d[j]];\n"
                    "    }\n", m->n, dst, input_name[kind], src);
        }
    }
}

/* A strided instruction: the loop of vm.c's run_strided. */
static void emit_strided(emitter *em, const hy_instr *in, const int *o)
{
    int arity = hy_op_arity(in->op);
    char operand[3][64] = { "", "", "" };
    for (int a = 0; a < arity; a++) {
        const int *s = o + 3 + 3 * a;
        if (in->op == HY_OP_POWI && a == 1)
            continue;
        if (s[0] == HY_SRC_REGS && s[2] == 0)
            ref(em, s[1], operand[a], sizeof operand[a]);
        else
            snprintf(operand[a], sizeof operand[a], "%s[%d + %d * j]", source_name[s[0]], s[1],
                     s[2]);
    }
    fprintf(em->f, "    for (ptrdiff_t j = 0; j < %d; j++)\n        %s[%d + %d * j] = ", in->count,
            o[0] == HY_DST_OUT ? "out" : "r", o[1], o[2]);
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
        fprintf(em->f, "    {\n");
        int table = emit_table(em, o, n * arity);
        fprintf(em->f, "    for (ptrdiff_t j = 0; j < %d; j++) {\n", n);
        for (int a = 0; a < arity; a++)
            if (!(in->op == HY_OP_POWI && a == 1))
                snprintf(operand[a], sizeof operand[a], "r[hy_t%d[%d * j + %d]]", table, arity, a);
        fprintf(em->f, "        %s[%d + j] = ", to_out ? "out" : "r", d);
        /* a POWI loop's exponent is each lane's: the table's second entry */
        if (in->op == HY_OP_POWI)
            fprintf(em->f, "hy_powi(%s, hy_t%d[2 * j + 1])", operand[0], table);
        else
            emit_op(em->f, in->op, in->fn, operand[0], operand[1], operand[2], 0);
        fprintf(em->f, ";\n    }\n    }\n");
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

/* The instructions in order, as vm.c's program_exec runs them: results to
** the registers from first_result, the gathered instructions from
** first_direct on to out[direct_out...]; then the stores. */
static void emit_body(emitter *em)
{
    const hy_program *prog = em->prog;
    const int *o = prog->operands;
    int d = prog->first_result, direct = prog->direct_out;
    for (int i = 0; i < prog->n_instr; i++) {
        const hy_instr *in = &prog->code[i];
        int arity = hy_op_arity(in->op);
        if (in->strided) {
            emit_strided(em, in, o);
            if (o[0] == HY_DST_REGS)
                d += in->count;
            o += 3 + 3 * arity;
            continue;
        }
        if (i < prog->first_direct) {
            emit_gathered(em, in, o, d, 0);
            d += in->count;
        } else {
            emit_gathered(em, in, o, direct, 1);
            direct += in->count;
        }
        o += in->count * arity;
    }
    char value[64];
    if (prog->stores.n > GATHER_LOOP) {
        fprintf(em->f, "    {\n");
        int dst = emit_table(em, prog->stores.dst, prog->stores.n);
        int src = emit_table(em, prog->stores.src, prog->stores.n);
        fprintf(em->f, "    for (ptrdiff_t j = 0; j < %d; j++)\n        out[hy_t%d[j]] = r[hy_t%d[j]];\n"
                "    }\n", prog->stores.n, dst, src);
        return;
    }
    for (int k = 0; k < prog->stores.n; k++) {
        ref(em, prog->stores.src[k], value, sizeof value);
        fprintf(em->f, "    out[%d] = %s;\n", prog->stores.dst[k], value);
    }
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

int hy_native_emit_program(FILE *f, const hy_program *prog, int name)
{
    size_t n = (size_t)prog->n_regs + 1;
    emitter em = { f, prog, hy_calloc(n, 1), hy_calloc(n, 1),
                   hy_calloc(n, sizeof(int)), hy_calloc(n, 1), 0, GATHER_LOOP };
    if (!em.kind || !em.leaf_of || !em.leaf_index || !em.in_array) {
        hy_free(em.kind);
        hy_free(em.leaf_of);
        hy_free(em.leaf_index);
        hy_free(em.in_array);
        return -1;
    }
    em.loop_above = loop_limit(prog);
    classify(&em);
    mark_arrays(&em);
    fprintf(f, "\nvoid hy_f%d(double *restrict r, double t, double cj, const double *restrict y,\n"
               "    const double *restrict yp, const double *restrict p, const double *restrict in,\n"
               "    double *restrict out)\n{\n"
               "    (void)r; (void)t; (void)cj; (void)y; (void)yp; (void)p; (void)in; (void)out;\n",
            name);
    emit_loads(&em);
    emit_body(&em);
    fprintf(f, "}\n");
    hy_free(em.kind);
    hy_free(em.leaf_of);
    hy_free(em.leaf_index);
    hy_free(em.in_array);
    return ferror(f) ? -1 : 0;
}
