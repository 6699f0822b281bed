/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fuzz_api.c — NavGuard's C ABI under fuzzed call sequences.
 *
 * The input bytes are a program of API calls on one or two contexts (manual
 * clock). The first bytes configure the run; then each op byte picks a call
 * and the bytes after it its arguments, from small pools that include the
 * bad values (NULL pointers, invalid UTF-8, over-long strings, wrong struct
 * sizes, NaN/inf, negative and huge times, stale and foreign handles).
 * Delegate callbacks perform nested calls armed by the program (submit,
 * finish, hold, event, destroy of their own context, ...), and a guard driven
 * by the program (org.navguard.fuzz.*) votes and acts through the host table.
 *
 * Every call's status is checked against the statuses navguard.h documents
 * for that function, and the harness keeps a model of what the host has been
 * told, aborting on any violation of:
 *  - every status is in [0, NG_STATUS_COUNT) (and documented for the call);
 *  - every request id from ng_request_submit/ng_request_post gets exactly one
 *    on_outcome (at destroy: as many distinct outcomes as accepted requests);
 *    APPLIED/REFUSED outside a callback arrive before submit returns;
 *  - every delivered touch ends exactly once: its ended/cancelled phase is
 *    delivered, or on_touch_cancel is called (never both, never neither);
 *  - transitions: WILL then exactly one DID or CANCELLED per track;
 *    ng_transition_in_flight agrees with what the delegate was told;
 *  - every hold the host began ends exactly once (on_hold_end);
 *  - ng_stack_count >= 1 once the root is set; ng_errmsg never NULL;
 *  - ng_tick makes progress: after ticking, next_deadline moves past now;
 *  - stale, NULL and foreign handles get NG_E_HANDLE; destroy, tick,
 *    set_root, restore and chain changes inside a callback get NG_E_CALLBACK;
 *  - a snapshot restores to itself; a failed restore leaves the stack alone.
 *
 * Built twice from this one file: fuzz_api (libFuzzer, -DNAVGUARD_FUZZ=ON)
 * and fuzz_api_replay (with replay.c's main(): corpus files and generated
 * programs, run by ctest as fuzz_api_smoke). NGF_VERBOSE=1 in the
 * environment (or replay -v) traces every call to stderr.
 */
#define _POSIX_C_SOURCE 200809L
#include <navguard/navguard.h>
#include <navguard/plugin.h>
/* NGF_STATUSES_<function>: generated at build time from the "Returns ..."
 * list of each function's comment in navguard.h (fuzz/status_masks.py), so
 * this harness and the header cannot drift apart. */
#include "ng_status_masks.h"

#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
/* Called by ffi-predicate (chain variant "ffi"): exported by the binary. */
bool ngf_predicate(int32_t kind, const char *route, uint64_t depth);

/* Set by replay -v or NGF_VERBOSE=1: trace every call. */
int ngf_verbose = 0;

/* Open findings (fuzz/crashers/README.md) can be steered around so fuzzing
 * goes on past them: guard the triggering input or the check with
 * FINDING(n), which is on only when the environment has NGF_FINDINGS=1 (all)
 * or a list such as NGF_FINDINGS=F4,F5 (how a saved crasher reproduces).
 * None is open: F1-F3 are fixed (510b551) and checked unconditionally. */
static unsigned g_findings = 0;
#define FINDING(n) ((g_findings >> (n)) & 1u)

#define MAX_OPS 400             /* top-level ops per input */
#define MAX_CONTEXTS 12         /* contexts created per input */
#define MAX_NEST 4              /* nested callback depth that still acts */
#define MAX_TOUCH_MODEL 512
#define MAX_VIEW_MODEL 256
#define GUARD_BUDGET 256        /* fuzz-guard actions per top-level op */

/* ------------------------------------------------------------------------ */
/* Failure reporting and tracing                                             */
/* ------------------------------------------------------------------------ */

static int g_opno;   /* top-level op index, for messages */
static int g_depth;  /* callbacks on the stack, all contexts */

__attribute__((noreturn, format(printf, 2, 3)))
static void ngf_fail(int line, const char *fmt, ...) {
    va_list ap;
    fflush(stdout);
    fprintf(stderr, "\nNAVGUARD FUZZ: invariant violated (fuzz_api.c:%d, op #%d, callback depth %d): ", line, g_opno,
            g_depth);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\n(re-run the input with fuzz_api_replay -v FILE for the call trace)\n");
    fflush(stderr);
    abort();
}

#define CHECK(cond, ...)                                  \
    do {                                                  \
        if (!(cond)) ngf_fail(__LINE__, __VA_ARGS__);     \
    } while (0)

#define TR(...)                                                       \
    do {                                                              \
        if (ngf_verbose) {                                            \
            fprintf(stderr, "%*s", 2 * g_depth, "");                  \
            fprintf(stderr, __VA_ARGS__);                             \
            fputc('\n', stderr);                                      \
        }                                                             \
    } while (0)

/* "NG_E_NULL", ... from the header's table. */
static const char *stname(ng_status st) {
#define STATUS_NAME(constant, text) case constant: return #constant;
    switch (st) { NG_STATUS_MAP(STATUS_NAME) default: return "?"; }
#undef STATUS_NAME
}

/* The statuses each function may return are NGF_STATUSES_<function>
 * (ng_status_masks.h, above): CALL checks every call against them. */
#define S(x) NGF_STATUS_BIT(x)

/* NGF_STATS=1: count the statuses each function returned and the callbacks,
 * printed at exit (what the corpus exercises). */
static int g_stats = 0;
static struct { char name[40]; unsigned long long st[NG_STATUS_COUNT]; } g_stat_fn[64];
static unsigned long long g_stat_cb[8];
static unsigned long long g_stat_replays[2];   /* traces replayed identically; not replayable (fuzz guards) */
static const char *const g_stat_cb_name[8] = { "on_outcome", "on_transition", "on_hold_end", "on_touch_cancel",
                                               "on_report", "on_log", "guard actions", "nested calls" };

static void stat_status(const char *call, ng_status st) {
    char name[40];
    size_t n = 0;
    while (call[n] && call[n] != '(' && n < sizeof name - 1) { name[n] = call[n]; n++; }
    name[n] = '\0';
    for (size_t i = 0; i < sizeof g_stat_fn / sizeof g_stat_fn[0]; i++) {
        if (!g_stat_fn[i].name[0]) memcpy(g_stat_fn[i].name, name, n + 1);
        if (!strcmp(g_stat_fn[i].name, name)) { g_stat_fn[i].st[st]++; return; }
    }
}

static void print_stats(void) {
    fprintf(stderr, "\nNGF_STATS: statuses returned per function (%s)\n", "fuzz_api.c");
    for (size_t i = 0; i < sizeof g_stat_fn / sizeof g_stat_fn[0] && g_stat_fn[i].name[0]; i++) {
        fprintf(stderr, "  %-28s", g_stat_fn[i].name);
        for (int k = 0; k < NG_STATUS_COUNT; k++)
            if (g_stat_fn[i].st[k]) fprintf(stderr, " %s:%llu", stname(k), g_stat_fn[i].st[k]);
        fputc('\n', stderr);
    }
    fprintf(stderr, "NGF_STATS: callbacks and actions\n");
    for (int k = 0; k < 8; k++) fprintf(stderr, "  %-28s %llu\n", g_stat_cb_name[k], g_stat_cb[k]);
    fprintf(stderr, "NGF_STATS: traces replayed identically %llu, not replayable (fuzz guards) %llu\n",
            g_stat_replays[0], g_stat_replays[1]);
}

static ng_status chk_status(ng_status st, uint32_t allowed, const char *call, int line) {
    if (st < 0 || st >= NG_STATUS_COUNT) ngf_fail(line, "%s returned %" PRId32 ", outside [0, NG_STATUS_COUNT)", call, st);
    if (!(allowed & S(st))) ngf_fail(line, "%s returned %s, not a status navguard.h documents for it", call, stname(st));
    const char *s = ng_strstatus(st);
    if (!s) ngf_fail(line, "ng_strstatus(%" PRId32 ") is NULL", st);
    if (g_stats) stat_status(call, st);
    return st;
}
/* CALL(ng_f, args...) calls ng_f(args...) and checks its status against
 * what navguard.h documents for ng_f. */
#define CALL(fn, ...) chk_status(fn(__VA_ARGS__), NGF_STATUSES_##fn, #fn "(" #__VA_ARGS__ ")", __LINE__)

/* ------------------------------------------------------------------------ */
/* Input reader                                                              */
/* ------------------------------------------------------------------------ */

typedef struct {
    const uint8_t *p;
    size_t n, i;
} rd;

static bool r_eof(const rd *r) { return r->i >= r->n; }
static uint8_t r8(rd *r) { return r->i < r->n ? r->p[r->i++] : 0; }
static uint16_t r16(rd *r) { uint16_t a = r8(r); return (uint16_t)(a | (uint16_t)r8(r) << 8); }
static uint32_t r32(rd *r) { uint32_t a = r16(r); return a | (uint32_t)r16(r) << 16; }
static uint64_t r64(rd *r) { uint64_t a = r32(r); return a | (uint64_t)r32(r) << 32; }

static double d_from_bits(uint64_t u) {
    double d;
    memcpy(&d, &u, sizeof d);
    return d;
}

/* Coordinates, sizes, shape values. */
static double r_double(rd *r) {
    uint8_t b = r8(r);
    switch (b % 20) {
    case 0: return 0.0;
    case 1: return -0.0;
    case 2: return 1.0;
    case 3: return 5.0;
    case 4: return 10.0;
    case 5: return 25.0;
    case 6: return 50.0;
    case 7: return 99.999;
    case 8: return 100.0;
    case 9: return -1.0;
    case 10: return NAN;
    case 11: return INFINITY;
    case 12: return -INFINITY;
    case 13: return 1e308;
    case 14: return -1e308;
    case 15: return 4.9e-324;
    case 16: return (double)(int8_t)r8(r);
    case 17: return (double)(int8_t)r8(r) + 0.5;
    case 18: return 1e-9;
    default: return d_from_bits(r64(r));
    }
}

/* Interactive progress. */
static double r_progress(rd *r) {
    switch (r8(r) % 14) {
    case 0: return 0.0;
    case 1: return 0.25;
    case 2: return 0.5;
    case 3: return 1.0;
    case 4: return -0.0;
    case 5: return NAN;
    case 6: return INFINITY;
    case 7: return -INFINITY;
    case 8: return 1.0000001;
    case 9: return -1e-300;
    case 10: return nextafter(1.0, 2.0);
    case 11: return 4.9e-324;
    case 12: return (double)r8(r) / 255.0;
    default: return d_from_bits(r64(r));
    }
}

/* Durations, clock values and deltas. */
static int64_t r_time(rd *r) {
    switch (r8(r) % 18) {
    case 0: return 0;
    case 1: return 1;
    case 2: return 1000;
    case 3: return 1000000;             /* 1 ms */
    case 4: return 16000000;            /* a frame */
    case 5: return 350000000;           /* the default transition */
    case 6: return 1000000000;
    case 7: return 2100000000;          /* past the watchdog's 2 s */
    case 8: return 11000000000;         /* past the watchdog's 10 s */
    case 9: return -1;
    case 10: return INT64_MAX;
    case 11: return INT64_MIN;
    case 12: return INT64_MAX - 1;
    case 13: return (int64_t)r16(r) * 1000000;
    case 14: return INT64_MAX / 2;
    case 15: return -(int64_t)r16(r);
    default: return (int64_t)r64(r);
    }
}

/* Strings: valid, empty, invalid UTF-8, at and over NG_MAX_STRING, NULL. */
static char g_str1024[NG_MAX_STRING + 1];
static char g_str1025[NG_MAX_STRING + 2];
static char g_str5000[5001];
static char g_str_mb[NG_MAX_STRING + 1];       /* 512 x U+00E9: 1024 bytes */
static char g_str_mb_cut[NG_MAX_STRING + 1];   /* 1023 bytes, ends in a lead byte */
static char g_str_70k[70 * 1024];              /* reports beyond 64 KiB */

typedef struct {
    char s[16][40];
    int next;
} arena;

static const char *r_str(rd *r, arena *a) {
    uint8_t b = r8(r);
    switch (b % 28) {
    case 0: return NULL;
    case 1: case 2: return "home";
    case 3: return "a";
    case 4: return "b";
    case 5: return "settings";
    case 6: return "detail";
    case 7: return "";
    case 8: return "caf\xc3";                     /* truncated sequence */
    case 9: return "\xff\xfe route";              /* invalid bytes */
    case 10: return "\xed\xa0\x80";               /* UTF-16 surrogate */
    case 11: return "\xc0\xaf";                   /* overlong '/' */
    case 12: return "\xf4\x90\x80\x80";           /* above U+10FFFF */
    case 13: return "\xe2\x80\xa8\xe2\x80\xa9";   /* U+2028 U+2029 (valid) */
    case 14: return "q\"b\\s\n\t\x01\x7f/";       /* JSON escapes */
    case 15: return g_str1024;
    case 16: return g_str1025;
    case 17: return g_str5000;
    case 18: return g_str_mb;
    case 19: return g_str_mb_cut;
    case 20: return "\xf0\x9f\x98\x80";           /* U+1F600 */
    case 21: return "\xc2";
    case 22: return "c";
    case 23: return "\xef\xbb\xbf" "bom";
    default: {                                    /* bytes from the input */
        char *s = a->s[a->next++ % 16];
        size_t n = r8(r) % 32;
        for (size_t i = 0; i < n; i++) s[i] = (char)r8(r);
        s[n] = '\0';
        return s;
    }
    }
}

static uint64_t r_screen_id(rd *r) {
    uint8_t b = r8(r);
    if (b < 208) return b % 13;                   /* 0 (reserved) .. 12 */
    if (b < 224) return UINT64_MAX - (b % 3);
    if (b < 240) return (uint64_t)1 << 63;
    return r64(r);
}

static uint64_t r_view_id(rd *r) {
    uint8_t b = r8(r);
    if (b < 240) return b % 11;                   /* 0 (reserved) .. 10 */
    if (b < 248) return UINT64_MAX;
    return r64(r);
}

static uint64_t r_touch_id(rd *r) {
    uint8_t b = r8(r);
    if (b < 240) return b % 6;                    /* 0 .. 5 */
    if (b < 248) return UINT64_MAX;
    return r64(r);
}

/* ------------------------------------------------------------------------ */
/* A small u64 -> u32 map (key 0 unused)                                     */
/* ------------------------------------------------------------------------ */

typedef struct {
    uint64_t *keys;
    uint32_t *vals;
    size_t cap, n;
} u64map;

static size_t map_hash(uint64_t k, size_t cap) {
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdULL;
    k ^= k >> 33;
    return (size_t)(k & (cap - 1));
}

static uint32_t map_find(const u64map *m, uint64_t k) {
    if (!m->cap) return 0;
    for (size_t i = map_hash(k, m->cap);; i = (i + 1) & (m->cap - 1)) {
        if (m->keys[i] == k) return m->vals[i];
        if (m->keys[i] == 0) return 0;
    }
}

static void map_set(u64map *m, uint64_t k, uint32_t v) {
    if ((m->n + 1) * 2 > m->cap) {
        u64map g = { NULL, NULL, m->cap ? m->cap * 2 : 64, 0 };
        g.keys = calloc(g.cap, sizeof *g.keys);
        g.vals = calloc(g.cap, sizeof *g.vals);
        if (!g.keys || !g.vals) abort();
        for (size_t i = 0; i < m->cap; i++)
            if (m->keys[i]) map_set(&g, m->keys[i], m->vals[i]);
        free(m->keys);
        free(m->vals);
        *m = g;
    }
    for (size_t i = map_hash(k, m->cap);; i = (i + 1) & (m->cap - 1)) {
        if (m->keys[i] == k) { m->vals[i] = v; return; }
        if (m->keys[i] == 0) {
            m->keys[i] = k;
            m->vals[i] = v;
            m->n++;
            return;
        }
    }
}

static void map_free(u64map *m) {
    free(m->keys);
    free(m->vals);
    memset(m, 0, sizeof *m);
}

/* ------------------------------------------------------------------------ */
/* The model of one context                                                  */
/* ------------------------------------------------------------------------ */

typedef struct {
    uint64_t id;
    bool returned;      /* the id was handed to the host */
    bool submitted;     /* kind/source known */
    uint8_t outcomes;
    int32_t kind, out_kind_seen, out_outcome, out_reason;
    uint32_t source, out_source;
} req_rec;

/* The host's view of a touch id. Inside a callback, the library may have
 * cancelled a touch whose on_touch_cancel is still queued: its end is then
 * dropped (reason cancelled) and the cancel is owed; an end submitted there
 * without a result may or may not have one coming. A new touch never reuses
 * an id while either is pending (the harness picks another id). A began for
 * an id the host still holds is a lost end: the old touch ends first (one
 * owed cancel when it was delivered). T_CANCELLED: the host still holds it,
 * the library retired it (cancelled, or evicted from a full table). */
enum { T_ABSENT, T_DELIVERED, T_CANCELLED, T_WITHHELD };
#define NG_LIVE_TOUCHES 64   /* navguard.h: at most 64 live touches */
static const char *const tstate_name[] = { "absent", "delivered", "cancelled", "withheld" };

typedef struct {
    uint64_t id;
    uint8_t state;
    uint8_t owed_cancels;     /* end dropped as cancelled: on_touch_cancel must follow */
    uint8_t maybe_cancels;    /* end with unknown verdict inside a callback */
    bool tentative;     /* its began is being submitted: verdict not known yet */
    int8_t resolved;    /* tentative: -1 unknown, 1 delivered, 0 not delivered */
} touch_rec;

