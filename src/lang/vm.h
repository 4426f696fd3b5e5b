/*
** The bytecode of the model-language compiler: a register machine that
** evaluates a set of expressions of the DAG (residuals, Jacobian entries,
** guards, outputs, action values). Each reachable DAG node gets one
** register, so shared subexpressions are computed once.
**
** Register layout: r[0] = t, r[1] = cj, then the leaves y, y', p and in
** (each kind either as a block mirroring a contiguous range of its input
** or as a list), then the constants (filled when the program is built),
** then the results of the operations in the order they run.
**
** Operations are scheduled by level (1 + the highest level of their
** operands) and then by opcode, and consecutive operations with the same
** opcode form one instruction run as one tight loop, so a large model
** (many equations of the same shape) runs a few dozen long loops instead
** of dispatching every node; each operation computes exactly what it
** computed alone, so the results do not depend on the order. An
** instruction's lanes are split into runs: a run of at least HY_MIN_RUN
** lanes whose destination and operand registers are each an arithmetic
** progression (as in any chain or grid of equations of one shape) is a
** strided instruction, its operands a base and a stride each (no index
** loads); the other lanes are gathered, an operand record of register
** indices each. A strided operand within a leaf block reads the input
** (y, y', p, in) in place, so a leaf register is loaded only if a gathered
** operand, a register-strided operand or a store reads it.
**
** The results go to the next registers, except the direct outputs
** (operations that are one root each and used by nothing else), which run
** last, sorted by opcode, the regions their operands come from and out
** index, so the outputs of one shape are together: strided runs of them
** write out[] directly with an out stride; the rest write out[] directly
** if their out indices are contiguous, else registers that are stored.
** Whole powers are multiplications. Running a program allocates nothing.
**
** out must not overlap the inputs (operands are read in place while
** out[] is written).
**
** A program is read-only once built: its registers live outside it, in a
** register file of the thread that runs it (vm_regs.c, hy_program_regs), filled from the
** program's constants the first time the thread runs it, so one program
** may run in many threads at once (the sims of one model on several
** threads). A register file may carry n_scratch more doubles after the
** registers, the caller's per-thread working space (eval_vm.c: a sparse
** matrix's values, a transition's inputs).
*/
#ifndef HY_LANG_VM_H
#define HY_LANG_VM_H

#include "hydae.h"
#include "lang/expr.h"

