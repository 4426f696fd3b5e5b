/*
** Andrews' squeezing mechanism, Test Set for IVP Solvers report section
** II.13 (F. Mazzia, C. Magherini, release 2.4, 2008; deTestSet
** R/ex_andrews.R lists the same parameters and y0), as a mech_system: 7
** angles q = (beta, theta, gamma, phi, delta, omega, epsilon), 6
** constraints, full mass matrix M(q); the test set writes M q'' = f - G^T
** lambda with G = Phi_q, as seed 002's (2.1), so its lambda is ours.
** Initial values and reference (yref, PSIDE at 1e-14) from
** /work/shared/testset/reference.json. Shared by test_mechanics_testset.c
** (I3, SI1) and test_mechanics_ode.c (the ODE form); not a test itself.
** External linkage for the data, so that a test using only some of it
** compiles without unused-definition warnings. Include after check.h.
*/
#include "mech/mech.h"

#include <math.h>
#include <string.h>

/* ------------------------------------------------------------------------
** Andrews' squeezing mechanism (report II.13)
*/

static const struct {
    double m1, m2, m3, m4, m5, m6, m7, xa, ya, xb, yb, xc, yc, c0;
    double i1, i2, i3, i4, i5, i6, i7, d, da, e, ea, rr, ra, l0;
    double ss, sa, sb, sc, sd, ta, tb, u, ua, ub, zf, zt, fa, mom;
} an = {
    .m1 = .04325, .m2 = .00365, .m3 = .02373, .m4 = .00706, .m5 = .07050, .m6 = .00706,
    .m7 = .05498, .xa = -.06934, .ya = -.00227, .xb = -.03635, .yb = .03273, .xc = .014,
    .yc = .072, .c0 = 4530.0, .i1 = 2.194e-6, .i2 = 4.410e-7, .i3 = 5.255e-6,
    .i4 = 5.667e-7, .i5 = 1.169e-5, .i6 = 5.667e-7, .i7 = 1.912e-5, .d = 28e-3,
    .da = 115e-4, .e = 2e-2, .ea = 1421e-5, .rr = 7e-3, .ra = 92e-5, .l0 = 7785e-5,
    .ss = 35e-3, .sa = 1874e-5, .sb = 1043e-5, .sc = 18e-3, .sd = 2e-2, .ta = 2308e-5,
    .tb = 916e-5, .u = 4e-2, .ua = 1228e-5, .ub = 449e-5, .zf = 2e-2, .zt = 4e-2,
    .fa = 1421e-5, .mom = 33e-3,
};

/* q = (beta, theta, gamma, phi, delta, omega, epsilon). */
enum { BE, TH, GA, PH, DE, OM, EP };

static int andrews_mass(double t, const double *q, double *m, void *user)
{
    (void)t, (void)user;
    memset(m, 0, 49 * sizeof(double));
#define M_(i, j) m[(i) + 7 * (j)]
    double ee = an.e - an.ea, zz = an.zf - an.fa;
    M_(0, 0) = an.m1 * an.ra * an.ra
               + an.m2 * (an.rr * an.rr - 2.0 * an.da * an.rr * cos(q[TH]) + an.da * an.da)
               + an.i1 + an.i2;
    M_(1, 0) = an.m2 * (an.da * an.da - an.da * an.rr * cos(q[TH])) + an.i2;
    M_(1, 1) = an.m2 * an.da * an.da + an.i2;
    M_(2, 2) = an.m3 * (an.sa * an.sa + an.sb * an.sb) + an.i3;
    M_(3, 3) = an.m4 * ee * ee + an.i4;
    M_(4, 3) = an.m4 * (ee * ee + an.zt * ee * sin(q[PH])) + an.i4;
    M_(4, 4) = an.m4 * (an.zt * an.zt + 2.0 * an.zt * ee * sin(q[PH]) + ee * ee)
               + an.m5 * (an.ta * an.ta + an.tb * an.tb) + an.i4 + an.i5;
    M_(5, 5) = an.m6 * zz * zz + an.i6;
    M_(6, 5) = an.m6 * (zz * zz - an.u * zz * sin(q[OM])) + an.i6;
    M_(6, 6) = an.m6 * (zz * zz - 2.0 * an.u * zz * sin(q[OM]) + an.u * an.u)
               + an.m7 * (an.ua * an.ua + an.ub * an.ub) + an.i6 + an.i7;
    for (int j = 1; j < 7; j++)
        for (int i = 0; i < j; i++)
            M_(i, j) = M_(j, i);
#undef M_
    return 0;
}

