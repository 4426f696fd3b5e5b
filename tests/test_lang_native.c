/*
** The native backend (src/lang/native/): every program of the example
** models (residuals, Jacobians, guards, outputs, mechanical quantities,
** conditions and actions) gives the bytecode's results to the bit
** (memcmp) at many states; the cache is hit on a second compile (no
** compiler run) and a tampered file is rebuilt; a model file's names and
** strings never reach the generated source; a missing compiler is an
** error with `native` and the bytecode with a note with `auto`.
**
** Runs in a private cache directory (XDG_CACHE_HOME under /tmp).
*/
#define _POSIX_C_SOURCE 200809L /* setenv, mkdtemp */

#include "check.h"
#include "lang/build.h"
#include "lang/lang.h"
#include "lang/lang_test_util.h"
#include "lang/native/native.h"
#include "lang/vm.h"

#include <dirent.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { N_STATES = 40, INPUT_SIZE = 1 << 14, MAX_PROGRAMS = 4096 };

static char source_dir[1024], cache_home[256];

typedef struct programs {
    hy_program *items[MAX_PROGRAMS];
    int n;
} programs;

static void collect(struct hy_program *prog, void *ctx)
{
    programs *list = ctx;
    if (list->n < MAX_PROGRAMS)
        list->items[list->n++] = prog;
}

static void unit_programs(hy_lang_unit *unit, programs *list)
{
    list->n = 0;
    for (int i = 0; i < unit->n_modes; i++)
        hy_eval_vm_mode_programs(unit->modes[i].code, collect, list);
    for (int i = 0; i < unit->n_transitions; i++)
        hy_eval_vm_transition_programs(unit->transitions[i].code, collect, list);
    if (unit->initial.code)
        hy_eval_vm_transition_programs(unit->initial.code, collect, list);
}

static hy_lang_unit *compile_path(const char *path, hy_lang_backend backend, FILE *diag)
{
    hy_lang_options options = { backend, 0 };
    int n_errors = 0;
    return hy_lang_compile_file_opts(path, diag, NULL, &n_errors, NULL, &options);
}

/* Inputs of state k: varied values of both signs, a few exact zeros. */
static void fill_inputs(double *v, int k, double scale)
{
    for (int j = 0; j < INPUT_SIZE; j++)
        v[j] = (j + k) % 17 == 0 ? 0.0 : scale * sin(0.731 * j + 1.37 * k + 0.25) * (1 + k % 3);
}

/* Every program of the bytecode unit against its native twin. */
static void compare_programs(const char *name, hy_lang_unit *vm, hy_lang_unit *native)
{
    static programs a, b;
    unit_programs(vm, &a);
    unit_programs(native, &b);
    CHECK(a.n == b.n && a.n > 0, "%s: %d and %d programs", name, a.n, b.n);
    double *y = malloc(sizeof(double) * INPUT_SIZE * 4);
    double *yp = y + INPUT_SIZE, *p = yp + INPUT_SIZE, *in = p + INPUT_SIZE;
    int n_differ = 0, n_compared = 0;
    for (int i = 0; i < a.n && i < b.n && y; i++) {
        CHECK(a.items[i]->native == NULL && b.items[i]->native != NULL,
              "%s: program %d: native code attached to the wrong one", name, i);
        int n_out = a.items[i]->n_outputs + 1;
        double *out_vm = calloc((size_t)n_out, sizeof(double));
        double *out_native = calloc((size_t)n_out, sizeof(double));
        for (int k = 0; k < N_STATES && out_vm && out_native; k++) {
            fill_inputs(y, k, 2.0);
            fill_inputs(yp, k + 101, 3.0);
            fill_inputs(p, k + 7, 1.5);
            fill_inputs(in, k + 55, 1.0);
            hy_vm_input input = { 0.1 * k, 1.0 / (k + 1.0), y, yp, p, in };
            int status = hy_program_run(a.items[i], &input, out_vm)
                         | hy_program_run(b.items[i], &input, out_native);
            CHECK(status == 0, "%s: run failed", name);
            n_compared++;
            size_t bytes = sizeof(double) * (size_t)(n_out - 1);
            if (memcmp(out_vm, out_native, bytes) != 0 && n_differ++ < 3)
                CHECK(0, "%s: program %d differs at state %d", name, i, k);
        }
        free(out_vm);
        free(out_native);
    }
    CHECK(n_differ == 0, "%s: %d evaluations of %d differ", name, n_differ, n_compared);
    free(y);
}

