/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_record.c — the flight recorder as a C host uses it, with the real
 * default chain (dlopen'd built-ins):
 *  - a session recorded to a file from the context's creation (pushes, a
 *    refused double push, touches, a hold, requests posted from another
 *    thread, a transition that never finishes until the watchdog forces it)
 *    replays identically, on the monotonic clock it was recorded with;
 *  - replayed against the empty chain it diverges, and the report shows where;
 *  - in ring mode, the watchdog's report names the file it dumped the ring
 *    to, and that file is a ring trace (drawable, not replayable);
 *  - recording through the host's write callback gives the same lines;
 *  - a slow host (its on_transition takes 5 ms when the posted push's
 *    transition begins) still replays identically: that transition is
 *    dated from when the call returned, which the trace records ("tr").
 */
#define _POSIX_C_SOURCE 200809L
#include <navguard/navguard.h>
#include <navguard/plugin.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "check.h"

#define MS 1000000LL

typedef struct {
    char report[8192];
    int reports;
} host;

static void on_report(void *user, ng_context *ctx, const char *guard_id, const char *text) {
    (void)ctx;
    host *h = user;
    if (guard_id && strcmp(guard_id, "org.navguard.watchdog") == 0) {
        snprintf(h->report, sizeof h->report, "%s", text);
        h->reports++;
    }
}

/* The posted push's will-show takes the host 5 ms (a slow UI thread): the
 * tick that applies it returns 5 ms after its instant. */
static void on_transition(void *user, ng_context *ctx, const ng_transition_event *e) {
    (void)user; (void)ctx;
    if (e->phase == NG_PHASE_WILL && e->track == NG_TRACK_SCREEN && e->to_id == 77) {
        struct timespec slow = { 0, 5 * MS };
        nanosleep(&slow, NULL);
    }
}

static char *read_file(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)n + 1);
    if (fread(buf, 1, (size_t)n, f) != (size_t)n) n = 0;
    buf[n] = 0;
    fclose(f);
    *len = (size_t)n;
    return buf;
}

static void push(ng_context *ctx, uint64_t id, const char *route, uint32_t source) {
    ng_request r = NG_REQUEST_INIT(NG_REQ_PUSH);
    r.flags = NG_REQF_ANIMATED;
    r.source = source;
    r.screen.id = id;
    r.screen.route = route;
    ng_request_result out = NG_REQUEST_RESULT_INIT;
    MUST(ctx, ng_request_submit(ctx, &r, &out));
}

static void touch(ng_context *ctx, uint64_t id, int32_t phase, double x, double y) {
    ng_event e = NG_EVENT_INIT(NG_EVENT_TOUCH);
    e.touch_id = id;
    e.phase = phase;
    e.x = x;
    e.y = y;
    ng_event_result out = NG_EVENT_RESULT_INIT;
    MUST(ctx, ng_event_submit(ctx, &e, &out));
}

static void *network(void *arg) {
    ng_context *ctx = arg;
    ng_request r = NG_REQUEST_INIT(NG_REQ_PUSH);
    r.flags = NG_REQF_ANIMATED;   /* its transition never finishes */
    r.source = 7;
    r.screen.id = 77;
    r.screen.route = "promo";
    uint64_t id = 0;
    if (ng_request_post(ctx, &r, &id) != NG_OK) fprintf(stderr, "post failed\n");
    return NULL;
}

static ng_context *kiosk(host *h) {
    ng_options o = NG_OPTIONS_INIT;
    o.delegate.user = h;
    o.delegate.on_report = on_report;
    o.delegate.on_transition = on_transition;
    ng_context *ctx = NULL;
    if (ng_context_create(&o, &ctx) != NG_OK) exit(1);
    return ctx;
}

