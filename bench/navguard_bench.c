/*
 * navguard_bench — NavGuard's costs next to a C floor, through the public
 * header only. Every figure is the median of RUNS timed runs (after one
 * untimed warm-up run), timed with clock_gettime(CLOCK_MONOTONIC). Nothing
 * here asserts a time: the program prints figures, and fails only when a
 * NavGuard call returns an unexpected status.
 *
 *  (i)   push+finish with an empty chain: an animated push then
 *        ng_transition_finish(ALL), and a pop + finish to keep the stack
 *        bounded; each push+finish (or pop+finish) counts as one pair.
 *  (ii)  ng_tick with nothing due (empty chain, and the default chain).
 *  (iii) input through a chain of 5 trivial C guards (ng_chain_add, defined
 *        here) on a 50-view tree: a touch MOVED, and a BEGAN+ENDED pair; next
 *        to the floor: the same 64-byte ng_event through the same 5 C hook
 *        functions called through function pointers.
 *  (iv)  the default chain of dlopen'd built-ins (ng_chain_configure(ctx,
 *        NULL)): a MOVED event, a BEGAN+ENDED pair and a push+finish pair.
 *        The throttle guard refuses a request closer than 300 ms to the
 *        previous one from the same source, so this context uses a manual
 *        clock advanced by 301 ms before each request (ng_clock_advance is
 *        inside the timed loop; its own cost is measured as a figure).
 *
 * Allocation: malloc/calloc/realloc/memalign/posix_memalign/aligned_alloc are
 * interposed by this executable (forwarding to glibc's __libc_* functions),
 * so the calls made by libnavguard and the plugins during a measured loop are
 * counted; mallinfo2() gives the heap-in-use delta over 1e6 moved events.
 */
#define _GNU_SOURCE 1   /* mallinfo2, __libc_* prototypes are declared below */
#include <navguard/navguard.h>
#include <navguard/plugin.h>

#include <inttypes.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define RUNS 7
#define MAX_FIGURES 32

/* ------------------------------------------------------------------------ */
/* Allocation counting (interposition of the malloc family)                  */
/* ------------------------------------------------------------------------ */

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);
extern void __libc_free(void *);

static volatile int g_counting = 0;
static uint64_t g_allocs = 0;

void *malloc(size_t n) {
    if (g_counting) g_allocs++;
    return __libc_malloc(n);
}
void *calloc(size_t a, size_t b) {
    if (g_counting) g_allocs++;
    return __libc_calloc(a, b);
}
void *realloc(void *p, size_t n) {
    if (g_counting) g_allocs++;
    return __libc_realloc(p, n);
}
void free(void *p) { __libc_free(p); }
void *memalign(size_t al, size_t n) {
    if (g_counting) g_allocs++;
    return __libc_memalign(al, n);
}
void *aligned_alloc(size_t al, size_t n) {
    if (g_counting) g_allocs++;
    return __libc_memalign(al, n);
}
int posix_memalign(void **out, size_t al, size_t n) {
    if (g_counting) g_allocs++;
    void *p = __libc_memalign(al, n);
    if (!p) return 12; /* ENOMEM */
    *out = p;
    return 0;
}

/* ------------------------------------------------------------------------ */
/* Helpers                                                                   */
/* ------------------------------------------------------------------------ */

static int64_t mono_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void check_at(ng_context *ctx, ng_status got, ng_status want, const char *call, int line) {
    if (got == want) return;
    fprintf(stderr, "navguard_bench.c:%d: %s returned %s, expected %s\n  ng_errmsg: %s\n", line, call,
            ng_strstatus(got), ng_strstatus(want), ctx ? ng_errmsg(ctx) : "-");
    exit(1);
}
#define CHECK(ctx, call) check_at((ctx), (call), NG_OK, #call, __LINE__)

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

/* Run `fn(state, iters)` once untimed, then RUNS times timed; record ns per
 * op (elapsed / (iters * ops_per_iter)). */
