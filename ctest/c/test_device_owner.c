/* SPDX-License-Identifier: Apache-2.0 */
/* org.navguard.device-owner (issue 30, item 3), through the header, loaded
 * from the built-in directory: player 1's pause menu belongs to player 1.
 *  - player 2's press and request there are dropped / refused
 *    NG_REASON_POLICY, "owned by controller 1";
 *  - the shared keyboard and the owner pass;
 *  - ownership ends when the pause menu leaves the top;
 *  - a caller whose ng_request.size does not cover `device` (an older
 *    header) makes a request by no device. */
#include <navguard/navguard.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "check.h"

#define P1 1u
#define P2 2u
#define KEYBOARD 100u

typedef struct {
    ng_outcome last;
    char message[128];
} host;

static void on_outcome(void *user, ng_context *ctx, const ng_outcome *o) {
    host *h = user;
    (void)ctx;
    h->last = *o;
    h->last.message = NULL;
    h->last.guard_id = NULL;
    snprintf(h->message, sizeof h->message, "%s", o->message ? o->message : "");
}

/* The game (1), then the pause menu (2) pushed by player 1. */
static ng_context *paused(host *h) {
    memset(h, 0, sizeof *h);
    ng_options o = NG_OPTIONS_INIT;
    o.clock = NG_CLOCK_MANUAL;
    o.delegate.user = h;
    o.delegate.on_outcome = on_outcome;
    ng_context *ctx = NULL;
    MUST(ctx, ng_context_create(&o, &ctx));
    MUST(ctx, ng_chain_configure(ctx, "{\"guards\":[{\"id\":\"org.navguard.device-owner\","
                                      "\"config\":{\"shared\":[\"100\"]}}]}"));
    ng_screen game = { 1, "game", NULL };
    MUST(ctx, ng_stack_set_root(ctx, &game));
    ng_request r = NG_REQUEST_INIT(NG_REQ_PUSH);
    r.screen.id = 2;
    r.screen.route = "pause";
    r.device = P1;
    ng_request_result res = NG_REQUEST_RESULT_INIT;
    MUST(ctx, ng_request_submit(ctx, &r, &res));
    EXPECT(res.status == NG_OUTCOME_APPLIED, "pause pushed by player 1");
    return ctx;
}

static ng_event_result press(ng_context *ctx, ng_event_type type, int32_t phase, uint64_t device) {
    ng_event e = NG_EVENT_INIT(type);
    e.phase = phase;
    e.touch_id = device;
    e.code = NG_BUTTON_A;
    ng_event_result er = NG_EVENT_RESULT_INIT;
    MUST(ctx, ng_event_submit(ctx, &e, &er));
    return er;
}

static ng_request_result back(ng_context *ctx, uint64_t device) {
    ng_request r = NG_REQUEST_INIT(NG_REQ_BACK);
    r.device = device;
    ng_request_result res = NG_REQUEST_RESULT_INIT;
    MUST(ctx, ng_request_submit(ctx, &r, &res));
    return res;
}

static size_t depth(ng_context *ctx) {
    size_t n = 0;
    MUST(ctx, ng_stack_count(ctx, &n));
    return n;
}

static void test_player2_refused(void) {
    host h;
    ng_context *ctx = paused(&h);
    ng_event_result er = press(ctx, NG_EVENT_REMOTE, NG_KEY_DOWN, P2);
    EXPECT(er.verdict == NG_VERDICT_DROP && er.reason == NG_REASON_POLICY, "player 2's A dropped (%d, %d)",
           er.verdict, er.reason);
    EXPECT(er.guard_id && strcmp(er.guard_id, "org.navguard.device-owner") == 0, "by device-owner");
    er = press(ctx, NG_EVENT_REMOTE, NG_KEY_UP, P2);
    EXPECT(er.verdict == NG_VERDICT_DROP, "its up withheld");
    ng_request_result res = back(ctx, P2);
    EXPECT(res.status == NG_OUTCOME_REFUSED && res.reason == NG_REASON_POLICY, "player 2's back refused");
    EXPECT(strcmp(h.message, "owned by controller 1") == 0, "message: %s", h.message);
    EXPECT(depth(ctx) == 2, "still paused");
    ng_context_destroy(ctx);
}

static void test_shared_and_owner_pass(void) {
    host h;
    ng_context *ctx = paused(&h);
    EXPECT(press(ctx, NG_EVENT_KEY, NG_KEY_DOWN, KEYBOARD).verdict == NG_VERDICT_DELIVER, "shared keyboard");
    EXPECT(press(ctx, NG_EVENT_REMOTE, NG_KEY_DOWN, P1).verdict == NG_VERDICT_DELIVER, "the owner's A");
    /* An older caller: ng_request.size stops before `device`, which reads 0,
     * a request by no device, so the garbage there is never seen. */
    ng_request old = NG_REQUEST_INIT(NG_REQ_BACK);
    old.size = (uint32_t)offsetof(ng_request, device);
    old.device = P2;
    ng_request_result res = NG_REQUEST_RESULT_INIT;
    MUST(ctx, ng_request_submit(ctx, &old, &res));
    EXPECT(res.status == NG_OUTCOME_APPLIED && depth(ctx) == 1, "old-size back is by no device (%d)", res.status);
    ng_context_destroy(ctx);

    ctx = paused(&h);
    res = back(ctx, KEYBOARD);
    EXPECT(res.status == NG_OUTCOME_APPLIED, "the keyboard's back");
    ng_context_destroy(ctx);
}

static void test_ownership_ends_with_the_top(void) {
    host h;
    ng_context *ctx = paused(&h);
    EXPECT(press(ctx, NG_EVENT_REMOTE, NG_KEY_DOWN, P2).verdict == NG_VERDICT_DROP, "owned");
    EXPECT(back(ctx, P1).status == NG_OUTCOME_APPLIED && depth(ctx) == 1, "player 1 resumes");
    EXPECT(press(ctx, NG_EVENT_REMOTE, NG_KEY_DOWN, P2).verdict == NG_VERDICT_DELIVER, "player 2 plays on");
    EXPECT(back(ctx, P2).status != NG_OUTCOME_REFUSED || h.last.reason != NG_REASON_POLICY,
           "no owner on the game");
    ng_context_destroy(ctx);
}

int main(void) {
    test_player2_refused();
    test_shared_and_owner_pass();
    test_ownership_ends_with_the_top();
    printf("%d checks, %d failures\n", g_checks, g_failures);
    return g_failures ? 1 : 0;
}
