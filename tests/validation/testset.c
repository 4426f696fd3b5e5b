/*
** Problem definitions of the Test Set for IVP Solvers (release 2.4,
** Mazzia & Magherini 2008; "[report]" below) used by the validation of the
** stiff integrators; see testset.h. Each problem is written here from the
** report's published equations; the reference solutions, t0, t_end and y0
** are copied digit for digit from /work/shared/testset/reference.json
** (whose "source" fields name the files they come from).
*/
#include "validation/testset.h"

#include <math.h>
#include <string.h>

/* J = -df/dy + cj I from df/dy already in jac (column-major, n x n). */
static void jac_from_dfdy(int n, double cj, double *jac)
{
    for (int k = 0; k < n * n; k++)
        jac[k] = -jac[k];
    for (int i = 0; i < n; i++)
        jac[i + i * n] += cj;
}

#define DFDY(jac, n, i, j) ((jac)[(i) + (j) * (n)])

/* ------------------------------------------------------------------------
** HIRES ([report] sec. II.1): "High Irradiance RESponse", 8 species of a
** photomorphogenesis model (Schäfer 1975; Gottwald 1977):
**   y1' = -1.71 y1 + 0.43 y2 + 8.32 y3 + 0.0007
**   y2' =  1.71 y1 - 8.75 y2
**   y3' = -10.03 y3 + 0.43 y4 + 0.035 y5
**   y4' =  8.32 y2 + 1.71 y3 - 1.12 y4
**   y5' = -1.745 y5 + 0.43 y6 + 0.43 y7
**   y6' = -280 y6 y8 + 0.69 y4 + 1.71 y5 - 0.43 y6 + 0.69 y7
**   y7' =  280 y6 y8 - 1.81 y7
**   y8' = -280 y6 y8 + 1.81 y7
** on [0, 321.8122], y0 = (1, 0, 0, 0, 0, 0, 0, 0.0057).
*/
static int hires_rhs(double t, const double *y, double *f, void *ctx)
{
    (void)t;
    (void)ctx;
    double bind = 280.0 * y[5] * y[7];
    f[0] = -1.71 * y[0] + 0.43 * y[1] + 8.32 * y[2] + 0.0007;
    f[1] = 1.71 * y[0] - 8.75 * y[1];
    f[2] = -10.03 * y[2] + 0.43 * y[3] + 0.035 * y[4];
    f[3] = 8.32 * y[1] + 1.71 * y[2] - 1.12 * y[3];
    f[4] = -1.745 * y[4] + 0.43 * y[5] + 0.43 * y[6];
    f[5] = -bind + 0.69 * y[3] + 1.71 * y[4] - 0.43 * y[5] + 0.69 * y[6];
    f[6] = bind - 1.81 * y[6];
    f[7] = -bind + 1.81 * y[6];
    return 0;
}

static int hires_jac(double t, double cj, const double *y, const double *yp,
                     double *jac, void *ctx)
{
    (void)t;
    (void)yp;
    (void)ctx;
    const int n = 8;
    memset(jac, 0, sizeof(double) * n * n);
    DFDY(jac, n, 0, 0) = -1.71;
    DFDY(jac, n, 0, 1) = 0.43;
    DFDY(jac, n, 0, 2) = 8.32;
    DFDY(jac, n, 1, 0) = 1.71;
    DFDY(jac, n, 1, 1) = -8.75;
    DFDY(jac, n, 2, 2) = -10.03;
    DFDY(jac, n, 2, 3) = 0.43;
    DFDY(jac, n, 2, 4) = 0.035;
    DFDY(jac, n, 3, 1) = 8.32;
    DFDY(jac, n, 3, 2) = 1.71;
    DFDY(jac, n, 3, 3) = -1.12;
    DFDY(jac, n, 4, 4) = -1.745;
    DFDY(jac, n, 4, 5) = 0.43;
    DFDY(jac, n, 4, 6) = 0.43;
    DFDY(jac, n, 5, 3) = 0.69;
    DFDY(jac, n, 5, 4) = 1.71;
    DFDY(jac, n, 5, 5) = -0.43 - 280.0 * y[7];
    DFDY(jac, n, 5, 6) = 0.69;
    DFDY(jac, n, 5, 7) = -280.0 * y[5];
    DFDY(jac, n, 6, 5) = 280.0 * y[7];
    DFDY(jac, n, 6, 6) = -1.81;
    DFDY(jac, n, 6, 7) = 280.0 * y[5];
    DFDY(jac, n, 7, 5) = -280.0 * y[7];
    DFDY(jac, n, 7, 6) = 1.81;
    DFDY(jac, n, 7, 7) = -280.0 * y[5];
    jac_from_dfdy(n, cj, jac);
    return 0;
}

