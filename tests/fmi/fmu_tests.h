/*
** Shared by the tests of FMU components (tests/fmi/test_fmi_lang_*.c):
** the Van der Pol oscillator written by hand in two modes that switch at
** t = 5 and 12 (examples/fmi/vanderpol_switch.hym's times), and the
** start of a test that needs the Reference FMUs and a scratch directory.
*/
#ifndef HY_TEST_FMU_TESTS_H
#define HY_TEST_FMU_TESTS_H

#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

static const char fmu_test_vdp_hand[] =
    "model hand\n"
    "  parameter Real mu = 1;\n"
    "  initial mode one\n"
    "    Real x0(start = 2), x1(start = 0);\n"
    "  equation\n"
    "    der(x0) = x1;\n"
    "    der(x1) = mu * (1 - x0^2) * x1 - x0;\n"
    "  end one;\n"
    "  mode two\n"
    "    Real x0(start = 2), x1(start = 0);\n"
    "  equation\n"
    "    der(x0) = x1;\n"
    "    der(x1) = mu * (1 - x0^2) * x1 - x0;\n"
    "  end two;\n"
    "  transition a from one to two when time >= 5 end;\n"
    "  transition b from two to one when time >= 12 end;\n"
    "end hand;\n";

/* text into the file at path. 0 or -1. */
static inline int fmu_test_write(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    int status = fputs(text, f) < 0 ? -1 : 0;
    return fclose(f) || status ? -1 : 0;
}

/* text as work/NAME.hym (its path into path) beside a link work/FMU.fmu
** to the test FMU version/FMU.fmu. 0, or -1 with path the file that could not be made. */
static inline int fmu_test_beside(const char *work, const char *version, const char *fmu,
                                  const char *name, const char *text, char *path,
                                  size_t size)
{
    char target[1200];
    snprintf(path, size, "%s/%s.fmu", work, fmu);
    snprintf(target, sizeof target, "%s/%s/%s.fmu", HYDAE_FMU_DIR, version, fmu);
    unlink(path);
    if (symlink(target, path) != 0)
        return -1; /* path names the link */
    snprintf(path, size, "%s/%s.hym", work, name);
    return fmu_test_write(path, text);
}

/* 0 with work (a mkdtemp template) made, 77 when the test FMU probe
** (e.g. "2.0/VanDerPol.fmu") is not in HYDAE_FMU_DIR (skipped), 1 when
** no directory could be made. */
static inline int fmu_test_start(char *work, const char *probe)
{
    char fmu[1200];
    struct stat st;
    snprintf(fmu, sizeof fmu, "%s/%s", HYDAE_FMU_DIR, probe);
    if (stat(fmu, &st) != 0) {
        printf("no test FMUs in %s: skipped\n", HYDAE_FMU_DIR);
        return 77;
    }
    if (!mkdtemp(work)) {
        perror("mkdtemp");
        return 1;
    }
    return 0;
}

#endif
