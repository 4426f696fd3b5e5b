/*
** The bytecode backend of the evaluation interface: each mode gets
** programs for its residual, Jacobian, guards and outputs (an explicit
** mode also for f and df/dy; a mechanical mode, instead of the residual
** and Jacobian, for M, F, Phi, Phi_q, Phi_t, gamma and C); each
** transition, and the initial action, programs for its condition and its
** action values. Actions read the names
** they use with hydae_get before any write (so every right-hand side sees
** the values before the transition) and then assign in order.
*/
#include "lang/eval.h"

#include "core/core.h"
#include "lang/vm.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { N_MECH_QUANTITIES = HY_MECH_MULTIPLIER_MATRIX + 1 };

/* A sparse matrix of DAG nodes in compressed-column order: its program
** writes the entries in that order (the values the engine's sparse
** Jacobians take, on the pattern csc), and vm_sparse_run scatters them
** into the dense column-major matrix with size_t indices, so no n * n
** index is ever formed in an int. The values are written to the scratch
** of the program's register file (vm.h): nothing here is written by a
** run, so the sims of one model may run on several threads at once. */
typedef struct vm_sparse {
    hy_program *prog;
    int n_entries, n_rows;
    int *rows, *cols;        /* of entry k, in column order */
    hy_csc csc;
    size_t dense_bytes;      /* of the whole n_rows x n_cols matrix */
} vm_sparse;

typedef struct vm_mode {
    int n;                   /* unknowns */
    hy_program *residual, *guards, *outputs;
    vm_sparse jacobian;
    hy_program *rhs;         /* explicit modes only, with rhs_jacobian */
    vm_sparse rhs_jacobian;
    /* Mechanical modes: a program per vector quantity (NULL: identically
    ** zero Phi_t) and its size, a sparse matrix per matrix quantity; each
    ** assembles y = (q, u, 0) (n_vars) at the end of its scratch. */
    int n_q, n_vars;
    hy_program *mech[N_MECH_QUANTITIES];
    int mech_size[N_MECH_QUANTITIES];
    vm_sparse mech_matrix[N_MECH_QUANTITIES];
} vm_mode;

typedef struct vm_stmt {
    int is_raise;
    const char *name;        /* borrowed from the unit's string table */
} vm_stmt;

typedef struct vm_transition {
    hy_program *condition, *action;
    int n_reads;
    const char **read_names;
    int n_globals;
    const char **global_names;
    int n_stmts;              /* scratch of both programs: in, p, the action's values */
    vm_stmt *stmts;
} vm_transition;

static void vm_sparse_free(vm_sparse *m)
{
    hy_program_free(m->prog);
    hy_free(m->rows);
    hy_free(m->cols);
    hy_free(m->csc.col_start);
    hy_free(m->csc.row);
    memset(m, 0, sizeof *m);
}

/* The pattern of entries (rows[k], cols[k]) of an n_rows x n_cols matrix
** into m, taken in the order `order` gives (NULL: k = 0, 1, ...): a
** counting sort by column, stable. The place of entry k in it (position[k],
** malloc'ed), or NULL when out of memory or when the dense matrix would
** not fit in a size_t. */
static int *vm_sparse_pattern(vm_sparse *m, const int *rows, const int *cols, const int *order,
                              int n_entries, int n_rows, int n_cols)
{
    size_t count = (size_t)(n_entries > 0 ? n_entries : 1);
    m->n_entries = n_entries;
    m->n_rows = n_rows;
    if (hy_mul3_size((size_t)n_rows, (size_t)n_cols, sizeof(double), &m->dense_bytes))
        return NULL;
    m->rows = hy_alloc_array(count, sizeof *m->rows);
    m->cols = hy_alloc_array(count, sizeof *m->cols);
    m->csc.col_start = hy_alloc_array((size_t)n_cols + 1, sizeof *m->csc.col_start);
    m->csc.row = hy_alloc_array(count, sizeof *m->csc.row);
    int *position = hy_alloc_array(count, sizeof *position);
    if (!m->rows || !m->cols || !m->csc.col_start || !m->csc.row || !position) {
        hy_free(position);
        return NULL;
    }
    int64_t *start = m->csc.col_start;
    memset(start, 0, ((size_t)n_cols + 1) * sizeof *start);
    for (int k = 0; k < n_entries; k++)
        start[cols[k] + 1]++;
    for (int j = 0; j < n_cols; j++)
        start[j + 1] += start[j];
    for (int r = 0; r < n_entries; r++) {
        int k = order ? order[r] : r;
        int at = (int)start[cols[k]]++;
        position[k] = at;
        m->rows[at] = rows[k];
        m->cols[at] = cols[k];
        m->csc.row[at] = rows[k];
    }
    for (int j = n_cols; j > 0; j--) /* moved to the next column's start: back */
        start[j] = start[j - 1];
    start[0] = 0;
    m->csc.n = n_cols;
    m->csc.nnz = n_entries;
    return position;
}

