/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_swipe.c — a swipe back as a C host drives it through navguard.h, with
 * the real default chain (dlopen'd built-ins, manual clock):
 *  - the interactive back names its driving touch (NG_REQF_TOUCH_DRIVEN):
 *    the transition's hold (global-ignore) cancels the other touch but keeps
 *    delivering the driving finger's moves;
 *  - ng_track_get shows the swipe's state (DRIVEN, UNDRIVEN, FINISHING,
 *    CANCELLING), ng_hold_get the hold that blocks input;
 *  - held still for 3 s the swipe is not timed out by the watchdog; released,
 *    it completes as decided (ng_interactive_complete), or the watchdog
 *    completes it at its limit counted from the release;
 *  - a forgotten release: rolled back at the limit counted from the touch's end;
 *  - struct-size rules: a 0.1-sized ng_request still works, but cannot name a
 *    driving touch; ng_track_info/ng_hold_view are written only within `size`.
 */
#include <navguard/navguard.h>

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MS 1000000LL

#include "check.h"

enum { EDGE = 7, OTHER = 8, BUTTON_VIEW = 42 };

typedef struct {
    int did[2], cancelled[2], forced;     /* per track, for the swipe's request */
    uint64_t swipe_id;
    int touch_cancels;
    uint64_t cancelled_touch;
    int reports;
    char report[4096];
} recorder;

static void on_transition(void *user, ng_context *ctx, const ng_transition_event *e) {
    recorder *r = user;
    (void)ctx;
    if (e->request_id != r->swipe_id) return;
    if (e->phase == NG_PHASE_DID) r->did[e->track]++;
    if (e->phase == NG_PHASE_CANCELLED) r->cancelled[e->track]++;
    if (e->phase != NG_PHASE_WILL && (e->flags & NG_TRANSF_FORCED)) r->forced++;
}

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

/* home, menu, item; the default chain; a button view at (300,300). */
static ng_context *kiosk(recorder *r) {
    memset(r, 0, sizeof *r);
    ng_options o = NG_OPTIONS_INIT;
    o.clock = NG_CLOCK_MANUAL;
    o.delegate.user = r;
    o.delegate.on_transition = on_transition;
    o.delegate.on_touch_cancel = on_touch_cancel;
    o.delegate.on_report = on_report;
    ng_context *ctx = NULL;
    if (ng_context_create(&o, &ctx) != NG_OK) { fprintf(stderr, "FATAL: context\n"); exit(1); }
    MUST(ctx, ng_chain_configure(ctx, NULL));
    ng_screen home = { 1, "home", NULL };
    MUST(ctx, ng_stack_set_root(ctx, &home));
    const char *routes[] = { "menu", "item" };
    for (int i = 0; i < 2; i++) {
        ng_request push = NG_REQUEST_INIT(NG_REQ_PUSH);
        push.source = (uint32_t)(10 + i);          /* distinct sources: throttle stays out */
        push.screen.id = (uint64_t)(2 + i);
        push.screen.route = routes[i];
        ng_request_result res = NG_REQUEST_RESULT_INIT;
        MUST(ctx, ng_request_submit(ctx, &push, &res));
        if (res.status != NG_OUTCOME_APPLIED) { fprintf(stderr, "FATAL: set-up push %s\n", ng_outcome_name(res.status)); exit(1); }
    }
    ng_view v = NG_VIEW_INIT;
    v.id = BUTTON_VIEW;
    v.frame.x = 300; v.frame.y = 300; v.frame.width = 100; v.frame.height = 50;
    MUST(ctx, ng_view_set(ctx, &v));
    return ctx;
}

static ng_event_result touch(ng_context *ctx, int32_t phase, uint64_t id, double x, double y) {
    ng_event e = NG_EVENT_INIT(NG_EVENT_TOUCH);
    e.phase = phase;
    e.touch_id = id;
    e.x = x;
    e.y = y;
    ng_event_result r = NG_EVENT_RESULT_INIT;
    MUST(ctx, ng_event_submit(ctx, &e, &r));
    return r;
}

static ng_request_result begin_swipe(ng_context *ctx, recorder *r, uint64_t driving) {
    ng_request back = NG_REQUEST_INIT(NG_REQ_INTERACTIVE_BACK);
    back.flags = NG_REQF_ANIMATED | NG_REQF_TOUCH_DRIVEN;
    back.source = 1;
    back.driving_touch = driving;
    ng_request_result res = NG_REQUEST_RESULT_INIT;
    MUST(ctx, ng_request_submit(ctx, &back, &res));
    r->swipe_id = res.request_id;
    return res;
}

