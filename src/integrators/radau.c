/*
** RADAU: the Radau IIA collocation methods with s = 3, 5, 7 stages
** (orders 5, 9, 13, stage order s, L-stable; coefficients in
** radau_coef.c) with variable step size and order, for fully implicit
** DAEs F(t, y, y') = 0 of index <= 1 and for ODEs, written from the
** published description:
**
**   [HW] E. Hairer, G. Wanner, "Solving Ordinary Differential Equations
**        II", 2nd ed., Springer 1996, IV.5 (the Radau IIA tableau of
**        order 5) and IV.8 "Implementation of implicit Runge-Kutta
**        methods": the stage system in Z_i = Y_i - y_n, simplified Newton
**        and its transformation by T with T^-1 A^-1 T = diag(gamma,
**        [alpha -beta; beta alpha]), the stopping criterion with Theta_k
**        and eta_k, the starting values from the last collocation
**        polynomial, the embedded error estimate and its filter
**        (I - h gamma0 J)^-1, the step size rule and Gustafsson's
**        predictive controller (8.25); ch. VI and VII for the DAE forms.
**   [HLR] E. Hairer, C. Lubich, M. Roche, "The Numerical Solution of
**        Differential-Algebraic Systems by Runge-Kutta Methods", Lecture
**        Notes in Math. 1409, Springer 1989: the scaling of index-2 and
**        index-3 components.
**   [HW-doc] the user documentation of Hairer & Wanner's code RADAU5
**        (published with [HW]): the strategy parameters named below
**        (safe = 0.9, facl = 5, facr = 1/8, thet = 0.001, quot1 = 1,
**        quot2 = 1.2, nit = 7, fnewt = max(10 uround / rtol, min(0.03,
**        rtol'^(1/2))) with rtol' = 0.1 rtol^(2/3)); RADAU5's
**        transformation of the error test's tolerances is not used (see
**        set_tolerances). No code of RADAU5 or of any other implementation was
**        used; this file is written from the equations.
**   [HW99] E. Hairer, G. Wanner, "Stiff differential equations solved by
**        Radau methods", J. Comput. Appl. Math. 111 (1999) 93-111: the
**        variable order 5/9/13 of their code RADAU and its selection from
**        the Newton contraction (select_order).
**
** Formulation. hydae's modes are F(t, y, y') = 0. With W = A^-1 and
** Z_i = Y_i - y_n, the collocation polynomial u of the step has
** u'(t_n + c_i h) = Y'_i = (1/h) sum_j w_ij Z_j, and the stage system is
**
**     G_i(Z) = F(t_n + c_i h, y_n + Z_i, (1/h) sum_j w_ij Z_j) = 0, i = 1..s.
**
** (For M y' = f(t, y) this is [HW]'s stage system in Z times A^-1 (x) I.)
** Simplified Newton freezes J_y = dF/dy and J_yp = dF/dy' at (t_n, y_n,
** y'_n): the matrix of the sn system is I (x) J_y + (W/h) (x) J_yp; with
** Z = (T (x) I) V and T^-1 W T = Lambda it splits into
**
**     E1 = gamma/h J_yp + J_y                 (real, n x n)
**     E2 = (alpha + i beta)/h J_yp + J_y      (complex, n x n)
**
** and for s = 5, 7 one more complex system E3, E4 per pair alpha_k +-
** i beta_k (radau_matrices.c).
**
** J_y and J_yp come from the interface's J with cj = 0 and cj = 1 (J_yp =
** J(1) - J(0)), or from finite differences in y and y'; for an explicit
** ODE (dae->rhs set) J_yp = I. Kept while the Newton iteration converges
** fast (theta <= thet), as [HW-doc].
**
** Error estimate ([HW] IV.8). For y' = f Hairer's filtered
** estimate is err = (gamma/h I - J)^-1 [f(y_n) + sum_i e_i Z_i / h] with,
** for s = 3, e = (-13 - 7 sqrt 6, -13 + 7 sqrt 6, -1)/3 (HW's e_i times
** gamma = 1/gamma0; radau_coef.c for s = 5, 7), and for M y' = f: (gamma/h M - J)^-1 [f(y_n) + M
** sum e_i Z_i / h]. Linearising F(t, y, y') = J_yp y' + J_y y + ... maps
** M to J_yp and -J to J_y, and f(y_n) = M y'_n - F(t_n, y_n, y'_n) when F
** = M y' - f. So here
**
**     err = E1^-1 [ J_yp (y'_n + sum_i e_i Z_i / h) - F(t_n, y_n, y'_n) ]
**
** which is Hairer's formula exactly when F = M y' - f. After a rejected
** step or on the first step, when ||err|| >= 1, [HW] evaluates f at
** y_n + err; the analogue here replaces F(t_n, y_n, y'_n) by
** F(t_n, y_n + err, y'_n). E1 is the matrix already factored for Newton.
**
** Index: index-1 DAEs with the same weights for every component; with
** hy_options.var_index the Newton and error norms of index-2 and index-3
** components are taken times h and h^2 ([HLR], RADAU5's NIND2, NIND3;
** scale_weights), which makes constrained mechanics in the I3
** formulation run (Cash's pendulum: tests/validation/test_radau.c). The
** settings dae_corrector_minit, dae_constr_tol, dae_jacob_eval,
** dae_jacob_init and dae_eval_expiry are DSTIFF's and are ignored here;
** dae_corrector_maxit replaces nit.
**
** Linear solvers: E1 through itmat.h (dense, band or KLU); E2 through
** linalg/zlinsol.h: a complex dense LU, or with band or KLU its real form
** of size 2n through the same real solver (twice the flops of a complex
** band LU; no complex band or sparse code).
**
** Statistics: n_lu counts factorisations of the set (E1, E2..);
** n_res_evals counts every F, finite differences included; order_last is
** the order of the last step (5, 9 or 13).
*/
#include "integrators/radau_impl.h"

#include "core/core.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* [HW-doc] strategy parameters. */
#define RADAU_SAFE 0.9                  /* safety factor of the step rule */
#define RADAU_FACL 5.0                  /* h_new >= h / facl */
#define RADAU_FACR 0.125                /* h_new <= h / facr */
#define RADAU_THET 0.001                /* keep J when theta <= thet */
#define RADAU_QUOT1 1.0                 /* keep h and the LU while */
#define RADAU_QUOT2 1.2                 /* quot1 <= h_new / h <= quot2 */
#define RADAU_NIT 7                     /* Newton iterations per attempt */
#define RADAU_MAX_SINGULAR 5            /* singular E1/E2 in a row */
#define RADAU_MAX_REJECTS 50            /* failed attempts within a step */