/* Entries (rows[k], cols[k]) = nodes[k] of an n_rows x n_cols matrix.
** 0, or -1 when out of memory or when the dense matrix would not fit in a
** size_t. */
static int vm_sparse_build(hy_ir *ir, vm_sparse *m, const int *nodes, const int *rows,
                           const int *cols, int n_entries, int n_rows, int n_cols)
{
    int *position = vm_sparse_pattern(m, rows, cols, NULL, n_entries, n_rows, n_cols);
    if (!position)
        return -1;
    m->prog = hy_program_build(&ir->dag, nodes, position, n_entries);
    hy_free(position);
    if (!m->prog)
        return -1;
    m->prog->n_scratch = n_entries;
    return 0;
}

static int vm_sparse_build_ir(hy_ir *ir, vm_sparse *m, const hy_ir_sparse *matrix, int n_rows,
                              int n_cols)
{
    return vm_sparse_build(ir, m, matrix->nodes, matrix->rows, matrix->cols, matrix->n, n_rows,
                           n_cols);
}

/* The dense matrix: zero, then the entries (run on regs, the program's
** register file, the values in its scratch). */
static void vm_sparse_exec(const vm_sparse *m, double *regs, const hy_vm_input *input,
                           double *dense)
{
    double *values = regs + m->prog->n_regs;
    memset(dense, 0, m->dense_bytes);
    hy_program_exec(m->prog, regs, input, values);
    /* Locals: the stores into dense may not change them (no reloads). */
    const int *rows = m->rows, *cols = m->cols;
    size_t n_rows = (size_t)m->n_rows;
    for (int k = 0, n = m->n_entries; k < n; k++)
        dense[(size_t)rows[k] + (size_t)cols[k] * n_rows] = values[k];
}

/* The same on this thread's register file: 0, or -1 out of memory. */
static int vm_sparse_run(const vm_sparse *m, const hy_vm_input *input, double *dense)
{
    double *regs = hy_program_regs(m->prog);
    if (!regs)
        return -1;
    vm_sparse_exec(m, regs, input, dense);
    return 0;
}

static void vm_free_mode(void *code)
{
    vm_mode *vm = code;
    if (!vm)
        return;
    hy_program_free(vm->residual);
    hy_program_free(vm->guards);
    hy_program_free(vm->outputs);
    hy_program_free(vm->rhs);
    vm_sparse_free(&vm->jacobian);
    vm_sparse_free(&vm->rhs_jacobian);
    for (int k = 0; k < N_MECH_QUANTITIES; k++) {
        hy_program_free(vm->mech[k]);
        vm_sparse_free(&vm->mech_matrix[k]);
    }
    hy_free(vm);
}

static int is_mech_matrix(int what)
{
    return what == HY_MECH_MASS || what == HY_MECH_CONSTRAINT_JAC
           || what == HY_MECH_MULTIPLIER_MATRIX;
}

