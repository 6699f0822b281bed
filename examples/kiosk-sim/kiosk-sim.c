/* SPDX-License-Identifier: Apache-2.0 */
/*
 * kiosk-sim — the failures NavGuard guards against (a double push, a back
 * during a push, a cancelled swipe back, a stuck transition...) played on a
 * kiosk flow Home -> Menu -> Item -> Checkout, with a manual clock, twice: UNGUARDED
 * (empty chain) and GUARDED (the default chain of built-in guard plugins,
 * ng_chain_configure(ctx, NULL)).
 *
 * The "host" below is a tiny kiosk UI: a window with a Back button and a
 * Next button (registered as views so NavGuard hit-tests touches), a
 * hardware Back key, a promo timer and a network thread. Buttons act on
 * touch-up, and only when NavGuard delivered the touch. The host animates
 * screen transitions itself and reports their end with ng_transition_finish.
 *
 * Scenarios (each on a fresh context):
 *   (a) double tap on "Next" during a push
 *   (b) Back tapped during a push (Back button touch + hardware Back key)
 *   (c) a cancelled swipe-back
 *   (d) a network reply that navigates mid-transition (posted from a thread)
 *   (e) a completion that never arrives (transition never finished)
 *   (f) a finger on a button when input becomes blocked
 *   (g) leaving Checkout with items in the cart (the host is asked first)
 *
 * Every NavGuard call is checked; an unexpected status prints the call,
 * the status and ng_errmsg, and the program exits 1. A behaviour that
 * differs from what the guarded run should show is printed as
 * "EXPECTATION"; with --strict those make the exit status 3.
 *
 * With --record DIR every scenario's context records a flight-recorder trace
 * from its creation on, DIR/<run>-<letter>-<name>.jsonl (e.g.
 * guarded-d-network-mid-push.jsonl), which `navguard replay` re-runs exactly.
 * DIR is created if missing; stdout is the same with or without it (but for
 * the note a watchdog report gets naming the trace).
 *
 * Usage: kiosk-sim [--strict] [--guarded-only | --unguarded-only] [--record DIR]
 */
#define _POSIX_C_SOURCE 200809L
#include <navguard/navguard.h>

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define MS 1000000LL

/* Request sources (ng_request.source): where a navigation came from. */
enum {
    SRC_SETUP = 1,
    SRC_NEXT_BUTTON = 2,
    SRC_BACK_BUTTON = 3,
    SRC_BACK_KEY = 4,
    SRC_DEEPLINK = 5,
    SRC_PROMO_TIMER = 6,
    SRC_NETWORK = 7,
    SRC_SWIPE = 8,
};

static const char *source_name(uint32_t src) {
    switch (src) {
    case SRC_SETUP: return "setup";
    case SRC_NEXT_BUTTON: return "next-button";
    case SRC_BACK_BUTTON: return "back-button";
    case SRC_BACK_KEY: return "back-key";
    case SRC_DEEPLINK: return "deeplink";
    case SRC_PROMO_TIMER: return "promo-timer";
    case SRC_NETWORK: return "network";
    case SRC_SWIPE: return "swipe";
    default: return "?";
    }
}

/* Views of the kiosk window (ids), in window coordinates 1024 x 768. */
enum { VIEW_WINDOW = 1, VIEW_BACK = 2, VIEW_NEXT = 3 };
#define BACK_X 60.0
#define BACK_Y 40.0
#define NEXT_X 930.0
#define NEXT_Y 710.0
#define KEY_BACK 158 /* Linux KEY_BACK */

static const char *view_name(uint64_t v) {
    switch (v) {
    case VIEW_WINDOW: return "window";
    case VIEW_BACK: return "Back button";
    case VIEW_NEXT: return "Next button";
    case 0: return "nothing";
    default: return "?";
    }
}

/* The kiosk flow. */
static const char *const FLOW[] = { "Home", "Menu", "Item", "Checkout" };
#define FLOW_LEN 4

/* ------------------------------------------------------------------------ */
/* Simulation state                                                          */
/* ------------------------------------------------------------------------ */

#define MAX_SCREENS 64
#define MAX_OUTCOMES 64
#define NOTE_LEN 160
#define STACK_LEN 120

typedef struct {
    uint64_t id;
    ng_outcome_kind outcome;
    ng_reason reason;
    char guard[64];
} outcome_rec;

typedef struct {
    char stack[STACK_LEN];
    char note[NOTE_LEN];
} scenario_result;

typedef struct sim {
    ng_context *ctx;
    bool guarded;
    const char *run_name;
    /* screen id -> route name, for printing transitions */
    struct { uint64_t id; const char *name; } screens[MAX_SCREENS];
    size_t screen_count;
    uint64_t next_screen_id;
    /* what the host shows: the screen whose did-show came last */
    uint64_t visible_id;
    /* final outcomes seen by on_outcome */
    outcome_rec outcomes[MAX_OUTCOMES];
    size_t outcome_count;
    /* touches: what the host highlighted */
    uint64_t touch_view[8];
    bool touch_live[8];
    int touch_cancels;
    int reports;
    int forced_dids;
    int interrupted_dids;
    int dids;
    int cancelled_phases;
    uint32_t last_hold_mask;
    bool in_callback_print;
    /* the host's dialog: the open question (0: none) and its answer to give */
    uint64_t question;
    int questions;
} sim;

static bool g_strict = false;
static bool g_quiet = false;   /* set during a scenario's setup */
static int g_expectation_failures = 0;
static const char *g_record_dir = NULL;   /* --record DIR */
static int g_traces = 0;

/* A scenario's part of its trace's file name, by letter (a..f). */
static const char *const SCENARIO_FILES[] = {
    "double-tap", "back-during-push", "cancelled-swipe", "network-mid-push", "lost-completion", "finger-on-button",
    "leave-checkout",
};

/* ------------------------------------------------------------------------ */
/* Status checking                                                           */
/* ------------------------------------------------------------------------ */

static void check_at(sim *s, ng_status got, ng_status want, const char *call, int line) {
    if (got == want) return;
    fprintf(stdout, "\nUNEXPECTED STATUS at kiosk-sim.c:%d\n  %s\n  returned %s (%d), expected %s\n"
                    "  ng_errmsg: %s\n",
            line, call, ng_strstatus(got), (int)got, ng_strstatus(want), s && s->ctx ? ng_errmsg(s->ctx) : "-");
    fflush(stdout);
    exit(1);
}
#define CHECK(s, call) check_at((s), (call), NG_OK, #call, __LINE__)
#define CHECK_IS(s, call, want) check_at((s), (call), (want), #call, __LINE__)

static void expect(sim *s, bool ok, const char *what) {
    if (ok) return;
    g_expectation_failures++;
    printf("  !! EXPECTATION (%s run): %s\n", s->run_name, what);
}

/* ------------------------------------------------------------------------ */
/* Printing                                                                  */
/* ------------------------------------------------------------------------ */

static int64_t now_ms(sim *s) {
    int64_t t = 0;
    CHECK(s, ng_now(s->ctx, &t));
    return t / MS;
}

/* ng_reason_name, with the number when the library has no name for it. */
static const char *reason_text(ng_reason r) {
    static char buf[4][32];
    static int k = 0;
    const char *n = ng_reason_name(r);
    if (strcmp(n, "unknown") != 0) return n;
    char *b = buf[k++ & 3];
    snprintf(b, sizeof buf[0], "unknown(%d)", (int)r);
    return b;
}

