/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_record_presses.c — the flight recorder keeps buttons, devices and
 * focus (0.4), with the real default chain:
 *  - a controller session (A held into a push, B held into a Back, a
 *    controller unplugged while A is down, a button still down at destroy;
 *    focus tokens set and handed back; requests carrying their device) is
 *    recorded to a writer; the trace says it keeps press cancels
 *    ("press_cancel":true), has a press_cancel line per cancel the host got,
 *    with its cause, the device removal as the event it equals (phase 3),
 *    the screen_focus calls, the focus handed back in the transition, and
 *    the request's device;
 *  - it replays identically (press cancels compared), and a press cancel
 *    edited in the trace (its cause) makes the replay diverge there;
 *  - the same trace without its press_cancel lines and header key (as 0.3
 *    and earlier 0.4 builds wrote it) still replays identically: replay
 *    compares no press cancels it was not told of;
 *  - in ring mode the dump (formatted from the binary records) has the same
 *    press_cancel lines.
 */
#define _GNU_SOURCE 1   /* memmem */
#include <navguard/navguard.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"

#define MS 1000000LL
#define START (1000 * MS)

typedef struct {
    char *text;
    size_t len, cap;
} buffer;

static bool keep(void *user, const char *data, size_t len) {
    buffer *b = user;
    if (b->len + len + 1 > b->cap) {
        b->cap = (b->len + len + 1) * 2;
        b->text = realloc(b->text, b->cap);
    }
    memcpy(b->text + b->len, data, len);
    b->len += len;
    b->text[b->len] = 0;
    return true;
}

typedef struct {
    int cancels[5];   /* by NG_PRESS_* cause */
    uint64_t last_focus;
} host;

static void on_press_cancel(void *user, ng_context *ctx, const ng_press_info *p) {
    (void)ctx;
    host *h = user;
    if (p->cause >= 0 && p->cause < 5) h->cancels[p->cause]++;
}

static void on_transition(void *user, ng_context *ctx, const ng_transition_event *e) {
    (void)ctx;
    host *h = user;
    if (e->phase == NG_PHASE_DID && e->track == NG_TRACK_SCREEN) h->last_focus = e->focus_token;
}

static void button(ng_context *ctx, int64_t ms, uint64_t device, int64_t code, int32_t phase) {
    MUST(ctx, ng_clock_set(ctx, START + ms * MS));
    ng_event e = NG_EVENT_INIT(NG_EVENT_REMOTE);
    e.phase = phase;
    e.touch_id = device;
    e.code = code;
    ng_event_result r = NG_EVENT_RESULT_INIT;
    MUST(ctx, ng_event_submit(ctx, &e, &r));
}

static void request(ng_context *ctx, int64_t ms, ng_request_kind kind, uint64_t device, uint64_t screen, const char *route) {
    MUST(ctx, ng_clock_set(ctx, START + ms * MS));
    ng_request q = NG_REQUEST_INIT(kind);
    q.flags = NG_REQF_ANIMATED;
    q.source = 7;
    q.device = device;
    q.screen = (ng_screen){ screen, route, NULL };
    ng_request_result r = NG_REQUEST_RESULT_INIT;
    MUST(ctx, ng_request_submit(ctx, &q, &r));
    EXPECT(r.status == NG_OUTCOME_APPLIED, "request %s at %lld ms: %s (%s)", ng_request_kind_name(kind),
           (long long)ms, ng_outcome_name(r.status), ng_reason_name(r.reason));
}

static void finish(ng_context *ctx, int64_t ms) {
    MUST(ctx, ng_clock_set(ctx, START + ms * MS));
    MUST(ctx, ng_transition_finish(ctx, NG_TRACK_ALL));
}