/* Order selection ([HW99], the defaults of RADAU's documented order
** parameters): up when the smoothed theta <= vitu and h_new / h in (hhod,
** hhou), down when it is >= vitd or after an unexpected failure; at least
** RADAU_KEEP_ORDER steps between changes. */
#define RADAU_VITU 0.002
#define RADAU_VITD 0.8
#define RADAU_HHOU 1.2
#define RADAU_HHOD 0.8
#define RADAU_KEEP_ORDER 10
/* At rtol <= this the automatic order stays >= 9 once there (ns_floor):
** the step rule keeps the estimate err ~ C_s h^(s+1) at tol, so order 9's
** steps (s = 5) outgrow order 5's (s = 3) like tol^(-1/12) as tol falls
** (4.6x at 1e-8 for equal C_s), for 5/3 the stages and one complex
** system more. The Newton contraction alone (theta) dropped HIRES
** to order 5 after one Newton failure at t = 200 (rtol 1e-8) and never
** raised it again (theta 0.01-0.1 > vitu there): 34 steps of h = 9 .. 1
** to the end, where order 9 takes 12. Measured with callgrind, order 9
** alone against order 5 alone: cheaper at equal scd on ROBER, HIRES,
** OREGO and E5 from rtol 1e-6 on (bench/README.md, RADAU). Not with
** index-2/3 components: Cash's pendulum (tests/validation/test_radau.c)
** fails at rtol 1e-8 when held at order 9. */
#define RADAU_ORDER9_RTOL 1e-6


/* ------------------------------------------------------------------------
** Coefficients and small helpers
*/

/* Weighted RMS norm of the ns n vector v. */
static double stage_norm(int ns, int n, const double *v, const double *w)
{
    double sum = 0.0;
    for (int k = 0; k < ns; k++) {
        const double *vk = STAGE(v, k, n);
        for (int i = 0; i < n; i++) {
            double s = vk[i] * w[i];
            sum += s * s;
        }
    }
    return sqrt(sum / (ns * n));
}

/* The error weights 1 / (rtol |y| + atol) and their copy for the error
** test (0 for excluded components). keep_old as hy_set_weights. */
static int set_weights(radau_mem *d, const double *y, int keep_old)
{
    if (hy_set_weights(d->n, d->rtol, d->atol, y, keep_old, d->ewt) != 0)
        return -1;
    for (int i = 0; i < d->n; i++)
        d->ewt_test[i] = d->in_err_test[i] ? d->ewt[i] : 0.0;
    return 0;
}

/* The weights of the Newton and error norms for a step of size h: with
** index-2 and index-3 components (hy_options.var_index), theirs times h
** and h^2, Hairer & Wanner's scaling for Radau IIA on Hessenberg DAEs
** ([HLR], RADAU5's NIND2, NIND3; as DSTIFF's scale_weights_for_step):
** a perturbation of their equations moves them by O(h^(1 - index)). */
static void scale_weights(radau_mem *d, double h)
{
    if (!d->has_index) {
        memcpy(d->w_newton, d->ewt, (size_t)d->n * sizeof(double));
        memcpy(d->w_err, d->ewt_test, (size_t)d->n * sizeof(double));
        return;
    }
    for (int i = 0; i < d->n; i++) {
        double scale = d->var_index[i] == 3 ? h * h : d->var_index[i] == 2 ? h : 1.0;
        d->w_newton[i] = d->ewt[i] * scale;
        d->w_err[i] = d->ewt_test[i] * scale;
    }
}

/* ------------------------------------------------------------------------
** One attempt: starting values, simplified Newton, error estimate
*/

/* out_k = sum_m coef[k][m] in_m for the stage vectors (k, m < ns, each
** of length n): the transformations by T, T^-1 and W, the most of RADAU's
** own work. ns is a constant (stage_transform), so the loops over the
** stages unroll; with GCC's vector extensions the components go
** RADAU_LANES (then 2) at a time, as one vector operation each (AVX2
** where the machine has it: HY_VECTOR_CLONES), the sums in the order of
** the scalar loop, so the results are the same. n = 4, s = 7: 350
** instructions a call, 610 scalar. */
#define RADAU_LANES 4
#if defined(__GNUC__)
#define RADAU_KERNEL static inline __attribute__((always_inline))
typedef double radau_lanes __attribute__((vector_size(RADAU_LANES * sizeof(double))));
typedef double radau_pair __attribute__((vector_size(2 * sizeof(double))));
#else
#define RADAU_KERNEL static inline
#endif

/* The term that ode_transformed_residuals subtracts: (Lambda / h) V,
** Lambda = diag(gamma, [alpha_p -beta_p; beta_p alpha_p]). */
typedef struct lambda_term {
    double gamma_h, alpha_h[RADAU_MAX_PAIRS], beta_h[RADAU_MAX_PAIRS];
    const double *v;
} lambda_term;

/* transform_stages's outputs of one block of components (sum[k] at
** offset i), less (Lambda / h) V when lam is not NULL. */
#define RADAU_STORE_BLOCK(type)                                                       \
    do {                                                                              \
        if (lam) {                                                                    \
            type vk[RADAU_MAX_NS];                                                    \
            for (int k = 0; k < ns; k++)                                              \
                memcpy(&vk[k], lam->v + (size_t)k * (size_t)n + (size_t)i, sizeof vk[k]); \
            sum[0] -= lam->gamma_h * vk[0];                                           \
            for (int p = 0; 2 * p + 2 < ns; p++) {                                    \
                type re = vk[2 * p + 1], im = vk[2 * p + 2];                          \
                sum[2 * p + 1] -= lam->alpha_h[p] * re - lam->beta_h[p] * im;         \
                sum[2 * p + 2] -= lam->beta_h[p] * re + lam->alpha_h[p] * im;         \
            }                                                                         \
        }                                                                             \
        for (int k = 0; k < ns; k++)                                                  \
            memcpy(out + (size_t)k * (size_t)n + (size_t)i, &sum[k], sizeof sum[k]);  \
    } while (0)

