/* SPDX-License-Identifier: Apache-2.0 */
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
 *  (v)   each touch phase through the default chain on its own: BEGAN, MOVED
 *        and ENDED of one touch are timed event by event (clock_gettime
 *        around each ng_event_submit); the cost of an empty interval (the
 *        timer itself, its own figure) is subtracted from each.
 *  (vi)  a BEGAN+ENDED pair with 10, 100, 1,000 and 10,000 flat sibling
 *        views (children of one window, tiling it), empty chain, the touch
 *        cycling over 64 fixed points spread over the window.
 *  (vii) push+finish pair (as (i), source 0, no clock advance) at stack depth
 *        1, 1,000 and 4,000, with the empty chain and the default chain.
 *  (viii) a MOVED event (as (iii), empty chain) with 0, 10, 100 and 1,000
 *        live holds whose mask (NG_MASK_KEY) does not cover touches.
 *  (ix) the flight recorder on (the default chain, as (iv)): a moved event,
 *        a began+ended pair and a push+finish pair, recording to a writer
 *        that keeps nothing, to a file (/dev/null) and into a ring; what each
 *        adds over recording off is printed beside issue 21's targets.
 *  (x)  a controller button press: NG_BUTTON_A down then up, as the SDL2
 *        adapter submits a game controller's button (NG_EVENT_REMOTE, the
 *        controller's instance id in touch_id, the button in code, no target
 *        view, the event's timestamp in ts) through the default chain, in the
 *        context of (iv) (touch 1 live); as a ratio to the floor per event.
 * (v)-(viii) pick their iteration count so that a run lasts about 30 ms.
 *
 * Allocation: malloc/calloc/realloc/memalign/posix_memalign/aligned_alloc are
 * interposed by this executable (bench_alloc.h), so the calls made by
 * libnavguard and the plugins during a measured loop are counted; mallinfo2()
 * gives the heap-in-use delta over 1e6 moved events.
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

#include "bench_measure.h"
#include "bench_alloc.h"   /* the malloc family interposed, allocs_per_op */

/* ------------------------------------------------------------------------ */
/* Helpers                                                                   */
/* ------------------------------------------------------------------------ */

static void check_at(ng_context *ctx, ng_status got, ng_status want, const char *call, int line) {
    if (got == want) return;
    fprintf(stderr, "navguard_bench.c:%d: %s returned %s, expected %s\n  ng_errmsg: %s\n", line, call,
            ng_strstatus(got), ng_strstatus(want), ctx ? ng_errmsg(ctx) : "-");
    exit(1);
}
#define CHECK(ctx, call) check_at((ctx), (call), NG_OK, #call, __LINE__)

/* Iterations for a run of about RUN_NS: grows a trial run until it lasts
 * at least 2 ms, then scales. */