static void test_examples(void)
{
    char path[1400];
    snprintf(path, sizeof path, "%s/examples", source_dir);
    DIR *d = opendir(path);
    CHECK(d != NULL, "no %s", path);
    struct dirent *entry;
    int n_models = 0;
    while (d && (entry = readdir(d)) != NULL) {
        size_t len = strlen(entry->d_name);
        if (len < 5 || strcmp(entry->d_name + len - 4, ".hym") != 0)
            continue;
        snprintf(path, sizeof path, "%s/examples/%s", source_dir, entry->d_name);
        hy_lang_unit *vm = compile_path(path, HY_BACKEND_VM, stderr);
        hy_lang_unit *native = compile_path(path, HY_BACKEND_NATIVE, stderr);
        CHECK(vm && native, "%s: does not compile", entry->d_name);
        if (vm && native) {
            CHECK(native->native.is_native && !vm->native.is_native, "%s: backends",
                  entry->d_name);
            compare_programs(entry->d_name, vm, native);
            n_models++;
        }
        hy_lang_unit_free(vm);
        hy_lang_unit_free(native);
    }
    if (d)
        closedir(d);
    CHECK(n_models >= 20, "only %d example models compared", n_models);
}

/* The generated sources in the cache, concatenated. */
static char *cached_sources(void)
{
    char dir[400];
    snprintf(dir, sizeof dir, "%s/hydae", cache_home);
    DIR *d = opendir(dir);
    char *all = calloc(1, 1);
    size_t n_all = 0;
    struct dirent *entry;
    while (d && all && (entry = readdir(d)) != NULL) {
        size_t len = strlen(entry->d_name);
        if (len < 3 || strcmp(entry->d_name + len - 2, ".c") != 0)
            continue;
        char path[800];
        snprintf(path, sizeof path, "%s/%s", dir, entry->d_name);
        size_t n = 0;
        char *text = lang_test_read(path, &n);
        char *grown = text ? realloc(all, n_all + n + 1) : NULL;
        if (grown) {
            memcpy(grown + n_all, text, n + 1);
            n_all += n;
            all = grown;
        }
        free(text);
    }
    if (d)
        closedir(d);
    return all;
}

/* Names and strings made to break out of C text: none reaches the file. */
static void test_injection(void)
{
    static const char source[] =
        "model evil_model_name\n"
        "  parameter Real k_quote_xyz = 2 \"a \\\" quote */ #include <stdlib.h>"
        "\\n#define EVIL 1\\n system(\\\"rm -rf /\\\"); /* \";\n"
        "  Real x_evil_state(start = 1, unit = \"*/ }; int evil; /*\") \"line\\nbreak\";\n"
        "equation\n"
        "  der(x_evil_state) = -k_quote_xyz * x_evil_state + sin(time);\n"
        "end evil_model_name;\n";
    hy_lang_options options = { HY_BACKEND_NATIVE, 0 };
    int n_errors = 0;
    hy_lang_unit *native = hy_lang_compile_string_opts(source, sizeof source - 1, "evil.hym",
                                                       stderr, NULL, &n_errors, NULL, &options);
    options.backend = HY_BACKEND_VM;
    hy_lang_unit *vm = hy_lang_compile_string_opts(source, sizeof source - 1, "evil.hym", stderr,
                                                   NULL, &n_errors, NULL, &options);
    CHECK(native && native->native.is_native, "the hostile model does not compile natively");
    if (native && vm)
        compare_programs("evil.hym", vm, native);
    char *all = cached_sources();
    static const char *const forbidden[] = { "evil", "k_quote", "include <stdlib", "#define",
                                             "system", "rm -rf", "quote", "break", "x_evil" };
    CHECK(all && strlen(all) > 100, "no generated source in the cache");
    for (size_t k = 0; all && k < sizeof forbidden / sizeof *forbidden; k++)
        CHECK(strstr(all, forbidden[k]) == NULL, "the generated source holds '%s'", forbidden[k]);
    /* Only the head's includes are preprocessor lines. */
    int n_hash = 0;
    for (const char *line = all; line; line = strchr(line + 1, '\n'))
        n_hash += line[line == all ? 0 : 1] == '#';
    CHECK(n_hash == 2, "%d preprocessor lines in the generated source (want 2)", n_hash);
    free(all);
    hy_lang_unit_free(native);
    hy_lang_unit_free(vm);
}

