/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench_alloc.h — allocation counting for the benchmarks: the executable
 * that includes this (in exactly one file) interposes malloc, calloc,
 * realloc, memalign, aligned_alloc and posix_memalign, forwarding to glibc's
 * __libc_* functions, so every call made during a counted run is counted,
 * whoever makes it (libnavguard, the plugins, Qt, SDL; C++'s operator new
 * goes through malloc). Used by bench/navguard_bench.c and
 * adapters/qt6/bench_qt6_adapter.cpp; C and C++.
 */
#ifndef NAVGUARD_BENCH_ALLOC_H
#define NAVGUARD_BENCH_ALLOC_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
#define BENCH_ALLOC_NOEXCEPT noexcept
extern "C" {
#else
#define BENCH_ALLOC_NOEXCEPT
#endif

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);
extern void __libc_free(void *);

static volatile int g_counting = 0;
static uint64_t g_allocs = 0;

void *malloc(size_t n) BENCH_ALLOC_NOEXCEPT {
    if (g_counting) g_allocs++;
    return __libc_malloc(n);
}
void *calloc(size_t a, size_t b) BENCH_ALLOC_NOEXCEPT {
    if (g_counting) g_allocs++;
    return __libc_calloc(a, b);
}
void *realloc(void *p, size_t n) BENCH_ALLOC_NOEXCEPT {
    if (g_counting) g_allocs++;
    return __libc_realloc(p, n);
}
void free(void *p) BENCH_ALLOC_NOEXCEPT { __libc_free(p); }
void *memalign(size_t al, size_t n) BENCH_ALLOC_NOEXCEPT {
    if (g_counting) g_allocs++;
    return __libc_memalign(al, n);
}
void *aligned_alloc(size_t al, size_t n) BENCH_ALLOC_NOEXCEPT {
    if (g_counting) g_allocs++;
    return __libc_memalign(al, n);
}
int posix_memalign(void **out, size_t al, size_t n) BENCH_ALLOC_NOEXCEPT {
    if (g_counting) g_allocs++;
    void *p = __libc_memalign(al, n);
    if (!p) return 12; /* ENOMEM */
    *out = p;
    return 0;
}

#ifdef __cplusplus
}
#endif

/* Allocations per op over one run of `fn(state, iters)` (bench_measure.h's
 * bench_fn). */
static double allocs_per_op(void (*fn)(void *, long), void *state, long iters, double ops_per_iter) {
    g_allocs = 0;
    g_counting = 1;
    fn(state, iters);
    g_counting = 0;
    return (double)g_allocs / ((double)iters * ops_per_iter);
}

#endif
