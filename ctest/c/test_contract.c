/* SPDX-License-Identifier: Apache-2.0 */
/* The host contract of NavGuard 0.3 through the C API: a lost release never
 * blocks a touch id, the wake-up and deadline callbacks, stale replies,
 * questions to the host (the confirm-leave guard on the default chain), ids
 * below 2^53, event timestamps, what destroy ends, the new names. */
#define _POSIX_C_SOURCE 200809L
#include <navguard/navguard.h>
#include <navguard/plugin.h>

#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#include "check.h"

#define MS INT64_C(1000000)

/* ------------------------------------------------------------------------ */
/* A host that records what its delegate hears                               */
/* ------------------------------------------------------------------------ */

typedef struct {
    int outcomes;
    ng_outcome last_outcome;
    char last_message[256];
    int touch_cancels;
    uint64_t cancelled_touch;
    atomic_int wakes;
    pthread_t wake_thread;
    int deadlines;
    int64_t deadline;
    int questions;
    ng_question question;
    char question_text[128];
    int question_ends;
    ng_answer last_answer;
    int destroyed_ends;
    int answer_inside;          /* answer from inside on_question: 1 yes, 2 no */
    bool restore_inside;        /* try ng_stack_restore from inside on_question */
    ng_status restore_inside_status;
    int outcomes_at_end;        /* h->outcomes when the last question ended */
    ng_outcome log[32];         /* every outcome, in order (messages not kept) */
} host;

static void on_outcome(void *u, ng_context *ctx, const ng_outcome *o) {
    (void)ctx;
    host *h = u;
    h->outcomes++;
    h->last_outcome = *o;
    if (h->outcomes <= 32) {
        h->log[h->outcomes - 1] = *o;
        h->log[h->outcomes - 1].message = NULL;
    }
    snprintf(h->last_message, sizeof h->last_message, "%s", o->message ? o->message : "");
}

static void on_touch_cancel(void *u, ng_context *ctx, const ng_touch_info *t) {
    (void)ctx;
    host *h = u;
    h->touch_cancels++;
    h->cancelled_touch = t->touch_id;
}

static void on_wake(void *u, ng_context *ctx) {
    (void)ctx;
    host *h = u;
    h->wake_thread = pthread_self();
    atomic_fetch_add(&h->wakes, 1);
}

static void on_deadline(void *u, ng_context *ctx, int64_t t) {
    (void)ctx;
    host *h = u;
    h->deadlines++;
    h->deadline = t;
}

static void on_question(void *u, ng_context *ctx, const ng_question *q) {
    host *h = u;
    h->questions++;
    h->question = *q;
    snprintf(h->question_text, sizeof h->question_text, "%s", q->text ? q->text : "");
    if (h->answer_inside)
        EXPECT_ST(ctx, ng_question_answer(ctx, q->question_id, h->answer_inside == 1 ? NG_ANSWER_YES : NG_ANSWER_NO), NG_OK);
    if (h->restore_inside) {
        static const char snap[] = "{\"navguard_snapshot\":1,\"screens\":[{\"id\":1,\"route\":\"home\"}]}";
        h->restore_inside_status = ng_stack_restore(ctx, snap, sizeof snap - 1);
    }
}

static void on_question_end(void *u, ng_context *ctx, const ng_question *q, ng_answer a) {
    (void)ctx;
    host *h = u;
    EXPECT(q->question_id == h->question.question_id, "the question that ends is the one asked");
    h->question_ends++;
    h->last_answer = a;
    h->outcomes_at_end = h->outcomes;
}

static void on_transition(void *u, ng_context *ctx, const ng_transition_event *e) {
    (void)ctx;
    host *h = u;
    if (NG_HAS_FIELD(e, ng_transition_event, depth) && (e->flags & NG_TRANSF_DESTROYED)) h->destroyed_ends++;
}

/* The chain make() configures: NULL is the default chain. */
static const char *g_chain = NULL;

static ng_context *make(host *h, bool default_chain) {
    memset(h, 0, sizeof *h);
    ng_options o = NG_OPTIONS_INIT;
    o.clock = NG_CLOCK_MANUAL;
    o.delegate.user = h;
    o.delegate.on_outcome = on_outcome;
    o.delegate.on_touch_cancel = on_touch_cancel;
    o.delegate.on_wake = on_wake;
    o.delegate.on_deadline = on_deadline;
    o.delegate.on_question = on_question;
    o.delegate.on_question_end = on_question_end;
    o.delegate.on_transition = on_transition;
    ng_context *ctx = NULL;
    MUST(ctx, ng_context_create(&o, &ctx));
    if (default_chain) MUST(ctx, ng_chain_configure(ctx, g_chain));
    ng_screen home = { 1, "home", NULL };
    MUST(ctx, ng_stack_set_root(ctx, &home));
    return ctx;
}