/* One block of components (type: a vector of them, or double). */
#define RADAU_TRANSFORM_BLOCK(type)                                                   \
    do {                                                                              \
        type x[RADAU_MAX_NS], sum[RADAU_MAX_NS];                                      \
        for (int m = 0; m < ns_in; m++)                                               \
            memcpy(&x[m], in + (size_t)m * (size_t)n + (size_t)i, sizeof x[m]);       \
        for (int k = 0; k < ns; k++) {                                                \
            sum[k] = coef[k][0] * x[0];                                               \
            for (int m = 1; m < ns_in; m++)                                           \
                sum[k] += coef[k][m] * x[m];                                          \
        }                                                                             \
        RADAU_STORE_BLOCK(type);                                                      \
    } while (0)

RADAU_KERNEL void transform_stages(const int ns, const int ns_in, int n,
                                   const double coef[RADAU_MAX_NS][RADAU_MAX_NS],
                                   const double *restrict in, const lambda_term *lam,
                                   double *restrict out)
{
    int i = 0;
#if defined(__GNUC__)
    for (; i + RADAU_LANES <= n; i += RADAU_LANES)
        RADAU_TRANSFORM_BLOCK(radau_lanes);
    if (i + 2 <= n) {
        RADAU_TRANSFORM_BLOCK(radau_pair);
        i += 2;
    }
#endif
    for (; i < n; i++)
        RADAU_TRANSFORM_BLOCK(double);
}

/* out = (coef (x) I) in, less (Lambda / h) V when lam is not NULL: ns
** stage vectors out of ns_in. */
HY_VECTOR_CLONES
static void stage_transform_less(int ns, int ns_in, int n,
                                 const double coef[RADAU_MAX_NS][RADAU_MAX_NS], const double *in,
                                 const lambda_term *lam, double *out)
{
    if (ns == 3 && ns_in == 3)
        transform_stages(3, 3, n, coef, in, lam, out);
    else if (ns == 5 && ns_in == 5)
        transform_stages(5, 5, n, coef, in, lam, out);
    else if (ns == 7 && ns_in == 7)
        transform_stages(7, 7, n, coef, in, lam, out);
    else
        transform_stages(ns, ns_in, n, coef, in, lam, out);
}

static void stage_transform(int ns, int n, const double coef[RADAU_MAX_NS][RADAU_MAX_NS],
                            const double *in, double *out)
{
    stage_transform_less(ns, ns, n, coef, in, NULL, out);
}

/* hy_radau_basis's l_i(s) for s > 1 (beyond the nodes of k, which are
** <= 1), values only: l_i(s) = s prod_j (s - c_j) / ((s - c_i) c_i
** prod_{j != i} (c_i - c_j)), one product for all i. */
static void extrapolation_basis(const radau_coef *k, double s, double *l)
{
    double product = s;
    for (int j = 0; j < k->ns; j++)
        product *= s - k->c[j];
    for (int i = 0; i < k->ns; i++)
        l[i] = product / ((s - k->c[i]) * k->basis_den[i]);
}

/* Z^0: the last step's collocation polynomial extrapolated to
** t_n + c_i h ([HW] IV.8, starting values; after a change of order the
** old method's polynomial on the new nodes), also after a rejection, as
** [HW-doc]'s default startn; 0 on the first step after a (re)start, and
** after a rejection with index-2/3 components, whose extrapolation is
** O(h^(1 - index)) off (Cash's pendulum fails at rtol 1e-8 without).
** Zero starts after rejections cost HIRES at rtol 1e-8 at order 9 36
** Newton failures in 107 attempts: Newton's first increment was 1e7
** tolerance units, and the step was halved until Newton converged. V^0 =
** (T^-1 (x) I) Z^0. */
static void starting_values(radau_mem *d, double h)
{
    int n = d->n, ns = d->k->ns, ns_acc = d->k_acc->ns;
    if (d->n_steps_since_init == 0 || (d->last_rejected && d->has_index)) {
        memset(d->z, 0, (size_t)ns * (size_t)n * sizeof(double));
        memset(d->v, 0, (size_t)ns * (size_t)n * sizeof(double));
        return;
    }
    /* Z^0_k = sum_m l_m(s_k) Z_m - Z_last (u(s) - y_n, y_n = y_{n-1} + Z_last). */
    double extrapolate[RADAU_MAX_NS][RADAU_MAX_NS];
    for (int k = 0; k < ns; k++) {
        extrapolation_basis(d->k_acc, 1.0 + d->k->c[k] * h / d->h_step, extrapolate[k]);
        extrapolate[k][ns_acc - 1] -= 1.0;
    }
    stage_transform_less(ns, ns_acc, n, extrapolate, d->z_acc, NULL, d->z);
    stage_transform(ns, n, d->k->ti, d->z, d->v);
}

/* G_i = F(t_n + c_i h, y_n + Z_i, (1/h) sum_j w_ij Z_j) into g (W Z in
** dv, free until newton_update); for an explicit ODE (dae->rhs) f(t_n +
** c_i h, y_n + Z_i) instead, which newton_update combines with V. */
static int stage_residuals(radau_mem *d, double h)
{
    int n = d->n, ns = d->k->ns;
    if (d->dae.rhs != NULL) {
        for (int k = 0; k < ns; k++) {
            const double *zk = STAGE(d->z, k, n);
            for (int i = 0; i < n; i++)
                d->stage_y[i] = d->y[i] + zk[i];
            int status = hy_eval_rhs(&d->dae, &d->head, d->t + d->k->c[k] * h, d->stage_y,
                                     STAGE(d->g, k, n));
            if (status != HY_EVAL_OK)
                return status;
        }
        return HY_EVAL_OK;
    }
    stage_transform(ns, n, d->k->w, d->z, d->dv);
    for (int k = 0; k < ns; k++) {
        const double *zk = STAGE(d->z, k, n), *wz = STAGE(d->dv, k, n);
        for (int i = 0; i < n; i++) {
            d->stage_y[i] = d->y[i] + zk[i];
            d->stage_yp[i] = wz[i] / h;
        }
        int status = hy_eval_res(&d->dae, &d->head, d->t + d->k->c[k] * h, d->stage_y,
                                 d->stage_yp, STAGE(d->g, k, n));
        if (status != HY_EVAL_OK)
            return status;
    }
    return HY_EVAL_OK;
}

