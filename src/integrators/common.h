/*
** Machinery shared by the integrators (internal; the public contract is
** integrator.h): the checks of init()'s options and of dense()'s time, the
** weighted RMS norm and the error weights, the index of the largest
** weighted value, the roundoff floor of step sizes, checked calls of f, F
** and the Jacobian, df/dy for explicit ODEs, the iteration matrix
** I - gamma J with its LU, the starting step of the Nordsieck BDF methods,
** and the descriptor functions get_stats and worst_component.
**
**   [P82] L.R. Petzold, "A description of DASSL: a differential/algebraic
**         system solver", Sandia report SAND82-8637, 1982: the weighted
**         RMS norm (DASSL's DDWNRM) and the weights 1/(rtol_i |y_i| +
**         atol_i) (DDAWTS).
**   [HNW] E. Hairer, S.P. Norsett, G. Wanner, "Solving Ordinary
**         Differential Equations I", 2nd ed., Springer 1993, II.4,
**         (4.10)-(4.11): the same norm as the error measure of a step.
**   [BBH89], [CV] (see vstiff.c): the forward-difference df/dy and the
**         starting step of VSTIFF and MSTIFF.
**
** Each function takes what it works on as parameters; what one method does
** differently stays in that method's file, with a comment saying so.
*/
#ifndef HY_INTEGRATORS_COMMON_H
#define HY_INTEGRATORS_COMMON_H

#include "core/core.h" /* HY_VECTOR_CLONES */
#include "integrators/integrator.h"

#include <stdint.h>
#include <string.h>

/* Outcome of a checked call into the problem (hy_eval_rhs, hy_eval_res,
** and itmat.h's Jacobians), of forming P (hy_itmat_form) and of
** the Newton correctors of DSTIFF, VSTIFF and MSTIFF, which add
** HY_EVAL_NO_CONV. */
enum {
    HY_EVAL_OK = 0,
    HY_EVAL_RES_FAIL,       /* f or F returned > 0, or a value not finite */
    HY_EVAL_RES_FATAL,      /* f or F returned < 0 */
    HY_EVAL_JAC_FAIL,       /* Jacobian returned > 0, or a value not finite */
    HY_EVAL_JAC_FATAL,      /* Jacobian returned < 0 */
    HY_EVAL_SINGULAR,       /* iteration matrix exactly singular */
    HY_EVAL_NO_CONV,        /* corrector: no convergence with a fresh J */
    HY_EVAL_NOMEM           /* out of memory (factoring P): fatal */
};

/* The first member of every integrator's memory: what the descriptor
** reports (get_stats, worst_component) and what checked calls update. */
typedef struct hy_mem_head {
    hy_stats stats;
    int worst;              /* component blamed for the last failure, or -1 */
} hy_mem_head;

/* The step bounds of opt for a variable-step method: h0 (0 = automatic)
** and h_min finite and >= 0, h_max >= 0 (0 = none: +inf), h_min <= h_max.
** 0 with *h_min and *h_max set, or -1. */
int hy_step_bounds(const hy_options *opt, double *h_min, double *h_max);

/* The tolerances of opt per component (its vectors, or its scalars) into
** rtol and atol: 0, or -1 if one is negative or not finite or, unless
** allow_both_zero, rtol_i = atol_i = 0. */
int hy_copy_tolerances(int n, const hy_options *opt, int allow_both_zero,
                       double *rtol, double *atol);

/* 1 if v is NULL or v_0 .. v_{n-1} are all finite, else 0. */
int hy_all_finite(int n, const double *v);

/* Its test, for a loop of the caller's own that reads v anyway: OR
** hy_finite_carry(v_i) over the components into carry; the components
** are all finite iff hy_carry_finite(carry) (the exponent field of a
** value that is not finite is all ones: one more unit carries into the
** sign bit). A loop of these vectorises, one of isfinite() does not. */
static inline uint64_t hy_finite_carry(double v)
{
    uint64_t bits;
    memcpy(&bits, &v, sizeof bits);
    return (bits & 0x7FF0000000000000ULL) + 0x0010000000000000ULL;
}

