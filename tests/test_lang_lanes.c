/*
** Loops kept as loops (src/lang/unroll_lanes.c, vm_lanes.c): a model whose
** for-loops of explicit equations stay loops through the compiler gives,
** bit for bit, the residual, f, and both Jacobians (dense and sparse, with
** the same pattern) of the same model compiled unrolled
** (HYDAE_LANG_UNROLL=1, the path before loops were kept): the unrolled
** compiler is the independent computation. Explicit ODEs and a DAE keep
** their loops; a loop with a relation is expanded; a bad loop and an
** index-2 loop get the unrolled compiler's messages at file:line:column. Runs on the backend
** HYDAE_BACKEND names (the suite runs it with the VM and natively).
*/
#define _POSIX_C_SOURCE 200809L /* setenv, open_memstream */

#include "check.h"
#include "lang/build.h"
#include "lang/eval.h"
#include "lang/lang.h"
#include "lang/lang_test_util.h"
#include "model/model.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The Brusselator of examples/brusselator.hym at M = 40: two loops of
** one body of two equations, boundary equations around them. */
static const char *brusselator =
    "model brusselator\n"
    "  constant Real M = 40;\n"
    "  constant Real c = (M + 1)^2 / 50;\n"
    "  Real u[M](start = {1 + sin(2 * 3.14159 * i / (M + 1)) for i in 1:M});\n"
    "  Real v[M](start = 3);\n"
    "equation\n"
    "  der(u[1]) = 1 + u[1]^2 * v[1] - 4 * u[1] + c * (1 - 2 * u[1] + u[2]);\n"
    "  der(v[1]) = 3 * u[1] - u[1]^2 * v[1] + c * (3 - 2 * v[1] + v[2]);\n"
    "  for i in 2:M - 1 loop\n"
    "    der(u[i]) = 1 + u[i]^2 * v[i] - 4 * u[i] + c * (u[i - 1] - 2 * u[i] + u[i + 1]);\n"
    "    der(v[i]) = 3 * u[i] - u[i]^2 * v[i] + c * (v[i - 1] - 2 * v[i] + v[i + 1]);\n"
    "  end for;\n"
    "  der(u[M]) = 1 + u[M]^2 * v[M] - 4 * u[M] + c * (u[M - 1] - 2 * u[M] + 1);\n"
    "  der(v[M]) = 3 * u[M] - u[M]^2 * v[M] + c * (v[M - 1] - 2 * v[M] + 3);\n"
    "end brusselator;\n";

/* Loops of other lengths and shapes: parameters, time, whole and real
** powers, smooth functions of two arguments, a root that is a leaf (x[i +
** 1]) or a constant (2 k), a shared expression, the same element read by
** two loops, a scalar unknown read in a loop. */
static const char *shapes =
    "model shapes\n"
    "  parameter Real k = 0.7;\n"
    "  Real x[6](start = {0.1 * i for i in 1:6});\n"
    "  Real z[5](start = 0.5);\n"
    "  Real w[7](start = {1 + 0.2 * i for i in 1:7});\n"
    "  Real s(start = 1.5);\n"
    "equation\n"
    "  for i in 1:5 loop\n"
    "    der(x[i]) = x[i + 1];\n"
    "    der(z[i]) = 2 * k;\n"
    "  end for;\n"
    "  der(x[6]) = -x[1];\n"
    "  for j in 2:7 loop\n"
    "    der(w[j]) = k * w[j - 1]^3 / (1 + w[j]^2) - atan2(w[j], s) * sin(time) "
    "+ sqrt(w[j]) ^ 2.5 - exp(-w[j - 1]) * x[j - 1] + s * w[j]^-2;\n"
    "  end for;\n"
    "  der(w[1]) = -w[1] + cos(w[7]);\n"
    "  der(s) = -0.1 * s + w[3];\n"
    "end shapes;\n";

/* A DAE: algebraic equations in the loop, der() on either side. */
static const char *dae =
    "model dae\n"
    "  Real x[4](start = 1);\n"
    "  Real a[4](start = 1);\n"
    "  Real z(start = 0.5);\n"
    "equation\n"
    "  for i in 1:4 loop\n"
    "    -a[i] * z = der(x[i]);\n"
    "    a[i] + exp(a[i]) = x[i]^2 + 1;\n"
    "  end for;\n"
    "  z = 0.5 + 0.1 * sin(time);\n"
    "end dae;\n";

/* A loop the lanes never take (a relation), expanded. */
static const char *unkept =
    "model unkept\n"
    "  Real x[5](start = {i - 3 for i in 1:5});\n"
    "equation\n"
    "  for i in 1:5 loop\n"
    "    der(x[i]) = if x[i] > 0 then -1 else 1;\n"
    "  end for;\n"
    "end unkept;\n";