/* -(T^-1 (x) I) G for an explicit ODE, G_i = Y'_i - f_i, from the stage
** derivatives f_i in g: T^-1 Y' = (1/h) T^-1 W T V = (1/h) Lambda V
** (Lambda = diag(gamma, [alpha_p -beta_p; beta_p alpha_p])), so
** -T^-1 G = T^-1 f - (1/h) Lambda V, one transformation where the
** residual form takes two (W Z and T^-1 G) [HW IV.8, (8.16)]. */
static void ode_transformed_residuals(radau_mem *d, double h, double *v_new)
{
    const radau_coef *k = d->k;
    lambda_term lam = {k->gamma / h, {0.0}, {0.0}, d->v};
    for (int p = 0; p < k->n_pairs; p++) {
        lam.alpha_h[p] = k->alpha[p] / h;
        lam.beta_h[p] = k->beta[p] / h;
    }
    stage_transform_less(k->ns, k->ns, d->n, k->ti, d->g, &lam, v_new);
}

/* Delta V = (I (x) J_y + (Lambda/h) (x) J_yp)^-1 (-(T^-1 (x) I) G): the
** transformed residuals into v_new, solved there: E1 for the first
** block, E_(p+2) for the pair of blocks 2p + 1, 2p + 2. */
static void newton_update(radau_mem *d, double h, double *v_new)
{
    int n = d->n, ns = d->k->ns;
    if (d->dae.rhs != NULL) {
        ode_transformed_residuals(d, h, v_new);
    } else {
        stage_transform(ns, n, d->k->ti, d->g, v_new);
        for (size_t m = 0; m < (size_t)ns * (size_t)n; m++)
            v_new[m] = -v_new[m];
    }
    hy_itmat_solve(&d->iter, v_new);
    for (int p = 0; p < d->k->n_pairs; p++)
        hy_zlinsol_solve(d->e2[p], STAGE(v_new, 2 * p + 1, n), STAGE(v_new, 2 * p + 2, n));
}

/* Newton's outcome besides the HY_EVAL codes: the step must shrink by
** *h_factor. */
typedef struct newton_result {
    int status;
    int n_iters;
    double h_factor;            /* on HY_EVAL_NO_CONV */
} newton_result;

/* A fixed sign +-1 for component i (a hash of i), uncorrelated with the
** structure of J. */
static double rounding_sign(int i)
{
    unsigned x = (unsigned)i * 2654435761u;
    return (x >> 16) & 1u ? 1.0 : -1.0;
}

/* The Newton increment that the rounding of the stages alone causes, in
** the norm of the iteration: ||E1^-1 (J_y (u s y_n) + J_yp (u s y'_n))||,
** the first-order effect of rounding y_n + Z_i and W Z / h to double,
** u the unit roundoff and s fixed signs (rounding_sign: errors of
** independent components, so that structure such as ROBER's conserved
** sum, columns of J summing to 0, is kept; |J| |y| would bound it at 250
** tolerance units there). fnewt below it asks the iteration for digits
** the residual does not hold: TRANSAMP's output stage amplifies the
** rounding of y_5 - y_6 by alpha f2' / (2 / R) ~ 100 into y_7 + y_8
** (Newton stalled at 1e-3..5e-3 tolerance units at rtol 1e-11, fnewt
** 3e-5, until h fell below the rounding of t). Scratch: d->stage_y,
** d->err and d->err_rhs (free until stage_residuals, estimate_error). */
static double rounding_level(radau_mem *d)
{
    int n = d->n;
    for (int i = 0; i < n; i++)
        d->stage_y[i] = DBL_EPSILON * rounding_sign(i) * d->y[i];
    hy_radau_matrix_times(&d->iter.jac, d->stage_y, d->err);
    for (int i = 0; i < n; i++)
        d->stage_y[i] = DBL_EPSILON * rounding_sign(i + n) * d->yp[i];
    if (d->dae.rhs != NULL)
        memcpy(d->err_rhs, d->stage_y, (size_t)n * sizeof(double));
    else
        hy_radau_matrix_times(&d->jac_yp, d->stage_y, d->err_rhs);
    for (int i = 0; i < n; i++)
        d->err[i] += d->err_rhs[i];
    hy_itmat_solve(&d->iter, d->err);
    return hy_wrms_norm(n, d->err, d->w_newton);
}

