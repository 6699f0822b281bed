/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_abi.c — the C ABI's bad-input table, through navguard.h only.
 *
 *  - NULL for every pointer argument of every function;
 *  - NULL, destroyed (stale) and foreign handles ((ng_context *)0x1234, a
 *    pointer to a stack variable) for every context function;
 *  - out-of-range enums and flags (request kind, track, clock, event type,
 *    touch phase, shape kind, request/event/view flags, hold mask);
 *  - invalid UTF-8 and oversize (NG_MAX_STRING + 1 bytes) strings in routes,
 *    identities, labels, paths and configurations;
 *  - struct size 0 (NG_E_SIZE);
 *  - status, reason, outcome and request-kind names;
 *  - a request with bad content still gets an id and exactly one outcome
 *    (REFUSED, NG_REASON_INVALID);
 *  - callback and thread rules (NG_E_CALLBACK, NG_E_THREAD).
 *
 * Every check runs and failures are counted (not assert()), so one run lists
 * every deviation from the header's contract.
 */
#define _POSIX_C_SOURCE 200809L
#include <navguard/navguard.h>
#include <navguard/plugin.h>

#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

/* Handles here may be invalid or destroyed, so these checks read no
 * ng_errmsg: they replace check.h's. A call must return `want`. */
#undef EXPECT_ST
#undef MUST
#define EXPECT_ST(call, want)                                                                     \
    do {                                                                                          \
        ng_status st_ = (call);                                                                   \
        g_checks++;                                                                               \
        if (st_ != (want)) {                                                                      \
            g_failures++;                                                                         \
            fprintf(stderr, "FAIL test_abi.c:%d: %s\n    returned %s, expected %s\n", __LINE__, #call, \
                    ng_strstatus(st_), ng_strstatus(want));                                       \
        }                                                                                         \
    } while (0)

