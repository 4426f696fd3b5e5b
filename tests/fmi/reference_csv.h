/*
** Test helper: the reference result an FMU carries
** (extra/org.fmi-standard.fmi-ls-ref/<Model>_out.csv: a header line, then
** numbers), read with libzip directly, not with the importer's own
** unpacking; and the row of a run at a reference time.
*/
#ifndef HY_TEST_REFERENCE_CSV_H
#define HY_TEST_REFERENCE_CSV_H

#include "rows.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zip.h>

typedef struct ref_csv {
    int n_rows, n_cols;
    char names[16][64];
    double *v; /* n_rows x n_cols, column 0 time */
} ref_csv;

/* The reference of `model` inside the FMU at fmu_path: 0, or -1. */
static inline int read_reference(const char *fmu_path, const char *model, ref_csv *r)
{
    memset(r, 0, sizeof *r);
    char name[256];
    snprintf(name, sizeof name, "extra/org.fmi-standard.fmi-ls-ref/%s_out.csv", model);
    zip_t *zip = zip_open(fmu_path, ZIP_RDONLY, NULL);
    zip_file_t *file = zip ? zip_fopen(zip, name, 0) : NULL;
    size_t cap = 1 << 20, used = 0;
    char *text = malloc(cap);
    zip_int64_t got = 0;
    while (file && text && used + 1 < cap
           && (got = zip_fread(file, text + used, cap - 1 - used)) > 0)
        used += (size_t)got;
    if (file)
        zip_fclose(file);
    if (zip)
        zip_discard(zip);
    if (!file || !text || got < 0 || used == 0) {
        free(text);
        return -1;
    }
    text[used] = '\0';
    char *line = text, *next = strchr(line, '\n');
    if (next)
        *next++ = '\0';
    for (char *tok = strtok(line, ",\r"); tok && r->n_cols < 16; tok = strtok(NULL, ",\r"))
        snprintf(r->names[r->n_cols++], sizeof r->names[0], "%s", tok);
    int cap_rows = 0;
    for (line = next; line && *line; line = next) {
        next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        if (r->n_rows == cap_rows) {
            cap_rows = cap_rows ? 2 * cap_rows : 256;
            r->v = realloc(r->v, sizeof *r->v * (size_t)cap_rows * (size_t)r->n_cols);
        }
        char *p = line;
        for (int c = 0; c < r->n_cols; c++) {
            r->v[(size_t)r->n_rows * (size_t)r->n_cols + (size_t)c] = strtod(p, &p);
            if (*p == ',')
                p++;
        }
        r->n_rows++;
    }
    free(text);
    return r->n_rows > 0 ? 0 : -1;
}

/* The last row of `rows` at time t (the right limit at an event), or -1. */
static inline int row_at(const test_rows *rows, double t)
{
    int found = -1;
    for (int i = 0; i < rows->n_rows; i++)
        if (fabs(rows->t[i] - t) <= 1e-9 * fmax(1.0, fabs(t)))
            found = i;
    return found;
}

#endif
