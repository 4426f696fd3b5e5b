/*
** Issue 14's acceptance tests for components with modes: library
** components that are charts of their own (Electrical.IdealDiode,
** Rotational.Clutch) against hand-written flat models of the same systems
** and against closed forms.
**
** Bridge rectifier (examples/bridge_rectifier.hym, four IdealDiode charts;
** tests/lang/bridge_rectifier_flat.hym, one chart whose modes are the
** diode-state combinations, no component, no library):
**  - the closed form: in every phase the circuit is linear with the
**    capacitor voltage vC as its one state, C vC' = s_src vs(t) + s_cap vC
**    with vs = V sin(w t), solved exactly (a sine plus an exponential); the
**    coefficients come from the circuit's equations for the phase's diode
**    states, solved here by Gaussian elimination; each diode's switching
**    condition along it (the voltage of a blocking diode rising through 0,
**    the current of a conducting one falling through 0) is bracketed by
**    scanning and bisected to adjacent doubles;
**  - every diode's turn-on and turn-off instants of the flat model and of
**    the component model agree with the closed form and with each other to
**    1e-9 s, none missed or extra; vC at every grid row to 1e-9 V relative
**    to the amplitude (10 V); in each all-blocking phase vC decays as
**    vC(t_off) exp(-(1/R + Goff)(t - t_off) / C) from the run's own turn-off
**    (derivation at bridge_blocking_decay()) to 1e-9 relative.
**
** Clutch (examples/clutch.hym: Blocks.Sine into Rotational.Torque on
** inertia J1, Rotational.Clutch to inertia J2; tests/lang/clutch_flat.hym
** the same by hand):
**  - the first separation at t_sep = asin(tau_max (J1 + J2) / (J2 A)) / w,
**    to 1e-9 relative; every later separation and lock-up at the closed
**    form's instants (speeds piecewise closed form, lock-up where
**    w2 - w1 = 0, bisected) to 1e-9 relative;
**  - the momentum J1 w1 + J2 w2 at every row equals the source's impulse
**    A (1 - cos(w t)) / w to 1e-9 relative to A / w; at each lock-up its
**    left- and right-limit values agree to 1e-12 relative;
**  - while stuck, w1 = w2 to 1e-9 relative to A / w and the clutch carries
**    J2 / (J1 + J2) A |sin(w t)| to 1e-9 A; slipping, tau_max to 1e-12
**    relative (magnitudes: the test reads the direction of a slip from the
**    speeds, not from the library's mode names or sign convention).
** Both models of each system run with DSTIFF at rtol = atol = 1e-12.
*/
#include "check.h"
#include "lang/lang.h"
#include "lang/lang_test_util.h"
#include "rows.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const double pi = 3.141592653589793;
static char source_dir[1024];

/* ---------------------------------------------------------------------- */
/* Runs that also record the active mode of some charts                  */

#define MAX_CHARTS 4
#define MODE_NAME_LEN 32

/* The active mode of n_charts charts at every row, in row order. */
typedef struct mode_rows {
    int n_rows, n_charts;
    char (*name)[MAX_CHARTS][MODE_NAME_LEN];
} mode_rows;

static hy_lang_unit *compile_file(const char *relative)
{
    char path[1400];
    snprintf(path, sizeof path, "%s/%s", source_dir, relative);
    int n_errors = 0;
    hy_lang_unit *unit = hy_lang_compile_file(path, stderr, NULL, &n_errors);
    CHECK(unit != NULL, "%s compiles (%d errors)", relative, n_errors);
    return unit;
}

/* Run with DSTIFF from 0 to t_end, rows into *rows (as test_run) and the
** modes of the charts named in mode_vars ("mode(A),mode(B)") into *modes,
** read back from the CSV writer's mode columns. The run's status. */
static int run_with_modes(hydae_model *m, double t_end, double dt, double rtol, double atol,
                          const char *mode_vars, int n_charts, test_rows *rows, mode_rows *modes)
{
    int status;
    test_rows_init(rows, m);
    memset(modes, 0, sizeof *modes);
    modes->n_charts = n_charts;
    hydae_sim *s = hydae_sim_create(m, &status);
    if (!s) {
        fprintf(stderr, "create: %s\n", hydae_model_errmsg(m));
        return status ? status : -1;
    }
    FILE *csv = tmpfile();
    status = csv ? 0 : -1;
    if (!status)
        status = hydae_sim_set_time(s, 0.0, t_end);
    if (!status)
        status = hydae_sim_set_output_interval(s, dt);
    if (!status)
        status = hydae_sim_set_tolerances(s, rtol, atol);
    if (!status)
        status = hydae_sim_set_integrator(s, "DSTIFF");
    if (!status)
        status = hydae_sim_add_row_sink(s, test_rows_sink, rows);
    if (!status)
        status = hydae_sim_add_csv_vars(s, csv, mode_vars, 0);
    if (!status)
        status = hydae_sim_run(s);
    if (status)
        fprintf(stderr, "run: %s\n", hydae_sim_errmsg(s));
    hydae_sim_free(s);
    if (status) {
        if (csv)
            fclose(csv);
        return status;
    }
    modes->name = calloc((size_t)rows->n_rows + 1, sizeof *modes->name);
    rewind(csv);
    char line[1024];
    int header = 1;
    while (modes->name && fgets(line, sizeof line, csv)) {
        if (header || line[0] == '#') {
            header = 0;
            continue;
        }
        if (modes->n_rows == rows->n_rows) {
            modes->n_rows++; /* more CSV lines than rows: reported below */
            break;
        }
        char *field = strchr(line, ',');
        for (int c = 0; c < n_charts && field; c++) {
            char *end = field + 1 + strcspn(field + 1, ",\r\n");
            snprintf(modes->name[modes->n_rows][c], MODE_NAME_LEN, "%.*s",
                     (int)(end - field - 1), field + 1);
            field = *end == ',' ? end : NULL;
        }
        modes->n_rows++;
    }
    fclose(csv);
    CHECK(modes->name && modes->n_rows == rows->n_rows, "%d CSV mode rows for %d result rows",
          modes->n_rows, rows->n_rows);
    return modes->name && modes->n_rows == rows->n_rows ? 0 : -1;
}