static const double hires_y0[8] = {1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0057};
static const double hires_ref[8] = {
    0.0007371312573325668, 0.0001442485726316185, 5.888729740967575e-05,
    0.001175651343283149,  0.002386356198831331,  0.006238968252742796,
    0.002849998395185769,  0.002850001604814231};

/* ------------------------------------------------------------------------
** POLLU ([report] sec. II.2): the air pollution model of the Dutch
** National Institute of Public Health (Verwer 1994), 20 species and 25
** mass-action reactions. Written here as its reaction table: reaction r
** has rate k_r y_a (unimolecular, b = -1) or k_r y_a y_b, consumes its
** reactants and produces the listed species (a species listed twice is
** produced twice). Species numbers 1-based as in the report.
*/
typedef struct pollu_reaction {
    double rate_const;
    int reactant_a, reactant_b;   /* 1-based; b = 0: unimolecular */
    int products[3];              /* 1-based, 0 = none */
} pollu_reaction;

static const pollu_reaction pollu_reactions[25] = {
    {0.35,    1,  0,  {2, 3, 0}},       /*  1: NO2 -> NO + O3P */
    {26.6,    2,  4,  {1, 0, 0}},       /*  2: NO + O3 -> NO2 */
    {1.23e4,  5,  2,  {1, 6, 0}},       /*  3: HO2 + NO -> NO2 + OH */
    {8.6e-4,  7,  0,  {5, 5, 8}},       /*  4: HCHO -> 2 HO2 + CO */
    {8.2e-4,  7,  0,  {8, 0, 0}},       /*  5: HCHO -> CO */
    {1.5e4,   7,  6,  {5, 8, 0}},       /*  6: HCHO + OH -> HO2 + CO */
    {1.3e-4,  9,  0,  {5, 8, 10}},      /*  7: ALD -> MEO2 + HO2 + CO */
    {2.4e4,   9,  6,  {11, 0, 0}},      /*  8: ALD + OH -> C2O3 */
    {1.65e4, 11,  2,  {1, 10, 12}},     /*  9: C2O3 + NO -> NO2 + MEO2 + CO2 */
    {9.0e3,  11,  1,  {13, 0, 0}},      /* 10: C2O3 + NO2 -> PAN */
    {0.022,  13,  0,  {1, 11, 0}},      /* 11: PAN -> C2O3 + NO2 */
    {1.2e4,  10,  2,  {1, 14, 0}},      /* 12: MEO2 + NO -> CH3O + NO2 */
    {1.88,   14,  0,  {5, 7, 0}},       /* 13: CH3O -> HCHO + HO2 */
    {1.63e4,  1,  6,  {15, 0, 0}},      /* 14: NO2 + OH -> HNO3 */
    {4.8e6,   3,  0,  {4, 0, 0}},       /* 15: O3P -> O3 */
    {3.5e-4,  4,  0,  {16, 0, 0}},      /* 16: O3 -> O1D */
    {0.0175,  4,  0,  {3, 0, 0}},       /* 17: O3 -> O3P */
    {1.0e8,  16,  0,  {6, 6, 0}},       /* 18: O1D -> 2 OH */
    {4.44e11, 16,  0,  {3, 0, 0}},      /* 19: O1D -> O3P */
    {1.24e3, 17,  6,  {5, 18, 0}},      /* 20: SO2 + OH -> SO4 + HO2 */
    {2.1,    19,  0,  {2, 0, 0}},       /* 21: NO3 -> NO */
    {5.78,   19,  0,  {1, 3, 0}},       /* 22: NO3 -> NO2 + O3P */
    {0.0474,  1,  4,  {19, 0, 0}},      /* 23: NO2 + O3 -> NO3 */
    {1.78e3, 19,  1,  {20, 0, 0}},      /* 24: NO3 + NO2 -> N2O5 */
    {3.12,   20,  0,  {1, 19, 0}},      /* 25: N2O5 -> NO3 + NO2 */
};

