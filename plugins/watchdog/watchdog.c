/* SPDX-License-Identifier: Apache-2.0 */
/* org.navguard.watchdog — the self-healing timer and the stuck-UI report.
 * It refuses nothing. When something outlives its limit it ends it:
 *  - a transition track in flight longer than transition_limit_ms is finished
 *    (transition_finish, NG_TRACK_ALL, marked FORCED);
 *  - an interactive back is never timed out while the finger driving it is
 *    down (NG_SWIPE_DRIVEN). Otherwise its limit counts from when nothing
 *    drives it any more (its release, or its driving touch's end; its begin
 *    when no touch was named) and it is completed in the decided direction:
 *    released to finish commits (transition_finish), released to cancel or
 *    never released rolls back (interactive_cancel: the safer end of a gesture
 *    nobody decided);
 *  - a live hold older than hold_limit_ms is ended (the host sees it
 *    RELEASED), named with its owner (the guard that began it, or the
 *    host). A hold tied to a transition (hold_begin_transition) is left to
 *    that transition's own limit: it ends with it, so one stuck transition
 *    gives one report;
 *  - a delivered live touch still for touch_limit_ms (no event since; a
 *    finger that keeps moving is alive) is cancelled (the host gets
 *    on_touch_cancel) only when it is in the way: another touch was refused
 *    because of it since it came to rest (ng_touch_info in_way_ns: a began
 *    dropped EXCLUSIVE or MULTI_TOUCH). It is then cancelled at the limit,
 *    or at once when it gets in the way later. A finger resting on a button
 *    blocks nothing: it is left alone and nothing is reported (a lost end
 *    ends with the next began on its id, navguard.h "A live touch");
 *  - resting_touch_limit_ms (0, off, by default) cancels any delivered
 *    touch still that long, in the way or not: for a toolkit that can lose
 *    an end and never reuses a touch id, where the host would otherwise
 *    show the control pressed until something touches it again;
 *  - the touch driving a swipe back is never cancelled for touch_limit_ms: a
 *    user may hold a swipe half way for a while. Only when it has been idle
 *    for drive_limit_ms (a minute by default) is it cancelled, and the swipe
 *    rolled back, in the same round.
 * After each recovery round it posts one report (when `report` is true; a
 * warning log line otherwise) with what it recovered, the state it found
 * (stack, tracks, holds, touches, deferred requests) and the last 64
 * requests and events (newest first), kept in a fixed ring buffer: touches'
 * began and end, keys and remote buttons (its event_mask; not moves, hover,
 * scroll or motion, whose streams would push out what came before).
 *
 * Config (declared below): transition_limit_ms (default 2000), hold_limit_ms
 * (default 10000), touch_limit_ms (default 10000), drive_limit_ms (default
 * 60000), resting_touch_limit_ms (default 0): integers in 0..86400000, 0
 * disables that check; report (bool, default true).
 *
 * A late completion by the host after a recovery is harmless: the core
 * answers NG_E_NOT_FOUND and fires no second callback. Nothing is allocated
 * after create: on_event and on_outcome only write the ring buffer, and the
 * report is built in a fixed 16 KiB buffer (cut at a line end with "..."). */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include "../common/ngg_util.h"
#include "navguard_builtins.h"

#define HISTORY 64
#define REPORT_SIZE 16384
#define MAX_LIMIT_MS 86400000LL
#define ROUND_HOLDS 256          /* holds ended per round (the rest next round) */
#define ROUND_TOUCHES 64         /* touches cancelled per round */

enum { LIM_TRANSITION, LIM_HOLD, LIM_TOUCH, LIM_DRIVE, LIM_REST, LIM_COUNT };
static const char *const limit_keys[LIM_COUNT] = { "transition_limit_ms", "hold_limit_ms", "touch_limit_ms",
                                                   "drive_limit_ms", "resting_touch_limit_ms" };