/* A host action: "  1040 ms  text". */
static void say(sim *s, const char *fmt, ...) {
    va_list ap;
    printf("  %6" PRId64 " ms  ", now_ms(s));
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    printf("\n");
}

/* A callback from NavGuard, indented under the action that caused it. */
static void cb(sim *s, const char *fmt, ...) {
    va_list ap;
    (void)s;
    if (g_quiet) return;
    printf("               | ");
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    printf("\n");
}

/* A result line of the action just done. */
static void res(const char *fmt, ...) {
    va_list ap;
    printf("               = ");
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    printf("\n");
}

/* Request ids: posted requests (and guards' own) get ids of their own range
 * from NG_POSTED_ID_BASE (2^52); print them as "#p<n>" and "#g<n>". Four
 * rotating buffers. */
static const char *req_id(uint64_t id) {
    static char buf[4][32];
    static int k = 0;
    char *b = buf[k++ & 3];
    const uint64_t posted = NG_POSTED_ID_BASE, guards = NG_GUARD_ID_BASE;
    if (id >= guards) snprintf(b, 32, "#g%" PRIu64, id - guards + 1);
    else if (id >= posted) snprintf(b, 32, "#p%" PRIu64, id - posted);
    else snprintf(b, 32, "#%" PRIu64, id);
    return b;
}

static const char *screen_name(sim *s, uint64_t id) {
    for (size_t i = 0; i < s->screen_count; i++)
        if (s->screens[i].id == id) return s->screens[i].name;
    return id == 0 ? "-" : "?";
}

static void stack_text(sim *s, char *buf, size_t cap) {
    size_t n = 0;
    CHECK(s, ng_stack_count(s->ctx, &n));
    buf[0] = '\0';
    size_t used = 0;
    for (size_t i = 0; i < n; i++) {
        ng_screen_info info = NG_SCREEN_INFO_INIT;
        CHECK(s, ng_stack_get(s->ctx, i, &info));
        int w = snprintf(buf + used, cap - used, "%s%s", i ? " > " : "", info.route);
        if (w < 0 || (size_t)w >= cap - used) break;
        used += (size_t)w;
    }
}

static void print_stack(sim *s, const char *label) {
    char buf[STACK_LEN];
    stack_text(s, buf, sizeof buf);
    say(s, "%-9s %s", label, buf);
}

static const char *mask_text(uint32_t mask) {
    static char buf[64];
    static const char *names[] = { "touch", "motion", "remote", "key", "scroll", "hover" };
    buf[0] = '\0';
    for (int i = 0; i < NG_EVENT_TYPE_COUNT; i++) {
        if (mask & NG_MASK(i)) {
            if (buf[0]) strcat(buf, "+");
            strcat(buf, names[i]);
        }
    }
    return buf[0] ? buf : "nothing";
}

/* Print a change of the blocked-input state since the last look. */
static void watch_holds(sim *s) {
    uint32_t mask = 0;
    size_t count = 0;
    CHECK(s, ng_hold_state(s->ctx, &mask, &count));
    if (mask == s->last_hold_mask) return;
    if (mask) cb(s, "input blocked: %s (%zu live hold%s)", mask_text(mask), count, count == 1 ? "" : "s");
    else cb(s, "input unblocked (no live hold)");
    s->last_hold_mask = mask;
}

/* ------------------------------------------------------------------------ */
/* Delegate                                                                  */
/* ------------------------------------------------------------------------ */

static void on_outcome(void *user, ng_context *ctx, const ng_outcome *o) {
    sim *s = user;
    (void)ctx;
    if (o->outcome == NG_OUTCOME_APPLIED)
        cb(s, "outcome  %-4s %-8s applied", req_id(o->request_id), ng_request_kind_name(o->kind));
    else
        cb(s, "outcome  %-4s %-8s %-8s reason=%-10s guard=%s%s%s", req_id(o->request_id),
           ng_request_kind_name(o->kind), ng_outcome_name(o->outcome), reason_text(o->reason),
           o->guard_id ? o->guard_id : "(core)", o->message ? "  -- " : "", o->message ? o->message : "");
    if (s->outcome_count < MAX_OUTCOMES) {
        outcome_rec *r = &s->outcomes[s->outcome_count++];
        r->id = o->request_id;
        r->outcome = o->outcome;
        r->reason = o->reason;
        snprintf(r->guard, sizeof r->guard, "%s", o->guard_id ? o->guard_id : "");
    }
}

static const outcome_rec *final_outcome(sim *s, uint64_t id) {
    for (size_t i = 0; i < s->outcome_count; i++)
        if (s->outcomes[i].id == id) return &s->outcomes[i];
    return NULL;
}

static void on_transition(void *user, ng_context *ctx, const ng_transition_event *e) {
    sim *s = user;
    (void)ctx;
    const char *track = ng_track_name(e->track);
    char flags[96] = "";
    if (e->flags & NG_TRANSF_ANIMATED) strcat(flags, " animated");
    if (e->flags & NG_TRANSF_INTERACTIVE) strcat(flags, " interactive");
    if (e->flags & NG_TRANSF_TOUCH_DRIVEN) strcat(flags, " touch-driven");
    if (e->flags & NG_TRANSF_INTERRUPTED) strcat(flags, " INTERRUPTED");
    if (e->flags & NG_TRANSF_FORCED) strcat(flags, " FORCED");
    const char *what = e->track == NG_TRACK_SCREEN
        ? (e->phase == NG_PHASE_WILL ? "will-show" : e->phase == NG_PHASE_DID ? "did-show" : "show cancelled")
        : (e->phase == NG_PHASE_WILL ? "bar-will" : e->phase == NG_PHASE_DID ? "bar-did" : "bar cancelled");
    cb(s, "%-6s %-14s %-4s %-8s %s -> %s [%s]", track, what, req_id(e->request_id),
       ng_request_kind_name(e->kind), screen_name(s, e->from_id), screen_name(s, e->to_id), flags[0] ? flags + 1 : "");
    if (e->track == NG_TRACK_SCREEN && e->phase != NG_PHASE_WILL) {
        s->visible_id = e->to_id;
        if (e->phase == NG_PHASE_DID) s->dids++;
        if (e->phase == NG_PHASE_CANCELLED) s->cancelled_phases++;
        if (e->flags & NG_TRANSF_FORCED) s->forced_dids++;
        if (e->flags & NG_TRANSF_INTERRUPTED) s->interrupted_dids++;
    }
}

static void on_hold_end(void *user, ng_context *ctx, const ng_hold_info *h) {
    sim *s = user;
    (void)ctx;
    const char *why = h->reason == NG_HOLD_ENDED ? "ended" : h->reason == NG_HOLD_EXPIRED ? "EXPIRED" : "RELEASED";
    cb(s, "hold end token %" PRIu64 " \"%s\" (%s) %s after %" PRId64 " ms", h->token, h->label ? h->label : "",
       mask_text(h->mask), why, (h->ended_ns - h->began_ns) / MS);
}

