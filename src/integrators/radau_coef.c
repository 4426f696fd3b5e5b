/*
** Radau IIA coefficients for s = 3, 5, 7 stages (orders 5, 9, 13),
** computed in long double from their definitions and rounded to double:
**
**   [HW] E. Hairer, G. Wanner, "Solving Ordinary Differential Equations
**        II", 2nd ed., Springer 1996. IV.5: the nodes c_i are the zeros of
**        d^(s-1)/dx^(s-1) (x^(s-1) (x - 1)^s), i.e. of P_s(2x - 1) -
**        P_(s-1)(2x - 1) with the Legendre polynomials P_k, c_s = 1; the
**        method is collocation on them. IV.3, IV.5: its stability function
**        is the (s-1, s) Pade approximation P(z)/Q(z) of e^z, Q(z) =
**        sum_j (2s-1-j)! s! / ((2s-1)! j! (s-j)!) (-z)^j, and det(I - z A)
**        = Q(z), so the eigenvalues of W = A^-1 are the zeros of Q: one
**        real, gamma, and (s - 1)/2 complex pairs. IV.8: the transformed
**        Newton iteration (T^-1 W T block diagonal) and the embedded error
**        estimate y^_1 - y_1 = gamma0 h f(x0, y0) + sum_j e_j Z_j with
**        gamma0 = 1/gamma, whose weights bhat_0 = gamma0, bhat_1..s make a
**        quadrature of order s on the nodes 0, c_1, ..., c_s.
**   [HW99] E. Hairer, G. Wanner, "Stiff differential equations solved by
**        Radau methods", J. Comput. Appl. Math. 111 (1999) 93-111: the
**        same construction for s = 3, 5, 7 in their code RADAU.
**
** W is the differentiation matrix of the collocation polynomial on 0,
** c_1..c_s (w_ij = l_j'(c_i), the inverse of a_ij = int_0^c_i l_j). Each
** eigenvector v of W (for gamma, and for alpha - i beta, beta > 0) is the
** solution of (W - lambda I) v = 0 with v_s = 1.
**
** What RADAU runs (hy_radau_coef_init): for s = 3 the published values of
** [HW] IV.8 (kept from radau.c), so that order 5 runs exactly as before;
** for s = 5 and 7 the values this computation gives on x86-64 (80-bit long
** double), tabulated in radau_coef_tab.h (`test_radau_coef
** --print-tables` writes it), so that results do not depend on the long
** double of the platform or of valgrind (which computes it in 64 bits:
** 229 of the 336 numbers then differ in their last bits) and no run pays
** for the computation. tests/test_radau_coef.c checks the tables against
** the computation and every set against its defining relations.
*/
#include "integrators/radau_coef.h"
#include "integrators/radau_coef_tab.h"

#include <complex.h>
#include <math.h>
#include <string.h>

typedef long double real;
typedef long double complex cplx;

/* |re| + |im|: a norm equivalent to the modulus, cheaper (pivots, steps). */
static real norm1(cplx z)
{
    return fabsl(creall(z)) + fabsl(cimagl(z));
}

#define NS_MAX RADAU_MAX_NS

/* ------------------------------------------------------------------------
** s = 3: the published values ([HW] IV.5, IV.8)
*/

#define SQRT6 2.449489742783178098197284
static const double radau3_c[3] = {(4.0 - SQRT6) / 10.0, (4.0 + SQRT6) / 10.0, 1.0};
static const double radau3_a[3][3] = {
    {(88.0 - 7.0 * SQRT6) / 360.0, (296.0 - 169.0 * SQRT6) / 1800.0, (-2.0 + 3.0 * SQRT6) / 225.0},
    {(296.0 + 169.0 * SQRT6) / 1800.0, (88.0 + 7.0 * SQRT6) / 360.0, (-2.0 - 3.0 * SQRT6) / 225.0},
    {(16.0 - SQRT6) / 36.0, (16.0 + SQRT6) / 36.0, 1.0 / 9.0},
};
/* gamma = 30 / (6 + 81^(1/3) - 9^(1/3)), alpha +- i beta, T and T^-1. */
static const double radau3_gamma = 3.637834252744495732;
static const double radau3_alpha = 2.681082873627752134;
static const double radau3_beta = 3.050430199247410570;
static const double radau3_t[3][3] = {
    {9.1232394870892942792e-02, -0.14125529502095420843, -3.0029194105147424492e-02},
    {0.24171793270710701896, 0.20412935229379993199, 0.38294211275726193779},
    {0.96604818261509293619, 1.0, 0.0},
};
static const double radau3_ti[3][3] = {
    {4.3255798900631553510, 0.33919925181580986954, 0.54177053993587487119},
    {-4.1787185915519047273, -0.32768282076106238708, 0.47662355450055045196},
    {-0.50287263494578687595, 2.5719269498556054292, -0.59603920482822492497},
};
static const double radau3_e[3] = {-(13.0 + 7.0 * SQRT6) / 3.0, (-13.0 + 7.0 * SQRT6) / 3.0,
                                   -1.0 / 3.0};

