/*
** The flexible slider crank of the Test Set for IVP Solvers (report
** section II.19, F. Mazzia, C. Magherini, release 2.4, 2008; B. Simeon,
** "Modelling a flexible slider crank mechanism by a mixed system of DAEs
** and PDEs", Math. Modelling of Systems 2 (1996) 1-18) as a mech_system,
** written here from the equations of deTestSet's src/Ex_crank.f
** (subroutine RESMBS, B. Simeon 1995/97; parameters from crankpar /
** R/ex_crank.R) - no code copied. The test set's defaults: the linear
** stiffness term only (ipar(1) = 0), no damping (ipar(2) = 0), gravity 0.
**
** Coordinates q = (phi1, phi2, x3, q1, q2, q3, q4): the crank angle, the
** connecting rod's angle, the slider's position, and the rod's elastic
** deflection in 2 lateral modes (q1, q2: sine modes) and 2 longitudinal
** nodal values of a quadratic ansatz (q3, q4; q4 is the axial
** displacement of the rod's end, which enters the constraints).
**
** Equations (RESMBS, index-3 form): M(q) u' = F(q, u) - Phi_q^T lambda,
** q' = u, Phi(q, t) = 0 with
**     Phi_1 = L1 sin phi1 + (L2 + q4) sin phi2          (rod end on the
**     Phi_2 = x3 - L1 cos phi1 - (L2 + q4) cos phi2      slider's axis)
**     Phi_3 = phi1 - Omega t                             (the drive)
** The crank is driven by the rheonomic constraint Phi_3 (RESMBS: "phi1(t)
** = omega*t prescribed by constraint"), so Phi_t = (0, 0, -Omega) and its
** multiplier lambda_3 is the driving torque. The test set writes M w - F
** + G^T lambda = 0 (G = Phi_q), as seed 002's (2.1): its lambda is ours.
** Its own formulation is of index 2 (24 variables: q, u, w = u', lambda;
** the velocity constraints Phi_q u + Phi_t = 0 in place of Phi = 0); the
** exact solution is the same from consistent initial values.
**
** Initial values: the "smooth" set of the report (deTestSet ini = 1,
** reference.json's y0: q, u, u', lambda; given to 9 digits, so Phi(q0)
** and Phi_q u0 + Phi_t hold to ~1e-9 relative). Reference: yref of
** reference.json (MEBDFI at atol = rtol = 1e-14, t = 0.1).
**
** Shared by test_mechanics_crank.c; not a test itself. External linkage
** for the data. Include after check.h.
*/
#include "mech/mech.h"

#include <math.h>
#include <string.h>

/* Parameters (crankpar; deTestSet R/ex_crank.R defaults), SI units. */
static const struct {
    double m1, m2, m3;          /* masses: crank, rod, slider */
    double l1, l2;              /* lengths: crank, rod */
    double j1, j2;              /* moments of inertia: crank, rod */
    double youngs_modulus;      /* EE */
    double width, height;       /* BB, HH: the rod's cross-section */
    double density;             /* RHO */
    double gravity;             /* GRAV (0 in the test set) */
    double omega;               /* the crank's prescribed angular velocity */
} crank = {
    .m1 = 0.36, .m2 = 0.151104, .m3 = 0.075552, .l1 = 0.15, .l2 = 0.30, .j1 = 0.002727,
    .j2 = 0.0045339259, .youngs_modulus = 0.20e12, .width = 0.0080, .height = 0.0080,
    .density = 7870.0, .gravity = 0.0, .omega = 150.0,
};

/* RESMBS uses pi rounded to 8 digits (PARAMETER PI = 3.1415927D0) in the
** modal matrices; the reference was computed with it, so it is used here
** too (the relative difference, 1.5e-9, would shift the stiffness by
** ~6e-9). */
#define CRANK_PI 3.1415927

/* q = (phi1, phi2, x3, q1 .. q4); the elastic coordinates from CR_Q1. */
enum { CR_PHI1, CR_PHI2, CR_X3, CR_Q1 };
#define CRANK_NQ 4              /* elastic coordinates */