/* The session; recording as `ro` says. */
static void session(const ng_record_options *ro, host *h, const char *dump) {
    ng_options o = NG_OPTIONS_INIT;
    o.clock = NG_CLOCK_MANUAL;
    o.manual_start_ns = START;
    o.delegate.user = h;
    o.delegate.on_press_cancel = on_press_cancel;
    o.delegate.on_transition = on_transition;
    ng_context *ctx = NULL;
    MUST(NULL, ng_context_create(&o, &ctx));
    MUST(ctx, ng_record_start(ctx, ro));
    MUST(ctx, ng_chain_configure(ctx, NULL));
    ng_screen home = { 1, "home", NULL };
    MUST(ctx, ng_stack_set_root(ctx, &home));
    MUST(ctx, ng_screen_set_focus(ctx, 1, 11));
    /* A held into the push it made: its release must not act on Menu. */
    button(ctx, 100, 3, NG_BUTTON_A, NG_KEY_DOWN);
    request(ctx, 120, NG_REQ_PUSH, 3, 2, "menu");
    button(ctx, 200, 3, NG_BUTTON_A, NG_KEY_UP);
    finish(ctx, 470);
    MUST(ctx, ng_screen_set_focus(ctx, 2, 21));
    button(ctx, 600, 3, NG_BUTTON_DPAD_DOWN, NG_KEY_DOWN);
    button(ctx, 650, 3, NG_BUTTON_DPAD_DOWN, NG_KEY_UP);
    MUST(ctx, ng_screen_set_focus(ctx, 2, 22));
    /* Controller 4's B held into the Back it made; Home hands back 11. */
    button(ctx, 800, 4, NG_BUTTON_B, NG_KEY_DOWN);
    request(ctx, 810, NG_REQ_BACK, 4, 0, NULL);
    button(ctx, 900, 4, NG_BUTTON_B, NG_KEY_UP);
    finish(ctx, 1160);
    /* Controller 3 unplugged while A is down. */
    button(ctx, 1300, 3, NG_BUTTON_A, NG_KEY_DOWN);
    MUST(ctx, ng_clock_set(ctx, START + 1400 * MS));
    MUST(ctx, ng_device_removed(ctx, NG_EVENT_REMOTE, 3));
    /* Start still down when the context goes. */
    button(ctx, 1600, 4, NG_BUTTON_START, NG_KEY_DOWN);
    MUST(ctx, ng_clock_set(ctx, START + 1700 * MS));
    if (dump) MUST(ctx, ng_record_dump(ctx, dump));
    MUST(ctx, ng_context_destroy(ctx));
}

static int count(const char *text, const char *what) {
    int n = 0;
    for (const char *p = strstr(text, what); p; p = strstr(p + 1, what)) n++;
    return n;
}

/* The trace's lines without those containing `drop`, and without `key`. */
static char *without(const char *text, const char *drop, const char *key) {
    size_t n = strlen(text);
    char *out = malloc(n + 1);
    size_t k = 0;
    for (const char *line = text; *line;) {
        const char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line + 1) : strlen(line);
        if (!memmem(line, len, drop, strlen(drop))) {
            memcpy(out + k, line, len);
            k += len;
        }
        line += len;
    }
    out[k] = 0;
    for (char *p; (p = strstr(out, key));) memmove(p, p + strlen(key), strlen(p + strlen(key)) + 1);
    return out;
}

static void expect_replay(const char *trace, bool identical, const char *what) {
    ng_replay_result res = NG_REPLAY_RESULT_INIT;
    ng_status st = ng_replay(trace, strlen(trace), NULL, &res);
    EXPECT(st == NG_OK && res.identical == identical, "%s: %s, identical %d (line %llu)\n%s", what, ng_strstatus(st),
           res.identical, (unsigned long long)res.line, res.report ? res.report : "");
    if (!identical) {
        EXPECT(res.report && strstr(res.report, "press_cancel"), "%s: the divergence is at a press cancel:\n%s", what,
               res.report ? res.report : "");
    }
    ng_free(res.report);
}