/* The cached object of the pendulum: the file with extension ext. */
static void cache_file(char *path, size_t size, const char *ext)
{
    char dir[400];
    snprintf(dir, sizeof dir, "%s/hydae", cache_home);
    DIR *d = opendir(dir);
    struct dirent *entry;
    path[0] = '\0';
    while (d && (entry = readdir(d)) != NULL) {
        size_t len = strlen(entry->d_name);
        if (len == 16 + strlen(ext) && strcmp(entry->d_name + 16, ext) == 0)
            snprintf(path, size, "%s/%s", dir, entry->d_name);
    }
    if (d)
        closedir(d);
}

static void tamper(const char *path)
{
    FILE *f = fopen(path, "ab");
    CHECK(f != NULL, "cannot open %s", path);
    if (f) {
        fputs("tampered", f);
        fclose(f);
    }
}

static void test_cache(void)
{
    char model[1400], path[1024];
    snprintf(model, sizeof model, "%s/examples/string_pendulum.hym", source_dir);
    hy_lang_unit *vm = compile_path(model, HY_BACKEND_VM, stderr);
    /* A fresh cache: one compile, then hits without a compiler run. */
    CHECK(hy_lang_cache_clean(stderr) > 0, "cache clean removed nothing");
    hy_lang_unit *first = compile_path(model, HY_BACKEND_NATIVE, stderr);
    CHECK(first && !first->native.cache_hit && first->native.n_compiler_runs == 1,
          "first compile: hit %d, compiler runs %d", first ? first->native.cache_hit : -1,
          first ? first->native.n_compiler_runs : -1);
    hy_lang_unit *second = compile_path(model, HY_BACKEND_NATIVE, stderr);
    CHECK(second && second->native.cache_hit && second->native.n_compiler_runs == 0,
          "second compile: hit %d, compiler runs %d", second ? second->native.cache_hit : -1,
          second ? second->native.n_compiler_runs : -1);
    if (vm && second)
        compare_programs("pendulum from the cache", vm, second);
    hy_lang_unit_free(first);
    hy_lang_unit_free(second);
    /* A tampered object or source is rebuilt, never loaded. */
    static const char *const ext[] = { ".so", ".c", ".sum" };
    for (int k = 0; k < 3; k++) {
        cache_file(path, sizeof path, ext[k]);
        CHECK(path[0] != '\0', "no cached %s file", ext[k]);
        if (path[0])
            tamper(path);
        hy_lang_unit *again = compile_path(model, HY_BACKEND_NATIVE, stderr);
        CHECK(again && !again->native.cache_hit && again->native.n_compiler_runs == 1,
              "tampered %s: hit %d, compiler runs %d", ext[k], again ? again->native.cache_hit : -1,
              again ? again->native.n_compiler_runs : -1);
        if (vm && again)
            compare_programs("pendulum rebuilt", vm, again);
        hy_lang_unit_free(again);
    }
    /* No cache: compiled, nothing kept. */
    CHECK(hy_lang_cache_clean(stderr) > 0, "cache clean removed nothing");
    hy_lang_options options = { HY_BACKEND_NATIVE, 1 };
    int n_errors = 0;
    hy_lang_unit *uncached = hy_lang_compile_file_opts(model, stderr, NULL, &n_errors, NULL,
                                                       &options);
    CHECK(uncached && uncached->native.is_native && uncached->native.n_compiler_runs == 1,
          "--no-cache did not compile");
    cache_file(path, sizeof path, ".so");
    CHECK(path[0] == '\0', "--no-cache left %s", path);
    hy_lang_unit_free(uncached);
    hy_lang_unit_free(vm);
}

