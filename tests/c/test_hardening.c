/*
 * test_hardening.c — what a black-box attack on 0.2.0 found, through the C
 * API. Each case crashed, hung or lost an end before its fix:
 *
 *  - an option declaration with `size` 0xFFFFFFFF (used as the stride:
 *    SIGSEGV) and an enum declared with a repeated choice: ng_chain_add
 *    refuses both with NG_E_GUARD, naming the guard;
 */
#define _XOPEN_SOURCE 700
#include <navguard/navguard.h>
#include <navguard/plugin.h>

#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"

#define MS 1000000LL

static char g_plugin_dir[PATH_MAX];

/* ------------------------------------------------------------------------ */
/* A delegate that keeps what the tests look at                              */
/* ------------------------------------------------------------------------ */

#define MAX_IDS 64
typedef struct {
    int outcomes[MAX_IDS];          /* outcome callbacks per request id */
    ng_outcome_kind outcome[MAX_IDS];
    int warn_logs, error_logs;
    char last_warn[1024], last_warn_guard[96];
    char last_error[1024], last_error_guard[96];
    int reports;
    char report[16384];
    int holds_ended;
    /* what on_hold_end does */
    ng_context *ctx;
    bool submit_once;               /* submit a push from the first hold end */
    uint64_t queued_id;
    bool host_runaway;              /* begin and end a hold for every hold end */
    long host_refused;
} host;

static void on_outcome(void *user, ng_context *ctx, const ng_outcome *o) {
    host *h = user;
    (void)ctx;
    if (o->request_id < MAX_IDS) {
        h->outcomes[o->request_id]++;
        h->outcome[o->request_id] = o->outcome;
    }
}

static void on_log(void *user, ng_context *ctx, int32_t severity, const char *guard_id, const char *message) {
    host *h = user;
    (void)ctx;
    if (severity == NG_LOG_WARN) {
        h->warn_logs++;
        snprintf(h->last_warn, sizeof h->last_warn, "%s", message);
        snprintf(h->last_warn_guard, sizeof h->last_warn_guard, "%s", guard_id ? guard_id : "(null)");
    } else if (severity == NG_LOG_ERROR) {
        h->error_logs++;
        snprintf(h->last_error, sizeof h->last_error, "%s", message);
        snprintf(h->last_error_guard, sizeof h->last_error_guard, "%s", guard_id ? guard_id : "(null)");
    }
}

static void on_report(void *user, ng_context *ctx, const char *guard_id, const char *text) {
    host *h = user;
    (void)ctx;
    (void)guard_id;
    h->reports++;
    snprintf(h->report, sizeof h->report, "%s", text);
}

static void on_hold_end(void *user, ng_context *ctx, const ng_hold_info *info) {
    host *h = user;
    (void)info;
    h->holds_ended++;
    if (h->submit_once) {
        h->submit_once = false;
        ng_request rq = NG_REQUEST_INIT(NG_REQ_PUSH);
        rq.screen.id = 2;
        rq.screen.route = "queued";
        ng_request_result res = NG_REQUEST_RESULT_INIT;
        EXPECT_ST(ctx, ng_request_submit(ctx, &rq, &res), NG_OK);
        EXPECT(res.status == NG_OUTCOME_QUEUED, "made inside a callback: queued (%s)", ng_outcome_name(res.status));
        h->queued_id = res.request_id;
    }
    if (h->host_runaway) {
        uint64_t t = 0;
        if (ng_hold_begin(ctx, "host-again", 0, 0, &t) != NG_OK) {
            h->host_refused++;
            return;
        }
        ng_hold_end(ctx, t);
    }
}