static const ng_option_decl options[] = {
    NG_OPTION_INT("transition_limit_ms", "2000", 0, MAX_LIMIT_MS,
                  "finish a transition (or complete a swipe nobody drives) after this long; 0: never"),
    NG_OPTION_INT("hold_limit_ms", "10000", 0, MAX_LIMIT_MS, "end a hold live this long; 0: never"),
    NG_OPTION_INT("touch_limit_ms", "10000", 0, MAX_LIMIT_MS,
                  "cancel a touch still this long when it is in the way (another touch was refused because of it "
                  "since it came to rest); a touch that blocks nothing is left alone; 0: never"),
    NG_OPTION_INT("drive_limit_ms", "60000", 0, MAX_LIMIT_MS,
                  "cancel the touch driving a swipe back, and roll the swipe back, when idle this long; 0: never"),
    NG_OPTION_INT("resting_touch_limit_ms", "0", 0, MAX_LIMIT_MS,
                  "cancel any touch still this long, in the way or not (a toolkit that loses ends and never "
                  "reuses touch ids); 0: never"),
    NG_OPTION_BOOL("report", "true", "post a report after each recovery (false: a warning log line)"),
    NG_OPTION_END,
};

/* One request outcome or one event, as remembered. */
typedef struct {
    int64_t at;
    uint64_t id;              /* request id / touch id */
    uint64_t view;            /* event: target view; request: source */
    const char *guard_id;     /* request: refusing guard (lives as long as the context) */
    int32_t a;                /* request: kind; event: type */
    int32_t b;                /* request: outcome; event: phase */
    int32_t reason;           /* request: reason */
    bool is_event;
    bool final;               /* event: NG_GEVF_FINAL */
} entry;

typedef struct {
    const ng_guard_host *host;
    int64_t limit_ns[LIM_COUNT];   /* 0: disabled */
    bool report;
    uint64_t rounds;
    entry history[HISTORY];
    uint64_t recorded;             /* total ever recorded; next slot = recorded % HISTORY */
    /* the report being built */
    char *text;
    size_t len;
    bool cut;
} watchdog;

/* ---- names (from the header's tables: a guard links nothing but its own code) ---- */

NGG_NAME_FUNCTION(kind_name, NG_REQUEST_KIND_MAP)
NGG_NAME_FUNCTION(outcome_name, NG_OUTCOME_MAP)
NGG_NAME_FUNCTION(reason_name, NG_REASON_MAP)
NGG_NAME_FUNCTION(event_name, NG_EVENT_TYPE_MAP)
NGG_NAME_FUNCTION(touch_phase_name, NG_TOUCH_PHASE_MAP)
NGG_NAME_FUNCTION(touch_state_name, NG_TOUCH_STATE_MAP)
NGG_NAME_FUNCTION(swipe_name, NG_SWIPE_STATE_MAP)
NGG_NAME_FUNCTION(track_name, NG_TRACK_MAP)

static int64_t ms(int64_t ns) { return ns / NGG_MS; }

static int64_t add_sat(int64_t a, int64_t b) { return a > NG_NO_DEADLINE - b ? NG_NO_DEADLINE : a + b; }

/* When a track's time limit starts: a swipe back's from when nothing drives
 * it any more; NG_NO_DEADLINE while its finger is down. */
static int64_t limit_start(const ng_track_info *ti) {
    if (!(ti->flags & NG_TRANSF_INTERACTIVE) || ti->swipe == NG_SWIPE_NONE) return ti->began_ns;
    return ti->swipe == NG_SWIPE_DRIVEN ? NG_NO_DEADLINE : ti->swipe_since_ns;
}

static bool get_track(const ng_guard_host *h, ng_track t, ng_track_info *ti) {
    memset(ti, 0, sizeof *ti);
    ti->size = sizeof *ti;
    return h->track_get(h, t, ti);
}