static int pollu_rhs(double t, const double *y, double *f, void *ctx)
{
    (void)t;
    (void)ctx;
    memset(f, 0, sizeof(double) * 20);
    for (int r = 0; r < 25; r++) {
        const pollu_reaction *re = &pollu_reactions[r];
        int a = re->reactant_a - 1, b = re->reactant_b - 1;
        double rate = re->rate_const * y[a] * (b >= 0 ? y[b] : 1.0);
        f[a] -= rate;
        if (b >= 0)
            f[b] -= rate;
        for (int p = 0; p < 3; p++)
            if (re->products[p] > 0)
                f[re->products[p] - 1] += rate;
    }
    return 0;
}

static int pollu_jac(double t, double cj, const double *y, const double *yp,
                     double *jac, void *ctx)
{
    (void)t;
    (void)yp;
    (void)ctx;
    const int n = 20;
    memset(jac, 0, sizeof(double) * n * n);
    for (int r = 0; r < 25; r++) {
        const pollu_reaction *re = &pollu_reactions[r];
        int a = re->reactant_a - 1, b = re->reactant_b - 1;
        /* d rate / d y_a and d rate / d y_b */
        int n_dep = b >= 0 ? 2 : 1;
        int dep[2] = {a, b};
        double drate[2];
        drate[0] = re->rate_const * (b >= 0 ? y[b] : 1.0);
        drate[1] = b >= 0 ? re->rate_const * y[a] : 0.0;
        for (int d = 0; d < n_dep; d++) {
            int col = dep[d];
            DFDY(jac, n, a, col) -= drate[d];
            if (b >= 0)
                DFDY(jac, n, b, col) -= drate[d];
            for (int p = 0; p < 3; p++)
                if (re->products[p] > 0)
                    DFDY(jac, n, re->products[p] - 1, col) += drate[d];
        }
    }
    jac_from_dfdy(n, cj, jac);
    return 0;
}

static const double pollu_y0[20] = {
    0.0, 0.2, 0.0, 0.04, 0.0, 0.0, 0.1, 0.3, 0.01, 0.0,
    0.0, 0.0, 0.0, 0.0,  0.0, 0.0, 0.007, 0.0, 0.0, 0.0};
static const double pollu_ref[20] = {
    0.05646255480022769,  0.1342484130422339,   4.139734331099427e-09,
    0.005523140207484359, 2.018977262302196e-07, 1.464541863493966e-07,
    0.07784249118997964,  0.3245075353396018,   0.007494013383880406,
    1.622293157301561e-08, 1.135863833257075e-08, 0.002230505975721359,
    0.000208716288279863, 1.396921016840158e-05, 0.008964884856898295,
    4.352846369330103e-18, 0.006899219696263405, 0.0001007803037365946,
    1.772146513969984e-06, 5.682943292316392e-05};

/* ------------------------------------------------------------------------
** VDPOL ([report] sec. II.8, eq. II.8.3): Van der Pol's equation in the
** rescaled form with eps = 1/mu^2 = 1e-6:
**   y1' = y2,   y2' = ((1 - y1^2) y2 - y1) / eps,   on [0, 2], y0 = (2, 0).
*/
#define VDPOL_EPS 1e-6

static int vdpol_rhs(double t, const double *y, double *f, void *ctx)
{
    (void)t;
    (void)ctx;
    f[0] = y[1];
    f[1] = ((1.0 - y[0] * y[0]) * y[1] - y[0]) / VDPOL_EPS;
    return 0;
}