static double column_value(const hydae_model *m, const test_rows *rows, int row, const char *name)
{
    int c = test_column(m, name);
    return c >= 0 ? test_value(rows, row, c) : NAN;
}

static int has_columns(const hydae_model *m, const char *const *names, int n)
{
    int ok = 1;
    for (int i = 0; i < n; i++)
        if (test_column(m, names[i]) < 0) {
            CHECK(0, "no result column %s", names[i]);
            ok = 0;
        }
    return ok;
}

/* ---------------------------------------------------------------------- */
/* Bridge rectifier: closed form                                          */

static const double br_V = 10, br_f = 50, br_Rs = 1, br_C = 100e-6, br_R = 100, br_v0 = 1;
static const double br_Ron = 1e-5, br_Goff = 1e-5;
static const double br_t_end = 0.1, br_dt = 1e-4;

/* The algebraic unknowns x = (va, vb, is, i1, i2, i3, i4) of the bridge for
** the source voltage vs, the capacitor voltage vc (the potential of p; n
** is ground) and the diode states on[k] (1 conducting), from the circuit's
** equations:
**   va - vb + Rs is = vs,  is + i3 - i1 = 0,  i4 - i2 - is = 0,
**   diode k with voltage v_k (anode - cathode: va - vc, vb - vc, -va, -vb):
**   conducting v_k - Ron i_k = 0, blocking i_k - Goff v_k = 0.
** Gaussian elimination with partial pivoting on the 7 x 7 system. */
static void bridge_algebraic(const int on[4], double vs, double vc, double x[7])
{
    double a[7][8] = { { 0 } };
    a[0][0] = 1, a[0][1] = -1, a[0][2] = br_Rs, a[0][7] = vs;
    a[1][2] = 1, a[1][5] = 1, a[1][3] = -1;
    a[2][6] = 1, a[2][4] = -1, a[2][2] = -1;
    /* v_k = coef_a va + coef_b vb + constant */
    const double coef_a[4] = { 1, 0, -1, 0 }, coef_b[4] = { 0, 1, 0, -1 };
    const double constant[4] = { -vc, -vc, 0, 0 };
    for (int k = 0; k < 4; k++) {
        double *row = a[3 + k];
        double scale_v = on[k] ? 1.0 : -br_Goff; /* the factor of v_k */
        row[0] = scale_v * coef_a[k];
        row[1] = scale_v * coef_b[k];
        row[3 + k] = on[k] ? -br_Ron : 1.0;
        row[7] = -scale_v * constant[k];
    }
    for (int col = 0; col < 7; col++) {
        int pivot = col;
        for (int r = col + 1; r < 7; r++)
            if (fabs(a[r][col]) > fabs(a[pivot][col]))
                pivot = r;
        for (int c = 0; c < 8; c++) {
            double swap = a[col][c];
            a[col][c] = a[pivot][c];
            a[pivot][c] = swap;
        }
        for (int r = col + 1; r < 7; r++) {
            double factor = a[r][col] / a[col][col];
            for (int c = col; c < 8; c++)
                a[r][c] -= factor * a[col][c];
        }
    }
    for (int r = 6; r >= 0; r--) {
        double sum = a[r][7];
        for (int c = r + 1; c < 7; c++)
            sum -= a[r][c] * x[c];
        x[r] = sum / a[r][r];
    }
}

/* One phase: diode states fixed from t0, where vC = vc0. The load's
** equation C vC' = i1 + i2 - vC / R is linear: vC' = q sin(w t) + b vC with
** q = V s_src, s_src = (i1 + i2)(vs = 1, vc = 0) / C and
** b = ((i1 + i2)(vs = 0, vc = 1) - 1 / R) / C. Its solution is
**   vC(t) = Ks sin(w t) + Kc cos(w t) + (vc0 - Ks sin(w t0) - Kc cos(w t0)) e^{b (t - t0)}
** with Ks = -q b / (b^2 + w^2), Kc = -q w / (b^2 + w^2). */
typedef struct bridge_phase {
    int on[4];
    double t0, vc0, s_src, b, Ks, Kc;
} bridge_phase;

