/*
** Model files compiled and run on several threads at once (issue 18: the
** compiler and the VM reentrant). Eight example models are first loaded
** and run one after the other, each run's rows hashed (FNV-1a over the
** bytes of every time and value); then four threads each load and run all
** eight, in different orders, at the same time, and also load a model
** with errors. Every run must give the same rows to the bit, and every
** failed load the same diagnostics, as alone. Run under ThreadSanitizer
** too (.ci/run builds it with -fsanitize=thread): a data race between two
** models' compilations or runs is then reported and fails the run.
*/
#include "check.h"
#include "lang/lang_test_util.h"

#include "hydae.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum { N_MODELS = 8, N_THREADS = 4 };

static const char *const model_names[N_MODELS] = {
    "bouncing_ball", "lowpass",  "string_pendulum", "rlc_circuit",
    "clutch",        "gearbox",  "heat_rod",        "sampled_pi",
};

static char source_dir[1024];

typedef struct run_hash {
    uint64_t hash;
    long n_rows;
    int n_columns;
} run_hash;

static void hash_bytes(uint64_t *hash, const void *data, size_t size)
{
    const unsigned char *byte = data;
    for (size_t i = 0; i < size; i++) {
        *hash ^= byte[i];
        *hash *= 1099511628211ULL; /* FNV-1a, 64 bits */
    }
}

static int hash_row(void *user, hydae_row_kind kind, double t, const double *values)
{
    run_hash *h = user;
    int k = (int)kind;
    hash_bytes(&h->hash, &k, sizeof k);
    hash_bytes(&h->hash, &t, sizeof t);
    hash_bytes(&h->hash, values, (size_t)h->n_columns * sizeof *values);
    h->n_rows++;
    return 0;
}

/* Load examples/NAME.hym, run it with its experiment: 0 and the hash, or
** -1 with the reason in why. */
static int load_and_run(const char *name, run_hash *h, char *why, size_t why_size)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/examples/%s.hym", source_dir, name);
    memset(h, 0, sizeof *h);
    h->hash = 14695981039346656037ULL;
    int n_errors = 0;
    hydae_model *m = hydae_model_load_file(path, NULL, &n_errors);
    if (!m) {
        snprintf(why, why_size, "%s: %d errors", name, n_errors);
        return -1;
    }
    h->n_columns = hydae_model_n_columns(m);
    int status = 0;
    hydae_sim *s = hydae_sim_create(m, &status);
    if (s && (status = hydae_sim_apply_experiment(s)) == 0
        && (status = hydae_sim_add_row_sink(s, hash_row, h)) == 0)
        status = hydae_sim_run(s);
    if (status)
        snprintf(why, why_size, "%s: %s", name, s ? hydae_sim_errmsg(s) : hydae_model_errmsg(m));
    hydae_sim_free(s);
    hydae_model_free(m);
    return status ? -1 : 0;
}

/* A model with errors: its diagnostics (the caller frees them). */
static char *failed_load(void)
{
    static const char text[] = "model bad\n  Real x(start = 1);\nequation\n"
                               "  der(x) = -k * x + undefined_too;\nend bad;\n";
    char *diagnostics = NULL;
    hydae_model *m = hydae_model_load_string(text, strlen(text), "bad.hym", &diagnostics, NULL);
    hydae_model_free(m); /* NULL: it does not load */
    return diagnostics;
}

typedef struct worker {
    int index;
    run_hash hashes[N_MODELS];
    int failed[N_MODELS];
    char why[256];
    char *diagnostics;
} worker;

static void *work(void *arg)
{
    worker *w = arg;
    for (int k = 0; k < N_MODELS; k++) {
        /* Thread i starts at model 2 i, and odd threads go backwards. */
        int step = w->index % 2 ? N_MODELS - 1 : 1;
        int model = (2 * w->index + k * step) % N_MODELS;
        w->failed[model] = load_and_run(model_names[model], &w->hashes[model], w->why,
                                        sizeof w->why);
        if (k == N_MODELS / 2)
            w->diagnostics = failed_load();
    }
    return NULL;
}

int main(void)
{
    lang_test_source_dir(source_dir, sizeof source_dir);
    run_hash alone[N_MODELS];
    char why[256] = "";
    for (int i = 0; i < N_MODELS; i++)
        CHECK(load_and_run(model_names[i], &alone[i], why, sizeof why) == 0 && alone[i].n_rows > 10,
              "alone: %s (%ld rows)", why, alone[i].n_rows);
    char *alone_diagnostics = failed_load();
    CHECK(alone_diagnostics && strstr(alone_diagnostics, "bad.hym:4:13: error: undefined name 'k'"),
          "diagnostics alone: %s", alone_diagnostics ? alone_diagnostics : "(none)");

    worker workers[N_THREADS];
    pthread_t threads[N_THREADS];
    int n_started = 0;
    for (int i = 0; i < N_THREADS; i++) {
        memset(&workers[i], 0, sizeof workers[i]);
        workers[i].index = i;
        if (pthread_create(&threads[i], NULL, work, &workers[i]) == 0)
            n_started++;
        else
            break;
    }
    CHECK(n_started == N_THREADS, "%d of %d threads started", n_started, N_THREADS);
    for (int i = 0; i < n_started; i++)
        pthread_join(threads[i], NULL);

    long n_rows = 0;
    for (int i = 0; i < n_started; i++) {
        const worker *w = &workers[i];
        for (int k = 0; k < N_MODELS; k++) {
            const run_hash *h = &w->hashes[k];
            CHECK(!w->failed[k], "thread %d: %s", i, w->why);
            CHECK(h->n_rows == alone[k].n_rows && h->hash == alone[k].hash,
                  "thread %d, %s: %ld rows, hash %016llx; alone %ld rows, hash %016llx", i,
                  model_names[k], h->n_rows, (unsigned long long)h->hash, alone[k].n_rows,
                  (unsigned long long)alone[k].hash);
            n_rows += h->n_rows;
        }
        CHECK(w->diagnostics && alone_diagnostics
                  && strcmp(w->diagnostics, alone_diagnostics) == 0,
              "thread %d: diagnostics %s", i, w->diagnostics ? w->diagnostics : "(none)");
        hydae_string_free(w->diagnostics);
    }
    hydae_string_free(alone_diagnostics);
    printf("%d threads x %d models at once: %ld rows, each run's rows equal to the bit to "
           "its run alone\n", n_started, N_MODELS, n_rows);
    return CHECK_DONE();
}