static void on_report(void *user, ng_context *ctx, const char *guard_id, const char *text) {
    sim *s = user;
    (void)ctx;
    s->reports++;
    cb(s, "REPORT from %s:", guard_id ? guard_id : "(core)");
    const char *p = text ? text : "";
    while (*p && !g_quiet) {
        const char *nl = strchr(p, '\n');
        int len = nl ? (int)(nl - p) : (int)strlen(p);
        printf("               |     %.*s\n", len, p);
        p += len;
        if (*p == '\n') p++;
    }
}

static void on_log(void *user, ng_context *ctx, int32_t severity, const char *guard_id, const char *message) {
    sim *s = user;
    (void)ctx;
    static const char *sev[] = { "debug", "info", "warn", "error" };
    if (severity < 1) return;
    cb(s, "log[%s] %s: %s", severity >= 0 && severity <= 3 ? sev[severity] : "?",
       guard_id ? guard_id : "(core)", message ? message : "");
}

/* The kiosk's "Leave checkout?" dialog: shown at on_question, closed at
 * on_question_end; the user's tap answers it (scenario g). */
static void on_question(void *user, ng_context *ctx, const ng_question *q) {
    sim *s = user;
    (void)ctx;
    s->question = q->question_id;
    s->questions++;
    cb(s, "QUESTION from %s: \"%s\" about %s (%s) -> the host shows a dialog", q->guard_id,
       q->text ? q->text : "", req_id(q->request_id), ng_request_kind_name(q->kind));
}

static void on_question_end(void *user, ng_context *ctx, const ng_question *q, ng_answer answer) {
    sim *s = user;
    (void)ctx;
    (void)q;
    s->question = 0;
    cb(s, "question ended: %s -> the host closes the dialog", ng_answer_name(answer));
}

static void on_touch_cancel(void *user, ng_context *ctx, const ng_touch_info *t) {
    sim *s = user;
    (void)ctx;
    s->touch_cancels++;
    cb(s, "touch cancel: touch %" PRIu64 " on %s -> %s un-highlighted", t->touch_id, view_name(t->view_id),
       view_name(t->view_id));
    if (t->touch_id < 8) s->touch_live[t->touch_id] = false;
}

/* ------------------------------------------------------------------------ */
/* Host helpers                                                              */
/* ------------------------------------------------------------------------ */

static void advance_to(sim *s, int64_t ms) {
    int64_t now = 0;
    CHECK(s, ng_now(s->ctx, &now));
    if (ms * MS > now) CHECK(s, ng_clock_set(s->ctx, ms * MS));
    CHECK(s, ng_tick(s->ctx));
    watch_holds(s);
}

static uint64_t new_screen(sim *s, const char *route) {
    uint64_t id = s->next_screen_id++;
    if (s->screen_count < MAX_SCREENS) {
        s->screens[s->screen_count].id = id;
        s->screens[s->screen_count].name = route;
        s->screen_count++;
    }
    return id;
}

static const char *next_route(const char *route) {
    for (int i = 0; i + 1 < FLOW_LEN; i++)
        if (strcmp(FLOW[i], route) == 0) return FLOW[i + 1];
    return NULL;
}

/* Submit a request and print its immediate status. */
static ng_request_result submit(sim *s, ng_request *rq, const char *what) {
    ng_request_result r = NG_REQUEST_RESULT_INIT;
    say(s, "request   %-30s src=%s", what, source_name(rq->source));
    CHECK(s, ng_request_submit(s->ctx, rq, &r));
    if (r.status == NG_OUTCOME_REFUSED)
        res("%s %s: REFUSED reason=%s guard=%s", req_id(r.request_id), what, reason_text(r.reason),
            r.guard_id ? r.guard_id : "(core)");
    else if (r.status == NG_OUTCOME_DEFERRED)
        res("%s %s: DEFERRED by %s (applied or dropped later)", req_id(r.request_id), what,
            r.guard_id ? r.guard_id : "?");
    else
        res("%s %s: %s", req_id(r.request_id), what, ng_outcome_name(r.status));
    watch_holds(s);
    return r;
}

static ng_request_result push(sim *s, const char *route, uint32_t src, bool animated) {
    ng_request rq = NG_REQUEST_INIT(NG_REQ_PUSH);
    rq.flags = animated ? NG_REQF_ANIMATED : 0u;
    rq.source = src;
    rq.screen.id = new_screen(s, route);
    rq.screen.route = route;
    rq.screen.identity = route;
    char what[64];
    snprintf(what, sizeof what, "push %s%s", route, animated ? " (animated)" : "");
    return submit(s, &rq, what);
}

static ng_request_result back(sim *s, uint32_t src) {
    ng_request rq = NG_REQUEST_INIT(NG_REQ_BACK);
    rq.flags = NG_REQF_ANIMATED;
    rq.source = src;
    return submit(s, &rq, "back (animated)");
}

/* The host's animation of request `id` completed: end its transition if it
 * is still the one in flight. */
static void animation_done(sim *s, uint64_t id, ng_track track, const char *what) {
    bool busy = false;
    uint64_t rid = 0;
    ng_track probe = track == NG_TRACK_ALL ? NG_TRACK_SCREEN : track;
    CHECK(s, ng_transition_in_flight(s->ctx, probe, &busy, &rid));
    if (!busy && track == NG_TRACK_ALL) CHECK(s, ng_transition_in_flight(s->ctx, NG_TRACK_BAR, &busy, &rid));
    if (!busy || rid != id) {
        say(s, "animation %-26s (%s) done: %s", what, req_id(id),
            busy ? "another transition is in flight now, not finishing it" : "nothing in flight any more");
        return;
    }
    const char *tn = track == NG_TRACK_ALL ? "ALL" : track == NG_TRACK_SCREEN ? "SCREEN" : "BAR";
    say(s, "animation %-26s (%s) done: ng_transition_finish(%s)", what, req_id(id), tn);
    CHECK(s, ng_transition_finish(s->ctx, track));
    watch_holds(s);
}

/* One touch event. Returns true when delivered. Buttons act on touch-up. */
typedef enum { ACT_NONE, ACT_NEXT, ACT_BACK } button_action;

static bool touch(sim *s, uint64_t touch_id, int32_t phase, double x, double y, button_action *action) {
    ng_event e = NG_EVENT_INIT(NG_EVENT_TOUCH);
    e.phase = phase;
    e.touch_id = touch_id;
    e.x = x;
    e.y = y;
    CHECK(s, ng_now(s->ctx, &e.timestamp_ns));
    ng_event_result r = NG_EVENT_RESULT_INIT;
    CHECK(s, ng_event_submit(s->ctx, &e, &r));
    bool delivered = r.verdict == NG_VERDICT_DELIVER;
    if (action) *action = ACT_NONE;
    if (delivered) {
        const char *effect = "";
        if (phase == NG_TOUCH_BEGAN) {
            if (touch_id < 8) { s->touch_live[touch_id] = true; s->touch_view[touch_id] = r.target_view; }
            effect = r.target_view == VIEW_NEXT || r.target_view == VIEW_BACK ? "highlighted" : "";
        } else if (phase == NG_TOUCH_ENDED) {
            if (touch_id < 8) s->touch_live[touch_id] = false;
            effect = r.target_view == VIEW_NEXT || r.target_view == VIEW_BACK ? "un-highlighted, ACTIVATED" : "";
            if (action) *action = r.target_view == VIEW_NEXT ? ACT_NEXT : r.target_view == VIEW_BACK ? ACT_BACK : ACT_NONE;
        }
        say(s, "touch %-3" PRIu64 " %-7s (%4.0f,%3.0f)   -> deliver to %s%s%s", touch_id, ng_touch_phase_name(phase), x, y,
            view_name(r.target_view), effect[0] ? ": " : "", effect);
    } else {
        if (phase == NG_TOUCH_ENDED && touch_id < 8) s->touch_live[touch_id] = false;
        say(s, "touch %-3" PRIu64 " %-7s (%4.0f,%3.0f)   -> DROP reason=%s by %s (view %s)", touch_id, ng_touch_phase_name(phase),
            x, y, reason_text(r.reason), r.guard_id ? r.guard_id : "core", view_name(r.target_view));
    }
    watch_holds(s);
    return delivered;
}