static bool get_hold(const ng_guard_host *h, size_t i, ng_hold_view *hv) {
    memset(hv, 0, sizeof *hv);
    hv->size = sizeof *hv;
    return h->hold_get(h, i, hv) == NG_OK;
}

static bool get_touch(const ng_guard_host *h, size_t i, ng_touch_info *t) {
    memset(t, 0, sizeof *t);
    t->size = sizeof *t;
    return h->touch_get(h, i, t) == NG_OK;
}

/* A touch's latest event (a host older than plugin ABI 1.2 gives only its
 * began: it then counts from there). */
static int64_t touch_last(const ng_touch_info *t) { return t->last_ns ? t->last_ns : t->began_ns; }

/* The touch whose finger drives the swipe back in flight, if any. */
static bool driving_touch(const ng_guard_host *h, uint64_t *id) {
    ng_track_info ti;
    if (!get_track(h, NG_TRACK_SCREEN, &ti) || ti.swipe != NG_SWIPE_DRIVEN) return false;
    *id = ti.driving_touch;
    return true;
}

/* A still touch is in the way when another touch was refused because of it
 * since it came to rest (navguard.h, "A live touch"). */
static bool in_way(const ng_touch_info *t) { return t->in_way_ns != 0 && t->in_way_ns >= touch_last(t); }

/* When a delivered touch is overdue: the driving touch's own (long) limit;
 * any other's idle limit when it is in the way, the resting limit when set;
 * NG_NO_DEADLINE when none applies. */
static int64_t touch_due(const watchdog *g, const ng_touch_info *t, bool driving) {
    if (driving) return g->limit_ns[LIM_DRIVE] > 0 ? add_sat(touch_last(t), g->limit_ns[LIM_DRIVE]) : NG_NO_DEADLINE;
    int64_t d = NG_NO_DEADLINE;
    if (g->limit_ns[LIM_TOUCH] > 0 && in_way(t)) d = add_sat(touch_last(t), g->limit_ns[LIM_TOUCH]);
    if (g->limit_ns[LIM_REST] > 0) {
        int64_t r = add_sat(touch_last(t), g->limit_ns[LIM_REST]);
        if (r < d) d = r;
    }
    return d;
}

/* A hold the watchdog times: not one tied to a transition (that one ends
 * with its transition, whose own limit the watchdog keeps). */
static bool timed_hold(const ng_hold_view *hv) { return hv->transition_id == 0; }

static const char *owner_name(const ng_hold_view *hv) { return hv->owner_id ? hv->owner_id : "the host"; }

/* ---- create / destroy ---- */

static void *create(const ng_guard_host *host, const char *config) {
    (void)config;
    watchdog *g = calloc(1, sizeof *g);
    if (!g) return NULL;
    g->text = malloc(REPORT_SIZE);
    if (!g->text) { free(g); return NULL; }
    g->host = host;
    for (int i = 0; i < LIM_COUNT; i++) g->limit_ns[i] = ngg_int(host, limit_keys[i]) * NGG_MS;
    g->report = ngg_bool(host, "report");
    return g;
}

static void destroy(void *inst) {
    watchdog *g = inst;
    free(g->text);
    free(g);
}

/* ---- history ---- */

static entry *next_entry(watchdog *g) {
    entry *e = &g->history[g->recorded % HISTORY];
    g->recorded++;
    return e;
}

static ng_vote on_event(void *inst, const ng_guard_event *ge, ng_verdict *v) {
    (void)v;
    watchdog *g = inst;
    entry *e = next_entry(g);
    e->at = g->host->now(g->host);
    e->is_event = true;
    e->final = (ge->flags & NG_GEVF_FINAL) != 0;
    e->a = ge->event->type;
    e->b = ge->event->phase;
    e->id = ge->event->touch_id;
    e->view = ge->target_view;
    e->reason = 0;
    e->guard_id = NULL;
    return NG_VOTE_ALLOW;
}

