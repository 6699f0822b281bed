/* SPDX-License-Identifier: Apache-2.0 */
/* The unattended kiosk (issue 28, items 2 and 3), through the header, on the
 * default chain loaded from the built-in directory:
 *  - a question nobody answers: a person's Back is dropped
 *    NG_REASON_UNANSWERED and files no report (unless confirm-leave's
 *    report_unanswered says nobody answering is a fault); a request made
 *    with NG_REQF_UNATTENDED is asked with unattended_timeout_ms and goes
 *    on: one log line, no report; ng_question.deadline_ns tells when;
 *  - org.navguard.idle-return, inserted by a chain edit, on the manual
 *    clock: the unattended Checkout is asked once, goes home after the idle
 *    time plus the unattended timeout, files no report and asks no second
 *    question until someone uses the kiosk; delivered input restarts the
 *    time, dropped input does not. */
#include <navguard/navguard.h>
#include <stdint.h>
#include <string.h>
#include "check.h"

#define MS INT64_C(1000000)

typedef struct {
    int outcomes, questions, question_ends, reports, logs_confirm, logs_idle;
    ng_outcome last_outcome;
    ng_question question;
    ng_answer last_answer;
    char report[512];
} host;

static void on_outcome(void *user, ng_context *ctx, const ng_outcome *o) {
    host *h = user;
    (void)ctx;
    h->outcomes++;
    h->last_outcome = *o;
    h->last_outcome.message = NULL;
    h->last_outcome.guard_id = NULL;
}

static void on_question(void *user, ng_context *ctx, const ng_question *q) {
    host *h = user;
    (void)ctx;
    h->questions++;
    h->question = *q;
}

static void on_question_end(void *user, ng_context *ctx, const ng_question *q, ng_answer a) {
    host *h = user;
    (void)ctx;
    (void)q;
    h->question_ends++;
    h->last_answer = a;
}

static void on_report(void *user, ng_context *ctx, const char *guard_id, const char *text) {
    host *h = user;
    (void)ctx;
    (void)guard_id;
    h->reports++;
    snprintf(h->report, sizeof h->report, "%s", text);
}

static void on_log(void *user, ng_context *ctx, int32_t severity, const char *guard_id, const char *message) {
    host *h = user;
    (void)ctx;
    (void)severity;
    if (guard_id && strcmp(guard_id, "org.navguard.confirm-leave") == 0) h->logs_confirm++;
    if (guard_id && strcmp(guard_id, "org.navguard.idle-return") == 0) h->logs_idle++;
    (void)message;
}

/* home, menu, checkout (marked), on the manual clock at 0, with `chain`. */
static ng_context *make(host *h, const char *chain) {
    memset(h, 0, sizeof *h);
    ng_options o = NG_OPTIONS_INIT;
    o.clock = NG_CLOCK_MANUAL;
    o.delegate.user = h;
    o.delegate.on_outcome = on_outcome;
    o.delegate.on_question = on_question;
    o.delegate.on_question_end = on_question_end;
    o.delegate.on_report = on_report;
    o.delegate.on_log = on_log;
    ng_context *ctx = NULL;
    MUST(ctx, ng_context_create(&o, &ctx));
    MUST(ctx, ng_chain_configure(ctx, chain));
    ng_screen home = { 1, "home", NULL };
    MUST(ctx, ng_stack_set_root(ctx, &home));
    const char *routes[] = { "menu", "checkout" };
    for (uint64_t i = 0; i < 2; i++) {
        ng_request r = NG_REQUEST_INIT(NG_REQ_PUSH);
        r.screen.id = i + 2;
        r.screen.route = routes[i];
        r.screen_flags = i == 1 ? NG_SCREENF_CONFIRM_LEAVE : 0u;
        ng_request_result res = NG_REQUEST_RESULT_INIT;
        MUST(ctx, ng_request_submit(ctx, &r, &res));
        EXPECT(res.status == NG_OUTCOME_APPLIED, "push %s", routes[i]);
    }
    return ctx;
}

static size_t depth(ng_context *ctx) {
    size_t n = 0;
    MUST(ctx, ng_stack_count(ctx, &n));
    return n;
}