/* The Next button acts for the screen on display (whose did-show came last):
 * during a push animation that is still the old screen. */
static ng_request_result next_pressed(sim *s) {
    const char *route = screen_name(s, s->visible_id);
    const char *to = next_route(route);
    say(s, "host      Next pressed on %s", route);
    if (!to) {
        ng_request_result none = NG_REQUEST_RESULT_INIT;
        res("no next screen after %s", route);
        return none;
    }
    return push(s, to, SRC_NEXT_BUTTON, true);
}

/* A full tap (began at t, ended at t + 40 ms) on a point; runs the button's
 * action when the touch-up is delivered. Returns the request result of the
 * action (request_id 0 when none). */
static ng_request_result tap(sim *s, uint64_t touch_id, int64_t at_ms, double x, double y) {
    ng_request_result none = NG_REQUEST_RESULT_INIT;
    button_action act = ACT_NONE;
    advance_to(s, at_ms);
    touch(s, touch_id, NG_TOUCH_BEGAN, x, y, NULL);
    advance_to(s, at_ms + 40);
    touch(s, touch_id, NG_TOUCH_ENDED, x, y, &act);
    if (act == ACT_NEXT) return next_pressed(s);
    if (act == ACT_BACK) {
        say(s, "host      Back pressed on %s", screen_name(s, s->visible_id));
        return back(s, SRC_BACK_BUTTON);
    }
    return none;
}

/* ------------------------------------------------------------------------ */
/* Context per scenario                                                      */
/* ------------------------------------------------------------------------ */

static void view_add(sim *s, uint64_t id, uint64_t parent, double x, double y, double w, double h) {
    ng_view v = NG_VIEW_INIT;
    v.id = id;
    v.parent = parent;
    v.frame.x = x;
    v.frame.y = y;
    v.frame.width = w;
    v.frame.height = h;
    v.order = (int32_t)id;
    CHECK(s, ng_view_set(s->ctx, &v));
}

static void print_chain(sim *s) {
    size_t n = 0;
    CHECK(s, ng_chain_count(s->ctx, &n));
    printf("  chain: %zu guard%s%s", n, n == 1 ? "" : "s", n ? " in order:" : " (empty: nothing guards the UI)");
    for (size_t i = 0; i < n; i++) {
        const char *id = NULL;
        CHECK(s, ng_chain_get_id(s->ctx, i, &id));
        printf("%s%zu. %s", i % 3 == 0 ? "\n    " : "   ", i + 1, id);
    }
    printf("\n");
}

/* Record the scenario's context from its creation, before any other call on
 * it: only such a trace replays exactly (no state it cannot recreate). */
static void record_start(sim *s, char letter) {
    char path[4096];
    int n = snprintf(path, sizeof path, "%s/%s-%c-%s.jsonl", g_record_dir, s->guarded ? "guarded" : "unguarded", letter,
                     SCENARIO_FILES[letter - 'a']);
    if (n < 0 || (size_t)n >= sizeof path) {
        fprintf(stderr, "kiosk-sim: --record: the directory name is too long\n");
        exit(1);
    }
    ng_record_options ro = NG_RECORD_OPTIONS_INIT;
    ro.path = path;
    CHECK(s, ng_record_start(s->ctx, &ro));
    g_traces++;
}

/* A fresh context (scenario `letter`): manual clock at 0, the chain (guarded
 * run), the views, and the stack set to FLOW[0..depth-1] without animation. */
static void sim_begin(sim *s, char letter, int depth) {
    s->ctx = NULL;
    s->screen_count = 0;
    s->next_screen_id = 100;
    s->visible_id = 0;
    s->outcome_count = 0;
    memset(s->touch_live, 0, sizeof s->touch_live);
    s->touch_cancels = s->reports = s->forced_dids = s->interrupted_dids = s->dids = s->cancelled_phases = 0;
    s->last_hold_mask = 0;

    ng_options o = NG_OPTIONS_INIT;
    o.clock = NG_CLOCK_MANUAL;
    o.manual_start_ns = 0;
    o.delegate.user = s;
    o.delegate.on_outcome = on_outcome;
    o.delegate.on_transition = on_transition;
    o.delegate.on_hold_end = on_hold_end;
    o.delegate.on_report = on_report;
    o.delegate.on_log = on_log;
    o.delegate.on_touch_cancel = on_touch_cancel;
    o.delegate.on_question = on_question;
    o.delegate.on_question_end = on_question_end;
    s->question = 0;
    s->questions = 0;
    ng_status st = ng_context_create(&o, &s->ctx);
    if (st != NG_OK) {
        printf("ng_context_create failed: %s\n", ng_strstatus(st));
        exit(1);
    }
    if (g_record_dir) record_start(s, letter);
    if (s->guarded) {
        st = ng_chain_configure(s->ctx, NULL);
        if (st != NG_OK) {
            printf("ng_chain_configure(ctx, NULL) failed: %s\n  ng_errmsg: %s\n  plugin dir: %s\n",
                   ng_strstatus(st), ng_errmsg(s->ctx), ng_plugin_dir());
            exit(1);
        }
    }
    view_add(s, VIEW_WINDOW, 0, 0, 0, 1024, 768);
    view_add(s, VIEW_BACK, VIEW_WINDOW, 16, 16, 120, 56);
    view_add(s, VIEW_NEXT, VIEW_WINDOW, 864, 680, 140, 64);

    ng_screen root = { new_screen(s, FLOW[0]), FLOW[0], FLOW[0] };
    CHECK(s, ng_stack_set_root(s->ctx, &root));
    s->visible_id = root.id;
    if (depth > 1) {
        ng_screen list[FLOW_LEN];
        list[0] = root;
        for (int i = 1; i < depth; i++) {
            list[i].id = new_screen(s, FLOW[i]);
            list[i].route = FLOW[i];
            list[i].identity = FLOW[i];
        }
        ng_request rq = NG_REQUEST_INIT(NG_REQ_REPLACE_STACK);
        rq.source = SRC_SETUP;
        rq.screens = list;
        rq.screen_count = (size_t)depth;
        ng_request_result r = NG_REQUEST_RESULT_INIT;
        /* quietly: the setup (a non-animated replace-stack) is not part of the story */
        g_quiet = true;
        CHECK(s, ng_request_submit(s->ctx, &rq, &r));
        g_quiet = false;
        if (r.status != NG_OUTCOME_APPLIED) {
            printf("setup replace-stack not applied: %s\n", ng_outcome_name(r.status));
            exit(1);
        }
        s->visible_id = list[depth - 1].id;
        s->outcome_count = 0;
        s->dids = 0;
    }
    print_stack(s, "start");
}

