/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_resting_touch.c — a finger resting on a button, as a C host sees it
 * through navguard.h with the real default chain (dlopen'd built-ins, manual
 * clock; navguard.h "A live touch"):
 *  - held still 15 s, then released: the release is delivered, nothing is
 *    cancelled, nothing is reported;
 *  - in the way (a second finger on the same button refused, multiple touch
 *    off): ng_touch_get's in_way_ns says when, and the watchdog cancels it at
 *    its touch limit counted from its rest, with one report saying why; the
 *    next touch on the button is delivered;
 *  - in the way only after its limit: cancelled at the next tick;
 *  - resting_touch_limit_ms (off by default) cancels any still touch;
 *  - a 0.3-sized ng_touch_info gets no in_way_ns.
 */
#include <navguard/navguard.h>

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MS 1000000LL

#include "check.h"

enum { BUTTON = 42, OTHER_BUTTON = 43 };

typedef struct {
    int touch_cancels;
    uint64_t cancelled_touch;
    int reports;
    char report[8192];
} recorder;

static void on_touch_cancel(void *user, ng_context *ctx, const ng_touch_info *t) {
    recorder *r = user;
    (void)ctx;
    r->touch_cancels++;
    r->cancelled_touch = t->touch_id;
}

static void on_report(void *user, ng_context *ctx, const char *guard_id, const char *text) {
    recorder *r = user;
    (void)ctx;
    (void)guard_id;
    r->reports++;
    snprintf(r->report, sizeof r->report, "%s", text);
}

/* The default chain (its watchdog configured by `edits`, or NULL), home and
 * two buttons side by side. */
static ng_context *kiosk(recorder *r, const char *chain) {
    memset(r, 0, sizeof *r);
    ng_options o = NG_OPTIONS_INIT;
    o.clock = NG_CLOCK_MANUAL;
    o.delegate.user = r;
    o.delegate.on_touch_cancel = on_touch_cancel;
    o.delegate.on_report = on_report;
    ng_context *ctx = NULL;
    if (ng_context_create(&o, &ctx) != NG_OK) { fprintf(stderr, "FATAL: context\n"); exit(1); }
    MUST(ctx, ng_chain_configure(ctx, chain));
    ng_screen home = { 1, "home", NULL };
    MUST(ctx, ng_stack_set_root(ctx, &home));
    for (int i = 0; i < 2; i++) {
        ng_view v = NG_VIEW_INIT;
        v.id = (uint64_t)(BUTTON + i);
        v.frame.x = 300 + 200 * i; v.frame.y = 300; v.frame.width = 100; v.frame.height = 50;
        MUST(ctx, ng_view_set(ctx, &v));
    }
    return ctx;
}

/* A touch phase at a button's middle. */
static ng_event_result touch(ng_context *ctx, int32_t phase, uint64_t id, uint64_t button) {
    ng_event e = NG_EVENT_INIT(NG_EVENT_TOUCH);
    e.phase = phase;
    e.touch_id = id;
    e.x = 350 + 200 * (double)(button - BUTTON);
    e.y = 325;
    ng_event_result r = NG_EVENT_RESULT_INIT;
    MUST(ctx, ng_event_submit(ctx, &e, &r));
    return r;
}

/* The host's loop: tick at every deadline up to `ms` from now. */
static void run_for(ng_context *ctx, int64_t ms) {
    int64_t now = 0, deadline = 0;
    MUST(ctx, ng_now(ctx, &now));
    int64_t end = now + ms * MS;
    for (int i = 0; i < 1000 && ng_next_deadline(ctx, &deadline) == NG_OK && deadline <= end; i++) {
        if (deadline > now) MUST(ctx, ng_clock_set(ctx, now = deadline));
        MUST(ctx, ng_tick(ctx));
    }
    MUST(ctx, ng_clock_set(ctx, end));
    MUST(ctx, ng_tick(ctx));
}

