/*
** The model language's benchmark (issue 3): the bytecode residual against
** the same residual written by hand in C, and the compile time.
**
**  1. The string pendulum's mode `bound` (examples/string_pendulum.hym),
**     F = (phi' - omega, omega' + g/L sin(phi) + kappa omega), against that
**     residual in C (as examples/string_pendulum.c has it).
**  2. A generated chain of N = 500 coupled Duffing oscillators, 1,000
**     equations: x_i' = v_i, v_i' = k (x_{i-1} - 2 x_i + x_{i+1}) - c v_i
**     - eps x_i^3 (x_0 = x_{N+1} = 0), against the same loop in C.
**  3. The time to compile the same chain with N = 5,000 (10,000 equations)
**     from text to bytecode (hy_lang_compile_string: parse, analysis,
**     structure, symbolic Jacobian, programs, the hydae_model), median of
**     several runs.
**
**  4. The native backend (issue 20, src/lang/native/): the same two
**     residuals compiled to C and loaded, beside the bytecode; and the
**     time the native backend adds to the compile of the 10,000-equation
**     chain, first without the cache (generate, run cc, load) and then
**     from the cache (generate, find, verify, load), wall time; the native
**     code with the default flags (HYDAE_CFLAGS overrides), the C residuals
**     with this build's (CMake Release: -O3).
**
** The residuals are called the way the engine calls them, through a
** function pointer, at 64 different states in turn (cycled); CPU time from
** clock_gettime(CLOCK_PROCESS_CPUTIME_ID), the median of 7 batches each of
** at least 0.1 s, the three residuals' batches interleaved. Before
** timing, the residuals are checked to agree (the native one with the
** bytecode to the bit). Targets: bytecode ratio <= 3, native ratio <= 1.1,
** compile < 1 s, native compile < 5 s first and < 10 ms cached.
** The native runs use a private cache directory (XDG_CACHE_HOME under /tmp).
**
** Usage: bench_lang [--quick]  (--quick: shorter batches, for a smoke test)
** Built with HYDAE_SOURCE_DIR, the source tree (for the example file).
*/
#define _POSIX_C_SOURCE 200809L /* clock_gettime, setenv, mkdtemp */

#include "lang/build.h"
#include "lang/lang.h"
#include "core/core.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum { N_STATES = 64, N_BATCHES = 7, N_COMPILES = 5 };