static ng_request_result push(ng_context *ctx, uint64_t id, const char *route, uint32_t flags, uint32_t screen_flags) {
    ng_request r = NG_REQUEST_INIT(NG_REQ_PUSH);
    r.flags = flags;
    r.screen.id = id;
    r.screen.route = route;
    r.screen_flags = screen_flags;
    ng_request_result res = NG_REQUEST_RESULT_INIT;
    MUST(ctx, ng_request_submit(ctx, &r, &res));
    return res;
}

static ng_request_result submit(ng_context *ctx, ng_request_kind kind, uint32_t flags) {
    ng_request r = NG_REQUEST_INIT(kind);
    r.flags = flags;
    ng_request_result res = NG_REQUEST_RESULT_INIT;
    MUST(ctx, ng_request_submit(ctx, &r, &res));
    return res;
}

static ng_event_result touch(ng_context *ctx, int32_t phase, uint64_t id) {
    ng_event e = NG_EVENT_INIT(NG_EVENT_TOUCH);
    e.phase = phase;
    e.touch_id = id;
    e.x = 10;
    e.y = 10;
    ng_event_result r = NG_EVENT_RESULT_INIT;
    MUST(ctx, ng_event_submit(ctx, &e, &r));
    return r;
}

static size_t depth(ng_context *ctx) {
    size_t n = 0;
    ng_stack_count(ctx, &n);
    return n;
}

/* ------------------------------------------------------------------------ */
/* 1. A lost release never blocks its touch id                               */
/* ------------------------------------------------------------------------ */

static void test_lost_release(void) {
    /* The repro: press id 1 at 0 ms, no release; presses at 500 ms,
     * 10.5 s and 120 s. Each is a new touch; each earlier one ends once. */
    host h;
    ng_context *ctx = make(&h, true);
    EXPECT(touch(ctx, NG_TOUCH_BEGAN, 1).verdict == NG_VERDICT_DELIVER, "the first press");
    const int64_t at[] = { 500 * MS, 10500 * MS, 120000 * MS };
    int cancels = 0;
    for (int i = 0; i < 3; i++) {
        MUST(ctx, ng_clock_set(ctx, at[i]));
        MUST(ctx, ng_tick(ctx));
        if (i > 0) cancels++;   /* the watchdog ended the previous press at its idle limit */
        ng_event_result r = touch(ctx, NG_TOUCH_BEGAN, 1);
        EXPECT(r.verdict == NG_VERDICT_DELIVER, "press %d at %lld ms is delivered (%s)", i + 2, (long long)(at[i] / MS),
               ng_reason_name(r.reason));
        if (i == 0) cancels++;  /* a began for a live id: its end was lost */
        EXPECT(h.touch_cancels == cancels, "press %d: %d cancels, expected %d", i + 2, h.touch_cancels, cancels);
    }
    size_t n = 0;
    MUST(ctx, ng_touch_count(ctx, &n));
    EXPECT(n == 1, "one live touch (%zu)", n);
    EXPECT(touch(ctx, NG_TOUCH_ENDED, 1).verdict == NG_VERDICT_DELIVER, "the last press ends normally");
    ng_touch_info ti = NG_TOUCH_INFO_INIT;
    EXPECT_ST(ctx, ng_touch_get(ctx, 0, &ti), NG_E_NOT_FOUND);
    ng_context_destroy(ctx);
}

/* ------------------------------------------------------------------------ */
/* 2. Wake-up and deadline                                                   */
/* ------------------------------------------------------------------------ */

typedef struct { ng_context *ctx; int posts; pthread_t self; } poster;

static void *post_thread(void *arg) {
    poster *p = arg;
    p->self = pthread_self();
    for (int i = 0; i < p->posts; i++) {
        ng_request r = NG_REQUEST_INIT(NG_REQ_PUSH);
        r.screen.id = 100 + (uint64_t)i;
        r.screen.route = "reply";
        uint64_t id = 0;
        EXPECT(ng_request_post(p->ctx, &r, &id) == NG_OK, "post %d", i);
        EXPECT(id > NG_POSTED_ID_BASE && id < (UINT64_C(1) << 53), "posted id %llu below 2^53", (unsigned long long)id);
    }
    return NULL;
}