static void bridge_phase_start(bridge_phase *ph, const int on[4], double t0, double vc0)
{
    double x[7], w = 2 * pi * br_f;
    memcpy(ph->on, on, sizeof ph->on);
    ph->t0 = t0;
    ph->vc0 = vc0;
    bridge_algebraic(on, 1.0, 0.0, x);
    ph->s_src = (x[3] + x[4]) / br_C;
    bridge_algebraic(on, 0.0, 1.0, x);
    ph->b = (x[3] + x[4] - 1.0 / br_R) / br_C;
    double q = br_V * ph->s_src, d = ph->b * ph->b + w * w;
    ph->Ks = -q * ph->b / d;
    ph->Kc = -q * w / d;
}

static double bridge_vc(const bridge_phase *ph, double t)
{
    double w = 2 * pi * br_f;
    double transient = ph->vc0 - ph->Ks * sin(w * ph->t0) - ph->Kc * cos(w * ph->t0);
    return ph->Ks * sin(w * t) + ph->Kc * cos(w * t) + transient * exp(ph->b * (t - ph->t0));
}

/* Diode k's switching function along the phase, positive past its switch:
** the voltage of a blocking diode, minus the current of a conducting one. */
static double bridge_guard(const bridge_phase *ph, int k, double t)
{
    double x[7];
    bridge_algebraic(ph->on, br_V * sin(2 * pi * br_f * t), bridge_vc(ph, t), x);
    if (ph->on[k])
        return -x[3 + k];
    const double v[4] = { x[0] - bridge_vc(ph, t), x[1] - bridge_vc(ph, t), -x[0], -x[1] };
    return v[k];
}

#define BR_MAX_EVENTS 64

/* The closed form's switching instants: times[k][j] the j-th switch of
** diode k (on, off, on, ... from blocking), n[k] their number; and the
** phases, to evaluate vC anywhere. */
typedef struct bridge_reference {
    int n[4];
    double times[4][BR_MAX_EVENTS];
    int n_phases;
    bridge_phase phase[4 * BR_MAX_EVENTS + 1];
} bridge_reference;

/* The first time in (t0, t_end] at which g(k, t) > 0 after being <= 0, to
** adjacent doubles (the later one), or INFINITY. */
static double bridge_first_switch(const bridge_phase *ph, int k, double t_end)
{
    const double h = 1e-5;
    double lo = ph->t0, g_lo = bridge_guard(ph, k, lo);
    for (int i = 1; lo < t_end; i++) {
        double hi = fmin(ph->t0 + i * h, t_end), g_hi = bridge_guard(ph, k, hi);
        if (g_lo <= 0 && g_hi > 0) {
            while (1) {
                double mid = lo + 0.5 * (hi - lo);
                if (!(mid > lo && mid < hi))
                    return hi;
                if (bridge_guard(ph, k, mid) > 0)
                    hi = mid;
                else
                    lo = mid;
            }
        }
        lo = hi;
        g_lo = g_hi;
    }
    return INFINITY;
}

static void bridge_closed_form(bridge_reference *ref)
{
    memset(ref, 0, sizeof *ref);
    int on[4] = { 0, 0, 0, 0 };
    double t = 0, vc = br_v0;
    /* every diode blocks at t = 0: the closed form starts there */
    bridge_phase_start(&ref->phase[0], on, t, vc);
    ref->n_phases = 1;
    for (int k = 0; k < 4; k++)
        CHECK(bridge_guard(&ref->phase[0], k, 0.0) < 0, "bridge: D%d blocks at t = 0", k + 1);
    while (ref->n_phases < 4 * BR_MAX_EVENTS) {
        bridge_phase *ph = &ref->phase[ref->n_phases - 1];
        double t_k[4], t_next = INFINITY;
        for (int k = 0; k < 4; k++) {
            t_k[k] = bridge_first_switch(ph, k, br_t_end);
            t_next = fmin(t_next, t_k[k]);
        }
        if (!(t_next <= br_t_end))
            break;
        /* the diodes that switch at this instant (the symmetric bridge
        ** switches them in pairs, D1 with D4, D2 with D3) */
        int n_switch = 0;
        for (int k = 0; k < 4; k++)
            if (t_k[k] <= t_next + 1e-12 * fmax(1.0, t_next)) {
                on[k] = !on[k];
                if (ref->n[k] < BR_MAX_EVENTS)
                    ref->times[k][ref->n[k]++] = t_k[k];
                n_switch++;
            }
        CHECK(n_switch == 2 && on[0] == on[3] && on[1] == on[2] && !(on[0] && on[1]),
              "bridge closed form at t = %.17g: %d diodes switch, states %d%d%d%d (want pairs)",
              t_next, n_switch, on[0], on[1], on[2], on[3]);
        vc = bridge_vc(ph, t_next);
        t = t_next;
        bridge_phase_start(&ref->phase[ref->n_phases++], on, t, vc);
    }
}

