/*
** The Radau IIA coefficients of integrators/radau_coef.c for s = 3, 5, 7
** checked against their defining relations ([HW] Hairer & Wanner, Solving
** ODEs II, IV.5 and IV.8), computed here independently in double:
** - the nodes: the quadrature b on them (b from the conditions of degree
**   < s) is exact up to degree 2s - 2 (Radau right quadrature), c_s = 1;
** - W = A^-1 differentiates the collocation polynomials: sum_j w_ij c_j^m
**   = m c_i^(m-1), m = 1..s;
** - T: W T = T diag(gamma, [alpha_k -beta_k; beta_k alpha_k]) and T^-1 T
**   = I; gamma and alpha_k +- i beta_k are zeros of the Pade denominator
**   det(I - z A) = Q(z) (IV.3), evaluated from its closed-form coefficients;
** - the error estimate vanishes on polynomial solutions of degree <= s:
**   gamma0 [m = 1] + sum_j (e_j / gamma) c_j^m = 0, m = 1..s, gamma0 =
**   1/gamma, and not for m = s + 1 (the estimate is of order s exactly);
** - s = 3: the published gamma, alpha, beta (gamma = 30 / (6 + 81^(1/3)
**   - 9^(1/3)));
** - what RADAU runs (hy_radau_coef_init: published for s = 3, tabulated in
**   radau_coef_tab.h for 5, 7) against the computation from the
**   definitions (hy_radau_coef_compute), to 1e-14; for s = 3 the
**   quantities independent of the eigenvectors' scaling.
** With --print-tables it writes radau_coef_tab.h from the computation.
*/
#include "check.h"
#include "integrators/radau_coef.h"

#include <complex.h>
#include <math.h>
#include <string.h>

/* Q(z) = sum_j (2s-1-j)! s! / ((2s-1)! j! (s-j)!) (-z)^j. */
static double complex pade_q(int s, double complex z)
{
    double complex sum = 0.0;
    for (int j = 0; j <= s; j++) {
        double coef = tgamma(2 * s - j) * tgamma(s + 1)
                      / (tgamma(2 * s) * tgamma(j + 1) * tgamma(s - j + 1));
        sum += coef * cpow(-z, j);
    }
    return sum;
}