static inline int hy_carry_finite(uint64_t carry)
{
    return (carry >> 63) == 0;
}

/* The index of the first component of v that is not finite, or -1. */
int hy_first_nonfinite(int n, const double *v);

/* 1 if t lies in [t_prev, t_now] up to 100 uround max(|t_prev|, |t_now|),
** the interval a dense output serves; else 0. */
int hy_dense_covers(double t, double t_prev, double t_now);

/* Weighted RMS norm sqrt(sum (v_i w_i)^2 / n) ([P82] DDWNRM, [HNW]
** (4.11)). NaN propagates. */
double hy_wrms_norm(int n, const double *v, const double *w);

/* w_i = 1 / (rtol_i |y_i| + atol_i) ([P82] DDAWTS, [HNW] (4.10)). With
** keep_old == 0 (at init) returns -1 as soon as a weight is not positive
** and finite; with keep_old a component with such a weight (atol_i = 0
** and y_i = 0) keeps its previous w_i. Returns 0 otherwise. */
int hy_set_weights(int n, const double *rtol, const double *atol,
                   const double *y, int keep_old, double *w);

/* Index of the largest |v_i w_i|, -1 if all are zero; the first NaN
** ranks above everything. */
int hy_argmax_weighted(int n, const double *v, const double *w);

/* Smallest |h| that still moves t by a few units of roundoff: 4 uround |t|. */
double hy_roundoff_floor(double t);

/* f(t, y) into ydot, counted in head->stats.n_res_evals: HY_EVAL_OK,
** HY_EVAL_RES_FAIL (f returned > 0, or a value is not finite: then
** head->worst is its index) or HY_EVAL_RES_FATAL (f returned < 0). */
int hy_eval_rhs(const hy_dae *dae, hy_mem_head *head, double t,
                const double *y, double *ydot);

/* hy_eval_rhs without the test that ydot is finite, for a caller that
** tests it in a loop of its own (hy_finite_carry) before it uses ydot and
** treats a value that is not finite as hy_eval_rhs does. */
int hy_eval_rhs_unchecked(const hy_dae *dae, hy_mem_head *head, double t,
                          const double *y, double *ydot);

/* F(t, y, yp) into res, the same way. */
int hy_eval_res(const hy_dae *dae, hy_mem_head *head, double t,
                const double *y, const double *yp, double *res);

/* Starting step of VSTIFF and MSTIFF ([CV], "initial step size", after
** [BBH89]'s DVHIN): estimate y'' by a difference of f along y' and take h
** with h^2 ||y''||/2 = 1/4 of the error test, between 100 uround |t| and
** 0.1 |t_stop - t0| (and h |y'_i| <= 0.1 |y_i| + atol_i, h <= h_max).
** f0 = f(t0, y0); y_work, f_work, ydd_work are scratch of length n.
** HY_EVAL_OK with *h_out set, or HY_EVAL_RES_FATAL. */
int hy_ode_initial_step(const hy_dae *dae, hy_mem_head *head, double t0,
                        double t_stop, double h_max, const double *y0,
                        const double *f0, const double *atol, const double *w,
                        double *y_work, double *f_work, double *ydd_work,
                        double *h_out);

/* What step() returns when a corrector failure with status (not
** HY_EVAL_OK) ends the step: HYDAE_ERR_RESIDUAL for f or F, HYDAE_ERR_JACOBIAN for the
** Jacobian, HYDAE_ERR_SINGULAR, else HYDAE_ERR_HMIN if too_small, HYDAE_ERR_CONV. */
int hy_eval_error(int status, int too_small);

/* The descriptor's get_stats and worst_component for a memory whose first
** member is a hy_mem_head (mem may be NULL). */
void hy_get_stats(const void *mem, hy_stats *out);
int hy_worst_component(const void *mem);

#endif