typedef struct {
    uint64_t token;
    bool host;          /* begun by the host (ng_hold_begin) */
    bool ended;
} hold_rec;

typedef struct {
    uint64_t id, parent;
} view_rec;

/* A nested call a delegate callback performs (armed by the program). */
enum { K_OUTCOME = 1, K_TRANSITION = 2, K_HOLD_END = 4, K_TOUCH_CANCEL = 8, K_REPORT = 16, K_LOG = 32 };
typedef struct {
    uint8_t kinds, op, other, count;
    uint8_t params[40];
} armed;

typedef struct fzc {
    int serial;
    ng_context *h;
    bool destroying, dead;
    int cb_depth;
    bool root_set;
    int64_t now;
    uint64_t accepted;            /* NG_OK submits + posts: requests that must end */
    req_rec *reqs;
    size_t nreqs, capreqs;
    u64map req_index;
    touch_rec touches[MAX_TOUCH_MODEL];
    size_t ntouches;
    hold_rec *holds;
    size_t nholds, capholds;
    u64map hold_index;
    uint64_t last_host_token;
    uint64_t inflight[2];
    uint32_t inflight_flags[2];
    uint64_t released_id;         /* the interactive back this host released */
    bool released_finish;         /* ... and in which direction */
    view_rec views[MAX_VIEW_MODEL];
    size_t nviews;
    bool views_unreliable;
    armed arm;
    int fuzz_guards;              /* fuzz guards added: the trace cannot be replayed */
    /* The flight recorder's trace of this context (from its creation),
     * replayed after destroy: it must replay identically. */
    char *trace;
    size_t tlen, tcap;
    uint64_t busy_touch[MAX_NEST + 4];   /* touch ids with an event being submitted */
    int nbusy;
} fzc;

static fzc *g_ctx[MAX_CONTEXTS];
static int g_nctx;
static fzc *g_slot[2];
static int g_guard_budget;

/* Foreign handles that can never decode to a live context. */
static int g_foreign_anchor;

static bool ctx_usable(const fzc *c) { return c && !c->dead && !c->destroying; }
/* Its handle answers: during ng_context_destroy the owner's callbacks may
 * still call it (posting is refused). */
static bool ctx_live(const fzc *c) { return c && !c->dead; }

/* --- requests --- */

static req_rec *req_get(fzc *c, uint64_t id) {
    uint32_t i = map_find(&c->req_index, id);
    if (i) return &c->reqs[i - 1];
    if (c->nreqs == c->capreqs) {
        c->capreqs = c->capreqs ? c->capreqs * 2 : 64;
        c->reqs = realloc(c->reqs, c->capreqs * sizeof *c->reqs);
        if (!c->reqs) abort();
    }
    req_rec *r = &c->reqs[c->nreqs++];
    memset(r, 0, sizeof *r);
    r->id = id;
    map_set(&c->req_index, id, (uint32_t)c->nreqs);
    return r;
}

/* --- holds --- */

static hold_rec *hold_get(fzc *c, uint64_t token, bool create) {
    uint32_t i = map_find(&c->hold_index, token);
    if (i) return &c->holds[i - 1];
    if (!create) return NULL;
    if (c->nholds == c->capholds) {
        c->capholds = c->capholds ? c->capholds * 2 : 64;
        c->holds = realloc(c->holds, c->capholds * sizeof *c->holds);
        if (!c->holds) abort();
    }
    hold_rec *h = &c->holds[c->nholds++];
    memset(h, 0, sizeof *h);
    h->token = token;
    map_set(&c->hold_index, token, (uint32_t)c->nholds);
    return h;
}

/* --- touches --- */

static touch_rec *touch_find(fzc *c, uint64_t id) {
    for (size_t i = 0; i < c->ntouches; i++)
        if (c->touches[i].id == id) return &c->touches[i];
    return NULL;
}

static touch_rec *touch_add(fzc *c, uint64_t id) {
    CHECK(c->ntouches < MAX_TOUCH_MODEL, "touch model full");
    touch_rec *t = &c->touches[c->ntouches++];
    memset(t, 0, sizeof *t);
    t->id = id;
    t->resolved = -1;
    return t;
}

static void touch_gc(fzc *c) {
    size_t k = 0;
    for (size_t i = 0; i < c->ntouches; i++)
        if (c->touches[i].state != T_ABSENT || c->touches[i].tentative || c->touches[i].owed_cancels ||
            c->touches[i].maybe_cancels)
            c->touches[k++] = c->touches[i];
    c->ntouches = k;
}

/* The library's live-touch state for an id: -1 when not live. */
static int lib_touch_state(fzc *c, uint64_t id) {
    size_t n = 0;
    CALL(ng_touch_count, c->h, &n);
    for (size_t i = 0; i < n; i++) {
        ng_touch_info t;
        memset(&t, 0, sizeof t);
        t.size = sizeof t;
        CALL(ng_touch_get, c->h, i, &t);
        if (t.touch_id == id) return t.state;
    }
    return -1;
}

/* A tentative touch (its began still being submitted) is resolved from the
 * library's table the first time something needs to know. Not in the table
 * (outside destroy, which drops begans): delivered, then cancelled and
 * retired, its on_touch_cancel still to come. */
static void touch_resolve(fzc *c, touch_rec *t) {
    if (!t->tentative || t->resolved >= 0) return;
    int s = lib_touch_state(c, t->id);
    t->resolved = (s == NG_TOUCH_STATE_DELIVERED || (s < 0 && !c->destroying)) ? 1 : 0;
    if (t->resolved) {
        t->state = T_DELIVERED;
    } else {
        t->state = s == NG_TOUCH_STATE_WITHHELD ? T_WITHHELD : T_ABSENT;
    }
    TR("    (touch %" PRIu64 " resolved: began %s)", t->id, t->resolved ? "delivered" : "not delivered");
}

/* --- views --- */

static view_rec *view_find(fzc *c, uint64_t id) {
    for (size_t i = 0; i < c->nviews; i++)
        if (c->views[i].id == id) return &c->views[i];
    return NULL;
}

/* a is b or an ancestor of b */
static bool view_is_self_or_ancestor(fzc *c, uint64_t a, uint64_t b) {
    for (size_t guard = 0; b != 0 && guard <= MAX_VIEW_MODEL; guard++) {
        if (a == b) return true;
        view_rec *v = view_find(c, b);
        if (!v) return false;
        b = v->parent;
    }
    return false;
}

static void view_remove_subtree(fzc *c, uint64_t id) {
    bool again = true;
    while (again) {
        again = false;
        for (size_t i = 0; i < c->nviews; i++) {
            if (view_is_self_or_ancestor(c, id, c->views[i].id)) {
                c->views[i] = c->views[--c->nviews];
                again = true;
                break;
            }
        }
    }
}

/* ------------------------------------------------------------------------ */
/* Nested calls from callbacks                                               */
/* ------------------------------------------------------------------------ */

static void run_op(fzc *self, rd *r, int op);
static void check_errmsg(ng_context *h);

static void nested(fzc *c, int kind) {
    if (c->arm.count == 0 || !(c->arm.kinds & kind) || g_depth > MAX_NEST) return;
    c->arm.count--;
    g_stat_cb[7]++;
    uint8_t params[sizeof c->arm.params];
    memcpy(params, c->arm.params, sizeof params);
    rd pr = { params, sizeof params, 0 };
    fzc *target = c;
    if (c->arm.other) {
        fzc *o = g_slot[0] == c ? g_slot[1] : g_slot[0];
        if (o) target = o;
    }
    TR("  nested op %u on ctx#%d (from ctx#%d)", c->arm.op, target->serial, c->serial);
    run_op(target, &pr, c->arm.op);
}

static void cb_check_stack(fzc *c) {
    size_t n = 0;
    ng_status st = CALL(ng_stack_count, c->h, &n);
    if (c->destroying) {
        CHECK(st == NG_OK, "ng_stack_count in a callback during destroy returned %s (the handle stays valid)", stname(st));
        return;
    }
    CHECK(st == NG_OK, "ng_stack_count in a callback returned %s", stname(st));
    if (c->root_set) CHECK(n >= 1, "ng_stack_count is %zu after the root was set", n);
    CHECK(n <= NG_MAX_STACK, "ng_stack_count %zu > NG_MAX_STACK", n);
    check_errmsg(c->h);
}

static fzc *cb_enter(void *user, ng_context *ctx, const char *what) {
    fzc *c = user;
    CHECK(c != NULL, "%s: delegate user pointer is NULL", what);
    CHECK(!c->dead, "%s called for context #%d after ng_context_destroy returned", what, c->serial);
    CHECK(ctx == c->h, "%s: ctx argument %p is not the context %p", what, (void *)ctx, (void *)c->h);
    c->cb_depth++;
    g_depth++;
    return c;
}

static void cb_leave(fzc *c) {
    c->cb_depth--;
    g_depth--;
}

static size_t read_str(const char *s, size_t max) {
    size_t n = 0;
    if (!s) return 0;
    while (n < max && s[n]) n++;
    return n;
}

static void cb_outcome(void *user, ng_context *ctx, const ng_outcome *o) {
    fzc *c = cb_enter(user, ctx, "on_outcome");
    g_stat_cb[0]++;
    CHECK(o != NULL, "on_outcome: outcome is NULL");
    TR("-> on_outcome(ctx#%d, id %" PRIu64 ", %s, reason %s, kind %" PRId32 ")", c->serial, o->request_id,
       ng_outcome_name(o->outcome), ng_reason_name(o->reason), o->kind);
    CHECK(o->size >= sizeof *o, "ng_outcome.size %" PRIu32 " < sizeof", o->size);
    CHECK(o->request_id != 0, "on_outcome for request id 0");
    CHECK(o->outcome == NG_OUTCOME_APPLIED || o->outcome == NG_OUTCOME_REFUSED || o->outcome == NG_OUTCOME_DROPPED,
          "on_outcome with non-final outcome %" PRId32, o->outcome);
    CHECK(o->reason >= 0 && o->reason < NG_REASON_COUNT, "on_outcome reason %" PRId32 " out of range", o->reason);
    CHECK((o->outcome == NG_OUTCOME_APPLIED) == (o->reason == NG_REASON_NONE),
          "outcome %s with reason %s", ng_outcome_name(o->outcome), ng_reason_name(o->reason));
    (void)read_str(o->guard_id, 4096);
    (void)read_str(o->message, 1 << 20);
    if (c->destroying)
        CHECK(o->outcome == NG_OUTCOME_DROPPED && o->reason == NG_REASON_DESTROYED,
              "outcome of request %" PRIu64 " during destroy is %s/%s, not dropped/destroyed", o->request_id,
              ng_outcome_name(o->outcome), ng_reason_name(o->reason));
    req_rec *r = req_get(c, o->request_id);
    CHECK(r->outcomes == 0, "second on_outcome for request %" PRIu64 " (first %s, now %s)", o->request_id,
          ng_outcome_name(r->out_outcome), ng_outcome_name(o->outcome));
    r->outcomes = 1;
    r->out_outcome = o->outcome;
    r->out_reason = o->reason;
    r->out_kind_seen = o->kind;
    r->out_source = o->source;
    if (r->submitted) {
        CHECK(o->kind == r->kind, "outcome of request %" PRIu64 " has kind %" PRId32 ", submitted %" PRId32,
              o->request_id, o->kind, r->kind);
        CHECK(o->source == r->source, "outcome of request %" PRIu64 " has source %" PRIu32 ", submitted %" PRIu32,
              o->request_id, o->source, r->source);
    }
    cb_check_stack(c);
    nested(c, K_OUTCOME);
    cb_leave(c);
}

static void cb_transition(void *user, ng_context *ctx, const ng_transition_event *e) {
    fzc *c = cb_enter(user, ctx, "on_transition");
    g_stat_cb[1]++;
    CHECK(e != NULL, "on_transition: event is NULL");
    TR("-> on_transition(ctx#%d, track %" PRId32 ", phase %" PRId32 ", flags 0x%" PRIx32 ", request %" PRIu64 ")",
       c->serial, e->track, e->phase, e->flags, e->request_id);
    /* Destroy ends what is in flight, once, marked DESTROYED: every WILL gets
     * its DID or CANCELLED, and nothing new starts. */
    if (c->destroying)
        CHECK(e->phase != NG_PHASE_WILL && (e->flags & NG_TRANSF_DESTROYED),
              "on_transition during destroy: phase %" PRId32 " flags 0x%" PRIx32 " (only the end of what was in flight, "
              "marked NG_TRANSF_DESTROYED)", e->phase, e->flags);
    CHECK(e->track == NG_TRACK_SCREEN || e->track == NG_TRACK_BAR, "transition track %" PRId32, e->track);
    CHECK(e->phase >= NG_PHASE_WILL && e->phase <= NG_PHASE_CANCELLED, "transition phase %" PRId32, e->phase);
    CHECK((e->flags & ~(NG_TRANSF_ANIMATED | NG_TRANSF_INTERACTIVE | NG_TRANSF_INTERRUPTED | NG_TRANSF_FORCED |
                        NG_TRANSF_TOUCH_DRIVEN | NG_TRANSF_DESTROYED)) == 0,
          "transition flags 0x%" PRIx32, e->flags);
    CHECK(e->request_id != 0, "transition for request 0");
    CHECK(e->kind >= 0 && e->kind < NG_REQ_KIND_COUNT, "transition kind %" PRId32, e->kind);
    int t = e->track;
    if (e->phase == NG_PHASE_WILL) {
        CHECK(c->inflight[t] == 0, "WILL on track %d for request %" PRIu64 " while request %" PRIu64
              " is still in flight there (no DID/CANCELLED)", t, e->request_id, c->inflight[t]);
        c->inflight[t] = e->request_id;
        c->inflight_flags[t] = e->flags;
    } else {
        CHECK(c->inflight[t] == e->request_id, "%s on track %d for request %" PRIu64 " but the track had %" PRIu64,
              e->phase == NG_PHASE_DID ? "DID" : "CANCELLED", t, e->request_id, c->inflight[t]);
        if (e->phase == NG_PHASE_CANCELLED)
            CHECK(e->flags & NG_TRANSF_INTERACTIVE, "CANCELLED phase of a non-interactive transition");
        c->inflight[t] = 0;
        c->inflight_flags[t] = 0;
    }
    cb_check_stack(c);
    nested(c, K_TRANSITION);
    cb_leave(c);
}

static void cb_hold_end(void *user, ng_context *ctx, const ng_hold_info *hi) {
    fzc *c = cb_enter(user, ctx, "on_hold_end");
    g_stat_cb[2]++;
    CHECK(hi != NULL, "on_hold_end: hold is NULL");
    TR("-> on_hold_end(ctx#%d, token %" PRIu64 ", reason %" PRId32 ")", c->serial, hi->token, hi->reason);
    CHECK(hi->token != 0, "on_hold_end for token 0");
    CHECK(hi->reason >= NG_HOLD_ENDED && hi->reason <= NG_HOLD_RELEASED, "hold end reason %" PRId32, hi->reason);
    CHECK(hi->mask != 0 && (hi->mask & ~NG_MASK_ALL) == 0, "hold mask 0x%" PRIx32, hi->mask);
    CHECK(hi->ended_ns >= hi->began_ns, "hold ended (%" PRId64 ") before it began (%" PRId64 ")", hi->ended_ns,
          hi->began_ns);
    (void)read_str(hi->label, 4096);
    hold_rec *h = hold_get(c, hi->token, true);
    /* (a guard may begin and end a hold of its own while destroy drains) */
    if (c->destroying && h->host)
        CHECK(hi->reason == NG_HOLD_RELEASED, "host hold %" PRIu64 " ended during destroy with reason %" PRId32,
              hi->token, hi->reason);
    CHECK(!h->ended, "second on_hold_end for hold %" PRIu64, hi->token);
    h->ended = true;
    cb_check_stack(c);
    nested(c, K_HOLD_END);
    cb_leave(c);
}

static void cb_report(void *user, ng_context *ctx, const char *guard_id, const char *text) {
    fzc *c = cb_enter(user, ctx, "on_report");
    g_stat_cb[4]++;
    TR("-> on_report(ctx#%d, %s, %zu bytes)", c->serial, guard_id ? guard_id : "(null)", read_str(text, 1 << 20));
    CHECK(text != NULL, "on_report text is NULL");
    (void)read_str(guard_id, 4096);
    CHECK(read_str(text, (64 << 10) + 2) <= (64 << 10), "report longer than 64 KiB");
    cb_check_stack(c);
    nested(c, K_REPORT);
    cb_leave(c);
}

static void cb_log(void *user, ng_context *ctx, int32_t severity, const char *guard_id, const char *msg) {
    fzc *c = cb_enter(user, ctx, "on_log");
    g_stat_cb[5]++;
    TR("-> on_log(ctx#%d, %" PRId32 ", %s: %.80s)", c->serial, severity, guard_id ? guard_id : "(core)", msg ? msg : "(null)");
    CHECK(msg != NULL, "on_log message is NULL");
    (void)read_str(guard_id, 4096);
    (void)read_str(msg, 1 << 20);
    cb_check_stack(c);
    nested(c, K_LOG);
    cb_leave(c);
}