static void on_outcome(void *inst, const ng_outcome *o) {
    watchdog *g = inst;
    entry *e = next_entry(g);
    e->at = g->host->now(g->host);
    e->is_event = false;
    e->final = false;
    e->a = o->kind;
    e->b = o->outcome;
    e->reason = o->reason;
    e->id = o->request_id;
    e->view = o->source;
    e->guard_id = o->guard_id;
}

/* ---- report text ---- */

/* Append one formatted line (or part of one); a piece that does not fit cuts
 * the report at the last complete line with "...". */
__attribute__((format(printf, 2, 3)))
static void out(watchdog *g, const char *fmt, ...) {
    if (g->cut) return;
    char piece[768];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(piece, sizeof piece, fmt, ap);
    va_end(ap);
    if (n < 0) return;
    size_t len = (size_t)n < sizeof piece ? (size_t)n : sizeof piece - 1;
    if (g->len + len + 5 > REPORT_SIZE) {      /* room for "...\n" and the NUL */
        while (g->len > 0 && g->text[g->len - 1] != '\n') g->len--;
        memcpy(g->text + g->len, "...\n", 5);
        g->len += 4;
        g->cut = true;
        return;
    }
    memcpy(g->text + g->len, piece, len);
    g->len += len;
    g->text[g->len] = '\0';
}

/* A string for the report: quoted, control characters replaced, at most 200
 * bytes (cut on a UTF-8 character boundary). */
static const char *quoted(char *buf, size_t size, const char *s) {
    if (!s) return "(none)";
    size_t n = 0, max = size - 6;
    buf[n++] = '"';
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (n >= max) {
            while (n > 1 && ((unsigned char)buf[n - 1] & 0xC0) == 0x80) n--;   /* continuation bytes */
            if (n > 1 && ((unsigned char)buf[n - 1] & 0xC0) == 0xC0) n--;      /* a lead byte */
            memcpy(buf + n, "...", 3);
            n += 3;
            break;
        }
        buf[n++] = (char)(*p < 0x20 || *p == 0x7F ? '?' : *p);
    }
    buf[n++] = '"';
    buf[n] = '\0';
    return buf;
}