static int vdpol_jac(double t, double cj, const double *y, const double *yp,
                     double *jac, void *ctx)
{
    (void)t;
    (void)yp;
    (void)ctx;
    const int n = 2;
    DFDY(jac, n, 0, 0) = 0.0;
    DFDY(jac, n, 0, 1) = 1.0;
    DFDY(jac, n, 1, 0) = (-2.0 * y[0] * y[1] - 1.0) / VDPOL_EPS;
    DFDY(jac, n, 1, 1) = (1.0 - y[0] * y[0]) / VDPOL_EPS;
    jac_from_dfdy(n, cj, jac);
    return 0;
}

static const double vdpol_y0[2] = {2.0, 0.0};
static const double vdpol_ref[2] = {1.706167732170483, -0.8928097010247975};

/* ------------------------------------------------------------------------
** OREGO ([report] sec. II.9): the Oregonator (Field & Noyes 1974), with
** s = 77.27, w = 0.161, q = 8.375e-6:
**   y1' = s (y2 - y1 y2 + y1 - q y1^2)
**   y2' = (-y2 - y1 y2 + y3) / s
**   y3' = w (y1 - y3)                  on [0, 360], y0 = (1, 2, 3).
*/
#define OREGO_S 77.27
#define OREGO_W 0.161
#define OREGO_Q 8.375e-6

static int orego_rhs(double t, const double *y, double *f, void *ctx)
{
    (void)t;
    (void)ctx;
    f[0] = OREGO_S * (y[1] - y[0] * y[1] + y[0] - OREGO_Q * y[0] * y[0]);
    f[1] = (-y[1] - y[0] * y[1] + y[2]) / OREGO_S;
    f[2] = OREGO_W * (y[0] - y[2]);
    return 0;
}

static int orego_jac(double t, double cj, const double *y, const double *yp,
                     double *jac, void *ctx)
{
    (void)t;
    (void)yp;
    (void)ctx;
    const int n = 3;
    DFDY(jac, n, 0, 0) = OREGO_S * (-y[1] + 1.0 - 2.0 * OREGO_Q * y[0]);
    DFDY(jac, n, 0, 1) = OREGO_S * (1.0 - y[0]);
    DFDY(jac, n, 0, 2) = 0.0;
    DFDY(jac, n, 1, 0) = -y[1] / OREGO_S;
    DFDY(jac, n, 1, 1) = (-1.0 - y[0]) / OREGO_S;
    DFDY(jac, n, 1, 2) = 1.0 / OREGO_S;
    DFDY(jac, n, 2, 0) = OREGO_W;
    DFDY(jac, n, 2, 1) = 0.0;
    DFDY(jac, n, 2, 2) = -OREGO_W;
    jac_from_dfdy(n, cj, jac);
    return 0;
}

static const double orego_y0[3] = {1.0, 2.0, 3.0};
static const double orego_ref[3] = {1.000814870318523, 1228.178521549917,
                                    132.0554942846706};

/* ------------------------------------------------------------------------
** ROBER ([report] sec. II.10): Robertson's chemical reaction (1966):
**   y1' = -0.04 y1 + 1e4 y2 y3
**   y2' =  0.04 y1 - 1e4 y2 y3 - 3e7 y2^2
**   y3' =  3e7 y2^2                   on [0, 1e11], y0 = (1, 0, 0).
*/
static int rober_rhs(double t, const double *y, double *f, void *ctx)
{
    (void)t;
    (void)ctx;
    f[0] = -0.04 * y[0] + 1e4 * y[1] * y[2];
    f[2] = 3e7 * y[1] * y[1];
    f[1] = -f[0] - f[2];
    return 0;
}

