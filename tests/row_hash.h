/*
** Test helper: a result sink that hashes every row (FNV-1a, 64 bits, over
** the bytes of its kind, time and values), so two runs can be compared to
** the bit without keeping their rows (tests/test_*_threads.c).
*/
#ifndef HY_TEST_ROW_HASH_H
#define HY_TEST_ROW_HASH_H

#include "hydae.h"

#include <stddef.h>
#include <stdint.h>

typedef struct run_hash {
    uint64_t hash;
    long n_rows;
    int n_columns;
} run_hash;

static inline void hash_bytes(uint64_t *hash, const void *data, size_t size)
{
    const unsigned char *byte = data;
    for (size_t i = 0; i < size; i++) {
        *hash ^= byte[i];
        *hash *= 1099511628211ULL; /* FNV-1a, 64 bits */
    }
}

/* Start hashing the rows of a run of model m. */
static inline void run_hash_start(run_hash *h, const hydae_model *m)
{
    h->hash = 14695981039346656037ULL;
    h->n_rows = 0;
    h->n_columns = hydae_model_n_columns(m);
}

/* The row sink (hydae_sim_add_row_sink, user = the run_hash). */
static inline int hash_row(void *user, hydae_row_kind kind, double t, const double *values)
{
    run_hash *h = user;
    int k = (int)kind;
    hash_bytes(&h->hash, &k, sizeof k);
    hash_bytes(&h->hash, &t, sizeof t);
    hash_bytes(&h->hash, values, (size_t)h->n_columns * sizeof *values);
    h->n_rows++;
    return 0;
}

#endif