static void out_state(watchdog *g, int64_t now) {
    const ng_guard_host *h = g->host;
    char q1[208], q2[208];

    size_t depth = h->stack_count(h);
    out(g, "stack (%zu screen%s, root first):\n", depth, depth == 1 ? "" : "s");
    for (size_t i = 0; i < depth; i++) {
        ng_screen_info s = NG_SCREEN_INFO_INIT;
        if (h->stack_get(h, i, &s) != NG_OK) continue;
        if (s.identity && s.route && strcmp(s.identity, s.route) != 0)
            out(g, "  %zu: id %" PRIu64 " route %s identity %s\n", i, s.id, quoted(q1, sizeof q1, s.route),
                quoted(q2, sizeof q2, s.identity));
        else
            out(g, "  %zu: id %" PRIu64 " route %s\n", i, s.id, quoted(q1, sizeof q1, s.route));
    }

    bool any = false;
    for (ng_track t = NG_TRACK_SCREEN; t <= NG_TRACK_BAR; t++) {
        ng_track_info ti;
        if (!get_track(h, t, &ti)) continue;
        if (!any) out(g, "transitions in flight:\n");
        any = true;
        out(g, "  %s: request %" PRIu64 " (%s) age %" PRId64 " ms%s%s", track_name(t),
            ti.request_id, kind_name(ti.kind), ms(now - ti.began_ns),
            (ti.flags & NG_TRANSF_ANIMATED) ? " animated" : "",
            (ti.flags & NG_TRANSF_INTERACTIVE) ? " interactive" : "");
        if (ti.flags & NG_TRANSF_INTERACTIVE) {
            out(g, " progress %.2f swipe %s", ti.progress, swipe_name(ti.swipe));
            if (ti.flags & NG_TRANSF_TOUCH_DRIVEN) out(g, " (touch %" PRIu64 ")", ti.driving_touch);
            if (ti.swipe != NG_SWIPE_DRIVEN && ti.swipe != NG_SWIPE_NONE)
                out(g, " unattended %" PRId64 " ms", ms(now - ti.swipe_since_ns));
        }
        if (ti.deadline_ns != NG_NO_DEADLINE) out(g, " timed (ends at %" PRId64 " ms)", ms(ti.deadline_ns));
        out(g, "\n");
    }
    if (!any) out(g, "transitions in flight: none\n");

    size_t holds = h->hold_count(h);
    out(g, "holds (%zu, mask 0x%02" PRIx32 ")%s\n", holds, h->hold_mask(h), holds ? ":" : "");
    for (size_t i = 0; i < holds; i++) {
        ng_hold_view hv;
        if (!get_hold(h, i, &hv)) continue;
        out(g, "  token %" PRIu64 " %s by %s mask 0x%02" PRIx32 " age %" PRId64 " ms", hv.token,
            quoted(q1, sizeof q1, hv.label), owner_name(&hv), hv.mask, ms(now - hv.began_ns));
        if (hv.transition_id) out(g, " (ends with request %" PRIu64 "'s transition)", hv.transition_id);
        if (hv.deadline_ns != NG_NO_DEADLINE) out(g, " (expires at %" PRId64 " ms)", ms(hv.deadline_ns));
        out(g, "\n");
    }

    size_t touches = h->touch_count(h);
    out(g, "live touches (%zu)%s\n", touches, touches ? ":" : "");
    for (size_t i = 0; i < touches; i++) {
        ng_touch_info t;
        if (!get_touch(h, i, &t)) continue;
        out(g, "  touch %" PRIu64 " view %" PRIu64 " %s age %" PRId64 " ms idle %" PRId64 " ms", t.touch_id,
            t.view_id, touch_state_name(t.state), ms(now - t.began_ns), ms(now - touch_last(&t)));
        if (t.in_way_ns) out(g, " in the way at %" PRId64 " ms", ms(t.in_way_ns));
        out(g, "\n");
    }

    size_t deferred = h->deferred_count(h);
    out(g, "deferred requests (%zu)%s\n", deferred, deferred ? ":" : "");
    for (size_t i = 0; i < deferred; i++) {
        ng_guard_request r;
        memset(&r, 0, sizeof r);
        r.size = sizeof r;
        if (h->deferred_get(h, i, &r) != NG_OK) continue;
        out(g, "  request %" PRIu64 " (%s) source %" PRIu32 " attempt %" PRIu32 "\n", r.request_id, kind_name(r.kind),
            r.source, r.attempt);
    }

    size_t kept = g->recorded < HISTORY ? (size_t)g->recorded : HISTORY;
    /* Newest first: a cut report keeps what happened just before. */
    out(g, "history (last %zu of %" PRIu64 " requests and events, newest first)%s\n", kept, g->recorded,
        kept ? ":" : "");
    for (uint64_t k = g->recorded; k > g->recorded - kept; k--) {
        const entry *e = &g->history[(k - 1) % HISTORY];
        if (e->is_event) {
            if (e->a == NG_EVENT_TOUCH)
                out(g, "  t=%" PRId64 " ms event touch %s touch %" PRIu64 " view %" PRIu64 "%s\n", ms(e->at),
                    touch_phase_name(e->b), e->id, e->view, e->final ? " (final)" : "");
            else
                out(g, "  t=%" PRId64 " ms event %s phase %" PRId32 " device %" PRIu64 " view %" PRIu64 "\n", ms(e->at),
                    event_name(e->a), e->b, e->id, e->view);
        } else {
            out(g, "  t=%" PRId64 " ms request %" PRIu64 " %s %s", ms(e->at), e->id, kind_name(e->a), outcome_name(e->b));
            if (e->b != NG_OUTCOME_APPLIED) out(g, " %s", reason_name(e->reason));
            if (e->guard_id) out(g, " by %s", e->guard_id);
            if (e->view) out(g, " source %" PRIu64, e->view);
            out(g, "\n");
        }
    }
}