static int rober_jac(double t, double cj, const double *y, const double *yp,
                     double *jac, void *ctx)
{
    (void)t;
    (void)yp;
    (void)ctx;
    const int n = 3;
    DFDY(jac, n, 0, 0) = -0.04;
    DFDY(jac, n, 0, 1) = 1e4 * y[2];
    DFDY(jac, n, 0, 2) = 1e4 * y[1];
    DFDY(jac, n, 1, 0) = 0.04;
    DFDY(jac, n, 1, 1) = -1e4 * y[2] - 6e7 * y[1];
    DFDY(jac, n, 1, 2) = -1e4 * y[1];
    DFDY(jac, n, 2, 0) = 0.0;
    DFDY(jac, n, 2, 1) = 6e7 * y[1];
    DFDY(jac, n, 2, 2) = 0.0;
    jac_from_dfdy(n, cj, jac);
    return 0;
}

static const double rober_y0[3] = {1.0, 0.0, 0.0};
static const double rober_ref[3] = {2.083340149701255e-08,
                                    8.333360770334713e-14, 0.999999979166505};

/* ------------------------------------------------------------------------
** E5 ([report] sec. II.11): the stiff DETEST problem E5, a chemical
** pyrolysis (Enright, Hull & Lindberg 1975), with A = 7.89e-10,
** B = 1.1e7, C = 1.13e3, M = 1e6:
**   y1' = -A y1 - B y1 y3
**   y2' =  A y1 - M C y2 y3
**   y3' =  A y1 - B y1 y3 - M C y2 y3 + C y4
**   y4' =  B y1 y3 - C y4              on [0, 1e13], y0 = (1.76e-3, 0, 0, 0).
*/
#define E5_A 7.89e-10
#define E5_B 1.1e7
#define E5_C 1.13e3
#define E5_M 1e6

static int e5_rhs(double t, const double *y, double *f, void *ctx)
{
    (void)t;
    (void)ctx;
    double decay = E5_A * y[0];
    double r13 = E5_B * y[0] * y[2];
    double r23 = E5_M * E5_C * y[1] * y[2];
    double r4 = E5_C * y[3];
    f[0] = -decay - r13;
    f[1] = decay - r23;
    f[2] = decay - r13 - r23 + r4;
    f[3] = r13 - r4;
    return 0;
}

static int e5_jac(double t, double cj, const double *y, const double *yp,
                  double *jac, void *ctx)
{
    (void)t;
    (void)yp;
    (void)ctx;
    const int n = 4;
    memset(jac, 0, sizeof(double) * n * n);
    DFDY(jac, n, 0, 0) = -E5_A - E5_B * y[2];
    DFDY(jac, n, 0, 2) = -E5_B * y[0];
    DFDY(jac, n, 1, 0) = E5_A;
    DFDY(jac, n, 1, 1) = -E5_M * E5_C * y[2];
    DFDY(jac, n, 1, 2) = -E5_M * E5_C * y[1];
    DFDY(jac, n, 2, 0) = E5_A - E5_B * y[2];
    DFDY(jac, n, 2, 1) = -E5_M * E5_C * y[2];
    DFDY(jac, n, 2, 2) = -E5_B * y[0] - E5_M * E5_C * y[1];
    DFDY(jac, n, 2, 3) = E5_C;
    DFDY(jac, n, 3, 0) = E5_B * y[2];
    DFDY(jac, n, 3, 2) = E5_B * y[0];
    DFDY(jac, n, 3, 3) = -E5_C;
    jac_from_dfdy(n, cj, jac);
    return 0;
}

static const double e5_y0[4] = {0.00176, 0.0, 0.0, 0.0};
static const double e5_ref[4] = {1.152903278711829e-291, 8.86765551764212e-23,
                                 8.854814626268838e-23, 0.0};

/* ------------------------------------------------------------------------
** Residual form F = y' - f(t, y), shared by all problems through the
** table entry passed as ctx.
*/
static int residual_from_rhs(double t, const double *y, const double *yp,
                             double *res, void *ctx)
{
    const testset_problem *p = ctx;
    int status = p->rhs(t, y, res, NULL);
    if (status != 0)
        return status;
    for (int i = 0; i < p->n; i++)
        res[i] = yp[i] - res[i];
    return 0;
}

static int rhs_of_problem(double t, const double *y, double *f, void *ctx)
{
    const testset_problem *p = ctx;
    return p->rhs(t, y, f, NULL);
}