static double bridge_reference_vc(const bridge_reference *ref, double t)
{
    int p = 0;
    while (p + 1 < ref->n_phases && ref->phase[p + 1].t0 <= t)
        p++;
    return bridge_vc(&ref->phase[p], t);
}

/* While all four diodes block: Kirchhoff at a and b,
**   is + Goff (vn - va) = Goff (va - vp)  and  is + Goff (vb - vp) = Goff (vn - vb),
** subtracted give va + vb = vp + vn, so the current into p,
**   Goff (va - vp) + Goff (vb - vp) = Goff (vn - vp) = -Goff vC,
** and C vC' = -vC (1/R + Goff): the four equal conductances leak like one
** Goff across p-n, whatever the source does. Checks the derivation against
** the linear solve of the circuit (s_src = 0, b = -(1/R + Goff) / C). */
static void bridge_blocking_decay(void)
{
    bridge_phase ph;
    const int off[4] = { 0, 0, 0, 0 };
    bridge_phase_start(&ph, off, 0.0, 1.0);
    double b = -(1 / br_R + br_Goff) / br_C;
    CHECK(fabs(ph.s_src) <= 1e-15 && fabs(ph.b - b) <= 1e-13 * fabs(b),
          "bridge, all blocking: s_src %.3g (want 0), b %.17g (want %.17g)", ph.s_src, ph.b, b);
}

/* ---------------------------------------------------------------------- */
/* Bridge rectifier: the runs                                             */

/* Diode k's switching instants in a run: the rows where its state changes
** (right limits; the state at grid rows too, so none is lost). */
typedef struct bridge_switches {
    int n[4];
    double times[4][BR_MAX_EVENTS];
} bridge_switches;

/* state_of(modes, row, k): 1 if diode k conducts at that row, 0 if it
** blocks, -1 for a mode name the caller does not know. */
typedef int (*diode_state_fn)(const mode_rows *modes, int row, int k);

static int flat_state(const mode_rows *modes, int row, int k)
{
    const char *name = modes->name[row][0];
    if (strcmp(name, "blocking") == 0)
        return 0;
    if (strcmp(name, "forward") == 0)
        return k == 0 || k == 3;
    if (strcmp(name, "reverse") == 0)
        return k == 1 || k == 2;
    return -1;
}

static int component_state(const mode_rows *modes, int row, int k)
{
    const char *name = modes->name[row][k];
    return strcmp(name, "conducting") == 0 ? 1 : strcmp(name, "blocking") == 0 ? 0 : -1;
}

static void bridge_extract(const char *what, const test_rows *rows, const mode_rows *modes,
                           diode_state_fn state_of, bridge_switches *sw)
{
    memset(sw, 0, sizeof *sw);
    int bad_names = 0;
    for (int k = 0; k < 4; k++) {
        int state = state_of(modes, 0, k);
        CHECK(state == 0, "%s: D%d blocks at t = 0 (state %d)", what, k + 1, state);
        for (int r = 1; r < rows->n_rows; r++) {
            if (rows->kind[r] == HYDAE_ROW_EVENT_LEFT)
                continue;
            int now = state_of(modes, r, k);
            bad_names += now < 0;
            if (now >= 0 && now != state) {
                CHECK(rows->kind[r] == HYDAE_ROW_EVENT_RIGHT,
                      "%s: D%d switches at a row that is not an event's right limit (t = %.17g)",
                      what, k + 1, rows->t[r]);
                if (sw->n[k] < BR_MAX_EVENTS)
                    sw->times[k][sw->n[k]++] = rows->t[r];
                state = now;
            }
        }
    }
    CHECK(bad_names == 0, "%s: %d rows with an unknown mode name", what, bad_names);
}

/* Switching instants against a reference, diode by diode. The largest
** difference, or INFINITY when the counts differ (reported). */
static double bridge_compare_switches(const char *what, const bridge_switches *got, const int *n_want,
                                      const double (*want)[BR_MAX_EVENTS])
{
    double worst = 0;
    for (int k = 0; k < 4; k++) {
        CHECK(got->n[k] == n_want[k], "%s: D%d switches %d times, want %d", what, k + 1, got->n[k],
              n_want[k]);
        if (got->n[k] != n_want[k])
            return INFINITY;
        for (int j = 0; j < got->n[k]; j++)
            worst = test_worse(worst, fabs(got->times[k][j] - want[k][j]));
    }
    return worst;
}

