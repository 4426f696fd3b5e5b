/*
** Core utilities shared by every module: status messages, checked
** allocation, growable arrays, formatted messages into fixed buffers.
*/
#ifndef HY_CORE_H
#define HY_CORE_H

#include <limits.h> /* (glibc: defines __GLIBC__ for HY_VECTOR_CLONES) */
#include <stddef.h>
#include <stdint.h>

/* A function with loops over the components compiled twice, for AVX2 and
** for the baseline, the copy chosen at load time (GCC's target_clones on
** glibc x86-64; nothing elsewhere). No FMA: both copies round alike.
** Only on static functions (an exported one puts its resolver among the
** library's symbols). Not under ThreadSanitizer or AddressSanitizer: the
** load-time resolver is instrumented too and runs before the sanitizer's
** runtime is set up (a SIGSEGV at start in the TSan build). */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) \
    && defined(__GLIBC__) && !defined(HYDAE_NO_CLONES) && !defined(__SANITIZE_THREAD__) \
    && !defined(__SANITIZE_ADDRESS__)
#define HY_VECTOR_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define HY_VECTOR_CLONES
#endif

#if defined(__GNUC__)
#define HY_PRINTF(fmt_index, first_arg) \
    __attribute__((format(printf, fmt_index, first_arg)))
#else
#define HY_PRINTF(fmt_index, first_arg)
#endif

/* Make room for `need` elements in *items (capacity *cap, element size
** elem_size). 0, or -1 when out of memory or when the capacity would pass
** INT_MAX or SIZE_MAX bytes (*items unchanged). */
int hy_reserve(void **items, int *cap, int need, size_t elem_size);

/* *out = a * b. 0, or -1 (and *out = SIZE_MAX) when the product does not
** fit in a size_t: every size that is a product goes through this (or
** hy_mul3_size), so no count of elements wraps around to a small one. */
static inline int hy_mul_size(size_t a, size_t b, size_t *out)
{
    if (b != 0 && a > SIZE_MAX / b) {
        *out = SIZE_MAX;
        return -1;
    }
    *out = a * b;
    return 0;
}

/* *out = a + b, checked the same way. */
static inline int hy_add_size(size_t a, size_t b, size_t *out)
{
    if (b > SIZE_MAX - a) {
        *out = SIZE_MAX;
        return -1;
    }
    *out = a + b;
    return 0;
}

/* *out = a * b * c, checked as hy_mul_size. */
static inline int hy_mul3_size(size_t a, size_t b, size_t c, size_t *out)
{
    size_t ab;
    return hy_mul_size(a, b, &ab) || hy_mul_size(ab, c, out) ? (*out = SIZE_MAX, -1) : 0;
}

/* The library's allocation functions: every allocation goes through the
** allocator set by hydae_set_allocator (core.c). hy_malloc / hy_realloc
** never pass a size of 0 to it (0 asks for 1 byte); hy_calloc checks n *
** size and zeroes; hy_free(NULL) does nothing. */
void *hy_malloc(size_t size);
void *hy_calloc(size_t n, size_t size);
void *hy_realloc(void *ptr, size_t size);
void hy_free(void *ptr);

/* call(k) with k the constant equal to value for values 1 .. 8, else
** call(other): kernels whose loop bounds the compiler should know (the
** band solve's widths, the Nordsieck history's degree). */
#define HY_BY_SMALL_CONSTANT(value, call, other)                             \
    switch (value) {                                                         \
    case 1: call(1); break;                                                  \
    case 2: call(2); break;                                                  \
    case 3: call(3); break;                                                  \
    case 4: call(4); break;                                                  \
    case 5: call(5); break;                                                  \
    case 6: call(6); break;                                                  \
    case 7: call(7); break;                                                  \
    case 8: call(8); break;                                                  \
    default: call(other); break;                                             \
    }

/* malloc of n elements of `size` bytes (at least one byte); NULL when out of
** memory or when n * size does not fit in a size_t. */
void *hy_alloc_array(size_t n, size_t size);

/* strdup that returns NULL on out of memory. */
char *hy_strdup(const char *s);

/* snprintf into buf[size]; truncation is silent but always terminated. */
void hy_format(char *buf, size_t size, const char *fmt, ...) HY_PRINTF(3, 4);

/* Time events (and sample ticks) within this of t are the same instant:
** 1e-12 max(1, |t|). A sample period must exceed twice it. */
double hy_time_tol(double t);

#endif
