/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench_measure.h — how every NavGuard benchmark measures: a figure is the
 * median (with min and max) of RUNS timed runs after one untimed warm-up
 * run, in ns per operation, timed with clock_gettime(CLOCK_MONOTONIC).
 * Included by bench/navguard_bench.c and adapters/sdl2/bench_sdl2_adapter.c
 * so that their figures mean the same. Define MAX_FIGURES before including
 * it to hold more than 64 figures.
 */
#ifndef NAVGUARD_BENCH_MEASURE_H
#define NAVGUARD_BENCH_MEASURE_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define RUNS 7
#ifndef MAX_FIGURES
#define MAX_FIGURES 64
#endif

static int64_t mono_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

typedef struct {
    char name[64];
    double median, min, max;
    int runs;
    const char *unit;
    char note[96];
} figure;

static figure g_fig[MAX_FIGURES];
static int g_nfig = 0;

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Record a figure from RUNS per-op values (sorted here), less `minus` (a
 * measured overhead, e.g. an empty timer interval). */
static figure *record(const char *name, double *v, double minus) {
    if (g_nfig == MAX_FIGURES) {
        fprintf(stderr, "bench: more than MAX_FIGURES (%d) figures\n", MAX_FIGURES);
        exit(1);
    }
    qsort(v, RUNS, sizeof v[0], cmp_double);
    figure *f = &g_fig[g_nfig++];
    snprintf(f->name, sizeof f->name, "%s", name);
    f->median = v[RUNS / 2] - minus;
    f->min = v[0] - minus;
    f->max = v[RUNS - 1] - minus;
    f->runs = RUNS;
    f->unit = "ns";
    f->note[0] = '\0';
    return f;
}

typedef void (*bench_fn)(void *state, long iters);

/* What `on` adds over `off` (the same work with one thing changed, e.g.
 * recording): after a warm-up of each, the two run alternately, RUNS times
 * each, and the figure recorded is `on`'s; `*added` gets the median of the
 * RUNS differences between each `on` run and the `off` run just before it.
 * A machine that slows down while the bench runs then moves both alike,
 * where two figures measured minutes apart would not. */
static figure *measure_added(const char *name, bench_fn fn, void *off, void *on, long iters, double ops_per_iter,
                             double *added) {
    double v[RUNS], d[RUNS];
    long warm = iters / 10 > 0 ? iters / 10 : 1;
    fn(off, warm);
    fn(on, warm);
    for (int r = 0; r < RUNS; r++) {
        int64_t t0 = mono_ns();
        fn(off, iters);
        int64_t t1 = mono_ns();
        fn(on, iters);
        int64_t t2 = mono_ns();
        double per = (double)iters * ops_per_iter;
        v[r] = (double)(t2 - t1) / per;
        d[r] = v[r] - (double)(t1 - t0) / per;
    }
    qsort(d, RUNS, sizeof d[0], cmp_double);
    *added = d[RUNS / 2];
    return record(name, v, 0.0);
}

/* Run `fn(state, iters)` once untimed (iters / 10), then RUNS times timed;
 * record ns per op (elapsed / (iters * ops_per_iter)). */
static figure *measure(const char *name, bench_fn fn, void *state, long iters, double ops_per_iter) {
    double v[RUNS];
    fn(state, iters / 10 > 0 ? iters / 10 : 1);
    for (int r = 0; r < RUNS; r++) {
        int64_t t0 = mono_ns();
        fn(state, iters);
        v[r] = (double)(mono_ns() - t0) / ((double)iters * ops_per_iter);
    }
    return record(name, v, 0.0);
}

#endif