/* vC at every grid row against the closed form, and in every all-blocking
** phase against the decay from the run's own turn-off (right-limit row):
** vC(t_off) exp(-(1/R + Goff)(t - t_off) / C). */
static void bridge_check_vc(const char *what, const hydae_model *m, const char *vc_name,
                            const test_rows *rows, const mode_rows *modes, diode_state_fn state_of,
                            const bridge_reference *ref)
{
    double worst = 0, worst_decay = 0;
    int n_grid = 0, n_decay = 0;
    /* every diode blocks from t = 0 (row 0) */
    double t_off = rows->t[0], vc_off = column_value(m, rows, 0, vc_name);
    for (int r = 0; r < rows->n_rows; r++) {
        double vc = column_value(m, rows, r, vc_name);
        int all_blocking = 1;
        for (int k = 0; k < 4; k++)
            all_blocking &= state_of(modes, r, k) == 0;
        if (rows->kind[r] == HYDAE_ROW_EVENT_RIGHT) {
            t_off = all_blocking ? rows->t[r] : NAN;
            vc_off = vc;
        }
        if (rows->kind[r] != HYDAE_ROW_GRID)
            continue;
        n_grid++;
        worst = test_worse(worst, fabs(vc - bridge_reference_vc(ref, rows->t[r])));
        if (all_blocking && isfinite(t_off)) {
            double decay = vc_off * exp(-(1 / br_R + br_Goff) * (rows->t[r] - t_off) / br_C);
            worst_decay = test_worse(worst_decay, fabs(vc - decay) / fabs(vc_off));
            n_decay++;
        }
    }
    CHECK(n_grid == (int)lround(br_t_end / br_dt) + 1, "%s: %d grid rows", what, n_grid);
    CHECK(n_decay > n_grid / 4, "%s: %d grid rows in all-blocking phases after a turn-off", what,
          n_decay);
    CHECK(worst <= 1e-9 * br_V, "%s: |vC - closed form| up to %.3g V, want <= %.3g", what, worst,
          1e-9 * br_V);
    CHECK(worst_decay <= 1e-9, "%s: all blocking, vC off its exponential decay by %.3g relative",
          what, worst_decay);
    printf("%s: vC vs closed form %.2e V at %d grid rows; blocking decay %.2e relative (%d rows)\n",
           what, worst, n_grid, worst_decay, n_decay);
}

static void bridge(void)
{
    bridge_blocking_decay();
    bridge_reference ref;
    bridge_closed_form(&ref);
    CHECK(ref.n[0] == 10 && ref.n[1] == 10, "bridge closed form: D1 switches %d times, D2 %d (want 10, 10)",
          ref.n[0], ref.n[1]);
    printf("bridge closed form: first turn-on %.17g, turn-off %.17g\n", ref.times[0][0],
           ref.times[0][1]);
    const double rtol = 1e-12, atol = 1e-12;

    /* the hand-written flat model */
    hy_lang_unit *flat_unit = compile_file("tests/lang/bridge_rectifier_flat.hym");
    test_rows flat_rows = { 0 };
    mode_rows flat_modes = { 0 };
    bridge_switches flat_sw;
    memset(&flat_sw, 0, sizeof flat_sw);
    int flat_ok = 0;
    if (flat_unit) {
        hydae_model *m = hy_lang_unit_model(flat_unit);
        int status = run_with_modes(m, br_t_end, br_dt, rtol, atol, "mode(main)", 1, &flat_rows,
                                    &flat_modes);
        CHECK(status == 0, "flat bridge runs (status %d)", status);
        if (status == 0) {
            flat_ok = 1;
            bridge_extract("flat bridge", &flat_rows, &flat_modes, flat_state, &flat_sw);
            double err = bridge_compare_switches("flat bridge", &flat_sw, ref.n, ref.times);
            CHECK(err <= 1e-9, "flat bridge: switching instants off the closed form by %.3g s", err);
            printf("flat bridge: switching instants vs closed form %.2e s\n", err);
            bridge_check_vc("flat bridge", m, "vC", &flat_rows, &flat_modes, flat_state, &ref);
        }
    }

    /* the model from library components */
    hy_lang_unit *unit = compile_file("examples/bridge_rectifier.hym");
    if (unit) {
        hydae_model *m = hy_lang_unit_model(unit);
        static const char *const needed[] = { "Cload.v", "D1.v", "D1.i", "D4.i" };
        test_rows rows = { 0 };
        mode_rows modes = { 0 };
        int status = has_columns(m, needed, 4)
                         ? run_with_modes(m, br_t_end, br_dt, rtol, atol,
                                          "mode(D1),mode(D2),mode(D3),mode(D4)", 4, &rows, &modes)
                         : -1;
        CHECK(status == 0, "bridge from components runs (status %d)", status);
        if (status == 0) {
            bridge_switches sw;
            bridge_extract("component bridge", &rows, &modes, component_state, &sw);
            double err = bridge_compare_switches("component bridge", &sw, ref.n, ref.times);
            CHECK(err <= 1e-9, "component bridge: switching instants off the closed form by %.3g s",
                  err);
            printf("component bridge: switching instants vs closed form %.2e s\n", err);
            if (flat_ok) {
                double err_flat = bridge_compare_switches("component vs flat bridge", &sw,
                                                          flat_sw.n, flat_sw.times);
                CHECK(err_flat <= 1e-9,
                      "component bridge: switching instants off the flat model's by %.3g s",
                      err_flat);
                /* vC at the common grid rows */
                double worst = 0;
                int n_common = 0;
                for (int r = 0, q = 0; r < rows.n_rows; r++) {
                    if (rows.kind[r] != HYDAE_ROW_GRID)
                        continue;
                    while (q < flat_rows.n_rows
                           && (flat_rows.kind[q] != HYDAE_ROW_GRID || flat_rows.t[q] < rows.t[r]))
                        q++;
                    if (q == flat_rows.n_rows || flat_rows.t[q] != rows.t[r])
                        continue;
                    worst = test_worse(worst, fabs(column_value(m, &rows, r, "Cload.v")
                                             - column_value(hy_lang_unit_model(flat_unit),
                                                            &flat_rows, q, "vC")));
                    n_common++;
                }
                CHECK(n_common == (int)lround(br_t_end / br_dt) + 1, "bridge: %d common grid rows",
                      n_common);
                CHECK(worst <= 1e-9 * br_V, "component vs flat bridge: |vC difference| up to %.3g V",
                      worst);
                printf("component vs flat bridge: switching instants %.2e s, vC %.2e V (%d rows)\n",
                       err_flat, worst, n_common);
            }
            bridge_check_vc("component bridge", m, "Cload.v", &rows, &modes, component_state,
                            &ref);
            /* the diode law of the component, at every grid row */
            double worst_law = 0;
            for (int r = 0; r < rows.n_rows; r++) {
                if (rows.kind[r] != HYDAE_ROW_GRID)
                    continue;
                for (int k = 0; k < 4; k++) {
                    char v_name[16], i_name[16];
                    snprintf(v_name, sizeof v_name, "D%d.v", k + 1);
                    snprintf(i_name, sizeof i_name, "D%d.i", k + 1);
                    double v = column_value(m, &rows, r, v_name);
                    double i = column_value(m, &rows, r, i_name);
                    double law = component_state(&modes, r, k) ? v - br_Ron * i : i - br_Goff * v;
                    worst_law = test_worse(worst_law, fabs(law));
                }
            }
            CHECK(worst_law <= 1e-9, "component bridge: diode law residual up to %.3g", worst_law);
        }
        test_rows_free(&rows);
        free(modes.name);
        hy_lang_unit_free(unit);
    }
    if (flat_unit) {
        test_rows_free(&flat_rows);
        free(flat_modes.name);
        hy_lang_unit_free(flat_unit);
    }
}