static void test_no_compiler(void)
{
    char model[1400];
    snprintf(model, sizeof model, "%s/examples/relay.hym", source_dir);
    setenv("HYDAE_CC", "/nonexistent/cc", 1);
    FILE *diag = tmpfile();
    hy_lang_unit *native = compile_path(model, HY_BACKEND_NATIVE, diag);
    char *text = diag ? lang_test_drain(diag) : NULL;
    CHECK(native == NULL, "native without a compiler compiled");
    CHECK(text && strstr(text, "error: native backend") && strstr(text, "/nonexistent/cc"),
          "no clear error: %s", text ? text : "(none)");
    free(text);
    if (diag)
        fclose(diag);
    diag = tmpfile();
    hy_lang_unit *fallback = compile_path(model, HY_BACKEND_AUTO, diag);
    text = diag ? lang_test_drain(diag) : NULL;
    CHECK(fallback && !fallback->native.is_native, "auto without a compiler: no bytecode model");
    CHECK(text && strstr(text, "note: native backend unavailable"), "no note: %s",
          text ? text : "(none)");
    free(text);
    if (diag)
        fclose(diag);
    hy_lang_unit_free(fallback);
    unsetenv("HYDAE_CC");
}

/* The public API's load with a backend. */
static void test_public_api(void)
{
    char model[1400];
    snprintf(model, sizeof model, "%s/examples/relay.hym", source_dir);
    char *diagnostics = NULL;
    int n_errors = -1;
    hydae_model *native = hydae_model_load_file_backend(model, "native", &diagnostics, &n_errors);
    const hy_lang_native_stats *stats = hy_lang_model_native(native);
    CHECK(native && n_errors == 0 && stats && stats->is_native, "native load through the API");
    hydae_string_free(diagnostics);
    hydae_model *vm = hydae_model_load_file_backend(model, "vm", NULL, NULL);
    stats = hy_lang_model_native(vm);
    CHECK(vm && stats && !stats->is_native, "vm load through the API");
    diagnostics = NULL;
    hydae_model *bad = hydae_model_load_file_backend(model, "fast", &diagnostics, &n_errors);
    CHECK(!bad && n_errors == 1 && diagnostics && strstr(diagnostics, "\"native\", \"vm\""),
          "an unknown backend: %s", diagnostics ? diagnostics : "(none)");
    hydae_string_free(diagnostics);
    hydae_model_free(native);
    hydae_model_free(vm);
}

int main(void)
{
    lang_test_source_dir(source_dir, sizeof source_dir);
    snprintf(cache_home, sizeof cache_home, "/tmp/hydae-test-native-XXXXXX");
    if (!mkdtemp(cache_home)) {
        fprintf(stderr, "cannot make %s\n", cache_home);
        return 1;
    }
    setenv("XDG_CACHE_HOME", cache_home, 1);
    unsetenv("HYDAE_CC");
    unsetenv("HYDAE_CFLAGS");
    unsetenv("HYDAE_NO_CACHE");
    hy_native_compiler cc;
    char err[256];
    if (hy_native_compiler_get(&cc, err, sizeof err) != 0 || !hy_native_compiler_found(&cc)) {
        printf("no C compiler: skipped\n");
        return 77;
    }
    test_examples();
    CHECK(hy_lang_cache_clean(stderr) >= 0, "cache clean failed");
    test_injection();
    test_cache();
    test_no_compiler();
    test_public_api();
    hy_lang_cache_clean(NULL);
    char dir[400];
    snprintf(dir, sizeof dir, "%s/hydae", cache_home);
    rmdir(dir);
    rmdir(cache_home);
    return CHECK_DONE();
}
