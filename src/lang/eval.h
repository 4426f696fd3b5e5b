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
    int (*condition)(void *code, const hydae_action *a);
    int (*action)(void *code, hydae_action *a);
} hy_eval_ops;

extern const hy_eval_ops hy_eval_vm;

#endif