typedef void (*bench_fn)(void *state, long iters);

static figure *measure(const char *name, bench_fn fn, void *state, long iters, double ops_per_iter) {
    double v[RUNS];
    fn(state, iters / 10 > 0 ? iters / 10 : 1);
    for (int r = 0; r < RUNS; r++) {
        int64_t t0 = mono_ns();
        fn(state, iters);
        int64_t t1 = mono_ns();
        v[r] = (double)(t1 - t0) / ((double)iters * ops_per_iter);
    }
    qsort(v, RUNS, sizeof v[0], cmp_double);
    figure *f = &g_fig[g_nfig++];
    snprintf(f->name, sizeof f->name, "%s", name);
    f->median = v[RUNS / 2];
    f->min = v[0];
    f->max = v[RUNS - 1];
    f->runs = RUNS;
    f->unit = "ns";
    f->note[0] = '\0';
    return f;
}

/* Allocations per op over one run of `iters`. */
static double allocs_per_op(bench_fn fn, void *state, long iters, double ops_per_iter) {
    g_allocs = 0;
    g_counting = 1;
    fn(state, iters);
    g_counting = 0;
    return (double)g_allocs / ((double)iters * ops_per_iter);
}

/* ------------------------------------------------------------------------ */
/* Five trivial C guards, and the floor                                      */
/* ------------------------------------------------------------------------ */

typedef struct { uint64_t seen; } trivial_guard;

static void *tg_create(const ng_guard_host *host, const char *config) {
    (void)host;
    (void)config;
    return calloc(1, sizeof(trivial_guard));
}
static void tg_destroy(void *inst) { free(inst); }

/* The cheap check: an event type out of range would be dropped. */
#define TRIVIAL_HOOK(n)                                                                     \
    __attribute__((noinline)) static ng_vote tg_event_##n(void *inst, const ng_guard_event *ge, \
                                                          ng_verdict *v) {                  \
        trivial_guard *g = inst;                                                            \
        g->seen++;                                                                          \
        if ((uint32_t)ge->event->type >= NG_EVENT_TYPE_COUNT) {                             \
            v->reason = NG_REASON_POLICY;                                                   \
            return NG_VOTE_REFUSE;                                                          \
        }                                                                                   \
        return NG_VOTE_ALLOW;                                                               \
    }
TRIVIAL_HOOK(1)
TRIVIAL_HOOK(2)
TRIVIAL_HOOK(3)
TRIVIAL_HOOK(4)
TRIVIAL_HOOK(5)

