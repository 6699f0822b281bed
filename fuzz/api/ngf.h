/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ngf.h — what the files of the API fuzz harness share: the input reader,
 * the model of each context, the checks (CHECK, CALL) and each file's
 * functions. fuzz/README.md describes the harness; fuzz/api/harness.c has
 * its entry points, the model and the callbacks, and each other file the
 * calls of one section of navguard.h (as Sources/NavGuard/API/ is split).
 */
#ifndef NGF_H
#define NGF_H

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
__attribute__((visibility("default"))) bool ngf_predicate(int32_t kind, const char *route, uint64_t depth);

/* Set by replay -v or NGF_VERBOSE=1: trace every call (replay.c sets it). */
extern int ngf_verbose;

/* Open findings (fuzz/crashers/README.md) can be steered around so fuzzing
 * goes on past them: guard the triggering input or the check with
 * FINDING(n), which is on only when the environment has NGF_FINDINGS=1 (all)
 * or a list such as NGF_FINDINGS=F4,F5 (how a saved crasher reproduces).
 * F1-F4 are fixed and checked unconditionally; F5 is open. */
extern unsigned g_findings;   /* harness.c */
#define FINDING(n) ((g_findings >> (n)) & 1u)

#define MAX_OPS 400             /* top-level ops per input */
#define MAX_CONTEXTS 12         /* contexts created per input */
#define MAX_NEST 4              /* nested callback depth that still acts */
#define MAX_TOUCH_MODEL 512
#define MAX_VIEW_MODEL 256
#define GUARD_BUDGET 256        /* fuzz-guard actions per top-level op */

/* Nothing of the harness is exported but its entry points and ngf_predicate
 * (the executables export their symbols for ffi-predicate). */
#pragma GCC visibility push(hidden)

extern int g_opno;   /* top-level op index, for messages */
extern int g_depth;  /* callbacks on the stack, all contexts */

__attribute__((noreturn, format(printf, 3, 4)))
void ngf_fail(const char *file, int line, const char *fmt, ...);

#define CHECK(cond, ...)                                  \
    do {                                                  \
        if (!(cond)) ngf_fail(__FILE__, __LINE__, __VA_ARGS__); \
    } while (0)

#define TR(...)                                                       \
    do {                                                              \
        if (ngf_verbose) {                                            \
            fprintf(stderr, "%*s", 2 * g_depth, "");                  \
            fprintf(stderr, __VA_ARGS__);                             \
            fputc('\n', stderr);                                      \
        }                                                             \
    } while (0)

/* The statuses each function may return are NGF_STATUSES_<function>
 * (ng_status_masks.h, above): CALL checks every call against them. */
#define S(x) NGF_STATUS_BIT(x)

/* CALL(ng_f, args...) calls ng_f(args...) and checks its status against
 * what navguard.h documents for ng_f. */
#define CALL(fn, ...) chk_status(fn(__VA_ARGS__), NGF_STATUSES_##fn, #fn "(" #__VA_ARGS__ ")", __FILE__, __LINE__)

/* ------------------------------------------------------------------------ */
/* Input reader                                                              */
/* ------------------------------------------------------------------------ */

/* Strings of the pools (harness.c): at and over NG_MAX_STRING, multibyte,
 * cut, beyond 64 KiB. */
extern char g_str1024[NG_MAX_STRING + 1];
extern char g_str1025[NG_MAX_STRING + 2];
extern char g_str5000[5001];
extern char g_str_mb[NG_MAX_STRING + 1];
extern char g_str_mb_cut[NG_MAX_STRING + 1];
extern char g_str_70k[70 * 1024];

typedef struct {
    const uint8_t *p;
    size_t n, i;
} rd;

static inline bool r_eof(const rd *r) { return r->i >= r->n; }
static inline uint8_t r8(rd *r) { return r->i < r->n ? r->p[r->i++] : 0; }
static inline uint16_t r16(rd *r) { uint16_t a = r8(r); return (uint16_t)(a | (uint16_t)r8(r) << 8); }
static inline uint32_t r32(rd *r) { uint32_t a = r16(r); return a | (uint32_t)r16(r) << 16; }
static inline uint64_t r64(rd *r) { uint64_t a = r32(r); return a | (uint64_t)r32(r) << 32; }