static double cpu_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int compare_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *values, int n)
{
    qsort(values, (size_t)n, sizeof *values, compare_double);
    return n % 2 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

/* ------------------------------------------------------------------ */
/* The hand-written residuals                                          */

/* The pendulum's parameters in the model file's order: m, L, g, kappa, k. */
static int pendulum_residual_c(double t, const double *y, const double *yp, const double *p,
                               double *res, void *user)
{
    (void)t;
    (void)user;
    double phi = y[0], omega = y[1];
    res[0] = yp[0] - omega;
    res[1] = yp[1] + p[2] / p[1] * sin(phi) + p[3] * omega;
    return 0;
}

/* The chain: y = (x_1, v_1, x_2, v_2, ...), parameters k, c, eps; n_oscillators in user. */
static int chain_residual_c(double t, const double *y, const double *yp, const double *p,
                            double *res, void *user)
{
    (void)t;
    int n = *(const int *)user;
    double k = p[0], c = p[1], eps = p[2];
    for (int i = 0; i < n; i++) {
        double x = y[2 * i], v = y[2 * i + 1];
        double left = i > 0 ? y[2 * i - 2] : 0.0, right = i < n - 1 ? y[2 * i + 2] : 0.0;
        res[2 * i] = yp[2 * i] - v;
        res[2 * i + 1] = yp[2 * i + 1] - (k * (left - 2.0 * x + right) - c * v - eps * x * x * x);
    }
    return 0;
}

/* ------------------------------------------------------------------ */
/* The generated chain                                                 */

typedef struct text {
    char *data;
    size_t length, cap;
} text;

static void append(text *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void append(text *b, const char *fmt, ...)
{
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(b->data ? b->data + b->length : NULL, b->data ? b->cap - b->length : 0,
                          fmt, ap);
        va_end(ap);
        if (n < 0) {
            fprintf(stderr, "bench_lang: formatting failed\n");
            exit(1);
        }
        if (b->data && b->length + (size_t)n < b->cap) {
            b->length += (size_t)n;
            return;
        }
        size_t cap = b->cap ? 2 * b->cap : 65536;
        while (cap <= b->length + (size_t)n)
            cap *= 2;
        char *grown = realloc(b->data, cap);
        if (!grown) {
            fprintf(stderr, "bench_lang: out of memory\n");
            exit(1);
        }
        b->data = grown;
        b->cap = cap;
    }
}

/* The model file of a chain of n oscillators. */
static text chain_source(int n)
{
    text b = { NULL, 0, 0 };
    append(&b, "model chain\n  parameter Real k = 4, c = 0.1, eps = 0.5;\n");
    for (int i = 1; i <= n; i++)
        append(&b, "  Real x%d(start = %.3f), v%d(start = 0);\n", i, 0.5 * sin(0.1 * i), i);
    append(&b, "equation\n");
    for (int i = 1; i <= n; i++) {
        append(&b, "  der(x%d) = v%d;\n", i, i);
        append(&b, "  der(v%d) = k * (", i);
        if (i > 1)
            append(&b, "x%d ", i - 1);
        append(&b, "- 2 * x%d", i);
        if (i < n)
            append(&b, " + x%d", i + 1);
        append(&b, ") - c * v%d - eps * x%d^3;\n", i, i);
    }
    append(&b, "end chain;\n");
    return b;
}

static hy_lang_unit *compile(const char *source, size_t length, const char *name)
{
    int n_errors = 0;
    hy_lang_unit *unit = hy_lang_compile_string(source, length, name, stderr, NULL, &n_errors);
    if (!unit) {
        fprintf(stderr, "bench_lang: %s: %d errors\n", name, n_errors);
        exit(1);
    }
    return unit;
}

/* ------------------------------------------------------------------ */
/* Timing                                                              */

typedef struct states {
    int n;                   /* unknowns */
    double *y, *yp;          /* N_STATES x n */
    double *res;
} states;

static states make_states(int n)
{
    states s = { n, malloc(sizeof(double) * N_STATES * (size_t)n),
                 malloc(sizeof(double) * N_STATES * (size_t)n), malloc(sizeof(double) * (size_t)n) };
    if (!s.y || !s.yp || !s.res) {
        fprintf(stderr, "bench_lang: out of memory\n");
        exit(1);
    }
    for (int k = 0; k < N_STATES; k++)
        for (int j = 0; j < n; j++) {
            s.y[k * n + j] = 0.8 * sin(0.37 * j + 1.3 * k + 0.2);
            s.yp[k * n + j] = 0.6 * cos(0.29 * j + 0.7 * k);
        }
    return s;
}

static void free_states(states *s)
{
    free(s->y);
    free(s->yp);
    free(s->res);
}

/* A residual as the engine calls it. */
typedef struct caller {
    hydae_residual_fn fn;
    void *user;
    const hy_binding *vm;    /* or the bytecode through its ops */
} caller;

static int call(const caller *c, double t, const double *y, const double *yp, const double *p,
                double *res)
{
    if (c->vm)
        return c->vm->ops->residual(c->vm->code, t, y, yp, p, res);
    return c->fn(t, y, yp, p, res, c->user);
}

/* Calls per batch: enough for at least min_batch seconds. */
static long calibrate(const caller *c, states *s, const double *p, double min_batch)
{
    long n_per_batch = 1;
    for (;;) {
        double start = cpu_seconds();
        for (long r = 0; r < n_per_batch; r++)
            call(c, 0.1 * (double)(r % N_STATES), s->y + (r % N_STATES) * s->n,
                 s->yp + (r % N_STATES) * s->n, p, s->res);
        double elapsed = cpu_seconds() - start;
        if (elapsed >= min_batch)
            return n_per_batch;
        n_per_batch *= elapsed < min_batch / 16 ? 8 : 2;
    }
}

/* Seconds per evaluation of one batch. */
static double time_batch(const caller *c, states *s, const double *p, long n_per_batch,
                         double *checksum)
{
    double start = cpu_seconds();
    for (long r = 0; r < n_per_batch; r++) {
        call(c, 0.1 * (double)(r % N_STATES), s->y + (r % N_STATES) * s->n,
             s->yp + (r % N_STATES) * s->n, p, s->res);
        *checksum += s->res[r % s->n];
    }
    return (cpu_seconds() - start) / (double)n_per_batch;
}

/* The two residuals agree at every state (relative 1e-12), or exit. */
static void check_agreement(const char *what, const caller *vm, const caller *c, states *s,
                            const double *p)
{
    double *other = malloc(sizeof(double) * (size_t)s->n);
    if (!other)
        exit(1);
    double worst = 0.0;
    for (int k = 0; k < N_STATES; k++) {
        const double *y = s->y + k * s->n, *yp = s->yp + k * s->n;
        call(vm, 0.1 * k, y, yp, p, s->res);
        call(c, 0.1 * k, y, yp, p, other);
        for (int i = 0; i < s->n; i++)
            worst = fmax(worst, fabs(s->res[i] - other[i]) / (1.0 + fabs(other[i])));
    }
    free(other);
    if (!(worst <= 1e-12)) {
        fprintf(stderr, "bench_lang: %s: the bytecode and C residuals differ by %.3g\n", what, worst);
        exit(1);
    }
}

/* The bytecode and native residuals are the same to the bit, or exit. */
static void check_identical(const char *what, const caller *vm, const caller *native, states *s,
                            const double *p)
{
    double *other = malloc(sizeof(double) * (size_t)s->n);
    if (!other)
        exit(1);
    for (int k = 0; k < N_STATES; k++) {
        const double *y = s->y + k * s->n, *yp = s->yp + k * s->n;
        call(vm, 0.1 * k, y, yp, p, s->res);
        call(native, 0.1 * k, y, yp, p, other);
        if (memcmp(s->res, other, sizeof(double) * (size_t)s->n) != 0) {
            fprintf(stderr, "bench_lang: %s: the native residual differs from the bytecode's\n",
                    what);
            exit(1);
        }
    }
    free(other);
}

/* Bytecode, native and C, batches interleaved; the ratios to C in
** ratios[0] (bytecode) and ratios[1] (native). */
static void compare(const char *what, const hy_binding *mode, const hy_binding *native_mode,
                    hydae_residual_fn c_residual, void *c_user, const double *p, double min_batch,
                    double *ratios)
{
    states s = make_states(mode->n_unknowns);
    caller vm = { NULL, NULL, mode }, c = { c_residual, c_user, NULL },
           native = { NULL, NULL, native_mode };
    check_agreement(what, &vm, &c, &s, p);
    check_identical(what, &vm, &native, &s, p);
    const caller *callers[3] = { &vm, &native, &c };
    double per_eval[3][N_BATCHES], checksum = 0.0, t[3];
    long n_per_batch[3];
    for (int k = 0; k < 3; k++)
        n_per_batch[k] = calibrate(callers[k], &s, p, min_batch);
    for (int b = 0; b < N_BATCHES; b++)
        for (int k = 0; k < 3; k++)
            per_eval[k][b] = time_batch(callers[k], &s, p, n_per_batch[k], &checksum);
    for (int k = 0; k < 3; k++)
        t[k] = median(per_eval[k], N_BATCHES);
    ratios[0] = t[0] / t[2];
    ratios[1] = t[1] / t[2];
    printf("%-32s %6d %11.1f %10.1f %8.1f %7.2f %7.2f  %s\n", what, mode->n_unknowns, 1e9 * t[0],
           1e9 * t[1], 1e9 * t[2], ratios[0], ratios[1],
           ratios[0] <= 3.0 && ratios[1] <= 1.1 ? "met" : "MISSED");
    if (checksum == 12345.678)
        printf("(checksum)\n"); /* keeps the results alive */
    free_states(&s);
}

static hy_lang_unit *compile_native(const char *source, size_t length, const char *name,
                                    int no_cache)
{
    hy_lang_options options = { HY_BACKEND_NATIVE, no_cache };
    int n_errors = 0;
    hy_lang_unit *unit = hy_lang_compile_string_opts(source, length, name, stderr, NULL,
                                                     &n_errors, NULL, &options);
    if (!unit || !unit->native.is_native) {
        fprintf(stderr, "bench_lang: %s: no native code (%d errors)\n", name, n_errors);
        exit(1);
    }
    return unit;
}

static hy_lang_unit *compile_file_native(const char *path)
{
    size_t length = 0;
    char *model_text = hy_lang_read_file(path, &length, stderr);
    if (!model_text)
        exit(1);
    hy_lang_unit *unit = compile_native(model_text, length, path, 0);
    hy_free(model_text);
    return unit;
}

/* The native backend's added time for the chain text, median of
** N_COMPILES compiles: without the cache (cc runs each time) or from it. */
static double native_seconds(const text *source, int no_cache, char *compiler, size_t size)
{
    double seconds[N_COMPILES];
    int n = no_cache ? 3 : N_COMPILES;
    for (int r = 0; r < n; r++) {
        hy_lang_unit *compiled = compile_native(source->data, source->length, "chain5000.hym",
                                                no_cache);
        seconds[r] = compiled->native.seconds;
        snprintf(compiler, size, "%s", compiled->native.compiler);
        hy_lang_unit_free(compiled);
    }
    return median(seconds, n);
}

int main(int argc, char **argv)
{
    double min_batch = argc > 1 && strcmp(argv[1], "--quick") == 0 ? 0.01 : 0.1;
    char cache_home[] = "/tmp/hydae-bench-lang-XXXXXX";
    if (!mkdtemp(cache_home)) {
        fprintf(stderr, "bench_lang: cannot make a cache directory\n");
        return 1;
    }
    setenv("XDG_CACHE_HOME", cache_home, 1);
    unsetenv("HYDAE_BACKEND"); /* compile() is the bytecode */
    printf("residuals against the same residual in C (CPU time per evaluation)\n");
    printf("%-32s %6s %11s %10s %8s %7s %7s  %s\n", "model", "n", "bytecode ns", "native ns",
           "C ns", "vm/C", "nat/C", "targets (<= 3, <= 1.1)");
    int n_errors = 0;
    const char *pendulum_path = HYDAE_SOURCE_DIR "/examples/string_pendulum.hym";
    hy_lang_unit *pendulum = hy_lang_compile_file(pendulum_path, stderr, NULL, &n_errors);
    if (!pendulum || pendulum->n_modes < 1 || pendulum->modes[0].n_unknowns != 2
        || pendulum->n_globals != 5) {
        fprintf(stderr, "bench_lang: examples/string_pendulum.hym: %d errors, or not the "
                "pendulum (mode bound first, parameters m, L, g, kappa, k)\n", n_errors);
        return 1;
    }
    hy_lang_unit *pendulum_native = compile_file_native(pendulum_path);
    double ratio_pendulum[2], ratio_chain[2];
    compare("string pendulum, mode bound", &pendulum->modes[0], &pendulum_native->modes[0],
            pendulum_residual_c, NULL, pendulum->global_values, min_batch, ratio_pendulum);
    hy_lang_unit_free(pendulum);
    hy_lang_unit_free(pendulum_native);

    int n_chain = 500;
    text chain = chain_source(n_chain);
    hy_lang_unit *unit = compile(chain.data, chain.length, "chain500.hym");
    hy_lang_unit *unit_native = compile_native(chain.data, chain.length, "chain500.hym", 0);
    const double chain_p[] = { 4.0, 0.1, 0.5 };
    compare("Duffing chain, 1,000 equations", &unit->modes[0], &unit_native->modes[0],
            chain_residual_c, &n_chain, chain_p, min_batch, ratio_chain);
    hy_lang_unit_free(unit);
    hy_lang_unit_free(unit_native);
    free(chain.data);

    int n_big = 5000;
    text big = chain_source(n_big);
    double seconds[N_COMPILES];
    for (int r = 0; r < N_COMPILES; r++) {
        double start = cpu_seconds();
        hy_lang_unit *compiled = compile(big.data, big.length, "chain5000.hym");
        seconds[r] = cpu_seconds() - start;
        hy_lang_unit_free(compiled);
    }
    double compile_time = median(seconds, N_COMPILES);
    printf("\ncompile from text to bytecode (median of %d runs)\n", N_COMPILES);
    printf("%-34s %6d %10.3f s  %s\n", "Duffing chain, 10,000 equations", 2 * n_big, compile_time,
           compile_time < 1.0 ? "met (< 1 s)" : "MISSED (< 1 s)");
    printf("(%zu bytes of model text)\n", big.length);
    char compiler[256];
    double first = native_seconds(&big, 1, compiler, sizeof compiler), cached;
    hy_lang_unit_free(compile_native(big.data, big.length, "chain5000.hym", 0)); /* fills it */
    cached = native_seconds(&big, 0, compiler, sizeof compiler);
    printf("\nthe native backend's added time, same model (wall time, %s)\n", compiler);
    printf("%-34s %6d %10.3f s  %s\n", "first run: generate, cc, load", 2 * n_big, first,
           first < 5.0 ? "met (< 5 s)" : "MISSED (< 5 s)");
    printf("%-34s %6d %10.4f s  %s\n", "cached run: generate, verify, load", 2 * n_big, cached,
           cached < 0.01 ? "met (< 10 ms)" : "MISSED (< 10 ms)");
    free(big.data);
    hy_lang_cache_clean(NULL);
    char dir[sizeof cache_home + 8];
    snprintf(dir, sizeof dir, "%s/hydae", cache_home);
    rmdir(dir);
    rmdir(cache_home);
    int all_met = ratio_pendulum[0] <= 3.0 && ratio_chain[0] <= 3.0 && compile_time < 1.0
                  && ratio_pendulum[1] <= 1.1 && ratio_chain[1] <= 1.1 && first < 5.0
                  && cached < 0.01;
    printf("\ntargets %s\n", all_met ? "met" : "missed");
    return 0;
}