static void test_wake(void) {
    host h;
    ng_context *ctx = make(&h, false);
    poster p = { ctx, 3, 0 };
    pthread_t t;
    pthread_create(&t, NULL, post_thread, &p);
    pthread_join(t, NULL);
    EXPECT(atomic_load(&h.wakes) == 1, "one wake-up for a burst of 3 posts (%d)", atomic_load(&h.wakes));
    EXPECT(pthread_equal(h.wake_thread, p.self), "on_wake runs on the posting thread");
    int64_t d = 1;
    MUST(ctx, ng_next_deadline(ctx, &d));
    EXPECT(d == 0, "posted work is due now (%lld)", (long long)d);
    MUST(ctx, ng_tick(ctx));
    EXPECT(h.outcomes == 3 && depth(ctx) == 4, "the tick applied the 3 posts (%d outcomes, depth %zu)", h.outcomes, depth(ctx));
    pthread_create(&t, NULL, post_thread, &(poster){ ctx, 1, 0 });
    pthread_join(t, NULL);
    EXPECT(atomic_load(&h.wakes) == 2, "after a tick the next post wakes again (%d)", atomic_load(&h.wakes));
    ng_context_destroy(ctx);
}

/* A guard's own thread calls the host table's wake: the host's on_wake runs
 * on that thread, once until the owner's next tick. */
static void *wg_create(const ng_guard_host *h, const char *c) { (void)c; return (void *)h; }
static void wg_destroy(void *i) { (void)i; }
static const ng_plugin_descriptor wake_guard = {
    NG_PLUGIN_DESCRIPTOR_ABI, .id = "org.example.waker", .name = "waker", .version = "1",
    .description = "wakes the host from its own thread", .create = wg_create, .destroy = wg_destroy,
};
static const ng_guard_host *g_wake_host;
static pthread_t g_waker_thread;
static void *waker_thread(void *arg) {
    (void)arg;
    g_waker_thread = pthread_self();
    g_wake_host->wake(g_wake_host);
    g_wake_host->wake(g_wake_host);
    return NULL;
}
static void *wg_create_keep(const ng_guard_host *h, const char *c) { g_wake_host = h; return wg_create(h, c); }

static void test_guard_wake(void) {
    host h;
    ng_context *ctx = make(&h, false);
    ng_plugin_descriptor d = wake_guard;
    d.create = wg_create_keep;
    MUST(ctx, ng_chain_add(ctx, &d, NULL));
    EXPECT(g_wake_host && g_wake_host->wake, "the host table has wake");
    pthread_t t;
    pthread_create(&t, NULL, waker_thread, NULL);
    pthread_join(t, NULL);
    EXPECT(atomic_load(&h.wakes) == 1, "a guard's wake calls on_wake, once until the next tick (%d)", atomic_load(&h.wakes));
    EXPECT(pthread_equal(h.wake_thread, g_waker_thread), "on_wake runs on the guard's thread");
    MUST(ctx, ng_tick(ctx));
    pthread_create(&t, NULL, waker_thread, NULL);
    pthread_join(t, NULL);
    EXPECT(atomic_load(&h.wakes) == 2, "after a tick the guard's wake calls on_wake again (%d)", atomic_load(&h.wakes));
    ng_context_destroy(ctx);
}