static void sim_end(sim *s, scenario_result *out, const char *note) {
    char buf[STACK_LEN];
    stack_text(s, buf, sizeof buf);
    size_t touches = 0;
    CHECK(s, ng_touch_count(s->ctx, &touches));
    bool busy = false;
    CHECK(s, ng_transition_in_flight(s->ctx, NG_TRACK_SCREEN, &busy, NULL));
    say(s, "end       stack: %s%s", buf, busy ? "   (a transition is STILL in flight)" : "");
    snprintf(out->stack, sizeof out->stack, "%s", buf);
    snprintf(out->note, sizeof out->note, "%s", note);
    CHECK(s, ng_context_destroy(s->ctx));
    s->ctx = NULL;
}

static void header(const char *title) {
    printf("\n--- %s ", title);
    for (size_t i = strlen(title); i < 72; i++) putchar('-');
    printf("\n");
}

/* ------------------------------------------------------------------------ */
/* Scenarios                                                                 */
/* ------------------------------------------------------------------------ */

static const char *outcome_short(sim *s, uint64_t id) {
    static char buf[4][64];
    static int k = 0;
    char *b = buf[k++ & 3];
    const outcome_rec *r = final_outcome(s, id);
    if (!r) snprintf(b, 64, "pending");
    else if (r->outcome == NG_OUTCOME_APPLIED) snprintf(b, 64, "applied");
    else {
        const char *g = r->guard[0] ? r->guard : "core";
        const char *shortg = strrchr(g, '.');
        snprintf(b, 64, "%s %s (%s)", ng_outcome_name(r->outcome), reason_text(r->reason), shortg ? shortg + 1 : g);
    }
    return b;
}

/* (a) a double tap on "Next" during a push. */
static void scenario_a(sim *s, scenario_result *out) {
    header("(a) double tap on \"Next\" during a push");
    sim_begin(s, 'a', 2);
    ng_request_result first = tap(s, 1, 1000, NEXT_X, NEXT_Y);
    ng_request_result second = tap(s, 2, 1120, NEXT_X, NEXT_Y);
    say(s, "host      the Next handler also fires programmatically (three variants):");
    advance_to(s, 1170);
    ng_request_result p1 = push(s, "Item", SRC_NEXT_BUTTON, true);
    advance_to(s, 1180);
    ng_request_result p2 = push(s, "Item", SRC_DEEPLINK, true);
    advance_to(s, 1190);
    ng_request_result p3 = push(s, "Checkout", SRC_PROMO_TIMER, true);
    advance_to(s, 1350);
    /* the host finishes whatever is animating now */
    uint64_t rid = 0;
    bool busy = false;
    CHECK(s, ng_transition_in_flight(s->ctx, NG_TRACK_SCREEN, &busy, &rid));
    if (busy) animation_done(s, rid, NG_TRACK_ALL, "of the last push");
    /* a queued push starts its own transition right after did-show */
    advance_to(s, 1700);
    CHECK(s, ng_transition_in_flight(s->ctx, NG_TRACK_SCREEN, &busy, &rid));
    if (busy) animation_done(s, rid, NG_TRACK_ALL, "of the queued push");
    advance_to(s, 1750);

    char note[NOTE_LEN];
    snprintf(note, sizeof note, "tap2 %s; same-src %s, deeplink %s, promo %s",
             second.request_id ? outcome_short(s, second.request_id) : "dropped (no push)",
             outcome_short(s, p1.request_id), outcome_short(s, p2.request_id), outcome_short(s, p3.request_id));
    if (s->guarded) {
        expect(s, first.request_id && final_outcome(s, first.request_id) &&
                  final_outcome(s, first.request_id)->outcome == NG_OUTCOME_APPLIED, "first tap pushes Item");
        expect(s, second.request_id == 0, "the second tap is dropped while the push animates");
        expect(s, p1.status == NG_OUTCOME_REFUSED && p1.reason == NG_REASON_THROTTLED, "same-source push throttled");
        expect(s, p2.status == NG_OUTCOME_REFUSED && p2.reason == NG_REASON_DUPLICATE, "deeplink push of Item is a duplicate");
        expect(s, p3.status == NG_OUTCOME_DEFERRED && final_outcome(s, p3.request_id) &&
                  final_outcome(s, p3.request_id)->outcome == NG_OUTCOME_APPLIED,
               "the promo timer's push is queued and applied right after did-show");
    }
    sim_end(s, out, note);
}

/* (b) Back tapped during a push. */
static void scenario_b(sim *s, scenario_result *out) {
    header("(b) Back tapped during a push");
    sim_begin(s, 'b', 2);
    ng_request_result pushr = tap(s, 1, 1000, NEXT_X, NEXT_Y);
    ng_request_result b1 = tap(s, 2, 1080, BACK_X, BACK_Y);

    /* the hardware Back key: keys are not in global-ignore's default mask */
    advance_to(s, 1150);
    ng_event e = NG_EVENT_INIT(NG_EVENT_KEY);
    e.code = KEY_BACK;
    CHECK(s, ng_now(s->ctx, &e.timestamp_ns));
    ng_event_result er = NG_EVENT_RESULT_INIT;
    CHECK(s, ng_event_submit(s->ctx, &e, &er));
    ng_request_result b2 = NG_REQUEST_RESULT_INIT;
    if (er.verdict == NG_VERDICT_DELIVER) {
        say(s, "key       Back key pressed            -> deliver: host sends the bar's back");
        b2 = back(s, SRC_BACK_KEY);
    } else {
        say(s, "key       Back key pressed            -> DROP reason=%s by %s", reason_text(er.reason),
            er.guard_id ? er.guard_id : "core");
    }
    advance_to(s, 1350);
    animation_done(s, pushr.request_id, NG_TRACK_ALL, "push Item");
    if (b1.request_id) animation_done(s, b1.request_id, NG_TRACK_ALL, "back (button)");
    if (b2.request_id) animation_done(s, b2.request_id, NG_TRACK_ALL, "back (key)");
    advance_to(s, 1700);
    bool busy = false;
    uint64_t rid = 0;
    CHECK(s, ng_transition_in_flight(s->ctx, NG_TRACK_SCREEN, &busy, &rid));
    if (busy) animation_done(s, rid, NG_TRACK_ALL, "last transition");

    char note[NOTE_LEN];
    snprintf(note, sizeof note, "Back button %s; Back key %s",
             b1.request_id ? outcome_short(s, b1.request_id) : "touch dropped (no request)",
             b2.request_id ? outcome_short(s, b2.request_id) : "key dropped");
    if (s->guarded) {
        expect(s, b1.request_id == 0, "the Back button touch is dropped during the push");
        expect(s, b2.status == NG_OUTCOME_REFUSED && b2.reason == NG_REASON_BUSY,
               "the back request is refused busy during the push");
    }
    sim_end(s, out, note);
}

/* (c) a cancelled swipe-back, driven by a finger at the left edge: the
 * transition's hold blocks every other touch, but the finger's moves are
 * still delivered; lifted short of the threshold, the host releases the
 * swipe to cancel, animates the settle and completes it. */
