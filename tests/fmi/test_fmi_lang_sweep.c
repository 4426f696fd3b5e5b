/*
** A model file with an FMU component through the public API only
** (hydae_model_load_file: what Python and `hydae sweep` use) and swept on
** threads (src/fmi/per_sim.c: each sim its own FMU instance).
** examples/fmi/vanderpol_switch.hym, copied beside the Reference FMU
** VanDerPol (FMI 2.0 and 3.0), is swept over mu = 0.5, 1, ..., 3 on 1 and
** on 2 threads: the two tables must be equal bit for bit (a run does not
** depend on which thread or which other run shares the model), and each
** run's final state (t = 20, the FMU's mode active) must match the same
** oscillator written by hand (no FMU) swept over the same mu, to within
** 100 rtol max|x| (as tests/fmi/test_fmi_lang_component.c argues).
** Skipped (77) without the FMUs.
*/
#define _POSIX_C_SOURCE 200809L /* mkdtemp, symlink */

#include "check.h"
#include "fmu_tests.h"
#include "hydae.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define RTOL 1e-8
enum { N_MU = 6 };

static char work[] = "/tmp/hydae-fmu-sweep-XXXXXX";

static int copy_file(const char *from, const char *to)
{
    FILE *in = fopen(from, "rb"), *out = fopen(to, "wb");
    char buffer[4096];
    size_t n;
    int status = in && out ? 0 : -1;
    while (!status && (n = fread(buffer, 1, sizeof buffer, in)) > 0)
        status = fwrite(buffer, 1, n, out) == n ? 0 : -1;
    if (in)
        fclose(in);
    if (out && fclose(out))
        status = -1;
    return status;
}

/* Final values of the two measures for each mu, and the run's status. */
typedef struct table {
    double values[N_MU][2];
    int failed;
} table;

static int sweep(hydae_model *m, const char *measures, int n_threads, table *out)
{
    static const double mu[N_MU] = { 0.5, 1.0, 1.5, 2.0, 2.5, 3.0 };
    hydae_sweep *sw = hydae_sweep_create(m);
    int status = sw ? 0 : -1;
    if (!status)
        status = hydae_sweep_add_grid(sw, "mu", mu, N_MU);
    if (!status)
        status = hydae_sweep_add_measures(sw, measures);
    if (!status)
        status = hydae_sweep_set_threads(sw, n_threads);
    /* The example's experiment, for the hand-written model too. */
    static const char *const settings[][2] = { { "t_end", "20" }, { "rtol", "1e-8" },
                                               { "atol", "1e-10" } };
    for (int k = 0; k < 3 && !status; k++)
        status = hydae_sweep_set_option(sw, settings[k][0], settings[k][1]);
    if (!status)
        status = hydae_sweep_run(sw, NULL, NULL);
    CHECK(status == 0, "sweep (%s) on %d threads: %s", measures, n_threads,
          sw ? hydae_sweep_errmsg(sw) : "out of memory");
    out->failed = sw ? (int)hydae_sweep_n_failed(sw) : N_MU;
    for (long r = 0; r < N_MU && !status; r++) {
        hydae_sweep_row row;
        status = hydae_sweep_get_row(sw, r, &row);
        CHECK(status == 0 && !row.failed, "run %ld: %s", r, status ? "no row" : row.status);
        out->values[r][0] = status ? NAN : row.measures[0];
        out->values[r][1] = status ? NAN : row.measures[1];
    }
    hydae_sweep_free(sw);
    return status;
}

static void check_version(const char *version)
{
    char fmu[1200], link[1200], path[1200];
    snprintf(fmu, sizeof fmu, "%s/%s/VanDerPol.fmu", HYDAE_FMU_DIR, version);
    snprintf(link, sizeof link, "%s/VanDerPol.fmu", work);
    unlink(link);
    CHECK(symlink(fmu, link) == 0, "link %s", fmu);
    snprintf(path, sizeof path, "%s/vanderpol_switch.hym", work);
    char *diagnostics = NULL;
    int n_errors = -1;
    hydae_model *m = hydae_model_load_file(path, &diagnostics, &n_errors);
    CHECK(m && n_errors == 0, "hydae_model_load_file(%s): %s", path,
          diagnostics ? diagnostics : "");
    hydae_string_free(diagnostics);
    hydae_model *hand = hydae_model_load_string(fmu_test_vdp_hand, strlen(fmu_test_vdp_hand),
                                                "hand.hym", NULL, NULL);
    CHECK(hand != NULL, "hand.hym compiles");
    table one, two, ref;
    if (m && hand && sweep(m, "final(vdp.x0),final(vdp.x1)", 1, &one) == 0
        && sweep(m, "final(vdp.x0),final(vdp.x1)", 2, &two) == 0
        && sweep(hand, "final(x0),final(x1)", 1, &ref) == 0) {
        double worst = 0, scale = 0;
        for (int r = 0; r < N_MU; r++)
            for (int k = 0; k < 2; k++) {
                CHECK(memcmp(&one.values[r][k], &two.values[r][k], sizeof(double)) == 0,
                      "%s run %d measure %d: %.17g on 1 thread, %.17g on 2", version, r, k,
                      one.values[r][k], two.values[r][k]);
                worst = fmax(worst, fabs(one.values[r][k] - ref.values[r][k]));
                scale = fmax(scale, fabs(ref.values[r][k]));
            }
        double tol = 100 * RTOL * fmax(scale, 2.0);
        printf("%s: %d runs on 1 and 2 threads equal; max |FMU - hand-written| = %.3g "
               "(tolerance %.3g)\n", version, N_MU, worst, tol);
        CHECK(worst <= tol && one.failed == 0 && two.failed == 0,
              "%s: %.3g from the hand-written model", version, worst);
    }
    hydae_model_free(m);
    hydae_model_free(hand);
}

int main(void)
{
    char path[1200];
    int start = fmu_test_start(work, "2.0/VanDerPol.fmu");
    if (start)
        return start;
    snprintf(path, sizeof path, "%s/vanderpol_switch.hym", work);
    CHECK(copy_file(HYDAE_EXAMPLES_DIR "/fmi/vanderpol_switch.hym", path) == 0,
          "copy the example");
    check_version("2.0");
    check_version("3.0");
    unlink(path);
    snprintf(path, sizeof path, "%s/VanDerPol.fmu", work);
    unlink(path);
    rmdir(work);
    return CHECK_DONE();
}