/* Index 2 (x[i] given, y[i] its derivative): the lanes refuse it late,
** and the unrolled compiler reports it. */
static const char *index2 =
    "model index2\n"
    "  Real x[3](start = 0);\n"
    "  Real y[3](start = 0);\n"
    "equation\n"
    "  for i in 1:3 loop\n"
    "    der(x[i]) = y[i];\n"
    "    x[i] = sin(time);\n"
    "  end for;\n"
    "end index2;\n";

/* A subscript past the end. */
static const char *bad =
    "model bad\n"
    "  Real x[3](start = 1);\n"
    "equation\n"
    "  der(x[3]) = 0;\n"
    "  for i in 1:2 loop\n"
    "    der(x[i]) = -x[i + 2];\n"
    "  end for;\n"
    "end bad;\n";

static hy_lang_unit *compile(const char *text, int unrolled, char **messages)
{
    if (unrolled)
        setenv("HYDAE_LANG_UNROLL", "1", 1);
    else
        unsetenv("HYDAE_LANG_UNROLL");
    char *buffer = NULL;
    size_t size = 0;
    FILE *diag = open_memstream(&buffer, &size);
    int n_errors = 0;
    hy_lang_unit *unit = hy_lang_compile_string(text, strlen(text), "lanes.hym", diag, NULL,
                                                &n_errors);
    fclose(diag);
    if (messages)
        *messages = buffer;
    else
        free(buffer);
    unsetenv("HYDAE_LANG_UNROLL");
    return unit;
}

static int same_bits(const double *a, const double *b, size_t n)
{
    return memcmp(a, b, n * sizeof *a) == 0;
}

/* Every evaluation of mode 0 of both units at a few states. */
static void compare_units(const char *name, hy_lang_unit *lanes, hy_lang_unit *unrolled)
{
    const hy_binding *a = &lanes->modes[0], *b = &unrolled->modes[0];
    CHECK(a->n_unknowns == b->n_unknowns && a->is_explicit == b->is_explicit,
          "%s: %d and %d unknowns, explicit %d %d", name, a->n_unknowns, b->n_unknowns,
          a->is_explicit, b->is_explicit);
    if (a->n_unknowns != b->n_unknowns || a->is_explicit != b->is_explicit)
        return;
    int explicit = a->is_explicit, n = a->n_unknowns;
    const double *p = lanes->global_values;
    double *y = calloc((size_t)n, sizeof *y), *yp = calloc((size_t)n, sizeof *yp);
    double *out_a = calloc((size_t)n, sizeof *out_a), *out_b = calloc((size_t)n, sizeof *out_b);
    double *dense_a = calloc((size_t)n * (size_t)n, sizeof *dense_a);
    double *dense_b = calloc((size_t)n * (size_t)n, sizeof *dense_b);
    for (int of_rhs = 0; of_rhs <= explicit; of_rhs++) {
        const hy_csc *pa = a->ops->jacobian_pattern(a->code, of_rhs);
        const hy_csc *pb = b->ops->jacobian_pattern(b->code, of_rhs);
        CHECK(pa->n == pb->n && pa->nnz == pb->nnz
                  && memcmp(pa->col_start, pb->col_start,
                            sizeof *pa->col_start * (size_t)(n + 1)) == 0
                  && memcmp(pa->row, pb->row, sizeof *pa->row * (size_t)pa->nnz) == 0,
              "%s: Jacobian pattern %d differs (nnz %d, %d)", name, of_rhs, pa->nnz, pb->nnz);
    }
    int nnz = a->ops->jacobian_pattern(a->code, 0)->nnz;
    int nnz_rhs = explicit ? a->ops->jacobian_pattern(a->code, 1)->nnz : 0;
    double *values_a = calloc((size_t)nnz + (size_t)nnz_rhs + 1, sizeof *values_a);
    double *values_b = calloc((size_t)nnz + (size_t)nnz_rhs + 1, sizeof *values_b);
    for (int state = 0; state < 3; state++) {
        double t = 0.3 + 1.1 * state, cj = 17.0 + state;
        for (int j = 0; j < n; j++) {
            y[j] = 0.6 + 0.5 * sin(1.3 * j + 2.1 * state);
            yp[j] = -0.4 + 0.3 * cos(0.7 * j + state);
        }
        CHECK(a->ops->residual(a->code, t, y, yp, p, out_a) == 0
                  && b->ops->residual(b->code, t, y, yp, p, out_b) == 0, "%s: residual", name);
        CHECK(same_bits(out_a, out_b, (size_t)n), "%s: residuals differ at state %d", name, state);
        CHECK(a->ops->jacobian(a->code, t, cj, y, yp, p, dense_a) == 0
                  && b->ops->jacobian(b->code, t, cj, y, yp, p, dense_b) == 0,
              "%s: jacobian", name);
        CHECK(same_bits(dense_a, dense_b, (size_t)n * (size_t)n), "%s: Jacobians differ", name);
        CHECK(a->ops->sparse_jacobian(a->code, t, cj, y, yp, p, values_a) == 0
                  && b->ops->sparse_jacobian(b->code, t, cj, y, yp, p, values_b) == 0,
              "%s: sparse Jacobians", name);
        if (explicit) {
            CHECK(a->ops->rhs_jacobian(a->code, t, y, p, dense_a) == 0
                      && b->ops->rhs_jacobian(b->code, t, y, p, dense_b) == 0, "%s: df/dy", name);
            CHECK(same_bits(dense_a, dense_b, (size_t)n * (size_t)n), "%s: df/dy differ", name);
            CHECK(a->ops->rhs_sparse_jacobian(a->code, t, y, p, values_a + nnz) == 0
                      && b->ops->rhs_sparse_jacobian(b->code, t, y, p, values_b + nnz) == 0,
                  "%s: sparse df/dy", name);
            CHECK(a->ops->rhs(a->code, t, y, p, out_a) == 0
                      && b->ops->rhs(b->code, t, y, p, out_b) == 0, "%s: rhs", name);
            CHECK(same_bits(out_a, out_b, (size_t)n), "%s: f differs at state %d", name, state);
        }
        CHECK(same_bits(values_a, values_b, (size_t)(nnz + nnz_rhs)),
              "%s: sparse Jacobian values differ", name);
    }
    /* f (or the residual) is not trivially zero: the comparison compared something */
    double largest = 0.0;
    for (int j = 0; j < n; j++)
        largest = fmax(largest, fabs(out_a[j]));
    CHECK(largest > 0.1, "%s: |f| at most %g", name, largest);
    printf("%-12s %4d unknowns, %4d + %4d Jacobian entries: bit-identical\n", name, n, nnz,
           nnz_rhs);
    free(y);
    free(yp);
    free(out_a);
    free(out_b);
    free(dense_a);
    free(dense_b);
    free(values_a);
    free(values_b);
}