static void test_deadline(void) {
    host h;
    /* The watchdog's resting limit: any still touch is timed (by default
     * only one in the way is: navguard.h, "A live touch"). */
    g_chain = "{\"base\":\"default\",\"edits\":[{\"configure\":\"org.navguard.watchdog\","
              "\"config\":{\"resting_touch_limit_ms\":10000}}]}";
    ng_context *ctx = make(&h, true);
    g_chain = NULL;
    EXPECT(h.deadlines == 0, "nothing to arm yet (%d)", h.deadlines);
    /* A touch: the watchdog's resting limit (10 s). */
    touch(ctx, NG_TOUCH_BEGAN, 5);
    EXPECT(h.deadlines == 1 && h.deadline == 10000 * MS, "armed for the touch limit: %lld", (long long)h.deadline);
    /* A hold of 500 ms comes first. */
    uint64_t token = 0;
    MUST(ctx, ng_hold_begin(ctx, "modal", NG_MASK_KEY, 500 * MS, &token));
    EXPECT(h.deadlines == 2 && h.deadline == 500 * MS, "re-armed earlier: %lld", (long long)h.deadline);
    /* Moves are continuous input: no callback for them. */
    MUST(ctx, ng_clock_set(ctx, 100 * MS));
    for (int i = 0; i < 5; i++) touch(ctx, NG_TOUCH_MOVED, 5);
    EXPECT(h.deadlines == 2, "no on_deadline after moved touches (%d)", h.deadlines);
    /* The timer fires: the hold expires; the touch's limit now counts from
     * its last move (100 ms). */
    MUST(ctx, ng_clock_set(ctx, 500 * MS));
    MUST(ctx, ng_tick(ctx));
    EXPECT(h.deadlines == 3 && h.deadline == 10100 * MS, "next: the touch, 10 s after its last move: %lld",
           (long long)h.deadline);
    touch(ctx, NG_TOUCH_ENDED, 5);
    EXPECT(h.deadlines == 4 && h.deadline == NG_NO_DEADLINE, "disarmed when nothing is left (%lld)", (long long)h.deadline);
    /* An unchanged deadline is not told again. */
    MUST(ctx, ng_tick(ctx));
    EXPECT(h.deadlines == 4, "no call when nothing changed (%d)", h.deadlines);
    ng_context_destroy(ctx);
}

/* ------------------------------------------------------------------------ */
/* 3. Stale replies                                                          */
/* ------------------------------------------------------------------------ */

static void test_stale(void) {
    host h;
    ng_context *ctx = make(&h, true);
    push(ctx, 2, "menu", 0, 0);
    /* The network button on menu: its reply is scoped to menu. */
    ng_request reply = NG_REQUEST_INIT(NG_REQ_PUSH);
    reply.screen.id = 50;
    reply.screen.route = "result";
    reply.from_screen = 2;
    uint64_t id = 0;
    MUST(ctx, ng_request_post(ctx, &reply, &id));
    submit(ctx, NG_REQ_BACK, 0);                 /* the user went back to home */
    push(ctx, 3, "item", 0, 0);
    MUST(ctx, ng_tick(ctx));
    EXPECT(h.last_outcome.request_id == id && h.last_outcome.outcome == NG_OUTCOME_REFUSED &&
               h.last_outcome.reason == NG_REASON_STALE && h.last_outcome.guard_id == NULL,
           "the reply is refused stale: %s %s", ng_outcome_name(h.last_outcome.outcome), ng_reason_name(h.last_outcome.reason));
    EXPECT(strstr(h.last_message, "issued from screen 2") != NULL, "the message says why: %s", h.last_message);
    EXPECT(depth(ctx) == 2, "the reply did not land on item (depth %zu)", depth(ctx));
    /* The user stayed: it applies. */
    reply.from_screen = 3;
    MUST(ctx, ng_request_post(ctx, &reply, &id));
    MUST(ctx, ng_tick(ctx));
    EXPECT(h.last_outcome.request_id == id && h.last_outcome.outcome == NG_OUTCOME_APPLIED, "applied when the user stayed");
    ng_context_destroy(ctx);
}

/* The outcomes a request id got: how many, and the last one in `out`. */
static int outcomes_of(const host *h, uint64_t id, ng_outcome *out) {
    int n = 0;
    for (int i = 0; i < h->outcomes && i < 32; i++)
        if (h->log[i].request_id == id) {
            n++;
            *out = h->log[i];
        }
    return n;
}

/* Issue 28: a reply scoped to an end of a swipe back waits until the swipe
 * completes and is judged against the stack it settled to: the screen swiped
 * away (a posted reply, as a network reply comes) and the target (submitted),
 * each way the swipe can complete. Default chain. */