static void check_set(int ns)
{
    radau_coef k;
    CHECK(hy_radau_coef_init(&k, ns) == 0, "s = %d: coefficients", ns);
    CHECK(k.ns == ns && k.order == 2 * ns - 1 && k.c[ns - 1] == 1.0, "s = %d: header", ns);
    /* b from m < s by Gaussian elimination, then exactness for m < 2s - 1. */
    double v[RADAU_MAX_NS][RADAU_MAX_NS + 1];
    for (int m = 0; m < ns; m++) {
        for (int j = 0; j < ns; j++)
            v[m][j] = pow(k.c[j], m);
        v[m][ns] = 1.0 / (m + 1);
    }
    for (int p = 0; p < ns; p++)
        for (int i = p + 1; i < ns; i++) {
            double f = v[i][p] / v[p][p];
            for (int j = p; j <= ns; j++)
                v[i][j] -= f * v[p][j];
        }
    double b[RADAU_MAX_NS];
    for (int i = ns - 1; i >= 0; i--) {
        b[i] = v[i][ns];
        for (int j = i + 1; j < ns; j++)
            b[i] -= v[i][j] * b[j];
        b[i] /= v[i][i];
    }
    double worst = 0.0;
    for (int m = ns; m <= 2 * ns - 2; m++) {
        double sum = 0.0;
        for (int j = 0; j < ns; j++)
            sum += b[j] * pow(k.c[j], m);
        worst = fmax(worst, fabs(sum - 1.0 / (m + 1)));
    }
    CHECK(worst < 1e-13, "s = %d: Radau quadrature off by %g", ns, worst);
    worst = 0.0;
    for (int i = 0; i < ns; i++)
        for (int m = 1; m <= ns; m++) {
            double sum = 0.0;
            for (int j = 0; j < ns; j++)
                sum += k.w[i][j] * pow(k.c[j], m);
            worst = fmax(worst, fabs(sum - m * pow(k.c[i], m - 1)) / (1.0 + m));
        }
    CHECK(worst < 1e-11, "s = %d: W does not differentiate: %g", ns, worst);
    /* W T = T Lambda and T^-1 T = I, relative to the largest entries. */
    double lambda[RADAU_MAX_NS][RADAU_MAX_NS] = {{0}};
    lambda[0][0] = k.gamma;
    for (int p = 0; p < k.n_pairs; p++) {
        int a = 2 * p + 1;
        lambda[a][a] = lambda[a + 1][a + 1] = k.alpha[p];
        lambda[a][a + 1] = -k.beta[p];
        lambda[a + 1][a] = k.beta[p];
    }
    double worst_eig = 0.0, worst_inv = 0.0, scale = 0.0;
    for (int i = 0; i < ns; i++)
        for (int j = 0; j < ns; j++)
            scale = fmax(scale, fabs(k.t[i][j]));
    for (int i = 0; i < ns; i++)
        for (int j = 0; j < ns; j++) {
            double wt = 0.0, tl = 0.0, tit = 0.0;
            for (int m = 0; m < ns; m++) {
                wt += k.w[i][m] * k.t[m][j];
                tl += k.t[i][m] * lambda[m][j];
                tit += k.ti[i][m] * k.t[m][j];
            }
            worst_eig = fmax(worst_eig, fabs(wt - tl) / (scale * (1.0 + fabs(lambda[j][j]))));
            worst_inv = fmax(worst_inv, fabs(tit - (i == j)));
        }
    CHECK(worst_eig < 1e-12, "s = %d: W T != T Lambda by %g", ns, worst_eig);
    CHECK(worst_inv < 1e-12, "s = %d: T^-1 T != I by %g", ns, worst_inv);
    CHECK(cabs(pade_q(ns, k.gamma)) < 1e-12, "s = %d: Q(gamma) = %g", ns,
          cabs(pade_q(ns, k.gamma)));
    for (int p = 0; p < k.n_pairs; p++) {
        double complex zq = pade_q(ns, k.alpha[p] + I * k.beta[p]);
        CHECK(cabs(zq) < 1e-11 && k.beta[p] > 0.0, "s = %d: Q(alpha + i beta) = %g", ns,
              cabs(zq));
    }
    /* The error estimate: zero on degrees 1..s, not on s + 1. */
    worst = 0.0;
    double at_next = 0.0;
    for (int m = 1; m <= ns + 1; m++) {
        double sum = m == 1 ? 1.0 / k.gamma : 0.0;
        for (int j = 0; j < ns; j++)
            sum += k.e[j] / k.gamma * pow(k.c[j], m);
        if (m <= ns)
            worst = fmax(worst, fabs(sum));
        else
            at_next = fabs(sum);
    }
    CHECK(worst < 1e-12, "s = %d: error estimate not zero on polynomials: %g", ns, worst);
    CHECK(at_next > 1e-6, "s = %d: error estimate zero at degree s + 1: %g", ns, at_next);
    printf("s = %d: gamma %.17g, |W T - T Lambda| %.1e, |T^-1 T - I| %.1e\n", ns, k.gamma,
           worst_eig, worst_inv);
}

/* |a - b| <= 1e-14 max(1, |b|) over count numbers; the largest such
** relative difference. */
static double relative_difference(const double *a, const double *b, int count)
{
    double worst = 0.0;
    for (int i = 0; i < count; i++)
        worst = fmax(worst, fabs(a[i] - b[i]) / fmax(1.0, fabs(b[i])));
    return worst;
}

static void check_tables(int ns)
{
    radau_coef run, def;
    CHECK(hy_radau_coef_init(&run, ns) == 0 && hy_radau_coef_compute(&def, ns) == 0,
          "s = %d: coefficients", ns);
    double worst = relative_difference(run.c, def.c, RADAU_MAX_NS);
    worst = fmax(worst, relative_difference(&run.w[0][0], &def.w[0][0], RADAU_MAX_NS * RADAU_MAX_NS));
    worst = fmax(worst, relative_difference(run.e, def.e, RADAU_MAX_NS));
    worst = fmax(worst, relative_difference(&run.gamma, &def.gamma, 1));
    worst = fmax(worst, relative_difference(run.alpha, def.alpha, RADAU_MAX_PAIRS));
    worst = fmax(worst, relative_difference(run.beta, def.beta, RADAU_MAX_PAIRS));
    if (ns > 3) {
        worst = fmax(worst, relative_difference(&run.t[0][0], &def.t[0][0], RADAU_MAX_NS * RADAU_MAX_NS));
        worst = fmax(worst, relative_difference(&run.ti[0][0], &def.ti[0][0], RADAU_MAX_NS * RADAU_MAX_NS));
    }
    printf("s = %d: run against computed, largest relative difference %.2g\n", ns, worst);
    CHECK(worst <= 1e-14, "s = %d: the coefficients run differ from the computed by %g", ns,
          worst);
}