static void published_order5(radau_coef *k)
{
    const double (*a)[3] = radau3_a;
    /* W = A^-1 by cofactors. */
    double det = a[0][0] * (a[1][1] * a[2][2] - a[1][2] * a[2][1])
                 - a[0][1] * (a[1][0] * a[2][2] - a[1][2] * a[2][0])
                 + a[0][2] * (a[1][0] * a[2][1] - a[1][1] * a[2][0]);
    for (int i = 0; i < 3; i++) {
        k->c[i] = radau3_c[i];
        k->e[i] = radau3_e[i];
        for (int j = 0; j < 3; j++) {
            int r1 = (j + 1) % 3, r2 = (j + 2) % 3, c1 = (i + 1) % 3, c2 = (i + 2) % 3;
            k->w[i][j] = (a[r1][c1] * a[r2][c2] - a[r1][c2] * a[r2][c1]) / det;
            k->t[i][j] = radau3_t[i][j];
            k->ti[i][j] = radau3_ti[i][j];
        }
    }
    k->gamma = radau3_gamma;
    k->alpha[0] = radau3_alpha;
    k->beta[0] = radau3_beta;
}

/* ------------------------------------------------------------------------
** s = 5, 7: computed
*/

/* P_s(2x - 1) - P_(s-1)(2x - 1), Legendre's three-term recurrence
** (m + 1) P_(m+1) = (2m + 1) u P_m - m P_(m-1). */
static real radau_polynomial(int s, real x)
{
    real u = 2.0L * x - 1.0L, p_prev = 1.0L, p = u;
    for (int m = 1; m < s; m++) {
        real next = ((2 * m + 1) * u * p - m * p_prev) / (m + 1);
        p_prev = p;
        p = next;
    }
    return p - p_prev;
}

/* The s - 1 zeros in (0, 1) by a sign scan and bisection; c[s-1] = 1. */
static int radau_nodes(int s, real *c)
{
    enum { N_GRID = 512 };      /* the nodes are >= 0.029 apart for s <= 7 */
    int found = 0;
    real x_lo = 0.0L, p_lo = radau_polynomial(s, x_lo);
    for (int g = 1; g < N_GRID && found < s - 1; g++) {
        real x_hi = (real)g / N_GRID, p_hi = radau_polynomial(s, x_hi);
        if ((p_lo < 0) != (p_hi < 0)) {
            real a = x_lo, b = x_hi, pa = p_lo;
            for (int it = 0; it < 200; it++) {
                real mid = 0.5L * (a + b);
                if (mid <= a || mid >= b)
                    break;
                real pm = radau_polynomial(s, mid);
                if ((pm < 0) == (pa < 0)) {
                    a = mid;
                    pa = pm;
                } else {
                    b = mid;
                }
            }
            c[found++] = 0.5L * (a + b);
        }
        x_lo = x_hi;
        p_lo = p_hi;
    }
    c[s - 1] = 1.0L;
    return found == s - 1 ? 0 : -1;
}

/* x = M^-1 b for an n x n complex M (row-major in m, overwritten),
** Gaussian elimination with partial pivoting. 0, or -1 if singular. */
static int solve_complex(int n, cplx m[NS_MAX][NS_MAX], cplx *b)
{
    for (int k = 0; k < n; k++) {
        int p = k;
        for (int i = k + 1; i < n; i++)
            if (norm1(m[i][k]) > norm1(m[p][k]))
                p = i;
        if (norm1(m[p][k]) == 0.0L)
            return -1;
        for (int j = 0; j < n; j++) {
            cplx s = m[k][j];
            m[k][j] = m[p][j];
            m[p][j] = s;
        }
        cplx s = b[k];
        b[k] = b[p];
        b[p] = s;
        for (int i = k + 1; i < n; i++) {
            cplx f = m[i][k] / m[k][k];
            for (int j = k; j < n; j++)
                m[i][j] -= f * m[k][j];
            b[i] -= f * b[k];
        }
    }
    for (int i = n - 1; i >= 0; i--) {
        for (int j = i + 1; j < n; j++)
            b[i] -= m[i][j] * b[j];
        b[i] /= m[i][i];
    }
    return 0;
}

/* The collocation basis of hy_radau_basis in long double. */
static void basis_long(int ns, const real *c, real s, real *l, real *dl)
{
    for (int i = 0; i < ns; i++) {
        real denom = c[i], value = s, deriv = 1.0L;
        for (int j = 0; j < ns; j++) {
            if (j == i)
                continue;
            denom *= c[i] - c[j];
            deriv = deriv * (s - c[j]) + value;
            value *= s - c[j];
        }
        l[i] = value / denom;
        dl[i] = deriv / denom;
    }
}