/* ---- timing and recovery ---- */

static int64_t next_deadline(void *inst) {
    watchdog *g = inst;
    const ng_guard_host *h = g->host;
    int64_t d = NG_NO_DEADLINE;
    if (g->limit_ns[LIM_TRANSITION] > 0) {
        for (ng_track t = NG_TRACK_SCREEN; t <= NG_TRACK_BAR; t++) {
            ng_track_info ti;
            if (get_track(h, t, &ti)) {
                int64_t start = limit_start(&ti);
                int64_t at = start == NG_NO_DEADLINE ? NG_NO_DEADLINE : add_sat(start, g->limit_ns[LIM_TRANSITION]);
                if (at < d) d = at;
            }
        }
    }
    if (g->limit_ns[LIM_HOLD] > 0) {
        size_t n = h->hold_count(h);
        for (size_t i = 0; i < n; i++) {
            ng_hold_view hv;
            if (get_hold(h, i, &hv) && timed_hold(&hv)) {
                int64_t at = add_sat(hv.began_ns, g->limit_ns[LIM_HOLD]);
                if (at < d) d = at;
            }
        }
    }
    uint64_t driver = 0;
    bool driven = driving_touch(h, &driver);
    size_t n = h->touch_count(h);
    for (size_t i = 0; i < n; i++) {
        ng_touch_info t;
        if (get_touch(h, i, &t) && t.state == NG_TOUCH_STATE_DELIVERED) {
            int64_t at = touch_due(g, &t, driven && t.touch_id == driver);
            if (at < d) d = at;
        }
    }
    return d;
}

