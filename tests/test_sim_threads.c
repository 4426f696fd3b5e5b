/*
** One loaded model run by many sims on several threads at once (issue 19):
** the compiled code and the modes' patterns are shared read-only, each sim
** has its own parameters (hydae_sim_set_param). Three models, each loaded
** once: the string pendulum (transitions with actions; the thread length
** L and damping kappa vary), its Cartesian form (a mechanical mode; L
** varies) and the heat rod (one mode with a sparse Jacobian pattern, so
** its configuration uses the mode's pattern; the linear solver varies).
**
** Each of N_CASES cases is first run alone, one after the other, its rows
** hashed (FNV-1a over every time and value); then N_THREADS threads run
** all the cases, each starting at a different one, on the same model
** objects at once. Every run must give the rows of its run alone, to the
** bit. Independently, a case's rows alone equal those of a separately
** loaded model given the same values with hydae_model_set_param (so the
** sim's own parameters are the ones used), and cases with different
** parameters differ. Also hydae_sim_set_fired_hook against the statistics.
** Run under ThreadSanitizer too (.ci/run).
*/
#include "check.h"
#include "row_hash.h"
#include "lang/lang_test_util.h"

#include "hydae.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum { N_MODELS = 3, N_CASES = 8, N_THREADS = 4 };

static const char *const model_names[N_MODELS] = {
    "string_pendulum", "string_pendulum_cartesian", "heat_rod",
};

/* A run: a model, a parameter (or NULL) and its value, a linear solver
** setting (or NULL). */
typedef struct run_case {
    int model;
    const char *param;
    double value;
    const char *linear_solver;
} run_case;

static const run_case cases[N_CASES] = {
    { 0, "L", 1.0, NULL },   { 0, "L", 1.2, NULL },  { 0, "kappa", 0.02, NULL },
    { 1, "L", 1.0, NULL },   { 1, "L", 0.9, NULL },  { 2, NULL, 0.0, "band" },
    { 2, NULL, 0.0, "auto" }, { 0, "L", 0.8, NULL },
};

static char source_dir[1024];
static hydae_model *models[N_MODELS];


static hydae_model *load(const char *name)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/examples/%s.hym", source_dir, name);
    return hydae_model_load_file(path, NULL, NULL);
}

/* Run case c on model m, its parameter set on the sim (per_sim) or
** already on the model: 0 and the hash, or -1 with the reason in why. */
static int run(hydae_model *m, const run_case *c, int per_sim, run_hash *h, char *why,
               size_t why_size)
{
    run_hash_start(h, m);
    int status = 0;
    hydae_sim *s = hydae_sim_create(m, &status);
    if (s && (status = hydae_sim_apply_experiment(s)) == 0 && c->param && per_sim)
        status = hydae_sim_set_param(s, c->param, c->value);
    if (s && status == 0 && c->linear_solver)
        status = hydae_sim_set_option(s, "linear_solver", c->linear_solver);
    if (s && status == 0 && (status = hydae_sim_add_row_sink(s, hash_row, h)) == 0)
        status = hydae_sim_run(s);
    if (status)
        snprintf(why, why_size, "%s: %s", model_names[c->model],
                 s ? hydae_sim_errmsg(s) : hydae_model_errmsg(m));
    hydae_sim_free(s);
    return status ? -1 : 0;
}

typedef struct worker {
    int index;
    run_hash hashes[N_CASES];
    int failed[N_CASES];
    char why[512];
} worker;

static void *work(void *arg)
{
    worker *w = arg;
    for (int k = 0; k < N_CASES; k++) {
        int c = (w->index * 3 + k) % N_CASES;
        w->failed[c] = run(models[cases[c].model], &cases[c], 1, &w->hashes[c], w->why,
                           sizeof w->why);
    }
    return NULL;
}

/* hydae_sim_set_fired_hook: the pendulum's firings alternate between
** unstretch (bound -> free) and stretch, at increasing times, as many as
** the statistics count; a hook that returns non-zero stops the run. */
typedef struct firings {
    int n_stretch, n_unstretch, out_of_order, stop_at;
    double t_last;
    char last[32];
} firings;

static int count_firing(void *user, double t, const char *chart, const char *transition)
{
    firings *f = user;
    f->out_of_order |= t < f->t_last || strcmp(chart, "thread") != 0
                       || strcmp(transition, f->last) == 0;
    f->t_last = t;
    snprintf(f->last, sizeof f->last, "%s", transition);
    f->n_stretch += strcmp(transition, "stretch") == 0;
    f->n_unstretch += strcmp(transition, "unstretch") == 0;
    return f->stop_at > 0 && f->n_stretch + f->n_unstretch == f->stop_at;
}

static void check_fired_hook(hydae_model *pendulum)
{
    for (int stop_at = 0; stop_at <= 3; stop_at += 3) {
        firings f = { 0, 0, 0, stop_at, -1.0, "" };
        hydae_sim *s = hydae_sim_create(pendulum, NULL);
        int status = s ? hydae_sim_apply_experiment(s) : -1;
        if (status == 0)
            status = hydae_sim_set_fired_hook(s, count_firing, &f);
        if (status == 0)
            status = hydae_sim_run(s);
        hydae_stats st;
        memset(&st, 0, sizeof st);
        if (s)
            hydae_sim_get_stats(s, &st);
        if (stop_at == 0)
            CHECK(status == 0 && f.n_unstretch >= 2 && !f.out_of_order
                      && f.n_stretch + f.n_unstretch == st.n_transitions
                      && f.n_unstretch - f.n_stretch <= 1 && f.n_unstretch >= f.n_stretch,
                  "fired hook: status %d, %d stretch, %d unstretch, %ld transitions fired%s",
                  status, f.n_stretch, f.n_unstretch, st.n_transitions,
                  f.out_of_order ? ", out of order" : "");
        else
            CHECK(status == HYDAE_ERR_CALLBACK && f.n_stretch + f.n_unstretch == stop_at,
                  "a hook returning 1 at firing %d: status %d after %d firings", stop_at, status,
                  f.n_stretch + f.n_unstretch);
        hydae_sim_free(s);
    }
}