#define SCREEN_W 1024.0
static void scenario_c(sim *s, scenario_result *out) {
    header("(c) a cancelled swipe-back");
    sim_begin(s, 'c', 3);
    const uint64_t finger = 5;
    advance_to(s, 1000);
    touch(s, finger, NG_TOUCH_BEGAN, 4, 400, NULL);
    advance_to(s, 1016);
    touch(s, finger, NG_TOUCH_MOVED, 20, 400, NULL);
    ng_request rq = NG_REQUEST_INIT(NG_REQ_INTERACTIVE_BACK);
    rq.source = SRC_SWIPE;
    rq.flags = NG_REQF_ANIMATED | NG_REQF_TOUCH_DRIVEN;
    rq.driving_touch = finger;
    ng_request_result r = submit(s, &rq, "interactive-back (swipe driven by touch 5)");
    print_stack(s, "during");
    const double progress[] = { 0.15, 0.30, 0.42, 0.25 };
    int followed = 0;
    for (int i = 0; i < 4; i++) {
        advance_to(s, 1050 + 50 * i);
        if (touch(s, finger, NG_TOUCH_MOVED, progress[i] * SCREEN_W, 400, NULL)) followed++;
        say(s, "swipe     progress %.2f", progress[i]);
        CHECK(s, ng_interactive_update(s->ctx, progress[i]));
    }
    advance_to(s, 1300);
    touch(s, finger, NG_TOUCH_ENDED, 0.25 * SCREEN_W, 400, NULL);
    say(s, "swipe     finger lifted short of the threshold: ng_interactive_release(cancel), settle animation");
    CHECK(s, ng_interactive_release(s->ctx, false));
    CHECK_IS(s, ng_transition_finish(s->ctx, NG_TRACK_ALL), NG_E_STATE);
    say(s, "host      ng_transition_finish during the settle -> NG_E_STATE (the decision to cancel is kept)");
    advance_to(s, 1380);
    say(s, "animation settle back done: ng_interactive_complete");
    int dids_before = s->dids;
    CHECK(s, ng_interactive_complete(s->ctx));
    watch_holds(s);
    print_stack(s, "restored");
    bool busy_s = true, busy_b = true;
    CHECK(s, ng_transition_in_flight(s->ctx, NG_TRACK_SCREEN, &busy_s, NULL));
    CHECK(s, ng_transition_in_flight(s->ctx, NG_TRACK_BAR, &busy_b, NULL));
    uint32_t mask = 0;
    CHECK(s, ng_hold_state(s->ctx, &mask, NULL));
    bool did_fired = s->dids > dids_before;
    say(s, "check     in flight: screen=%s bar=%s; input blocked: %s; did-show fired: %s", busy_s ? "yes" : "no",
        busy_b ? "yes" : "no", mask_text(mask), did_fired ? "YES" : "no");
    /* a late completion for the cancelled swipe is harmless */
    CHECK_IS(s, ng_interactive_complete(s->ctx), NG_E_NOT_FOUND);
    say(s, "host      late ng_interactive_complete for the swipe -> NG_E_NOT_FOUND (harmless)");
    /* the UI is not frozen: Next works */
    ng_request_result n = tap(s, 1, 1400, NEXT_X, NEXT_Y);
    advance_to(s, 1790);
    if (n.request_id) animation_done(s, n.request_id, NG_TRACK_ALL, "push Checkout");
    advance_to(s, 1800);

    char note[NOTE_LEN];
    snprintf(note, sizeof note, "swipe %s, finger followed %d/4, then cancelled: %s, no did-show; next tap %s",
             outcome_short(s, r.request_id), followed, busy_s || busy_b ? "STILL IN FLIGHT" : "stack restored",
             n.request_id ? outcome_short(s, n.request_id) : "dropped");
    expect(s, followed == 4, "the finger driving the swipe is followed through the transition's hold");
    expect(s, !busy_s && !busy_b && s->cancelled_phases >= 1 && !did_fired,
           "cancel restores the stack, ends both tracks CANCELLED, no did-show");
    expect(s, n.request_id != 0, "input works after the cancelled swipe");
    sim_end(s, out, note);
}

/* (d) a network reply that navigates mid-transition. */
typedef struct {
    ng_context *ctx;
    ng_status status;
    uint64_t id;
    uint64_t screen_id;
} net_job;

static void *network_thread(void *arg) {
    net_job *j = arg;
    ng_request rq = NG_REQUEST_INIT(NG_REQ_PUSH);
    rq.flags = NG_REQF_ANIMATED;
    rq.source = SRC_NETWORK;
    rq.screen.id = j->screen_id;
    rq.screen.route = "Checkout";
    rq.screen.identity = "Checkout";
    j->status = ng_request_post(j->ctx, &rq, &j->id);
    return NULL;
}

static void scenario_d(sim *s, scenario_result *out) {
    header("(d) a network reply navigates mid-transition (posted from a thread)");
    sim_begin(s, 'd', 2);
    ng_request_result item = tap(s, 1, 1000, NEXT_X, NEXT_Y);
    advance_to(s, 1200);
    say(s, "animation bar of push Item done: ng_transition_finish(BAR)");
    CHECK(s, ng_transition_finish(s->ctx, NG_TRACK_BAR));
    watch_holds(s);

    advance_to(s, 1220);
    net_job job = { s->ctx, -1, 0, new_screen(s, "Checkout") };
    pthread_t th;
    if (pthread_create(&th, NULL, network_thread, &job) != 0 || pthread_join(th, NULL) != 0) {
        printf("pthread failed\n");
        exit(1);
    }
    CHECK(s, job.status);
    say(s, "network   reply: ng_request_post(push Checkout) from a second thread -> %s, evaluated at the next tick",
        req_id(job.id));
    int64_t deadline = 0;
    CHECK(s, ng_next_deadline(s->ctx, &deadline));
    say(s, "host      ng_next_deadline = %" PRId64 " ms (work is due now)", deadline / MS);
    CHECK(s, ng_clock_set(s->ctx, 1240 * MS));
    say(s, "host      ng_tick (applies posted requests)");
    CHECK(s, ng_tick(s->ctx));
    watch_holds(s);
    const outcome_rec *o = final_outcome(s, job.id);
    if (o) res("%s push Checkout: %s at the tick", req_id(job.id), outcome_short(s, job.id));
    else res("%s push Checkout: no outcome yet -> DEFERRED (held by a guard until the screen is idle)", req_id(job.id));
    bool deferred_at_tick = o == NULL;
    print_stack(s, "now");

    advance_to(s, 1350);
    animation_done(s, item.request_id, NG_TRACK_SCREEN, "screen of push Item");
    print_stack(s, "now");
    advance_to(s, 1700);
    animation_done(s, job.id, NG_TRACK_ALL, "push Checkout");
    advance_to(s, 1710);

    char note[NOTE_LEN];
    snprintf(note, sizeof note, "posted push %s %s; Item's transition %s",
             deferred_at_tick ? "deferred, then" : "at tick:", outcome_short(s, job.id),
             s->interrupted_dids ? "INTERRUPTED" : "completed");
    if (s->guarded) {
        expect(s, deferred_at_tick, "the posted push is deferred while the screen transition runs");
        expect(s, final_outcome(s, job.id) && final_outcome(s, job.id)->outcome == NG_OUTCOME_APPLIED,
               "the posted push is applied after did-show");
        expect(s, s->interrupted_dids == 0, "no transition is interrupted");
    }
    sim_end(s, out, note);
}