#define RUN_NS 30e6
static long calibrate(bench_fn fn, void *state) {
    long it = 4;
    for (;;) {
        int64_t t0 = mono_ns();
        fn(state, it);
        double dt = (double)(mono_ns() - t0);
        if (dt >= 2e6 || it >= (1L << 24)) {
            double n = (double)it * RUN_NS / (dt > 1 ? dt : 1);
            return n < 4 ? 4 : (long)n;
        }
        it *= 4;
    }
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
    { NG_PLUGIN_DESCRIPTOR_ABI, .id = "org.navguard.bench.trivial" #n, .name = "trivial" #n,    \
      .version = "1.0", .description = "bench: allows every event", .create = tg_create,      \
      .destroy = tg_destroy, .on_event = tg_event_##n }

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
    bool scoped;          /* requests name the screen they come from (from_screen) */
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
    if (st->scoped) {
        push.from_screen = 1;   /* the root, on top when the push applies */
        pop.from_screen = 2;    /* the pushed screen */
    }
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

/* A trace writer that keeps nothing: what recording costs, without a disk. */
static uint64_t g_trace_bytes;
static bool discard_trace(void *user, const char *data, size_t len) {
    (void)user;
    (void)data;
    g_trace_bytes += len;
    return true;
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

/* (x) A controller's A button pressed and released: the down begins a press
 * (PressTable), the up ends it. Controller 3, as SDL numbers a third pad. */
static void bench_button_pair(void *state, long iters) {
    ctx_state *st = state;
    ng_event e = NG_EVENT_INIT(NG_EVENT_REMOTE);
    e.touch_id = 3;
    e.code = NG_BUTTON_A;
    /* The adapter's timestamp is on the context's clock: one reading. */
    CHECK(st->ctx, ng_now(st->ctx, &e.timestamp_ns));
    ng_event_result r = NG_EVENT_RESULT_INIT;
    uint64_t delivered = 0;
    for (long i = 0; i < iters; i++) {
        e.phase = NG_KEY_DOWN;
        CHECK(st->ctx, ng_event_submit(st->ctx, &e, &r));
        delivered += r.verdict == NG_VERDICT_DELIVER;
        e.phase = NG_KEY_UP;
        CHECK(st->ctx, ng_event_submit(st->ctx, &e, &r));
        delivered += r.verdict == NG_VERDICT_DELIVER;
    }
    if (delivered != 2 * (uint64_t)iters) {
        fprintf(stderr, "bench: %" PRIu64 " of %ld button downs/ups delivered\n", delivered, 2 * iters);
        exit(1);
    }
}

/* ------------------------------------------------------------------------ */
/* (v) touch phases one by one                                               */
/* ------------------------------------------------------------------------ */

/* The timer's own share of a timed interval: t1 - t0 with nothing between. */
static double timer_interval_ns(long iters) {
    int64_t sum = 0;
    for (long i = 0; i < iters; i++) {
        int64_t t0 = mono_ns();
        int64_t t1 = mono_ns();
        sum += t1 - t0;
    }
    return (double)sum / (double)iters;
}

typedef struct {
    ng_context *ctx;
    int64_t ns[3];        /* BEGAN, MOVED, ENDED: time summed over the last run */
    uint64_t allocs[3];   /* likewise, while allocations are counted */
} phase_state;

/* Touch 2 on the first button (view 10), as bench_began_ended, with a move. */
static void bench_phases(void *state, long iters) {
    phase_state *st = state;
    ng_event e = NG_EVENT_INIT(NG_EVENT_TOUCH);
    e.touch_id = 2;
    e.y = 20.0;
    ng_event_result r[3] = { NG_EVENT_RESULT_INIT, NG_EVENT_RESULT_INIT, NG_EVENT_RESULT_INIT };
    static const int32_t phases[3] = { NG_TOUCH_BEGAN, NG_TOUCH_MOVED, NG_TOUCH_ENDED };
    memset(st->ns, 0, sizeof st->ns);
    memset(st->allocs, 0, sizeof st->allocs);
    for (long i = 0; i < iters; i++) {
        for (int k = 0; k < 3; k++) {
            e.phase = phases[k];
            e.x = 20.0 + (double)k;
            uint64_t a0 = g_allocs;
            int64_t t0 = mono_ns();
            ng_status s = ng_event_submit(st->ctx, &e, &r[k]);
            int64_t t1 = mono_ns();
            st->allocs[k] += g_allocs - a0;
            st->ns[k] += t1 - t0;
            CHECK(st->ctx, s);
        }
        if (r[0].verdict != NG_VERDICT_DELIVER || r[1].verdict != NG_VERDICT_DELIVER ||
            r[2].verdict != NG_VERDICT_DELIVER || r[0].target_view != 10) {
            fprintf(stderr, "bench: touch phases not delivered to view 10 (%d %d %d, view %" PRIu64 ")\n",
                    r[0].verdict, r[1].verdict, r[2].verdict, r[0].target_view);
            exit(1);
        }
    }
}

/* ------------------------------------------------------------------------ */
/* (vi) flat siblings                                                        */
/* ------------------------------------------------------------------------ */

typedef struct {
    ng_context *ctx;
    double px[64], py[64];
    int64_t began_ns;     /* bench_sibling_began: BEGAN time summed over the last run */
} sib_state;

/* A 1024 x 768 window (view 1) tiled by `n` children of equal order (views
 * 100...), about as many columns as rows scaled to the window. */
static void make_siblings(sib_state *st, int n) {
    st->ctx = make_ctx(false);
    ng_view w = NG_VIEW_INIT;
    w.id = 1;
    w.frame.width = 1024;
    w.frame.height = 768;
    CHECK(st->ctx, ng_view_set(st->ctx, &w));
    int cols = 1;
    while (cols * cols * 3 < n * 4) cols++;
    int rows = (n + cols - 1) / cols;
    double cw = 1024.0 / cols, ch = 768.0 / rows;
    for (int i = 0; i < n; i++) {
        ng_view b = NG_VIEW_INIT;
        b.id = (uint64_t)(100 + i);
        b.parent = 1;
        b.frame.x = cw * (i % cols);
        b.frame.y = ch * (i / cols);
        b.frame.width = cw;
        b.frame.height = ch;
        CHECK(st->ctx, ng_view_set(st->ctx, &b));
    }
    /* Points over the filled rows (a fixed LCG): every one hits a child. */
    uint32_t seed = 12345u;
    int full_rows = n / cols;
    for (int k = 0; k < 64; k++) {
        seed = seed * 1664525u + 1013904223u;
        st->px[k] = (double)(seed >> 8) / 16777216.0 * 1024.0;
        seed = seed * 1664525u + 1013904223u;
        st->py[k] = (double)(seed >> 8) / 16777216.0 * (ch * full_rows);
    }
}

static void bench_sibling_pair(void *state, long iters) {
    sib_state *st = state;
    ng_event e = NG_EVENT_INIT(NG_EVENT_TOUCH);
    e.touch_id = 2;
    ng_event_result r = NG_EVENT_RESULT_INIT;
    uint64_t delivered = 0, missed = 0;
    for (long i = 0; i < iters; i++) {
        e.x = st->px[i & 63];
        e.y = st->py[i & 63];
        e.phase = NG_TOUCH_BEGAN;
        CHECK(st->ctx, ng_event_submit(st->ctx, &e, &r));
        delivered += r.verdict == NG_VERDICT_DELIVER;
        missed += r.target_view < 100;
        e.phase = NG_TOUCH_ENDED;
        CHECK(st->ctx, ng_event_submit(st->ctx, &e, &r));
        delivered += r.verdict == NG_VERDICT_DELIVER;
    }
    if (delivered != 2 * (uint64_t)iters || missed) {
        fprintf(stderr, "bench: %" PRIu64 " of %ld sibling began/ended delivered, %" PRIu64 " missed a child\n",
                delivered, 2 * iters, missed);
        exit(1);
    }
}

/* The same pair with the BEGAN alone timed (as (v)). */
static void bench_sibling_began(void *state, long iters) {
    sib_state *st = state;
    ng_event e = NG_EVENT_INIT(NG_EVENT_TOUCH);
    e.touch_id = 2;
    ng_event_result r = NG_EVENT_RESULT_INIT;
    st->began_ns = 0;
    for (long i = 0; i < iters; i++) {
        e.x = st->px[i & 63];
        e.y = st->py[i & 63];
        e.phase = NG_TOUCH_BEGAN;
        int64_t t0 = mono_ns();
        ng_status s = ng_event_submit(st->ctx, &e, &r);
        int64_t t1 = mono_ns();
        st->began_ns += t1 - t0;
        CHECK(st->ctx, s);
        e.phase = NG_TOUCH_ENDED;
        CHECK(st->ctx, ng_event_submit(st->ctx, &e, &r));
    }
}

/* ------------------------------------------------------------------------ */
/* (vii) push+finish at depth                                                */
/* ------------------------------------------------------------------------ */

/* A stack of `depth` screens (the root and depth - 1 pushed without
 * animation, ids 1000...), then the chain. */
static ng_context *make_deep(size_t depth, bool default_chain) {
    ng_context *ctx = make_ctx(true);
    ng_request push = NG_REQUEST_INIT(NG_REQ_PUSH);
    push.screen.route = "deep";
    ng_request_result r = NG_REQUEST_RESULT_INIT;
    for (size_t i = 1; i < depth; i++) {
        push.screen.id = 1000 + i;
        CHECK(ctx, ng_request_submit(ctx, &push, &r));
        if (r.status != NG_OUTCOME_APPLIED) {
            fprintf(stderr, "bench: push %zu not applied: %s\n", i, ng_outcome_name(r.status));
            exit(1);
        }
    }
    size_t n = 0;
    CHECK(ctx, ng_stack_count(ctx, &n));
    if (n != depth) {
        fprintf(stderr, "bench: stack depth %zu, expected %zu\n", n, depth);
        exit(1);
    }
    if (default_chain) CHECK(ctx, ng_chain_configure(ctx, NULL));
    return ctx;
}

static void bench_push_finish_src0(void *state, long iters) {
    ctx_state *st = state;
    ng_context *ctx = st->ctx;
    ng_request push = NG_REQUEST_INIT(NG_REQ_PUSH);
    push.flags = NG_REQF_ANIMATED;
    push.screen.id = 2;
    push.screen.route = "item";
    ng_request pop = NG_REQUEST_INIT(NG_REQ_POP);
    pop.flags = NG_REQF_ANIMATED;
    ng_request_result r1 = NG_REQUEST_RESULT_INIT, r2 = NG_REQUEST_RESULT_INIT;
    for (long i = 0; i < iters; i++) {
        CHECK(ctx, ng_request_submit(ctx, &push, &r1));
        CHECK(ctx, ng_transition_finish(ctx, NG_TRACK_ALL));
        CHECK(ctx, ng_request_submit(ctx, &pop, &r2));
        CHECK(ctx, ng_transition_finish(ctx, NG_TRACK_ALL));
        if (r1.status != NG_OUTCOME_APPLIED || r2.status != NG_OUTCOME_APPLIED) {
            fprintf(stderr, "bench: push/pop not applied: %s / %s (%s)\n", ng_outcome_name(r1.status),
                    ng_outcome_name(r2.status), r1.guard_id ? r1.guard_id : r2.guard_id ? r2.guard_id : "core");
            exit(1);
        }
    }
}

/* ------------------------------------------------------------------------ */

int main(void) {
    setvbuf(stdout, NULL, _IOLBF, 0);
    printf("navguard_bench: NavGuard %s, median of %d runs (after a warm-up run), CLOCK_MONOTONIC\n",
           ng_version_string(), RUNS);
    printf("plugin dir: %s\n\n", ng_plugin_dir());

    const long N_REQ = 100000, N_EV = 1000000, N_TICK = 1000000;
    char allocs[4096] = "";
    size_t al = 0;
#define ALLOC_NOTE(label, fn, st, it, per)                                                    \
    al += (size_t)snprintf(allocs + al, sizeof allocs - al, "  %-44s %8.3f allocations/op\n", label, \
                           allocs_per_op(fn, st, it, per))

    /* (i) push+finish, empty chain */
    ctx_state s1 = { make_ctx(false), false, 0, false };
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

    ctx_state s0 = { make_ctx(false), false, 0, false };
    add_views(s0.ctx);
    begin_touch(&s0);
    figure *fempty = measure("(iii) moved, empty chain, 50 views", bench_moved, &s0, N_EV, 1.0);
    measure("(iii) began+ended pair, empty chain", bench_began_ended, &s0, N_EV / 2, 1.0);
    CHECK(s0.ctx, ng_context_destroy(s0.ctx));

    ctx_state s3 = { make_ctx(false), false, 0, false };
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
    ctx_state s4 = { make_ctx(false), false, 0, false };
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
    figure *fbtn = measure("(x)   button A down+up pair, default chain", bench_button_pair, &s4, N_EV / 2, 1.0);
    snprintf(fbtn->note, sizeof fbtn->note, "x%.2f floor (2 events)", fbtn->median / (2 * ffloor->median));
    double btn_allocs = allocs_per_op(bench_button_pair, &s4, N_EV / 10, 1.0);
    al += (size_t)snprintf(allocs + al, sizeof allocs - al, "  %-44s %8.3f allocations/op\n",
                           "(x)   button A down+up pair, default chain", btn_allocs);
    measure("(iv)  ng_tick, nothing due, default chain", bench_tick, &s4, N_TICK, 1.0);
    ALLOC_NOTE("(iv)  ng_tick, nothing due, default chain", bench_tick, &s4, N_TICK / 10, 1.0);
    CHECK(s4.ctx, ng_context_destroy(s4.ctx));

    ctx_state s5 = { make_ctx(true), true, 0, false };
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
    /* The same requests, each scoped to the screen it comes from. */
    s5.scoped = true;
    figure *fds = measure("(iv)  push+finish pair, default chain, scoped", bench_push_finish, &s5, N_REQ / 2, 2.0);
    snprintf(fds->note, sizeof fds->note, "%+.1f ns per pair over unscoped", fds->median - fdr->median);
    ALLOC_NOTE("(iv)  push+finish pair, default chain, scoped", bench_push_finish, &s5, N_REQ / 20, 2.0);
    CHECK(s5.ctx, ng_context_destroy(s5.ctx));

    /* (v) touch phases one by one, default chain */
    double tv[RUNS];
    timer_interval_ns(N_EV / 10);
    for (int r = 0; r < RUNS; r++) tv[r] = timer_interval_ns(N_EV);
    figure *ftimer = record("(v)   timer: empty interval (subtracted)", tv, 0.0);
    phase_state ps = { make_ctx(false), { 0, 0, 0 }, { 0, 0, 0 } };
    figure *fphase[3] = { NULL, NULL, NULL };
    CHECK(ps.ctx, ng_chain_configure(ps.ctx, NULL));
    add_views(ps.ctx);
    {
        ctx_state live = { ps.ctx, false, 0, false };
        begin_touch(&live);   /* touch 1 stays live on view 34, as in (iv) */
        long it = calibrate(bench_phases, &ps) / 3;
        double v[3][RUNS];
        bench_phases(&ps, it / 10 > 0 ? it / 10 : 1);
        for (int r = 0; r < RUNS; r++) {
            bench_phases(&ps, it);
            for (int k = 0; k < 3; k++) v[k][r] = (double)ps.ns[k] / (double)it;
        }
        static const char *names[3] = { "(v)   touch BEGAN, default chain", "(v)   touch MOVED, default chain",
                                        "(v)   touch ENDED, default chain" };
        g_allocs = 0;
        g_counting = 1;
        bench_phases(&ps, it / 10 > 0 ? it / 10 : 1);
        g_counting = 0;
        long ait = it / 10 > 0 ? it / 10 : 1;
        for (int k = 0; k < 3; k++) {
            figure *f = record(names[k], v[k], ftimer->median);
            fphase[k] = f;
            snprintf(f->note, sizeof f->note, "x%.2f floor, %.3f allocs/op", f->median / ffloor->median,
                     (double)ps.allocs[k] / (double)ait);
            al += (size_t)snprintf(allocs + al, sizeof allocs - al, "  %-44s %8.3f allocations/op\n", names[k],
                                   (double)ps.allocs[k] / (double)ait);
        }
    }
    CHECK(ps.ctx, ng_context_destroy(ps.ctx));

    /* (vi) flat siblings, empty chain */
    static const int sib_n[4] = { 10, 100, 1000, 10000 };
    figure *fsib[4];
    double sib_began[4];
    for (int k = 0; k < 4; k++) {
        sib_state ss;
        make_siblings(&ss, sib_n[k]);
        char name[64];
        snprintf(name, sizeof name, "(vi)  began+ended pair, %d siblings", sib_n[k]);
        long it = calibrate(bench_sibling_pair, &ss);
        fsib[k] = measure(name, bench_sibling_pair, &ss, it, 1.0);
        double bv[RUNS];
        bench_sibling_began(&ss, it / 10 > 0 ? it / 10 : 1);
        for (int r = 0; r < RUNS; r++) {
            bench_sibling_began(&ss, it);
            bv[r] = (double)ss.began_ns / (double)it;
        }
        qsort(bv, RUNS, sizeof bv[0], cmp_double);
        sib_began[k] = bv[RUNS / 2] - ftimer->median;
        snprintf(fsib[k]->note, sizeof fsib[k]->note, "BEGAN alone %.1f (as (v))", sib_began[k]);
        ALLOC_NOTE(name, bench_sibling_pair, &ss, it / 10 > 0 ? it / 10 : 1, 2.0);
        CHECK(ss.ctx, ng_context_destroy(ss.ctx));
    }

    /* (vii) push+finish pair at depth, empty and default chain */
    static const size_t depths[3] = { 1, 1000, 4000 };
    figure *fdepth[2][3];
    for (int c = 0; c < 2; c++) {
        for (int k = 0; k < 3; k++) {
            ctx_state ds = { make_deep(depths[k], c == 1), false, 0, false };
            char name[64];
            snprintf(name, sizeof name, "(vii) push+finish pair, depth %zu, %s", depths[k], c ? "default" : "empty");
            long it = calibrate(bench_push_finish_src0, &ds);
            fdepth[c][k] = measure(name, bench_push_finish_src0, &ds, it, 2.0);
            ALLOC_NOTE(name, bench_push_finish_src0, &ds, it / 10 > 0 ? it / 10 : 1, 2.0);
            CHECK(ds.ctx, ng_context_destroy(ds.ctx));
        }
    }

    /* (viii) moved with live holds that do not block touches */
    ctx_state hs = { make_ctx(false), false, 0, false };
    add_views(hs.ctx);
    begin_touch(&hs);
    static const int nholds[4] = { 0, 10, 100, 1000 };
    figure *fholds[4];
    int live_holds = 0;
    for (int k = 0; k < 4; k++) {
        for (; live_holds < nholds[k]; live_holds++) {
            uint64_t tok = 0;
            CHECK(hs.ctx, ng_hold_begin(hs.ctx, "bench", NG_MASK_KEY, 0, &tok));
        }
        char name[64];
        snprintf(name, sizeof name, "(viii) moved, %d key holds, empty chain", nholds[k]);
        long it = calibrate(bench_moved, &hs);
        fholds[k] = measure(name, bench_moved, &hs, it, 1.0);
        if (k == 3) ALLOC_NOTE(name, bench_moved, &hs, it / 10 > 0 ? it / 10 : 1, 1.0);
    }
    CHECK(hs.ctx, ng_context_destroy(hs.ctx));

    /* (ix) the flight recorder on: the default chain as in (iv), recording
     * through a writer that keeps nothing (the cost of recording, not of a
     * disk), to a file (/dev/null: the formatting and the write calls), and
     * into a ring; beside the same figures with recording off. */
    figure *frec[3][3];
    /* What recording adds: each recorded row runs alternately with the same
     * work not recorded (measure_added), and the difference is the median
     * of the paired runs' (the (iv) rows above were measured minutes earlier). */
    double added[3][3];
    static const char *const rec_names[3] = { "writer", "file", "ring" };
    for (int m = 0; m < 3; m++) {
        ctx_state rs = { make_ctx(false), false, 0, false }, rs_off = { make_ctx(false), false, 0, false };
        CHECK(rs.ctx, ng_chain_configure(rs.ctx, NULL));
        CHECK(rs_off.ctx, ng_chain_configure(rs_off.ctx, NULL));
        add_views(rs.ctx);
        add_views(rs_off.ctx);
        ng_record_options ro = NG_RECORD_OPTIONS_INIT;
        if (m == 0) {
            ro.write = discard_trace;
        } else if (m == 1) {
            ro.path = "/dev/null";
        } else {
            ro.ring_records = 100000;
        }
        CHECK(rs.ctx, ng_record_start(rs.ctx, &ro));
        begin_touch(&rs);
        begin_touch(&rs_off);
        char name[64];
        snprintf(name, sizeof name, "(ix)  moved, default chain, recording (%s)", rec_names[m]);
        frec[m][0] = measure_added(name, bench_moved, &rs_off, &rs, N_EV, 1.0, &added[m][0]);
        snprintf(frec[m][0]->note, sizeof frec[m][0]->note, "%+.1f ns over recording off", added[m][0]);
        ALLOC_NOTE(name, bench_moved, &rs, N_EV / 10, 1.0);
        snprintf(name, sizeof name, "(ix)  began+ended pair, recording (%s)", rec_names[m]);
        frec[m][1] = measure_added(name, bench_began_ended, &rs_off, &rs, N_EV / 2, 1.0, &added[m][1]);
        snprintf(frec[m][1]->note, sizeof frec[m][1]->note, "%+.1f ns over recording off", added[m][1]);
        ALLOC_NOTE(name, bench_began_ended, &rs, N_EV / 10, 1.0);
        CHECK(rs.ctx, ng_context_destroy(rs.ctx));
        CHECK(rs_off.ctx, ng_context_destroy(rs_off.ctx));

        ctx_state rq = { make_ctx(true), true, 0, false }, rq_off = { make_ctx(true), true, 0, false };
        CHECK(rq.ctx, ng_chain_configure(rq.ctx, NULL));
        CHECK(rq_off.ctx, ng_chain_configure(rq_off.ctx, NULL));
        CHECK(rq.ctx, ng_record_start(rq.ctx, &ro));
        snprintf(name, sizeof name, "(ix)  push+finish pair, recording (%s)", rec_names[m]);
        frec[m][2] = measure_added(name, bench_push_finish, &rq_off, &rq, N_REQ / 2, 2.0, &added[m][2]);
        snprintf(frec[m][2]->note, sizeof frec[m][2]->note, "%+.1f ns per request over recording off", added[m][2]);
        ALLOC_NOTE(name, bench_push_finish, &rq, N_REQ / 20, 2.0);
        CHECK(rq.ctx, ng_context_destroy(rq.ctx));
        CHECK(rq_off.ctx, ng_context_destroy(rq_off.ctx));
    }
    printf("(recording wrote %" PRIu64 " bytes to the writer)\n", g_trace_bytes);

    /* Issue 27's figures: ratios to the floor measured in this run, so that
     * a loaded or slower machine compares like with like. */
    snprintf(fempty->note, sizeof fempty->note, "x%.2f floor", fempty->median / ffloor->median);

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
    /* Issue 10's targets: every touch phase through the default chain at or
     * under 88 ns; a began with 1,000 flat siblings at most twice its cost
     * with 10; a push as cheap at depth 4,000 as at depth 1 (within 20 %). */
    static const char *const phase_names[3] = { "BEGAN", "MOVED", "ENDED" };
    for (int k = 0; k < 3; k++)
        printf("touch %s through the default chain: %.1f ns (target <= 88 ns)\n", phase_names[k], fphase[k]->median);
    printf("ratio began+ended pair, 1,000 / 10 siblings:   %.1f / %.1f = %.2f (10,000 / 10: %.2f)\n",
           fsib[2]->median, fsib[0]->median, fsib[2]->median / fsib[0]->median, fsib[3]->median / fsib[0]->median);
    printf("ratio BEGAN alone, 1,000 / 10 siblings:         %.1f / %.1f = %.2f (target <= 2; 10,000 / 10: %.2f)\n",
           sib_began[2], sib_began[0], sib_began[2] / sib_began[0], sib_began[3] / sib_began[0]);
    for (int c = 0; c < 2; c++)
        printf("ratio push+finish pair, depth 4,000 / 1, %-7s %.1f / %.1f = %.2f (target <= 1.2)\n",
               c ? "default:" : "empty:", fdepth[c][2]->median, fdepth[c][0]->median,
               fdepth[c][2]->median / fdepth[c][0]->median);
    /* Issue 21's targets: what recording adds, beside recording off in this
     * run. A began+ended pair is two events; a push+finish pair is one
     * request (with its finish). */
    /* Issue 27's targets, as ratios to the floor of this run. */
    double fl = ffloor->median;
    printf("\nratios to the floor (%.1f ns, this run):\n", fl);
    printf("  moved, empty chain, 50 views           %5.2f (target <= 1.5; 0.2.0: 1.33)\n", fempty->median / fl);
    printf("  moved, 5 trivial C guards              %5.2f (target <= 2.5; 0.2.0: 2.26)\n", fmoved->median / fl);
    printf("  moved, default chain (%zu guards)        %5.2f (target <= 2.5; 0.2.0: 5)\n", nguards, fdm->median / fl);
    printf("  moved, 1,000 / 0 key holds             %5.2f (target <= 1.1)\n", fholds[3]->median / fholds[0]->median);
    printf("  touch BEGAN / MOVED / ENDED, default   %5.2f / %5.2f / %5.2f\n", fphase[0]->median / fl,
           fphase[1]->median / fl, fphase[2]->median / fl);
    /* A button's down and up take the default chain's votes as a touch's
     * began and ended do, without the hit test, plus the press table: per
     * event no dearer than a touch of the began+ended pair (iv). */
    printf("  button A down+up, default (per event)  %5.2f (target <= %.2f, the touch began+ended pair's (iv)); "
           "%.3f allocations per pair (target 0)\n",
           fbtn->median / (2 * fl), fdp->median / (2 * fl), btn_allocs);
    printf("\nflight recorder, added over recording off, and as a ratio to the floor (targets: ring <= 2.4x per\n"
           "moved event and <= 24x per request; file and writer <= 100 ns per event, amortised; 0 allocations\n"
           "per call in every mode, below):\n");
    for (int m = 0; m < 3; m++) {
        double moved = added[m][0];
        double pair = added[m][1] / 2;
        double request = added[m][2];
        printf("  %-7s moved %+7.1f ns = %5.2fx (target <= %s), began/ended %+7.1f ns = %5.2fx per event, "
               "request %+8.1f ns = %6.2fx (target <= %s)\n",
               rec_names[m], moved, moved / fl, m == 2 ? "2.4x" : "100 ns", pair, pair / fl, request, request / fl,
               m == 2 ? "24x" : "-");
    }
    printf("\nallocations (malloc family calls made during one measured loop, per op):\n%s", allocs);
    printf("  heap in use across 1e6 moved events (mallinfo2 uordblks+hblkhd delta): %lld bytes\n", heap_delta);
    printf("  (callbacks: %" PRIu64 " outcomes, %" PRIu64 " transition events seen)\n", g_outcomes, g_transitions);
    printf("\nbench: %d figures\n", g_nfig);
    return 0;
}
