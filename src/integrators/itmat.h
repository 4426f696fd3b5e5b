/*
** The Newton iteration matrix of the implicit integrators (DSTIFF, VSTIFF,
** MSTIFF) in the storage the linear solver wants (src/linalg/linsol.h):
** dense, band or sparse. It owns the linear solver, the column groups of
** finite differences (Curtis, Powell & Reid 1974) and, for the ODE
** methods, J = df/dy kept while gamma changes (P = I - gamma J is formed
** from it without a new Jacobian).
*/
#ifndef HY_ITMAT_H
#define HY_ITMAT_H

#include "integrators/common.h"
#include "linalg/linsol.h"

typedef struct hy_itmat {
    size_t n;
    hy_ls_kind kind;
    hy_pattern *pattern;     /* a reference to the problem's; NULL: dense */
    hy_linsol *ls;           /* the iteration matrix and its factors */
    hy_matrix jac;           /* ODE methods: df/dy (values NULL otherwise) */
    /* Finite differences (made only when the problem has no analytic
    ** Jacobian): */
    hy_coloring groups;      /* columns perturbed together */
    double *del;             /* increments of one group's columns */
    double *saved;           /* their unperturbed values */
} hy_itmat;

/* For the problem dae (its n and pattern) and the solver kind (AUTO:
** chosen here): kept as it is when nothing changed, else rebuilt. With
** keeps_jac the ODE methods' df/dy storage too. 0, HYDAE_ERR_NOMEM, or
** HYDAE_ERR_ARG (a solver that cannot serve this problem: no pattern for
** band or klu, klu not built in, a matrix too large). */
int hy_itmat_setup(hy_itmat *m, const hy_dae *dae, int kind, int keeps_jac);
void hy_itmat_free(hy_itmat *m);

/* J = df/dy of an explicit ODE at (t, y), f = f(t, y), into m->jac,
** counted: -(the analytic Jacobian with cj = 0), or forward differences by
** column groups with increment sqrt(uround) max(|y_j|, |h f_j|, 1/w_j)
** ([BBH89], see vstiff.c). f_pert is scratch of length n. */
int hy_itmat_dfdy(hy_itmat *m, const hy_dae *dae, hy_mem_head *head, double t, double h,
                  double *y, const double *f, const double *w, double *f_pert);
/* P = I - gamma J from m->jac, factored, counted in *n_lu: HY_EVAL_OK,
** HY_EVAL_SINGULAR (then head->worst names the column, when known) or
** HY_EVAL_NOMEM (KLU ran out of memory). */
int hy_itmat_form(hy_itmat *m, hy_mem_head *head, double gamma);

/* DAE methods: the analytic dF/dy + cj dF/dy' at (t, y, yp) into the
** solver's matrix, checked (HY_EVAL_OK / JAC_FAIL / JAC_FATAL). */
int hy_itmat_eval_jac(hy_itmat *m, const hy_dae *dae, double t, double cj, const double *y,
                      const double *yp);
/* Finite differences by groups: the number of groups, the columns of one,
** and the store of column j from a perturbed result (f_pert - f0) * scale
** at the rows of its pattern (m's matrix is zeroed by
** hy_itmat_begin_fd). */
void hy_itmat_begin_fd(hy_itmat *m);
size_t hy_itmat_n_groups(const hy_itmat *m);
const int64_t *hy_itmat_group(const hy_itmat *m, size_t g, size_t *count);
void hy_itmat_store_column(hy_itmat *m, size_t j, const double *f_pert, const double *f0,
                           double scale);
/* Factor the matrix as filled: HY_EVAL_OK, HY_EVAL_SINGULAR (head->worst
** set to the column without a pivot) or HY_EVAL_NOMEM. Counted in head's
** n_lu. */
int hy_itmat_factor(hy_itmat *m, hy_mem_head *head);
/* x = P^-1 b in place. */
void hy_itmat_solve(hy_itmat *m, double *b);

#endif