/* {v0, v1, ...} after prefix, three numbers a line. */
static void print_row(const double *v, int count, const char *prefix)
{
    printf("%s{", prefix);
    for (int i = 0; i < count; i++) {
        printf("%.17g", v[i]);
        if (i + 1 < count)
            printf(i % 3 == 2 ? ",\n%*s" : ", ", (int)strlen(prefix) + 1, "");
    }
    printf("}");
}

static void print_matrix(const char *name, const double m[RADAU_MAX_NS][RADAU_MAX_NS], int ns)
{
    printf("    .%s = {\n", name);
    for (int i = 0; i < ns; i++) {
        print_row(m[i], ns, "        ");
        printf(",\n");
    }
    printf("    },\n");
}

/* radau_coef_tab.h from hy_radau_coef_compute. */
static int print_tables(void)
{
    printf("/*\n** The Radau IIA coefficients for s = 5 and 7 stages (orders 9 and 13)\n"
           "** that RADAU runs: radau_coef.c's computation from their definitions on\n"
           "** x86-64 (80-bit long double), printed to 17 digits (exact in double) by\n"
           "** `test_radau_coef --print-tables`. Do not edit: tests/test_radau_coef.c\n"
           "** checks them against the computation and their defining relations.\n*/\n"
           "#ifndef HY_RADAU_COEF_TAB_H\n#define HY_RADAU_COEF_TAB_H\n");
    for (int ns = 5; ns <= 7; ns += 2) {
        radau_coef k;
        if (hy_radau_coef_compute(&k, ns) != 0)
            return 1;
        printf("\nstatic const radau_coef radau_table%d = {\n", ns);
        printf("    .ns = %d,\n    .order = %d,\n    .n_pairs = %d,\n", k.ns, k.order, k.n_pairs);
        print_row(k.c, ns, "    .c = ");
        printf(",\n");
        print_matrix("w", k.w, ns);
        print_matrix("t", k.t, ns);
        print_matrix("ti", k.ti, ns);
        printf("    .gamma = %.17g,\n", k.gamma);
        print_row(k.alpha, k.n_pairs, "    .alpha = ");
        printf(",\n");
        print_row(k.beta, k.n_pairs, "    .beta = ");
        printf(",\n");
        print_row(k.e, ns, "    .e = ");
        printf(",\n};\n");
    }
    printf("\n#endif\n");
    return 0;
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "--print-tables") == 0)
        return print_tables();
    for (int ns = 3; ns <= 7; ns += 2) {
        check_set(ns);
        check_tables(ns);
    }
    radau_coef k;
    CHECK(hy_radau_coef_init(&k, 4) != 0, "s = 4 refused");
    CHECK(hy_radau_coef_init(&k, 3) == 0, "s = 3");
    double gamma = 30.0 / (6.0 + cbrt(81.0) - cbrt(9.0));
    CHECK_NEAR(k.gamma, gamma, 1e-14, "s = 3: gamma");
    /* alpha + i beta: the other zeros of Q, from gamma by deflation:
    ** z^2 - (9 - gamma) z + 60 / gamma = 0 (Q(z) * -60 = z^3 - 9 z^2 +
    ** 36 z - 60). */
    double sum = 9.0 - gamma, prod = 60.0 / gamma;
    CHECK_NEAR(k.alpha[0], sum / 2.0, 1e-14, "s = 3: alpha");
    CHECK_NEAR(k.beta[0], sqrt(prod - sum * sum / 4.0), 1e-14, "s = 3: beta");
    return CHECK_DONE();
}