/* Simplified Newton on G(Z) = 0 ([HW] IV.8, stopping criterion): Theta_k =
** ||dV_k|| / ||dV_{k-1}|| (from the second on, the geometric mean of the
** last two quotients, as [HW-doc]), eta = Theta / (1 - Theta) with
** eta_0 = max(eta_old, thet)^0.8; converged when eta ||dV|| <= fnewt;
** stopped with h_factor when Theta >= 0.99 (0.5) or when the remaining
** iterations cannot reach fnewt: Theta^(nit - 1 - k) eta ||dV|| > fnewt
** (h_factor 0.8 q^(-1/(4 + nit - 1 - k)), q that ratio in [1e-4, 20]). The
** increments are measured in the transformed variables V.
** eta_0's floor is thet, not [HW-doc]'s uround: a step that stops after
** one iteration measures no Theta and hands eta_old^0.8 on, so the Theta
** ~ 1e-16 of a short first step (J exact at y_0, the stages nearly
** linear) let six of HIRES's next eight steps, 8-100x longer, stop after
** one iteration with ||dV|| = 3.7-7.1 (tolerance units), where the steps
** that iterate measure Theta = 0.005-0.1 just after: global error 45 atol
** at rtol 1e-4 (scd 0.14; 1.23 with the floor). thet is the contraction
** [HW-doc] already takes as "J is fresh" (RADAU_THET). */
static newton_result solve_stages(radau_mem *d, double h)
{
    int n = d->n, ns = d->k->ns, nit = d->max_newton_iters;
    double fnewt = fmax(d->fnewt[(ns - 3) / 2], rounding_level(d));
    newton_result r = {HY_EVAL_OK, 0, 0.5};
    d->faccon = pow(fmax(d->faccon, RADAU_THET), 0.8);
    d->theta = RADAU_THET;
    double dyno_old = 0.0, thq_old = 0.0;
    for (int k = 0;; k++) {
        if (k >= nit) {
            r.status = HY_EVAL_NO_CONV;
            return r;
        }
        int status = stage_residuals(d, h);
        if (status != HY_EVAL_OK) {
            r.status = status == HY_EVAL_RES_FAIL ? HY_EVAL_NO_CONV : status;
            return r;
        }
        newton_update(d, h, d->dv);
        d->head.stats.n_newton_iters++;
        r.n_iters = k + 1;
        double dyno = stage_norm(ns, n, d->dv, d->w_newton);
        if (!isfinite(dyno)) {
            r.status = HY_EVAL_NO_CONV;
            return r;
        }
        if (k >= 1) {
            double thq = dyno / dyno_old;
            d->theta = k == 1 ? thq : sqrt(thq * thq_old);
            thq_old = thq;
            if (d->theta >= 0.99) {
                r.status = HY_EVAL_NO_CONV;
                d->head.worst = hy_argmax_weighted(n, d->dv, d->w_newton);
                return r;
            }
            d->faccon = d->theta / (1.0 - d->theta);
            double remaining = d->faccon * dyno / fnewt;
            for (int m = k + 1; m < nit; m++)
                remaining *= d->theta;  /* Theta^(nit - 1 - k) */
            if (remaining >= 1.0) {
                double q = fmax(1e-4, fmin(20.0, remaining));
                r.h_factor = 0.8 * pow(q, -1.0 / (ns + 1.0 + nit - 1 - k));
                r.status = HY_EVAL_NO_CONV;
                d->head.worst = hy_argmax_weighted(n, d->dv, d->w_newton);
                return r;
            }
        }
        dyno_old = fmax(dyno, DBL_EPSILON);
        for (size_t m = 0; m < (size_t)ns * (size_t)n; m++)
            d->v[m] += d->dv[m];
        stage_transform(ns, n, d->k->t, d->v, d->z);
        int converged = d->faccon * dyno <= fnewt;
        if (d->newton_debug) {
            hy_newton_info info = {d->t + h, h, d->k->order, k, dyno, k >= 1 ? d->theta : 0.0,
                                   k == 0 && d->jac_current, converged};
            d->newton_debug(d->debug_ctx, &info);
        }
        if (converged)
            return r;
    }
}

/* The filtered error estimate (see the head of the file) into d->err, and
** its norm over the components of the error test (at least 1e-10). */
static int estimate_error(radau_mem *d, double h, double *err_norm)
{
    int n = d->n, ns = d->k->ns;
    const double *e = d->k->e;
    for (int i = 0; i < n; i++) {
        double sum = e[0] * d->z[i];
        for (int m = 1; m < ns; m++)
            sum += e[m] * STAGE(d->z, m, n)[i];
        d->stage_yp[i] = d->yp[i] + sum / h;
    }
    if (d->dae.rhs != NULL)
        memcpy(d->err_rhs, d->stage_yp, (size_t)n * sizeof(double));
    else
        hy_radau_matrix_times(&d->jac_yp, d->stage_yp, d->err_rhs);
    for (int i = 0; i < n; i++)
        d->err[i] = d->err_rhs[i] - d->res0[i];
    hy_itmat_solve(&d->iter, d->err);
    *err_norm = fmax(hy_wrms_norm(n, d->err, d->w_err), 1e-10);
    if (*err_norm < 1.0 || !(d->n_steps_since_init == 0 || d->last_rejected))
        return HY_EVAL_OK;
    /* [HW]'s second estimate: F at y_n + err in place of F(t_n, y_n, y'_n). */
    for (int i = 0; i < n; i++)
        d->stage_y[i] = d->y[i] + d->err[i];
    int status = hy_eval_res(&d->dae, &d->head, d->t, d->stage_y, d->yp, d->res_pert);
    if (status == HY_EVAL_RES_FATAL)
        return status;
    if (status != HY_EVAL_OK)
        return HY_EVAL_OK;  /* keep the first estimate */
    for (int i = 0; i < n; i++)
        d->err[i] = d->err_rhs[i] - d->res_pert[i];
    hy_itmat_solve(&d->iter, d->err);
    *err_norm = fmax(hy_wrms_norm(n, d->err, d->w_err), 1e-10);
    return HY_EVAL_OK;
}

/* ------------------------------------------------------------------------
** Step size control and the step
*/

/* x^(1/(ns + 1)), the root of the step rule for an estimate of order ns
** (sqrt(sqrt(x)) for ns = 3, as before there was more than one order). */
static double error_root(const radau_coef *k, double x)
{
    return k->ns == 3 ? sqrt(sqrt(x)) : pow(x, 1.0 / (k->ns + 1));
}

/* h_new after an attempt with error err and n_iters Newton iterations
** ([HW] IV.8 and (8.25), [HW-doc]): fac = min(safe, safe (2 nit + 1) /
** (n_iters + 2 nit)), h_new = h / quot, quot = err^(1/(s+1)) / fac in
** [facr, facl]; on an accepted step after the first of this order,
** Gustafsson's prediction (h_acc / h) (err^2 / err_acc)^(1/(s+1)) / safe
** may shrink it. */
static double next_step_size(radau_mem *d, double h, double err, int n_iters, int accepted)
{
    int nit = d->max_newton_iters;
    double fac = fmin(RADAU_SAFE, RADAU_SAFE * (2 * nit + 1) / (double)(n_iters + 2 * nit));
    double quot = fmax(RADAU_FACR, fmin(RADAU_FACL, error_root(d->k, err) / fac));
    if (accepted) {
        if (d->n_steps_since_init > 0 && d->gustafsson_valid) {
            double facgus = d->h_acc / h * error_root(d->k, err * err / d->err_acc) / RADAU_SAFE;
            facgus = fmax(RADAU_FACR, fmin(RADAU_FACL, facgus));
            quot = fmax(quot, facgus);
        }
        d->h_acc = h;
        d->err_acc = fmax(1e-2, err);
        d->gustafsson_valid = 1;
    }
    return h / quot;
}

