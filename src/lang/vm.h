/*
** The bytecode of the model-language compiler: a register machine that
** evaluates a set of expressions of the DAG (residuals, Jacobian entries,
** guards, outputs, action values). Each reachable DAG node gets one
** register, so shared subexpressions are computed once.
**
** Register layout: r[0] = t, r[1] = cj, then the leaves y, y', p and in
** (each kind either as a block mirroring a contiguous range of its input,
** filled by one memcpy, or as a list filled by an indexed copy), then the
** constants (filled when the program is built), then the results of the
** operations in the order they run.
**
** Operations are scheduled by level (1 + the highest level of their
** operands) and then by opcode, and consecutive operations with the same
** opcode form one instruction: an opcode, a count and count operand
** records, run as one tight loop. A large model (many equations of the
** same shape) thus runs a few dozen long loops instead of dispatching
** every node; each operation computes exactly what it computed alone, so
** the results do not depend on the order. The destination register is
** implicit (the next result register). Whole powers are multiplications.
** Running a program allocates nothing.
**
** A program owns its registers: one program must not run in two threads
** at once.
*/
#ifndef HY_LANG_VM_H
#define HY_LANG_VM_H

#include "lang/expr.h"

/* count operations of opcode op (and function fn), each reading
** hy_op_arity(op) operand registers from the program's operand stream. */
typedef struct hy_instr {
    unsigned char op;        /* hy_xop, or HY_OP_POWI */
    unsigned char fn;        /* X_FN1, X_FN2 */
    int count;
} hy_instr;

/* regs[a] ^ b for a whole exponent b, |b| <= HY_POWI_MAX, by repeated
** squaring (x^3 is x*x*x, not pow(x, 3)); the operand record is (a, b). */
enum { HY_OP_POWI = 254, HY_POWI_MAX = 64 };

/* Superinstructions (operand record (a, b, c)): a*b + c, a*b - c,
** a + b*c, a - b*c, each a multiplication used once fused into its user,
** rounded as the two operations apart (no fused multiply-add); and the
** whole powers x^2 = x*x, x^3 = x*(x*x) (operand record (a)). */
enum {
    HY_OP_MULADD = 240, HY_OP_MULSUB, HY_OP_ADDMUL, HY_OP_SUBMUL, HY_OP_SQR, HY_OP_CUBE
};

/* The loads of one kind of leaf (y, y', p, in): either a block,
** regs[block_dst + k] = source[block_src + k] for k < n (dst == NULL), or
** a list, regs[dst[k]] = source[src[k]]. The stores are a list,
** out[dst[k]] = regs[src[k]]. */
typedef struct hy_moves {
    int n;
    int *dst, *src;
    int block_dst, block_src;
} hy_moves;

enum { HY_LOAD_Y, HY_LOAD_YP, HY_LOAD_P, HY_LOAD_IN, HY_N_LOADS };
enum { HY_REG_T, HY_REG_CJ, HY_N_FIXED_REGS };

typedef struct hy_program {
    int n_instr;
    hy_instr *code;
    int *operands;           /* the operand records of the instructions in turn */
    int first_result;        /* register of the first operation's result */
    int first_direct;        /* the instructions from here write out[direct_out...] */
    int direct_out;
    int n_regs;
    double *regs;
    hy_moves loads[HY_N_LOADS];
    hy_moves stores;
    int n_outputs;           /* highest out index + 1 */
    int n_p_used;            /* the p[] entries read, ascending */
    int *p_used;
    int n_in_used;           /* the in[] entries read, ascending */
    int *in_used;
} hy_program;

/* What a program reads. Unused arrays may be NULL. */
typedef struct hy_vm_input {
    double t, cj;
    const double *y, *yp, *p, *in;
} hy_vm_input;

/* Compile out[out_index[r]] = value of roots[r], r < n_roots. NULL when
** out of memory. */
hy_program *hy_program_build(hy_expr *e, const int *roots, const int *out_index, int n_roots);
void hy_program_free(hy_program *prog);
void hy_program_run(hy_program *prog, const hy_vm_input *input, double *out);

#endif