int main(void) {
    /* 1. Recorded to a writer. */
    buffer b = { NULL, 0, 0 };
    ng_record_options ro = NG_RECORD_OPTIONS_INIT;
    ro.write = keep;
    ro.user = &b;
    host h;
    memset(&h, 0, sizeof h);
    session(&ro, &h, NULL);
    EXPECT(b.text != NULL, "nothing recorded");
    if (!b.text) return 1;
    const char *t = b.text;
    EXPECT(h.cancels[NG_PRESS_TRANSITION] == 2 && h.cancels[NG_PRESS_DEVICE_REMOVED] == 1 &&
           h.cancels[NG_PRESS_DESTROYED] == 1, "the host's cancels: transition %d, device-removed %d, destroyed %d",
           h.cancels[NG_PRESS_TRANSITION], h.cancels[NG_PRESS_DEVICE_REMOVED], h.cancels[NG_PRESS_DESTROYED]);
    EXPECT(h.last_focus == 11, "Home's did-show handed back %llu", (unsigned long long)h.last_focus);
    EXPECT(strstr(t, "\"press_cancel\":true") != NULL, "the header says press cancels are kept:\n%.300s", t);
    EXPECT(count(t, "\"fn\":\"press_cancel\"") == 4, "4 press_cancel lines, one per cancel the host got:\n%s", t);
    EXPECT(strstr(t, "{\"k\":\"cb\",\"fn\":\"press_cancel\",\"type\":\"remote\",\"device\":3,\"code\":0,\"screen\":1,"
                     "\"down\":1100000000,\"cause\":\"transition\"}"),
           "A's cancel by the push, in full:\n%s", t);
    EXPECT(strstr(t, "\"device\":4,\"code\":1,\"screen\":2,\"down\":1800000000,\"cause\":\"transition\"}"),
           "B's cancel by the Back:\n%s", t);
    EXPECT(strstr(t, "\"device\":3,\"code\":0,\"screen\":1,\"down\":2300000000,\"cause\":\"device-removed\"}"),
           "A's cancel by the removal:\n%s", t);
    EXPECT(strstr(t, "\"device\":4,\"code\":6,\"screen\":1,\"down\":2600000000,\"cause\":\"destroyed\"}"),
           "Start's cancel at destroy:\n%s", t);
    EXPECT(strstr(t, "\"fn\":\"event\",\"t\":2400000000,\"ev\":{\"type\":\"remote\",\"phase\":3,\"touch\":3,"),
           "the removal is the event it equals:\n%s", t);
    EXPECT(count(t, "\"fn\":\"screen_focus\"") == 3 && strstr(t, "\"fn\":\"screen_focus\",\"t\":1000000000,\"id\":1,\"token\":11"),
           "the focus calls:\n%s", t);
    EXPECT(strstr(t, "\"phase\":\"did\"") && strstr(t, "\"to\":1,\"focus\":11}"), "Home's focus handed back:\n%s", t);
    EXPECT(strstr(t, "\"kind\":\"push\"") && strstr(t, "\"device\":3}") && strstr(t, "\"device\":4}"),
           "the requests' devices:\n%s", t);

    /* 2. Replayed: identical, press cancels compared. */
    expect_replay(t, true, "replay");
    char *edited = strdup(t);
    char *cause = strstr(edited, "\"cause\":\"device-removed\"");
    if (cause) memcpy(cause, "\"cause\":\"hold\"          ", strlen("\"cause\":\"device-removed\""));
    EXPECT(cause != NULL, "no device-removed cause to edit");
    expect_replay(edited, false, "replay of an edited cancel");
    free(edited);

    /* 3. As a trace without press cancels (0.3's): still identical. */
    char *old = without(t, "\"fn\":\"press_cancel\"", ",\"press_cancel\":true");
    EXPECT(!strstr(old, "press_cancel"), "the old-style trace has no press_cancel:\n%.400s", old);
    expect_replay(old, true, "replay without press cancels");
    free(old);

    /* 4. A ring, dumped: the binary records formatted as the same lines. */
    char dump[] = "/tmp/navguard-test-presses-XXXXXX";
    int fd = mkstemp(dump);
    EXPECT(fd >= 0, "mkstemp");
    close(fd);
    unlink(dump);   /* ng_record_dump creates it (O_EXCL) */
    ng_record_options ring = NG_RECORD_OPTIONS_INIT;
    ring.ring_records = 4096;
    ring.dump_dir = "/tmp";
    host h2;
    memset(&h2, 0, sizeof h2);
    session(&ring, &h2, dump);
    FILE *f = fopen(dump, "rb");
    EXPECT(f != NULL, "the dump %s", dump);
    if (f) {
        static char text[1 << 20];
        size_t n = fread(text, 1, sizeof text - 1, f);
        text[n] = 0;
        fclose(f);
        /* Dumped before the destroy: three of the four. */
        EXPECT(count(text, "\"fn\":\"press_cancel\"") == 3 &&
               strstr(text, "\"device\":3,\"code\":0,\"screen\":1,\"down\":2300000000,\"cause\":\"device-removed\"}"),
               "the ring's press cancels:\n%s", text);
        unlink(dump);
    }
    free(b.text);
    if (g_failures) {
        fprintf(stderr, "test_record_presses: %d of %d checks failed\n", g_failures, g_checks);
        return 1;
    }
    printf("test_record_presses: all %d checks passed\n", g_checks);
    return 0;
}