/* The rod's modal (finite element) matrices and vectors of RESMBS, 4 x 4
** column-major: mass mq, stiffness kq, the gyroscopic coupling bq
** (antisymmetric) and the coupling vectors c1, c2, c12, c21. */
typedef struct crank_modal {
    double mq[16], kq[16], bq[16];
    double c1[4], c2[4], c12[4], c21[4];
} crank_modal;

static void crank_modal_matrices(crank_modal *fe)
{
    memset(fe, 0, sizeof *fe);
    double l2 = crank.l2, hh = crank.height, bb = crank.width;
    double fac_m = crank.density * bb * hh * l2;
    double fac_k = crank.youngs_modulus * bb * hh / l2;
    double fac_b = bb * hh * l2;
    double pi = CRANK_PI, pi3 = pi * pi * pi, pi4 = pi3 * pi, slender = (hh / l2) * (hh / l2);
#define IJ(i, j) ((i) + 4 * (j))
    fe->mq[IJ(0, 0)] = 0.5 * fac_m;
    fe->mq[IJ(1, 1)] = 0.5 * fac_m;
    fe->mq[IJ(2, 2)] = 8.0 * fac_m;
    fe->mq[IJ(2, 3)] = fe->mq[IJ(3, 2)] = fac_m;
    fe->mq[IJ(3, 3)] = 2.0 * fac_m;
    fe->kq[IJ(0, 0)] = fac_k * pi4 / 24.0 * slender;
    fe->kq[IJ(1, 1)] = fac_k * pi4 * 2.0 / 3.0 * slender;
    fe->kq[IJ(2, 2)] = fac_k * 16.0 / 3.0;
    fe->kq[IJ(2, 3)] = fe->kq[IJ(3, 2)] = -fac_k * 8.0 / 3.0;
    fe->kq[IJ(3, 3)] = fac_k * 7.0 / 3.0;
    fe->bq[IJ(0, 2)] = -fac_b * 16.0 / pi3;
    fe->bq[IJ(0, 3)] = fac_b * (8.0 / pi3 - 1.0 / pi);
    fe->bq[IJ(1, 3)] = fac_b * 0.5 / pi;
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++)
            if (fe->bq[IJ(i, j)] != 0.0)
                fe->bq[IJ(j, i)] = -fe->bq[IJ(i, j)];
#undef IJ
    fe->c1[2] = fac_b * 2.0 / 3.0;
    fe->c1[3] = fac_b / 6.0;
    fe->c2[0] = fac_b * 2.0 / pi;
    fe->c12[2] = l2 * fac_b / 3.0;
    fe->c12[3] = l2 * fac_b / 6.0;
    fe->c21[0] = l2 * fac_b / pi;
    fe->c21[1] = -l2 * fac_b * 0.5 / pi;
}

static double dot4(const double *a, const double *b)
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3];
}

/* out = A x (trans 0) or A^T x (trans 1), A 4 x 4 column-major. */
static void mul4(const double *a, int trans, const double *x, double *out)
{
    for (int i = 0; i < 4; i++) {
        double sum = 0.0;
        for (int j = 0; j < 4; j++)
            sum += (trans ? a[j + 4 * i] : a[i + 4 * j]) * x[j];
        out[i] = sum;
    }
}

static int crank_mass(double t, const double *q, double *m, void *user)
{
    (void)t, (void)user;
    crank_modal fe;
    crank_modal_matrices(&fe);
    const double *qe = q + CR_Q1;
    double s12 = sin(q[CR_PHI1] - q[CR_PHI2]), c12 = cos(q[CR_PHI1] - q[CR_PHI2]);
    double mq_qe[4], bq_t_qe[4];
    mul4(fe.mq, 0, qe, mq_qe);
    mul4(fe.bq, 1, qe, bq_t_qe);
    double rho = crank.density, l1 = crank.l1, l2 = crank.l2;
    memset(m, 0, 49 * sizeof(double));
#define M_(i, j) m[(i) + 7 * (j)]
    M_(0, 0) = crank.j1 + crank.m2 * l1 * l1;
    M_(0, 1) = 0.5 * l1 * l2 * crank.m2 * c12
               + rho * l1 * (s12 * dot4(fe.c2, qe) + c12 * dot4(fe.c1, qe));
    M_(1, 1) = crank.j2 + dot4(qe, mq_qe) + 2.0 * rho * dot4(fe.c12, qe);
    M_(2, 2) = crank.m3;
    for (int i = 0; i < CRANK_NQ; i++) {
        M_(0, CR_Q1 + i) = rho * l1 * (-s12 * fe.c1[i] + c12 * fe.c2[i]);
        M_(1, CR_Q1 + i) = rho * fe.c21[i] + rho * bq_t_qe[i];
        for (int j = 0; j < CRANK_NQ; j++)
            M_(CR_Q1 + j, CR_Q1 + i) = fe.mq[j + 4 * i];
    }
    for (int j = 0; j < 7; j++)
        for (int i = j + 1; i < 7; i++)
            M_(i, j) = M_(j, i); /* mq is symmetric */
#undef M_
    return 0;
}

