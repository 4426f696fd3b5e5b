/*
** The evaluation backend on the command line (docs/language.md,
** "Backends"): `--backend native|vm|auto` and `--no-cache` of the commands
** that compile model files, passed to the compiler through the process's
** environment (HYDAE_BACKEND, HYDAE_NO_CACHE), so that every command
** (run, check, sweep, converge, export) honours them alike; `hydae cache
** clean`; the native code's line of the run statistics.
*/
#define _POSIX_C_SOURCE 200809L /* setenv */

#include "cli.h"

#include <stdlib.h>
#include <string.h>

enum { EXIT_USAGE = 2 };

int hy_cli_backend_options(int *argc, char **argv, int *asked_native)
{
    int kept = 0;
    for (int i = 0; i < *argc; i++) {
        if (strcmp(argv[i], "--no-cache") == 0) {
            setenv("HYDAE_NO_CACHE", "1", 1);
            continue;
        }
        if (strcmp(argv[i], "--backend") != 0) {
            argv[kept++] = argv[i];
            continue;
        }
        if (i + 1 >= *argc || hy_lang_backend_parse(argv[i + 1]) < 0) {
            fprintf(stderr, "hydae: --backend is native, vm or auto, not '%s'\n",
                    i + 1 < *argc ? argv[i + 1] : "");
            fprintf(stderr, "Try 'hydae --help'.\n");
            return EXIT_USAGE;
        }
        setenv("HYDAE_BACKEND", argv[++i], 1);
    }
    argv[kept] = NULL;
    *argc = kept;
    const char *backend = getenv("HYDAE_BACKEND");
    if (asked_native)
        *asked_native = backend && backend[0] && strcmp(backend, "vm") != 0;
    return 0;
}

void hy_cli_print_native_stats(const hydae_model *model, FILE *out)
{
    const hy_lang_native_stats *native = hy_lang_model_native(model);
    if (!native)
        return;
    if (!native->is_native) {
        fprintf(out, "backend: bytecode\n");
        return;
    }
    fprintf(out, "backend: native, %d programs, %zu bytes of C, %s in %.1f ms (%s)\n",
            native->n_programs, native->source_bytes,
            native->cache_hit ? "loaded from the cache" : "compiled", 1e3 * native->seconds,
            native->compiler);
}

int hy_cli_cache(int argc, char **argv)
{
    if (argc != 1 || strcmp(argv[0], "clean") != 0) {
        fprintf(stderr, "hydae: cache needs 'clean': hydae cache clean\n");
        return EXIT_USAGE;
    }
    int n_removed = hy_lang_cache_clean(stderr);
    if (n_removed < 0)
        return 1;
    printf("hydae: removed %d cached file%s\n", n_removed, n_removed == 1 ? "" : "s");
    return 0;
}

/* `hydae check --backend native|auto MODEL.hym`: the model compiled to
** native code as well, and said how. */
int hy_cli_check_backend(const char *path)
{
    int n_errors = 0;
    hy_lang_unit *unit = hy_lang_compile_file_fmi(path, stderr, NULL, &n_errors, hy_cli_fmu_ops());
    if (!unit)
        return EXIT_USAGE;
    hy_cli_print_native_stats(hy_lang_unit_model(unit), stdout);
    hy_lang_unit_free(unit);
    return 0;
}
