/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fuzz/api/ — NavGuard's C ABI under fuzzed call sequences.
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
 * This file has the entry points, the model of each context and its
 * checkpoints, the delegate callbacks and the nested calls they make,
 * handles and the op table; each other file of fuzz/api/ the calls of one
 * section of navguard.h, as Sources/NavGuard/API/ is split (ngf.h: what they
 * share).
 *
 * Built twice from these files: fuzz_api (libFuzzer, -DNAVGUARD_FUZZ=ON)
 * and fuzz_api_replay (with fuzz/replay.c's main(): corpus files and
 * generated programs, run by ctest as fuzz_api_smoke). NGF_VERBOSE=1 in the
 * environment (or replay -v) traces every call to stderr.
 */
#include "ngf.h"

int ngf_verbose = 0;
unsigned g_findings = 0;

const char *const tstate_name[] = { "absent", "delivered", "cancelled", "withheld" };
/* The pools' strings (ngf.h, r_str) */
char g_str1024[NG_MAX_STRING + 1];
char g_str1025[NG_MAX_STRING + 2];
char g_str5000[5001];
char g_str_mb[NG_MAX_STRING + 1];       /* 512 x U+00E9: 1024 bytes */
char g_str_mb_cut[NG_MAX_STRING + 1];   /* 1023 bytes, ends in a lead byte */
char g_str_70k[70 * 1024];              /* reports beyond 64 KiB */

/* ------------------------------------------------------------------------ */
/* Failure reporting and tracing                                             */
/* ------------------------------------------------------------------------ */

int g_opno;   /* top-level op index, for messages */
int g_depth;  /* callbacks on the stack, all contexts */

void ngf_fail(const char *file, int line, const char *fmt, ...) {
    va_list ap;
    fflush(stdout);
    const char *slash = strrchr(file, '/');
    fprintf(stderr, "\nNAVGUARD FUZZ: invariant violated (fuzz/api/%s:%d, op #%d, callback depth %d): ",
            slash ? slash + 1 : file, line, g_opno, g_depth);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\n(re-run the input with fuzz_api_replay -v FILE for the call trace)\n");
    fflush(stderr);
    abort();
}

/* "NG_E_NULL", ... from the header's table. */
const char *stname(ng_status st) {
#define STATUS_NAME(constant, text) case constant: return #constant;
    switch (st) { NG_STATUS_MAP(STATUS_NAME) default: return "?"; }
#undef STATUS_NAME
}

/* NGF_STATS=1: count the statuses each function returned and the callbacks,
 * printed at exit (what the corpus exercises). */
int g_stats = 0;
static struct { char name[40]; unsigned long long st[NG_STATUS_COUNT]; } g_stat_fn[64];
unsigned long long g_stat_cb[8];
unsigned long long g_stat_replays[2];   /* traces replayed identically; not replayable (fuzz guards) */
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
    fprintf(stderr, "\nNGF_STATS: statuses returned per function (%s)\n", "fuzz/api");
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

ng_status chk_status(ng_status st, uint32_t allowed, const char *call, const char *file, int line) {
    if (st < 0 || st >= NG_STATUS_COUNT) ngf_fail(file, line, "%s returned %" PRId32 ", outside [0, NG_STATUS_COUNT)", call, st);
    if (!(allowed & S(st))) ngf_fail(file, line, "%s returned %s, not a status navguard.h documents for it", call, stname(st));
    const char *s = ng_strstatus(st);
    if (!s) ngf_fail(file, line, "ng_strstatus(%" PRId32 ") is NULL", st);
    if (g_stats) stat_status(call, st);
    return st;
}

/* A small u64 -> u32 map (key 0 unused) */

static size_t map_hash(uint64_t k, size_t cap) {
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdULL;
    k ^= k >> 33;
    return (size_t)(k & (cap - 1));
}

uint32_t map_find(const u64map *m, uint64_t k) {
    if (!m->cap) return 0;
    for (size_t i = map_hash(k, m->cap);; i = (i + 1) & (m->cap - 1)) {
        if (m->keys[i] == k) return m->vals[i];
        if (m->keys[i] == 0) return 0;
    }
}