/* Take the converged stages as the step to t_new; choose the next h and
** whether J and the LU are kept ([HW-doc]: J when theta <= thet; the LU
** too when h_new / h lies in [quot1, quot2], and h stays). */
static void accept_step(radau_mem *d, double h, double h_new, double t_new)
{
    int n = d->n, ns = d->k->ns;
    const double *z_last = STAGE(d->z, ns - 1, n), *w_last = d->k->w[ns - 1];
    memcpy(d->y_prev, d->y, (size_t)n * sizeof(double));
    memcpy(d->z_acc, d->z, (size_t)ns * (size_t)n * sizeof(double));
    d->k_acc = d->k;
    for (int i = 0; i < n; i++) {
        double sum = w_last[0] * d->z[i];
        for (int m = 1; m < ns; m++)
            sum += w_last[m] * STAGE(d->z, m, n)[i];
        d->y[i] += z_last[i];
        d->yp[i] = sum / h;
    }
    d->t_prev = d->t;
    d->t = t_new;
    d->h_step = h;
    d->jac_current = 0;
    d->res0_valid = 0;
    d->head.stats.n_steps++;
    d->head.stats.h_last = h;
    d->head.stats.order_last = d->k->order;
    d->n_steps_since_init++;
    set_weights(d, d->y, 1);
    if (d->last_rejected)
        h_new = fmin(h_new, h);
    d->last_rejected = 0;
    h_new = fmin(h_new, d->h_max);
    d->want_jac = !(d->theta <= RADAU_THET);
    if (!d->want_jac && h_new >= RADAU_QUOT1 * h && h_new <= RADAU_QUOT2 * h)
        h_new = h;
    d->h = h_new;
}

/* First step: opt->h0, or Hairer, Norsett & Wanner's 0.01 ||y0|| / ||y'0||
** (Solving ODEs I, II.4, without the trial step; 1e-6 when either norm is
** below 1e-5); the step rule's factor of up to 8 per step catches up.
** Capped by h0_max, h_max and the span; at least the roundoff floor and
** h_min. */
static void choose_initial_step(radau_mem *d, double t_stop)
{
    double h = d->h_user;
    if (h == 0.0) {
        double d0 = hy_wrms_norm(d->n, d->y, d->ewt);
        double d1 = hy_wrms_norm(d->n, d->yp, d->ewt_test);
        h = (d0 < 1e-5 || d1 < 1e-5) ? 1e-6 : 0.01 * d0 / d1;
        h = fmin(h, t_stop - d->t);
        if (d->h0_max > 0.0)
            h = fmin(h, d->h0_max);
    }
    h = fmin(h, d->h_max);
    h = fmax(h, 4.0 * hy_roundoff_floor(d->t));
    d->h = fmax(h, d->h_min);
    d->h_chosen = 1;
}

/* What the step must redo after a failed attempt: h *= factor, no
** extrapolated starting values, and a new J unless it is from t_n. */
static void after_failure(radau_mem *d, double factor)
{
    d->h *= factor;
    d->last_rejected = 1;
    d->unexpected_failure |= d->n_steps_since_init > 0;
    if (!d->jac_current)
        d->want_jac = 1;
}

/* The order of the next step after an accepted one of size h ([HW99]'s
** strategy, as RADAU's documentation states its parameters): the Newton
** contraction, smoothed as max(theta, theta_old / 2) so that one slow
** iteration weighs for a few steps, decides. Fast convergence (<= vitu,
** measured: at least two iterations, not the bound thet of one)
** over RADAU_KEEP_ORDER steps at an unchanged step size (h_new / h in
** (hhod, hhou)) means the stages are cheap to solve: 2 more stages, order
** + 4. Slow convergence (>= vitd) or a failed attempt in this step after
** the first step: 2 fewer, but not below ns_floor (select_methods: order
** 9 at rtol <= 1e-6). The new method starts from the old one's
** collocation polynomial (starting_values), with new factorisations and
** without Gustafsson's memory (its error is of another order). */
static void select_order(radau_mem *d, double h, int n_iters)
{
    d->n_at_order++;
    if (d->ns_min == d->ns_max)
        return;
    d->theta_smooth = fmin(10.0, fmax(d->theta, 0.5 * d->theta_smooth));
    int ns = d->k->ns, ns_new = ns;
    double h_ratio = d->h / h;
    if (d->unexpected_failure || d->theta_smooth >= RADAU_VITD)
        ns_new = ns - 2;
    else if (n_iters >= 2 && d->theta_smooth <= RADAU_VITU && h_ratio > RADAU_HHOD
             && h_ratio < RADAU_HHOU && d->n_at_order >= RADAU_KEEP_ORDER)
        ns_new = ns + 2;
    if (ns_new == ns || ns_new < d->ns_floor || ns_new > d->ns_max)
        return;
    radau_coef *k_new = &d->methods[(ns_new - 3) / 2];
    if (k_new->ns != ns_new && hy_radau_coef_init(k_new, ns_new) != 0)
        return;
    d->k = k_new;
    d->n_at_order = 0;
    d->h_lu = 0.0;
    d->gustafsson_valid = 0;
}

/* F(t_n, y_n, y'_n), J and the factors for step h, as needed. */
static int prepare_attempt(radau_mem *d, double h)
{
    if (!d->res0_valid) {
        int status = hy_eval_res(&d->dae, &d->head, d->t, d->y, d->yp, d->res0);
        if (status != HY_EVAL_OK)
            return status;
        d->res0_valid = 1;
    }
    if (d->want_jac || !d->jac_valid) {
        int status = hy_radau_eval_jacobian(d, h);
        if (status != HY_EVAL_OK)
            return status;
        d->want_jac = 0;
    }
    return d->h_lu == h ? HY_EVAL_OK : hy_radau_factor_matrices(d, h);
}