static void advance(ng_context *ctx, int64_t ms) {
    MUST(ctx, ng_clock_advance(ctx, ms * MS));
    MUST(ctx, ng_tick(ctx));
}

static size_t depth(ng_context *ctx) {
    size_t n = 0;
    MUST(ctx, ng_stack_count(ctx, &n));
    return n;
}

static ng_swipe_state swipe_state(ng_context *ctx) {
    ng_track_info t = NG_TRACK_INFO_INIT;
    return ng_track_get(ctx, NG_TRACK_SCREEN, &t) == NG_OK ? t.swipe : NG_SWIPE_NONE;
}

static void driven_swipe_held_then_finished(void) {
    recorder r;
    ng_context *ctx = kiosk(&r);
    EXPECT(touch(ctx, NG_TOUCH_BEGAN, OTHER, 320, 320).target_view == BUTTON_VIEW, "a finger on the button");
    EXPECT(touch(ctx, NG_TOUCH_BEGAN, EDGE, 4, 300).verdict == NG_VERDICT_DELIVER, "a finger at the edge");
    EXPECT(touch(ctx, NG_TOUCH_MOVED, EDGE, 16, 300).verdict == NG_VERDICT_DELIVER, "edge finger moves");
    ng_request_result res = begin_swipe(ctx, &r, EDGE);
    EXPECT(res.status == NG_OUTCOME_APPLIED, "driven swipe: %s (%s)", ng_outcome_name(res.status), ng_errmsg(ctx));
    EXPECT(depth(ctx) == 2, "the stack shows the pop during the swipe");

    ng_track_info t = NG_TRACK_INFO_INIT;
    EXPECT_ST(ctx, ng_track_get(ctx, NG_TRACK_SCREEN, &t), NG_OK);
    EXPECT(t.request_id == res.request_id && t.kind == NG_REQ_INTERACTIVE_BACK, "track info names the swipe");
    EXPECT((t.flags & (NG_TRANSF_INTERACTIVE | NG_TRANSF_TOUCH_DRIVEN)) == (NG_TRANSF_INTERACTIVE | NG_TRANSF_TOUCH_DRIVEN),
           "flags 0x%x", (unsigned)t.flags);
    EXPECT(t.swipe == NG_SWIPE_DRIVEN && t.driving_touch == EDGE, "swipe %d touch %llu", (int)t.swipe,
           (unsigned long long)t.driving_touch);

    /* global-ignore's hold: visible to the host, and it cancelled the other finger only. */
    uint32_t mask = 0;
    size_t holds = 0;
    MUST(ctx, ng_hold_state(ctx, &mask, &holds));
    EXPECT(holds == 1 && (mask & NG_MASK_TOUCH), "one touch-blocking hold (%zu, 0x%x)", holds, (unsigned)mask);
    ng_hold_view hv = NG_HOLD_VIEW_INIT;
    EXPECT_ST(ctx, ng_hold_get(ctx, 0, &hv), NG_OK);
    EXPECT(hv.label && strcmp(hv.label, "global-ignore: transition") == 0, "hold label %s", hv.label ? hv.label : "(null)");
    EXPECT(hv.token != 0 && hv.deadline_ns == NG_NO_DEADLINE, "hold token and deadline");
    EXPECT_ST(ctx, ng_hold_get(ctx, 1, &hv), NG_E_NOT_FOUND);
    EXPECT(r.touch_cancels == 1 && r.cancelled_touch == OTHER, "only the other finger was cancelled (%d, %llu)",
           r.touch_cancels, (unsigned long long)r.cancelled_touch);

    /* The finger drags, then stays still for 3 s: the watchdog's 2 s limit does not apply. */
    for (int x = 40; x <= 480; x += 40) {
        ng_event_result v = touch(ctx, NG_TOUCH_MOVED, EDGE, x, 300);
        EXPECT(v.verdict == NG_VERDICT_DELIVER, "driving move to %d: %s", x, ng_reason_name(v.reason));
        MUST(ctx, ng_interactive_update(ctx, x / 800.0));
        advance(ctx, 16);
    }
    EXPECT(touch(ctx, NG_TOUCH_BEGAN, 9, 320, 320).reason == NG_REASON_IGNORING, "a new finger is blocked");
    for (int i = 0; i < 30; i++) advance(ctx, 100);
    EXPECT(swipe_state(ctx) == NG_SWIPE_DRIVEN && r.reports == 0 && r.cancelled[0] == 0, "held 3 s: still driven, no report");
    EXPECT(touch(ctx, NG_TOUCH_ENDED, EDGE, 480, 300).verdict == NG_VERDICT_DELIVER, "its end is delivered");
    EXPECT(swipe_state(ctx) == NG_SWIPE_UNDRIVEN, "undriven after the touch ended");

    MUST(ctx, ng_interactive_release(ctx, true));
    EXPECT(swipe_state(ctx) == NG_SWIPE_FINISHING, "released to finish");
    EXPECT_ST(ctx, ng_interactive_release(ctx, false), NG_E_STATE);
    EXPECT_ST(ctx, ng_interactive_cancel(ctx), NG_E_STATE);
    advance(ctx, 200);                                   /* the settle animation */
    EXPECT_ST(ctx, ng_interactive_complete(ctx), NG_OK);
    EXPECT(r.did[0] == 1 && r.did[1] == 1 && r.cancelled[0] == 0 && r.forced == 0, "completed by the host");
    EXPECT(depth(ctx) == 2, "popped");
    EXPECT_ST(ctx, ng_track_get(ctx, NG_TRACK_SCREEN, &t), NG_E_NOT_FOUND);
    EXPECT_ST(ctx, ng_interactive_complete(ctx), NG_E_NOT_FOUND);
    MUST(ctx, ng_hold_state(ctx, &mask, &holds));
    EXPECT(holds == 0, "the transition's hold ended");
    MUST(ctx, ng_context_destroy(ctx));
}

