/*
** Mechanical test problems shared by the mechanics tests (included by
** test_mechanics.c, test_mechanics_ode.c and test_mechanics_testset.c) and
** by the benchmark bench/bench_mech.c; not a test itself, and free of the
** test harness (the tests' DSTIFF driver is mech_dae_driver.c). Cash's
** index-3 pendulum (MEBDFDAE driver pendul3.f), the same pendulum with a
** horizontal force stepping at t = 0.5, the car axis of the Test Set for
** IVP Solvers (report II.17) and Andrews' squeezing mechanism (report
** II.13), as mech_systems with their initial values and references from
** /work/shared/testset/reference.json; scd as the test set computes it, and
** the residuals of the velocity and acceleration constraints. External
** linkage, so that a program using only some of them compiles without
** unused-definition warnings.
*/
#include "mech/mech.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------
** The pendulum
*/

static int pend_mass(double t, const double *q, double *mass, void *user)
{
    (void)t, (void)q, (void)user;
    mass[0] = 1.0, mass[1] = 0.0, mass[2] = 0.0, mass[3] = 1.0;
    return 0;
}

static int pend_force(double t, const double *q, const double *u, double *f, void *user)
{
    (void)t, (void)q, (void)u, (void)user;
    f[0] = 0.0;
    f[1] = -1.0;
    return 0;
}

static int pend_phi(double t, const double *q, double *phi, void *user)
{
    (void)t, (void)user;
    phi[0] = 0.5 * (q[0] * q[0] + q[1] * q[1] - 1.0);
    return 0;
}

static int pend_g(double t, const double *q, double *g, void *user)
{
    (void)t, (void)user;
    g[0] = q[0];
    g[1] = q[1];
    return 0;
}

/* d/dt (x u + y v) = x u' + y v' + u^2 + v^2 = 0. */
static int pend_gamma(double t, const double *q, const double *u, double *gamma, void *user)
{
    (void)t, (void)q, (void)user;
    gamma[0] = -(u[0] * u[0] + u[1] * u[1]);
    return 0;
}

const mech_system pendulum = {
    .n_q = 2, .n_c = 1, .user = NULL,
    .mass = pend_mass, .force = pend_force, .constraint = pend_phi,
    .constraint_jac = pend_g, .constraint_t = NULL, .accel_rhs = pend_gamma,
};

/* reference.json, pendulum_index3: y0 and yref_highprec (x, y, u, v, lambda). */
const double pend_y0[4] = { 1.0, 0.0, 0.0, 1.0 };
const double pendulum_ref[5] = {
    0.8673486406004394, 0.49770105047967295, -0.03374801806095452,
    0.05881301146525001, -0.4931031514390188,
};


/* The pendulum with a horizontal force stepping from 0 to 1/2 at t = 0.5
** (seed 002's "discontinuity in a system input (Force)"); no event, the
** integrators run straight through it. */
static int pend_force_jump(double t, const double *q, const double *u, double *f, void *user)
{
    (void)q, (void)u, (void)user;
    f[0] = t < 0.5 ? 0.0 : 0.5;
    f[1] = -1.0;
    return 0;
}

const mech_system pendulum_jump = {
    .n_q = 2, .n_c = 1, .user = NULL,
    .mass = pend_mass, .force = pend_force_jump, .constraint = pend_phi,
    .constraint_jac = pend_g, .constraint_t = NULL, .accel_rhs = pend_gamma,
};


/* ------------------------------------------------------------------------
** Car axis (report II.17)
*/

#define CAR_EPS 1e-2
#define CAR_M 10.0
#define CAR_L 1.0
#define CAR_L0 0.5
#define CAR_R 0.1
#define CAR_W 10.0
#define CAR_G 1.0
#define CAR_K (CAR_M * CAR_EPS * CAR_EPS / 2.0)

/* The right wheel's excitation (xb, yb) and its first two derivatives. */
static void car_wheel(double t, double xb[3], double yb[3])
{
    yb[0] = CAR_R * sin(CAR_W * t);
    yb[1] = CAR_R * CAR_W * cos(CAR_W * t);
    yb[2] = -CAR_R * CAR_W * CAR_W * sin(CAR_W * t);
    xb[0] = sqrt(CAR_L * CAR_L - yb[0] * yb[0]);
    xb[1] = -yb[0] * yb[1] / xb[0];
    xb[2] = -(yb[1] * yb[1] + yb[0] * yb[2]) / xb[0] - xb[1] * xb[1] / xb[0];
}

static int car_mass(double t, const double *q, double *m, void *user)
{
    (void)t, (void)q, (void)user;
    memset(m, 0, 16 * sizeof(double));
    for (int i = 0; i < 4; i++)
        m[i + 4 * i] = CAR_K;
    return 0;
}

