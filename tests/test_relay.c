/*
** Relay with dead zone (examples/relay.c) against an independent reference:
** between switches the plant x' = v, v' = -a v + u with constant
** u = F m has the closed form
**     v(s) = u/a + (v0 - u/a) exp(-a s),
**     x(s) = x0 + (u/a) s + (v0 - u/a) (1 - exp(-a s)) / a,
** and each switching time is the first root of the active switching
** function along it, bracketed on a fine grid and bisected to 1e-15.
** The simulated mode sequence and switching times must match.
*/
#include "check.h"
#include "examples.h"
#include "rows.h"

enum { MAX_SWITCHES = 64 };
static const double a = 1.0, F = 1.0, vs = 0.1, r_ref = 1.0;

static double x_at(double x0, double v0, double u, double s)
{
    return x0 + u / a * s + (v0 - u / a) * (1.0 - exp(-a * s)) / a;
}

static double v_at(double v0, double u, double s)
{
    return u / a + (v0 - u / a) * exp(-a * s);
}

/* Switching function the level m leaves by, with the level it goes to. */
static double leave_function(double m, double x, int which)
{
    double error = r_ref - x;
    if (m == 1.0)
        return error - vs;              /* falls through 0 -> level 0 */
    if (m == -1.0)
        return error + vs;              /* rises through 0 -> level 0 */
    return which == 0 ? error - vs : error + vs; /* level 0: rise -> +1, fall -> -1 */
}

/* The reference switching times and levels up to t_end. */
static int reference(double t_end, double *t_switch, double *level)
{
    double t = 0.0, x = 0.0, v = 0.0, m = 1.0;
    int n = 0;
    while (n < MAX_SWITCHES) {
        double u = F * m, ds = 1e-3, s_prev = 0.0, best_s = INFINITY, best_level = 0.0;
        for (int which = 0; which < (m == 0.0 ? 2 : 1); which++) {
            double f_prev = leave_function(m, x, which);
            for (double s = ds; t + s <= t_end + ds; s += ds) {
                double f = leave_function(m, x_at(x, v, u, s), which);
                int crossed = (m == 1.0 && f <= 0.0 && f_prev > 0.0)
                              || (m == -1.0 && f >= 0.0 && f_prev < 0.0)
                              || (m == 0.0 && which == 0 && f >= 0.0 && f_prev < 0.0)
                              || (m == 0.0 && which == 1 && f <= 0.0 && f_prev > 0.0);
                if (crossed) {
                    double lo = s - ds, hi = s;
                    while (hi - lo > 1e-15) {
                        double mid = 0.5 * (lo + hi);
                        double fm = leave_function(m, x_at(x, v, u, mid), which);
                        if ((fm > 0.0) == (f_prev > 0.0))
                            lo = mid;
                        else
                            hi = mid;
                    }
                    if (hi < best_s) {
                        best_s = hi;
                        best_level = m != 0.0 ? 0.0 : (which == 0 ? 1.0 : -1.0);
                    }
                    break;
                }
                f_prev = f;
                s_prev = s;
            }
        }
        (void)s_prev;
        if (!(t + best_s <= t_end))
            break;
        x = x_at(x, v, u, best_s);
        v = v_at(v, u, best_s);
        t += best_s;
        m = best_level;
        t_switch[n] = t;
        level[n] = m;
        n++;
    }
    return n;
}

int main(void)
{
    const double t_end = 10.0;
    double t_ref[MAX_SWITCHES], m_ref[MAX_SWITCHES];
    int n_ref = reference(t_end, t_ref, m_ref);
    CHECK(n_ref >= 4, "the reference has %d switches; the scenario should have several", n_ref);

    hydae_model *m = example_relay();
    int status;
    hydae_sim *s = hydae_sim_create(m, &status);
    CHECK(s != NULL, "create: %s", hydae_model_errmsg(m));
    if (!s)
        return CHECK_DONE();
    test_rows rows;
    test_rows_init(&rows, m);
    CHECK(hydae_sim_set_time(s, 0.0, t_end) == 0 && hydae_sim_set_tolerances(s, 1e-10, 1e-12) == 0
              && hydae_sim_add_row_sink(s, test_rows_sink, &rows) == 0,
          "settings");
    status = hydae_sim_run(s);
    CHECK(status == 0, "run: %s", hydae_sim_errmsg(s));
    int cm = test_column(m, "m");
    int n_sim = 0;
    for (int i = 0; i < rows.n_rows; i++) {
        if (rows.kind[i] != HYDAE_ROW_EVENT_RIGHT)
            continue;
        if (n_sim < n_ref) {
            char what[64];
            snprintf(what, sizeof what, "switch %d time", n_sim + 1);
            CHECK_NEAR(rows.t[i], t_ref[n_sim], 1e-7, what);
            CHECK(test_value(&rows, i, cm) == m_ref[n_sim], "switch %d: level %g, want %g",
                  n_sim + 1, test_value(&rows, i, cm), m_ref[n_sim]);
        }
        n_sim++;
    }
    CHECK(n_sim == n_ref, "%d switches simulated, %d in the reference", n_sim, n_ref);
    printf("relay: %d switches:", n_ref);
    for (int i = 0; i < n_ref; i++)
        printf(" %.6f->%+g", t_ref[i], m_ref[i]);
    printf("\n");
    test_rows_free(&rows);
    hydae_sim_free(s);
    hydae_model_free(m);
    return CHECK_DONE();
}