static ng_context *new_ctx(host *h) {
    memset(h, 0, sizeof *h);
    ng_options o = NG_OPTIONS_INIT;
    o.clock = NG_CLOCK_MANUAL;
    o.manual_start_ns = 1000 * MS;
    o.delegate.user = h;
    o.delegate.on_outcome = on_outcome;
    o.delegate.on_log = on_log;
    o.delegate.on_report = on_report;
    o.delegate.on_hold_end = on_hold_end;
    ng_context *ctx = NULL;
    if (ng_context_create(&o, &ctx) != NG_OK) {
        fprintf(stderr, "FATAL: ng_context_create\n");
        exit(1);
    }
    h->ctx = ctx;
    ng_screen root = { 1, "home", NULL };
    MUST(ctx, ng_stack_set_root(ctx, &root));
    return ctx;
}

static size_t hold_count(ng_context *ctx) {
    size_t n = 0;
    MUST(ctx, ng_hold_state(ctx, NULL, &n));
    return n;
}

/* A guard that does nothing but exist (hooks the cases set). */
static void *plain_create(const ng_guard_host *h, const char *config) {
    (void)config;
    return (void *)h;
}
static void plain_destroy(void *instance) { (void)instance; }

#define TEST_DESCRIPTOR(id_, options_) \
    { NG_PLUGIN_ABI_MAJOR, NG_PLUGIN_ABI_MINOR, sizeof(ng_plugin_descriptor), (id_), "test", "1.0", \
      "a guard of test_hardening.c", plain_create, plain_destroy, NULL, NULL, NULL, NULL, NULL, NULL, NULL, \
      NULL, (options_) }

/* ------------------------------------------------------------------------ */
/* 1, 8b: option declarations                                                */
/* ------------------------------------------------------------------------ */

static const ng_option_decl wild_size_options[] = {
    { 0xFFFFFFFFu, NG_OPT_BOOL, "flag", "a flag", "true", 1.0, 0.0, NULL },
    NG_OPTION_END,
};
static const char *const repeated_modes[] = { "refuse", "queue", "refuse", NULL };
static const ng_option_decl repeated_choice_options[] = {
    NG_OPTION_ENUM("mode", "\"queue\"", repeated_modes, "what a busy screen does"),
    NG_OPTION_END,
};

static void test_option_declarations(void) {
    host h;
    ng_context *ctx = new_ctx(&h);
    static const ng_plugin_descriptor wild = TEST_DESCRIPTOR("org.navguard.test.wild-size", wild_size_options);
    EXPECT_ST(ctx, ng_chain_add(ctx, &wild, NULL), NG_E_GUARD);
    EXPECT(strstr(ng_errmsg(ctx), "org.navguard.test.wild-size") && strstr(ng_errmsg(ctx), "4294967295"),
           "names the guard and the size: %s", ng_errmsg(ctx));
    static const ng_plugin_descriptor repeated = TEST_DESCRIPTOR("org.navguard.test.repeated", repeated_choice_options);
    EXPECT_ST(ctx, ng_chain_add(ctx, &repeated, NULL), NG_E_GUARD);
    EXPECT(strstr(ng_errmsg(ctx), "org.navguard.test.repeated") && strstr(ng_errmsg(ctx), "\"refuse\" twice"),
           "names the guard and the choice: %s", ng_errmsg(ctx));
    size_t n = 99;
    MUST(ctx, ng_chain_count(ctx, &n));
    EXPECT(n == 0, "nothing added (%zu)", n);
    EXPECT_ST(ctx, ng_context_destroy(ctx), NG_OK);
}

int main(void) {
    const char *dir = getenv("NAVGUARD_TEST_PLUGIN_DIR");
#ifdef NAVGUARD_TEST_PLUGIN_DIR
    if (!dir || !*dir) dir = NAVGUARD_TEST_PLUGIN_DIR;
#endif
    snprintf(g_plugin_dir, sizeof g_plugin_dir, "%s", dir ? dir : ".");
    setenv("NAVGUARD_PLUGIN_DIR", g_plugin_dir, 1);
    test_option_declarations();
    printf("test_hardening: %d checks, %d failures\n", g_checks, g_failures);
    return g_failures ? 1 : 0;
}