/* (e) a completion that never arrives. */
static void scenario_e(sim *s, scenario_result *out) {
    header("(e) a completion that never arrives");
    sim_begin(s, 'e', 3);
    ng_request_result r = tap(s, 1, 1000, NEXT_X, NEXT_Y);
    say(s, "host      (the animation's completion is lost: ng_transition_finish is never called)");
    int64_t t = 1040;
    for (int i = 0; i < 25; i++) {
        t += 100;
        CHECK(s, ng_clock_advance(s->ctx, 100 * MS));
        int reports = s->reports, forced = s->forced_dids, cancels = s->touch_cancels;
        CHECK(s, ng_tick(s->ctx));
        if (s->reports != reports || s->forced_dids != forced || s->touch_cancels != cancels)
            say(s, "tick      (the events above happened at this tick)");
        watch_holds(s);
        if ((i + 1) % 5 == 0) {
            bool busy = false;
            uint32_t mask = 0;
            CHECK(s, ng_transition_in_flight(s->ctx, NG_TRACK_SCREEN, &busy, NULL));
            CHECK(s, ng_hold_state(s->ctx, &mask, NULL));
            say(s, "tick      +%4" PRId64 " ms: transition %s, input blocked: %s", t - 1040,
                busy ? "in flight" : "ended", mask_text(mask));
        }
    }
    bool busy = false;
    uint32_t mask = 0;
    CHECK(s, ng_transition_in_flight(s->ctx, NG_TRACK_SCREEN, &busy, NULL));
    CHECK(s, ng_hold_state(s->ctx, &mask, NULL));
    if (busy)
        say(s, "check     after 2.5 s: transition %s STILL IN FLIGHT, did-show never came: a host that waits"
               " for did-show is still blocked", req_id(r.request_id));
    else
        say(s, "check     after 2.5 s: transition ended (forced dids: %d, reports: %d), input blocked: %s",
            s->forced_dids, s->reports, mask_text(mask));
    /* is input usable? */
    advance_to(s, 3600);
    bool delivered = touch(s, 9, NG_TOUCH_BEGAN, 500, 400, NULL);
    advance_to(s, 3640);
    touch(s, 9, NG_TOUCH_ENDED, 500, 400, NULL);

    char note[NOTE_LEN];
    if (busy)
        snprintf(note, sizeof note, "transition STILL in flight after 2.5 s: no did-show, a host waiting for it stays "
                                    "frozen; %d reports", s->reports);
    else
        snprintf(note, sizeof note, "%s; %d report%s; input unblocked, touch afterwards %s",
                 s->forced_dids ? "watchdog forced did-show at +2 s" : "transition ended", s->reports,
                 s->reports == 1 ? "" : "s", delivered ? "delivered" : "DROPPED");
    if (s->guarded) {
        expect(s, !busy && s->forced_dids > 0, "the watchdog finishes the stuck transition (FORCED did) within 2.5 s");
        expect(s, s->reports > 0, "the watchdog reports the stuck transition");
        expect(s, mask == 0 && delivered, "input is unblocked after the recovery");
    }
    if (busy) {
        /* tidy up so the context ends idle */
        say(s, "host      (cleanup: finishing the stuck transition by hand)");
        CHECK(s, ng_transition_finish(s->ctx, NG_TRACK_ALL));
        watch_holds(s);
    }
    sim_end(s, out, note);
}

/* (f) a finger on a button when input becomes blocked. */
static void scenario_f(sim *s, scenario_result *out) {
    header("(f) a finger on a button when input becomes blocked");
    sim_begin(s, 'f', 3);
    advance_to(s, 1000);
    touch(s, 1, NG_TOUCH_BEGAN, BACK_X, BACK_Y, NULL);
    advance_to(s, 1100);
    say(s, "timer     promo timer fires while the finger rests on Back");
    ng_request_result p = push(s, "Checkout", SRC_PROMO_TIMER, true);
    size_t n = 0;
    CHECK(s, ng_touch_count(s->ctx, &n));
    ng_touch_info ti = NG_TOUCH_INFO_INIT;
    if (n > 0) CHECK(s, ng_touch_get(s->ctx, 0, &ti));
    static const char *states[] = { "delivered (live, Back still highlighted)", "withheld", "cancelled (retired)" };
    if (n > 0)
        say(s, "check     live touches: %zu, touch %" PRIu64 " on %s is %s", n, ti.touch_id, view_name(ti.view_id),
            ti.state >= 0 && ti.state <= 2 ? states[ti.state] : "?");
    else
        say(s, "check     no live touch");
    bool was_live = n > 0 && ti.state == NG_TOUCH_STATE_DELIVERED;
    advance_to(s, 1200);
    button_action act = ACT_NONE;
    touch(s, 1, NG_TOUCH_ENDED, BACK_X, BACK_Y, &act);
    ng_request_result b = NG_REQUEST_RESULT_INIT;
    if (act == ACT_BACK) {
        say(s, "host      Back pressed on %s", screen_name(s, s->visible_id));
        b = back(s, SRC_BACK_BUTTON);
    }
    advance_to(s, 1450);
    animation_done(s, p.request_id, NG_TRACK_ALL, "push Checkout");
    if (b.request_id) animation_done(s, b.request_id, NG_TRACK_ALL, "back");
    advance_to(s, 1800);
    bool busy = false;
    uint64_t rid = 0;
    CHECK(s, ng_transition_in_flight(s->ctx, NG_TRACK_SCREEN, &busy, &rid));
    if (busy) animation_done(s, rid, NG_TRACK_ALL, "last transition");

    char note[NOTE_LEN];
    snprintf(note, sizeof note, "%s; touch-up %s",
             s->touch_cancels ? "touch cancelled when the push began (Back un-highlighted)"
                              : (was_live ? "touch stayed live (Back stays highlighted)" : "touch not live"),
             b.request_id ? "fired Back mid-push" : "did nothing");
    if (s->guarded) {
        expect(s, s->touch_cancels == 1, "global-ignore's hold cancels the touch on Back (on_touch_cancel)");
        expect(s, b.request_id == 0, "the cancelled touch's touch-up does not fire Back");
    }
    sim_end(s, out, note);
}