static void cb_touch_cancel(void *user, ng_context *ctx, const ng_touch_info *ti) {
    fzc *c = cb_enter(user, ctx, "on_touch_cancel");
    g_stat_cb[3]++;
    CHECK(ti != NULL, "on_touch_cancel: touch is NULL");
    TR("-> on_touch_cancel(ctx#%d, touch %" PRIu64 ", view %" PRIu64 ")", c->serial, ti->touch_id, ti->view_id);
    touch_rec *t = touch_find(c, ti->touch_id);
    /* An owed cancel (a lost end's, or a dropped end's) comes before any of
     * a tentative began's own. */
    if (t && !t->owed_cancels && !c->destroying) touch_resolve(c, t);
    CHECK(t && (t->state == T_DELIVERED || t->owed_cancels || t->maybe_cancels),
          "on_touch_cancel for touch %" PRIu64 " which the host holds as %s (only a delivered live touch may be "
          "cancelled, once)", ti->touch_id, t ? tstate_name[t->state] : "never begun");
    if (t->owed_cancels) t->owed_cancels--;
    else if (t->maybe_cancels) t->maybe_cancels--;
    else t->state = T_CANCELLED;
    cb_check_stack(c);
    nested(c, K_TOUCH_CANCEL);
    cb_leave(c);
}

/* ------------------------------------------------------------------------ */
/* ffi-predicate target and the fuzz guard                                   */
/* ------------------------------------------------------------------------ */

__attribute__((visibility("default")))
bool ngf_predicate(int32_t kind, const char *route, uint64_t depth) {
    size_t n = read_str(route, 4096);
    return ((uint64_t)kind + n + depth) % 3 != 0;
}

typedef struct {
    const ng_guard_host *host;
    uint8_t script[48];
    size_t pos;
    uint64_t deferred[16];
    size_t ndeferred;
    uint64_t tokens[8];
    size_t ntokens;
    int64_t deadline;
} fguard;

static uint8_t g_guard_script[48];

static uint8_t gs(fguard *g) { return g->script[g->pos++ % sizeof g->script]; }