static void on_tick(void *inst, int64_t now) {
    watchdog *g = inst;
    const ng_guard_host *h = g->host;
    char q[208];

    /* What is overdue, found before anything changes. */
    ng_track_info track;
    int64_t track_start = 0;
    bool end_track = false, interactive = false;
    if (g->limit_ns[LIM_TRANSITION] > 0) {
        for (ng_track t = NG_TRACK_SCREEN; t <= NG_TRACK_BAR && !end_track; t++) {
            if (!get_track(h, t, &track)) continue;
            track_start = limit_start(&track);
            if (track_start != NG_NO_DEADLINE && now - track_start >= g->limit_ns[LIM_TRANSITION]) {
                end_track = true;
                interactive = (track.flags & NG_TRANSF_INTERACTIVE) != 0;
            }
        }
    }
    uint64_t hold_tokens[ROUND_HOLDS];
    size_t nholds = 0;
    if (g->limit_ns[LIM_HOLD] > 0) {
        size_t n = h->hold_count(h);
        for (size_t i = 0; i < n && nholds < ROUND_HOLDS; i++) {
            ng_hold_view hv;
            if (get_hold(h, i, &hv) && timed_hold(&hv) && now - hv.began_ns >= g->limit_ns[LIM_HOLD])
                hold_tokens[nholds++] = hv.token;
        }
    }
    uint64_t touch_ids[ROUND_TOUCHES];
    size_t ntouches = 0;
    uint64_t driver = 0;
    bool driven = driving_touch(h, &driver), drive_lost = false;
    size_t ntouch = h->touch_count(h);
    for (size_t i = 0; i < ntouch && ntouches < ROUND_TOUCHES; i++) {
        ng_touch_info t;
        if (!get_touch(h, i, &t) || t.state != NG_TOUCH_STATE_DELIVERED) continue;
        bool driving = driven && t.touch_id == driver;
        if (touch_due(g, &t, driving) > now) continue;
        touch_ids[ntouches++] = t.touch_id;
        /* The finger of a swipe held still for drive_limit_ms: the swipe
         * rolls back in this same round (one stuck gesture, one report). */
        if (driving && !end_track && get_track(h, NG_TRACK_SCREEN, &track)) {
            drive_lost = end_track = interactive = true;
            track_start = touch_last(&t);
        }
    }
    /* A swipe released to finish is committed; any other is rolled back. */
    bool commit = !interactive || track.swipe == NG_SWIPE_FINISHING;
    size_t items = (end_track ? 1 : 0) + nholds + ntouches;
    if (items == 0) return;
    g->rounds++;

    /* The report: what is recovered, then the state as found. */
    g->len = 0;
    g->cut = false;
    g->text[0] = '\0';
    out(g, "NavGuard watchdog: recovered %zu stuck item%s at t=%" PRId64 " ms (round %" PRIu64 ")\n", items,
        items == 1 ? "" : "s", ms(now), g->rounds);
    out(g, "recovered:\n");
    if (end_track && !interactive)
        out(g, "  transition: request %" PRIu64 " (%s) in flight for %" PRId64 " ms (limit %" PRId64 " ms): finished (forced)\n",
            track.request_id, kind_name(track.kind), ms(now - track.began_ns), ms(g->limit_ns[LIM_TRANSITION]));
    else if (drive_lost)
        out(g, "  transition: request %" PRIu64 " (%s) in flight for %" PRId64 " ms, its finger (touch %" PRIu64
            ") still for %" PRId64 " ms (limit %" PRId64 " ms): interactive back cancelled, stack rolled back\n",
            track.request_id, kind_name(track.kind), ms(now - track.began_ns), driver, ms(now - track_start),
            ms(g->limit_ns[LIM_DRIVE]));
    else if (end_track)
        out(g, "  transition: request %" PRIu64 " (%s) in flight for %" PRId64 " ms, %s %" PRId64 " ms (limit %" PRId64
            " ms): %s\n", track.request_id, kind_name(track.kind), ms(now - track.began_ns),
            track.swipe == NG_SWIPE_FINISHING ? "released to finish" :
            track.swipe == NG_SWIPE_CANCELLING ? "released to cancel" :
            (track.flags & NG_TRANSF_TOUCH_DRIVEN) ? "undecided since its touch ended" : "undecided",
            ms(now - track_start), ms(g->limit_ns[LIM_TRANSITION]),
            commit ? "interactive back completed, pop committed" : "interactive back cancelled, stack rolled back");
    for (size_t k = 0; k < nholds; k++) {
        size_t n = h->hold_count(h);
        for (size_t i = 0; i < n; i++) {
            ng_hold_view hv;
            if (!get_hold(h, i, &hv) || hv.token != hold_tokens[k]) continue;
            out(g, "  hold: token %" PRIu64 " %s by %s live for %" PRId64 " ms (limit %" PRId64 " ms): released\n",
                hv.token, quoted(q, sizeof q, hv.label), owner_name(&hv), ms(now - hv.began_ns),
                ms(g->limit_ns[LIM_HOLD]));
        }
    }
    for (size_t k = 0; k < ntouches; k++) {
        size_t n = h->touch_count(h);
        for (size_t i = 0; i < n; i++) {
            ng_touch_info t;
            if (!get_touch(h, i, &t) || t.touch_id != touch_ids[k]) continue;
            bool driving = driven && t.touch_id == driver;
            out(g, "  touch: %" PRIu64 " on view %" PRIu64 "%s live for %" PRId64 " ms, idle %" PRId64 " ms", t.touch_id,
                t.view_id, driving ? " (driving the swipe back)" : "", ms(now - t.began_ns), ms(now - touch_last(&t)));
            /* Which limit: the drive limit, the idle limit of a touch in the
             * way (and when another touch was last refused because of it),
             * or the resting limit. */
            if (driving)
                out(g, " (limit %" PRId64 " ms)", ms(g->limit_ns[LIM_DRIVE]));
            else if (g->limit_ns[LIM_TOUCH] > 0 && in_way(&t) && now - touch_last(&t) >= g->limit_ns[LIM_TOUCH])
                out(g, " (limit %" PRId64 " ms), in the way: a touch refused because of it at %" PRId64 " ms",
                    ms(g->limit_ns[LIM_TOUCH]), ms(t.in_way_ns));
            else
                out(g, " (resting limit %" PRId64 " ms)", ms(g->limit_ns[LIM_REST]));
            out(g, ": cancelled\n");
        }
    }
    out(g, "state found:\n");
    out_state(g, now);

    /* Recover. */
    ng_status st;
    if (end_track) {
        st = commit ? h->transition_finish(h, NG_TRACK_ALL) : h->interactive_cancel(h);
        if (st != NG_OK) out(g, "note: ending request %" PRIu64 " failed (status %" PRId32 ")\n", track.request_id, st);
    }
    for (size_t k = 0; k < nholds; k++)
        if ((st = h->hold_end(h, hold_tokens[k])) != NG_OK)
            out(g, "note: ending hold %" PRIu64 " failed (status %" PRId32 ")\n", hold_tokens[k], st);
    for (size_t k = 0; k < ntouches; k++)
        if ((st = h->touch_cancel(h, touch_ids[k])) != NG_OK)
            out(g, "note: cancelling touch %" PRIu64 " failed (status %" PRId32 ")\n", touch_ids[k], st);

    if (!g->report) {
        char line[160];
        snprintf(line, sizeof line, "watchdog: recovered %zu stuck item%s: %s transition%s, %zu hold%s, %zu touch%s",
                 items, items == 1 ? "" : "s", end_track ? "1" : "0", end_track ? "" : "s", nholds,
                 nholds == 1 ? "" : "s", ntouches, ntouches == 1 ? "" : "es");
        h->log(h, NG_LOG_WARN, line);
        return;
    }
    st = h->report(h, g->text);
    if (st == NG_E_TOO_LONG && g->len > NG_MAX_STRING) {
        /* The host takes shorter reports: keep the first lines. */
        g->len = NG_MAX_STRING - 4;
        while (g->len > 0 && g->text[g->len - 1] != '\n') g->len--;
        memcpy(g->text + g->len, "...\n", 5);
        st = h->report(h, g->text);
    }
    if (st != NG_OK) h->log(h, NG_LOG_WARN, "watchdog: the host did not take the recovery report");
}

