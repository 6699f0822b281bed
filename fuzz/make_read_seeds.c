/* SPDX-License-Identifier: Apache-2.0 */
/*
 * make_read_seeds.c — writes seeds for fuzz_read (fuzz/corpus-read): real
 * traces and crash dumps of a small session.
 *
 *   make_read_seeds DIR VARIANT
 *
 * VARIANT 0..5 records one short session (a root, pushes, a refused double
 * push, a pop, taps, a hold, a posted request, a view, a snapshot restore,
 * the default chain) on a manual or monotonic clock, in one of the
 * recorder's modes:
 *   0, 1  a file from the context's creation (a replayable trace; 1: the
 *         monotonic clock), DIR/trace-<v>.jsonl
 *   2, 3  the host's write callback, DIR/writer-<v>.jsonl; 3 records from
 *         after the root (a trace started with live state)
 *   4, 5  a ring with NG_RECORD_CRASH_DUMP | NG_RECORD_CRASH_NO_HANDLER of 40
 *         records (4: wraps) or 4096 (5), dumped as a ring trace
 *         (DIR/ring-<v>.jsonl, ng_record_dump) and as a crash dump
 *         (DIR/navguard-<pid>-<ctx>-crash.ngbox, ng_record_crash_dump(SIGSEGV)).
 *
 * Not part of the build: fuzz/README.md says how the corpus was made with it
 * (cc against build/'s libnavguard).
 */
#define _POSIX_C_SOURCE 200809L
#include <navguard/navguard.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MS 1000000LL

static ng_context *g;
static FILE *g_out;

static void ok(ng_status st, const char *what) {
    if (st != NG_OK) {
        fprintf(stderr, "make_read_seeds: %s: %s (%s)\n", what, ng_strstatus(st), ng_errmsg(g));
        exit(1);
    }
}

static bool writer(void *user, const char *data, size_t len) {
    (void)user;
    return fwrite(data, 1, len, g_out) == len;
}

static void push(uint64_t id, const char *route, uint32_t flags) {
    ng_request r = NG_REQUEST_INIT(NG_REQ_PUSH);
    r.screen = (ng_screen){ id, route, NULL };
    r.flags = flags;
    ng_request_result res = NG_REQUEST_RESULT_INIT;
    (void)ng_request_submit(g, &r, &res);
}

static void touch(int32_t phase, uint64_t id, double x, double y) {
    ng_event e = NG_EVENT_INIT(NG_EVENT_TOUCH);
    e.phase = phase;
    e.touch_id = id;
    e.x = x;
    e.y = y;
    ng_event_result res = NG_EVENT_RESULT_INIT;
    (void)ng_event_submit(g, &e, &res);
}

static void advance(int64_t ns, bool manual) {
    if (manual) (void)ng_clock_advance(g, ns);
    (void)ng_tick(g);
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: make_read_seeds DIR VARIANT\n");
        return 2;
    }
    const char *dir = argv[1];
    int v = atoi(argv[2]);
    bool manual = v != 1;
    ng_options o = NG_OPTIONS_INIT;
    o.clock = manual ? NG_CLOCK_MANUAL : NG_CLOCK_MONOTONIC;
    o.manual_start_ns = 1000 * MS;
    ok(ng_context_create(&o, &g), "ng_context_create");

    char path[512];
    ng_record_options ro = NG_RECORD_OPTIONS_INIT;
    if (v <= 1) {
        snprintf(path, sizeof path, "%s/trace-%d.jsonl", dir, v);
        ro.path = path;
    } else if (v <= 3) {
        snprintf(path, sizeof path, "%s/writer-%d.jsonl", dir, v);
        g_out = fopen(path, "wb");
        if (!g_out) return 1;
        ro.write = writer;
    } else {
        ro.ring_records = v == 4 ? 40 : 4096;
        ro.dump_dir = dir;
        ro.crash = NG_RECORD_CRASH_DUMP | NG_RECORD_CRASH_NO_HANDLER;
    }
    if (v != 3) ok(ng_record_start(g, &ro), "ng_record_start");
    ok(ng_chain_configure(g, NULL), "ng_chain_configure");
    ng_view view = NG_VIEW_INIT;
    view.id = 7;
    view.frame = (ng_rect){ 0, 0, 800, 600 };
    ok(ng_view_set(g, &view), "ng_view_set");
    ng_screen home = { 1, "home", NULL };
    ok(ng_stack_set_root(g, &home), "ng_stack_set_root");
    if (v == 3) ok(ng_record_start(g, &ro), "ng_record_start");

    push(2, "menu", NG_REQF_ANIMATED);
    push(2, "menu", NG_REQF_ANIMATED);      /* refused: busy, or a duplicate */
    advance(400 * MS, manual);
    (void)ng_transition_finish(g, NG_TRACK_ALL);
    touch(NG_TOUCH_BEGAN, 5, 10, 10);
    touch(NG_TOUCH_MOVED, 5, 12, 10);
    touch(NG_TOUCH_ENDED, 5, 14, 10);
    uint64_t token = 0;
    (void)ng_hold_begin(g, "loading", NG_MASK_TOUCH, 50 * MS, &token);
    push(3, "item", 0);                      /* refused while held */
    advance(60 * MS, manual);                /* the hold times out */
    ng_request post = NG_REQUEST_INIT(NG_REQ_PUSH);
    post.screen = (ng_screen){ 4, "cart", NULL };
    uint64_t posted = 0;
    (void)ng_request_post(g, &post, &posted);
    advance(1 * MS, manual);
    (void)ng_transition_finish(g, NG_TRACK_ALL);
    ng_request pop = NG_REQUEST_INIT(NG_REQ_POP);
    (void)ng_request_submit(g, &pop, NULL);
    advance(1 * MS, manual);
    (void)ng_transition_finish(g, NG_TRACK_ALL);
    for (int i = 0; i < (v == 4 ? 30 : 3); i++) {
        touch(NG_TOUCH_BEGAN, 6, 20, 20);
        touch(NG_TOUCH_ENDED, 6, 20, 20);
        advance(MS, manual);
    }
    char *snap = NULL;
    size_t snap_len = 0;
    if (ng_stack_snapshot(g, &snap, &snap_len) == NG_OK) {
        (void)ng_stack_restore(g, snap, snap_len);
        ng_free(snap);
    }
    (void)ng_screen_set_flags(g, 1, NG_SCREENF_CONFIRM_LEAVE);

    if (v >= 4) {
        snprintf(path, sizeof path, "%s/ring-%d.jsonl", dir, v);
        ok(ng_record_dump(g, path), "ng_record_dump");
        ok(ng_record_crash_dump(SIGSEGV), "ng_record_crash_dump");
        return 0;
    }
    ok(ng_context_destroy(g), "ng_context_destroy");
    if (g_out) fclose(g_out);
    return 0;
}