static void at(ng_context *ctx, int64_t ms) {
    MUST(ctx, ng_clock_set(ctx, ms * MS));
    MUST(ctx, ng_tick(ctx));
}

static int64_t next_deadline(ng_context *ctx) {
    int64_t d = 0;
    MUST(ctx, ng_next_deadline(ctx, &d));
    return d;
}

static ng_request_result submit(ng_context *ctx, ng_request_kind kind, uint32_t flags) {
    ng_request r = NG_REQUEST_INIT(kind);
    r.flags = flags;
    ng_request_result res = NG_REQUEST_RESULT_INIT;
    MUST(ctx, ng_request_submit(ctx, &r, &res));
    return res;
}

static void test_reason_name(void) {
    EXPECT(strcmp(ng_reason_name(NG_REASON_UNANSWERED), "unanswered") == 0, "%s", ng_reason_name(NG_REASON_UNANSWERED));
    EXPECT(NG_REASON_UNANSWERED == NG_REASON_COUNT - 1, "appended last");
}

static void test_person_unanswered(bool report_it) {
    host h;
    ng_context *ctx = make(&h, report_it
        ? "{\"base\":\"default\",\"edits\":[{\"configure\":\"org.navguard.confirm-leave\",\"config\":{\"timeout_ms\":5000,\"report_unanswered\":true}}]}"
        : "{\"base\":\"default\",\"edits\":[{\"configure\":\"org.navguard.confirm-leave\",\"config\":{\"timeout_ms\":5000}}]}");
    ng_request_result back = submit(ctx, NG_REQ_BACK, 0);
    EXPECT(back.status == NG_OUTCOME_DEFERRED && h.questions == 1, "back is held and asked about");
    EXPECT(h.question.deadline_ns == 5000 * MS, "deadline %lld", (long long)h.question.deadline_ns);
    ng_question q = NG_QUESTION_INIT;
    MUST(ctx, ng_question_get(ctx, &q));
    EXPECT(q.deadline_ns == 5000 * MS && q.asked_ns == 0, "ng_question_get tells the deadline");
    at(ctx, 4999);
    EXPECT(h.question_ends == 0 && depth(ctx) == 3, "still asking");
    at(ctx, 5000);
    EXPECT(h.question_ends == 1 && h.last_answer == NG_ANSWER_TIMEOUT, "the question timed out");
    EXPECT(h.last_outcome.request_id == back.request_id && h.last_outcome.outcome == NG_OUTCOME_DROPPED &&
               h.last_outcome.reason == NG_REASON_UNANSWERED,
           "a person's back unanswered: %s %s", ng_outcome_name(h.last_outcome.outcome), ng_reason_name(h.last_outcome.reason));
    EXPECT(depth(ctx) == 3, "checkout stays");
    if (report_it)
        EXPECT(h.reports == 1 && strstr(h.report, "dropped unanswered and checkout stays"), "report: %s", h.report);
    else
        EXPECT(h.reports == 0, "no report by default (%d): %s", h.reports, h.report);
    ng_context_destroy(ctx);
}

static void test_unattended_unanswered(void) {
    host h;
    ng_context *ctx = make(&h, NULL);
    ng_request_result home = submit(ctx, NG_REQ_POP_TO_ROOT, NG_REQF_UNATTENDED);
    EXPECT(home.status == NG_OUTCOME_DEFERRED && h.questions == 1, "an unattended pop-to-root is asked about (%s)",
           ng_outcome_name(home.status));
    EXPECT(h.question.deadline_ns == 10000 * MS, "the unattended timeout, 10 s by default (%lld)",
           (long long)h.question.deadline_ns);
    at(ctx, 10000);
    EXPECT(h.last_answer == NG_ANSWER_TIMEOUT && h.last_outcome.request_id == home.request_id &&
               h.last_outcome.outcome == NG_OUTCOME_APPLIED && depth(ctx) == 1,
           "nobody answered: it went on (%s, depth %zu)", ng_outcome_name(h.last_outcome.outcome), depth(ctx));
    EXPECT(h.reports == 0 && h.logs_confirm == 1, "one log line (%d), no report (%d)", h.logs_confirm, h.reports);
    ng_context_destroy(ctx);
}