static int jac_of_problem(double t, double cj, const double *y,
                          const double *yp, double *jac, void *ctx)
{
    const testset_problem *p = ctx;
    return p->jac(t, cj, y, yp, jac, NULL);
}

/* Tolerances: the report's work-precision diagrams use atol = rtol for
** HIRES, POLLU, VDPOL and OREGO, atol = 1e-4 rtol for ROBER and the fixed
** atol = 1.7e-24 for E5 (reference.json notes). */
const testset_problem testset_problems[] = {
    {"HIRES", "II.1", 8, 0.0, 321.8122, hires_y0, hires_ref, hires_rhs,
     hires_jac, residual_from_rhs, 1.0, 0.0, 0},
    {"POLLU", "II.2", 20, 0.0, 60.0, pollu_y0, pollu_ref, pollu_rhs,
     pollu_jac, residual_from_rhs, 1.0, 0.0, 0},
    {"VDPOL", "II.8", 2, 0.0, 2.0, vdpol_y0, vdpol_ref, vdpol_rhs, vdpol_jac,
     residual_from_rhs, 1.0, 0.0, 0},
    {"OREGO", "II.9", 3, 0.0, 360.0, orego_y0, orego_ref, orego_rhs,
     orego_jac, residual_from_rhs, 1.0, 0.0, 0},
    {"ROBER", "II.10", 3, 0.0, 1e11, rober_y0, rober_ref, rober_rhs,
     rober_jac, residual_from_rhs, 1e-4, 0.0, 0},
    {"E5", "II.11", 4, 0.0, 1e13, e5_y0, e5_ref, e5_rhs, e5_jac,
     residual_from_rhs, 0.0, 1.7e-24, 1},
};
const int testset_n_problems =
    (int)(sizeof testset_problems / sizeof testset_problems[0]);

double testset_atol(const testset_problem *p, double rtol)
{
    return p->atol_fixed > 0.0 ? p->atol_fixed : p->atol_per_rtol * rtol;
}

double testset_scd(const testset_problem *p, const double *y, double rtol,
                   double atol)
{
    double worst = 0.0;
    for (int i = 0; i < p->n; i++) {
        double err = fabs(y[i] - p->y_ref[i]);
        double scale = p->use_mescd ? atol / rtol + fabs(p->y_ref[i])
                                    : fabs(p->y_ref[i]);
        double rel = err / scale;
        if (isnan(rel))
            return -INFINITY;
        if (rel > worst)
            worst = rel;
    }
    return -log10(worst);
}

hy_dae testset_dae(const testset_problem *p)
{
    hy_dae dae;
    memset(&dae, 0, sizeof dae);
    dae.n = p->n;
    dae.res = p->res;
    dae.jac = jac_of_problem;
    dae.rhs = rhs_of_problem;
    dae.ctx = (void *)p;
    dae.is_algebraic = NULL;
    return dae;
}

testset_result testset_run(const hy_integrator_ops *ops, const testset_problem *p,
                           double rtol, long max_steps)
{
    testset_result r;
    memset(&r, 0, sizeof r);
    hy_dae dae = testset_dae(p);
    hy_options opt;
    memset(&opt, 0, sizeof opt);
    opt.rtol = rtol;
    opt.atol = testset_atol(p, rtol);
    double yp0[TESTSET_MAX_N], y[TESTSET_MAX_N];
    p->rhs(p->t0, p->y0, yp0, NULL);
    void *mem = ops->create(p->n);
    r.status = ops->init(mem, &dae, p->t0, p->y0, yp0, &opt);
    r.t = p->t0;
    long n = 0;
    while (r.status == HYDAE_OK && n++ < max_steps)
        r.status = ops->step(mem, p->t_end, &r.t);
    ops->dense(mem, r.t, y, NULL);
    ops->get_stats(mem, &r.stats);
    r.scd = r.status == HY_TSTOP && r.t == p->t_end ? testset_scd(p, y, rtol, opt.atol)
                                                    : -INFINITY;
    ops->destroy(mem);
    return r;
}