/* ---------------------------------------------------------------------- */
/* Clutch                                                                 */

static const double cl_A = 10, cl_f = 1, cl_J1 = 1, cl_J2 = 2, cl_tau_max = 4;
static const double cl_t_end = 2.5, cl_dt = 1e-3;

typedef enum clutch_state { CL_STUCK, CL_LAGS, CL_LEADS } clutch_state;

#define CL_MAX_EVENTS 32

/* The closed form: the instants of the switches (state after each) and
** the speeds there. Stuck, (J1 + J2) w' = A sin(W t) and the clutch puts
** J2 / (J1 + J2) A sin(W t) on J2: it separates where that reaches
** +tau_max (J2 then lags) or -tau_max (J2 leads), at
** sin(W t) = +-r, r = tau_max (J1 + J2) / (J2 A): W t = asin(r) + 2 pi k
** rising through r, pi + asin(r) + 2 pi k falling through -r. Slipping
** with J2 lagging (s = 1) or leading (s = -1) from t0:
**   w2(t) = w2(t0) + s tau_max (t - t0) / J2,
**   w1(t) = w1(t0) + (A (cos(W t0) - cos(W t)) / W - s tau_max (t - t0)) / J1,
** and it locks where s (w2 - w1) rises through 0 (scanned, bisected). */
typedef struct clutch_reference {
    int n;
    double t[CL_MAX_EVENTS];
    clutch_state state[CL_MAX_EVENTS];
} clutch_reference;

static double clutch_slip_wrel(double t0, double w0, int s, double t)
{
    double W = 2 * pi * cl_f;
    double w2 = w0 + s * cl_tau_max * (t - t0) / cl_J2;
    double w1 = w0 + (cl_A * (cos(W * t0) - cos(W * t)) / W - s * cl_tau_max * (t - t0)) / cl_J1;
    return w2 - w1;
}

