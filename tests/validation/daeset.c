/*
** The index-1 DAE problems of daeset.h, written from the problem
** definitions of the Test Set for IVP Solvers report (Mazzia & Magherini,
** release 2.4, 2008). Reference values copied digit for digit from
** ../shared/testset/reference.json (keys "chemakzo", "transamp"; sources
** named there). Included by the validation tests (not a test itself).
*/
#include "daeset.h"

#include <math.h>
#include <string.h>

/* ---- Chemical Akzo Nobel (sec. II.12): M y' = f(y), M = diag(1,1,1,1,1,0),
** r1 = k1 y1^4 sqrt(y2), r2 = k2 y3 y4, r3 = k2/K y1 y5, r4 = k3 y1 y4^2,
** r5 = k4 y6^2 sqrt(y2), Fin = klA (pO2/H - y2);
** f = (-2r1+r2-r3-r4, -r1/2-r4-r5/2+Fin, r1-r2+r3, -r2+r3-2r4, r2-r3+r5,
**      Ks y1 y4 - y6). */
enum { AKZO_N = 6 };
static const double akzo_k1 = 18.7, akzo_k2 = 0.58, akzo_k3 = 0.09, akzo_k4 = 0.42;
static const double akzo_kbig = 34.4, akzo_kla = 3.3, akzo_ks = 115.83, akzo_po2 = 0.9;
static const double akzo_henry = 737.0;

static int akzo_res(double t, const double *y, const double *yp, double *res, void *ctx)
{
    (void)t;
    (void)ctx;
    if (y[1] < 0.0)
        return 1; /* sqrt(y2) undefined: ask for a smaller step */
    double sq2 = sqrt(y[1]);
    double r1 = akzo_k1 * pow(y[0], 4) * sq2, r2 = akzo_k2 * y[2] * y[3];
    double r3 = akzo_k2 / akzo_kbig * y[0] * y[4], r4 = akzo_k3 * y[0] * y[3] * y[3];
    double r5 = akzo_k4 * y[5] * y[5] * sq2, fin = akzo_kla * (akzo_po2 / akzo_henry - y[1]);
    res[0] = yp[0] - (-2.0 * r1 + r2 - r3 - r4);
    res[1] = yp[1] - (-0.5 * r1 - r4 - 0.5 * r5 + fin);
    res[2] = yp[2] - (r1 - r2 + r3);
    res[3] = yp[3] - (-r2 + r3 - 2.0 * r4);
    res[4] = yp[4] - (r2 - r3 + r5);
    res[5] = -(akzo_ks * y[0] * y[3] - y[5]);
    return 0;
}

static int akzo_jac(double t, double cj, const double *y, const double *yp, double *jac,
                    void *ctx)
{
    (void)t;
    (void)yp;
    (void)ctx;
    if (y[1] <= 0.0)
        return 1;
    double sq2 = sqrt(y[1]);
    /* d r_i / d y_j */
    double r1_1 = 4.0 * akzo_k1 * pow(y[0], 3) * sq2, r1_2 = 0.5 * akzo_k1 * pow(y[0], 4) / sq2;
    double r2_3 = akzo_k2 * y[3], r2_4 = akzo_k2 * y[2];
    double r3_1 = akzo_k2 / akzo_kbig * y[4], r3_5 = akzo_k2 / akzo_kbig * y[0];
    double r4_1 = akzo_k3 * y[3] * y[3], r4_4 = 2.0 * akzo_k3 * y[0] * y[3];
    double r5_2 = 0.5 * akzo_k4 * y[5] * y[5] / sq2, r5_6 = 2.0 * akzo_k4 * y[5] * sq2;
    double df[AKZO_N][AKZO_N] = { { 0 } };
    df[0][0] = -2.0 * r1_1 - r3_1 - r4_1;
    df[0][1] = -2.0 * r1_2;
    df[0][2] = r2_3;
    df[0][3] = r2_4 - r4_4;
    df[0][4] = -r3_5;
    df[1][0] = -0.5 * r1_1 - r4_1;
    df[1][1] = -0.5 * r1_2 - 0.5 * r5_2 - akzo_kla;
    df[1][3] = -r4_4;
    df[1][5] = -0.5 * r5_6;
    df[2][0] = r1_1 + r3_1;
    df[2][1] = r1_2;
    df[2][2] = -r2_3;
    df[2][3] = -r2_4;
    df[2][4] = r3_5;
    df[3][0] = r3_1 - 2.0 * r4_1;
    df[3][2] = -r2_3;
    df[3][3] = -r2_4 - 2.0 * r4_4;
    df[3][4] = r3_5;
    df[4][0] = -r3_1;
    df[4][1] = r5_2;
    df[4][2] = r2_3;
    df[4][3] = r2_4;
    df[4][4] = -r3_5;
    df[4][5] = r5_6;
    df[5][0] = akzo_ks * y[3];
    df[5][3] = akzo_ks * y[0];
    df[5][5] = -1.0;
    for (int j = 0; j < AKZO_N; j++)
        for (int i = 0; i < AKZO_N; i++)
            jac[i + j * AKZO_N] = -df[i][j] + (i == j && i < 5 ? cj : 0.0);
    return 0;
}