static int andrews_force(double t, const double *q, const double *v, double *f, void *user)
{
    (void)t, (void)user;
    double ee = an.e - an.ea, zz = an.zf - an.fa;
    /* The spring between D (on body 3) and C: c0 (l - l0) along D - C. */
    double xd = an.sd * cos(q[GA]) + an.sc * sin(q[GA]) + an.xb;
    double yd = an.sd * sin(q[GA]) - an.sc * cos(q[GA]) + an.yb;
    double l = sqrt((xd - an.xc) * (xd - an.xc) + (yd - an.yc) * (yd - an.yc));
    double force = -an.c0 * (l - an.l0) / l;
    double fx = force * (xd - an.xc), fy = force * (yd - an.yc);
    f[0] = an.mom - an.m2 * an.da * an.rr * v[TH] * (v[TH] + 2.0 * v[BE]) * sin(q[TH]);
    f[1] = an.m2 * an.da * an.rr * v[BE] * v[BE] * sin(q[TH]);
    f[2] = fx * (an.sc * cos(q[GA]) - an.sd * sin(q[GA]))
           + fy * (an.sd * cos(q[GA]) + an.sc * sin(q[GA]));
    f[3] = an.m4 * an.zt * ee * v[DE] * v[DE] * cos(q[PH]);
    f[4] = -an.m4 * an.zt * ee * v[PH] * (v[PH] + 2.0 * v[DE]) * cos(q[PH]);
    f[5] = -an.m6 * an.u * zz * v[EP] * v[EP] * cos(q[OM]);
    f[6] = an.m6 * an.u * zz * v[OM] * (v[OM] + 2.0 * v[EP]) * cos(q[OM]);
    return 0;
}

/* Phi, and with rate != NULL gamma = -(Phi_q u)_q u: every term of Phi is
** a c f(theta) with f = sin or cos and theta a sum of coordinates, whose
** second derivative along u is -c f(theta) theta'^2; gamma is then Phi
** with each term multiplied by its theta'^2 and the constants dropped. */
static void andrews_phi_or_gamma(const double *q, const double *v, double *out)
{
    double w_be = v ? v[BE] * v[BE] : 1.0;
    double w_beth = v ? (v[BE] + v[TH]) * (v[BE] + v[TH]) : 1.0;
    double w_ga = v ? v[GA] * v[GA] : 1.0;
    double w_phde = v ? (v[PH] + v[DE]) * (v[PH] + v[DE]) : 1.0;
    double w_de = v ? v[DE] * v[DE] : 1.0;
    double w_omep = v ? (v[OM] + v[EP]) * (v[OM] + v[EP]) : 1.0;
    double w_ep = v ? v[EP] * v[EP] : 1.0;
    double c = v ? 0.0 : 1.0; /* constants */
    double crank_x = an.rr * cos(q[BE]) * w_be - an.d * cos(q[BE] + q[TH]) * w_beth;
    double crank_y = an.rr * sin(q[BE]) * w_be - an.d * sin(q[BE] + q[TH]) * w_beth;
    out[0] = crank_x - an.ss * sin(q[GA]) * w_ga - c * an.xb;
    out[1] = crank_y + an.ss * cos(q[GA]) * w_ga - c * an.yb;
    out[2] = crank_x - an.e * sin(q[PH] + q[DE]) * w_phde - an.zt * cos(q[DE]) * w_de
             - c * an.xa;
    out[3] = crank_y + an.e * cos(q[PH] + q[DE]) * w_phde - an.zt * sin(q[DE]) * w_de
             - c * an.ya;
    out[4] = crank_x - an.zf * cos(q[OM] + q[EP]) * w_omep - an.u * sin(q[EP]) * w_ep
             - c * an.xa;
    out[5] = crank_y - an.zf * sin(q[OM] + q[EP]) * w_omep + an.u * cos(q[EP]) * w_ep
             - c * an.ya;
}

