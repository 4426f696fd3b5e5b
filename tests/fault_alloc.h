/*
** A failing allocator for hydae_set_allocator (tests/test_alloc_fail.c,
** tests/test_model_load.c): it counts every allocation and reallocation,
** fails the fail_at-th (and, with fail_rest, every one after it), and
** counts the blocks allocated and not freed.
*/
#ifndef HY_FAULT_ALLOC_H
#define HY_FAULT_ALLOC_H

#include <stdlib.h>

typedef struct fault_allocator {
    long n_calls;  /* allocations and reallocations asked for so far */
    long fail_at;  /* the call (1-based) that fails; 0: none */
    int fail_rest; /* every call from fail_at on fails too */
    long n_failed; /* calls failed */
    long n_live;   /* blocks allocated and not freed */
} fault_allocator;

static void *fault_alloc(void *ud, void *ptr, size_t size)
{
    fault_allocator *fa = ud;
    if (size == 0) {
        if (ptr) {
            free(ptr);
            fa->n_live--;
        }
        return NULL;
    }
    long call = ++fa->n_calls;
    if (fa->fail_at > 0 && (call == fa->fail_at || (fa->fail_rest && call > fa->fail_at))) {
        fa->n_failed++;
        return NULL;
    }
    void *block = realloc(ptr, size);
    if (block && !ptr)
        fa->n_live++;
    return block;
}

#endif