void map_set(u64map *m, uint64_t k, uint32_t v) {
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

fzc *g_ctx[MAX_CONTEXTS];
int g_nctx;
fzc *g_slot[2];
int g_guard_budget;

/* Foreign handles that can never decode to a live context. */
int g_foreign_anchor;

/* --- requests --- */

req_rec *req_get(fzc *c, uint64_t id) {
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

hold_rec *hold_get(fzc *c, uint64_t token, bool create) {
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

touch_rec *touch_find(fzc *c, uint64_t id) {
    for (size_t i = 0; i < c->ntouches; i++)
        if (c->touches[i].id == id) return &c->touches[i];
    return NULL;
}

touch_rec *touch_add(fzc *c, uint64_t id) {
    CHECK(c->ntouches < MAX_TOUCH_MODEL, "touch model full");
    touch_rec *t = &c->touches[c->ntouches++];
    memset(t, 0, sizeof *t);
    t->id = id;
    t->resolved = -1;
    return t;
}

void touch_gc(fzc *c) {
    size_t k = 0;
    for (size_t i = 0; i < c->ntouches; i++)
        if (c->touches[i].state != T_ABSENT || c->touches[i].tentative || c->touches[i].owed_cancels ||
            c->touches[i].maybe_cancels)
            c->touches[k++] = c->touches[i];
    c->ntouches = k;
}

/* The library's live-touch state for an id: -1 when not live. */
int lib_touch_state(fzc *c, uint64_t id) {
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
void touch_resolve(fzc *c, touch_rec *t) {
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

view_rec *view_find(fzc *c, uint64_t id) {
    for (size_t i = 0; i < c->nviews; i++)
        if (c->views[i].id == id) return &c->views[i];
    return NULL;
}

/* a is b or an ancestor of b */
bool view_is_self_or_ancestor(fzc *c, uint64_t a, uint64_t b) {
    for (size_t guard = 0; b != 0 && guard <= MAX_VIEW_MODEL; guard++) {
        if (a == b) return true;
        view_rec *v = view_find(c, b);
        if (!v) return false;
        b = v->parent;
    }
    return false;
}

void view_remove_subtree(fzc *c, uint64_t id) {
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

void nested(fzc *c, int kind) {
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

fzc *cb_enter(void *user, ng_context *ctx, const char *what) {
    fzc *c = user;
    CHECK(c != NULL, "%s: delegate user pointer is NULL", what);
    CHECK(!c->dead, "%s called for context #%d after ng_context_destroy returned", what, c->serial);
    CHECK(ctx == c->h, "%s: ctx argument %p is not the context %p", what, (void *)ctx, (void *)c->h);
    c->cb_depth++;
    g_depth++;
    return c;
}

void cb_leave(fzc *c) {
    c->cb_depth--;
    g_depth--;
}

size_t read_str(const char *s, size_t max) {
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

void check_errmsg(ng_context *h) {
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
    d.on_question = cb_question;
    d.on_question_end = cb_question_end;
    return d;
}

fzc *ctx_new(const ng_options *base) {
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
    c->recording = true;
    c->trace_kind = REC_WHOLE;
    g_ctx[g_nctx++] = c;
    TR("ng_context_create(manual, start %" PRId64 ", duration %" PRId64 ") -> ctx#%d", o.manual_start_ns,
       o.default_duration_ns, c->serial);
    return c;
}

void set_root_default(fzc *c) {
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
    if (g_depth == 0) check_questions(c);
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
    check_questions(c);
    check_replay(c);
    /* Stale handle: every call is refused. */
    CHECK(ng_errmsg(c->h) != NULL, "ng_errmsg(stale) is NULL");
    size_t n = 0;
    CHECK(ng_stack_count(c->h, &n) == NG_E_HANDLE, "ng_stack_count on a destroyed context did not return E_HANDLE");
    CHECK(ng_context_destroy(c->h) == NG_E_HANDLE, "a second ng_context_destroy did not return E_HANDLE");
}

ng_status destroy_ctx(fzc *c) {
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

target pick(fzc *self, rd *r) {
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

/* ------------------------------------------------------------------------ */
/* The op table                                                              */
/* ------------------------------------------------------------------------ */

enum {
    OP_SUBMIT, OP_SUBMIT2, OP_SUBMIT3, OP_POST, OP_FINISH, OP_FINISH2, OP_INTERACTIVE, OP_HOLD_BEGIN, OP_HOLD_END,
    OP_TIME, OP_TIME2, OP_EVENT, OP_EVENT2, OP_EVENT3, OP_VIEW_SET, OP_VIEW_SET2, OP_VIEW_REMOVE, OP_HIT_TEST,
    OP_QUERY, OP_RESTORE, OP_SET_ROOT, OP_DESTROY, OP_RECREATE, OP_CHAIN, OP_ARM, OP_ARM2, OP_TOUCH_STORM,
    OP_CREATE_ODD,
    /* Added after the seed corpus was written: appended, so its programs keep their ops. */
    OP_DETACH, OP_SCREEN_FLAGS, OP_QUESTION, OP_QUESTION2, OP_RECORD, OP_COUNT
};

/* One call (or a few) on `self` or another handle; also the nested calls
 * of callbacks. A destroyed `self` still has its stale handle picked. */
void run_op(fzc *self, rd *r, int op) {
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
    case OP_DETACH: op_detach(self, r); break;
    case OP_SCREEN_FLAGS: op_screen_flags(self, r); break;
    case OP_QUESTION: case OP_QUESTION2: op_question(self, r); break;
    case OP_RECORD: op_record(self, r); break;
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
    recorder_init();
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
        map_free(&c->question_index);
        free(c->reqs);
        free(c->holds);
        free(c->trace);
        free(c);
        g_ctx[i] = NULL;
    }
    g_nctx = 0;
    g_slot[0] = g_slot[1] = NULL;
    recorder_clean();
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