static int andrews_phi(double t, const double *q, double *phi, void *user)
{
    (void)t, (void)user;
    andrews_phi_or_gamma(q, NULL, phi);
    return 0;
}

static int andrews_gamma(double t, const double *q, const double *v, double *gamma, void *user)
{
    (void)t, (void)user;
    andrews_phi_or_gamma(q, v, gamma);
    return 0;
}

static int andrews_g(double t, const double *q, double *g, void *user)
{
    (void)t, (void)user;
    memset(g, 0, 42 * sizeof(double));
#define G_(i, j) g[(i) + 6 * (j)]
    double sbe = sin(q[BE]), cbe = cos(q[BE]), sbt = sin(q[BE] + q[TH]),
           cbt = cos(q[BE] + q[TH]);
    for (int r = 0; r < 6; r += 2) {
        G_(r, BE) = -an.rr * sbe + an.d * sbt;
        G_(r, TH) = an.d * sbt;
        G_(r + 1, BE) = an.rr * cbe - an.d * cbt;
        G_(r + 1, TH) = -an.d * cbt;
    }
    G_(0, GA) = -an.ss * cos(q[GA]);
    G_(1, GA) = -an.ss * sin(q[GA]);
    double spd = sin(q[PH] + q[DE]), cpd = cos(q[PH] + q[DE]);
    G_(2, PH) = -an.e * cpd;
    G_(2, DE) = -an.e * cpd + an.zt * sin(q[DE]);
    G_(3, PH) = -an.e * spd;
    G_(3, DE) = -an.e * spd - an.zt * cos(q[DE]);
    double soe = sin(q[OM] + q[EP]), coe = cos(q[OM] + q[EP]);
    G_(4, OM) = an.zf * soe;
    G_(4, EP) = an.zf * soe - an.u * cos(q[EP]);
    G_(5, OM) = -an.zf * coe;
    G_(5, EP) = -an.zf * coe - an.u * sin(q[EP]);
#undef G_
    return 0;
}

const mech_system andrews = {
    .n_q = 7, .n_c = 6, .user = NULL,
    .mass = andrews_mass, .force = andrews_force, .constraint = andrews_phi,
    .constraint_jac = andrews_g, .constraint_t = NULL, .accel_rhs = andrews_gamma,
};

/* reference.json, andrews: y0 = (q, q', q'', lambda) and yref. */
const double andrews_y0[27] = {
    -0.06171389001427645, 0, 0.45527981916307037, 0.22266839016588588,
    0.48736497954384256, -0.22266839016588588, 1.2305474445498212, 0, 0, 0, 0, 0, 0, 0,
    14222.443919954114, -10666.832939965585, 0, 0, 0, 0, 0, 98.56687039624109,
    -6.122688344255662, 0, 0, 0, 0,
};
const double andrews_ref[27] = {
    15.81077119629904, -15.75637105984298, 0.04082224013073101, -0.5347301163226948,
    0.5244099658805303, 0.5347301163226948, 1.048080741042263, 1139.920302151208,
    -1424.379294994111, 11.03291221937134, 19.29337464421385, 0.5735699284790808,
    -19.29337464421385, 0.3231791658026955, -24631.76316945196, 51850.37701610329,
    324102.5686413781, 566749.3645176213, 16743.62929479361, -566749.3645176222,
    9826.520791458423, 199.175333373191, -29.75531228015052, 23.06654119098399,
    31.45271365475927, 22.64249232082739, 11.61740700019673,
};