static void released_to_cancel_completed_by_the_watchdog(void) {
    recorder r;
    ng_context *ctx = kiosk(&r);
    touch(ctx, NG_TOUCH_BEGAN, EDGE, 4, 300);
    begin_swipe(ctx, &r, EDGE);
    MUST(ctx, ng_interactive_update(ctx, 0.3));
    touch(ctx, NG_TOUCH_ENDED, EDGE, 240, 300);
    MUST(ctx, ng_interactive_release(ctx, false));
    EXPECT(swipe_state(ctx) == NG_SWIPE_CANCELLING, "released to cancel");
    EXPECT_ST(ctx, ng_transition_finish(ctx, NG_TRACK_ALL), NG_E_STATE);
    int64_t deadline = 0, now = 0;
    MUST(ctx, ng_next_deadline(ctx, &deadline));
    MUST(ctx, ng_now(ctx, &now));
    EXPECT(deadline - now == 2000 * MS, "the watchdog's limit counts from the release (%lld ms)",
           (long long)((deadline - now) / MS));
    advance(ctx, 1999);
    EXPECT(swipe_state(ctx) == NG_SWIPE_CANCELLING, "not before the limit");
    advance(ctx, 1);                                      /* the host never completed the settle */
    EXPECT(r.cancelled[0] == 1 && r.cancelled[1] == 1 && r.did[0] == 0 && r.forced == 2, "rolled back by the watchdog");
    EXPECT(depth(ctx) == 3, "the stack is restored");
    EXPECT(r.reports == 1 && strstr(r.report, "released to cancel 2000 ms (limit 2000 ms): interactive back cancelled"),
           "report: %s", r.report);
    EXPECT_ST(ctx, ng_interactive_complete(ctx), NG_E_NOT_FOUND);   /* the late completion is harmless */
    MUST(ctx, ng_context_destroy(ctx));
}

static void forgotten_release(void) {
    recorder r;
    ng_context *ctx = kiosk(&r);
    touch(ctx, NG_TOUCH_BEGAN, EDGE, 4, 300);
    begin_swipe(ctx, &r, EDGE);
    advance(ctx, 500);
    touch(ctx, NG_TOUCH_ENDED, EDGE, 600, 300);          /* and no ng_interactive_release */
    ng_track_info t = NG_TRACK_INFO_INIT;
    MUST(ctx, ng_track_get(ctx, NG_TRACK_SCREEN, &t));
    int64_t now = 0;
    MUST(ctx, ng_now(ctx, &now));
    EXPECT(t.swipe == NG_SWIPE_UNDRIVEN && t.swipe_since_ns == now, "undriven since the touch's end");
    advance(ctx, 1999);
    EXPECT(r.cancelled[0] == 0, "not before the limit");
    advance(ctx, 1);
    EXPECT(r.cancelled[0] == 1 && r.did[0] == 0 && depth(ctx) == 3, "rolled back at the limit from the touch's end");
    MUST(ctx, ng_context_destroy(ctx));
}