/* Set-up calls that must succeed (the test cannot go on otherwise). */
#define MUST(call)                                                                                \
    do {                                                                                          \
        ng_status st_ = (call);                                                                   \
        if (st_ != NG_OK) {                                                                       \
            fprintf(stderr, "FATAL test_abi.c:%d: %s returned %s\n", __LINE__, #call, ng_strstatus(st_)); \
            exit(1);                                                                              \
        }                                                                                         \
    } while (0)

/* ------------------------------------------------------------------------ */
/* Outcome bookkeeping                                                       */
/* ------------------------------------------------------------------------ */

#define MAX_SEEN 256
typedef struct {
    uint64_t id;
    int count;
    ng_outcome_kind outcome;
    ng_reason reason;
} seen_outcome;

typedef struct {
    seen_outcome seen[MAX_SEEN];
    size_t n;
    /* for callback-rule tests */
    bool test_callback_rules;
    ng_status destroy_in_cb, tick_in_cb, set_root_in_cb, chain_add_in_cb, restore_in_cb, configure_in_cb;
    ng_status stack_count_in_cb;
    bool thread_test;
    ng_status other_thread_status;
    bool invalid_in_cb;
    ng_status invalid_in_cb_status;
    ng_request_result invalid_in_cb_result;
} recorder;

static void rec_outcome(void *user, ng_context *ctx, const ng_outcome *o);

static seen_outcome *find_seen(recorder *r, uint64_t id) {
    for (size_t i = 0; i < r->n; i++)
        if (r->seen[i].id == id) return &r->seen[i];
    return NULL;
}

/* ------------------------------------------------------------------------ */
/* Helpers                                                                   */
/* ------------------------------------------------------------------------ */

static ng_context *new_ctx(recorder *r) {
    ng_options o = NG_OPTIONS_INIT;
    o.clock = NG_CLOCK_MANUAL;
    o.delegate.user = r;
    o.delegate.on_outcome = r ? rec_outcome : NULL;
    ng_context *ctx = NULL;
    MUST(ng_context_create(&o, &ctx));
    return ctx;
}

static ng_context *new_ctx_root(recorder *r) {
    ng_context *ctx = new_ctx(r);
    ng_screen root = { 1, "home", NULL };
    MUST(ng_stack_set_root(ctx, &root));
    return ctx;
}

static char *long_string(size_t n, char c) {
    char *s = malloc(n + 1);
    if (!s) exit(1);
    memset(s, c, n);
    s[n] = '\0';
    return s;
}

static const char BAD_UTF8_1[] = "caf\xc3";            /* truncated sequence */
static const char BAD_UTF8_2[] = "\xff\xfe route";      /* invalid bytes */
static const char BAD_UTF8_3[] = "\xed\xa0\x80";        /* UTF-16 surrogate */
static const char BAD_UTF8_4[] = "\xc0\xaf";            /* overlong '/' */
static const char *const BAD_UTF8[] = { BAD_UTF8_1, BAD_UTF8_2, BAD_UTF8_3, BAD_UTF8_4 };
#define N_BAD_UTF8 4

/* A guard descriptor for ng_chain_add tests. */
static void *g_create(const ng_guard_host *h, const char *c) {
    (void)h;
    (void)c;
    static int dummy;
    return &dummy;
}
static void g_destroy(void *i) { (void)i; }
static const ng_plugin_descriptor good_desc = {
    NG_PLUGIN_DESCRIPTOR_ABI, .id = "org.navguard.test.abi", .name = "abi", .version = "1.0",
    .description = "test guard", .create = g_create, .destroy = g_destroy,
};

/* ------------------------------------------------------------------------ */
/* Names                                                                     */
/* ------------------------------------------------------------------------ */

static void test_names(void) {
    /* status strings: distinct, known, and "unknown status" past the end */
    for (ng_status i = 0; i < NG_STATUS_COUNT; i++) {
        const char *a = ng_strstatus(i);
        EXPECT(a != NULL, "ng_strstatus(%d) is NULL", i);
        if (!a) continue;
        EXPECT(strcmp(a, "unknown status") != 0, "ng_strstatus(%d) is \"unknown status\"", i);
        for (ng_status j = 0; j < i; j++) {
            const char *b = ng_strstatus(j);
            EXPECT(b && strcmp(a, b) != 0, "ng_strstatus(%d) == ng_strstatus(%d) == \"%s\"", i, j, a);
        }
    }
    EXPECT(ng_strstatus(NG_STATUS_COUNT) && strcmp(ng_strstatus(NG_STATUS_COUNT), "unknown status") == 0,
           "ng_strstatus(NG_STATUS_COUNT) = \"%s\"", ng_strstatus(NG_STATUS_COUNT));
    EXPECT(ng_strstatus(-1) && strcmp(ng_strstatus(-1), "unknown status") == 0, "ng_strstatus(-1) = \"%s\"",
           ng_strstatus(-1));
    EXPECT(ng_strstatus(INT32_MAX) && strcmp(ng_strstatus(INT32_MAX), "unknown status") == 0, "INT32_MAX");

    /* reasons: every one named, distinct; "unknown" past the end */
    for (ng_reason i = 0; i < NG_REASON_COUNT; i++) {
        const char *a = ng_reason_name(i);
        EXPECT(a != NULL && strcmp(a, "unknown") != 0, "ng_reason_name(%d) = \"%s\"", i, a ? a : "(null)");
        if (!a) continue;
        for (ng_reason j = 0; j < i; j++) {
            const char *b = ng_reason_name(j);
            EXPECT(b && (strcmp(a, b) != 0 || strcmp(a, "unknown") == 0), "ng_reason_name(%d) == ng_reason_name(%d) == \"%s\"", i, j, a);
        }
    }
    EXPECT(strcmp(ng_reason_name(NG_REASON_BUSY), "busy") == 0, "busy");
    EXPECT(strcmp(ng_reason_name(NG_REASON_COUNT), "unknown") == 0, "ng_reason_name(COUNT)");
    EXPECT(strcmp(ng_reason_name(-1), "unknown") == 0, "ng_reason_name(-1)");

    /* request kinds and outcomes */
    for (ng_request_kind k = 0; k < NG_REQ_KIND_COUNT; k++) {
        const char *a = ng_request_kind_name(k);
        EXPECT(a && strcmp(a, "unknown") != 0, "ng_request_kind_name(%d)", k);
        for (ng_request_kind j = 0; j < k; j++) EXPECT(strcmp(a, ng_request_kind_name(j)) != 0, "kind %d == %d", k, j);
    }
    EXPECT(strcmp(ng_request_kind_name(NG_REQ_PUSH), "push") == 0, "push");
    EXPECT(strcmp(ng_request_kind_name(NG_REQ_KIND_COUNT), "unknown") == 0, "kind COUNT");
    EXPECT(strcmp(ng_request_kind_name(-1), "unknown") == 0, "kind -1");
    for (ng_outcome_kind k = NG_OUTCOME_APPLIED; k <= NG_OUTCOME_QUEUED; k++) {
        const char *a = ng_outcome_name(k);
        EXPECT(a && strcmp(a, "unknown") != 0, "ng_outcome_name(%d)", k);
        for (ng_outcome_kind j = 0; j < k; j++) EXPECT(strcmp(a, ng_outcome_name(j)) != 0, "outcome %d == %d", k, j);
    }
    EXPECT(strcmp(ng_outcome_name(NG_OUTCOME_APPLIED), "applied") == 0, "applied");
    EXPECT(strcmp(ng_outcome_name(NG_OUTCOME_QUEUED + 1), "unknown") == 0, "outcome past the end");

    /* versions */
    EXPECT(ng_version() == NG_VERSION_NUMBER, "ng_version() %d vs header %d", ng_version(), NG_VERSION_NUMBER);
    EXPECT(ng_version_string() && strcmp(ng_version_string(), NG_VERSION_STRING) == 0, "ng_version_string");
    EXPECT(ng_plugin_dir() != NULL, "ng_plugin_dir never NULL");
    EXPECT(ng_default_chain() != NULL && strstr(ng_default_chain(), "\"guards\"") != NULL, "ng_default_chain");
}

/* ------------------------------------------------------------------------ */
/* Bad handles                                                               */
/* ------------------------------------------------------------------------ */

/* Every context function with the handle `h` and otherwise valid arguments
 * must return NG_E_HANDLE (ng_context_destroy: NG_OK for NULL). */
static void bad_handle_table(ng_context *h, const char *what) {
    ng_screen root = { 1, "home", NULL };
    ng_request rq = NG_REQUEST_INIT(NG_REQ_PUSH);
    rq.screen.id = 2;
    rq.screen.route = "menu";
    ng_request_result rr = NG_REQUEST_RESULT_INIT;
    size_t n = 0;
    ng_screen_info si = NG_SCREEN_INFO_INIT;
    char *txt = NULL;
    size_t len = 0;
    bool busy = false;
    uint64_t id = 0, tok = 0;
    uint32_t mask = 0;
    int64_t t = 0;
    ng_event ev = NG_EVENT_INIT(NG_EVENT_TOUCH);
    ng_event_result er = NG_EVENT_RESULT_INIT;
    ng_view v = NG_VIEW_INIT;
    v.id = 1;
    v.frame.width = 10;
    v.frame.height = 10;
    ng_touch_info ti = NG_TOUCH_INFO_INIT;
    ng_track_info track = NG_TRACK_INFO_INIT;
    ng_hold_view hold = NG_HOLD_VIEW_INIT;
    const char *gid = NULL;
    static const char snap[] = "{\"navguard_snapshot\":1,\"screens\":[{\"id\":1,\"route\":\"home\",\"identity\":\"home\"}]}";

    fprintf(stderr, "  bad handle: %s\n", what);
    if (h == NULL) EXPECT_ST(ng_context_destroy(h), NG_OK);
    else EXPECT_ST(ng_context_destroy(h), NG_E_HANDLE);
    EXPECT(ng_errmsg(h) != NULL && ng_errmsg(h)[0] != '\0', "ng_errmsg(%s) gives a static text", what);
    EXPECT_ST(ng_stack_set_root(h, &root), NG_E_HANDLE);
    EXPECT_ST(ng_stack_count(h, &n), NG_E_HANDLE);
    EXPECT_ST(ng_stack_get(h, 0, &si), NG_E_HANDLE);
    EXPECT_ST(ng_stack_snapshot(h, &txt, &len), NG_E_HANDLE);
    EXPECT(txt == NULL, "no text allocated for a bad handle");
    EXPECT_ST(ng_stack_restore(h, snap, sizeof snap - 1), NG_E_HANDLE);
    EXPECT_ST(ng_request_submit(h, &rq, &rr), NG_E_HANDLE);
    EXPECT_ST(ng_request_post(h, &rq, &id), NG_E_HANDLE);
    EXPECT_ST(ng_transition_finish(h, NG_TRACK_ALL), NG_E_HANDLE);
    EXPECT_ST(ng_interactive_update(h, 0.5), NG_E_HANDLE);
    EXPECT_ST(ng_interactive_cancel(h), NG_E_HANDLE);
    EXPECT_ST(ng_interactive_release(h, true), NG_E_HANDLE);
    EXPECT_ST(ng_interactive_complete(h), NG_E_HANDLE);
    EXPECT_ST(ng_track_get(h, NG_TRACK_SCREEN, &track), NG_E_HANDLE);
    EXPECT_ST(ng_hold_get(h, 0, &hold), NG_E_HANDLE);
    EXPECT_ST(ng_transition_in_flight(h, NG_TRACK_SCREEN, &busy, &id), NG_E_HANDLE);
    EXPECT_ST(ng_hold_begin(h, "x", NG_MASK_TOUCH, 0, &tok), NG_E_HANDLE);
    EXPECT_ST(ng_hold_end(h, 1), NG_E_HANDLE);
    EXPECT_ST(ng_hold_state(h, &mask, &n), NG_E_HANDLE);
    EXPECT_ST(ng_tick(h), NG_E_HANDLE);
    EXPECT_ST(ng_next_deadline(h, &t), NG_E_HANDLE);
    EXPECT_ST(ng_now(h, &t), NG_E_HANDLE);
    EXPECT_ST(ng_clock_set(h, 10), NG_E_HANDLE);
    EXPECT_ST(ng_clock_advance(h, 10), NG_E_HANDLE);
    EXPECT_ST(ng_event_submit(h, &ev, &er), NG_E_HANDLE);
    EXPECT_ST(ng_view_set(h, &v), NG_E_HANDLE);
    EXPECT_ST(ng_view_remove(h, 1), NG_E_HANDLE);
    EXPECT_ST(ng_hit_test(h, 1, 1, &id), NG_E_HANDLE);
    EXPECT_ST(ng_touch_count(h, &n), NG_E_HANDLE);
    EXPECT_ST(ng_touch_get(h, 0, &ti), NG_E_HANDLE);
    EXPECT_ST(ng_chain_add(h, &good_desc, NULL), NG_E_HANDLE);
    EXPECT_ST(ng_chain_count(h, &n), NG_E_HANDLE);
    EXPECT_ST(ng_chain_get_id(h, 0, &gid), NG_E_HANDLE);
    EXPECT_ST(ng_plugin_load(h, "/nonexistent/guard.so", NULL), NG_E_HANDLE);
    EXPECT_ST(ng_chain_configure(h, NULL), NG_E_HANDLE);
    EXPECT_ST(ng_chain_configure(h, "{\"guards\":[]}"), NG_E_HANDLE);
    EXPECT_ST(ng_chain_configure_file(h, "/nonexistent.json"), NG_E_HANDLE);
}

static void test_handles(void) {
    bad_handle_table(NULL, "NULL");
    bad_handle_table((ng_context *)(uintptr_t)0x1234, "(ng_context *)0x1234");
    long local = 42;
    bad_handle_table((ng_context *)(void *)&local, "pointer to a stack variable");
    bad_handle_table((ng_context *)(uintptr_t)UINTPTR_MAX, "all ones");

    /* stale: destroyed, and still stale after its slot is reused */
    ng_context *a = new_ctx_root(NULL);
    EXPECT_ST(ng_context_destroy(a), NG_OK);
    bad_handle_table(a, "destroyed handle");
    ng_context *b = new_ctx_root(NULL);
    bad_handle_table(a, "destroyed handle after a new context was created");
    size_t n = 0;
    EXPECT_ST(ng_stack_count(b, &n), NG_OK);
    EXPECT(n == 1, "the new context is intact (%zu screens)", n);
    EXPECT_ST(ng_context_destroy(b), NG_OK);
    EXPECT_ST(ng_context_destroy(b), NG_E_HANDLE); /* double destroy */
    EXPECT_ST(ng_context_destroy(NULL), NG_OK);
}

/* ------------------------------------------------------------------------ */
/* NULL pointer arguments                                                    */
/* ------------------------------------------------------------------------ */

static void test_null_pointers(void) {
    recorder r;
    memset(&r, 0, sizeof r);
    ng_context *ctx = new_ctx_root(&r);

    EXPECT_ST(ng_context_create(NULL, NULL), NG_E_NULL);
    ng_options o = NG_OPTIONS_INIT;
    EXPECT_ST(ng_context_create(&o, NULL), NG_E_NULL);
    ng_context *c2 = NULL;
    EXPECT_ST(ng_context_create(NULL, &c2), NG_OK); /* options may be NULL */
    EXPECT(c2 != NULL, "NULL options give a context");
    EXPECT_ST(ng_context_destroy(c2), NG_OK);

    /* stack */
    ng_context *empty = new_ctx(NULL);
    EXPECT_ST(ng_stack_set_root(empty, NULL), NG_E_NULL);
    ng_screen noroute = { 1, NULL, NULL };
    EXPECT_ST(ng_stack_set_root(empty, &noroute), NG_E_NULL);
    ng_screen emptyroute = { 1, "", NULL };
    EXPECT_ST(ng_stack_set_root(empty, &emptyroute), NG_E_RANGE);
    ng_screen zero = { 0, "home", NULL };
    EXPECT_ST(ng_stack_set_root(empty, &zero), NG_E_RANGE);
    size_t n = 99;
    EXPECT_ST(ng_stack_count(empty, &n), NG_OK);
    EXPECT(n == 0, "no screens before the root (%zu)", n);
    /* a request before the root */
    ng_request early = NG_REQUEST_INIT(NG_REQ_POP);
    EXPECT_ST(ng_request_submit(empty, &early, NULL), NG_E_STATE);
    EXPECT_ST(ng_context_destroy(empty), NG_OK);

    EXPECT_ST(ng_stack_count(ctx, NULL), NG_E_NULL);
    EXPECT_ST(ng_stack_get(ctx, 0, NULL), NG_E_NULL);
    size_t len = 0;
    EXPECT_ST(ng_stack_snapshot(ctx, NULL, &len), NG_E_NULL);
    char *txt = NULL;
    EXPECT_ST(ng_stack_snapshot(ctx, &txt, NULL), NG_OK); /* out_len may be NULL */
    EXPECT(txt != NULL && strstr(txt, "navguard_snapshot") != NULL, "snapshot text");
    ng_free(txt);
    ng_free(NULL);
    EXPECT_ST(ng_stack_restore(ctx, NULL, 10), NG_E_NULL);

    /* requests */
    ng_request_result rr = NG_REQUEST_RESULT_INIT;
    EXPECT_ST(ng_request_submit(ctx, NULL, &rr), NG_E_NULL);
    ng_request pop = NG_REQUEST_INIT(NG_REQ_POP);
    EXPECT_ST(ng_request_submit(ctx, &pop, NULL), NG_OK); /* out may be NULL (refused at-root) */
    uint64_t id = 0;
    EXPECT_ST(ng_request_post(ctx, NULL, &id), NG_E_NULL);
    EXPECT_ST(ng_request_post(ctx, &pop, NULL), NG_OK); /* out_id may be NULL */
    MUST(ng_tick(ctx));
    /* a push without a route / replace-stack without screens: invalid content */
    ng_request push = NG_REQUEST_INIT(NG_REQ_PUSH);
    push.screen.id = 5;
    EXPECT_ST(ng_request_post(ctx, &push, &id), NG_E_NULL);
    ng_request repl = NG_REQUEST_INIT(NG_REQ_REPLACE_STACK);
    repl.screen_count = 1;
    EXPECT_ST(ng_request_post(ctx, &repl, &id), NG_E_NULL);

    /* transitions */
    uint64_t rid = 7;
    EXPECT_ST(ng_transition_in_flight(ctx, NG_TRACK_SCREEN, NULL, &rid), NG_E_NULL);
    bool busy = true;
    EXPECT_ST(ng_transition_in_flight(ctx, NG_TRACK_SCREEN, &busy, NULL), NG_OK);
    EXPECT(!busy, "nothing in flight");

    /* holds */
    EXPECT_ST(ng_hold_begin(ctx, "x", NG_MASK_TOUCH, 0, NULL), NG_E_NULL);
    uint64_t tok = 0;
    EXPECT_ST(ng_hold_begin(ctx, NULL, NG_MASK_TOUCH, 0, &tok), NG_OK); /* label may be NULL */
    EXPECT(tok != 0, "token never 0");
    EXPECT_ST(ng_hold_end(ctx, tok), NG_OK);
    EXPECT_ST(ng_hold_end(ctx, tok), NG_E_NOT_FOUND);
    EXPECT_ST(ng_hold_end(ctx, 0), NG_E_NOT_FOUND);
    EXPECT_ST(ng_hold_state(ctx, NULL, NULL), NG_OK); /* either out may be NULL */

    /* time */
    EXPECT_ST(ng_next_deadline(ctx, NULL), NG_E_NULL);
    EXPECT_ST(ng_now(ctx, NULL), NG_E_NULL);

    /* input */
    ng_event_result er = NG_EVENT_RESULT_INIT;
    EXPECT_ST(ng_event_submit(ctx, NULL, &er), NG_E_NULL);
    EXPECT_ST(ng_view_set(ctx, NULL), NG_E_NULL);
    ng_view poly = NG_VIEW_INIT;
    poly.id = 3;
    poly.frame.width = 10;
    poly.frame.height = 10;
    poly.shape.kind = NG_SHAPE_POLYGON;
    poly.shape.points = NULL;
    poly.shape.point_count = 3;
    EXPECT_ST(ng_view_set(ctx, &poly), NG_E_NULL);
    EXPECT_ST(ng_hit_test(ctx, 1, 1, NULL), NG_E_NULL);
    EXPECT_ST(ng_touch_count(ctx, NULL), NG_E_NULL);
    EXPECT_ST(ng_touch_get(ctx, 0, NULL), NG_E_NULL);

    /* chain */
    EXPECT_ST(ng_chain_add(ctx, NULL, NULL), NG_E_NULL);
    EXPECT_ST(ng_chain_count(ctx, NULL), NG_E_NULL);
    EXPECT_ST(ng_chain_get_id(ctx, 0, NULL), NG_E_NULL);
    EXPECT_ST(ng_plugin_load(ctx, NULL, NULL), NG_E_NULL);
    EXPECT_ST(ng_chain_configure_file(ctx, NULL), NG_E_NULL);
    size_t count = 9;
    EXPECT_ST(ng_chain_count(ctx, &count), NG_OK);
    EXPECT(count == 0, "the chain stays empty (%zu)", count);

    EXPECT_ST(ng_context_destroy(ctx), NG_OK);
}

/* ------------------------------------------------------------------------ */
/* Out-of-range values                                                       */
/* ------------------------------------------------------------------------ */

static void rec_outcome(void *user, ng_context *ctx, const ng_outcome *o) {
    recorder *r = user;
    (void)ctx;
    seen_outcome *s = find_seen(r, o->request_id);
    if (!s && r->n < MAX_SEEN) {
        s = &r->seen[r->n++];
        s->id = o->request_id;
    }
    if (s) {
        s->count++;
        s->outcome = o->outcome;
        s->reason = o->reason;
    }
}

static void test_ranges(void) {
    ng_context *c = NULL;
    ng_options o = NG_OPTIONS_INIT;
    o.clock = 2;
    EXPECT_ST(ng_context_create(&o, &c), NG_E_RANGE);
    o.clock = -1;
    EXPECT_ST(ng_context_create(&o, &c), NG_E_RANGE);
    o.clock = NG_CLOCK_MANUAL;
    o.manual_start_ns = -1;
    EXPECT_ST(ng_context_create(&o, &c), NG_E_RANGE);
    o.manual_start_ns = 0;
    o.default_duration_ns = -5;
    EXPECT_ST(ng_context_create(&o, &c), NG_E_RANGE);

    recorder r;
    memset(&r, 0, sizeof r);
    ng_context *ctx = new_ctx_root(&r);

    /* tracks */
    EXPECT_ST(ng_transition_finish(ctx, 3), NG_E_RANGE);
    EXPECT_ST(ng_transition_finish(ctx, -1), NG_E_RANGE);
    EXPECT_ST(ng_transition_finish(ctx, NG_TRACK_SCREEN), NG_E_NOT_FOUND);
    EXPECT_ST(ng_transition_finish(ctx, NG_TRACK_ALL), NG_E_NOT_FOUND);
    bool busy = false;
    EXPECT_ST(ng_transition_in_flight(ctx, NG_TRACK_ALL, &busy, NULL), NG_E_RANGE);
    EXPECT_ST(ng_transition_in_flight(ctx, 7, &busy, NULL), NG_E_RANGE);
    EXPECT_ST(ng_transition_in_flight(ctx, -1, &busy, NULL), NG_E_RANGE);

    /* interactive progress */
    EXPECT_ST(ng_interactive_update(ctx, NAN), NG_E_RANGE);
    EXPECT_ST(ng_interactive_update(ctx, 1.5), NG_E_RANGE);
    EXPECT_ST(ng_interactive_update(ctx, -0.1), NG_E_RANGE);
    EXPECT_ST(ng_interactive_update(ctx, INFINITY), NG_E_RANGE);
    EXPECT_ST(ng_interactive_update(ctx, 0.5), NG_E_NOT_FOUND);
    EXPECT_ST(ng_interactive_cancel(ctx), NG_E_NOT_FOUND);

    /* holds */
    uint64_t tok = 0;
    EXPECT_ST(ng_hold_begin(ctx, "x", 0x40u, 0, &tok), NG_E_RANGE);
    EXPECT_ST(ng_hold_begin(ctx, "x", 0xFFFFFFFFu, 0, &tok), NG_E_RANGE);
    EXPECT_ST(ng_hold_begin(ctx, "x", NG_MASK_TOUCH, -1, &tok), NG_E_RANGE);
    uint32_t mask = 1;
    size_t count = 1;
    EXPECT_ST(ng_hold_state(ctx, &mask, &count), NG_OK);
    EXPECT(mask == 0 && count == 0, "no hold after the refused begins (mask %u, %zu)", mask, count);
    EXPECT_ST(ng_hold_begin(ctx, "default mask", 0, 0, &tok), NG_OK);
    EXPECT_ST(ng_hold_state(ctx, &mask, &count), NG_OK);
    EXPECT(mask == NG_MASK_DEFAULT && count == 1, "mask 0 means NG_MASK_DEFAULT (got 0x%x)", mask);
    EXPECT_ST(ng_hold_end(ctx, tok), NG_OK);

    /* clock */
    EXPECT_ST(ng_clock_set(ctx, 100), NG_OK);
    EXPECT_ST(ng_clock_set(ctx, 99), NG_E_RANGE);
    EXPECT_ST(ng_clock_set(ctx, -1), NG_E_RANGE);
    EXPECT_ST(ng_clock_advance(ctx, -1), NG_E_RANGE);
    EXPECT_ST(ng_clock_advance(ctx, INT64_MAX), NG_E_RANGE);
    int64_t now = 0;
    EXPECT_ST(ng_now(ctx, &now), NG_OK);
    EXPECT(now == 100, "clock unchanged by refused calls (%" PRId64 ")", now);
    ng_context *mono = NULL;
    MUST(ng_context_create(NULL, &mono));
    EXPECT_ST(ng_clock_set(mono, 1), NG_E_STATE);
    EXPECT_ST(ng_clock_advance(mono, 1), NG_E_STATE);
    EXPECT_ST(ng_context_destroy(mono), NG_OK);

    /* events */
    ng_event_result er = NG_EVENT_RESULT_INIT;
    ng_event e = NG_EVENT_INIT(NG_EVENT_TOUCH);
    e.type = NG_EVENT_TYPE_COUNT;
    EXPECT_ST(ng_event_submit(ctx, &e, &er), NG_E_RANGE);
    e.type = -1;
    EXPECT_ST(ng_event_submit(ctx, &e, &er), NG_E_RANGE);
    e.type = NG_EVENT_TOUCH;
    e.phase = 4;
    EXPECT_ST(ng_event_submit(ctx, &e, &er), NG_E_RANGE);
    e.phase = -1;
    EXPECT_ST(ng_event_submit(ctx, &e, &er), NG_E_RANGE);
    e.phase = NG_TOUCH_BEGAN;
    e.flags = 0x2u;
    EXPECT_ST(ng_event_submit(ctx, &e, &er), NG_E_RANGE);
    e.flags = NG_EVF_HAS_TARGET; /* with target_view 0 */
    EXPECT_ST(ng_event_submit(ctx, &e, &er), NG_E_RANGE);
    e.flags = 0;
    e.x = NAN;
    EXPECT_ST(ng_event_submit(ctx, &e, &er), NG_E_RANGE);
    e.x = 0;
    e.y = NAN;
    EXPECT_ST(ng_event_submit(ctx, &e, &er), NG_E_RANGE);
    size_t touches = 9;
    EXPECT_ST(ng_touch_count(ctx, &touches), NG_OK);
    EXPECT(touches == 0, "no touch recorded from refused events (%zu)", touches);
    /* a key event's phase is host-defined: any value is fine */
    ng_event key = NG_EVENT_INIT(NG_EVENT_KEY);
    key.phase = 12345;
    EXPECT_ST(ng_event_submit(ctx, &key, &er), NG_OK);
    /* moved for an unknown touch: dropped INVALID (a verdict, not an error) */
    ng_event mv = NG_EVENT_INIT(NG_EVENT_TOUCH);
    mv.phase = NG_TOUCH_MOVED;
    mv.touch_id = 77;
    EXPECT_ST(ng_event_submit(ctx, &mv, &er), NG_OK);
    EXPECT(er.verdict == NG_VERDICT_DROP && er.reason == NG_REASON_INVALID, "moved for an unknown touch: drop invalid");
    EXPECT_ST(ng_hit_test(ctx, NAN, 0, &tok), NG_E_RANGE);
    ng_touch_info ti = NG_TOUCH_INFO_INIT;
    EXPECT_ST(ng_touch_get(ctx, 0, &ti), NG_E_NOT_FOUND);

    /* views */
    ng_view v = NG_VIEW_INIT;
    v.id = 1;
    v.frame.width = 100;
    v.frame.height = 100;
    EXPECT_ST(ng_view_set(ctx, &v), NG_OK);
    ng_view bad = v;
    bad.id = 2;
    bad.shape.kind = 4;
    EXPECT_ST(ng_view_set(ctx, &bad), NG_E_RANGE);
    bad.shape.kind = -1;
    EXPECT_ST(ng_view_set(ctx, &bad), NG_E_RANGE);
    bad = v;
    bad.id = 2;
    bad.flags = 0x10u;
    EXPECT_ST(ng_view_set(ctx, &bad), NG_E_RANGE);
    bad = v;
    bad.id = 0;
    EXPECT_ST(ng_view_set(ctx, &bad), NG_E_RANGE);
    bad = v;
    bad.id = 2;
    bad.alpha = 1.5;
    EXPECT_ST(ng_view_set(ctx, &bad), NG_E_RANGE);
    bad.alpha = NAN;
    EXPECT_ST(ng_view_set(ctx, &bad), NG_E_RANGE);
    bad = v;
    bad.id = 2;
    bad.frame.width = -1;
    EXPECT_ST(ng_view_set(ctx, &bad), NG_E_RANGE);
    bad.frame.width = NAN;
    EXPECT_ST(ng_view_set(ctx, &bad), NG_E_RANGE);
    bad = v;
    bad.id = 2;
    bad.shape.kind = NG_SHAPE_CIRCLE;
    bad.shape.radius = -3;
    EXPECT_ST(ng_view_set(ctx, &bad), NG_E_RANGE);
    bad = v;
    bad.id = 2;
    bad.shape.kind = NG_SHAPE_POLYGON;
    ng_point two[2] = { { 0, 0 }, { 1, 1 } };
    bad.shape.points = two;
    bad.shape.point_count = 2;
    EXPECT_ST(ng_view_set(ctx, &bad), NG_E_RANGE);
    bad = v;
    bad.id = 2;
    bad.parent = 999;
    EXPECT_ST(ng_view_set(ctx, &bad), NG_E_NOT_FOUND);
    ng_view child = v;
    child.id = 2;
    child.parent = 1;
    EXPECT_ST(ng_view_set(ctx, &child), NG_OK);
    ng_view cyc = v;
    cyc.parent = 2; /* 1 under its own child */
    EXPECT_ST(ng_view_set(ctx, &cyc), NG_E_STATE);
    cyc.parent = 1; /* itself */
    EXPECT_ST(ng_view_set(ctx, &cyc), NG_E_STATE);
    EXPECT_ST(ng_view_remove(ctx, 999), NG_E_NOT_FOUND);
    EXPECT_ST(ng_view_remove(ctx, 0), NG_E_NOT_FOUND);

    /* stack */
    ng_screen_info si = NG_SCREEN_INFO_INIT;
    EXPECT_ST(ng_stack_get(ctx, 1, &si), NG_E_NOT_FOUND);
    EXPECT_ST(ng_stack_get(ctx, (size_t)-1, &si), NG_E_NOT_FOUND);
    ng_screen root2 = { 2, "again", NULL };
    EXPECT_ST(ng_stack_set_root(ctx, &root2), NG_E_STATE);
    static const char garbage[] = "{\"navguard_snapshot\":1,\"screens\":[";
    EXPECT_ST(ng_stack_restore(ctx, garbage, sizeof garbage - 1), NG_E_PARSE);
    static const char dup[] = "{\"navguard_snapshot\":1,\"screens\":[{\"id\":1,\"route\":\"a\"},{\"id\":1,\"route\":\"b\"}]}";
    ng_status st = ng_stack_restore(ctx, dup, sizeof dup - 1);
    EXPECT(st == NG_E_RANGE || st == NG_E_PARSE, "snapshot with a duplicate id: %s", ng_strstatus(st));
    size_t n = 0;
    EXPECT_ST(ng_stack_count(ctx, &n), NG_OK);
    EXPECT(n == 1, "stack unchanged after refused restores (%zu)", n);

    /* chain */
    const char *gid = NULL;
    EXPECT_ST(ng_chain_get_id(ctx, 0, &gid), NG_E_NOT_FOUND);

    EXPECT_ST(ng_context_destroy(ctx), NG_OK);
}

/* ------------------------------------------------------------------------ */
/* Requests with bad content: an id and exactly one outcome                  */
/* ------------------------------------------------------------------------ */

static void expect_invalid_request(ng_context *ctx, recorder *r, const ng_request *rq, const char *what) {
    ng_request_result res = NG_REQUEST_RESULT_INIT;
    res.request_id = 0;
    size_t before = r->n;
    EXPECT_ST(ng_request_submit(ctx, rq, &res), NG_OK);
    EXPECT(res.request_id != 0, "%s: an id", what);
    EXPECT(res.status == NG_OUTCOME_REFUSED, "%s: immediate status %s", what, ng_outcome_name(res.status));
    EXPECT(res.reason == NG_REASON_INVALID, "%s: reason %s", what, ng_reason_name(res.reason));
    EXPECT(res.guard_id == NULL, "%s: no guard decided", what);
    seen_outcome *s = find_seen(r, res.request_id);
    EXPECT(s != NULL && s->count == 1, "%s: exactly one outcome (%d)", what, s ? s->count : 0);
    if (s) EXPECT(s->outcome == NG_OUTCOME_REFUSED && s->reason == NG_REASON_INVALID, "%s: outcome %s %s", what,
                  ng_outcome_name(s->outcome), ng_reason_name(s->reason));
    EXPECT(r->n == before + 1, "%s: one new outcome", what);
    const char *msg = ng_errmsg(ctx);
    EXPECT(msg && msg[0] && strcmp(msg, "no error") != 0, "%s: ng_errmsg says why (\"%s\")", what, msg ? msg : "");
    /* ids are unique */
    for (size_t i = 0; i + 1 < r->n; i++) EXPECT(r->seen[i].id != res.request_id, "%s: id reused", what);
}

static void test_invalid_requests(void) {
    recorder r;
    memset(&r, 0, sizeof r);
    ng_context *ctx = new_ctx_root(&r);
    char *longs = long_string(NG_MAX_STRING + 1, 'a');
    char *maxs = long_string(NG_MAX_STRING, 'b');

    ng_request rq = NG_REQUEST_INIT(NG_REQ_KIND_COUNT);
    expect_invalid_request(ctx, &r, &rq, "kind NG_REQ_KIND_COUNT");
    rq.kind = -1;
    expect_invalid_request(ctx, &r, &rq, "kind -1");
    rq.kind = 1000;
    expect_invalid_request(ctx, &r, &rq, "kind 1000");

    ng_request push = NG_REQUEST_INIT(NG_REQ_PUSH);
    push.screen.id = 2;
    push.screen.route = "menu";
    rq = push;
    rq.flags = 0x4u;
    expect_invalid_request(ctx, &r, &rq, "unknown flag 0x4");
    rq.flags = 0x80000000u;
    expect_invalid_request(ctx, &r, &rq, "unknown flag 0x80000000");
    rq.flags = NG_REQF_TIMED; /* without ANIMATED */
    expect_invalid_request(ctx, &r, &rq, "TIMED without ANIMATED");
    rq = push;
    rq.flags = NG_REQF_ANIMATED | NG_REQF_TIMED;
    rq.duration_ns = -1;
    expect_invalid_request(ctx, &r, &rq, "negative duration");
    rq = push;
    rq.screen.id = 0;
    expect_invalid_request(ctx, &r, &rq, "push screen id 0");
    rq = push;
    rq.screen.route = NULL;
    expect_invalid_request(ctx, &r, &rq, "push route NULL");
    rq.screen.route = "";
    expect_invalid_request(ctx, &r, &rq, "push route empty");
    rq = push;
    rq.screen.id = 1; /* already the root's id: a duplicate, not malformed */
    {
        ng_request_result res = NG_REQUEST_RESULT_INIT;
        EXPECT_ST(ng_request_submit(ctx, &rq, &res), NG_OK);
        EXPECT(res.status == NG_OUTCOME_REFUSED && res.reason == NG_REASON_DUPLICATE && res.guard_id == NULL,
               "push an id already in the stack: %s %s", ng_outcome_name(res.status), ng_reason_name(res.reason));
        EXPECT(strstr(ng_errmsg(ctx), "already in the stack") != NULL, "errmsg: %s", ng_errmsg(ctx));
    }
    for (int i = 0; i < N_BAD_UTF8; i++) {
        char what[64];
        rq = push;
        rq.screen.route = BAD_UTF8[i];
        snprintf(what, sizeof what, "push route bad UTF-8 #%d", i);
        expect_invalid_request(ctx, &r, &rq, what);
        rq = push;
        rq.screen.identity = BAD_UTF8[i];
        snprintf(what, sizeof what, "push identity bad UTF-8 #%d", i);
        expect_invalid_request(ctx, &r, &rq, what);
    }
    rq = push;
    rq.screen.route = longs;
    expect_invalid_request(ctx, &r, &rq, "push route NG_MAX_STRING+1");
    rq = push;
    rq.screen.identity = longs;
    expect_invalid_request(ctx, &r, &rq, "push identity NG_MAX_STRING+1");

    ng_request popto = NG_REQUEST_INIT(NG_REQ_POP_TO);
    popto.target_id = 0;
    expect_invalid_request(ctx, &r, &popto, "pop-to target 0");

    ng_request repl = NG_REQUEST_INIT(NG_REQ_REPLACE_STACK);
    repl.screens = NULL;
    repl.screen_count = 1;
    expect_invalid_request(ctx, &r, &repl, "replace-stack screens NULL");
    ng_screen list[2] = { { 1, "home", NULL }, { 1, "dup", NULL } };
    repl.screens = list;
    repl.screen_count = 0;
    expect_invalid_request(ctx, &r, &repl, "replace-stack 0 screens");
    repl.screen_count = 2;
    expect_invalid_request(ctx, &r, &repl, "replace-stack duplicate ids");
    repl.screen_count = (size_t)NG_MAX_STACK + 1;
    expect_invalid_request(ctx, &r, &repl, "replace-stack NG_MAX_STACK+1 screens");
    list[1].id = 2;
    list[1].route = BAD_UTF8_2;
    repl.screen_count = 2;
    expect_invalid_request(ctx, &r, &repl, "replace-stack bad UTF-8 route");

    /* the boundary: NG_MAX_STRING bytes is fine */
    rq = push;
    rq.screen.route = maxs;
    ng_request_result res = NG_REQUEST_RESULT_INIT;
    EXPECT_ST(ng_request_submit(ctx, &rq, &res), NG_OK);
    EXPECT(res.status == NG_OUTCOME_APPLIED, "push with a NG_MAX_STRING route: %s (%s)", ng_outcome_name(res.status),
           ng_reason_name(res.reason));
    ng_screen_info si = NG_SCREEN_INFO_INIT;
    EXPECT_ST(ng_stack_get(ctx, 1, &si), NG_OK);
    EXPECT(si.route && strlen(si.route) == NG_MAX_STRING, "the long route is kept whole");

    /* the same bad content through ng_request_post is refused at once */
    uint64_t id = 0;
    rq = push;
    rq.kind = 99;
    EXPECT_ST(ng_request_post(ctx, &rq, &id), NG_E_RANGE);
    rq = push;
    rq.flags = 0x4u;
    EXPECT_ST(ng_request_post(ctx, &rq, &id), NG_E_RANGE);
    rq = push;
    rq.screen.route = BAD_UTF8_1;
    EXPECT_ST(ng_request_post(ctx, &rq, &id), NG_E_UTF8);
    rq = push;
    rq.screen.route = longs;
    EXPECT_ST(ng_request_post(ctx, &rq, &id), NG_E_TOO_LONG);
    rq = push;
    rq.size = 0;
    EXPECT_ST(ng_request_post(ctx, &rq, &id), NG_E_SIZE);

    /* a valid post: an id, and its outcome at the next tick */
    rq = push;
    rq.screen.id = 3;
    rq.screen.route = "posted";
    id = 0;
    EXPECT_ST(ng_request_post(ctx, &rq, &id), NG_OK);
    EXPECT(id != 0, "posted id");
    int64_t dl = 0, now = 0;
    EXPECT_ST(ng_next_deadline(ctx, &dl), NG_OK);
    EXPECT_ST(ng_now(ctx, &now), NG_OK);
    EXPECT(dl <= now, "a posted request makes work due now");
    EXPECT(find_seen(&r, id) == NULL, "no outcome before the tick");
    EXPECT_ST(ng_tick(ctx), NG_OK);
    seen_outcome *s = find_seen(&r, id);
    EXPECT(s && s->count == 1 && s->outcome == NG_OUTCOME_APPLIED, "posted push applied once at the tick");

    free(longs);
    free(maxs);
    EXPECT_ST(ng_context_destroy(ctx), NG_OK);
}

/* ------------------------------------------------------------------------ */
/* Strings: invalid UTF-8 and oversize                                       */
/* ------------------------------------------------------------------------ */

static void test_strings(void) {
    char *longs = long_string(NG_MAX_STRING + 1, 'a');
    char *maxs = long_string(NG_MAX_STRING, 'c');
    ng_context *ctx = new_ctx(NULL);

    /* root */
    for (int i = 0; i < N_BAD_UTF8; i++) {
        ng_screen s = { 1, BAD_UTF8[i], NULL };
        EXPECT_ST(ng_stack_set_root(ctx, &s), NG_E_UTF8);
        ng_screen s2 = { 1, "home", BAD_UTF8[i] };
        EXPECT_ST(ng_stack_set_root(ctx, &s2), NG_E_UTF8);
    }
    ng_screen sl = { 1, longs, NULL };
    EXPECT_ST(ng_stack_set_root(ctx, &sl), NG_E_TOO_LONG);
    ng_screen sl2 = { 1, "home", longs };
    EXPECT_ST(ng_stack_set_root(ctx, &sl2), NG_E_TOO_LONG);
    size_t n = 9;
    EXPECT_ST(ng_stack_count(ctx, &n), NG_OK);
    EXPECT(n == 0, "no root after refused roots");
    ng_screen ok = { 1, maxs, "h\xc3\xa9llo \xe2\x9c\x93 \xf0\x9f\x98\x80" }; /* valid multi-byte UTF-8 */
    EXPECT_ST(ng_stack_set_root(ctx, &ok), NG_OK);
    ng_screen_info si = NG_SCREEN_INFO_INIT;
    EXPECT_ST(ng_stack_get(ctx, 0, &si), NG_OK);
    EXPECT(si.identity && strcmp(si.identity, ok.identity) == 0, "UTF-8 identity kept");

    /* identity NULL means the route */
    ng_context *c2 = new_ctx(NULL);
    ng_screen r2 = { 5, "route-only", NULL };
    MUST(ng_stack_set_root(c2, &r2));
    EXPECT_ST(ng_stack_get(c2, 0, &si), NG_OK);
    EXPECT(si.identity && strcmp(si.identity, "route-only") == 0, "identity NULL reads back as the route");
    EXPECT_ST(ng_context_destroy(c2), NG_OK);

    /* hold labels */
    uint64_t tok = 0;
    for (int i = 0; i < N_BAD_UTF8; i++) EXPECT_ST(ng_hold_begin(ctx, BAD_UTF8[i], 0, 0, &tok), NG_E_UTF8);
    EXPECT_ST(ng_hold_begin(ctx, longs, 0, 0, &tok), NG_E_TOO_LONG);
    EXPECT_ST(ng_hold_begin(ctx, maxs, 0, 0, &tok), NG_OK);
    EXPECT_ST(ng_hold_end(ctx, tok), NG_OK);

    /* plugin paths and configurations */
    EXPECT_ST(ng_plugin_load(ctx, BAD_UTF8_2, NULL), NG_E_UTF8);
    EXPECT_ST(ng_plugin_load(ctx, longs, NULL), NG_E_TOO_LONG);
    EXPECT_ST(ng_chain_add(ctx, &good_desc, BAD_UTF8_1), NG_E_UTF8);
    /* Configurations are texts of up to 1 MiB, not NG_MAX_STRING strings. */
    EXPECT_ST(ng_chain_add(ctx, &good_desc, longs), NG_E_PARSE);
    char *huge = long_string((1 << 20) + 1, ' ');
    EXPECT_ST(ng_chain_add(ctx, &good_desc, huge), NG_E_TOO_LONG);
    free(huge);
    EXPECT_ST(ng_chain_configure(ctx, BAD_UTF8_2), NG_E_UTF8);
    EXPECT_ST(ng_chain_add(ctx, &good_desc, "{not json"), NG_E_PARSE);
    EXPECT_ST(ng_chain_add(ctx, &good_desc, "[1,2]"), NG_E_PARSE);
    size_t count = 9;
    EXPECT_ST(ng_chain_count(ctx, &count), NG_OK);
    EXPECT(count == 0, "chain empty after refused adds (%zu)", count);
    EXPECT_ST(ng_chain_add(ctx, &good_desc, "{\"a\": [1, \"\xc3\xa9\"]}"), NG_OK);
    EXPECT_ST(ng_chain_add(ctx, &good_desc, NULL), NG_E_GUARD); /* duplicate id */

    free(longs);
    free(maxs);
    EXPECT_ST(ng_context_destroy(ctx), NG_OK);
}

/* ------------------------------------------------------------------------ */
/* Struct sizes                                                              */
/* ------------------------------------------------------------------------ */

static void test_sizes(void) {
    ng_context *c = NULL;
    ng_options o = NG_OPTIONS_INIT;
    o.size = 0;
    EXPECT_ST(ng_context_create(&o, &c), NG_E_SIZE);
    o.size = 4;
    EXPECT_ST(ng_context_create(&o, &c), NG_E_SIZE);

    recorder r;
    memset(&r, 0, sizeof r);
    ng_context *ctx = new_ctx_root(&r);
    ng_request rq = NG_REQUEST_INIT(NG_REQ_POP);
    rq.size = 0;
    ng_request_result res = NG_REQUEST_RESULT_INIT;
    size_t before = r.n;
    EXPECT_ST(ng_request_submit(ctx, &rq, &res), NG_E_SIZE);
    EXPECT(r.n == before, "a request refused with NG_E_SIZE gets no outcome");
    uint64_t id = 0;
    EXPECT_ST(ng_request_post(ctx, &rq, &id), NG_E_SIZE);
    /* an older, shorter ng_request (up to target_id) is accepted */
    ng_request old = NG_REQUEST_INIT(NG_REQ_PUSH);
    old.size = (uint32_t)offsetof(ng_request, screens);
    old.screen.id = 2;
    old.screen.route = "menu";
    EXPECT_ST(ng_request_submit(ctx, &old, &res), NG_OK);
    EXPECT(res.status == NG_OUTCOME_APPLIED, "an ng_request of the older size is applied (%s)", ng_outcome_name(res.status));

    ng_event e = NG_EVENT_INIT(NG_EVENT_TOUCH);
    e.size = 0;
    ng_event_result er = NG_EVENT_RESULT_INIT;
    EXPECT_ST(ng_event_submit(ctx, &e, &er), NG_E_SIZE);
    ng_view v = NG_VIEW_INIT;
    v.id = 1;
    v.size = 0;
    EXPECT_ST(ng_view_set(ctx, &v), NG_E_SIZE);
    ng_screen_info si = NG_SCREEN_INFO_INIT;
    si.size = 0;
    EXPECT_ST(ng_stack_get(ctx, 0, &si), NG_E_SIZE);
    EXPECT(si.id == 0 && si.route == NULL, "nothing written into a size-0 ng_screen_info");

    /* a live touch, then ng_touch_get with size 0 */
    ng_event b = NG_EVENT_INIT(NG_EVENT_TOUCH);
    b.touch_id = 1;
    EXPECT_ST(ng_event_submit(ctx, &b, &er), NG_OK);
    ng_touch_info ti = NG_TOUCH_INFO_INIT;
    ti.size = 0;
    EXPECT_ST(ng_touch_get(ctx, 0, &ti), NG_E_SIZE);
    EXPECT(ti.touch_id == 0, "nothing written into a size-0 ng_touch_info");

    /* result structs with size 0: the library must write nothing into them
     * (the header does not say whether the call fails with NG_E_SIZE). */
    ng_request_result r0;
    memset(&r0, 0xAB, sizeof r0);
    r0.size = 0;
    ng_request pop = NG_REQUEST_INIT(NG_REQ_POP);
    pop.flags = 0;
    ng_status st = ng_request_submit(ctx, &pop, &r0);
    EXPECT(st == NG_OK || st == NG_E_SIZE, "submit with a size-0 result: %s", ng_strstatus(st));
    unsigned char pattern[sizeof r0 > sizeof(ng_event_result) ? sizeof r0 : sizeof(ng_event_result)];
    memset(pattern, 0xAB, sizeof pattern);
    EXPECT(memcmp((unsigned char *)&r0 + 4, pattern + 4, sizeof r0 - 4) == 0, "nothing written into a size-0 ng_request_result");
    ng_event_result e0;
    memset(&e0, 0xAB, sizeof e0);
    e0.size = 0;
    ng_event k = NG_EVENT_INIT(NG_EVENT_KEY);
    st = ng_event_submit(ctx, &k, &e0);
    EXPECT(st == NG_OK || st == NG_E_SIZE, "event with a size-0 result: %s", ng_strstatus(st));
    EXPECT(memcmp((unsigned char *)&e0 + 4, pattern + 4, sizeof e0 - 4) == 0, "nothing written into a size-0 ng_event_result");

    EXPECT_ST(ng_context_destroy(ctx), NG_OK);

    /* a delegate with size 0 is no delegate (options still valid) */
    ng_options od = NG_OPTIONS_INIT;
    od.delegate.size = 0;
    od.delegate.on_outcome = rec_outcome; /* must not be called: user would be NULL */
    EXPECT_ST(ng_context_create(&od, &c), NG_OK);
    ng_screen root = { 1, "home", NULL };
    MUST(ng_stack_set_root(c, &root));
    EXPECT_ST(ng_request_submit(c, &pop, NULL), NG_OK);
    EXPECT_ST(ng_context_destroy(c), NG_OK);

    /* a chain_add descriptor with a size smaller than the struct */
    ng_context *cc = new_ctx(NULL);
    ng_plugin_descriptor small = good_desc;
    small.size = 8;
    EXPECT_ST(ng_chain_add(cc, &small, NULL), NG_E_GUARD);
    EXPECT_ST(ng_context_destroy(cc), NG_OK);
}

/* ------------------------------------------------------------------------ */
/* Callback and thread rules                                                 */
/* ------------------------------------------------------------------------ */

static void *other_thread(void *arg) {
    ng_context *ctx = arg;
    size_t n = 0;
    ng_status *out = malloc(sizeof *out);
    if (out) *out = ng_stack_count(ctx, &n);
    return out;
}

static void rules_outcome(void *user, ng_context *ctx, const ng_outcome *o) {
    recorder *r = user;
    rec_outcome(user, ctx, o);
    if (r->test_callback_rules) {
        r->test_callback_rules = false;
        r->destroy_in_cb = ng_context_destroy(ctx);
        r->tick_in_cb = ng_tick(ctx);
        ng_screen root = { 9, "x", NULL };
        r->set_root_in_cb = ng_stack_set_root(ctx, &root);
        r->chain_add_in_cb = ng_chain_add(ctx, &good_desc, NULL);
        static const char snap[] = "{\"navguard_snapshot\":1,\"screens\":[{\"id\":1,\"route\":\"home\"}]}";
        r->restore_in_cb = ng_stack_restore(ctx, snap, sizeof snap - 1);
        r->configure_in_cb = ng_chain_configure(ctx, "{\"guards\":[]}");
        size_t n = 0;
        r->stack_count_in_cb = ng_stack_count(ctx, &n); /* callback-safe */
    }
    if (r->invalid_in_cb) {
        r->invalid_in_cb = false;
        ng_request bad = NG_REQUEST_INIT(77);
        ng_request_result res = NG_REQUEST_RESULT_INIT;
        r->invalid_in_cb_status = ng_request_submit(ctx, &bad, &res);
        r->invalid_in_cb_result = res;
    }
    if (r->thread_test) {
        r->thread_test = false;
        pthread_t th;
        void *ret = NULL;
        if (pthread_create(&th, NULL, other_thread, ctx) == 0 && pthread_join(th, &ret) == 0 && ret) {
            r->other_thread_status = *(ng_status *)ret;
            free(ret);
        }
    }
}

static void test_rules(void) {
    recorder r;
    memset(&r, 0, sizeof r);
    ng_options o = NG_OPTIONS_INIT;
    o.clock = NG_CLOCK_MANUAL;
    o.delegate.user = &r;
    o.delegate.on_outcome = rules_outcome;
    ng_context *ctx = NULL;
    MUST(ng_context_create(&o, &ctx));
    ng_screen root = { 1, "home", NULL };
    MUST(ng_stack_set_root(ctx, &root));

    r.test_callback_rules = true;
    ng_request pop = NG_REQUEST_INIT(NG_REQ_POP);
    EXPECT_ST(ng_request_submit(ctx, &pop, NULL), NG_OK);
    EXPECT(r.destroy_in_cb == NG_E_CALLBACK, "destroy inside a callback: %s", ng_strstatus(r.destroy_in_cb));
    EXPECT(r.tick_in_cb == NG_E_CALLBACK, "tick inside a callback: %s", ng_strstatus(r.tick_in_cb));
    EXPECT(r.set_root_in_cb == NG_E_CALLBACK || r.set_root_in_cb == NG_E_STATE,
           "set_root inside a callback: %s", ng_strstatus(r.set_root_in_cb));
    EXPECT(r.chain_add_in_cb == NG_E_CALLBACK, "chain_add inside a callback: %s", ng_strstatus(r.chain_add_in_cb));
    EXPECT(r.restore_in_cb == NG_E_CALLBACK, "restore inside a callback: %s", ng_strstatus(r.restore_in_cb));
    EXPECT(r.configure_in_cb == NG_E_CALLBACK, "configure inside a callback: %s", ng_strstatus(r.configure_in_cb));
    EXPECT(r.stack_count_in_cb == NG_OK, "stack_count inside a callback: %s", ng_strstatus(r.stack_count_in_cb));
    size_t n = 0;
    EXPECT_ST(ng_stack_count(ctx, &n), NG_OK); /* the context survived */

    /* a malformed request made inside a callback: QUEUED with an id, then
     * exactly one outcome, REFUSED invalid */
    r.invalid_in_cb = true;
    EXPECT_ST(ng_request_submit(ctx, &pop, NULL), NG_OK);
    EXPECT(r.invalid_in_cb_status == NG_OK, "malformed request inside a callback: %s",
           ng_strstatus(r.invalid_in_cb_status));
    EXPECT(r.invalid_in_cb_result.status == NG_OUTCOME_QUEUED && r.invalid_in_cb_result.request_id != 0,
           "inside a callback: QUEUED with an id (%s)", ng_outcome_name(r.invalid_in_cb_result.status));
    {
        seen_outcome *s = find_seen(&r, r.invalid_in_cb_result.request_id);
        EXPECT(s && s->count == 1 && s->outcome == NG_OUTCOME_REFUSED && s->reason == NG_REASON_INVALID,
               "the queued malformed request ends REFUSED invalid, once");
    }

    /* another thread while this one is inside a call: NG_E_THREAD */
    r.thread_test = true;
    r.other_thread_status = -1;
    EXPECT_ST(ng_request_submit(ctx, &pop, NULL), NG_OK);
    EXPECT(r.other_thread_status == NG_E_THREAD, "a second thread during a call: %s",
           ng_strstatus(r.other_thread_status));
    /* and from another thread while nobody is inside: still refused (the
     * context belongs to its creator), until the creator detaches it */
    pthread_t th;
    void *ret = NULL;
    if (pthread_create(&th, NULL, other_thread, ctx) == 0 && pthread_join(th, &ret) == 0 && ret) {
        EXPECT(*(ng_status *)ret == NG_E_THREAD, "a second thread when the context is idle: %s",
               ng_strstatus(*(ng_status *)ret));
        free(ret);
    }
    EXPECT_ST(ng_context_detach(ctx), NG_OK);
    size_t count = 0;
    EXPECT_ST(ng_stack_count(ctx, &count), NG_E_THREAD);
    EXPECT_ST(ng_context_attach(ctx), NG_OK);
    EXPECT_ST(ng_stack_count(ctx, &count), NG_OK);

    EXPECT_ST(ng_context_destroy(ctx), NG_OK);
}

int main(void) {
    test_names();
    test_handles();
    test_null_pointers();
    test_ranges();
    test_invalid_requests();
    test_strings();
    test_sizes();
    test_rules();
    if (g_failures) {
        fprintf(stderr, "test_abi: %d of %d checks FAILED\n", g_failures, g_checks);
        return 1;
    }
    printf("test_abi: all %d checks passed\n", g_checks);
    return 0;
}
