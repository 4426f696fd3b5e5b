/*
** Helpers of the model-language tests that check as they go (check.h):
** compiling a model from text or from a file of the source tree, and a
** result column's value by name.
*/
#ifndef HY_LANG_CHECK_H
#define HY_LANG_CHECK_H

#include "check.h"
#include "lang/lang.h"
#include "lang/lang_test_util.h"
#include "rows.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* The model in text (name: for messages), or NULL after a failed CHECK. */
static inline hy_lang_unit *lang_check_compile(const char *text, const char *name)
{
    int n_errors = 0;
    hy_lang_unit *unit = hy_lang_compile_string(text, strlen(text), name, stderr, NULL, &n_errors);
    CHECK(unit != NULL, "%s: %d errors", name, n_errors);
    return unit;
}

/* The model in the file at `relative` to the source tree. */
static inline hy_lang_unit *lang_check_compile_file(const char *relative)
{
    char dir[1024], path[1400];
    lang_test_source_dir(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/%s", dir, relative);
    int n_errors = 0;
    hy_lang_unit *unit = hy_lang_compile_file(path, stderr, NULL, &n_errors);
    CHECK(unit != NULL, "%s: %d errors", relative, n_errors);
    return unit;
}

/* The value of column `name` in row `row` (NaN, and a failed CHECK, if
** there is no such column). */
static inline double lang_check_value(const hydae_model *m, const test_rows *rows, int row,
                                      const char *name)
{
    int c = test_column(m, name);
    CHECK(c >= 0, "no column %s", name);
    return c >= 0 ? test_value(rows, row, c) : NAN;
}

#endif
