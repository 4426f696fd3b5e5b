/*
** The bytecode of the model-language compiler: a register machine that
** evaluates a set of expressions of the DAG (residuals, Jacobian entries,
** guards, outputs, action values). Each reachable DAG node becomes one
** instruction writing its own register, in index order, so shared
** subexpressions are computed once; constants sit in registers filled when
** the program is built. The leaves y, y', p and in are loaded, and the
** results stored, by plain copy loops around the dispatched instructions;
** whole powers are multiplications. Running a program allocates nothing.
**
** A program owns its registers: one program must not run in two threads
** at once.
*/
#ifndef HY_LANG_VM_H
#define HY_LANG_VM_H

#include "lang/expr.h"

typedef struct hy_instr {
    unsigned char op;        /* hy_xop, or HY_OP_POWI */
    unsigned char fn;        /* X_FN1, X_FN2 */
    int dst, a, b, c;        /* registers; leaves: a = index into the input */
} hy_instr;

/* regs[a] ^ b for a whole exponent b, |b| <= HY_POWI_MAX, by repeated
** squaring (x^3 is x*x*x, not pow(x, 3)). */
enum { HY_OP_POWI = 254, HY_POWI_MAX = 64 };

/* regs[dst[k]] = source[src[k]], k < n: the loads of one kind of leaf (y,
** y', p, in) and the stores out[dst[k]] = regs[src[k]], run as plain
** loops around the instructions. */
typedef struct hy_moves {
    int n;
    int *dst, *src;
} hy_moves;

enum { HY_LOAD_Y, HY_LOAD_YP, HY_LOAD_P, HY_LOAD_IN, HY_N_LOADS };

typedef struct hy_program {
    int n_instr;
    hy_instr *code;
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