/* The programs of a mechanical mode. 0, or -1 when out of memory. */
static int compile_mechanics(hy_ir *ir, const hy_ir_mode *mode, vm_mode *vm)
{
    const hy_ir_mechanics *mech = &mode->mech;
    int n_q = mech->n_q, n_c = mech->n_c;
    vm->n_q = n_q;
    vm->n_vars = mode->n_vars;
    int ok = vm_sparse_build_ir(ir, &vm->mech_matrix[HY_MECH_MASS], &mech->mass, n_q, n_q) == 0
             && vm_sparse_build_ir(ir, &vm->mech_matrix[HY_MECH_CONSTRAINT_JAC],
                                   &mech->constraint_jac, n_c, n_q) == 0
             && vm_sparse_build_ir(ir, &vm->mech_matrix[HY_MECH_MULTIPLIER_MATRIX],
                                   &mech->multiplier_matrix, n_q, n_c) == 0;
    vm->mech[HY_MECH_FORCE] = hy_program_build(&ir->dag, mech->force, NULL, n_q);
    vm->mech[HY_MECH_CONSTRAINT] = hy_program_build(&ir->dag, mech->constraint, NULL, n_c);
    vm->mech[HY_MECH_ACCEL_RHS] = hy_program_build(&ir->dag, mech->accel_rhs, NULL, n_c);
    if (mech->constraint_t)
        vm->mech[HY_MECH_CONSTRAINT_T] = hy_program_build(&ir->dag, mech->constraint_t, NULL, n_c);
    vm->mech_size[HY_MECH_FORCE] = n_q;
    vm->mech_size[HY_MECH_CONSTRAINT] = n_c;
    vm->mech_size[HY_MECH_CONSTRAINT_T] = n_c;
    vm->mech_size[HY_MECH_ACCEL_RHS] = n_c;
    for (int k = 0; k < N_MECH_QUANTITIES; k++)
        ok = ok && (is_mech_matrix(k) || vm->mech[k]
                    || (k == HY_MECH_CONSTRAINT_T && !mech->constraint_t));
    for (int k = 0; ok && k < N_MECH_QUANTITIES; k++) { /* room for y after their own */
        if (vm->mech[k])
            vm->mech[k]->n_scratch = mode->n_vars;
        if (vm->mech_matrix[k].prog)
            vm->mech_matrix[k].prog->n_scratch += mode->n_vars;
    }
    return ok ? 0 : -1;
}

/* Residual, Jacobian, guards and outputs (and f, df/dy if explicit). */
static int compile_equations(hy_ir *ir, const hy_ir_mode *mode, vm_mode *vm, int *roots)
{
    for (int i = 0; i < mode->n_equations; i++)
        roots[i] = mode->equations[i].residual;
    vm->residual = hy_program_build(&ir->dag, roots, NULL, mode->n_equations);
    int ok = vm->residual != NULL
             && vm_sparse_build(ir, &vm->jacobian, mode->jac_nodes, mode->jac_rows, mode->jac_cols,
                                mode->n_jac_entries, mode->n_equations, mode->n_vars) == 0;
    vm->guards = hy_program_build(&ir->dag, mode->guards, NULL, mode->n_guards);
    for (int k = 0; k < mode->n_outputs; k++)
        roots[k] = mode->outputs[k].node;
    vm->outputs = hy_program_build(&ir->dag, roots, NULL, mode->n_outputs);
    ok = ok && vm->guards && vm->outputs;
    if (ok && mode->is_explicit) {
        vm->rhs = hy_program_build(&ir->dag, mode->rhs_nodes, NULL, mode->n_vars);
        ok = vm->rhs != NULL
             && vm_sparse_build(ir, &vm->rhs_jacobian, mode->rhs_jac_nodes, mode->rhs_jac_rows,
                                mode->rhs_jac_cols, mode->n_rhs_jac_entries, mode->n_vars,
                                mode->n_vars) == 0;
    }
    return ok ? 0 : -1;
}