static int radau_step(void *mem, double t_stop, double *t_new)
{
    radau_mem *d = mem;
    if (d == NULL || t_new == NULL || !d->initialized)
        return HYDAE_ERR_ARG;
    *t_new = d->t;
    if (!(t_stop >= d->t) || !isfinite(t_stop))
        return HYDAE_ERR_ARG;
    if (t_stop - d->t <= hy_roundoff_floor(t_stop)) {
        d->t = t_stop;
        *t_new = t_stop;
        return HY_TSTOP;
    }
    if (!d->h_chosen)
        choose_initial_step(d, t_stop);
    d->unexpected_failure = 0;
    int n_singular = 0, last_failure = HYDAE_ERR_ERRTEST;
    for (int attempt = 0; attempt < RADAU_MAX_REJECTS; attempt++) {
        d->h = fmin(d->h, d->h_max);
        double dist = t_stop - d->t;
        int lands = d->h >= dist - fmax(100.0 * DBL_EPSILON * fabs(t_stop), 1e-3 * d->h);
        double h = lands ? dist : d->h;
        double h_floor = fmax(d->h_min, hy_roundoff_floor(d->t));
        if (!lands && (h < h_floor || d->t + h == d->t))
            return HYDAE_ERR_HMIN;
        int status = prepare_attempt(d, h);
        if (status == HY_EVAL_SINGULAR) {
            d->head.stats.n_conv_fails++;
            d->h = h;
            after_failure(d, 0.5);
            if (++n_singular >= RADAU_MAX_SINGULAR)
                return HYDAE_ERR_SINGULAR;
            continue;
        }
        if (status != HY_EVAL_OK)
            return hy_eval_error(status, 0);
        scale_weights(d, h);
        starting_values(d, h);
        newton_result nr = solve_stages(d, h);
        if (nr.status != HY_EVAL_OK) {
            if (nr.status != HY_EVAL_NO_CONV)
                return hy_eval_error(nr.status, 0);
            d->head.stats.n_conv_fails++;
            d->h = h;
            after_failure(d, nr.h_factor);
            last_failure = HYDAE_ERR_CONV;
            continue;
        }
        double err;
        status = estimate_error(d, h, &err);
        if (status != HY_EVAL_OK)
            return hy_eval_error(status, 0);
        int accepted = err < 1.0;
        double h_new = next_step_size(d, h, err, nr.n_iters, accepted);
        if (accepted) {
            accept_step(d, h, h_new, lands ? t_stop : d->t + h);
            select_order(d, h, nr.n_iters);
            *t_new = d->t;
            return lands ? HY_TSTOP : HYDAE_OK;
        }
        d->head.stats.n_err_fails++;
        d->head.worst = hy_argmax_weighted(d->n, d->err, d->w_err);
        d->h = h;
        after_failure(d, d->n_steps_since_init == 0 ? 0.1 : h_new / h);
        last_failure = HYDAE_ERR_ERRTEST;
    }
    return last_failure;
}

/* y and y' at t in [t_prev, t_n] from the collocation polynomial of the
** last step, u(t_prev + s h) = y_prev + sum_i l_i(s) Z_i (its value at
** s = 1 is y_n exactly). */
static int radau_dense(void *mem, double t, double *y, double *yp)
{
    radau_mem *d = mem;
    if (d == NULL || !d->initialized || !hy_dense_covers(t, d->t_prev, d->t))
        return HYDAE_ERR_ARG;
    int n = d->n;
    if (d->n_steps_since_init == 0 || t == d->t) {
        if (y)
            memcpy(y, d->y, (size_t)n * sizeof(double));
        if (yp)
            memcpy(yp, d->yp, (size_t)n * sizeof(double));
        return HYDAE_OK;
    }
    int ns = d->k_acc->ns;
    double l[RADAU_MAX_NS], dl[RADAU_MAX_NS];
    hy_radau_basis(d->k_acc, 1.0 + (t - d->t) / d->h_step, l, dl);
    for (int i = 0; i < n; i++) {
        double value = d->y_prev[i], deriv = dl[0] * d->z_acc[i];
        for (int m = 0; m < ns; m++)
            value += l[m] * STAGE(d->z_acc, m, n)[i];
        for (int m = 1; m < ns; m++)
            deriv += dl[m] * STAGE(d->z_acc, m, n)[i];
        if (y)
            y[i] = value;
        if (yp)
            yp[i] = deriv / d->h_step;
    }
    return HYDAE_OK;
}

/* ------------------------------------------------------------------------
** The descriptor's functions
*/

static void radau_destroy(void *mem);

static void *radau_create(int n)
{
    if (n <= 0)
        return NULL;
    radau_mem *d = hy_calloc(1, sizeof *d);
    if (d == NULL)
        return NULL;
    size_t len = (size_t)n, len3 = RADAU_MAX_NS * len;
    d->n = n;
    d->rtol = hy_malloc(len * sizeof(double));
    d->atol = hy_malloc(len * sizeof(double));
    d->in_err_test = hy_malloc(len);
    d->y = hy_malloc(len * sizeof(double));
    d->yp = hy_malloc(len * sizeof(double));
    d->y_prev = hy_malloc(len * sizeof(double));
    d->z_acc = hy_calloc(len3, sizeof(double));
    d->z = hy_calloc(len3, sizeof(double));
    d->v = hy_calloc(len3, sizeof(double));
    d->g = hy_malloc(len3 * sizeof(double));
    d->dv = hy_malloc(len3 * sizeof(double));
    d->stage_y = hy_malloc(len * sizeof(double));
    d->stage_yp = hy_malloc(len * sizeof(double));
    d->res0 = hy_malloc(len * sizeof(double));
    d->res_pert = hy_malloc(len * sizeof(double));
    d->ewt = hy_malloc(len * sizeof(double));
    d->ewt_test = hy_malloc(len * sizeof(double));
    d->err = hy_malloc(len * sizeof(double));
    d->err_rhs = hy_malloc(len * sizeof(double));
    d->w_newton = hy_malloc(len * sizeof(double));
    d->w_err = hy_malloc(len * sizeof(double));
    d->var_index = hy_malloc(len);
    if (!d->w_newton || !d->w_err || !d->var_index || !d->rtol || !d->atol || !d->in_err_test || !d->y || !d->yp || !d->y_prev || !d->z_acc
        || !d->z || !d->v || !d->g || !d->dv || !d->stage_y || !d->stage_yp || !d->res0 || !d->res_pert
        || !d->ewt || !d->ewt_test || !d->err || !d->err_rhs) {
        radau_destroy(d);
        return NULL;
    }
    d->head.worst = -1;
    return d;
}

static void radau_destroy(void *mem)
{
    radau_mem *d = mem;
    if (d == NULL)
        return;
    double *vectors[] = {d->rtol, d->atol, d->y, d->yp, d->y_prev, d->z_acc, d->z, d->v,
                         d->g, d->dv, d->stage_y, d->stage_yp, d->res0, d->res_pert, d->ewt,
                         d->ewt_test, d->err, d->err_rhs, d->w_newton, d->w_err};
    for (size_t k = 0; k < sizeof vectors / sizeof vectors[0]; k++)
        hy_free(vectors[k]);
    hy_free(d->in_err_test);
    hy_free(d->var_index);
    for (int p = 0; p < RADAU_MAX_PAIRS; p++)
        hy_zlinsol_free(d->e2[p]);
    hy_matrix_free(&d->jac_yp);
    hy_matrix_free(&d->e1_values);
    hy_itmat_free(&d->iter);
    hy_free(d);
}