static void swipe_scope_case(bool finish) {
    host h;
    ng_context *ctx = make(&h, true);
    push(ctx, 2, "menu", 0, 0);
    /* The finger is down on the edge: a swipe back from menu to home. */
    touch(ctx, NG_TOUCH_BEGAN, 7);
    ng_request swipe = NG_REQUEST_INIT(NG_REQ_INTERACTIVE_BACK);
    swipe.flags = NG_REQF_ANIMATED | NG_REQF_TOUCH_DRIVEN;
    swipe.driving_touch = 7;
    ng_request_result sr = NG_REQUEST_RESULT_INIT;
    MUST(ctx, ng_request_submit(ctx, &swipe, &sr));
    EXPECT(sr.status == NG_OUTCOME_APPLIED, "the swipe began (%d)", sr.status);

    ng_request away = NG_REQUEST_INIT(NG_REQ_PUSH);   /* Menu's network reply */
    away.screen.id = 3;
    away.screen.route = "item";
    away.from_screen = 2;
    uint64_t away_id = 0;
    MUST(ctx, ng_request_post(ctx, &away, &away_id));
    MUST(ctx, ng_tick(ctx));
    ng_request target = NG_REQUEST_INIT(NG_REQ_PUSH);  /* a timer of Home's */
    target.screen.id = 4;
    target.screen.route = "promo";
    target.from_screen = 1;
    ng_request_result tr = NG_REQUEST_RESULT_INIT;
    MUST(ctx, ng_request_submit(ctx, &target, &tr));
    ng_outcome o;
    memset(&o, 0, sizeof o);
    EXPECT(outcomes_of(&h, away_id, &o) == 0, "%s: the posted reply waits while the finger is down", finish ? "finish" : "cancel");
    EXPECT(tr.status == NG_OUTCOME_DEFERRED && tr.guard_id == NULL && outcomes_of(&h, tr.request_id, &o) == 0,
           "%s: the target's request waits, deferred by no guard (%s)", finish ? "finish" : "cancel", ng_outcome_name(tr.status));

    MUST(ctx, ng_interactive_release(ctx, finish));
    touch(ctx, NG_TOUCH_ENDED, 7);
    EXPECT(outcomes_of(&h, away_id, &o) == 0 && outcomes_of(&h, tr.request_id, &o) == 0,
           "%s: nothing is judged while the swipe settles", finish ? "finish" : "cancel");
    MUST(ctx, ng_interactive_complete(ctx));

    /* Rolled back: the user is on menu, its reply applies and home's is
     * stale. Finished: the other way round. */
    ng_outcome a, t;
    memset(&a, 0, sizeof a);
    memset(&t, 0, sizeof t);
    EXPECT(outcomes_of(&h, away_id, &a) == 1 && outcomes_of(&h, tr.request_id, &t) == 1,
           "%s: each request has exactly one outcome", finish ? "finish" : "cancel");
    const ng_outcome *applied = finish ? &t : &a, *stale = finish ? &a : &t;
    EXPECT(applied->outcome == NG_OUTCOME_APPLIED, "%s: the reply for the settled top applies (%s %s)",
           finish ? "finish" : "cancel", ng_outcome_name(applied->outcome), ng_reason_name(applied->reason));
    EXPECT(stale->outcome == NG_OUTCOME_DROPPED && stale->reason == NG_REASON_STALE && stale->guard_id == NULL,
           "%s: the reply for the screen left is dropped stale (%s %s)", finish ? "finish" : "cancel",
           ng_outcome_name(stale->outcome), ng_reason_name(stale->reason));
    ng_screen_info si = NG_SCREEN_INFO_INIT;
    MUST(ctx, ng_stack_get(ctx, depth(ctx) - 1, &si));
    EXPECT(depth(ctx) == (finish ? 2u : 3u) && si.id == (finish ? 4u : 3u), "%s: the stack (depth %zu, top %llu)",
           finish ? "finish" : "cancel", depth(ctx), (unsigned long long)si.id);

    /* Destroy completes a swipe too: a waiting reply is dropped destroyed, once. */
    touch(ctx, NG_TOUCH_BEGAN, 8);
    swipe.driving_touch = 8;
    MUST(ctx, ng_request_submit(ctx, &swipe, &sr));
    ng_request late = NG_REQUEST_INIT(NG_REQ_PUSH);
    late.screen.id = 9;
    late.screen.route = "late";
    late.from_screen = si.id;
    MUST(ctx, ng_request_submit(ctx, &late, &tr));
    EXPECT(tr.status == NG_OUTCOME_DEFERRED, "%s: a reply for the screen swiped away waits (%s)",
           finish ? "finish" : "cancel", ng_outcome_name(tr.status));
    ng_context_destroy(ctx);
    EXPECT(outcomes_of(&h, tr.request_id, &o) == 1 && o.outcome == NG_OUTCOME_DROPPED && o.reason == NG_REASON_DESTROYED,
           "%s: destroy drops the waiting reply (%s %s)", finish ? "finish" : "cancel",
           ng_outcome_name(o.outcome), ng_reason_name(o.reason));
}

