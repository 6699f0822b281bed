/* SPDX-License-Identifier: Apache-2.0 */
/* A request posted from another thread replays where it took effect: in the
 * tick that applied it, or in the destroy that dropped it (a kiosk that quits
 * with a network reply still in its mailbox). Each session is recorded from
 * the context's creation through a writer into memory, then ng_replay must
 * find it identical. */
#define _POSIX_C_SOURCE 200809L
#include <navguard/navguard.h>

#include "check.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    char *data;
    size_t len, cap;
} buffer;

static bool write_trace(void *user, const char *data, size_t len) {
    buffer *b = user;
    if (b->len + len + 1 > b->cap) {
        size_t cap = (b->len + len + 1) * 2;
        char *p = realloc(b->data, cap);
        if (!p) return false;
        b->data = p;
        b->cap = cap;
    }
    memcpy(b->data + b->len, data, len);
    b->len += len;
    b->data[b->len] = '\0';
    return true;
}

static int g_dropped = 0;

static void on_outcome(void *user, ng_context *ctx, const ng_outcome *o) {
    (void)user;
    (void)ctx;
    if (o->outcome == NG_OUTCOME_DROPPED) g_dropped++;
}

typedef struct {
    ng_context *ctx;
    ng_status st;
} post_job;

static void *poster(void *arg) {
    post_job *j = arg;
    ng_request rq = NG_REQUEST_INIT(NG_REQ_PUSH);
    rq.screen = (ng_screen){ 2, "menu", "menu" };
    j->st = ng_request_post(j->ctx, &rq, NULL);
    return NULL;
}

/* One session: root, a post from a thread, a tick or not, destroy. */
static void session(const char *what, bool tick) {
    buffer b = { NULL, 0, 0 };
    ng_options o = NG_OPTIONS_INIT;
    o.clock = NG_CLOCK_MANUAL;
    o.delegate.on_outcome = on_outcome;
    ng_context *ctx = NULL;
    EXPECT(ng_context_create(&o, &ctx) == NG_OK, "%s: create", what);
    ng_record_options ro = NG_RECORD_OPTIONS_INIT;
    ro.write = write_trace;
    ro.user = &b;
    EXPECT(ng_record_start(ctx, &ro) == NG_OK, "%s: record: %s", what, ng_errmsg(ctx));
    ng_screen home = { 1, "home", "home" };
    EXPECT(ng_stack_set_root(ctx, &home) == NG_OK, "%s: root", what);
    post_job job = { ctx, NG_E_STATE };
    pthread_t th;
    EXPECT(pthread_create(&th, NULL, poster, &job) == 0 && pthread_join(th, NULL) == 0, "%s: thread", what);
    EXPECT(job.st == NG_OK, "%s: post: %s", what, ng_strstatus(job.st));
    EXPECT(ng_clock_set(ctx, 5000000) == NG_OK, "%s: clock", what);
    if (tick) EXPECT(ng_tick(ctx) == NG_OK, "%s: tick", what);
    g_dropped = 0;
    EXPECT(ng_context_destroy(ctx) == NG_OK, "%s: destroy", what);
    EXPECT(g_dropped == (tick ? 0 : 1), "%s: %d requests dropped at destroy", what, g_dropped);
    EXPECT(b.data && strstr(b.data, "\"k\":\"posted\""), "%s: the trace has no posted record:\n%s", what,
           b.data ? b.data : "");

    ng_replay_result r = NG_REPLAY_RESULT_INIT;
    ng_status st = b.data ? ng_replay(b.data, b.len, NULL, &r) : NG_E_NULL;
    EXPECT(st == NG_OK && r.identical, "%s: replay %s, %s\ntrace:\n%s", what, ng_strstatus(st),
           r.report ? r.report : "(no report)", b.data ? b.data : "");
    ng_free(r.report);
    free(b.data);
}

int main(void) {
    session("posted, applied by a tick", true);
    session("posted, dropped by destroy", false);
    if (g_failures) {
        fprintf(stderr, "test_record_posted: %d of %d checks failed\n", g_failures, g_checks);
        return 1;
    }
    printf("test_record_posted: all %d checks passed\n", g_checks);
    return 0;
}