static const ng_plugin_descriptor descriptor = {
    NG_PLUGIN_DESCRIPTOR_ABI,
    .id = "org.navguard.watchdog",
    .name = "watchdog",
    .version = NGG_VERSION,
    .description = "Ends transitions, holds and touches that outlive their limits, and reports the state and recent history. "
                   "A finger resting on a button is not a fault: a still touch is cancelled only when it is in the way "
                   "(another touch was refused because of it since it came to rest: exclusive touch, multiple touch "
                   "off; or it drives a swipe back, which holds the stack and the requests waiting on it); a still "
                   "touch that blocks nothing is left alone and nothing is reported.",
    .create = create,
    .destroy = destroy,
    .on_event = on_event,
    .on_outcome = on_outcome,
    .on_tick = on_tick,
    .next_deadline = next_deadline,
    .options = options,
    /* The history keeps discrete events: a finger moving for a second (or
     * hover, scroll, motion) would push out everything before it. Whether a
     * touch is alive comes from its last_ns, which moves keep current. */
    .event_mask = NG_WANT_TOUCH_BEGAN | NG_WANT_TOUCH_END | NG_WANT_KEY | NG_WANT_REMOTE,
};

const ng_plugin_descriptor *ngg_watchdog_descriptor(void) { return &descriptor; }
