/* SPDX-License-Identifier: Apache-2.0 */
/* A host written and built against NavGuard 0.3.0's headers (this folder's
 * include/), run against today's libnavguard, loading two guards built from
 * 0.3.0's sources against 0.3.0's plugin.h (throttle and confirm-leave, the
 * plugin files named by NAVGUARD_COMPAT_GUARD_DIR): a binary host and binary
 * guards of the previous release must run unchanged. It checks what 0.3.0
 * documented for them: the guards load into an empty chain by path, a second
 * push from the same source within 300 ms is refused by the throttle, and a
 * Back from a screen marked NG_SCREENF_CONFIRM_LEAVE asks the host, NO
 * refusing it and YES applying it. */
#define _POSIX_C_SOURCE 200809L
#include <navguard/navguard.h>
#include <navguard/plugin.h>

#include <string.h>

#include "check.h"

#define MS INT64_C(1000000)

typedef struct {
    int outcomes;
    ng_outcome last;
    char guard[128];
    int questions;
    uint64_t question_id;
    char question_text[128];
    int question_ends;
    ng_answer answer;
} host;

static void on_outcome(void *u, ng_context *ctx, const ng_outcome *o) {
    (void)ctx;
    host *h = u;
    EXPECT(o->size >= sizeof(ng_outcome), "the outcome is at least 0.3.0's size (%u)", o->size);
    h->outcomes++;
    h->last = *o;
    snprintf(h->guard, sizeof h->guard, "%s", o->guard_id ? o->guard_id : "");
}

static void on_question(void *u, ng_context *ctx, const ng_question *q) {
    (void)ctx;
    host *h = u;
    h->questions++;
    h->question_id = q->question_id;
    snprintf(h->question_text, sizeof h->question_text, "%s", q->text ? q->text : "");
}

static void on_question_end(void *u, ng_context *ctx, const ng_question *q, ng_answer a) {
    (void)ctx;
    host *h = u;
    EXPECT(q->question_id == h->question_id, "the question that ends is the one asked");
    h->question_ends++;
    h->answer = a;
}

static ng_request_result submit(ng_context *ctx, ng_request_kind kind, uint64_t id, const char *route,
                                uint32_t source, uint32_t screen_flags) {
    ng_request r = NG_REQUEST_INIT(kind);
    r.screen.id = id;
    r.screen.route = route;
    r.source = source;
    r.screen_flags = screen_flags;
    ng_request_result res = NG_REQUEST_RESULT_INIT;
    MUST(ctx, ng_request_submit(ctx, &r, &res));
    return res;
}

static size_t depth(ng_context *ctx) {
    size_t n = 0;
    ng_stack_count(ctx, &n);
    return n;
}

