/*
** RK45 on PLEIADES, CPU at equal accuracy between two builds of hydae
** (issue 17: RK45 before and after). Compiled against a tree's headers and
** its bench build (bench/rk45_before_after.sh does both), so that the same
** source measures the commit before issue 17 and the current one.
**
**   rk45_cpu MIN_TIME RTOL...   one line per rtol: rtol, scd, f
**                               evaluations, CPU per solve [us] (the mean
**                               over repeated solves of at least MIN_TIME
**                               s, CLOCK_PROCESS_CPUTIME_ID; 0: one solve,
**                               no timing)
**   rk45_cpu --ratios FILE      FILE: lines "old|new rtol scd f cpu" of
**                               interleaved repetitions; per new rtol, the
**                               median CPU over the old curve's median CPU
**                               at the same scd (log-linear between the
**                               old points, no extrapolation)
*/
#define _POSIX_C_SOURCE 200809L /* clock_gettime */

#include "bench.h"
#include "nonstiff.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_ROWS 4096
#define MAX_TOLS 32

static double cpu_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* One solve over [t0, t_end]; y(t_end) and the f evaluations if asked. */
static int solve(const bench_case *bc, double rtol, double *y, long *n_f)
{
    void *mem = hy_rk45.create(bc->dae.n);
    if (mem == NULL)
        return -1;
    hy_options opt;
    memset(&opt, 0, sizeof opt);
    opt.rtol = rtol;
    opt.atol = bench_case_atol(bc, rtol);
    int rc = hy_rk45.init(mem, &bc->dae, bc->t0, bc->y0, bc->yp0, &opt);
    double t = bc->t0;
    while (rc == HYDAE_OK && t != bc->t_end)
        rc = hy_rk45.step(mem, bc->t_end, &t);
    if (rc >= 0 && y != NULL)
        rc = hy_rk45.dense(mem, bc->t_end, y, NULL);
    if (n_f != NULL) {
        hy_stats st;
        memset(&st, 0, sizeof st);
        hy_rk45.get_stats(mem, &st);
        *n_f = st.n_res_evals;
    }
    hy_rk45.destroy(mem);
    return rc < 0 ? rc : 0;
}

static int measure(double min_time, int n_tols, char **tols)
{
    const bench_case *bc = &bench_nonstiff_cases[1];     /* PLEIADES */
    for (int k = 0; k < n_tols; k++) {
        double rtol = atof(tols[k]), y[BENCH_CASE_MAX_N];
        long n_f = 0;
        if (solve(bc, rtol, y, &n_f) != 0) {
            fprintf(stderr, "rk45_cpu: RK45 failed at rtol %g\n", rtol);
            return 1;
        }
        double scd = bc->score(bc, y, rtol, bench_case_atol(bc, rtol));
        long reps = 0;
        double start = cpu_seconds(), elapsed = 0.0;
        while (min_time > 0.0 && elapsed < min_time) {
            solve(bc, rtol, NULL, NULL);
            reps++;
            elapsed = cpu_seconds() - start;
        }
        printf("%g %.4f %ld %.3f\n", rtol, scd, n_f,
               reps ? 1e6 * elapsed / (double)reps : 0.0);
    }
    return 0;
}

typedef struct row {
    int is_new;
    double rtol, scd, cpu;
    long n_f;
} row;

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median CPU of the rows of one build at rtol; scd and f of the first. */
static int point(const row *rows, int n, int is_new, double rtol,
                 double *scd, long *n_f, double *cpu)
{
    double v[MAX_ROWS];
    int m = 0;
    for (int i = 0; i < n; i++)
        if (rows[i].is_new == is_new && rows[i].rtol == rtol) {
            if (m == 0) {
                *scd = rows[i].scd;
                *n_f = rows[i].n_f;
            }
            v[m++] = rows[i].cpu;
        }
    if (m == 0)
        return 0;
    qsort(v, (size_t)m, sizeof v[0], cmp_double);
    *cpu = m % 2 ? v[m / 2] : 0.5 * (v[m / 2 - 1] + v[m / 2]);
    return m;
}

static int ratios(const char *path)
{
    FILE *f = fopen(path, "r");
    if (f == NULL) {
        perror(path);
        return 1;
    }
    static row rows[MAX_ROWS];
    int n = 0;
    char which[8];
    while (n < MAX_ROWS
           && fscanf(f, "%7s %lf %lf %ld %lf", which, &rows[n].rtol,
                     &rows[n].scd, &rows[n].n_f, &rows[n].cpu) == 5) {
        rows[n].is_new = strcmp(which, "new") == 0;
        n++;
    }
    fclose(f);
    /* The old curve: its tolerances in decreasing order, scd increasing
    ** on PLEIADES. */
    double tols[2][MAX_TOLS];
    int n_tols[2] = { 0, 0 };
    for (int i = 0; i < n; i++) {
        int b = rows[i].is_new, seen = 0;
        for (int k = 0; k < n_tols[b]; k++)
            seen |= tols[b][k] == rows[i].rtol;
        if (!seen && n_tols[b] < MAX_TOLS)
            tols[b][n_tols[b]++] = rows[i].rtol;
    }
    double old_scd[MAX_TOLS], old_cpu[MAX_TOLS], old_f[MAX_TOLS];
    for (int k = 0; k < n_tols[0]; k++) {
        long n_f;
        point(rows, n, 0, tols[0][k], &old_scd[k], &n_f, &old_cpu[k]);
        old_f[k] = (double)n_f;
    }
    printf("rtol    scd_new  f_new  CPU_new[us] | old at that scd: CPU[us]  f  | "
           "CPU ratio  f ratio  (reps)\n");
    for (int k = 0; k < n_tols[1]; k++) {
        double scd, cpu;
        long n_f;
        int reps = point(rows, n, 1, tols[1][k], &scd, &n_f, &cpu);
        double o_cpu = NAN, o_f = NAN;
        for (int j = 0; j + 1 < n_tols[0]; j++) {
            double s0 = old_scd[j], s1 = old_scd[j + 1];
            if (s0 <= scd && scd <= s1 && s1 > s0) {
                double x = (scd - s0) / (s1 - s0);
                o_cpu = exp((1 - x) * log(old_cpu[j]) + x * log(old_cpu[j + 1]));
                o_f = exp((1 - x) * log(old_f[j]) + x * log(old_f[j + 1]));
            }
        }
        printf("%-7g %7.2f %6ld %11.1f | %24.1f %6.0f | %9.3f %8.3f  (%d)\n",
               tols[1][k], scd, n_f, cpu, o_cpu, o_f, cpu / o_cpu,
               (double)n_f / o_f, reps);
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "--ratios") == 0)
        return ratios(argv[2]);
    if (argc < 3) {
        fprintf(stderr, "usage: rk45_cpu MIN_TIME RTOL... | rk45_cpu --ratios FILE\n");
        return 2;
    }
    return measure(atof(argv[1]), argc - 2, argv + 2);
}