#define IDLE_CHAIN "{\"base\":\"default\",\"edits\":[{\"insert\":{\"id\":\"org.navguard.idle-return\"," \
                   "\"config\":{\"after_ms\":1000,\"animated\":false,\"source\":9}}}]}"

static void test_idle_return_checkout(void) {
    host h;
    ng_context *ctx = make(&h, IDLE_CHAIN);
    EXPECT(next_deadline(ctx) == 1000 * MS, "idle deadline %lld", (long long)next_deadline(ctx));
    /* A key delivered at 600 ms restarts the time. */
    MUST(ctx, ng_clock_set(ctx, 600 * MS));
    ng_event key = NG_EVENT_INIT(NG_EVENT_KEY);
    key.code = 13;
    ng_event_result er = NG_EVENT_RESULT_INIT;
    MUST(ctx, ng_event_submit(ctx, &key, &er));
    EXPECT(er.verdict == NG_VERDICT_DELIVER, "key delivered");
    at(ctx, 1000);
    EXPECT(h.questions == 0, "not idle yet");
    /* A touch move NavGuard drops (no began) is nobody there. */
    MUST(ctx, ng_clock_set(ctx, 1300 * MS));
    ng_event mv = NG_EVENT_INIT(NG_EVENT_TOUCH);
    mv.phase = NG_TOUCH_MOVED;
    mv.touch_id = 77;
    MUST(ctx, ng_event_submit(ctx, &mv, &er));
    EXPECT(er.verdict == NG_VERDICT_DROP, "move without a began dropped");
    at(ctx, 1600);
    EXPECT(h.questions == 1 && h.question.kind == NG_REQ_POP_TO_ROOT && h.question.source == 9,
           "idle: asked about the return (%d questions)", h.questions);
    EXPECT(h.question.deadline_ns == (1600 + 10000) * MS, "with the unattended timeout (%lld)",
           (long long)h.question.deadline_ns);
    at(ctx, 11599);
    EXPECT(depth(ctx) == 3, "still on checkout");
    at(ctx, 11600);
    EXPECT(depth(ctx) == 1 && h.last_outcome.outcome == NG_OUTCOME_APPLIED && h.last_outcome.source == 9,
           "home (depth %zu)", depth(ctx));
    EXPECT(h.reports == 0, "no report (%s)", h.report);
    EXPECT(next_deadline(ctx) == NG_NO_DEADLINE, "nothing armed until someone comes");
    at(ctx, 3600 * 1000);
    EXPECT(h.questions == 1, "no second question (%d)", h.questions);
    ng_context_destroy(ctx);
}

/* A person who pressed Back and walked away: the Back is dropped unanswered
 * (no report), and the idle return then takes the kiosk home. While the
 * person's question is open, the return is refused (asking) and tried again
 * an idle time later. */
static void test_idle_after_person_walked_away(void) {
    host h;
    ng_context *ctx = make(&h, IDLE_CHAIN);
    MUST(ctx, ng_clock_set(ctx, 500 * MS));
    ng_request_result back = submit(ctx, NG_REQ_BACK, 0);
    EXPECT(back.status == NG_OUTCOME_DEFERRED && h.questions == 1, "back asked");
    at(ctx, 500 + 30000);
    EXPECT(h.last_outcome.reason == NG_REASON_UNANSWERED && depth(ctx) == 3 && h.reports == 0,
           "the person's back dropped unanswered, no report");
    at(ctx, 500 + 30000 + 1000);
    EXPECT(h.questions == 2, "then the idle return asks (%d)", h.questions);
    at(ctx, 500 + 30000 + 1000 + 10000);
    EXPECT(depth(ctx) == 1 && h.reports == 0, "home, no report");
    ng_context_destroy(ctx);
}

int main(void) {
    test_reason_name();
    test_person_unanswered(false);
    test_person_unanswered(true);
    test_unattended_unanswered();
    test_idle_return_checkout();
    test_idle_after_person_walked_away();
    printf("%d checks, %d failures\n", g_checks, g_failures);
    return g_failures ? 1 : 0;
}