#define GCHK(expr)                                                                        \
    do {                                                                                  \
        ng_status st_ = (expr);                                                           \
        CHECK(st_ >= 0 && st_ < NG_STATUS_COUNT, "host table: %s returned %" PRId32, #expr, st_); \
    } while (0)

static const char *g_msg(fguard *g) {
    switch (gs(g) % 6) {
    case 0: return NULL;
    case 1: return "fuzz guard says no";
    case 2: return g_str5000;
    case 3: return "\xff\xfe bad utf-8";
    case 4: return "";
    default: return g_str1024;
    }
}

static void guard_read_state(fguard *g) {
    const ng_guard_host *h = g->host;
    size_t n = h->stack_count(h);
    ng_screen_info si;
    memset(&si, 0, sizeof si);
    si.size = (uint32_t)(gs(g) % 2 ? sizeof si : 12);
    GCHK(h->stack_get(h, n ? n - 1 : 0, &si));
    GCHK(h->stack_get(h, gs(g) % 2 ? n : SIZE_MAX, &si));
    ng_track_info ti;
    memset(&ti, 0, sizeof ti);
    ti.size = sizeof ti;
    (void)h->track_get(h, (ng_track)(gs(g) % 4), &ti);
    (void)h->hold_mask(h);
    ng_hold_view hv;
    memset(&hv, 0, sizeof hv);
    hv.size = sizeof hv;
    size_t hc = h->hold_count(h);
    GCHK(h->hold_get(h, hc && gs(g) % 4 ? (size_t)gs(g) % hc : SIZE_MAX - hc, &hv));
    ng_guard_request gr;
    memset(&gr, 0, sizeof gr);
    gr.size = (uint32_t)(gs(g) % 2 ? sizeof gr : 8);
    size_t dc = h->deferred_count(h);
    GCHK(h->deferred_get(h, dc && gs(g) % 4 ? (size_t)gs(g) % dc : SIZE_MAX, &gr));
    ng_touch_info t;
    memset(&t, 0, sizeof t);
    t.size = sizeof t;
    size_t tc = h->touch_count(h);
    GCHK(h->touch_get(h, tc && gs(g) % 4 ? (size_t)gs(g) % tc : SIZE_MAX, &t));
    (void)h->view_touch_count(h, gs(g) % 11);
    uint32_t vf = 0;
    GCHK(h->view_flags(h, gs(g) % 11, &vf));
    int64_t iv;
    bool bv;
    double dv;
    const char *sv;
    size_t lc;
    GCHK(h->config_int(h, "k", &iv));
    GCHK(h->config_bool(h, "b", &bv));
    GCHK(h->config_double(h, "d", &dv));
    GCHK(h->config_string(h, "s", &sv));
    GCHK(h->config_list_count(h, "l", &lc));
    uint8_t li = gs(g);
    GCHK(h->config_list_get(h, "l", li < 128 ? li % 4 : li < 192 ? (size_t)INT64_MAX : SIZE_MAX - li % 2, &sv)); /* F1 */
    (void)h->now(h);
}

static void guard_act(fguard *g) {
    if (g_guard_budget <= 0) return;
    g_guard_budget--;
    g_stat_cb[6]++;
    const ng_guard_host *h = g->host;
    uint8_t a = gs(g);
    switch (a % 24) {
    case 0: case 1: case 2: case 3: case 4: case 5: case 6: case 7:
        break;
    case 8:
        if (g->ndeferred) GCHK(h->deferred_apply(h, g->deferred[gs(g) % g->ndeferred]));
        break;
    case 9:
        if (g->ndeferred)
            GCHK(h->deferred_drop(h, g->deferred[gs(g) % g->ndeferred], (ng_reason)(int8_t)gs(g), g_msg(g)));
        break;
    case 10: {
        uint64_t tok = 0;
        static const int64_t durs[] = { 0, 1, 1000000, 350000000, -1, INT64_MAX };
        ng_status st = h->hold_begin(h, gs(g) % 2 ? "fuzz guard" : NULL, (uint32_t)(gs(g) % 0x48),
                                     durs[gs(g) % 6], &tok);
        GCHK(st);
        if (st == NG_OK && g->ntokens < 8) g->tokens[g->ntokens++] = tok;
        break;
    }
    case 11:
        if (g->ntokens) {
            size_t i = gs(g) % g->ntokens;
            GCHK(h->hold_end(h, g->tokens[i]));
            g->tokens[i] = g->tokens[--g->ntokens];
        } else {
            GCHK(h->hold_end(h, gs(g)));   /* any hold, or none */
        }
        break;
    case 12: GCHK(h->transition_finish(h, (ng_track)(gs(g) % 4))); break;
    case 13: GCHK(h->interactive_cancel(h)); break;
    case 14: GCHK(h->touch_cancel(h, gs(g) % 4)); break;
    case 15: {
        static const char *const texts[] = { "fuzz report", "", "\xc3(", NULL };
        int k = gs(g) % 5;
        GCHK(h->report(h, k == 4 ? g_str_70k : texts[k]));
        break;
    }
    case 16: h->log(h, (ng_severity)(int8_t)gs(g), gs(g) % 2 ? "fuzz log" : g_str5000); break;
    case 17: GCHK(h->deferred_apply(h, (uint64_t)gs(g) + 1)); break;
    case 18: GCHK(h->deferred_drop(h, (uint64_t)gs(g) + 1, NG_REASON_POLICY, NULL)); break;
    default: guard_read_state(g); break;
    }
}

static void *fg_create(const ng_guard_host *host, const char *config) {
    (void)config;
    fguard *g = calloc(1, sizeof *g);
    if (!g) return NULL;
    g->host = host;
    memcpy(g->script, g_guard_script, sizeof g->script);
    int64_t now = host->now(host);
    g->deadline = gs(g) % 2 || now == INT64_MAX ? NG_NO_DEADLINE : now + 1;
    uint8_t mode = gs(g);
    if (mode % 8 == 0) {                    /* create fails, after taking a hold and logging */
        uint64_t tok = 0;
        GCHK(host->hold_begin(host, "failed guard", NG_MASK_ALL, 0, &tok));
        host->log(host, NG_LOG_ERROR, "fuzz guard: create fails");
        free(g);
        return NULL;
    }
    return g;
}

static void fg_destroy(void *inst) { free(inst); }

static void fg_forget(fguard *g, uint64_t id) {
    for (size_t i = 0; i < g->ndeferred; i++)
        if (g->deferred[i] == id) { g->deferred[i] = g->deferred[--g->ndeferred]; return; }
}

static ng_vote fg_on_request(void *inst, const ng_guard_request *r, ng_verdict *v) {
    fguard *g = inst;
    CHECK(r && v && r->request_id != 0, "guard on_request: bad arguments");
    if (r->kind == NG_REQ_PUSH) CHECK(r->screen && r->screen->route, "guard on_request: push without a screen");
    if (r->kind == NG_REQ_REPLACE_STACK) CHECK(r->screens && r->screen_count >= 1, "guard on_request: replace without screens");
    guard_act(g);
    fg_forget(g, r->request_id);
    uint8_t b = gs(g);
    v->reason = (ng_reason)(int8_t)gs(g);
    v->message = g_msg(g);
    switch (b % 10) {
    case 6: return NG_VOTE_REFUSE;
    case 7: case 8:
        if (g->ndeferred < 16) {
            g->deferred[g->ndeferred++] = r->request_id;
            return NG_VOTE_DEFER;
        }
        return NG_VOTE_ALLOW;
    case 9: return (ng_vote)(int8_t)gs(g);   /* unknown votes */
    default: return NG_VOTE_ALLOW;
    }
}

static ng_vote fg_on_event(void *inst, const ng_guard_event *e, ng_verdict *v) {
    fguard *g = inst;
    CHECK(e && e->event && v, "guard on_event: bad arguments");
    guard_act(g);   /* F2: also for non-touch events */
    uint8_t b = gs(g);
    v->reason = (ng_reason)(int8_t)gs(g);
    switch (b % 8) {
    case 5: return NG_VOTE_REFUSE;
    case 6: return NG_VOTE_DEFER;
    case 7: return (ng_vote)(int8_t)gs(g);
    default: return NG_VOTE_ALLOW;
    }
}

static void fg_on_outcome(void *inst, const ng_outcome *o) {
    fguard *g = inst;
    fg_forget(g, o->request_id);
    guard_act(g);
}

static void fg_on_transition(void *inst, const ng_transition_event *e) {
    (void)e;
    guard_act(inst);
}

static void fg_on_hold(void *inst, const ng_hold_notice *n) {
    fguard *g = inst;
    if (n->ended)
        for (size_t i = 0; i < g->ntokens; i++)
            if (g->tokens[i] == n->token) { g->tokens[i] = g->tokens[--g->ntokens]; break; }
    guard_act(g);
}

static void fg_on_tick(void *inst, int64_t now) {
    fguard *g = inst;
    guard_act(g);
    /* Always moves past `now`: a guard that stays due would wedge any host. */
    uint8_t b = gs(g);
    g->deadline = b % 3 == 0 ? NG_NO_DEADLINE : (now > INT64_MAX - 100000000 ? NG_NO_DEADLINE : now + 1 + (int64_t)b * 1000000);
}

static int64_t fg_next_deadline(void *inst) { return ((fguard *)inst)->deadline; }


#define FUZZ_DESCRIPTOR(ident)                                                                      \
    { NG_PLUGIN_DESCRIPTOR_ABI, .id = ident, .name = "fuzz", .version = "1.0",                        \
      .description = "a guard driven by the fuzz input", .create = fg_create, .destroy = fg_destroy,  \
      .on_request = fg_on_request, .on_event = fg_on_event, .on_outcome = fg_on_outcome,            \
      .on_transition = fg_on_transition, .on_hold = fg_on_hold, .on_tick = fg_on_tick,              \
      .next_deadline = fg_next_deadline }

static const ng_plugin_descriptor g_fuzz_desc[3] = {
    FUZZ_DESCRIPTOR("org.navguard.fuzz.a"),
    FUZZ_DESCRIPTOR("org.navguard.fuzz.b"),
    FUZZ_DESCRIPTOR("org.navguard.fuzz.c"),
};

/* Descriptors ng_chain_add must refuse. */
static ng_plugin_descriptor g_bad_desc[8];

static void init_bad_descriptors(void) {
    for (int i = 0; i < 8; i++) g_bad_desc[i] = g_fuzz_desc[0];
    g_bad_desc[0].abi_major = NG_PLUGIN_ABI_MAJOR + 1;          /* NG_E_ABI */
    g_bad_desc[1].abi_minor = NG_PLUGIN_ABI_MINOR + 7;          /* NG_E_ABI */
    g_bad_desc[2].size = 8;                                     /* NG_E_GUARD */
    g_bad_desc[3].id = NULL;
    g_bad_desc[4].id = "no-dots";
    g_bad_desc[5].id = "org..empty";
    g_bad_desc[6].create = NULL;
    g_bad_desc[7].id = "org.navguard.bad id";
}

/* ------------------------------------------------------------------------ */
/* Chain configurations                                                      */
/* ------------------------------------------------------------------------ */

static const char *const g_chain_variants[] = {
    /* 0: short watchdog limits, every input type ignored during transitions,
     * every view exclusive, keep-last queue */
    "{\"guards\":[{\"id\":\"org.navguard.watchdog\",\"config\":{\"transition_limit_ms\":1,\"hold_limit_ms\":2,"
    "\"touch_limit_ms\":3}},{\"id\":\"org.navguard.global-ignore\",\"config\":{\"mask\":63}},"
    "{\"id\":\"org.navguard.exclusive-touch\",\"config\":{\"every_view_exclusive\":true}},"
    "{\"id\":\"org.navguard.transition\",\"config\":{\"mode\":\"queue\",\"keep\":\"last\"}}]}",
    /* 1: refusing guards */
    "{\"guards\":[{\"id\":\"org.navguard.throttle\",\"config\":{\"interval_ms\":1}},"
    "{\"id\":\"org.navguard.dedupe\",\"config\":{\"mode\":\"stack\"}},{\"id\":\"org.navguard.bar-should\"},"
    "{\"id\":\"org.navguard.transition\",\"config\":{\"mode\":\"refuse\"}}]}",
    /* 2: a one-slot queue and a silent watchdog */
    "{\"guards\":[{\"id\":\"org.navguard.watchdog\",\"config\":{\"report\":false,\"transition_limit_ms\":5,"
    "\"hold_limit_ms\":0,\"touch_limit_ms\":1}},{\"id\":\"org.navguard.global-ignore\",\"config\":{\"mask\":1}},"
    "{\"id\":\"org.navguard.exclusive-touch\"},{\"id\":\"org.navguard.transition\",\"config\":{\"limit\":1}}]}",
    /* 3: ffi-predicate calling ngf_predicate in this binary */
    ("{\"guards\":[{\"id\":\"org.navguard.ffi-predicate\",\"config\":{\"symbol\":\"ngf_predicate\","
     "\"args\":[\"kind\",\"route\",\"depth\"],\"reason\":\"busy\"}},{\"id\":\"org.navguard.transition\"}]}"),
    /* 4..: configurations that must fail and leave the chain empty */
    "{\"guards\":[{\"id\":\"org.navguard.transition\",\"config\":{\"mode\":\"bogus\"}}]}",
    "{\"guards\":[{\"id\":\"org.navguard.throttle\"},{\"id\":\"org.navguard.throttle\"}]}",
    "{\"guards\":[{\"path\":\"/nonexistent/navguard-fuzz.so\"}]}",
    "{\"guards\":[{\"id\":\"org.navguard.watchdog\"},{\"id\":\"org.navguard.nope\"}]}",
    "{\"guards\":[{\"id\":\"org.navguard.watchdog\"}",
    "{\"guards\":{}}",
    "[]",
    "{\"guards\":[{\"id\":\"../../etc/passwd\"}]}",
    "{\"guards\":[{\"id\":\"org.navguard.transition\",\"config\":[1]}]}",
    "{\"guards\":[{\"id\":\"org.navguard.dedupe\",\"config\":{\"mode\":\"\\ud800\"}}]}",
    "caf\xc3",
};
#define N_CHAIN_VARIANTS (sizeof g_chain_variants / sizeof g_chain_variants[0])
#define N_GOOD_CHAIN_VARIANTS 4

static char g_plugin_path[3][4096];
static char g_chain_file[64];          /* the default chain, as a file */

static void remove_chain_file(void) {
    if (g_chain_file[0]) unlink(g_chain_file);
}

/* ------------------------------------------------------------------------ */
/* Context creation, checkpoints and destruction                             */
/* ------------------------------------------------------------------------ */

static void check_errmsg(ng_context *h) {
    const char *m = ng_errmsg(h);
    CHECK(m != NULL, "ng_errmsg returned NULL");
    CHECK(read_str(m, 1 << 16) < (1 << 16), "ng_errmsg is not NUL-terminated within 64 KiB");
}

static ng_delegate full_delegate(fzc *c) {
    ng_delegate d;
    memset(&d, 0, sizeof d);
    d.size = sizeof d;
    d.user = c;
    d.on_outcome = cb_outcome;
    d.on_transition = cb_transition;
    d.on_hold_end = cb_hold_end;
    d.on_report = cb_report;
    d.on_log = cb_log;
    d.on_touch_cancel = cb_touch_cancel;
    return d;
}

static size_t chain_count(fzc *c) {
    size_t n = 0;
    CALL(ng_chain_count, c->h, &n);
    CHECK(n <= NG_MAX_GUARDS, "chain has %zu guards", n);
    return n;
}

static void configure_chain(fzc *c, int variant /* -1: default chain (NULL) */) {
    size_t before = chain_count(c);
    const char *json = variant < 0 ? NULL : g_chain_variants[variant];
    ng_status st = CALL(ng_chain_configure, c->h, json);
    TR("ng_chain_configure(ctx#%d, %s) -> %s", c->serial, variant < 0 ? "NULL (default chain)" : "variant", stname(st));
    check_errmsg(c->h);
    size_t after = chain_count(c);
    bool bad_utf8 = variant == (int)N_CHAIN_VARIANTS - 1;
    if (bad_utf8) {
        CHECK(st == NG_E_UTF8, "ng_chain_configure of invalid UTF-8 returned %s", stname(st));
    } else if (c->cb_depth > 0) {
        CHECK(st == NG_E_CALLBACK, "ng_chain_configure inside a callback returned %s", stname(st));
    } else if (before > 0) {
        CHECK(st == NG_E_STATE, "ng_chain_configure on a non-empty chain returned %s", stname(st));
    } else if (variant < N_GOOD_CHAIN_VARIANTS) {
        if (st != NG_OK) {
            fprintf(stderr, "fuzz_api: the %s chain does not load: %s (%s); plugin dir %s (set NAVGUARD_PLUGIN_DIR)\n",
                    variant < 0 ? "default" : "variant", stname(st), ng_errmsg(c->h), ng_plugin_dir());
            abort();
        }
    } else {
        CHECK(st != NG_OK, "chain variant %d must fail", variant);
    }
    if (st != NG_OK) CHECK(after == before, "failed ng_chain_configure left %zu guards (had %zu)", after, before);
}

static bool trace_write(void *user, const char *data, size_t len) {
    fzc *c = user;
    if (c->tlen + len > c->tcap) {
        c->tcap = (c->tlen + len) * 2;
        c->trace = realloc(c->trace, c->tcap);
        if (!c->trace) abort();
    }
    memcpy(c->trace + c->tlen, data, len);
    c->tlen += len;
    return true;
}

static fzc *ctx_new(const ng_options *base) {
    if (g_nctx >= MAX_CONTEXTS) return NULL;
    fzc *c = calloc(1, sizeof *c);
    if (!c) abort();
    c->serial = g_nctx;
    ng_options o = *base;
    o.delegate = full_delegate(c);
    ng_status st = CALL(ng_context_create, &o, &c->h);
    CHECK(st == NG_OK, "ng_context_create with valid options returned %s", stname(st));
    CHECK(c->h != NULL, "ng_context_create returned NG_OK and a NULL context");
    c->now = o.manual_start_ns;
    ng_record_options ro = NG_RECORD_OPTIONS_INIT;
    ro.write = trace_write;
    ro.user = c;
    st = CALL(ng_record_start, c->h, &ro);
    CHECK(st == NG_OK, "ng_record_start on a new context returned %s", stname(st));
    g_ctx[g_nctx++] = c;
    TR("ng_context_create(manual, start %" PRId64 ", duration %" PRId64 ") -> ctx#%d", o.manual_start_ns,
       o.default_duration_ns, c->serial);
    return c;
}

static void set_root_default(fzc *c) {
    ng_screen root = { 1, "home", NULL };
    ng_status st = CALL(ng_stack_set_root, c->h, &root);
    CHECK(st == NG_OK, "ng_stack_set_root on a new context returned %s", stname(st));
    c->root_set = true;
}

/* Compare what the host was told with what the library reports. Only at
 * points where no callback of this context is on the stack. */
static void checkpoint(fzc *c) {
    if (!ctx_usable(c) || c->cb_depth > 0) return;
    check_errmsg(c->h);
    size_t n = 0;
    CHECK(CALL(ng_stack_count, c->h, &n) == NG_OK, "ng_stack_count failed");
    if (c->root_set) CHECK(n >= 1, "ng_stack_count is %zu after the root was set", n);
    else CHECK(n == 0, "ng_stack_count is %zu before any root", n);
    CHECK(n <= NG_MAX_STACK, "stack of %zu screens", n);
    int64_t now = 0;
    CHECK(CALL(ng_now, c->h, &now) == NG_OK, "ng_now failed");
    CHECK(now == c->now, "ng_now is %" PRId64 ", the host set %" PRId64, now, c->now);
    for (int t = 0; t < 2; t++) {
        bool busy = false;
        uint64_t id = 7;
        CHECK(CALL(ng_transition_in_flight, c->h, t, &busy, &id) == NG_OK, "ng_transition_in_flight");
        CHECK(busy == (id != 0), "ng_transition_in_flight: busy %d with id %" PRIu64, busy, id);
        CHECK(id == c->inflight[t], "track %d: ng_transition_in_flight says request %" PRIu64
              ", the delegate was told %" PRIu64 " (WILL without DID, or DID without WILL)", t, id, c->inflight[t]);
    }
    /* live touches: the library's table equals the host's view */
    size_t tc = 0;
    CHECK(CALL(ng_touch_count, c->h, &tc) == NG_OK, "ng_touch_count");
    size_t model_live = 0;
    for (size_t i = 0; i < c->ntouches; i++) {
        touch_rec *t = &c->touches[i];
        t->maybe_cancels = 0;   /* no cancel came: those ends were delivered */
        CHECK(!t->tentative, "touch %" PRIu64 " left tentative", t->id);
        CHECK(!t->owed_cancels, "touch %" PRIu64 ": its end was dropped (reason cancelled) or lost, but "
              "on_touch_cancel never came: the delivered touch never ended", t->id);
        if (t->state == T_DELIVERED || t->state == T_WITHHELD) model_live++;   /* cancelled: retired */
    }
    CHECK(tc == model_live, "library has %zu live touches, the host's view %zu", tc, model_live);
    for (size_t i = 0; i < tc; i++) {
        ng_touch_info ti;
        memset(&ti, 0, sizeof ti);
        ti.size = sizeof ti;
        CHECK(CALL(ng_touch_get, c->h, i, &ti) == NG_OK, "ng_touch_get(%zu)", i);
        touch_rec *t = touch_find(c, ti.touch_id);
        CHECK(t, "library has live touch %" PRIu64 " the host never saw begin", ti.touch_id);
        int want = t->state == T_DELIVERED ? NG_TOUCH_STATE_DELIVERED : NG_TOUCH_STATE_WITHHELD;
        CHECK(ti.state == want, "touch %" PRIu64 ": library state %" PRId32 ", host's view %s", ti.touch_id, ti.state,
              tstate_name[t->state]);
    }
    /* hit testing answers a registered view or none */
    uint64_t v = 0;
    CHECK(CALL(ng_hit_test, c->h, 5.0, 5.0, &v) == NG_OK, "ng_hit_test");
    if (!c->views_unreliable) CHECK(v == 0 || view_find(c, v), "ng_hit_test hit view %" PRIu64 ", not in the tree", v);
}

/* The context's whole life, recorded, replays identically (unless fuzz
 * guards, which live in this process only, were in its chain); a damaged
 * copy of the trace is refused or replayed, never a crash. */
static void check_replay(fzc *c) {
    if (!c->trace) return;
    ng_replay_result res = NG_REPLAY_RESULT_INIT;
    ng_status st;
    if (c->fuzz_guards == 0) {
        st = CALL(ng_replay, c->trace, c->tlen, NULL, &res);
        TR("ng_replay(trace of ctx#%d, %zu bytes) -> %s%s", c->serial, c->tlen, stname(st),
           res.identical ? " identical" : "");
        CHECK(st == NG_OK && res.identical, "the trace of context #%d does not replay (%s): %s", c->serial, stname(st),
              res.report ? res.report : "(no report)");
        ng_free(res.report);
        g_stat_replays[0]++;
    } else {
        g_stat_replays[1]++;
    }
    /* Cut it and flip a byte, both where the trace's own length says. */
    size_t cut = c->tlen * 3 / 4, flip = c->tlen / 3;
    if (flip < cut) c->trace[flip] ^= 0x5A;
    ng_replay_result bad = NG_REPLAY_RESULT_INIT;
    st = CALL(ng_replay, c->trace, cut, NULL, &bad);
    CHECK(st == NG_OK || st == NG_E_PARSE || st == NG_E_RANGE || st == NG_E_STATE || st == NG_E_LOAD ||
          st == NG_E_GUARD || st == NG_E_ABI || st == NG_E_ENTRY,
          "ng_replay of a damaged trace returned %s", stname(st));
    CHECK(bad.report != NULL, "ng_replay gave no report");
    ng_free(bad.report);
}

/* After ng_context_destroy returned NG_OK. */
static void after_destroy(fzc *c) {
    c->destroying = false;
    c->dead = true;
    size_t with_outcome = 0;
    for (size_t i = 0; i < c->nreqs; i++) {
        req_rec *r = &c->reqs[i];
        if (r->returned)
            CHECK(r->outcomes == 1, "context #%d destroyed: request %" PRIu64 " never got its on_outcome", c->serial, r->id);
        if (r->outcomes) with_outcome++;
    }
    CHECK(with_outcome == c->accepted, "context #%d destroyed: %" PRIu64 " requests were accepted (NG_OK), %zu got an "
          "on_outcome", c->serial, c->accepted, with_outcome);
    for (size_t i = 0; i < c->nholds; i++)
        if (c->holds[i].host)
            CHECK(c->holds[i].ended, "context #%d destroyed: hold %" PRIu64 " never got on_hold_end", c->serial,
                  c->holds[i].token);
    for (size_t i = 0; i < c->ntouches; i++) {
        touch_rec *t = &c->touches[i];
        CHECK(t->state != T_DELIVERED && !t->owed_cancels && !t->tentative,
              "context #%d destroyed: delivered touch %" PRIu64 " never ended nor got on_touch_cancel", c->serial, t->id);
    }
    for (int t = 0; t < 2; t++)
        CHECK(c->inflight[t] == 0, "context #%d destroyed: request %" PRIu64 "'s WILL on track %d never got its DID or "
              "CANCELLED", c->serial, c->inflight[t], t);
    check_replay(c);
    /* Stale handle: every call is refused. */
    CHECK(ng_errmsg(c->h) != NULL, "ng_errmsg(stale) is NULL");
    size_t n = 0;
    CHECK(ng_stack_count(c->h, &n) == NG_E_HANDLE, "ng_stack_count on a destroyed context did not return E_HANDLE");
    CHECK(ng_context_destroy(c->h) == NG_E_HANDLE, "a second ng_context_destroy did not return E_HANDLE");
}

static ng_status destroy_ctx(fzc *c) {
    bool expect_ok = c->cb_depth == 0 && !c->destroying && !c->dead;
    bool was_destroying = c->destroying;
    if (expect_ok) c->destroying = true;
    ng_status st = CALL(ng_context_destroy, c->h);
    TR("ng_context_destroy(ctx#%d) -> %s", c->serial, stname(st));
    if (c->dead) {
        CHECK(st == NG_E_HANDLE, "ng_context_destroy on a destroyed context returned %s", stname(st));
    } else if (c->cb_depth > 0 || was_destroying) {
        CHECK(st == NG_E_CALLBACK, "ng_context_destroy from the context's own callback returned %s, not E_CALLBACK",
              stname(st));
    } else {
        CHECK(st == NG_OK, "ng_context_destroy returned %s", stname(st));
        after_destroy(c);
    }
    return st;
}

/* ------------------------------------------------------------------------ */
/* Handles                                                                   */
/* ------------------------------------------------------------------------ */

typedef struct {
    fzc *c;           /* the context, when the handle is (or was) ours */
    ng_context *h;
    bool bad;         /* every call must return NG_E_HANDLE */
} target;

static target pick(fzc *self, rd *r) {
    target t = { self, self ? self->h : NULL, false };
    uint8_t b = r8(r);
    if (b < 224) {
        if (b >= 160) {       /* the other slot */
            fzc *o = g_slot[0] == self ? g_slot[1] : g_slot[0];
            if (o) { t.c = o; t.h = o->h; }
        }
    } else {
        t.c = NULL;
        switch (b % 8) {
        case 0: t.h = NULL; break;
        case 1: t.h = (ng_context *)(uintptr_t)0x1234; break;
        case 2: t.h = (ng_context *)(void *)&g_foreign_anchor; break;
        case 3: t.h = (ng_context *)(uintptr_t)0xdeadbeef0000ULL; break;    /* slot bits 0 */
        case 4: t.h = (ng_context *)(uintptr_t)0x100ffffULL; break;         /* slot 65534 */
        default:                                                             /* a stale handle */
            t.h = NULL;
            for (int i = 0; i < g_nctx; i++)
                if (g_ctx[(i + b) % g_nctx]->dead) { t.c = g_ctx[(i + b) % g_nctx]; t.h = t.c->h; break; }
            break;
        }
    }
    t.bad = !ctx_live(t.c);
    return t;
}

#define EXPECT_HANDLE(t, st, what)                                                                   \
    do {                                                                                             \
        if ((t).bad) CHECK((st) == NG_E_HANDLE, "%s on a NULL/stale/foreign/destroying handle returned %s", \
                           (what), stname(st));                                                      \
    } while (0)

/* ------------------------------------------------------------------------ */
/* Requests                                                                  */
/* ------------------------------------------------------------------------ */

static ng_screen g_big_screens[NG_MAX_STACK + 1];

typedef struct {
    ng_request req;
    ng_screen list[6];
    arena a;
} req_buf;

static void build_request(rd *r, req_buf *b) {
    ng_request *q = &b->req;
    memset(q, 0, sizeof *q);
    q->size = sizeof *q;
    uint8_t k = r8(r);
    q->kind = k < 240 ? (ng_request_kind)(k % NG_REQ_KIND_COUNT) : (ng_request_kind)(int8_t)r8(r) * 1000003;
    uint8_t f = r8(r);
    q->flags = f < 250 ? (uint32_t)(f % 4) : r32(r);
    q->source = r8(r) % 4;
    q->screen.id = r_screen_id(r);
    q->screen.route = r_str(r, &b->a);
    q->screen.identity = r8(r) % 3 ? NULL : r_str(r, &b->a);
    q->target_id = r_screen_id(r);
    q->duration_ns = r8(r) % 2 ? 0 : r_time(r);
    /* A swipe driven by one of the usual touch ids (0..5): bit 2 of the flag
     * byte, so no byte is read that older inputs did not read. */
    if (q->kind == NG_REQ_INTERACTIVE_BACK && f < 250 && (f & 4)) {
        q->flags |= NG_REQF_TOUCH_DRIVEN;
        q->driving_touch = q->target_id % 6;
    }
    uint8_t s = r8(r);
    switch (s % 16) {
    case 0: q->screens = NULL; q->screen_count = 2; break;
    case 1: q->screens = b->list; q->screen_count = 0; break;
    case 2:
        if (r8(r) % 8 == 0) { q->screens = g_big_screens; q->screen_count = NG_MAX_STACK; }
        else { q->screens = g_big_screens; q->screen_count = NG_MAX_STACK + 1; }
        break;
    case 3: q->screens = b->list; q->screen_count = SIZE_MAX; break;
    default: {
        size_t n = 1 + s % 5;
        for (size_t i = 0; i < n; i++) {
            b->list[i].id = r_screen_id(r);
            b->list[i].route = r8(r) % 4 ? "r" : r_str(r, &b->a);
            b->list[i].identity = r8(r) % 4 ? NULL : r_str(r, &b->a);
        }
        q->screens = b->list;
        q->screen_count = n;
        break;
    }
    }
    uint8_t z = r8(r);
    if (z >= 232) {
        static const uint32_t sizes[] = { 0, 4, offsetof(ng_request, screens) - 1, offsetof(ng_request, screens),
                                          offsetof(ng_request, duration_ns), sizeof(ng_request) + 8, UINT32_MAX, 1 };
        q->size = sizes[z % 8];
    }
}

/* The out struct of a submit: NULL or a size variant. */
static ng_request_result *pick_result(rd *r, ng_request_result *res) {
    memset(res, 0xA5, sizeof *res);
    uint8_t b = r8(r);
    if (b < 200) { res->size = sizeof *res; return res; }
    static const uint32_t sizes[] = { 0, 4, 7, 8, 16, 20, sizeof(ng_request_result) + 16 };
    if (b < 216) return NULL;
    res->size = sizes[b % 7];
    return res;
}

static void op_submit(fzc *self, rd *r) {
    target t = pick(self, r);
    req_buf b;
    memset(&b, 0, sizeof b);
    build_request(r, &b);
    ng_request_result res;
    ng_request_result *out = pick_result(r, &res);
    bool null_req = r8(r) >= 250;
    fzc *c = t.c;
    int depth_before = c ? c->cb_depth : 0;
    ng_status st = CALL(ng_request_submit, t.h, null_req ? NULL : &b.req, out);
    TR("ng_request_submit(ctx#%d%s, kind %" PRId32 ", flags 0x%" PRIx32 ", size %" PRIu32 ", out size %d) -> %s id %" PRIu64
       " status %s", c ? c->serial : -1, t.bad ? " BAD" : "", b.req.kind, b.req.flags, b.req.size,
       out ? (int)out->size : -1, stname(st), out && out->size >= 16 ? res.request_id : 0,
       out && out->size >= 8 ? ng_outcome_name(res.status) : "-");
    EXPECT_HANDLE(t, st, "ng_request_submit");
    if (t.bad) return;
    check_errmsg(t.h);
    if (null_req) { CHECK(st == NG_E_NULL, "ng_request_submit(NULL request) returned %s", stname(st)); return; }
    if (b.req.size < offsetof(ng_request, screens)) {
        CHECK(st == NG_E_SIZE, "ng_request_submit with request size %" PRIu32 " returned %s", b.req.size, stname(st));
        return;
    }
    if (!c->root_set) { CHECK(st == NG_E_STATE, "ng_request_submit before the root returned %s", stname(st)); return; }
    if (out && out->size < 8) { CHECK(st == NG_E_SIZE, "ng_request_submit with result size %" PRIu32 " returned %s", out->size, stname(st)); return; }
    CHECK(st == NG_OK, "ng_request_submit of a well-formed call returned %s", stname(st));
    c->accepted++;
    if (!out || out->size < 16) return;
    uint64_t id = res.request_id;
    CHECK(id != 0, "ng_request_submit returned request id 0");
    CHECK(id < NG_POSTED_ID_BASE, "ng_request_submit returned an id from the posted range: %" PRIu64, id);
    req_rec *rec = req_get(c, id);
    CHECK(!rec->returned, "request id %" PRIu64 " handed out twice", id);
    rec->returned = true;
    rec->submitted = true;
    rec->kind = b.req.kind;
    rec->source = b.req.source;
    if (rec->outcomes) {
        CHECK(rec->out_kind_seen == rec->kind && rec->out_source == rec->source,
              "outcome of request %" PRIu64 " has kind/source %" PRId32 "/%" PRIu32 ", submitted %" PRId32 "/%" PRIu32,
              id, rec->out_kind_seen, rec->out_source, rec->kind, rec->source);
    }
    ng_outcome_kind s = res.status;
    CHECK(s == NG_OUTCOME_APPLIED || s == NG_OUTCOME_REFUSED || s == NG_OUTCOME_DEFERRED || s == NG_OUTCOME_QUEUED,
          "ng_request_submit immediate status %" PRId32, s);
    if (depth_before > 0) {
        CHECK(s == NG_OUTCOME_QUEUED, "ng_request_submit inside a callback returned %s, not QUEUED", ng_outcome_name(s));
        CHECK(rec->outcomes == 0, "queued request %" PRIu64 " got its outcome before the callback returned", id);
    } else {
        CHECK(s != NG_OUTCOME_QUEUED, "ng_request_submit outside any callback of its context returned QUEUED");
        if (s == NG_OUTCOME_APPLIED || s == NG_OUTCOME_REFUSED) {
            CHECK(rec->outcomes == 1, "request %" PRIu64 " was %s but on_outcome did not run before submit returned", id,
                  ng_outcome_name(s));
            CHECK(rec->out_outcome == s, "request %" PRIu64 ": submit said %s, on_outcome said %s", id,
                  ng_outcome_name(s), ng_outcome_name(rec->out_outcome));
            if (s == NG_OUTCOME_REFUSED && out->size >= 20)
                CHECK(rec->out_reason == res.reason, "request %" PRIu64 ": refused for %s, on_outcome says %s", id,
                      ng_reason_name(res.reason), ng_reason_name(rec->out_reason));
        }
    }
    if (out->size >= sizeof res && res.guard_id) (void)read_str(res.guard_id, 4096);
}

static void op_post(fzc *self, rd *r) {
    target t = pick(self, r);
    req_buf b;
    memset(&b, 0, sizeof b);
    build_request(r, &b);
    uint64_t id = 0;
    bool want_id = r8(r) < 220;
    bool null_req = r8(r) >= 250;
    ng_status st = CALL(ng_request_post, t.h, null_req ? NULL : &b.req, want_id ? &id : NULL);
    TR("ng_request_post(ctx#%d%s, kind %" PRId32 ") -> %s id %" PRIu64, t.c ? t.c->serial : -1, t.bad ? " BAD" : "",
       b.req.kind, stname(st), id);
    EXPECT_HANDLE(t, st, "ng_request_post");
    if (t.bad || st != NG_OK) return;
    fzc *c = t.c;
    c->accepted++;
    if (want_id) {
        CHECK(id > NG_POSTED_ID_BASE && id < (NG_POSTED_ID_BASE << 1), "ng_request_post returned id %" PRIu64
              " (never 0, from the posted range, below 2^53)", id);
        req_rec *rec = req_get(c, id);
        CHECK(!rec->returned, "posted request id %" PRIu64 " handed out twice", id);
        CHECK(rec->outcomes == 0, "posted request %" PRIu64 " got its outcome before any tick", id);
        rec->returned = true;
        rec->submitted = true;
        rec->kind = b.req.kind;
        rec->source = b.req.source;
    }
    if (c->cb_depth == 0) {
        int64_t d = 0;
        CHECK(CALL(ng_next_deadline, c->h, &d) == NG_OK, "ng_next_deadline");
        CHECK(d <= c->now, "a request is posted but ng_next_deadline is %" PRId64 " > now %" PRId64, d, c->now);
    }
}

/* ------------------------------------------------------------------------ */
/* Transitions, holds, time                                                  */
/* ------------------------------------------------------------------------ */

static bool model_interactive(const fzc *c) {
    for (int t = 0; t < 2; t++)
        if (c->inflight[t] && (c->inflight_flags[t] & NG_TRANSF_INTERACTIVE)) return true;
    return false;
}

/* 0: the interactive back in flight is not released by this host; 1: released
 * to finish; 2: released to cancel. */
static int model_released(const fzc *c) {
    if (!c->released_id || !model_interactive(c)) return 0;
    for (int t = 0; t < 2; t++)
        if (c->inflight[t] == c->released_id) return c->released_finish ? 1 : 2;
    return 0;
}

static ng_track r_track(rd *r) {
    uint8_t b = r8(r);
    if (b < 240) return (ng_track)(b % 3);
    static const ng_track odd[] = { -1, 3, INT32_MIN, INT32_MAX };
    return odd[b % 4];
}

static void op_finish(fzc *self, rd *r) {
    target t = pick(self, r);
    ng_track track = r_track(r);
    fzc *c = t.c;
    bool exact = !t.bad && c->cb_depth == 0;
    bool busy = exact && (track == NG_TRACK_ALL ? (c->inflight[0] || c->inflight[1])
                                                : (track >= 0 && track < 2 && c->inflight[track]));
    uint64_t was[2] = { c ? c->inflight[0] : 0, c ? c->inflight[1] : 0 };
    bool to_cancel = exact && model_released(c) == 2;
    ng_status st = CALL(ng_transition_finish, t.h, track);
    TR("ng_transition_finish(ctx#%d%s, track %" PRId32 ") -> %s", c ? c->serial : -1, t.bad ? " BAD" : "", track, stname(st));
    EXPECT_HANDLE(t, st, "ng_transition_finish");
    if (t.bad) return;
    if (track < 0 || track > NG_TRACK_ALL) { CHECK(st == NG_E_RANGE, "finish(track %" PRId32 ") returned %s", track, stname(st)); return; }
    if (exact) {
        CHECK(st == (!busy ? NG_E_NOT_FOUND : to_cancel ? NG_E_STATE : NG_OK), "ng_transition_finish(track %" PRId32 ") returned %s; the host "
              "was told track 0: %" PRIu64 ", track 1: %" PRIu64, track, stname(st), c->inflight[0], c->inflight[1]);
        /* (a deferred request may start a new transition at once: compare ids) */
        if (st == NG_OK) {
            for (int k = 0; k < 2; k++)
                if (track == NG_TRACK_ALL || track == k)
                    CHECK(!was[k] || c->inflight[k] != was[k], "finish(%" PRId32 "): request %" PRIu64
                          " is still in flight on track %d (no DID)", track, was[k], k);
        }
    }
}

static void op_interactive(fzc *self, rd *r) {
    target t = pick(self, r);
    uint8_t which = r8(r);
    bool cancel = which % 3 == 0;
    double p = r_progress(r);
    fzc *c = t.c;
    bool exact = !t.bad && c->cb_depth == 0;
    bool inter = exact && model_interactive(c);
    int released = exact ? model_released(c) : 0;
    uint64_t was[2] = { c ? c->inflight[0] : 0, c ? c->inflight[1] : 0 };
    ng_status st;
    if (!cancel && which >= 200) {
        /* release (finish or cancel), or complete */
        bool complete = which >= 236, finish = which & 1;
        uint64_t id = c && model_interactive(c) ? (c->inflight[0] ? c->inflight[0] : c->inflight[1]) : 0;
        if (complete) st = CALL(ng_interactive_complete, t.h);
        else st = CALL(ng_interactive_release, t.h, finish);
        TR("ng_interactive_%s(ctx#%d%s%s) -> %s", complete ? "complete" : "release", c ? c->serial : -1,
           t.bad ? " BAD" : "", complete ? "" : finish ? ", finish" : ", cancel", stname(st));
        EXPECT_HANDLE(t, st, "ng_interactive_release/complete");
        if (!complete && st == NG_OK && c) { c->released_id = id; c->released_finish = finish; }
        if (!exact) return;
        if (complete) {
            CHECK(st == (!inter ? NG_E_NOT_FOUND : released ? NG_OK : NG_E_STATE), "ng_interactive_complete returned %s; "
                  "interactive %d, released %d", stname(st), inter, released);
            if (st == NG_OK)
                for (int k = 0; k < 2; k++)
                    CHECK(!was[k] || c->inflight[k] != was[k], "interactive complete left request %" PRIu64 " in flight", was[k]);
        } else {
            CHECK(st == (!inter ? NG_E_NOT_FOUND : released ? NG_E_STATE : NG_OK), "ng_interactive_release returned %s; "
                  "interactive %d, released %d", stname(st), inter, released);
        }
        return;
    }
    if (cancel) {
        st = CALL(ng_interactive_cancel, t.h);
        TR("ng_interactive_cancel(ctx#%d%s) -> %s", c ? c->serial : -1, t.bad ? " BAD" : "", stname(st));
    } else {
        st = CALL(ng_interactive_update, t.h, p);
        TR("ng_interactive_update(ctx#%d%s, %g) -> %s", c ? c->serial : -1, t.bad ? " BAD" : "", p, stname(st));
    }
    EXPECT_HANDLE(t, st, "ng_interactive_*");
    if (!exact) return;
    if (!cancel && !(p >= 0.0 && p <= 1.0)) {
        CHECK(st == NG_E_RANGE, "ng_interactive_update(%g) returned %s", p, stname(st));
        return;
    }
    ng_status want = !inter ? NG_E_NOT_FOUND : cancel && released == 1 ? NG_E_STATE : NG_OK;
    CHECK(st == want, "ng_interactive_%s returned %s; the host was told an interactive "
          "back is %sin flight (released %d)", cancel ? "cancel" : "update", stname(st), inter ? "" : "not ", released);
    if (cancel && st == NG_OK)
        for (int k = 0; k < 2; k++)
            CHECK(!was[k] || c->inflight[k] != was[k], "interactive cancel left request %" PRIu64 " in flight", was[k]);
}

static void op_hold_begin(fzc *self, rd *r) {
    target t = pick(self, r);
    arena a;
    memset(&a, 0, sizeof a);
    const char *label = r_str(r, &a);
    uint8_t mb = r8(r);
    uint32_t mask = mb < 200 ? (uint32_t)(mb % 0x40) : (mb < 230 ? (uint32_t)mb : r32(r));
    int64_t dur = r8(r) % 2 ? 0 : r_time(r);
    bool null_out = r8(r) >= 245;
    uint64_t tok = 0;
    fzc *c = t.c;
    size_t known_holds = c ? c->nholds : 0;
    ng_status st = CALL(ng_hold_begin, t.h, label, mask, dur, null_out ? NULL : &tok);
    TR("ng_hold_begin(ctx#%d%s, mask 0x%" PRIx32 ", %" PRId64 " ns) -> %s token %" PRIu64, c ? c->serial : -1,
       t.bad ? " BAD" : "", mask, dur, stname(st), tok);
    EXPECT_HANDLE(t, st, "ng_hold_begin");
    if (t.bad) return;
    if (null_out) { CHECK(st == NG_E_NULL, "ng_hold_begin(out_token NULL) returned %s", stname(st)); return; }
    if (st != NG_OK) return;
    CHECK(tok != 0, "ng_hold_begin returned token 0");
    /* (a callback inside this call may already have ended it, guessing the
     * token: then its record is new) */
    uint32_t idx = map_find(&c->hold_index, tok);
    CHECK(idx == 0 || idx > known_holds, "hold token %" PRIu64 " reused", tok);
    hold_rec *h = hold_get(c, tok, true);
    CHECK(!h->host, "hold token %" PRIu64 " handed out twice", tok);
    h->host = true;
    if (tok > c->last_host_token) c->last_host_token = tok;
}

static void op_hold_end(fzc *self, rd *r) {
    target t = pick(self, r);
    fzc *c = t.c;
    uint64_t tok;
    uint8_t b = r8(r);
    if (b < 160 && c && c->nholds) tok = c->holds[r8(r) % c->nholds].token;
    else if (b < 200 && c) tok = c->last_host_token + 1 + b % 3;   /* maybe a guard's hold */
    else if (b < 220) tok = 0;
    else tok = b < 240 ? UINT64_MAX : r64(r);
    hold_rec *h = c ? hold_get(c, tok, false) : NULL;
    bool exact = !t.bad && c->cb_depth == 0 && h && h->host;
    bool live = h && !h->ended;
    ng_status st = CALL(ng_hold_end, t.h, tok);
    TR("ng_hold_end(ctx#%d%s, %" PRIu64 ") -> %s", c ? c->serial : -1, t.bad ? " BAD" : "", tok, stname(st));
    EXPECT_HANDLE(t, st, "ng_hold_end");
    if (t.bad) return;
    if (exact) CHECK(st == (live ? NG_OK : NG_E_NOT_FOUND), "ng_hold_end(%" PRIu64 ") of a %s host hold returned %s",
                     tok, live ? "live" : "ended", stname(st));
    if (st == NG_OK && c->cb_depth == 0) {
        h = hold_get(c, tok, false);
        CHECK(h && h->ended, "ng_hold_end(%" PRIu64 ") returned OK but on_hold_end did not run before it returned", tok);
    }
    if (tok == 0) CHECK(st == NG_E_NOT_FOUND, "ng_hold_end(0) returned %s", stname(st));
}

/* Tick until nothing is due; a context that stays due is wedged. */
static void tick_ctx(fzc *c, ng_context *h, bool bad) {
    ng_status st = CALL(ng_tick, h);
    TR("ng_tick(ctx#%d%s) -> %s", c ? c->serial : -1, bad ? " BAD" : "", stname(st));
    if (bad) { CHECK(st == NG_E_HANDLE, "ng_tick on a bad handle returned %s", stname(st)); return; }
    if (c->cb_depth > 0) { CHECK(st == NG_E_CALLBACK, "ng_tick inside a callback returned %s", stname(st)); return; }
    CHECK(st == NG_OK, "ng_tick returned %s", stname(st));
    for (int round = 0;; round++) {
        if (!ctx_usable(c)) return;      /* destroyed by a nested call */
        int64_t d = 0;
        CHECK(CALL(ng_next_deadline, c->h, &d) == NG_OK, "ng_next_deadline");
        if (d == NG_NO_DEADLINE || d > c->now) return;
        CHECK(round < 64, "wedged: after %d ticks at now=%" PRId64 " ng_next_deadline is still %" PRId64
              " (work due that ng_tick never does)", round + 1, c->now, d);
        st = CALL(ng_tick, c->h);
        CHECK(st == NG_OK, "ng_tick returned %s", stname(st));
    }
}

static void op_time(fzc *self, rd *r) {
    target t = pick(self, r);
    fzc *c = t.c;
    uint8_t what = r8(r) % 5;
    if (what == 0 || what == 1) {
        int64_t v = r_time(r);
        if (what == 1 && c && r8(r) % 2) {           /* set relative to now */
            int64_t rel = (int64_t)(int8_t)r8(r);
            v = (rel > 0 && c->now > INT64_MAX - rel) ? INT64_MAX : c->now + rel;
        }
        ng_status st = what == 0 ? CALL(ng_clock_advance, t.h, v) : CALL(ng_clock_set, t.h, v);
        TR("ng_clock_%s(ctx#%d%s, %" PRId64 ") -> %s", what == 0 ? "advance" : "set", c ? c->serial : -1,
           t.bad ? " BAD" : "", v, stname(st));
        EXPECT_HANDLE(t, st, "ng_clock_*");
        if (t.bad) return;
        bool ok;
        int64_t next = c->now;
        if (what == 0) {
            ok = v >= 0 && c->now <= INT64_MAX - v;
            if (ok) next = c->now + v;
        } else {
            ok = v >= c->now;
            if (ok) next = v;
        }
        CHECK(st == (ok ? NG_OK : NG_E_RANGE), "ng_clock_%s(%" PRId64 ") at now %" PRId64 " returned %s",
              what == 0 ? "advance" : "set", v, c->now, stname(st));
        c->now = next;
    } else if (what == 2 || what == 3) {
        tick_ctx(c, t.h, t.bad);
    } else {
        int64_t d = 0, now = 0;
        bool null_out = r8(r) >= 240;
        ng_status st = CALL(ng_next_deadline, t.h, null_out ? NULL : &d);
        EXPECT_HANDLE(t, st, "ng_next_deadline");
        ng_status st2 = CALL(ng_now, t.h, null_out ? NULL : &now);
        EXPECT_HANDLE(t, st2, "ng_now");
        if (!t.bad && null_out) CHECK(st == NG_E_NULL && st2 == NG_E_NULL, "NULL out_ns not refused");
        if (!t.bad && !null_out) CHECK(now == c->now, "ng_now %" PRId64 " != %" PRId64, now, c->now);
    }
}

/* ------------------------------------------------------------------------ */
/* Events                                                                    */
/* ------------------------------------------------------------------------ */

static bool touch_busy(const fzc *c, uint64_t id) {
    for (int i = 0; i < c->nbusy; i++)
        if (c->busy_touch[i] == id) return true;
    return false;
}

static void submit_event(target t, ng_event *e, bool null_ev, ng_event_result *out) {
    fzc *c = t.c;
    bool is_touch = !t.bad && !null_ev && e->type == NG_EVENT_TOUCH && e->size >= offsetof(ng_event, target_view);
    /* The host's view of a touch changes when the call returns; a callback
     * inside it touching the same id again would see the library ahead of the
     * model. Such a nested event uses another id. */
    if (is_touch) {
        for (;;) {
            touch_rec *o = touch_find(c, e->touch_id);
            if (!touch_busy(c, e->touch_id) && !(o && (o->owed_cancels || o->maybe_cancels))) break;
            e->touch_id += 1000003;
        }
    }
    touch_rec *tr = NULL;
    uint8_t before = T_ABSENT;
    bool tentative = false, lost_end = false;
    size_t lib_live = 0;
    if (is_touch) {
        tr = touch_find(c, e->touch_id);
        if (tr) touch_resolve(c, tr);
        before = tr ? tr->state : T_ABSENT;
        /* A began for an id the host still holds: its end was lost. */
        if (e->phase == NG_TOUCH_BEGAN && before != T_ABSENT && tr && !tr->tentative) {
            lost_end = true;
            if (before == T_DELIVERED) tr->owed_cancels++;
            tr->state = T_ABSENT;
        }
        if (e->phase == NG_TOUCH_BEGAN)
            for (size_t i = 0; i < c->ntouches; i++)
                if (c->touches[i].state == T_DELIVERED || c->touches[i].state == T_WITHHELD) lib_live++;
        if (e->phase == NG_TOUCH_BEGAN && (before == T_ABSENT || lost_end) && !(tr && tr->tentative)) {
            if (!tr) tr = touch_add(c, e->touch_id);
            tr->tentative = true;
            tr->resolved = -1;
            tr->state = T_ABSENT;
            tentative = true;
        }
    }
    if (is_touch) {
        CHECK(c->nbusy < (int)(sizeof c->busy_touch / sizeof c->busy_touch[0]), "too many nested events");
        c->busy_touch[c->nbusy++] = e->touch_id;
    }
    ng_status st = CALL(ng_event_submit, t.h, null_ev ? NULL : e, out);
    if (is_touch) c->nbusy--;
    bool known = st == NG_OK && out && out->size >= 8;
    TR("ng_event_submit(ctx#%d%s, type %" PRId32 ", phase %" PRId32 ", touch %" PRIu64 ", flags 0x%" PRIx32
       ", target %" PRIu64 ", (%g, %g), size %" PRIu32 ") -> %s %s %s", c ? c->serial : -1, t.bad ? " BAD" : "",
       e->type, e->phase, e->touch_id, e->flags, e->target_view, e->x, e->y, e->size, stname(st),
       known ? (out->verdict == NG_VERDICT_DELIVER ? "DELIVER" : "DROP") : "-",
       known && out->size >= 12 ? ng_reason_name(out->reason) : "");
    EXPECT_HANDLE(t, st, "ng_event_submit");
    if (t.bad) return;
    if (null_ev) { CHECK(st == NG_E_NULL, "ng_event_submit(NULL) returned %s", stname(st)); return; }
    if (known) CHECK(out->verdict == NG_VERDICT_DELIVER || out->verdict == NG_VERDICT_DROP, "verdict %" PRId32, out->verdict);
    if (known && out->size >= 12)
        CHECK(out->reason >= 0 && out->reason < NG_REASON_COUNT, "event drop reason %" PRId32, out->reason);
    if (!is_touch) return;
    tr = touch_find(c, e->touch_id);
    if (st != NG_OK) {
        if (tentative) {
            CHECK(tr && tr->resolved < 0, "touch %" PRIu64 ": callbacks ran for a refused began", e->touch_id);
            tr->tentative = false;
            tr->state = T_ABSENT;
            if (lost_end) {          /* refused before anything happened: the old touch stays */
                tr->state = before;
                if (before == T_DELIVERED) tr->owed_cancels--;
            }
            touch_gc(c);
        }
        return;
    }
    /* A began into a full table ends the touch idle longest first: a
     * delivered one got its cancel; a withheld one just left the library. */
    if (e->phase == NG_TOUCH_BEGAN && lib_live >= NG_LIVE_TOUCHES)
        for (size_t i = 0; i < c->ntouches; i++)
            if (c->touches[i].state == T_WITHHELD && lib_touch_state(c, c->touches[i].id) < 0)
                c->touches[i].state = T_CANCELLED;
    int verdict = known ? out->verdict : -1;
    int32_t reason = known && out->size >= 12 ? out->reason : -1;
    switch (e->phase) {
    case NG_TOUCH_BEGAN:
        if (!tentative) {           /* its began is being submitted further out */
            CHECK(verdict != NG_VERDICT_DELIVER, "a second began of touch %" PRIu64 " (%s) was delivered while its "
                  "first was being submitted", e->touch_id, tstate_name[before]);
            break;
        }
        /* No id stays blocked: a began is never refused for its id. */
        if (known && out->size >= offsetof(ng_event_result, hold_token))
            CHECK(reason != NG_REASON_INVALID || out->guard_id != NULL, "began of touch %" PRIu64 " dropped invalid by "
                  "the core: its id is blocked", e->touch_id);
        CHECK(tr && tr->tentative, "touch record lost");
        if (tr->resolved < 0) {
            if (verdict < 0 || c->cb_depth > 0) touch_resolve(c, tr);
            else {
                tr->resolved = verdict == NG_VERDICT_DELIVER ? 1 : 0;
                if (tr->resolved) tr->state = T_DELIVERED;
                else tr->state = lib_touch_state(c, tr->id) == NG_TOUCH_STATE_WITHHELD ? T_WITHHELD : T_ABSENT;
            }
        }
        if (verdict >= 0)
            CHECK((verdict == NG_VERDICT_DELIVER) == (tr->resolved == 1), "began of touch %" PRIu64 ": verdict %s but "
                  "the library holds it as %s", e->touch_id, verdict == NG_VERDICT_DELIVER ? "DELIVER" : "DROP",
                  tr->resolved == 1 ? "delivered" : "not delivered");
        tr->tentative = false;
        break;
    case NG_TOUCH_MOVED:
        if (verdict == NG_VERDICT_DELIVER)
            CHECK(before == T_DELIVERED, "moved of touch %" PRIu64 " delivered while the host holds it as %s",
                  e->touch_id, tstate_name[before]);
        break;
    default: /* ended, cancelled */
        if (verdict < 0) {
            /* No result: the end was delivered, unless the library had
             * cancelled the touch with its on_touch_cancel still queued
             * (possible only inside a callback of this context). */
            CHECK(lib_touch_state(c, e->touch_id) < 0, "touch %" PRIu64 " still live after its end", e->touch_id);
            if (tr && tr->state == T_DELIVERED && c->cb_depth > 0) tr->maybe_cancels++;
            if (tr) tr->state = T_ABSENT;
            break;
        }
        if (verdict == NG_VERDICT_DELIVER) {
            CHECK(before == T_DELIVERED && tr && tr->state == T_DELIVERED, "end of touch %" PRIu64 " delivered while the "
                  "host holds it as %s: a touch ended twice (or never began)", e->touch_id,
                  tstate_name[tr ? tr->state : T_ABSENT]);
            tr->state = T_ABSENT;
        } else if (tr && tr->state == T_DELIVERED) {
            CHECK(reason == NG_REASON_CANCELLED || reason < 0, "end of delivered touch %" PRIu64 " dropped (%s): a "
                  "delivered touch's end is always delivered", e->touch_id, ng_reason_name(reason));
            tr->state = T_ABSENT;
            tr->owed_cancels++;             /* its on_touch_cancel must follow */
        } else if (tr) {
            tr->state = T_ABSENT;
        }
        break;
    }
    touch_gc(c);
}

static void op_event(fzc *self, rd *r) {
    target t = pick(self, r);
    ng_event e;
    memset(&e, 0, sizeof e);
    e.size = sizeof e;
    uint8_t ty = r8(r);
    e.type = ty < 160 ? NG_EVENT_TOUCH : ty < 245 ? (ng_event_type)(ty % NG_EVENT_TYPE_COUNT) : (ng_event_type)(int8_t)r8(r);
    uint8_t ph = r8(r);
    e.phase = ph < 248 ? (int32_t)(ph % 4) : (int32_t)(int8_t)r8(r) * 7;
    uint8_t fl = r8(r);
    e.flags = fl < 180 ? 0 : fl < 250 ? NG_EVF_HAS_TARGET : r32(r);
    e.touch_id = r_touch_id(r);
    e.timestamp_ns = (int64_t)r16(r);
    e.x = r_double(r);
    e.y = r_double(r);
    e.target_view = r_view_id(r);
    e.code = (int64_t)(int8_t)r8(r);
    uint8_t z = r8(r);
    if (z >= 236) {
        static const uint32_t sizes[] = { 0, 4, offsetof(ng_event, target_view) - 1, offsetof(ng_event, target_view),
                                          offsetof(ng_event, code), sizeof(ng_event) + 64, UINT32_MAX, 8 };
        e.size = sizes[z % 8];
    }
    ng_event_result res;
    memset(&res, 0x5A, sizeof res);
    res.size = sizeof res;
    ng_event_result *out = &res;
    uint8_t o = r8(r);
    if (o >= 200) {
        static const uint32_t sizes[] = { 0, 4, 8, 12, 16, 24, sizeof(ng_event_result) + 8 };
        if (o < 220) out = NULL;
        else res.size = sizes[o % 7];
    }
    bool null_ev = r8(r) >= 252;
    submit_event(t, &e, null_ev, out);
}

/* Many touches at once: the 64 live-touch limit. */
static void op_touch_storm(fzc *self, rd *r) {
    target t = pick(self, r);
    static const int counts[] = { 4, 16, 63, 64, 70 };
    int n = counts[r8(r) % 5];
    bool end = r8(r) % 2;
    uint64_t base = 100 + (uint64_t)(r8(r) % 4) * 100;
    for (int pass = 0; pass < (end ? 2 : 1); pass++) {
        for (int i = 0; i < n; i++) {
            ng_event e = NG_EVENT_INIT(NG_EVENT_TOUCH);
            e.phase = pass == 0 ? NG_TOUCH_BEGAN : NG_TOUCH_ENDED;
            e.touch_id = base + (uint64_t)i;
            e.x = (double)(i % 10) * 10.0 + 1.0;
            e.y = (double)(i / 10) * 10.0 + 1.0;
            ng_event_result res = NG_EVENT_RESULT_INIT;
            submit_event(t, &e, false, &res);
            if (t.c && !ctx_usable(t.c)) return;
        }
    }
}

/* ------------------------------------------------------------------------ */
/* Views                                                                     */
/* ------------------------------------------------------------------------ */

static ng_point g_points[1025];

static void op_view_set(fzc *self, rd *r) {
    target t = pick(self, r);
    fzc *c = t.c;
    ng_view v = NG_VIEW_INIT;
    uint8_t f = r8(r);
    v.flags = f < 240 ? (uint32_t)(f % 16) : r32(r);
    v.id = r_view_id(r);
    v.parent = r8(r) % 3 == 0 ? 0 : r_view_id(r);
    v.frame.x = r8(r) % 2 ? 0.0 : r_double(r);
    v.frame.y = r8(r) % 2 ? 0.0 : r_double(r);
    v.frame.width = r8(r) % 2 ? 100.0 : r_double(r);
    v.frame.height = r8(r) % 2 ? 100.0 : r_double(r);
    uint8_t ob = r8(r);
    v.order = ob < 250 ? (int32_t)(ob % 5) - 2 : (ob % 2 ? INT32_MIN : INT32_MAX);
    static const double alphas[] = { 1.0, 1.0, 0.5, 0.0, 0.005, 0.01, -0.1, 1.1, NAN, INFINITY };
    v.alpha = alphas[r8(r) % 10];
    uint8_t sk = r8(r);
    v.shape.kind = sk < 248 ? (ng_shape_kind)(sk % 4) : (ng_shape_kind)(int8_t)r8(r);
    v.shape.top = r_double(r);
    v.shape.left = r_double(r);
    v.shape.bottom = r_double(r);
    v.shape.right = r_double(r);
    v.shape.cx = r_double(r);
    v.shape.cy = r_double(r);
    v.shape.radius = r_double(r);
    static const size_t npts[] = { 0, 1, 2, 3, 4, 5, 8, 1024, 1025, SIZE_MAX };
    v.shape.point_count = npts[r8(r) % 10];
    v.shape.points = r8(r) >= 240 ? NULL : g_points;
    if (v.shape.kind == NG_SHAPE_POLYGON && v.shape.point_count <= 8) {
        for (size_t i = 0; i < v.shape.point_count; i++) {   /* per-call points; restored below */
            g_points[i].x = r_double(r);
            g_points[i].y = r_double(r);
        }
    }
    uint8_t z = r8(r);
    if (z >= 240) {
        static const uint32_t sizes[] = { 0, 4, sizeof(ng_view) - 1, sizeof(ng_view) + 32 };
        v.size = sizes[z % 4];
    }
    bool null_v = r8(r) >= 252;
    ng_status st = CALL(ng_view_set, t.h, null_v ? NULL : &v);
    TR("ng_view_set(ctx#%d%s, id %" PRIu64 ", parent %" PRIu64 ", frame %g,%g %gx%g, shape %" PRId32 ", %zu pts) -> %s",
       c ? c->serial : -1, t.bad ? " BAD" : "", v.id, v.parent, v.frame.x, v.frame.y, v.frame.width, v.frame.height,
       v.shape.kind, v.shape.point_count, stname(st));
    for (size_t i = 0; i < 8; i++) { g_points[i].x = (double)(i % 3) * 40.0; g_points[i].y = (double)(i / 3) * 40.0; }
    EXPECT_HANDLE(t, st, "ng_view_set");
    if (t.bad || c->views_unreliable) return;
    if (null_v) { CHECK(st == NG_E_NULL, "ng_view_set(NULL) returned %s", stname(st)); return; }
    if (st == NG_OK) {
        CHECK(v.id != 0, "ng_view_set accepted view id 0");
        CHECK(v.parent == 0 || view_find(c, v.parent), "ng_view_set accepted unknown parent %" PRIu64, v.parent);
        CHECK(!view_is_self_or_ancestor(c, v.id, v.parent), "ng_view_set accepted a cycle: view %" PRIu64
              " under %" PRIu64 ", its own descendant", v.id, v.parent);
        CHECK(v.frame.width >= 0 && v.frame.height >= 0 && isfinite(v.frame.x) && isfinite(v.frame.width),
              "ng_view_set accepted a bad frame");
        view_rec *vr = view_find(c, v.id);
        if (!vr) {
            if (c->nviews == MAX_VIEW_MODEL) { c->views_unreliable = true; return; }
            vr = &c->views[c->nviews++];
            vr->id = v.id;
        }
        vr->parent = v.parent;
    } else if (st == NG_E_NOT_FOUND) {
        CHECK(v.parent != 0 && !view_find(c, v.parent), "ng_view_set returned NOT_FOUND with parent %" PRIu64
              " in the tree", v.parent);
    } else if (st == NG_E_STATE) {
        CHECK(view_is_self_or_ancestor(c, v.id, v.parent), "ng_view_set returned STATE (cycle) for view %" PRIu64
              " under %" PRIu64 ", not a cycle", v.id, v.parent);
    }
}

static void op_view_remove(fzc *self, rd *r) {
    target t = pick(self, r);
    fzc *c = t.c;
    uint64_t id = r_view_id(r);
    ng_status st = CALL(ng_view_remove, t.h, id);
    TR("ng_view_remove(ctx#%d%s, %" PRIu64 ") -> %s", c ? c->serial : -1, t.bad ? " BAD" : "", id, stname(st));
    EXPECT_HANDLE(t, st, "ng_view_remove");
    if (t.bad || !ctx_usable(c) || c->views_unreliable) return;
    bool known = view_find(c, id) != NULL;
    CHECK(st == (known ? NG_OK : NG_E_NOT_FOUND), "ng_view_remove(%" PRIu64 ") returned %s, view %s", id, stname(st),
          known ? "in the tree" : "not in the tree");
    if (st == NG_OK) view_remove_subtree(c, id);
}

static void op_hit_test(fzc *self, rd *r) {
    target t = pick(self, r);
    double x = r_double(r), y = r_double(r);
    uint64_t v = 0;
    bool null_out = r8(r) >= 245;
    ng_status st = CALL(ng_hit_test, t.h, x, y, null_out ? NULL : &v);
    TR("ng_hit_test(ctx#%d%s, %g, %g) -> %s %" PRIu64, t.c ? t.c->serial : -1, t.bad ? " BAD" : "", x, y, stname(st), v);
    EXPECT_HANDLE(t, st, "ng_hit_test");
    if (t.bad) return;
    if (null_out) CHECK(st == NG_E_NULL, "ng_hit_test(NULL out) returned %s", stname(st));
    else if (isnan(x) || isnan(y)) CHECK(st == NG_E_RANGE, "ng_hit_test(NaN) returned %s", stname(st));
    else CHECK(st == NG_OK, "ng_hit_test returned %s", stname(st));
    if (st == NG_OK && !t.c->views_unreliable)
        CHECK(v == 0 || view_find(t.c, v), "ng_hit_test returned view %" PRIu64 ", not in the tree", v);
}

/* ------------------------------------------------------------------------ */
/* Stack: root, queries, snapshots                                           */
/* ------------------------------------------------------------------------ */

static void op_set_root(fzc *self, rd *r) {
    target t = pick(self, r);
    arena a;
    memset(&a, 0, sizeof a);
    ng_screen s = { r_screen_id(r), r_str(r, &a), r8(r) % 3 ? NULL : r_str(r, &a) };
    bool null_root = r8(r) >= 240;
    fzc *c = t.c;
    ng_status st = CALL(ng_stack_set_root, t.h, null_root ? NULL : &s);
    TR("ng_stack_set_root(ctx#%d%s, id %" PRIu64 ") -> %s", c ? c->serial : -1, t.bad ? " BAD" : "", s.id, stname(st));
    EXPECT_HANDLE(t, st, "ng_stack_set_root");
    if (t.bad) return;
    if (null_root) { CHECK(st == NG_E_NULL, "ng_stack_set_root(NULL) returned %s", stname(st)); return; }
    if (c->cb_depth > 0) { CHECK(st == NG_E_CALLBACK, "ng_stack_set_root inside a callback returned %s", stname(st)); return; }
    if (st == NG_OK) {
        CHECK(!c->root_set, "ng_stack_set_root succeeded on a non-empty stack");
        c->root_set = true;
    } else if (c->root_set && s.id != 0 && s.route && s.route[0] && st != NG_E_UTF8 && st != NG_E_TOO_LONG) {
        CHECK(st == NG_E_STATE, "ng_stack_set_root on a non-empty stack returned %s", stname(st));
    }
}

static void op_query(fzc *self, rd *r) {
    target t = pick(self, r);
    fzc *c = t.c;
    uint8_t q = r8(r) % 9;
    bool null_out = r8(r) >= 240;
    ng_status st = NG_OK;
    switch (q) {
    case 0: {
        size_t n = 0;
        st = CALL(ng_stack_count, t.h, null_out ? NULL : &n);
        if (!t.bad && st == NG_OK && c->root_set) CHECK(n >= 1, "ng_stack_count is %zu after the root was set", n);
        break;
    }
    case 1: {
        size_t n = 0;
        if (!t.bad) CALL(ng_stack_count, t.h, &n);
        static const uint32_t sizes[] = { sizeof(ng_screen_info), 0, 4, 8, 12, 16, 24, sizeof(ng_screen_info) + 8 };
        ng_screen_info si;
        memset(&si, 0x77, sizeof si);
        si.size = sizes[r8(r) % 8];
        uint8_t ib = r8(r);
        size_t idx = ib < 200 ? (n ? ib % n : 0) : ib < 230 ? n : SIZE_MAX - (ib % 2);
        st = CALL(ng_stack_get, t.h, idx, null_out ? NULL : &si);
        if (!t.bad && !null_out && si.size >= sizeof si && st == NG_OK) {
            CHECK(si.route && si.identity && si.id != 0, "ng_stack_get(%zu) gave a NULL route/identity or id 0", idx);
            CHECK(read_str(si.route, 4096) <= NG_MAX_STRING, "route longer than NG_MAX_STRING");
            (void)read_str(si.identity, 4096);
        }
        if (!t.bad && !null_out && si.size >= 16 && idx >= n) CHECK(st == NG_E_NOT_FOUND, "ng_stack_get(%zu) of %zu returned %s", idx, n, stname(st));
        break;
    }
    case 2: {
        bool busy;
        uint64_t id;
        ng_track tk = r_track(r);
        st = CALL(ng_transition_in_flight, t.h, tk, null_out ? NULL : &busy, r8(r) % 2 ? &id : NULL);
        if (!t.bad && !null_out && (tk < 0 || tk > 1)) CHECK(st == NG_E_RANGE, "in_flight(track %" PRId32 ") returned %s", tk, stname(st));
        /* ng_track_get agrees with ng_transition_in_flight */
        ng_track_info ti = NG_TRACK_INFO_INIT;
        ng_status st2 = CALL(ng_track_get, t.h, tk, null_out ? NULL : &ti);
        EXPECT_HANDLE(t, st2, "ng_track_get");
        if (!t.bad && st == NG_OK && !null_out) {
            CHECK(st2 == (busy ? NG_OK : NG_E_NOT_FOUND), "ng_track_get returned %s, in_flight said %d", stname(st2), busy);
            if (st2 == NG_OK) {
                CHECK(ti.swipe >= NG_SWIPE_NONE && ti.swipe <= NG_SWIPE_CANCELLING, "swipe state %" PRId32, ti.swipe);
                CHECK((ti.swipe != NG_SWIPE_NONE) == ((ti.flags & NG_TRANSF_INTERACTIVE) != 0), "swipe %" PRId32
                      " with flags 0x%" PRIx32, ti.swipe, ti.flags);
            }
        }
        if (!t.bad && null_out) CHECK(st2 == NG_E_NULL, "ng_track_get(NULL) returned %s", stname(st2));
        break;
    }
    case 3: {
        size_t n = 0;
        st = CALL(ng_touch_count, t.h, null_out ? NULL : &n);
        ng_touch_info ti;
        memset(&ti, 0, sizeof ti);
        static const uint32_t sizes[] = { sizeof(ng_touch_info), 0, 4, 5, 8, 16, sizeof(ng_touch_info) + 8 };
        ti.size = sizes[r8(r) % 7];
        uint8_t ib = r8(r);
        ng_status st2 = CALL(ng_touch_get, t.h, ib < 200 && n ? ib % n : ib, null_out ? NULL : &ti);
        EXPECT_HANDLE(t, st2, "ng_touch_get");
        break;
    }
    case 4: {
        size_t n = 0;
        st = CALL(ng_chain_count, t.h, null_out ? NULL : &n);
        const char *id = NULL;
        uint8_t ib = r8(r);
        ng_status st2 = CALL(ng_chain_get_id, t.h, ib < 200 && n ? ib % n : (size_t)ib + n, null_out ? NULL : &id);
        EXPECT_HANDLE(t, st2, "ng_chain_get_id");
        if (st2 == NG_OK) CHECK(id && read_str(id, 4096) > 0, "ng_chain_get_id gave an empty id");
        break;
    }
    case 5: {
        uint32_t mask = 0;
        size_t n = 0;
        bool want_mask = r8(r) % 2, want_n = r8(r) % 2;
        st = CALL(ng_hold_state, t.h, want_mask ? &mask : NULL, want_n ? &n : NULL);
        if (!want_mask) mask = NG_MASK_ALL;
        if (st == NG_OK) CHECK((mask & ~NG_MASK_ALL) == 0, "hold mask 0x%" PRIx32, mask);
        /* ng_hold_get: the last live hold, and one past it */
        for (size_t i = n ? n - 1 : 0; i <= n; i++) {
            ng_hold_view hv = NG_HOLD_VIEW_INIT;
            ng_status st2 = CALL(ng_hold_get, t.h, i, &hv);
            EXPECT_HANDLE(t, st2, "ng_hold_get");
            if (t.bad || st != NG_OK || !n) continue;
            CHECK(st2 == (i < n ? NG_OK : NG_E_NOT_FOUND), "ng_hold_get(%zu) of %zu returned %s", i, n, stname(st2));
            if (st2 == NG_OK) {
                CHECK(hv.token != 0 && (hv.mask & ~NG_MASK_ALL) == 0 && (hv.mask & mask) == hv.mask, "hold view");
                if (hv.label) (void)read_str(hv.label, 4096);
            }
        }
        break;
    }
    case 6: {
        check_errmsg(t.h);
        int32_t v = (int32_t)r32(r);
        CHECK(ng_strstatus(v) && ng_reason_name(v) && ng_outcome_name(v) && ng_request_kind_name(v),
              "a name function returned NULL for %" PRId32, v);
        CHECK(ng_version() == NG_VERSION_NUMBER && ng_version_string() && ng_plugin_dir() && ng_default_chain(),
              "version/plugin dir/default chain");
        break;
    }
    case 7: {
        /* the snapshot and restore round trip */
        char *text = NULL;
        size_t len = 0;
        st = CALL(ng_stack_snapshot, t.h, null_out ? NULL : &text, r8(r) % 4 ? &len : NULL);
        TR("ng_stack_snapshot(ctx#%d%s) -> %s", c ? c->serial : -1, t.bad ? " BAD" : "", stname(st));
        if (st == NG_OK) {
            CHECK(text != NULL, "ng_stack_snapshot returned NULL text");
            size_t n = strlen(text);
            if (len) CHECK(len == n, "snapshot out_len %zu, strlen %zu", len, n);
            if (!t.bad && c->cb_depth == 0 && !c->inflight[0] && !c->inflight[1] && c->root_set) {
                ng_status rs = CALL(ng_stack_restore, t.h, text, n);
                TR("ng_stack_restore(ctx#%d, own snapshot) -> %s", c->serial, stname(rs));
                CHECK(rs == NG_OK, "ng_stack_restore of the context's own snapshot returned %s (%s); snapshot: %.300s",
                      stname(rs), ng_errmsg(t.h), text);
                char *again = NULL;
                CHECK(CALL(ng_stack_snapshot, t.h, &again, NULL) == NG_OK, "snapshot");
                CHECK(strcmp(again, text) == 0, "restore(snapshot) changed the stack:\n before %.300s\n after  %.300s",
                      text, again);
                ng_free(again);
            }
        }
        ng_free(text);
        ng_free(NULL);
        break;
    }
    default: {
        int64_t d = 0;
        st = CALL(ng_next_deadline, t.h, null_out ? NULL : &d);
        break;
    }
    }
    TR("query %u (ctx#%d%s) -> %s", q, c ? c->serial : -1, t.bad ? " BAD" : "", stname(st));
    if (q != 6) EXPECT_HANDLE(t, st, "query");
    if (!t.bad && null_out && q != 5 && q != 6) CHECK(st == NG_E_NULL, "query %u with NULL out returned %s", q, stname(st));
}

static void op_restore(fzc *self, rd *r) {
    target t = pick(self, r);
    fzc *c = t.c;
    char buf[2048];
    size_t n = 0;
    char *snap = NULL;
    uint8_t kind = r8(r) % 12;
    switch (kind) {
    case 0: case 1: case 2: {
        /* the current snapshot, mutated */
        if (!t.bad && CALL(ng_stack_snapshot, t.h, &snap, NULL) == NG_OK) {
            n = strlen(snap);
            if (n >= sizeof buf) n = sizeof buf - 1;
            memcpy(buf, snap, n);
            int muts = kind;
            for (int i = 0; i < muts && n; i++) {
                size_t at = r16(r) % n;
                uint8_t how = r8(r);
                if (how % 3 == 0) buf[at] = (char)r8(r);
                else if (how % 3 == 1) n = at;     /* truncate */
                else {
                    static const char json_chars[] = "{}[]\",:0-9eE\\u";
                    buf[at] = json_chars[r8(r) % (sizeof json_chars - 1)];
                }
            }
        }
        break;
    }
    case 3: {
        static const char *const tmpl[] = {
            "{\"navguard_snapshot\":1,\"screens\":[{\"id\":1,\"route\":\"home\"}]}",
            ("{\"navguard_snapshot\":1,\"screens\":[{\"id\":1,\"route\":\"home\",\"identity\":null},"
             "{\"id\":-1,\"route\":\"max\",\"identity\":\"m\"}]}"),
            "{\"navguard_snapshot\":1,\"screens\":[]}",
            "{\"navguard_snapshot\":2,\"screens\":[{\"id\":1,\"route\":\"home\"}]}",
            "{\"navguard_snapshot\":1,\"screens\":[{\"id\":1,\"route\":\"a\"},{\"id\":1,\"route\":\"b\"}]}",
            "{\"navguard_snapshot\":1,\"screens\":[{\"id\":0,\"route\":\"a\"}]}",
            "{\"navguard_snapshot\":1,\"screens\":[{\"id\":1.5,\"route\":\"a\"}]}",
            "{\"navguard_snapshot\":1,\"screens\":[{\"id\":18446744073709551615,\"route\":\"a\"}]}",
            "{\"navguard_snapshot\":1,\"screens\":[{\"id\":9223372036854775808,\"route\":\"a\"}]}",
            "{\"navguard_snapshot\":1,\"screens\":[{\"id\":1e3,\"route\":\"a\"}]}",
            "{\"navguard_snapshot\":1,\"screens\":[{\"id\":1,\"route\":\"a\\u0000b\"}]}",
            "{\"navguard_snapshot\":1,\"screens\":[{\"id\":1,\"route\":\"\\ud800\"}]}",
            "{\"navguard_snapshot\":1,\"screens\":[{\"id\":1,\"route\":\"\\ud83d\\ude00\"}]}",
            "{\"navguard_snapshot\":1,\"screens\":[{\"id\":1,\"route\":\"\"}]}",
            "{\"navguard_snapshot\":1,\"screens\":[{\"id\":1,\"route\":7}]}",
            "{\"navguard_snapshot\":1,\"screens\":[{\"id\":1,\"route\":\"x\",\"identity\":[]}]}",
            "{\"navguard_snapshot\":1e999,\"screens\":[]}",
            "{\"navguard_snapshot\":1,\"navguard_snapshot\":1,\"screens\":[{\"id\":2,\"route\":\"dup keys\"}]}",
            "{\"navguard_snapshot\":1,\"screens\":[{\"id\":1,\"route\":\"caf\xc3\"}]}",
            "{\"navguard_snapshot\":-0,\"screens\":[{\"id\":-0,\"route\":\"z\"}]}",
            "  {\"navguard_snapshot\" : 1 , \"screens\" : [ { \"id\" : 3 , \"route\" : \"ws\" } ] }  ",
            "{\"navguard_snapshot\":1,\"screens\":[{\"id\":1,\"route\":\"home\"}]} trailing",
            "null", "", "{", "[", "\"", "1", "{\"a\":}",
        };
        const char *s = tmpl[r8(r) % (sizeof tmpl / sizeof tmpl[0])];
        n = strlen(s);
        memcpy(buf, s, n);
        break;
    }
    case 4: {
        /* deep nesting */
        static const char open[] = "[{\"a\":";
        size_t depth = 1 + r16(r) % 300;
        for (size_t i = 0; i < depth && n < sizeof buf; i++) buf[n++] = r8(r) % 2 ? '[' : open[r8(r) % 6];
        break;
    }
    case 5: {
        /* a long route, escaped */
        n = (size_t)snprintf(buf, sizeof buf, "{\"navguard_snapshot\":1,\"screens\":[{\"id\":5,\"route\":\"");
        size_t len = 1000 + r8(r) % 60;
        for (size_t i = 0; i < len && n < sizeof buf - 8; i++) buf[n++] = i % 7 == 0 ? 'x' : 'y';
        memcpy(buf + n, "\"}]}", 4);
        n += 4;
        break;
    }
    default: {
        n = r8(r) % 64;
        for (size_t i = 0; i < n; i++) buf[i] = (char)r8(r);
        break;
    }
    }
    ng_free(snap);
    /* exactly n bytes, no NUL after them */
    char *text = malloc(n ? n : 1);
    if (!text) abort();
    memcpy(text, buf, n);
    bool null_text = r8(r) >= 248;
    char *before = NULL;
    bool exact = !t.bad && c->cb_depth == 0;
    if (exact) CALL(ng_stack_snapshot, t.h, &before, NULL);
    ng_status st = CALL(ng_stack_restore, t.h, null_text ? NULL : text, n);
    TR("ng_stack_restore(ctx#%d%s, %zu bytes \"%.*s\") -> %s", c ? c->serial : -1, t.bad ? " BAD" : "", n,
       (int)(n > 120 ? 120 : n), text, stname(st));
    free(text);
    EXPECT_HANDLE(t, st, "ng_stack_restore");
    if (!t.bad) {
        if (null_text) CHECK(st == NG_E_NULL, "ng_stack_restore(NULL) returned %s", stname(st));
        else if (c->cb_depth > 0) CHECK(st == NG_E_CALLBACK, "ng_stack_restore inside a callback returned %s", stname(st));
        if (st == NG_OK) {
            CHECK(!c->inflight[0] && !c->inflight[1], "ng_stack_restore succeeded with a transition in flight");
            c->root_set = true;
        }
        if (exact && st != NG_OK && before) {
            char *after = NULL;
            CHECK(CALL(ng_stack_snapshot, t.h, &after, NULL) == NG_OK, "snapshot");
            CHECK(strcmp(before, after) == 0, "a failed ng_stack_restore (%s) changed the stack", stname(st));
            ng_free(after);
        }
    }
    ng_free(before);
}

/* ------------------------------------------------------------------------ */
/* Contexts and the chain                                                    */
/* ------------------------------------------------------------------------ */

static void op_destroy(fzc *self, rd *r) {
    target t = pick(self, r);
    if (t.c) {
        destroy_ctx(t.c);
    } else {
        ng_status st = CALL(ng_context_destroy, t.h);
        TR("ng_context_destroy(foreign %p) -> %s", (void *)t.h, stname(st));
        CHECK(st == (t.h ? NG_E_HANDLE : NG_OK), "ng_context_destroy(%p) returned %s", (void *)t.h, stname(st));
    }
}

/* Options as the fuzz input gives them; valid ones are destroyed at once. */
static void op_create_odd(rd *r) {
    ng_options o = NG_OPTIONS_INIT;
    uint8_t b = r8(r);
    o.clock = b < 200 ? NG_CLOCK_MANUAL : b < 220 ? NG_CLOCK_MONOTONIC : (ng_clock_kind)(int8_t)r8(r);
    o.manual_start_ns = r8(r) % 2 ? 0 : r_time(r);
    o.default_duration_ns = r8(r) % 2 ? 0 : r_time(r);
    static const uint32_t sizes[] = { sizeof(ng_options), 0, 4, 7, 8, 16, 24, sizeof(ng_options) + 16 };
    o.size = sizes[r8(r) % 8];
    static const uint32_t dsizes[] = { sizeof(ng_delegate), 0, 4, 16, offsetof(ng_delegate, on_touch_cancel) };
    o.delegate.size = dsizes[r8(r) % 5];
    uint8_t how = r8(r) % 4;
    ng_context *h = (ng_context *)(uintptr_t)0x1;
    ng_status st = CALL(ng_context_create, how == 0 ? NULL : &o, how == 1 ? NULL : &h);
    TR("ng_context_create(odd options: size %" PRIu32 ", clock %" PRId32 ", start %" PRId64 ") -> %s", o.size, o.clock,
       o.manual_start_ns, stname(st));
    if (how == 1) { CHECK(st == NG_E_NULL, "ng_context_create(out NULL) returned %s", stname(st)); return; }
    if (st != NG_OK) {
        CHECK(h == NULL, "ng_context_create failed (%s) but did not set *out to NULL", stname(st));
        return;
    }
    CHECK(h != NULL, "ng_context_create returned OK with NULL");
    /* a quick life: a request and an event, then destroy */
    ng_screen root = { 9, "odd", NULL };
    CALL(ng_stack_set_root, h, &root);
    ng_request q = NG_REQUEST_INIT(NG_REQ_PUSH);
    q.screen.id = 10;
    q.screen.route = "next";
    q.flags = NG_REQF_ANIMATED | NG_REQF_TIMED;
    CALL(ng_request_submit, h, &q, NULL);
    ng_event e = NG_EVENT_INIT(NG_EVENT_TOUCH);
    CALL(ng_event_submit, h, &e, NULL);
    CALL(ng_tick, h);
    check_errmsg(h);
    CHECK(CALL(ng_context_destroy, h) == NG_OK, "destroy");
}

static void op_chain(fzc *self, rd *r) {
    target t = pick(self, r);
    fzc *c = t.c;
    uint8_t what = r8(r) % 8;
    ng_status st;
    if (what == 0) {
        if (t.bad) {
            st = CALL(ng_chain_configure, t.h, NULL);
            EXPECT_HANDLE(t, st, "ng_chain_configure");
        } else {
            uint8_t v = r8(r);
            configure_chain(c, v < 64 ? -1 : (int)(v % N_CHAIN_VARIANTS));
        }
        return;
    }
    if (what == 1) {
        const char *paths[] = { NULL, "/nonexistent/chain.json", "/dev/null", "/", "caf\xc3", g_chain_file };
        const char *p = paths[r8(r) % 6];
        size_t before = t.bad ? 0 : chain_count(c);
        st = CALL(ng_chain_configure_file, t.h, p);
        TR("ng_chain_configure_file(ctx#%d%s, %s) -> %s", c ? c->serial : -1, t.bad ? " BAD" : "", p ? p : "NULL", stname(st));
        EXPECT_HANDLE(t, st, "ng_chain_configure_file");
        if (!t.bad && p != g_chain_file) {
            CHECK(st != NG_OK, "ng_chain_configure_file(%s) succeeded", p ? p : "NULL");
            CHECK(chain_count(c) == before, "a failed ng_chain_configure_file changed the chain");
        } else if (!t.bad) {
            if (st != NG_OK) CHECK(chain_count(c) == before, "a failed ng_chain_configure_file changed the chain");
            if (before == 0 && c->cb_depth == 0 && g_chain_file[0])
                CHECK(st == NG_OK, "ng_chain_configure_file(the default chain) returned %s (%s)", stname(st), ng_errmsg(t.h));
        }
        return;
    }
    if (what == 2) {
        static const char *const cfgs[] = { NULL, "{}", "[]", "{", "caf\xc3", "{\"interval_ms\":-5}", "{\"interval_ms\":0}" };
        uint8_t pb = r8(r);
        /* plugins, a missing one, NULL, "", not a library, a library without ng_plugin_entry */
        static const char *const other[] = { NULL, "", "/dev/null", "/lib/x86_64-linux-gnu/libm.so.6" };
        const char *path = pb % 7 < 3 ? g_plugin_path[pb % 7] : other[pb % 7 - 3];
        const char *cfg = cfgs[r8(r) % 7];
        size_t before = t.bad ? 0 : chain_count(c);
        st = CALL(ng_plugin_load, t.h, path, cfg);
        TR("ng_plugin_load(ctx#%d%s, %s) -> %s", c ? c->serial : -1, t.bad ? " BAD" : "", path ? path : "NULL", stname(st));
        EXPECT_HANDLE(t, st, "ng_plugin_load");
        if (!t.bad) {
            size_t after = chain_count(c);
            CHECK(after == before + (st == NG_OK), "ng_plugin_load (%s): chain %zu -> %zu", stname(st), before, after);
            if (c->cb_depth > 0) CHECK(st == NG_E_CALLBACK || st == NG_E_NULL || st == NG_E_UTF8, "ng_plugin_load inside a callback returned %s", stname(st));
        }
        check_errmsg(t.h);
        return;
    }
    /* ng_chain_add: the fuzz guard (script from the input) or a bad descriptor */
    for (size_t i = 0; i < sizeof g_guard_script; i++) g_guard_script[i] = r8(r);
    uint8_t d = r8(r);
    const ng_plugin_descriptor *desc = d < 180 ? &g_fuzz_desc[d % 3] : d < 250 ? &g_bad_desc[d % 8] : NULL;
    static const char *const cfgs[] = { NULL, "{}", "{\"k\":5,\"b\":true,\"d\":1.5,\"s\":\"x\",\"l\":[\"p\",\"q\"]}",
                                        "[1]", "{\"k\":", "caf\xc3", "{\"k\":1e400}" };
    const char *cfg = cfgs[r8(r) % 7];
    size_t before = t.bad ? 0 : chain_count(c);
    st = CALL(ng_chain_add, t.h, desc, cfg);
    TR("ng_chain_add(ctx#%d%s, %s) -> %s", c ? c->serial : -1, t.bad ? " BAD" : "", desc && desc->id ? desc->id : "(bad)",
       stname(st));
    EXPECT_HANDLE(t, st, "ng_chain_add");
    if (t.bad || !ctx_usable(c)) return;
    /* A fuzz guard lives in this process only; even a failed create may
     * have acted (a hold begun and released): no replay of this context. */
    if (desc && desc >= g_fuzz_desc && desc < g_fuzz_desc + 3) c->fuzz_guards++;
    check_errmsg(t.h);
    size_t after = chain_count(c);
    CHECK(after == before + (st == NG_OK), "ng_chain_add (%s): chain %zu -> %zu", stname(st), before, after);
    if (!desc) CHECK(st == NG_E_NULL, "ng_chain_add(NULL) returned %s", stname(st));
    else if (c->cb_depth > 0) CHECK(st == NG_E_CALLBACK || st == NG_E_UTF8 || st == NG_E_TOO_LONG, "ng_chain_add inside a callback returned %s", stname(st));
    else if (desc >= g_bad_desc && desc < g_bad_desc + 8)
        CHECK(st == NG_E_ABI || st == NG_E_GUARD || st == NG_E_UTF8 || st == NG_E_NO_MEMORY,
              "ng_chain_add of a bad descriptor returned %s", stname(st));
}

/* Arm a nested call for the next callbacks of a context. */
static void op_arm(fzc *self, rd *r) {
    uint8_t which = r8(r);
    fzc *c = which % 2 && g_slot[1] ? g_slot[1] : g_slot[0];
    if (self && which % 4 >= 2) c = self;
    if (!c) return;
    c->arm.kinds = r8(r) | 1;
    c->arm.op = r8(r);
    c->arm.other = r8(r) % 4 == 0;
    c->arm.count = 1 + r8(r) % 3;
    for (size_t i = 0; i < sizeof c->arm.params; i++) c->arm.params[i] = r8(r);
    TR("arm ctx#%d: kinds 0x%x op %u x%u%s", c->serial, c->arm.kinds, c->arm.op, c->arm.count,
       c->arm.other ? " on the other context" : "");
}

static ng_options base_options(int64_t start, int64_t duration) {
    ng_options o = NG_OPTIONS_INIT;
    o.clock = NG_CLOCK_MANUAL;
    o.manual_start_ns = start;
    o.default_duration_ns = duration;
    return o;
}

static void op_recreate(rd *r) {
    int s = r8(r) % 2;
    if (g_slot[s] && !g_slot[s]->dead) return;
    ng_options o = base_options(r8(r) % 2 ? 0 : (int64_t)r16(r) * 1000000, 0);
    fzc *c = ctx_new(&o);
    if (!c) return;
    g_slot[s] = c;
    uint8_t b = r8(r);
    if (b % 4 == 1) configure_chain(c, -1);
    else if (b % 4 == 2) configure_chain(c, (int)((b >> 2) % N_GOOD_CHAIN_VARIANTS));
    if (r8(r) % 8) set_root_default(c);
}

/* ------------------------------------------------------------------------ */
/* The op table                                                              */
/* ------------------------------------------------------------------------ */

enum {
    OP_SUBMIT, OP_SUBMIT2, OP_SUBMIT3, OP_POST, OP_FINISH, OP_FINISH2, OP_INTERACTIVE, OP_HOLD_BEGIN, OP_HOLD_END,
    OP_TIME, OP_TIME2, OP_EVENT, OP_EVENT2, OP_EVENT3, OP_VIEW_SET, OP_VIEW_SET2, OP_VIEW_REMOVE, OP_HIT_TEST,
    OP_QUERY, OP_RESTORE, OP_SET_ROOT, OP_DESTROY, OP_RECREATE, OP_CHAIN, OP_ARM, OP_ARM2, OP_TOUCH_STORM,
    OP_CREATE_ODD, OP_COUNT
};

/* One call (or a few) on `self` or another handle; also the nested calls
 * of callbacks. A destroyed `self` still has its stale handle picked. */
static void run_op(fzc *self, rd *r, int op) {
    switch (op % OP_COUNT) {
    case OP_SUBMIT: case OP_SUBMIT2: case OP_SUBMIT3: op_submit(self, r); break;
    case OP_POST: op_post(self, r); break;
    case OP_FINISH: case OP_FINISH2: op_finish(self, r); break;
    case OP_INTERACTIVE: op_interactive(self, r); break;
    case OP_HOLD_BEGIN: op_hold_begin(self, r); break;
    case OP_HOLD_END: op_hold_end(self, r); break;
    case OP_TIME: case OP_TIME2: op_time(self, r); break;
    case OP_EVENT: case OP_EVENT2: case OP_EVENT3: op_event(self, r); break;
    case OP_VIEW_SET: case OP_VIEW_SET2: op_view_set(self, r); break;
    case OP_VIEW_REMOVE: op_view_remove(self, r); break;
    case OP_HIT_TEST: op_hit_test(self, r); break;
    case OP_QUERY: op_query(self, r); break;
    case OP_RESTORE: op_restore(self, r); break;
    case OP_SET_ROOT: op_set_root(self, r); break;
    case OP_DESTROY: op_destroy(self, r); break;
    case OP_RECREATE: op_recreate(r); break;
    case OP_CHAIN: op_chain(self, r); break;
    case OP_ARM: case OP_ARM2: op_arm(self, r); break;
    case OP_TOUCH_STORM: op_touch_storm(self, r); break;
    case OP_CREATE_ODD: op_create_odd(r); break;
    }
}

/* ------------------------------------------------------------------------ */
/* Entry points                                                              */
/* ------------------------------------------------------------------------ */

static void fill(char *s, size_t n, char c) {
    memset(s, c, n);
    s[n] = '\0';
}

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc;
    (void)argv;
    const char *v = getenv("NGF_VERBOSE");
    if (v && *v && *v != '0') ngf_verbose = 1;
    const char *st = getenv("NGF_STATS");
    if (st && *st && *st != '0' && !g_stats) {
        g_stats = 1;
        atexit(print_stats);
    }
    const char *f = getenv("NGF_FINDINGS");
    if (f && *f && *f != '0') {
        g_findings = ~0u;                           /* "1": every finding */
        if (strchr(f, 'F') || strchr(f, 'f')) {     /* "F1,F3": those */
            g_findings = 0;
            for (const char *p = f; *p; p++)
                if ((*p == 'F' || *p == 'f') && p[1] >= '0' && p[1] <= '9' && atoi(p + 1) < 32)
                    g_findings |= 1u << (unsigned)atoi(p + 1);
        }
    }
#ifdef NAVGUARD_FUZZ_PLUGIN_DIR
    /* The built-in plugins of this build (set before ng_plugin_dir is first read). */
    setenv("NAVGUARD_PLUGIN_DIR", NAVGUARD_FUZZ_PLUGIN_DIR, 0);
#endif
    fill(g_str1024, NG_MAX_STRING, 'l');
    fill(g_str1025, NG_MAX_STRING + 1, 'm');
    fill(g_str5000, 5000, 'n');
    fill(g_str_70k, sizeof g_str_70k - 1, 'r');
    for (size_t i = 0; i < NG_MAX_STRING; i += 2) { g_str_mb[i] = (char)0xC3; g_str_mb[i + 1] = (char)0xA9; }
    g_str_mb[NG_MAX_STRING] = '\0';
    for (size_t i = 0; i + 1 < NG_MAX_STRING - 1; i += 2) { g_str_mb_cut[i] = (char)0xC3; g_str_mb_cut[i + 1] = (char)0xA9; }
    g_str_mb_cut[NG_MAX_STRING - 2] = (char)0xC3;      /* 1023 bytes: a lead byte without its continuation */
    g_str_mb_cut[NG_MAX_STRING - 1] = '\0';
    for (size_t i = 0; i <= NG_MAX_STACK; i++) {
        g_big_screens[i].id = (uint64_t)i + 1;
        g_big_screens[i].route = i % 2 ? "r" : "big";
        g_big_screens[i].identity = NULL;
    }
    for (size_t i = 0; i < sizeof g_points / sizeof g_points[0]; i++) {
        g_points[i].x = (double)(i % 3) * 40.0;
        g_points[i].y = (double)(i / 3) * 40.0;
    }
    init_bad_descriptors();
    const char *dir = ng_plugin_dir();
    snprintf(g_plugin_path[0], sizeof g_plugin_path[0], "%s/throttle.so", dir);
    snprintf(g_plugin_path[1], sizeof g_plugin_path[1], "%s/dedupe.so", dir);
    snprintf(g_plugin_path[2], sizeof g_plugin_path[2], "%s/ng-fuzz-missing.so", dir);
    snprintf(g_chain_file, sizeof g_chain_file, "/tmp/ngf-chain-XXXXXX");
    int fd = mkstemp(g_chain_file);
    if (fd >= 0) {
        const char *json = ng_default_chain();
        ssize_t w = write(fd, json, strlen(json));
        close(fd);
        if (w == (ssize_t)strlen(json)) atexit(remove_chain_file);
        else { unlink(g_chain_file); g_chain_file[0] = '\0'; }
    } else {
        g_chain_file[0] = '\0';
    }
    return 0;
}