/* count operations of opcode op (and function fn), each reading
** hy_op_arity(op) operand registers from the program's operand stream. */
typedef struct hy_instr {
    unsigned char op;        /* hy_xop, or HY_OP_POWI */
    unsigned char fn;        /* X_FN1, X_FN2 */
    unsigned char strided;   /* operands by base and stride (below) */
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

/* A strided instruction's record: the destination (HY_DST_*, base,
** stride), then per operand (HY_SRC_*, base, stride); lane j reads
** source[base + j stride] and writes destination[base + j stride]
** (HY_OP_POWI: the exponent as the second operand's base). Instructions
** of at least HY_MIN_RUN lanes, each field affine in the lane, are strided. */
enum { HY_SRC_REGS, HY_SRC_Y, HY_SRC_YP, HY_SRC_P, HY_SRC_IN, HY_N_SRC };
enum { HY_DST_REGS, HY_DST_OUT };
enum { HY_MIN_RUN = 4 };
enum { HY_REG_T, HY_REG_CJ, HY_N_FIXED_REGS };

/* A program compiled to machine code by the native backend (native/,
** generated C): the same operations in the same order on the register
** file r, so the same results to the bit. The index lists it reads at run
** time (tab): the operand stream, the stores' and the list loads' indices
** (HY_TAB_*, the program's own arrays). */
enum {
    HY_TAB_OPERANDS, HY_TAB_STORE_DST, HY_TAB_STORE_SRC, HY_TAB_LOAD_DST,
    HY_TAB_LOAD_SRC = HY_TAB_LOAD_DST + HY_N_LOADS, HY_N_TABS = HY_TAB_LOAD_SRC + HY_N_LOADS
};
typedef void (*hy_native_fn)(double *r, double t, double cj, const double *y, const double *yp,
                             const double *p, const double *in, const int *const *tab,
                             double *out);

typedef struct hy_program {
    int n_instr;
    hy_instr *code;
    int *operands;           /* the operand records of the instructions in turn */
    int first_result;        /* register of the first operation's result */
    int first_direct;        /* the gathered instructions from here write out[direct_out...] */
    int direct_out;
    int n_regs;
    double *constants;       /* first_result: the initial registers below the results
                                (the constants set; the results need none) */
    int n_scratch;           /* doubles after the registers in a register file */
    unsigned long long id;   /* unique in the process: keys the threads' register files */
    hy_moves loads[HY_N_LOADS];
    hy_moves stores;
    int n_outputs;           /* highest out index + 1 */
    int n_p_used;            /* the p[] entries read, ascending */
    int *p_used;
    int n_in_used;           /* the in[] entries read, ascending */
    int *in_used;
    hy_native_fn native;     /* when set, runs instead of the bytecode */
    unsigned char native_needs_regs; /* it uses the register file */
    const int *native_tables[HY_N_TABS];
} hy_program;

/* Operand registers per operation (HY_OP_POWI: the base and the exponent). */
int hy_op_arity(int op);

/* What a program reads. Unused arrays may be NULL. */
typedef struct hy_vm_input {
    double t, cj;
    const double *y, *yp, *p, *in;
} hy_vm_input;

/* Compile out[out_index[r]] = value of roots[r], r < n_roots. NULL when
** out of memory. */
hy_program *hy_program_build(hy_expr *e, const int *roots, const int *out_index, int n_roots);
void hy_program_free(hy_program *prog);
/* The opcode node runs as (X_POW with a whole exponent: HY_OP_POWI,
** HY_OP_SQR, HY_OP_CUBE; else node.op). */
int hy_program_run_op(const hy_expr *e, hy_xnode node);

/* A program while its instructions are written (vm.c, vm_lanes.c). */
typedef struct hy_program_writer {
    hy_program *prog;
    int cap_code, cap_operands, n_operands;
} hy_program_writer;
/* Append an instruction of count operations; append n ints to the
** operand stream. 0, or -1 out of memory. */
int hy_program_begin_instr(hy_program_writer *w, int op, int fn, int strided, int count);
int hy_program_push(hy_program_writer *w, const int *v, int n);

/* A root of a program with lanes (vm_lanes.c): the node of lane 0, its
** lanes (1: one value) and the out index of each lane. */
typedef struct hy_lane_root {
    int node, lanes;
    const int *out;
} hy_lane_root;
/* Compile out[root.out[j]] = root's value in lane j, lane j reading the
** lane leaves (hy_x_lane_leaf) moved by j: the nodes of lane leaves as
** strided instructions over the lanes (a root used by nothing else writes
** out[] directly, a strided instruction per affine run of its out
** indices), the others once each; the same operations as
** hy_program_build's on the unrolled roots, so the same results to the
** bit. NULL when out of memory. */
hy_program *hy_program_build_lanes(hy_expr *e, const hy_lane_root *roots, int n_roots);
/* Run prog on this thread's register file: 0, or -1 when there is no
** memory for the file (the first run of prog on a thread allocates). */
HYDAE_NODISCARD int hy_program_run_regs(const hy_program *prog, const hy_vm_input *input,
                                        double *out);

/* A thread's register files (vm_regs.c): a direct-mapped table of
** HY_N_REGFILES keyed by program id, NULL until the thread's first run. */
typedef struct hy_regfile {
    unsigned long long program_id; /* 0: empty */
    size_t capacity;
    double *regs;
} hy_regfile;
enum { HY_N_REGFILES = 256 }; /* a power of two */
extern _Thread_local hy_regfile *hy_thread_regfiles;
/* The slot of prog in this thread's table filled for prog; NULL out of memory. */
double *hy_program_refill(const hy_program *prog);

/* This thread's register file of prog: n_regs registers, then n_scratch
** doubles (zero when the file was filled), valid until the thread runs
** another program (whose file may take its place); NULL when out of
** memory. Inline: a run pays one look-up. */
static inline double *hy_program_regs(const hy_program *prog)
{
    hy_regfile *table = hy_thread_regfiles;
    if (table) {
        hy_regfile *f = &table[prog->id & (HY_N_REGFILES - 1)];
        if (f->program_id == prog->id)
            return f->regs;
    }
    return hy_program_refill(prog);
}
/* Run prog: native code that needs no register file directly (inline: a
** small model's residual pays no extra call), else hy_program_run_regs. */
HYDAE_NODISCARD static inline int hy_program_run(const hy_program *prog,
                                                 const hy_vm_input *input, double *out)
{
    if (prog->native && !prog->native_needs_regs) {
        prog->native(NULL, input->t, input->cj, input->y, input->yp, input->p, input->in,
                     prog->native_tables, out);
        return 0;
    }
    return hy_program_run_regs(prog, input, out);
}

/* Run prog on the register file regs (from hy_program_regs). */
void hy_program_exec(const hy_program *prog, double *regs, const hy_vm_input *input, double *out);
/* A new program's id (never 0). */
unsigned long long hy_program_new_id(void);

#endif
