/*
** RADAU's state (radau.c: the method; radau_matrices.c: J_y, J_yp and the
** factored E1, E2..). Internal to the two files.
*/
#ifndef HY_RADAU_IMPL_H
#define HY_RADAU_IMPL_H

#include "integrators/common.h"
#include "integrators/itmat.h"
#include "integrators/radau_coef.h"
#include "linalg/zlinsol.h"

#define RADAU_N_METHODS 3               /* s = 3, 5, 7 */

typedef struct radau_mem {
    hy_mem_head head;           /* first: statistics, worst component */
    int n;
    int initialized;

    /* Problem and options, copied at init(). */
    hy_dae dae;
    double *rtol, *atol;        /* per component */
    unsigned char *in_err_test;
    double h_user, h0_max, h_min, h_max;
    int max_newton_iters;
    void (*newton_debug)(void *debug_ctx, const hy_newton_info *info);
    void *debug_ctx;
    radau_coef methods[RADAU_N_METHODS];    /* s = 3, 5, 7 */
    double fnewt[RADAU_N_METHODS];          /* Newton stopping tolerance kappa Tol */
    int ns_min, ns_max;         /* the stages the run may use */
    int ns_floor;               /* the order selection's lowest (select_methods) */

    /* Integration state. */
    double t, t_prev;           /* t_n and the start of the last step */
    double h;                   /* step to try next */
    double h_step;              /* size of the last accepted step */
    double h_acc, err_acc;      /* Gustafsson's memory (8.25) */
    int h_chosen;
    long n_steps_since_init;
    int last_rejected;          /* the last attempt failed */
    double theta;               /* last Newton contraction estimate */
    double faccon;              /* eta = theta / (1 - theta), kept */
    int jac_current;            /* J_y, J_yp were formed at (t_n, y_n) */
    int want_jac;               /* form J_y, J_yp before the next attempt */
    int jac_valid;              /* J_y, J_yp exist (maybe from an older t) */
    double h_lu;                /* h of the factored E1, E2; 0 none */
    int res0_valid;             /* res0 = F(t_n, y_n, y'_n) */
    const radau_coef *k;        /* the method of the next attempt */
    const radau_coef *k_acc;    /* the method of the last step (z_acc) */
    double theta_smooth;        /* order selection's theta: max(theta, old / 2) */
    int n_at_order;             /* steps since the last change of order */
    int unexpected_failure;     /* the step failed after a good start */
    int gustafsson_valid;       /* h_acc, err_acc are of this order */

    /* Vectors: n, or RADAU_MAX_NS n for the stage quantities. */
    double *y, *yp;             /* y_n, y'_n */
    double *y_prev;             /* y at the start of the last step */
    double *z_acc;              /* Z of the last accepted step (dense output) */
    double *z, *v, *g;          /* stage iterate, transformed, residuals */
    double *dv;                 /* Newton's increment of v */
    double *stage_y, *stage_yp; /* y_n + Z_i, Y'_i */
    double *res0, *res_pert;
    double *ewt, *ewt_test;     /* 1/(rtol|y| + atol), and 0 where excluded */
    double *w_newton, *w_err;   /* the same times h^(index - 1) (scale_weights) */
    unsigned char *var_index;   /* 1, 2 or 3 per component */
    int has_index;              /* some component has index 2 or 3 */
    double *err, *err_rhs;

    /* J_y is iter.jac; J_yp and E1's values before the copy into iter. */
    hy_itmat iter;
    hy_matrix jac_yp, e1_values;
    hy_zlinsol *e2[RADAU_MAX_PAIRS];    /* E2, E3, E4 (linalg/zlinsol.h) */
} radau_mem;

#define STAGE(v, i, n) ((v) + (size_t)(i) * (size_t)(n))

/* J_y and J_yp at (t_n, y_n, y'_n): analytic or by differences. */
int hy_radau_eval_jacobian(radau_mem *d, double h);
/* E1 and E2.. of the method d->k for step h, factored. HY_EVAL_OK,
** HY_EVAL_SINGULAR or HY_EVAL_NOMEM. */
int hy_radau_factor_matrices(radau_mem *d, double h);
/* The storage of J_yp, E1's values and E2... 0 or HYDAE_ERR_NOMEM. */
int hy_radau_setup_matrices(radau_mem *d);
/* out = m x for a matrix without fill-in rows (dense, band or csc). */
void hy_radau_matrix_times(const hy_matrix *m, const double *x, double *out);

#endif