static cplx eval_poly(int degree, const real *q, cplx z)
{
    cplx v = q[degree];
    for (int j = degree - 1; j >= 0; j--)
        v = v * z + q[j];
    return v;
}

/* The s zeros of Q ([HW] IV.3) by the Weierstrass (Durand-Kerner)
** iteration on the monic polynomial, then Newton on Q. */
static int pade_denominator_zeros(int s, cplx *z)
{
    real q[NS_MAX + 1], dq[NS_MAX + 1];
    real fact[2 * NS_MAX + 1];
    fact[0] = 1.0L;
    for (int i = 1; i <= 2 * s; i++)
        fact[i] = fact[i - 1] * i;
    for (int j = 0; j <= s; j++)
        q[j] = (j % 2 ? -1.0L : 1.0L) * fact[2 * s - 1 - j] * fact[s]
               / (fact[2 * s - 1] * fact[j] * fact[s - j]);
    for (int j = 0; j < s; j++)
        dq[j] = (j + 1) * q[j + 1];
    real monic[NS_MAX + 1];
    for (int j = 0; j <= s; j++)
        monic[j] = q[j] / q[s];
    real radius = powl(fabsl(monic[0]), 1.0L / s);  /* geometric mean of |z_k| */
    /* Starting points not symmetric about the real axis (Q is real). */
    cplx start = 0.4L + 0.9L * I, power = 1.0L;
    for (int k = 0; k < s; k++) {
        z[k] = radius * power;
        power *= start;
    }
    for (int it = 0; it < 500; it++) {
        real change = 0.0L;
        for (int k = 0; k < s; k++) {
            cplx den = 1.0L;
            for (int j = 0; j < s; j++)
                if (j != k)
                    den *= z[k] - z[j];
            cplx step = eval_poly(s, monic, z[k]) / den;
            z[k] -= step;
            change = fmaxl(change, norm1(step) / fmaxl(1.0L, norm1(z[k])));
        }
        if (change < 1e-12L)    /* then Newton on Q to full precision */
            break;
    }
    for (int k = 0; k < s; k++)
        for (int it = 0; it < 5; it++) {
            cplx d = eval_poly(s - 1, dq, z[k]);
            if (norm1(d) == 0.0L)
                return -1;
            z[k] -= eval_poly(s, q, z[k]) / d;
        }
    return 0;
}

/* v with (W - lambda I) v = 0 and v[ns-1] = 1. */
static int eigenvector(int ns, real w[NS_MAX][NS_MAX], cplx lambda, cplx *v)
{
    cplx m[NS_MAX][NS_MAX];
    for (int i = 0; i < ns - 1; i++) {
        for (int j = 0; j < ns - 1; j++)
            m[i][j] = w[i][j] - (i == j ? lambda : 0.0L);
        v[i] = -w[i][ns - 1];
    }
    v[ns - 1] = 1.0L;
    return solve_complex(ns - 1, m, v);
}

/* The eigenvalues of W (the zeros of Q, sorted: the real one, then pairs
** alpha_k - i beta_k by increasing beta) and T from their eigenvectors. */
static int transformation(int ns, real w[NS_MAX][NS_MAX], real t[NS_MAX][NS_MAX],
                          real *gamma, real *alpha, real *beta)
{
    cplx z[NS_MAX];
    if (pade_denominator_zeros(ns, z) != 0)
        return -1;
    int i_real = 0;
    for (int k = 1; k < ns; k++)
        if (fabsl(cimagl(z[k])) < fabsl(cimagl(z[i_real])))
            i_real = k;
    *gamma = creall(z[i_real]);
    int n_pairs = 0;
    for (int k = 0; k < ns; k++)
        if (cimagl(z[k]) < 0.0L && k != i_real) {
            int p = n_pairs++;
            while (p > 0 && beta[p - 1] > -cimagl(z[k])) {
                alpha[p] = alpha[p - 1];
                beta[p] = beta[p - 1];
                p--;
            }
            alpha[p] = creall(z[k]);
            beta[p] = -cimagl(z[k]);
        }
    if (n_pairs != (ns - 1) / 2)
        return -1;
    cplx v[NS_MAX];
    if (eigenvector(ns, w, *gamma, v) != 0)
        return -1;
    for (int i = 0; i < ns; i++)
        t[i][0] = creall(v[i]);
    for (int p = 0; p < n_pairs; p++) {
        if (eigenvector(ns, w, alpha[p] - I * beta[p], v) != 0)
            return -1;
        for (int i = 0; i < ns; i++) {
            t[i][2 * p + 1] = creall(v[i]);
            t[i][2 * p + 2] = cimagl(v[i]);
        }
    }
    return 0;
}