static void test_stale_during_swipe(void) {
    swipe_scope_case(false);
    swipe_scope_case(true);
}

/* ------------------------------------------------------------------------ */
/* 4. Questions: the confirm-leave guard of the default chain                */
/* ------------------------------------------------------------------------ */

static void test_questions(void) {
    host h;
    ng_context *ctx = make(&h, true);
    push(ctx, 2, "checkout", 0, NG_SCREENF_CONFIRM_LEAVE);
    ng_screen_info si = NG_SCREEN_INFO_INIT;
    MUST(ctx, ng_stack_get(ctx, 1, &si));
    EXPECT(si.flags == NG_SCREENF_CONFIRM_LEAVE, "the screen keeps its flags (%u)", si.flags);
    EXPECT_ST(ctx, ng_screen_set_flags(ctx, 2, 0x2), NG_E_RANGE);
    EXPECT_ST(ctx, ng_screen_set_flags(ctx, 9, 0), NG_E_NOT_FOUND);
    EXPECT_ST(ctx, ng_screen_set_flags(ctx, 2, NG_SCREENF_CONFIRM_LEAVE | 0x10000u), NG_OK);

    ng_request_result back = submit(ctx, NG_REQ_BACK, 0);
    EXPECT(back.status == NG_OUTCOME_DEFERRED, "back is held (%s)", ng_outcome_name(back.status));
    EXPECT(h.questions == 1 && strcmp(h.question_text, "Leave checkout?") == 0 && h.question.request_id == back.request_id &&
               h.question.screen_id == 2 && strcmp(h.question.topic, "org.navguard.confirm-leave") == 0,
           "asked \"%s\"", h.question_text);
    EXPECT(h.question.question_id < (UINT64_C(1) << 53), "question id below 2^53");
    ng_question q = NG_QUESTION_INIT;
    MUST(ctx, ng_question_get(ctx, &q));
    EXPECT(q.question_id == h.question.question_id && strcmp(q.text, "Leave checkout?") == 0, "ng_question_get");
    q.size = 0;
    EXPECT_ST(ctx, ng_question_get(ctx, &q), NG_E_SIZE);
    EXPECT_ST(ctx, ng_question_answer(ctx, h.question.question_id, NG_ANSWER_TIMEOUT), NG_E_RANGE);
    EXPECT_ST(ctx, ng_question_answer(ctx, h.question.question_id, NG_ANSWER_NO), NG_OK);
    EXPECT(h.question_ends == 1 && h.last_answer == NG_ANSWER_NO, "the question ended NO");
    EXPECT(h.last_outcome.request_id == back.request_id && h.last_outcome.outcome == NG_OUTCOME_DROPPED &&
               h.last_outcome.reason == NG_REASON_DECLINED, "the back is refused: %s", h.last_message);
    EXPECT_ST(ctx, ng_question_answer(ctx, h.question.question_id, NG_ANSWER_YES), NG_E_NOT_FOUND);
    ng_question none = NG_QUESTION_INIT;
    EXPECT_ST(ctx, ng_question_get(ctx, &none), NG_E_NOT_FOUND);
    EXPECT(depth(ctx) == 2, "checkout stays");

    /* Answered from inside on_question: yes. */
    h.answer_inside = 1;
    ng_request_result again = submit(ctx, NG_REQ_POP_TO_ROOT, 0);
    EXPECT(again.status == NG_OUTCOME_DEFERRED && h.question_ends == 2 && h.last_answer == NG_ANSWER_YES,
           "pop-to-root asked and answered at once");
    EXPECT(h.last_outcome.request_id == again.request_id && h.last_outcome.outcome == NG_OUTCOME_APPLIED && depth(ctx) == 1,
           "it applied (depth %zu)", depth(ctx));
    ng_context_destroy(ctx);
}

/* ------------------------------------------------------------------------ */
/* 4b. The stack the host was asked about is the stack the answer applies to */
/* ------------------------------------------------------------------------ */

/* Issue 26, item 5: "Leave shop?" is open, the host restores [home, pay,
 * receipt] and marks receipt. Before the fix, its YES popped receipt, which
 * nobody was asked about, and the question outlived the stack it was about. */