/* The entries of a mode with lane equations (hy_ir_lane_entry), every lane
** one entry of the matrix, as vm_sparse_build: the pattern in column order,
** the program writing each lane's value at its place. */
static int vm_sparse_build_lanes(hy_ir *ir, vm_sparse *m, const hy_ir_lane_entry *entries,
                                 int n_lane_entries, int n_rows, int n_cols)
{
    long total = 0;
    for (int k = 0; k < n_lane_entries; k++)
        total += entries[k].lanes;
    if (total > INT_MAX / 2)
        return -1;
    int n_entries = (int)total;
    int *rows = hy_alloc_array((size_t)n_entries + 1, sizeof *rows);
    int *cols = hy_alloc_array((size_t)n_entries + 1, sizeof *cols);
    hy_lane_root *roots = hy_alloc_array((size_t)n_lane_entries + 1, sizeof *roots);
    int status = rows && cols && roots ? 0 : -1;
    for (int k = 0, t = 0; k < n_lane_entries && status == 0; k++)
        for (int j = 0; j < entries[k].lanes; j++, t++) {
            rows[t] = entries[k].row + j * entries[k].row_stride;
            cols[t] = entries[k].col + j * entries[k].col_moves;
        }
    /* by row (a counting sort), then by column: the unrolled entries'
    ** order, rows ascending in each column */
    int *by_row = status == 0 ? hy_alloc_array((size_t)n_entries + 1, sizeof *by_row) : NULL;
    int *row_start = status == 0 ? hy_calloc((size_t)n_rows + 1, sizeof *row_start) : NULL;
    int *position = NULL;
    if (by_row && row_start) {
        for (int k = 0; k < n_entries; k++)
            row_start[rows[k] + 1]++;
        for (int i = 0; i < n_rows; i++)
            row_start[i + 1] += row_start[i];
        for (int k = 0; k < n_entries; k++)
            by_row[row_start[rows[k]]++] = k;
        position = vm_sparse_pattern(m, rows, cols, by_row, n_entries, n_rows, n_cols);
    }
    status = position ? 0 : -1;
    for (int k = 0, t = 0; k < n_lane_entries && status == 0; t += entries[k].lanes, k++) {
        roots[k].node = entries[k].node;
        roots[k].lanes = entries[k].lanes;
        roots[k].out = position + t;
    }
    if (status == 0)
        m->prog = hy_program_build_lanes(&ir->dag, roots, n_lane_entries);
    if (status == 0 && !m->prog)
        status = -1;
    if (status == 0)
        m->prog->n_scratch = n_entries;
    hy_free(rows);
    hy_free(cols);
    hy_free(roots);
    hy_free(position);
    hy_free(by_row);
    hy_free(row_start);
    return status;
}

/* The residual (of_rhs 0: by row) or f (1: by state) of a mode with lane
** equations. */
static hy_program *lanes_program(hy_ir *ir, const hy_ir_mode *mode, int of_rhs)
{
    int n_out = of_rhs ? mode->n_vars : mode->n_rows;
    int *out = hy_alloc_array((size_t)n_out + 1, sizeof *out);
    hy_lane_root *roots = hy_alloc_array((size_t)mode->n_equations + 1, sizeof *roots);
    hy_program *prog = NULL;
    if (out && roots) {
        int t = 0;
        for (int i = 0; i < mode->n_equations; i++) {
            const hy_ir_equation *eq = &mode->equations[i];
            roots[i].node = of_rhs ? eq->explicit_rhs : eq->residual;
            roots[i].lanes = eq->lanes;
            roots[i].out = out + t;
            for (int j = 0; j < eq->lanes; j++)
                out[t++] = of_rhs ? eq->explicit_state + j : eq->row + j * eq->row_stride;
        }
        prog = hy_program_build_lanes(&ir->dag, roots, mode->n_equations);
    }
    hy_free(out);
    hy_free(roots);
    return prog;
}