/* The tolerances of opt as given, and fnewt from the smallest rtol
** transformed as [HW-doc]: rtol' = 0.1 rtol^(2/3) for s = 3, and with the
** exponent (s + 1)/(2 s) for s stages (our generalisation: the estimate's
** order s + 1 over that of the method, 2 s). (RADAU5 also runs its
** error test at rtol' and atol' = atol rtol' / rtol, looser than asked
** below rtol = 1e-3, by a factor 46 at 1e-8; here the test uses the
** tolerances as given, like every other integrator of hydae, so that one
** integr_tol means the same local error test for all of them.) */
static int set_tolerances(radau_mem *d, const hy_options *opt)
{
    if (hy_copy_tolerances(d->n, opt, 1, d->rtol, d->atol) != 0)
        return -1;
    double rtol_min = INFINITY;
    for (int i = 0; i < d->n; i++)
        rtol_min = fmin(rtol_min, d->rtol[i]);
    for (int m = 0; m < RADAU_N_METHODS; m++) {
        int ns = 2 * m + 3;
        double rtol_newton = 0.1 * pow(rtol_min, (ns + 1.0) / (2.0 * ns));
        d->fnewt[m] = rtol_newton > 0.0 ? fmax(10.0 * DBL_EPSILON / rtol_newton,
                                               fmin(0.03, sqrt(rtol_newton)))
                                        : 0.03;
    }
    return 0;
}

/* The stages the run may use for opt->radau_order (0: automatic, 5, 9,
** 13), and the coefficients of the first method (the others when
** select_order first takes them; kept across init()). 0, or -1 for
** another order. */
static int select_methods(radau_mem *d, int order)
{
    if (order != 0 && order != 5 && order != 9 && order != 13)
        return -1;
    d->ns_min = order == 0 ? 3 : (order + 1) / 2;
    d->ns_max = order == 0 ? RADAU_MAX_NS : d->ns_min;
    d->ns_floor = d->ns_min;
    double rtol_min = INFINITY;
    for (int i = 0; i < d->n; i++)
        rtol_min = fmin(rtol_min, d->rtol[i]);
    if (order == 0 && rtol_min <= RADAU_ORDER9_RTOL && !d->has_index)
        d->ns_floor = 5;
    radau_coef *k = &d->methods[(d->ns_min - 3) / 2];
    return k->ns == d->ns_min ? 0 : hy_radau_coef_init(k, d->ns_min);
}

static int radau_init(void *mem, const hy_dae *dae, double t0, const double *y0,
                      const double *yp0, const hy_options *opt)
{
    radau_mem *d = mem;
    if (d == NULL || dae == NULL || opt == NULL || y0 == NULL || yp0 == NULL)
        return HYDAE_ERR_ARG;
    d->initialized = 0;
    int n = d->n;
    if (dae->n != n || dae->res == NULL || !isfinite(t0)
        || hy_step_bounds(opt, &d->h_min, &d->h_max) != 0 || set_tolerances(d, opt) != 0
        || !hy_all_finite(n, y0) || !hy_all_finite(n, yp0) || opt->corrector_maxit < 0
        || !(opt->h0_max >= 0.0))
        return HYDAE_ERR_ARG;
    for (int i = 0; i < n; i++) {
        int suppressed = opt->suppress_alg && dae->is_algebraic != NULL && dae->is_algebraic[i];
        int excluded = opt->err_test_exclude != NULL && opt->err_test_exclude[i];
        d->in_err_test[i] = !(suppressed || excluded);
    }
    d->dae = *dae;
    d->has_index = 0;
    for (int i = 0; i < n; i++) {
        int index = opt->var_index != NULL ? opt->var_index[i] : 1;
        if (index > 3)
            return HYDAE_ERR_ARG;
        d->var_index[i] = (unsigned char)(index < 1 ? 1 : index);
        d->has_index |= index > 1;
    }
    d->h_user = opt->h0;
    d->h0_max = opt->h0_max;
    d->max_newton_iters = opt->corrector_maxit > 0 ? opt->corrector_maxit : RADAU_NIT;
    if (select_methods(d, opt->radau_order) != 0)
        return HYDAE_ERR_ARG;
    d->newton_debug = opt->newton_debug;
    d->debug_ctx = opt->debug_ctx;
    int status = hy_itmat_setup(&d->iter, dae, opt->linear_solver, 1);
    if (status != 0)
        return status;
    status = hy_radau_setup_matrices(d);
    if (status != 0)
        return status;
    if (set_weights(d, y0, 0) != 0)
        return HYDAE_ERR_ARG;
    memcpy(d->y, y0, (size_t)n * sizeof(double));
    memcpy(d->yp, yp0, (size_t)n * sizeof(double));
    d->t = d->t_prev = t0;
    d->h = d->h_step = 0.0;
    d->h_acc = 0.0;
    d->err_acc = 1e-2;
    d->h_chosen = 0;
    d->n_steps_since_init = 0;
    d->last_rejected = 0;
    d->theta = 1.0;
    d->faccon = 1.0;
    d->k = d->k_acc = &d->methods[(d->ns_min - 3) / 2];
    d->theta_smooth = 0.0;
    d->n_at_order = 0;
    d->unexpected_failure = 0;
    d->gustafsson_valid = 0;
    d->jac_current = d->jac_valid = 0;
    d->want_jac = 1;
    d->h_lu = 0.0;
    d->res0_valid = 0;
    d->head.worst = -1;
    d->head.stats.h_last = 0.0;
    d->head.stats.order_last = 0;
    d->initialized = 1;
    return HYDAE_OK;
}

const hy_integrator_ops hy_radau = {
    .name = "RADAU",
    .create = radau_create,
    .init = radau_init,
    .step = radau_step,
    .dense = radau_dense,
    .get_stats = hy_get_stats,
    .worst_component = hy_worst_component,
    .destroy = radau_destroy,
    .needs_rhs = 0,
    .fixed_step = 0,
    .uses_matrix = 1,
    .max_order = 0,
};