static ng_touch_info live_touch(ng_context *ctx, size_t i) {
    ng_touch_info t = NG_TOUCH_INFO_INIT;
    EXPECT_ST(ctx, ng_touch_get(ctx, i, &t), NG_OK);
    return t;
}

static void held_still_then_released(void) {
    recorder r;
    ng_context *ctx = kiosk(&r, NULL);
    EXPECT(touch(ctx, NG_TOUCH_BEGAN, 1, BUTTON).verdict == NG_VERDICT_DELIVER, "a finger on the button");
    int64_t deadline = 0;
    MUST(ctx, ng_next_deadline(ctx, &deadline));
    EXPECT(deadline == NG_NO_DEADLINE, "a resting finger sets no watchdog deadline (%lld)", (long long)deadline);
    run_for(ctx, 15000);
    EXPECT(r.touch_cancels == 0 && r.reports == 0, "held still 15 s: %d cancels, %d reports", r.touch_cancels, r.reports);
    EXPECT(live_touch(ctx, 0).in_way_ns == 0, "it was in nobody's way");
    ng_event_result up = touch(ctx, NG_TOUCH_ENDED, 1, BUTTON);
    EXPECT(up.verdict == NG_VERDICT_DELIVER && up.target_view == BUTTON, "its release is delivered to the button (it fires)");
    run_for(ctx, 60000);
    EXPECT(r.touch_cancels == 0 && r.reports == 0, "nothing afterwards either");
    MUST(ctx, ng_context_destroy(ctx));
}

static void in_the_way_is_cancelled_at_its_limit(void) {
    recorder r;
    ng_context *ctx = kiosk(&r, NULL);
    touch(ctx, NG_TOUCH_BEGAN, 1, BUTTON);
    run_for(ctx, 3000);
    ng_event_result second = touch(ctx, NG_TOUCH_BEGAN, 2, BUTTON);
    EXPECT(second.verdict == NG_VERDICT_DROP && second.reason == NG_REASON_MULTI_TOUCH,
           "a second finger on the button is refused (multiple touch off): %s", ng_reason_name(second.reason));
    touch(ctx, NG_TOUCH_ENDED, 2, BUTTON);
    ng_touch_info t = live_touch(ctx, 0);
    EXPECT(t.touch_id == 1 && t.in_way_ns == 3000 * MS && t.last_ns == 0, "in_way_ns %lld, last_ns %lld",
           (long long)t.in_way_ns, (long long)t.last_ns);
    int64_t deadline = 0;
    MUST(ctx, ng_next_deadline(ctx, &deadline));
    EXPECT(deadline == 10000 * MS, "the watchdog's deadline: its touch limit from its rest (%lld ms)", (long long)(deadline / MS));
    run_for(ctx, 6999);
    EXPECT(r.touch_cancels == 0, "not before its limit");
    run_for(ctx, 1);
    EXPECT(r.touch_cancels == 1 && r.cancelled_touch == 1, "cancelled at 10 s (%d cancels)", r.touch_cancels);
    EXPECT(r.reports == 1 && strstr(r.report, "recovered 1 stuck item")
           && strstr(r.report, "  touch: 1 on view 42 live for 10000 ms, idle 10000 ms (limit 10000 ms), in the way: "
                               "a touch refused because of it at 3000 ms: cancelled"),
           "one report saying why:\n%s", r.report);
    EXPECT(touch(ctx, NG_TOUCH_BEGAN, 3, BUTTON).verdict == NG_VERDICT_DELIVER, "the next finger on the button works");
    EXPECT(touch(ctx, NG_TOUCH_ENDED, 1, BUTTON).reason == NG_REASON_CANCELLED, "the cancelled touch's late end is dropped");
    MUST(ctx, ng_context_destroy(ctx));
}