/* The programs of a mode with lane equations (f and df/dy if explicit). */
static int compile_lanes(hy_ir *ir, const hy_ir_mode *mode, vm_mode *vm, int *roots)
{
    vm->residual = lanes_program(ir, mode, 0);
    vm->guards = hy_program_build(&ir->dag, mode->guards, NULL, mode->n_guards);
    for (int k = 0; k < mode->n_outputs; k++)
        roots[k] = mode->outputs[k].node;
    vm->outputs = hy_program_build(&ir->dag, roots, NULL, mode->n_outputs);
    int ok = vm->residual && vm->guards && vm->outputs
             && vm_sparse_build_lanes(ir, &vm->jacobian, mode->lane_jac, mode->n_lane_jac,
                                      mode->n_rows, mode->n_vars) == 0;
    if (ok && mode->is_explicit) {
        vm->rhs = lanes_program(ir, mode, 1);
        ok = vm->rhs
             && vm_sparse_build_lanes(ir, &vm->rhs_jacobian, mode->lane_rhs_jac,
                                      mode->n_lane_rhs_jac, mode->n_vars, mode->n_vars) == 0;
    }
    return ok ? 0 : -1;
}

static void *vm_compile_mode(hy_ir *ir, int m)
{
    const hy_ir_mode *mode = &ir->modes[m];
    vm_mode *vm = hy_calloc(1, sizeof *vm);
    if (!vm)
        return NULL;
    vm->n = mode->n_vars;
    int n_roots = mode->n_equations > mode->n_outputs ? mode->n_equations : mode->n_outputs;
    int *roots = hy_malloc(sizeof *roots * ((size_t)n_roots + 1));
    int ok = roots != NULL;
    if (ok && mode->is_mechanical) {
        /* No residual: the matrices, then guards and outputs below. */
        ok = compile_mechanics(ir, mode, vm) == 0;
        vm->guards = ok ? hy_program_build(&ir->dag, mode->guards, NULL, mode->n_guards) : NULL;
        for (int k = 0; ok && k < mode->n_outputs; k++)
            roots[k] = mode->outputs[k].node;
        vm->outputs = ok ? hy_program_build(&ir->dag, roots, NULL, mode->n_outputs) : NULL;
        ok = ok && vm->guards && vm->outputs;
    } else if (ok && mode->n_lane_equations > 0) {
        ok = compile_lanes(ir, mode, vm, roots) == 0;
    } else if (ok) {
        ok = compile_equations(ir, mode, vm, roots) == 0;
    }
    hy_free(roots);
    if (!ok) {
        vm_free_mode(vm);
        return NULL;
    }
    return vm;
}

static void vm_free_transition(void *code)
{
    vm_transition *vt = code;
    if (!vt)
        return;
    hy_program_free(vt->condition);
    hy_program_free(vt->action);
    hy_free(vt->read_names);
    hy_free(vt->global_names);
    hy_free(vt->stmts);
    hy_free(vt);
}

static void *vm_compile_transition(hy_ir *ir, const hy_ir_transition *tr)
{
    vm_transition *vt = hy_calloc(1, sizeof *vt);
    if (!vt)
        return NULL;
    vt->n_reads = tr->n_reads;
    vt->n_globals = ir->n_globals;
    vt->n_stmts = tr->n_stmts;
    vt->read_names = hy_malloc(sizeof *vt->read_names * (size_t)(tr->n_reads + 1));
    vt->global_names = hy_malloc(sizeof *vt->global_names * (size_t)(ir->n_globals + 1));
    vt->stmts = hy_calloc((size_t)tr->n_stmts + 1, sizeof *vt->stmts);
    int *roots = hy_malloc(sizeof *roots * (size_t)(tr->n_stmts + 1));
    int ok = vt->read_names && vt->global_names && vt->stmts && roots;
    if (ok) {
        for (int k = 0; k < tr->n_reads; k++)
            vt->read_names[k] = hy_strtab_get(ir->strings, tr->reads[k]);
        for (int k = 0; k < ir->n_globals; k++)
            vt->global_names[k] = hy_strtab_get(ir->strings, ir->globals[k].name);
        for (int k = 0; k < tr->n_stmts; k++) {
            vt->stmts[k].is_raise = tr->stmts[k].is_raise;
            vt->stmts[k].name = hy_strtab_get(ir->strings, tr->stmts[k].target);
            roots[k] = tr->stmts[k].is_raise ? -1 : tr->stmts[k].value;
        }
        vt->action = hy_program_build(&ir->dag, roots, NULL, tr->n_stmts);
        ok = vt->action != NULL;
        if (ok)
            vt->action->n_scratch = tr->n_reads + ir->n_globals + tr->n_stmts;
        if (ok && tr->condition >= 0) {
            vt->condition = hy_program_build(&ir->dag, &tr->condition, NULL, 1);
            ok = vt->condition != NULL;
            if (ok)
                vt->condition->n_scratch = tr->n_reads + ir->n_globals;
        }
    }
    hy_free(roots);
    if (!ok) {
        vm_free_transition(vt);
        return NULL;
    }
    return vt;
}

