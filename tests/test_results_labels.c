/*
** Mode names of a result table (hy_results_label, a hash map since issue
** 13, D11): 100,000 distinct names get the indices 0, 1, 2, ... in order
** of first appearance, a name seen again gets its first index back, names
** that differ in one character or only in length stay apart, and the
** labels keep their text. No timing here (speed is measured in bench/ and
** reported in the commit: 200,000 labels in `hydae plot` in 0.56 s).
*/
#include "check.h"
#include "io/results.h"

#include <stdio.h>
#include <string.h>

int main(void)
{
    enum { N_LABELS = 100000 };
    hy_results r;
    hy_results_init(&r);
    int var = hy_results_add_var(&r, "mode(c)", "", 0, 1);
    CHECK(var == 0, "add_var: %d", var);
    char name[32];
    long n_wrong_first = 0, n_wrong_again = 0;
    for (int i = 0; i < N_LABELS; i++) {
        snprintf(name, sizeof name, "m%d", i);
        n_wrong_first += hy_results_label(&r, var, name) != i;
    }
    for (int i = N_LABELS - 1; i >= 0; i -= 7) {
        snprintf(name, sizeof name, "m%d", i);
        n_wrong_again += hy_results_label(&r, var, name) != i;
    }
    CHECK(n_wrong_first == 0, "%ld new names did not get the next index", n_wrong_first);
    CHECK(n_wrong_again == 0, "%ld names seen again got another index", n_wrong_again);
    CHECK(r.vars[var].n_labels == N_LABELS, "%d labels, want %d", r.vars[var].n_labels,
          N_LABELS);
    CHECK(strcmp(r.vars[var].labels[12345], "m12345") == 0, "label 12345 is '%s'",
          r.vars[var].labels[12345]);
    /* Prefixes and one-character changes are other names. */
    CHECK(hy_results_label(&r, var, "m1234") == 1234, "m1234");
    CHECK(hy_results_label(&r, var, "m12340") == 12340, "m12340");
    CHECK(hy_results_label(&r, var, "m") == N_LABELS, "'m' is new");
    CHECK(hy_results_label(&r, var, "") == N_LABELS + 1, "'' is new");
    CHECK(hy_results_label(&r, var, "m") == N_LABELS, "'m' again");
    hy_results_free(&r);
    return CHECK_DONE();
}