static void sizes_and_statuses(void) {
    recorder r;
    ng_context *ctx = kiosk(&r);
    EXPECT_ST(ctx, ng_interactive_release(ctx, true), NG_E_NOT_FOUND);
    EXPECT_ST(ctx, ng_interactive_complete(ctx), NG_E_NOT_FOUND);
    ng_track_info t = NG_TRACK_INFO_INIT;
    EXPECT_ST(ctx, ng_track_get(ctx, NG_TRACK_SCREEN, NULL), NG_E_NULL);
    EXPECT_ST(ctx, ng_track_get(ctx, NG_TRACK_ALL, &t), NG_E_RANGE);
    EXPECT_ST(ctx, ng_track_get(ctx, NG_TRACK_SCREEN, &t), NG_E_NOT_FOUND);
    t.size = 0;
    EXPECT_ST(ctx, ng_track_get(ctx, NG_TRACK_SCREEN, &t), NG_E_SIZE);
    ng_hold_view hv = NG_HOLD_VIEW_INIT;
    EXPECT_ST(ctx, ng_hold_get(ctx, 0, NULL), NG_E_NULL);
    EXPECT_ST(ctx, ng_hold_get(ctx, 0, &hv), NG_E_NOT_FOUND);
    hv.size = 0;
    EXPECT_ST(ctx, ng_hold_get(ctx, 0, &hv), NG_E_SIZE);

    /* A host built with the 0.1 header: its ng_request ends before driving_touch. */
    size_t old_size = offsetof(ng_request, driving_touch);
    ng_request back = NG_REQUEST_INIT(NG_REQ_INTERACTIVE_BACK);
    back.size = (uint32_t)old_size;
    back.flags = NG_REQF_ANIMATED | NG_REQF_TOUCH_DRIVEN;
    back.driving_touch = EDGE;
    ng_request_result res = NG_REQUEST_RESULT_INIT;
    touch(ctx, NG_TOUCH_BEGAN, EDGE, 4, 300);
    EXPECT_ST(ctx, ng_request_submit(ctx, &back, &res), NG_OK);
    EXPECT(res.status == NG_OUTCOME_REFUSED && res.reason == NG_REASON_INVALID, "touch-driven with a 0.1 size: refused invalid");
    EXPECT(strstr(ng_errmsg(ctx), "driving_touch") != NULL, "ng_errmsg says why: %s", ng_errmsg(ctx));
    /* The flag belongs to interactive backs only. */
    ng_request push = NG_REQUEST_INIT(NG_REQ_PUSH);
    push.flags = NG_REQF_TOUCH_DRIVEN;
    push.screen.id = 9;
    push.screen.route = "help";
    EXPECT_ST(ctx, ng_request_submit(ctx, &push, &res), NG_OK);
    EXPECT(res.status == NG_OUTCOME_REFUSED && res.reason == NG_REASON_INVALID, "touch-driven push refused");
    /* Without the flag the 0.1 size works as before, and the unread tail is ignored. */
    back.flags = NG_REQF_ANIMATED;
    EXPECT_ST(ctx, ng_request_submit(ctx, &back, &res), NG_OK);
    EXPECT(res.status == NG_OUTCOME_APPLIED, "0.1-sized interactive back: %s", ng_outcome_name(res.status));
    EXPECT(swipe_state(ctx) == NG_SWIPE_UNDRIVEN, "no touch named: undriven");
    /* A 0.1-sized ng_track_info gets its fields, and not a byte more. */
    unsigned char raw[sizeof(ng_track_info)];
    memset(raw, 0xAB, sizeof raw);
    ng_track_info *old = (ng_track_info *)(void *)raw;
    old->size = (uint32_t)offsetof(ng_track_info, driving_touch);
    EXPECT_ST(ctx, ng_track_get(ctx, NG_TRACK_SCREEN, old), NG_OK);
    EXPECT(old->request_id == res.request_id && old->kind == NG_REQ_INTERACTIVE_BACK, "old fields written");
    int untouched = 1;
    for (size_t i = offsetof(ng_track_info, driving_touch); i < sizeof raw; i++) untouched &= raw[i] == 0xAB;
    EXPECT(untouched, "nothing written past size");
    MUST(ctx, ng_interactive_cancel(ctx));
    MUST(ctx, ng_context_destroy(ctx));
}

int main(void) {
    driven_swipe_held_then_finished();
    released_to_cancel_completed_by_the_watchdog();
    forgotten_release();
    sizes_and_statuses();
    if (g_failures) {
        fprintf(stderr, "test_swipe: %d of %d checks FAILED\n", g_failures, g_checks);
        return 1;
    }
    printf("test_swipe: all %d checks passed\n", g_checks);
    return 0;
}