static void clutch_closed_form(clutch_reference *ref)
{
    double W = 2 * pi * cl_f, r = cl_tau_max * (cl_J1 + cl_J2) / (cl_J2 * cl_A);
    double t = 0, w = 0; /* at a switch both speeds are equal */
    clutch_state state = CL_STUCK;
    ref->n = 0;
    while (ref->n < CL_MAX_EVENTS) {
        double t_next;
        clutch_state next;
        if (state == CL_STUCK) {
            /* the first separation after t */
            double k = floor(W * t / (2 * pi)) - 1;
            double up = INFINITY, down = INFINITY;
            for (int i = 0; i < 4; i++) {
                double t_up = (asin(r) + 2 * pi * (k + i)) / W;
                double t_down = (pi + asin(r) + 2 * pi * (k + i)) / W;
                if (t_up > t && t_up < up)
                    up = t_up;
                if (t_down > t && t_down < down)
                    down = t_down;
            }
            t_next = fmin(up, down);
            next = up < down ? CL_LAGS : CL_LEADS;
            w += cl_A * (cos(W * t) - cos(W * t_next)) / (W * (cl_J1 + cl_J2));
        } else {
            int s = state == CL_LAGS ? 1 : -1;
            const double h = 1e-3;
            double lo = t, hi = t;
            t_next = INFINITY;
            for (int i = 1; lo < cl_t_end; i++) {
                hi = t + i * h;
                if (s * clutch_slip_wrel(t, w, s, hi) > 0)
                    break;
                lo = hi;
            }
            if (!(lo < cl_t_end))
                break;
            while (1) {
                double mid = lo + 0.5 * (hi - lo);
                if (!(mid > lo && mid < hi))
                    break;
                if (s * clutch_slip_wrel(t, w, s, mid) > 0)
                    hi = mid;
                else
                    lo = mid;
            }
            t_next = hi;
            next = CL_STUCK;
            w += s * cl_tau_max * (t_next - t) / cl_J2;
            /* stuck again only if it can carry the torque J2 needs then */
            double torque = cl_J2 * cl_A * sin(W * t_next) / (cl_J1 + cl_J2);
            CHECK(fabs(torque) < cl_tau_max, "clutch closed form: locks at t = %.17g with torque "
                  "%.17g within tau_max", t_next, torque);
        }
        if (t_next > cl_t_end)
            break;
        ref->t[ref->n] = t_next;
        ref->state[ref->n++] = next;
        t = t_next;
        state = next;
    }
}

/* The clutch's state at row r: CL_STUCK where the chart's mode is `stuck`,
** else the direction of the slip, read from the speeds (w2 - w1 < 0: J2
** lags) at the first row of the same mode where they differ by more than
** 1e-6 (at the switch itself they are equal), so that the test does not
** depend on what the slipping modes are called. -1 if undecided. */
static int clutch_state_at(const hydae_model *m, const char *w1_name, const char *w2_name,
                           const test_rows *rows, const mode_rows *modes, int r)
{
    if (strcmp(modes->name[r][0], "stuck") == 0)
        return CL_STUCK;
    for (int q = r; q < rows->n_rows && strcmp(modes->name[q][0], modes->name[r][0]) == 0; q++) {
        double w_rel = column_value(m, rows, q, w2_name) - column_value(m, rows, q, w1_name);
        if (fabs(w_rel) > 1e-6)
            return w_rel < 0 ? CL_LAGS : CL_LEADS;
    }
    return -1;
}

