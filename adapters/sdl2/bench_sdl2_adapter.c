/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench_sdl2_adapter — the SDL2 adapter's cost per SDL event, next to the
 * submit it feeds. Every figure is ns per SDL event, the median of RUNS timed
 * runs after one untimed warm-up run (clock_gettime(CLOCK_MONOTONIC)), as in
 * bench/navguard_bench.c. Nothing asserts a time; the program fails only when
 * a call returns an unexpected status or verdict.
 *
 * Events are pre-built SDL_Event structs (no SDL queue in the timed loop):
 *  - a mouse MOVED (motion with the left button down, after a delivered down),
 *  - a DOWN+UP pair (the left button; 2 events per pair),
 *  - a key DOWN+UP pair (2 events per pair: since 0.4 a key has a life, and
 *    a down on a key still down is a lost up that ends the old press first,
 *    so a stream of downs alone would time that recovery, not a key).
 * Each is measured (a) through ng_sdl2_convert only, (b) through
 * ng_sdl2_submit with the default chain (ng_chain_configure(ctx, NULL)) and
 * (c) with an empty chain; (d) ng_event_submit of the already converted
 * event, default chain, shows what the adapter adds. (b)-(d) use a manual
 * clock so that no time-based rule changes between runs; (a) is shown with
 * both clocks, since stamping an event reads the context's clock (ng_now).
 * (e) is SDL's own cost for the same event: SDL_PushEvent + SDL_PollEvent.
 */
#define _POSIX_C_SOURCE 200809L
#include "navguard_sdl2.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_measure.h" /* bench/: RUNS, measure(), figures */

static void fail(const char *what, ng_context *ctx, ng_status st) {
    fprintf(stderr, "bench_sdl2_adapter: %s: %s\n  ng_errmsg: %s\n", what, ng_strstatus(st),
            ctx ? ng_errmsg(ctx) : "-");
    exit(1);
}

/* ------------------------------------------------------------------------ */
/* State and events                                                          */
/* ------------------------------------------------------------------------ */

typedef struct {
    ng_sdl2 a;
    SDL_Event down, up, moved, key, keyup;
    ng_event moved_ng;          /* the converted MOVED, for (d) */
    volatile int64_t sink;      /* keeps converted events alive */
} bench_state;

static SDL_Event button(Uint32 type, Sint32 x, Sint32 y) {
    SDL_Event e;
    memset(&e, 0, sizeof e);
    e.type = type;
    e.button.timestamp = SDL_GetTicks();
    e.button.windowID = 1;
    e.button.button = SDL_BUTTON_LEFT;
    e.button.state = type == SDL_MOUSEBUTTONDOWN ? SDL_PRESSED : SDL_RELEASED;
    e.button.clicks = 1;
    e.button.x = x;
    e.button.y = y;
    return e;
}

/* A context with a manual clock, a full-window view and optionally the
 * default chain, and the adapter on it. */
static void setup(bench_state *s, bool default_chain, ng_clock_kind clock) {
    memset(s, 0, sizeof *s);
    ng_options o = NG_OPTIONS_INIT;
    o.clock = clock;
    o.manual_start_ns = 1000000000LL;
    ng_context *ctx = NULL;
    ng_status st = ng_context_create(&o, &ctx);
    if (st != NG_OK) fail("ng_context_create", NULL, st);
    if (default_chain) {
        st = ng_chain_configure(ctx, NULL);
        if (st != NG_OK) {
            fprintf(stderr,
                    "bench_sdl2_adapter: the default chain did not load: %s\n  ng_errmsg: %s\n"
                    "  plugin dir: %s\n  (build the plugins, or set NAVGUARD_PLUGIN_DIR to the directory of "
                    "watchdog.so, throttle.so, ...)\n",
                    ng_strstatus(st), ng_errmsg(ctx), ng_plugin_dir());
            exit(1);
        }
    }
    ng_view v = NG_VIEW_INIT;
    v.id = 1;
    v.frame = (ng_rect){ 0, 0, 800, 600 };
    if ((st = ng_view_set(ctx, &v)) != NG_OK) fail("ng_view_set", ctx, st);
    if ((st = ng_sdl2_init(&s->a, ctx, NULL)) != NG_OK) fail("ng_sdl2_init", ctx, st);
    /* The key figures measure a press; Escape would also send a Back. */
    memset(s->a.back_keys, 0, sizeof s->a.back_keys);

    s->down = button(SDL_MOUSEBUTTONDOWN, 100, 100);
    s->up = button(SDL_MOUSEBUTTONUP, 110, 100);
    memset(&s->moved, 0, sizeof s->moved);
    s->moved.type = SDL_MOUSEMOTION;
    s->moved.motion.timestamp = SDL_GetTicks();
    s->moved.motion.windowID = 1;
    s->moved.motion.state = SDL_BUTTON_LMASK;
    s->moved.motion.x = 105;
    s->moved.motion.y = 100;
    s->moved.motion.xrel = 1;
    memset(&s->key, 0, sizeof s->key);
    s->key.type = SDL_KEYDOWN;
    s->key.key.timestamp = SDL_GetTicks();
    s->key.key.windowID = 1;
    s->key.key.state = SDL_PRESSED;
    s->key.key.keysym.sym = SDLK_ESCAPE;
    s->key.key.keysym.scancode = SDL_SCANCODE_ESCAPE;
    s->keyup = s->key;
    s->keyup.type = SDL_KEYUP;
    s->keyup.key.state = SDL_RELEASED;
}