static const double akzo_y0[AKZO_N] = { 0.444, 0.00123, 0.0, 0.007, 0.0, 0.35999964 };
/* y'(0) = f(y(0)) for components 1-5 (computed at first use); y6' absent. */
static double akzo_yp0[AKZO_N];
static const double akzo_yref[AKZO_N] = { 0.1150794920661702, 0.001203831471567715,
                                          0.1611562887407974, 0.0003656156421249283,
                                          0.01708010885264404, 0.004873531310307455 };
static const unsigned char akzo_algebraic[AKZO_N] = { 0, 0, 0, 0, 0, 1 };

const dae_problem dae_chemakzo = { "CHEMAKZO", AKZO_N, akzo_res, akzo_jac, akzo_y0, akzo_yp0,
                                   akzo_yref, akzo_algebraic, 180.0 };

/* ---- Transistor Amplifier (sec. II.14): M y' = g(t, y), residual
** F = M y' - g with M the capacitor incidence (rank 5), Ue(t) = 0.1
** sin(200 pi t), UF = 0.026, alpha = 0.99, beta = 1e-6, Ub = 6, R0 = 1000,
** R1..R9 = 9000, Ck = k 1e-6; fac1 = beta (exp((y2 - y3)/UF) - 1),
** fac2 = beta (exp((y5 - y6)/UF) - 1);
** g = ((y1 - Ue)/R0, y2/R1 + (y2 - Ub)/R2 + (1 - alpha) fac1, y3/R3 - fac1,
**      (y4 - Ub)/R4 + alpha fac1, y5/R5 + (y5 - Ub)/R6 + (1 - alpha) fac2,
**      y6/R7 - fac2, (y7 - Ub)/R8 + alpha fac2, y8/R9). */
enum { AMP_N = 8 };
static const double amp_ub = 6.0, amp_uf = 0.026, amp_alpha = 0.99, amp_beta = 1e-6;
static const double amp_r0 = 1000.0, amp_rk = 9000.0;
static const double amp_c[6] = { 0.0, 1e-6, 2e-6, 3e-6, 4e-6, 5e-6 }; /* C1..C5 */

static int amp_res(double t, const double *y, const double *yp, double *res, void *ctx)
{
    (void)ctx;
    double ue = 0.1 * sin(200.0 * acos(-1.0) * t);
    double fac1 = amp_beta * (exp((y[1] - y[2]) / amp_uf) - 1.0);
    double fac2 = amp_beta * (exp((y[4] - y[5]) / amp_uf) - 1.0);
    double g[AMP_N] = {
        (y[0] - ue) / amp_r0,
        y[1] / amp_rk + (y[1] - amp_ub) / amp_rk + (1.0 - amp_alpha) * fac1,
        y[2] / amp_rk - fac1,
        (y[3] - amp_ub) / amp_rk + amp_alpha * fac1,
        y[4] / amp_rk + (y[4] - amp_ub) / amp_rk + (1.0 - amp_alpha) * fac2,
        y[5] / amp_rk - fac2,
        (y[6] - amp_ub) / amp_rk + amp_alpha * fac2,
        y[7] / amp_rk,
    };
    res[0] = -amp_c[1] * yp[0] + amp_c[1] * yp[1] - g[0];
    res[1] = amp_c[1] * yp[0] - amp_c[1] * yp[1] - g[1];
    res[2] = -amp_c[2] * yp[2] - g[2];
    res[3] = -amp_c[3] * yp[3] + amp_c[3] * yp[4] - g[3];
    res[4] = amp_c[3] * yp[3] - amp_c[3] * yp[4] - g[4];
    res[5] = -amp_c[4] * yp[5] - g[5];
    res[6] = -amp_c[5] * yp[6] + amp_c[5] * yp[7] - g[6];
    res[7] = amp_c[5] * yp[6] - amp_c[5] * yp[7] - g[7];
    for (int i = 0; i < AMP_N; i++)
        if (!isfinite(res[i]))
            return 1;
    return 0;
}