static void clutch_check_run(const char *what, const hydae_model *m, const char *w1_name,
                             const char *w2_name, const char *tau_name, const test_rows *rows,
                             const mode_rows *modes, const clutch_reference *ref)
{
    double W = 2 * pi * cl_f, scale = cl_A / W;
    double t_sep = asin(cl_tau_max * (cl_J1 + cl_J2) / (cl_J2 * cl_A)) / W;
    int n = 0, mismatched = 0, n_stuck = 0, n_slip = 0, n_locks = 0;
    double err_times = 0, err_momentum = 0, err_lock_jump = 0, err_stuck = 0, first = NAN;
    double err_tau_stuck = 0, err_tau_slip = 0;
    int state = CL_STUCK;
    CHECK(strcmp(modes->name[0][0], "stuck") == 0, "%s: stuck at t = 0 (%s)", what,
          modes->name[0][0]);
    for (int r = 0; r < rows->n_rows; r++) {
        double t = rows->t[r];
        double w1 = column_value(m, rows, r, w1_name), w2 = column_value(m, rows, r, w2_name);
        double momentum = cl_J1 * w1 + cl_J2 * w2;
        err_momentum = test_worse(err_momentum, fabs(momentum - cl_A * (1 - cos(W * t)) / W) / scale);
        if (rows->kind[r] == HYDAE_ROW_EVENT_LEFT)
            continue;
        int now = clutch_state_at(m, w1_name, w2_name, rows, modes, r);
        if (now < 0) {
            mismatched++;
            continue;
        }
        if (now != state) {
            CHECK(rows->kind[r] == HYDAE_ROW_EVENT_RIGHT && r > 0
                      && rows->kind[r - 1] == HYDAE_ROW_EVENT_LEFT,
                  "%s: the clutch switches at a row that is not an event's right limit (t = %.17g)",
                  what, t);
            if (n == 0)
                first = t;
            if (n < ref->n && (int)ref->state[n] == now)
                err_times = test_worse(err_times, fabs(t - ref->t[n]) / fmax(1.0, ref->t[n]));
            else
                mismatched++;
            if (now == CL_STUCK && r > 0 && rows->kind[r - 1] == HYDAE_ROW_EVENT_LEFT) {
                double left = cl_J1 * column_value(m, rows, r - 1, w1_name)
                              + cl_J2 * column_value(m, rows, r - 1, w2_name);
                err_lock_jump = test_worse(err_lock_jump, fabs(momentum - left) / scale);
                n_locks++;
            }
            n++;
            state = now;
        }
        if (rows->kind[r] != HYDAE_ROW_GRID)
            continue;
        /* the clutch's torque: J2 / (J1 + J2) A |sin(W t)| stuck, tau_max slipping
        ** (magnitudes: the sign is the library's convention) */
        double tau = fabs(column_value(m, rows, r, tau_name));
        if (state == CL_STUCK) {
            err_stuck = test_worse(err_stuck, fabs(w1 - w2) / scale);
            double want = cl_J2 * cl_A * fabs(sin(W * t)) / (cl_J1 + cl_J2);
            err_tau_stuck = test_worse(err_tau_stuck, fabs(tau - want) / cl_A);
            n_stuck++;
        } else {
            err_tau_slip = test_worse(err_tau_slip, fabs(tau - cl_tau_max) / cl_tau_max);
            n_slip++;
        }
    }
    CHECK(n == ref->n && mismatched == 0, "%s: %d switches (%d not as the closed form), want %d",
          what, n, mismatched, ref->n);
    CHECK(fabs(first - t_sep) <= 1e-9 * t_sep, "%s: separates at %.17g, closed form %.17g", what,
          first, t_sep);
    CHECK(err_times <= 1e-9, "%s: switching instants off the closed form by %.3g relative", what,
          err_times);
    CHECK(err_momentum <= 1e-9, "%s: momentum off A (1 - cos(W t)) / W by %.3g relative to A / W",
          what, err_momentum);
    CHECK(n_locks >= 4 && err_lock_jump <= 1e-12,
          "%s: %d lock-ups, momentum jumps there by %.3g relative to A / W", what, n_locks,
          err_lock_jump);
    CHECK(n_stuck > 100 && err_stuck <= 1e-9, "%s: stuck, |w1 - w2| up to %.3g relative (%d rows)",
          what, err_stuck, n_stuck);
    CHECK(err_tau_stuck <= 1e-9, "%s: stuck, |tau| off J2 A |sin(W t)| / (J1 + J2) by %.3g A", what,
          err_tau_stuck);
    /* tau is an algebraic unknown (or an alias of one) solved by Newton to a
    ** fraction of its weight rtol |tau| + atol = 5e-12 at rtol = atol = 1e-12:
    ** 10 times that, relative to tau_max = 4, is 1e-11. */
    CHECK(n_slip > 1000 && err_tau_slip <= 1e-11, "%s: slipping, |tau| off tau_max by %.3g relative "
          "(%d rows)", what, err_tau_slip, n_slip);
    printf("%s: separation %.2e s off asin form; switches %.2e rel; momentum %.2e, at lock-up "
           "%.2e; stuck |w1 - w2| %.2e, |tau| %.2e; slipping |tau| %.2e (%d switches, %d lock-ups)\n",
           what, fabs(first - t_sep), err_times, err_momentum, err_lock_jump, err_stuck,
           err_tau_stuck, err_tau_slip, n, n_locks);
}

static void clutch(void)
{
    clutch_reference ref;
    clutch_closed_form(&ref);
    CHECK(ref.n == 9 && ref.state[0] == CL_LAGS && ref.state[1] == CL_STUCK
              && ref.state[2] == CL_LEADS,
          "clutch closed form: %d switches over [0, %g]", ref.n, cl_t_end);
    const double rtol = 1e-12, atol = 1e-12;

    hy_lang_unit *flat_unit = compile_file("tests/lang/clutch_flat.hym");
    if (flat_unit) {
        hydae_model *m = hy_lang_unit_model(flat_unit);
        test_rows rows;
        mode_rows modes;
        int status = run_with_modes(m, cl_t_end, cl_dt, rtol, atol, "mode(main)", 1, &rows,
                                    &modes);
        CHECK(status == 0, "flat clutch runs (status %d)", status);
        if (status == 0)
            clutch_check_run("flat clutch", m, "w1", "w2", "tau", &rows, &modes, &ref);
        test_rows_free(&rows);
        free(modes.name);
        hy_lang_unit_free(flat_unit);
    }

    hy_lang_unit *unit = compile_file("examples/clutch.hym");
    if (unit) {
        hydae_model *m = hy_lang_unit_model(unit);
        static const char *const needed[] = { "J1.w", "J2.w", "K.tau", "K.w_rel" };
        test_rows rows = { 0 };
        mode_rows modes = { 0 };
        int status = has_columns(m, needed, 4)
                         ? run_with_modes(m, cl_t_end, cl_dt, rtol, atol, "mode(K)", 1, &rows,
                                          &modes)
                         : -1;
        CHECK(status == 0, "clutch from components runs (status %d)", status);
        if (status == 0)
            clutch_check_run("component clutch", m, "J1.w", "J2.w", "K.tau", &rows, &modes, &ref);
        test_rows_free(&rows);
        free(modes.name);
        hy_lang_unit_free(unit);
    }
}

int main(void)
{
    lang_test_source_dir(source_dir, sizeof source_dir);
    bridge();
    clutch();
    return CHECK_DONE();
}