int main(void) {
    const char *dir = getenv("NAVGUARD_COMPAT_GUARD_DIR");
    if (!dir) {
        fprintf(stderr, "host_guards: set NAVGUARD_COMPAT_GUARD_DIR to the folder of the 0.3.0 guards\n");
        return 2;
    }
    char throttle[1024], confirm[1024];
    snprintf(throttle, sizeof throttle, "%s/throttle.so", dir);
    snprintf(confirm, sizeof confirm, "%s/confirm-leave.so", dir);

    host h;
    memset(&h, 0, sizeof h);
    ng_options o = NG_OPTIONS_INIT;
    o.clock = NG_CLOCK_MANUAL;
    o.delegate.user = &h;
    o.delegate.on_outcome = on_outcome;
    o.delegate.on_question = on_question;
    o.delegate.on_question_end = on_question_end;
    ng_context *ctx = NULL;
    MUST(ctx, ng_context_create(&o, &ctx));

    EXPECT_ST(ctx, ng_plugin_load(ctx, throttle, NULL), NG_OK);
    EXPECT_ST(ctx, ng_plugin_load(ctx, confirm, "{\"timeout_ms\":5000}"), NG_OK);
    size_t count = 0;
    MUST(ctx, ng_chain_count(ctx, &count));
    const char *first = NULL, *second = NULL;
    if (count == 2) {
        MUST(ctx, ng_chain_get_id(ctx, 0, &first));
        MUST(ctx, ng_chain_get_id(ctx, 1, &second));
    }
    EXPECT(count == 2 && first && second && strcmp(first, "org.navguard.throttle") == 0 &&
               strcmp(second, "org.navguard.confirm-leave") == 0,
           "the chain holds the two 0.3.0 guards (%zu)", count);

    ng_screen home = { 1, "home", NULL };
    MUST(ctx, ng_stack_set_root(ctx, &home));

    /* The throttle: the same source twice within 300 ms. */
    ng_request_result a = submit(ctx, NG_REQ_PUSH, 2, "menu", 7, 0);
    EXPECT(a.status == NG_OUTCOME_APPLIED, "the first push applies (%s)", ng_outcome_name(a.status));
    MUST(ctx, ng_clock_set(ctx, 100 * MS));
    ng_request_result b = submit(ctx, NG_REQ_PUSH, 3, "menu", 7, 0);
    EXPECT(b.status == NG_OUTCOME_REFUSED && h.last.reason == NG_REASON_THROTTLED &&
               strcmp(h.guard, "org.navguard.throttle") == 0,
           "the second push within 300 ms is refused by the throttle (%s, %s, %s)", ng_outcome_name(b.status),
           ng_reason_name(h.last.reason), h.guard);
    EXPECT(depth(ctx) == 2, "one menu (depth %zu)", depth(ctx));

    /* confirm-leave: a marked screen asks before Back. */
    MUST(ctx, ng_clock_set(ctx, 1000 * MS));
    ng_request_result c = submit(ctx, NG_REQ_PUSH, 4, "checkout", 8, NG_SCREENF_CONFIRM_LEAVE);
    EXPECT(c.status == NG_OUTCOME_APPLIED, "checkout pushed (%s)", ng_outcome_name(c.status));
    MUST(ctx, ng_clock_set(ctx, 2000 * MS));
    ng_request_result back = submit(ctx, NG_REQ_BACK, 0, NULL, 9, 0);
    EXPECT(back.status == NG_OUTCOME_DEFERRED && h.questions == 1 &&
               strcmp(h.question_text, "Leave checkout?") == 0,
           "Back is held and the host asked \"%s\" (%s)", h.question_text, ng_outcome_name(back.status));
    EXPECT_ST(ctx, ng_question_answer(ctx, h.question_id, NG_ANSWER_NO), NG_OK);
    EXPECT(h.question_ends == 1 && h.answer == NG_ANSWER_NO && h.last.request_id == back.request_id &&
               h.last.outcome == NG_OUTCOME_DROPPED && h.last.reason == NG_REASON_DECLINED && depth(ctx) == 3,
           "NO refuses the Back (%s), checkout stays (depth %zu)", ng_reason_name(h.last.reason), depth(ctx));
    MUST(ctx, ng_clock_set(ctx, 3000 * MS));
    ng_request_result again = submit(ctx, NG_REQ_BACK, 0, NULL, 10, 0);
    EXPECT(again.status == NG_OUTCOME_DEFERRED && h.questions == 2, "asked again");
    EXPECT_ST(ctx, ng_question_answer(ctx, h.question_id, NG_ANSWER_YES), NG_OK);
    EXPECT(h.question_ends == 2 && h.answer == NG_ANSWER_YES && h.last.request_id == again.request_id &&
               h.last.outcome == NG_OUTCOME_APPLIED && depth(ctx) == 2,
           "YES applies the Back (depth %zu)", depth(ctx));

    MUST(ctx, ng_context_destroy(ctx));
    if (g_failures) {
        fprintf(stderr, "host_guards: %d of %d checks FAILED\n", g_failures, g_checks);
        return 1;
    }
    printf("host_guards: all %d checks passed\n", g_checks);
    return 0;
}