static int crank_force(double t, const double *q, const double *u, double *f, void *user)
{
    (void)t, (void)user;
    crank_modal fe;
    crank_modal_matrices(&fe);
    const double *qe = q + CR_Q1, *ue = u + CR_Q1;
    double s12 = sin(q[CR_PHI1] - q[CR_PHI2]), c12 = cos(q[CR_PHI1] - q[CR_PHI2]);
    double s2 = sin(q[CR_PHI2]), c2 = cos(q[CR_PHI2]);
    double v1 = u[CR_PHI1], v2 = u[CR_PHI2];
    double rho = crank.density, l1 = crank.l1, l2 = crank.l2, g = crank.gravity;
    double mq_qe[4], kq_qe[4], bq_ue[4];
    mul4(fe.mq, 0, qe, mq_qe);
    mul4(fe.kq, 0, qe, kq_qe);
    mul4(fe.bq, 0, ue, bq_ue);
    double c1_qe = dot4(fe.c1, qe), c2_qe = dot4(fe.c2, qe);
    double c1_ue = dot4(fe.c1, ue), c2_ue = dot4(fe.c2, ue), c12_ue = dot4(fe.c12, ue);
    /* Rigid motion: gravity and centrifugal terms, then the flexible
    ** superposition (RESMBS's "term f^e"). */
    f[CR_PHI1] = -0.5 * l1 * g * (crank.m1 + 2.0 * crank.m2) * cos(q[CR_PHI1])
                 - 0.5 * l1 * l2 * crank.m2 * v2 * v2 * s12
                 + rho * l1 * v2 * v2 * (-s12 * c1_qe + c12 * c2_qe)
                 - 2.0 * rho * l1 * v2 * (c12 * c1_ue + s12 * c2_ue);
    f[CR_PHI2] = -0.5 * l2 * g * crank.m2 * c2 + 0.5 * l1 * l2 * crank.m2 * v1 * v1 * s12
                 + rho * l1 * v1 * v1 * (s12 * c1_qe - c12 * c2_qe) - 2.0 * rho * v2 * c12_ue
                 - 2.0 * v2 * dot4(ue, mq_qe) - rho * dot4(ue, bq_ue)
                 - rho * g * (c2 * c1_qe - s2 * c2_qe);
    f[CR_X3] = 0.0;
    /* Elastic: Coriolis, centrifugal and gravity terms, less K q (no
    ** damping). */
    for (int i = 0; i < CRANK_NQ; i++)
        f[CR_Q1 + i] = v2 * v2 * mq_qe[i]
                       + rho * (v2 * v2 * fe.c12[i]
                                + l1 * v1 * v1 * (c12 * fe.c1[i] + s12 * fe.c2[i])
                                + 2.0 * v2 * bq_ue[i])
                       - rho * g * (s2 * fe.c1[i] + c2 * fe.c2[i]) - kq_qe[i];
    return 0;
}

static int crank_phi(double t, const double *q, double *phi, void *user)
{
    (void)user;
    double rod = crank.l2 + q[CR_Q1 + 3];
    phi[0] = crank.l1 * sin(q[CR_PHI1]) + rod * sin(q[CR_PHI2]);
    phi[1] = q[CR_X3] - crank.l1 * cos(q[CR_PHI1]) - rod * cos(q[CR_PHI2]);
    phi[2] = q[CR_PHI1] - crank.omega * t;
    return 0;
}