static int amp_jac(double t, double cj, const double *y, const double *yp, double *jac,
                   void *ctx)
{
    (void)t;
    (void)yp;
    (void)ctx;
    double f1p = amp_beta * exp((y[1] - y[2]) / amp_uf) / amp_uf;
    double f2p = amp_beta * exp((y[4] - y[5]) / amp_uf) / amp_uf;
    double dg[AMP_N][AMP_N] = { { 0 } };
    dg[0][0] = 1.0 / amp_r0;
    dg[1][1] = 2.0 / amp_rk + (1.0 - amp_alpha) * f1p;
    dg[1][2] = -(1.0 - amp_alpha) * f1p;
    dg[2][1] = -f1p;
    dg[2][2] = 1.0 / amp_rk + f1p;
    dg[3][1] = amp_alpha * f1p;
    dg[3][2] = -amp_alpha * f1p;
    dg[3][3] = 1.0 / amp_rk;
    dg[4][4] = 2.0 / amp_rk + (1.0 - amp_alpha) * f2p;
    dg[4][5] = -(1.0 - amp_alpha) * f2p;
    dg[5][4] = -f2p;
    dg[5][5] = 1.0 / amp_rk + f2p;
    dg[6][4] = amp_alpha * f2p;
    dg[6][5] = -amp_alpha * f2p;
    dg[6][6] = 1.0 / amp_rk;
    dg[7][7] = 1.0 / amp_rk;
    double mass[AMP_N][AMP_N] = { { 0 } };
    const int pairs[3][2] = { { 0, 1 }, { 3, 4 }, { 6, 7 } };
    const double pair_c[3] = { amp_c[1], amp_c[3], amp_c[5] };
    for (int p = 0; p < 3; p++) {
        int a = pairs[p][0], b = pairs[p][1];
        mass[a][a] = -pair_c[p];
        mass[a][b] = pair_c[p];
        mass[b][a] = pair_c[p];
        mass[b][b] = -pair_c[p];
    }
    mass[2][2] = -amp_c[2];
    mass[5][5] = -amp_c[4];
    for (int j = 0; j < AMP_N; j++)
        for (int i = 0; i < AMP_N; i++)
            jac[i + j * AMP_N] = -dg[i][j] + cj * mass[i][j];
    return 0;
}

static const double amp_y0[AMP_N] = { 0.0, 3.0, 3.0, 6.0, 3.0, 3.0, 6.0, 0.0 };
static const double amp_yp0[AMP_N] = { 51.338775, 51.338775, -166.66666666666666,
                                       -24.9757667, -24.9757667, -83.33333333333333,
                                       -10.00564453, -10.00564453 };
static const double amp_yref[AMP_N] = { -0.005562145012262709, 3.006522471903042,
                                        2.849958788608128,      2.926422536206241,
                                        2.704617865010554,      2.761837778393145,
                                        4.770927631616772,      1.236995868091548 };

const dae_problem dae_transamp = { "TRANSAMP", AMP_N, amp_res, amp_jac, amp_y0, amp_yp0,
                                   amp_yref, NULL, 0.2 };

/* Chemical Akzo Nobel's y'(0) = f(y(0)), from the residual at y' = 0. */
void dae_problems_init(void)
{
    double zero[AKZO_N] = { 0 }, res[AKZO_N];
    akzo_res(0.0, akzo_y0, zero, res, NULL);
    for (int i = 0; i < 5; i++)
        akzo_yp0[i] = -res[i];
    akzo_yp0[5] = 0.0;
}