static void check_same(const char *name, const char *text, int want_kept)
{
    hy_lang_unit *lanes = compile(text, 0, NULL), *unrolled = compile(text, 1, NULL);
    CHECK(lanes && unrolled, "%s: compiles (%p, %p)", name, (void *)lanes, (void *)unrolled);
    if (!lanes || !unrolled)
        return;
    CHECK(lanes->n_kept_loops == want_kept && unrolled->n_kept_loops == 0,
          "%s: %d loops kept (want %d), %d unrolled", name, lanes->n_kept_loops, want_kept,
          unrolled->n_kept_loops);
    compare_units(name, lanes, unrolled);
    hy_lang_unit_free(lanes);
    hy_lang_unit_free(unrolled);
}

/* A model refused both ways, with the same messages at `where`. */
static void check_message(const char *name, const char *text, const char *where)
{
    char *with_lanes = NULL, *without = NULL;
    hy_lang_unit *a = compile(text, 0, &with_lanes), *b = compile(text, 1, &without);
    CHECK(!a && !b, "%s: refused both ways", name);
    CHECK(with_lanes && without && strcmp(with_lanes, without) == 0,
          "%s: messages differ:\n%s---\n%s", name, with_lanes ? with_lanes : "",
          without ? without : "");
    CHECK(with_lanes && strstr(with_lanes, where) != NULL, "%s: no %s in\n%s", name, where,
          with_lanes ? with_lanes : "");
    free(with_lanes);
    free(without);
}

/* The start values, folded from the syntax (sema_fold.c) for the lanes
** and the unrolled model alike: the same doubles as C computes with the
** same operations in the same order (the DAG's folding, which lowering
** used before, does these operations too). */
static void check_starts(void)
{
    hy_lang_unit *unit = compile(brusselator, 0, NULL);
    CHECK(unit != NULL, "brusselator compiles");
    if (!unit)
        return;
    const hydae_mode *mode = unit->model->charts[0]->modes[0];
    int exact = 0;
    for (int i = 1; i <= 40; i++) {
        char name[32];
        snprintf(name, sizeof name, "u[%d]", i);
        const hy_var *v = &mode->vars[i - 1];
        exact += strcmp(v->name, name) == 0 && v->start == 1 + sin(2 * 3.14159 * i / (40.0 + 1));
    }
    CHECK(exact == 40, "%d of 40 start values of u exact", exact);
    hy_lang_unit_free(unit);
}

/* An example file as it is (examples/NAME.hym). */
static void check_example(const char *name, int want_kept)
{
    char dir[1024], path[1200];
    lang_test_source_dir(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/examples/%s.hym", dir, name);
    char *text = lang_test_read(path, NULL);
    CHECK(text != NULL, "cannot read %s", path);
    if (text)
        check_same(name, text, want_kept);
    free(text);
}

int main(void)
{
    check_starts();
    check_example("heat_rod", 1);
    check_example("brusselator", 1);
    check_same("brusselator40", brusselator, 1);
    check_same("shapes", shapes, 2);
    check_same("dae", dae, 1);
    check_same("unkept", unkept, 0);
    check_message("bad", bad, "lanes.hym:6:");
    check_message("index2", index2, "lanes.hym:");
    return CHECK_DONE();
}