static int car_force(double t, const double *q, const double *v, double *f, void *user)
{
    (void)v, (void)user;
    double xb[3], yb[3];
    car_wheel(t, xb, yb);
    double ll = sqrt(q[0] * q[0] + q[1] * q[1]);
    double lr = sqrt((q[2] - xb[0]) * (q[2] - xb[0]) + (q[3] - yb[0]) * (q[3] - yb[0]));
    f[0] = (CAR_L0 - ll) * q[0] / ll;
    f[1] = (CAR_L0 - ll) * q[1] / ll - CAR_K * CAR_G;
    f[2] = (CAR_L0 - lr) * (q[2] - xb[0]) / lr;
    f[3] = (CAR_L0 - lr) * (q[3] - yb[0]) / lr - CAR_K * CAR_G;
    return 0;
}

static int car_phi(double t, const double *q, double *phi, void *user)
{
    (void)user;
    double xb[3], yb[3];
    car_wheel(t, xb, yb);
    phi[0] = xb[0] * q[0] + yb[0] * q[1];
    phi[1] = (q[0] - q[2]) * (q[0] - q[2]) + (q[1] - q[3]) * (q[1] - q[3]) - CAR_L * CAR_L;
    return 0;
}

static int car_g(double t, const double *q, double *g, void *user)
{
    (void)user;
    double xb[3], yb[3];
    car_wheel(t, xb, yb);
    double dx = q[0] - q[2], dy = q[1] - q[3];
    /* g[i + 2 j] */
    g[0] = xb[0], g[2] = yb[0], g[4] = 0.0, g[6] = 0.0;
    g[1] = 2.0 * dx, g[3] = 2.0 * dy, g[5] = -2.0 * dx, g[7] = -2.0 * dy;
    return 0;
}

static int car_phi_t(double t, const double *q, double *phi_t, void *user)
{
    (void)user;
    double xb[3], yb[3];
    car_wheel(t, xb, yb);
    phi_t[0] = xb[1] * q[0] + yb[1] * q[1];
    phi_t[1] = 0.0;
    return 0;
}

/* gamma = -((Phi_q u)_q u + 2 Phi_qt u + Phi_tt). */
static int car_gamma(double t, const double *q, const double *v, double *gamma, void *user)
{
    (void)user;
    double xb[3], yb[3];
    car_wheel(t, xb, yb);
    gamma[0] = -(2.0 * (xb[1] * v[0] + yb[1] * v[1]) + xb[2] * q[0] + yb[2] * q[1]);
    double du = v[0] - v[2], dv = v[1] - v[3];
    gamma[1] = -2.0 * (du * du + dv * dv);
    return 0;
}

const mech_system caraxis = {
    .n_q = 4, .n_c = 2, .user = NULL,
    .mass = car_mass, .force = car_force, .constraint = car_phi,
    .constraint_jac = car_g, .constraint_t = car_phi_t, .accel_rhs = car_gamma,
};

/* reference.json, caraxis: y0 (q, u, lambda) and yref; lambda of the test
** set is minus ours (see above). */
const double car_y0[10] = { 0, 0.5, 1, 0.5, -0.5, 0, -0.5, 0, 0, 0 };
const double car_ref[10] = {
    0.04934557842754028, 0.49698946023017115, 1.0417425248854215, 0.37391102726536124,
    -0.07705836840409723, 0.007446866587237785, 0.017556815753723223, 0.7703410437792519,
    -0.004736886590848933, -0.0011046803312573436,
};


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


/* scd = -log10(max_i |y_i - ref_i| / |ref_i|) over [from, to). */
double scd(const double *y, const double *ref, int from, int to)
{
    double worst = 0.0;
    for (int i = from; i < to; i++)
        worst = fmax(worst, fabs(y[i] - ref[i]) / fabs(ref[i]));
    return -log10(worst);
}

/* max_i |(Phi_q u + Phi_t)_i| at (t, q, u) (n_q <= 8, n_c <= 8). */
double vel_residual(const mech_system *sys, double t, const double *q, const double *u)
{
    double g[64], phi_t[8] = { 0 };
    sys->constraint_jac(t, q, g, sys->user);
    if (sys->constraint_t != NULL)
        sys->constraint_t(t, q, phi_t, sys->user);
    double worst = 0.0;
    for (int i = 0; i < sys->n_c; i++) {
        double v = phi_t[i];
        for (int j = 0; j < sys->n_q; j++)
            v += g[i + sys->n_c * j] * u[j];
        worst = fmax(worst, fabs(v));
    }
    return worst;
}

/* max_i |(Phi_q u' - gamma)_i| at (t, q, u, u'): the acceleration
** constraint, the second derivative of Phi = 0 (n_q <= 8, n_c <= 8). */
double accel_residual(const mech_system *sys, double t, const double *q, const double *u,
                      const double *up)
{
    double g[64], gamma[8];
    sys->constraint_jac(t, q, g, sys->user);
    sys->accel_rhs(t, q, u, gamma, sys->user);
    double worst = 0.0;
    for (int i = 0; i < sys->n_c; i++) {
        double a = -gamma[i];
        for (int j = 0; j < sys->n_q; j++)
            a += g[i + sys->n_c * j] * up[j];
        worst = fmax(worst, fabs(a));
    }
    return worst;
}
