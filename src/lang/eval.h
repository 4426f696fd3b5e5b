/*
** The evaluation interface between the compiled model and the engine: a
** backend turns a mode or a transition of the IR into "code" and runs it
** behind the function pointers below. The bytecode VM (eval_vm.c) is the
** backend today; a native backend (generated C, compiled and loaded) can
** implement the same table later without touching the rest of src/lang.
*/
#ifndef HY_LANG_EVAL_H
#define HY_LANG_EVAL_H

#include "hydae.h"
#include "lang/sema.h"

/* The quantities of a mechanical mode (hy_ir_mode.is_mechanical), as
** hydae_mechanics takes them: M (n_q x n_q), F (n_q), Phi (n_c), Phi_q
** (n_c x n_q), Phi_t (n_c), gamma (n_c), C (n_q x n_c); matrices
** column-major. */
typedef enum hy_mech_quantity {
    HY_MECH_MASS, HY_MECH_FORCE, HY_MECH_CONSTRAINT, HY_MECH_CONSTRAINT_JAC,
    HY_MECH_CONSTRAINT_T, HY_MECH_ACCEL_RHS, HY_MECH_MULTIPLIER_MATRIX
} hy_mech_quantity;

/* A Jacobian's pattern in compressed sparse columns (the order in which
** the sparse Jacobians below write their values). */
typedef struct hy_csc {
    int n, nnz;
    int64_t *col_start;      /* n + 1 */
    int64_t *row;            /* nnz */
} hy_csc;

typedef struct hy_eval_ops {
    const char *name;
    /* Code for mode m / a transition (or the initial action) of the IR;
    ** NULL when out of memory. */
    void *(*compile_mode)(hy_ir *ir, int m);
    void *(*compile_transition)(hy_ir *ir, const hy_ir_transition *tr);
    void (*free_mode)(void *code);
    void (*free_transition)(void *code);
    /* The hydae callbacks, with the code in place of `user`. */
    int (*residual)(void *code, double t, const double *y, const double *yp, const double *p,
                    double *res);
    int (*jacobian)(void *code, double t, double cj, const double *y, const double *yp,
                    const double *p, double *jac);
    /* Explicit modes (hy_ir_mode.is_explicit): ydot = f(t, y, p) and df/dy
    ** (column-major n x n). */
    int (*rhs)(void *code, double t, const double *y, const double *p, double *ydot);
    int (*rhs_jacobian)(void *code, double t, const double *y, const double *p, double *jac);
    int (*guards)(void *code, double t, const double *y, const double *yp, const double *p,
                  double *g);
    int (*outputs)(void *code, double t, const double *y, const double *yp, const double *p,
                   double *out);
    /* Mechanical modes: one quantity at (t, q, u) (u NULL for those of
    ** (q, t) only). */
    int (*mechanics)(void *code, hy_mech_quantity what, double t, const double *q,
                     const double *u, const double *p, double *out);
    int (*condition)(void *code, const hydae_action *a);
    int (*action)(void *code, hydae_action *a);
    /* The Jacobians' values in the order of their pattern (jacobian_pattern
    ** with of_rhs 0 for dF/dy + cj dF/dy', 1 for an explicit mode's df/dy):
    ** what the engine uses; the dense forms above serve checks. */
    int (*sparse_jacobian)(void *code, double t, double cj, const double *y, const double *yp,
                           const double *p, double *values);
    int (*rhs_sparse_jacobian)(void *code, double t, const double *y, const double *p,
                               double *values);
    const hy_csc *(*jacobian_pattern)(void *code, int of_rhs);
} hy_eval_ops;

extern const hy_eval_ops hy_eval_vm;

/* Every program of a mode's or a transition's bytecode (hy_eval_vm's code),
** in a fixed order, for the native backend to compile. */
struct hy_program;
typedef void (*hy_program_visitor)(struct hy_program *prog, void *ctx);
void hy_eval_vm_mode_programs(void *code, hy_program_visitor visit, void *ctx);
void hy_eval_vm_transition_programs(void *code, hy_program_visitor visit, void *ctx);

#endif