/* The session: the same calls whatever the recorder's destination. */
static void session(ng_context *ctx) {
    MUST(ctx, ng_chain_configure(ctx, "{\"base\":\"default\",\"edits\":[{\"configure\":\"org.navguard.watchdog\","
                                      "\"config\":{\"transition_limit_ms\":50}}]}"));
    ng_screen root = { 1, "home", NULL };
    MUST(ctx, ng_stack_set_root(ctx, &root));
    ng_view button = NG_VIEW_INIT;
    button.id = 10;
    button.frame.width = 200;
    button.frame.height = 100;
    MUST(ctx, ng_view_set(ctx, &button));
    touch(ctx, 1, NG_TOUCH_BEGAN, 20, 20);
    touch(ctx, 1, NG_TOUCH_ENDED, 20, 20);
    push(ctx, 2, "menu", 2);
    push(ctx, 3, "menu-again", 2);                 /* refused: too soon (throttle) */
    ng_request back = NG_REQUEST_INIT(NG_REQ_BACK);
    back.source = 3;
    ng_request_result out = NG_REQUEST_RESULT_INIT;
    MUST(ctx, ng_request_submit(ctx, &back, &out));   /* refused: busy */
    touch(ctx, 2, NG_TOUCH_BEGAN, 20, 20);         /* during the transition */
    touch(ctx, 2, NG_TOUCH_ENDED, 20, 20);
    MUST(ctx, ng_transition_finish(ctx, NG_TRACK_ALL));
    uint64_t token = 0;
    MUST(ctx, ng_hold_begin(ctx, "network", NG_MASK_TOUCH, 0, &token));
    pthread_t th;
    pthread_create(&th, NULL, network, ctx);
    pthread_join(th, NULL);
    MUST(ctx, ng_tick(ctx));                       /* applies the posted push */
    MUST(ctx, ng_hold_end(ctx, token));
    /* The posted push's transition never finishes: the watchdog forces it. */
    struct timespec wait = { 0, 80 * MS };
    nanosleep(&wait, NULL);
    MUST(ctx, ng_tick(ctx));
}

/* Part 5's guard: drops every third moved event (by its x) and logs on
 * every fifth. */
static void *dropper_create(const ng_guard_host *h, const char *config) { (void)config; return (void *)h; }
static void dropper_destroy(void *inst) { (void)inst; }
static ng_vote dropper_event(void *inst, const ng_guard_event *ge, ng_verdict *v) {
    const ng_guard_host *h = inst;
    if (ge->event->type != NG_EVENT_TOUCH || ge->event->phase != NG_TOUCH_MOVED) return NG_VOTE_ALLOW;
    int n = (int)ge->event->x;
    if (n % 5 == 0) h->log(h, NG_LOG_INFO, "fifth");
    if (n % 3 == 0) { v->reason = NG_REASON_POLICY; return NG_VOTE_REFUSE; }
    return NG_VOTE_ALLOW;
}
static const ng_plugin_descriptor dropper = { NG_PLUGIN_DESCRIPTOR_ABI, .id = "org.navguard.test.dropper", .name = "dropper",
    .version = "1", .description = "drops every third moved event", .create = dropper_create, .destroy = dropper_destroy,
    .on_event = dropper_event };
static void quiet_log(void *user, ng_context *ctx, int32_t severity, const char *guard_id, const char *message) {
    (void)user; (void)ctx; (void)severity; (void)guard_id; (void)message;
}
static int count(const char *text, const char *what) {
    int n = 0;
    for (const char *q = text; q && (q = strstr(q, what)); q++) n++;
    return n;
}

/* Parts 4 to 6: a context on `o` with a root, one full-screen view, `guard`
 * (or none) in its chain, recording into a ring of 1,000 records. */
static ng_context *ring_context(const ng_options *o, const ng_plugin_descriptor *guard) {
    ng_context *rc = NULL;
    MUST(rc, ng_context_create(o, &rc));
    ng_screen root = { 1, "home", NULL };
    MUST(rc, ng_stack_set_root(rc, &root));
    if (guard) MUST(rc, ng_chain_add(rc, guard, NULL));
    ng_view w = NG_VIEW_INIT;
    w.id = 1; w.frame.width = 1024; w.frame.height = 768;
    MUST(rc, ng_view_set(rc, &w));
    ng_record_options rr = NG_RECORD_OPTIONS_INIT;
    rr.ring_records = 1000;
    MUST(rc, ng_record_start(rc, &rr));
    return rc;
}

