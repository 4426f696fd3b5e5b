/*
** Core utilities: the status message table (generated from the X-macro in
** hydae.h), checked growth of arrays, string duplication.
*/
#include "core.h"

#include "hydae.h"

#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef HYDAE_VERSION_STRING
#define HYDAE_VERSION_STRING "0.0.0"
#endif

const char *hydae_version(void)
{
    return HYDAE_VERSION_STRING;
}

const char *hydae_status_string(int status)
{
    switch (status) {
#define HY_STATUS_CASE_(name, value, msg) \
    case value:                           \
        return msg;
        HYDAE_STATUS_LIST(HY_STATUS_CASE_)
#undef HY_STATUS_CASE_
    default:
        return "unknown status";
    }
}

static void *default_alloc(void *ud, void *ptr, size_t new_size)
{
    (void)ud;
    if (new_size == 0) {
        free(ptr);
        return NULL;
    }
    return realloc(ptr, new_size);
}

static hydae_alloc_fn alloc_fn = default_alloc;
static void *alloc_ud;

void hydae_set_allocator(hydae_alloc_fn fn, void *ud)
{
    alloc_fn = fn ? fn : default_alloc;
    alloc_ud = fn ? ud : NULL;
}

void hydae_get_allocator(hydae_alloc_fn *fn, void **ud)
{
    if (fn)
        *fn = alloc_fn;
    if (ud)
        *ud = alloc_ud;
}

void *hy_malloc(size_t size)
{
    return alloc_fn(alloc_ud, NULL, size > 0 ? size : 1);
}

void *hy_calloc(size_t n, size_t size)
{
    size_t bytes;
    if (hy_mul_size(n, size, &bytes))
        return NULL;
    void *block = hy_malloc(bytes);
    if (block)
        memset(block, 0, bytes);
    return block;
}

void *hy_realloc(void *ptr, size_t size)
{
    return alloc_fn(alloc_ud, ptr, size > 0 ? size : 1);
}

void hy_free(void *ptr)
{
    if (ptr)
        alloc_fn(alloc_ud, ptr, 0);
}

int hy_reserve(void **items, int *cap, int need, size_t elem_size)
{
    if (need <= *cap)
        return 0;
    int new_cap = *cap > 0 ? *cap : 4;
    while (new_cap < need)
        new_cap = new_cap > INT_MAX / 2 ? INT_MAX : 2 * new_cap;
    size_t bytes;
    if (hy_mul_size((size_t)new_cap, elem_size, &bytes))
        return -1;
    void *grown = hy_realloc(*items, bytes);
    if (!grown)
        return -1;
    *items = grown;
    *cap = new_cap;
    return 0;
}

void *hy_alloc_array(size_t n, size_t size)
{
    size_t bytes;
    if (hy_mul_size(n, size, &bytes))
        return NULL;
    return hy_malloc(bytes > 0 ? bytes : 1);
}

char *hy_strdup(const char *s)
{
    size_t len = strlen(s) + 1;
    char *copy = hy_malloc(len);
    if (copy)
        memcpy(copy, s, len);
    return copy;
}

void hy_format(char *buf, size_t size, const char *fmt, ...)
{
    va_list args;
    va_start(args, fmt);
    vsnprintf(buf, size, fmt, args);
    va_end(args);
}

double hy_time_tol(double t)
{
    return 1e-12 * fmax(1.0, fabs(t));
}