static void test_restore_withdraws_question(void) {
    host h;
    ng_context *ctx = make(&h, true);
    push(ctx, 2, "shop", 0, NG_SCREENF_CONFIRM_LEAVE);
    ng_request_result back = submit(ctx, NG_REQ_BACK, 0);
    EXPECT(back.status == NG_OUTCOME_DEFERRED && h.questions == 1 && strcmp(h.question_text, "Leave shop?") == 0,
           "back is held, the host is asked \"%s\"", h.question_text);
    uint64_t asked = h.question.question_id;
    int outcomes = h.outcomes;

    static const char snap[] = "{\"navguard_snapshot\":1,\"screens\":[{\"id\":1,\"route\":\"home\"},"
                               "{\"id\":5,\"route\":\"pay\"},{\"id\":6,\"route\":\"receipt\"}]}";
    EXPECT_ST(ctx, ng_stack_restore(ctx, snap, sizeof snap - 1), NG_OK);
    EXPECT(h.question_ends == 1 && h.last_answer == NG_ANSWER_WITHDRAWN,
           "the restore withdrew the question once (%d ends, %s)", h.question_ends, ng_answer_name(h.last_answer));
    EXPECT(h.outcomes == outcomes + 1 && h.last_outcome.request_id == back.request_id &&
               h.last_outcome.outcome == NG_OUTCOME_DROPPED && h.last_outcome.reason == NG_REASON_STALE &&
               h.last_outcome.guard_id == NULL,
           "the held back got its one outcome: %s %s (%s)", ng_outcome_name(h.last_outcome.outcome),
           ng_reason_name(h.last_outcome.reason), h.last_message);
    EXPECT(h.outcomes_at_end == outcomes, "the dialog closed before the held request ended");
    ng_question none = NG_QUESTION_INIT;
    EXPECT_ST(ctx, ng_question_get(ctx, &none), NG_E_NOT_FOUND);
    MUST(ctx, ng_screen_set_flags(ctx, 6, NG_SCREENF_CONFIRM_LEAVE));
    /* The host's dialog answers late: refused, nothing pops. */
    EXPECT_ST(ctx, ng_question_answer(ctx, asked, NG_ANSWER_YES), NG_E_NOT_FOUND);
    ng_screen_info top = NG_SCREEN_INFO_INIT;
    MUST(ctx, ng_stack_get(ctx, 2, &top));
    EXPECT(depth(ctx) == 3 && top.id == 6 && h.outcomes == outcomes + 1 && h.question_ends == 1,
           "receipt stays (depth %zu, top %llu)", depth(ctx), (unsigned long long)top.id);
    /* A Back on receipt asks about receipt. */
    MUST(ctx, ng_clock_advance(ctx, 1000 * MS));
    ng_request_result again = submit(ctx, NG_REQ_BACK, 0);
    EXPECT(again.status == NG_OUTCOME_DEFERRED && h.questions == 2 && strcmp(h.question_text, "Leave receipt?") == 0,
           "asked \"%s\"", h.question_text);

    /* A restore from inside on_question is refused: the question stays. */
    h.restore_inside = true;
    MUST(ctx, ng_question_answer(ctx, h.question.question_id, NG_ANSWER_NO));
    push(ctx, 7, "cart", 0, NG_SCREENF_CONFIRM_LEAVE);
    MUST(ctx, ng_clock_advance(ctx, 1000 * MS));
    ng_request_result third = submit(ctx, NG_REQ_BACK, 0);
    EXPECT(third.status == NG_OUTCOME_DEFERRED && h.restore_inside_status == NG_E_CALLBACK,
           "restore inside a callback: %s", ng_strstatus(h.restore_inside_status));
    EXPECT(h.questions == 3 && h.question_ends == 2 && depth(ctx) == 4, "the question is open, the stack unchanged");
    h.restore_inside = false;
    ng_context_destroy(ctx);
    EXPECT(h.question_ends == 3 && h.last_answer == NG_ANSWER_WITHDRAWN, "destroy ends it, once");
}

/* ------------------------------------------------------------------------ */
/* 5. Event timestamps, and what a refused event reads                       */
/* ------------------------------------------------------------------------ */

static int64_t g_seen_ts[8];
static int g_nseen;

static void *ts_create(const ng_guard_host *h, const char *c) { (void)c; return (void *)h; }
static void ts_destroy(void *i) { (void)i; }
static ng_vote ts_event(void *i, const ng_guard_event *e, ng_verdict *v) {
    (void)i;
    (void)v;
    if (g_nseen < 8) g_seen_ts[g_nseen++] = e->event->timestamp_ns;
    return NG_VOTE_ALLOW;
}
static const ng_plugin_descriptor ts_guard = {
    NG_PLUGIN_DESCRIPTOR_ABI, .id = "org.example.timestamps", .name = "timestamps", .version = "1",
    .description = "records event timestamps", .create = ts_create, .destroy = ts_destroy, .on_event = ts_event,
};