static void free_all(void) {
    for (int i = 0; i < g_nctx; i++) {
        fzc *c = g_ctx[i];
        map_free(&c->req_index);
        map_free(&c->hold_index);
        free(c->reqs);
        free(c->holds);
        free(c->trace);
        free(c);
        g_ctx[i] = NULL;
    }
    g_nctx = 0;
    g_slot[0] = g_slot[1] = NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static bool inited;
    if (!inited) {
        inited = true;
        if (!g_str1024[0]) LLVMFuzzerInitialize(NULL, NULL);
    }
    rd in = { data, size, 0 };
    g_opno = 0;
    g_depth = 0;
    g_guard_budget = GUARD_BUDGET;
    /* Header: chains, contexts, clock start and default duration. */
    uint8_t cfg = r8(&in);
    uint8_t variants = r8(&in);
    static const int64_t starts[] = { 0, 1, 1000000000000, INT64_MAX - 1000000000 };
    static const int64_t durations[] = { 0, 1, 350000000, INT64_MAX };
    ng_options o = base_options(starts[(cfg >> 6) & 3], durations[variants >> 6]);
    TR("=== input of %zu bytes: cfg 0x%02x", size, cfg);
    int nslots = cfg & 4 ? 2 : 1;
    for (int s = 0; s < nslots; s++) {
        fzc *c = ctx_new(&o);
        g_slot[s] = c;
        int mode = s == 0 ? (cfg & 3) : ((cfg >> 3) & 3);
        if (mode == 1 || mode == 3) configure_chain(c, -1);
        else if (mode == 2) configure_chain(c, (int)((s == 0 ? variants : variants >> 3) % N_GOOD_CHAIN_VARIANTS));
        if (!(cfg & 0x20)) set_root_default(c);
        checkpoint(c);
    }
    while (!r_eof(&in) && g_opno < MAX_OPS) {
        g_opno++;
        g_guard_budget = GUARD_BUDGET;
        uint8_t op = r8(&in);
        fzc *self = g_slot[(op >> 7) & 1] ? g_slot[(op >> 7) & 1] : g_slot[0];
        TR("# op %d: %d", g_opno, (op & 0x7F) % OP_COUNT);
        run_op(self, &in, op & 0x7F);
        for (int i = 0; i < g_nctx; i++) checkpoint(g_ctx[i]);
        CHECK(g_depth == 0, "callback depth %d at top level", g_depth);
    }
    /* Destroy every live context; all the promises are due now. */
    for (int i = g_nctx - 1; i >= 0; i--)
        if (!g_ctx[i]->dead) destroy_ctx(g_ctx[i]);
    free_all();
    return 0;
}