/* x = M^-1 b for a real M (copied), through solve_complex. */
static int solve_real(int n, real m[NS_MAX][NS_MAX], const real *b, real *x)
{
    cplx mc[NS_MAX][NS_MAX], xc[NS_MAX];
    for (int i = 0; i < n; i++) {
        xc[i] = b[i];
        for (int j = 0; j < n; j++)
            mc[i][j] = m[i][j];
    }
    if (solve_complex(n, mc, xc) != 0)
        return -1;
    for (int i = 0; i < n; i++)
        x[i] = creall(xc[i]);
    return 0;
}

static int computed(radau_coef *k, int ns)
{
    real c[NS_MAX], w[NS_MAX][NS_MAX], t[NS_MAX][NS_MAX], gamma;
    real alpha[RADAU_MAX_PAIRS], beta[RADAU_MAX_PAIRS];
    if (radau_nodes(ns, c) != 0)
        return -1;
    for (int i = 0; i < ns; i++) {
        real l[NS_MAX], dl[NS_MAX];
        basis_long(ns, c, c[i], l, dl);
        for (int j = 0; j < ns; j++)
            w[i][j] = dl[j];
    }
    if (transformation(ns, w, t, &gamma, alpha, beta) != 0)
        return -1;
    /* T^-1 column by column. */
    for (int j = 0; j < ns; j++) {
        real unit[NS_MAX] = {0}, col[NS_MAX];
        unit[j] = 1.0L;
        if (solve_real(ns, t, unit, col) != 0)
            return -1;
        for (int i = 0; i < ns; i++)
            k->ti[i][j] = (double)col[i];
    }
    /* bhat: sum_j bhat_j c_j^m = 1/(m+1) - gamma0 [m = 0], m < ns. */
    real vander[NS_MAX][NS_MAX], rhs[NS_MAX], bhat[NS_MAX];
    for (int m = 0; m < ns; m++) {
        for (int j = 0; j < ns; j++)
            vander[m][j] = powl(c[j], m);
        rhs[m] = 1.0L / (m + 1) - (m == 0 ? 1.0L / gamma : 0.0L);
    }
    if (solve_real(ns, vander, rhs, bhat) != 0)
        return -1;
    for (int j = 0; j < ns; j++) {
        real e = j == ns - 1 ? -1.0L : 0.0L;
        for (int i = 0; i < ns; i++)
            e += bhat[i] * w[i][j];
        k->e[j] = (double)(gamma * e);
        k->c[j] = (double)c[j];
        for (int i = 0; i < ns; i++) {
            k->w[i][j] = (double)w[i][j];
            k->t[i][j] = (double)t[i][j];
        }
    }
    k->gamma = (double)gamma;
    for (int p = 0; p < (ns - 1) / 2; p++) {
        k->alpha[p] = (double)alpha[p];
        k->beta[p] = (double)beta[p];
    }
    return 0;
}

static void set_basis_denominators(radau_coef *k)
{
    for (int i = 0; i < k->ns; i++) {
        double denom = k->c[i];
        for (int j = 0; j < k->ns; j++)
            if (j != i)
                denom *= k->c[i] - k->c[j];
        k->basis_den[i] = denom;
    }
}

static void clear(radau_coef *k, int ns)
{
    memset(k, 0, sizeof *k);
    k->ns = ns;
    k->order = 2 * ns - 1;
    k->n_pairs = (ns - 1) / 2;
}

int hy_radau_coef_compute(radau_coef *k, int ns)
{
    if (k == NULL || (ns != 3 && ns != 5 && ns != 7))
        return -1;
    clear(k, ns);
    if (computed(k, ns) != 0)
        return -1;
    set_basis_denominators(k);
    return 0;
}

int hy_radau_coef_init(radau_coef *k, int ns)
{
    if (k == NULL || (ns != 3 && ns != 5 && ns != 7))
        return -1;
    if (ns == 5)
        *k = radau_table5;
    else if (ns == 7)
        *k = radau_table7;
    else {
        clear(k, ns);
        published_order5(k);
    }
    set_basis_denominators(k);
    return 0;
}

void hy_radau_basis(const radau_coef *k, double s, double *l, double *dl)
{
    for (int i = 0; i < k->ns; i++) {
        double value = s, deriv = 1.0;
        for (int j = 0; j < k->ns; j++) {
            if (j == i)
                continue;
            deriv = deriv * (s - k->c[j]) + value;
            value *= s - k->c[j];
        }
        l[i] = value / k->basis_den[i];
        dl[i] = deriv / k->basis_den[i];
    }
}