static void in_the_way_after_its_limit_is_cancelled_at_once(void) {
    recorder r;
    ng_context *ctx = kiosk(&r, "{\"base\":\"default\",\"edits\":[{\"configure\":\"org.navguard.exclusive-touch\","
                                "\"config\":{\"every_view_exclusive\":true}}]}");
    touch(ctx, NG_TOUCH_BEGAN, 1, BUTTON);
    run_for(ctx, 30000);
    EXPECT(r.touch_cancels == 0 && r.reports == 0, "still 30 s, in nobody's way: left alone");
    ng_event_result other = touch(ctx, NG_TOUCH_BEGAN, 2, OTHER_BUTTON);
    EXPECT(other.verdict == NG_VERDICT_DROP && other.reason == NG_REASON_EXCLUSIVE, "a tap on the other button is refused: %s",
           ng_reason_name(other.reason));
    MUST(ctx, ng_tick(ctx));
    EXPECT(r.touch_cancels == 1 && r.cancelled_touch == 1 && r.reports == 1, "cancelled at the next tick (%d, %d)",
           r.touch_cancels, r.reports);
    touch(ctx, NG_TOUCH_ENDED, 2, OTHER_BUTTON);
    EXPECT(touch(ctx, NG_TOUCH_BEGAN, 3, OTHER_BUTTON).verdict == NG_VERDICT_DELIVER, "the next tap works");
    MUST(ctx, ng_context_destroy(ctx));
}

static void resting_limit_and_sizes(void) {
    recorder r;
    ng_context *ctx = kiosk(&r, "{\"base\":\"default\",\"edits\":[{\"configure\":\"org.navguard.watchdog\","
                                "\"config\":{\"resting_touch_limit_ms\":20000}}]}");
    touch(ctx, NG_TOUCH_BEGAN, 1, BUTTON);
    /* Refused at the manual clock's instant 0: in_way_ns reads 1 ns (0 is "never"). */
    EXPECT(touch(ctx, NG_TOUCH_BEGAN, 2, BUTTON).reason == NG_REASON_MULTI_TOUCH, "refused");
    EXPECT(live_touch(ctx, 0).in_way_ns == 1, "in the way at instant 0: 1 ns");
    /* A 0.3-sized ng_touch_info: written up to last_ns, not in_way_ns. */
    unsigned char raw[sizeof(ng_touch_info)];
    memset(raw, 0xAB, sizeof raw);
    ng_touch_info *old = (ng_touch_info *)raw;
    old->size = (uint32_t)offsetof(ng_touch_info, in_way_ns);
    EXPECT_ST(ctx, ng_touch_get(ctx, 0, old), NG_OK);
    EXPECT(old->touch_id == 1 && old->last_ns == 0, "old fields written");
    int untouched = 1;
    for (size_t i = offsetof(ng_touch_info, in_way_ns); i < sizeof raw; i++) untouched &= raw[i] == 0xAB;
    EXPECT(untouched, "nothing written past size");
    run_for(ctx, 19999);
    /* In the way at 0 ms (as old as its rest): the touch limit (10 s) came first. */
    EXPECT(r.touch_cancels == 1 && r.reports == 1, "cancelled by the touch limit at 10 s (%d)", r.touch_cancels);
    touch(ctx, NG_TOUCH_BEGAN, 3, OTHER_BUTTON);    /* blocks nothing */
    run_for(ctx, 19999);
    EXPECT(r.touch_cancels == 1, "not before the resting limit");
    run_for(ctx, 1);
    EXPECT(r.touch_cancels == 2 && r.cancelled_touch == 3 && r.reports == 2
           && strstr(r.report, "  touch: 3 on view 43 live for 20000 ms, idle 20000 ms (resting limit 20000 ms): cancelled"),
           "the resting limit cancels a still touch that blocks nothing:\n%s", r.report);
    MUST(ctx, ng_context_destroy(ctx));
}

int main(void) {
    held_still_then_released();
    in_the_way_is_cancelled_at_its_limit();
    in_the_way_after_its_limit_is_cancelled_at_once();
    resting_limit_and_sizes();
    if (g_failures) {
        fprintf(stderr, "test_resting_touch: %d of %d checks FAILED\n", g_failures, g_checks);
        return 1;
    }
    printf("test_resting_touch: all %d checks passed\n", g_checks);
    return 0;
}