static int vm_residual(void *code, double t, const double *y, const double *yp, const double *p,
                       double *res)
{
    const vm_mode *vm = code;
    hy_vm_input input = { t, 0.0, y, yp, p, NULL };
    return hy_program_run(vm->residual, &input, res);
}

static int vm_jacobian(void *code, double t, double cj, const double *y, const double *yp,
                       const double *p, double *jac)
{
    const vm_mode *vm = code;
    hy_vm_input input = { t, cj, y, yp, p, NULL };
    return vm_sparse_run(&vm->jacobian, &input, jac);
}

static int vm_sparse_jacobian(void *code, double t, double cj, const double *y,
                              const double *yp, const double *p, double *values)
{
    const vm_mode *vm = code;
    hy_vm_input input = { t, cj, y, yp, p, NULL };
    return hy_program_run(vm->jacobian.prog, &input, values);
}

static int vm_rhs_sparse_jacobian(void *code, double t, const double *y, const double *p,
                                  double *values)
{
    const vm_mode *vm = code;
    hy_vm_input input = { t, 0.0, y, NULL, p, NULL };
    return hy_program_run(vm->rhs_jacobian.prog, &input, values);
}

static const hy_csc *vm_jacobian_pattern(void *code, int of_rhs)
{
    const vm_mode *vm = code;
    return of_rhs ? &vm->rhs_jacobian.csc : &vm->jacobian.csc;
}

static int vm_rhs(void *code, double t, const double *y, const double *p, double *ydot)
{
    const vm_mode *vm = code;
    hy_vm_input input = { t, 0.0, y, NULL, p, NULL };
    return hy_program_run(vm->rhs, &input, ydot);
}

static int vm_rhs_jacobian(void *code, double t, const double *y, const double *p, double *jac)
{
    const vm_mode *vm = code;
    hy_vm_input input = { t, 0.0, y, NULL, p, NULL };
    return vm_sparse_run(&vm->rhs_jacobian, &input, jac);
}

static int vm_guards(void *code, double t, const double *y, const double *yp, const double *p,
                     double *g)
{
    const vm_mode *vm = code;
    hy_vm_input input = { t, 0.0, y, yp, p, NULL };
    return hy_program_run(vm->guards, &input, g);
}

static int vm_outputs(void *code, double t, const double *y, const double *yp, const double *p,
                      double *out)
{
    const vm_mode *vm = code;
    hy_vm_input input = { t, 0.0, y, yp, p, NULL };
    return hy_program_run(vm->outputs, &input, out);
}

static int vm_mechanics(void *code, hy_mech_quantity what, double t, const double *q,
                        const double *u, const double *p, double *out)
{
    const vm_mode *vm = code;
    if ((int)what < 0 || (int)what >= (int)N_MECH_QUANTITIES)
        return -1;
    const hy_program *prog = is_mech_matrix(what) ? vm->mech_matrix[what].prog : vm->mech[what];
    if (!prog) {
        memset(out, 0, sizeof *out * (size_t)vm->mech_size[what]);
        return 0;
    }
    double *regs = hy_program_regs(prog);
    if (!regs)
        return -1;
    /* y = (q, u, 0) at the end of the scratch: the multipliers occur in
    ** none of these (the zeros are the file's, never written). */
    double *y = regs + prog->n_regs + prog->n_scratch - vm->n_vars;
    memcpy(y, q, sizeof *q * (size_t)vm->n_q);
    if (u)
        memcpy(y + vm->n_q, u, sizeof *u * (size_t)vm->n_q);
    hy_vm_input input = { t, 0.0, y, NULL, p, NULL };
    if (is_mech_matrix(what))
        vm_sparse_exec(&vm->mech_matrix[what], regs, &input, out);
    else
        hy_program_exec(prog, regs, &input, out);
    return 0;
}

