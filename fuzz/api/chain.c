/* SPDX-License-Identifier: Apache-2.0 */
/* fuzz/api/chain.c — navguard.h "Guard chain" and the plugin ABI: the fuzz guard
 * (org.navguard.fuzz.*), chain configurations, ng_chain_*, ng_plugin_load. */
#include "ngf.h"

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

uint8_t g_guard_script[48];

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

void init_bad_descriptors(void) {
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

char g_plugin_path[3][4096];
char g_chain_file[64];          /* the default chain, as a file */

void remove_chain_file(void) {
    if (g_chain_file[0]) unlink(g_chain_file);
}

static size_t chain_count(fzc *c) {
    size_t n = 0;
    CALL(ng_chain_count, c->h, &n);
    CHECK(n <= NG_MAX_GUARDS, "chain has %zu guards", n);
    return n;
}

void configure_chain(fzc *c, int variant /* -1: default chain (NULL) */) {
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

void op_chain(fzc *self, rd *r) {
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
