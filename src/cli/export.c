/*
** `hydae export MODEL.hym [-o MODEL.fmu] [--fmi 2|3] [--runtime LIB.so]`:
** the model as an FMI 2.0 (default) or 3.0 Co-Simulation FMU
** (src/fmi/export/, docs/fmi.md "Export").
** The FMU's binary is hydae's FMU runtime library: --runtime, else the
** environment variable HYDAE_FMU_RUNTIME, else the installed one beside
** an installed bin/hydae (lib/hydae_fmu_runtime.so), else the one this
** hydae was built with. In a build without FMI support (no libzip) it says
** so.
*/
#define _POSIX_C_SOURCE 200809L /* readlink */

#include "cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifdef HYDAE_HAVE_FMI_EXPORT
#include "core/core.h"
#include "fmi/export/export.h"
#endif

static const char export_usage[] =
    "usage: hydae export MODEL.hym [-o MODEL.fmu] [--fmi 2|3] [--runtime LIB.so]\n"
    "  -o FILE          the FMU to write (default: MODEL.fmu in the current directory)\n"
    "  --fmi 2|3        FMI 2.0 (default) or 3.0 Co-Simulation\n"
    "  --runtime LIB    the FMU runtime library to pack (default: $HYDAE_FMU_RUNTIME,\n"
    "                   else the one built with this hydae)\n";

static int export_usage_error(const char *what)
{
    fprintf(stderr, "hydae export: %s\n%s", what, export_usage);
    return 2;
}

#ifdef HYDAE_HAVE_FMI_EXPORT
/* NAME.fmu in the current directory for dir/NAME.hym. */
static void default_output(const char *model, char *out, size_t size)
{
    const char *base = strrchr(model, '/');
    base = base ? base + 1 : model;
    size_t n = strlen(base);
    if (n > 4 && strcmp(base + n - 4, ".hym") == 0)
        n -= 4;
    hy_format(out, size, "%.*s.fmu", (int)n, base);
}
#endif

#ifdef HYDAE_HAVE_FMI_EXPORT
/* The runtime an installed hydae finds relative to itself, into buf; NULL
** if there is none (a hydae run from its build tree). */
static const char *installed_runtime(char *buf, size_t size)
{
#ifdef HYDAE_FMU_RUNTIME_FROM_BINDIR
    char exe[4096];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0)
        return NULL;
    exe[n] = '\0';
    char *slash = strrchr(exe, '/');
    if (!slash)
        return NULL;
    *slash = '\0';
    int len = snprintf(buf, size, "%s/%s", exe, HYDAE_FMU_RUNTIME_FROM_BINDIR);
    if (len < 0 || (size_t)len >= size || access(buf, R_OK) != 0)
        return NULL;
    return buf;
#else
    (void)buf, (void)size;
    return NULL;
#endif
}
#endif

int hy_cli_export(int argc, char **argv)
{
    const char *model = NULL, *output = NULL, *runtime = NULL;
    int fmi_version = 2;
    for (int i = 0; i < argc; i++) {
        if (strcmp(argv[i], "-o") == 0 && i + 1 < argc)
            output = argv[++i];
        else if (strcmp(argv[i], "--fmi") == 0 && i + 1 < argc) {
            const char *v = argv[++i];
            if (strcmp(v, "2") && strcmp(v, "2.0") && strcmp(v, "3") && strcmp(v, "3.0"))
                return export_usage_error("--fmi takes 2 or 3");
            fmi_version = v[0] - '0';
        }
        else if (strcmp(argv[i], "--runtime") == 0 && i + 1 < argc)
            runtime = argv[++i];
        else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0)
            return fputs(export_usage, stdout), 0;
        else if (argv[i][0] == '-' || model)
            return export_usage_error(argv[i][0] == '-' ? "unknown option or missing value"
                                                        : "one model file only");
        else
            model = argv[i];
    }
    if (!model)
        return export_usage_error("no model file");
#ifdef HYDAE_HAVE_FMI_EXPORT
    char default_fmu[1024];
    if (!output) {
        default_output(model, default_fmu, sizeof default_fmu);
        output = default_fmu;
    }
    char installed[4200];
    if (!runtime)
        runtime = getenv("HYDAE_FMU_RUNTIME");
    if (!runtime || !runtime[0])
        runtime = installed_runtime(installed, sizeof installed);
    if (!runtime)
        runtime = HYDAE_FMU_RUNTIME;
    int status = hy_export_fmu(model, output, fmi_version, runtime, stderr);
    if (status == 0)
        fprintf(stderr, "hydae: wrote %s\n", output);
    return status;
#else
    (void)output, (void)runtime, (void)fmi_version;
    fputs("hydae: this build has no FMI support (FMU export needs libzip: install "
          "libzip-dev and rebuild)\n", stderr);
    return 2;
#endif
}