static void teardown(bench_state *s) {
    ng_status st = ng_context_destroy(s->a.ctx);
    if (st != NG_OK) fail("ng_context_destroy", NULL, st);
}

/* Put the mouse down (delivered) so that motion is a MOVED of a live touch. */
static void press(bench_state *s) {
    ng_sdl2_input in;
    ng_status st = ng_sdl2_submit(&s->a, &s->down, &in);
    if (st != NG_OK) fail("submit(down)", s->a.ctx, st);
    if (!in.mapped || in.result.verdict != NG_VERDICT_DELIVER) {
        fprintf(stderr, "bench_sdl2_adapter: the down was not delivered (mapped %d, %s)\n", (int)in.mapped,
                ng_reason_name(in.result.reason));
        exit(1);
    }
    s->moved_ng = in.event;
    s->moved_ng.phase = NG_TOUCH_MOVED;
}

/* ------------------------------------------------------------------------ */
/* Loops                                                                     */
/* ------------------------------------------------------------------------ */

static void expect_mapped(bool mapped, const char *what) {
    if (!mapped) {
        fprintf(stderr, "bench_sdl2_adapter: %s was not converted\n", what);
        exit(1);
    }
}

static void convert_moved(void *p, long iters) {
    bench_state *s = p;
    ng_event e;
    int64_t acc = 0;
    for (long i = 0; i < iters; i++) {
        expect_mapped(ng_sdl2_convert(&s->a, &s->moved, &e), "MOVED");
        acc += e.timestamp_ns;
    }
    s->sink = acc;
}

static void convert_pair(void *p, long iters) {
    bench_state *s = p;
    ng_event e;
    int64_t acc = 0;
    for (long i = 0; i < iters; i++) {
        expect_mapped(ng_sdl2_convert(&s->a, &s->down, &e), "DOWN");
        acc += e.timestamp_ns;
        expect_mapped(ng_sdl2_convert(&s->a, &s->up, &e), "UP");
        acc += e.timestamp_ns;
    }
    s->sink = acc;
}

static void convert_key(void *p, long iters) {
    bench_state *s = p;
    ng_event e;
    int64_t acc = 0;
    for (long i = 0; i < iters; i++) {
        expect_mapped(ng_sdl2_convert(&s->a, &s->key, &e), "key");
        acc += e.timestamp_ns;
    }
    s->sink = acc;
}

static inline void submit(bench_state *s, const SDL_Event *e, const char *what) {
    ng_sdl2_input in;
    ng_status st = ng_sdl2_submit(&s->a, e, &in);
    if (st != NG_OK) fail(what, s->a.ctx, st);
    if (!in.mapped || in.result.verdict != NG_VERDICT_DELIVER) {
        fprintf(stderr, "bench_sdl2_adapter: %s not delivered (mapped %d, reason %s, guard %s)\n", what,
                (int)in.mapped, ng_reason_name(in.result.reason), in.result.guard_id ? in.result.guard_id : "-");
        exit(1);
    }
}

static void submit_moved(void *p, long iters) {
    bench_state *s = p;
    for (long i = 0; i < iters; i++) submit(s, &s->moved, "MOVED");
}

static void submit_pair(void *p, long iters) {
    bench_state *s = p;
    for (long i = 0; i < iters; i++) {
        submit(s, &s->down, "DOWN");
        submit(s, &s->up, "UP");
    }
}

static void submit_key(void *p, long iters) {
    bench_state *s = p;
    for (long i = 0; i < iters; i++) {
        submit(s, &s->key, "key down");
        submit(s, &s->keyup, "key up");
    }
}

static void sdl_queue(void *p, long iters) {
    bench_state *s = p;
    SDL_Event e;
    for (long i = 0; i < iters; i++) {
        SDL_PushEvent(&s->moved);
        /* As a host's loop: poll until empty (SDL ends a batch with its poll
         * sentinel, so that is 2 polls). */
        int got = 0;
        while (SDL_PollEvent(&e)) got += e.type == SDL_MOUSEMOTION;
        if (got != 1) {
            fprintf(stderr, "bench_sdl2_adapter: SDL's queue lost an event\n");
            exit(1);
        }
    }
}