static int crank_g(double t, const double *q, double *g, void *user)
{
    (void)t, (void)user;
    double rod = crank.l2 + q[CR_Q1 + 3];
    double s1 = sin(q[CR_PHI1]), c1 = cos(q[CR_PHI1]), s2 = sin(q[CR_PHI2]),
           c2 = cos(q[CR_PHI2]);
    memset(g, 0, 21 * sizeof(double));
#define G_(i, j) g[(i) + 3 * (j)]
    G_(0, CR_PHI1) = crank.l1 * c1;
    G_(0, CR_PHI2) = rod * c2;
    G_(0, CR_Q1 + 3) = s2;
    G_(1, CR_PHI1) = crank.l1 * s1;
    G_(1, CR_PHI2) = rod * s2;
    G_(1, CR_X3) = 1.0;
    G_(1, CR_Q1 + 3) = -c2;
    G_(2, CR_PHI1) = 1.0;
#undef G_
    return 0;
}

static int crank_phi_t(double t, const double *q, double *phi_t, void *user)
{
    (void)t, (void)q, (void)user;
    phi_t[0] = 0.0;
    phi_t[1] = 0.0;
    phi_t[2] = -crank.omega;
    return 0;
}

/* gamma = -(Phi_q u)_q u (Phi_qt = 0, Phi_tt = 0): with r = L2 + q4,
**   d/dt (Phi_q u)_1 at u' = 0: -L1 sin phi1 v1^2 - r sin phi2 v2^2
**                               + 2 cos phi2 v2 q4'
**   d/dt (Phi_q u)_2 at u' = 0:  L1 cos phi1 v1^2 + r cos phi2 v2^2
**                               + 2 sin phi2 v2 q4'
** (RESMBS's acceleration-level constraints ALC less G w). */
static int crank_gamma(double t, const double *q, const double *u, double *gamma, void *user)
{
    (void)t, (void)user;
    double rod = crank.l2 + q[CR_Q1 + 3];
    double s1 = sin(q[CR_PHI1]), c1 = cos(q[CR_PHI1]), s2 = sin(q[CR_PHI2]),
           c2 = cos(q[CR_PHI2]);
    double v1 = u[CR_PHI1], v2 = u[CR_PHI2], v_end = u[CR_Q1 + 3];
    gamma[0] = crank.l1 * s1 * v1 * v1 + rod * s2 * v2 * v2 - 2.0 * c2 * v2 * v_end;
    gamma[1] = -crank.l1 * c1 * v1 * v1 - rod * c2 * v2 * v2 - 2.0 * s2 * v2 * v_end;
    gamma[2] = 0.0;
    return 0;
}

const mech_system slider_crank = {
    .n_q = 7, .n_c = 3, .user = NULL,
    .mass = crank_mass, .force = crank_force, .constraint = crank_phi,
    .constraint_jac = crank_g, .constraint_t = crank_phi_t, .accel_rhs = crank_gamma,
};

/* reference.json, crank: y0 ("smooth", deTestSet ini = 1) and yref at t =
** 0.1, both (q[7], u[7], u'[7], lambda[3]). */
const double crank_y0[24] = {
    0, 0, 0.450016933, 0, 0, 1.03339863e-05, 1.69327969e-05,
    150.0, -74.995767, -2.68938672e-06, 0.444896105, 0.00463434311, -1.78591076e-06,
    -2.68938672e-06,
    0, -0.001344541576008661, -5062.194923138079, -6.833142732779555e-05,
    1.449382650173157e-08, -4.268463211410861, 0.2098334687947376,
    -6.397251492537153e-08, 382.4589508329281, -4.376060460948886e-09,
};
const double crank_ref[24] = {
    15.00000000000104, -0.331173498825626, 0.169737332842786, 0.0001893192899613509,
    2.375751249879174e-05, -5.323896770569702e-06, -8.363313279112129e-06,
    150.0, 60.25346755138369, -8.753116326670527, -0.03005541400289738,
    -0.005500431812571696, 0.0004974111734266989, 0.001105560003626645,
    0.0, 6488.737541276957, 2167.938629509884, 33.91137060286523, 0.1715134772216488,
    -1.422449408912512, 1.00394642812481,
    -62.32935833287916, -163.7920993367306, 25.29857947066878,
};