int main(void) {
    char dir[] = "/tmp/navguard-record-XXXXXX";
    if (!mkdtemp(dir)) return 1;
    char path[256];
    snprintf(path, sizeof path, "%s/session.jsonl", dir);

    /* 1. Recorded to a file from creation: replays identically. */
    host h1 = { { 0 }, 0 };
    ng_context *ctx = kiosk(&h1);
    ng_record_options ro = NG_RECORD_OPTIONS_INIT;
    ro.path = path;
    MUST(ctx, ng_record_start(ctx, &ro));
    session(ctx);
    EXPECT(h1.reports == 1, "the watchdog reported %d times", h1.reports);
    EXPECT(strstr(h1.report, "flight recorder: the whole session is in ") && strstr(h1.report, path),
           "the watchdog's report names the trace:\n%s", h1.report);
    MUST(ctx, ng_context_destroy(ctx));
    size_t len = 0;
    char *trace = read_file(path, &len);
    EXPECT(trace && len > 1000, "trace of %zu bytes", len);
    if (!trace) return 1;
    EXPECT(strstr(trace, "\"k\":\"posted\"") != NULL, "the posted push is in the trace");
    EXPECT(strstr(trace, "\"reason\":\"busy\"") != NULL, "the refused push is in the trace");
    EXPECT(strstr(trace, "\"fn\":\"report\"") != NULL, "the watchdog's report is in the trace");
    EXPECT(strstr(trace, "\"tr\":") != NULL, "the slow tick's transition is dated from its return (\"tr\") in the trace");

    ng_replay_result res = NG_REPLAY_RESULT_INIT;
    ng_status st = ng_replay(trace, len, NULL, &res);
    EXPECT(st == NG_OK && res.identical && res.calls >= 15 && res.callbacks >= 15,
           "replay: %s, identical %d, %llu calls, %llu callbacks\n%s", ng_strstatus(st), res.identical,
           (unsigned long long)res.calls, (unsigned long long)res.callbacks, res.report ? res.report : "");
    ng_free(res.report);

    /* 2. Against the empty chain: the refused push now passes. */
    ng_replay_options other = NG_REPLAY_OPTIONS_INIT;
    other.chain = "{\"guards\":[]}";
    ng_replay_result diff = NG_REPLAY_RESULT_INIT;
    st = ng_replay(trace, len, &other, &diff);
    EXPECT(st == NG_OK && !diff.identical && diff.line > 1, "replay against the empty chain: %s, identical %d",
           ng_strstatus(st), diff.identical);
    EXPECT(diff.report && strstr(diff.report, "diverged at line") && strstr(diff.report, "recorded:") &&
           strstr(diff.report, "now:"), "divergence report:\n%s", diff.report ? diff.report : "");
    ng_free(diff.report);

    /* 3. Ring mode: nothing written until the watchdog reports; its report
     * names the dump, a binary ring dump (.ngbox: navguard convert makes it
     * a trace) that a writer thread writes. */
    host h3 = { { 0 }, 0 };
    ctx = kiosk(&h3);
    ng_record_options ring = NG_RECORD_OPTIONS_INIT;
    ring.ring_records = 1000;
    ring.dump_dir = dir;
    MUST(ctx, ng_record_start(ctx, &ring));
    session(ctx);
    const char *named = strstr(h3.report, "flight recorder: the last ");
    EXPECT(named != NULL, "the ring dump is named in the report:\n%s", h3.report);
    char dump[512] = "";
    if (named) {
        const char *p = strstr(named, " are in ");
        if (p) sscanf(p + 8, "%511s", dump);
    }
    MUST(ctx, ng_context_destroy(ctx));   /* waits for the dump's writing */
    size_t dlen = 0;
    char *dtext = dump[0] ? read_file(dump, &dlen) : NULL;
    EXPECT(dtext && dlen > 128 && memcmp(dtext, "NGBBOX01", 8) == 0 && strstr(dump, ".ngbox"), "ring dump %s", dump);
    free(dtext);
    if (dump[0]) unlink(dump);

    /* 4. A full ring keeps its window: 20,000 moved events through a ring
     * of 1,000 records (1 MiB, about 8,700 events) wrap it twice; what it
     * drops to make room (in batches) never cuts into the newest 1,000,
     * and the newest event is whole, with its result. */
    {
        ng_options o = NG_OPTIONS_INIT;
        ng_context *rc = ring_context(&o, NULL);
        ng_event e = NG_EVENT_INIT(NG_EVENT_TOUCH);
        e.phase = NG_TOUCH_BEGAN; e.touch_id = 1; e.x = 10; e.y = 10;
        ng_event_result r = NG_EVENT_RESULT_INIT;
        MUST(rc, ng_event_submit(rc, &e, &r));
        e.phase = NG_TOUCH_MOVED;
        for (int i = 1; i <= 20000; i++) {
            e.x = 10 + (i % 1000); e.y = 10 + i / 1000;
            MUST(rc, ng_event_submit(rc, &e, &r));
        }
        char rpath[300];
        snprintf(rpath, sizeof rpath, "%s/full-ring.jsonl", dir);
        MUST(rc, ng_record_dump(rc, rpath));
        MUST(rc, ng_context_destroy(rc));
        size_t rlen = 0;
        char *rt = read_file(rpath, &rlen);
        int moved = 0, withRet = 0;
        for (const char *q = rt; q && (q = strstr(q, "\"phase\":\"moved\"")); q++) moved++;
        for (const char *q = rt; q && (q = strstr(q, "\"verdict\":\"deliver\"")); q++) withRet++;
        EXPECT(rt && moved >= 1000 && moved <= 1100, "a full ring of 1000 records holds %d moved events", moved);
        EXPECT(withRet >= moved, "each of its %d moved events has its result (%d)", moved, withRet);
        /* The newest: i = 20000, x = 10, y = 30. */
        const char *last = rt ? strstr(rt, "\"x\":10,\"y\":30") : NULL;
        EXPECT(last != NULL, "the newest moved event is in the full ring");
        free(rt);
        unlink(rpath);
    }

    /* 5. Moved events with other returns than the common one, in a ring: a
     * guard drops every third (its id in the result, which outgrows the room
     * the call's record keeps for the common result) and logs on every
     * fifth (a callback between the call and its result, which then has a
     * record of its own). Each event has exactly one result, the right one. */
    {
        ng_options o = NG_OPTIONS_INIT;
        o.delegate.on_log = quiet_log;
        ng_context *rc = ring_context(&o, &dropper);
        ng_event e = NG_EVENT_INIT(NG_EVENT_TOUCH);
        e.phase = NG_TOUCH_BEGAN; e.touch_id = 1; e.x = 1000; e.y = 10;
        ng_event_result r = NG_EVENT_RESULT_INIT;
        MUST(rc, ng_event_submit(rc, &e, &r));
        e.phase = NG_TOUCH_MOVED;
        int dropped = 0;
        for (int i = 1; i <= 300; i++) {
            e.x = i;
            MUST(rc, ng_event_submit(rc, &e, &r));
            dropped += r.verdict == NG_VERDICT_DROP;
        }
        EXPECT(dropped == 100, "the guard dropped %d of 300 moved events (100)", dropped);
        char rpath[300];
        snprintf(rpath, sizeof rpath, "%s/other-returns.jsonl", dir);
        MUST(rc, ng_record_dump(rc, rpath));
        MUST(rc, ng_context_destroy(rc));
        size_t rlen = 0;
        char *rt = read_file(rpath, &rlen);
        int moved = count(rt, "\"phase\":\"moved\""), drops = count(rt, "\"verdict\":\"drop\"");
        int delivers = count(rt, "\"verdict\":\"deliver\""), rets = count(rt, "\"k\":\"ret\"");
        int logs = count(rt, "\"fifth\"");
        EXPECT(rt && moved == 300, "the ring holds %d moved events (300)", moved);
        EXPECT(drops == 100 && delivers == 201, "results: %d drops (100), %d delivers (200 moved + the began)", drops, delivers);
        EXPECT(logs == 60 && rets == 60, "%d logs (60), each between its event and a result of its own: %d (60)", logs, rets);
        EXPECT(count(rt, "\"guard\":\"org.navguard.test.dropper\"") >= 100, "each drop names its guard");
        /* The 300th: dropped (300 = 3 x 100) and logged, its result on the
         * line after the log. */
        const char *last = rt ? strstr(rt, "\"x\":300,") : NULL;
        const char *lastLog = last ? strstr(last, "\"fifth\"") : NULL;
        const char *lastRet = lastLog ? strstr(lastLog, "\"k\":\"ret\"") : NULL;
        EXPECT(lastRet && strstr(lastRet, "\"verdict\":\"drop\""), "the newest event: its log, then its drop");
        free(rt);
        unlink(rpath);
    }

    /* 6. A ring reads no clock for a moved event, as the engine does not: the
     * move is dated by the next reading (navguard.h, ng_touch_info.last_ns),
     * whether or not a ring records it, and its line says "undated", its t
     * the last instant read before it. */
    {
        ng_options o = NG_OPTIONS_INIT;
        ng_context *rc = ring_context(&o, NULL);
        ng_event e = NG_EVENT_INIT(NG_EVENT_TOUCH);
        e.phase = NG_TOUCH_BEGAN; e.touch_id = 1; e.x = 10; e.y = 10;
        ng_event_result r = NG_EVENT_RESULT_INIT;
        MUST(rc, ng_event_submit(rc, &e, &r));
        struct timespec pause = { 0, 20 * 1000000L };
        nanosleep(&pause, NULL);
        e.phase = NG_TOUCH_MOVED; e.x = 20;
        MUST(rc, ng_event_submit(rc, &e, &r));
        nanosleep(&pause, NULL);
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        int64_t before = (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
        ng_touch_info ti;
        memset(&ti, 0, sizeof ti);
        ti.size = sizeof ti;
        MUST(rc, ng_touch_get(rc, 0, &ti));
        EXPECT(ti.last_ns >= before, "the move is dated by the reading after it: last_ns %lld, %lld ns before that reading",
               (long long)ti.last_ns, (long long)(before - ti.last_ns));
        char rpath[300];
        snprintf(rpath, sizeof rpath, "%s/undated.jsonl", dir);
        MUST(rc, ng_record_dump(rc, rpath));
        MUST(rc, ng_context_destroy(rc));
        size_t rlen = 0;
        char *rt = read_file(rpath, &rlen);
        const char *began = rt ? strstr(rt, "\"phase\":\"began\"") : NULL;
        const char *moved = rt ? strstr(rt, "\"phase\":\"moved\"") : NULL;
        const char *mline = moved;
        while (mline && mline > rt && mline[-1] != '\n') mline--;
        const char *bline = began;
        while (bline && bline > rt && bline[-1] != '\n') bline--;
        long long tb = -1, tm = -2;
        const char *p = bline ? strstr(bline, "\"t\":") : NULL;
        if (p) tb = atoll(p + 4);
        p = mline ? strstr(mline, "\"t\":") : NULL;
        if (p) tm = atoll(p + 4);
        const char *undated = mline ? strstr(mline, "\"undated\":true") : NULL;
        EXPECT(count(rt, "\"undated\":true") == 1 && undated && undated < moved,
               "the moved line, and only it, says undated");
        EXPECT(tm == tb, "the moved line's t is the began's (the last instant read): %lld, %lld", tm, tb);
        free(rt);
        unlink(rpath);
    }

    free(trace);
    if (!g_failures) {
        unlink(path);
        rmdir(dir);
    }
    if (g_failures) {
        fprintf(stderr, "test_record: %d of %d checks failed\n", g_failures, g_checks);
        return 1;
    }
    printf("test_record: all %d checks passed\n", g_checks);
    return 0;
}
