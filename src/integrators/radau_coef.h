/*
** The coefficients of the Radau IIA methods with s = 3, 5 and 7 stages
** (orders 5, 9 and 13) that RADAU (radau.c) runs: the nodes, W = A^-1,
** the transformation T with T^-1 W T block diagonal (one real eigenvalue
** gamma, (s - 1)/2 complex pairs alpha_k +- i beta_k), and the constants
** of the embedded error estimate. See radau_coef.c for their definitions.
*/
#ifndef HY_RADAU_COEF_H
#define HY_RADAU_COEF_H

#define RADAU_MAX_NS 7          /* stages of the highest order, 13 */
#define RADAU_MAX_PAIRS 3       /* complex pairs: (RADAU_MAX_NS - 1) / 2 */

typedef struct radau_coef {
    int ns;                     /* stages: 3, 5 or 7 */
    int order;                  /* 2 ns - 1 */
    int n_pairs;                /* (ns - 1) / 2 complex eigenvalue pairs */
    double c[RADAU_MAX_NS];     /* nodes, c[ns - 1] = 1 */
    double w[RADAU_MAX_NS][RADAU_MAX_NS];   /* W = A^-1 */
    double t[RADAU_MAX_NS][RADAU_MAX_NS];   /* columns: eigenvectors */
    double ti[RADAU_MAX_NS][RADAU_MAX_NS];  /* T^-1 */
    /* T^-1 W T = diag(gamma, [alpha_1 -beta_1; beta_1 alpha_1], ...):
    ** column 0 of T belongs to gamma, columns 2k + 1, 2k + 2 are the real
    ** and imaginary parts of an eigenvector of alpha_k - i beta_k. */
    double gamma;
    double alpha[RADAU_MAX_PAIRS], beta[RADAU_MAX_PAIRS];
    /* The error estimate's e_j = gamma sum_i (bhat_i - b_i) w_ij (Hairer
    ** & Wanner IV.8's e_j times gamma, radau.c). */
    double e[RADAU_MAX_NS];
    /* c_i prod_{j != i} (c_i - c_j): hy_radau_basis's denominators. */
    double basis_den[RADAU_MAX_NS];
} radau_coef;

/* The coefficients RADAU runs for ns = 3, 5 or 7 stages into k: the
** published ones (3), tabulated ones (5, 7). 0, or -1 for another ns. */
int hy_radau_coef_init(radau_coef *k, int ns);
/* The same computed from their definitions in long double (radau_coef.c).
** 0, or -1 for another ns or when a step fails (it does not for these). */
int hy_radau_coef_compute(radau_coef *k, int ns);

/* The collocation polynomial's basis on the nodes 0, c_1, ..., c_ns of k
** with value 0 at 0: l_i(s) = s / c_i prod_{j != i} (s - c_j) / (c_i -
** c_j), and l_i'(s). */
void hy_radau_basis(const radau_coef *k, double s, double *l, double *dl);

#endif