static void submit_converted_moved(void *p, long iters) {
    bench_state *s = p;
    for (long i = 0; i < iters; i++) {
        ng_event_result r = NG_EVENT_RESULT_INIT;
        ng_status st = ng_event_submit(s->a.ctx, &s->moved_ng, &r);
        if (st != NG_OK || r.verdict != NG_VERDICT_DELIVER) fail("ng_event_submit(MOVED)", s->a.ctx, st);
    }
}

/* ------------------------------------------------------------------------ */

int main(void) {
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (SDL_Init(SDL_INIT_EVENTS) != 0) {
        fprintf(stderr, "bench_sdl2_adapter: SDL_Init(SDL_INIT_EVENTS): %s\n", SDL_GetError());
        return 1;
    }
    SDL_version v;
    SDL_GetVersion(&v);
    printf("bench_sdl2_adapter: NavGuard %s, SDL %d.%d.%d, ns per SDL event, median of %d runs (after a warm-up "
           "run)\n",
           ng_version_string(), v.major, v.minor, v.patch, RUNS);
    printf("plugin dir: %s\n\n", ng_plugin_dir());

    const long N_CONV = 2000000, N_SUB = 400000;
    bench_state *s = malloc(sizeof *s);
    if (!s) return 1;

    /* (a) conversion only */
    static const struct { ng_clock_kind clock; const char *note; } clocks[] = {
        { NG_CLOCK_MANUAL, "manual clock" }, { NG_CLOCK_MONOTONIC, "monotonic clock" } };
    for (int c = 0; c < 2; c++) {
        setup(s, false, clocks[c].clock);
        s->a.mouse_down = true; /* motion with the button down converts to MOVED */
        snprintf(measure("(a) convert: mouse MOVED", convert_moved, s, N_CONV, 1.0)->note, 64, "%s",
                 clocks[c].note);
        s->a.mouse_down = false;
        snprintf(measure("(a) convert: DOWN+UP pair (per event)", convert_pair, s, N_CONV / 2, 2.0)->note, 64,
                 "%s", clocks[c].note);
        snprintf(measure("(a) convert: key down", convert_key, s, N_CONV, 1.0)->note, 64, "%s", clocks[c].note);
        teardown(s);
    }

    /* (b) convert + submit, default chain */
    setup(s, true, NG_CLOCK_MANUAL);
    size_t nguards = 0;
    ng_chain_count(s->a.ctx, &nguards);
    press(s);
    figure *bm = measure("(b) submit, default chain: mouse MOVED", submit_moved, s, N_SUB, 1.0);
    figure *dm = measure("(d) ng_event_submit only, default: MOVED", submit_converted_moved, s, N_SUB, 1.0);
    snprintf(dm->note, sizeof dm->note, "adapter adds %.1f ns", bm->median - dm->median);
    ng_sdl2_input in;
    ng_sdl2_submit(&s->a, &s->up, &in);
    figure *bp = measure("(b) submit, default chain: DOWN+UP (per event)", submit_pair, s, N_SUB / 2, 2.0);
    figure *bk = measure("(b) submit, default chain: key DOWN+UP (per event)", submit_key, s, N_SUB / 2, 2.0);
    snprintf(bm->note, sizeof bm->note, "%zu guards", nguards);
    snprintf(bp->note, sizeof bp->note, "%zu guards", nguards);
    snprintf(bk->note, sizeof bk->note, "%zu guards", nguards);
    teardown(s);

    /* (c) convert + submit, empty chain */
    setup(s, false, NG_CLOCK_MANUAL);
    press(s);
    measure("(c) submit, empty chain: mouse MOVED", submit_moved, s, N_SUB, 1.0);
    ng_sdl2_submit(&s->a, &s->up, &in);
    measure("(c) submit, empty chain: DOWN+UP (per event)", submit_pair, s, N_SUB / 2, 2.0);
    measure("(c) submit, empty chain: key DOWN+UP (per event)", submit_key, s, N_SUB / 2, 2.0);
    teardown(s);

    /* (e) SDL's queue, for scale */
    setup(s, false, NG_CLOCK_MANUAL);
    measure("(e) SDL_PushEvent + SDL_PollEvent: motion", sdl_queue, s, N_SUB, 1.0);
    teardown(s);

    printf("%-48s %10s %10s %10s  %s\n", "figure (ns per SDL event)", "median", "min", "max", "note");
    printf("%-48s %10s %10s %10s  %s\n", "------------------------------------------------", "----------",
           "----------", "----------", "----");
    for (int i = 0; i < g_nfig; i++) {
        figure *f = &g_fig[i];
        printf("%-48s %10.1f %10.1f %10.1f  %s\n", f->name, f->median, f->min, f->max, f->note);
    }
    printf("\nbench_sdl2_adapter: %d figures\n", g_nfig);
    free(s);
    SDL_Quit();
    return 0;
}