static inline double d_from_bits(uint64_t u) {
    double d;
    memcpy(&d, &u, sizeof d);
    return d;
}

/* Coordinates, sizes, shape values. */
static inline double r_double(rd *r) {
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
static inline double r_progress(rd *r) {
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
static inline int64_t r_time(rd *r) {
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

typedef struct {
    char s[16][40];
    int next;
} arena;

static inline const char *r_str(rd *r, arena *a) {
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

static inline uint64_t r_screen_id(rd *r) {
    uint8_t b = r8(r);
    if (b < 208) return b % 13;                   /* 0 (reserved) .. 12 */
    if (b < 224) return UINT64_MAX - (b % 3);
    if (b < 240) return (uint64_t)1 << 63;
    return r64(r);
}

static inline uint64_t r_view_id(rd *r) {
    uint8_t b = r8(r);
    if (b < 240) return b % 11;                   /* 0 (reserved) .. 10 */
    if (b < 248) return UINT64_MAX;
    return r64(r);
}

static inline uint64_t r_touch_id(rd *r) {
    uint8_t b = r8(r);
    if (b < 240) return b % 6;                    /* 0 .. 5 */
    if (b < 248) return UINT64_MAX;
    return r64(r);
}

/* ------------------------------------------------------------------------ */
/* The model of one context                                                  */
/* ------------------------------------------------------------------------ */

/* A small u64 -> u32 map (key 0 unused) */
typedef struct {
    uint64_t *keys;
    uint32_t *vals;
    size_t cap, n;
} u64map;

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
enum { K_OUTCOME = 1, K_TRANSITION = 2, K_HOLD_END = 4, K_TOUCH_CANCEL = 8, K_REPORT = 16, K_LOG = 32, K_QUESTION = 64 };
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
    /* Questions (questions.c): the open one as on_question told it, every id
     * asked, the last end, and an answer given inside a callback whose
     * on_question_end is still to come. */
    uint64_t question_open;
    u64map question_index;
    uint64_t questions_asked, questions_ended;
    uint64_t last_end_id;
    int32_t last_end_answer;
    uint64_t pending_answer_id;
    int32_t pending_answer;
    /* The recorder (recorder.c). REC_WHOLE: the writer since creation, whose
     * trace must replay identically; REC_LATER: the writer from a later
     * ng_record_start (identical, or NG_E_STATE when something was live);
     * REC_OTHER: a ring or a file, or stopped (no trace to compare). */
    enum { REC_WHOLE, REC_LATER, REC_OTHER } trace_kind;
    bool recording;
    bool ring;
    bool later_with_posted;       /* REC_LATER began with posted requests not yet applied (F5) */
    bool detached;                /* context.c: between detach and attach */
} fzc;

static inline bool ctx_usable(const fzc *c) { return c && !c->dead && !c->destroying; }
/* Its handle answers: during ng_context_destroy the owner's callbacks may
 * still call it (posting is refused). */
static inline bool ctx_live(const fzc *c) { return c && !c->dead; }

typedef struct {
    fzc *c;           /* the context, when the handle is (or was) ours */
    ng_context *h;
    bool bad;         /* every call must return NG_E_HANDLE */
} target;

#define EXPECT_HANDLE(t, st, what)                                                                   \
    do {                                                                                             \
        if ((t).bad) CHECK((st) == NG_E_HANDLE, "%s on a NULL/stale/foreign/destroying handle returned %s", \
                           (what), stname(st));                                                      \
    } while (0)

#define N_GOOD_CHAIN_VARIANTS 4   /* chain.c: g_chain_variants 0..3 load */

/* Shared state (harness.c unless said) */
extern int g_opno;
extern int g_depth;
extern int g_stats;
extern unsigned long long g_stat_cb[8];
extern unsigned long long g_stat_replays[2];
extern fzc *g_ctx[MAX_CONTEXTS];
extern int g_nctx;
extern fzc *g_slot[2];
extern int g_guard_budget;
extern int g_foreign_anchor;
extern uint8_t g_guard_script[48];
extern char g_plugin_path[3][4096];
extern char g_chain_file[64];
extern ng_screen g_big_screens[NG_MAX_STACK + 1];
extern ng_point g_points[1025];
extern const char *const tstate_name[];

/* harness.c */
const char *stname(ng_status st);
ng_status chk_status(ng_status st, uint32_t allowed, const char *call, const char *file, int line);
/* One op of the program (the op table); also the nested calls of callbacks. */
void run_op(fzc *self, rd *r, int op);
uint32_t map_find(const u64map *m, uint64_t k);
void map_set(u64map *m, uint64_t k, uint32_t v);
/* A callback begins and ends (checks the context, counts the depth). */
fzc *cb_enter(void *user, ng_context *ctx, const char *what);
void cb_leave(fzc *c);
req_rec *req_get(fzc *c, uint64_t id);
hold_rec *hold_get(fzc *c, uint64_t token, bool create);
touch_rec *touch_find(fzc *c, uint64_t id);
touch_rec *touch_add(fzc *c, uint64_t id);
void touch_gc(fzc *c);
int lib_touch_state(fzc *c, uint64_t id);
void touch_resolve(fzc *c, touch_rec *t);
view_rec *view_find(fzc *c, uint64_t id);
bool view_is_self_or_ancestor(fzc *c, uint64_t a, uint64_t b);
void view_remove_subtree(fzc *c, uint64_t id);
void nested(fzc *c, int kind);
size_t read_str(const char *s, size_t max);
void check_errmsg(ng_context *h);
fzc *ctx_new(const ng_options *base);
void set_root_default(fzc *c);
ng_status destroy_ctx(fzc *c);
target pick(fzc *self, rd *r);

/* chain.c */
void init_bad_descriptors(void);
void remove_chain_file(void);
void configure_chain(fzc *c, int variant);   /* -1: the default chain (NULL) */
void op_chain(fzc *self, rd *r);

/* requests.c */
void op_submit(fzc *self, rd *r);
void op_post(fzc *self, rd *r);

/* transitions.c */
ng_track r_track(rd *r);
void op_finish(fzc *self, rd *r);
void op_interactive(fzc *self, rd *r);

/* holds.c */
void op_hold_begin(fzc *self, rd *r);
void op_hold_end(fzc *self, rd *r);

/* time.c */
void op_time(fzc *self, rd *r);

/* input.c */
void op_event(fzc *self, rd *r);
void op_touch_storm(fzc *self, rd *r);

/* views.c */
void op_view_set(fzc *self, rd *r);
void op_view_remove(fzc *self, rd *r);
void op_hit_test(fzc *self, rd *r);

/* stack.c */
void op_set_root(fzc *self, rd *r);
void op_query(fzc *self, rd *r);
void op_restore(fzc *self, rd *r);
void op_screen_flags(fzc *self, rd *r);

/* context.c */
void op_destroy(fzc *self, rd *r);
void op_create_odd(rd *r);
ng_options base_options(int64_t start, int64_t duration);
void op_recreate(rd *r);
void op_detach(fzc *self, rd *r);

/* questions.c */
void op_question(fzc *self, rd *r);
void cb_question(void *user, ng_context *ctx, const ng_question *q);
void cb_question_end(void *user, ng_context *ctx, const ng_question *q, ng_answer answer);
void check_questions(fzc *c);

/* recorder.c */
bool trace_write(void *user, const char *data, size_t len);
void check_replay(fzc *c);
void op_record(fzc *self, rd *r);
void recorder_init(void);
void recorder_clean(void);
extern char g_dump_dir[64];   /* ring dumps, files and crash dumps of the recorder ops */

#pragma GCC visibility pop

#endif