#define TRIVIAL_DESC(n)                                                                     \
    { NG_PLUGIN_ABI_MAJOR, NG_PLUGIN_ABI_MINOR, sizeof(ng_plugin_descriptor),              \
      "org.navguard.bench.trivial" #n, "trivial" #n, "1.0", "bench: allows every event",   \
      tg_create, tg_destroy, NULL, tg_event_##n, NULL, NULL, NULL, NULL, NULL, NULL, NULL }

static const ng_plugin_descriptor trivial_desc[5] = {
    TRIVIAL_DESC(1), TRIVIAL_DESC(2), TRIVIAL_DESC(3), TRIVIAL_DESC(4), TRIVIAL_DESC(5),
};

typedef ng_vote (*event_hook)(void *, const ng_guard_event *, ng_verdict *);
/* volatile: the compiler cannot see which functions are called */
static event_hook volatile floor_hooks[5] = { tg_event_1, tg_event_2, tg_event_3, tg_event_4, tg_event_5 };
static trivial_guard floor_inst[5];
static volatile uint64_t g_sink;

typedef struct { ng_event ev; } floor_state;

__attribute__((noinline)) static void bench_floor(void *state, long iters) {
    floor_state *st = state;
    uint64_t delivered = 0;
    for (long i = 0; i < iters; i++) {
        st->ev.x = (double)(i & 255);
        ng_guard_event ge = { sizeof ge, 0u, &st->ev, 7u };
        ng_verdict v = { sizeof v, NG_REASON_NONE, NULL };
        int ok = 1;
        for (int k = 0; k < 5; k++) {
            if (floor_hooks[k](&floor_inst[k], &ge, &v) != NG_VOTE_ALLOW) { ok = 0; break; }
        }
        delivered += (uint64_t)ok;
    }
    g_sink = delivered;
}

/* ------------------------------------------------------------------------ */
/* Contexts                                                                  */
/* ------------------------------------------------------------------------ */

static uint64_t g_outcomes, g_transitions;
static void d_outcome(void *u, ng_context *c, const ng_outcome *o) { (void)u; (void)c; (void)o; g_outcomes++; }
static void d_transition(void *u, ng_context *c, const ng_transition_event *e) { (void)u; (void)c; (void)e; g_transitions++; }

static ng_context *make_ctx(bool manual) {
    ng_options o = NG_OPTIONS_INIT;
    o.clock = manual ? NG_CLOCK_MANUAL : NG_CLOCK_MONOTONIC;
    o.manual_start_ns = manual ? 1000000000LL : 0;
    o.delegate.on_outcome = d_outcome;
    o.delegate.on_transition = d_transition;
    ng_context *ctx = NULL;
    CHECK(NULL, ng_context_create(&o, &ctx));
    ng_screen root = { 1, "home", NULL };
    CHECK(ctx, ng_stack_set_root(ctx, &root));
    return ctx;
}

/* A 50-view tree: the window and 49 buttons in a 7 x 7 grid. */
static void add_views(ng_context *ctx) {
    ng_view w = NG_VIEW_INIT;
    w.id = 1;
    w.frame.width = 1024;
    w.frame.height = 768;
    CHECK(ctx, ng_view_set(ctx, &w));
    for (int i = 0; i < 49; i++) {
        ng_view b = NG_VIEW_INIT;
        b.id = (uint64_t)(10 + i);
        b.parent = 1;
        b.frame.x = 10.0 + 140.0 * (i % 7);
        b.frame.y = 10.0 + 105.0 * (i / 7);
        b.frame.width = 120;
        b.frame.height = 90;
        b.order = i;
        CHECK(ctx, ng_view_set(ctx, &b));
    }
}

/* the point inside button 24 (middle of the grid) */
#define BTN_X (10.0 + 140.0 * 3 + 60.0)
#define BTN_Y (10.0 + 105.0 * 3 + 45.0)

typedef struct {
    ng_context *ctx;
    bool manual;          /* advance the clock 301 ms before each request */
    uint64_t touch_id;
} ctx_state;

static void bench_push_finish(void *state, long iters) {
    ctx_state *st = state;
    ng_context *ctx = st->ctx;
    ng_request push = NG_REQUEST_INIT(NG_REQ_PUSH);
    push.flags = NG_REQF_ANIMATED;
    push.source = 1;
    push.screen.id = 2;
    push.screen.route = "item";
    ng_request pop = NG_REQUEST_INIT(NG_REQ_POP);
    pop.flags = NG_REQF_ANIMATED;
    pop.source = 1;
    ng_request_result r = NG_REQUEST_RESULT_INIT;
    for (long i = 0; i < iters; i++) {
        if (st->manual) CHECK(ctx, ng_clock_advance(ctx, 301000000LL));
        CHECK(ctx, ng_request_submit(ctx, &push, &r));
        if (r.status != NG_OUTCOME_APPLIED) {
            fprintf(stderr, "bench: push not applied: %s %s (%s)\n", ng_outcome_name(r.status),
                    ng_reason_name(r.reason), r.guard_id ? r.guard_id : "core");
            exit(1);
        }
        CHECK(ctx, ng_transition_finish(ctx, NG_TRACK_ALL));
        if (st->manual) CHECK(ctx, ng_clock_advance(ctx, 301000000LL));
        CHECK(ctx, ng_request_submit(ctx, &pop, &r));
        if (r.status != NG_OUTCOME_APPLIED) {
            fprintf(stderr, "bench: pop not applied: %s %s\n", ng_outcome_name(r.status), ng_reason_name(r.reason));
            exit(1);
        }
        CHECK(ctx, ng_transition_finish(ctx, NG_TRACK_ALL));
    }
}

static void bench_tick(void *state, long iters) {
    ctx_state *st = state;
    for (long i = 0; i < iters; i++) CHECK(st->ctx, ng_tick(st->ctx));
}

static void bench_clock_advance(void *state, long iters) {
    ctx_state *st = state;
    for (long i = 0; i < iters; i++) CHECK(st->ctx, ng_clock_advance(st->ctx, 1));
}

/* Begin one touch on the middle button (kept live for the moved loop). */
static void begin_touch(ctx_state *st) {
    ng_event e = NG_EVENT_INIT(NG_EVENT_TOUCH);
    e.phase = NG_TOUCH_BEGAN;
    e.touch_id = 1;
    e.x = BTN_X;
    e.y = BTN_Y;
    ng_event_result r = NG_EVENT_RESULT_INIT;
    CHECK(st->ctx, ng_event_submit(st->ctx, &e, &r));
    if (r.verdict != NG_VERDICT_DELIVER || r.target_view != 34) {
        fprintf(stderr, "bench: began not delivered to view 34 (verdict %d, view %" PRIu64 ")\n", r.verdict,
                r.target_view);
        exit(1);
    }
}

static void bench_moved(void *state, long iters) {
    ctx_state *st = state;
    ng_event e = NG_EVENT_INIT(NG_EVENT_TOUCH);
    e.phase = NG_TOUCH_MOVED;
    e.touch_id = 1;
    e.y = BTN_Y;
    ng_event_result r = NG_EVENT_RESULT_INIT;
    uint64_t delivered = 0;
    for (long i = 0; i < iters; i++) {
        e.x = BTN_X + (double)(i & 15);
        CHECK(st->ctx, ng_event_submit(st->ctx, &e, &r));
        delivered += r.verdict == NG_VERDICT_DELIVER;
    }
    if (delivered != (uint64_t)iters) {
        fprintf(stderr, "bench: %" PRIu64 " of %ld moved events delivered\n", delivered, iters);
        exit(1);
    }
}

/* On the first button (view 10): touch 1 stays live on view 34, and a
 * second touch on a view with multiple touch off would be withheld. */
static void bench_began_ended(void *state, long iters) {
    ctx_state *st = state;
    ng_event e = NG_EVENT_INIT(NG_EVENT_TOUCH);
    e.x = 20.0;
    e.y = 20.0;
    ng_event_result r = NG_EVENT_RESULT_INIT;
    uint64_t delivered = 0;
    for (long i = 0; i < iters; i++) {
        e.touch_id = 2;
        e.phase = NG_TOUCH_BEGAN;
        CHECK(st->ctx, ng_event_submit(st->ctx, &e, &r));
        delivered += r.verdict == NG_VERDICT_DELIVER;
        e.phase = NG_TOUCH_ENDED;
        CHECK(st->ctx, ng_event_submit(st->ctx, &e, &r));
        delivered += r.verdict == NG_VERDICT_DELIVER;
    }
    if (delivered != 2 * (uint64_t)iters) {
        fprintf(stderr, "bench: %" PRIu64 " of %ld began/ended delivered\n", delivered, 2 * iters);
        exit(1);
    }
}

/* ------------------------------------------------------------------------ */

int main(void) {
    setvbuf(stdout, NULL, _IOLBF, 0);
    printf("navguard_bench: NavGuard %s, median of %d runs (after a warm-up run), CLOCK_MONOTONIC\n",
           ng_version_string(), RUNS);
    printf("plugin dir: %s\n\n", ng_plugin_dir());

    const long N_REQ = 100000, N_EV = 1000000, N_TICK = 1000000;
    char allocs[1024] = "";
    size_t al = 0;
#define ALLOC_NOTE(label, fn, st, it, per)                                                    \
    al += (size_t)snprintf(allocs + al, sizeof allocs - al, "  %-44s %8.3f allocations/op\n", label, \
                           allocs_per_op(fn, st, it, per))

    /* (i) push+finish, empty chain */
    ctx_state s1 = { make_ctx(false), false, 0 };
    measure("(i)   push+finish pair, empty chain", bench_push_finish, &s1, N_REQ, 2.0);
    ALLOC_NOTE("(i)   push+finish pair, empty chain", bench_push_finish, &s1, N_REQ / 10, 2.0);

    /* (ii) tick with nothing due */
    measure("(ii)  ng_tick, nothing due, empty chain", bench_tick, &s1, N_TICK, 1.0);
    ALLOC_NOTE("(ii)  ng_tick, nothing due, empty chain", bench_tick, &s1, N_TICK / 10, 1.0);
    CHECK(s1.ctx, ng_context_destroy(s1.ctx));

    /* (iii) 5 trivial C guards on a 50-view tree, and the floor */
    floor_state fs;
    memset(&fs, 0, sizeof fs);
    ng_event e0 = NG_EVENT_INIT(NG_EVENT_TOUCH);
    fs.ev = e0;
    fs.ev.phase = NG_TOUCH_MOVED;
    fs.ev.touch_id = 1;
    figure *ffloor = measure("(iii) floor: event via 5 C fn pointers", bench_floor, &fs, N_EV * 10, 1.0);

    ctx_state s0 = { make_ctx(false), false, 0 };
    add_views(s0.ctx);
    begin_touch(&s0);
    figure *fempty = measure("(iii) moved, empty chain, 50 views", bench_moved, &s0, N_EV, 1.0);
    measure("(iii) began+ended pair, empty chain", bench_began_ended, &s0, N_EV / 2, 1.0);
    CHECK(s0.ctx, ng_context_destroy(s0.ctx));

    ctx_state s3 = { make_ctx(false), false, 0 };
    for (int i = 0; i < 5; i++) CHECK(s3.ctx, ng_chain_add(s3.ctx, &trivial_desc[i], NULL));
    add_views(s3.ctx);
    begin_touch(&s3);
    figure *fmoved = measure("(iii) moved, 5 trivial C guards", bench_moved, &s3, N_EV, 1.0);
    snprintf(fmoved->note, sizeof fmoved->note, "x%.2f floor", fmoved->median / ffloor->median);
    ALLOC_NOTE("(iii) moved, 5 trivial C guards", bench_moved, &s3, N_EV, 1.0);
    figure *fpair = measure("(iii) began+ended pair, 5 trivial C guards", bench_began_ended, &s3, N_EV / 2, 1.0);
    snprintf(fpair->note, sizeof fpair->note, "x%.2f floor (2 events)", fpair->median / (2 * ffloor->median));
    ALLOC_NOTE("(iii) began+ended pair, 5 trivial C guards", bench_began_ended, &s3, N_EV / 10, 1.0);

    /* heap in use across 1e6 moved events */
    struct mallinfo2 m0 = mallinfo2();
    bench_moved(&s3, 1000000);
    struct mallinfo2 m1 = mallinfo2();
    long long heap_delta = (long long)(m1.uordblks + m1.hblkhd) - (long long)(m0.uordblks + m0.hblkhd);
    CHECK(s3.ctx, ng_context_destroy(s3.ctx));

    /* (iv) the default chain of dlopen'd built-ins */
    ctx_state s4 = { make_ctx(false), false, 0 };
    ng_status st = ng_chain_configure(s4.ctx, NULL);
    if (st != NG_OK) {
        fprintf(stderr, "ng_chain_configure(ctx, NULL) failed: %s\n  ng_errmsg: %s\n  plugin dir: %s\n",
                ng_strstatus(st), ng_errmsg(s4.ctx), ng_plugin_dir());
        return 1;
    }
    size_t nguards = 0;
    CHECK(s4.ctx, ng_chain_count(s4.ctx, &nguards));
    add_views(s4.ctx);
    begin_touch(&s4);
    figure *fdm = measure("(iv)  moved, default chain", bench_moved, &s4, N_EV, 1.0);
    snprintf(fdm->note, sizeof fdm->note, "x%.2f floor, %zu guards", fdm->median / ffloor->median, nguards);
    ALLOC_NOTE("(iv)  moved, default chain", bench_moved, &s4, N_EV, 1.0);
    figure *fdp = measure("(iv)  began+ended pair, default chain", bench_began_ended, &s4, N_EV / 2, 1.0);
    snprintf(fdp->note, sizeof fdp->note, "x%.2f floor (2 events)", fdp->median / (2 * ffloor->median));
    ALLOC_NOTE("(iv)  began+ended pair, default chain", bench_began_ended, &s4, N_EV / 10, 1.0);
    measure("(iv)  ng_tick, nothing due, default chain", bench_tick, &s4, N_TICK, 1.0);
    ALLOC_NOTE("(iv)  ng_tick, nothing due, default chain", bench_tick, &s4, N_TICK / 10, 1.0);
    CHECK(s4.ctx, ng_context_destroy(s4.ctx));

    ctx_state s5 = { make_ctx(true), true, 0 };
    st = ng_chain_configure(s5.ctx, NULL);
    if (st != NG_OK) {
        fprintf(stderr, "ng_chain_configure(ctx, NULL) failed: %s\n  ng_errmsg: %s\n", ng_strstatus(st),
                ng_errmsg(s5.ctx));
        return 1;
    }
    figure *fdr = measure("(iv)  push+finish pair, default chain", bench_push_finish, &s5, N_REQ / 2, 2.0);
    snprintf(fdr->note, sizeof fdr->note, "manual clock, +1 ng_clock_advance");
    ALLOC_NOTE("(iv)  push+finish pair, default chain", bench_push_finish, &s5, N_REQ / 20, 2.0);
    measure("      ng_clock_advance (manual clock)", bench_clock_advance, &s5, N_TICK, 1.0);
    CHECK(s5.ctx, ng_context_destroy(s5.ctx));

    /* the table */
    printf("%-44s %10s %10s %10s %5s  %s\n", "figure", "median ns", "min", "max", "runs", "note");
    printf("%-44s %10s %10s %10s %5s  %s\n", "--------------------------------------------", "----------",
           "----------", "----------", "-----", "----");
    for (int i = 0; i < g_nfig; i++) {
        figure *f = &g_fig[i];
        printf("%-44s %10.1f %10.1f %10.1f %5d  %s\n", f->name, f->median, f->min, f->max, f->runs, f->note);
    }
    /* The targets: <= 100 ns per moved event through 5 guards, and the
     * guard chain's own cost (5 guards minus the empty chain) within 2x the floor. */
    printf("\nmoved event through 5 guards: %.1f ns (target <= 100 ns)\n", fmoved->median);
    printf("guard-chain cost (5 guards - empty chain) / floor: %.1f / %.1f = %.2f (target <= 2)\n",
           fmoved->median - fempty->median, ffloor->median, (fmoved->median - fempty->median) / ffloor->median);
    printf("ratio whole moved event, 5 trivial C guards / floor: %.2f\n", fmoved->median / ffloor->median);
    printf("ratio default chain / floor (moved event, %zu built-ins):     %.2f\n", nguards, fdm->median / ffloor->median);
    printf("\nallocations (malloc family calls made during one measured loop, per op):\n%s", allocs);
    printf("  heap in use across 1e6 moved events (mallinfo2 uordblks+hblkhd delta): %lld bytes\n", heap_delta);
    printf("  (callbacks: %" PRIu64 " outcomes, %" PRIu64 " transition events seen)\n", g_outcomes, g_transitions);
    printf("\nbench: %d figures\n", g_nfig);
    return 0;
}
