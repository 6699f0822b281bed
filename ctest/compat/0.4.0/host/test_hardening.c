/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_hardening.c — what a black-box attack on 0.2.0 found, through the C
 * API. Each case crashed, hung or lost an end before its fix:
 *
 *  - an option declaration with `size` 0xFFFFFFFF (used as the stride:
 *    SIGSEGV) and an enum declared with a repeated choice: ng_chain_add
 *    refuses both with NG_E_GUARD, naming the guard;
 *  - ng_replay of a trace whose header says "at_ns": INT64_MIN and which
 *    diverges (the report's arithmetic trapped: SIGILL); the version check's
 *    messages for 0, negative, fractional and string versions; numbers
 *    outside their field's range;
 *  - a FIFO where a plugin or a chain file is looked for (ng_plugin_load, a
 *    {"path": ...} entry, ng_chain_configure_file, an x.so FIFO on
 *    NAVGUARD_PLUGIN_PATH): NG_E_LOAD at once, or skipped when listing. The
 *    old code blocked forever opening them: alarm() kills the test then,
 *    and ctest's TIMEOUT stops it in any case;
 *  - a guard whose on_hold begins and ends a hold for every notice, and a
 *    host callback doing the same: the call returns NG_E_NO_MEMORY past
 *    NG_MAX_WORK, a log names who fed it, every request gets its outcome and
 *    the context stays usable;
 *  - a guard that blocks 3 s in its vote (it advances the manual clock
 *    there): a warning names it, the watchdog's next report says so, and the
 *    transition is not aged by the vote; an event hook that blocks is not
 *    timed; on the monotonic clock, a vote that sleeps 250 ms is named;
 *  - a flight-recorder writer that calls the API on its own context: every
 *    call gets NG_E_CALLBACK, ng_context_destroy and ng_context_detach
 *    included, and nothing nests.
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
#include <time.h>
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
    long guard_outcomes;            /* outcomes of requests guards made */
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
    if (o->request_id >= NG_GUARD_ID_BASE) h->guard_outcomes++;
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
    { .abi_major = NG_PLUGIN_ABI_MAJOR, .abi_minor = NG_PLUGIN_ABI_MINOR, .size = sizeof(ng_plugin_descriptor), \
      .id = (id_), .name = "test", .version = "1.0", .description = "a guard of test_hardening.c", \
      .create = plain_create, .destroy = plain_destroy, .options = (options_) }

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

/* ------------------------------------------------------------------------ */
/* 2: numbers read from a trace                                              */
/* ------------------------------------------------------------------------ */

#define HEADER(version, at) \
    "{\"navguard_trace\":" version ",\"library\":\"0.2.0\",\"plugin_abi\":\"1.1\",\"clock\":\"monotonic\"," \
    "\"manual_start_ns\":0,\"default_duration_ns\":350000000,\"start\":\"create\",\"at_ns\":" at "}\n"
/* The root call recorded as refused: the replay's NG_OK diverges there. */
#define DIVERGING_ROOT \
    "{\"k\":\"call\",\"fn\":\"root\",\"t\":1000,\"screen\":{\"id\":1,\"route\":\"home\",\"identity\":\"home\"}," \
    "\"ret\":{\"st\":\"NG_E_STATE\"}}\n"

static ng_status replay(const char *trace, ng_replay_result *out) {
    ng_replay_result r = NG_REPLAY_RESULT_INIT;
    *out = r;
    return ng_replay(trace, strlen(trace), NULL, out);
}

static void expect_replay(const char *trace, ng_status want, uint64_t line, const char *says, const char *not_says) {
    ng_replay_result r;
    ng_status st = replay(trace, &r);
    const char *report = r.report ? r.report : "";
    EXPECT(st == want, "ng_replay returned %s, expected %s: %s", ng_strstatus(st), ng_strstatus(want), report);
    EXPECT(r.line == line, "line %llu, expected %llu: %s", (unsigned long long)r.line, (unsigned long long)line, report);
    EXPECT(strstr(report, says) != NULL, "the report says \"%s\": %s", says, report);
    if (not_says) EXPECT(strstr(report, not_says) == NULL, "the report does not say \"%s\": %s", not_says, report);
    ng_free(r.report);
}

static void test_trace_numbers(void) {
    /* The attack's trace: the header's instant is INT64_MIN and the replay
     * diverges at its first call. It died of SIGILL (t - at_ns overflowed). */
    expect_replay(HEADER("1", "-9223372036854775808") DIVERGING_ROOT, NG_E_PARSE, 1,
                  "\"at_ns\" is -9223372036854775808: a trace's times are nanoseconds >= 0", NULL);
    /* At -9e18 it survived and said "9000000003140.0 ms into the trace". */
    expect_replay(HEADER("1", "-9000000000000000000") DIVERGING_ROOT, NG_E_PARSE, 1, "\"at_ns\" is -9000000000000000000",
                  "into the trace");
    /* A sane header: the divergence is reported with the time into the trace. */
    expect_replay(HEADER("1", "0") DIVERGING_ROOT, NG_OK, 2, "diverged at line 2, 0.001 ms into the trace (t=1000)", NULL);
    expect_replay(HEADER("1", "1.5") DIVERGING_ROOT, NG_E_PARSE, 1, "\"at_ns\" is 1.5, not an integer", NULL);
    /* The version: only a newer one is "a newer NavGuard wrote it". */
    expect_replay(HEADER("0", "0") DIVERGING_ROOT, NG_E_PARSE, 1, "\"navguard_trace\" is 0: a trace format version is a whole number from 1", "newer");
    expect_replay(HEADER("-1", "0") DIVERGING_ROOT, NG_E_PARSE, 1, "\"navguard_trace\" is -1:", "newer");
    expect_replay(HEADER("1.5", "0") DIVERGING_ROOT, NG_E_PARSE, 1, "\"navguard_trace\" is 1.5:", "newer");
    expect_replay(HEADER("\"1\"", "0") DIVERGING_ROOT, NG_E_PARSE, 1, "\"navguard_trace\" is \"1\":", "newer");
    expect_replay(HEADER("-9223372036854775808", "0") DIVERGING_ROOT, NG_E_PARSE, 1, "a whole number from 1", "newer");
    expect_replay(HEADER("2", "0") DIVERGING_ROOT, NG_E_RANGE, 1, "trace format version 2; this library reads version 1 (a newer NavGuard wrote it)", NULL);
    /* Numbers in records: refused with their field's name, never cut to fit. */
    expect_replay(HEADER("1", "0") "{\"k\":\"call\",\"fn\":\"root\",\"t\":-5,\"screen\":{\"id\":1,\"route\":\"home\"},\"ret\":{\"st\":\"NG_OK\"}}\n",
                  NG_E_PARSE, 2, "line 2: \"t\" is -5: a trace's times are nanoseconds >= 0", NULL);
    expect_replay(HEADER("1", "0")
                  "{\"k\":\"call\",\"fn\":\"root\",\"t\":10,\"screen\":{\"id\":1,\"route\":\"home\"},\"ret\":{\"st\":\"NG_OK\"}}\n"
                  "{\"k\":\"call\",\"fn\":\"submit\",\"t\":20,\"req\":{\"kind\":\"push\",\"flags\":4294967297,\"source\":0,"
                  "\"screen\":{\"id\":2,\"route\":\"menu\"}},\"ret\":{\"st\":\"NG_OK\"}}\n",
                  NG_E_PARSE, 3, "line 3: \"flags\" is 4294967297, not an integer in 0...4294967295", NULL);
    expect_replay(HEADER("1", "0")
                  "{\"k\":\"call\",\"fn\":\"root\",\"t\":10,\"screen\":{\"id\":-1,\"route\":\"home\"},\"ret\":{\"st\":\"NG_OK\"}}\n",
                  NG_E_PARSE, 2, "\"id\" is -1, not an integer in 0...18446744073709551615", NULL);
    expect_replay(HEADER("1", "0")
                  "{\"k\":\"call\",\"fn\":\"root\",\"t\":10,\"screen\":{\"id\":1,\"route\":\"home\"},\"ret\":{\"st\":\"NG_OK\"}}\n"
                  "{\"k\":\"call\",\"fn\":\"hold_begin\",\"t\":20,\"mask\":-1,\"max_ns\":0,\"ret\":{\"st\":\"NG_OK\",\"token\":1}}\n",
                  NG_E_PARSE, 3, "\"mask\" is -1, not an integer in 0...4294967295", NULL);
    expect_replay(HEADER("1", "0")
                  "{\"k\":\"call\",\"fn\":\"root\",\"t\":10,\"screen\":{\"id\":1,\"route\":\"home\"},\"ret\":{\"st\":\"NG_OK\"}}\n"
                  "{\"k\":\"call\",\"fn\":\"interactive_update\",\"t\":20,\"progress\":\"half\",\"ret\":{\"st\":\"NG_E_NOT_FOUND\"}}\n",
                  NG_E_PARSE, 3, "\"progress\" is \"half\", not a number", NULL);
    /* Counters a mid-session trace continues from: ids count up from them
     * (a hold token of UINT64_MAX overflowed at the first hold_begin). */
    expect_replay("{\"navguard_trace\":1,\"clock\":\"manual\",\"start\":\"mid-session\",\"at_ns\":0,"
                  "\"state\":{\"next_hold_token\":\"18446744073709551615\",\"stack\":[{\"id\":1,\"route\":\"home\"}]}}\n"
                  "{\"k\":\"call\",\"fn\":\"hold_begin\",\"t\":10,\"mask\":0,\"max_ns\":0,\"ret\":{\"st\":\"NG_OK\",\"token\":1}}\n",
                  NG_E_PARSE, 1, "\"state.next_hold_token\" is 18446744073709551615, above 2^53", NULL);
    expect_replay("{\"navguard_trace\":1,\"clock\":\"manual\",\"start\":\"create\",\"at_ns\":0,"
                  "\"posted_base\":\"18446744073709551615\"}\n" DIVERGING_ROOT,
                  NG_E_PARSE, 1, "\"posted_base\" is \"18446744073709551615\", not an integer in 1...2^63", NULL);
    /* A kind number outside Int32 is an unknown kind, not cut to "push" (0). */
    expect_replay(HEADER("1", "0")
                  "{\"k\":\"call\",\"fn\":\"root\",\"t\":10,\"screen\":{\"id\":1,\"route\":\"home\"},\"ret\":{\"st\":\"NG_OK\"}}\n"
                  "{\"k\":\"call\",\"fn\":\"submit\",\"t\":20,\"req\":{\"kind\":4294967296,\"screen\":{\"id\":2,\"route\":\"menu\"}},"
                  "\"ret\":{\"st\":\"NG_OK\"}}\n",
                  NG_E_PARSE, 3, "a request with an unknown kind", NULL);
}

/* ------------------------------------------------------------------------ */
/* 3: FIFOs where files are looked for                                       */
/* ------------------------------------------------------------------------ */

static void test_fifos(void) {
    char dir[] = "/tmp/navguard-fifo-XXXXXX";
    if (!mkdtemp(dir)) {
        EXPECT(0, "mkdtemp");
        return;
    }
    char fifo[PATH_MAX + 16], json[2 * PATH_MAX];
    snprintf(fifo, sizeof fifo, "%s/x.so", dir);
    if (mkfifo(fifo, 0600) != 0) {
        EXPECT(0, "mkfifo %s", fifo);
        rmdir(dir);
        return;
    }
    /* Opening a FIFO for reading waits for a writer: before the fix each
     * call below blocked forever. SIGALRM's default action ends the test. */
    alarm(30);
    host h;
    ng_context *ctx = new_ctx(&h);
    EXPECT_ST(ctx, ng_plugin_load(ctx, fifo, NULL), NG_E_LOAD);
    EXPECT(strstr(ng_errmsg(ctx), fifo) && strstr(ng_errmsg(ctx), "it is a FIFO, not a regular file"), "errmsg: %s",
           ng_errmsg(ctx));
    snprintf(json, sizeof json, "{\"guards\":[{\"path\":\"%s\"}]}", fifo);
    EXPECT_ST(ctx, ng_chain_configure(ctx, json), NG_E_LOAD);
    EXPECT(strstr(ng_errmsg(ctx), "it is a FIFO"), "errmsg: %s", ng_errmsg(ctx));
    EXPECT_ST(ctx, ng_chain_configure_file(ctx, fifo), NG_E_LOAD);
    EXPECT(strstr(ng_errmsg(ctx), "cannot read chain configuration") && strstr(ng_errmsg(ctx), "it is a FIFO"),
           "errmsg: %s", ng_errmsg(ctx));
    EXPECT_ST(ctx, ng_plugin_load(ctx, "/dev/null", NULL), NG_E_LOAD);
    EXPECT(strstr(ng_errmsg(ctx), "a character device"), "errmsg: %s", ng_errmsg(ctx));
    EXPECT_ST(ctx, ng_chain_configure_file(ctx, "/dev/null"), NG_E_LOAD);

    /* On the search path: an unknown id lists the guards found there, and
     * the FIFO is skipped; the id naming it gets NG_E_LOAD. */
    const char *old = getenv("NAVGUARD_PLUGIN_PATH");
    char *saved = old ? strdup(old) : NULL;
    setenv("NAVGUARD_PLUGIN_PATH", dir, 1);
    EXPECT_ST(ctx, ng_chain_configure(ctx, "{\"guards\":[{\"id\":\"org.example.nosuch\"}]}"), NG_E_LOAD);
    EXPECT(strstr(ng_errmsg(ctx), "unknown guard id \"org.example.nosuch\"") && strstr(ng_errmsg(ctx), "org.navguard.watchdog"),
           "lists what the search path has, the FIFO skipped: %s", ng_errmsg(ctx));
    EXPECT_ST(ctx, ng_chain_configure(ctx, "{\"guards\":[{\"id\":\"org.example.x\"}]}"), NG_E_LOAD);
    EXPECT(strstr(ng_errmsg(ctx), "it is a FIFO"), "errmsg: %s", ng_errmsg(ctx));
    /* The built-in directory still serves the ids it has. */
    EXPECT_ST(ctx, ng_chain_configure(ctx, "{\"guards\":[{\"id\":\"org.navguard.throttle\"}]}"), NG_OK);
    if (saved) {
        setenv("NAVGUARD_PLUGIN_PATH", saved, 1);
        free(saved);
    } else {
        unsetenv("NAVGUARD_PLUGIN_PATH");
    }
    alarm(0);
    EXPECT_ST(ctx, ng_context_destroy(ctx), NG_OK);
    unlink(fifo);
    rmdir(dir);
}

/* ------------------------------------------------------------------------ */
/* 5: the work one call may set off                                          */
/* ------------------------------------------------------------------------ */

typedef struct {
    const ng_guard_host *h;
    long notices;
    long refused;
} runaway;
static runaway g_runaway;

static void *runaway_create(const ng_guard_host *h, const char *config) {
    (void)config;
    memset(&g_runaway, 0, sizeof g_runaway);
    g_runaway.h = h;
    return &g_runaway;
}

/* Two notices (began, ended) for every notice: without a cap, the queue
 * grew until the process aborted ("failed to allocate 1778384640 bytes"). */
static void runaway_on_hold(void *instance, const ng_hold_notice *n) {
    runaway *g = instance;
    (void)n;
    g->notices++;
    uint64_t t = 0;
    if (g->h->hold_begin(g->h, "again", 0, 0, &t) != NG_OK) {
        g->refused++;
        return;
    }
    g->h->hold_end(g->h, t);
}

static void test_work_cap(void) {
    host h;
    ng_context *ctx = new_ctx(&h);
    static ng_plugin_descriptor d = TEST_DESCRIPTOR("org.navguard.test.runaway", NULL);
    d.create = runaway_create;
    d.on_hold = runaway_on_hold;
    MUST(ctx, ng_chain_add(ctx, &d, NULL));
    h.submit_once = true;
    uint64_t token = 0;
    EXPECT_ST(ctx, ng_hold_begin(ctx, "start", 0, 0, &token), NG_E_NO_MEMORY);
    EXPECT(strstr(ng_errmsg(ctx), "the call was done, but more than 65536 pieces of work") &&
               strstr(ng_errmsg(ctx), "guard org.navguard.test.runaway's hooks"),
           "errmsg: %s", ng_errmsg(ctx));
    EXPECT(token != 0 && hold_count(ctx) == 1, "the call's own effect stands: the hold is live (token %llu, %zu holds)",
           (unsigned long long)token, hold_count(ctx));
    EXPECT(g_runaway.notices > NG_MAX_WORK / 2 && g_runaway.notices < 2L * NG_MAX_WORK + 64, "bounded: %ld notices",
           g_runaway.notices);
    EXPECT(g_runaway.refused >= 1, "the guard's hold_begin was refused past the cap (%ld)", g_runaway.refused);
    EXPECT(h.error_logs == 1 && strcmp(h.last_error_guard, "org.navguard.test.runaway") == 0 &&
               strstr(h.last_error, "NG_MAX_WORK"),
           "one error log naming the guard (%d, %s): %s", h.error_logs, h.last_error_guard, h.last_error);
    EXPECT(h.queued_id != 0 && h.queued_id < MAX_IDS && h.outcomes[h.queued_id] == 1 &&
               h.outcome[h.queued_id] == NG_OUTCOME_APPLIED,
           "the request made from a callback got its one outcome (id %llu)", (unsigned long long)h.queued_id);
    /* Usable afterwards: a request with no hold in play is untouched. */
    ng_request rq = NG_REQUEST_INIT(NG_REQ_PUSH);
    rq.screen.id = 3;
    rq.screen.route = "after";
    ng_request_result res = NG_REQUEST_RESULT_INIT;
    EXPECT_ST(ctx, ng_request_submit(ctx, &rq, &res), NG_OK);
    EXPECT(res.status == NG_OUTCOME_APPLIED && h.outcomes[res.request_id] == 1, "applied: %s", ng_outcome_name(res.status));
    /* The next hold notice starts it again, and it is cut again. */
    EXPECT_ST(ctx, ng_hold_end(ctx, token), NG_E_NO_MEMORY);
    EXPECT(hold_count(ctx) == 0 && h.error_logs == 2, "%zu holds, %d error logs", hold_count(ctx), h.error_logs);
    EXPECT_ST(ctx, ng_context_destroy(ctx), NG_OK);

    /* The host's own callbacks feeding it: the log names no guard. */
    ctx = new_ctx(&h);
    h.host_runaway = true;
    EXPECT_ST(ctx, ng_hold_begin(ctx, "start", 0, 0, &token), NG_OK);
    EXPECT_ST(ctx, ng_hold_end(ctx, token), NG_E_NO_MEMORY);
    EXPECT(strstr(ng_errmsg(ctx), "the host's callbacks"), "errmsg: %s", ng_errmsg(ctx));
    EXPECT(h.host_refused >= 1 && h.error_logs == 1 && strcmp(h.last_error_guard, "(null)") == 0,
           "refused %ld, %d error logs, guard %s", h.host_refused, h.error_logs, h.last_error_guard);
    EXPECT(h.holds_ended > NG_MAX_WORK / 4 && h.holds_ended < NG_MAX_WORK + 64, "bounded: %d hold ends", h.holds_ended);
    EXPECT(hold_count(ctx) == 0, "no hold left behind (%zu)", hold_count(ctx));
    h.host_runaway = false;
    EXPECT_ST(ctx, ng_hold_begin(ctx, "quiet", 0, 0, &token), NG_OK);
    EXPECT_ST(ctx, ng_hold_end(ctx, token), NG_OK);
    EXPECT_ST(ctx, ng_context_destroy(ctx), NG_OK);
}

/* Issue 26, item 8: a guard whose on_outcome makes a request (request_submit)
 * for every outcome it hears. Its requests' evaluations and outcome notices
 * are its work; before, the notices counted to the host and the log blamed
 * "the host's callbacks" with guard_id NULL. */
typedef struct {
    const ng_guard_host *h;
    long made, refused;
} resubmitter;
static resubmitter g_resubmit;

static void *resubmit_create(const ng_guard_host *h, const char *config) {
    (void)config;
    memset(&g_resubmit, 0, sizeof g_resubmit);
    g_resubmit.h = h;
    return &g_resubmit;
}

static void resubmit_on_outcome(void *instance, const ng_outcome *o) {
    resubmitter *g = instance;
    (void)o;
    ng_request pop = NG_REQUEST_INIT(NG_REQ_POP);   /* at the root: refused at-root, another outcome */
    uint64_t id = 0;
    ng_status st = g->h->request_submit(g->h, &pop, &id);
    if (st == NG_OK) g->made++;
    else if (st == NG_E_NO_MEMORY) g->refused++;
}

static void test_work_cap_names_a_guards_requests(void) {
    host h;
    ng_context *ctx = new_ctx(&h);
    static ng_plugin_descriptor d = TEST_DESCRIPTOR("org.navguard.test.resubmit", NULL);
    d.create = resubmit_create;
    d.on_outcome = resubmit_on_outcome;
    MUST(ctx, ng_chain_add(ctx, &d, NULL));
    ng_request rq = NG_REQUEST_INIT(NG_REQ_PUSH);
    rq.screen.id = 2;
    rq.screen.route = "menu";
    ng_request_result res = NG_REQUEST_RESULT_INIT;
    EXPECT_ST(ctx, ng_request_submit(ctx, &rq, &res), NG_E_NO_MEMORY);
    EXPECT(strstr(ng_errmsg(ctx), "guard org.navguard.test.resubmit's hooks"), "errmsg: %s", ng_errmsg(ctx));
    EXPECT(h.error_logs == 1 && strcmp(h.last_error_guard, "org.navguard.test.resubmit") == 0 &&
               strstr(h.last_error, "NG_MAX_WORK"),
           "one error log naming the guard (%d, guard %s): %s", h.error_logs, h.last_error_guard, h.last_error);
    EXPECT(res.status == NG_OUTCOME_APPLIED && h.outcomes[res.request_id] == 1, "the host's push: %s, %d outcomes",
           ng_outcome_name(res.status), h.outcomes[res.request_id]);
    EXPECT(g_resubmit.made > NG_MAX_WORK / 4 && g_resubmit.made < NG_MAX_WORK + 64 && g_resubmit.refused >= 1,
           "bounded: %ld requests made, %ld refused", g_resubmit.made, g_resubmit.refused);
    EXPECT(h.guard_outcomes == g_resubmit.made, "every request the guard made got its outcome (%ld of %ld)",
           h.guard_outcomes, g_resubmit.made);
    EXPECT_ST(ctx, ng_context_destroy(ctx), NG_OK);
}

/* ------------------------------------------------------------------------ */
/* 7: slow votes                                                             */
/* ------------------------------------------------------------------------ */

static ng_context *g_slow_ctx;
static int64_t g_vote_block_ns, g_event_block_ns;

/* "Blocks" by moving the manual clock inside the hook (a test shortcut: a
 * guard must never call the API on its context). */
static ng_vote slow_on_request(void *instance, const ng_guard_request *r, ng_verdict *v) {
    (void)instance;
    (void)r;
    (void)v;
    if (g_vote_block_ns) ng_clock_advance(g_slow_ctx, g_vote_block_ns);
    return NG_VOTE_ALLOW;
}

static ng_vote slow_on_event(void *instance, const ng_guard_event *e, ng_verdict *v) {
    (void)instance;
    (void)e;
    (void)v;
    if (g_event_block_ns) ng_clock_advance(g_slow_ctx, g_event_block_ns);
    return NG_VOTE_ALLOW;
}

static void test_slow_votes(void) {
    host h;
    ng_context *ctx = new_ctx(&h);
    g_slow_ctx = ctx;
    char path[PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/watchdog.so", g_plugin_dir);
    MUST(ctx, ng_plugin_load(ctx, path, "{\"transition_limit_ms\":2000}"));
    static ng_plugin_descriptor d = TEST_DESCRIPTOR("org.navguard.test.slow", NULL);
    d.on_request = slow_on_request;
    d.on_event = slow_on_event;
    MUST(ctx, ng_chain_add(ctx, &d, NULL));

    g_vote_block_ns = 3000 * MS;
    ng_request rq = NG_REQUEST_INIT(NG_REQ_PUSH);
    rq.flags = NG_REQF_ANIMATED;
    rq.screen.id = 2;
    rq.screen.route = "menu";
    ng_request_result res = NG_REQUEST_RESULT_INIT;
    EXPECT_ST(ctx, ng_request_submit(ctx, &rq, &res), NG_OK);
    g_vote_block_ns = 0;
    EXPECT(res.status == NG_OUTCOME_APPLIED, "applied: %s", ng_outcome_name(res.status));
    EXPECT(h.warn_logs == 1 && strcmp(h.last_warn_guard, "org.navguard.test.slow") == 0 &&
               strstr(h.last_warn, "slow vote: guard org.navguard.test.slow took 3000.0 ms to vote on request") &&
               strstr(h.last_warn, "over the 100 ms limit"),
           "a warning names the slow guard (%d, %s): %s", h.warn_logs, h.last_warn_guard, h.last_warn);
    int64_t now = 0;
    MUST(ctx, ng_now(ctx, &now));
    ng_track_info ti = NG_TRACK_INFO_INIT;
    EXPECT_ST(ctx, ng_track_get(ctx, NG_TRACK_SCREEN, &ti), NG_OK);
    EXPECT(ti.began_ns == now && now == 4000 * MS, "the transition began after the vote (began %lld, now %lld)",
           (long long)ti.began_ns, (long long)now);

    /* 1.5 s after the call returned: younger than the watchdog's 2 s. */
    MUST(ctx, ng_clock_advance(ctx, 1500 * MS));
    MUST(ctx, ng_tick(ctx));
    bool busy = false;
    MUST(ctx, ng_transition_in_flight(ctx, NG_TRACK_SCREEN, &busy, NULL));
    EXPECT(busy && h.reports == 0, "still in flight, no report");
    /* 2.5 s: the watchdog finishes it, and its report names the slow vote. */
    MUST(ctx, ng_clock_advance(ctx, 1000 * MS));
    MUST(ctx, ng_tick(ctx));
    MUST(ctx, ng_transition_in_flight(ctx, NG_TRACK_SCREEN, &busy, NULL));
    EXPECT(!busy && h.reports == 1, "finished by the watchdog (%d reports)", h.reports);
    EXPECT(strstr(h.report, "slow votes since the last report: 1 request over 100 ms; the slowest: guard "
                            "org.navguard.test.slow, 3000.0 ms on request"),
           "the report says so: %s", h.report);

    /* The event path reads no clock: a hook that blocks there is not timed. */
    g_event_block_ns = 3000 * MS;
    ng_event ev = NG_EVENT_INIT(NG_EVENT_KEY);
    ng_event_result er = NG_EVENT_RESULT_INIT;
    EXPECT_ST(ctx, ng_event_submit(ctx, &ev, &er), NG_OK);
    g_event_block_ns = 0;
    EXPECT(h.warn_logs == 1, "no warning from the event path (%d): %s", h.warn_logs, h.last_warn);
    EXPECT_ST(ctx, ng_context_destroy(ctx), NG_OK);
}

/* The same on the monotonic clock, where votes are timed with the coarse
 * clock (CLOCK_MONOTONIC_COARSE): a vote that really sleeps 250 ms is named.
 * (No timing is asserted: a sleep of 250 ms is over the 100 ms limit on any
 * machine.) */
static ng_vote sleepy_on_request(void *instance, const ng_guard_request *r, ng_verdict *v) {
    (void)instance;
    (void)r;
    (void)v;
    struct timespec d = { 0, 250 * 1000000L };
    nanosleep(&d, NULL);
    return NG_VOTE_ALLOW;
}

static void test_slow_vote_monotonic(void) {
    host h;
    memset(&h, 0, sizeof h);
    ng_options o = NG_OPTIONS_INIT;
    o.delegate.user = &h;
    o.delegate.on_log = on_log;
    ng_context *ctx = NULL;
    MUST(ctx, ng_context_create(&o, &ctx));
    ng_screen root = { 1, "home", NULL };
    MUST(ctx, ng_stack_set_root(ctx, &root));
    static ng_plugin_descriptor d = TEST_DESCRIPTOR("org.navguard.test.sleepy", NULL);
    d.on_request = sleepy_on_request;
    MUST(ctx, ng_chain_add(ctx, &d, NULL));
    ng_request rq = NG_REQUEST_INIT(NG_REQ_PUSH);
    rq.screen.id = 2;
    rq.screen.route = "menu";
    ng_request_result res = NG_REQUEST_RESULT_INIT;
    EXPECT_ST(ctx, ng_request_submit(ctx, &rq, &res), NG_OK);
    EXPECT(h.warn_logs == 1 && strcmp(h.last_warn_guard, "org.navguard.test.sleepy") == 0 &&
               strstr(h.last_warn, "slow vote: guard org.navguard.test.sleepy took "),
           "a warning names the sleeping guard (%d, %s): %s", h.warn_logs, h.last_warn_guard, h.last_warn);
    EXPECT_ST(ctx, ng_context_destroy(ctx), NG_OK);
}

/* ------------------------------------------------------------------------ */
/* 8a: the flight recorder's writer calling the API                          */
/* ------------------------------------------------------------------------ */

static ng_context *g_wctx;
static int g_writes, g_depth, g_max_depth, g_tried, g_not_refused;
static char g_not_refused_what[256];

#define TRY_IN_WRITER(call)                                                      \
    do {                                                                         \
        ng_status st_ = (call);                                                  \
        g_tried++;                                                               \
        if (st_ != NG_E_CALLBACK && st_ != NG_E_HANDLE) {                        \
            g_not_refused++;                                                     \
            snprintf(g_not_refused_what, sizeof g_not_refused_what, "%s: %s", #call, ng_strstatus(st_)); \
        }                                                                        \
    } while (0)

static bool writer(void *user, const char *data, size_t len) {
    (void)user;
    (void)data;
    (void)len;
    g_writes++;
    if (++g_depth > g_max_depth) g_max_depth = g_depth;
    /* Re-entered: the calls below were accepted and wrote again. Stop here,
     * or the nesting never ends (it passed 10,000 before the fix). */
    if (g_depth > 3) {
        g_depth--;
        return true;
    }
    ng_context *ctx = g_wctx;
    size_t n = 0;
    TRY_IN_WRITER(ng_stack_count(ctx, &n));
    ng_request rq = NG_REQUEST_INIT(NG_REQ_PUSH);
    rq.screen.id = 9;
    rq.screen.route = "from-writer";
    ng_request_result res = NG_REQUEST_RESULT_INIT;
    TRY_IN_WRITER(ng_request_submit(ctx, &rq, &res));
    uint64_t t = 0;
    TRY_IN_WRITER(ng_hold_begin(ctx, "w", 0, 0, &t));
    TRY_IN_WRITER(ng_tick(ctx));
    TRY_IN_WRITER(ng_clock_advance(ctx, 1));
    TRY_IN_WRITER(ng_record_dump(ctx, NULL));
    TRY_IN_WRITER(ng_record_stop(ctx));
    TRY_IN_WRITER(ng_context_detach(ctx));
    TRY_IN_WRITER(ng_context_destroy(ctx));
    g_depth--;
    return true;
}

static void test_recorder_writer(void) {
    host h;
    ng_context *ctx = new_ctx(&h);
    g_wctx = ctx;
    ng_record_options ro = NG_RECORD_OPTIONS_INIT;
    ro.write = writer;
    EXPECT_ST(ctx, ng_record_start(ctx, &ro), NG_OK);   /* the header is written at once */
    EXPECT(g_writes == 1, "the header went to the writer (%d)", g_writes);
    EXPECT_ST(ctx, ng_record_dump(ctx, NULL), NG_OK);   /* nothing buffered: no write */
    ng_request rq = NG_REQUEST_INIT(NG_REQ_PUSH);
    rq.screen.id = 2;
    rq.screen.route = "menu";
    ng_request_result res = NG_REQUEST_RESULT_INIT;
    EXPECT_ST(ctx, ng_request_submit(ctx, &rq, &res), NG_OK);
    EXPECT_ST(ctx, ng_record_dump(ctx, NULL), NG_OK);
    EXPECT(g_writes == 2, "the submit's lines were written (%d)", g_writes);
    EXPECT(g_max_depth == 1 && g_not_refused == 0 && g_tried == 2 * 9,
           "every call from the writer refused, none nested (depth %d, tried %d): %s", g_max_depth, g_tried,
           g_not_refused_what);
    /* The context is whole: still owned here, still recording, still going. */
    size_t n = 0;
    EXPECT_ST(ctx, ng_stack_count(ctx, &n), NG_OK);
    EXPECT(n == 2, "the writer's push was not made (%zu screens)", n);
    EXPECT_ST(ctx, ng_tick(ctx), NG_OK);
    /* The last flush runs inside ng_context_destroy: its destroy is refused too. */
    int before = g_writes;
    EXPECT_ST(ctx, ng_context_destroy(ctx), NG_OK);
    EXPECT(g_writes == before + 1 && g_max_depth == 1 && g_not_refused == 0, "destroy's flush (%d writes): %s",
           g_writes - before, g_not_refused_what);
}

int main(void) {
    const char *dir = getenv("NAVGUARD_TEST_PLUGIN_DIR");
#ifdef NAVGUARD_TEST_PLUGIN_DIR
    if (!dir || !*dir) dir = NAVGUARD_TEST_PLUGIN_DIR;
#endif
    snprintf(g_plugin_dir, sizeof g_plugin_dir, "%s", dir ? dir : ".");
    setenv("NAVGUARD_PLUGIN_DIR", g_plugin_dir, 1);
    test_option_declarations();
    test_trace_numbers();
    test_fifos();
    test_work_cap();
    test_work_cap_names_a_guards_requests();
    test_slow_votes();
    test_slow_vote_monotonic();
    test_recorder_writer();
    printf("test_hardening: %d checks, %d failures\n", g_checks, g_failures);
    return g_failures ? 1 : 0;
}
