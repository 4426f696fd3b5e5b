/*
** Non-stiff benchmark problems, written here from their published
** definitions in
**   [HNW] E. Hairer, S.P. Norsett, G. Wanner, "Solving Ordinary
**         Differential Equations I: Nonstiff Problems", 2nd ed., Springer
**         1993: sec. II.0, eq. (0.1) (Arenstorf orbit) and sec. II.10,
**         eqs. (10.3)-(10.4) (Pleiades, problem PLEI);
**   Test Set for IVP Solvers (F. Mazzia, C. Magherini, release 2.4,
**         2008), problem PLEI: the component order (x, y, x', y') and the
**         reference solution, copied digit for digit from
**         /work/shared/testset/reference.json (key "pleiades", computed by
**         PSIDE with rtol = atol = 1e-16; source deTestSet Ex_pleiades.f).
** Both are explicit ODEs (dae.rhs); they have no residual, no Jacobian and
** no yp0 here (the ODE methods evaluate f(t0, y0) themselves), since only
** the non-stiff methods (ABAM, RK45, CVODE Adams, ARKODE ERK) integrate
** them.
*/
#include "nonstiff.h"

#include <math.h>
#include <stddef.h>

/* ------------------------------------------------------------------------
** Arenstorf orbit ([HNW] II.0): the restricted three-body problem of a
** satellite in the rotating frame of the earth (mass 1 - mu) and the moon
** (mass mu), mu = 0.012277471:
**   y1'' = y1 + 2 y2' - mu' (y1 + mu)/D1 - mu (y1 - mu')/D2
**   y2'' = y2 - 2 y1' - mu' y2/D1 - mu y2/D2
**   D1 = ((y1 + mu)^2 + y2^2)^(3/2),  D2 = ((y1 - mu')^2 + y2^2)^(3/2),
**   mu' = 1 - mu,
** y1(0) = 0.994, y1'(0) = 0, y2(0) = 0,
** y2'(0) = -2.00158510637908252240537862224; the orbit is closed with
** period T = 17.0652165601579625588917206249, so the reference solution at
** t_end = T is the initial value. State (y1, y2, y1', y2'). Two reference
** components are 0: scored with the mixed error (mescd; atol = rtol).
*/
#define ARENSTORF_MU 0.012277471
#define ARENSTORF_MU_EARTH (1.0 - ARENSTORF_MU)
#define ARENSTORF_PERIOD 17.0652165601579625588917206249

static int arenstorf_rhs(double t, const double *y, double *ydot, void *ctx)
{
    (void)t;
    (void)ctx;
    double to_earth_sq = (y[0] + ARENSTORF_MU) * (y[0] + ARENSTORF_MU)
                         + y[1] * y[1];
    double to_moon_sq = (y[0] - ARENSTORF_MU_EARTH)
                            * (y[0] - ARENSTORF_MU_EARTH)
                        + y[1] * y[1];
    double d_earth = to_earth_sq * sqrt(to_earth_sq);
    double d_moon = to_moon_sq * sqrt(to_moon_sq);
    ydot[0] = y[2];
    ydot[1] = y[3];
    ydot[2] = y[0] + 2.0 * y[3]
              - ARENSTORF_MU_EARTH * (y[0] + ARENSTORF_MU) / d_earth
              - ARENSTORF_MU * (y[0] - ARENSTORF_MU_EARTH) / d_moon;
    ydot[3] = y[1] - 2.0 * y[2] - ARENSTORF_MU_EARTH * y[1] / d_earth
              - ARENSTORF_MU * y[1] / d_moon;
    return 0;
}

static const double arenstorf_y0[4] = {
    0.994, 0.0, 0.0, -2.00158510637908252240537862224};

/* ------------------------------------------------------------------------
** Pleiades ([HNW] II.10, problem PLEI): seven stars in the plane with
** masses m_i = i, coordinates (x_i, y_i):
**   x_i'' = sum_{j != i} m_j (x_j - x_i) / r_ij,
**   y_i'' = sum_{j != i} m_j (y_j - y_i) / r_ij,
**   r_ij = ((x_i - x_j)^2 + (y_i - y_j)^2)^(3/2),     t in [0, 3],
** x(0) = (3, 3, -1, -3, 2, -2, 2), y(0) = (3, -3, 2, 0, 0, -4, 4),
** x'(0) = 0 but x6'(0) = 1.75, x7'(0) = -1.5,
** y'(0) = 0 but y4'(0) = -1.25, y5'(0) = 1.
** State (x_1..7, y_1..7, x'_1..7, y'_1..7), as in the test set.
*/
#define PLEIADES_N_STARS 7