/* What a transition's program needs in its scratch: in, then p, then (an
** action's) the values assigned. */
typedef struct vm_transition_work {
    double *regs, *in, *p, *values;
} vm_transition_work;

/* Read what program prog uses by name into this thread's file of prog.
** 0, or -1 out of memory. */
static int fetch(const vm_transition *vt, const hy_program *prog, const hydae_action *a,
                 vm_transition_work *w)
{
    w->regs = hy_program_regs(prog);
    if (!w->regs)
        return -1;
    w->in = w->regs + prog->n_regs;
    w->p = w->in + vt->n_reads;
    w->values = w->p + vt->n_globals;
    for (int k = 0; k < prog->n_in_used; k++)
        w->in[prog->in_used[k]] = hydae_get(a, vt->read_names[prog->in_used[k]]);
    for (int k = 0; k < prog->n_p_used; k++)
        w->p[prog->p_used[k]] = hydae_get(a, vt->global_names[prog->p_used[k]]);
    return 0;
}

static int vm_condition(void *code, const hydae_action *a)
{
    const vm_transition *vt = code;
    vm_transition_work w;
    if (!vt->condition)
        return 1;
    if (fetch(vt, vt->condition, a, &w))
        return 0; /* out of memory: the condition cannot hold */
    hy_vm_input input = { hydae_action_time(a), 0.0, NULL, NULL, w.p, w.in };
    double holds = 0.0;
    hy_program_exec(vt->condition, w.regs, &input, &holds);
    return holds != 0.0;
}

static int vm_action(void *code, hydae_action *a)
{
    const vm_transition *vt = code;
    vm_transition_work w;
    if (fetch(vt, vt->action, a, &w))
        return HYDAE_ERR_NOMEM;
    hy_vm_input input = { hydae_action_time(a), 0.0, NULL, NULL, w.p, w.in };
    hy_program_exec(vt->action, w.regs, &input, w.values);
    int status = 0;
    for (int k = 0; k < vt->n_stmts && status == 0; k++)
        status = vt->stmts[k].is_raise ? hydae_raise(a, vt->stmts[k].name)
                                       : hydae_set(a, vt->stmts[k].name, w.values[k]);
    return status;
}

void hy_eval_vm_mode_programs(void *code, hy_program_visitor visit, void *ctx)
{
    vm_mode *vm = code;
    hy_program *const programs[] = { vm->residual, vm->jacobian.prog, vm->guards, vm->outputs,
                                     vm->rhs, vm->rhs_jacobian.prog };
    for (size_t k = 0; k < sizeof programs / sizeof *programs; k++)
        if (programs[k])
            visit(programs[k], ctx);
    for (int k = 0; k < N_MECH_QUANTITIES; k++) {
        if (vm->mech[k])
            visit(vm->mech[k], ctx);
        if (vm->mech_matrix[k].prog)
            visit(vm->mech_matrix[k].prog, ctx);
    }
}

void hy_eval_vm_transition_programs(void *code, hy_program_visitor visit, void *ctx)
{
    vm_transition *vt = code;
    if (vt->condition)
        visit(vt->condition, ctx);
    if (vt->action)
        visit(vt->action, ctx);
}

const hy_eval_ops hy_eval_vm = {
    "bytecode",
    vm_compile_mode, vm_compile_transition, vm_free_mode, vm_free_transition,
    vm_residual, vm_jacobian, vm_rhs, vm_rhs_jacobian, vm_guards, vm_outputs, vm_mechanics,
    vm_condition, vm_action, vm_sparse_jacobian, vm_rhs_sparse_jacobian, vm_jacobian_pattern,
};