/* x' = -x through the C API. */
static int decay(double t, const double *y, const double *p, double *ydot, void *user)
{
    (void)t, (void)p, (void)user;
    ydot[0] = -y[0];
    return 0;
}

/* Sims copy the modes' patterns when made: a pattern set after the model
** is checked is refused, one set before is used. */
static void check_pattern_after_check(void)
{
    static const int64_t col_start[] = { 0, 1 }, row[] = { 0 };
    hydae_model *m = hydae_model_create("decay");
    hydae_mode *mode = hydae_chart_add_mode(hydae_model_add_chart(m, "c"), "only");
    int ok = hydae_mode_add_var(mode, "x", HYDAE_DIFFERENTIAL, 1.0) == 0
             && hydae_mode_set_rhs(mode, decay, NULL) == 0
             && hydae_mode_set_jacobian_pattern(mode, col_start, row) == 0
             && hydae_model_check(m) == 0;
    CHECK(ok, "the C-API model: %s", hydae_model_errmsg(m));
    int late = hydae_mode_set_jacobian_pattern(mode, col_start, row);
    CHECK(late == HYDAE_ERR_ARG && strstr(hydae_model_errmsg(m), "before the model is checked"),
          "a pattern after the check: %d, %s", late, hydae_model_errmsg(m));
    hydae_sim *s = hydae_sim_create(m, NULL);
    int status = s ? hydae_sim_set_time(s, 0.0, 1.0) : -1;
    if (status == 0)
        status = hydae_sim_run(s);
    CHECK(status == 0, "the run: %s", s ? hydae_sim_errmsg(s) : "(no sim)");
    hydae_sim_free(s);
    hydae_model_free(m);
}

/* The case alone with its value through hydae_model_set_param on a model
** of its own: the same rows as alone (the sim's parameter was used). */
static void check_against_model_param(const run_case *c, const run_hash *alone)
{
    if (!c->param)
        return;
    hydae_model *own = load(model_names[c->model]);
    run_hash h;
    char why[512] = "";
    int ok = own && hydae_model_set_param(own, c->param, c->value) == 0
             && run(own, c, 0, &h, why, sizeof why) == 0;
    CHECK(ok && h.n_rows == alone->n_rows && h.hash == alone->hash,
          "%s with %s = %g: hydae_sim_set_param and hydae_model_set_param differ (%s)",
          model_names[c->model], c->param, c->value, why);
    hydae_model_free(own);
}

int main(void)
{
    lang_test_source_dir(source_dir, sizeof source_dir);
    for (int i = 0; i < N_MODELS; i++) {
        models[i] = load(model_names[i]);
        CHECK(models[i] != NULL, "load %s", model_names[i]);
        if (!models[i])
            return CHECK_DONE();
    }
    run_hash alone[N_CASES];
    char why[512] = "";
    for (int c = 0; c < N_CASES; c++) {
        CHECK(run(models[cases[c].model], &cases[c], 1, &alone[c], why, sizeof why) == 0
                  && alone[c].n_rows > 10,
              "case %d alone: %s (%ld rows)", c, why, alone[c].n_rows);
        check_against_model_param(&cases[c], &alone[c]);
    }
    CHECK(alone[0].hash != alone[1].hash && alone[0].hash != alone[2].hash
              && alone[3].hash != alone[4].hash,
          "different parameters gave the same rows");
    check_fired_hook(models[0]);
    check_pattern_after_check();
    hydae_sim *probe = hydae_sim_create(models[0], NULL);
    CHECK(probe && hydae_sim_set_param(probe, "no_such_name", 1.0) == HYDAE_ERR_ARG
              && strstr(hydae_sim_errmsg(probe), "no_such_name"),
          "an unknown name: %s", probe ? hydae_sim_errmsg(probe) : "(no sim)");
    hydae_sim_free(probe);

    worker workers[N_THREADS];
    pthread_t threads[N_THREADS];
    int n_started = 0;
    for (int i = 0; i < N_THREADS; i++) {
        memset(&workers[i], 0, sizeof workers[i]);
        workers[i].index = i;
        if (pthread_create(&threads[i], NULL, work, &workers[i]) != 0)
            break;
        n_started++;
    }
    CHECK(n_started == N_THREADS, "%d of %d threads started", n_started, N_THREADS);
    for (int i = 0; i < n_started; i++)
        pthread_join(threads[i], NULL);

    long n_rows = 0;
    for (int i = 0; i < n_started; i++)
        for (int c = 0; c < N_CASES; c++) {
            const run_hash *h = &workers[i].hashes[c];
            CHECK(!workers[i].failed[c], "thread %d: %s", i, workers[i].why);
            CHECK(h->n_rows == alone[c].n_rows && h->hash == alone[c].hash,
                  "thread %d, case %d (%s): %ld rows, hash %016llx; alone %ld rows, hash "
                  "%016llx", i, c, model_names[cases[c].model], h->n_rows,
                  (unsigned long long)h->hash, alone[c].n_rows,
                  (unsigned long long)alone[c].hash);
            n_rows += h->n_rows;
        }
    for (int i = 0; i < N_MODELS; i++)
        hydae_model_free(models[i]);
    printf("%d threads x %d runs of %d shared models at once: %ld rows, each run's rows "
           "equal to the bit to its run alone\n", n_started, N_CASES, N_MODELS, n_rows);
    return CHECK_DONE();
}