static int pleiades_rhs(double t, const double *y, double *ydot, void *ctx)
{
    (void)t;
    (void)ctx;
    const double *x_pos = y, *y_pos = y + PLEIADES_N_STARS;
    double *x_acc = ydot + 2 * PLEIADES_N_STARS;
    double *y_acc = ydot + 3 * PLEIADES_N_STARS;
    for (int i = 0; i < 2 * PLEIADES_N_STARS; i++)
        ydot[i] = y[2 * PLEIADES_N_STARS + i];
    for (int i = 0; i < PLEIADES_N_STARS; i++) {
        x_acc[i] = 0.0;
        y_acc[i] = 0.0;
    }
    /* Each pair once: the force on i from j, and its opposite scaled by
    ** the masses (m = index + 1). */
    for (int i = 0; i < PLEIADES_N_STARS; i++) {
        double mass_i = (double)(i + 1);
        for (int j = i + 1; j < PLEIADES_N_STARS; j++) {
            double mass_j = (double)(j + 1);
            double dx = x_pos[j] - x_pos[i], dy = y_pos[j] - y_pos[i];
            double dist_sq = dx * dx + dy * dy;
            double r_cubed = dist_sq * sqrt(dist_sq);
            x_acc[i] += mass_j * dx / r_cubed;
            y_acc[i] += mass_j * dy / r_cubed;
            x_acc[j] -= mass_i * dx / r_cubed;
            y_acc[j] -= mass_i * dy / r_cubed;
        }
    }
    return 0;
}

static const double pleiades_y0[4 * PLEIADES_N_STARS] = {
    /* x */ 3.0, 3.0, -1.0, -3.0, 2.0, -2.0, 2.0,
    /* y */ 3.0, -3.0, 2.0, 0.0, 0.0, -4.0, 4.0,
    /* x' */ 0.0, 0.0, 0.0, 0.0, 0.0, 1.75, -1.5,
    /* y' */ 0.0, 0.0, 0.0, -1.25, 1.0, 0.0, 0.0};

static const double pleiades_ref[4 * PLEIADES_N_STARS] = {
    0.3706139143970502,  3.237284092057233,   -3.222559032418324,
    0.659709145577531,   0.3425581707156584,  1.562172101400631,
    -0.7003092922212495, -3.943437585517392,  -3.27138097397255,
    5.225081843456543,   -2.59061243497747,   1.198213693392275,
    -0.2429682344935824, 1.09144924042898,    3.417003806314313,
    1.354584501625501,   -2.590065597810775,  2.025053734714242,
    -1.155815100160448,  -0.8072988170223021, 0.595239635420871,
    -3.74124496123401,   0.377345968575063,   0.9386858869551074,
    0.3667922227200571,  -0.347404635380849,  2.344915448180937,
    -1.947020434263292};

/* ------------------------------------------------------------------------ */

const bench_case bench_nonstiff_cases[] = {
    {"ARENSTORF", "Arenstorf orbit, one period (HNW I II.0), ODE n = 4",
     {4, NULL, NULL, NULL, NULL, arenstorf_rhs, NULL, NULL}, 0.0, ARENSTORF_PERIOD,
     arenstorf_y0, NULL, arenstorf_y0, 1.0, 0.0, bench_scd_mixed,
     NULL},
    {"PLEIADES", "Pleiades, 7 bodies (HNW I II.10), ODE n = 28",
     {4 * PLEIADES_N_STARS, NULL, NULL, NULL, NULL, pleiades_rhs, NULL, NULL}, 0.0, 3.0,
     pleiades_y0, NULL, pleiades_ref, 1.0, 0.0, bench_scd_relative, NULL},
};
const int bench_nonstiff_n_cases =
    (int)(sizeof bench_nonstiff_cases / sizeof bench_nonstiff_cases[0]);