static void test_timestamps(void) {
    host h;
    ng_context *ctx = make(&h, false);
    MUST(ctx, ng_chain_add(ctx, &ts_guard, NULL));
    ng_event k = NG_EVENT_INIT(NG_EVENT_KEY);
    k.phase = NG_KEY_DOWN;
    ng_event_result r = NG_EVENT_RESULT_INIT;
    k.timestamp_ns = 5000;
    MUST(ctx, ng_event_submit(ctx, &k, &r));
    k.timestamp_ns = 3000;                       /* another source's clock lags */
    k.phase = NG_KEY_UP;
    MUST(ctx, ng_event_submit(ctx, &k, &r));
    k.timestamp_ns = 0;                          /* not known */
    MUST(ctx, ng_event_submit(ctx, &k, &r));
    k.timestamp_ns = 7000;
    MUST(ctx, ng_event_submit(ctx, &k, &r));
    EXPECT(g_nseen == 4 && g_seen_ts[0] == 5000 && g_seen_ts[1] == 5000 && g_seen_ts[2] == 0 && g_seen_ts[3] == 7000,
           "guards never see time go back: %lld %lld %lld %lld", (long long)g_seen_ts[0], (long long)g_seen_ts[1],
           (long long)g_seen_ts[2], (long long)g_seen_ts[3]);
    /* Refused with a status: DROP, never the zeroed DELIVER. */
    k.timestamp_ns = -1;
    r.verdict = NG_VERDICT_DELIVER;
    EXPECT_ST(ctx, ng_event_submit(ctx, &k, &r), NG_E_RANGE);
    EXPECT(r.verdict == NG_VERDICT_DROP && r.reason == NG_REASON_INVALID, "a refused event reads DROP, invalid");
    EXPECT(strstr(ng_errmsg(ctx), "negative timestamp_ns") != NULL, "errmsg: %s", ng_errmsg(ctx));
    ng_event nan = NG_EVENT_INIT(NG_EVENT_TOUCH);
    nan.x = 0.0 / 0.0;
    r.verdict = NG_VERDICT_DELIVER;
    EXPECT_ST(ctx, ng_event_submit(ctx, &nan, &r), NG_E_RANGE);
    EXPECT(r.verdict == NG_VERDICT_DROP, "a NaN began reads DROP");
    size_t n = 9;
    MUST(ctx, ng_touch_count(ctx, &n));
    EXPECT(n == 0, "and started no touch (%zu)", n);
    ng_context_destroy(ctx);
}

/* ------------------------------------------------------------------------ */
/* 6. Destroy ends the transition in flight; the names of 0.3                */
/* ------------------------------------------------------------------------ */

static void test_destroy_ends_transitions(void) {
    host h;
    ng_context *ctx = make(&h, true);
    push(ctx, 2, "menu", NG_REQF_ANIMATED, 0);
    ng_context_destroy(ctx);
    EXPECT(h.destroyed_ends == 2, "both tracks' DID came, marked NG_TRANSF_DESTROYED (%d)", h.destroyed_ends);
}

static void test_names(void) {
    EXPECT(strcmp(ng_key_phase_name(NG_KEY_REPEAT), "repeat") == 0, "key phase name");
    EXPECT(strcmp(ng_answer_name(NG_ANSWER_WITHDRAWN), "withdrawn") == 0, "answer name");
    EXPECT(strcmp(ng_reason_name(NG_REASON_STALE), "stale") == 0 && strcmp(ng_reason_name(NG_REASON_ASKING), "asking") == 0,
           "reason names");
    EXPECT(strcmp(ng_answer_name(99), "unknown") == 0, "unknown answer");
}

int main(void) {
    test_lost_release();
    test_wake();
    test_guard_wake();
    test_deadline();
    test_stale();
    test_stale_during_swipe();
    test_questions();
    test_restore_withdraws_question();
    test_timestamps();
    test_destroy_ends_transitions();
    test_names();
    if (g_failures) {
        fprintf(stderr, "test_contract: %d of %d checks FAILED\n", g_failures, g_checks);
        return 1;
    }
    printf("test_contract: all %d checks passed\n", g_checks);
    return 0;
}