/* (g) leaving Checkout with items in the cart. */
static void scenario_g(sim *s, scenario_result *out) {
    header("(g) leaving Checkout with items in the cart");
    sim_begin(s, 'g', 3);
    say(s, "host      Checkout is pushed marked NG_SCREENF_CONFIRM_LEAVE (the cart has items)");
    ng_request rq = NG_REQUEST_INIT(NG_REQ_PUSH);
    rq.source = SRC_NEXT_BUTTON;
    rq.screen.id = new_screen(s, "Checkout");
    rq.screen.route = "Checkout";
    rq.screen_flags = NG_SCREENF_CONFIRM_LEAVE;
    ng_request_result c = submit(s, &rq, "push Checkout");
    s->visible_id = rq.screen.id;
    uint64_t checkout = rq.screen.id;

    advance_to(s, 1000);
    ng_request_result b1 = tap(s, 1, 1000, BACK_X, BACK_Y);
    bool asked_first = s->question != 0;
    if (s->question) {
        advance_to(s, 2500);
        say(s, "user      taps No in the dialog: ng_question_answer(NO)");
        CHECK(s, ng_question_answer(s->ctx, s->question, NG_ANSWER_NO));
    }
    print_stack(s, "now");
    advance_to(s, 4000);
    say(s, "timer     the idle timer returns the kiosk to Home (pop-to-root)");
    ng_request root = NG_REQUEST_INIT(NG_REQ_POP_TO_ROOT);
    root.flags = NG_REQF_ANIMATED;
    root.source = SRC_PROMO_TIMER;
    ng_request_result r2 = submit(s, &root, "pop-to-root (animated)");
    if (s->question) {
        advance_to(s, 5200);
        say(s, "user      taps Yes: ng_question_answer(YES)");
        CHECK(s, ng_question_answer(s->ctx, s->question, NG_ANSWER_YES));
    }
    advance_to(s, 5550);
    animation_done(s, r2.request_id, NG_TRACK_ALL, "pop-to-root");
    advance_to(s, 5600);

    bool left = true;
    size_t n = 0;
    CHECK(s, ng_stack_count(s->ctx, &n));
    for (size_t i = 0; i < n; i++) {
        ng_screen_info si = NG_SCREEN_INFO_INIT;
        CHECK(s, ng_stack_get(s->ctx, i, &si));
        if (si.id == checkout) left = false;
    }
    char note[NOTE_LEN];
    snprintf(note, sizeof note, "%s; Back %s; the idle timer's pop-to-root %s",
             s->questions ? "the host was asked twice (\"Leave Checkout?\")" : "nobody asked",
             outcome_short(s, b1.request_id), outcome_short(s, r2.request_id));
    if (s->guarded) {
        expect(s, c.status == NG_OUTCOME_APPLIED && asked_first, "Back on Checkout asks the host first");
        expect(s, final_outcome(s, b1.request_id) && final_outcome(s, b1.request_id)->reason == NG_REASON_DECLINED,
               "No keeps Checkout (the Back is refused, declined)");
        expect(s, s->questions == 2 && left && final_outcome(s, r2.request_id) &&
                      final_outcome(s, r2.request_id)->outcome == NG_OUTCOME_APPLIED,
               "the timer's pop-to-root asks too; Yes leaves Checkout");
    }
    sim_end(s, out, note);
}

/* ------------------------------------------------------------------------ */
/* Runs                                                                      */
/* ------------------------------------------------------------------------ */

#define SCENARIOS 7
static const char *const SCENARIO_NAMES[SCENARIOS] = {
    "(a) double tap Next", "(b) Back during push", "(c) cancelled swipe",
    "(d) network mid-push", "(e) lost completion", "(f) finger on button",
    "(g) leave Checkout",
};

static void run(bool guarded, scenario_result results[SCENARIOS]) {
    sim s;
    memset(&s, 0, sizeof s);
    s.guarded = guarded;
    s.run_name = guarded ? "GUARDED" : "UNGUARDED";
    printf("\n==========================================================================\n");
    printf(" %s run: %s\n", s.run_name,
           guarded ? "default chain, ng_chain_configure(ctx, NULL)" : "empty chain");
    printf("==========================================================================\n");
    if (guarded) printf("  plugin dir: %s\n", ng_plugin_dir());

    /* print the chain once, from a throwaway context */
    ng_options o = NG_OPTIONS_INIT;
    o.clock = NG_CLOCK_MANUAL;
    CHECK(&s, ng_context_create(&o, &s.ctx));
    if (guarded) {
        ng_status st = ng_chain_configure(s.ctx, NULL);
        if (st != NG_OK) {
            printf("ng_chain_configure(ctx, NULL) failed: %s\n  ng_errmsg: %s\n", ng_strstatus(st), ng_errmsg(s.ctx));
            exit(1);
        }
    }
    print_chain(&s);
    CHECK(&s, ng_context_destroy(s.ctx));
    s.ctx = NULL;

    scenario_a(&s, &results[0]);
    scenario_b(&s, &results[1]);
    scenario_c(&s, &results[2]);
    scenario_d(&s, &results[3]);
    scenario_e(&s, &results[4]);
    scenario_f(&s, &results[5]);
    scenario_g(&s, &results[6]);
}

static void summary(scenario_result un[SCENARIOS], scenario_result gu[SCENARIOS], bool have_un, bool have_gu) {
    printf("\n==========================================================================\n");
    printf(" Summary: final stack and what happened\n");
    printf("==========================================================================\n");
    printf("%-22s %-10s %s\n%-33s %s\n", "scenario", "run", "final stack", "", "what happened");
    printf("%-22s %-10s %s\n", "----------------------", "----------",
           "--------------------------------------------------------");
    for (int i = 0; i < SCENARIOS; i++) {
        if (have_un) printf("%-22s %-10s %s\n%-33s %s\n", SCENARIO_NAMES[i], "unguarded", un[i].stack, "", un[i].note);
        if (have_gu) printf("%-22s %-10s %s\n%-33s %s\n", have_un ? "" : SCENARIO_NAMES[i], "guarded", gu[i].stack, "",
                            gu[i].note);
    }
}

int main(int argc, char **argv) {
    bool do_un = true, do_gu = true;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--strict") == 0) g_strict = true;
        else if (strcmp(argv[i], "--guarded-only") == 0) do_un = false;
        else if (strcmp(argv[i], "--unguarded-only") == 0) do_gu = false;
        else if (strcmp(argv[i], "--record") == 0 && i + 1 < argc) g_record_dir = argv[++i];
        else {
            fprintf(stderr, "usage: %s [--strict] [--guarded-only | --unguarded-only] [--record DIR]\n"
                            "  --record DIR  write each scenario's flight-recorder trace to\n"
                            "                DIR/<run>-<letter>-<name>.jsonl (navguard replay re-runs it)\n",
                    argv[0]);
            return 2;
        }
    }
    if (g_record_dir && mkdir(g_record_dir, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "kiosk-sim: --record: cannot create %s: %s\n", g_record_dir, strerror(errno));
        return 1;
    }
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (ng_version() != NG_VERSION_NUMBER) {
        printf("header %s but library %s\n", NG_VERSION_STRING, ng_version_string());
        return 1;
    }
    printf("kiosk-sim: NavGuard %s, kiosk flow Home -> Menu -> Item -> Checkout, manual clock\n", ng_version_string());
    printf("Legend: 'NNNN ms' host action (manual clock);  '|' NavGuard callback during that call;\n"
           "        '=' immediate result;  #n request id (#pN: posted from another thread)\n");
    scenario_result un[SCENARIOS], gu[SCENARIOS];
    memset(un, 0, sizeof un);
    memset(gu, 0, sizeof gu);
    if (do_un) run(false, un);
    if (do_gu) run(true, gu);
    summary(un, gu, do_un, do_gu);
    if (g_record_dir) fprintf(stderr, "kiosk-sim: %d traces in %s\n", g_traces, g_record_dir);
    if (g_expectation_failures) {
        printf("\n%d expectation%s of the guarded behaviour not met (see '!! EXPECTATION' lines)%s\n",
               g_expectation_failures, g_expectation_failures == 1 ? "" : "s", g_strict ? "" : "; not fatal without --strict");
        if (g_strict) return 3;
    }
    printf("\nkiosk-sim: done\n");
    return 0;
}
